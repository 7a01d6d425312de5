"""Kubernetes resource quantities, as apimachinery's resource.Quantity parses and compares them.

One parser (`Quantity.parse`, resource.ParseQuantity) and two views of what it gives:

- the API's: `parse_quantity` is a quantity field's exact value as a Fraction (rounded up to
  nano units, as ParseQuantity does, and within int64, as Quantity.Value() is); `value()` and
  `milli_value()` round up like `Quantity.Value()` and `Quantity.MilliValue()`;
- CEL's quantity library's: a `Quantity` keeps upstream's representation (an int64 with a
  decimal scale, or an arbitrary-precision decimal), on which AsInt64 and
  AsApproximateFloat64 depend, with exact comparison, sign, Add and Sub.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import lru_cache

from podwhy.model.errors import ModelError
from podwhy.model.gojson import GO_SPACE

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1

QuantityInput = str | int | float


class QuantityError(ModelError):
    """A string that is not a valid Kubernetes quantity."""


# ------------------------------------------------------------------ ParseQuantity


class QuantityParseError(ValueError):
    """What resource.ParseQuantity rejects, worded as it words it."""


_QUANTITY_SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
QUANTITY_FORMAT_ERROR = f"quantities must match the regular expression '{_QUANTITY_SPLIT_RE}'"
QUANTITY_NUMERIC_ERROR = "unable to parse numeric part of quantity"
QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix"
_DIGITS = "0123456789"
_SUFFIX_CHARS = "eEinumkKMGTP"
_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
# strconv.ParseInt (base 10): an exponent's digits.
_EXPONENT_RE = re.compile(r"[+-]?[0-9]+")
_INT64_DIGITS = 18  # decimal digits an int64 always holds
_NANO_EXPONENT = -9
# Beyond this many digits a value is far outside float range; its decimal is not padded to nanos.
_MAX_PADDED_DIGITS = 10000


def _scan_quantity(text: str) -> tuple[bool, str, str, str, str]:
    """Split a quantity into sign, numeric text (as written), integer digits without leading
    zeros, fraction digits and suffix, as apimachinery's scanner does."""
    positive = True
    pos = 0
    end = len(text)
    if text[:1] in ("+", "-"):
        positive = text[0] == "+"
        pos = 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos >= end:
        return positive, text, text[start:], "", ""
    num = text[start:pos] or "0"
    denom = ""
    if text[pos] == ".":
        pos += 1
        denom_start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[denom_start:pos]
        if pos >= end:
            return positive, text, num, denom, ""
    value = text[:pos]
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise QuantityParseError(QUANTITY_FORMAT_ERROR)
    return positive, value, num, denom, text[suffix_start:]


