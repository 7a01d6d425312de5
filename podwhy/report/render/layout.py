"""The text layout the terminal renderers share: a console that leaves no trailing blanks, column
widths that fit the terminal, sentences wrapped with a hanging indent, counts glued to what they
count."""

from __future__ import annotations

import os
import re
import sys
from typing import TextIO

from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.text import Text

MAX_NAMES_IN_GROUP = 3


# Output to a pipe or file (CI logs) gets this many columns unless COLUMNS says otherwise,
# rather than rich's 80, which would squeeze a wide verdict table.
PIPE_WIDTH = 120


# Below this many columns tables turn into lists: one line per group, then one per reason.
NARROW_WIDTH = 100


# A command to copy inside a sentence, as the words write it: `kubectl ...` or `podwhy ...` ending
# a clause (they put it after a colon, so that what comes before it reads whole). One that a
# word follows ("`kubectl apply` fails") names a command, and stays in the sentence.
_COMMAND = re.compile(r"`((?:kubectl|podwhy) [^`]*)`(?=[,;.)]|$)")


def say(console: Console, markup: str, indent: int) -> None:
    """A line indented by `indent`, its wrapped lines too (between words, without trailing
    blanks). A command in it (`kubectl ...`, `podwhy ...`) is printed whole on a line of its own,
    two columns further in, so that it can be copied: a terminal may cut it, never the wrapping.
    The markup is read first, so that its styles span the pieces whatever the text holds."""
    text = Text.from_markup(markup)
    plain = text.plain
    start = 0
    for found in _COMMAND.finditer(plain):
        _say_words(console, text, start, found.start(), indent, after_command=start > 0)
        console.print(Text(" " * (indent + 2)) + text[found.start(1) : found.end(1)], soft_wrap=True)
        start = found.end()
    _say_words(console, text, start, len(plain), indent, after_command=start > 0)


def _say_words(console: Console, text: Text, start: int, end: int, indent: int, after_command: bool) -> None:
    """TEXT[START:END] wrapped at `indent`; after a command, without the punctuation that closed it."""
    plain = text.plain
    skip = " ,;)" if after_command else " "
    while start < end and plain[start] in skip:
        start += 1
    while end > start and plain[end - 1] == " ":
        end -= 1
    if not plain[start:end].strip(",;.)"):
        return
    for line in text[start:end].wrap(console, max(console.width - indent, 20)):
        line.rstrip()
        console.print(Text(" " * indent) + line, soft_wrap=True)


def one_line(header: str) -> str:
    return header.replace("\n", " ")


def narrow(console: Console) -> bool:
    return console.width < NARROW_WIDTH


def _longest_token(text: str) -> int:
    return max((cell_len(t) for t in text.split()), default=0)


def _longest_line(text: str) -> int:
    return max((cell_len(line) for line in text.splitlines()), default=0)


def fit_widths(
    width: int, cells: list[list[str]], fixed: frozenset[int] = frozenset(), floor: tuple[int, ...] = ()
) -> list[int] | None:
    """Content widths for the columns of a boxed table `width` columns wide (each column's
    cells, header first): a column is as wide as its longest line, the widest are narrowed
    first, never below their longest word (so rich wraps between words and never inside a
    name); `fixed` columns never narrow. None when the words do not fit: the caller then
    renders a list instead. `floor`: the least width of the first columns, when there is room."""
    room = width - (3 * len(cells) + 1)  # a border before each column and after the last, padding 1 each side
    widths = [max(1, max((_longest_line(c) for c in col), default=1)) for col in cells]
    widths = [max(w, floor[i]) if i < len(floor) else w for i, w in enumerate(widths)]
    minimum = [
        w if i in fixed else max(1, max((_longest_token(c) for c in col), default=1))
        for i, (w, col) in enumerate(zip(widths, cells, strict=True))
    ]
    if sum(minimum) > room:
        return None
    excess = sum(widths) - room
    while excess > 0:
        i = max((j for j in range(len(widths)) if widths[j] > minimum[j]), key=lambda j: widths[j])
        widths[i] -= 1
        excess -= 1
    return widths


