"""Kubernetes resource quantities with apimachinery's parsing and integer rounding.

A quantity is parsed to an exact rational number (rounded up to nano units, as
`resource.ParseQuantity` does); `value()` and `milli_value()` round up like
`Quantity.Value()` and `Quantity.MilliValue()`.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache

from podwhy.model.errors import ModelError

_QUANTITY_RE = re.compile(
    r"^(?P<sign>[+-]?)(?P<num>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$"
)

_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_NANO = Fraction(1, 10**9)
_MAX_BINARY = Fraction(2**63 - 1)

QuantityInput = str | int | float


class QuantityError(ModelError):
    """A string that is not a valid Kubernetes quantity."""


@lru_cache(maxsize=65536)
def _parse_str(text: str) -> Fraction:
    match = _QUANTITY_RE.match(text.strip())
    if match is None:
        raise QuantityError(
            f"unparsable quantity {text!r}",
            hint="quantities look like 500m, 2, 1.5Gi or 128974848e-3",
        )
    amount = Fraction(match["num"])
    suffix = match["suffix"] or ""
    binary = False
    if suffix in _BINARY:
        amount *= 2 ** _BINARY[suffix]
        binary = True
    elif suffix in _DECIMAL:
        amount *= Fraction(10) ** _DECIMAL[suffix]
    else:
        amount *= Fraction(10) ** int(suffix[1:])
    # ParseQuantity rounds any non-zero value up (away from zero) to nano units.
    if amount.denominator != 1:
        amount = Fraction(math.ceil(amount / _NANO)) * _NANO
    if binary and amount > _MAX_BINARY:
        amount = _MAX_BINARY
    return -amount if match["sign"] == "-" else amount


def parse_quantity(raw: QuantityInput) -> Fraction:
    """Exact value of a quantity as written in an object (string, or a bare YAML number)."""
    if isinstance(raw, bool):
        raise QuantityError(f"unparsable quantity {raw!r}")
    if isinstance(raw, int):
        return Fraction(raw)
    if isinstance(raw, float):
        return _parse_str(repr(raw))
    return _parse_str(raw)


def _ceil(amount: Fraction) -> int:
    return -((-amount.numerator) // amount.denominator)


def value(amount: Fraction) -> int:
    """`Quantity.Value()`: the value rounded up to an integer."""
    return _ceil(amount)


def milli_value(amount: Fraction) -> int:
    """`Quantity.MilliValue()`: the value in thousandths, rounded up."""
    return _ceil(amount * 1000)


def quantity_value(raw: QuantityInput) -> int:
    return value(parse_quantity(raw))


def quantity_milli_value(raw: QuantityInput) -> int:
    return milli_value(parse_quantity(raw))
