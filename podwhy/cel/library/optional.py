"""cel-go's optional types (cel.OptionalTypes, at the latest version, as the API server's
environments enable it): optional.of/none/ofNonZeroValue, `.?` and `[?]`, the methods hasValue,
value, orValue and or; version 1's optMap and optFlatMap macros (parser.py); version 2's list
methods first and last, optional.unwrap and unwrapOpt; and the optional entries, fields and
elements of literals (`{?k: v}`, `Msg{?f: v}`, `[?v]`; interpreter.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from podwhy.cel.errors import NO_SUCH_OVERLOAD, CelError

# cel-go's error for value() on an empty optional.
NONE_DEREFERENCE = "optional.none() dereference"
# cel-go's errors for an optional map entry, message field or list element (`{?k: v}`,
# `Msg{?f: v}`, `[?v]`) given a value that is not an optional (interpreter/interpretable.go).
INVALID_OPTIONAL_ENTRY = "cannot initialize optional entry '{key}' from non-optional value {value}"
INVALID_OPTIONAL_ELEMENT = "cannot initialize optional list element from non-optional value"


class Optional(msgspec.Struct, frozen=True):
    """A value that may be absent; `present` tells optional.of(x) from optional.none()."""

    CEL_TYPE = "optional_type"

    present: bool
    value: Any = None


NONE = Optional(False)


def of(value: Any) -> Optional:
    return Optional(True, value)


def of_non_zero_value(value: Any) -> Optional:
    """optional.ofNonZeroValue: none for the zero value of its type (0, "", [], {}, false, null)."""
    if value is None or value is False:
        return NONE
    if isinstance(value, (int, float, str, bytes, list, dict)) and not isinstance(value, bool) and not value:
        return NONE
    return Optional(True, value)


def go_value(value: Any) -> str:
    """A value as Go's %v prints cel-go's: a string bare, true/false, a whole double without its
    point, bytes as their numbers; lists and maps approximately (`[a b]`, `map[k:v]`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "NULL_VALUE"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    if isinstance(value, bytes):
        return "[" + " ".join(str(b) for b in value) + "]"
    if isinstance(value, list):
        return "[" + " ".join(go_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{go_value(k)}:{go_value(v)}" for k, v in value.items()) + "]"
    return str(value)


def optional_method(name: str, opt: Optional, args: list[Any]) -> Any:
    if name == "hasValue" and not args:
        return opt.present
    if name == "value" and not args:
        if not opt.present:
            raise CelError(NONE_DEREFERENCE)
        return opt.value
    if name == "orValue" and len(args) == 1:
        return opt.value if opt.present else args[0]
    if name == "or" and len(args) == 1:
        if not isinstance(args[0], Optional):
            raise CelError(NO_SUCH_OVERLOAD)
        return opt if opt.present else args[0]
    raise CelError(NO_SUCH_OVERLOAD)


def unwrap(items: Any) -> list[Any]:
    """optional.unwrap(list) and list.unwrapOpt(): the values of the present optionals."""
    if not isinstance(items, list):
        raise CelError(NO_SUCH_OVERLOAD)
    out: list[Any] = []
    for item in items:
        if not isinstance(item, Optional):
            raise CelError(f"value {go_value(item)} is not optional")
        if item.present:
            out.append(item.value)
    return out


GLOBALS: dict[str, Callable[..., Any]] = {
    "optional.of": of,
    "optional.none": lambda: NONE,
    "optional.ofNonZeroValue": of_non_zero_value,
    "optional.unwrap": unwrap,
}

# The list methods of the library (version 2), each without arguments.
LIST_METHODS: dict[str, Callable[[list[Any]], Any]] = {
    "first": lambda items: of(items[0]) if items else NONE,
    "last": lambda items: of(items[-1]) if items else NONE,
    "unwrapOpt": unwrap,
}
