"""What every autoscaler tells podwhy, behind one small interface: which node groups exist,
whether a node is already coming for the pod, and per group whether and why it can (not) add a
node the pod fits on. One module per autoscaler implements it (clusterautoscaler, karpenter); the
facts they find are facts.py's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from podwhy.analysis.autoscaling.facts import AutoscalerEvent, AutoscalerView, ComingNode, PodExclusion
from podwhy.framework.runtime import Framework
from podwhy.model import objects as o
from podwhy.scheduler.cycle import CycleOutcome
from podwhy.snapshot.cluster import Snapshot


def start_view(
    autoscaler: str,
    events: list[o.Event],
    exclusion: tuple[PodExclusion, str | int] | None,
    time_of: Callable[[o.Event], str],
) -> AutoscalerView:
    """An autoscaler's view with what every one has: its latest event on the pod (EVENTS, oldest
    first; TIME_OF gives an event's time text) and why it does not act for the pod, if so."""
    view = AutoscalerView(autoscaler)
    if events:
        last = events[-1]
        view.last_event = AutoscalerEvent(autoscaler, last.reason, last.message, time_of(last))
    if exclusion is not None:
        view.excluded, view.excluded_by = exclusion
    return view


def nominated(pod: o.Pod) -> tuple[PodExclusion, str | int] | None:
    """A pod waiting for preemption victims: neither autoscaler adds a node for it."""
    if pod.status.nominated_node_name:
        return PodExclusion.NOMINATED, pod.status.nominated_node_name
    return None


class Autoscaler(Protocol):
    """One autoscaler found in the snapshot."""

    name: str

    def coming(self, pod: o.Pod, now: float | None) -> ComingNode | None:
        """The node it is adding for the pod, if any (cheap: no filtering)."""
        ...

    def view(self, pod: o.Pod, cycle: CycleOutcome, framework: Framework, now: float | None) -> AutoscalerView:
        """Its groups' findings for the pod, whether a node is coming, and what it last said."""
        ...


def snapshot_has(snapshot: Snapshot, kind: str) -> bool:
    """Whether the snapshot can vouch for KIND (it read it, or knows the cluster has none)."""
    return kind not in snapshot.missing
