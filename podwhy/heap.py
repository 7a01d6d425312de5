"""Building long-lived object graphs without the cyclic garbage collector."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector; afterwards freeze what was built.

    Snapshots and their indexes are millions of long-lived, acyclic objects: scanning them in
    every full collection costs seconds and frees nothing, so they are moved to the permanent
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


@contextmanager
def gc_deferred() -> Iterator[None]:
    """Pause the cyclic garbage collector for a burst of short-lived objects (one scheduling
    cycle builds thousands of per-node verdicts): reference counting frees them, and young-
    generation collections that would scan them mid-burst find nothing to free. Whatever
    survives is collected as usual once the collector is back on."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
