"""DynamicResources PreFilter + Filter, after upstream's dynamicresources_test.go and the
shared structured-allocator cases (allocatortesting/allocator_testing.go)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from podwhy.framework.evidence import DeviceRequestEvidence
from podwhy.framework.handle import Handle
from podwhy.framework.interface import CycleState
from podwhy.framework.status import Code, Status
from podwhy.framework.types import PodInfo
from podwhy.model import objects as o
from podwhy.plugins import names
from podwhy.plugins.dynamicresources import DynamicResources, DynamicResourcesState
from podwhy.snapshot.source import FileSource
from tests.builders import PodBuilder, from_raw, make_handle, make_node, make_pod

Json = dict[str, Any]

NS = "default"
POD = "my-pod"
POD_UID = "1234"
CLAIM = "my-pod-my-resource"
CLASS_A = "class-a"
DRIVER_A = "driver-a"
DRIVER_B = "driver-b"
NODE1 = "node-1"
NODE2 = "node-2"

CANNOT_ALLOCATE = "cannot allocate all claims"
NOT_AVAILABLE = "resourceclaim not available on the node"


# ------------------------------------------------------------------ builders


def my_pod() -> PodBuilder:
    return make_pod(POD, NS).uid(POD_UID)


def by_name() -> o.Pod:
    """The pod with its one claim referenced by name."""
    return my_pod().resource_claim("my-resource", claim=CLAIM).obj()


def by_template(*statuses: Json) -> o.Pod:
    """The pod with its one claim from a template, and these resourceClaimStatuses."""
    return (
        my_pod()
        .resource_claim("my-resource", template="my-template")
        .status(resourceClaimStatuses=list(statuses))
        .obj()
    )


def two_claims() -> o.Pod:
    return my_pod().resource_claim("my-resource", claim=CLAIM).resource_claim("second", claim="second").obj()


def exact(
    name: str = "req-0",
    device_class: str = CLASS_A,
    count: int | None = 1,
    mode: str = "ExactCount",
    selectors: list[str] | None = None,
    admin: bool | None = None,
) -> Json:
    spec: Json = {"deviceClassName": device_class, "allocationMode": mode}
    if count is not None and mode == "ExactCount":
        spec["count"] = count
    if selectors:
        spec["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    if admin is not None:
        spec["adminAccess"] = admin
    return {"name": name, "exactly": spec}


def first_available(name: str, *subs: Json) -> Json:
    return {"name": name, "firstAvailable": list(subs)}


def sub(
    name: str, device_class: str = CLASS_A, count: int = 1, mode: str = "ExactCount", selectors: list[str] | None = None
) -> Json:
    spec: Json = {"name": name, "deviceClassName": device_class, "allocationMode": mode}
    if mode == "ExactCount":
        spec["count"] = count
    if selectors:
        spec["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    return spec


def make_claim(
    *requests: Json,
    name: str = CLAIM,
    allocated: list[tuple[str, str, str]] | None = None,
    on_node: str | None = None,
    deleting: bool = False,
    owner_uid: str | None = None,
    constraints: list[Json] | None = None,
    admin_results: bool = False,
) -> o.ResourceClaim:
    meta: Json = {"name": name, "namespace": NS, "uid": f"uid-{name}"}
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    if owner_uid is not None:
        meta["ownerReferences"] = [{"kind": "Pod", "name": POD, "uid": owner_uid, "controller": True}]
    claim: Json = {
        "metadata": meta,
        "spec": {"devices": {"requests": list(requests or [exact()]), "constraints": constraints or []}},
    }
    if allocated is not None:
        allocation: Json = {
            "devices": {
                "results": [
                    {"request": "req-0", "driver": d, "pool": p, "device": n, "adminAccess": admin_results}
                    for d, p, n in allocated
                ]
            }
        }
        if on_node is not None:
            field = {"key": "metadata.name", "operator": "In", "values": [on_node]}
            allocation["nodeSelector"] = {"nodeSelectorTerms": [{"matchFields": [field]}]}
        claim["status"] = {"allocation": allocation}
    return from_raw(o.ResourceClaim, claim)


def make_class(name: str = CLASS_A, driver: str = DRIVER_A, *extra: str) -> o.DeviceClass:
    selectors = [{"cel": {"expression": f'device.driver == "{driver}"'}}]
    selectors += [{"cel": {"expression": e}} for e in extra]
    return from_raw(o.DeviceClass, {"metadata": {"name": name}, "spec": {"selectors": selectors}})


def device(name: str, memory: str | None = None, **attributes: Any) -> Json:
    out: Json = {"name": name}
    if memory is not None:
        out["capacity"] = {"memory": {"value": memory}}
    attrs: Json = {}
    for key, value in attributes.items():
        if isinstance(value, bool):
            attrs[key] = {"bool": value}
        elif isinstance(value, int):
            attrs[key] = {"int": value}
        elif isinstance(value, str) and value.startswith("v"):
            attrs[key] = {"version": value[1:]}
        else:
            attrs[key] = {"string": value}
    if attrs:
        out["attributes"] = attrs
    return out


def make_slice(
    *devices: Json,
    node: str | None = NODE1,
    pool: str | None = None,
    driver: str = DRIVER_A,
    name: str | None = None,
    generation: int = 1,
    count: int = 1,
    all_nodes: bool = False,
    node_selector: Json | None = None,
) -> o.ResourceSlice:
    spec: Json = {
        "driver": driver,
        "pool": {"name": pool or node or "pool", "generation": generation, "resourceSliceCount": count},
        "devices": list(devices),
    }
    if node is not None:
        spec["nodeName"] = node
    if all_nodes:
        spec["allNodes"] = True
    if node_selector is not None:
        spec["nodeSelector"] = node_selector
    slice_name = name or f"{spec['pool']['name']}-{driver}"
    return from_raw(o.ResourceSlice, {"metadata": {"name": slice_name}, "spec": spec})


def run(
    pod: o.Pod,
    claims: list[o.ResourceClaim] | None = None,
    classes: list[o.DeviceClass] | None = None,
    slices: list[o.ResourceSlice] | None = None,
    nodes: list[o.Node] | None = None,
) -> tuple[Status, dict[str, Status], DynamicResourcesState]:
    if nodes is None:
        nodes = [make_node(NODE1).obj(), make_node(NODE2).obj()]
    handle = make_handle(*nodes, pod, *(classes or []), *(slices or []), *(claims or []))
    plugin = DynamicResources(handle)
    state = CycleState()
    info = PodInfo(pod)
    _, pre = plugin.pre_filter(state, info, handle.node_infos)
    verdicts: dict[str, Status] = {}
    if pre.is_success():
        for ni in handle.node_infos:
            verdicts[ni.name] = plugin.filter(state, info, ni)
    return pre, verdicts, state.read(names.DYNAMIC_RESOURCES)


def verdict(status: Status) -> tuple[Code, list[str]]:
    return status.code, status.reasons


OK: tuple[Code, list[str]] = (Code.Success, [])


# ------------------------------------------------------------------ PreFilter


PRE_FILTER_CASES: list[tuple[str, o.Pod, list[o.ResourceClaim], list[o.DeviceClass], tuple[Code, list[str]]]] = [
    ("no claims", my_pod().obj(), [], [], (Code.Skip, [])),
    (
        "claim reference, allocated",
        by_name(),
        [make_claim(allocated=[(DRIVER_A, NODE1, "dev-1")], on_node=NODE1)],
        [],
        OK,
    ),
    (
        "missing claim",
        by_name(),
        [],
        [],
        (Code.UnschedulableAndUnresolvable, [f'could not find ResourceClaim "{NS}/{CLAIM}"']),
    ),
    (
        "template, claim not created yet",
        by_template(),
        [make_claim()],
        [make_class()],
        (Code.UnschedulableAndUnresolvable, [f'pod "{NS}/{POD}": ResourceClaim not created yet']),
    ),
    ("template, no claim needed", by_template({"name": "my-resource"}), [], [], (Code.Skip, [])),
    (
        "template, claim generated",
        by_template({"name": "my-resource", "resourceClaimName": CLAIM}),
        [make_claim(owner_uid=POD_UID)],
        [make_class()],
        OK,
    ),
    (
        "template, claim of another pod",
        by_template({"name": "my-resource", "resourceClaimName": CLAIM}),
        [make_claim(owner_uid=POD_UID + "123")],
        [make_class()],
        (
            Code.UnschedulableAndUnresolvable,
            [f"ResourceClaim {NS}/{CLAIM} was not created for pod {NS}/{POD} (pod is not owner)"],
        ),
    ),
    (
        "deleted claim",
        by_name(),
        [make_claim(deleting=True)],
        [make_class()],
        (Code.UnschedulableAndUnresolvable, [f'resourceclaim "{CLAIM}" is being deleted']),
    ),
    (
        "missing class",
        by_name(),
        [make_claim()],
        [],
        (Code.UnschedulableAndUnresolvable, [f"request req-0: device class {CLASS_A} does not exist"]),
    ),
    (
        "missing class of a subrequest",
        by_name(),
        [make_claim(first_available("req-0", sub("sub-0"), sub("sub-1", device_class="class-b")))],
        [make_class()],
        (Code.UnschedulableAndUnresolvable, ["request req-0/sub-1: device class class-b does not exist"]),
    ),
    (
        "empty class name",
        by_name(),
        [make_claim(exact(device_class=""))],
        [make_class()],
        (Code.Error, ["request req-0: unsupported request type"]),
    ),
    (
        "unknown request type",
        by_name(),
        [make_claim({"name": "req-0"})],
        [make_class()],
        (Code.UnschedulableAndUnresolvable, [f"resource claim {NS}/{CLAIM}, request req-0: unknown request type"]),
    ),
    (
        "allocated claim needs no class",
        by_name(),
        [make_claim(exact(device_class="gone"), allocated=[(DRIVER_A, NODE1, "dev-1")])],
        [],
        OK,
    ),
]


@pytest.mark.parametrize(
    "pod,claims,classes,want", [c[1:] for c in PRE_FILTER_CASES], ids=[c[0] for c in PRE_FILTER_CASES]
)
def test_pre_filter(
    pod: o.Pod, claims: list[o.ResourceClaim], classes: list[o.DeviceClass], want: tuple[Code, list[str]]
) -> None:
    pre, _, state = run(pod, claims, classes)
    assert verdict(pre) == want
    # Claims are recorded only once PreFilter got through all its checks (PostFilter relies on it).
    assert bool(state.claims) == (want == OK)


@pytest.mark.parametrize(
    ("claims", "want"),
    [
        # Not found: rejected for that, unless the snapshot cannot vouch for the claims.
        ([], {"ResourceClaim"}),
        # To allocate: every class, slice and allocated claim (the devices in use) counts.
        ([make_claim()], {"ResourceClaim", "DeviceClass", "ResourceSlice"}),
        # Allocated: the claim itself says where it can run.
        ([make_claim(allocated=[(DRIVER_A, "pool", "dev-1")])], set()),
    ],
    ids=["not-found", "to-allocate", "allocated"],
)
def test_required_kinds(claims: list[o.ResourceClaim], want: set[str]) -> None:
    plugin = DynamicResources(make_handle(*claims))
    assert plugin.required_kinds(PodInfo(my_pod().obj())) == set()
    assert plugin.required_kinds(PodInfo(by_name())) == want


# ------------------------------------------------------------------ Filter

GPU_SELECTOR = f'device.attributes["{DRIVER_A}"].model == "big"'

# (name, claims (first one is the pod's), classes, slices, want per node)
FILTER_CASES: list[
    tuple[str, list[o.ResourceClaim], list[o.DeviceClass], list[o.ResourceSlice], dict[str, tuple[Code, list[str]]]]
] = [
    (
        "simple",
        [make_claim()],
        [make_class()],
        [make_slice(device("dev-1"))],
        {NODE1: OK, NODE2: (Code.UnschedulableAndUnresolvable, [CANNOT_ALLOCATE])},
    ),
    (
        "other driver",
        [make_claim()],
        [make_class()],
        [make_slice(device("dev-1"), driver=DRIVER_B)],
        {NODE1: (Code.UnschedulableAndUnresolvable, [CANNOT_ALLOCATE])},
    ),
    (
        "allocated on this node",
        [make_claim(allocated=[(DRIVER_A, NODE1, "dev-1")], on_node=NODE1)],
        [],
        [],
        {NODE1: OK, NODE2: (Code.UnschedulableAndUnresolvable, [NOT_AVAILABLE])},
    ),
    (
        "allocated without node selector",
        [make_claim(allocated=[(DRIVER_A, "pool", "dev-1")])],
        [],
        [],
        {NODE1: OK, NODE2: OK},
    ),
    (
        "device in use by another claim",
        [make_claim(), make_claim(name="other", allocated=[(DRIVER_A, NODE1, "dev-1")], on_node=NODE1)],
        [make_class()],
        [make_slice(device("dev-1"))],
        {NODE1: (Code.UnschedulableAndUnresolvable, [CANNOT_ALLOCATE])},
    ),
    (
        "admin access result does not hold the device",
        [make_claim(), make_claim(name="other", allocated=[(DRIVER_A, NODE1, "dev-1")], admin_results=True)],
        [make_class()],
        [make_slice(device("dev-1"))],
        {NODE1: OK},
    ),
    (
        "admin access request may share a device",
        [make_claim(exact(admin=True)), make_claim(name="other", allocated=[(DRIVER_A, NODE1, "dev-1")])],
        [make_class()],
        [make_slice(device("dev-1"))],
        {NODE1: OK},
    ),
    (
        "request selector",
        [make_claim(exact(selectors=[GPU_SELECTOR]))],
        [make_class()],
        [make_slice(device("dev-1", model="small")), make_slice(device("dev-1", model="big"), node=NODE2)],
        {NODE1: (Code.UnschedulableAndUnresolvable, [CANNOT_ALLOCATE]), NODE2: OK},
    ),
    (
        "class selects by capacity",
        [make_claim(exact(device_class="big", count=2))],
        [make_class("big", DRIVER_A, f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("80Gi")) >= 0')],
        [
            make_slice(device("dev-1", "80Gi"), device("dev-2", "24Gi")),
            make_slice(device("dev-1", "80Gi"), device("dev-2", "96Gi"), node=NODE2),
        ],
        {NODE1: (Code.UnschedulableAndUnresolvable, [CANNOT_ALLOCATE]), NODE2: OK},
    ),
    (
        "not enough devices",
        [make_claim(exact(count=3))],
        [make_class()],
        [make_slice(device("dev-1"), device("dev-2"))],
        {NODE1: (Code.UnschedulableAndUnresolvable, [CANNOT_ALLOCATE])},
    ),
    (
        "small and large, backtrack requests",
        [
            make_claim(
                exact("req-0", selectors=[f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("1Gi")) >= 0']),
                exact("req-1", selectors=[f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("2Gi")) >= 0']),
            )
        ],
        [make_class()],
        [make_slice(device("dev-2", "2Gi"), device("dev-1", "1Gi"))],
        {NODE1: OK},
    ),
    (
        "all devices",
        [make_claim(exact(mode="All", count=None))],
        [make_class()],
        [make_slice(device("dev-1"), device("dev-2"))],
        {NODE1: OK, NODE2: (Code.UnschedulableAndUnresolvable, [CANNOT_ALLOCATE])},
    ),
    (
        "all devices, one in use",
        [make_claim(exact(mode="All", count=None)), make_claim(name="other", allocated=[(DRIVER_A, NODE1, "dev-2")])],
        [make_class()],
        [make_slice(device("dev-1"), device("dev-2"))],
        {NODE1: (Code.UnschedulableAndUnresolvable, [CANNOT_ALLOCATE])},
    ),
    (
        "all devices of an incomplete pool",
        [make_claim(exact(mode="All", count=None))],
        [make_class()],
        [make_slice(device("dev-1"), count=2)],
        {
            NODE1: (
                Code.Error,
                [
                    f"claim {NS}/{CLAIM}, request req-0: asks for all devices, but resource pool "
                    f"{DRIVER_A}/{NODE1} is currently being updated"
                ],
            ),
            NODE2: (Code.UnschedulableAndUnresolvable, [CANNOT_ALLOCATE]),
        },
    ),
    (
        "first available falls back",
        [make_claim(first_available("req-0", sub("two", count=2), sub("one")))],
        [make_class()],
        [make_slice(device("dev-1"))],
        {NODE1: OK},
    ),
    (
        "match attribute",
        [make_claim(exact(count=2), constraints=[{"matchAttribute": f"{DRIVER_A}/numa"}])],
        [make_class()],
        [
            make_slice(device("dev-1", numa=0), device("dev-2", numa=1), device("dev-3", numa=1)),
            make_slice(device("dev-1", numa=0), device("dev-2", numa=1), node=NODE2),
        ],
        {NODE1: OK, NODE2: (Code.UnschedulableAndUnresolvable, [CANNOT_ALLOCATE])},
    ),
    (
        "duplicate device names make the pool invalid",
        [make_claim()],
        [make_class()],
        [make_slice(device("dev-1"), name="a", count=2), make_slice(device("dev-1"), name="b", count=2)],
        {
            NODE1: (Code.UnschedulableAndUnresolvable, ["invalid resource pools were encountered"]),
            NODE2: (Code.UnschedulableAndUnresolvable, [CANNOT_ALLOCATE]),
        },
    ),
    (
        "obsolete slice generation is ignored",
        [make_claim()],
        [make_class()],
        [
            make_slice(device("dev-1"), name="old", count=2),
            make_slice(device("dev-2"), name="new", generation=2, count=2),
        ],
        {NODE1: (Code.UnschedulableAndUnresolvable, [CANNOT_ALLOCATE])},
    ),
    (
        "CEL runtime error",
        [make_claim(exact(selectors=[f'device.attributes["{DRIVER_A}"].missing == 1']))],
        [make_class()],
        [make_slice(device("dev-1"))],
        {
            NODE1: (Code.Error, [f"claim {NS}/{CLAIM}: selector #0: CEL runtime error: no such key: missing"]),
            NODE2: (Code.UnschedulableAndUnresolvable, [CANNOT_ALLOCATE]),
        },
    ),
    (
        "too many devices",
        [make_claim(exact(count=33))],
        [make_class()],
        [make_slice(device("dev-1"))],
        {NODE1: (Code.Error, [f"claim {NS}/{CLAIM}: number of requested devices 33 exceeds the claim limit of 32"])},
    ),
    (
        "network-attached slice with node selector",
        [make_claim()],
        [make_class()],
        [
            make_slice(
                device("dev-1"),
                node=None,
                pool="net",
                node_selector={
                    "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]
                },
            )
        ],
        {NODE1: OK, NODE2: (Code.UnschedulableAndUnresolvable, [CANNOT_ALLOCATE])},
    ),
    (
        "slice for all nodes",
        [make_claim(exact(count=2))],
        [make_class()],
        [make_slice(device("dev-1"), device("dev-2"), node=None, pool="shared", all_nodes=True)],
        {NODE1: OK, NODE2: OK},
    ),
    (
        "allocated elsewhere and nothing to allocate here",
        [make_claim(allocated=[(DRIVER_A, NODE1, "dev-1")], on_node=NODE1)],
        [make_class()],
        [make_slice(device("dev-1"))],
        {NODE2: (Code.UnschedulableAndUnresolvable, [NOT_AVAILABLE])},
    ),
]


@pytest.mark.parametrize("claims,classes,slices,want", [c[1:] for c in FILTER_CASES], ids=[c[0] for c in FILTER_CASES])
def test_filter(
    claims: list[o.ResourceClaim],
    classes: list[o.DeviceClass],
    slices: list[o.ResourceSlice],
    want: dict[str, tuple[Code, list[str]]],
) -> None:
    nodes = [make_node(NODE1).labels(zone="a").obj(), make_node(NODE2).labels(zone="b").obj()]
    pre, verdicts, _ = run(by_name(), claims, classes, slices, nodes)
    assert verdict(pre) == OK
    for node, expected in want.items():
        assert verdict(verdicts[node]) == expected, node


def test_two_claims_one_unallocatable_reports_allocation_first() -> None:
    # The allocator runs before the allocated claims' node selectors are reported.
    pod = two_claims()
    claims = [
        make_claim(allocated=[(DRIVER_A, NODE1, "dev-1")], on_node=NODE1),
        make_claim(exact(count=5), name="second"),
    ]
    pre, verdicts, state = run(pod, claims, [make_class()], [make_slice(device("dev-1"), node=NODE2)])
    assert verdict(pre) == OK
    assert verdict(verdicts[NODE1]) == (Code.UnschedulableAndUnresolvable, [CANNOT_ALLOCATE])
    assert verdict(verdicts[NODE2]) == (Code.UnschedulableAndUnresolvable, [CANNOT_ALLOCATE])
    assert state.unavailable_claims == set()


def test_state_for_post_filter_and_score() -> None:
    pod = two_claims()
    claims = [
        make_claim(allocated=[(DRIVER_A, NODE1, "dev-0")], on_node=NODE1),
        make_claim(first_available("req-0", sub("two", count=2), sub("one")), name="second"),
    ]
    _, verdicts, state = run(pod, claims, [make_class()], [make_slice(device("dev-1"), device("dev-2"))])
    assert verdict(verdicts[NODE1]) == OK
    assert verdict(verdicts[NODE2]) == (Code.UnschedulableAndUnresolvable, [CANNOT_ALLOCATE])
    assert [c.metadata.name for c in state.claims] == [CLAIM, "second"]
    (allocation,) = state.node_allocations[NODE1]
    assert [(r.request, r.device) for r in allocation] == [("req-0/two", "dev-1"), ("req-0/two", "dev-2")]

    _, verdicts, state = run(
        pod, claims, [make_class()], [make_slice(device("dev-2")), make_slice(device("dev-9"), node=NODE2)]
    )
    assert verdict(verdicts[NODE1]) == OK
    assert verdict(verdicts[NODE2]) == (Code.UnschedulableAndUnresolvable, [NOT_AVAILABLE])
    assert state.unavailable_claims == {0}
    assert [r.request for r in state.node_allocations[NODE1][0]] == ["req-0/one"]


def test_cannot_allocate_evidence() -> None:
    claims = [make_claim(exact(count=2, selectors=[GPU_SELECTOR]))]
    _, verdicts, _ = run(
        by_name(),
        claims,
        [make_class()],
        [make_slice(device("dev-1", model="big"), device("dev-2", model="small"))],
    )
    (evidence,) = verdicts[NODE1].evidence
    assert isinstance(evidence, DeviceRequestEvidence)
    assert evidence.matching_devices == 1
    assert evidence.count == 2


def test_loaded_objects_reach_the_plugin_typed(tmp_path: Path) -> None:
    # The loader decodes the resource.k8s.io kinds into their Structs, losing nothing the plugin reads.
    claim, device_class, rs = make_claim(), make_class(), make_slice(device("dev-1"))
    objects = [("Node", make_node(NODE1).obj()), ("DeviceClass", device_class), ("ResourceSlice", rs)]
    versions = {"Node": "v1"}
    items: list[Json] = [
        {"apiVersion": versions.get(kind, "resource.k8s.io/v1"), "kind": kind, **msgspec.to_builtins(obj)}
        for kind, obj in [*objects, ("ResourceClaim", claim)]
    ]
    dump = tmp_path / "cluster.json"
    dump.write_bytes(msgspec.json.encode({"kind": "List", "items": items}))
    snapshot = FileSource([str(dump)], complete=True).load()
    assert snapshot.device_classes == {CLASS_A: device_class}
    assert snapshot.resource_slices == [rs]
    assert snapshot.resource_claims == {f"{NS}/{CLAIM}": claim}
    assert all(type(c) is o.ResourceClaim for c in snapshot.resource_claims.values())
    handle = Handle(snapshot)
    plugin = DynamicResources(handle)
    state = CycleState()
    info = PodInfo(by_name())
    _, pre = plugin.pre_filter(state, info, handle.node_infos)
    assert verdict(pre) == OK
    assert verdict(plugin.filter(state, info, handle.node_infos[0])) == OK
