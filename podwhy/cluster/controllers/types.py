"""The types `check`'s controllers and its scheduler's side share, below both (as the API types
are below every controller): a workload of the manifests as its controllers read it
(`ManifestWorkload`, with the Job's spec and status facts `JobShape` and `LiveJob`), what came of
each pod one of them created (`ReplicaPlacement`) and of the workload (`WorkloadPlacement`), and a
pod of the cluster that preemption displaced (`Displaced`). The uid `check` gives each object it
creates, and the copies controllers and admission change, are here too.

The controllers reach the scheduler through podcontrol.Scheduler, never cluster/placement.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

import msgspec

from podwhy.cluster.apiserver.admission.attributes import PolicyDenied
from podwhy.cluster.apiserver.defaults import Json
from podwhy.cluster.controllers.rollout import Rollout
from podwhy.cluster.placementreasons import AdmissionOpen, OnceDeleted, PlacementReason
from podwhy.features.emulation import DEFAULT, Emulation
from podwhy.model import objects as o
from podwhy.scheduler.cycle import CycleOutcome
from podwhy.verdict import Verdict

if TYPE_CHECKING:
    from podwhy.cluster.kueuecheck import KueueDecision

INDEXED = "Indexed"

_T = TypeVar("_T", bound=msgspec.Struct)


def created_uid(namespace: str, kind: str, name: str) -> str:
    """The uid `check` gives an object it creates (the API server's are random)."""
    return f"podwhy-check-{kind.lower()}-{namespace}-{name}"


def deep_copy(obj: _T, tp: type[_T]) -> _T:
    """A deep copy of a model object (controllers and admission change their copies)."""
    return msgspec.json.decode(msgspec.json.encode(obj), type=tp)


class JobShape(msgspec.Struct, frozen=True):
    """What of a Job's spec an update may change, and its controller reads to size it."""

    parallelism: int
    completions: int | None
    completion_mode: str
    suspend: bool
    active_deadline_seconds: int | None

    @property
    def indexed(self) -> bool:
        return self.completion_mode == INDEXED


class LiveJob(msgspec.Struct, frozen=True):
    """A Job the snapshot holds: its spec, its stored template (None when not read), its status."""

    shape: JobShape
    template: Json | None
    start_time: str | None
    succeeded: int
    # "Complete" or "Failed" once it has finished ("" while it runs).
    finished: str
    # Its JobSuspended condition is True.
    suspended_condition: bool
    # Its uid (its pods' controller-uid label).
    uid: str = ""


class ManifestWorkload(msgspec.Struct):
    """One Pod or workload of the manifests, with the pods its controller would create."""

    kind: str
    namespace: str
    name: str
    source: str
    # The replicas in the order the controller creates them (empty for a DaemonSet).
    pods: list[o.Pod] = msgspec.field(default_factory=list)
    # DaemonSet: the admitted pod every eligible node gets, before its node-name affinity.
    daemon_template: o.Pod | None = None
    # StatefulSet with OrderedReady: ordinal i+1 is created only once ordinal i runs.
    ordered: bool = False
    # StatefulSet: the claim templates each ordinal's PVCs are made from.
    claim_templates: list[o.PersistentVolumeClaim] = msgspec.field(default_factory=list)
    selector_labels: dict[str, str] = msgspec.field(default_factory=dict)
    # The pods of this workload the cluster already runs (the manifest updates it), and how the
    # manifest says to roll out a change (cluster.controllers.rollout).
    existing: list[o.Pod] = msgspec.field(default_factory=list)
    # Whether the manifest leaves the stored template as it is, every field compared
    # (revisions.same_stored_template); None when the snapshot holds no stored template.
    template_unchanged: bool | None = None
    strategy: o.DeploymentStrategy | None = None
    update_strategy: o.StatefulSetUpdateStrategy | None = None
    progress_deadline_seconds: int | None = None
    # Deployment: the cluster's ReplicaSet whose template is the manifest's (FindNewReplicaSet:
    # a rollback, or a rollout under way), which its controller scales up rather than creating
    # one; and the pods it already runs (of EXISTING).
    new_replica_set: str = ""
    current: list[o.Pod] = msgspec.field(default_factory=list)
    # Job: its spec as the manifest sets it, the Job the snapshot holds (None: none), and the API
    # server's words refusing the update ("": it applies).
    job_shape: JobShape | None = None
    live_job: LiveJob | None = None
    job_refusal: str = ""
    # The release whose API server admitted it (what its pods' comparison reads).
    emulation: Emulation = DEFAULT
    # Deployment: spec.paused (its controller rolls out no new template until it is resumed).
    paused: bool = False
    # Replicas PodSecurity or ResourceQuota admission refused, or the API server found invalid (by
    # pod name): the API server's words. Their controller's create fails (FailedCreate) and is
    # retried.
    refused: dict[str, str] = msgspec.field(default_factory=dict)
    # The first replica a ValidatingAdmissionPolicy refused (None: none was).
    policy_refused: PolicyRefused | None = None
    # What admission leaves open for a replica (webhooks never called, policies not evaluated),
    # by pod name; for a DaemonSet, its template's (every node's pod alike).
    admission_open: dict[str, AdmissionOpen] = msgspec.field(default_factory=dict)
    daemon_open: AdmissionOpen | None = None
    # What admission leaves open on creating the workload itself (`kubectl apply` of it): every
    # replica's creation depends on it too.
    object_open: AdmissionOpen | None = None
    # DaemonSet: PodSecurity's refusal of its template, the words after `pods "NAME" is
    # forbidden: ` (it refuses every node's pod alike).
    daemon_refusal: str = ""
    # Job: the manifest's Job (what Kueue's webhook and Job controller read; None for others).
    job_manifest: o.Workload | None = None
    # Job: Kueue manages it (its webhook suspends it, its controller resumes it once admitted):
    # spec.suspend is Kueue's to lift, and its pods are those it runs once resumed.
    kueue_managed: bool = False

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name} ({self.kind})"