def _interpret_suffix(suffix: str) -> tuple[int, int]:
    """(base, exponent) of a suffix."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix]
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix]
    if len(suffix) > 1 and suffix[0] in "eE" and _EXPONENT_RE.fullmatch(suffix[1:]):
        exponent = int(suffix[1:])
        if _INT64_MIN <= exponent <= _INT64_MAX:
            # Parsed as int64, then narrowed to int32 (wrapping).
            return 10, (exponent + 2**31) % 2**32 - 2**31
    raise QuantityParseError(QUANTITY_SUFFIX_ERROR)


def _parse(text: str) -> Quantity:
    if not text:
        raise QuantityParseError(QUANTITY_FORMAT_ERROR)
    if text == "0":
        return Quantity(0, 0, True)
    positive, value, num, denom, suffix = _scan_quantity(text)
    base, exponent = _interpret_suffix(suffix)

    # Fast path: an int64 mantissa with a decimal scale no finer than nano.
    if base == 10:
        scale = exponent
        precision = _INT64_DIGITS - len(num) - len(denom)
        multiplier = 1
    elif exponent >= 0 and not denom:
        scale = 0
        multiplier = 1 << exponent
        precision = 15 - len(num) - exponent * 3 // 10 - 1
    else:
        scale, multiplier, precision = 0, 1, -1
    if precision >= 0:
        scale -= len(denom)
        if scale >= _NANO_EXPONENT:
            mantissa = int(num + denom) * multiplier
            if mantissa <= _INT64_MAX:
                return Quantity(mantissa if positive else -mantissa, scale, True)

    # Slow path: an arbitrary-precision decimal, rounded up (away from zero) to nanos.
    try:
        sign, digits, dec_exponent = Decimal(value).as_tuple()
    except InvalidOperation:
        raise QuantityParseError(QUANTITY_NUMERIC_ERROR) from None
    if not isinstance(dec_exponent, int):  # pragma: no cover - the scanner admits digits only
        raise QuantityParseError(QUANTITY_NUMERIC_ERROR)
    magnitude = int("".join(map(str, digits)) or "0")
    if base == 10:
        dec_exponent += exponent
    else:
        magnitude <<= exponent
    if magnitude:
        if dec_exponent < _NANO_EXPONENT:
            shift = 10 ** (_NANO_EXPONENT - dec_exponent)
            magnitude = -(-magnitude // shift)
            dec_exponent = _NANO_EXPONENT
        elif len(str(magnitude)) + dec_exponent - _NANO_EXPONENT <= _MAX_PADDED_DIGITS:
            magnitude *= 10 ** (dec_exponent - _NANO_EXPONENT)
            dec_exponent = _NANO_EXPONENT
        if base == 2 and Decimal(f"{magnitude}e{dec_exponent}") > _INT64_MAX:
            magnitude, dec_exponent = _INT64_MAX, 0  # binary quantities are capped at 2^63-1
    return Quantity(-magnitude if sign else magnitude, dec_exponent, False)


# ------------------------------------------------------------------ resource.Quantity


class Quantity:
    """A resource.Quantity: the value is `coefficient * 10**exponent`.

    Upstream holds a quantity either as an int64 with a decimal scale (`int64_form`) or as an
    arbitrary-precision decimal; AsInt64 and AsApproximateFloat64 depend on which, so the form
    is kept as ParseQuantity, Add and Sub leave it. Equality is by value.
    """

    __slots__ = ("coefficient", "exponent", "int64_form")

    def __init__(self, coefficient: int, exponent: int, int64_form: bool) -> None:
        self.coefficient = coefficient
        self.exponent = exponent
        self.int64_form = int64_form

    @classmethod
    def parse(cls, text: str) -> Quantity:
        """resource.ParseQuantity; raises QuantityParseError with its error text."""
        return _parse(text)

    @classmethod
    def from_int(cls, value: int) -> Quantity:
        """resource.NewQuantity: an int64 at scale 0."""
        return cls(value, 0, True)

    @classmethod
    def from_object(cls, raw: QuantityInput) -> Quantity:
        """A quantity field of a decoded object: JSON decoding trims spaces before parsing."""
        text = raw if isinstance(raw, str) else repr(raw) if isinstance(raw, float) else str(raw)
        try:
            return _parse(text.strip(GO_SPACE))
        except QuantityParseError as exc:
            raise QuantityError(f"unparsable quantity {raw!r}: {exc}") from None

    @property
    def exact(self) -> Decimal:
        """The exact value (Decimal comparison is exact whatever the context precision)."""
        return Decimal(f"{self.coefficient}e{self.exponent}")

    def compare(self, other: Quantity) -> int:
        """Quantity.Cmp: -1, 0 or 1."""
        a, b = self.exact, other.exact
        return (a > b) - (a < b)

    def sign(self) -> int:
        """Quantity.Sign: -1, 0 or 1."""
        return (self.coefficient > 0) - (self.coefficient < 0)

    def as_int64(self) -> int | None:
        """Quantity.AsInt64: only an int64-form value with a non-negative scale that fits."""
        if not self.int64_form or self.exponent < 0:
            return None
        if self.exponent == 0 or self.coefficient == 0:
            return self.coefficient
        return _int64_scaled(self.coefficient, self.exponent)

    def approximate_float(self) -> float:
        """Quantity.AsApproximateFloat64: float(coefficient) * math.Pow10(exponent), as Go computes it."""
        try:
            base = float(self.coefficient)
        except OverflowError:  # big.Float's Float64 gives an infinity
            base = math.inf if self.coefficient > 0 else -math.inf
        if self.exponent == 0:
            return base
        return base * _go_pow10(self.exponent)

    def add(self, other: Quantity) -> Quantity:
        """Quantity.Add: exact; int64 form while both are and nothing overflows."""
        return self._add(other, subtract=False)

    def sub(self, other: Quantity) -> Quantity:
        """Quantity.Sub: as Add, of the negation (which wraps in int64 form: -(-2^63) stays -2^63)."""
        return self._add(other, subtract=True)

    def _add(self, other: Quantity, subtract: bool) -> Quantity:
        if self.int64_form and other.int64_form:
            b_value = other.coefficient
            if subtract and b_value != _INT64_MIN:
                b_value = -b_value
            result = _int64_add(self, b_value, other.exponent)
            if result is not None:
                return result
        exponent = min(self.exponent, other.exponent)
        a = self.coefficient * 10 ** (self.exponent - exponent)
        b = other.coefficient * 10 ** (other.exponent - exponent)
        return Quantity(a - b if subtract else a + b, exponent, False)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quantity) and self.exact == other.exact

    def __hash__(self) -> int:
        return hash(self.exact)

    def __repr__(self) -> str:
        form = "int64" if self.int64_form else "dec"
        return f"Quantity({self.coefficient}e{self.exponent}, {form})"


def _go_pow10(n: int) -> float:
    """math.Pow10 as Go computes it: a product (or quotient) of two table powers, not always
    the correctly rounded power."""
    if 0 <= n <= 308:
        return float(f"1e{32 * (n // 32)}") * float(f"1e{n % 32}")
    if -323 <= n < 0:
        return float(f"1e-{32 * (-n // 32)}") / float(f"1e{-n % 32}")
    return math.inf if n > 0 else 0.0


def _int64_scaled(value: int, scale: int) -> int | None:
    """value * 10**scale (scale > 0), or None when that leaves int64."""
    if value == 0:
        return 0
    if value == _INT64_MIN or scale > 18:
        return None
    scaled = value * 10**scale
    return scaled if _INT64_MIN <= scaled <= _INT64_MAX else None


def _int64_add(a: Quantity, b_value: int, b_scale: int) -> Quantity | None:
    """int64Amount.Add: the sum at the finer scale, or None on overflow."""
    if b_value == 0:
        return Quantity(a.coefficient, a.exponent, True)
    if a.coefficient == 0:
        return Quantity(b_value, b_scale, True)
    a_value, a_scale = a.coefficient, a.exponent
    if a_scale > b_scale:
        scaled = _int64_scaled(a_value, a_scale - b_scale)
        if scaled is None:
            return None
        a_value, a_scale = scaled, b_scale
    elif a_scale < b_scale:
        scaled = _int64_scaled(b_value, b_scale - a_scale)
        if scaled is None:
            return None
        b_value = scaled
    total = a_value + b_value
    if not _INT64_MIN <= total <= _INT64_MAX:
        return None
    return Quantity(total, a_scale, True)


# ------------------------------------------------------------------ the API's view

_QUANTITY_RE = re.compile(
    r"^(?P<sign>[+-]?)(?P<num>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$"
)
_NANO = Fraction(1, 10**9)
# Bounds that keep the exact arithmetic small. Canonical quantities (what an API server stores)
# are far shorter; a number of at most _MAX_LENGTH digits times 10**_MAX_EXPONENT is beyond
# int64, and divided by it is below a nano unit.
_MAX_LENGTH = 64
_MAX_EXPONENT = 100


@lru_cache(maxsize=65536)
def _parse_str(text: str) -> Fraction:
    if len(text) > _MAX_LENGTH:
        raise QuantityError(f"quantity {text[:24]!r}... is too long ({len(text)} characters)")
    stripped = text.strip()
    match = _QUANTITY_RE.match(stripped)
    if match is None:
        raise QuantityError(
            f"unparsable quantity {text!r}",
            hint="quantities look like 500m, 2, 1.5Gi or 128974848e-3",
        )
    suffix = match["suffix"] or ""
    exponent = 0 if suffix in _DECIMAL_SUFFIXES or suffix in _BINARY_SUFFIXES else int(suffix[1:])
    if abs(exponent) > _MAX_EXPONENT:
        if not Fraction(match["num"]):
            return Fraction(0)
        if exponent > 0:
            raise _out_of_range(text)
        # Far below a nano unit: ParseQuantity's rounding makes it 1n, without the arithmetic.
        return -_NANO if match["sign"] == "-" else _NANO
    quantity = _parse(stripped)
    amount = Fraction(quantity.coefficient) * Fraction(10) ** quantity.exponent
    _check_range(amount, text)
    return amount


def _out_of_range(raw: object) -> QuantityError:
    return QuantityError(
        f"quantity {raw!r} is out of range",
        hint=f"kube-scheduler reads quantities as 64-bit integers, at most {_INT64_MAX}",
    )


def _check_range(amount: Fraction, raw: object) -> None:
    # Quantity.Value() is an int64: beyond it upstream's arithmetic wraps, so such input is refused.
    if abs(amount) > _INT64_MAX:
        raise _out_of_range(raw)


def parse_quantity(raw: QuantityInput) -> Fraction:
    """Exact value of a quantity as written in an object (string, or a bare YAML number)."""
    if isinstance(raw, bool):
        raise QuantityError(f"unparsable quantity {raw!r}")
    if isinstance(raw, int):
        _check_range(Fraction(raw), raw)
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
_DECIMAL_SUFFIX = {exponent: suffix for suffix, exponent in _DECIMAL_SUFFIXES.items()}
_BINARY_SUFFIX = {bits // 10: suffix for suffix, bits in _BINARY_SUFFIXES.items()}


def quantity_format(raw: QuantityInput) -> str:
    """The format a quantity as written keeps (Quantity.Format): binary for Ki…Ei, exponent for
    e/E followed by digits, decimal SI otherwise (bare numbers included)."""
    if isinstance(raw, str):
        match = _QUANTITY_RE.match(raw.strip())
        suffix = (match["suffix"] or "") if match is not None else ""
        if suffix in _BINARY_SUFFIXES:
            return BINARY_SI
        if suffix and suffix not in _DECIMAL_SUFFIXES:
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
