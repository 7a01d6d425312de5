"""DynamicResources with v1.36's default feature gates: device taints (DRADeviceTaints) and
partitionable devices with shared counters (DRAPartitionableDevices), after the shared
structured-allocator cases of v1.36.3 (allocatortesting/allocator_testing.go: "tainted-device",
"tainted-device-tolerated", "partitionable-devices-*"). Under v1.35 both gates are off."""

from __future__ import annotations

from typing import Any

import pytest

from podwhy.features.emulation import V1_35, V1_36, Emulation
from podwhy.framework.handle import Handle
from podwhy.framework.interface import CycleState
from podwhy.framework.status import Code
from podwhy.framework.types import PodInfo
from podwhy.model import objects as o
from podwhy.plugins.dynamicresources import DynamicResources
from podwhy.plugins.dynamicresources.extended import extended_resource_classes, special_claim_requests
from podwhy.plugins.noderesources.fit import Fit
from tests.builders import from_raw, make_node, make_pod, make_snapshot
from tests.plugins.test_dynamicresources import (
    CANNOT_ALLOCATE,
    DRIVER_A,
    NODE1,
    by_name,
    device,
    exact,
    make_claim,
    make_class,
    make_slice,
)

Json = dict[str, Any]


def _filter(
    emulation: Emulation, claims: list[o.ResourceClaim], slices: list[o.ResourceSlice]
) -> tuple[Code, list[str]]:
    pod = by_name()
    handle = Handle(make_snapshot(make_node(NODE1).obj(), pod, make_class(), *slices, *claims), emulation=emulation)
    plugin = DynamicResources(handle)
    state = CycleState()
    info = PodInfo(pod)
    _, pre = plugin.pre_filter(state, info, handle.node_infos)
    assert pre.is_success(), pre
    status = plugin.filter(state, info, handle.node_infos[0])
    return status.code, status.reasons


OK = (Code.Success, [])
REJECTED = (Code.UnschedulableAndUnresolvable, [CANNOT_ALLOCATE])


def _tainted(name: str, *taints: Json) -> Json:
    return {**device(name), "taints": list(taints)}


def _tolerating(*tolerations: Json) -> Json:
    request = exact()
    request["exactly"]["tolerations"] = list(tolerations)
    return request


NO_SCHEDULE = {"key": "example.com/unhealthy", "value": "ecc", "effect": "NoSchedule"}
NO_EXECUTE = {"key": "example.com/maintenance", "effect": "NoExecute"}


@pytest.mark.parametrize(
    ("taints", "request_", "v135", "v136"),
    [
        ([NO_SCHEDULE], exact(), OK, REJECTED),
        ([NO_EXECUTE], exact(), OK, REJECTED),
        ([{"key": "example.com/info", "effect": "None"}], exact(), OK, OK),
        ([NO_SCHEDULE], _tolerating({"key": "example.com/unhealthy", "operator": "Equal", "value": "ecc"}), OK, OK),
        ([NO_SCHEDULE], _tolerating({"key": "example.com/unhealthy", "value": "other"}), OK, REJECTED),
        ([NO_SCHEDULE], _tolerating({"operator": "Exists"}), OK, OK),
        ([NO_SCHEDULE], _tolerating({"operator": "Exists", "effect": "NoExecute"}), OK, REJECTED),
        ([NO_SCHEDULE, NO_EXECUTE], _tolerating({"key": "example.com/unhealthy", "operator": "Exists"}), OK, REJECTED),
    ],
)
def test_device_taints(taints: list[Json], request_: Json, v135: Any, v136: Any) -> None:
    claims = [make_claim(request_)]
    slices = [make_slice(_tainted("device-1", *taints))]
    assert _filter(V1_35, claims, slices) == v135
    assert _filter(V1_36, claims, slices) == v136


