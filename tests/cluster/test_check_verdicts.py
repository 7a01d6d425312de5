"""`check`'s first line, exit code, markdown heading and JUnit agree (issue 24: "never a false
all-clear"): a snapshot without any Pod cannot vouch for free room, and an inconclusive placement
says so everywhere."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.snapshot.source import FileSource
from tests.builders import NAMESPACE_ELSEWHERE, QUOTA_ELSEWHERE, quotas_listed

NODES = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
  status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
"""
RUNNING = """- apiVersion: v1
  kind: Pod
  metadata: {name: db, namespace: default}
  spec:
    nodeName: n1
    containers: [{name: c, resources: {requests: {cpu: "3", memory: 1Gi}}}]
  status: {phase: Running}
"""
HEAVY = """apiVersion: apps/v1
kind: Deployment
metadata: {name: heavy}
spec:
  replicas: 2
  selector: {matchLabels: {app: heavy}}
  template:
    metadata: {labels: {app: heavy}}
    spec:
      containers:
      - name: c
        image: x:1
        resources: {requests: {cpu: "1", memory: 1Gi}}
"""


def _check(tmp_path: Path, cluster: str, *extra: str) -> tuple[int, str, str]:
    (tmp_path / "cluster.yaml").write_text(cluster)
    (tmp_path / "heavy.yaml").write_text(HEAVY)
    args = ["check", "-f", str(tmp_path / "heavy.yaml"), "--from", str(tmp_path / "cluster.yaml"), *extra]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400", "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


def test_a_nodes_only_dump_cannot_say_everything_fits(tmp_path: Path) -> None:
    # Its ResourceQuotas and Namespaces listed: only the Pods are missing.
    listed = tmp_path / "listed.json"
    listed.write_text(json.dumps({"kind": "List", "items": [QUOTA_ELSEWHERE, NAMESPACE_ELSEWHERE]}))
    code, out, err = _check(tmp_path, NODES, "--from", str(listed))
    assert code == 3
    first = out.splitlines()[0]
    assert first.startswith("inconclusive: 2/2 replicas placed in 1 workload, not evaluated: ")
    assert "the room the cluster's pods take on its nodes (the snapshot has no Pods)" in first
    assert "everything fits" not in out
    assert "the snapshot holds no Pods" in err and "kubectl get pods" in err


def test_with_its_pods_the_same_cluster_is_decided(tmp_path: Path) -> None:
    """The node runs a 3-cpu pod the nodes-only dump did not show: one replica fits, not two."""
    code, out, _ = _check(tmp_path, NODES + RUNNING, "--from", quotas_listed(tmp_path))
    assert code == 1
    assert out.splitlines()[0].startswith("1/2 replicas placed; 1 stay Pending")


def test_a_pending_replica_says_its_preemption_was_not_evaluated(tmp_path: Path) -> None:
    """With the pods but no PriorityClasses, the preemption dry run is not evaluated: the replica
    stays Pending (its nodes' room is known, as explain says it: Unschedulable), and the row says
    the scheduler's message lacks preemption's part, never as if it had none (issue 35, item 6)."""
    code, out, _ = _check(tmp_path, NODES + RUNNING, "--from", quotas_listed(tmp_path))
    assert code == 1
    assert "preemption not evaluated (the snapshot has no PriorityClasses)" in out
    _, data, _ = _check(tmp_path, NODES + RUNNING, "--from", quotas_listed(tmp_path), "-o", "json")
    (pending,) = [r for r in json.loads(data)["workloads"][0]["replicas"] if r["node"] is None]
    assert (pending["verdict"], pending["preemptionNotEvaluated"]) == (
        "Unschedulable",
        "the snapshot has no PriorityClasses",
    )
    assert "preemption" not in pending["message"]


def test_complete_vouches_for_the_pods(tmp_path: Path) -> None:
    code, out, _ = _check(tmp_path, NODES, "--complete")
    assert (code, out.splitlines()[0]) == (0, "2/2 replicas placed in 1 workload: everything fits")


@pytest.mark.parametrize(("cluster", "complete"), [(NODES, False), (NODES, True), (NODES + RUNNING, True)])
def test_markdown_and_junit_agree_with_the_exit_code(tmp_path: Path, cluster: str, complete: bool) -> None:
    junit = tmp_path / "report.xml"
    extra = ["--complete"] if complete else ["--from", quotas_listed(tmp_path)]
    code, out, _ = _check(tmp_path, cluster, *extra, "--junit", str(junit))
    first = out.splitlines()[0]
    _, markdown, _ = _check(tmp_path, cluster, *extra, "-o", "markdown")
    assert markdown.splitlines()[0] == f"### podwhy check: {first}"
    suite = ET.fromstring(junit.read_bytes()).find("testsuite")
    assert suite is not None
    errors, failures = int(suite.get("errors", "-1")), int(suite.get("failures", "-1"))
    case = suite.find("testcase")
    assert case is not None
    if code == 0:
        assert (errors, failures) == (0, 0) and first.endswith("everything fits")
    elif code == 1:
        assert (errors, failures) == (0, 1) and case.find("failure") is not None
    else:
        assert code == 3 and first.startswith("inconclusive:")
        assert (errors, failures) == (1, 0)
        error = case.find("error")
        assert error is not None and error.get("type") == "Inconclusive"
        assert "the room the cluster's pods take on its nodes" in (error.get("message") or "")


