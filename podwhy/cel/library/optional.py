"""cel-go's optional types (cel.OptionalTypes): optional.of/none/ofNonZeroValue, `.?` and `[?]`,
and the methods hasValue, value, orValue and or."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from podwhy.cel.errors import NO_SUCH_OVERLOAD, CelError

# cel-go's error for value() on an empty optional.
NONE_DEREFERENCE = "optional.none() dereference"


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


GLOBALS: dict[str, Callable[..., Any]] = {
    "optional.of": of,
    "optional.none": lambda: NONE,
    "optional.ofNonZeroValue": of_non_zero_value,
}
