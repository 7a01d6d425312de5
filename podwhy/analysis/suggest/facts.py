"""What each kind of suggestion changes and how to make it, as typed facts: report/words/suggest.py
says them (what the verifier and a group's sizing have to say is notes.py's). Nothing here imports
the machinery that finds them.

A change carries what its sentence names (the resource and the quantity it goes to, the node, the
label, the taints, the group and counts); the nodes the pod then fits on, the patches and the
command are the Suggestion's. A command is the shell line to run and a typed note on why it is
shaped so, which the words say as its comment. Quantities are kept as the patches write them;
counts as integers.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from podwhy.analysis.autoscaling.facts import GroupOutcome, Reason
from podwhy.analysis.keymeanings import LabelMeaning, Reserving
from podwhy.analysis.suggest.policyfacts import PolicyNote, SatisfyPolicy
from podwhy.verdict import Verdict

# ---- lowerRequest ----


@dataclass(frozen=True)
class RequestCut:
    """One request lowered: a container's (`container`), or the pod-level one (None)."""

    resource: str
    to: str
    container: str | None = None


@dataclass(frozen=True)
class LowerRequest:
    KIND: ClassVar[str] = "lowerRequest"

    cuts: tuple[RequestCut, ...]


# ---- addToleration ----


@dataclass(frozen=True)
class TaintRef:
    key: str
    value: str
    effect: str


@dataclass(frozen=True)
class ReservingTaint:
    """A well-known reserving taint: for whom it sets its nodes aside (analysis/wellknown.py)."""

    whom: Reserving


@dataclass(frozen=True)
class ToleratedThere:
    """A taint every workload already on those nodes (DaemonSet and static pods aside) tolerates."""

    key: str


Reserver = ReservingTaint | ToleratedThere


@dataclass(frozen=True)
class ReservedFor:
    """For whom the taints set their nodes aside, and the workloads already there that tolerate
    them all (sorted)."""

    whom: tuple[Reserver, ...]
    already: tuple[str, ...] = ()


@dataclass(frozen=True)
class AddToleration:
    KIND: ClassVar[str] = "addToleration"

    taints: tuple[TaintRef, ...]
    # Set for the last resort: nodes reserved for someone.
    reserved_for: ReservedFor | None = None


# ---- dropNodeSelection ----


@dataclass(frozen=True)
class SelectorAsks:
    """The pod's nodeSelector asks for key=value."""

    key: str
    value: str


@dataclass(frozen=True)
class AffinityAsks:
    """The pod's required node affinity asks for key in values (`term`: which, when there are
    several)."""

    key: str
    values: tuple[str, ...]
    term: int | None = None


Asks = SelectorAsks | AffinityAsks


@dataclass(frozen=True)
class DropNodeSelection:
    KIND: ClassVar[str] = "dropNodeSelection"

    asks: Asks
    # The values of the label the nodes have, sorted.
    have: tuple[str, ...]
    # Why no node is relabelled with it (analysis/wellknown.py).
    well_known: LabelMeaning


# ---- labelNode ----


@dataclass(frozen=True)
class Selecting:
    """A workload whose pods select on the label's old value; `pod_removed`: its DaemonSet pod on
    the node would be removed."""

    workload: str
    pod_removed: bool = False


@dataclass(frozen=True)
class LabelReplaced:
    old: str
    selecting: tuple[Selecting, ...]


@dataclass(frozen=True)
class LabelNode:
    KIND: ClassVar[str] = "labelNode"

    node: str
    key: str
    value: str
    # Every node one label away (`node` first).
    one_label_away: tuple[str, ...]
    # Set when the node has the label with another value.
    replaced: LabelReplaced | None = None


# ---- what a new node runs ----


@dataclass(frozen=True)
class StartupPods:
    """What a new copy of a node runs from the start: its DaemonSet and static pods, counted."""

    daemonsets: int
    static: int


# ---- addNode, addNodesForGroup ----


@dataclass(frozen=True)
class NoAutoscalerKnown:
    """No autoscaler is known to add the node: the snapshot shows none (`vouched`: and it can
    tell that the cluster has none)."""

    vouched: bool


@dataclass(frozen=True)
class InAutoscalerGroup:
    """The node is one of an autoscaler's group, whose verdict for the pod is `outcome` (and
    `reason`); `max_size` when it is at its max size."""

    autoscaler: str
    group: str
    outcome: GroupOutcome
    reason: Reason | None = None
    max_size: int | None = None


@dataclass(frozen=True)
class InNoGroup:
    """Autoscalers run, and the node is in none of their groups."""

    autoscalers: tuple[str, ...]


# Who would add a node like the one copied: its autoscaler group's one verdict, or nobody known.
NodeAdder = NoAutoscalerKnown | InAutoscalerGroup | InNoGroup


