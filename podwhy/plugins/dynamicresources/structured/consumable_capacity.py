"""DRAConsumableCapacity: what a request consumes of a shared device's capacities, and whether
it fits (upstream's consumable_capacity.go)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from podwhy.model import objects as o
from podwhy.model.quantity import parse_quantity
from podwhy.plugins.dynamicresources.structured.types import Capacity, DeviceID, NotSimulatedError


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


def remove_capacity(collection: dict[DeviceID, Capacity], device_id: DeviceID, capacity: Capacity) -> None:
    """ConsumedCapacityCollection.Remove: subtracts, and drops the entry once all of it is zero."""
    entry = collection.get(device_id)
    if entry is None:
        return
    for name, amount in capacity.items():
        if name in entry:
            entry[name] -= amount
    if all(amount == 0 for amount in entry.values()):
        del collection[device_id]
