"""Structured-parameters device allocation, as the scheduler's DRA allocator does it.

With v1.35's default feature gates (DRAAdminAccess and DRAPrioritizedList on; partitionable
devices, device taints, binding conditions and consumable capacity off) kube-scheduler
uses the "incubating" allocator of k8s.io/dynamic-resource-allocation/structured. This is
that search: claims in order, requests in order, devices one by one, backtracking until
the first complete solution, with the same validation errors.

The search visits the devices of one request in increasing position only. Upstream tries
them in every order, but a request's devices form a set (constraints compare each device
with the first), so both find the same first solution and hit the same first error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from podwhy.model import objects as o
from podwhy.model.labels import LazyNodeSelector
from podwhy.model.quantity import parse_quantity
from podwhy.plugins.dynamicresources.cel.compile import SelectorCache, cel_device, evaluate_selector
from podwhy.plugins.dynamicresources.cel.errors import CelError

# resourceapi.AllocationResultsMaxSize
ALLOCATION_RESULTS_MAX_SIZE = 32

MODE_EXACT_COUNT = o.ALLOCATION_MODE_EXACT_COUNT
MODE_ALL = "All"

DeviceID = tuple[str, str, str]  # driver, pool, device


def device_id_string(device_id: DeviceID) -> str:
    return "/".join(device_id)


class AllocationError(Exception):
    """Bad input (claim, class, CEL): the scheduler aborts the whole attempt with an Error."""

    @property
    def message(self) -> str:
        return str(self.args[0])


class NodeAllocationError(AllocationError):
    """Allocation failed on this node only (structured.ErrFailedAllocationOnNode)."""


class NotSimulatedError(Exception):
    """The allocation needs a feature of the emulated release that podwhy does not simulate."""

    @property
    def message(self) -> str:
        return str(self.args[0])


# Consumed capacity per capacity name (ConsumedCapacity); per device (ConsumedCapacityCollection).
Capacity = dict[str, Fraction]


def _quantity(raw: Any) -> Fraction:
    return parse_quantity(raw)


def _ceil(value: Fraction) -> int:
    """resource.Quantity.Value(): the value rounded up to an integer."""
    return -((-value.numerator) // value.denominator)


def _policy_range(policy: o.CapacityRequestPolicy) -> tuple[Fraction, Fraction | None, Fraction | None]:
    """validRange's min, max and step; the API server requires min and a positive step."""
    valid_range = policy.valid_range
    assert valid_range is not None
    if valid_range.min is None:
        raise NotSimulatedError("capacity requestPolicy.validRange without min (the API server requires it)")
    step = _quantity(valid_range.step) if valid_range.step is not None else None
    if step is not None and _ceil(step) <= 0:
        raise NotSimulatedError("capacity requestPolicy.validRange.step must be positive")
    maximum = _quantity(valid_range.max) if valid_range.max is not None else None
    return _quantity(valid_range.min), maximum, step


def consumed_capacity(requested: Fraction | None, capacity: o.DeviceCapacity) -> Fraction:
    """calculateConsumedCapacity: the request rounded up to the device's requestPolicy, or the
    policy's default (else the whole capacity) when the request names no amount."""
    policy = capacity.request_policy
    if requested is None:
        if policy is not None and policy.default is not None:
            return _quantity(policy.default)
        return _quantity(capacity.value)
    if policy is None:
        return requested
    if policy.valid_range is not None and policy.valid_range.min is not None:
        minimum, _, step = _policy_range(policy)
        if requested < minimum:
            return minimum
        if step is None:
            return requested
        # roundUpRange works on the integer values (Quantity.Value rounds up).
        lowest, increment = _ceil(minimum), _ceil(step)
        added = _ceil(requested) - lowest
        n = added // increment + (1 if added % increment else 0)
        return Fraction(lowest + increment * n)
    if policy.valid_values:
        for value in policy.valid_values:
            allowed = _quantity(value)
            if requested <= allowed:
                return allowed
    return requested


