"""`podwhy check`'s report (kind CheckReport): the replicas of manifests placed one after another,
the rollouts, the pods their preemption displaced."""

from __future__ import annotations

from typing import Literal

from msgspec import UNSET, UnsetType

from podwhy.report.model.blocking import BlockingCause
from podwhy.report.model.common import (
    DefaultedField,
    SchedulerVersion,
    SnapshotSummary,
    Suggestion,
    _Struct,
)
from podwhy.report.model.kueue import KueueCheck
from podwhy.verdict import ExitCode, Verdict


class FitsOnceDeleted(_Struct):
    """Where a Pending replica fits once the cluster's pods being deleted (deletionTimestamp set)
    are gone: they hold their room until then, as the scheduler sees them."""

    node: str
    # The pods being deleted it waits for ("namespace/name"): those on that node, or every one
    # when none is there; the first ten, and how many there are.
    pods: list[str]
    count: int


class ReplicaReport(_Struct):
    """One replica of a checked workload: where it was placed, or why it stays Pending."""

    name: str
    verdict: Verdict
    # The node it was bound to; null while it stays Pending.
    node: str | None
    # The scheduler's message when it stays Pending (or why the controller would not create it).
    message: str = ""
    # The nodes sharing the top score when several did (podwhy took the first by name): the first
    # ten by name, and how many there were.
    tiedNodes: list[str] = []  # noqa: N815
    tiedCount: int = 0  # noqa: N815
    # False for a StatefulSet ordinal its controller would not create yet (OrderedReady).
    created: bool = True
    # A DaemonSet pod: the node its controller made it for (null for other workloads).
    targetNode: str | None = None  # noqa: N815
    # The pods its preemption evicted from its node ("namespace/name (its owner)"), and the
    # PodDisruptionBudgets that broke; a replica evicted by a later one's preemption names it.
    evicted: list[str] = []
    violatedPdbs: list[str] = []  # noqa: N815
    preemptedBy: str | None = None  # noqa: N815
    # A replica left Pending that fits once the pods being deleted are gone.
    fitsOnceDeleted: FitsOnceDeleted | UnsetType = UNSET  # noqa: N815
    # A replica left Pending whose preemption (DefaultPreemption's dry run) was not evaluated: why
    # (the kinds the snapshot lacks); `message` then lacks the scheduler's preemption part. When the
    # snapshot cannot vouch for the cluster's pods, preemption might make room for it: its verdict
    # is Inconclusive, not Unschedulable.
    preemptionNotEvaluated: str | UnsetType = UNSET  # noqa: N815


class RolloutStep(_Struct):
    """One round of the controllers during a rollout."""

    old: int
    new: int
    newPlaced: int  # noqa: N815


class RolloutReport(_Struct):
    """A manifest that updates a workload the cluster already runs: what its controller does
    (replicas are then the pods it creates). Not simulated: readiness, probes and minReadySeconds
    (a placed pod counts as available at once)."""

    # Unchanged (only scaled, if at all), Completes, Stalls, Immutable (`kubectl apply` fails),
    # WaitsForDeletion (OnDelete), Paused (a paused Deployment: no new template is rolled out
    # until it is resumed; the controller still scales).
    status: Literal["Unchanged", "Completes", "Stalls", "Immutable", "WaitsForDeletion", "Paused"]
    # The pods of the workload the cluster ran, how many it is to run, and the new ones placed.
    oldReplicas: int  # noqa: N815
    replicas: int
    newReplicas: int  # noqa: N815
    # The old pods its controllers removed, in order.
    removed: list[str] = []
    # A rolling update (Deployment, DaemonSet): each round, and its maxSurge and maxUnavailable resolved.
    steps: list[RolloutStep] = []
    maxSurge: int | None = None  # noqa: N815
    maxUnavailable: int | None = None  # noqa: N815
    # A stalled Deployment reports ProgressDeadlineExceeded after this long.
    progressDeadlineSeconds: int | None = None  # noqa: N815
    # True when "Unchanged" was decided from the running pods alone, as far as podwhy reads pods
    # (the snapshot holds no stored template of the workload: its ReplicaSet or StatefulSet):
    # fields podwhy does not read (env, command, probes, annotations...) were not compared.
    comparedPodsOnly: bool | UnsetType = UNSET  # noqa: N815
    # A Deployment whose manifest's template is that of a ReplicaSet it already has, ignoring the
    # pod-template-hash label (FindNewReplicaSet/EqualIgnoreHash; a rollback): that ReplicaSet,
    # which the controller scales up again instead of creating a new one.
    existingReplicaSet: str | UnsetType = UNSET  # noqa: N815
    # An update the API server refuses (Immutable): its words, as `kubectl apply` prints them.
    refusal: str | UnsetType = UNSET
    # A Job's: what its controller does once the update applies (Runs: it sizes the pods to the
    # new parallelism; Suspended: it deletes every active pod; Finished: nothing, it has
    # completed or failed; DeadlineExceeded: it fails the Job, past its activeDeadlineSeconds).
    job: Literal["Runs", "Suspended", "Finished", "DeadlineExceeded"] | UnsetType = UNSET