@dataclass(frozen=True)
class AddNode:
    KIND: ClassVar[str] = "addNode"

    like: str
    startup: StartupPods
    # None: not looked at (no autoscaler analysis was at hand).
    adder: NodeAdder | None = None


@dataclass(frozen=True)
class AddNodesForGroup:
    KIND: ClassVar[str] = "addNodesForGroup"

    pods: int
    owner: str | None
    count: int
    like: str
    startup: StartupPods
    adder: NodeAdder | None = None


# ---- evictPods ----


@dataclass(frozen=True)
class Recreator:
    """The evicted pod's owner, which recreates it."""

    kind: str
    name: str


@dataclass(frozen=True)
class NotChecked:
    """Where the replacement fits was not checked (the suggestions' bound)."""


@dataclass(frozen=True)
class FitsThen:
    nodes: tuple[str, ...]
    # The evicted pod's node is one of them.
    back: bool


@dataclass(frozen=True)
class StaysPending:
    pass


@dataclass(frozen=True)
class ThenVerdict:
    verdict: Verdict


ReplacementFate = NotChecked | FitsThen | StaysPending | ThenVerdict


@dataclass(frozen=True)
class Afterwards:
    """What becomes of one evicted pod: nothing recreates a bare pod (`recreated_by` None)."""

    pod: str
    recreated_by: Recreator | None = None
    fate: ReplacementFate | None = None


@dataclass(frozen=True)
class EvictPods:
    KIND: ClassVar[str] = "evictPods"

    node: str
    victims: tuple[str, ...]
    # The snapshot has no PodDisruptionBudgets (or they were assumed none).
    budgets_unknown: bool
    afterwards: tuple[Afterwards, ...]

    @property
    def last_resort(self) -> bool:
        """An evicted pod's replacement stays Pending: the eviction moves the problem to another
        workload (ranked after every other change)."""
        return any(isinstance(a.fate, StaysPending) for a in self.afterwards)


@dataclass(frozen=True)
class AwaitPreemption:
    """No action: the scheduler's preemption places the pod on `node`, evicting `victims` (what
    becomes of each: `afterwards`)."""

    KIND: ClassVar[str] = "awaitPreemption"

    node: str
    victims: tuple[str, ...]
    afterwards: tuple[Afterwards, ...]


# ---- releaseNomination ----


@dataclass(frozen=True)
class Released:
    pod: str
    priority: int
    stale: bool
    # Preempted pods it still waits for.
    terminating: int


@dataclass(frozen=True)
class ReleaseNomination:
    KIND: ClassVar[str] = "releaseNomination"

    node: str
    released: tuple[Released, ...]


# ---- relaxTopologySpread, dropAntiAffinity ----


@dataclass(frozen=True)
class RelaxTopologySpread:
    KIND: ClassVar[str] = "relaxTopologySpread"

    topology_key: str
    # maxSkew raised to this; None: whenUnsatisfiable set to ScheduleAnyway.
    max_skew: int | None


@dataclass(frozen=True)
class DropAntiAffinity:
    KIND: ClassVar[str] = "dropAntiAffinity"

    index: int
    topology_key: str


# ---- three common mistakes ----


@dataclass(frozen=True)
class RenameTopologyKey:
    KIND: ClassVar[str] = "renameTopologyKey"

    # The index of the spread constraint in the pod's topologySpreadConstraints.
    index: int
    topology_key: str
    # The node label key put in its place.
    to: str


@dataclass(frozen=True)
class RenameResource:
    KIND: ClassVar[str] = "renameResource"

    resource: str
    # The advertised extended resource requested instead.
    to: str


@dataclass(frozen=True)
class PodAffinityNamespace:
    KIND: ClassVar[str] = "fixPodAffinity"

    # The index of the required pod affinity term.
    index: int
    # Namespaces added to the term, where pods matching it run.
    namespaces: tuple[str, ...]


@dataclass(frozen=True)
class PodAffinityValue:
    KIND: ClassVar[str] = "fixPodAffinity"

    index: int
    key: str
    value: str
    # The value of KEY that pods in the term's namespaces have, put in its place.
    to: str


# ---- the autoscalers' levers ----


@dataclass(frozen=True)
class GroupNeeds:
    """The pod's pending group needs `count` more nodes of the node group (sized earlier)."""

    pods: int
    owner: str | None
    count: int


@dataclass(frozen=True)
class RaiseGroupMaxSize:
    KIND: ClassVar[str] = "raiseGroupMaxSize"

    group: str
    from_size: int
    to_size: int
    # None: the pod fits a new node of it.
    needs: GroupNeeds | None
    example: str
    target: int | None


