"""What reads a cycle's node verdicts once per group of nodes sharing their Status objects
(analysis/verdictgroups.py: blocking causes, suggestions, the report's nodes) finds what reading
every node on its own finds: compared with the per-node readings they replaced (kept here as
references) on generated clusters of a few node shapes, with node classes on and off, and on
the conformance cases."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings

from podwhy.analysis import blocking
from podwhy.analysis.blocking import (
    SELECTS_NOTHING,
    BlockingCause,
    MissingTopologyKey,
    NoAffinityMatch,
    NotAdvertised,
    SelectorMismatch,
    TooSmall,
    UntoleratedTaint,
    _pins,
    _spec_constraint,
    similar_labels,
    top_consumers,
)
from podwhy.analysis.suggest.order import suggest
from podwhy.analysis.verdictgroups import VerdictGroups
from podwhy.engine import find_pod, split_pod_ref
from podwhy.framework.evidence import (
    NodeAffinityTermEvidence,
    NodeSelectorEvidence,
    PodAffinityTermEvidence,
    ResourceEvidence,
    TaintEvidence,
    TopologySpreadEvidence,
)
from podwhy.framework.outcome import NodeVerdict
from podwhy.framework.status import Code, Status
from podwhy.helpers.resourcenames import is_extended_resource_name
from podwhy.model import objects as o
from podwhy.report.build.nodes import _Statuses, nodes_and_groups
from podwhy.report.model import encode_json
from podwhy.scheduler.config import default_profile
from podwhy.scheduler.cycle import CycleOutcome, run_cycle
from podwhy.snapshot.source import FileSource
from tests.conformance import case_dirs, case_meta, cluster_file
from tests.scheduler.test_node_classes import node_classes, shaped_clusters
from tests.strategies import Cluster


# ---------------------------------------------------------------- the per-node references
def _rejections(cycle: CycleOutcome) -> Iterable[tuple[str, str, Any]]:
    assert cycle.outcome is not None
    for verdict in cycle.outcome.nodes:
        for plugin, status in verdict.filters.items():
            if status.is_rejected() and status.not_evaluated is None:
                yield verdict.name, plugin, status


def per_node_blocking_causes(cycle: CycleOutcome, nodes: Iterable[o.Node], pods: Iterable[o.Pod] = ()) -> list[Any]:
    """blocking_causes as it read every node's statuses before the groups."""
    pods = list(pods)
    outcome = cycle.outcome
    if outcome is None or outcome.feasible or not outcome.nodes:
        return []
    total = len(outcome.nodes)
    plugin_order = {plugin: i for i, plugin in enumerate(outcome.nodes[0].filters)}
    resources: dict[tuple[str, str], list[tuple[str, ResourceEvidence]]] = {}
    taints: dict[tuple[str, str], list[str]] = {}
    missing_keys: dict[tuple[str, str], list[str]] = {}
    affinity: dict[tuple[Any, ...], list[str]] = {}
    selectors: dict[tuple[str, str, str], list[str]] = {}
    rejecting: dict[str, set[str]] = {}
    for node, plugin, status in _rejections(cycle):
        rejecting.setdefault(node, set()).add(plugin)
        for e in status.evidence:
            match e:
                case NodeSelectorEvidence():
                    selectors.setdefault((plugin, "nodeSelector", f"{e.key}={e.required}"), []).append(node)
                case NodeAffinityTermEvidence(source="pod", unmatched=list(unmatched)) if not _pins(unmatched):
                    selectors.setdefault((plugin, "nodeAffinity", "; ".join(unmatched)), []).append(node)
                case ResourceEvidence():
                    resources.setdefault((plugin, e.resource), []).append((node, e))
                case TaintEvidence():
                    taints.setdefault((plugin, e.taint), []).append(node)
                case TopologySpreadEvidence(missing_label=str(label)):
                    missing_keys.setdefault((plugin, label), []).append(node)
                case PodAffinityTermEvidence(rule="affinity", any_matching_pod=False):
                    selected = None if e.namespace_selector == SELECTS_NOTHING else e.namespace_selector
                    key = (plugin, e.selector, tuple(e.namespaces), selected, e.topology_key)
                    affinity.setdefault(key, []).append(node)
    causes: list[BlockingCause] = []
    for (plugin, resource), seen in resources.items():
        unadvertised = is_extended_resource_name(resource)
        absent = [(node, e) for node, e in seen if unadvertised and e.allocatable == 0]
        short = [(node, e) for node, e in seen if not (unadvertised and e.allocatable == 0)]
        if absent:
            names = tuple(node for node, _ in absent)
            causes.append(NotAdvertised(plugin, resource, absent[0][1].requested, names, len(names) == total))
        if short:
            node, most = max(short, key=lambda item: item[1].free)
            names = tuple(n for n, _ in short)
            consumers = top_consumers(pods, node, resource) if resource != "pods" else ()
            causes.append(
                TooSmall(
                    plugin, resource, most.unit, most.requested, most.free, node, names, len(names) == total, consumers
                )
            )
    causes.extend(UntoleratedTaint(plugin, taint, tuple(names)) for (plugin, taint), names in taints.items())
    node_keys = [key for node in nodes for key in node.metadata.labels] if missing_keys else []
    pod = cycle.pod.pod
    causes.extend(
        MissingTopologyKey(
            plugin, key, _spec_constraint(pod, key), tuple(names), len(names) == total, similar_labels(key, node_keys)
        )
        for (plugin, key), names in missing_keys.items()
    )
    causes.extend(NoAffinityMatch(*key, tuple(names)) for key, names in affinity.items())
    last = len(plugin_order)
    for (plugin, source, wanted), rejected in selectors.items():
        also = set.intersection(*(rejecting[node] - {plugin} for node in rejected))
        ordered = tuple(sorted(also, key=lambda name: plugin_order.get(name, last)))
        otherwise = all(rejecting[node] - {plugin} for node in rejected)
        causes.append(SelectorMismatch(plugin, source, wanted, tuple(rejected), ordered, otherwise))
    return sorted(causes, key=lambda c: (-len(c.nodes), plugin_order.get(c.plugin, len(plugin_order))))


