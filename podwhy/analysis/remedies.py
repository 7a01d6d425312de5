"""The next step for each cause of `podwhy pending`'s summary, as typed facts: derived from the
cause (analysis/causes.py), the pods' details and the sizing the analysis already computed.
report/words/pending.py says them (remedy_text), and the commands to copy with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import msgspec

from podwhy.analysis.causes import (
    BoundCreating,
    BoundNodeGone,
    BoundNodeNotReady,
    BoundNotRunning,
    BoundNotStarted,
    Cause,
    ContainerDetail,
    ContainerProblem,
    Detail,
    EventReason,
    FitsNow,
    InitExited,
    InitNotStarted,
    InitRunning,
    InitWaiting,
    NominatedFits,
    NominatedNodeGone,
    NominatedStale,
    NominatedWaiting,
    NoProfile,
    NoScheduler,
    PartlyEvaluated,
    ReservedRoomCause,
    Waiting,
    WaitingForNode,
    WillPreempt,
)
from podwhy.analysis.sizing import SizingOutcome
from podwhy.analysis.suggest.notes import GroupSizing, Sized, TooManyNodes
from podwhy.cluster.placementreasons import Gated, SchedulerSays
from podwhy.scheduler.schedulers import SchedulerPod

# Container waiting reasons whose next step is the container's previous log.
CRASHING_REASONS = frozenset({"CrashLoopBackOff", "RunContainerError", "Error"})


class AddNodes(msgspec.Struct, frozen=True):
    """`count` more nodes shaped like `like` hold every pod of the cause (`more_than`: at least)."""

    count: int
    like: str
    more_than: bool = False


class NoNodeShape(msgspec.Struct, frozen=True):
    """No node of the cluster, even emptied, holds one of its pods."""


class ExplainPod(msgspec.Struct, frozen=True):
    """Nothing sized it: explain's suggestions for its first pod."""

    pod: str


class AwaitPreemption(msgspec.Struct, frozen=True):
    """The scheduler preempts `victims` on `node` and binds the pod there."""

    node: str
    victims: tuple[str, ...]


class FixImage(msgspec.Struct, frozen=True):
    image: str
    owner: str | None


class FixConfig(msgspec.Struct, frozen=True):
    """CreateContainerConfigError: the kubelet's message names what is missing."""

    message: str


class DeletePods(msgspec.Struct, frozen=True):
    """Bound to a node that no longer exists: nothing moves them; deleted, their controller
    recreates them."""

    pods: tuple[str, ...]
    node: str


class RepairNode(msgspec.Struct, frozen=True):
    node: str


class ReadLog(msgspec.Struct, frozen=True):
    """A container that crashes, exits or keeps running (init): its log says why. `previous`: the
    last run's log (it restarted)."""

    pod: str
    container: str
    init: bool
    previous: bool
    running: bool


class DescribePod(msgspec.Struct, frozen=True):
    """Events (volumes, the sandbox) or nothing yet: `kubectl describe pod` shows what follows."""

    pod: str
    reasons: tuple[str, ...]


class PassSchedulerConfig(msgspec.Struct, frozen=True):
    scheduler_name: str


class UnknownSchedulerName(msgspec.Struct, frozen=True):
    scheduler_name: str


class StartScheduler(msgspec.Struct, frozen=True):
    scheduler_name: str
    pods: tuple[SchedulerPod, ...]


class RemoveGates(msgspec.Struct, frozen=True):
    gates: tuple[str, ...]


class ReleaseNomination(msgspec.Struct, frozen=True):
    """A stale nomination (its node gone, or it no longer fits there). `then`: the scheduler's
    preemption places the pod on its next attempt (nothing to release by hand)."""

    pods: tuple[str, ...]
    node: str
    node_gone: bool
    then: WillPreempt | None = None


class NoAction(msgspec.Struct, frozen=True):
    """It starts without anyone acting: `why` is the cause that says so."""

    why: NominatedFits | NominatedWaiting | FitsNow | WaitingForNode | ReservedRoomCause


Remedy = (
    AddNodes
    | NoNodeShape
    | ExplainPod
    | AwaitPreemption
    | FixImage
    | FixConfig
    | DeletePods
    | RepairNode
    | ReadLog
    | DescribePod
    | PassSchedulerConfig
    | UnknownSchedulerName
    | StartScheduler
    | RemoveGates
    | ReleaseNomination
    | NoAction
)


