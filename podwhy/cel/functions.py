"""CEL's standard functions: type conversions (int, uint, double, string, bool, bytes) and size."""

from __future__ import annotations

import math
import re
from typing import Any

from podwhy.cel.errors import NO_SUCH_OVERLOAD, CelError
from podwhy.cel.values import (
    INT64_MAX,
    INT64_MIN,
    UINT64_MAX,
    UInt,
    check_int,
    check_uint,
    is_number,
    type_name,
)


def _conversion_error(value: Any, target: str) -> CelError:
    return CelError(f"type conversion error from '{type_name(value)}' to '{target}'")


def to_string(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return format_double(value)
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise CelError("invalid UTF-8 in bytes, cannot convert to string") from None
    raise CelError(NO_SUCH_OVERLOAD)


def format_double(value: float) -> str:
    """Go's %g with the shortest precision: exponent form below 1e-4 and from 1e6 on."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign = "-" if value < 0 else ""
    # repr gives the shortest digits that round-trip, as Go's shortest formatting does.
    mantissa, _, exp_text = repr(abs(value)).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    point = len(whole) + int(exp_text or 0) - (len(whole + frac) - len((whole + frac).lstrip("0")))
    digits = digits.rstrip("0") or "0"
    exponent = point - 1
    if exponent < -4 or exponent >= 6:
        tail = f".{digits[1:]}" if len(digits) > 1 else ""
        return f"{sign}{digits[0]}{tail}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return f"{sign}{digits}{'0' * (point - len(digits))}"
    return f"{sign}{digits[:point]}.{digits[point:]}"


# strconv.ParseInt/ParseUint (base 10) and ParseFloat: no spaces or underscores, unlike int()/float().
_GO_INT_RE = re.compile(r"[+-]?[0-9]+")
_GO_UINT_RE = re.compile(r"[0-9]+")
_GO_FLOAT_RE = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)", re.IGNORECASE)


def to_int(value: Any) -> int:
    if isinstance(value, bool):
        raise CelError(NO_SUCH_OVERLOAD)
    if isinstance(value, int):
        return check_int(int(value))
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value) or not (INT64_MIN < value < 2.0**63):
            raise CelError("integer overflow")
        return int(value)
    if isinstance(value, str):
        if _GO_INT_RE.fullmatch(value) is None or not INT64_MIN <= int(value) <= INT64_MAX:
            raise _conversion_error(value, "int")
        return int(value)
    raise CelError(NO_SUCH_OVERLOAD)


def to_uint(value: Any) -> UInt:
    if isinstance(value, bool):
        raise CelError(NO_SUCH_OVERLOAD)
    if isinstance(value, int):
        return check_uint(int(value))
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value) or not (0 <= value < 2.0**64):
            raise CelError("unsigned integer overflow")
        return UInt(int(value))
    if isinstance(value, str):
        if _GO_UINT_RE.fullmatch(value) is None or int(value) > UINT64_MAX:
            raise _conversion_error(value, "uint")
        return UInt(int(value))
    raise CelError(NO_SUCH_OVERLOAD)


def to_double(value: Any) -> float:
    if is_number(value):
        return float(value)
    if isinstance(value, str):
        if _GO_FLOAT_RE.fullmatch(value) is None:
            raise _conversion_error(value, "double")
        parsed = float(value)
        if math.isinf(parsed) and "inf" not in value.lower():
            raise _conversion_error(value, "double")  # out of range for ParseFloat
        return parsed
    raise CelError(NO_SUCH_OVERLOAD)


def to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value in _TRUE_STRINGS:
            return True
        if value in _FALSE_STRINGS:
            return False
        raise _conversion_error(value, "bool")
    raise CelError(NO_SUCH_OVERLOAD)


def to_bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    raise CelError(NO_SUCH_OVERLOAD)


def size(value: Any) -> int:
    if isinstance(value, (str, bytes, list, dict)):
        return len(value)
    raise CelError(NO_SUCH_OVERLOAD)


# strconv.ParseBool
_TRUE_STRINGS = ("1", "t", "T", "true", "TRUE", "True")
_FALSE_STRINGS = ("0", "f", "F", "false", "FALSE", "False")
