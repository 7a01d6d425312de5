"""`check`'s Pending replicas say what keeps them off the nodes with explain's causes (the same
facts of analysis/blocking.py, the same words), a group of alike replicas once; a workload placed
on many nodes names a few of them (-o wide and the JSON every one)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from podwhy.analysis.blocking import BlockingCauses, blocking_causes
from podwhy.cli import app
from podwhy.model import records
from podwhy.report.render.check import render_check
from podwhy.report.render.layout import make_console
from podwhy.report.render.markdown import MAX_REPLICA_ROWS
from podwhy.report.render.markdown import render_check as render_markdown
from podwhy.report.words.check import placed_nodes_text
from podwhy.scheduler.cycle import run_cycle
from tests.builders import make_node, make_pod, make_snapshot
from tests.cluster.test_check import check, container, deployment
from tests.paths import TESTS
from tests.shared import SHARED, needs_shared

CASE = TESTS / "scenarios-check" / "pending-causes"
ARGS = ["--from", str(CASE / "cluster"), "--complete", "--kube-version", "1.35"]
Json = dict[str, Any]

# The Pending Deployment's template as a pod of its own, for explain.
BATCH_POD = """
apiVersion: v1
kind: Pod
metadata: {name: batch, namespace: shop, labels: {app: batch}}
spec:
  containers: [{name: batch, image: batch:1, resources: {requests: {cpu: "2"}}}]
