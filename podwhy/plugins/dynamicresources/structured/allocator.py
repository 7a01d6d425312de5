"""Structured-parameters device allocation, as the scheduler's DRA allocator does it.

With v1.35's default feature gates (DRAAdminAccess and DRAPrioritizedList on; partitionable
devices, device taints, binding conditions and consumable capacity off) kube-scheduler
uses the "incubating" allocator of k8s.io/dynamic-resource-allocation/structured. This is
that search: claims in order, requests in order, devices one by one, backtracking until
the first complete solution, with the same validation errors.

The search visits the devices of one request in increasing position only. Upstream tries
them in every order, but a request's devices form a set (constraints compare each device
with the first), so both find the same first solution and hit the same first error.

A selector podwhy's CEL does not evaluate (CelNotEvaluatedError: timestamp(), ...) leaves
unknown whether the device matches. The search is first run as upstream runs it; if it never
reads such a selector, its answer is upstream's. Otherwise it is run again with every unknown
selector matching, then with none matching. Unless an unknown selector decided what an "All"
request takes (or a run met an error), the two runs bound every other reading of them: a solution
stays one when more devices match, so when neither finds an allocation the node fails whatever
those selectors say; and when both find the same one, every reading finds it first (it comes
first in search order with the most devices matching, and needs none of the unknown ones).
Otherwise the node's answer rests on them: SelectorsNotEvaluatedError. (podwhy takes an unknown
selector for a match or not; upstream could also meet a CEL runtime error in it.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from podwhy.cel.errors import CelError, CelNotEvaluatedError
from podwhy.framework.notevaluated import UnevaluatedSelector
from podwhy.model import objects as o
from podwhy.plugins.dynamicresources.cel.compile import SelectorCache, cel_device, evaluate_selector
from podwhy.plugins.dynamicresources.structured.constraints import DistinctAttribute, MatchAttribute
from podwhy.plugins.dynamicresources.structured.consumable_capacity import (
    add_capacity,
    capacity_from_request,
    remove_capacity,
    request_over_capacity,
)
from podwhy.plugins.dynamicresources.structured.counters import CounterSets
from podwhy.plugins.dynamicresources.structured.pools import Pool, gather_pools
from podwhy.plugins.dynamicresources.structured.requests import MODE_ALL, MODE_EXACT_COUNT, RequestView
from podwhy.plugins.dynamicresources.structured.taints import taint_prevents_allocation
from podwhy.plugins.dynamicresources.structured.types import (
    AllocationError,
    Capacity,
    DeviceID,
    NodeAllocationError,
    SelectorsNotEvaluatedError,
    claim_key,
    device_id_string,
)

# resourceapi.AllocationResultsMaxSize
ALLOCATION_RESULTS_MAX_SIZE = 32


class _MaxSizeExceededError(Exception):
    """A claim would need more than ALLOCATION_RESULTS_MAX_SIZE devices on this path."""


class _UnknownReadError(Exception):
    """Upstream's search reads a selector whose value podwhy does not know (the first run)."""


# What a run takes an unknown selector for: a stop (upstream's own search), a match, no match.
_STOP, _MATCH, _NO_MATCH = "stop", "match", "no match"


class _Candidate(msgspec.Struct):
    device_id: DeviceID
    slice: o.ResourceSlice
    index: int

    @property
    def device(self) -> o.Device:
        return self.slice.spec.devices[self.index]


class _RequestData(msgspec.Struct):
    request: RequestView
    parent: str | None  # name of the request holding this subrequest
    device_class: o.DeviceClass | None = None
    num_devices: int = 0
    all_devices: list[_Candidate] = msgspec.field(default_factory=list)
    selected_sub_index: int = 0

    def request_name(self) -> str:
        return f"{self.parent}/{self.request.name}" if self.parent is not None else self.request.name


class DeviceResult(msgspec.Struct, frozen=True):
    """One allocated device: `request` is "request" or "request/subrequest"."""

    request: str
    driver: str
    pool: str
    device: str
    admin_access: bool = False
    # Shared devices (allowMultipleAllocations): what this allocation consumes of each capacity.
    consumed_capacity: Capacity | None = None


ClaimAllocation = list[DeviceResult]

_RequestKey = tuple[int, int, int]  # claim, request, subrequest index