class _StdoutConsole(Console):
    """A reader that stops early (`podwhy ... | head`) is the command line's to handle (it keeps
    the verdict's exit code); rich's own handling would exit with 1."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError


# Blanks at the end of a line, before its newline and any colour codes that close it.
_TRAILING_BLANKS = re.compile(r"[ \t]+((?:\x1b\[[0-9;]*m)*)(?=\n)")


class _NoTrailingBlanks:
    """Stdout without blanks at the ends of lines (rich pads wrapped text to the width): what is
    piped or pasted carries no trailing spaces. Blanks at the end of a write wait for the next
    one, which tells whether a line ends there."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._held = ""

    def write(self, text: str) -> int:
        text = _TRAILING_BLANKS.sub(r"\1", self._held + text)
        body = text.rstrip(" \t")
        self._held = text[len(body) :]
        self._stream.write(body)
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self._stream, "encoding", "utf-8") or "utf-8"


def make_console() -> Console:
    """A console for stdout. rich honours NO_COLOR and COLUMNS itself; only the width of a
    pipe or file (CI logs) differs from rich's default."""
    width = None
    if not sys.stdout.isatty() and "COLUMNS" not in os.environ:
        width = PIPE_WIDTH
    return _StdoutConsole(file=_NoTrailingBlanks(sys.stdout), width=width, highlight=False)  # type: ignore[arg-type]


def bullet_numbered(console: Console, number: str, markup: str) -> None:
    """ "1. text", its wrapped lines hanging under the text (a number kept with what it counts)."""
    hang = len(number) + 1
    for i, line in enumerate(Text.from_markup(glued(markup)).wrap(console, max(console.width - hang, 20))):
        line.rstrip()
        console.print(Text((number + " ") if i == 0 else " " * hang) + _unglued(line), soft_wrap=True)


# What opens a line of `pending`'s lists: a detail, a next step, a sizing, an autoscaler's view.
BULLETS = ("· ", "• ", "→ ", "⇒ ", "⇏ ", "⟳ ")


# Holds a number to the words it counts while lines are wrapped ("6 of default/web", "2 pods"):
# one cell wide and no blank, so that no line ends with a number; a blank again once wrapped.
GLUE = "\ue000"


_COUNTED = re.compile(r"(?<![\w./:-])(\d+) (of )?(?=[^\s\d])")


def glued(text: str) -> str:
    return _COUNTED.sub(lambda m: m.group(1) + GLUE + ("of" + GLUE if m.group(2) else ""), text)


def _unglued(line: Text) -> Text:
    if GLUE not in line.plain:
        return line
    return Text(line.plain.replace(GLUE, " "), style=line.style, spans=list(line.spans), end=line.end)


def wrapped(console: Console, markup: str, indent: int, width: int) -> list[Text]:
    """A line indented by `indent`, wrapped between words within `width`: one that opens with a
    bullet ("· needs cpu 2; ...") has its wrapped lines hang under the text after the bullet,
    never under the bullet; a number stays on the line of what it counts."""
    text = Text.from_markup(glued(markup))
    bullet = text.plain[:2] if text.plain[:2] in BULLETS else ""
    body = text[len(bullet) :] if bullet else text
    hang = indent + len(bullet)
    out = []
    for i, line in enumerate(body.wrap(console, max(width - hang, 20 if width >= 20 + hang else 1))):
        line.rstrip()
        lead = " " * indent + bullet if i == 0 else " " * hang
        out.append(Text(lead) + _unglued(line))
    return out


def hanging(console: Console, markup: str, indent: int) -> None:
    for line in wrapped(console, markup, indent, console.width):
        console.print(line, soft_wrap=True)


def text_cell(console: Console, plain: str, width: int) -> Text:
    """A table cell's text wrapped as the lists wrap it (`wrapped`), to the column's width."""
    lines = [line for part in plain.split("\n") for line in wrapped(console, escape(part), 0, width)]
    return Text("\n").join(lines)