def violates_policy(value: Fraction, policy: o.CapacityRequestPolicy | None) -> bool:
    """violatesPolicy: above validRange.max, off validRange's step, or none of validValues."""
    if policy is None:
        return False
    if policy.default is not None and value == _quantity(policy.default):
        return False
    if policy.valid_range is not None:
        minimum, maximum, step = _policy_range(policy)
        if maximum is not None and value > maximum:
            return True
        if step is not None:
            # Go's % truncates towards zero; "not a multiple" is the same either way.
            return (_ceil(value) - _ceil(minimum)) % _ceil(step) != 0
        return False
    if policy.valid_values:
        return all(value != _quantity(allowed) for allowed in policy.valid_values)
    return False


def request_over_capacity(
    consumed: Capacity,
    requests: Mapping[str, Any] | None,
    capacities: Mapping[str, o.DeviceCapacity],
    allocating: Capacity,
) -> bool | None:
    """CmpRequestOverCapacity: True when the request fits in what the device has left, False when
    it does not or breaks a requestPolicy, None (upstream's error) when it names a capacity the
    device does not have."""
    if requests and any(name not in capacities for name in requests):
        return None
    for name, capacity in capacities.items():
        raw = requests.get(name) if requests else None
        amount = consumed_capacity(_quantity(raw) if raw is not None else None, capacity)
        if violates_policy(amount, capacity.request_policy):
            return False
        total = consumed.get(name, Fraction(0)) + amount + allocating.get(name, Fraction(0))
        if total > _quantity(capacity.value):
            return False
    return True


def capacity_from_request(requests: Mapping[str, Any] | None, capacities: Mapping[str, o.DeviceCapacity]) -> Capacity:
    """GetConsumedCapacityFromRequest: what one allocation consumes of each of the device's capacities."""
    out: Capacity = {}
    for name, capacity in capacities.items():
        raw = requests.get(name) if requests else None
        out[name] = consumed_capacity(_quantity(raw) if raw is not None else None, capacity)
    return out


def add_capacity(collection: dict[DeviceID, Capacity], device_id: DeviceID, capacity: Mapping[str, Fraction]) -> None:
    """ConsumedCapacityCollection.Insert: an entry (even an empty one) marks the device as shared."""
    entry = collection.setdefault(device_id, {})
    for name, amount in capacity.items():
        entry[name] = entry.get(name, Fraction(0)) + amount


def _remove_capacity(collection: dict[DeviceID, Capacity], device_id: DeviceID, capacity: Capacity) -> None:
    """ConsumedCapacityCollection.Remove: subtracts, and drops the entry once all of it is zero."""
    entry = collection.get(device_id)
    if entry is None:
        return
    for name, amount in capacity.items():
        if name in entry:
            entry[name] -= amount
    if all(amount == 0 for amount in entry.values()):
        del collection[device_id]


def _counters(holder: Any) -> dict[str, Fraction]:
    """{name: value} of a CounterSet or DeviceCounterConsumption as the API holds it."""
    counters = holder.get("counters") if isinstance(holder, dict) else None
    if not isinstance(counters, dict):
        return {}
    out: dict[str, Fraction] = {}
    for name, counter in counters.items():
        raw = counter.get("value") if isinstance(counter, dict) else None
        if raw is not None:
            out[str(name)] = parse_quantity(raw)
    return out


# Device taint effects that prevent allocation; others (None included) are ignored.
PREVENTING_TAINT_EFFECTS = ("NoSchedule", "NoExecute")


def tolerates_device_taint(toleration: Any, taint: Any) -> bool:
    """resourceclaim.ToleratesTaint: effect, key, then Equal (or empty) compares values, Exists matches any."""
    if not isinstance(toleration, dict) or not isinstance(taint, dict):
        return False
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    if key and key != taint.get("key"):
        return False
    operator = toleration.get("operator") or ""
    if operator in ("", "Equal"):
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return operator == "Exists"


def taint_prevents_allocation(device: o.Device, request: RequestView) -> bool:
    """taintPreventsAllocation: a NoSchedule or NoExecute taint that none of the request's tolerations tolerates."""
    return any(
        isinstance(taint, dict)
        and taint.get("effect") in PREVENTING_TAINT_EFFECTS
        and not any(tolerates_device_taint(t, taint) for t in request.tolerations)
        for taint in device.taints
    )


class _MaxSizeExceededError(Exception):
    """A claim would need more than ALLOCATION_RESULTS_MAX_SIZE devices on this path."""


def claim_key(claim: o.ResourceClaim) -> str:
    """klog.KObj's text: "namespace/name", or the bare name without a namespace."""
    meta = claim.metadata
    return f"{meta.namespace}/{meta.name}" if meta.namespace else meta.name


