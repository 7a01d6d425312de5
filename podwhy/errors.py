"""The one error type podwhy raises for anything a user can fix."""

from __future__ import annotations

from podwhy.verdict import ExitCode

# Characters that rewrite, recolour or reorder what a terminal shows, or that XML 1.0 cannot
# hold, written as escapes (as repr writes them): names, messages and labels from a dump or a
# cluster can hold any of them. C0 controls, DEL and the C1 controls (ESC/CSI/OSC sequences,
# 8-bit CSI U+009B), what str.splitlines also splits at, the bidi embeddings, overrides and
# isolates (U+202A-U+202E, U+2066-U+2069: "Trojan Source"), lone surrogates and the
# noncharacters U+FFFE/U+FFFF. report/safe.py keeps newline and tab where they mean something.
ESCAPES: dict[int, str] = {
    code: f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    for code in (
        *range(0x20),
        *range(0x7F, 0xA0),
        0x2028,
        0x2029,
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
        *range(0xD800, 0xE000),
        0xFFFE,
        0xFFFF,
    )
} | {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"}


def one_line(text: str) -> str:
    """`text` with line breaks and other control characters escaped."""
    return text.translate(ESCAPES)


class PodwhyError(Exception):
    """An input, usage or runtime problem, reported as one line plus an optional hint."""

    exit_code: int = int(ExitCode.INCONCLUSIVE)

    def __init__(self, message: str, hint: str | None = None) -> None:
        message = one_line(message)
        super().__init__(message)
        self.message = message
        self.hint = one_line(hint) if hint is not None else None


class UsageError(PodwhyError):
    """The command line itself is wrong (exit code 2)."""

    exit_code = int(ExitCode.USAGE)