"""


def _run(*args: str, input: str | None = None, width: int = 120) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), input=input, env={"COLUMNS": str(width), "NO_COLOR": "1"})
    return result.exit_code, result.stdout


def _check(*extra: str, width: int = 120) -> tuple[int, str]:
    return _run("check", "-f", str(CASE / "manifests.yaml"), *ARGS, *extra, width=width)


def _workloads(out: str) -> dict[str, Json]:
    return {w["name"]: w for w in json.loads(out)["workloads"]}


def test_pending_replicas_get_explains_causes() -> None:
    """One group of the three alike replicas, its causes those explain gives the same pod."""
    code, out = _check("-o", "json")
    assert code == 1
    batch = _workloads(out)["batch"]
    (group,) = batch["pendingGroups"]
    assert group["replicas"] == [r["name"] for r in batch["replicas"]]
    assert group["message"] == batch["replicas"][0]["message"]
    code, explained = _run("explain", "-f", "-", *ARGS, "-o", "json", input=BATCH_POD)
    assert code == 1
    # explain names who holds the room on the closest node (topConsumers); check does not, since
    # the replicas placed after this one move it.
    causes = [{**c, "topConsumers": []} if "topConsumers" in c else c for c in json.loads(explained)["causes"]]
    assert group["causes"] == causes
    assert [c["kind"] for c in group["causes"]] == ["tooSmall", "untoleratedTaint"]
    too_small = group["causes"][0]
    assert (too_small["mostFree"], too_small["mostFreeNode"], len(too_small["nodes"])) == (1400, "worker-a1", 8)


CAUSE_LINES = (
    "· needs cpu 2; 8 nodes (worker-a1, worker-b1, edge-1 and 5 more) are too small: the most free of them is 1400m"
    " (worker-a1)",
    "· taint `nvidia.com/gpu=present:NoSchedule` on gpu-1 is not tolerated",
)


def _flat(text: str) -> str:
    """Text with its wrapping gone: words separated by one space."""
    return " ".join(text.split())


@pytest.mark.parametrize("output", ["table", "wide", "markdown"])
def test_causes_are_said_as_explain_says_them(output: str) -> None:
    """Under the message, a line per cause (a table wide enough not to wrap them)."""
    _code, explained = _run("explain", "-f", "-", *ARGS, input=BATCH_POD)
    code, out = _check("-o", output, width=400)
    assert code == 1
    for line in CAUSE_LINES:
        assert line in _flat(explained)
        assert (f"<br>{line}" if output == "markdown" else f"│ {line} ") in out
    # The group says them once; -o wide under each of its replicas.
    assert out.count("· needs cpu 2") == (3 if output == "wide" else 1)


def test_narrow_list_says_the_causes_under_the_group() -> None:
    result = CliRunner().invoke(
        app, ["check", "-f", str(CASE / "manifests.yaml"), *ARGS], env={"COLUMNS": "80", "NO_COLOR": "1"}
    )
    lines = result.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  3 Pending: "))
    assert lines[start + 2].startswith("    0/9 nodes are available")
    bullets = [line for line in lines[start:] if line.startswith("    · ")]
    assert [b.split(";")[0].split(" on ")[0] for b in bullets] == [
        "    · needs cpu 2",
        "    · taint `nvidia.com/gpu=present:NoSchedule`",
    ]
    said = "shop/edge (Deployment): 6/6 placed on 6 nodes: edge-1, edge-2, edge-3, … (3 more)"
    assert said in _flat(result.stdout)


def test_alike_replicas_with_other_numbers_are_other_groups() -> None:
    """Replicas with one message but other numbers are not one group: each says its own."""
    nodes = [make_node("n1").alloc(cpu="3").obj()]
    report = check(
        nodes,
        deployment("a", 1, {"containers": [container(cpu="2")]}),
        deployment("b", 2, {"containers": [container(cpu="2")]}),
    )
    (a, b) = report.workloads
    assert [r.node for r in [*a.replicas, *b.replicas]] == ["n1", None, None]
    (group,) = b.pendingGroups
    assert [c.text for c in group.causes] == ["needs cpu 2; the most free on any node is 1 (n1); 1 node is too small"]
    assert group.replicas == [r.name for r in b.replicas]


def test_replicas_without_a_blocking_cause_have_none() -> None:
    """A cause analysis/blocking.py does not word (anti-affinity) leaves only the message."""
    anti = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}
            ]
        }
    }
    report = check([make_node("n1").obj()], deployment("web", 2, {"affinity": anti, "containers": [container()]}))
    (workload,) = report.workloads
    (group,) = workload.pendingGroups
    assert group.causes == [] and "anti-affinity" in group.message


def test_placed_replicas_name_a_few_nodes() -> None:
    assert placed_nodes_text(["b", "a", "b"]) == "b (2), a"
    assert placed_nodes_text(["n3", "n1", "n2"]) == "n1, n2, n3"
    many = [f"n{i:03}" for i in range(149) for _ in range(2)]
    assert placed_nodes_text(many) == "149 nodes: n000 (2), n001 (2), n002 (2), … (146 more)"


def test_wide_and_json_give_every_node() -> None:
    _code, table = _check(width=400)
    _code, wide = _check("-o", "wide", width=400)
    _code, out = _check("-o", "json")
    edge = [f"edge-{i}" for i in range(1, 7)]
    assert "│ 6 nodes: edge-1, edge-2, edge-3, … (3 more) │" in table
    assert not any(node in table for node in edge[3:])
    assert all(node in wide for node in edge)
    assert [r["node"] for r in _workloads(out)["edge"]["replicas"]] == edge


def test_cause_text_from_the_cluster_is_not_markup(capsys: pytest.CaptureFixture[str]) -> None:
    """A cause carries cluster strings (a taint): the table shows them as written, never as markup."""
    node = make_node("n1").taint("[bold]x", "[/]").obj()
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [container()]}}
    report = check([node], pod)
    (workload,) = report.workloads
    (group,) = workload.pendingGroups
    assert [c.text for c in group.causes] == ["taint `[bold]x=[/]:NoSchedule` on n1 is not tolerated"]
    render_check(report, console=make_console())
    assert "· taint `[bold]x=[/]:NoSchedule` on n1 is not tolerated" in _flat(capsys.readouterr().out)


GKE = SHARED / "realworld" / "cases" / "26-gke-149-nodes-scale"


@needs_shared("realworld", "cases", "26-gke-149-nodes-scale")
def test_a_job_placed_on_149_nodes_is_summarised() -> None:
    args = ["check", "-f", str(GKE / "indexed-job.yaml"), "--from", str(GKE / "nodes-149.json.gz")]
    code, out = _run(*args)
    assert code == 3  # a nodes-only dump: inconclusive, said first
    assert "984/984 placed" in out and "149 nodes:" in _flat(out) and "… (146 more)" in _flat(out)
    assert len(out.splitlines()) < 20
    _code, markdown = _run(*args, "-o", "markdown")
    assert "| 984 placed | 149 nodes: " in markdown and len(markdown) < 4000
    _code, wide = _run(*args, "-o", "wide")
    assert len(set(re.findall(r"gke-test-cluster-default-pool-\w+-\w+", wide))) == 149


@needs_shared("realworld", "cases", "26-gke-149-nodes-scale")
def test_a_pod_no_node_fits_says_the_missing_topology_key() -> None:
    args = ["-f", str(GKE / "two-constraints.yaml"), "--from", str(GKE / "nodes-149.json.gz")]
    _code, explained = _run("explain", *args, "-o", "json")
    code, out = _run("check", *args, "-o", "json")
    assert code == 1
    (workload,) = json.loads(out)["workloads"]
    (group,) = workload["pendingGroups"]
    # explain names who holds the room on the closest node (topConsumers); check does not, since
    # the replicas placed after this one move it.
    causes = [{**c, "topConsumers": []} if "topConsumers" in c else c for c in json.loads(explained)["causes"]]
    assert group["causes"] == causes
    assert group["causes"][0]["kind"] == "missingTopologyKey" and group["causes"][0]["topologyKey"] == "zone"


def test_cycles_with_the_same_verdicts_are_asked_once() -> None:
    """BlockingCauses answers a cycle whose node verdicts another had (by identity) with that
    answer, and one with other verdicts afresh: the same facts as blocking_causes either way."""
    snapshot = make_snapshot(make_node("n1").alloc(cpu="1").obj(), make_node("n2").alloc(cpu="1").obj())
    pod = make_pod("p").req(cpu="2").obj()
    first, again = run_cycle(snapshot, pod), run_cycle(snapshot, pod)
    causes = BlockingCauses(snapshot.nodes)
    found = causes(first)
    assert found == blocking_causes(first, snapshot.nodes) and found
    assert causes(first) is found
    assert again.outcome is not None and first.outcome is not None
    assert causes(again) is not found and causes(again) == found
    shared = records.replace(again, outcome=records.replace(again.outcome, nodes=first.outcome.nodes))
    assert causes(shared) is found


def test_markdown_says_a_large_workload_in_short() -> None:
    """More replicas of a workload than MAX_REPLICA_ROWS: the fold has a row for the placed ones
    and one per group of alike Pending ones (with their causes), not one per replica."""
    nodes = [make_node(f"n{i:02}").alloc(cpu="1").obj() for i in range(30)]
    small = deployment("small", 2, {"containers": [container(cpu="100m")]})
    report = check(nodes, deployment("big", 40, {"containers": [container(cpu="800m")]}), small)
    out = render_markdown(report)
    fold = out.split("<details>", 1)[1]
    assert f"more than {MAX_REPLICA_ROWS} in short" in fold
    rows = [line for line in fold.splitlines() if line.startswith("| default/")]
    assert [row.split(" | ")[1:3] for row in rows[:2]] == [
        ["30 placed", "30 nodes: n00, n01, n02, … (27 more)"],
        ["10 replicas: big-" + rows[1].split("10 replicas: big-")[1].split(" | ")[0], "Pending"],
    ]
    assert "<br>· needs cpu 800m; the most free on any node is 200m (n00); 30 nodes are too small" in rows[1]
    # A workload of a few replicas keeps a row each.
    assert len(rows) == 4 and all(row.split(" | ")[2].startswith("n") for row in rows[2:])


def test_junit_says_the_causes_under_each_group(tmp_path: Path) -> None:
    junit = tmp_path / "report.xml"
    code, _out = _check("--junit", str(junit))
    assert code == 1
    failure = ET.parse(junit).find(".//testcase[@name='batch']/failure")
    assert failure is not None and failure.text is not None
    lines = failure.text.splitlines()
    assert [line.split(":")[0] for line in lines[:3]] == [f"batch-546dd96ff7-{s}" for s in ("j8dqw", "gxd2z", "xl7gj")]
    assert lines[3:] == [f"  {line}" for line in CAUSE_LINES]
