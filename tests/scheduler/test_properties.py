"""Invariants of a scheduling cycle over generated clusters (tests/strategies.py).

Expectations come from kube-scheduler's semantics, not from podwhy's code paths:
- schedule_one.go: a node is feasible when RunFilterPluginsWithNominatedPods returns success,
  i.e. every Filter plugin returns Success (a Skip plugin is not run at all);
- framework/runtime: RunPreFilterPlugins returns at the first UnschedulableAndUnresolvable,
  RunFilterPlugins stops at the first plugin that does not succeed, in the profile's order,
  and wraps a non-rejecting status as `running "<plugin>" filter plugin: <message>`;
- Filter plugins see one node each; only PodTopologySpread (domains and counts) and
  InterPodAffinity (the pods on other nodes) look across nodes;
- prioritizeNodes: NormalizeScore leaves scores in [0, 100], a node's total is the sum of
  score x weight.

The number of examples comes from the hypothesis profile (tests/conftest.py): the default one
keeps this file fast; HYPOTHESIS_PROFILE=deep runs many more (see CONTRIBUTING.md, "Deeper checks").
"""

from __future__ import annotations

import io
import json
from typing import Any

import msgspec
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from podwhy.report.build.explain import build_report
from podwhy.report.model import NodeReport, PluginStatus, PreFilterEntry, Report, StatusName, encode_json
from podwhy.report.render.explain import render_table
from podwhy.scheduler.config import default_profile
from podwhy.scheduler.cycle import run_cycle
from podwhy.verdict import Verdict
from tests.builders import make_node
from tests.strategies import Cluster, clusters, node_builders

PASSING = (StatusName.SUCCESS, StatusName.SKIP)
REJECTING = (StatusName.UNSCHEDULABLE, StatusName.UNSCHEDULABLE_AND_UNRESOLVABLE)


def explain(cluster: Cluster, *extra_nodes: Any) -> Report:
    snapshot = cluster.snapshot(*extra_nodes)
    return build_report(run_cycle(snapshot, cluster.pod), snapshot)


def _status(st: PluginStatus | None) -> tuple[str, str, tuple[str, ...]] | None:
    return None if st is None else (st.plugin, st.status.value, tuple(st.reasons))


# ---------------------------------------------------------------------- feasibility


@given(clusters())
def test_feasible_iff_every_filter_passes(cluster: Cluster) -> None:
    report = explain(cluster)
    assert [n.name for n in report.nodes] == cluster.node_names
    for node in report.nodes:
        # The filter rows are the profile's Filter plugins, each with its own verdict.
        assert [f.plugin for f in node.filters] == default_profile().filter
        assert node.feasible == all(f.status in PASSING for f in node.filters), node.name
    assert report.feasibleNodes == [n.name for n in report.nodes if n.feasible]
    if report.verdict not in (Verdict.GATED, Verdict.ERROR):
        assert (report.verdict == Verdict.SCHEDULABLE) == bool(report.feasibleNodes)


def _in_profile_order(report: Report) -> list[PreFilterEntry]:
    order = default_profile().pre_filter
    return sorted(report.preFilter, key=lambda entry: order.index(entry.plugin))


def _pre_filter_failure(report: Report) -> tuple[str, tuple[str, ...]] | None:
    """RunPreFilterPlugins' failure (status, reasons): the first UnschedulableAndUnresolvable,
    else the last Unschedulable, else an empty intersection of the plugins' node sets."""
    unschedulable = None
    nodes: set[str] | None = None
    with_nodes: list[str] = []
    for entry in _in_profile_order(report):
        if entry.status == StatusName.UNSCHEDULABLE_AND_UNRESOLVABLE:
            return entry.status.value, tuple(entry.reasons)
        if entry.status == StatusName.UNSCHEDULABLE:
            unschedulable = (entry.status.value, tuple(entry.reasons))
            continue
        if entry.status == StatusName.SUCCESS and entry.nodeNames is not None:
            with_nodes.append(entry.plugin)
            nodes = set(entry.nodeNames) if nodes is None else nodes & set(entry.nodeNames)
            if not nodes:
                plugins = sorted(with_nodes)
                if len(plugins) == 1:
                    return "UnschedulableAndUnresolvable", (f"node(s) didn't satisfy plugin {plugins[0]}",)
                return "UnschedulableAndUnresolvable", (
                    f"node(s) didn't satisfy plugin(s) [{' '.join(plugins)}] simultaneously",
                )
    return unschedulable


