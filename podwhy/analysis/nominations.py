"""A nominated pod's wait (the victims still terminating on its node) and the room nominations
reserve: what the preemption dry run and the nominated pods tell of an unscheduled pod."""

from __future__ import annotations

import msgspec

from podwhy.analysis.causes import (
    Cause,
    Detail,
    NominatedFits,
    NominatedStale,
    NominatedTo,
    NominatedWaiting,
    ReservedRoomCause,
    ReservingPodDetail,
    VictimDetail,
    WillPreempt,
    victim_detail,
)
from podwhy.framework.runtime import Framework
from podwhy.framework.types import pod_key
from podwhy.model import objects as o
from podwhy.plugins.defaultpreemption import terminating_by_preemption
from podwhy.scheduler.cycle import CycleOutcome
from podwhy.verdict import Verdict

# The API server's default terminationGracePeriodSeconds.
DEFAULT_GRACE_PERIOD_S = 30


def lower_priority_victims(pod: o.Pod, terminating: list[o.Pod]) -> list[o.Pod]:
    """Of the pods terminating on its nominated node, those of lower priority: the room it waits for."""
    priority = pod.spec.priority or 0
    return [p for p in terminating if (p.spec.priority or 0) < priority]


def _victim_detail(victim: o.Pod) -> VictimDetail:
    return victim_detail(victim, terminating_by_preemption(victim), _grace_period(victim))


def fits_without(framework: Framework, cycle: CycleOutcome, node_name: str, victims: list[o.Pod]) -> bool:
    """Whether the pod passes every filter on its nominated node once the victims are gone
    (as the preemption dry run checks a node: the victims removed from a copy of it)."""
    outcome = cycle.outcome
    node_info = framework.handle.node_info_by_name.get(node_name)
    if outcome is None or node_info is None or outcome.pre_filter_failure is not None:
        return False
    node_copy = node_info.snapshot()
    state = outcome.state.clone()
    gone = {pod_key(v) for v in victims}
    for pi in [p for p in node_copy.pods if p.key in gone]:
        node_copy.remove_pod(pi)
        if not framework.run_pre_filter_extension_remove_pod(state, cycle.pod, pi, node_copy).is_success():
            return False
    return framework.run_filter_plugins_with_nominated_pods(state, cycle.pod, node_copy).is_success()


def nominated_cause(
    pod: o.Pod, victims: list[o.Pod], fits: bool, fits_once_gone: bool | None
) -> tuple[Cause, list[Detail]]:
    """Nominated and waiting: the victims still terminating there, or a stale nomination."""
    node_name = pod.status.nominated_node_name
    details: list[Detail] = [_victim_detail(v) for v in victims]
    if fits:
        return NominatedFits(node_name), [NominatedTo(node_name), *details]
    if not victims:
        return NominatedStale(node_name), details
    return NominatedWaiting(node_name, len(victims), fits_once_gone), details


def _grace_period(pod: o.Pod) -> int:
    seconds = pod.metadata.deletion_grace_period_seconds
    if seconds is None:
        seconds = pod.spec.termination_grace_period_seconds
    return DEFAULT_GRACE_PERIOD_S if seconds is None else seconds


class ReservedRoom(msgspec.Struct):
    """Nodes that reject the pod only for the room pods nominated there reserve (pods of its
    priority or higher): it fits on them once those nominations are released."""

    nodes: list[str]
    # The nominated pods holding that room, "namespace/name" -> priority.
    pods: dict[str, int]


def reserved_room(cycle: CycleOutcome) -> ReservedRoom | None:
    """From a cycle that ran every plugin (explain's): the nodes only nominated pods' room keeps
    the pod off, as each node's filters found them without those pods (the same facts the
    releaseNomination suggestion starts from). None when there are none, or the cycle did not
    run every plugin (pending's short-circuit)."""
    outcome = cycle.outcome
    if outcome is None or cycle.verdict != Verdict.UNSCHEDULABLE:
        return None
    held = [v for v in outcome.nodes if not v.feasible and v.feasible_without_nominated]
    if not held:
        return None
    pods = {pi.key: pi.priority for v in held for pi in v.nominated_pods}
    return ReservedRoom([v.name for v in held], pods)


def reserved_cause(room: ReservedRoom) -> tuple[Cause, list[Detail]]:
    cause = ReservedRoomCause(tuple(room.nodes), tuple(room.pods))
    details: list[Detail] = [ReservingPodDetail(key, priority) for key, priority in room.pods.items()]
    return cause, details


def will_preempt(cycle: CycleOutcome) -> WillPreempt | None:
    """The node preemption nominates for an Unschedulable pod and its victims, from the cycle's
    PostFilter (the fate explain's first line says); None when preemption does not place it."""
    post_filter = cycle.post_filter
    preemption = post_filter.preemption if post_filter is not None else None
    if cycle.verdict != Verdict.UNSCHEDULABLE or preemption is None or not preemption.nominated_node:
        return None
    if not preemption.victims:
        return None
    return WillPreempt(preemption.nominated_node, tuple(v.key for v in preemption.victims))
