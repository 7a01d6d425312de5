"""The fast YAML reader: rapidyaml turns YAML into JSON text that msgspec decodes into the model.

rapidyaml parses and emits in C++ what PyYAML would turn into a Python dict of every field
(gigabytes, and minutes, for a large dump). It reads plain scalars as YAML 1.2 does,
while podwhy reads them as YAML 1.1 does, as kubectl's and PyYAML's writers assume. Where
the readings differ, the JSON is repaired or the item goes to the reference reader (yaml11):

- a plain scalar that rapidyaml emits as a JSON number and YAML 1.1 reads as a string
  (`pod-template-hash: 5678e76978`, `1e3`) is quoted again in the JSON text;
- a plain `~`, `Null` or `NULL` (null in YAML 1.1, a string to rapidyaml) or `inf`, `nan`
  (strings that rapidyaml rewrites as ".inf", ".nan") sends its item to the reference reader;
- what else differs (a number in a string field, `yes` in a boolean field, 0755 in a
  quantity) fails typed decoding or its check, and the caller hands that item over.

A large `kind: List` is cut into batches of items at its `- ` lines: memory then holds one
batch's tree and JSON at a time, and the reference reader can take a single item.
"""

from __future__ import annotations

import bisect
import functools
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import msgspec
import msgspec.inspect as mi

from podwhy.snapshot import yaml11

try:
    import ryml  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - rapidyaml is a dependency; PyYAML reads everything without it
    ryml = None

# Items of a List are parsed this many source bytes at a time.
BATCH_BYTES = 1 << 20


class FastPathError(Exception):
    """rapidyaml cannot take this text (or it is cut wrongly): read it another way."""


def available() -> bool:
    return ryml is not None


class Item(msgspec.Struct):
    """One item of a List cut into batches."""

    index: int
    # Its JSON, or None when the reference reader must read it.
    json: msgspec.Raw | None
    # Its YAML, a sequence of this one item, and where that starts in the document.
    text: memoryview
    offset: int


class Document(msgspec.Struct):
    """One YAML document of a stream, as the fast reader offers it."""

    number: int  # as PyYAML counts the documents of the stream, from 1
    text: bytes
    offset: int  # where the document starts in the stream
    # The document as JSON when it is read whole; None when the reference reader must read it.
    json: bytes | None = None
    # A List cut into batches: its YAML without the items ("items: []"), and the items.
    envelope: bytes | None = None
    items: Iterator[Item] | None = None


# ------------------------------------------------------------------ documents


def _line_starts_with(data: bytes, prefix: bytes) -> Iterator[int]:
    """Offsets of the lines of DATA that start with PREFIX."""
    if data.startswith(prefix):
        yield 0
    at = data.find(b"\n" + prefix)
    while at >= 0:
        yield at + 1
        at = data.find(b"\n" + prefix, at + 1)


def _marker_at(data: bytes, at: int, marker: bytes) -> bool:
    """Whether a document marker (---, ...) starts at AT: the marker, then a space or the line end."""
    after = data[at + len(marker) : at + len(marker) + 1]
    return data.startswith(marker, at) and after in (b"", b" ", b"\t", b"\r", b"\n")


def _has_content(data: bytes, end: int) -> bool:
    """Whether DATA[:END] holds more than blank lines and comments."""
    pos = 0
    while pos < end:
        nl = data.find(b"\n", pos, end)
        line = data[pos : nl if nl >= 0 else end].strip()
        if line and not line.startswith(b"#"):
            return True
        if nl < 0:
            return False
        pos = nl + 1
    return False


def _after_directive(data: bytes, at: int) -> bool:
    """Whether the document marker at AT follows a directive (%YAML, %TAG), past comments and blank lines."""
    end = at
    while end > 0:
        start = data.rfind(b"\n", 0, end - 1) + 1
        line = data[start:end].strip()
        if line.startswith(b"%"):
            return True
        if line and not line.startswith(b"#"):
            return False
        end = start
    return False


