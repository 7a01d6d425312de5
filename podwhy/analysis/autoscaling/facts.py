"""What the autoscalers' analysis finds, as typed facts and the upstream names they carry: per
node group what it can do for the pod (one struct per finding, tagged by `kind`, as the plugins'
evidence), whether a node is coming, what the autoscaler last said. report/words/autoscaling.py
says them; the machinery that finds them (base.py, clusterautoscaler.py, karpenter.py) is not
imported here."""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar

import msgspec
from msgspec import UNSET, UnsetType

CLUSTER_AUTOSCALER = "ClusterAutoscaler"
KARPENTER = "Karpenter"

# Cluster Autoscaler's defaults (flags): pods below the priority cutoff never trigger a scale-up.
EXPENDABLE_PRIORITY_CUTOFF = -10
# Its events on pods (processors/status/eventing_scale_up_processor.go).
TRIGGERED_SCALE_UP = "TriggeredScaleUp"
NOT_TRIGGER_SCALE_UP = "NotTriggerScaleUp"
# A pod younger than this annotation's Go duration is left alone (static_autoscaler.go).
SCALE_UP_DELAY_ANNOTATION = "cluster-autoscaler.kubernetes.io/pod-scale-up-delay"
# Cluster API's annotation of a MachineDeployment, MachineSet or MachinePool: its node group's max size.
CAPI_MAX_SIZE_ANNOTATION = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size"
# Karpenter's event on a pod it has launched a NodeClaim for.
NOMINATED = "Nominated"


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


# ---- what a node group can do for the pod ----

# One of a finding's particulars, as the report's `data` carries it.
Particular = str | int | bool | list[str] | None


class GroupFinding(msgspec.Struct, frozen=True, kw_only=True, rename="camel", tag_field="kind"):
    """What one node group can do for the pod: each subclass is one finding, tagged by "kind", its
    outcome and reason class constants, and its particulars fields, declared in the order the
    report's `data` gives them (camelCase; a field left UNSET is absent)."""

    OUTCOME: ClassVar[GroupOutcome]
    REASON: ClassVar[Reason | None] = None

    autoscaler: str
    group: str

    @property
    def outcome(self) -> GroupOutcome:
        return self.OUTCOME

    @property
    def reason(self) -> Reason | None:
        return self.REASON

    @property
    def data(self) -> dict[str, Particular]:
        """The particulars, as the report carries them: every field but the group's and its
        autoscaler's (and the tag), in order."""
        fields: dict[str, Particular] = msgspec.to_builtins(self)
        return {
            key: list(value) if isinstance(value, tuple) else value
            for key, value in fields.items()
            if key not in ("kind", "autoscaler", "group")
        }


class GroupUnhealthy(GroupFinding, tag="groupUnhealthy", kw_only=True, frozen=True):
    """Cluster Autoscaler does not scale an unhealthy group up (its sizes, from its status)."""

    OUTCOME = GroupOutcome.RULED_OUT
    REASON = Reason.GROUP_UNHEALTHY

    target: int | None
    ready: int | None
    min_size: int | None
    max_size: int | None


class GroupBackoff(GroupFinding, tag="groupBackoff", kw_only=True, frozen=True):
    """In backoff after a failed scale-up: the provider's error, since when, and the time of the
    failure event that named it when the status does not."""

    OUTCOME = GroupOutcome.RULED_OUT
    REASON = Reason.GROUP_BACKOFF

    error_code: str
    error_message: str
    since: str
    last_failure_event: str | None
    target: int | None
    ready: int | None
    min_size: int | None
    max_size: int | None


class GroupAtMaxSize(GroupFinding, tag="groupAtMaxSize", kw_only=True, frozen=True):
    """At its max size; whether the pod would fit a new node of it (None: no node of it to copy),
    and, with a node to copy, which, and the plugin that rejects the copy and its reasons."""

    OUTCOME = GroupOutcome.RULED_OUT
    REASON = Reason.GROUP_AT_MAX_SIZE

    fits_new_node: bool | None
    target: int | None
    ready: int | None
    min_size: int | None
    max_size: int | None
    example: str | UnsetType = UNSET
    plugin: str | UnsetType = UNSET
    reasons: tuple[str, ...] | UnsetType = UNSET


class PodDoesNotFitNewNode(GroupFinding, tag="podDoesNotFitNewNode", kw_only=True, frozen=True):
    """The pod does not fit a copy of `example`, the group's template node: the plugin and its reasons."""

    OUTCOME = GroupOutcome.RULED_OUT
    REASON = Reason.POD_DOES_NOT_FIT_NEW_NODE

    example: str
    plugin: str
    reasons: tuple[str, ...]
    target: int | None
    ready: int | None
    min_size: int | None
    max_size: int | None


class NoTemplateNode(GroupFinding, tag="noTemplateNode", kw_only=True, frozen=True):
    """No node of the group is in the snapshot to build its template from."""

    OUTCOME = GroupOutcome.NOT_EVALUATED
    REASON = Reason.NO_TEMPLATE_NODE

    target: int | None
    ready: int | None
    min_size: int | None
    max_size: int | None


class TemplateFits(GroupFinding, tag="templateFits", kw_only=True, frozen=True):
    """Cluster Autoscaler can add a node: the pod fits a copy of `example` and the group can grow."""

    OUTCOME = GroupOutcome.CAN_ADD

    target: int | None
    ready: int | None
    min_size: int | None
    max_size: int | None
    example: str
    plugin: str
    reasons: tuple[str, ...]


