"""Kueue's decisions in the reports: explain's `kueue`, pending's groups of what Kueue holds,
check's Job Kueue manages."""

from __future__ import annotations

from podwhy.report.model.common import _Struct


class KueueQuotaFigure(_Struct):
    """One resource in one flavor of a pod set, as Kueue's quota check saw it (quantities as Kueue
    prints them): what it needs, the ClusterQueue's nominal quota, what admitted Workloads use,
    what it may borrow from its cohort, what is available to it now (borrowing included), and
    the mode (Fit, Preempt, NoFit)."""

    resource: str
    flavor: str
    needed: str
    nominal: str
    used: str
    borrowable: str
    available: str
    mode: str


class KueuePodSet(_Struct):
    name: str
    count: int
    resources: list[KueueQuotaFigure] = []


class KueueAhead(_Struct):
    """A Workload its ClusterQueue pops first (namespace/name), its priority, its place."""

    workload: str
    priority: int
    position: int


class KueueRecorded(_Struct):
    """The Workload's own condition (QuotaReserved, or Admitted once admitted), as recorded."""

    type: str = ""
    status: str = ""
    reason: str = ""
    message: str = ""


class KueueQuotaChange(_Struct):
    """A quota field of a ClusterQueue raised (quantities as Kueue prints them): `field` is
    nominalQuota, borrowingLimit or lendingLimit."""

    clusterQueue: str  # noqa: N815
    flavor: str
    resource: str
    field: str
    old: str
    new: str


class KueueTolerationAdded(_Struct):
    """A toleration of one taint of a flavor, added to the pod template."""

    flavor: str
    key: str
    value: str = ""
    effect: str = ""


class KueueSuggestion(_Struct, kw_only=True):
    """A change verified by recomputing Kueue's decision with it applied (it is then admitted in
    Kueue's next cycle): `knob` is nominalQuota, borrowingLimit, lendingLimit, localQueue or
    toleration; `takesFromOthers`: the quota comes out of another ClusterQueue's guarantee;
    `commands`: the kubectl lines that make it ("" when podwhy knows none for the owner)."""

    knob: str
    text: str  # the change in words
    quota: list[KueueQuotaChange] = []
    localQueue: str = ""  # noqa: N815
    tolerations: list[KueueTolerationAdded] = []
    takesFromOthers: bool = False  # noqa: N815
    commands: list[str] = []


class KueueReport(_Struct, kw_only=True):
    """Kueue's decision for the target's Workload, recomputed (docs/kueue.md): `admitted` is
    true when Kueue has admitted it or admits it in its next cycle; `reason` and `message` are
    exactly Kueue's QuotaReserved=False condition (empty when admitted); `stale`: the recorded
    condition disagrees with the recomputation (the recorded one is the stale one)."""

    target: str  # "Job team-a/train", "Workload team-a/job-train-1a2b3", "Pod team-a/p"
    summary: str  # the fate in plain words (the first line)
    workload: str  # namespace/name; "" when the snapshot has none for the target
    clusterQueue: str = ""  # noqa: N815
    localQueue: str = ""  # noqa: N815
    admitted: bool
    stage: str = ""
    reason: str = ""
    message: str = ""
    podSets: list[KueuePodSet] = []  # noqa: N815
    ahead: list[KueueAhead] = []
    # StrictFIFO: the head a fitting Workload waits behind.
    blockedBy: str = ""  # noqa: N815
    notEvaluated: list[str] = []  # noqa: N815
    recorded: KueueRecorded | None = None
    stale: bool = False
    # Changes that would admit it, each verified (none when admitted or none is found).
    suggestions: list[KueueSuggestion] = []
    # What was assumed of Kueue (--kueue-feature-gates changes it): the release whose defaults
    # apply, the gates that decide the words (UnadmittedWorkloadsObservability, then any gate set
    # apart from that release's default), and the reasons they give: granular (WaitingForQuota,
    # NoMatchingFlavor...) or legacy (Pending, Inadmissible).
    kueueVersion: str = ""  # noqa: N815
    featureGates: dict[str, bool] = {}  # noqa: N815
    reasons: str = ""


class KueuePendingGroup(_Struct):
    """`pending`: what Kueue holds, by ClusterQueue and cause (Kueue's reason, or podwhy's fate
    where Kueue sets none: AdmitsNext, BehindStrictFIFOHead, NoWorkload...)."""

    clusterQueue: str  # noqa: N815
    cause: str
    admitted: bool
    count: int
    # "Job ml/train-7", "Workload ml/infer-group": the targets, as explain takes them.
    targets: list[str]
    # The first target's first line (explain's), for the group.
    example: str


# KueueReport.reasons: the QuotaReserved=False reasons' flavour.
REASONS_GRANULAR = "granular"
REASONS_LEGACY = "legacy"


# KueuePendingGroup causes where what decides was not evaluated (analysis/kueue.py's Fate values).
KUEUE_INCONCLUSIVE = frozenset({"NoWorkload", "AdmissionChecks", "Preemption"})


class KueueAdmittedPodSet(_Struct):
    """One pod set of a Workload Kueue would admit: the flavor of each of its resources."""

    name: str
    flavors: dict[str, str] = {}


class KueueCheck(_Struct):
    """A Job Kueue manages (its queue-name label): whether Kueue would admit its Workload now, in
    Kueue's words. Not admitted, the Job stays suspended and none of its pods is created;
    admitted, its pods carry the flavors' node labels and tolerations Kueue injects."""

    # Its Workload ("namespace/name", as Kueue's Job controller names it; "" when Kueue makes none).
    workload: str
    localQueue: str  # noqa: N815
    admitted: bool
    clusterQueue: str = ""  # noqa: N815
    # Where it stands (Kueue's engine: Fits, NoFit, Blocked, Preempt...), and the QuotaReserved=False
    # reason and message Kueue would set ("" when admitted, or where Kueue sets none).
    stage: str = ""
    reason: str = ""
    message: str = ""
    # Why Kueue's decision is not known (exit 3): the snapshot has none of Kueue's objects, or
    # what decides it is not evaluated; "" when it is known.
    inconclusive: str = ""
    # Admitted: each pod set's flavors, and what Kueue injects into its pods.
    podSets: list[KueueAdmittedPodSet] = []  # noqa: N815
    nodeSelector: dict[str, str] = {}  # noqa: N815
    tolerations: list[str] = []
    # The Workloads ahead of it in its ClusterQueue, in Kueue's order ("namespace/name").
    ahead: list[str] = []
    # What Kueue would decide that podwhy does not evaluate.
    notEvaluated: list[str] = []  # noqa: N815
