"""The autoscaling analysis live, through the real kubernetes client and a local API server: the
status ConfigMap read by name, NodePools listed, and explain/pending saying what they mean."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from podwhy.cli import app
from tests.apiserver import FakeApiServer, load_objects
from tests.paths import REPO

EXAMPLE = REPO / "fixtures" / "examples" / "shop-cluster.yaml"
POD = "shop/checkout-7c9d8b6f5-m4x2q"
WORKERS = ("worker-a1", "worker-b1", "worker-c1")

STATUS = """\
autoscalerStatus: Running
nodeGroups:
- name: eks-workers-6ac7f0f1-1b2c-4d5e-8f90-a1b2c3d4e5f6
  health:
    status: Healthy
    cloudProviderTarget: 3
    minSize: 1
    maxSize: 3
    nodeCounts:
      registered: {total: 3, ready: 3, notStarted: 0}
  scaleUp:
    status: NoActivity
time: 2025-03-10 12:00:05.123456789 +0000 UTC
"""


def _ca_event(on: tuple[str, str, str], reason: str, message: str, at: str) -> dict[str, Any]:
    """An event Cluster Autoscaler records on ON (kind, namespace, name)."""
    kind, namespace, name = on
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{name}.{reason}", "namespace": namespace},
        "involvedObject": {"kind": kind, "name": name, "namespace": namespace},
        "reason": reason,
        "message": message,
        "source": {"component": "cluster-autoscaler"},
        "lastTimestamp": at,
    }


def _cluster(events: list[dict[str, Any]] = (), status: str = STATUS) -> list[dict[str, Any]]:  # type: ignore[assignment]
    objects = copy.deepcopy(load_objects(EXAMPLE))
    for obj in objects:
        if obj["kind"] == "Node" and obj["metadata"]["name"] in WORKERS:
            obj["metadata"].setdefault("labels", {})["eks.amazonaws.com/nodegroup"] = "workers"
    status = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "cluster-autoscaler-status", "namespace": "kube-system"},
        "data": {"status": status},
    }
    other = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app-config", "namespace": "shop"}}
    return [*objects, status, other, *events]


def _explain(server: FakeApiServer, tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    kubeconfig = str(server.kubeconfig(tmp_path / "config"))
    result = CliRunner().invoke(app, ["explain", POD, "--kubeconfig", kubeconfig, "-o", "json", *args])
    return result.exit_code, json.loads(result.stdout)


def test_live_explain_says_the_group_is_at_its_max_size_and_suggests_raising_it(tmp_path: Path) -> None:
    with FakeApiServer(_cluster()) as server:
        code, report = _explain(server, tmp_path)
        assert server.methods == {"GET"}
        assert not any(r.path.endswith("/configmaps") for r in server.requests)  # never a list of ConfigMaps
    assert code == 1 and report["verdict"] == "Unschedulable"
    autoscaling = report["autoscaling"]
    (group,) = autoscaling["groups"]
    assert (group["autoscaler"], group["reason"]) == ("ClusterAutoscaler", "GroupAtMaxSize")
    assert group["data"]["maxSize"] == 3 and autoscaling["status"] == "NotComing"
    levers = [s for s in report["suggestions"] if s["kind"] == "raiseGroupMaxSize"]
    if group["data"]["fitsNewNode"]:
        (lever,) = levers
        assert "scalingConfig.maxSize" in lever["command"] and lever["command"].startswith("#")
    else:
        assert levers == []


def test_live_pending_waits_for_the_node_a_triggered_scale_up_adds(tmp_path: Path) -> None:
    triggered = _ca_event(
        ("Pod", "shop", POD.split("/")[1]),
        "TriggeredScaleUp",
        "pod triggered scale-up: [{eks-workers-6ac7f0f1-1b2c-4d5e-8f90-a1b2c3d4e5f6 3->4 (max: 5)}]",
        "2025-03-10T12:00:00Z",
    )
    growing = STATUS.replace("cloudProviderTarget: 3", "cloudProviderTarget: 4").replace("maxSize: 3", "maxSize: 5")
    objects = _cluster([triggered], growing)
    with FakeApiServer(objects) as server:
        kubeconfig = str(server.kubeconfig(tmp_path / "config"))
        result = CliRunner().invoke(app, ["pending", "-n", "shop", "--kubeconfig", kubeconfig, "-o", "json"])
        _, report = _explain(server, tmp_path)
    pending = json.loads(result.stdout)
    waiting = [g for g in pending["groups"] if g["verdict"] == "WaitingForNode"]
    assert waiting and pending["waiting"] >= 1
    assert report["autoscaling"]["status"] == "Coming"
    assert report["autoscaling"]["said"][0]["agrees"] is True
    assert result.exit_code in (1, 4)  # 4 unless another pod of the namespace is stuck


def test_live_reads_cas_events_on_its_status_for_the_clouds_error(tmp_path: Path) -> None:
    failed = _ca_event(
        ("ConfigMap", "kube-system", "cluster-autoscaler-status"),
        "ScaleUpFailed",
        "Failed adding 1 nodes to group eks-workers-6ac7f0f1-1b2c-4d5e-8f90-a1b2c3d4e5f6 due to "
        "OutOfResource.placeholder-cannot-be-fulfilled; source errors: AWS cannot provision any more instances",
        "2025-03-10T11:59:00Z",
    )
    backoff = STATUS.replace("maxSize: 3", "maxSize: 5").replace("status: NoActivity", "status: Backoff")
    objects = _cluster([failed], backoff)
    with FakeApiServer(objects) as server:
        _, report = _explain(server, tmp_path)
        assert ("/api/v1/namespaces/kube-system/events") in {r.path for r in server.requests}
    (group,) = report["autoscaling"]["groups"]
    assert group["reason"] == "GroupBackoff"
    assert group["data"]["errorCode"] == "OutOfResource.placeholder-cannot-be-fulfilled"