class NodePoolStatic(GroupFinding, tag="nodePoolStatic", kw_only=True, frozen=True):
    """A static NodePool (spec.replicas): Karpenter launches no node for pending pods."""

    OUTCOME = GroupOutcome.RULED_OUT
    REASON = Reason.NODEPOOL_STATIC

    replicas: int


class NodePoolNotReady(GroupFinding, tag="nodePoolNotReady", kw_only=True, frozen=True):
    """The NodePool's Ready condition is not True: its reason and message."""

    OUTCOME = GroupOutcome.RULED_OUT
    REASON = Reason.NODEPOOL_NOT_READY

    condition_reason: str = msgspec.field(name="reason")
    condition_message: str = msgspec.field(name="message")


class TaintNotTolerated(GroupFinding, tag="taintNotTolerated", kw_only=True, frozen=True):
    OUTCOME = GroupOutcome.RULED_OUT
    REASON = Reason.TAINT_NOT_TOLERATED

    taint: str


class RequirementsExcludePod(GroupFinding, tag="requirementsExcludePod", kw_only=True, frozen=True):
    """The pool's requirements and the pod's node selection agree on no value of `key`: why."""

    OUTCOME = GroupOutcome.RULED_OUT
    REASON = Reason.REQUIREMENTS_EXCLUDE_POD

    key: str
    detail: str


class LimitsReached(GroupFinding, tag="limitsReached", kw_only=True, frozen=True):
    """The pool's first limit that leaves less than the pod requests: the limit and what is in use
    as written, the pod's request in `unit`."""

    OUTCOME = GroupOutcome.RULED_OUT
    REASON = Reason.LIMITS_REACHED

    resource: str
    limit: str
    used: str
    pod_request: int
    unit: str


class PoolAdmits(GroupFinding, tag="poolAdmits", kw_only=True, frozen=True):
    """Karpenter can launch a node of the pool for the pod (which instance types the cloud offers
    is the cloud provider's)."""

    OUTCOME = GroupOutcome.CAN_ADD


AnyGroupFinding = (
    GroupUnhealthy
    | GroupBackoff
    | GroupAtMaxSize
    | PodDoesNotFitNewNode
    | NoTemplateNode
    | TemplateFits
    | NodePoolStatic
    | NodePoolNotReady
    | TaintNotTolerated
    | RequirementsExcludePod
    | LimitsReached
    | PoolAdmits
)


# ---- a node on its way, what the autoscaler said ----


class ScaleUpTriggered(msgspec.Struct, frozen=True):
    """Cluster Autoscaler's TriggeredScaleUp event on the pod (its message, upstream's words)."""

    message: str


class NodeClaimProgress(msgspec.Struct, frozen=True):
    """A Karpenter NodeClaim for the pod: launched and waiting for its node, or still launching
    (with its Launched condition's reason and message, if any)."""

    claim: str
    launched: bool
    reason: str = ""
    message: str = ""


ComingEvidence = ScaleUpTriggered | NodeClaimProgress


class StatusUnknown(msgspec.Struct, frozen=True):
    """Why part of an autoscaler's view could not be evaluated: its status is not in the snapshot
    (`error` empty), or could not be read (`error`: why)."""

    error: str = ""


class ComingNode(msgspec.Struct):
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


class AutoscalerEvent(msgspec.Struct):
    """The latest event an autoscaler recorded on the pod, in full."""

    autoscaler: str
    reason: str
    message: str
    time: str = ""
    # NotTriggerScaleUp: how many node groups each reason ruled out ("1 max node group size reached").
    counts: dict[str, int] = msgspec.field(default_factory=dict)


class AutoscalerView(msgspec.Struct):
    """One autoscaler's reading of the pod."""

    autoscaler: str
    groups: list[AnyGroupFinding] = msgspec.field(default_factory=list)
    coming: ComingNode | None = None
    excluded: PodExclusion | None = None
    # The particular of the exclusion: the scale-up delay, the priority, the nominated node, the owner's kind.
    excluded_by: str | int = ""
    last_event: AutoscalerEvent | None = None
    # Why part of it could not be evaluated (missing or unreadable inputs).
    not_evaluated: list[StatusUnknown] = msgspec.field(default_factory=list)
    # A cluster-wide limit the autoscaler itself says it reached (its flags are in no snapshot).
    cluster_limit: str = ""


class AutoscalingAnalysis(msgspec.Struct):
    """Every autoscaler's view of one Unschedulable pod."""

    views: list[AutoscalerView] = msgspec.field(default_factory=list)
    # No autoscaler found, and the snapshot can vouch for that (every autoscaler kind was read).
    none_found: bool = False
    # Autoscaler kinds the snapshot could not vouch for, with why ("" for a dump without them).
    missing_kinds: dict[str, str] = msgspec.field(default_factory=dict)
    # The snapshot's newest record, ages are measured to.
    as_of: str = ""

    @property
    def coming(self) -> ComingNode | None:
        return next((v.coming for v in self.views if v.coming is not None and not v.coming.overdue), None)

    def can_add(self) -> list[AnyGroupFinding]:
        return [g for v in self.views for g in v.groups if g.outcome is GroupOutcome.CAN_ADD]
