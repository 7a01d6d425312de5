"""Progress on stderr for work that takes long: what is really being done, shown once it has
gone on for a second ("reading cluster.json 312/1,020 MB", "listing pods, page 14 · … · 4,100
objects/s"), never before, and gone when it ends. On a terminal it is one line redrawn in place;
with -v, when stderr is no terminal (a CI log), a fetch from the API server says how far it got
in a line every LINE_INTERVAL_S, and how long it took at the end. Never on stdout.

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
from podwhy.snapshot.live.wire import Progress
from podwhy.snapshot.source import ReadProgress

# Work that ends sooner shows nothing.
SHOW_AFTER_S = 1.0
# Redraw at most this often: pages arrive from several threads at once.
MIN_INTERVAL_S = 0.1
MB = 1024 * 1024
# With -v and no terminal: a line at most this often.
LINE_INTERVAL_S = 10.0
# The kinds named beside the count of objects (those with the most objects).
KINDS_NAMED = 3

ProgressCallback = Callable[[Progress | ReadProgress], None]
PlaceCallback = Callable[[PlaceProgress], None]


def _fetched(p: Progress, elapsed: float | None) -> str:
    """How many objects a fetch has, of which kinds the most, and how fast they came."""
    text = f"{p.objects:,} objects"
    if p.by_kind:
        top = sorted(p.by_kind.items(), key=lambda kv: (-kv[1], kv[0]))
        named = ", ".join(f"{kind} {number:,}" for kind, number in top[:KINDS_NAMED] if number)
        if named:
            text += f" ({named}{', …' if sum(1 for _, n in top if n) > KINDS_NAMED else ''})"
    if elapsed is not None and elapsed > 0:
        text += f" · {p.objects / elapsed:,.0f} objects/s"
    return text


def describe(p: Progress | ReadProgress | PlaceProgress, elapsed: float | None = None) -> str:
    """What the work is doing, in words; ELAPSED: seconds since it began, for a fetch's rate."""
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
        f"listing {p.current}, page {p.page} · {p.kinds_done}/{p.kinds_total} kinds · {_fetched(p, elapsed)}"
        if p.kinds_total
        else f"listing {p.current}, page {p.page}"
    )


def fetch_line(p: Progress, elapsed: float) -> str:
    """A fetch's progress as one line of a log (-v, no terminal)."""
    return f"fetching: {p.kinds_done}/{p.kinds_total} kinds · {_fetched(p, elapsed)}"


def fetch_summary(p: Progress, elapsed: float) -> str:
    """What a fetch fetched, at its end (-v, no terminal)."""
    return f"fetched {_fetched(p, None)} in {elapsed:,.1f} s · {p.objects / max(elapsed, 1e-9):,.0f} objects/s"


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
        text = describe(p, time.monotonic() - self.begun)
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


class _Lines:
    """A fetch's progress as lines on stderr (-v, no terminal): one once it has gone on for
    SHOW_AFTER_S, then at most one every LINE_INTERVAL_S, and what it fetched at its end when it
    said anything before."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.begun = time.monotonic()
        self.said = self.begun - LINE_INTERVAL_S
        self.last: Progress | None = None
        self.lines = 0

    def update(self, p: Progress | ReadProgress) -> None:
        if not isinstance(p, Progress):
            return  # reading a file: no lines
        with self.lock:
            now = time.monotonic()
            self.last = p
            if now - self.begun < SHOW_AFTER_S or now - self.said < LINE_INTERVAL_S:
                return
            if p.kinds_total and p.kinds_done >= p.kinds_total:
                return
            self.said = now
            self.lines += 1
            print(fetch_line(p, now - self.begun), file=sys.stderr, flush=True)

    def stop(self) -> None:
        with self.lock:
            if self.lines and self.last is not None:
                print(fetch_summary(self.last, time.monotonic() - self.begun), file=sys.stderr, flush=True)


@contextmanager
def fetch_progress(enabled: bool, verbose: bool = False) -> Iterator[ProgressCallback | None]:
    """A callback that shows the work's progress on stderr once it has taken SHOW_AFTER_S, or None
    when it should stay quiet (disabled, or stderr is not a terminal and not VERBOSE: then a
    fetch's progress is said in lines)."""
    if enabled and verbose and not sys.stderr.isatty():
        lines = _Lines()
        try:
            yield lines.update
        finally:
            lines.stop()
        return
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
