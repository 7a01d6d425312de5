"""The ReplicaSet controller (pkg/controller/replicaset): scaling a workload whose template is
unchanged, and which pods go first when it scales down (controller_utils.ActivePodsWithRanks,
the pod-deletion-cost annotation)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from podwhy.cluster.controllers.rollout import PlaceFn, RemoveFn, Rollout, RolloutStatus
from podwhy.model import objects as o

POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
_PHASE_ORDINAL = {"Unknown": 1, "Running": 2}  # any other phase as Pending, 0
# An int32 as the controller accepts it: no sign but "-", no leading zeros.
_DELETION_COST = re.compile(r"-[0-9]+|0|[1-9][0-9]*")
# Sorts after any RFC 3339 time: an unknown time counts as the newest.
_UNKNOWN_TIME = "\uffff"


def _ready_since(pod: o.Pod) -> str | None:
    """When the pod became Ready (_UNKNOWN_TIME if not said), None while it is not Ready."""
    ready = next((c for c in pod.status.conditions if c.type == "Ready" and c.status == "True"), None)
    return None if ready is None else ready.last_transition_time or _UNKNOWN_TIME


def deletion_cost(pod: o.Pod) -> int:
    """The pod-deletion-cost annotation: 0 when absent or not an int32 written as the controller
    accepts it."""
    value = pod.metadata.annotations.get(POD_DELETION_COST)
    if value is None or _DELETION_COST.fullmatch(value) is None:
        return 0
    number = int(value)
    return number if -(2**31) <= number < 2**31 else 0


def _restarts(pod: o.Pod) -> tuple[int, int]:
    """The most restarts of a regular container, then of a sidecar (an init container with
    restartPolicy Always)."""
    sidecars = {c.name for c in pod.spec.init_containers if c.restart_policy == "Always"}
    regular = max((c.restart_count for c in pod.status.container_statuses), default=0)
    sidecar = max((c.restart_count for c in pod.status.init_container_statuses if c.name in sidecars), default=0)
    return regular, sidecar


def deletion_order(pods: Sequence[o.Pod], related: Sequence[o.Pod] | None = None) -> list[o.Pod]:
    """The ReplicaSet controller's preference when it scales down (ActivePodsWithRanks): unscheduled
    before scheduled; Pending, Unknown, then Running; not Ready before Ready; the lower
    pod-deletion-cost first; the pods on nodes running more of the workload's active pods (of
    RELATED, by default PODS) first; Ready the shortest time first; more container restarts first;
    the newest first (an unknown time before any). The controller compares both times in powers of
    two of their age, then by uid, which needs the clock: podwhy compares them exactly, then by name."""
    on_node: dict[str, int] = {}
    for pod in pods if related is None else related:
        if pod.status.phase not in ("Succeeded", "Failed") and pod.metadata.deletion_timestamp is None:
            on_node[pod.spec.node_name] = on_node.get(pod.spec.node_name, 0) + 1
    # Stable sorts, the least significant rule first (reverse=True keeps equal pods in order).
    out = sorted(pods, key=lambda p: p.metadata.name)
    out.sort(key=lambda p: p.metadata.creation_timestamp or _UNKNOWN_TIME, reverse=True)
    out.sort(key=_restarts, reverse=True)
    out.sort(key=lambda p: _ready_since(p) or "", reverse=True)  # (only Ready pods compare)
    out.sort(key=lambda p: on_node.get(p.spec.node_name, 0), reverse=True)
    out.sort(key=deletion_cost)
    out.sort(key=lambda p: (bool(p.spec.node_name), _PHASE_ORDINAL.get(p.status.phase, 0), _ready_since(p) is not None))
    return out


def scale(
    old: list[o.Pod],
    replicas: int,
    fresh: list[o.Pod],
    place: PlaceFn,
    remove: RemoveFn,
    doomed_first: Callable[[Sequence[o.Pod]], list[o.Pod]] = deletion_order,
) -> Rollout:
    """The template unchanged: the controller only scales to REPLICAS pods. Scaling down removes
    pods in its order of preference (DOOMED_FIRST); scaling up places the FRESH pods it adds. Only
    scaled, it stays Unchanged: a pod it adds that stays Pending is said as such (nothing is
    rolled out, so nothing stalls)."""
    out = Rollout(RolloutStatus.UNCHANGED, len(old))
    for pod in doomed_first(old)[: max(len(old) - replicas, 0)]:
        remove(pod)
        out.removed.append(pod.metadata.name)
    added = fresh[: max(replicas - len(old), 0)]
    out.new_replicas = sum(1 for pod in added if place(pod))
    return out
