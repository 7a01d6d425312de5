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
# Quantity.Value() is an int64: beyond it upstream's arithmetic wraps, so such input is refused.
_MAX_VALUE = 2**63 - 1
# Bounds that keep the exact arithmetic small. Canonical quantities (what an API server stores)
# are far shorter; a number of at most _MAX_LENGTH digits times 10**_MAX_EXPONENT is beyond
# _MAX_VALUE, and divided by it is below a nano unit.
_MAX_LENGTH = 64
_MAX_EXPONENT = 100

QuantityInput = str | int | float


class QuantityError(ModelError):
    """A string that is not a valid Kubernetes quantity."""


@lru_cache(maxsize=65536)
def _parse_str(text: str) -> Fraction:
    if len(text) > _MAX_LENGTH:
        raise QuantityError(f"quantity {text[:24]!r}... is too long ({len(text)} characters)")
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
    elif amount:
        exponent = int(suffix[1:])
        if exponent > _MAX_EXPONENT:
            raise _out_of_range(text)
        # Far below a nano unit: ParseQuantity's rounding makes it 1n, without the arithmetic.
        amount = _NANO if exponent < -_MAX_EXPONENT else amount * Fraction(10) ** exponent
    # ParseQuantity rounds any non-zero value up (away from zero) to nano units.
    if amount.denominator != 1:
        amount = Fraction(math.ceil(amount / _NANO)) * _NANO
    if binary and amount > _MAX_BINARY:
        amount = _MAX_BINARY
    _check_range(amount, text)
    return -amount if match["sign"] == "-" else amount


def _out_of_range(raw: object) -> QuantityError:
    return QuantityError(
        f"quantity {raw!r} is out of range",
        hint=f"kube-scheduler reads quantities as 64-bit integers, at most {_MAX_VALUE}",
    )


def _check_range(magnitude: Fraction, raw: object) -> None:
    if magnitude > _MAX_VALUE:
        raise _out_of_range(raw)


def parse_quantity(raw: QuantityInput) -> Fraction:
    """Exact value of a quantity as written in an object (string, or a bare YAML number)."""
    if isinstance(raw, bool):
        raise QuantityError(f"unparsable quantity {raw!r}")
    if isinstance(raw, int):
        _check_range(Fraction(abs(raw)), raw)
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


def format_quantity(amount: Fraction) -> str:
    """AMOUNT as a quantity: its integer when whole ("2", "1073741824"), else in thousandths,
    rounded up as Quantity.MilliValue rounds ("500m", "1200m")."""
    if amount.denominator == 1:
        return str(amount.numerator)
    return f"{-(-amount.numerator * 1000 // amount.denominator)}m"


# Quantity formats (resource.Format): what a quantity's suffix says, and the form Go prints it in.
DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"
_DECIMAL_SUFFIX = {exponent: suffix for suffix, exponent in _DECIMAL.items()}
_BINARY_SUFFIX = {bits // 10: suffix for suffix, bits in _BINARY.items()}


def quantity_format(raw: QuantityInput) -> str:
    """The format a quantity as written keeps (Quantity.Format): binary for Ki…Ei, exponent for
    e/E followed by digits, decimal SI otherwise (bare numbers included)."""
    if isinstance(raw, str):
        match = _QUANTITY_RE.match(raw.strip())
        suffix = (match["suffix"] or "") if match is not None else ""
        if suffix in _BINARY:
            return BINARY_SI
        if suffix and suffix not in _DECIMAL:
            return DECIMAL_EXPONENT
    return DECIMAL_SI


def _strip(amount: int, base: int) -> tuple[int, int]:
    """AMOUNT without its factors of BASE, and how many there were (removeInt64Factors)."""
    times = 0
    while amount and amount % base == 0:
        amount //= base
        times += 1
    return amount, times


def go_string(amount: Fraction, fmt: str = DECIMAL_SI) -> str:
    """Quantity.String() of a computed quantity (CanonicalizeBytes): "0"; binary suffixes for a
    whole BinarySI amount of at least 1024 in magnitude; otherwise the mantissa of the largest
    exponent that is a multiple of 3 and keeps it whole ("1500m", "2k", "1G"), as an SI suffix
    or, for DecimalExponent, as "e3"."""
    if amount == 0:
        return "0"
    if fmt == BINARY_SI and abs(amount) >= 1024 and amount.denominator == 1:
        mantissa, times = _strip(amount.numerator, 1024)
        if times in _BINARY_SUFFIX or times == 0:
            return f"{mantissa}{_BINARY_SUFFIX.get(times, '')}"
    # Exact to nano units (parsing rounds to them): an integer number of 10**-9.
    nanos = amount * 10**9
    scaled = nanos.numerator // nanos.denominator
    mantissa, times = _strip(scaled, 10)
    exponent = times - 9
    shift = exponent % 3  # Python's modulo: always 0, 1 or 2
    mantissa *= 10**shift
    exponent -= shift
    if fmt == DECIMAL_EXPONENT:
        return f"{mantissa}e{exponent}" if exponent else str(mantissa)
    while exponent > 18:  # no SI suffix beyond E
        mantissa *= 1000
        exponent -= 3
    return f"{mantissa}{_DECIMAL_SUFFIX[exponent]}"
