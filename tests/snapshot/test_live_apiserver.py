"""Live mode against a test API server that answers as kube-apiserver does (issue 28).

A real API server writes an empty slice whose Go field is not omitempty as `null` (every node's
CSINode has `drivers: null` until a CSI driver registers), adds the fields it sets on create,
restarts nothing for the client (an expired continue token is a 410 the client must handle), and
logs who asked. tests/apiserver.py says what it emulates, with the upstream source of each.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.snapshot.live.kubeconfig import go_platform, user_agent
from podwhy.snapshot.live.source import LiveSource
from tests.apiserver import FakeApiServer, load_objects, stored_object
from tests.paths import TESTS

ROOT = TESTS
EXAMPLE = ROOT.parent / "fixtures" / "examples" / "shop-cluster.yaml"
POD = "shop/checkout-7c9d8b6f5-m4x2q"
VOLUME_ATTACHMENT = ROOT / "scenarios" / "volume-attachment" / "cluster.yaml"


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200", "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


def _with_bare_csinodes() -> list[dict[str, Any]]:
    """The example cluster with the CSINode the kubelet creates for each node before any CSI
    driver registers (no drivers), and a node image without tags (no names)."""
    objects = load_objects(EXAMPLE)
    nodes = [o for o in objects if o["kind"] == "Node"]
    for node in nodes:
        node.setdefault("status", {})["images"] = [{"sizeBytes": 123456}]
    csinodes = [
        {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": n["metadata"]["name"]}, "spec": {}}
        for n in nodes
    ]
    return objects + csinodes


def test_the_server_writes_null_where_go_does() -> None:
    csinode = {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "n"}, "spec": {}}
    stored = stored_object(csinode, 0, "storage.k8s.io/v1")
    assert stored["spec"] == {"drivers": None}
    assert stored["metadata"]["uid"] and stored["metadata"]["resourceVersion"] and stored["metadata"]["managedFields"]
    pod = stored_object({"kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"image": "x"}]}}, 1, "v1")
    assert pod["spec"]["schedulerName"] == "default-scheduler"
    assert pod["spec"]["containers"][0]["imagePullPolicy"] == "Always"


@pytest.mark.parametrize(
    "command",
    [("explain", POD), ("pending", "-A"), ("snapshot", "-A", "-o", "-")],
    ids=["explain", "pending", "snapshot"],
)
def test_null_lists_from_a_real_server_are_read(command: tuple[str, ...], tmp_path: Path) -> None:
    with FakeApiServer(_with_bare_csinodes()) as server:
        config = str(server.kubeconfig(tmp_path / "config"))
        code, out, err = _run(*command, "--kubeconfig", config)
        served = json.loads(server_get(server, "/apis/storage.k8s.io/v1/csinodes"))
    assert all(item["spec"]["drivers"] is None for item in served["items"])
    assert code in (0, 1), err
    assert "invalid" not in err
    if command[0] == "snapshot":
        dump = tmp_path / "case.json"
        dump.write_text(out)
        code, _, err = _run("explain", POD, "--from", str(dump))
        assert code == 1, err  # the dump holds the nulls too, and reads back


def server_get(server: FakeApiServer, path: str) -> str:
    import urllib.request

    request = urllib.request.Request(server.url + path, headers={"Authorization": f"Bearer {server.token}"})
    with urllib.request.urlopen(request) as response:
        return str(response.read().decode())


def test_check_reads_a_cluster_with_null_lists(tmp_path: Path) -> None:
    manifest = tmp_path / "deploy.yaml"
    manifest.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n"
        "spec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n"
        "    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: c\n"
        "        image: nginx:1.27\n        resources: {requests: {cpu: 100m}}\n"
    )
    with FakeApiServer(_with_bare_csinodes()) as server:
        code, out, err = _run("check", "-f", str(manifest), "--kubeconfig", str(server.kubeconfig(tmp_path / "c")))
    assert code == 0, err
    assert out.startswith("2/2 replicas placed")


def test_an_expired_continue_token_restarts_the_list(tmp_path: Path) -> None:
    objects = load_objects(EXAMPLE)
    with FakeApiServer(objects, page_size_cap=2, expire_continue_once={"pods"}) as server:
        snapshot = LiveSource(kubeconfig=str(server.kubeconfig(tmp_path / "config"))).load()
        pods = [r for r in server.requests if r.path == "/api/v1/pods"]
    # first page, its continuation (410 Expired), then the list again from the start
    assert "continue" not in pods[0].query and "continue" in pods[1].query
    assert "continue" not in pods[2].query
    assert len(snapshot.pods) == len([o for o in objects if o["kind"] == "Pod"])


def test_requests_name_podwhy_and_its_version(tmp_path: Path) -> None:
    with FakeApiServer(load_objects(EXAMPLE)) as server:
        _run("explain", POD, "--kubeconfig", str(server.kubeconfig(tmp_path / "config")))
    agents = {r.user_agent for r in server.requests}
    assert len(agents) == 1
    (agent,) = agents
    assert agent.startswith("podwhy/") and "(" in agent


def test_an_attached_volume_no_pod_uses_fills_the_limit_live(tmp_path: Path) -> None:
    with FakeApiServer(load_objects(VOLUME_ATTACHMENT)) as server:
        code, out, err = _run("explain", "shop/orders-db-0", "--kubeconfig", str(server.kubeconfig(tmp_path / "c")))
    assert code == 1, err
    assert "0/1 nodes are available: 1 node(s) exceed max volume count." in out
    assert any(r.path == "/apis/storage.k8s.io/v1/volumeattachments" for r in server.requests)


def test_forbidden_volume_attachments_leave_the_limit_not_evaluated(tmp_path: Path) -> None:
    objects = [o for o in load_objects(VOLUME_ATTACHMENT) if o["kind"] != "VolumeAttachment"]
    with FakeApiServer(objects, forbidden={"volumeattachments"}) as server:
        config = str(server.kubeconfig(tmp_path / "c"))
        code, out, err = _run("explain", "shop/orders-db-0", "--kubeconfig", config, "-o", "json")
    assert code == 3, err
    report = json.loads(out)
    assert report["verdict"] == "Inconclusive"
    limits = next(f for f in report["nodes"][0]["filters"] if f["plugin"] == "NodeVolumeLimits")
    assert limits["status"] == "NotEvaluated"
    assert limits["reasons"] == ["not evaluated: cannot list volumeattachments.storage.k8s.io: forbidden"]


@pytest.mark.parametrize(
    ("system", "machine", "said"),
    [
        ("linux", "x86_64", "linux/amd64"),
        ("linux", "aarch64", "linux/arm64"),
        ("darwin", "arm64", "darwin/arm64"),
        ("darwin", "x86_64", "darwin/amd64"),
        ("win32", "AMD64", "windows/amd64"),
        ("linux", "armv7l", "linux/arm"),
        ("linux", "i686", "linux/386"),
        ("linux", "ppc64le", "linux/ppc64le"),
    ],
)
def test_the_user_agent_names_the_platform_as_go_does(system: str, machine: str, said: str) -> None:
    """kubectl's User-Agent (rest.DefaultKubernetesUserAgent) says runtime.GOOS/runtime.GOARCH."""
    assert go_platform(system, machine) == said


def test_the_user_agent_reads_as_kubectls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("platform.machine", lambda: "x86_64")
    monkeypatch.setattr("sys.platform", "linux")
    assert re.fullmatch(r"podwhy/\S+ \(linux/amd64\)", user_agent())
