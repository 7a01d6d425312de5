"""The report (apiVersion podwhy/v1, kind Explanation) as typed structs: `podwhy explain`'s.

Built once from the scheduling cycle's outcome; JSON, YAML, the table and `--node` all
render this model and nothing else, and `schema.json` is generated from it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from msgspec import UNSET, UnsetType

from podwhy.framework.evidence import AnyEvidence
from podwhy.report.model.autoscaling import AutoscalingReport
from podwhy.report.model.blocking import BlockingCause
from podwhy.report.model.common import (
    DefaultedField,
    SnapshotSummary,
    Suggestion,
    VersionSourceName,
    _Struct,
)
from podwhy.report.model.kueue import KueueReport
from podwhy.report.model.notcreated import WorkloadTarget
from podwhy.verdict import Verdict

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


class NodeGroup(_Struct):
    """Nodes with identical verdicts: the same feasibility, the same plugin where kube-scheduler
    stops (`firstFailure`) and, plugin by plugin, the same status and reasons. The facts behind
    them (each node's free and used amounts, its nominated pods, its scores) are per node, in
    `nodes`; `evidence` is never set here."""

    count: int
    # The group's nodes, in the order of the report's `nodes` (the scheduler's walk).
    nodes: list[str]
    feasible: bool
    firstFailure: PluginStatus | None  # noqa: N815
    filters: list[PluginStatus]


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
    # Every node's verdict, evidence and scores: left out of -o json|yaml above NODES_LISTED nodes
    # unless --nodes all (said in `omitted`); the table and --node read them always.
    nodes: list[NodeReport] = []
    # The nodes grouped by identical verdicts, most nodes first (ties: the group whose first node
    # comes first in `nodes`); always present, every node in exactly one group.
    nodeGroups: list[NodeGroup] = []  # noqa: N815
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
    # explain TYPE/NAME of a workload: which of its pods is explained (the report is that pod's),
    # or, when none is Pending, why: its controller's FailedCreate events (verdict NotCreated).
    workload: WorkloadTarget | UnsetType = UNSET
    # -o json|yaml of a cluster of more than NODES_LISTED nodes (or --nodes grouped): the lists left
    # short, by their path ("nodes", "preemption.dryRun", "causes[0].nodes", ...), each with how many
    # of its entries were left out (`nodes` entirely, the others after their first NODES_LISTED).
    # Absent when every list is whole (--nodes all).
    omitted: dict[str, int] | UnsetType = UNSET

    def node(self, name: str) -> NodeReport | None:
        return next((n for n in self.nodes if n.name == name), None)

    @property
    def scored(self) -> bool:
        return any(n.scores for n in self.nodes)