def split_documents(data: bytes) -> list[tuple[int, int]] | None:
    """(start, end) of each document of the stream, numbered as PyYAML does; None if it cannot tell.

    A `...` end marker needs no cut of its own: rapidyaml then finds two documents in one
    part, which goes to the reference reader whole.
    """
    starts = [at for at in _line_starts_with(data, b"---") if _marker_at(data, at, b"---")]
    if data.startswith(b"%") or any(_after_directive(data, at) for at in starts):
        return None  # directives belong to the document after them: leave the stream whole
    # Text before the first marker is a document of its own only if it holds something.
    if not starts or (starts[0] != 0 and _has_content(data, starts[0])):
        starts.insert(0, 0)
    return list(zip(starts, [*starts[1:], len(data)], strict=True))


def documents(data: bytes) -> Iterator[Document]:
    """The documents of DATA, each as JSON, as a List cut into batches, or for the reference reader."""
    spans = split_documents(data) if available() else None
    if spans is None:
        yield Document(1, data, 0)
        return
    reader = _Reader()
    for number, (start, end) in enumerate(spans, 1):
        text = data if (start, end) == (0, len(data)) else data[start:end]
        layout = list_layout(text)
        if layout is not None:
            key, items_end, item_starts = layout
            envelope = text[:key] + b"items: []\n" + text[items_end:]
            yield Document(number, text, start, envelope=envelope, items=reader.items(text, item_starts, items_end))
        else:
            yield Document(number, text, start, json=reader.whole(text))


def whole_document_json(text: bytes) -> bytes | None:
    """TEXT (one document) as JSON, or None when the reference reader must read it."""
    return _Reader().whole(text)


# ------------------------------------------------------------------ cutting a List into items


def list_layout(text: bytes) -> tuple[int, int, list[int]] | None:
    """For a document whose top-level `items:` is a block sequence: where the `items:` line
    starts, where the sequence ends and where each item starts. None for any other document.

    A line that starts with `- ` at the sequence's indentation always starts an item: block
    scalars and the items' own lines are indented further. rapidyaml checks every batch
    (one sequence, as many items as cut), and a wrong cut makes the caller read the
    document whole.
    """
    if text.startswith(b"items:"):
        key = 0
    else:
        key = text.find(b"\nitems:") + 1
        if key == 0:
            return None
    eol = text.find(b"\n", key)
    if eol < 0:
        return None
    rest = text[key + len(b"items:") : eol].strip()
    if rest and not rest.startswith(b"#"):
        return None  # `items: []` or a flow sequence: small, read whole
    pos = eol + 1
    while True:  # the first line of the sequence, past blank lines and comments
        nl = text.find(b"\n", pos)
        line = text[pos : nl if nl >= 0 else len(text)]
        if line.strip() and not line.lstrip().startswith(b"#"):
            break
        if nl < 0:
            return None
        pos = nl + 1
    indent = len(line) - len(line.lstrip(b" "))
    if line[indent : indent + 1] != b"-" or line[indent + 1 : indent + 2] not in (b"", b" ", b"\r"):
        return None
    marker = b"\n" + b" " * indent + b"-"
    starts = [pos]
    found = text.find(marker, pos)
    while found >= 0:
        if text[found + len(marker) : found + len(marker) + 1] in (b" ", b"\n", b"\r", b""):
            starts.append(found + 1)
        found = text.find(marker, found + 1)
    # The sequence ends at the first line after the last item start that is less indented
    # than its items (at column 0: any line but an item's).
    end = len(text)
    line_start = text.find(b"\n", starts[-1]) + 1
    while 0 < line_start < len(text):
        nl = text.find(b"\n", line_start)
        line = text[line_start : nl if nl >= 0 else len(text)]
        content = line.lstrip(b" ")
        if content.strip() and not content.startswith(b"#") and len(line) - len(content) < max(indent, 1):
            end = line_start
            break
        line_start = nl + 1
    return key, end, starts


# ------------------------------------------------------------------ rapidyaml


