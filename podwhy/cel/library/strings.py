"""String functions: CEL's standard ones and cel-go's ext.Strings (version 2, as Kubernetes enables it)."""

from __future__ import annotations

from typing import Any

from podwhy.cel.errors import NO_SUCH_OVERLOAD, CelError
from podwhy.cel.library.regex import find_all, find_regex, matches
from podwhy.cel.values import need
from podwhy.model.gojson import GO_SPACE


def string_method(name: str, s: str, args: list[Any]) -> Any:
    """Standard string functions and cel-go's ext.Strings (version 2, as Kubernetes enables it)."""
    arity = len(args)
    if name == "contains" and arity == 1:
        return need(args[0], str) in s
    if name == "startsWith" and arity == 1:
        return s.startswith(need(args[0], str))
    if name == "endsWith" and arity == 1:
        return s.endswith(need(args[0], str))
    if name == "matches" and arity == 1:
        return matches(s, need(args[0], str))
    if name == "size" and arity == 0:
        return len(s)
    if name == "lowerAscii" and arity == 0:
        return "".join(c.lower() if c.isascii() else c for c in s)
    if name == "upperAscii" and arity == 0:
        return "".join(c.upper() if c.isascii() else c for c in s)
    if name == "trim" and arity == 0:
        return s.strip(GO_SPACE)
    return _ext_string_method(name, s, args)


def _ext_string_method(name: str, s: str, args: list[Any]) -> Any:
    """ext.Strings' functions with arguments, and the regex library's find and findAll."""
    arity = len(args)
    if name == "split" and arity in (1, 2):
        return _split(s, need(args[0], str), need(args[1], int) if arity == 2 else -1)
    if name == "indexOf" and arity in (1, 2):
        return _index_of(s, need(args[0], str), need(args[1], int) if arity == 2 else 0)
    if name == "lastIndexOf" and arity in (1, 2):
        sub = need(args[0], str)
        if arity == 2:
            return _last_index_of(s, sub, need(args[1], int))
        if not sub:
            return len(s)
        if len(s.encode("utf-8")) < len(sub.encode("utf-8")):
            return -1
        return _last_index_of(s, sub, len(s) - 1)
    if name == "charAt" and arity == 1:
        idx = need(args[0], int)
        if idx < 0 or idx > len(s):
            raise CelError(f"index out of range: {idx}")
        return s[idx : idx + 1]
    if name == "substring" and arity in (1, 2):
        start = need(args[0], int)
        end = need(args[1], int) if arity == 2 else len(s)
        if arity == 2 and start > end:
            raise CelError(f"invalid substring range. start: {start}, end: {end}")
        for bound in (start, end):
            if bound < 0 or bound > len(s):
                raise CelError(f"index out of range: {bound}")
        return s[start:end]
    if name == "replace" and arity in (2, 3):
        count = need(args[2], int) if arity == 3 else -1
        return s.replace(need(args[0], str), need(args[1], str), count)
    if name == "find" and arity == 1:
        match = find_regex(need(args[0], str)).search(s)
        return match.group(0) if match else ""
    if name == "findAll" and arity in (1, 2):
        regex = find_regex(need(args[0], str))
        return find_all(regex, s, need(args[1], int) if arity == 2 else -1)
    raise CelError(NO_SUCH_OVERLOAD)


def _split(s: str, sep: str, limit: int) -> list[str]:
    """strings.SplitN: limit 0 gives no parts, a negative limit all of them; an empty
    separator splits after each character."""
    if limit == 0:
        return []
    if sep:
        return s.split(sep, limit - 1 if limit > 0 else -1)
    chars = list(s)
    if 0 < limit < len(chars):
        return [*chars[: limit - 1], "".join(chars[limit - 1 :])]
    return chars


def _index_of(s: str, sub: str, offset: int) -> int:
    if not sub:
        return offset
    if offset < 0:
        raise CelError(f"index out of range: {offset}")
    if offset >= len(s):
        return -1
    return s.find(sub, offset)


def _last_index_of(s: str, sub: str, offset: int) -> int:
    if not sub:
        return offset
    if offset < 0:
        raise CelError(f"index out of range: {offset}")
    if offset >= len(s):
        return -1
    # The match may start at offset at the latest.
    return s.rfind(sub, 0, min(offset, len(s) - len(sub)) + len(sub)) if len(sub) <= len(s) else -1


_QUOTE_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
    '"': '\\"',
}


def quote(s: str) -> str:
    """strings.quote (ext.Strings v1): double-quoted, CEL's escape sequences escaped."""
    return '"' + "".join(_QUOTE_ESCAPES.get(c, c) for c in s) + '"'
