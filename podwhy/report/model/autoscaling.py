"""Whether an autoscaler will add a node for a pod: explain's and pending's `autoscaling`."""

from __future__ import annotations

from podwhy.report.model.common import _Struct


class AutoscalingGroup(_Struct):
    """One node group (Cluster Autoscaler) or NodePool (Karpenter) and what it can do for the pod."""

    autoscaler: str
    group: str
    # CanAdd, RuledOut or NotEvaluated; `reason` (RuledOut, NotEvaluated) as data, `text` in words;
    # `data` the finding's particulars (its sizes, the provider's error, the requirement, the taint, ...).
    outcome: str
    reason: str | None
    text: str
    data: dict[str, str | int | bool | list[str] | None] = {}


class ComingNodeReport(_Struct):
    """A node an autoscaler is adding for the pod."""

    autoscaler: str
    group: str
    evidence: str
    since: str | None
    # Seconds from `since` to the snapshot's newest record, and the timeout the node is held to.
    ageSeconds: int | None  # noqa: N815
    timeoutSeconds: int | None  # noqa: N815
    overdue: bool


class AutoscalerSaid(_Struct):
    """An autoscaler's latest event on the pod, in full, and whether podwhy's reading agrees with it
    (both say a node is coming, or both say none is)."""

    autoscaler: str
    reason: str
    message: str
    time: str | None
    agrees: bool | None
    # NotTriggerScaleUp: how many node groups each reason ruled out, as Cluster Autoscaler counts.
    counts: dict[str, int] = {}


class AutoscalingReport(_Struct):
    """Will a node come for the Unschedulable pod? `status`: Coming (a node is being added),
    NotComing (no autoscaler group can add one: each group's first reason), CanAdd (a group could
    add a node the pod fits on, yet none is coming), NoAutoscaler (the snapshot shows none), or
    NotEvaluated (the snapshot lacks what it takes to tell)."""

    status: str
    summary: str
    coming: ComingNodeReport | None = None
    groups: list[AutoscalingGroup] = []
    # Why an autoscaler does not act for this pod at all (priority cutoff, preemption, ...).
    excluded: list[str] = []
    said: list[AutoscalerSaid] = []
    notEvaluated: list[str] = []  # noqa: N815
    # The snapshot's newest record, which ages are measured to.
    asOf: str | None = None  # noqa: N815