# ------------------------------------------------------------------ pools


@dataclass
class Pool:
    driver: str
    name: str
    incomplete: bool = False
    invalid: bool = False
    invalid_reason: str = ""
    slices: list[o.ResourceSlice] = field(default_factory=list)

    @property
    def pool_id(self) -> str:
        return f"{self.driver}/{self.name}"


def node_matches(node: o.Node, node_name: str, all_nodes: bool, selector: o.NodeSelector | None) -> bool:
    if node_name:
        return node.metadata.name == node_name
    if all_nodes:
        return True
    if selector is not None:
        return LazyNodeSelector.parse(selector).matches(node)
    return False


def gather_pools(slices: list[o.ResourceSlice], node: o.Node) -> list[Pool]:
    """The resource pools with devices reachable from the node (complete, incomplete or invalid)."""
    by_pool: dict[tuple[str, str], list[o.ResourceSlice]] = {}
    for rs in slices:
        spec = rs.spec
        # Partitionable devices are off: such slices are ignored entirely.
        if spec.per_device_node_selection is not None or spec.shared_counters:
            continue
        node_name, all_nodes = spec.node_name or "", bool(spec.all_nodes)
        if not (node_name or all_nodes or spec.node_selector is not None):
            continue  # some future way of node selection
        if not node_matches(node, node_name, all_nodes, spec.node_selector):
            continue
        pool_id = (spec.driver, spec.pool.name)
        current = by_pool.get(pool_id)
        if current is None or spec.pool.generation > current[0].spec.pool.generation:
            by_pool[pool_id] = [rs]
        elif spec.pool.generation == current[0].spec.pool.generation:
            current.append(rs)

    pools: list[Pool] = []
    for (driver, name), pool_slices in by_pool.items():
        want = pool_slices[0].spec.pool.resource_slice_count
        if len(pool_slices) != want:
            obsolete, all_slices = _slices_in_pool(slices, driver, name, pool_slices[0].spec.pool.generation)
            if obsolete:
                continue
            if len(all_slices) != want:
                pools.append(Pool(driver, name, incomplete=True))
                continue
        pools.append(_build_pool(driver, name, pool_slices))
    return pools


def _slices_in_pool(
    slices: list[o.ResourceSlice], driver: str, name: str, generation: int
) -> tuple[bool, list[o.ResourceSlice]]:
    found: list[o.ResourceSlice] = []
    for rs in slices:
        if rs.spec.driver != driver or rs.spec.pool.name != name:
            continue
        if rs.spec.pool.generation == generation:
            found.append(rs)
        elif rs.spec.pool.generation > generation:
            return True, []
    return False, found


def _build_pool(driver: str, name: str, pool_slices: list[o.ResourceSlice]) -> Pool:
    seen: set[str] = set()
    for rs in pool_slices:
        for device in rs.spec.devices:
            if device.name in seen:
                return Pool(driver, name, invalid=True, invalid_reason=f"duplicate device name {device.name}")
            seen.add(device.name)
    return Pool(driver, name, slices=pool_slices)


# ------------------------------------------------------------------ requests


@dataclass(frozen=True)
class RequestView:
    """A request or a firstAvailable subrequest, as the allocator reads either."""

    name: str
    device_class_name: str
    selectors: list[o.DeviceSelector]
    allocation_mode: str
    count: int
    admin_access: bool
    has_admin_access: bool
    # DeviceTolerations as the API holds them (dicts: key, operator, value, effect).
    tolerations: tuple[Any, ...] = ()
    # capacity.requests (DRAConsumableCapacity).
    capacity_requests: Mapping[str, Any] | None = None

    @classmethod
    def of_exact(cls, name: str, req: o.ExactDeviceRequest) -> RequestView:
        mode = req.allocation_mode or MODE_EXACT_COUNT  # API server defaulting
        count = req.count if req.count is not None else (1 if mode == MODE_EXACT_COUNT else 0)
        return cls(
            name,
            req.device_class_name,
            req.selectors,
            mode,
            count,
            bool(req.admin_access),
            req.admin_access is not None,
            tuple(req.tolerations),
            req.capacity.requests if req.capacity is not None else None,
        )

    @classmethod
    def of_sub(cls, sub: o.DeviceSubRequest) -> RequestView:
        mode = sub.allocation_mode or MODE_EXACT_COUNT
        count = sub.count if sub.count is not None else (1 if mode == MODE_EXACT_COUNT else 0)
        requests = sub.capacity.requests if sub.capacity is not None else None
        return cls(
            sub.name, sub.device_class_name, sub.selectors, mode, count, False, False, tuple(sub.tolerations), requests
        )


