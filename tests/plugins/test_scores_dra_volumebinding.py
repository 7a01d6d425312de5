"""Scores of DynamicResources (prioritized lists) and VolumeBinding (StorageCapacityScoring off),
after upstream's dynamicresources.go Score/NormalizeScore and volume_binding_test.go PreScore cases."""

from __future__ import annotations

from typing import Any

import pytest

from podwhy.framework.evidence import PrioritizedListEvidence, SubRequestPoints
from podwhy.framework.handle import Handle
from podwhy.framework.interface import CycleState
from podwhy.framework.profile import Profile
from podwhy.framework.scoring import run_scores
from podwhy.framework.status import Code
from podwhy.framework.types import PodInfo
from podwhy.model import objects as o
from podwhy.plugins.dynamicresources import DynamicResources
from podwhy.plugins.dynamicresources.scoring import (
    FIRST_AVAILABLE_MAX_SIZE,
    ScoreError,
    prioritized_list_points,
    prioritized_list_score,
)
from podwhy.plugins.dynamicresources.structured.allocator import DeviceResult
from podwhy.plugins.volumebinding import VolumeBinding
from tests.builders import from_raw, make_handle, make_node, make_pod

Json = dict[str, Any]

NS = "default"
POD_UID = "pod-uid"
DRIVER = "driver-a"
GPU_CLASS = "gpu"
NODES = ("node-1", "node-2", "node-3")


# ------------------------------------------------------------------ DRA builders


def dra_pod(*claim_names: str) -> o.Pod:
    pod = make_pod("my-pod", NS).uid(POD_UID)
    for i, name in enumerate(claim_names):
        pod.resource_claim(f"res-{i}", claim=name)
    return pod.obj()


def model_is(model: str) -> list[Json]:
    return [{"cel": {"expression": f'device.attributes["{DRIVER}"].model == "{model}"'}}]


def sub(name: str, model: str, count: int = 1) -> Json:
    return {
        "name": name,
        "deviceClassName": GPU_CLASS,
        "allocationMode": "ExactCount",
        "count": count,
        "selectors": model_is(model),
    }


def first_available(name: str, *subs: Json) -> Json:
    return {"name": name, "firstAvailable": list(subs)}


def exactly(name: str, model: str) -> Json:
    return {
        "name": name,
        "exactly": {
            "deviceClassName": GPU_CLASS,
            "allocationMode": "ExactCount",
            "count": 1,
            "selectors": model_is(model),
        },
    }


def claim(name: str, *requests: Json, allocated_on: str | None = None) -> o.ResourceClaim:
    raw: Json = {
        "metadata": {"name": name, "namespace": NS, "uid": f"uid-{name}"},
        "spec": {"devices": {"requests": list(requests)}},
    }
    if allocated_on is not None:
        field = {"key": "metadata.name", "operator": "In", "values": [allocated_on]}
        raw["status"] = {
            "allocation": {
                "devices": {
                    "results": [{"request": "pinned", "driver": DRIVER, "pool": allocated_on, "device": "pinned-0"}]
                },
                "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [field]}]},
            }
        }
    return from_raw(o.ResourceClaim, raw)


def gpu_class() -> o.DeviceClass:
    raw = {
        "metadata": {"name": GPU_CLASS},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
    }
    return from_raw(o.DeviceClass, raw)


def node_slice(node: str, *models: str) -> o.ResourceSlice:
    devices = [{"name": f"dev-{i}", "attributes": {"model": {"string": model}}} for i, model in enumerate(models)]
    raw: Json = {
        "metadata": {"name": f"{node}-slice"},
        "spec": {
            "driver": DRIVER,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
        },
    }
    return from_raw(o.ResourceSlice, raw)


def nodes(*names: str) -> list[o.Node]:
    return [make_node(name).obj() for name in names]


def dra_scores(
    pod: o.Pod, claims: list[o.ResourceClaim], devices: dict[str, tuple[str, ...]]
) -> tuple[dict[str, Code], dict[str, int], dict[str, int], str]:
    """PreFilter, Filter, then Score + NormalizeScore over the nodes that passed the filter.

    Returns (filter code per node, raw, normalized, score error message or "").
    """
    slices = [node_slice(node, *models) for node, models in devices.items()]
    handle = make_handle(*nodes(*NODES), pod, gpu_class(), *slices, *claims)
    plugin = DynamicResources(handle)
    state = CycleState()
    info = PodInfo(pod)
    _, pre = plugin.pre_filter(state, info, handle.node_infos)
    assert pre.code in (Code.Success, Code.Skip), pre.reasons
    codes: dict[str, Code] = {}
    feasible = []
    for ni in handle.node_infos:
        code = plugin.filter(state, info, ni).code if pre.is_success() else Code.Success
        codes[ni.name] = code
        if code == Code.Success:
            feasible.append(ni)
    raw: dict[str, int] = {}
    for ni in feasible:
        value, status = plugin.score(state, info, ni)
        if not status.is_success():
            return codes, raw, {}, status.message()
        raw[ni.name] = value
    normalized = dict(raw)
    assert plugin.normalize_score(state, info, normalized).is_success()
    return codes, raw, normalized, ""


