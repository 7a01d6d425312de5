"""Events on a pod by component, and times: ages are measured to the snapshot's newest record
(a dump is read long after it was taken; the clock of the machine podwhy runs on says nothing)."""

from __future__ import annotations

from podwhy.analysis.events import event_time, events_of, parse_time
from podwhy.model import objects as o
from podwhy.snapshot.cluster import Snapshot

__all__ = ["PodEvents", "event_time", "newest_record", "parse_time"]


class PodEvents:
    """One component's events on pods (the snapshot's event index, asked for that component)."""

    def __init__(self, snapshot: Snapshot, component: str) -> None:
        self._index = events_of(snapshot)
        self._component = component

    def __bool__(self) -> bool:
        return self._index.reported_by(self._component, on_pods=True)

    def of(self, pod: o.Pod) -> list[o.Event]:
        """The pod's own events (not an earlier pod's of the same name), oldest first."""
        return self._index.of_pod(pod, component=self._component, oldest_first=True)


def newest_record(snapshot: Snapshot) -> tuple[float | None, str]:
    """The newest time the snapshot records (events, the autoscalers' status and conditions): what
    ages are measured to, and its text."""
    texts = [event_time(e) for e in snapshot.events]
    for cm in snapshot.autoscaler_status.values():
        texts.append(cm.metadata.annotations.get("cluster-autoscaler.kubernetes.io/last-updated", ""))
    for claim in snapshot.node_claims.values():
        texts += [c.last_transition_time or "" for c in claim.status.conditions]
        texts.append(claim.metadata.creation_timestamp or "")
    best: tuple[float | None, str] = (None, "")
    for text in texts:
        when = parse_time(text) if text else None
        if when is not None and (best[0] is None or when > best[0]):
            best = (when, text)
    return best