def _partitions(counter: str) -> list[o.ResourceSlice]:
    """A 40Gi GPU as one full device or two 20Gi halves, all drawing on one counter set."""

    def consuming(name: str, memory: str, profile: str) -> Json:
        return {
            **device(name, memory, profile=profile),
            "consumesCounters": [{"counterSet": "gpu-0-mem", "counters": {"memory": {"value": memory}}}],
        }

    counters = from_raw(
        o.ResourceSlice,
        {
            "metadata": {"name": "counters"},
            "spec": {
                "driver": DRIVER_A,
                "nodeName": NODE1,
                "pool": {"name": NODE1, "generation": 1, "resourceSliceCount": 2},
                "sharedCounters": [{"name": "gpu-0-mem", "counters": {"memory": {"value": counter}}}],
            },
        },
    )
    devices = make_slice(
        consuming("gpu-0-full", "40Gi", "full"),
        consuming("gpu-0-mig-a", "20Gi", "half"),
        consuming("gpu-0-mig-b", "20Gi", "half"),
        count=2,
        name="devices",
    )
    return [counters, devices]


HALF = f'device.attributes["{DRIVER_A}"].profile == "half"'


@pytest.mark.parametrize(
    ("counter", "claims", "v136"),
    [
        ("40Gi", [make_claim(exact(count=2, selectors=[HALF]))], OK),
        ("30Gi", [make_claim(exact(count=2, selectors=[HALF]))], REJECTED),
        ("30Gi", [make_claim(exact(count=1, selectors=[HALF]))], OK),
        # The full device and a half together exceed the counters: the search backtracks to the halves.
        ("40Gi", [make_claim(exact(count=2))], OK),
        ("40Gi", [make_claim(exact(count=3))], REJECTED),
        ("40Gi", [make_claim(exact(count=1))], OK),
        # An allocated full device leaves no counters for the halves.
        (
            "40Gi",
            [
                make_claim(exact(count=1, selectors=[HALF])),
                make_claim(exact(), name="used", allocated=[(DRIVER_A, NODE1, "gpu-0-full")], on_node=NODE1),
            ],
            REJECTED,
        ),
    ],
)
def test_partitionable_devices(counter: str, claims: list[o.ResourceClaim], v136: Any) -> None:
    slices = _partitions(counter)
    assert _filter(V1_36, claims, slices) == v136
    # v1.35: a device that consumes counters is never allocated (the feature is off).
    assert _filter(V1_35, claims, slices) == REJECTED


# ------------------------------------------------------------------ DRAExtendedResource

GPU = "example.com/gpu"


def _class(name: str, extended: str | None = None, created: str = "2026-01-01T00:00:00Z") -> o.DeviceClass:
    spec: Json = {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER_A}"'}}]}
    if extended is not None:
        spec["extendedResourceName"] = extended
    return from_raw(o.DeviceClass, {"metadata": {"name": name, "creationTimestamp": created}, "spec": spec})


def _requests(pod: o.Pod, resources: dict[str, int], classes: list[o.DeviceClass]) -> list[tuple[str, str, int]]:
    mapping = {c.spec.extended_resource_name or "": c for c in classes}
    out = []
    for request in special_claim_requests(pod, resources, mapping):
        assert request.exactly is not None and request.exactly.allocation_mode == "ExactCount"
        out.append((request.name, request.exactly.device_class_name, request.exactly.count or 0))
    return out


POD_1 = make_pod().req({GPU: "1", GPU + "1": "2"}).obj()
POD_2 = make_pod().req({GPU: "1"}).req({GPU + "1": "2"}).obj()
POD_INIT = make_pod().init_req({GPU + "init": "2"}).req({GPU: "1"}).obj()
POD_INIT_2 = make_pod().init_req({GPU + "init": "1"}).init_req({GPU + "init": "2"}).req({GPU: "1"}).obj()
POD_INIT_3 = (
    make_pod()
    .init_req({GPU + "init": "1"})
    .init_req({GPU + "init": "1"}, sidecar=True)
    .init_req({GPU + "init": "2"})
    .req({GPU: "1"})
    .obj()
)
CLASS, CLASS_1, CLASS_INIT = _class("class", GPU), _class("class1", GPU + "1"), _class("classInit", GPU + "init")


