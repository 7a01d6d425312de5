"""Consumable capacity (DRAConsumableCapacity, on by default from v1.36) in the structured
allocator: the consumable-capacity, allow-multiple-allocations and distinct-attribute cases of
upstream's shared allocator table (v1.36.3, structured/internal/allocatortesting/allocator_testing.go),
run against podwhy's allocator with the same devices, claims and expected allocations."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

from podwhy.errors import PodwhyError
from podwhy.model import objects as o
from podwhy.plugins.dynamicresources.structured.allocator import Allocator
from podwhy.plugins.dynamicresources.structured.types import AllocationError, DeviceID
from podwhy.snapshot.source import FileSource
from tests.builders import from_raw, make_node

Json = dict[str, Any]

NODE1 = "node-1"
CLASS_A = "class-a"
DRIVER_A = "driver-a"
POOL1 = "pool-1"
CAP0 = "capacity-0"
CAP1 = "capacity-1"
BOOL = f"{DRIVER_A}/boolAttribute"
STRING = f"{DRIVER_A}/stringAttribute"
VERSION = f"{DRIVER_A}/driverVersion"
INT = f"{DRIVER_A}/numa"
CAP0_OF_DEVICE = f'device.capacity["{DRIVER_A}"]["{CAP0}"]'


def class_a(multi: bool | None = None) -> o.DeviceClass:
    """class(), or classWithAllowMultipleAllocations() when `multi` is given."""
    expression = f'device.driver == "{DRIVER_A}"'
    if multi is not None:
        expression += f" && device.allowMultipleAllocations == {str(multi).lower()}"
    spec = {"selectors": [{"cel": {"expression": expression}}]}
    return from_raw(o.DeviceClass, {"metadata": {"name": CLASS_A}, "spec": spec})


def dev(
    name: str,
    cap: dict[str, Any] | None = None,
    attrs: Json | None = None,
    multi: bool = False,
    ranged: dict[str, Any] | None = None,
    valued: tuple[Any, dict[str, Any], list[Any]] | None = None,
    counters: dict[str, dict[str, Any]] | None = None,
) -> Json:
    """device(); withAllowMultipleAllocations, withCapacityRequestPolicyRange (default 2, range 2..4
    step 2), withCapacityRequestPolicyValidValues (default first), withDeviceCounterConsumption
    (capacity from the counters)."""
    out: Json = {"name": name}
    capacity: Json = {k: {"value": v} for k, v in (cap or {}).items()}
    if counters:
        out["consumesCounters"] = [
            {"counterSet": s, "counters": {k: {"value": v} for k, v in c.items()}} for s, c in counters.items()
        ]
        for c in counters.values():
            capacity.update({k: {"value": v} for k, v in c.items()})
    for k, v in (ranged or {}).items():
        capacity[k] = {"value": v, "requestPolicy": {"default": 2, "validRange": {"min": 2, "step": 2, "max": 4}}}
    if valued is not None:
        default, caps, extra = valued
        for k, v in caps.items():
            capacity[k] = {"value": v, "requestPolicy": {"default": default, "validValues": [default, *extra]}}
    if capacity:
        out["capacity"] = capacity
    if attrs:
        out["attributes"] = attrs
    if multi:
        out["allowMultipleAllocations"] = True
    return out


def slice_(*devices: Json, count: int = 1, counter_sets: dict[str, dict[str, Any]] | None = None) -> o.ResourceSlice:
    spec: Json = {
        "driver": DRIVER_A,
        "pool": {"name": POOL1, "generation": 1, "resourceSliceCount": count},
        "nodeName": NODE1,
        "devices": list(devices),
    }
    if counter_sets:
        spec["sharedCounters"] = [
            {"name": s, "counters": {k: {"value": v} for k, v in c.items()}} for s, c in counter_sets.items()
        ]
    return from_raw(o.ResourceSlice, {"metadata": {"name": "slice-1"}, "spec": spec})


def _capacity(cap: Any) -> Json:
    return {"capacity": {"requests": {CAP0: cap}}} if cap is not None else {}


def req(name: str, count: int = 1, cap: Any = None, all_: bool = False, selector: str | None = None) -> Json:
    exactly: Json = {"deviceClassName": CLASS_A, **_capacity(cap)}
    exactly.update({"allocationMode": "All"} if all_ else {"allocationMode": "ExactCount", "count": count})
    if selector:
        exactly["selectors"] = [{"cel": {"expression": selector}}]
    return {"name": name, "exactly": exactly}


def sub(name: str, cap: Any = None, selector: str | None = None) -> Json:
    out: Json = {"name": name, "deviceClassName": CLASS_A, "allocationMode": "ExactCount", "count": 1, **_capacity(cap)}
    if selector:
        out["selectors"] = [{"cel": {"expression": selector}}]
    return out


def prioritized(name: str, *subs: Json) -> Json:
    return {"name": name, "firstAvailable": list(subs)}


def claim(name: str, *requests: Json, constraints: list[Json] | None = None) -> o.ResourceClaim:
    devices: Json = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = constraints
    return from_raw(o.ResourceClaim, {"metadata": {"name": name}, "spec": {"devices": devices}})


def distinct(attribute: str, *requests: str) -> Json:
    return {"distinctAttribute": attribute, "requests": list(requests)}


def dev_id(name: str) -> DeviceID:
    return (DRIVER_A, POOL1, name)


# One expected device: (request, device, consumed capacity or None).
Result = tuple[str, str, dict[str, int] | None]


def allocate(
    claims: list[o.ResourceClaim],
    slices: list[o.ResourceSlice],
    device_class: o.DeviceClass,
    consumable: bool = True,
    allocated: set[DeviceID] | None = None,
    allocated_capacity: dict[DeviceID, dict[str, Fraction]] | None = None,
) -> list[list[Result]] | None:
    allocator = Allocator(
        allocated or set(),
        {CLASS_A: device_class},
        slices,
        partitionable_devices=True,
        consumable_capacity=consumable,
        allocated_capacity=allocated_capacity,
    )
    results = allocator.allocate(make_node(NODE1).obj(), claims)
    if results is None:
        return None
    out: list[list[Result]] = []
    for claim_results in results:
        out.append(
            sorted(
                (
                    r.request,
                    r.device,
                    None if r.consumed_capacity is None else {k: int(v) for k, v in r.consumed_capacity.items()},
                )
                for r in claim_results
            )
        )
    return out


TWO_CLAIMS = [claim("claim-0", req("req-0")), claim("claim-1", req("req-0"))]


def _two_claims(cap: Any) -> list[o.ResourceClaim]:
    return [claim("claim-0", req("req-0", cap=cap)), claim("claim-1", req("req-0", cap=cap))]


# name: (claims, slices, class, allocated devices, allocated capacity, expected allocations or None)
CASES: dict[str, tuple[Any, ...]] = {
    "consumable-capacity-multi-allocatable-device-with-missing-capacity-request": (
        [claim("claim-0", req("req-0", cap=1))],
        [slice_(dev("device-1", cap={CAP1: 1}, multi=True))],
        class_a(),
        None,
        None,
        None,
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-with-missing-capacity-request": (
        [claim("claim-0", req("req-0", cap=1, all_=True))],
        [slice_(dev("device-1", cap={CAP1: 1}, multi=True))],
        class_a(True),
        None,
        None,
        None,
    ),
    "consumable-capacity-multi-allocatable-device-without-capacity-without-capacity-request": (
        TWO_CLAIMS,
        [slice_(dev("device-1", multi=True))],
        class_a(True),
        None,
        None,
        [[("req-0", "device-1", None)], [("req-0", "device-1", None)]],
    ),
    "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request": (
        TWO_CLAIMS,
        [slice_(dev("device-1", cap={CAP0: 1}, multi=True), dev("device-2", cap={CAP0: 1}, multi=True))],
        class_a(True),
        None,
        None,
        [[("req-0", "device-1", {CAP0: 1})], [("req-0", "device-2", {CAP0: 1})]],
    ),
    "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request-block": (
        TWO_CLAIMS,
        [slice_(dev("device-1", cap={CAP0: 2}, multi=True))],
        class_a(True),
        None,
        None,
        None,
    ),
    "consumable-capacity-multi-allocatable-device-without-policy-with-capacity-request": (
        _two_claims(1),
        [slice_(dev("device-1", cap={CAP0: 2}, multi=True))],
        class_a(True),
        None,
        None,
        [[("req-0", "device-1", {CAP0: 1})], [("req-0", "device-1", {CAP0: 1})]],
    ),
    "consumable-capacity-multi-allocatable-device-with-policy-without-capacity-request": (
        TWO_CLAIMS,
        [slice_(dev("device-1", multi=True, ranged={CAP0: 4}))],
        class_a(True),
        None,
        None,
        [[("req-0", "device-1", {CAP0: 2})], [("req-0", "device-1", {CAP0: 2})]],
    ),
    "consumable-capacity-multi-allocatable-device-with-zero-request-policy": (
        TWO_CLAIMS,
        [slice_(dev("device-1", multi=True, valued=(0, {CAP0: 1}, [])))],
        class_a(True),
        None,
        None,
        [[("req-0", "device-1", {CAP0: 0})], [("req-0", "device-1", {CAP0: 0})]],
    ),
    "consumable-capacity-multi-allocatable-device-violates-zero-request-policy": (
        [claim("claim-0", req("req-0", cap=1))],
        [slice_(dev("device-1", multi=True, valued=(0, {CAP0: 1}, [])))],
        class_a(True),
        None,
        None,
        None,
    ),
    "consumable-capacity-multi-allocatable-device-with-range-policy-with-capacity-request": (
        _two_claims(1),
        [slice_(dev("device-1", multi=True, ranged={CAP0: 4}))],
        class_a(True),
        None,
        None,
        [[("req-0", "device-1", {CAP0: 2})], [("req-0", "device-1", {CAP0: 2})]],
    ),
    "consumable-capacity-multi-allocatable-device-with-range-policy-step": (
        [claim("claim-0", req("req-0", cap=3))],
        [slice_(dev("device-1", multi=True, ranged={CAP0: 4}))],
        class_a(True),
        None,
        None,
        [[("req-0", "device-1", {CAP0: 4})]],
    ),
    "consumable-capacity-multi-allocatable-device-with-valid-values-policy": (
        [claim("claim-0", req("req-0", cap=2))],
        [slice_(dev("device-1", multi=True, valued=(1, {CAP0: 4}, [2])))],
        class_a(True),
        None,
        None,
        [[("req-0", "device-1", {CAP0: 2})]],
    ),
    "consumable-capacity-multi-allocatable-device-with-valid-values-policy-round-up": (
        [claim("claim-0", req("req-0", cap=2))],
        [slice_(dev("device-1", multi=True, valued=(1, {CAP0: 3}, [3])))],
        class_a(True),
        None,
        None,
        [[("req-0", "device-1", {CAP0: 3})]],
    ),
    "consumable-capacity-multi-allocatable-device-with-exceeded-consumable-capacity-request": (
        [claim("claim-0", req("req-0", cap=1)), claim("claim-1", req("req-0", cap=2))],
        [slice_(dev("device-1", multi=True, ranged={CAP0: 2}))],
        class_a(True),
        None,
        None,
        None,
    ),
    "consumable-capacity-multi-allocatable-device-with-request-over-max-sharing-policy": (
        [claim("claim-0", req("req-0", cap=6))],
        [slice_(dev("device-1", multi=True, ranged={CAP0: 10}))],
        class_a(True),
        None,
        None,
        None,
    ),
    "consumable-capacity-multi-allocatable-device-with-allocated-capacity-use-remaining": (
        [claim("claim-0", req("req-0", cap=2))],
        [slice_(dev("device-1", multi=True, ranged={CAP0: 4}))],
        class_a(True),
        None,
        {dev_id("device-1"): {CAP0: Fraction(2)}},
        [[("req-0", "device-1", {CAP0: 2})]],
    ),
    "consumable-capacity-multi-allocatable-device-with-allocated-capacity-next-device": (
        [claim("claim-0", req("req-0", cap=2))],
        [slice_(dev("device-1", multi=True, ranged={CAP0: 2}), dev("device-2", multi=True, ranged={CAP0: 2}))],
        class_a(True),
        None,
        {dev_id("device-1"): {CAP0: Fraction(2)}},
        [[("req-0", "device-2", {CAP0: 2})]],
    ),
    "consumable-capacity-with-multi-allocatable-device-backtrack": (
        [
            claim(
                "claim-0",
                req("req-0", cap=2),
                req("req-1", cap=2),
                constraints=[{"matchAttribute": STRING}],
            ),
            claim("claim-1", req("req-0", cap=2)),
        ],
        [
            slice_(
                dev("device-2", attrs={"stringAttribute": {"string": "v1"}}, multi=True, ranged={CAP0: 2}),
                dev("device-1", attrs={"stringAttribute": {"string": "v2"}}, multi=True, ranged={CAP0: 4}),
            )
        ],
        class_a(),
        None,
        None,
        [
            [("req-0", "device-1", {CAP0: 2}), ("req-1", "device-1", {CAP0: 2})],
            [("req-0", "device-2", {CAP0: 2})],
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-subrequest": (
        [claim("claim-0", prioritized("req-0", sub("subReq-0", cap=4), sub("subReq-1", cap=2), sub("subReq-1")))],
        [slice_(dev("device-1", multi=True, ranged={CAP0: 2}))],
        class_a(True),
        None,
        None,
        [[("req-0/subReq-1", "device-1", {CAP0: 2})]],
    ),
    "consumable-capacity-multi-allocatable-device-with-no-available-consumable-capacity": (
        [claim("claim-0", req("req-0", cap=2))],
        [slice_(dev("device-1", multi=True, ranged={CAP0: 2}))],
        class_a(True),
        None,
        {dev_id("device-1"): {CAP0: Fraction(2)}},
        None,
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-no-capacity": (
        [claim("claim-0", req("req-0", cap=2, all_=True))],
        [slice_(dev("device-1", cap={CAP0: 2}, multi=True), dev("device-2", multi=True))],
        class_a(True),
        None,
        None,
        [[("req-0", "device-1", {CAP0: 2})]],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-insufficient-capacity": (
        [claim("claim-0", req("req-0", cap=2, all_=True))],
        [slice_(dev("device-1", cap={CAP0: 2}, multi=True), dev("device-2", cap={CAP0: 1}, multi=True))],
        class_a(True),
        None,
        None,
        [[("req-0", "device-1", {CAP0: 2})]],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-sufficient": (
        [claim("claim-0", req("req-0", cap=1), req("req-1", cap=1, all_=True))],
        [slice_(dev("device-1", cap={CAP0: 2}, multi=True), dev("device-2", cap={CAP0: 1}, multi=True))],
        class_a(),
        None,
        None,
        [
            [
                ("req-0", "device-1", {CAP0: 1}),
                ("req-1", "device-1", {CAP0: 1}),
                ("req-1", "device-2", {CAP0: 1}),
            ]
        ],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-sufficient": (
        [claim("claim-0", req("req-0", cap=1, all_=True))],
        [slice_(dev("device-1", cap={CAP0: 2}, multi=True), dev("device-2", cap={CAP0: 1}, multi=True))],
        class_a(),
        None,
        {dev_id("device-1"): {CAP0: Fraction(1)}},
        [[("req-0", "device-1", {CAP0: 1}), ("req-0", "device-2", {CAP0: 1})]],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-insufficient": (
        [claim("claim-0", req("req-0", cap=1), req("req-1", cap=1, all_=True))],
        [slice_(dev("device-1", cap={CAP0: 1}, multi=True), dev("device-2", cap={CAP0: 1}, multi=True))],
        class_a(),
        None,
        None,
        None,
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-insufficient": (
        [claim("claim-0", req("req-0", cap=1, all_=True))],
        [slice_(dev("device-1", cap={CAP0: 1}, multi=True), dev("device-2", cap={CAP0: 1}, multi=True))],
        class_a(),
        None,
        {dev_id("device-1"): {CAP0: Fraction(1)}},
        [[("req-0", "device-2", {CAP0: 1})]],
    ),
    "consumable-capacity-dedicated-device-with-consumable-capacity-request": (
        [claim("claim-0", req("req-0", cap=1))],
        [slice_(dev("device-1", cap={CAP0: 1}))],
        class_a(False),
        None,
        None,
        [[("req-0", "device-1", None)]],
    ),
    "consumable-capacity-dedicated-device-with-multiple-consumable-capacity-request": (
        _two_claims(1),
        [slice_(dev("device-1", ranged={CAP0: 2}))],
        class_a(False),
        None,
        None,
        None,
    ),
    "allow-multiple-allocations-exclude-multi-allocatable-device-by-class-selector": (
        [claim("claim-0", req("req-0", cap=1))],
        [slice_(dev("device-1", cap={CAP0: 1}, multi=True))],
        class_a(False),
        None,
        None,
        None,
    ),
    "allow-multiple-allocations-not-allocate-multi-allocatable-device-which-already-dedicated": (
        [claim("claim-0", req("req-0", cap=1))],
        [slice_(dev("device-1", multi=True, ranged={CAP0: 2}))],
        class_a(True),
        {dev_id("device-1")},
        None,
        None,
    ),
    "allow-multiple-allocations-not-allocate-dedicated-device-which-change-from-multi-allocatable": (
        [claim("claim-0", req("req-0", cap=1))],
        [slice_(dev("device-1", ranged={CAP0: 2}))],
        class_a(True),
        None,
        {dev_id("device-1"): {CAP0: Fraction(1)}},
        None,
    ),
    "with-distinct-constraints": (
        [
            claim(
                "claim-0",
                req("req-0"),
                req("req-1"),
                req("req-2"),
                req("req-3"),
                constraints=[
                    distinct(BOOL, "req-0", "req-1"),
                    distinct(VERSION, "req-0", "req-1", "req-2"),
                    distinct(INT, "req-0", "req-1", "req-2", "req-3"),
                ],
            )
        ],
        [
            slice_(
                *(
                    dev(
                        f"device-{i + 1}",
                        attrs={
                            "driverVersion": {"version": version},
                            "numa": {"int": i},
                            "boolAttribute": {"bool": flag},
                        },
                        multi=True,
                    )
                    for i, (version, flag) in enumerate(
                        [("1.0.0", True), ("1.0.1", False), ("1.0.2", True), ("1.0.0", True)]
                    )
                )
            )
        ],
        class_a(),
        None,
        None,
        [
            [
                ("req-0", "device-1", None),
                ("req-1", "device-2", None),
                ("req-2", "device-3", None),
                ("req-3", "device-4", None),
            ]
        ],
    ),
    "with-distinct-constraints-attribute-not-set": (
        [claim("claim-0", req("req-0"), constraints=[distinct(BOOL, "req-0")])],
        [slice_(dev("device-1", multi=True))],
        class_a(),
        None,
        None,
        None,
    ),
    "with-distinct-constraints-with-subrequests": (
        [
            claim(
                "claim-0",
                *(
                    prioritized(
                        name,
                        sub("subReq-0", selector=f'device.attributes["{DRIVER_A}"].boolAttribute'),
                        sub("subReq-1"),
                    )
                    for name in ("req-0", "req-1", "req-2")
                ),
                constraints=[distinct(BOOL, "req-0", "req-1")],
            )
        ],
        [
            slice_(
                dev("device-1", attrs={"boolAttribute": {"bool": True}}, multi=True),
                dev("device-2", attrs={"boolAttribute": {"bool": False}}, multi=True),
            )
        ],
        class_a(),
        None,
        None,
        [
            [
                ("req-0/subReq-0", "device-1", None),
                ("req-1/subReq-1", "device-2", None),
                ("req-2/subReq-0", "device-1", None),
            ]
        ],
    ),
    "distinct-constraint-one-multi-allocatable-device-with-distinct-constraint": (
        [claim("claim-0", req("req-0", cap=1), req("req-1", cap=1), constraints=[distinct(STRING)])],
        [
            slice_(
                dev("device-1", attrs={"stringAttribute": {"string": "value"}}, multi=True, ranged={CAP0: 2}),
            )
        ],
        class_a(True),
        None,
        None,
        None,
    ),
    "distinct-constraint-two-multi-allocatable-devices-with-distinct-constraint": (
        [claim("claim-0", req("req-0", cap=2), req("req-1", cap=2), constraints=[distinct(STRING)])],
        [
            slice_(dev("device-1", attrs={"stringAttribute": {"string": "v1"}}, multi=True, ranged={CAP0: 4}), count=2),
            slice_(dev("device-2", attrs={"stringAttribute": {"string": "v2"}}, multi=True, ranged={CAP0: 4}), count=2),
        ],
        class_a(True),
        None,
        None,
        [[("req-0", "device-1", {CAP0: 2}), ("req-1", "device-2", {CAP0: 2})]],
    ),
    "allow-multiple-allocations-with-partitionable-device": (
        [
            claim(
                "claim-0",
                req("req-0"),
                prioritized(
                    "req-1",
                    sub("subReq-0", selector=f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("6Gi")) >= 0'),
                    sub("subReq-1", selector=f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("4Gi")) >= 0'),
                ),
            )
        ],
        [
            slice_(
                dev("device-1", multi=True, counters={"counter-set-1": {"memory": "4Gi"}}),
                dev("device-2", multi=True, counters={"counter-set-1": {"memory": "6Gi"}}),
                dev("device-3", multi=True, counters={"counter-set-1": {"memory": "4Gi"}}),
                count=2,
            ),
            slice_(count=2, counter_sets={"counter-set-1": {"memory": "8Gi"}}),
        ],
        class_a(True),
        None,
        None,
        [[("req-0", "device-1", {"memory": 4 << 30}), ("req-1/subReq-1", "device-3", {"memory": 4 << 30})]],
    ),
    "consumable-capacity-with-partitionable-device-multiple-capacity-pools": (
        [
            claim(
                "claim-0",
                req("req-0", cap=1),
                req("req-2", cap=2),
                prioritized(
                    "req-1",
                    sub("subReq-0", cap=1, selector=f'{CAP0_OF_DEVICE}.compareTo(quantity("4")) >= 0'),
                    sub("subReq-1", cap=1, selector=f'{CAP0_OF_DEVICE}.compareTo(quantity("2")) >= 0'),
                ),
            )
        ],
        [
            slice_(
                *(
                    dev(
                        name,
                        multi=True,
                        counters={"counter-set-1": {CAP0: cap0}, "counter-set-2": {CAP1: 4}},
                        ranged={CAP1: 4},
                    )
                    for name, cap0 in (("device-1", 2), ("device-2", 4), ("device-3", 2))
                ),
                count=2,
            ),
            slice_(count=2, counter_sets={"counter-set-1": {CAP0: 4}, "counter-set-2": {CAP1: 8}}),
        ],
        class_a(),
        None,
        None,
        [
            [
                ("req-0", "device-1", {CAP0: 1, CAP1: 2}),
                ("req-1/subReq-1", "device-1", {CAP0: 1, CAP1: 2}),
                ("req-2", "device-3", {CAP0: 2, CAP1: 2}),
            ]
        ],
    ),
}


@pytest.mark.parametrize(
    ("claims", "slices", "device_class", "allocated", "allocated_capacity", "want"),
    list(CASES.values()),
    ids=list(CASES),
)
def test_upstream_consumable_capacity_cases(
    claims: list[o.ResourceClaim],
    slices: list[o.ResourceSlice],
    device_class: o.DeviceClass,
    allocated: set[DeviceID] | None,
    allocated_capacity: dict[DeviceID, dict[str, Fraction]] | None,
    want: list[list[Result]] | None,
) -> None:
    got = allocate(claims, slices, device_class, allocated=allocated, allocated_capacity=allocated_capacity)
    assert got == ([sorted(w) for w in want] if want is not None else None)


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        (req("req-0", cap=1), "claim claim-0, request req-0:"),
        (prioritized("req-0", sub("subReq-0", cap=1), sub("subReq-1", cap=1)), "claim claim-0, subrequest subReq-0:"),
    ],
    ids=["consumable-capacity-disabled-feature", "consumable-capacity-disabled-feature-with-prioritized-list"],
)
def test_capacity_requests_need_the_feature(request_: Json, message: str) -> None:
    with pytest.raises(AllocationError) as caught:
        allocate([claim("claim-0", request_)], [slice_(dev("device-1"))], class_a(), consumable=False)
    want = f"{message} has capacity requests, but the DRAConsumableCapacity feature is disabled"
    assert caught.value.message == want


def test_unknown_attribute_type_in_distinct_constraint_is_an_error() -> None:
    """with-distinct-constraints-unknown-type-attribute: an attribute without a value."""
    claims = [claim("claim-0", req("req-0"), constraints=[distinct(BOOL, "req-0")])]
    with pytest.raises(AllocationError, match="unsupported attribute value"):
        allocate(claims, [slice_(dev("device-1", attrs={"boolAttribute": {}}, multi=True))], class_a())


@pytest.mark.parametrize(
    ("obj", "kind", "name"),
    [
        ({"kind": "ResourceSlice", "spec": {"devices": [dev("d", ranged={CAP0: "4x"})]}}, "ResourceSlice", "slice-1"),
        (
            {"kind": "ResourceSlice", "spec": {"devices": [dev("d", valued=(1, {CAP0: 4}, ["2y"]))]}},
            "ResourceSlice",
            "slice-1",
        ),
        ({"kind": "ResourceClaim", "spec": {"devices": {"requests": [req("req-0", cap="1q")]}}}, "ResourceClaim", "c"),
        (
            {
                "kind": "ResourceClaim",
                "status": {
                    "allocation": {
                        "devices": {
                            "results": [
                                {
                                    "request": "r",
                                    "driver": "d",
                                    "pool": "p",
                                    "device": "x",
                                    "shareID": "s",
                                    "consumedCapacity": {CAP0: "1z"},
                                }
                            ]
                        }
                    }
                },
            },
            "ResourceClaim",
            "c",
        ),
    ],
    ids=["policy-range", "policy-values", "request", "consumed"],
)
def test_an_unparsable_capacity_quantity_names_the_object(tmp_path: Any, obj: Json, kind: str, name: str) -> None:
    document = {"apiVersion": "resource.k8s.io/v1", "metadata": {"name": name, "namespace": "ns"}, **obj}
    path = tmp_path / "objects.json"
    path.write_text(json.dumps(document))
    with pytest.raises(PodwhyError, match=rf"objects.json: the object \({kind} '{name}'\): unparsable quantity"):
        FileSource([str(path)]).load()


@pytest.mark.parametrize(
    ("used", "free"),
    [pytest.param(None, 1, id="unused"), pytest.param(1, 1, id="room-left"), pytest.param(2, 0, id="used-up")],
)
def test_the_report_counts_a_shared_device_free_only_while_its_capacity_takes_the_request(
    used: int | None, free: int
) -> None:
    """freeMatchingDevices (the report's evidence): a shared device (allowMultipleAllocations) is
    never in the allocated set; it is free while the capacity left takes the request, as the
    allocator decides (CmpRequestOverCapacity)."""
    from podwhy.plugins.dynamicresources.structured.describe import describe_requests

    allocator = Allocator(
        set(),
        {CLASS_A: class_a()},
        [slice_(dev("device-0", cap={CAP0: 2}, multi=True))],
        partitionable_devices=True,
        consumable_capacity=True,
        allocated_capacity={dev_id("device-0"): {CAP0: Fraction(used)}} if used is not None else None,
    )
    (entry,) = describe_requests(allocator, make_node(NODE1).obj(), [claim("claim-0", req("req-0", cap=1))])
    assert (entry.matching_devices, entry.free_matching_devices) == (1, free)
    fits = allocator.allocate(make_node(NODE1).obj(), [claim("claim-0", req("req-0", cap=1))]) is not None
    assert fits == bool(free)  # the evidence agrees with the verdict
