"""A JSON List read an item at a time, as its text arrives (issue 39: the input is not held).

`kubectl get -o json` writes a List indented (`{`, then `"apiVersion"`, `"items": [`, every item
opening on a line of its own and closing on a line with the same indentation, then `"kind"` and
`"metadata"`); `podwhy snapshot` writes one item per line. ItemSplitter finds the items of either
layout in the text as it comes, without holding more than one chunk and one item of it.

The split is a fast path, not a second JSON reader: it holds only where every piece it cuts is
one whole JSON value (the decoder checks each item whole, snapshot/decode.py), the pieces are
separated by `,` and white space, and what surrounds the items, read with `"items": []` in their
place, is one JSON object whose `items` is that empty list. Then the text is exactly that object
with those items, whatever its indentation. Anything else (another layout, one line of compact
JSON, a typed List whose items carry no kind, an item that does not decode) is NotStreamable:
the caller reads the whole input as before, and words any error as before.
"""

from __future__ import annotations

import re

import msgspec

# Where a List's items start: the key at the top level of the object, which the head check proves.
_ITEMS_KEY = re.compile(rb'"items"\s*:\s*\[')
# How much text may come before the items (the List's apiVersion, kind and metadata at most), and
# after them; and the most one item may take. Past either, the input is read whole (its limits
# and words are read_input's): an object the API server serves is at most 1.5 MiB of compact JSON.
HEAD_BYTES = 1 << 20
ITEM_BYTES = 16 << 20
_SPACE = b" \t\r\n"
_SPACES = re.compile(rb"[ \t\r\n]*")
_ARRAY = msgspec.json.Decoder(list[msgspec.Raw])


class _Object(msgspec.Struct):
    """Nothing read: decoding checks that the text is one JSON object."""


_OBJECT = msgspec.json.Decoder(_Object)

# An item's text: a copy, or a view into the array msgspec cut a chunk's whole items from.
Item = bytes | msgspec.Raw


class NotStreamable(Exception):  # noqa: N818 - a signal to read the input whole, not an error
    """The text is not a List this fast path can vouch for: read the input whole."""