@dataclass
class _Candidate:
    device_id: DeviceID
    slice: o.ResourceSlice
    index: int

    @property
    def device(self) -> o.Device:
        return self.slice.spec.devices[self.index]


@dataclass
class _RequestData:
    request: RequestView
    parent: str | None  # name of the request holding this subrequest
    device_class: o.DeviceClass | None = None
    num_devices: int = 0
    all_devices: list[_Candidate] = field(default_factory=list)
    selected_sub_index: int = 0

    def request_name(self) -> str:
        return f"{self.parent}/{self.request.name}" if self.parent is not None else self.request.name


@dataclass(frozen=True)
class DeviceResult:
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


class _MatchAttribute:
    """matchAttribute: every device of the named requests has the same attribute value."""

    def __init__(self, request_names: list[str], attribute: str) -> None:
        self.request_names = set(request_names)
        self.attribute = attribute
        self.value: tuple[str, Any] | None = None
        self.num_devices = 0

    def _applies(self, request: str, sub: str) -> bool:
        if not self.request_names:
            return True
        if not sub:
            return request in self.request_names
        return request in self.request_names or f"{request}/{sub}" in self.request_names

    def add(self, request: str, sub: str, device: o.Device, device_id: DeviceID) -> bool:
        if not self._applies(request, sub):
            return True
        value = _typed_attribute(lookup_attribute(device, device_id, self.attribute))
        if value is None:
            return False
        if self.num_devices == 0:
            self.value = value
            self.num_devices = 1
            return True
        if self.value is None or self.value != value:
            return False
        self.num_devices += 1
        return True

    def remove(self, request: str, sub: str) -> None:
        if self._applies(request, sub):
            self.num_devices -= 1


class _DistinctAttribute(_MatchAttribute):
    """distinctAttribute: no two devices of the named requests share the attribute's value.

    As upstream, the values seen are kept per base request name (a later device of the same
    request replaces the earlier one's value, and removing one device forgets the request's)."""

    def __init__(self, request_names: list[str], attribute: str) -> None:
        super().__init__(request_names, attribute)
        self.values: dict[str, tuple[str, Any]] = {}

    def add(self, request: str, sub: str, device: o.Device, device_id: DeviceID) -> bool:
        if not self._applies(request, sub):
            return True
        value = _typed_attribute(lookup_attribute(device, device_id, self.attribute))
        if value is None:
            return False
        if self.num_devices == 0:
            self.values[request] = value
            self.num_devices = 1
            return True
        if any(seen == value for seen in self.values.values()):
            return False
        self.values[request] = value
        self.num_devices += 1
        return True

    def remove(self, request: str, sub: str) -> None:
        if self._applies(request, sub):
            self.values.pop(request, None)
            self.num_devices -= 1


def _typed_attribute(attr: o.DeviceAttribute | None) -> tuple[str, Any] | None:
    if attr is None:
        return None
    if attr.string_value is not None:
        return ("string", attr.string_value)
    if attr.int_value is not None:
        return ("int", attr.int_value)
    if attr.bool_value is not None:
        return ("bool", attr.bool_value)
    if attr.version_value is not None:
        return ("version", attr.version_value)
    return None


def lookup_attribute(device: o.Device, device_id: DeviceID, name: str) -> o.DeviceAttribute | None:
    """A fully qualified attribute; the driver's own domain may also be written unqualified."""
    attr = device.attributes.get(name)
    if attr is not None:
        return attr
    domain, sep, ident = name.partition("/")
    if not sep or domain != device_id[0]:
        return None
    return device.attributes.get(ident)


