"""JSON as Go's encoding/json reads it into the API's types."""

from __future__ import annotations

from typing import Any


def without_nulls(value: Any) -> Any:
    """VALUE with every object member whose value is null left out, recursively: a JSON null leaves
    a Go field unset, as if absent."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value