class PendingReplicas(_Struct):
    """Replicas of a workload left Pending alike: one message, and what keeps them off the nodes."""

    # Their names, in the order they were placed.
    replicas: list[str]
    # Their message (as each replica's: the scheduler's, or why the controller does not create them).
    message: str
    # When no node fits them: what keeps them off the nodes, one cause per line, from the plugins'
    # evidence of their scheduling cycle (as an Explanation's `causes`).
    causes: list[BlockingCause] = []
    # podwhy's own words on them, beside the message: where they fit once the pods being deleted
    # are gone, or that their preemption was not evaluated ("" for none).
    note: str = ""


class WorkloadReport(_Struct):
    kind: str
    namespace: str
    name: str
    source: str
    placed: int
    pending: int
    replicas: list[ReplicaReport]
    # Its Pending replicas (and those not created), alike ones together, in the order of the first of each.
    pendingGroups: list[PendingReplicas] = []  # noqa: N815
    # DaemonSet: nodes its controller would not run it on, with why.
    ineligibleNodes: dict[str, str] = {}  # noqa: N815
    # Set when the manifest updates a workload the cluster runs.
    rollout: RolloutReport | UnsetType = UNSET
    # What the API server's defaulting and admission filled in on its pods (of its first replica:
    # they share its template), which the scheduler reads.
    apiServerDefaults: list[DefaultedField] | UnsetType = UNSET  # noqa: N815
    # A Job Kueue manages: Kueue's decision on its Workload.
    kueue: KueueCheck | UnsetType = UNSET
    # A ValidatingAdmissionPolicy refuses its pods: the verified changes to its pod template that
    # make it admit them (kind satisfyPolicy; the pods then created and placed as the cluster
    # stands after the manifests), and what podwhy could not suggest, and why.
    suggestions: list[Suggestion] | UnsetType = UNSET
    notes: list[str] | UnsetType = UNSET

    @property
    def update(self) -> RolloutReport | None:
        """The rollout, when the manifest updates a workload the cluster runs."""
        return self.rollout if isinstance(self.rollout, RolloutReport) else None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name} ({self.kind})"


class CheckSummary(_Struct):
    workloads: int
    replicas: int
    placed: int
    pending: int
    # Workloads with at least one replica Pending.
    failingWorkloads: int  # noqa: N815
    # Replicas placed although a plugin needing kinds the snapshot lacks was not evaluated.
    inconclusive: int
    # Replicas left Pending (counted in `pending`) whose preemption was not evaluated: it might
    # place them, so they are not known to stay Pending.
    pendingInconclusive: int = 0  # noqa: N815


class NotChecked(_Struct):
    """Objects of a kind podwhy does not simulate that may create pods (a custom resource's
    controller): the pods they would create are not checked."""

    kind: str
    count: int
    # Set when only this field of objects podwhy does read is not simulated (a Job's
    # spec.podFailurePolicy); unset, the kind's controller is not simulated at all.
    field: str = ""


# The order replicas are placed in: the scheduling queue's (PrioritySort) for pods created at once.
PLACEMENT_ORDER = (
    "one after another in the scheduling queue's order (PrioritySort): higher priority first, then the manifests' order"
)


# How podwhy picks among nodes sharing the top score (kube-scheduler picks one at random).
TIE_BREAK = "among nodes sharing the top score, kube-scheduler picks one at random; podwhy takes the first by name"


class DisplacedPod(_Struct):
    """A pod of the cluster that a replica's preemption evicted: its controller creates it again,
    and the replacement is scheduled after the check's replicas (placed, or Pending and why)."""

    pod: str
    owner: str | None
    evictedBy: str  # noqa: N815
    replacement: str
    node: str | None
    message: str


class CheckReport(_Struct, kw_only=True):
    """podwhy check: the replicas of manifests placed one after another onto a snapshot."""

    apiVersion: Literal["podwhy/v1"] = "podwhy/v1"  # noqa: N815
    kind: Literal["CheckReport"] = "CheckReport"
    summary: CheckSummary
    workloads: list[WorkloadReport]
    # Kinds of the manifests that may create pods but are not simulated (their pods are not checked).
    notChecked: list[NotChecked] = []  # noqa: N815
    # The cluster's pods the replicas' preemption evicted, and where their replacements go.
    displaced: list[DisplacedPod] = []
    order: str = PLACEMENT_ORDER
    tieBreak: str = TIE_BREAK  # noqa: N815
    snapshot: SnapshotSummary
    # The emulated kube-scheduler release.
    scheduler: SchedulerVersion | None = None
    warnings: list[str] = []

    @property
    def exit_code(self) -> int:
        """0 when every replica fits and every rollout completes, 1 when a replica stays Pending or a
        rollout does not complete, 3 when a placement was inconclusive or the only Pending replicas
        are (their preemption was not evaluated)."""
        summary = self.summary
        if summary.pending - summary.pendingInconclusive or summary.failingWorkloads:
            return int(ExitCode.NOT_SCHEDULED)
        return int(ExitCode.INCONCLUSIVE if summary.inconclusive or summary.pendingInconclusive else ExitCode.OK)
