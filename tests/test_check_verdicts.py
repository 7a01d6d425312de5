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
