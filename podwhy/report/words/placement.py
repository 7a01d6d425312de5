"""`check`'s placements in words: cluster/placementreasons.py's facts said as a replica's message
(the report's builder says them; words/check.py has what the renderers add to a replica). The
words of another component (kube-scheduler, the API server, the kubelet) are given as they are."""

from __future__ import annotations

from podwhy.cluster.placementreasons import (
    AdmissionOpen,
    BoundByNodeName,
    Gated,
    KubeletRejects,
    KueueHeld,
    MissingNode,
    NoProfileNamed,
    NotCreated,
    OrderedWait,
    PlacedBut,
    PlacementReason,
    Preempted,
    SchedulerSays,
)
from podwhy.report.words.admission import admission_open_text
from podwhy.report.words.answers import answer_text, no_profile_text
from podwhy.report.words.notevaluated import not_evaluated_text


def placement_text(reason: PlacementReason | None) -> str:
    """A replica's message: why it stays Pending or is not created, or what its placement carries
    ("" for none)."""
    match reason:
        case None:
            return ""
        case NoProfileNamed(name):
            return no_profile_text(name)
        case Gated() | SchedulerSays():
            return answer_text(reason)
        case PlacedBut(not_evaluated):
            return f"placed, but {not_evaluated_text(not_evaluated)}"
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
        case AdmissionOpen():
            return admission_open_text(reason)
        case OrderedWait(pod, waiting_for):
            return (
                f"not created: the StatefulSet creates {pod} once {waiting_for} is Running"
                " and Ready (podManagementPolicy OrderedReady)"
            )
