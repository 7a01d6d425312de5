"""The Kubernetes lists library (k8s.io/apiserver/pkg/cel/library/lists.go): isSorted, sum, min,
max, indexOf, lastIndexOf; and cel-go's ext.Sets (sets.contains, sets.equivalent, sets.intersects)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from podwhy.cel.errors import NO_SUCH_OVERLOAD, CelError
from podwhy.cel.operators import arith, compare, try_equal
from podwhy.cel.values import UInt, need


def _comparable(value: Any) -> Any:
    if isinstance(value, (list, dict)) or value is None:
        raise CelError(NO_SUCH_OVERLOAD)
    return value


def is_sorted(items: list[Any]) -> bool:
    for prev, nxt in itertools.pairwise(items):
        if compare(_comparable(prev), _comparable(nxt)) > 0:
            return False
    return True


def total(items: list[Any]) -> Any:
    """sum(): from the zero of the elements' type (0, 0u, 0.0), each element added."""
    if not items:
        return 0
    first = items[0]
    acc: Any = UInt(0) if isinstance(first, UInt) else 0.0 if isinstance(first, float) else 0
    if not isinstance(first, (int, float)) or isinstance(first, bool):
        acc = first
        items = items[1:]
    for item in items:
        acc = arith("+", acc, item)
    return acc


def extreme(items: list[Any], name: str) -> Any:
    """min() and max(): the first of the smallest (largest) elements."""
    if not items:
        raise CelError(f"{name} called on empty list")
    prefer = 1 if name == "min" else -1
    result = _comparable(items[0])
    for item in items[1:]:
        if compare(result, _comparable(item)) == prefer:
            result = item
    return result


def index_of(items: list[Any], item: Any, last: bool) -> int:
    order = range(len(items) - 1, -1, -1) if last else range(len(items))
    for i in order:
        if try_equal(items[i], item) is True:
            return i
    return -1


def list_method(name: str, items: list[Any], args: list[Any]) -> Any:
    if not args:
        if name == "isSorted":
            return is_sorted(items)
        if name == "sum":
            return total(items)
        if name in ("min", "max"):
            return extreme(items, name)
    if len(args) == 1 and name in ("indexOf", "lastIndexOf"):
        return index_of(items, args[0], name == "lastIndexOf")
    raise CelError(NO_SUCH_OVERLOAD)


def _contains(container: list[Any], sub: list[Any]) -> bool:
    return all(any(try_equal(x, y) is True for x in container) for y in sub)


def sets_contains(a: Any, b: Any) -> bool:
    return _contains(need(a, list), need(b, list))


def sets_equivalent(a: Any, b: Any) -> bool:
    return sets_contains(a, b) and sets_contains(b, a)


def sets_intersects(a: Any, b: Any) -> bool:
    return any(any(try_equal(x, y) is True for y in need(b, list)) for x in need(a, list))


GLOBALS: dict[str, Callable[..., Any]] = {
    "sets.contains": sets_contains,
    "sets.equivalent": sets_equivalent,
    "sets.intersects": sets_intersects,
}