class _Reader:
    """Parses with one reusable rapidyaml tree."""

    def __init__(self) -> None:
        self._tree = ryml.Tree()
        self._items = msgspec.json.Decoder(list[msgspec.Raw])

    def _parse(self, text: bytes) -> tuple[Any, int]:
        """Parse TEXT; the tree and the id of its (single) document's root, or -1 if empty."""
        tree = self._tree
        tree.clear()
        tree.clear_arena()
        try:
            with _stderr_silenced():
                ryml.parse_in_arena(text, tree)
                tree.resolve()
        except Exception as exc:  # parse errors, unknown aliases: the reference reader words them
            raise FastPathError(str(exc)) from None
        root = tree.root_id()
        if tree.is_stream(root):
            docs = [c for c in _children(tree, root)]
            if len(docs) > 1:
                raise FastPathError("more than one document")
            if not docs:
                return tree, -1
            root = docs[0]
        if not tree.has_children(root) and not tree.has_val(root):
            return tree, -1
        return tree, root

    @staticmethod
    def _emit(tree: Any, node: int, size_hint: int) -> bytes:
        # JSON of block YAML runs about 1.5 times its size; measuring first would cost a second emit.
        buf = bytearray(2 * size_hint + 4096)
        try:
            with _stderr_silenced():
                failed, size = ryml.emit_json_to_substr(tree, node, buf)
                if failed:
                    buf = bytearray(size)
                    failed, size = ryml.emit_json_to_substr(tree, node, buf)
        except Exception as exc:  # what rapidyaml cannot write (a tree nested too deep): the reference reader words it
            raise FastPathError(str(exc)) from None
        del buf[size:]
        return quote_exponent_strings(bytes(buf))

    def whole(self, text: bytes) -> bytes | None:
        try:
            tree, root = self._parse(text)
            if root < 0:
                return b"null"
            js = self._emit(tree, root, len(text))
        except FastPathError:
            return None
        return None if plain_specials(text, js) or not unique_keys(js) else js

    def items(self, text: bytes, starts: list[int], end: int) -> Iterator[Item]:
        """The items at STARTS (ending at END), parsed a batch at a time; FastPathError if the cut is wrong."""
        first = 0
        while first < len(starts):
            last = first + 1
            while last < len(starts) and starts[last] - starts[first] < BATCH_BYTES:
                last += 1
            batch_end = starts[last] if last < len(starts) else end
            batch = text[starts[first] : batch_end]
            offsets = [s - starts[first] for s in starts[first:last]]
            tree, root = self._parse(batch)
            if root < 0 or not tree.is_seq(root) or tree.num_children(root) != len(offsets):
                raise FastPathError("the items were cut wrongly")
            js = self._emit(tree, root, len(batch))
            view = memoryview(batch)
            bounds = [*offsets[1:], len(batch)]
            raws: list[msgspec.Raw | None]
            try:
                raws = list(self._items.decode(js))
                flagged = {bisect.bisect_right(offsets, p) - 1 for p in plain_specials(batch, js)}
                # Item by item: cheaper than the batch whole (its list is one more object to build).
                flagged |= {i for i, raw in enumerate(raws) if raw is not None and not unique_keys(raw)}
            except msgspec.DecodeError:
                # A token JSON does not take (+5, 00.5): take the batch's items one by one.
                raws = [self._single(bytes(view[o:b])) for o, b in zip(offsets, bounds, strict=True)]
                flagged = set()
            for i, raw in enumerate(raws):
                yield Item(first + i, None if i in flagged else raw, view[offsets[i] : bounds[i]], starts[first + i])
            first = last

    def _single(self, text: bytes) -> msgspec.Raw | None:
        """The JSON of a one-item sequence's item, or None when the reference reader must read it."""
        js = self.whole(text)
        if js is None:
            return None
        try:
            raws = self._items.decode(js)
        except msgspec.DecodeError:
            return None
        return raws[0] if len(raws) == 1 else None


