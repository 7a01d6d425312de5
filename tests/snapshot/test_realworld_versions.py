"""Real files in older API versions (fixtures/realworld/, see its README) give the verdicts the
real scheduler gives: dra-example-driver's demo pods on a node with 8 free GPUs."""

from __future__ import annotations

import json
from typing import Any

from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.model import objects as o
from podwhy.snapshot.source import FileSource
from tests.paths import REPO

REALWORLD = REPO / "fixtures" / "realworld"
NOT_CREATED = (
    '0/1 nodes are available: pod "{pod}": ResourceClaim not created yet. no new claims to deallocate, '
    "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
)


def _run(*args: str) -> dict[str, Any]:
    # Each folder holds the whole (one-node) cluster its source describes: read as complete.
    result = CliRunner().invoke(app, [*args, "--complete", "-o", "json"])
    assert result.exit_code in (0, 1), result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _pending(folder: str) -> dict[str, tuple[str, str]]:
    """{pod: (verdict, cause)} of `pending -A` over a fixture folder."""
    report = _run("pending", "-A", "--from", str(REALWORLD / folder))
    return {pod: (g["verdict"], g["cause"]) for g in report["groups"] for pod in g["pods"]}


def _dra(report: dict[str, Any], node: str) -> dict[str, Any]:
    (found,) = [n for n in report["nodes"] if n["name"] == node]
    (dra,) = [f for f in found["filters"] if f["plugin"] == "DynamicResources"]
    return dra


def test_v1beta1_claims_and_slices_are_allocated() -> None:
    # The shared claim of gpu-test4 names an 8-GPU v1beta1 slice's class: both its pods fit, and so
    # does a v1 claim whose CEL selector reads the v1beta1 slice's attributes and capacity.
    pods = _pending("dra-v1beta1")
    for pod in ("gpu-test4/pod0", "gpu-test4/pod1", "cel-selector/pod0"):
        assert pods[pod][0] == "Schedulable", pod
    # A claim from a template that no controller instantiated yet: the real scheduler waits too.
    for pod in ("gpu-test1/pod0", "gpu-test1/pod1"):
        assert pods[pod] == ("Unschedulable", NOT_CREATED.format(pod=pod))
    report = _run("explain", "gpu-test4/pod0", "--from", str(REALWORLD / "dra-v1beta1"))
    assert report["verdict"] == "Schedulable"
    assert _dra(report, "dra-example-driver-cluster-worker")["status"] == "Success"


def test_v1beta1_slice_reads_as_v1() -> None:
    snapshot = FileSource([str(REALWORLD / "dra-v1beta1" / "resourceslices.yaml")]).load()
    (rs,) = snapshot.resource_slices
    assert rs.spec.node_name == "dra-example-driver-cluster-worker" and rs.spec.all_nodes is None
    assert len(rs.spec.devices) == 8
    gpu = rs.spec.devices[0]
    assert gpu.attributes["model"] == o.DeviceAttribute(string_value="LATEST-GPU-MODEL")
    assert gpu.capacity["memory"] == o.DeviceCapacity(value="80Gi")


def test_v1alpha3_shared_claim_is_allocated() -> None:
    pods = _pending("dra-v1alpha3")
    assert pods["gpu-test3/pod0"][0] == pods["gpu-test3/pod1"][0] == "Schedulable"
    assert pods["gpu-test1/pod0"] == ("Unschedulable", NOT_CREATED.format(pod="gpu-test1/pod0"))
    snapshot = FileSource([str(REALWORLD / "dra-v1alpha3")]).load()
    assert snapshot.resource_slices[0].spec.devices[0].capacity["memory"] == o.DeviceCapacity(value="80Gi")
    (request,) = snapshot.resource_claims["gpu-test3/shared-gpu"].spec.devices.requests
    assert request.exactly == o.ExactDeviceRequest(
        device_class_name="gpu.example.com", allocation_mode="ExactCount", count=1
    )


def test_a_pod_manifest_without_apiversion_is_read() -> None:
    report = _run("pending", "-A", "--from", str(REALWORLD / "dra-device-taint-v1beta2"))
    pod = "basic-resourceclaimtemplate/pod-no-schedule"
    ((group,),) = [[g for g in report["groups"] if pod in g["pods"]]]
    assert (group["verdict"], group["cause"]) == ("Unschedulable", NOT_CREATED.format(pod=pod))
    # podwhy does not read DeviceTaintRules: it says so rather than reading one as something else.
    assert report["snapshot"]["ignoredKinds"] == {"DeviceTaintRule": 1}


def test_policy_v1beta1_budget_keeps_its_selector() -> None:
    snapshot = FileSource([str(REALWORLD / "pdb-v1beta1")]).load()
    (pdb,) = snapshot.pod_disruption_budgets
    assert pdb.spec.selector == o.LabelSelector(match_labels={"app": "zookeeper"})
    assert pdb.spec.min_available == 2
    report = _run("explain", "default/high-priority-pod", "--from", str(REALWORLD / "pdb-v1beta1"))
    assert report["verdict"] == "Schedulable"
    assert not report["snapshot"]["missingKinds"]
