"""The Kubernetes quantity library: quantity(), isQuantity(), sign() and the Quantity methods."""

from __future__ import annotations

from typing import Any

from podwhy.cel.errors import NO_SUCH_OVERLOAD, CelError
from podwhy.cel.values import QuantityPointer, need
from podwhy.model.quantity import Quantity, QuantityParseError


def quantity(value: Any) -> Quantity:
    if not isinstance(value, str):
        raise CelError(NO_SUCH_OVERLOAD)
    try:
        return Quantity.parse(value)
    except QuantityParseError as exc:
        raise CelError(str(exc)) from None


def is_quantity(value: Any) -> bool:
    """isQuantity(): ParseQuantity on the string as it is (no trimming)."""
    if not isinstance(value, str):
        raise CelError(NO_SUCH_OVERLOAD)
    try:
        Quantity.parse(value)
    except QuantityParseError:
        return False
    return True


def sign(value: Any) -> int:
    """sign() is declared as a global function only: sign(q), not q.sign()."""
    q: Quantity = need(value, Quantity)
    return q.sign()


def quantity_method(name: str, q: Quantity, args: list[Any]) -> Any:
    if name in ("isGreaterThan", "isLessThan", "compareTo") and len(args) == 1:
        other = need(args[0], Quantity)
        cmp = q.compare(other)
        if name == "compareTo":
            return cmp
        return cmp > 0 if name == "isGreaterThan" else cmp < 0
    if name in ("add", "sub") and len(args) == 1:
        arg = args[0]
        # An int operand is resource.NewQuantity(n).
        other = arg if isinstance(arg, Quantity) else Quantity.from_int(need(arg, int))
        return QuantityPointer.of(q.sub(other) if name == "sub" else q.add(other))
    if not args:
        if name == "isInteger":
            return q.as_int64() is not None
        if name == "asInteger":
            value = q.as_int64()
            if value is None:
                raise CelError("cannot convert value to integer")
            return value
        if name == "asApproximateFloat":
            return q.approximate_float()
    raise CelError(NO_SUCH_OVERLOAD)