class ItemSplitter:
    """Cuts a JSON List's text, given a chunk at a time, into its items' texts.

    feed() returns the items a chunk completes; end() the text around the items with an empty
    `items` list in their place (`{"apiVersion": "v1", "items": [], "kind": "List", ...}`)."""

    def __init__(self) -> None:
        self._buf = b""
        self._pos = 0  # where in _buf the splitter stands
        self._head: bytes | None = None  # the text before the items' `[`, once found
        self._tail: list[bytes] = []  # the text from the `]` that closes the items on
        self._tail_bytes = 0
        self._state = "head"  # head, item (before an item), after (after an item), tail
        self._first = True  # no item read yet (a `]` then closes an empty list, not a trailing comma)
        self._layout: bytes | None = None  # what ends an item's text: its closing line, or its line
        self._bulk_ok = True  # whether _bulk may be tried on this chunk

    def feed(self, chunk: bytes) -> list[Item]:
        if self._state == "tail":
            self._add_tail(chunk)
            return []
        self._buf = b"".join((memoryview(self._buf)[self._pos :], chunk)) if self._pos < len(self._buf) else chunk
        self._pos = 0
        self._bulk_ok = True
        items: list[Item] = []
        self._advance(items, final=False)
        return items

    def end(self) -> tuple[list[Item], bytes]:
        """The items left at the end of the text, and the List around them (NotStreamable if
        the text ended inside the items)."""
        items: list[Item] = []
        if self._state != "tail":
            self._advance(items, final=True)
        if self._state != "tail" or self._head is None:
            raise NotStreamable
        return items, self._head + b'"items":[]' + b"".join(self._tail)

    # -- the states ---------------------------------------------------------
    def _advance(self, items: list[Item], final: bool) -> None:
        while True:
            if self._state == "head" and not self._find_head(final):
                return
            if self._state == "item" and not self._item(items, final):
                return
            if self._state == "after" and not self._after():
                return
            if self._state == "tail":
                self._add_tail(self._buf[self._pos :])
                self._buf, self._pos = b"", 0
                return

    def _find_head(self, final: bool) -> bool:
        found = _ITEMS_KEY.search(self._buf, 0, HEAD_BYTES)
        if found is None:
            if final or len(self._buf) >= HEAD_BYTES or self._buf.lstrip(_SPACE)[:1] not in (b"", b"{"):
                raise NotStreamable
            return False
        self._head = self._buf[: found.start()]
        try:  # the key is the List's own, not a nested object's: the head closes as an object
            _OBJECT.decode(self._head + b'"items":[]}')
        except msgspec.DecodeError:
            raise NotStreamable from None
        self._pos = found.end()
        self._state = "item"
        return True

    def _add_tail(self, text: bytes) -> None:
        self._tail_bytes += len(text)
        if self._tail_bytes > HEAD_BYTES:
            raise NotStreamable
        self._tail.append(text)

    def _skip_space(self) -> int:
        """The first byte of _buf from _pos on that is not white space (len(_buf) when none)."""
        found = _SPACES.match(self._buf, self._pos)
        return found.end() if found is not None else self._pos

    def _item(self, items: list[Item], final: bool) -> bool:
        if self._bulk_ok and self._layout is not None and self._bulk(items):
            return True
        start = self._skip_space()
        if start >= len(self._buf):
            if final:
                raise NotStreamable
            # Only white space so far: let go of it, but for the line the next item may open.
            self._pos = max(self._pos, self._buf.rfind(b"\n", self._pos))
            if len(self._buf) - self._pos > ITEM_BYTES:
                raise NotStreamable
            return False
        if self._buf[start] == ord("]") and self._first:
            return self._to_tail(start)  # `"items": []`
        if self._buf[start] != ord("{"):
            raise NotStreamable
        line_start = self._buf.rfind(b"\n", 0, start) + 1
        indent = self._buf[line_start:start]
        if line_start == 0 or indent.strip(b" \t"):
            raise NotStreamable  # the item does not open its line: compact JSON
        line_end = self._buf.find(b"\n", start)
        if line_end < 0 and not final:
            if len(self._buf) - start > ITEM_BYTES:
                raise NotStreamable
            return False
        if line_end < 0 or self._buf[start + 1 : line_end].strip(_SPACE):
            end = self._line_item_end(start, line_end, final)  # one item per line
            self._layout = b"\n"
        else:
            end = self._pretty_item_end(indent, start, final)
            self._layout = b"\n" + indent + b"}"
        if end < 0:
            if len(self._buf) - start > ITEM_BYTES:
                raise NotStreamable
            return False
        items.append(self._buf[start:end])
        self._first = False
        self._pos = end
        self._state = "after"
        return True

    def _bulk(self, items: list[Item]) -> bool:
        """The items up to the last one the buffer holds whole in the layout the first item showed
        (its closing line, or its line), cut by msgspec as the elements of one JSON array: every
        piece is then one JSON value, with a `,` between two. Tried once a chunk (it fails where the
        items end, or where the layout does not hold): then an item at a time."""
        buf, pos, layout = self._buf, self._pos, self._layout
        assert layout is not None
        at = buf.rfind(layout, pos)
        if at < 0:
            return False
        if layout == b"\n":
            end = pos + len(buf[pos:at].rstrip(_SPACE))
            if end > pos and buf[end - 1] == ord(","):
                end -= 1  # the `,` after the last whole line's item is the next state's
        else:
            end = at + len(layout)
        try:
            block = _ARRAY.decode(b"".join((b"[", memoryview(buf)[pos:end], b"]")))
        except msgspec.DecodeError:
            block = []
        if not block:
            self._bulk_ok = False
            return False
        items.extend(block)
        self._first = False
        self._pos = end
        self._state = "after"
        return True

    def _line_item_end(self, start: int, line_end: int, final: bool) -> int:
        if line_end < 0:
            line_end = len(self._buf)  # final: the text ends on the item's line
        line = self._buf[start:line_end].rstrip(_SPACE)
        if line.endswith(b","):
            line = line[:-1].rstrip(_SPACE)
        elif line.endswith(b"]"):
            raise NotStreamable  # `…}]` on one line: the items' end is not on a line of its own
        return start + len(line)

    def _pretty_item_end(self, indent: bytes, start: int, final: bool) -> int:
        close = b"\n" + indent + b"}"
        at = self._buf.find(close, start)
        if at < 0:
            if final:
                raise NotStreamable
            return -1
        return at + len(close)

    def _after(self) -> bool:
        at = self._skip_space()
        if at >= len(self._buf):
            self._pos = max(self._pos, self._buf.rfind(b"\n", self._pos))
            if len(self._buf) - self._pos > ITEM_BYTES:
                raise NotStreamable
            return False
        byte = self._buf[at]
        if byte == ord(","):
            self._pos = at + 1
            self._state = "item"
            return True
        if byte == ord("]"):
            return self._to_tail(at)
        raise NotStreamable

    def _to_tail(self, bracket: int) -> bool:
        self._pos = bracket + 1
        self._state = "tail"
        return True