# ------------------------------------------------------------------ allocator


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

        Raises AllocationError for invalid input, NodeAllocationError when only this node is affected.
        """
        return _Run(self, node, claims).allocate()


class _Run:
    """State of one Allocate call."""

    def __init__(self, allocator: Allocator, node: o.Node, claims: list[o.ResourceClaim]) -> None:
        self.a = allocator
        self.node = node
        self.claims = claims
        self.pools: list[Pool] = []
        self.request_data: dict[_RequestKey, _RequestData] = {}
        self.constraints: list[list[_MatchAttribute | _DistinctAttribute]] = [[] for _ in claims]
        self.matches: dict[tuple[DeviceID, _RequestKey], bool] = {}
        self.allocating: dict[DeviceID, set[int]] = {}
        self.results: list[ClaimAllocation] = [[] for _ in claims]
        self.candidates: list[_Candidate] = []
        # Partitionable devices: per (driver, pool), each counter set's counters less what allocated
        # devices consume (computed on first use), and what this run's devices consume.
        self.available_counters: dict[tuple[str, str], dict[str, dict[str, Fraction]]] = {}
        self.consumed_counters: dict[tuple[str, str], dict[str, dict[str, Fraction]]] = {}
        self.cel_devices: dict[DeviceID, dict[str, Any] | CelError] = {}
        # Capacity this run's allocations consume of shared devices (allocatingCapacity).
        self.allocating_capacity: dict[DeviceID, Capacity] = {}

    # -------------------------------------------------------------- setup
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
        constraints: list[_MatchAttribute | _DistinctAttribute] = []
        for index, constraint in enumerate(claim.spec.devices.constraints):
            if constraint.match_attribute is not None:
                constraints.append(_MatchAttribute(constraint.requests, constraint.match_attribute))
            # v1.36's allocator knows distinctAttribute (v1.35's only with DRAConsumableCapacity,
            # which is on by default from v1.36 on).
            elif constraint.distinct_attribute is not None and self.a.consumable_capacity:
                constraints.append(_DistinctAttribute(constraint.requests, constraint.distinct_attribute))
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
                        if self._is_selectable(key, data, candidate) and self._capacity_fits(data, candidate):
                            data.all_devices.append(candidate)
            data.num_devices = len(data.all_devices)
        else:
            raise AllocationError(
                f"claim {claim_name}, request {request.name}: unsupported count mode {request.allocation_mode}"
            )
        return data

    # -------------------------------------------------------------- search
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

    def _pool_counters(self, driver: str, pool: str) -> dict[str, dict[str, Fraction]]:
        """The pool's counter sets less what allocated devices consume (may go negative: none left)."""
        key = (driver, pool)
        available = self.available_counters.get(key)
        if available is not None:
            return available
        slices = [s for s in self.a.slices if s.spec.driver == driver and s.spec.pool.name == pool]
        generation = max((s.spec.pool.generation for s in slices), default=0)
        slices = [s for s in slices if s.spec.pool.generation == generation]
        available = {}
        for slice_ in slices:
            for counter_set in slice_.spec.shared_counters:
                counters = _counters(counter_set)
                if isinstance(counter_set, dict) and isinstance(counter_set.get("name"), str):
                    available[counter_set["name"]] = counters
        for slice_ in slices:
            for device in slice_.spec.devices:
                if (driver, pool, device.name) not in self.a.allocated_devices:
                    continue
                for consumption in device.consumes_counters:
                    if not isinstance(consumption, dict) or consumption.get("counterSet") not in available:
                        continue
                    counter_set = available[consumption["counterSet"]]
                    for name, amount in _counters(consumption).items():
                        if name in counter_set:
                            counter_set[name] -= amount
        self.available_counters[key] = available
        return available

    def _consume_counters(self, candidate: _Candidate, sign: int) -> None:
        driver, pool = candidate.device_id[0], candidate.device_id[1]
        consumed = self.consumed_counters.setdefault((driver, pool), {})
        for consumption in candidate.device.consumes_counters:
            if not isinstance(consumption, dict):
                continue
            counter_set = consumed.setdefault(str(consumption.get("counterSet", "")), {})
            for name, amount in _counters(consumption).items():
                counter_set[name] = counter_set.get(name, Fraction(0)) + sign * amount

    def _reserve_counters(self, candidate: _Candidate) -> bool:
        """checkAvailableCounters: count the device's counters in; False (and undone) when any
        counter set of its pool would be exceeded."""
        driver, pool = candidate.device_id[0], candidate.device_id[1]
        available = self._pool_counters(driver, pool)
        self._consume_counters(candidate, 1)
        consumed = self.consumed_counters[(driver, pool)]
        for set_name, counters in available.items():
            used = consumed.get(set_name, {})
            if any(amount < used.get(name, Fraction(0)) for name, amount in counters.items()):
                self._consume_counters(candidate, -1)
                return False
        return True

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
        counters = False  # whether this device's counters were reserved
        if device.consumes_counters:
            if not self.a.partitionable_devices:
                return None  # partitionable devices are off
            # A shared device already in use has its counters counted once already.
            if not (shared and self._capacity_in_use(device_id)):
                if not self._reserve_counters(candidate):
                    return None
                counters = True
        if self.a.device_taints and taint_prevents_allocation(device, request):
            if counters:
                self._consume_counters(candidate, -1)
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
                if counters:
                    self._consume_counters(candidate, -1)
                return None

        def rollback(marked: bool, consumed: Capacity | None, entry_existed: bool) -> None:
            if consumed is not None:
                _remove_capacity(self.allocating_capacity, device_id, consumed)
                if entry_existed:
                    # The earlier share still marks the device as shared.
                    self.allocating_capacity.setdefault(device_id, {})
            if marked:
                self.allocating[device_id].discard(claim_index)
            for constraint in reversed(constraints):
                constraint.remove(base, sub)
            if counters:
                self._consume_counters(candidate, -1)

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

    # -------------------------------------------------------------- selectors
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
            except CelError as exc:
                raise AllocationError(f"{owner}: selector #{index}: CEL runtime error: {exc.message}") from None
            if not matches:
                return False
        return True

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