@contextmanager
def _stderr_silenced() -> Iterator[None]:
    """rapidyaml prints its errors to the process's stderr before raising them; podwhy's own
    one-line error (worded by the reference reader) is the only one the user should see."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):
        yield
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _children(tree: Any, node: int) -> Iterator[int]:
    child = tree.first_child(node)
    while child != ryml.NONE:
        yield child
        child = tree.next_sibling(child)


# ------------------------------------------------------------------ repairs and checks

# The shadow text maps every digit to 0 (and E to e), so that one literal search finds the
# numbers with an exponent that end a line of JSON, which are whole values.
_SHADOW = bytes.maketrans(b"123456789E", b"000000000e")
_SHADOW_LINE_END_EXPONENT = re.compile(rb"0e[-+]?0+,?(?:\n|\Z)")
# Numbers rapidyaml emits as written: no leading or trailing dot, no leading zero.
_VERBATIM_EXPONENT = re.compile(rb"-?[1-9][0-9]*(?:\.[0-9]+)?[eE][-+]?[0-9]+")
_YAML11_FLOAT_EXPONENT = re.compile(rb"[^.]*\.[^eE]*[eE][-+][0-9]+")


def quote_exponent_strings(js: bytes) -> bytes:
    """Quote the bare numbers of JS that YAML 1.1 reads as strings (5678e76978, 1e3, 1.5e3).

    YAML 1.1 reads an exponent as a float only with a dot and a signed exponent (1.5e+3).
    Numbers inside flow collections are left to typed decoding.
    """
    quotes: list[tuple[int, int]] = []
    for match in _SHADOW_LINE_END_EXPONENT.finditer(js.translate(_SHADOW)):
        end = match.end() - 1 if js[match.end() - 1 : match.end()] == b"\n" else match.end()
        if js[end - 1 : end] == b",":
            end -= 1
        start = js.rfind(b" ", 0, match.start()) + 1
        if start == 0 or _VERBATIM_EXPONENT.fullmatch(js, start, end) is None:
            continue
        if _YAML11_FLOAT_EXPONENT.fullmatch(js, start, end) is None:
            quotes.append((start, end))
    if not quotes:
        return js
    pieces: list[bytes] = []
    previous = 0
    for start, end in quotes:
        pieces += [js[previous:start], b'"', js[start:end], b'"']
        previous = end
    pieces.append(js[previous:])
    return b"".join(pieces)


_ANY = msgspec.json.Decoder()


def unique_keys(js: bytes | msgspec.Raw) -> bool:
    """Whether the JSON JS, as rapidyaml wrote it from YAML, surely has no mapping key twice in
    one mapping (which YAML forbids and the reference reader refuses). Decoded, an object keeps
    each key once: written again, it is the same text only if no key was repeated. A number
    written otherwise than msgspec writes it (1.50) also differs: that item goes to the reference
    reader, which reads it as well."""
    try:
        return msgspec.json.encode(_ANY.decode(js)) == msgspec.json.format(js, indent=-1)
    except msgspec.DecodeError:
        return False


# JSON strings rapidyaml writes for plain scalars YAML 1.1 reads otherwise: "~", "Null",
# "NULL" (null) and ".inf", "-.inf", ".nan" (rapidyaml's rewriting of inf, infinity, nan).
_SPECIAL_JSON = (re.compile(rb'\.(?:inf|nan)"'), re.compile(rb'N(?:ull|ULL)"'))
_SPECIAL_WORD = re.compile(
    rb"(?:Null|NULL|[-+]?\.?(?:inf|Inf|INF|infinity|Infinity|INFINITY|nan|NaN|NAN))(?![^ \t\r\n,\]}:#])"
)
_BEFORE_PLAIN = frozenset(b" \t\r\n[{,")
_AFTER_PLAIN = frozenset(b" \t\r\n,]}:#")


def plain_specials(text: bytes, js: bytes) -> list[int]:
    """Where TEXT has a plain ~, Null, NULL, inf or nan (or may have: a block scalar's line
    counts too), found only when its JSON JS holds a string such a scalar becomes."""
    found: list[int] = []
    if b'"~"' in js:
        at = text.find(b"~")
        while at >= 0:
            if (at == 0 or text[at - 1] in _BEFORE_PLAIN) and (at + 1 == len(text) or text[at + 1] in _AFTER_PLAIN):
                found.append(at)
            at = text.find(b"~", at + 1)
    if any(pattern.search(js) for pattern in _SPECIAL_JSON):
        found += [
            m.start() for m in _SPECIAL_WORD.finditer(text) if m.start() == 0 or text[m.start() - 1] in _BEFORE_PLAIN
        ]
    return found


# ------------------------------------------------------------------ values the fast reader cannot vouch for

_Check = Callable[[Any], bool]


def doubtful(tp: Any) -> _Check:
    """A check of decoded objects of type TP: True when a value may read otherwise in YAML 1.1.

    JSON keeps the types rapidyaml gave, which YAML 1.1 shares except for the scalars it
    quotes: in a field that takes a string or a number (quantities, IntOrString), "0755" may
    have been written plain (493 to YAML 1.1) or quoted, and a float may have been `-.5` (a
    string to YAML 1.1). Fields of any type (DRA's opaque parts) are doubtful whenever set.
    """
    return _LazyCheck(tp)


class _LazyCheck:
    """A type's check, built when it is first used (inspecting every kind's type costs about half
    a second: a command reads a few kinds), once per type."""

    __slots__ = ("_check", "_tp")

    def __init__(self, tp: Any) -> None:
        self._tp = tp
        self._check: _Check | None = None

    def __call__(self, value: Any) -> bool:
        check = self._check
        if check is None:
            check = self._check = _built_check(self._tp)
        return check(value)


@functools.cache
def _built_check(tp: Any) -> _Check:
    check = _Doubts().build(mi.type_info(tp))
    return check if check is not None else _never


def _never(value: Any) -> bool:
    return False


def _reads_otherwise(text: str) -> bool:
    doubt = _READS_OTHERWISE.get(text)
    if doubt is None:
        if len(_READS_OTHERWISE) > 65536:
            _READS_OTHERWISE.clear()
        doubt = _READS_OTHERWISE[text] = yaml11.reads_otherwise(text)
    return doubt


def _doubtful_scalar(value: Any) -> bool:
    kind = type(value)
    return kind is float or (kind is str and _reads_otherwise(value))


def _any_doubtful_scalar(values: dict[str, Any]) -> bool:
    """_doubtful_scalar over a dict's values, inlined: quantity maps are checked on every pod."""
    for value in values.values():
        kind = type(value)
        if kind is float or (kind is str and _reads_otherwise(value)):
            return True
    return False