# ------------------------------------------------------------------ DynamicResources Score

OK = Code.Success
UNRESOLVABLE = Code.UnschedulableAndUnresolvable

BIG_SMALL_TINY = first_available("gpu", sub("big", "big"), sub("small", "small"), sub("tiny", "tiny"))

DRA_CASES: list[
    tuple[str, o.Pod, list[o.ResourceClaim], dict[str, tuple[str, ...]], dict[str, int], dict[str, int]]
] = [
    (
        "no claims: PreFilter skips, every node scores 0",
        dra_pod(),
        [],
        {},
        {n: 0 for n in NODES},
        {n: 0 for n in NODES},
    ),
    (
        "only exactly requests score 0",
        dra_pod("c1"),
        [claim("c1", exactly("gpu", "big"))],
        {n: ("big",) for n in NODES},
        {n: 0 for n in NODES},
        {n: 0 for n in NODES},
    ),
    (
        "first subrequest earns 8, second 7, third 6; scaled to the best node",
        dra_pod("c1"),
        [claim("c1", BIG_SMALL_TINY)],
        {"node-1": ("big", "small"), "node-2": ("small",), "node-3": ("tiny",)},
        {"node-1": 8, "node-2": 7, "node-3": 6},
        {"node-1": 100, "node-2": 87, "node-3": 75},
    ),
    (
        "a subrequest needing more devices than the node has falls through to the next",
        dra_pod("c1"),
        [claim("c1", first_available("gpu", sub("two-big", "big", count=2), sub("one-big", "big")))],
        {"node-1": ("big", "big"), "node-2": ("big",), "node-3": ("big", "small")},
        {"node-1": 8, "node-2": 7, "node-3": 7},
        {"node-1": 100, "node-2": 87, "node-3": 87},
    ),
    (
        "two prioritized requests in one claim add up",
        dra_pod("c1"),
        [
            claim(
                "c1",
                first_available("a", sub("big", "big"), sub("small", "small")),
                first_available("b", sub("big", "big"), sub("small", "small")),
            )
        ],
        {"node-1": ("big", "small"), "node-2": ("small", "small"), "node-3": ("big", "big")},
        {"node-1": 15, "node-2": 14, "node-3": 16},
        {"node-1": 93, "node-2": 87, "node-3": 100},
    ),
    (
        "exactly and prioritized requests mixed: only the prioritized one counts",
        dra_pod("c1"),
        [claim("c1", exactly("fixed", "small"), first_available("pick", sub("big", "big"), sub("small", "small")))],
        {"node-1": ("big", "small"), "node-2": ("small", "small")},
        {"node-1": 8, "node-2": 7},
        {"node-1": 100, "node-2": 87},
    ),
    (
        "two unallocated claims add up",
        dra_pod("c1", "c2"),
        [claim("c1", BIG_SMALL_TINY), claim("c2", BIG_SMALL_TINY)],
        {"node-1": ("big", "big"), "node-2": ("big", "tiny"), "node-3": ("tiny", "tiny")},
        {"node-1": 16, "node-2": 14, "node-3": 12},
        {"node-1": 100, "node-2": 87, "node-3": 75},
    ),
    (
        "every claim allocated already: nothing chosen per node, all 0",
        dra_pod("c1"),
        [claim("c1", BIG_SMALL_TINY, allocated_on="node-2")],
        {},
        {"node-2": 0},
        {"node-2": 0},
    ),
    (
        "every node's best is the last subrequest: all equal at 100",
        dra_pod("c1"),
        [claim("c1", BIG_SMALL_TINY)],
        {n: ("tiny",) for n in NODES},
        {n: 6 for n in NODES},
        {n: 100 for n in NODES},
    ),
]


@pytest.mark.parametrize(
    ("pod", "claims", "devices", "want_raw", "want_normalized"),
    [pytest.param(*case[1:], id=case[0]) for case in DRA_CASES],
)
def test_dynamic_resources_score(
    pod: o.Pod,
    claims: list[o.ResourceClaim],
    devices: dict[str, tuple[str, ...]],
    want_raw: dict[str, int],
    want_normalized: dict[str, int],
) -> None:
    _, raw, normalized, problem = dra_scores(pod, claims, devices)
    assert problem == ""
    assert raw == want_raw
    assert normalized == want_normalized


