"""The events of a snapshot, indexed once by the object they are about: every question about "the
events of this pod" (the scheduler's FailedScheduling, the kubelet's mount and sandbox failures,
an autoscaler's word) is asked of this one index, with one rule for which events are a pod's own."""

from __future__ import annotations

import weakref
from collections.abc import Collection

from podwhy.model import objects as o
from podwhy.snapshot import autoscalerconfigmap as castatus
from podwhy.snapshot.cluster import Snapshot


def parse_time(text: str) -> float | None:
    """Seconds since the epoch of an RFC 3339 timestamp or Go's time text (castatus.parse_time);
    None if neither."""
    when = castatus.parse_time(text) if text else None
    return when.timestamp() if when is not None else None


def event_time(event: o.Event) -> str:
    """When the event was last seen: its series', else lastTimestamp, eventTime, creation."""
    series = event.series.last_observed_time if event.series is not None else None
    return series or event.last_timestamp or event.event_time or event.metadata.creation_timestamp or ""


def component_of(event: o.Event) -> str:
    """The component that reported the event (reportingComponent, else source.component)."""
    return event.reporting_component or (event.source.component if event.source is not None else "")


def _oldest_first(events: list[o.Event]) -> list[o.Event]:
    return sorted(events, key=lambda e: parse_time(event_time(e)) or 0.0)


class EventIndex:
    """Every event of one snapshot, by the object it is about (in the snapshot's order)."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.size = len(snapshot.events)
        self._by_pod: dict[tuple[str, str], list[o.Event]] = {}
        self._by_object: dict[tuple[str, str], list[o.Event]] = {}
        self._components: set[str] = set()
        self._pod_components: set[str] = set()
        for e in snapshot.events:
            ref = e.involved_object
            if ref.kind in ("Pod", ""):
                self._by_pod.setdefault((ref.namespace or e.metadata.namespace, ref.name), []).append(e)
                self._pod_components.add(component_of(e))
            else:
                self._by_object.setdefault((ref.kind, ref.name), []).append(e)
            self._components.add(component_of(e))

    def of_pod(
        self,
        pod: o.Pod,
        *,
        reasons: Collection[str] | None = None,
        component: str | None = None,
        oldest_first: bool = False,
    ) -> list[o.Event]:
        """The pod's own events (an earlier pod of the same name, told by its uid, has others), of
        the given reasons and component; in the snapshot's order, or oldest first."""
        meta = pod.metadata
        found = [
            e
            for e in self._by_pod.get((meta.namespace, meta.name), [])
            if (not e.involved_object.uid or not meta.uid or e.involved_object.uid == meta.uid)
            and (reasons is None or e.reason in reasons)
            and (component is None or component_of(e) == component)
        ]
        return _oldest_first(found) if oldest_first else found

    def about(self, kind: str, name: str, *, oldest_first: bool = False) -> list[o.Event]:
        """The events about an object of another kind than Pod, by kind and name."""
        found = list(self._by_object.get((kind, name), []))
        return _oldest_first(found) if oldest_first else found

    def reported_by(self, component: str, on_pods: bool = False) -> bool:
        """Whether an event of the snapshot (about a pod, with ON_PODS) was reported by COMPONENT."""
        return component in (self._pod_components if on_pods else self._components)


_INDEXES: dict[int, tuple[weakref.ReferenceType[Snapshot], EventIndex]] = {}


def events_of(snapshot: Snapshot) -> EventIndex:
    """The snapshot's event index, built on first use (again if its events changed since)."""
    key = id(snapshot)
    hit = _INDEXES.get(key)
    if hit is not None and hit[0]() is snapshot and hit[1].size == len(snapshot.events):
        return hit[1]
    index = EventIndex(snapshot)
    _INDEXES[key] = (weakref.ref(snapshot, lambda _ref, key=key: _INDEXES.pop(key, None)), index)  # type: ignore[misc]
    return index