# The strings seen in such fields are few (quantities): remembered, as they are checked per object.
_READS_OTHERWISE: dict[str, bool] = {}


def _set(value: Any) -> bool:
    return value is not None


def _any_item(check: _Check) -> _Check:
    def items(value: Any) -> bool:
        for item in value:
            if check(item):
                return True
        return False

    return items


def _any_value(check: _Check) -> _Check:
    def values(value: Any) -> bool:
        for item in value.values():
            if check(item):
                return True
        return False

    return values


def _fields_check(checks: list[tuple[str, _Check]]) -> _Check:
    """Any of CHECKS on its field; unrolled for one or two fields, the common cases (objects are checked by the
    hundred thousand)."""
    if len(checks) == 1:
        ((name, check),) = checks
        return lambda v: check(getattr(v, name))
    if len(checks) == 2:
        (first, check_first), (second, check_second) = checks
        return lambda v: check_first(getattr(v, first)) or check_second(getattr(v, second))

    def struct(value: Any) -> bool:
        for name, check in checks:
            if check(getattr(value, name)):
                return True
        return False

    return struct


class _Doubts:
    """Compiles a msgspec type into a check; None for types whose values are never doubtful."""

    def __init__(self) -> None:
        self._structs: dict[type, _Check | None] = {}

    def build(self, t: mi.Type) -> _Check | None:
        if isinstance(t, mi.AnyType):
            return _set
        if isinstance(t, mi.StructType):
            return self._struct(t)
        if isinstance(t, mi.ListType):
            item = self.build(t.item_type)
            return None if item is None else _any_item(item)
        if isinstance(t, mi.DictType):
            value = self.build(t.value_type)
            if value is _doubtful_scalar:
                return _any_doubtful_scalar
            return None if value is None else _any_value(value)
        if isinstance(t, mi.UnionType):
            return self._union(t)
        return None

    def _struct(self, t: mi.StructType) -> _Check | None:
        if t.cls in self._structs:
            # A recursive reference: resolved through the table once built.
            return lambda v: bool((self._structs[t.cls] or _never)(v))
        self._structs[t.cls] = None
        checks = [(f.name, c) for f in t.fields if (c := self.build(f.type)) is not None]
        if not checks:
            return None
        struct = _fields_check(checks)
        self._structs[t.cls] = struct
        return struct

    def _union(self, t: mi.UnionType) -> _Check | None:
        kinds = {type(m) for m in t.types}
        scalar = mi.StrType in kinds and (mi.IntType in kinds or mi.FloatType in kinds)
        nested = [c for m in t.types if not isinstance(m, mi.NoneType) if (c := self.build(m)) is not None]
        if not nested:
            return _doubtful_scalar if scalar else None
        if not scalar and len(nested) == 1:
            only = nested[0]
            return lambda v: v is not None and only(v)

        def union(value: Any) -> bool:
            if value is None:
                return False
            if scalar and isinstance(value, str | int | float):
                return _doubtful_scalar(value)
            for check in nested:
                if check(value):
                    return True
            return False

        return union