@dataclass(frozen=True)
class AddNodePoolZone:
    KIND: ClassVar[str] = "addNodePoolZone"

    pool: str
    zone: str


@dataclass(frozen=True)
class RaiseNodePoolLimit:
    KIND: ClassVar[str] = "raiseNodePoolLimit"

    pool: str
    resource: str
    from_limit: str
    to_limit: str
    used: str


Change = (
    LowerRequest
    | AddToleration
    | DropNodeSelection
    | LabelNode
    | AddNode
    | AddNodesForGroup
    | EvictPods
    | AwaitPreemption
    | ReleaseNomination
    | RelaxTopologySpread
    | DropAntiAffinity
    | RenameTopologyKey
    | RenameResource
    | PodAffinityNamespace
    | PodAffinityValue
    | RaiseGroupMaxSize
    | AddNodePoolZone
    | RaiseNodePoolLimit
    | SatisfyPolicy
)


# ---- how to make a change: the command, and why it is shaped so ----


@dataclass(frozen=True)
class TemplateNotRolledOut:
    """A ReplicaSet without a Deployment, or a ReplicationController (`kind`), replaces no pod when
    its template changes: the Pending pods are deleted after the patch and recreated from it."""

    kind: str


@dataclass(frozen=True)
class ManifestOnStdin:
    """The pod's manifest came on stdin: the command reads it there again."""


@dataclass(frozen=True)
class JobRecreated:
    """A Job's pod template cannot change: the Job is deleted and created again (its pods start over)."""


@dataclass(frozen=True)
class CronJobRecreated:
    """The CronJob's next Jobs get the change; its running Job, whose pod template cannot change,
    is recreated from it (its pods start over)."""


class StatefulSetHold(StrEnum):
    """What keeps a StatefulSet from replacing a Pending pod until it is deleted."""

    # The snapshot lacks the StatefulSet: the default podManagementPolicy, OrderedReady, is assumed.
    UNKNOWN = "Unknown"
    ON_DELETE = "OnDelete"
    ORDERED_READY = "OrderedReady"


@dataclass(frozen=True)
class StatefulSetReplaced:
    """What a StatefulSet's command does beyond the patch: its rolling update's partition lowered
    (`partition`, to `lowest`: ordinals below it keep the old template), and the Pending pods
    deleted after the patch (`held`: why the StatefulSet would not replace them itself)."""

    partition: int | None = None
    lowest: int | None = None
    held: StatefulSetHold | None = None


@dataclass(frozen=True)
class ThroughEvictionApi:
    """Evictions through the Eviction API, which refuses what a PodDisruptionBudget forbids
    (`kubectl delete pod` would not)."""


@dataclass(frozen=True)
class StatusPatch:
    """A patch of pods' status subresource: kubectl 1.24 or later, and the right to patch pods/status."""


@dataclass(frozen=True)
class ScaleNodeGroup:
    """No command: `count` nodes like `like` are the node group's to add (cloud configuration),
    by its group's one verdict (`adder`)."""

    like: str
    count: int
    adder: NodeAdder | None


@dataclass(frozen=True)
class SetGroupMaxSize:
    """No command (a node group's max size is cloud configuration): set `group`'s to `wanted`."""

    group: str
    wanted: int


@dataclass(frozen=True)
class ManifestEdit:
    """No command: the change is made to the manifest at `path` (a Pod `check` read, which several
    objects may share)."""

    path: str


CommandNote = (
    TemplateNotRolledOut
    | ManifestOnStdin
    | JobRecreated
    | CronJobRecreated
    | StatefulSetReplaced
    | ThroughEvictionApi
    | StatusPatch
    | ScaleNodeGroup
    | SetGroupMaxSize
    | ManifestEdit
)


@dataclass(frozen=True)
class Command:
    """How to make a change: the shell line to run, each word quoted ("" when there is none to
    run), and what report/words/suggest.py says of it after it, as a comment."""

    line: str = ""
    note: CommandNote | None = None


@dataclass
class Suggestion:
    """A verified change (report/words/suggest.py says it), the nodes the pod fits on once it is
    made, and how to make it: merge patches and a command."""

    change: Change
    nodes: list[str]
    patches: list[dict[str, Any]]
    command: Command
    # The pod's merge patch carries the redacted values of a redacted snapshot.
    redacted: bool = False

    @property
    def kind(self) -> str:
        return self.change.KIND


@dataclass(frozen=True)
class PolicyFixes:
    """What is suggested for the ValidatingAdmissionPolicy that refuses a workload's pods: the
    verified changes (satisfyPolicy), and what podwhy could not suggest, and why."""

    suggestions: tuple[Suggestion, ...] = ()
    notes: tuple[PolicyNote, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.suggestions or self.notes)