class PolicyRefused(msgspec.Struct, frozen=True):
    """The first replica of a workload a ValidatingAdmissionPolicy refused: the pod as its
    controller made it, before admission (what a suggestion changes and admits again), its spec as
    the manifest wrote it (None: not kept), the denial, and the API server's words."""

    pod: o.Pod
    raw_spec: Json | None
    denied: PolicyDenied
    words: str


class ReplicaPlacement(msgspec.Struct):
    """One pod a controller created (or could not create), and what the scheduler (or the kubelet
    of the node it names) did with it."""

    pod: o.Pod
    verdict: Verdict
    # The node it was bound to; "" while it stays Pending.
    node: str = ""
    # Why it stays Pending (the scheduler's message), why it is not even created, or what its
    # placement carries; None: nothing to say.
    reason: PlacementReason | None = None
    # The nodes sharing the top score when more than one did (the tie was broken by name): the
    # first placement.MAX_TIED_NAMES by name, and how many there were.
    tied: list[str] = msgspec.field(default_factory=list)
    tied_count: int = 0
    # A StatefulSet (OrderedReady) ordinal that waits for an earlier one: never created.
    created: bool = True
    # The cycle of a replica left Pending (a placed one keeps only what the report needs of it:
    # a thousand cycles over thousands of nodes would hold every node's verdict and score).
    cycle: CycleOutcome | None = None
    # Kinds the snapshot holds none of that its cycle needed (see cycle.lacking_kinds).
    lacking_kinds: list[str] = msgspec.field(default_factory=list)
    # A DaemonSet pod: the node its controller made it for.
    target_node: str = ""
    # The pods its preemption evicted from `node` (it was placed once they were gone), and the
    # PodDisruptionBudgets that broke.
    victims: list[o.Pod] = msgspec.field(default_factory=list)
    violated_pdbs: list[str] = msgspec.field(default_factory=list)
    # Set on a replica that was placed and then evicted by a later replica's preemption.
    preempted_by: str = ""
    # A replica left Pending that fits once the pods being deleted are gone (fits_once_deleted).
    once_deleted: OnceDeleted | None = None

    def __post_init__(self) -> None:
        if self.cycle is not None and not self.lacking_kinds:
            self.lacking_kinds = self.cycle.lacking_kinds

    @property
    def placed(self) -> bool:
        return bool(self.node)


class Displaced(msgspec.Struct):
    """A pod of the cluster that preemption evicted during the check: its controller creates it
    again, and the replacement is scheduled after the check's own replicas (created later, it
    comes later in the queue)."""

    victim: o.Pod
    # The check's replica whose preemption evicted it ("namespace/name").
    preemptor: str
    replacement: ReplicaPlacement | None = None


class WorkloadPlacement(msgspec.Struct):
    workload: ManifestWorkload
    replicas: list[ReplicaPlacement] = msgspec.field(default_factory=list)
    # DaemonSet: nodes its controller would not run it on, with why.
    ineligible_nodes: dict[str, str] = msgspec.field(default_factory=dict)
    # A workload the cluster already runs: what its controller's update does.
    rollout: Rollout | None = None
    # A Job Kueue manages: Kueue's decision on its Workload.
    kueue: KueueDecision | None = None
