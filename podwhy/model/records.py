"""Value types' one `replace`: a copy of a record (a msgspec Struct, or a dataclass) with some
fields changed, as dataclasses.replace does. podwhy's records are msgspec Structs (their classes
cost a fiftieth of a dataclass's to create, which the first answer pays for every module it
imports); a few stay dataclasses (fields outside __init__ or comparison)."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

import msgspec

T = TypeVar("T")


def replace(obj: T, /, **changes: Any) -> T:
    """OBJ with CHANGES, a new record of its type."""
    if isinstance(obj, msgspec.Struct):
        return msgspec.structs.replace(obj, **changes)
    return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
