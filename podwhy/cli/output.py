"""Where podwhy's words go: stdout for the results, stderr for errors, warnings and what -v says."""

from __future__ import annotations

import os
import sys


def stderr_width() -> int | None:
    """The width to wrap messages on stderr to: its terminal's (COLUMNS when set, as rich reads
    it), or None when stderr is not a terminal (piped, redirected: one line per message)."""
    try:
        if not sys.stderr.isatty():
            return None
        columns = os.environ.get("COLUMNS", "")
        return (
            int(columns)
            if columns.isdigit() and int(columns) > 0
            else os.get_terminal_size(sys.stderr.fileno()).columns
        )
    except (AttributeError, OSError, ValueError):
        return None


def say(line: str) -> None:
    """One message (an error, a warning, what -v says) on stderr: one line, wrapped at word
    boundaries to the terminal's width when stderr is one (report/stderr.py)."""
    width = stderr_width()
    if width is not None:
        from podwhy.report.stderr import wrapped

        line = "\n".join(wrapped(line, width))
    print(line, file=sys.stderr)
