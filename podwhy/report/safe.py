"""Every string from input made safe before a renderer sees it.

Names, labels, taints, messages, images: a dump, a manifest or anyone who can create objects in
a cluster chose them. Before the table, `--node`, markdown and JUnit render a report, `shown`
rewrites every string in it with the control characters (C0 but newline and tab, DEL, C1),
line and paragraph separators, bidi overrides and isolates, lone surrogates and XML's
noncharacters written as escapes (`\\x1b`, `\\u202e`: podwhy.errors.ESCAPES, which error lines
use too), so no escape sequence reaches a terminal, no text is reordered on screen, and every
character left is one XML 1.0 allows. Enum values and numbers are podwhy's own and stay as they
are. JSON and YAML are data and keep strings as they were read, with the characters a
terminal would act on written as escapes of their own format (`json_escaped`, `yaml_text`).
"""

from __future__ import annotations

import re
from operator import attrgetter
from typing import Any, TypeVar, cast

import msgspec
import yaml
from msgspec import UNSET

from podwhy.errors import ESCAPES

# Newline and tab keep their meaning in a report's text (markdown turns a newline into <br>,
# the table wraps at it); carriage return does not: it overwrites a line already shown.
_SHOWN = {code: escape for code, escape in ESCAPES.items() if code not in (ord("\n"), ord("\t"))}

T = TypeVar("T")


def safe_text(text: str) -> str:
    """TEXT with every character that could rewrite a terminal or an XML file escaped."""
    return text.translate(_SHOWN)


def made_safe(value: T) -> T:
    """VALUE (a report, or any part of one) with every string in it made safe by `safe_text`;
    VALUE itself when none of its strings holds a character to escape (found at once in its JSON,
    before walking a report of a hundred thousand strings one by one)."""
    if _nothing_to_escape(value):
        return value
    return cast("T", _walk(value))


# In the UTF-8 JSON of a value, what _SHOWN escapes: C0 as JSON escapes it (\r, \b, \f, \u00XX,
# after an odd run of backslashes: an even one is escaped backslashes), and DEL, C1, U+2028 to
# U+202E, U+2066 to U+2069, U+FFFE and U+FFFF as their bytes (behind the lead bytes searched
# first). Lone surrogates have no UTF-8: encoding fails and the walk decides.
_ESCAPE_RUNS = re.compile(rb"\\+[rbfu]")
_ESCAPES_IN_JSON = (b"\\u", b"\\r", b"\\b", b"\\f")
_RAW_LEADS = (b"\x7f", b"\xc2", b"\xe2", b"\xef")
_RAW_SHOWN = re.compile(rb"\x7f|\xc2[\x80-\x9f]|\xe2\x80[\xa8-\xae]|\xe2\x81[\xa6-\xa9]|\xef\xbf[\xbe\xbf]")


# A list of at least this many records (a report's `nodes`, one entry per node) is looked at record
# by record: its records share most of what they hold (the nodes of one verdict share its
# statuses: report/build/nodes.py), and what they share is encoded once, not once per record.
SHARED_RECORDS = 256


def _distinct_parts(records: list[Any]) -> list[Any]:
    """Every string RECORDS hold, as a list that holds each of their strings, and each list, dict
    or record they hold once (by identity) rather than once per record that holds it."""
    parts: list[Any] = []
    seen: set[int] = set()
    fields: dict[type, attrgetter[Any]] = {}
    for record in records:
        kind = type(record)
        get = fields.get(kind)
        if get is None:
            names = getattr(kind, "__struct_fields__", ())
            if len(names) < 2:  # not a record, or one field: as it is
                parts.append(record)
                continue
            get = fields[kind] = attrgetter(*names)
        for field in get(record):
            if type(field) is str:
                parts.append(field)
            elif (
                field is None
                or field is UNSET
                or type(field) in (bool, int, float)
                or (type(field) is list and not field)
            ):
                continue  # holds no string (UNSET cannot be encoded outside a record)
            elif id(field) not in seen:
                seen.add(id(field))
                parts.append(field)
    return parts


def _distinct(value: object) -> object:
    """What _nothing_to_escape encodes of VALUE: VALUE, or for a record with long lists of
    records, the record without them and the distinct parts of each (_distinct_parts)."""
    if not isinstance(value, msgspec.Struct):
        return value
    long_lists = {}
    for name in value.__struct_fields__:
        field = getattr(value, name)
        if type(field) is list and len(field) >= SHARED_RECORDS and isinstance(field[0], msgspec.Struct):
            long_lists[name] = field
    if not long_lists:
        return value
    rest = msgspec.structs.replace(value, **{name: [] for name in long_lists})
    return [rest, *[_distinct_parts(records) for records in long_lists.values()]]


def _nothing_to_escape(value: object) -> bool:
    """Whether no string in VALUE holds a character _SHOWN escapes (False when unsure)."""
    try:
        data = msgspec.json.encode(_distinct(value))
    except (TypeError, ValueError, UnicodeError, msgspec.EncodeError):
        return False
    if (
        b"\\" in data
        and any(escape in data for escape in _ESCAPES_IN_JSON)
        and any((match.end() - match.start()) % 2 == 0 for match in _ESCAPE_RUNS.finditer(data))
    ):
        return False  # an odd run of backslashes, then the escape's letter
    return not any(lead in data for lead in _RAW_LEADS) or _RAW_SHOWN.search(data) is None


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


# JSON and YAML are data: a string keeps every character it was read with, but one a terminal
# would act on (DEL, C1, line and paragraph separators, bidi overrides, noncharacters) is written
# as the format's own escape (`\u009b`), which any reader decodes back to the same string. C0 is
# escaped by both formats already; lone surrogates cannot be encoded at all.
_DATA_ESCAPES = {code: f"\\u{code:04x}" for code in ESCAPES if code >= 0x7F and not 0xD800 <= code < 0xE000}
_DATA_LEADS = re.compile(rb"[\x7f\xc2\xe2\xef]")  # the first bytes of those characters in UTF-8


def json_escaped(data: bytes) -> bytes:
    """JSON DATA (UTF-8) with those characters written as \\u escapes: they can only be inside
    its strings, where an escape means the same character."""
    if _DATA_LEADS.search(data) is None:
        return data
    return data.decode("utf-8").translate(_DATA_ESCAPES).encode("utf-8")


def _needs_escapes(text: str) -> bool:
    return any(ord(ch) in _DATA_ESCAPES for ch in text)


class _Emitter(yaml.emitter.Emitter):
    """A string holding one of those characters is written double-quoted, non-ASCII escaped."""

    def choose_scalar_style(self) -> str:
        event = self.event
        if isinstance(event, yaml.ScalarEvent) and _needs_escapes(event.value):
            return '"'
        return str(super().choose_scalar_style())

    def process_scalar(self) -> None:
        event = self.event
        if isinstance(event, yaml.ScalarEvent) and _needs_escapes(event.value):
            self.allow_unicode = False
            try:
                super().process_scalar()
            finally:
                self.allow_unicode = True
            return
        super().process_scalar()


class _Dumper(_Emitter, yaml.SafeDumper):
    """PyYAML's safe dumper with the emitter above (SafeDumper's own parts and arguments)."""


def yaml_text(data: Any) -> str:
    """DATA (builtins) as YAML, keys in their order, Unicode as it is but those characters."""
    return str(yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True))
