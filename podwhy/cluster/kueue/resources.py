"""pkg/resources: Kueue's amounts (int64 per resource: milli-CPU, else whole units; MaxInt64 is
Unlimited), its saturating arithmetic, and how its messages print a quantity
(ResourceFormatter)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

import msgspec

from podwhy.cluster.kueue import names
from podwhy.model.quantity import (
    BINARY_SI,
    DECIMAL_SI,
    Quantity,
    QuantityInput,
    go_string,
    parse_quantity,
    quantity_format,
)

MAX_INT64 = 2**63 - 1
MIN_INT64 = -(2**63)
UNLIMITED = MAX_INT64  # resources.Unlimited
Amount = int


class FlavorResource(NamedTuple):
    """resources.FlavorResource: one resource in one flavor (a tuple: the quota tree's dicts are
    keyed by it, hashed and compared as tuples are)."""

    flavor: str
    resource: str


def _clamp(value: int) -> int:
    if value > MAX_INT64:
        return MAX_INT64
    return MIN_INT64 if value < MIN_INT64 else value


def saturating_add(a: int, b: int) -> int:
    return _clamp(a + b)


def saturating_sub(a: int, b: int) -> int:
    return _clamp(a - b)


def saturating_mul(a: int, b: int) -> int:
    return _clamp(a * b)


def go_div(a: int, b: int) -> int:
    """Go's integer division (truncates toward zero); 0/0 stays 0 as MapRequests.Divide keeps it."""
    if b == 0:
        return a if a == 0 else (MAX_INT64 if a > 0 else MIN_INT64)
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def add(a: Amount, b: Amount) -> Amount:
    """Amount.Add: Unlimited absorbs; otherwise saturating."""
    if a == UNLIMITED or b == UNLIMITED:
        return UNLIMITED
    return saturating_add(a, b)


def add_int(a: Amount, v: int) -> Amount:
    """Amount.AddInt64."""
    return a if a == UNLIMITED else saturating_add(a, v)


def sub(a: Amount, b: Amount) -> Amount:
    """Amount.Sub: Unlimited - Unlimited is 0, x - Unlimited is MinInt64."""
    if a == UNLIMITED and b == UNLIMITED:
        return 0
    if a == UNLIMITED:
        return UNLIMITED
    if b == UNLIMITED:
        return MIN_INT64
    return saturating_sub(a, b)


def exact(raw: QuantityInput | Fraction) -> Fraction:
    """A quantity's exact value, past int64 too (Kueue's quotas saturate rather than refuse it)."""
    if isinstance(raw, Fraction):
        return raw
    q = Quantity.from_object(raw)
    return Fraction(q.coefficient) * Fraction(10) ** q.exponent


@lru_cache(maxsize=4096, typed=True)
def resource_value(name: str, raw: QuantityInput | Fraction) -> int:
    """resources.ResourceValue: milli-CPU, else the value rounded up; clamped to int64. (Kept for
    the amounts seen last: the admitted Workloads of a cluster repeat a few.)"""
    amount = exact(raw)
    scaled = amount * 1000 if name == names.CPU else amount
    return _clamp(-((-scaled.numerator) // scaled.denominator))


def amount_from_quantity(name: str, raw: QuantityInput) -> Amount:
    """resources.AmountFromQuantity: a quota; at or past int64 (in milli-CPU for cpu) it is Unlimited."""
    amount = exact(raw)
    limit = Fraction(MAX_INT64 // 1000) if name == names.CPU else Fraction(MAX_INT64)
    if amount >= limit:
        return UNLIMITED
    return resource_value(name, amount)


def requests_from_resource_list(resources: Mapping[str, QuantityInput | Fraction]) -> dict[str, int]:
    """resources.NewRequestsFromResourceList."""
    return {name: resource_value(name, raw) for name, raw in resources.items()}


class ResourceFormatter(msgspec.Struct, frozen=True):
    """resources.ResourceFormatter: resources registered as binary print as memory does."""

    binary_resources: frozenset[str] = frozenset()

    def _binary(self, name: str) -> bool:
        return (
            name in (names.MEMORY, names.EPHEMERAL_STORAGE)
            or name.startswith(names.HUGEPAGES_PREFIX)
            or name in self.binary_resources
        )

    def quantity_string(self, name: str, value: int) -> str:
        """ResourceQuantityString: milli-CPU as a DecimalSI quantity; memory, ephemeral storage,
        huge pages (and registered resources) as a canonical BinarySI quantity; else DecimalSI."""
        if name == names.CPU:
            return go_string(Fraction(value, 1000), DECIMAL_SI)
        if self._binary(name):
            preferred = go_string(Fraction(value), BINARY_SI)
            # newCanonicalQuantity: the BinarySI string parsed again, so 1000000 prints "1M".
            return go_string(parse_quantity(preferred), quantity_format(preferred))
        return go_string(Fraction(value), DECIMAL_SI)

    def amount_string(self, name: str, amount: Amount) -> str:
        """AmountQuantityString: "<unlimited>" for Unlimited."""
        if amount == UNLIMITED:
            return names.UNLIMITED_TEXT
        return self.quantity_string(name, amount)


DEFAULT_FORMATTER = ResourceFormatter()


_FNV64_OFFSET = 0xCBF29CE484222325
_FNV64_PRIME = 0x100000001B3


def fnv1a64(name: str) -> int:
    """hashResourceName: the 64-bit FNV-1a hash of a resource name's bytes."""
    h = _FNV64_OFFSET
    for byte in name.encode():
        h = ((h ^ byte) * _FNV64_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


def request_order(names: Iterable[str], vectorized: bool = True) -> list[str]:
    """The order Kueue iterates a workload's requests in: SliceRequests sorted by the name's
    FNV-1a hash, then the name (resourceEntry.cmp); name order where the requests are a map."""
    if vectorized:
        return sorted(names, key=lambda n: (fnv1a64(n), n))
    return sorted(names)
