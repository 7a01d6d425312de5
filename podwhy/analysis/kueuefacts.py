"""The facts of Kueue's answer for one target, a leaf the report reads (it imports only the
model and Kueue's constants and quantity printing): where the target stands, the first resource
short of quota, the Workloads ahead, the recorded condition against the recomputation, and each
pod set's quota figures. analysis/kueue.py computes them."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Final

import msgspec

from podwhy.cluster.kueue import names
from podwhy.cluster.kueue.resources import DEFAULT_FORMATTER, MAX_INT64
from podwhy.model import objects as o

if TYPE_CHECKING:
    from podwhy.snapshot.cluster import Snapshot

# Kueue's labels and scheduling gates (pkg/controller/constants, pkg/controller/jobs/pod).
QUEUE_NAME_LABEL: Final = "kueue.x-k8s.io/queue-name"
JOB_UID_LABEL: Final = "kueue.x-k8s.io/job-uid"
POD_GROUP_LABEL: Final = "kueue.x-k8s.io/pod-group-name"
ADMISSION_GATE: Final = "kueue.x-k8s.io/admission"
TOPOLOGY_GATE: Final = "kueue.x-k8s.io/topology"
KUEUE_GATES: Final = frozenset({ADMISSION_GATE, TOPOLOGY_GATE})

# kubectl's TYPE before a slash, for the kinds explain resolves through Kueue.
JOB_RESOURCE_NAMES: Final = frozenset({"job", "jobs", "job.batch", "jobs.batch"})
WORKLOAD_RESOURCE_NAMES: Final = frozenset(
    {"workload", "workloads", "workload.kueue.x-k8s.io", "workloads.kueue.x-k8s.io", "wl"}
)
JOB: Final = "Job"
WORKLOAD: Final = "Workload"
POD: Final = "Pod"


def has_kueue(snapshot: Snapshot) -> bool:
    """Whether the snapshot holds any Kueue object (else nothing of Kueue's applies): asked before
    Kueue's code is loaded at all."""
    return bool(
        snapshot.kueue_workloads or snapshot.cluster_queues or snapshot.local_queues or snapshot.resource_flavors
    )


# Why a target has no verdict: the snapshot holds no Workload for it.
NO_WORKLOAD: Final = "the snapshot has no Workload for it"


class Staleness(Enum):
    """Whether the Workload's recorded QuotaReserved condition agrees with the recomputation."""

    AGREES = "agrees"
    NONE_RECORDED = "none recorded"
    RECORDED_STALE = "recorded stale"


class Fate(Enum):
    """What happens to the target, as podwhy answers it (words/kueuefate.py says each)."""

    NO_WORKLOAD = "NoWorkload"  # the snapshot has no Workload for it: not evaluated
    FINISHED = "Finished"
    ADMITTED = "Admitted"
    CHECKS = "AdmissionChecks"  # quota reserved; its admission checks are not evaluated
    ADMITS_NEXT = "AdmitsNext"  # it fits, nothing ahead fits: admitted in Kueue's next cycle
    BEHIND_STRICT_HEAD = "BehindStrictFIFOHead"  # it fits, but a StrictFIFO head comes first
    BEHIND_OTHERS = "BehindOthers"  # it fits, but Workloads ahead fit too and go first
    # It fits and heads its ClusterQueue, but in Kueue's next cycle a head of another ClusterQueue
    # of its cohort tree goes first and takes the quota it needs ("no longer fits").
    BEHIND_COHORT = "BehindCohort"
    # It fits and heads its ClusterQueue; whether a head of another ClusterQueue of its cohort
    # tree takes its quota first hangs on what podwhy does not evaluate (a preemption, an order).
    COHORT_NOT_EVALUATED = "CohortNotEvaluated"
    SHORT_OF_QUOTA = "ShortOfQuota"  # a resource in a flavor lacks quota (the shortfall)
    PREEMPTION = "Preemption"  # it fits only by preempting (not evaluated)
    NO_FLAVOR = "NoFlavor"  # no flavor can hold it (taints, affinity, uncovered resources)
    BLOCKED = "Blocked"  # a queue blocker, the admission gate, the namespace


class Recorded(msgspec.Struct, frozen=True):
    """The Workload's QuotaReserved (or Admitted) condition as recorded."""

    type: str = ""
    status: str = ""
    reason: str = ""
    message: str = ""


class Shortfall(msgspec.Struct, frozen=True):
    """The first resource short of quota: in CLUSTER_QUEUE's FLAVOR, AVAILABLE of NOMINAL is
    free (borrowing included), BORROWABLE of it from the cohort; the pod sets NEED that much."""

    cluster_queue: str
    flavor: str
    resource: str
    available: int
    nominal: int
    used: int
    borrowable: int
    needed: int


class Ahead(msgspec.Struct, frozen=True):
    """A Workload the ClusterQueue pops first, with its priority and its place (1-based)."""

    key: str
    priority: int
    position: int
    fits: bool | None = None


class QuotaFigure(msgspec.Struct, frozen=True):
    """One quota check of the flavor assignment: a resource in a flavor, what the pod sets need,
    the nominal quota, what is used, borrowable and available, and the check's outcome (MODE:
    Fit, Preempt or NoFit)."""

    resource: str
    flavor: str
    needed: int
    nominal: int
    used: int
    borrowable: int
    available: int
    mode: str


class PodSetFigures(msgspec.Struct, frozen=True):
    """A pod set's count and the quota checks of its resources, in the order Kueue made them."""

    name: str
    count: int
    figures: tuple[QuotaFigure, ...] = ()


class KueueFacts(msgspec.Struct, frozen=True):
    """What explain says of a Kueue-held target."""

    kind: str  # Job, Workload, Pod, or the owner's kind
    namespace: str
    name: str
    workload: o.KueueWorkload | None
    local_queue: str = ""
    cluster_queue: str = ""
    admitted: bool = False
    shortfall: Shortfall | None = None
    recorded: Recorded = msgspec.field(default_factory=Recorded)
    staleness: Staleness = Staleness.NONE_RECORDED
    ahead: tuple[Ahead, ...] = ()
    strict_fifo_head: str = ""  # StrictFIFO: the head this fitting Workload waits behind
    # BEHIND_COHORT: the heads of other ClusterQueues of its cohort tree that Kueue's next cycle
    # processes first and that take the quota it needs (namespace/name); COHORT_NOT_EVALUATED:
    # those whose share podwhy does not know.
    cohort_ahead: tuple[str, ...] = ()
    not_evaluated: tuple[str, ...] = ()
    gates: tuple[str, ...] = ()  # a pod's Kueue scheduling gates
    fate: Fate = Fate.NO_WORKLOAD
    granular_reason: str = ""  # Kueue's reason with UnadmittedWorkloadsObservability on
    # The recomputed decision: the engine's stage, Kueue's QuotaReserved=False reason and message
    # ("" where it sets none), and each pod set's figures ("" and () without a Workload).
    stage: str = ""
    reason: str = ""
    message: str = ""
    pod_sets: tuple[PodSetFigures, ...] = ()
    # Changes that would admit it, each verified (kueuesuggest.py); () when admitted.
    suggestions: tuple[KueueSuggestion, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def inconclusive(self) -> bool:
        """What decides was not evaluated: no Workload, admission checks, or a preemption the
        recomputation could not settle."""
        return self.fate in (Fate.NO_WORKLOAD, Fate.CHECKS, Fate.PREEMPTION, Fate.COHORT_NOT_EVALUATED)


def format_amount(resource: str, value: int) -> str:
    """A quantity as Kueue prints it ("<unlimited>" beyond any cluster)."""
    if value >= MAX_INT64:
        return names.UNLIMITED_TEXT
    return DEFAULT_FORMATTER.quantity_string(resource, value)


# ---------------------------------------------------------------- suggestions (kueuesuggest.py)


class KueueKnob(Enum):
    """What a Kueue suggestion changes."""

    NOMINAL_QUOTA = "nominalQuota"  # the ClusterQueue's own quota
    BORROWING_LIMIT = "borrowingLimit"  # how much it may borrow from its cohort
    LENDING_LIMIT = "lendingLimit"  # how much another member of its cohort lends (takes from it)
    LOCAL_QUEUE = "localQueue"  # the queue-name the Workload is submitted to
    TOLERATION = "toleration"  # a pod template toleration of a flavor's taint


class QuotaRaise(msgspec.Struct, frozen=True):
    """CLUSTER_QUEUE's KNOB of RESOURCE in FLAVOR raised from OLD to NEW (Kueue's amounts:
    milli-CPU, bytes, counts)."""

    knob: KueueKnob
    cluster_queue: str
    flavor: str
    resource: str
    old: int
    new: int


class QueueSwitch(msgspec.Struct, frozen=True):
    """The Workload submitted to the existing LocalQueue NEW instead of the missing OLD; CLOSEST:
    NEW is the name closest to OLD."""

    old: str
    new: str
    closest: bool


class TaintToleration(msgspec.Struct, frozen=True):
    """A toleration of one taint of FLAVOR, added to the pod sets' templates."""

    flavor: str
    key: str
    value: str
    effect: str


class KueueCommand(msgspec.Struct, frozen=True):
    """The kubectl line making a change (every word from input shell-quoted), and what it
    patches: the object (`clusterqueue/team-a`, `job/train-7`), its namespace ("" cluster-wide),
    the patch type (json, merge, or label) and the patch itself."""

    line: str
    target: str
    namespace: str
    patch_type: str
    patch: object


KueueChange = QuotaRaise | QueueSwitch | TaintToleration


class KueueSuggestion(msgspec.Struct, frozen=True):
    """A change verified by recomputing Kueue's decision with it applied: the Workload is then
    admitted in Kueue's next cycle. TAKES_FROM_OTHERS: the quota comes out of another
    ClusterQueue's guarantee (a lendingLimit raised)."""

    knob: KueueKnob
    changes: tuple[KueueChange, ...]
    commands: tuple[KueueCommand, ...]
    takes_from_others: bool = False