def per_node_groups(verdicts: list[NodeVerdict]) -> bytes:
    """nodes_and_groups as it read every node's statuses before the groups (the report's nodes and
    groups, encoded)."""
    from podwhy.report.build.nodes import _group, _nominated
    from podwhy.report.model import NodeReport

    statuses = _Statuses()
    entries = []
    groups: dict[tuple[bool, int, tuple[int, ...]], list[Any]] = {}
    for verdict in verdicts:
        filters, tokens = [], []
        for name, st in verdict.filters.items():
            entry, token = statuses.of(name, st)
            filters.append(entry)
            tokens.append(token)
        ff = verdict.first_failure
        first, stop = statuses.of(ff.plugin, ff, with_evidence=False) if ff is not None else (None, -1)
        node = NodeReport(
            name=verdict.name,
            feasible=verdict.feasible,
            filters=filters,
            firstFailure=first,
            nominatedPods=_nominated(verdict) if verdict.nominated_pods else [],
            feasibleWithoutNominated=verdict.feasible_without_nominated,
            scores=[],
            totalScore=None,
        )
        entries.append(node)
        groups.setdefault((verdict.feasible, stop, tuple(tokens)), []).append(node)
    ordered = sorted(groups.values(), key=lambda members: -len(members))
    return encode_json([entries, [_group(members) for members in ordered]])


def per_node_only_failing(verdict: NodeVerdict, plugin: str) -> Any:
    failing = {name: st for name, st in verdict.filters.items() if st.is_rejected()}
    return failing.get(plugin) if set(failing) == {plugin} else None


