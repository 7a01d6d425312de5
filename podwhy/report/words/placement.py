"""`check`'s placements in words: cluster/placementreasons.py's facts said as a replica's message.
The words of another component (kube-scheduler, the API server, the kubelet) are given as they
are."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from podwhy.cluster.placementreasons import (
    BoundByNodeName,
    Gated,
    KubeletRejects,
    KueueHeld,
    MissingNode,
    NoProfileNamed,
    NotCreated,
    OnceDeleted,
    OrderedWait,
    PlacedBut,
    PlacementReason,
    Preempted,
    SchedulerSays,
)


def placement_text(reason: PlacementReason | None) -> str:
    """A replica's message: why it stays Pending or is not created, or what its placement carries
    ("" for none)."""
    match reason:
        case None:
            return ""
        case NoProfileNamed(name):
            return f"no scheduler profile named {name!r}"
        case Gated(gates):
            return f"scheduling gates [{' '.join(gates)}]"
        case SchedulerSays(message):
            return message
        case PlacedBut(not_evaluated):
            return f"placed, but {not_evaluated}"
        case Preempted(node, preemptor, priority):
            return (
                f"preempted on {node} by {preemptor} (priority {priority}): its controller creates it again, and it "
                "waits in the queue"
            )
        case MissingNode(node):
            return (
                f"spec.nodeName names node {node}, which does not exist: no kubelet runs the pod and no "
                "scheduler places it (the pod garbage collector deletes pods bound to a missing node)"
            )
        case KubeletRejects(node, why, message):
            return f"the kubelet of {node} rejects it (spec.nodeName): {why}: {message}"
        case BoundByNodeName():
            return "bound by spec.nodeName; its kubelet admits it"
        case NotCreated(refusal):
            return f"not created: Error creating: {refusal}"
        case KueueHeld(workload, local_queue, why):
            named = f"Workload {workload}, " if workload else ""
            return f"not created: Kueue keeps the Job suspended ({named}LocalQueue {local_queue}): {why}"
        case OrderedWait(pod, waiting_for):
            return (
                f"not created: the StatefulSet creates {pod} once {waiting_for} is Running"
                " and Ready (podManagementPolicy OrderedReady)"
            )


def once_deleted_text(once: OnceDeleted) -> str:
    """A Pending replica that fits once the pods being deleted (still holding their room) are gone."""
    more = f" and {once.count - len(once.pods)} more" if once.count > len(once.pods) else ""
    named = ", ".join(once.pods) + more
    if once.count == 1:
        return f"fits on {once.node} once the pod being deleted ({named}) is gone"
    return f"fits on {once.node} once the {once.count} pods being deleted ({named}) are gone"


# Nodes named where a workload's replicas were placed before "… (N more)" (-o wide and the JSON
# give every replica's node).
MAX_PLACED_NODES_NAMED = 3


def placed_nodes_text(nodes: Sequence[str]) -> str:
    """Where replicas were placed (`nodes`: each one's node), most replicas first, then by name:
    "worker-1 (2), worker-2"; on more nodes than a few, "149 nodes: a (7), b (7), c (7), … (146
    more)"."""
    counts = Counter(nodes)
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    named = [node + (f" ({count})" if count > 1 else "") for node, count in ordered]
    if len(named) <= MAX_PLACED_NODES_NAMED:
        return ", ".join(named)
    more = len(named) - MAX_PLACED_NODES_NAMED
    return f"{len(named):,} nodes: {', '.join(named[:MAX_PLACED_NODES_NAMED])}, … ({more:,} more)"


def preemption_not_evaluated_text(why: str) -> str:
    """A Pending replica whose preemption dry run could not be evaluated (WHY: "the snapshot has no
    PriorityClasses"): the scheduler's message then lacks its preemption part."""
    return f"preemption not evaluated ({why}): it might make room by evicting lower-priority pods"


def pending_note(once: str, preemption: str) -> str:
    """podwhy's own words beside a Pending replica's message (each may be "")."""
    return "; ".join(part for part in (once, preemption) if part)


def with_note(message: str, note: str) -> str:
    """A message, then podwhy's note on it."""
    return f"{message}; {note}" if message and note else message or note
