"""The model's own error type: a value the Kubernetes API would refuse to parse.

Model errors carry no exit code and know nothing of files: loaders add which object was
wrong, and the command line maps what reaches it to its exit codes.
"""

from __future__ import annotations


class ModelError(ValueError):
    """A value (quantity, selector, name) that apimachinery would refuse, with an optional hint."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
