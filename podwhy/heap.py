"""Garbage-collector control for building large, long-lived, acyclic object graphs."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector; afterwards freeze what was built.

    Snapshots are millions of long-lived, acyclic objects: scanning them in every full
    collection costs seconds and frees nothing, so they are moved to the permanent
    generation (gc.freeze) once built.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
