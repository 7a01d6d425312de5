"""The one error type podwhy raises for anything a user can fix."""

from __future__ import annotations


class PodwhyError(Exception):
    """An input, usage or runtime problem, reported as one line plus an optional hint."""

    exit_code = 3

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class UsageError(PodwhyError):
    """The command line itself is wrong (exit code 2)."""

    exit_code = 2
