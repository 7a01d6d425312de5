"""Progress of a live fetch on stderr: kinds, objects, pages (only on a terminal)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol

from rich.console import Console


class FetchProgress(Protocol):
    kinds_done: int
    kinds_total: int
    objects: int
    pages: int
    current: str


# Redraw at most this often: pages arrive from several threads at once.
MIN_INTERVAL_S = 0.1


@contextmanager
def fetch_progress(enabled: bool) -> Iterator[Callable[[FetchProgress], None] | None]:
    """A callback that shows the fetch's progress on stderr, or None when it should stay quiet
    (disabled, or stderr is not a terminal)."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    console = Console(stderr=True, highlight=False)
    last = 0.0
    with console.status("connecting…") as status:

        def show(p: FetchProgress) -> None:
            nonlocal last
            now = time.monotonic()
            if now - last < MIN_INTERVAL_S and p.kinds_done < p.kinds_total:
                return
            last = now
            status.update(
                f"fetching {p.current} · {p.kinds_done}/{p.kinds_total} kinds · {p.objects:,} objects · {p.pages} pages"
            )

        yield show
