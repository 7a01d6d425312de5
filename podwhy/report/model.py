"""The report (apiVersion podwhy/v1, kind Explanation) as typed structs.

Built once from the scheduling cycle's outcome; JSON, YAML, the table and `--node` all
render this model and nothing else, and `schema.json` is generated from it.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

from podwhy.analysis.sizing import SizingOutcome
from podwhy.framework.evidence import AnyEvidence
from podwhy.verdict import ExitCode, Verdict

API_VERSION = "podwhy/v1"
KIND = "Explanation"


class StatusName(StrEnum):
    """A plugin's status: upstream's code names, plus podwhy's own NotEvaluated."""

    SUCCESS = "Success"
    ERROR = "Error"
    UNSCHEDULABLE = "Unschedulable"
    UNSCHEDULABLE_AND_UNRESOLVABLE = "UnschedulableAndUnresolvable"
    WAIT = "Wait"
    SKIP = "Skip"
    PENDING = "Pending"
    NOT_EVALUATED = "NotEvaluated"

    @property
    def rejects(self) -> bool:
        return self in (StatusName.UNSCHEDULABLE, StatusName.UNSCHEDULABLE_AND_UNRESOLVABLE)


class _Struct(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    pass


class PodSummary(_Struct):
    namespace: str
    name: str
    uid: str
    phase: str
    priority: int
    schedulerName: str  # noqa: N815 - wire names are the report's camelCase
    nodeName: str | None = None  # noqa: N815
    nominatedNodeName: str | None = None  # noqa: N815
    schedulingGates: list[str] = []  # noqa: N815
    requests: dict[str, str] = {}


class PluginStatus(_Struct):
    plugin: str
    status: StatusName
    reasons: list[str]
    # The facts behind the verdict or score: "kind" names what was compared.
    evidence: list[AnyEvidence] | UnsetType = UNSET

    @property
    def passes(self) -> bool:
        return self.status in (StatusName.SUCCESS, StatusName.SKIP)


class PreFilterEntry(PluginStatus):
    # The nodes the plugin restricts the pod to; null for all nodes.
    nodeNames: list[str] | None = None  # noqa: N815


class ScoreEntry(_Struct):
    plugin: str
    raw: int
    normalized: int
    weight: int
    weighted: int
    # PreScore returned Skip for this pod: scores are zero.
    skipped: bool | UnsetType = UNSET
    # Why the score could not be computed (the snapshot lacks kinds the plugin reads); counted as 0.
    notEvaluated: str | UnsetType = UNSET  # noqa: N815
    # The facts behind the verdict or score: "kind" names what was compared.
    evidence: list[AnyEvidence] | UnsetType = UNSET


class NominatedPod(_Struct):
    pod: str
    priority: int
    requests: dict[str, str]


class NodeReport(_Struct):
    name: str
    feasible: bool
    filters: list[PluginStatus]
    # Where kube-scheduler itself stopped on this node.
    firstFailure: PluginStatus | None  # noqa: N815
    # Pods nominated to this node with the pod's priority or higher, reserving room here.
    nominatedPods: list[NominatedPod]  # noqa: N815
    # Whether the node would fit without the room those nominated pods reserve (null: none counted).
    feasibleWithoutNominated: bool | None  # noqa: N815
    scores: list[ScoreEntry]
    totalScore: int | None  # noqa: N815

    def filter(self, plugin: str) -> PluginStatus | None:
        return next((st for st in self.filters if st.plugin == plugin), None)


class Victim(_Struct):
    pod: str
    priority: int


class Candidate(_Struct):
    node: str
    victims: list[Victim]
    numPDBViolations: int  # noqa: N815
    pdbViolations: list[str]  # noqa: N815


class DryRunStatus(_Struct):
    node: str
    status: StatusName
    plugin: str
    reasons: list[str]


class Preemption(_Struct):
    nominatedNode: str | None  # noqa: N815
    victims: list[str]
    pdbViolations: list[str] = []  # noqa: N815
    candidates: list[Candidate] = []
    message: str = ""
    dryRun: list[DryRunStatus] = []  # noqa: N815
    postFilter: list[PluginStatus] = []  # noqa: N815


class SnapshotSummary(_Struct):
    sources: list[str]
    nodes: int
    pods: int
    missingKinds: list[str]  # noqa: N815
    ignoredKinds: dict[str, int]  # noqa: N815
    # When the snapshot was taken (RFC 3339): live, or as `podwhy snapshot` recorded it; absent
    # for other dumps. Ages in the report are measured to it, never to the reader's clock.
    takenAt: str | UnsetType = UNSET  # noqa: N815


class DefaultedField(_Struct):
    """A field of a manifest's pod the API server's defaulting fills in, which the scheduler reads."""

    field: str  # as a JSON path of the pod: spec.containers[0].resources.requests.nvidia.com/gpu
    value: str
    why: str  # "copied from limits", "host network: the container port", ...


class SamplingReport(_Struct):
    percentageOfNodesToScore: int | None  # noqa: N815
    effectivePercentage: int  # noqa: N815
    nodesConsidered: int  # noqa: N815
    numFeasibleNodesToFind: int  # noqa: N815


class SchedulingEvent(_Struct):
    """The latest FailedScheduling event of the pod (its message is cut at 1,024 characters)."""

    message: str
    count: int
    # When it was last seen (lastTimestamp, series.lastObservedTime or eventTime).
    lastSeen: str | None  # noqa: N815
    reportingComponent: str  # noqa: N815


# How the emulated release was chosen: flag (--kube-version), apiServer (/version, live or
# recorded by podwhy snapshot), schedulerImage (the kube-scheduler pod's image tag),
# kubeletLowerBound (the newest kubelet: the control plane may be newer), default (nothing told it).
VersionSourceName = Literal["flag", "apiServer", "schedulerImage", "kubeletLowerBound", "default"]


class SchedulerVersion(_Struct):
    """The kube-scheduler release podwhy emulates, and how it was chosen."""

    # The emulated release, "1.35" or "1.36".
    version: str
    versionSource: VersionSourceName  # noqa: N815
    # The cluster's version as found ("v1.36.3-eks-1a2b"); null for the default.
    clusterVersion: str | None = None  # noqa: N815


class SchedulerWord(_Struct):
    """The scheduler podwhy emulates, and what kube-scheduler itself last said about the pod,
    beside podwhy's verdict."""

    # The emulated release, how it was chosen, the cluster's version as found (see SchedulerVersion).
    version: str
    versionSource: VersionSourceName  # noqa: N815
    clusterVersion: str | None = None  # noqa: N815
    # The PodScheduled condition's message: the full text.
    condition: str | None = None
    conditionReason: str | None = None  # noqa: N815
    conditionSince: str | None = None  # noqa: N815
    event: SchedulingEvent | None = None
    # Whether the scheduler's text equals podwhy's message (null when there is nothing to compare).
    agrees: bool | None = None
    # When they differ: the usual causes.
    causes: list[str] = []
    # When they differ and another emulated release ("1.33") words the scheduler's message exactly:
    # the cluster likely runs that release (the first cause).
    likelyRelease: str | None = None  # noqa: N815


class PendingCause(_Struct):
    """How `podwhy pending` classifies the pod (the same code path): what keeps it Pending, said
    first. Present for a Pending pod of the snapshot (not for a pod given with -f)."""

    # Schedulable, Unschedulable, Gated, Nominated, BoundNotRunning, NoScheduler, NoProfile, ...
    verdict: Verdict
    # The one-line cause `pending` groups it by.
    cause: str
    # Its controller, as "namespace/name (Kind)"; null for a bare pod.
    owner: str | None
    details: list[str] = []


# A change as an RFC 7386 JSON merge patch against an object of the snapshot
# ({kind, namespace, name, patch}; a null patch removes the object), or a new object ({kind, object}).
ObjectPatch = Annotated[
    dict[str, Any],
    msgspec.Meta(
        description="An RFC 7386 JSON merge patch {kind, namespace, name, patch} against an object of the "
        "snapshot (a null patch removes it), or {kind, object} for a new object",
        extra_json_schema={"required": ["kind"], "properties": {"kind": {"type": "string"}}},
    ),
]


class _BlockingCause(_Struct, tag_field="kind"):
    """What keeps the pod off nodes, from the Filter plugins' evidence (when no node fits): "kind"
    names the cause, `text` says it, `nodes` are the nodes it rejects."""

    plugin: str
    text: str
    nodes: list[str]


class Consumer(_Struct):
    """A pod and what it requests of a resource."""

    pod: str
    requested: int


class TooSmallCause(_BlockingCause, tag="tooSmall"):
    """The pod requests more of a resource than the nodes have free (`unit`: millicores, bytes,
    pods or units); `mostFree`: the most any of them has, on `mostFreeNode`."""

    resource: str
    unit: str
    requested: int
    mostFree: int  # noqa: N815
    mostFreeNode: str  # noqa: N815
    # No node of the cycle has room for it.
    everyNode: bool  # noqa: N815
    # The pods on `mostFreeNode` that request the most of the resource, most first (`requested`
    # in `unit`).
    topConsumers: list[Consumer] = []  # noqa: N815


class NotAdvertisedCause(_BlockingCause, tag="notAdvertised"):
    """An extended resource the nodes have no allocatable of."""

    resource: str
    requested: int
    everyNode: bool  # noqa: N815


class UntoleratedTaintCause(_BlockingCause, tag="untoleratedTaint"):
    """A taint of the nodes the pod does not tolerate."""

    taint: str


class MissingTopologyKeyCause(_BlockingCause, tag="missingTopologyKey"):
    """A DoNotSchedule spread constraint's topologyKey the nodes lack; `constraint`: its index in
    the pod's topologySpreadConstraints (null: a default constraint); `similarLabels`: the nodes'
    label keys that resemble it."""

    topologyKey: str  # noqa: N815
    constraint: int | None
    everyNode: bool  # noqa: N815
    similarLabels: list[str]  # noqa: N815


class NoAffinityMatchCause(_BlockingCause, tag="noAffinityMatch"):
    """A required pod affinity term no pod of the cluster matches; `namespaceSelector`: the
    namespaces it selects besides `namespaces` ("": every namespace; null: none)."""

    selector: str
    namespaces: list[str]
    namespaceSelector: str | None  # noqa: N815
    topologyKey: str  # noqa: N815


class SelectorMismatchCause(_BlockingCause, tag="selectorMismatch"):
    """The pod's nodeSelector entry (`source` nodeSelector, `wanted` "key=value") or required node
    affinity (`source` nodeAffinity, `wanted` the term's requirements the nodes fail) rejects the
    nodes; `alsoRejectedBy`: the other plugins that reject every one of them too;
    `eachRejectedOtherwise`: every one of them is rejected by some other plugin as well."""

    source: str
    wanted: str
    alsoRejectedBy: list[str]  # noqa: N815
    eachRejectedOtherwise: bool  # noqa: N815


BlockingCause = (
    TooSmallCause
    | NotAdvertisedCause
    | UntoleratedTaintCause
    | MissingTopologyKeyCause
    | NoAffinityMatchCause
    | SelectorMismatchCause
)


class Suggestion(_Struct):
    """A change verified to make the pod fit: the plugins ran again on the changed pod or cluster."""

    # releaseNomination, lowerRequest, addToleration, dropNodeSelection, renameTopologyKey, renameResource,
    # fixPodAffinity, labelNode, addNode, addNodesForGroup, awaitPreemption (no action: the scheduler
    # preempts for it; no command), evictPods, relaxTopologySpread, dropAntiAffinity,
    # raiseGroupMaxSize, addNodePoolZone, raiseNodePoolLimit
    kind: str
    summary: str
    # The nodes the pod fits on once the change is made.
    nodes: list[str]
    # Applied together, they make podwhy's verdict Schedulable.
    patches: list[ObjectPatch]
    # What a user would run (on the owning workload's template rather than the pod).
    command: str


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


class Report(_Struct, kw_only=True):
    apiVersion: Literal["podwhy/v1"] = "podwhy/v1"  # noqa: N815
    kind: Literal["Explanation"] = "Explanation"
    pod: PodSummary
    verdict: Verdict
    message: str
    # False while the message lacks the PostFilter part kube-scheduler appends.
    messageComplete: bool = True  # noqa: N815
    # When no node fits: what keeps the pod off them, one cause per line, from the plugins' evidence.
    causes: list[BlockingCause] = []
    # What keeps a Pending pod of the snapshot Pending, as `podwhy pending` says it.
    pending: PendingCause | None = None
    preFilter: list[PreFilterEntry] = []  # noqa: N815
    nodes: list[NodeReport] = []
    feasibleNodes: list[str] = []  # noqa: N815
    bestNodes: list[str] = []  # noqa: N815
    preemption: Preemption | None = None
    snapshot: SnapshotSummary
    warnings: list[str] = []
    extenders: list[str] = []
    sampling: SamplingReport | None = None
    # The emulated kube-scheduler release; the pod's PodScheduled condition and latest
    # FailedScheduling event, when the snapshot has them.
    scheduler: SchedulerWord | None = None
    # Present when the pod fits: kube-scheduler skips scoring with one feasible node.
    scoringSkipped: bool | UnsetType = UNSET  # noqa: N815
    nominatedNodeFits: bool | UnsetType = UNSET  # noqa: N815
    # The API server's words refusing the pod as the snapshot holds it ("" when it would store it):
    # stored under an older release's rules, or a dump made without an API server. The verdict is
    # what kube-scheduler does with the pod as given.
    notStorable: str = ""  # noqa: N815
    # When the verdict is Inconclusive: what podwhy could not evaluate that decides it, and the
    # kinds the snapshot holds none of that it would take (said on the table's second line).
    notEvaluated: str = ""  # noqa: N815
    lackingKinds: list[str] = []  # noqa: N815
    # When the pod is Unschedulable: changes that make it fit, each verified by re-running the plugins.
    suggestions: list[Suggestion] = []
    # When the pod is Unschedulable: whether an autoscaler will add a node for it, and why not.
    autoscaling: AutoscalingReport | None = None
    # A pod from a manifest (-f): the fields the API server would fill in before the scheduler
    # sees it (its defaulting, cluster/apiserver/defaults.py), which the verdict above already includes.
    apiServerDefaults: list[DefaultedField] | UnsetType = UNSET  # noqa: N815
    # A Job, Workload or pod Kueue holds: its Workload's admission, recomputed as Kueue decides it.
    kueue: KueueReport | UnsetType = UNSET

    def node(self, name: str) -> NodeReport | None:
        return next((n for n in self.nodes if n.name == name), None)

    @property
    def scored(self) -> bool:
        return any(n.scores for n in self.nodes)


class GroupSizingNote(_Struct):
    """How the cluster-autoscaler question went for an Unschedulable group: `sized` (its suggestion
    says how many nodes), `noNodeShape` (no node of the cluster, even emptied, holds one of its
    pods), `noCount` (no number of added nodes holds them all), `stopped` (a bound stopped the
    search) or `skipped` (not tried: only the largest groups are sized, within one bound per run)."""

    outcome: SizingOutcome
    note: str


class PendingGroup(_Struct):
    """Pending pods with one cause and one owner."""

    verdict: Verdict
    cause: str
    # The controller (Deployment, StatefulSet, Job, ...), as "namespace/name (Kind)"; null for bare pods.
    owner: str | None
    count: int
    pods: list[str]
    details: list[str] = []
    # For Unschedulable groups: how many more nodes shaped like an existing one every pod of the
    # group needs, verified by placing them one after another as the scheduler would.
    suggestions: list[Suggestion] = []
    # For Unschedulable groups: how sizing went, and why there is no count when there is none.
    sizing: GroupSizingNote | None = None
    # For Unschedulable and WaitingForNode groups (the largest): the autoscalers' view of its first pod.
    autoscaling: AutoscalingReport | None = None


class CauseNodes(_Struct, kw_only=True):
    """The nodes that would hold every pod of one Unschedulable cause, found by placing them all
    together one after another (not per group figures added up)."""

    # As for a group (GroupSizingNote): `sized` when `count` more nodes shaped like `like` hold them all.
    outcome: SizingOutcome
    count: int | None = None
    like: str | None = None
    note: str


class PendingCauseSummary(_Struct, kw_only=True):
    """Pending pods of one verdict and cause, whatever their owner: `podwhy pending`'s summary."""

    verdict: Verdict
    # The one-line cause their groups share.
    cause: str
    # For Unschedulable causes (the largest): what keeps them off every node, one line per
    # blocking cause in plain words, as explain says them.
    blocking: list[str] = []
    count: int
    # Their controllers ("namespace/name (Kind)"), most pods first; `bare`: pods without one.
    owners: list[str]
    bare: int = 0
    # How many groups (one per owner) the cause spans.
    groups: int
    # For Unschedulable causes (the largest): the nodes that would hold them all.
    nodes: CauseNodes | None = None
    # The next step, in one line; `commands`: what to run for it, each whole.
    remedy: str = ""
    commands: list[str] = []


class PendingScope(_Struct):
    """The namespaces `podwhy pending` covered."""

    # The one namespace (-n, or the context's); null for every namespace (-A, or a dump without -n).
    namespace: str | None
    # How many namespaces that is (every namespace the snapshot shows, for all of them).
    namespaces: int
    # For every namespace when there is only one: its name.
    only: str | None = None
    # For one namespace: how many Pending pods other namespaces hold (-A shows them).
    elsewhere: int = 0
    # For one namespace without Pending pods: how many of those elsewhere are stuck, their verdicts
    # (the exit code is -A's), and the command that shows them.
    elsewhereStuck: int = 0  # noqa: N815
    elsewhereVerdicts: list[Verdict] = []  # noqa: N815
    allNamespaces: str | None = None  # noqa: N815


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


class PendingReport(_Struct, kw_only=True):
    """podwhy pending: every Pending pod, grouped by cause and owner, largest group first."""

    apiVersion: Literal["podwhy/v1"] = "podwhy/v1"  # noqa: N815
    kind: Literal["PendingReport"] = "PendingReport"
    total: int
    # Pending pods that will not start as things stand (all but those that fit now, those an
    # autoscaler is adding a node for, and Inconclusive ones).
    stuck: int
    # Pending pods waiting for a node an autoscaler is adding.
    waiting: int = 0
    # When no group has an autoscaler's view: that the snapshot shows none, or cannot tell.
    autoscalers: str | None = None
    # By verdict and cause, most pods first: said before the groups.
    summary: list[PendingCauseSummary] = []
    groups: list[PendingGroup]
    snapshot: SnapshotSummary
    scope: PendingScope
    # The emulated kube-scheduler release.
    scheduler: SchedulerVersion | None = None
    warnings: list[str] = []
    # What Kueue holds (Jobs and Workloads not admitted), by ClusterQueue and cause; only when the
    # snapshot holds Kueue's objects.
    kueue: list[KueuePendingGroup] | UnsetType = UNSET

    def shown_groups(self) -> list[list[PendingGroup]]:
        """The groups as the table and markdown show them: groups alike but for their owner and
        pods (one verdict, cause, details, sizing and autoscaling, and no suggestion of their own)
        together, at the place of the first of them. A group whose cause the summary sizes is
        sized there, once: its own sizing is not what tells it apart."""
        shown: dict[str, list[PendingGroup]] = {}
        for i, group in enumerate(self.groups):
            covered = self.sized_by_cause(group)
            alike = (
                str(i)
                if self.own_suggestions(group)
                else msgspec.json.encode(
                    [group.verdict, group.cause, group.details, None if covered else group.sizing, group.autoscaling]
                ).decode()
            )
            shown.setdefault(alike, []).append(group)
        return list(shown.values())

    def sized_by_cause(self, group: PendingGroup) -> bool:
        """Whether the summary sizes the group's cause (one sizing for every group of it)."""
        index = self.cause_of(group)
        return index is not None and self.summary[index].nodes is not None

    def own_suggestions(self, group: PendingGroup) -> list[Suggestion]:
        """A group's suggestions but its sizing when the summary sizes its cause (a lever of its
        node group stays its own)."""
        if not self.sized_by_cause(group):
            return group.suggestions
        return [s for s in group.suggestions if s.kind != "addNodesForGroup"]

    def cause_of(self, group: PendingGroup) -> int | None:
        """The index of the group's cause in the summary."""
        return next(
            (i for i, c in enumerate(self.summary) if c.verdict == group.verdict and c.cause == group.cause), None
        )

    @property
    def exit_code(self) -> int:
        """1 when a pod is known to be stuck, else 3 when a pod's verdict is Inconclusive, else 4
        when a pod waits for a node an autoscaler is adding, else 0. One namespace without Pending
        pods exits as -A would (its first line leads with the others)."""
        held = [] if self.kueue is UNSET else [g for g in self.kueue if not g.admitted]
        if held:  # Kueue holds a Job: stuck (1), unless only what was not evaluated holds them
            kueue = {Verdict.INCONCLUSIVE if g.cause in KUEUE_INCONCLUSIVE else Verdict.GATED for g in held}
            return pending_exit_code({group.verdict for group in self.groups} | kueue)
        if not self.groups and self.scope.elsewhereVerdicts:
            return pending_exit_code(set(self.scope.elsewhereVerdicts))
        return pending_exit_code({group.verdict for group in self.groups})


# KueuePendingGroup causes where what decides was not evaluated (analysis/kueue.py's Fate values).
KUEUE_INCONCLUSIVE = frozenset({"NoWorkload", "AdmissionChecks", "Preemption"})


def pending_exit_code(verdicts: set[Verdict]) -> int:
    """`pending`'s exit code for Pending pods of these verdicts."""
    if verdicts - {Verdict.SCHEDULABLE, Verdict.INCONCLUSIVE, Verdict.WAITING_FOR_NODE}:
        return int(ExitCode.NOT_SCHEDULED)
    if Verdict.INCONCLUSIVE in verdicts:
        return int(ExitCode.INCONCLUSIVE)
    return int(ExitCode.WAITING_FOR_NODE if Verdict.WAITING_FOR_NODE in verdicts else ExitCode.OK)


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


def encode_json(report: Report | PendingReport | CheckReport) -> bytes:
    return msgspec.json.format(msgspec.json.encode(report), indent=2)


def to_builtins(report: Report | PendingReport | CheckReport) -> dict[str, Any]:
    out: dict[str, Any] = msgspec.to_builtins(report)
    return out


# Each report kind with a JSON Schema: (the report model, $id, title).
SCHEMA_INFO: dict[str, tuple[type[Report] | type[CheckReport] | type[PendingReport], str, str]] = {
    "Explanation": (Report, "https://podwhy.dev/schema/explanation-v1.json", "podwhy Explanation (podwhy/v1)"),
    "CheckReport": (CheckReport, "https://podwhy.dev/schema/check-report-v1.json", "podwhy CheckReport (podwhy/v1)"),
    "PendingReport": (
        PendingReport,
        "https://podwhy.dev/schema/pending-report-v1.json",
        "podwhy PendingReport (podwhy/v1)",
    ),
}


def json_schema(kind: str = "Explanation") -> dict[str, Any]:
    """The JSON Schema of a report kind (Explanation, CheckReport or PendingReport), generated from the model."""
    model, schema_id, title = SCHEMA_INFO[kind]
    schema: dict[str, Any] = _canonical(msgspec.json.schema(model))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": schema_id,
        "title": title,
        **schema,
    }


def _canonical(node: Any) -> Any:
    """NODE with every `description` on one line (its words joined by single spaces) and the
    alternatives of every `anyOf` in one order (by their JSON text).

    The descriptions are the model's docstrings, whose indentation depends on the Python (3.13
    strips it when compiling) and on msgspec (0.23 dedents them), and msgspec releases list an
    optional field's alternatives in different orders: the schema is then the same bytes on
    every Python and every msgspec release podwhy allows."""
    if isinstance(node, list):
        return [_canonical(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _canonical(value) for key, value in node.items()}
    if isinstance(out.get("description"), str):
        out["description"] = " ".join(out["description"].split())
    if isinstance(out.get("anyOf"), list):
        out["anyOf"] = sorted(out["anyOf"], key=lambda item: json.dumps(item, sort_keys=True))
    return out
