"""What every autoscaler tells podwhy, behind one small interface: which node groups exist,
whether a node is already coming for the pod, and per group whether and why it can (not) add a
node the pod fits on. One module per autoscaler implements it (clusterautoscaler, karpenter)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from podwhy.framework.runtime import Framework
from podwhy.model import objects as o
from podwhy.scheduler.cycle import CycleOutcome
from podwhy.snapshot.cluster import Snapshot

CLUSTER_AUTOSCALER = "ClusterAutoscaler"
KARPENTER = "Karpenter"


class GroupOutcome(StrEnum):
    """What a node group (a Cluster Autoscaler node group, a Karpenter NodePool) can do for the pod."""

    # A new node of the group takes the pod and nothing keeps the group from adding one.
    CAN_ADD = "CanAdd"
    # The first reason that rules the group out (`reason`).
    RULED_OUT = "RuledOut"
    # podwhy cannot tell (the snapshot lacks what it needs): `reason` says what.
    NOT_EVALUATED = "NotEvaluated"


class Reason(StrEnum):
    """Why a group adds no node for the pod (data; report/ words them)."""

    # Cluster Autoscaler (the order it rules groups out in: health, backoff, size, then the
    # scheduler's filters on the group's template node).
    GROUP_UNHEALTHY = "GroupUnhealthy"
    GROUP_BACKOFF = "GroupBackoff"
    GROUP_AT_MAX_SIZE = "GroupAtMaxSize"
    POD_DOES_NOT_FIT_NEW_NODE = "PodDoesNotFitNewNode"
    NO_TEMPLATE_NODE = "NoTemplateNode"
    # Karpenter
    NODEPOOL_NOT_READY = "NodePoolNotReady"
    NODEPOOL_STATIC = "NodePoolStatic"
    REQUIREMENTS_EXCLUDE_POD = "RequirementsExcludePod"
    TAINT_NOT_TOLERATED = "TaintNotTolerated"
    LIMITS_REACHED = "LimitsReached"
    # Not evaluated
    MISSING_KINDS = "MissingKinds"
    UNREADABLE_STATUS = "UnreadableStatus"


class PodExclusion(StrEnum):
    """Why an autoscaler does not act for the pod at all, whatever its groups."""

    # Cluster Autoscaler: priority below --expendable-pods-priority-cutoff (default -10).
    EXPENDABLE = "Expendable"
    # Cluster Autoscaler: younger than its cluster-autoscaler.kubernetes.io/pod-scale-up-delay.
    SCALE_UP_DELAYED = "ScaleUpDelayed"
    # Waiting for preemption victims (status.nominatedNodeName): neither autoscaler adds a node.
    NOMINATED = "Nominated"
    # Karpenter: DaemonSet pods and static pods are never provisioned for.
    DAEMON_OR_STATIC = "DaemonOrStatic"


@dataclass
class GroupFinding:
    autoscaler: str
    group: str
    outcome: GroupOutcome
    reason: Reason | None = None
    # The reason's particulars (sizes, the provider's error, the requirement, the taint, ...).
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ScaleUpTriggered:
    """Cluster Autoscaler's TriggeredScaleUp event on the pod (its message, upstream's words)."""

    message: str


@dataclass(frozen=True)
class NodeClaimProgress:
    """A Karpenter NodeClaim for the pod: launched and waiting for its node, or still launching
    (with its Launched condition's reason and message, if any)."""

    claim: str
    launched: bool
    reason: str = ""
    message: str = ""


ComingEvidence = ScaleUpTriggered | NodeClaimProgress


@dataclass(frozen=True)
class NotEvaluated:
    """Why part of an autoscaler's view could not be evaluated: its status is not in the snapshot
    (`error` empty), or could not be read (`error`: why)."""

    error: str = ""


@dataclass
class ComingNode:
    """A node being added for the pod."""

    autoscaler: str
    group: str
    # What says so: the event or object, and when it started (timestamp text).
    evidence: ComingEvidence
    since: str = ""
    # Seconds from `since` to the snapshot's newest record, and the timeout the node is held to.
    age_seconds: int | None = None
    timeout_seconds: int | None = None

    @property
    def overdue(self) -> bool:
        return (
            self.age_seconds is not None
            and self.timeout_seconds is not None
            and self.age_seconds > self.timeout_seconds
        )


@dataclass
class AutoscalerEvent:
    """The latest event an autoscaler recorded on the pod, in full."""

    autoscaler: str
    reason: str
    message: str
    time: str = ""
    # NotTriggerScaleUp: how many node groups each reason ruled out ("1 max node group size reached").
    counts: dict[str, int] = field(default_factory=dict)


@dataclass
class AutoscalerView:
    """One autoscaler's reading of the pod."""

    autoscaler: str
    groups: list[GroupFinding] = field(default_factory=list)
    coming: ComingNode | None = None
    excluded: PodExclusion | None = None
    # The particular of the exclusion: the scale-up delay, the priority, the nominated node, the owner's kind.
    excluded_by: str | int = ""
    last_event: AutoscalerEvent | None = None
    # Why part of it could not be evaluated (missing or unreadable inputs).
    not_evaluated: list[NotEvaluated] = field(default_factory=list)
    # A cluster-wide limit the autoscaler itself says it reached (its flags are in no snapshot).
    cluster_limit: str = ""


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


@dataclass
class AutoscalingAnalysis:
    """Every autoscaler's view of one Unschedulable pod."""

    views: list[AutoscalerView] = field(default_factory=list)
    # No autoscaler found, and the snapshot can vouch for that (every autoscaler kind was read).
    none_found: bool = False
    # Autoscaler kinds the snapshot could not vouch for, with why ("" for a dump without them).
    missing_kinds: dict[str, str] = field(default_factory=dict)
    # The snapshot's newest record, ages are measured to.
    as_of: str = ""

    @property
    def coming(self) -> ComingNode | None:
        return next((v.coming for v in self.views if v.coming is not None and not v.coming.overdue), None)

    def can_add(self) -> list[GroupFinding]:
        return [g for v in self.views for g in v.groups if g.outcome is GroupOutcome.CAN_ADD]


def snapshot_has(snapshot: Snapshot, kind: str) -> bool:
    """Whether the snapshot can vouch for KIND (it read it, or knows the cluster has none)."""
    return kind not in snapshot.missing
