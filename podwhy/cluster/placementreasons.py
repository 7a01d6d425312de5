"""The typed facts of `check`'s placement the report reads, a leaf (it imports nothing of
podwhy's): why a replica stays Pending, is not created, or what its placement carries, on
controllers/types.py's ReplicaPlacement (report/words/placement.py says them); and how far
placing is (PlaceProgress, which the progress display draws). The causes `pending` shares with
`check` (Gated, SchedulerSays) are these too: analysis/causes.py reuses them. Words that are another component's
own (kube-scheduler's message, the API server's refusal, the kubelet's rejection) are kept
verbatim."""

from __future__ import annotations

import msgspec

from podwhy.cluster import admissionopen as admissionopen
from podwhy.cluster.admissionopen import AdmissionOpen, OpenPolicy, OpenWebhook
from podwhy.framework.notevaluated import NotEvaluated

# Re-exported: the words read them here (admissionopen: the facts of a policy's params not looked up).
__all__ = ["AdmissionOpen", "OpenPolicy", "OpenWebhook", "admissionopen"]


class NoProfileNamed(msgspec.Struct, frozen=True):
    """No profile of the configuration has the pod's schedulerName."""

    scheduler_name: str


class Gated(msgspec.Struct, frozen=True):
    gates: tuple[str, ...]


class SchedulerSays(msgspec.Struct, frozen=True):
    """The cycle's message, as kube-scheduler words it (`pending`: the verdict when it has none)."""

    message: str


class PlacedBut(msgspec.Struct, frozen=True):
    """Placed, though plugins podwhy cannot run were not evaluated, or admission or the cluster's
    pods leave the fit unknown (the cycle's fact)."""

    not_evaluated: NotEvaluated


class Preempted(msgspec.Struct, frozen=True):
    """Placed on `node`, then evicted by a later replica's preemption: its controller creates it
    again, and it waits in the queue."""

    node: str
    preemptor: str
    priority: int


class MissingNode(msgspec.Struct, frozen=True):
    """spec.nodeName names a node that does not exist."""

    node: str


class KubeletRejects(msgspec.Struct, frozen=True):
    """The kubelet of the node spec.nodeName names rejects the pod: its reason and message."""

    node: str
    reason: str
    message: str


class BoundByNodeName(msgspec.Struct, frozen=True):
    """spec.nodeName binds the pod, and its node's kubelet admits it."""


class NotCreated(msgspec.Struct, frozen=True):
    """The API server refused to create the pod: its own words, verbatim."""

    refusal: str


class OrderedWait(msgspec.Struct, frozen=True):
    """A StatefulSet (OrderedReady) creates the pod only once an earlier one is Running and Ready."""

    pod: str
    waiting_for: str


class OnceDeleted(msgspec.Struct, frozen=True):
    """A Pending replica that fits on `node` once the pods being deleted (deletionTimestamp set,
    still holding their room as the scheduler sees them) are gone: those on that node, or every
    one when none is there ("namespace/name"; the first of them, and how many)."""

    node: str
    pods: tuple[str, ...]
    count: int


class KueueHeld(msgspec.Struct, frozen=True):
    """Kueue keeps the Job suspended, so its controller creates no pod: its Workload and
    LocalQueue, and why (Kueue's message, its words where it makes no Workload, or why podwhy
    cannot tell)."""

    workload: str
    local_queue: str
    why: str


PlacementReason = (
    NoProfileNamed
    | Gated
    | SchedulerSays
    | PlacedBut
    | Preempted
    | MissingNode
    | KubeletRejects
    | BoundByNodeName
    | NotCreated
    | OrderedWait
    | KueueHeld
    | AdmissionOpen
)


class PlaceProgress(msgspec.Struct, frozen=True):
    """How far `check` is: replicas placed (or left Pending) of all, and the workload at hand
    ("" once every replica is done)."""

    done: int
    total: int
    workload: str
