"""Progress on stderr (only on a terminal) for work that takes long: what is really being done,
shown once it has gone on for a second ("reading cluster.json 312/1,020 MB", "listing pods,
page 14"), never before, and gone when it ends.

The lower layers report facts through a plain callback (snapshot.live.Progress for the API
server's lists, snapshot.source.ReadProgress for files); only this module words and draws them.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.status import Status

from podwhy.cluster.placementreasons import PlaceProgress
from podwhy.snapshot.live.source import Progress
from podwhy.snapshot.source import ReadProgress

# Work that ends sooner shows nothing.
SHOW_AFTER_S = 1.0
# Redraw at most this often: pages arrive from several threads at once.
MIN_INTERVAL_S = 0.1
MB = 1024 * 1024

ProgressCallback = Callable[[Progress | ReadProgress], None]
PlaceCallback = Callable[[PlaceProgress], None]


def describe(p: Progress | ReadProgress | PlaceProgress) -> str:
    """What the work is doing, in words."""
    if isinstance(p, PlaceProgress):
        if not p.workload:
            return ""
        return f"placing replicas {p.done:,}/{p.total:,} · {p.workload}"
    if isinstance(p, ReadProgress):
        name = Path(p.path).name or p.path
        if p.step == "loaded":
            return ""
        if p.step == "reading":
            return f"reading {name} {p.done // MB:,}/{p.total // MB:,} MB"
        return f"{p.step} {name} ({max(p.total // MB, 1):,} MB)" if p.total >= MB else f"{p.step} {name}"
    if not p.current or (p.kinds_total and p.kinds_done >= p.kinds_total):
        return ""  # nothing listed yet, or every list is in
    return (
        f"listing {p.current}, page {p.page} · {p.kinds_done}/{p.kinds_total} kinds · {p.objects:,} objects"
        if p.kinds_total
        else f"listing {p.current}, page {p.page}"
    )


class _Display:
    """The latest words, drawn once the work has gone on for SHOW_AFTER_S; words that say the
    work is over ("") take the display away for good."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.lock = threading.RLock()
        self.begun = time.monotonic()
        self.text = ""
        self.status: Status | None = None
        self.drawn = 0.0
        self.done = False

    def start(self) -> None:
        with self.lock:
            if self.done or self.status is not None or not self.text:
                return
            self.status = self.console.status(self.text)
            self.status.start()
            self.drawn = time.monotonic()

    def update(self, p: Progress | ReadProgress | PlaceProgress) -> None:
        text = describe(p)
        with self.lock:
            if not text:
                self.stop()
                return
            self.text = text
            now = time.monotonic()
            if self.status is None:
                if now - self.begun >= SHOW_AFTER_S:
                    self.start()
                return
            if now - self.drawn >= MIN_INTERVAL_S:
                self.status.update(text)
                self.drawn = now

    def stop(self) -> None:
        with self.lock:
            self.done = True
            if self.status is not None:
                self.status.stop()
                self.status = None


@contextmanager
def place_progress(enabled: bool) -> Iterator[PlaceCallback | None]:
    """As fetch_progress, for `check` placing replicas one after another."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    display = _Display(Console(stderr=True, highlight=False))
    timer = threading.Timer(SHOW_AFTER_S, display.start)
    timer.daemon = True
    timer.start()
    try:
        yield display.update
    finally:
        timer.cancel()
        display.stop()


@contextmanager
def fetch_progress(enabled: bool) -> Iterator[ProgressCallback | None]:
    """A callback that shows the work's progress on stderr once it has taken SHOW_AFTER_S, or None
    when it should stay quiet (disabled, or stderr is not a terminal)."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    display = _Display(Console(stderr=True, highlight=False))
    shown: Callable[[Progress | ReadProgress], None] = display.update
    timer = threading.Timer(SHOW_AFTER_S, display.start)
    timer.daemon = True
    timer.start()
    try:
        yield shown
    finally:
        timer.cancel()
        display.stop()