# extendeddynamicresources_test.go (v1.36.3), Test_createRequestsAndMappings_requests.
@pytest.mark.parametrize(
    ("pod", "resources", "classes", "want"),
    [
        pytest.param(POD_1, {}, [], [], id="nil"),
        pytest.param(POD_1, {GPU: 1}, [CLASS], [("container-0-request-0", "class", 1)], id="one resource match"),
        pytest.param(
            POD_1,
            {GPU: 1, GPU + "1": 2},
            [CLASS],
            [("container-0-request-0", "class", 1)],
            id="one resource match, one resource not match",
        ),
        pytest.param(
            POD_1,
            {GPU: 1, GPU + "1": 2},
            [CLASS, CLASS_1],
            [("container-0-request-0", "class", 1), ("container-0-request-1", "class1", 2)],
            id="two resources match",
        ),
        pytest.param(
            POD_2,
            {GPU: 1, GPU + "1": 2},
            [CLASS, CLASS_1],
            [("container-0-request-0", "class", 1), ("container-1-request-0", "class1", 2)],
            id="two containers match",
        ),
        pytest.param(
            POD_INIT,
            {GPU: 1, GPU + "init": 2},
            [CLASS, CLASS_INIT],
            [("container-0-request-0", "classInit", 2), ("container-1-request-0", "class", 1)],
            id="one init container, one regular container",
        ),
        pytest.param(
            POD_INIT_2,
            {GPU: 1, GPU + "init": 2},
            [CLASS, CLASS_INIT],
            [("container-1-request-0", "classInit", 2), ("container-2-request-0", "class", 1)],
            id="two init containers, one regular container",
        ),
        pytest.param(
            POD_INIT_3,
            {GPU: 1, GPU + "init": 2},
            [CLASS, CLASS_INIT],
            [
                ("container-1-request-0", "classInit", 1),
                ("container-2-request-0", "classInit", 2),
                ("container-3-request-0", "class", 1),
            ],
            id="three init containers, one sidecar, one regular container",
        ),
    ],
)
def test_special_claim_requests(
    pod: o.Pod, resources: dict[str, int], classes: list[o.DeviceClass], want: list[tuple[str, str, int]]
) -> None:
    assert _requests(pod, resources, classes) == want


def test_extended_resource_names_of_device_classes() -> None:
    """The implicit deviceclass.resource.kubernetes.io/<class> name, and the newest class for a
    name several claim (the first by name on a tie)."""
    older = _class("b-older", GPU, "2026-01-01T00:00:00Z")
    newer = _class("c-newer", GPU, "2026-02-01T00:00:00Z")
    tie = _class("a-tie", GPU, "2026-02-01T00:00:00Z")
    mapping = extended_resource_classes({c.metadata.name: c for c in (older, newer)})
    assert mapping[GPU] is newer
    assert mapping["deviceclass.resource.kubernetes.io/b-older"] is older
    assert extended_resource_classes({c.metadata.name: c for c in (older, newer, tie)})[GPU] is tie


def _cycle(emulation: Emulation, pod: o.Pod, nodes: list[o.Node], slices: list[o.ResourceSlice]) -> dict[str, Any]:
    """Fit's and DynamicResources' Filter verdicts per node."""
    classes = [_class("gpu-class", GPU)]
    handle = Handle(make_snapshot(*nodes, pod, *classes, *slices), emulation=emulation)
    state = CycleState()
    info = PodInfo(pod)
    fit, dra = Fit(handle), DynamicResources(handle)
    assert fit.pre_filter(state, info, handle.node_infos)[1].is_success()
    dra_pre = dra.pre_filter(state, info, handle.node_infos)[1]
    out: dict[str, Any] = {"pre": dra_pre.code}
    for ni in handle.node_infos:
        dra_status = dra.filter(state, info, ni) if dra_pre.is_success() else None
        fit_status = fit.filter(state, info, ni)
        out[ni.name] = (
            (fit_status.code, fit_status.reasons),
            (dra_status.code, dra_status.reasons) if dra_status is not None else None,
        )
    return out


