"""JSON as Go's encoding/json reads it into the API's types."""

from __future__ import annotations

from typing import Any

# What unicode.IsSpace calls space, which strings.TrimSpace trims (Quantity's JSON decoding
# trims it); Python's str.strip() also trims U+001C..U+001F.
GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"


def without_nulls(value: Any) -> Any:
    """VALUE with every object member whose value is null left out, recursively: a JSON null leaves
    a Go field unset, as if absent."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value
