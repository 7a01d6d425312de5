"""explain's nodes grouped by identical verdicts (`nodeGroups`), and how much of a large cluster
-o json|yaml lists (`--nodes auto|all|grouped`, issue 39).

- groups: the same feasibility, the same plugin where the scheduler stops, and per filter the
  same status and reasons; most nodes first, ties by the first node's place in `nodes`;
- above NODES_LISTED nodes (or --nodes grouped) `nodes` is left out and the other per-node lists
  cut, `omitted` saying how many each lost; --nodes all lists every entry;
- the report written a few entries at a time (report/streamed.py) is byte for byte the report
  encoded whole, escapes and all, in JSON and in YAML.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.report import streamed
from podwhy.report.build.explain import build_report
from podwhy.report.build.listing import listed
from podwhy.report.model import (
    NODES_LISTED,
    DryRunStatus,
    NodeReport,
    PluginStatus,
    Preemption,
    Report,
    SnapshotSummary,
    StatusName,
    TooSmallCause,
    encode_json,
    to_builtins,
)
from podwhy.report.model.explain import PodSummary
from podwhy.report.safe import json_escaped, yaml_text
from podwhy.scheduler.cycle import run_cycle
from podwhy.verdict import Verdict
from tests.builders import make_node, make_pod, make_snapshot
from tests.strategies import Cluster, clusters

Json = dict[str, Any]


def _explain(*nodes: Any, pod: Any) -> Report:
    snapshot = make_snapshot(*nodes, pod)
    return build_report(run_cycle(snapshot, pod), snapshot)


def _verdict(st: PluginStatus | None) -> tuple[str, str, tuple[str, ...]] | None:
    return None if st is None else (st.plugin, st.status.value, tuple(st.reasons))


# ------------------------------------------------------------------ grouping


def test_identical_verdicts_are_one_group_and_different_reasons_split() -> None:
    pod = make_pod("p").req(cpu="2", memory="4Gi").obj()
    report = _explain(
        make_node("small-cpu-1").alloc(cpu="1", memory="16Gi").obj(),
        make_node("fits-1").obj(),
        make_node("small-mem").alloc(cpu="4", memory="1Gi").obj(),
        make_node("small-cpu-2").alloc(cpu="1", memory="16Gi").obj(),
        make_node("tainted").taint("dedicated", "gpu").obj(),
        make_node("fits-2").obj(),
        make_node("small-cpu-3").alloc(cpu="1", memory="16Gi").obj(),
        pod=pod,
    )
    walk = [n.name for n in report.nodes]
    groups = [(g.count, g.nodes, g.feasible) for g in report.nodeGroups]
    cpu = [n for n in walk if n.startswith("small-cpu")]
    fits = [n for n in walk if n.startswith("fits")]
    assert groups[0] == (3, cpu, False)
    assert groups[1] == (2, fits, True)
    # Two groups of one: the one whose node the walk meets first comes first.
    assert [g[1] for g in groups[2:]] == sorted([["small-mem"], ["tainted"]], key=lambda g: walk.index(g[0]))
    by_node = {g.nodes[0]: g for g in report.nodeGroups}
    # (more than the node's allocatable: UnschedulableAndUnresolvable from v1.34 on)
    mem, few = by_node["small-mem"].firstFailure, by_node[cpu[0]].firstFailure
    assert mem is not None and (mem.plugin, mem.reasons) == ("NodeResourcesFit", ["Insufficient memory"])
    assert few is not None and (few.plugin, few.reasons) == ("NodeResourcesFit", ["Insufficient cpu"])
    assert by_node[fits[0]].firstFailure is None
    # Evidence (each node's amounts) stays in `nodes`.
    assert all(st.evidence is msgspec.UNSET for g in report.nodeGroups for st in g.filters)
    assert any(st.evidence is not msgspec.UNSET for n in report.nodes for st in n.filters)


def test_groups_are_made_with_node_classes_and_without_alike() -> None:
    from podwhy.framework import equivalence

    pod = make_pod("p").req(cpu="2").obj()
    nodes = [make_node(f"n{i}").alloc(cpu=str(1 + i % 3), memory="16Gi").obj() for i in range(9)]
    before = equivalence.ENABLED
    try:
        equivalence.ENABLED = False
        alone = _explain(*nodes, pod=pod)
        equivalence.ENABLED = True
        classes = _explain(*nodes, pod=pod)
    finally:
        equivalence.ENABLED = before
    assert encode_json(alone) == encode_json(classes)
    # Nodes of 1 and 2 CPUs are apart in classes (their amounts differ) but alike in verdict.
    assert [g.count for g in classes.nodeGroups] == [6, 3]


def _is_partition(report: Report) -> None:
    names = [n.name for n in report.nodes]
    grouped = [name for g in report.nodeGroups for name in g.nodes]
    assert sorted(grouped) == sorted(names)  # every node in exactly one group
    position = {name: i for i, name in enumerate(names)}
    for group in report.nodeGroups:
        assert group.count == len(group.nodes)
        assert group.nodes == sorted(group.nodes, key=position.__getitem__)
    keys = [(-g.count, position[g.nodes[0]]) for g in report.nodeGroups]
    assert keys == sorted(keys)


@given(clusters())
def test_groups_partition_the_nodes_and_hold_each_nodes_verdict(cluster: Cluster) -> None:
    snapshot = cluster.snapshot()
    report = build_report(run_cycle(snapshot, cluster.pod), snapshot)
    _is_partition(report)
    group_of = {name: g for g in report.nodeGroups for name in g.nodes}
    for node in report.nodes:
        group = group_of[node.name]
        assert group.feasible == node.feasible
        assert _verdict(group.firstFailure) == _verdict(node.firstFailure)
        assert [_verdict(st) for st in group.filters] == [_verdict(st) for st in node.filters]
    # Nodes of different groups differ in verdict.
    signatures = {
        (g.feasible, _verdict(g.firstFailure), tuple(_verdict(st) for st in g.filters)) for g in report.nodeGroups
    }
    assert len(signatures) == len(report.nodeGroups)


# ------------------------------------------------------------------ what -o json|yaml lists


def _status(plugin: str, code: StatusName, *reasons: str) -> PluginStatus:
    return PluginStatus(plugin=plugin, status=code, reasons=list(reasons))


def _node(name: str, fits: bool) -> NodeReport:
    fit = _status(
        "NodeResourcesFit",
        StatusName.SUCCESS if fits else StatusName.UNSCHEDULABLE,
        *([] if fits else ["Insufficient cpu"]),
    )
    return NodeReport(
        name=name,
        feasible=fits,
        filters=[_status("NodeUnschedulable", StatusName.SUCCESS), fit],
        firstFailure=None if fits else fit,
        nominatedPods=[],
        feasibleWithoutNominated=None,
        scores=[],
        totalScore=None,
    )


def _report(names: list[str], fits: int = 0) -> Report:
    """A report of NAMES, the first FITS of them feasible, with a cause and a dry run per node."""
    from podwhy.report.build.nodes import _group

    nodes = [_node(name, i < fits) for i, name in enumerate(names)]
    fitting, others = [n for n in nodes if n.feasible], [n for n in nodes if not n.feasible]
    rejected = [n.name for n in others]
    return Report(
        pod=PodSummary(namespace="default", name="p", uid="u", phase="Pending", priority=0, schedulerName="s"),
        verdict=Verdict.SCHEDULABLE if fits else Verdict.UNSCHEDULABLE,
        message="",
        nodes=nodes,
        nodeGroups=[_group(g) for g in sorted((fitting, others), key=len, reverse=True) if g],
        feasibleNodes=[n.name for n in fitting],
        causes=[
            TooSmallCause(
                plugin="NodeResourcesFit",
                text="too small",
                nodes=rejected,
                resource="cpu",
                unit="millicores",
                requested=2000,
                mostFree=1000,
                mostFreeNode=rejected[0] if rejected else "",
                everyNode=not fits,
            )
        ],
        preemption=Preemption(
            nominatedNode=None,
            victims=[],
            dryRun=[
                DryRunStatus(node=n, status=StatusName.UNSCHEDULABLE, plugin="NodeResourcesFit", reasons=[])
                for n in rejected
            ],
        ),
        snapshot=SnapshotSummary(sources=["x"], nodes=len(nodes), pods=1, missingKinds=[], ignoredKinds={}),
    )


def test_up_to_the_threshold_every_list_is_whole() -> None:
    report = _report([f"n{i:04d}" for i in range(NODES_LISTED)])
    assert listed(report) is report
    assert listed(report, "all") is report
    assert encode_json(listed(report)) == encode_json(report)


def test_above_the_threshold_nodes_are_left_out_and_the_other_lists_cut() -> None:
    names = [f"n{i:04d}" for i in range(NODES_LISTED + 5)]
    report = _report(names, fits=NODES_LISTED + 2)
    out = listed(report)
    assert out.nodes == []
    assert [len(g.nodes) for g in out.nodeGroups] == [NODES_LISTED + 2, 3]  # the groups keep every name
    assert out.feasibleNodes == names[:NODES_LISTED]
    assert out.causes[0].nodes == names[-3:]  # under the threshold: whole
    assert out.omitted == {"nodes": NODES_LISTED + 5, "feasibleNodes": 2}
    assert "--nodes all" in out.warnings[-1] and f"{NODES_LISTED + 5:,} nodes" in out.warnings[-1]
    assert report.nodes and report.omitted is msgspec.UNSET  # the report itself is untouched
    grouped = listed(report, "grouped")
    assert grouped.omitted == out.omitted and grouped.warnings == []  # asked for: no warning
    assert listed(report, "all") is report

    rejected = _report(names)
    cut = listed(rejected)
    assert cut.omitted == {"nodes": len(names), "causes[0].nodes": 5, "preemption.dryRun": 5}
    assert cut.causes[0].nodes == names[:NODES_LISTED]
    assert cut.preemption is not None and len(cut.preemption.dryRun) == NODES_LISTED


def test_grouped_leaves_out_the_nodes_of_a_small_cluster_too() -> None:
    report = _report(["a", "b", "c"], fits=1)
    out = listed(report, "grouped")
    assert out.nodes == [] and out.omitted == {"nodes": 3}
    assert [g.nodes for g in out.nodeGroups] == [["b", "c"], ["a"]]


def test_the_listed_report_is_valid_against_the_schema(report_schema_validator: Any) -> None:
    report = _report([f"n{i:04d}" for i in range(NODES_LISTED + 1)])
    report_schema_validator.validate(json.loads(encode_json(listed(report))))
    report_schema_validator.validate(json.loads(encode_json(report)))


# ------------------------------------------------------------------ written a few entries at a time


def _whole_json(report: Report) -> bytes:
    return json_escaped(encode_json(report)) + b"\n"


@pytest.mark.parametrize("count", [0, 1, 2, 3, 7])
def test_json_written_in_chunks_is_the_whole_encoding(count: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(streamed, "ENTRIES_PER_CHUNK", 2)  # chunk boundaries within a few nodes
    report = _report([f"node-{i}" for i in range(count)], fits=count // 2)
    chunks = list(streamed.json_chunks(report))
    assert b"".join(chunks) == _whole_json(report)
    assert len(chunks) == (1 if count == 0 else 2 + (count + 1) // 2)
    assert "".join(streamed.yaml_chunks(report)) == yaml_text(to_builtins(report))


# Characters a terminal acts on, JSON's and YAML's own, and the text streamed.py looks for.
_PIECES = [
    "a",
    "-",
    "é",
    "\x1b",
    "\x7f",
    "\x9b",
    "\u2028",
    "\u202e",
    "\ufffe",
    '"',
    "\\",
    "\n",
    "nodes: []",
    '\n  "nodes": []',
]
_HOSTILE = st.lists(st.sampled_from(_PIECES), max_size=6).map("".join)


@given(st.lists(_HOSTILE, min_size=1, max_size=6, unique=True), _HOSTILE)
def test_streamed_bytes_equal_whole_whatever_the_strings(names: list[str], reason: str) -> None:
    report = _report(names, fits=len(names) // 2)
    report.nodes[-1].filters[0].reasons.append(reason)
    report.warnings = [reason]
    data = b"".join(streamed.json_chunks(report))
    assert data == _whole_json(report)
    for lead in (b"\x1b", b"\xc2\x9b", b"\xe2\x80\xae", b"\x7f"):
        assert lead not in data  # escaped in every chunk
    assert "".join(streamed.yaml_chunks(report)) == yaml_text(to_builtins(report))


# ------------------------------------------------------------------ the command line


def _dump(tmp_path: Path, nodes: int) -> Path:
    """A dump of NODES nodes, none with room for the Pending pod (2 CPUs, 4Gi): every third one
    short of memory, the others of CPU."""
    items: list[Json] = []
    for i in range(nodes):
        node = make_node(f"node-{i:04d}")
        node.alloc(cpu="4", memory="1Gi") if i % 3 == 0 else node.alloc(cpu="1", memory="16Gi")
        items.append({"apiVersion": "v1", "kind": "Node", **node.raw})
    pod = make_pod("web").req(cpu="2", memory="4Gi").phase("Pending")
    items.append({"apiVersion": "v1", "kind": "Pod", **pod.raw})
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


def _run(path: Path, *args: str) -> tuple[int, bytes, str]:
    result = CliRunner().invoke(app, ["explain", "default/web", "--from", str(path), "--complete", *args])
    return result.exit_code, result.stdout_bytes, result.stderr


UNSCHEDULABLE = Verdict.UNSCHEDULABLE.exit_code


def test_cli_lists_every_node_of_a_small_cluster(tmp_path: Path) -> None:
    path = _dump(tmp_path, 5)
    code, out, _ = _run(path, "-o", "json")
    doc = json.loads(out)
    assert code == UNSCHEDULABLE and len(doc["nodes"]) == 5 and "omitted" not in doc
    assert [(g["count"], g["nodes"][0]) for g in doc["nodeGroups"]] == [(3, "node-0001"), (2, "node-0000")]
    assert _run(path, "-o", "json", "--nodes", "all")[1] == out
    _, grouped, _ = _run(path, "-o", "json", "--nodes", "grouped")
    assert json.loads(grouped)["omitted"] == {"nodes": 5} and json.loads(grouped)["nodes"] == []
    _, as_yaml, _ = _run(path, "-o", "yaml")
    assert yaml.safe_load(as_yaml) == doc
    # The table reads the whole report whatever --nodes says.
    assert _run(path, "--nodes", "grouped")[1] == _run(path)[1]
    code, _, err = _run(path, "-o", "json", "--nodes", "some")
    assert code == 2 and "'some' is not one of 'auto', 'all', 'grouped'" in err


def test_cli_groups_a_large_cluster_unless_asked_for_every_node(tmp_path: Path) -> None:
    path = _dump(tmp_path, NODES_LISTED + 1)
    code, out, err = _run(path, "-o", "json")
    doc = json.loads(out)
    assert code == UNSCHEDULABLE
    # (the dry run skips the nodes short of memory: more than their allocatable, unresolvable)
    assert doc["nodes"] == [] and doc["omitted"] == {"nodes": NODES_LISTED + 1}
    assert [g["count"] for g in doc["nodeGroups"]] == [667, 334]
    assert "pass --nodes all" in err
    _, as_yaml, err_yaml = _run(path, "-o", "yaml")
    assert yaml.safe_load(as_yaml) == doc and "pass --nodes all" in err_yaml
    code, every, err = _run(path, "-o", "json", "--nodes", "all")
    whole = json.loads(every)
    assert code == UNSCHEDULABLE and len(whole["nodes"]) == NODES_LISTED + 1 and "omitted" not in whole
    assert "--nodes all" not in err
    # What was written a few entries at a time is the report encoded whole.
    assert every == _whole_json(msgspec.json.decode(every, type=Report))
    _, every_yaml, _ = _run(path, "-o", "yaml", "--nodes", "all")
    assert yaml.safe_load(every_yaml) == whole