# ---------------------------------------------------------------- the comparisons
def _check(snapshot: Any, cycle: CycleOutcome) -> None:
    outcome = cycle.outcome
    if outcome is None:
        return
    verdicts = outcome.nodes
    grouped = VerdictGroups(verdicts)
    # Every node in one group, in order; a group's members hold its statuses.
    assert sorted(p for g in grouped.groups for p in g.positions) == list(range(len(verdicts)))
    for position, index in enumerate(grouped.of_node):
        group, verdict = grouped.groups[index], verdicts[position]
        assert position in group.positions and verdict.name in group.names
        assert [(k, id(s)) for k, s in verdict.filters.items()] == [
            (k, id(s)) for k, s in group.verdict.filters.items()
        ]
        for plugin in verdict.filters:
            assert group.only_failing(plugin) is per_node_only_failing(verdict, plugin)
    assert grouped.names_of(grouped.groups) == [v.name for v in verdicts]
    found = blocking.blocking_causes(cycle, snapshot.nodes, snapshot.pods)
    assert found == per_node_blocking_causes(cycle, snapshot.nodes, snapshot.pods)
    nodes, groups = nodes_and_groups(verdicts, None)
    assert encode_json([nodes, groups]) == per_node_groups(verdicts)


def _encoded_suggestions(cluster: Cluster) -> tuple[bytes, bytes]:
    snapshot = cluster.snapshot()
    cycle = run_cycle(snapshot, cluster.pod)
    _check(snapshot, cycle)
    notes: list[Any] = []
    found = suggest(snapshot, cycle, default_profile(), notes=notes)
    return msgspec.json.encode(found), msgspec.json.encode(notes)


@settings(max_examples=max(100, settings().max_examples), deadline=None)
@given(shaped_clusters())
def test_grouped_readings_are_the_per_node_ones(cluster: Cluster) -> None:
    """With classes (groups of many nodes) and without (groups of one): the same causes, report
    nodes and groups as the per-node readings, and the same suggestions and notes either way."""
    with node_classes(False):
        per_node = _encoded_suggestions(cluster)
    with node_classes(True):
        classed = _encoded_suggestions(cluster)
    assert classed == per_node


def _case_cycle(case: Path) -> tuple[Any, CycleOutcome]:
    snapshot = FileSource([str(cluster_file(case))], complete=True).load()
    namespace, name = split_pod_ref(case_meta(case)["pod"], "default")
    return snapshot, run_cycle(snapshot, find_pod(snapshot, namespace, name))


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in case_dirs()[::8]])
def test_grouped_readings_on_conformance_cases(case: Path) -> None:
    snapshot, cycle = _case_cycle(case)
    _check(snapshot, cycle)


def test_groups_share_statuses_of_a_class() -> None:
    """Nodes alike but for their names make one group; a node set apart, its own."""
    from tests.builders import make_node, make_pod, make_snapshot

    nodes = [make_node(f"n{i}").alloc(cpu="2").obj() for i in range(5)]
    nodes.append(make_node("big").alloc(cpu="4").obj())
    pod = make_pod("p").req(cpu="8").obj()
    cycle = run_cycle(make_snapshot(*nodes, pod), pod)
    assert cycle.outcome is not None
    grouped = VerdictGroups(cycle.outcome.nodes)
    assert sorted(g.names for g in grouped.groups) == [["big"], [f"n{i}" for i in range(5)]]
    assert [grouped.groups[i].names for i in grouped.of_node].count(["big"]) == 1


def test_one_grouping_per_cycle_for_every_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suggestions and the report read one cycle's verdicts through one grouping (the last
    one made, kept while it groups those very verdicts); other verdicts get their own."""
    made: list[int] = []
    init = VerdictGroups.__init__

    def counted(self: VerdictGroups, verdicts: Any) -> None:
        made.append(id(verdicts))
        init(self, verdicts)

    monkeypatch.setattr(VerdictGroups, "__init__", counted)
    ok = Status(Code.Success)
    first = [NodeVerdict(f"n{i}", {"NodeName": ok}, None, True) for i in range(3)]
    second = [NodeVerdict("m", {"NodeName": ok}, None, True)]
    grouped = VerdictGroups.of(first)
    assert VerdictGroups.of(first) is grouped
    assert VerdictGroups.of(first, None) is grouped
    other = VerdictGroups.of(second)
    assert other is not grouped and other.verdicts is second
    assert VerdictGroups.of(second, grouped) is other
    assert VerdictGroups.of(first) is not grouped  # only the last grouping is kept
    assert made == [id(first), id(second), id(first)]