# ------------------------------------------------------------------ explanations


def describe_requests(allocator: Allocator, node: o.Node, claims: list[o.ResourceClaim]) -> list[dict[str, Any]]:
    """Per request (or subrequest): devices on the node that match it and how many are free.

    Only for the report; the verdict comes from `Allocator.allocate`.
    """
    pools = [p for p in gather_pools(allocator.slices, node) if not p.incomplete and not p.invalid]
    devices = [
        ((rs.spec.driver, rs.spec.pool.name, device.name), device)
        for pool in pools
        for rs in pool.slices
        for device in rs.spec.devices
    ]
    out: list[dict[str, Any]] = []
    for claim in claims:
        for request in claim.spec.devices.requests:
            views = (
                [(f"{request.name}/{sub.name}", RequestView.of_sub(sub)) for sub in request.first_available]
                if request.first_available
                else [(request.name, RequestView.of_exact(request.name, request.exactly or o.ExactDeviceRequest()))]
            )
            for name, view in views:
                entry: dict[str, Any] = {
                    "claim": claim_key(claim),
                    "request": name,
                    "deviceClass": view.device_class_name,
                    "allocationMode": view.allocation_mode,
                }
                if view.allocation_mode == MODE_EXACT_COUNT:
                    entry["count"] = view.count
                device_class = allocator.device_classes.get(view.device_class_name)
                selectors = (device_class.spec.selectors if device_class else []) + view.selectors
                matching = free = 0
                try:
                    for device_id, device in devices:
                        unselectable = device.binding_conditions and not allocator.binding_conditions
                        if unselectable or not _all_match(allocator, selectors, device, device_id):
                            continue
                        matching += 1
                        partitioned = bool(device.consumes_counters) and not allocator.partitionable_devices
                        if allocator.consumable_capacity and device.allow_multiple_allocations:
                            # A shared device is free while its capacity takes this request too.
                            left = request_over_capacity(
                                allocator.allocated_capacity.get(device_id, {}),
                                view.capacity_requests,
                                device.capacity,
                                {},
                            )
                            free += left is True and not partitioned
                        else:
                            free += device_id not in allocator.allocated_devices and not partitioned
                except (CelError, AllocationError) as exc:
                    entry["error"] = str(exc)
                entry["matchingDevices"] = matching
                entry["freeMatchingDevices"] = free
                out.append(entry)
    return out


def _all_match(allocator: Allocator, selectors: list[o.DeviceSelector], device: o.Device, device_id: DeviceID) -> bool:
    binding = cel_device(device, device_id[0])
    for selector in selectors:
        compiled = allocator.selector_cache.get(selector.cel.expression if selector.cel else "")
        if compiled.program is None:
            raise AllocationError(compiled.error)
        if not evaluate_selector(compiled.program, binding):
            return False
    return True
