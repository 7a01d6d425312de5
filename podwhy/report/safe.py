"""Every string from input made safe before a renderer sees it.

Names, labels, taints, messages, images: a dump, a manifest or anyone who can create objects in
a cluster chose them. Before the table, `--node`, markdown and JUnit render a report, `shown`
rewrites every string in it with the control characters (C0 but newline and tab, DEL, C1),
line and paragraph separators, bidi overrides and isolates, lone surrogates and XML's
noncharacters written as escapes (`\\x1b`, `\\u202e`: podwhy.errors.ESCAPES, which error lines
use too), so no escape sequence reaches a terminal, no text is reordered on screen, and every
character left is one XML 1.0 allows. Enum values and numbers are podwhy's own and stay as they
are. JSON and YAML are data and keep strings as they were read.
"""

from __future__ import annotations

from typing import Any, TypeVar, cast

import msgspec

from podwhy.errors import ESCAPES

# Newline and tab keep their meaning in a report's text (markdown turns a newline into <br>,
# the table wraps at it); carriage return does not: it overwrites a line already shown.
_SHOWN = {code: escape for code, escape in ESCAPES.items() if code not in (ord("\n"), ord("\t"))}

T = TypeVar("T")


def safe_text(text: str) -> str:
    """TEXT with every character that could rewrite a terminal or an XML file escaped."""
    return text.translate(_SHOWN)


def made_safe(value: T) -> T:
    """VALUE (a report, or any part of one) with every string in it made safe by `safe_text`."""
    return cast("T", _walk(value))


def _walk(value: Any) -> Any:
    if type(value) is str:  # not a StrEnum: those are podwhy's words
        text = safe_text(value)
        return value if text == value else text
    if isinstance(value, msgspec.Struct):
        changes = {}
        for field in value.__struct_fields__:
            old = getattr(value, field)
            new = _walk(old)
            if new is not old:
                changes[field] = new
        return msgspec.structs.replace(value, **changes) if changes else value
    if isinstance(value, list):
        items = [_walk(item) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if isinstance(value, dict):
        pairs = [(_walk(k), _walk(v)) for k, v in value.items()]
        same = all(k is a and v is b for (k, v), (a, b) in zip(pairs, value.items(), strict=True))
        return value if same else dict(pairs)
    return value
