"""DynamicResources with v1.36's default feature gates: device taints (DRADeviceTaints) and
partitionable devices with shared counters (DRAPartitionableDevices), after the shared
structured-allocator cases of v1.36.3 (allocatortesting/allocator_testing.go: "tainted-device",
"tainted-device-tolerated", "partitionable-devices-*"). Under v1.35 both gates are off."""

from __future__ import annotations

from typing import Any

import pytest

from podwhy.framework.handle import Handle
from podwhy.framework.interface import CycleState
from podwhy.framework.status import Code
from podwhy.framework.types import PodInfo
from podwhy.framework.versions import V1_35, V1_36, Emulation
from podwhy.model import objects as o
from podwhy.plugins.dynamicresources import DynamicResources
from tests.builders import from_raw, make_node, make_snapshot
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