def test_extended_resource_backed_by_a_device_class() -> None:
    """v36-022's shape: a node advertising the resource is checked by Fit; one that does not gets
    devices from DRA (v1.36) or is short of it (v1.35)."""
    pod = make_pod().req({GPU: "2"}).obj()
    nodes = [
        make_node("plugin-node").alloc(cpu="4", memory="16Gi", **{GPU: "1"}).obj(),
        make_node("dra-node").obj(),
        make_node("small-dra-node").obj(),
    ]
    slices = [
        make_slice(device("gpu-0"), device("gpu-1"), node="dra-node"),
        make_slice(device("gpu-0"), node="small-dra-node"),
    ]
    short = (Code.UnschedulableAndUnresolvable, [f"Insufficient {GPU}"])
    assert _cycle(V1_35, pod, nodes, slices) == {
        "pre": Code.Skip,
        "plugin-node": (short, None),
        "dra-node": (short, None),
        "small-dra-node": (short, None),
    }
    assert _cycle(V1_36, pod, nodes, slices) == {
        "pre": Code.Success,
        "plugin-node": (short, OK),
        "dra-node": (OK, OK),
        "small-dra-node": (OK, REJECTED),
    }


def test_extended_resource_neither_advertised_nor_backed() -> None:
    """With one resource on DRA, DynamicResources also rejects a node lacking another the pod asks for."""
    pod = make_pod().req({GPU: "1", "example.com/fpga": "1"}).obj()
    nodes = [make_node("n").obj()]
    result = _cycle(V1_36, pod, nodes, [make_slice(device("gpu-0"), node="n")])
    assert result["n"][1] == (Code.Unschedulable, ["cannot fit resource"])


# ------------------------------------------------------------------ what podwhy does not simulate, said


def _shared_claim(name: str, consumed: Json | None) -> o.ResourceClaim:
    """A claim allocated a share of device-1 (shareID, and consumedCapacity when given)."""
    claim = make_claim(name=name, allocated=[(DRIVER_A, NODE1, "device-1")])
    assert claim.status.allocation is not None
    result = claim.status.allocation.devices.results[0]
    result.share_id = f"share-{name}"
    result.consumed_capacity = consumed
    return claim


def test_consumable_capacity_from_v1_36() -> None:
    """DRAConsumableCapacity: v1.35 refuses capacity requests (the scheduler's error) and treats a
    shared device as allocated; v1.36 shares it by what the allocated shares consume."""
    request = exact()
    request["exactly"]["capacity"] = {"requests": {"memory": "1Gi"}}
    claims = [make_claim(request)]
    shared = [make_slice({**device("device-1", "4Gi"), "allowMultipleAllocations": True})]
    code, reasons = _filter(V1_35, claims, shared)
    assert code == Code.Error and reasons[0].endswith(
        "request req-0: has capacity requests, but the DRAConsumableCapacity feature is disabled"
    )
    assert _filter(V1_36, claims, shared) == OK
    # A capacity the device does not have: no device fits.
    other = exact()
    other["exactly"]["capacity"] = {"requests": {"cores": "1"}}
    assert _filter(V1_36, [make_claim(other)], shared) == REJECTED
    # Shares of other claims: 3Gi consumed leaves 1Gi; a share without consumedCapacity holds none.
    three = _shared_claim("other", {"memory": "3Gi"})
    assert _filter(V1_35, [make_claim(exact()), three], shared) == REJECTED
    assert _filter(V1_36, [*claims, three], shared) == OK
    assert _filter(V1_36, [*claims, three, _shared_claim("more", {"memory": "1Ki"})], shared) == REJECTED
    assert _filter(V1_36, [*claims, three, _shared_claim("none", None)], shared) == OK
    # Without a capacity request a share takes the whole capacity (no requestPolicy default).
    assert _filter(V1_36, [make_claim(exact()), three], shared) == REJECTED
    assert _filter(V1_36, [make_claim(exact())], shared) == OK


def test_devices_with_binding_conditions_are_selectable_from_v1_36() -> None:
    conditions = {"bindingConditions": ["attached"], "bindingFailureConditions": ["failed"]}
    slices = [make_slice({**device("device-1"), **conditions})]
    claims = [make_claim(exact())]
    assert _filter(V1_35, claims, slices) == REJECTED
    assert _filter(V1_36, claims, slices) == OK
