"""The scheduler's own word (PodScheduled condition, FailedScheduling event) beside podwhy's verdict."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from podwhy.analysis.schedulerword import (
    EVENT_MESSAGE_LIMIT,
    SchedulerSaid,
    SchedulingEvent,
    counts_other_nodes,
)
from podwhy.model import objects as o
from podwhy.report.build.explain import build_report
from podwhy.report.render.explain import age
from podwhy.scheduler.cycle import run_cycle
from tests.builders import from_raw, make_node, make_pod, make_snapshot

MESSAGE = (
    "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
    "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
)


def _event(message: str, count: int = 3, last: str = "2026-01-02T00:10:00Z", **extra: object) -> o.Event:
    raw = {
        "metadata": {"name": "p.1", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
        "reason": "FailedScheduling",
        "message": message,
        "count": count,
        "lastTimestamp": last,
        "reportingComponent": "default-scheduler",
        **extra,
    }
    return from_raw(o.Event, raw)


def _word(condition: str | None, *events: o.Event) -> object:
    node = make_node("n1").alloc(cpu="1", memory="1Gi").obj()
    pod = make_pod("p").req(cpu="2")
    if condition is not None:
        pod = pod.status(
            conditions=[{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": condition}]
        )
    snapshot = make_snapshot(node, *events)
    report = build_report(run_cycle(snapshot, pod.obj()), snapshot)
    assert report.message == MESSAGE
    return report.scheduler


def _nothing_said(word: object) -> bool:
    """Only the emulated release: no condition, no event, nothing to agree with."""
    return word is not None and (word.condition, word.event, word.agrees) == (None, None, None)  # type: ignore[attr-defined]


def test_nothing_said_gives_no_entry() -> None:
    word = _word(None)
    assert _nothing_said(word)
    assert (word.version, word.versionSource) == ("1.35", "default")  # type: ignore[union-attr]


def test_condition_equal_to_podwhy_agrees() -> None:
    word = _word(MESSAGE)
    assert word is not None and word.agrees is True and word.causes == []  # type: ignore[attr-defined]


def test_older_condition_disagrees_and_lists_causes() -> None:
    word = _word("0/1 nodes are available: 1 node(s) had untolerated taint(s).")
    assert word.agrees is False and len(word.causes) == 4  # type: ignore[attr-defined]


def test_event_only_cut_at_its_limit_still_agrees() -> None:
    long_message = MESSAGE + " " + "x" * EVENT_MESSAGE_LIMIT
    cut = long_message[: EVENT_MESSAGE_LIMIT - 3] + "..."
    node = make_node("n1").alloc(cpu="1", memory="1Gi").obj()
    snapshot = make_snapshot(node, _event(cut))
    report = build_report(run_cycle(snapshot, make_pod("p").req(cpu="2").obj()), snapshot)
    assert report.scheduler is not None and report.scheduler.agrees is False  # podwhy's message is not that long
    word = _word(None, _event(MESSAGE, count=7))
    assert word.agrees is True and word.event.count == 7  # type: ignore[attr-defined]


def test_latest_event_wins_and_series_counts() -> None:
    old = _event("0/1 nodes are available: 1 old reason.", last="2026-01-01T00:00:00Z")
    new = _event(MESSAGE, count=0, last="", series={"count": 12, "lastObservedTime": "2026-01-03T00:00:00Z"})
    word = _word(None, old, new)
    assert word.event.count == 12 and word.event.lastSeen == "2026-01-03T00:00:00Z"  # type: ignore[attr-defined]
    assert word.agrees is True  # type: ignore[attr-defined]


def test_events_of_other_pods_are_ignored() -> None:
    other = _event(MESSAGE)
    other.involved_object.name = "q"
    assert _nothing_said(_word(None, other))


@pytest.mark.parametrize(
    ("timestamp", "want"),
    [("2026-01-02T00:10:00Z", "50m ago"), ("2026-01-01T00:00:00Z", "1d ago"), ("", ""), ("garbage", "")],
)
def test_age(timestamp: str, want: str) -> None:
    assert age(timestamp, datetime(2026, 1, 2, 1, 0, tzinfo=UTC)) == want


def _said(condition: str = "", event: str = "") -> SchedulerSaid:
    cond = o.PodCondition(type="PodScheduled", status="False", message=condition) if condition else None
    said = SchedulingEvent(event, 1, "", "default-scheduler") if event else None
    return SchedulerSaid(cond, said, False)


@pytest.mark.parametrize(
    ("condition", "event", "other"),
    [
        ("0/5001 nodes are available: 5001 Insufficient cpu.", "", True),
        ("", "0/4999 nodes are available: 4999 Insufficient cpu.", True),
        ("0/50000 nodes are available: 1 x.", "", True),  # 5000 as a prefix of another count
        ("0/5000 nodes are available: 5000 Insufficient cpu.", "", False),
        # One message counting this snapshot's nodes is enough for a release to agree with.
        ("0/5001 nodes are available: 1 x.", "0/5000 nodes are available: 1 x.", False),
        ('running PreFilter plugin "X": boom', "", False),  # not a count of nodes
        ("", "", False),  # nothing said
    ],
)
def test_counts_other_nodes(condition: str, event: str, other: bool) -> None:
    assert counts_other_nodes(_said(condition, event), 5000) is other
