"""DRA-backed extended resources in the node-resource scorers (DRAExtendedResource, on in v1.36):
the node's capacity of a resource a DeviceClass serves is the devices its slices offer the node,
its use the devices allocated claims hold. After upstream's v1.36.3 balanced_allocation_test.go
("include DRA resource on a node for balanced resource allocation"), fit_test.go ("LeastAllocated
with Extended resources") and resource_allocation_test.go (TestCalculateResourceAllocatableRequest).
Under v1.35 (gate off) the same objects change nothing."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest

from podwhy.features.emulation import V1_35, V1_36, Emulation
from podwhy.features.kubefeatures import DRA_EXTENDED_RESOURCE
from podwhy.framework.handle import Handle
from podwhy.framework.interface import CycleState, Plugin
from podwhy.framework.types import PodInfo
from podwhy.model import objects as o
from podwhy.model.records import replace
from podwhy.plugins.noderesources.balanced_allocation import BalancedAllocation
from podwhy.plugins.noderesources.dra_extended import dra_scoring_state
from podwhy.plugins.noderesources.fit import Fit
from podwhy.plugins.noderesources.resource_allocation import allocatable_and_requested
from tests.builders import from_raw, make_node, make_snapshot
from tests.plugin_args import with_args
from tests.plugins.test_dynamicresources import device, make_claim, make_slice
from tests.plugins.test_noderesources_score import pod_of, res, sized_node

Json = dict[str, Any]

EXPLICIT = "extended.resource.dra.io/something"
CLASS = "device-class-name"
IMPLICIT = f"deviceclass.resource.kubernetes.io/{CLASS}"
DRIVER = "test-driver"
NODE = "resource-node"
V1_36_GATE_OFF = replace(V1_36, gates=MappingProxyType({**V1_36.gates, DRA_EXTENDED_RESOURCE: False}))


def device_class(extended: str | None = EXPLICIT, *selectors: str) -> o.DeviceClass:
    spec: Json = {"selectors": [{"cel": {"expression": e}} for e in selectors]}
    if extended is not None:
        spec["extendedResourceName"] = extended
    return from_raw(o.DeviceClass, {"metadata": {"name": CLASS}, "spec": spec})


def devices(*names: str) -> list[Json]:
    return [device(n) for n in names]


def scores(
    emulation: Emulation,
    plugin_cls: type[Plugin],
    args: dict[str, Any],
    pod: o.Pod,
    objects: list[Any],
    pre_score: bool = True,
) -> list[int]:
    handle = Handle(make_snapshot(*objects), emulation=emulation)
    plugin = with_args(plugin_cls, handle, args)
    state = CycleState()
    info = PodInfo(pod)
    if pre_score:
        assert plugin.pre_score(state, info, handle.node_infos).is_success()
    out = []
    for node_info in handle.node_infos:
        score, status = plugin.score(state, info, node_info)
        assert status.is_success(), status
        out.append(score)
    return out


# ------------------------------------------------------- NodeResourcesBalancedAllocation

BALANCED_ARGS = {
    "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": EXPLICIT, "weight": 1}]
}
BALANCED_NODES = [sized_node("node1", 3500, 40000), sized_node("node2", 3500, 40000)]
BALANCED_PODS = [
    pod_of(res(1000, 0), res(2000, 0), name="a", node_name="node1"),
    pod_of(res(1000, 2000), res(2000, 3000), name="b", node_name="node2"),
]
EIGHT_ON_NODE1 = [
    device_class(),
    make_slice(*devices(*(f"device-{i}" for i in range(1, 9))), node="node1", driver=DRIVER),
]
BALANCED_POD = pod_of(res(mem=0, **{EXPLICIT.replace(".", "_").replace("/", "__"): 1}))


@pytest.mark.parametrize(
    ("emulation", "dra", "want"),
    [
        # node1: cpu 3000/3500, memory 0/40000, devices 0 -> 1 of 8: 60 -> 62, score 76.
        # node2 offers no device: the resource is left out, 63 -> 63, score 75.
        pytest.param(V1_36, EIGHT_ON_NODE1, [76, 75], id="v1.36 counts the devices"),
        pytest.param(V1_36, [], [75, 75], id="v1.36 without a DeviceClass"),
        pytest.param(V1_36_GATE_OFF, EIGHT_ON_NODE1, [75, 75], id="v1.36 with DRAExtendedResource off"),
        # v1.35: the balance with the pod alone; node1 offers nothing of the resource either way.
        pytest.param(V1_35, EIGHT_ON_NODE1, [57, 63], id="v1.35 ignores the devices"),
        pytest.param(V1_35, [], [57, 63], id="v1.35 without a DeviceClass"),
    ],
)
@pytest.mark.parametrize("pre_score", [True, False], ids=["PreScore", "no PreScore"])
def test_balanced_allocation_counts_dra_backed_resources(
    emulation: Emulation, dra: list[Any], want: list[int], pre_score: bool
) -> None:
    objects = [*BALANCED_NODES, *BALANCED_PODS, *dra]
    assert scores(emulation, BalancedAllocation, BALANCED_ARGS, BALANCED_POD, objects, pre_score) == want


def test_balanced_allocation_needs_the_dra_objects_only_when_they_count() -> None:
    handle = Handle(make_snapshot(*BALANCED_NODES, *EIGHT_ON_NODE1), emulation=V1_36)
    plugin = with_args(BalancedAllocation, handle, BALANCED_ARGS)
    assert plugin.required_kinds_for_score(PodInfo(BALANCED_POD)) == {"DeviceClass", "ResourceSlice", "ResourceClaim"}
    assert plugin.required_kinds_for_score(PodInfo(pod_of(res(1000, 1000)))) == set()
    v135 = with_args(BalancedAllocation, Handle(handle.snapshot, emulation=V1_35), BALANCED_ARGS)
    assert v135.required_kinds_for_score(PodInfo(BALANCED_POD)) == set()


# ------------------------------------------------------------------- NodeResourcesFit


FIT_ARGS = {"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": EXPLICIT, "weight": 1}]}}
FIT_DRA = [
    device_class(),
    make_slice(*devices("device-1", "device-2", "device-3"), node="node1", driver=DRIVER),
    make_slice(*devices("device-1", "device-2"), node="node2", driver=DRIVER),
]


@pytest.mark.parametrize(
    ("emulation", "want"),
    [
        # (3 - 1) * 100 / 3 and (2 - 1) * 100 / 2.
        pytest.param(V1_36, [66, 50], id="v1.36"),
        pytest.param(V1_35, [0, 0], id="v1.35: no node offers the resource"),
    ],
)
@pytest.mark.parametrize("pre_score", [True, False], ids=["PreScore", "no PreScore"])
def test_fit_scores_dra_backed_resources(emulation: Emulation, want: list[int], pre_score: bool) -> None:
    objects = [make_node("node1").obj(), make_node("node2").obj(), *FIT_DRA]
    pod = pod_of(res(mem=0, **{EXPLICIT.replace(".", "_").replace("/", "__"): 1}))
    assert scores(emulation, Fit, FIT_ARGS, pod, objects, pre_score) == want


# ------------------------------------------------- capacity and use, per resource and node

MODEL_SELECTOR = (
    f'device.driver == "{DRIVER}" && device.capacity["{DRIVER}"].memory.compareTo(quantity("8Gi")) >= 0'
    f' && device.attributes["{DRIVER}"].model.startsWith("SOME-")'
)
ZONE_A = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["us-east-1a"]}]}]}


def _per_device_slice() -> o.ResourceSlice:
    spec: Json = {
        "driver": DRIVER,
        "pool": {"name": "per-device-pool", "generation": 1, "resourceSliceCount": 1},
        "perDeviceNodeSelection": True,
        "devices": [
            {**device("device-1", "16Gi", model="SOME-XYZ"), "nodeName": NODE},
            {**device("device-2", "12Gi", model="SOME-ZYX"), "nodeName": "other-node"},
            {**device("device-3", "24Gi", model="SOME-XZY"), "nodeSelector": ZONE_A},
            {**device("device-4", "4Gi", model="SOME-SMALL"), "allNodes": True},
            {**device("device-5", "32Gi", model="SOME-NOWHERE")},
        ],
    }
    return from_raw(o.ResourceSlice, {"metadata": {"name": "per-device-slice"}, "spec": spec})


def _claim(name: str, *devices_: str, pool: str = NODE, admin: bool = False, share: bool = False) -> o.ResourceClaim:
    claim = make_claim(name=name, allocated=[(DRIVER, pool, d) for d in devices_], admin_results=admin)
    if share and claim.status.allocation is not None:
        for result in claim.status.allocation.devices.results:
            result.share_id = "share-123"
    return claim


TWO = make_slice(*devices("device-1", "device-2"), node=NODE, driver=DRIVER)
THREE = make_slice(*devices("device-1", "device-2", "device-3"), node=NODE, driver=DRIVER)


@pytest.mark.parametrize(
    ("resource", "objects", "want"),
    [
        pytest.param(
            EXPLICIT,
            [device_class(), make_slice(device("device-1"), node=NODE, driver=DRIVER)],
            (1, 0),
            id="explicit name",
        ),
        pytest.param(
            IMPLICIT,
            [device_class(None), make_slice(device("device-1"), node=NODE, driver=DRIVER)],
            (1, 0),
            id="implicit name",
        ),
        pytest.param(EXPLICIT, [device_class()], (0, 0), id="no slices"),
        pytest.param(EXPLICIT, [device_class(), TWO, _claim("c1", "device-1")], (2, 1), id="allocated device"),
        pytest.param(EXPLICIT, [device_class(), TWO, _claim("c1", "device-1", share=True)], (2, 1), id="shared device"),
        pytest.param(
            EXPLICIT,
            [device_class(), THREE, _claim("c1", "device-1"), _claim("c2", "device-2", share=True)],
            (3, 2),
            id="dedicated and shared",
        ),
        pytest.param(
            EXPLICIT,
            [device_class(), TWO, _claim("c1", "device-1", admin=True)],
            (2, 0),
            id="admin access holds nothing",
        ),
        pytest.param(
            EXPLICIT, [device_class(), TWO, _claim("c1", "device-1", pool="other")], (2, 0), id="other pool's device"
        ),
        pytest.param(
            EXPLICIT,
            [device_class(), make_slice(*devices("device-1"), node="other-node", driver=DRIVER)],
            (0, 0),
            id="slice of another node",
        ),
        pytest.param(
            EXPLICIT,
            [device_class(), make_slice(*devices("d1", "d2"), node=None, pool="p", all_nodes=True, driver=DRIVER)],
            (2, 0),
            id="slice for all nodes",
        ),
        pytest.param(
            EXPLICIT,
            [device_class(), make_slice(*devices("d1"), node=None, pool="p", node_selector=ZONE_A, driver=DRIVER)],
            (1, 0),
            id="slice selecting the node",
        ),
        pytest.param(
            EXPLICIT,
            [device_class(), make_slice(*devices("d1"), node=None, pool="p", driver=DRIVER)],
            (1, 0),
            id="slice naming no node counts everywhere",
        ),
        pytest.param(
            EXPLICIT,
            # device-1 (its node), device-3 (selector) and device-4 (all nodes, but 4Gi fails the
            # class) -> 2; device-1 is allocated.
            [
                device_class(EXPLICIT, MODEL_SELECTOR),
                _per_device_slice(),
                _claim("c1", "device-1", pool="per-device-pool"),
            ],
            (2, 1),
            id="per-device node selection and a class selector",
        ),
        pytest.param(
            EXPLICIT, [device_class(EXPLICIT, "device.driver =="), TWO], (0, 0), id="selector does not compile"
        ),
        pytest.param(
            EXPLICIT, [device_class(EXPLICIT, 'device.attributes["x"].y'), TWO], (0, 0), id="selector fails at runtime"
        ),
    ],
)
def test_device_totals(resource: str, objects: list[Any], want: tuple[int, int]) -> None:
    node = make_node(NODE).labels(zone="us-east-1a").obj()
    handle = Handle(make_snapshot(node, *objects), emulation=V1_36)
    state = dra_scoring_state(handle, [resource])
    got = state.totals(node, resource) if state is not None else (0, 0)
    assert got == want


@pytest.mark.parametrize("emulation", [V1_35, V1_36])
def test_a_node_advertising_the_resource_keeps_its_own_figures(emulation: Emulation) -> None:
    node = make_node(NODE).alloc({EXPLICIT: "4"}).obj()
    handle = Handle(make_snapshot(node, device_class(), TWO), emulation=emulation)
    state = dra_scoring_state(handle, [EXPLICIT])
    assert (state is not None) == (emulation is V1_36)
    assert allocatable_and_requested(handle.node_infos[0], EXPLICIT, 1, True, state) == (4, 1, "")


def test_no_state_without_a_scored_dra_backed_resource() -> None:
    handle = Handle(make_snapshot(make_node(NODE).obj(), device_class(), TWO), emulation=V1_36)
    assert dra_scoring_state(handle, ["cpu", "memory", "example.com/other"]) is None
    assert dra_scoring_state(Handle(handle.snapshot, emulation=V1_35), [EXPLICIT]) is None
