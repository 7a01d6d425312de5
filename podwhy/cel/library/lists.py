"""The Kubernetes lists library (k8s.io/apiserver/pkg/cel/library/lists.go): isSorted, sum, min,
max, indexOf, lastIndexOf; cel-go's ext.Lists (version 3, as Kubernetes enables it from v1.34:
slice, flatten, sort, reverse, distinct, lists.range) and ext.Sets (sets.contains,
sets.equivalent, sets.intersects)."""

from __future__ import annotations

import functools
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


def _slice(items: list[Any], start: int, end: int) -> list[Any]:
    prefix = f"cannot slice({start}, {end}), "
    if start < 0 or end < 0:
        raise CelError(prefix + "negative indexes not supported")
    if start > end:
        raise CelError(prefix + "start index must be less than or equal to end index")
    if len(items) < end:
        raise CelError(prefix + f"list is length {len(items)}")
    return items[start:end]


def _flatten(items: list[Any], depth: int) -> list[Any]:
    if depth < 0:
        raise CelError("level must be non-negative")
    out: list[Any] = []
    for item in items:
        if isinstance(item, list) and depth > 0:
            out += _flatten(item, depth - 1)
        else:
            out.append(item)
    return out


def _sorted(items: list[Any]) -> list[Any]:
    if not items:
        return items
    first = items[0]
    if isinstance(first, (list, dict)) or first is None:
        raise CelError("list elements must be comparable")
    if any(type(item) is not type(first) for item in items):
        raise CelError("list elements must have the same type")
    return sorted(items, key=functools.cmp_to_key(compare))


def _distinct(items: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if not any(try_equal(seen, item) is True for seen in out):
            out.append(item)
    return out


def _ext_list_method(name: str, items: list[Any], args: list[Any]) -> Any:
    if name == "slice" and len(args) == 2:
        return _slice(items, need(args[0], int), need(args[1], int))
    if name == "flatten" and len(args) <= 1:
        return _flatten(items, need(args[0], int) if args else 1)
    if not args and name in ("sort", "reverse", "distinct"):
        return {"sort": _sorted, "reverse": lambda x: x[::-1], "distinct": _distinct}[name](items)
    raise CelError(NO_SUCH_OVERLOAD)


def lists_range(n: Any) -> list[int]:
    return list(range(need(n, int)))


def list_method(name: str, items: list[Any], args: list[Any]) -> Any:
    if name in ("slice", "flatten", "sort", "reverse", "distinct"):
        return _ext_list_method(name, items, args)
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
    "lists.range": lists_range,
}