class Allocator:
    """Built once per pod (PreFilter); `allocate` runs per node (Filter)."""

    def __init__(
        self,
        allocated_devices: set[DeviceID],
        device_classes: Mapping[str, o.DeviceClass],
        slices: list[o.ResourceSlice],
        selector_cache: SelectorCache | None = None,
        device_taints: bool = False,
        partitionable_devices: bool = False,
        consumable_capacity: bool = False,
        binding_conditions: bool = False,
        allocated_capacity: Mapping[DeviceID, Capacity] | None = None,
    ) -> None:
        """`device_taints`, `partitionable_devices`, `consumable_capacity`: the DRADeviceTaints,
        DRAPartitionableDevices and DRAConsumableCapacity feature gates of the emulated release.

        `allocated_devices`: devices allocated to one claim; `allocated_capacity`: the capacity
        consumed on shared devices by allocations with a shareID (AllocatedState.AggregatedCapacity)."""
        self.allocated_devices = allocated_devices
        self.allocated_capacity: Mapping[DeviceID, Capacity] = allocated_capacity or {}
        self.device_classes = device_classes
        self.slices = slices
        self.selector_cache = selector_cache or SelectorCache()
        self.device_taints = device_taints
        self.partitionable_devices = partitionable_devices
        self.consumable_capacity = consumable_capacity
        # DRADeviceBindingConditions (with DRAResourceClaimDeviceStatus, on in both releases).
        self.binding_conditions = binding_conditions

    def allocate(self, node: o.Node, claims: list[o.ResourceClaim]) -> list[ClaimAllocation] | None:
        """One result per claim, or None when the claims do not fit on the node.

        Raises AllocationError for invalid input, NodeAllocationError when only this node is affected,
        SelectorsNotEvaluatedError when the answer rests on selectors podwhy cannot evaluate.
        """
        try:
            return _Run(self, node, claims, _STOP).allocate()
        except _UnknownReadError:
            pass
        unknown: set[UnevaluatedSelector] = set()
        failure: NodeAllocationError | None = None
        found: list[list[ClaimAllocation] | None] = []
        for taken_as in (_MATCH, _NO_MATCH):
            run = _Run(self, node, claims, taken_as)
            try:
                found.append(run.allocate())
            except NodeAllocationError as exc:
                found.append(None)
                failure = failure or exc
            except AllocationError:
                run.unknown_in_all = True  # an error on a path only some of their values lead to
            unknown |= run.unknown
            if run.unknown_in_all:
                raise SelectorsNotEvaluatedError(tuple(sorted(unknown)))
        if found[0] is None and found[1] is None:
            if failure is not None:
                raise failure
            return None
        if found[0] is not None and found[0] == found[1]:
            return found[0]
        raise SelectorsNotEvaluatedError(tuple(sorted(unknown)))


