"""The one error type podwhy raises for anything a user can fix."""

from __future__ import annotations

from podwhy.verdict import ExitCode

# Characters that break or rewrite a terminal line (C0 controls, DEL, and what str.splitlines
# also splits at), written as escapes: names from a dump can hold them.
_ESCAPES = {
    code: f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" for code in (*range(0x20), 0x7F, 0x85, 0x2028, 0x2029)
} | {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"}


def one_line(text: str) -> str:
    """`text` with line breaks and other control characters escaped."""
    return text.translate(_ESCAPES)


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
