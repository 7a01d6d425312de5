"""DRAPartitionableDevices: the counter sets a pool shares among its devices
(checkAvailableCounters)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from podwhy.model import objects as o
from podwhy.model.quantity import parse_quantity
from podwhy.plugins.dynamicresources.structured.types import DeviceID

# Per counter set name, its counters' values.
Counters = dict[str, dict[str, Fraction]]


def _counter_values(holder: Any) -> dict[str, Fraction]:
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


class CounterSets:
    """The counters of one Allocate call: per (driver, pool), each counter set's counters less what
    allocated devices consume (computed on first use), and what this call's devices consume."""

    def __init__(self, slices: list[o.ResourceSlice], allocated_devices: set[DeviceID]) -> None:
        self.slices = slices
        self.allocated_devices = allocated_devices
        self.available: dict[tuple[str, str], Counters] = {}
        self.consumed: dict[tuple[str, str], Counters] = {}

    def _pool(self, driver: str, pool: str) -> Counters:
        """The pool's counter sets less what allocated devices consume (may go negative: none left)."""
        key = (driver, pool)
        available = self.available.get(key)
        if available is not None:
            return available
        slices = [s for s in self.slices if s.spec.driver == driver and s.spec.pool.name == pool]
        generation = max((s.spec.pool.generation for s in slices), default=0)
        slices = [s for s in slices if s.spec.pool.generation == generation]
        available = {}
        for slice_ in slices:
            for counter_set in slice_.spec.shared_counters:
                counters = _counter_values(counter_set)
                if isinstance(counter_set, dict) and isinstance(counter_set.get("name"), str):
                    available[counter_set["name"]] = counters
        for slice_ in slices:
            for device in slice_.spec.devices:
                if (driver, pool, device.name) not in self.allocated_devices:
                    continue
                for consumption in device.consumes_counters:
                    if not isinstance(consumption, dict) or consumption.get("counterSet") not in available:
                        continue
                    counter_set = available[consumption["counterSet"]]
                    for name, amount in _counter_values(consumption).items():
                        if name in counter_set:
                            counter_set[name] -= amount
        self.available[key] = available
        return available

    def _consume(self, device_id: DeviceID, device: o.Device, sign: int) -> None:
        driver, pool = device_id[0], device_id[1]
        consumed = self.consumed.setdefault((driver, pool), {})
        for consumption in device.consumes_counters:
            if not isinstance(consumption, dict):
                continue
            counter_set = consumed.setdefault(str(consumption.get("counterSet", "")), {})
            for name, amount in _counter_values(consumption).items():
                counter_set[name] = counter_set.get(name, Fraction(0)) + sign * amount

    def reserve(self, device_id: DeviceID, device: o.Device) -> bool:
        """Count the device's counters in; False (and undone) when any counter set of its pool
        would be exceeded."""
        driver, pool = device_id[0], device_id[1]
        available = self._pool(driver, pool)
        self._consume(device_id, device, 1)
        consumed = self.consumed[(driver, pool)]
        for set_name, counters in available.items():
            used = consumed.get(set_name, {})
            if any(amount < used.get(name, Fraction(0)) for name, amount in counters.items()):
                self._consume(device_id, device, -1)
                return False
        return True

    def release(self, device_id: DeviceID, device: o.Device) -> None:
        """Undo a reservation."""
        self._consume(device_id, device, -1)
