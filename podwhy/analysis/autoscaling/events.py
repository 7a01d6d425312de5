"""Events on a pod by component, and times: ages are measured to the snapshot's newest record
(a dump is read long after it was taken; the clock of the machine podwhy runs on says nothing)."""

from __future__ import annotations

from podwhy.model import objects as o
from podwhy.snapshot import castatus
from podwhy.snapshot.cluster import Snapshot


def parse_time(text: str) -> float | None:
    """Seconds since the epoch of an RFC 3339 timestamp or Go's time text (castatus.parse_time);
    None if neither."""
    when = castatus.parse_time(text) if text else None
    return when.timestamp() if when is not None else None


def event_time(event: o.Event) -> str:
    series = event.series.last_observed_time if event.series is not None else None
    return series or event.last_timestamp or event.event_time or event.metadata.creation_timestamp or ""


def component_of(event: o.Event) -> str:
    return event.reporting_component or (event.source.component if event.source is not None else "")


def pod_events(pod: o.Pod, snapshot: Snapshot, component: str | None = None) -> list[o.Event]:
    """The pod's own events (not an earlier pod's of the same name), oldest first; of one
    component when given."""
    meta = pod.metadata
    found = [
        e
        for e in snapshot.events
        if e.involved_object.kind in ("Pod", "")
        and e.involved_object.name == meta.name
        and (e.involved_object.namespace or e.metadata.namespace) == meta.namespace
        and (not e.involved_object.uid or not meta.uid or e.involved_object.uid == meta.uid)
        and (component is None or component_of(e) == component)
    ]
    return sorted(found, key=lambda e: parse_time(event_time(e)) or 0.0)


class PodEvents:
    """One component's events on pods, indexed once by pod (many pods are asked about)."""

    def __init__(self, snapshot: Snapshot, component: str) -> None:
        self._by_pod: dict[tuple[str, str], list[o.Event]] = {}
        for e in snapshot.events:
            if e.involved_object.kind in ("Pod", "") and component_of(e) == component:
                key = (e.involved_object.namespace or e.metadata.namespace, e.involved_object.name)
                self._by_pod.setdefault(key, []).append(e)
        for events in self._by_pod.values():
            events.sort(key=lambda e: parse_time(event_time(e)) or 0.0)

    def __bool__(self) -> bool:
        return bool(self._by_pod)

    def of(self, pod: o.Pod) -> list[o.Event]:
        """The pod's own events (not an earlier pod's of the same name), oldest first."""
        meta = pod.metadata
        return [
            e
            for e in self._by_pod.get((meta.namespace, meta.name), [])
            if not e.involved_object.uid or not meta.uid or e.involved_object.uid == meta.uid
        ]


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