def test_dynamic_resources_score_skips_rejected_nodes() -> None:
    codes, raw, _, _ = dra_scores(
        dra_pod("c1"), [claim("c1", BIG_SMALL_TINY)], {"node-1": ("big",), "node-2": ("other",)}
    )
    assert codes == {"node-1": OK, "node-2": UNRESOLVABLE, "node-3": UNRESOLVABLE}
    assert raw == {"node-1": 8}


def test_dynamic_resources_score_allocated_and_unallocated_claims_fail() -> None:
    # Upstream pairs all the pod's claims with the results of the unallocated ones only.
    pod = dra_pod("pinned", "open")
    claims = [claim("pinned", exactly("pinned", "big"), allocated_on="node-1"), claim("open", BIG_SMALL_TINY)]
    codes, _, _, problem = dra_scores(pod, claims, {"node-1": ("big",)})
    assert codes["node-1"] == OK
    assert problem == "number of allocations 1 is smaller than number of claims"


def test_dynamic_resources_score_without_state_is_an_error() -> None:
    handle = make_handle(*nodes("node-1"))
    value, status = DynamicResources(handle).score(CycleState(), PodInfo(dra_pod("c1")), handle.node_infos[0])
    assert (value, status.code, status.reasons) == (0, Code.Error, ["not found"])


def test_dynamic_resources_score_evidence() -> None:
    pod = dra_pod("c1")
    handle = make_handle(*nodes("node-1"), pod, gpu_class(), node_slice("node-1", "small"), claim("c1", BIG_SMALL_TINY))
    plugin = DynamicResources(handle)
    state = CycleState()
    info = PodInfo(pod)
    plugin.pre_filter(state, info, handle.node_infos)
    assert plugin.filter(state, info, handle.node_infos[0]).is_success()
    value, status = plugin.score(state, info, handle.node_infos[0])
    assert value == 7
    assert status.evidence == [
        PrioritizedListEvidence(
            allocated_sub_requests=[
                SubRequestPoints(claim="default/c1", request="gpu", sub_request="small", index=1, points=7)
            ],
            score=7,
            max_list_size=8,
        )
    ]


# ------------------------------------------------------------------ computeScore on given results


def result(request: str, device: str = "dev-0") -> DeviceResult:
    return DeviceResult(request=request, driver=DRIVER, pool="pool", device=device)


POINTS_CASES: list[tuple[str, list[o.ResourceClaim], list[list[DeviceResult]], int | str]] = [
    ("no claims", [], [], 0),
    (
        "several devices of one subrequest count once",
        [claim("c1", first_available("gpu", sub("big", "big", count=2), sub("small", "small")))],
        [[result("gpu/big", "dev-0"), result("gpu/big", "dev-1")]],
        FIRST_AVAILABLE_MAX_SIZE,
    ),
    (
        "a result naming an exactly request is no subrequest",
        [claim("c1", exactly("gpu", "big"))],
        [[result("gpu")]],
        0,
    ),
    (
        "a reference with two slashes is no subrequest",
        [claim("c1", first_available("gpu", sub("big", "big")))],
        [[result("gpu/big/x")]],
        0,
    ),
    (
        "results are matched to claims by position",
        [
            claim("c1", first_available("a", sub("x", "x"), sub("y", "y"))),
            claim("c2", first_available("b", sub("x", "x"))),
        ],
        [[result("b/x")], [result("a/y")]],
        0,
    ),
    (
        "more results than claims: the extra ones are ignored",
        [claim("c1", first_available("a", sub("x", "x"), sub("y", "y")))],
        [[result("a/y")], [result("a/x")]],
        FIRST_AVAILABLE_MAX_SIZE - 1,
    ),
    (
        "fewer results than claims fails",
        [claim("c1", exactly("e", "x")), claim("c2", first_available("a", sub("x", "x")))],
        [[result("a/x")]],
        "number of allocations 1 is smaller than number of claims",
    ),
]


@pytest.mark.parametrize(
    ("claims", "allocations", "want"), [pytest.param(*case[1:], id=case[0]) for case in POINTS_CASES]
)
def test_prioritized_list_points(
    claims: list[o.ResourceClaim], allocations: list[list[DeviceResult]], want: int | str
) -> None:
    if isinstance(want, str):
        with pytest.raises(ScoreError, match=want):
            prioritized_list_points(claims, allocations)
        return
    value, evidence = prioritized_list_score(claims, allocations)
    assert value == want
    assert evidence.score == want


# ------------------------------------------------------------------ VolumeBinding

HOSTNAME = "kubernetes.io/hostname"