class PendingItem(Protocol):
    """What a remedy reads of a pending pod (analysis/pending.py's PendingPod)."""

    @property
    def key(self) -> str: ...

    @property
    def cause(self) -> Cause: ...

    @property
    def owner(self) -> object | None: ...

    @property
    def details(self) -> Sequence[Detail]: ...


def _container(items: Sequence[PendingItem], reason: str, init: bool) -> ContainerDetail | None:
    return next(
        (
            d
            for item in items
            for d in item.details
            if isinstance(d, ContainerDetail) and d.init == init and d.reason == reason
        ),
        None,
    )


def _problem(problem: ContainerProblem, items: Sequence[PendingItem]) -> Remedy:
    first = items[0]
    owner = str(first.owner) if first.owner is not None else None
    match problem:
        case Waiting(reason, image, message) | InitWaiting(_, Waiting(reason, image, message), _):
            init = isinstance(problem, InitWaiting)
            if image:
                return FixImage(image, owner)
            if reason == "CreateContainerConfigError" and message:
                return FixConfig(message)
            detail = _container(items, reason, init)
            container = problem.container if isinstance(problem, InitWaiting) else detail.container if detail else ""
            if container and (reason in CRASHING_REASONS or (detail is not None and detail.last_exit_code is not None)):
                return ReadLog(first.key, container, init, previous=True, running=False)
            return DescribePod(first.key, (reason,))
        case InitRunning(container, _):
            return ReadLog(first.key, container, True, previous=False, running=True)
        case InitExited(container, _, _):
            return ReadLog(first.key, container, True, previous=False, running=False)
        case InitNotStarted():
            return DescribePod(first.key, ())
        case EventReason(reason):
            return DescribePod(first.key, (reason,))


def remedy(items: Sequence[PendingItem], sizing: GroupSizing | None) -> Remedy:
    """The next step for the pods of one cause (`items`, first the report's first); `sizing`: the
    nodes that hold them all, when sized."""
    first = items[0]
    cause = first.cause
    match cause:
        case WillPreempt(node, victims):
            return AwaitPreemption(node, victims)
        case BoundNodeGone(node):
            return DeletePods(tuple(item.key for item in items), node)
        case BoundNodeNotReady(node):
            return RepairNode(node)
        case BoundCreating() | BoundNotStarted():
            return DescribePod(first.key, ())
        case BoundNotRunning(problems):
            reasons = tuple(p.reason for p in problems if isinstance(p, EventReason))
            if reasons and len(reasons) == len(problems):
                return DescribePod(first.key, reasons)
            return _problem(problems[0], items)
        case NoProfile(name, finding):
            if finding is not None and finding.running:
                return PassSchedulerConfig(name)
            return UnknownSchedulerName(name)
        case NoScheduler(name, finding):
            return StartScheduler(name, tuple(finding.serving))
        case Gated(gates):
            return RemoveGates(gates)
        case NominatedNodeGone(node, then):
            return ReleaseNomination(tuple(item.key for item in items), node, node_gone=True, then=then)
        case NominatedStale(node, then):
            return ReleaseNomination(tuple(item.key for item in items), node, node_gone=False, then=then)
        case NominatedWaiting(node, _, fits_once_gone):
            if fits_once_gone is False:
                return ReleaseNomination(tuple(item.key for item in items), node, node_gone=False)
            return NoAction(cause)
        case NominatedFits() | FitsNow() | WaitingForNode() | ReservedRoomCause():
            return NoAction(cause)
        case PartlyEvaluated():
            return ExplainPod(first.key)
        case SchedulerSays():
            return _sized_remedy(sizing, first.key)


def _sized_remedy(sizing: GroupSizing | None, key: str) -> Remedy:
    """The next step for pods no node fits, by how sizing went: the nodes to add (or more than the
    bound), that no node shape holds them, else a look at the first pod (`key`)."""
    if sizing is not None:
        note = sizing.note
        if sizing.outcome == SizingOutcome.SIZED and isinstance(note, Sized):
            return AddNodes(note.count, note.like)
        if isinstance(note, TooManyNodes):
            return AddNodes(note.limit, note.like, more_than=True)
        if sizing.outcome == SizingOutcome.NO_NODE_SHAPE:
            return NoNodeShape()
    return ExplainPod(key)
