"""What keeps a Pending pod Pending, as typed facts: one cause per pod (pods are grouped by it)
and the details behind it. analysis/pending.py finds them; report/words/pending.py says them.

Two causes are equal exactly when they would be said alike, so that grouping pods by their
cause groups them as the report words them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from podwhy.analysis.autoscaling.facts import ComingEvidence
from podwhy.cluster.placementreasons import Gated, SchedulerSays
from podwhy.framework.notevaluated import NotEvaluated
from podwhy.model import objects as o
from podwhy.scheduler.schedulers import SchedulerFinding, SchedulerPod
from podwhy.verdict import Verdict

# ---- what one container waits with, and how far init containers got ----

# The one waiting reason of a pull that fails, whichever of ErrImagePull and ImagePullBackOff a pod shows.
PULL_FAILING = "ErrImagePull"


@dataclass(frozen=True)
class Waiting:
    """A container waiting for a reason that explains itself; `image` for an image problem,
    `message` for a CreateContainerConfigError (the kubelet names the missing object there)."""

    reason: str
    image: str = ""
    message: str = ""


@dataclass(frozen=True)
class InitProgress:
    """kubectl's Init:N/M."""

    done: int
    total: int


@dataclass(frozen=True)
class InitWaiting:
    """The first unfinished init container waits for a reason that explains itself."""

    container: str
    waiting: Waiting
    progress: InitProgress


@dataclass(frozen=True)
class InitNotStarted:
    """No init container has a status yet (`container` empty), or the first unfinished one has
    not started."""

    container: str
    progress: InitProgress


@dataclass(frozen=True)
class InitRunning:
    container: str
    progress: InitProgress


@dataclass(frozen=True)
class InitExited:
    container: str
    exit_code: int
    progress: InitProgress


@dataclass(frozen=True)
class EventReason:
    """An event's reason (FailedMount, FailedCreatePodSandBox, ...), upstream's word."""

    reason: str


ContainerProblem = Waiting | InitWaiting | InitNotStarted | InitRunning | InitExited | EventReason


# ---- causes ----


@dataclass(frozen=True)
class BoundNodeGone:
    node: str


@dataclass(frozen=True)
class BoundNodeNotReady:
    node: str


@dataclass(frozen=True)
class BoundCreating:
    """ContainerCreating, and no event says why yet."""

    node: str


@dataclass(frozen=True)
class BoundNotStarted:
    node: str


@dataclass(frozen=True)
class BoundNotRunning:
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


@dataclass(frozen=True)
class WillPreempt:
    """Unschedulable, and the scheduler's preemption places it: it preempts `victims`
    ("namespace/name") on `node` and binds the pod there once they are gone."""

    node: str
    victims: tuple[str, ...]


@dataclass(frozen=True)
class NominatedNodeGone:
    """`then`: what the scheduler's preemption does on its next attempt, when it places the pod."""

    node: str
    then: WillPreempt | None = None


@dataclass(frozen=True)
class NominatedFits:
    """It fits on its nominated node now: the scheduler binds it on its next attempt. Pods of one
    owner nominated to different nodes are one cause (the node is a detail: NominatedTo)."""

    node: str = field(compare=False)


@dataclass(frozen=True)
class NominatedStale:
    """No victims are left there and it no longer fits; `then`: as for NominatedNodeGone."""

    node: str
    then: WillPreempt | None = None


@dataclass(frozen=True)
class NominatedWaiting:
    """Victims still terminate there; `fits_once_gone`: whether it fits once they are gone (None:
    not known)."""

    node: str
    victims: int
    fits_once_gone: bool | None


@dataclass(frozen=True)
class FitsNow:
    """Schedulable: the scheduler has not bound it yet, or the cluster changed since it tried."""


@dataclass(frozen=True)
class ReservedRoomCause:
    """It fits on `nodes` once the room the nominated `pods` ("namespace/name") reserve is released."""

    nodes: tuple[str, ...]
    pods: tuple[str, ...]


@dataclass(frozen=True)
class WaitingForNode:
    """An autoscaler is adding a node the pod fits on (its age is not part of the cause)."""

    autoscaler: str
    group: str
    evidence: ComingEvidence


@dataclass(frozen=True)
class PartlyEvaluated:
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


@dataclass(frozen=True)
class ContainerDetail:
    """A waiting container (init or not), with its restarts, last exit and the kubelet's message."""

    init: bool
    container: str
    reason: str
    restarts: int
    last_exit_code: int | None
    last_reason: str
    message: str


@dataclass(frozen=True)
class EventDetail:
    reason: str
    message: str


@dataclass(frozen=True)
class NodeReadyDetail:
    node: str
    status: str
    reason: str
    message: str


@dataclass(frozen=True)
class VictimDetail:
    """A lower-priority pod still terminating on the node the pod is nominated to."""

    pod: str
    preempted: bool
    priority: int
    grace_period_s: int
    gone_by: str | None


@dataclass(frozen=True)
class NominatedTo:
    node: str


@dataclass(frozen=True)
class ReservingPodDetail:
    pod: str
    priority: int


@dataclass(frozen=True)
class SchedulerMessageDetail:
    message: str


@dataclass(frozen=True)
class GatedSince:
    since: str


@dataclass(frozen=True)
class SchedulerPodDown:
    """A scheduler pod serving the name that does not run: where to look next."""

    pod: SchedulerPod


@dataclass(frozen=True)
class OnceOneRuns:
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