def _pre_filter_nodes(report: Report) -> tuple[set[str] | None, list[str]]:
    """The intersection of the PreFilter node sets (None: all nodes) and the plugins that set one."""
    nodes: set[str] | None = None
    plugins = []
    for entry in _in_profile_order(report):
        if entry.status == StatusName.SUCCESS and entry.nodeNames is not None:
            plugins.append(entry.plugin)
            nodes = set(entry.nodeNames) if nodes is None else nodes & set(entry.nodeNames)
    return nodes, sorted(plugins)


def expected_first_failure(report: Report, node: NodeReport) -> tuple[str, tuple[str, ...]] | None:
    """Where kube-scheduler stops on a node without nominated pods: (status, reasons)."""
    pre_failure = _pre_filter_failure(report)
    if pre_failure is not None:
        return pre_failure  # no Filter plugin runs at all
    allowed, plugins = _pre_filter_nodes(report)
    if allowed is not None and node.name not in allowed:
        # findNodesThatFitPod gives the nodes a PreFilterResult leaves out this status.
        return "UnschedulableAndUnresolvable", (f"node(s) didn't satisfy plugin(s) [{' '.join(plugins)}]",)
    rows = {f.plugin: f for f in node.filters}
    for plugin in default_profile().filter:
        row = rows[plugin]
        if row.status in PASSING:
            continue
        if row.status in REJECTING:
            return row.status.value, tuple(row.reasons)
        return "Error", (f'running "{plugin}" filter plugin: {", ".join(row.reasons)}',)
    return None


@given(clusters())
def test_first_failure_is_the_first_non_success_in_profile_order(cluster: Cluster) -> None:
    report = explain(cluster)
    for node in report.nodes:
        if node.feasible:
            assert node.firstFailure is None
            continue
        assert node.firstFailure is not None, node.name
        # With nominated pods the scheduler filters twice (with them, then without them if that
        # passed) and stops at the first failure of the first pass: a plugin that fails only in
        # the second pass can sit earlier in the profile than the plugin where it stopped, so
        # "first non-success row" does not describe it. Those nodes are left out here
        # (tests/scheduler/test_nominated.py covers them).
        if node.nominatedPods:
            continue
        got = (node.firstFailure.status.value, tuple(node.firstFailure.reasons))
        assert got == expected_first_failure(report, node), node.name


# ---------------------------------------------------------------------- node independence


def _verdicts(report: Report) -> dict[str, Any]:
    return {
        n.name: (n.feasible, [_status(f) for f in n.filters], _status(n.firstFailure), [p.pod for p in n.nominatedPods])
        for n in report.nodes
    }


_DO_NOT_SCHEDULE = "DoNotSchedule"


@st.composite
def unusable_nodes(draw: st.DrawFn, cluster: Cluster) -> Any:
    """A node the pod can never use (room for no pod at all), with no pods on it.

    Its labels must not make it a new PodTopologySpread domain: upstream counts every node
    that has all the DoNotSchedule constraints' topology keys (and passes their inclusion
    policies) as a domain, even one the pod cannot use, and a new empty domain lowers the
    global minimum. So the node lacks those keys; a pod without such constraints leaves its
    labels as generated.
    """
    builder = draw(node_builders("extra-node"))
    builder.raw["status"]["allocatable"]["pods"] = "0"
    keys = {
        c.topology_key for c in cluster.pod.spec.topology_spread_constraints if c.when_unsatisfiable == _DO_NOT_SCHEDULE
    }
    for key in keys:
        builder.raw["metadata"]["labels"].pop(key, None)
    return builder.obj()


@given(st.data())
def test_adding_a_node_the_pod_cannot_use_changes_no_other_verdict(data: st.DataObject) -> None:
    cluster = data.draw(clusters())
    extra = data.draw(unusable_nodes(cluster))
    before = explain(cluster)
    after = explain(cluster, extra)
    added = after.node("extra-node")
    assert added is not None and not added.feasible
    after_verdicts = _verdicts(after)
    del after_verdicts["extra-node"]
    assert after_verdicts == _verdicts(before)
    assert after.feasibleNodes == before.feasibleNodes