# ------------------------------------------------- pods of some namespaces only


def _namespaced_pod(namespace: str, name: str, node: str = "n1") -> str:
    return f"""- apiVersion: v1
  kind: Pod
  metadata: {{name: {name}, namespace: {namespace}}}
  spec:
    nodeName: {node}
    containers: [{{name: c, resources: {{requests: {{cpu: "1", memory: 1Gi}}}}}}]
  status: {{phase: Running}}
"""


def _namespaces(*names: str) -> str:
    return "".join(f"- {{apiVersion: v1, kind: Namespace, metadata: {{name: {name}}}}}\n" for name in names)


SHOP_ONLY = NODES + _namespaced_pod("shop", "cart")  # `kubectl get pods -n shop` beside the nodes


def test_pods_of_one_namespace_cannot_vouch_for_the_room(tmp_path: Path) -> None:
    """No Namespaces and no pod of kube-system, which every cluster runs: the nodes may be fuller."""
    code, out, _ = _check(tmp_path, SHOP_ONLY)
    assert code == 3 and out.startswith("inconclusive: 2/2 replicas placed")
    first = " ".join(out.split("\n┏")[0].split())  # the first line, as long as it is, unwrapped
    assert "the room the cluster's pods take on its nodes" in first
    assert (
        "the snapshot holds pods of namespace shop only, none of"
        " kube-system, where every cluster runs some: add every namespace's with `kubectl get pods -A -o yaml`,"
        " or pass --complete if it holds every pod)"
    ) in first
    assert "everything fits" not in out
    code, out, _ = _check(tmp_path, SHOP_ONLY, "--complete")
    assert (code, out.splitlines()[0]) == (0, "2/2 replicas placed in 1 workload: everything fits")


@pytest.mark.parametrize(
    ("pods", "namespaces", "cause"),
    [
        # kube-system's pods: every namespace's, as far as anything shows (a namespace may run none).
        (["kube-system", "shop"], (), ""),
        (["kube-system", "shop"], ("default", "kube-system", "monitoring", "shop"), ""),
        (
            ["shop"],
            (),
            "the snapshot holds pods of namespace shop only, none of kube-system, where every cluster runs some",
        ),
        (
            ["shop", "web"],
            ("default", "kube-system", "shop", "web"),
            "the snapshot holds pods of namespaces shop, web only, none of kube-system, where every cluster runs some",
        ),
        # A chosen few Namespaces without kube-system: each runs some pod, but those that normally run none.
        (["shop"], ("shop",), ""),
        (["shop"], ("default", "kube-node-lease", "kube-public", "shop"), ""),
        (
            ["shop"],
            ("a", "b", "c", "d", "shop"),
            "the snapshot holds pods of namespace shop only, none of its Namespaces a, b, c and 1 more",
        ),
    ],
)
def test_which_pods_vouch_for_the_room(
    tmp_path: Path, pods: list[str], namespaces: tuple[str, ...], cause: str
) -> None:
    items = "".join(_namespaced_pod(namespace, f"p-{namespace}") for namespace in pods) + _namespaces(*namespaces)
    path = tmp_path / "cluster.yaml"
    path.write_text(NODES + items)
    missing = FileSource([str(path)]).load().missing.get("Pod")
    if not cause:
        assert missing is None
    else:
        assert missing is not None and missing.startswith(cause + ": add every namespace's")
        assert "Pod" not in FileSource([str(path)], complete=True).load().missing


def test_explain_and_pending_say_the_same_of_a_pod_that_fits(tmp_path: Path) -> None:
    pending = """- apiVersion: v1
  kind: Pod
  metadata: {name: new, namespace: shop}
  spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}
  status: {phase: Pending}
"""
    (tmp_path / "cluster.yaml").write_text(SHOP_ONLY + pending)
    cluster = str(tmp_path / "cluster.yaml")
    for args in (["explain", "shop/new"], ["pending", "-A"]):
        result = CliRunner().invoke(app, [*args, "--from", cluster, "-o", "json"])
        assert result.exit_code == 3, result.stdout
        report = json.loads(result.stdout)
        text = json.dumps(report)
        assert "Inconclusive" in text and "kubectl get pods -A -o yaml" in text
        result = CliRunner().invoke(app, [*args, "--from", cluster, "--complete", "-o", "json"])
        assert result.exit_code == 0, result.stdout