STORAGE: list[tuple[str, Json]] = [
    (
        "StorageClass",
        {
            "metadata": {"name": "wait-sc"},
            "provisioner": "kubernetes.io/no-provisioner",
            "volumeBindingMode": "WaitForFirstConsumer",
        },
    ),
    (
        "PersistentVolumeClaim",
        {
            "metadata": {
                "name": "bound",
                "namespace": NS,
                "annotations": {"pv.kubernetes.io/bind-completed": "yes"},
            },
            "spec": {"storageClassName": "wait-sc", "volumeName": "pv-bound"},
        },
    ),
    (
        "PersistentVolume",
        {
            "metadata": {"name": "pv-bound"},
            "spec": {
                "storageClassName": "wait-sc",
                "capacity": {"storage": "100Gi"},
                "claimRef": {"namespace": NS, "name": "bound"},
            },
            "status": {"phase": "Bound"},
        },
    ),
    (
        "PersistentVolumeClaim",
        {
            "metadata": {"name": "local", "namespace": NS},
            "spec": {
                "storageClassName": "wait-sc",
                "accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "50Gi"}},
            },
        },
    ),
    *(
        (
            "PersistentVolume",
            {
                "metadata": {"name": f"pv-{node}"},
                "spec": {
                    "storageClassName": "wait-sc",
                    "accessModes": ["ReadWriteOnce"],
                    "capacity": {"storage": size},
                    "local": {"path": "/mnt/disk"},
                    "nodeAffinity": {
                        "required": {
                            "nodeSelectorTerms": [
                                {"matchExpressions": [{"key": HOSTNAME, "operator": "In", "values": [node]}]}
                            ]
                        }
                    },
                },
                "status": {"phase": "Available"},
            },
        )
        for node, size in (("node-1", "200Gi"), ("node-2", "100Gi"))
    ),
]


def volume_pod(*claims: str) -> o.Pod:
    pod = make_pod("pod-a", NS).uid(POD_UID)
    for c in claims:
        pod.pvc(c)
    return pod.obj()


def volume_handle() -> Handle:
    return make_handle(*nodes("node-1", "node-2"), *(from_raw(o.KIND_TYPES[kind], data) for kind, data in STORAGE))


@pytest.mark.parametrize(
    ("claims", "static_bindings"),
    [
        pytest.param((), False, id="pod has no pvcs"),
        pytest.param(("bound",), False, id="all bound"),
        # Local PVs to bind on both nodes: upstream's "local volumes with close capacity are preferred"
        # scores them only with StorageCapacityScoring on.
        pytest.param(("local",), True, id="static bindings"),
    ],
)
def test_volume_binding_pre_score_skips_with_capacity_scoring_off(
    claims: tuple[str, ...], static_bindings: bool
) -> None:
    handle = volume_handle()
    plugin = VolumeBinding(handle)
    state = CycleState()
    info = PodInfo(volume_pod(*claims))
    _, pre = plugin.pre_filter(state, info, handle.node_infos)
    assert pre.code in (Code.Success, Code.Skip)
    feasible = [ni for ni in handle.node_infos if plugin.filter(state, info, ni).is_success()]
    assert [ni.name for ni in feasible] == ["node-1", "node-2"]
    assert state.read("VolumeBinding").has_static_bindings is static_bindings
    assert plugin.pre_score(state, info, feasible).code == Code.Skip
    for ni in feasible:
        value, status = plugin.score(state, info, ni)
        assert (value, status.code) == (0, Code.Success)


def test_volume_binding_score_without_pre_score_is_zero() -> None:
    # A profile may disable VolumeBinding at preScore only; Score then runs and has no scorer.
    handle = volume_handle()
    value, status = VolumeBinding(handle).score(CycleState(), PodInfo(volume_pod("local")), handle.node_infos[0])
    assert (value, status.code) == (0, Code.Success)


def test_run_scores_marks_volume_binding_skipped_and_weights_dynamic_resources() -> None:
    pod = dra_pod("c1")
    handle = make_handle(
        *nodes("node-1", "node-2"),
        pod,
        gpu_class(),
        node_slice("node-1", "big"),
        node_slice("node-2", "small"),
        claim("c1", BIG_SMALL_TINY),
    )
    plugins = {"DynamicResources": DynamicResources(handle), "VolumeBinding": VolumeBinding(handle)}
    state = CycleState()
    info = PodInfo(pod)
    for plugin in plugins.values():
        plugin.pre_filter(state, info, handle.node_infos)
    for ni in handle.node_infos:
        assert all(p.filter(state, info, ni).is_success() for p in plugins.values())
    profile = Profile(pre_score=["VolumeBinding"], score={"VolumeBinding": 1, "DynamicResources": 2})
    outcome = run_scores(profile, dict(plugins), state, info, handle.node_infos)
    assert outcome.error is None
    rows = {
        node: {s.plugin: (s.raw, s.normalized, s.weighted, s.skipped) for s in row}
        for node, row in outcome.scores.items()
    }
    assert rows == {
        "node-1": {"VolumeBinding": (0, 0, 0, True), "DynamicResources": (8, 100, 200, False)},
        "node-2": {"VolumeBinding": (0, 0, 0, True), "DynamicResources": (7, 87, 174, False)},
    }
