"""What kube-scheduler itself last said of a pod (its PodScheduled condition, its latest
FailedScheduling event) and whether that agrees with the message podwhy emulates; which scheduler
pods of the snapshot serve a schedulerName. Facts only: report/ words them."""

from __future__ import annotations

import re

import msgspec

from podwhy.analysis.events import component_of, event_time, events_of
from podwhy.model import objects as o
from podwhy.scheduler.schedulers import SchedulerFinding, SchedulerPods
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict

# Upstream cuts event messages to this many bytes (the FailedScheduling note); conditions keep the full text.
EVENT_MESSAGE_LIMIT = 1024
# Verdicts whose message is the scheduler's own, so that its word can agree with it or not.
COMPARED_VERDICTS = (Verdict.UNSCHEDULABLE, Verdict.SCHEDULABLE, Verdict.INCONCLUSIVE)


class SchedulingEvent(msgspec.Struct, frozen=True):
    """The pod's latest FailedScheduling event."""

    message: str
    count: int
    # When it was last seen ("" when the event says nothing).
    last_seen: str
    component: str


class SchedulerSaid(msgspec.Struct, frozen=True):
    """The scheduler's own word on the pod and whether it agrees with podwhy's message (None:
    nothing to compare)."""

    condition: o.PodCondition | None
    event: SchedulingEvent | None
    agrees: bool | None


def scheduling_event(pod: o.Pod, snapshot: Snapshot) -> SchedulingEvent | None:
    events = events_of(snapshot).of_pod(pod, reasons=("FailedScheduling",))
    if not events:
        return None
    latest = max(events, key=event_time)
    count = latest.series.count if latest.series is not None and latest.series.count else latest.count
    return SchedulingEvent(latest.message, count or 1, event_time(latest), component_of(latest))


# A sentence's full stop doubled: releases before v1.28 ended the PostFilter part with one of its
# own ("No preemption victims found for incoming pod.."), and a message may end with either.
_DOUBLED_STOP = re.compile(r"(?<!\.)\.\.(?=\s|$)")


def _normalised(message: str) -> str:
    """MESSAGE as compared: its doubled full stops single, without trailing stops or blanks."""
    return _DOUBLED_STOP.sub(".", message).rstrip(". \t\n")


def says_the_same(theirs: str, ours: str, ours_complete: bool, cut: bool) -> bool:
    """Whether the scheduler's message THEIRS says what podwhy's OURS says, up to the punctuation
    releases differ in (a doubled full stop, a final one)."""
    if cut and len(theirs.encode()) >= EVENT_MESSAGE_LIMIT - 3:
        # A cut message ends with "..." or mid-word: compare what is left of it.
        return ours.startswith(theirs.removesuffix("...").rstrip())
    theirs, ours = _normalised(theirs), _normalised(ours)
    if not ours_complete:
        # podwhy could not word the PostFilter part: the filter summary must still agree.
        return theirs.startswith(ours)
    return theirs == ours


# How kube-scheduler's FitError message begins: "0/N nodes are available" (fiterror.go), N all the
# nodes of its snapshot, whatever the release.
_NODES_COUNTED = re.compile(r"0/[0-9]+ nodes are available")


def counts_other_nodes(said: SchedulerSaid, nodes: int) -> bool:
    """Whether every message kube-scheduler left counts a number of nodes other than NODES
    ("0/5001 nodes are available: ..." of a cluster that has 5,000 nodes now): no release's
    scheduler words such a message over this snapshot, as every message that counts nodes counts
    all of its nodes. A large cluster's nodes come and go, and a node gone does not retry an
    unschedulable pod, so this is the usual way its recorded message is stale."""
    texts = [said.condition.message if said.condition is not None else "", said.event.message if said.event else ""]
    texts = [text for text in texts if text]
    ours = f"0/{nodes} nodes are available"
    return bool(texts) and all(
        _NODES_COUNTED.match(text) is not None and not text.startswith(ours + ":") for text in texts
    )


def scheduler_said(pod: o.Pod, snapshot: Snapshot, verdict: Verdict, message: str, complete: bool) -> SchedulerSaid:
    """What kube-scheduler last said of the pod, and whether it agrees with podwhy's `verdict` and
    `message` (`complete`: whether podwhy could word every part of it)."""
    condition = next((c for c in pod.status.conditions if c.type == "PodScheduled" and c.status == "False"), None)
    event = scheduling_event(pod, snapshot)
    # The condition holds the latest full text, the event the aggregated one (cut at 1 KiB); either
    # agreeing is agreement, since a placeholder or a stale copy may sit in the other.
    agrees: bool | None = None
    if verdict in COMPARED_VERDICTS:
        said = [(condition.message, False)] if condition is not None and condition.message else []
        said += [(event.message, True)] if event is not None and event.message else []
        if said:
            agrees = any(says_the_same(text, message, complete, cut) for text, cut in said)
    return SchedulerSaid(condition, event, agrees)


def serving(snapshot: Snapshot, scheduler_name: str) -> SchedulerFinding:
    """What the snapshot's scheduler pods say about one schedulerName."""
    return SchedulerPods.of(snapshot.pods).for_name(scheduler_name)
