"""Nothing podwhy prints depends on the machine's clock, time zone or locale.

Offline dumps carry no time of their own, so ages are not said for them; live mode and
`podwhy snapshot` record when the snapshot was taken (podwhy.clock, the one place the wall clock
is read), and ages are measured to that. `moved_clock` sets the clock years ahead and the time
zone to one far from UTC: the output tests (tests/report/test_output.py) run under it, and the tests
here compare outputs under both clocks.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from podwhy import clock
from podwhy.cli import app
from tests.apiserver import FakeApiServer, load_objects
from tests.paths import REPO, TESTS

ROOT = REPO
CAUSES = ROOT / "fixtures" / "pending" / "causes"
SCORED = TESTS / "scenarios" / "scored" / "cluster.yaml"
POD = "batch/critical-etl-7hx2k"
# The latest FailedScheduling event of POD in CAUSES.
EVENT_TIME = datetime(2026, 3, 4, 10, 29, 12, 77120, tzinfo=UTC)
# Far from UTC, with a quarter-hour offset and daylight saving time.
ODD_ZONE = "Pacific/Chatham"


@contextmanager
def clock_at(when: Callable[[], datetime], zone: str) -> Iterator[None]:
    """podwhy.clock.now answering WHEN, and the process in time zone ZONE, for the block."""
    saved_now, saved_tz = clock.now, os.environ.get("TZ")
    clock.now = when  # type: ignore[assignment]
    os.environ["TZ"] = zone
    time.tzset()
    try:
        yield
    finally:
        clock.now = saved_now  # type: ignore[assignment]
        if saved_tz is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = saved_tz
        time.tzset()


def years_ahead() -> datetime:
    return datetime.now(UTC) + timedelta(days=5 * 365 + 17, hours=7)


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200", "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


OFFLINE_COMMANDS = [
    ("explain", POD, "--from", str(CAUSES), "--complete"),
    ("explain", POD, "--from", str(CAUSES), "--complete", "-v"),
    ("explain", POD, "--from", str(CAUSES), "--complete", "-o", "json"),
    ("explain", "ml/feature-backfill-zx8q2", "--from", str(CAUSES), "--complete", "-o", "wide"),
    ("pending", "-A", "--from", str(CAUSES), "--complete"),
    ("pending", "-A", "--from", str(CAUSES), "--complete", "-o", "json"),
    ("pending", "-A", "--from", str(CAUSES), "--complete", "-o", "markdown"),
    ("explain", "web", "--from", str(SCORED), "--complete"),
]


@pytest.mark.parametrize("args", OFFLINE_COMMANDS, ids=[" ".join(a[:2] + a[-2:]) for a in OFFLINE_COMMANDS])
def test_offline_output_is_the_same_on_any_day_in_any_zone(args: tuple[str, ...]) -> None:
    with clock_at(lambda: datetime.now(UTC), "UTC"):
        today = _run(*args)
    with clock_at(years_ahead, ODD_ZONE):
        later = _run(*args)
    assert today == later
    assert " ago" not in today[1]  # a dump says when it was not taken: no age is measured


def test_an_offline_dump_gives_no_age_of_its_events() -> None:
    _, out, _ = _run("explain", POD, "--from", str(CAUSES), "--complete")
    assert "Last FailedScheduling event: 1 time (last 2026-03-04T10:29:12.077120Z)" in out


def test_live_ages_are_measured_to_when_the_snapshot_was_taken(tmp_path: Path) -> None:
    objects = [obj for path in sorted(CAUSES.iterdir()) for obj in load_objects(path)]
    with FakeApiServer(objects) as server, clock_at(lambda: EVENT_TIME + timedelta(minutes=50, seconds=30), ODD_ZONE):
        config = server.kubeconfig(tmp_path / "config")
        _, out, _ = _run("explain", POD, "--kubeconfig", str(config))
        assert "Last FailedScheduling event: 1 time (last 2026-03-04T10:29:12.077120Z, 50m ago)" in out
        dump = tmp_path / "case.json"
        _run("snapshot", "-A", "-o", str(dump), "--kubeconfig", str(config))
    # Read back years later, the recorded snapshot still measures ages to when it was taken.
    with clock_at(years_ahead, "UTC"):
        _, out, _ = _run("explain", POD, "--from", str(dump))
    assert "(last 2026-03-04T10:29:12.077120Z, 50m before the snapshot)" in out
    with clock_at(years_ahead, "UTC"):
        _, doc, _ = _run("explain", POD, "--from", str(dump), "-o", "json")
    assert '"takenAt":"2026-03-04T11:19:42Z"' in doc.replace(" ", "").replace("\n", "")