def test_a_new_spread_domain_does_change_verdicts() -> None:
    """Why the node above must not be a new domain: an empty zone, even on a node the pod
    cannot use, lowers the global minimum of a DoNotSchedule constraint (upstream semantics)."""
    from tests.builders import make_pod, make_snapshot

    nodes = [make_node("a").zone("zone-a").obj(), make_node("b").zone("zone-b").obj()]
    bound = [make_pod(f"p{i}").labels(app="web").node("a").obj() for i in range(2)]
    bound.append(make_pod("q").labels(app="web").node("b").obj())
    pod = (
        make_pod("target")
        .labels(app="web")
        .spread(1, "topology.kubernetes.io/zone", selector={"matchLabels": {"app": "web"}})
    )
    full = make_node("c").zone("zone-c").alloc(cpu="4", memory="8Gi", pods="0").obj()

    def feasible(*extra: Any) -> list[str]:
        snapshot = make_snapshot(*nodes, *extra, *bound, pod.obj())
        return run_cycle(snapshot, pod.obj()).outcome.feasible  # type: ignore[union-attr]

    assert feasible() == ["b"]
    assert feasible(full) == []


# ---------------------------------------------------------------------- scores


@given(clusters())
def test_scores_are_normalized_and_totals_are_weighted_sums(cluster: Cluster) -> None:
    report = explain(cluster)
    weights = default_profile().score
    for node in report.nodes:
        if not node.feasible:
            assert node.scores == [] and node.totalScore is None, node.name
            continue
        if report.verdict == Verdict.ERROR:
            continue
        assert node.scores, node.name
        assert [s.plugin for s in node.scores] == [p for p in weights if p in {s.plugin for s in node.scores}]
        for entry in node.scores:
            assert 0 <= entry.normalized <= 100, (node.name, entry)
            assert entry.weight == weights[entry.plugin]
            assert entry.weighted == entry.normalized * entry.weight
        assert node.totalScore == sum(s.weighted for s in node.scores)
    totals = {n.name: n.totalScore for n in report.nodes if n.totalScore is not None}
    if totals and report.nominatedNodeFits is False and report.verdict != Verdict.ERROR:
        top = max(totals.values())
        assert sorted(report.bestNodes) == sorted(name for name, total in totals.items() if total == top)


# ---------------------------------------------------------------------- outputs


@given(cluster=clusters())
def test_json_report_validates_against_the_schema(cluster: Cluster, report_schema_validator: Any) -> None:
    report = explain(cluster)
    document = json.loads(encode_json(report))
    report_schema_validator.validate(document)
    # And it reads back into the same typed report.
    assert msgspec.json.decode(encode_json(report), type=Report) == report


MARKS = {"✓": PASSING[:1], "–": (StatusName.SKIP,), "✗": REJECTING, "?": (StatusName.NOT_EVALUATED,)}


def parse_verdict_table(text: str) -> tuple[list[str], dict[str, tuple[list[str], str]]]:
    """The nodes x plugins table of `-o wide`: its column headers and, per node, (marks, why)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("┏"))
    headers = [cell.strip() for cell in lines[start + 1].strip("┃").split("┃")]
    rows: dict[str, tuple[list[str], str]] = {}
    cells: list[list[str]] = []
    for line in lines[start + 3 :]:
        if line.startswith(("├", "└")):
            rows[cells[0][0]] = ([c[0] for c in cells[1:-1]], " ".join(cells[-1]).strip())
            cells = []
            if line.startswith("└"):
                break
            continue
        parts = [cell.strip() for cell in line.strip().strip("│").split("│")]
        if not cells:
            cells = [[p] for p in parts]
        else:
            for column, part in zip(cells, parts, strict=True):
                if part:
                    column.append(part)
    return headers, rows


@given(clusters())
def test_wide_table_and_json_agree_on_every_node(cluster: Cluster) -> None:
    report = explain(cluster)
    buffer = io.StringIO()
    render_table(report, wide=True, console=Console(file=buffer, width=400, color_system=None, highlight=False))
    headers, rows = parse_verdict_table(buffer.getvalue())
    assert sorted(rows) == sorted(n.name for n in report.nodes)
    # Columns: every plugin that does not Skip on every node, in profile order.
    shown = [
        i
        for i in range(len(default_profile().filter))
        if any(n.filters[i].status != StatusName.SKIP for n in report.nodes)
    ]
    assert len(headers) == len(shown) + 2
    for node in report.nodes:
        marks, why = rows[node.name]
        assert len(marks) == len(shown)
        for mark, i in zip(marks, shown, strict=True):
            status = node.filters[i].status
            assert status in MARKS.get(mark, ()) or (mark == "!" and status == StatusName.ERROR), (node.name, i, mark)
        assert (why == "fits") == node.feasible, node.name
        if node.firstFailure is not None:
            # The scheduler's stopping point is named first.
            assert why.startswith(f"{node.firstFailure.plugin}:"), (node.name, why)