class _Run:
    """State of one Allocate call."""

    def __init__(self, allocator: Allocator, node: o.Node, claims: list[o.ResourceClaim], taken_as: str) -> None:
        self.a = allocator
        # What an unknown selector is taken for (_STOP, _MATCH, _NO_MATCH), those read, and
        # whether one was read for an "All" request (which then takes more or fewer devices).
        self.taken_as = taken_as
        self.unknown: set[UnevaluatedSelector] = set()
        self.unknown_in_all = False
        self._in_all = False
        self.node = node
        self.claims = claims
        self.pools: list[Pool] = []
        self.request_data: dict[_RequestKey, _RequestData] = {}
        self.constraints: list[list[MatchAttribute | DistinctAttribute]] = [[] for _ in claims]
        self.matches: dict[tuple[DeviceID, _RequestKey], bool] = {}
        self.allocating: dict[DeviceID, set[int]] = {}
        self.results: list[ClaimAllocation] = [[] for _ in claims]
        self.candidates: list[_Candidate] = []
        self.counters = CounterSets(allocator.slices, allocator.allocated_devices)
        self.cel_devices: dict[DeviceID, dict[str, Any] | CelError] = {}
        # Capacity this run's allocations consume of shared devices (allocatingCapacity).
        self.allocating_capacity: dict[DeviceID, Capacity] = {}

    def allocate(self) -> list[ClaimAllocation] | None:
        self.pools = gather_pools(self.a.slices, self.node)
        for claim_index, claim in enumerate(self.claims):
            self._validate_claim(claim_index, claim)
        # Selector results cached while validating are keyed loosely (see _validate_claim): start afresh.
        self.matches = {}
        for pool in self.pools:
            if pool.incomplete or pool.invalid:
                continue
            for rs in pool.slices:
                for index, device in enumerate(rs.spec.devices):
                    self.candidates.append(_Candidate((pool.driver, pool.name, device.name), rs, index))
        try:
            done = self._allocate_one(0, 0, 0, 0, False, 0)
        except _MaxSizeExceededError:  # pragma: no cover - absorbed at claim boundaries
            done = False
        if not done:
            if any(pool.invalid for pool in self.pools):
                raise NodeAllocationError("invalid resource pools were encountered")
            return None
        return self.results

    def _validate_claim(self, claim_index: int, claim: o.ResourceClaim) -> None:
        key = claim_key(claim)
        for request in claim.spec.devices.requests:
            with_capacity = [("request", request.name)] if request.exactly and request.exactly.capacity else []
            with_capacity += [("subrequest", sub.name) for sub in request.first_available if sub.capacity]
            for kind, name in with_capacity[:1]:
                if self.a.consumable_capacity:
                    break
                raise AllocationError(
                    f"claim {key}, {kind} {name}: has capacity requests,"
                    " but the DRAConsumableCapacity feature is disabled"
                )
        min_devices = 0
        for request_index, request in enumerate(claim.spec.devices.requests):
            if request.first_available:
                smallest: int | None = None
                # Upstream looks up (and caches) selector matches of subrequest i under the key
                # of subrequest i-1 while validating; kept because it decides "All" subrequests.
                lookup_sub = 0
                for sub_index, sub in enumerate(request.first_available):
                    data = self._validate_request(
                        key, RequestView.of_sub(sub), request.name, (claim_index, request_index, lookup_sub)
                    )
                    lookup_sub = sub_index
                    self.request_data[(claim_index, request_index, sub_index)] = data
                    if smallest is None or data.num_devices < smallest:
                        smallest = data.num_devices
                min_devices += smallest or 0
            else:
                exact = request.exactly or o.ExactDeviceRequest()
                data = self._validate_request(
                    key, RequestView.of_exact(request.name, exact), None, (claim_index, request_index, 0)
                )
                self.request_data[(claim_index, request_index, 0)] = data
                min_devices += data.num_devices
        if min_devices > ALLOCATION_RESULTS_MAX_SIZE:
            raise AllocationError(
                f"claim {key}: number of requested devices {min_devices} exceeds the claim limit of "
                f"{ALLOCATION_RESULTS_MAX_SIZE}"
            )
        constraints: list[MatchAttribute | DistinctAttribute] = []
        for index, constraint in enumerate(claim.spec.devices.constraints):
            if constraint.match_attribute is not None:
                constraints.append(MatchAttribute(constraint.requests, constraint.match_attribute))
            # v1.36's allocator knows distinctAttribute (v1.35's only with DRAConsumableCapacity,
            # which is on by default from v1.36 on).
            elif constraint.distinct_attribute is not None and self.a.consumable_capacity:
                constraints.append(DistinctAttribute(constraint.requests, constraint.distinct_attribute))
            else:
                raise AllocationError(
                    f"claim {key}, constraint #{index}: empty constraint (unsupported constraint type?)"
                )
        self.constraints[claim_index] = constraints

    def _validate_request(
        self, claim_name: str, request: RequestView, parent: str | None, key: _RequestKey
    ) -> _RequestData:
        data = _RequestData(request, parent)
        for index, selector in enumerate(request.selectors):
            if selector.cel is None:
                raise AllocationError(
                    f"claim {claim_name}, request {request.name}, selector #{index}: "
                    "CEL expression empty (unsupported selector type?)"
                )
        if not request.device_class_name:
            raise AllocationError(
                f"claim {claim_name}, request {request.name}: missing device class name (unsupported request type?)"
            )
        device_class = self.a.device_classes.get(request.device_class_name)
        if device_class is None:
            raise AllocationError(
                f"claim {claim_name}, request {request.name}: could not retrieve device class "
                f'{request.device_class_name}: deviceclass.resource.k8s.io "{request.device_class_name}" not found'
            )
        data.device_class = device_class
        if request.allocation_mode == MODE_EXACT_COUNT:
            data.num_devices = request.count
        elif request.allocation_mode == MODE_ALL:
            for pool in self.pools:
                if pool.incomplete:
                    raise AllocationError(
                        f"claim {claim_name}, request {request.name}: asks for all devices, but resource pool "
                        f"{pool.pool_id} is currently being updated"
                    )
                if pool.invalid:
                    raise AllocationError(
                        f"claim {claim_name}, request {request.name}: asks for all devices, but resource pool "
                        f"{pool.pool_id} is currently invalid"
                    )
                for rs in pool.slices:
                    for index, device in enumerate(rs.spec.devices):
                        candidate = _Candidate((rs.spec.driver, rs.spec.pool.name, device.name), rs, index)
                        self._in_all = True
                        try:
                            selectable = self._is_selectable(key, data, candidate)
                        finally:
                            self._in_all = False
                        if selectable and self._capacity_fits(data, candidate):
                            data.all_devices.append(candidate)
            data.num_devices = len(data.all_devices)
        else:
            raise AllocationError(
                f"claim {claim_name}, request {request.name}: unsupported count mode {request.allocation_mode}"
            )
        return data

    def _allocate_one(
        self, claim_index: int, request_index: int, sub_index: int, device_index: int, in_sub: bool, start: int
    ) -> bool:
        if claim_index >= len(self.claims):
            return True
        claim = self.claims[claim_index]
        if request_index >= len(claim.spec.devices.requests):
            try:
                return self._allocate_one(claim_index + 1, 0, 0, 0, False, 0)
            except _MaxSizeExceededError:
                # Another allocation of earlier claims might let a cheaper subrequest fit.
                return False
        key = (claim_index, request_index, sub_index)
        data = self.request_data[key]

        if not in_sub and data.parent is not None:
            all_exceeded = True
            sub = 0
            while (claim_index, request_index, sub) in self.request_data:
                try:
                    done = self._allocate_one(claim_index, request_index, sub, device_index, True, 0)
                except _MaxSizeExceededError:
                    sub += 1
                    continue
                all_exceeded = False
                if done:
                    data.selected_sub_index = sub
                    return True
                sub += 1
            if all_exceeded:
                raise _MaxSizeExceededError
            return False

        request = data.request
        all_mode = request.allocation_mode == MODE_ALL
        if all_mode and not data.all_devices:
            return False
        if device_index >= data.num_devices:
            return self._allocate_one(claim_index, request_index + 1, 0, 0, False, 0)
        if len(self.results[claim_index]) + data.num_devices - device_index > ALLOCATION_RESULTS_MAX_SIZE:
            raise _MaxSizeExceededError

        if all_mode:
            candidate = data.all_devices[device_index]
            undo = self._allocate_device(key, data, candidate, must=True)
            if undo is None:
                return False
            try:
                # Upstream moves on with subrequest index 0 here (it builds the next position without
                # it); kept, since it decides what an "All" subrequest other than the first gets.
                done = self._allocate_one(claim_index, request_index, 0, device_index + 1, in_sub, 0)
            except BaseException:
                undo()
                raise
            if not done:
                undo()
            return done

        for position in range(start, len(self.candidates)):
            candidate = self.candidates[position]
            if request.admin_access:
                if claim_index in self.allocating.get(candidate.device_id, ()):
                    continue
            elif self._in_use(candidate.device_id):
                continue
            if not self._is_selectable(key, data, candidate):
                continue
            if not self._capacity_fits(data, candidate):
                continue
            undo = self._allocate_device(key, data, candidate, must=False)
            if undo is None:
                continue
            try:
                done = self._allocate_one(claim_index, request_index, sub_index, device_index + 1, in_sub, position + 1)
            except BaseException:
                undo()
                raise
            if done:
                return True
            undo()
        return False

    def _capacity_fits(self, data: _RequestData, candidate: _Candidate) -> bool:
        """With DRAConsumableCapacity, CmpRequestOverCapacity: the request's capacity (rounded up
        to the device's requestPolicy) fits in what allocated and allocating shares left."""
        if not self.a.consumable_capacity:
            return True
        device_id = candidate.device_id
        fits = request_over_capacity(
            self.a.allocated_capacity.get(device_id, {}),
            data.request.capacity_requests,
            candidate.device.capacity,
            self.allocating_capacity.get(device_id, {}),
        )
        return bool(fits)

    def _capacity_in_use(self, device_id: DeviceID) -> bool:
        return device_id in self.a.allocated_capacity or device_id in self.allocating_capacity

    def _in_use(self, device_id: DeviceID) -> bool:
        return device_id in self.a.allocated_devices or bool(self.allocating.get(device_id))

    def _allocate_device(
        self, key: _RequestKey, data: _RequestData, candidate: _Candidate, must: bool
    ) -> Callable[[], None] | None:
        claim_index = key[0]
        request = data.request
        device_id = candidate.device_id
        device = candidate.device
        shared = self.a.consumable_capacity and bool(device.allow_multiple_allocations)
        if request.admin_access:
            if not shared and claim_index in self.allocating.get(device_id, ()):
                return None
        elif self._in_use(device_id):
            return None
        reserved = False  # whether this device's counters were reserved
        if device.consumes_counters:
            if not self.a.partitionable_devices:
                return None  # partitionable devices are off
            # A shared device already in use has its counters counted once already.
            if not (shared and self._capacity_in_use(device_id)):
                if not self.counters.reserve(device_id, device):
                    return None
                reserved = True
        if self.a.device_taints and taint_prevents_allocation(device, request):
            if reserved:
                self.counters.release(device_id, device)
            return None
        if data.parent is None:
            base, sub = request.name, ""
        else:
            base, sub = data.parent, request.name
        constraints = self.constraints[claim_index]
        for index, constraint in enumerate(constraints):
            if not constraint.add(base, sub, device, device_id):
                if must:
                    raise AllocationError(
                        f"claim {claim_key(self.claims[claim_index])}, request {request.name}: cannot add device "
                        f"{device_id_string(device_id)} because a claim constraint would not be satisfied"
                    )
                for earlier in constraints[:index]:
                    earlier.remove(base, sub)
                if reserved:
                    self.counters.release(device_id, device)
                return None

        def rollback(marked: bool, consumed: Capacity | None, entry_existed: bool) -> None:
            if consumed is not None:
                remove_capacity(self.allocating_capacity, device_id, consumed)
                if entry_existed:
                    # The earlier share still marks the device as shared.
                    self.allocating_capacity.setdefault(device_id, {})
            if marked:
                self.allocating[device_id].discard(claim_index)
            for constraint in reversed(constraints):
                constraint.remove(base, sub)
            if reserved:
                self.counters.release(device_id, device)

        if not shared:
            self.allocating.setdefault(device_id, set()).add(claim_index)
        consumed: Capacity | None = None
        entry_existed = False
        if self.a.consumable_capacity:
            if not self._capacity_fits(data, candidate):
                rollback(not shared, None, False)
                return None
            if shared:
                consumed = capacity_from_request(request.capacity_requests, device.capacity)
                entry_existed = device_id in self.allocating_capacity
                add_capacity(self.allocating_capacity, device_id, consumed)
        results = self.results[claim_index]
        previous = len(results)
        results.append(
            DeviceResult(
                data.request_name(),
                device_id[0],
                device_id[1],
                device_id[2],
                request.admin_access,
                consumed or None,
            )
        )

        def undo() -> None:
            del results[previous:]
            rollback(not shared, consumed, entry_existed)

        return undo

    def _is_selectable(self, key: _RequestKey, data: _RequestData, candidate: _Candidate) -> bool:
        device = candidate.device
        if device.binding_conditions and not self.a.binding_conditions:
            return False  # devices with binding conditions need the feature
        cache_key = (candidate.device_id, key)
        cached = self.matches.get(cache_key)
        if cached is not None:
            return cached
        result = True
        if data.device_class is not None and not self._selectors_match(
            key, candidate, data.device_class, data.device_class.spec.selectors
        ):
            result = False
        elif not self._selectors_match(key, candidate, None, data.request.selectors):
            result = False
        self.matches[cache_key] = result
        return result

    def _selectors_match(
        self,
        key: _RequestKey,
        candidate: _Candidate,
        device_class: o.DeviceClass | None,
        selectors: list[o.DeviceSelector],
    ) -> bool:
        if device_class is not None:
            owner = f"class {device_class.metadata.name}"
        else:
            owner = f"claim {claim_key(self.claims[key[0]])}"
        for index, selector in enumerate(selectors):
            expression = selector.cel.expression if selector.cel is not None else ""
            compiled = self.a.selector_cache.get(expression)
            if compiled.program is None:
                raise AllocationError(f"{owner}: selector #{index}: CEL compile error: {compiled.error}")
            try:
                binding = self._cel_device(candidate)
                matches = evaluate_selector(compiled.program, binding)
            except CelNotEvaluatedError as exc:
                matches = self._unknown(UnevaluatedSelector(owner, index, exc.what))
            except CelError as exc:
                raise AllocationError(f"{owner}: selector #{index}: CEL runtime error: {exc.message}") from None
            if not matches:
                return False
        return True

    def _unknown(self, selector: UnevaluatedSelector) -> bool:
        """What this run takes a selector podwhy does not evaluate for (see the module's doc)."""
        self.unknown.add(selector)
        self.unknown_in_all = self.unknown_in_all or self._in_all
        if self.taken_as == _STOP:
            raise _UnknownReadError
        return self.taken_as == _MATCH

    def _cel_device(self, candidate: _Candidate) -> dict[str, Any]:
        cached = self.cel_devices.get(candidate.device_id)
        if cached is None:
            try:
                cached = cel_device(candidate.device, candidate.device_id[0])
            except CelError as exc:
                cached = exc
            self.cel_devices[candidate.device_id] = cached
        if isinstance(cached, CelError):
            raise cached
        return cached
