"""CEL's operators: heterogeneous equality, ordering, indexing and arithmetic, with cel-go's errors."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from podwhy.cel.errors import NO_SUCH_OVERLOAD, CelError
from podwhy.cel.values import (
    INT64_MAX,
    INT64_MIN,
    UINT64_MAX,
    DefaultingMap,
    QuantityPointer,
    Semver,
    UInt,
    check_int,
    check_uint,
    is_number,
    type_name,
)
from podwhy.model.quantity import Quantity


def cel_equal(a: Any, b: Any) -> bool:
    """CEL `==`: an error value (a Kubernetes type compared with another type) raises."""
    result = try_equal(a, b)
    if result is None:
        raise CelError(NO_SUCH_OVERLOAD)
    return result


def try_equal(a: Any, b: Any) -> bool | None:
    """cel-go's heterogeneous equality, called on the left operand; None is an error value.

    Numbers compare by value across int, uint and double; other kinds must match. The
    Kubernetes types give an error for any other right operand (and a Quantity for one that
    add() or sub() returned, which is a pointer to cel-go). Lists and maps are unequal only
    when some element compares false: an element error does not make them unequal.
    """
    if a is None or b is None:
        return a is None and b is None
    equal = getattr(a, "equal", None)  # the constructed messages (library/mutation.py)
    if equal is not None:
        return bool(equal(b))
    if isinstance(a, Quantity):
        if not isinstance(b, Quantity) or isinstance(b, QuantityPointer):
            return None
        return a.compare(b) == 0
    if isinstance(a, Semver):
        return a.compare(b) == 0 if isinstance(b, Semver) else None
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) and is_number(b):
        if (isinstance(a, float) and math.isnan(a)) or (isinstance(b, float) and math.isnan(b)):
            return False
        return _compare_numbers(a, b) == 0
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return False
        return all(try_equal(x, y) is not False for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        for key, val in a.items():
            other = map_find(b, key)
            if other is MISSING or try_equal(val, other) is False:
                return False
        return True
    if type(a) is not type(b):
        return False
    return bool(a == b)


def compare(a: Any, b: Any) -> int:
    if is_number(a) and is_number(b):
        if (isinstance(a, float) and math.isnan(a)) or (isinstance(b, float) and math.isnan(b)):
            raise CelError("NaN values cannot be ordered")
        return _compare_numbers(a, b)
    if type(a) is not type(b) or not isinstance(a, (bool, str, bytes)):
        raise CelError(NO_SUCH_OVERLOAD)
    return int(a > b) - int(a < b)


def _compare_numbers(a: int | float, b: int | float) -> int:
    """cel-go's cross-type numeric order: ints and uints compare exactly; against a double, an
    int or uint in the double's range is converted to double (so 2**63-1 == 2.0**63)."""
    if isinstance(a, float) and not isinstance(b, float):
        return _compare_double_integer(a, b)
    if isinstance(b, float) and not isinstance(a, float):
        return -_compare_double_integer(b, a)
    return (a > b) - (a < b)


def _compare_double_integer(d: float, i: int) -> int:
    low, high = (0.0, float(UINT64_MAX)) if isinstance(i, UInt) else (float(INT64_MIN), float(INT64_MAX))
    if d < low:
        return -1
    if d > high:
        return 1
    converted = float(i)
    return (d > converted) - (d < converted)


MISSING = object()


def map_find(container: Mapping[Any, Any], key: Any) -> Any:
    """Map lookup with CEL key equality (1 == 1u == 1.0 for numeric keys)."""
    if isinstance(key, (str, bool)) or key is None:
        for k, v in container.items():
            if type(k) is type(key) and k == key:
                return v
        return MISSING
    if is_number(key):
        for k, v in container.items():
            if is_number(k) and cel_equal(k, key):
                return v
        return MISSING
    raise CelError(f"unsupported key type: {type_name(key)}")


def format_key(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


def index(container: Any, key: Any) -> Any:
    if isinstance(container, DefaultingMap):
        return container.lookup(key)
    if isinstance(container, dict):
        found = map_find(container, key)
        if found is MISSING:
            raise CelError(f"no such key: {format_key(key)}")
        return found
    if isinstance(container, list):
        if isinstance(key, float):
            if not key.is_integer():
                raise CelError(f"unsupported index value {key} in list")
            key = int(key)
        if not isinstance(key, int) or isinstance(key, bool):
            raise CelError(f"unsupported index type '{type_name(key)}' in list")
        if key < 0 or key >= len(container):
            raise CelError(f"index out of bounds: {key}")
        return container[key]
    raise CelError(f"no such key: {format_key(key)}")


def arith(op: str, a: Any, b: Any) -> Any:
    if op == "+":
        if isinstance(a, str) and isinstance(b, str):
            return a + b
        if isinstance(a, bytes) and isinstance(b, bytes):
            return a + b
        if isinstance(a, list) and isinstance(b, list):
            return a + b
    if isinstance(a, bool) or isinstance(b, bool):
        raise CelError(NO_SUCH_OVERLOAD)
    if isinstance(a, UInt) and isinstance(b, UInt):
        return _arith_uint(op, a, b)
    if isinstance(a, int) and isinstance(b, int) and not isinstance(a, UInt) and not isinstance(b, UInt):
        return _arith_int(op, a, b)
    if isinstance(a, float) and isinstance(b, float):
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            if b == 0:
                return math.copysign(math.inf, a) * math.copysign(1.0, b) if a != 0 else math.nan
            return a / b
    raise CelError(NO_SUCH_OVERLOAD)


def _arith_uint(op: str, a: UInt, b: UInt) -> UInt:
    if op == "+":
        return check_uint(a + b)
    if op == "-":
        return check_uint(a - b)
    if op == "*":
        return check_uint(a * b)
    if b == 0:
        raise CelError("division by zero" if op == "/" else "modulus by zero")
    return UInt(a // b if op == "/" else a % b)


def _arith_int(op: str, a: int, b: int) -> int:
    if op == "+":
        return check_int(a + b)
    if op == "-":
        return check_int(a - b)
    if op == "*":
        return check_int(a * b)
    if b == 0:
        raise CelError("division by zero" if op == "/" else "modulus by zero")
    if op == "/":
        if a == INT64_MIN and b == -1:
            raise CelError("integer overflow")
        quotient = abs(a) // abs(b)
        return quotient if (a >= 0) == (b >= 0) else -quotient
    remainder = abs(a) % abs(b)
    return remainder if a >= 0 else -remainder
