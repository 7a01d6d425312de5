"""Messages on stderr (errors, warnings, what -v says) as a terminal shows them.

Each message is one line: piped or redirected it stays one line, so that a script can grep it.
On a terminal a long line would be broken wherever the terminal's width falls, mid-word, so it
is wrapped here to that width at word boundaries, its continuation lines indented. A command
the user should copy (backquoted: `kubectl get ...`) is never split: it moves to the next line
when it does not fit on this one, and stands alone on its line when it is wider than the
terminal (the terminal may fold it; a copy of it is still the whole command).
"""

from __future__ import annotations

import re

# Continuation lines are indented by this much, under the message's first line.
INDENT = "  "
# Below this width wrapping would leave a word or two per line: a line is wrapped as if this wide.
MIN_WIDTH = 20

# A word: a run of characters without spaces, a backquoted span (spaces and all) being part of
# the word it is in (`cmd`, `(`cmd`)`); a backquote without its closing one is a word of its own.
_WORD = re.compile(r"(?:`[^`]*`|[^\s`])+|`")


def wrapped(line: str, width: int) -> list[str]:
    """LINE wrapped to WIDTH columns at word boundaries, continuation lines indented by INDENT;
    a backquoted command is never split. A line that fits is returned as it is."""
    width = max(width, MIN_WIDTH)
    if len(line) <= width:
        return [line]
    lines: list[str] = []
    current = ""
    for word in _WORD.findall(line):
        room = width - (len(INDENT) if lines else 0)
        candidate = f"{current} {word}" if current else word
        if len(candidate) <= room:
            current = candidate
            continue
        if current:
            lines.append(current)
            current = ""
        room = width - len(INDENT)
        if len(word) <= room:
            current = word
        else:  # wider than a line: whole, on a line of its own
            lines.append(word)
    if current:
        lines.append(current)
    return [lines[0], *(INDENT + rest for rest in lines[1:])]
