"""What keeps a Pending pod Pending, as typed facts: one cause per pod (pods are grouped by it)
and the details behind it. analysis/pending.py finds them; report/words/pending.py says them.

Two causes are equal exactly when they would be said alike, so that grouping pods by their
cause groups them as the report words them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from podwhy.analysis.autoscaling.facts import ComingEvidence
from podwhy.cluster.placementreasons import Gated, SchedulerSays
from podwhy.framework.notevaluated import NotEvaluated
from podwhy.model import objects as o
from podwhy.scheduler.schedulers import SchedulerFinding, SchedulerPod
from podwhy.verdict import Verdict

# ---- what one container waits with, and how far init containers got ----

# The one waiting reason of a pull that fails, whichever of ErrImagePull and ImagePullBackOff a pod shows.
PULL_FAILING = "ErrImagePull"


class Waiting(msgspec.Struct, frozen=True):
    """A container waiting for a reason that explains itself; `image` for an image problem,
    `message` for a CreateContainerConfigError (the kubelet names the missing object there)."""

    reason: str
    image: str = ""
    message: str = ""


class InitProgress(msgspec.Struct, frozen=True):
    """kubectl's Init:N/M."""

    done: int
    total: int


class InitWaiting(msgspec.Struct, frozen=True):
    """The first unfinished init container waits for a reason that explains itself."""

    container: str
    waiting: Waiting
    progress: InitProgress


class InitNotStarted(msgspec.Struct, frozen=True):
    """No init container has a status yet (`container` empty), or the first unfinished one has
    not started."""

    container: str
    progress: InitProgress


class InitRunning(msgspec.Struct, frozen=True):
    container: str
    progress: InitProgress


class InitExited(msgspec.Struct, frozen=True):
    container: str
    exit_code: int
    progress: InitProgress


class EventReason(msgspec.Struct, frozen=True):
    """An event's reason (FailedMount, FailedCreatePodSandBox, ...), upstream's word."""

    reason: str


ContainerProblem = Waiting | InitWaiting | InitNotStarted | InitRunning | InitExited | EventReason


# ---- causes ----


class BoundNodeGone(msgspec.Struct, frozen=True):
    node: str


class BoundNodeNotReady(msgspec.Struct, frozen=True):
    node: str


class BoundCreating(msgspec.Struct, frozen=True):
    """ContainerCreating, and no event says why yet."""

    node: str


class BoundNotStarted(msgspec.Struct, frozen=True):
    node: str


class BoundNotRunning(msgspec.Struct, frozen=True):
    """What keeps the containers from running, each problem once, in the order found."""

    problems: tuple[ContainerProblem, ...]


@dataclass(frozen=True)
class NoProfile:
    """No profile has the pod's schedulerName; `finding`: what serves it (said unless nothing
    runs that serves it, which the NoScheduler cause then says)."""

    scheduler_name: str
    # One finding per schedulerName in a run: the name tells causes apart.
    finding: SchedulerFinding | None = field(default=None, compare=False)


@dataclass(frozen=True)
class NoScheduler:
    """Scheduler pods serve the name and not one of them runs."""

    scheduler_name: str
    finding: SchedulerFinding = field(compare=False)


class WillPreempt(msgspec.Struct, frozen=True):
    """Unschedulable, and the scheduler's preemption places it: it preempts `victims`
    ("namespace/name") on `node` and binds the pod there once they are gone."""

    node: str
    victims: tuple[str, ...]


class NominatedNodeGone(msgspec.Struct, frozen=True):
    """`then`: what the scheduler's preemption does on its next attempt, when it places the pod."""

    node: str
    then: WillPreempt | None = None


@dataclass(frozen=True)
class NominatedFits:
    """It fits on its nominated node now: the scheduler binds it on its next attempt. Pods of one
    owner nominated to different nodes are one cause (the node is a detail: NominatedTo)."""

    node: str = field(compare=False)


class NominatedStale(msgspec.Struct, frozen=True):
    """No victims are left there and it no longer fits; `then`: as for NominatedNodeGone."""

    node: str
    then: WillPreempt | None = None


class NominatedWaiting(msgspec.Struct, frozen=True):
    """Victims still terminate there; `fits_once_gone`: whether it fits once they are gone (None:
    not known)."""

    node: str
    victims: int
    fits_once_gone: bool | None


class FitsNow(msgspec.Struct, frozen=True):
    """Schedulable: the scheduler has not bound it yet, or the cluster changed since it tried."""


class ReservedRoomCause(msgspec.Struct, frozen=True):
    """It fits on `nodes` once the room the nominated `pods` ("namespace/name") reserve is released."""

    nodes: tuple[str, ...]
    pods: tuple[str, ...]


class WaitingForNode(msgspec.Struct, frozen=True):
    """An autoscaler is adding a node the pod fits on (its age is not part of the cause)."""

    autoscaler: str
    group: str
    evidence: ComingEvidence


class PartlyEvaluated(msgspec.Struct, frozen=True):
    """Inconclusive: it fits the plugins evaluated; the cycle's not-evaluated fact says the rest."""

    not_evaluated: NotEvaluated


Cause = (
    BoundNodeGone
    | BoundNodeNotReady
    | BoundCreating
    | BoundNotStarted
    | BoundNotRunning
    | NoProfile
    | NoScheduler
    | Gated
    | NominatedNodeGone
    | NominatedFits
    | NominatedStale
    | NominatedWaiting
    | FitsNow
    | WillPreempt
    | ReservedRoomCause
    | WaitingForNode
    | PartlyEvaluated
    | SchedulerSays
)


# ---- details ----


class ContainerDetail(msgspec.Struct, frozen=True):
    """A waiting container (init or not), with its restarts, last exit and the kubelet's message."""

    init: bool
    container: str
    reason: str
    restarts: int
    last_exit_code: int | None
    last_reason: str
    message: str


class EventDetail(msgspec.Struct, frozen=True):
    reason: str
    message: str


class NodeReadyDetail(msgspec.Struct, frozen=True):
    node: str
    status: str
    reason: str
    message: str


class VictimDetail(msgspec.Struct, frozen=True):
    """A lower-priority pod still terminating on the node the pod is nominated to."""

    pod: str
    preempted: bool
    priority: int
    grace_period_s: int
    gone_by: str | None


class NominatedTo(msgspec.Struct, frozen=True):
    node: str


class ReservingPodDetail(msgspec.Struct, frozen=True):
    pod: str
    priority: int


class SchedulerMessageDetail(msgspec.Struct, frozen=True):
    message: str


class GatedSince(msgspec.Struct, frozen=True):
    since: str


class SchedulerPodDown(msgspec.Struct, frozen=True):
    """A scheduler pod serving the name that does not run: where to look next."""

    pod: SchedulerPod


class OnceOneRuns(msgspec.Struct, frozen=True):
    """What the plugins decide once a scheduler serving the name runs again."""

    verdict: Verdict
    cause: Cause


Detail = (
    ContainerDetail
    | EventDetail
    | NodeReadyDetail
    | VictimDetail
    | NominatedTo
    | ReservingPodDetail
    | SchedulerMessageDetail
    | GatedSince
    | SchedulerPodDown
    | OnceOneRuns
)


def victim_detail(victim: o.Pod, preempted: bool, grace_period_s: int) -> VictimDetail:
    meta = victim.metadata
    return VictimDetail(
        f"{meta.namespace}/{meta.name}", preempted, victim.spec.priority or 0, grace_period_s, meta.deletion_timestamp
    )
