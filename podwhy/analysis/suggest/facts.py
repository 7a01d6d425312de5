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

from enum import StrEnum
from typing import Any, ClassVar

import msgspec

from podwhy.analysis.autoscaling.facts import GroupOutcome, Reason
from podwhy.analysis.keymeanings import LabelMeaning, Reserving
from podwhy.analysis.suggest.policyfacts import PolicyNote, SatisfyPolicy
from podwhy.verdict import Verdict

# ---- lowerRequest ----


class RequestCut(msgspec.Struct, frozen=True):
    """One request lowered: a container's (`container`), or the pod-level one (None)."""

    resource: str
    to: str
    container: str | None = None


class LowerRequest(msgspec.Struct, frozen=True):
    KIND: ClassVar[str] = "lowerRequest"

    cuts: tuple[RequestCut, ...]


# ---- addToleration ----


class TaintRef(msgspec.Struct, frozen=True):
    key: str
    value: str
    effect: str


class ReservingTaint(msgspec.Struct, frozen=True):
    """A well-known reserving taint: for whom it sets its nodes aside (analysis/wellknown.py)."""

    whom: Reserving


class ToleratedThere(msgspec.Struct, frozen=True):
    """A taint every workload already on those nodes (DaemonSet and static pods aside) tolerates."""

    key: str


Reserver = ReservingTaint | ToleratedThere


class ReservedFor(msgspec.Struct, frozen=True):
    """For whom the taints set their nodes aside, and the workloads already there that tolerate
    them all (sorted)."""

    whom: tuple[Reserver, ...]
    already: tuple[str, ...] = ()


class AddToleration(msgspec.Struct, frozen=True):
    KIND: ClassVar[str] = "addToleration"

    taints: tuple[TaintRef, ...]
    # Set for the last resort: nodes reserved for someone.
    reserved_for: ReservedFor | None = None


# ---- dropNodeSelection ----


class SelectorAsks(msgspec.Struct, frozen=True):
    """The pod's nodeSelector asks for key=value."""

    key: str
    value: str


class AffinityAsks(msgspec.Struct, frozen=True):
    """The pod's required node affinity asks for key in values (`term`: which, when there are
    several)."""

    key: str
    values: tuple[str, ...]
    term: int | None = None


Asks = SelectorAsks | AffinityAsks


class DropNodeSelection(msgspec.Struct, frozen=True):
    KIND: ClassVar[str] = "dropNodeSelection"

    asks: Asks
    # The values of the label the nodes have, sorted.
    have: tuple[str, ...]
    # Why no node is relabelled with it (analysis/wellknown.py).
    well_known: LabelMeaning


# ---- labelNode ----


class Selecting(msgspec.Struct, frozen=True):
    """A workload whose pods select on the label's old value; `pod_removed`: its DaemonSet pod on
    the node would be removed."""

    workload: str
    pod_removed: bool = False


class LabelReplaced(msgspec.Struct, frozen=True):
    old: str
    selecting: tuple[Selecting, ...]


class LabelNode(msgspec.Struct, frozen=True):
    KIND: ClassVar[str] = "labelNode"

    node: str
    key: str
    value: str
    # Every node one label away (`node` first).
    one_label_away: tuple[str, ...]
    # Set when the node has the label with another value.
    replaced: LabelReplaced | None = None


# ---- what a new node runs ----


class StartupPods(msgspec.Struct, frozen=True):
    """What a new copy of a node runs from the start: its DaemonSet and static pods, counted."""

    daemonsets: int
    static: int


# ---- addNode, addNodesForGroup ----


class NoAutoscalerKnown(msgspec.Struct, frozen=True):
    """No autoscaler is known to add the node: the snapshot shows none (`vouched`: and it can
    tell that the cluster has none)."""

    vouched: bool


class InAutoscalerGroup(msgspec.Struct, frozen=True):
    """The node is one of an autoscaler's group, whose verdict for the pod is `outcome` (and
    `reason`); `max_size` when it is at its max size."""

    autoscaler: str
    group: str
    outcome: GroupOutcome
    reason: Reason | None = None
    max_size: int | None = None


class InNoGroup(msgspec.Struct, frozen=True):
    """Autoscalers run, and the node is in none of their groups."""

    autoscalers: tuple[str, ...]


# Who would add a node like the one copied: its autoscaler group's one verdict, or nobody known.
NodeAdder = NoAutoscalerKnown | InAutoscalerGroup | InNoGroup


class AddNode(msgspec.Struct, frozen=True):
    KIND: ClassVar[str] = "addNode"

    like: str
    startup: StartupPods
    # None: not looked at (no autoscaler analysis was at hand).
    adder: NodeAdder | None = None


class AddNodesForGroup(msgspec.Struct, frozen=True):
    KIND: ClassVar[str] = "addNodesForGroup"

    pods: int
    owner: str | None
    count: int
    like: str
    startup: StartupPods
    adder: NodeAdder | None = None


# ---- evictPods ----


class Recreator(msgspec.Struct, frozen=True):
    """The evicted pod's owner, which recreates it."""

    kind: str
    name: str


class NotChecked(msgspec.Struct, frozen=True):
    """Where the replacement fits was not checked (the suggestions' bound)."""


class FitsThen(msgspec.Struct, frozen=True):
    nodes: tuple[str, ...]
    # The evicted pod's node is one of them.
    back: bool


class StaysPending(msgspec.Struct, frozen=True):
    pass


class ThenVerdict(msgspec.Struct, frozen=True):
    verdict: Verdict


ReplacementFate = NotChecked | FitsThen | StaysPending | ThenVerdict


class Afterwards(msgspec.Struct, frozen=True):
    """What becomes of one evicted pod: nothing recreates a bare pod (`recreated_by` None)."""

    pod: str
    recreated_by: Recreator | None = None
    fate: ReplacementFate | None = None


class EvictPods(msgspec.Struct, frozen=True):
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


class AwaitPreemption(msgspec.Struct, frozen=True):
    """No action: the scheduler's preemption places the pod on `node`, evicting `victims` (what
    becomes of each: `afterwards`)."""

    KIND: ClassVar[str] = "awaitPreemption"

    node: str
    victims: tuple[str, ...]
    afterwards: tuple[Afterwards, ...]


# ---- releaseNomination ----


class Released(msgspec.Struct, frozen=True):
    pod: str
    priority: int
    stale: bool
    # Preempted pods it still waits for.
    terminating: int


class ReleaseNomination(msgspec.Struct, frozen=True):
    KIND: ClassVar[str] = "releaseNomination"

    node: str
    released: tuple[Released, ...]


# ---- relaxTopologySpread, dropAntiAffinity ----


class RelaxTopologySpread(msgspec.Struct, frozen=True):
    KIND: ClassVar[str] = "relaxTopologySpread"

    topology_key: str
    # maxSkew raised to this; None: whenUnsatisfiable set to ScheduleAnyway.
    max_skew: int | None


class DropAntiAffinity(msgspec.Struct, frozen=True):
    KIND: ClassVar[str] = "dropAntiAffinity"

    index: int
    topology_key: str


# ---- three common mistakes ----


class RenameTopologyKey(msgspec.Struct, frozen=True):
    KIND: ClassVar[str] = "renameTopologyKey"

    # The index of the spread constraint in the pod's topologySpreadConstraints.
    index: int
    topology_key: str
    # The node label key put in its place.
    to: str


class RenameResource(msgspec.Struct, frozen=True):
    KIND: ClassVar[str] = "renameResource"

    resource: str
    # The advertised extended resource requested instead.
    to: str


class PodAffinityNamespace(msgspec.Struct, frozen=True):
    KIND: ClassVar[str] = "fixPodAffinity"

    # The index of the required pod affinity term.
    index: int
    # Namespaces added to the term, where pods matching it run.
    namespaces: tuple[str, ...]


class PodAffinityValue(msgspec.Struct, frozen=True):
    KIND: ClassVar[str] = "fixPodAffinity"

    index: int
    key: str
    value: str
    # The value of KEY that pods in the term's namespaces have, put in its place.
    to: str


# ---- the autoscalers' levers ----


class GroupNeeds(msgspec.Struct, frozen=True):
    """The pod's pending group needs `count` more nodes of the node group (sized earlier)."""

    pods: int
    owner: str | None
    count: int


class RaiseGroupMaxSize(msgspec.Struct, frozen=True):
    KIND: ClassVar[str] = "raiseGroupMaxSize"

    group: str
    from_size: int
    to_size: int
    # None: the pod fits a new node of it.
    needs: GroupNeeds | None
    example: str
    target: int | None


class AddNodePoolZone(msgspec.Struct, frozen=True):
    KIND: ClassVar[str] = "addNodePoolZone"

    pool: str
    zone: str


class RaiseNodePoolLimit(msgspec.Struct, frozen=True):
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


class TemplateNotRolledOut(msgspec.Struct, frozen=True):
    """A ReplicaSet without a Deployment, or a ReplicationController (`kind`), replaces no pod when
    its template changes: the Pending pods are deleted after the patch and recreated from it."""

    kind: str


class ManifestOnStdin(msgspec.Struct, frozen=True):
    """The pod's manifest came on stdin: the command reads it there again."""


class JobRecreated(msgspec.Struct, frozen=True):
    """A Job's pod template cannot change: the Job is deleted and created again (its pods start over)."""


class CronJobRecreated(msgspec.Struct, frozen=True):
    """The CronJob's next Jobs get the change; its running Job, whose pod template cannot change,
    is recreated from it (its pods start over)."""


class StatefulSetHold(StrEnum):
    """What keeps a StatefulSet from replacing a Pending pod until it is deleted."""

    # The snapshot lacks the StatefulSet: the default podManagementPolicy, OrderedReady, is assumed.
    UNKNOWN = "Unknown"
    ON_DELETE = "OnDelete"
    ORDERED_READY = "OrderedReady"


class StatefulSetReplaced(msgspec.Struct, frozen=True):
    """What a StatefulSet's command does beyond the patch: its rolling update's partition lowered
    (`partition`, to `lowest`: ordinals below it keep the old template), and the Pending pods
    deleted after the patch (`held`: why the StatefulSet would not replace them itself)."""

    partition: int | None = None
    lowest: int | None = None
    held: StatefulSetHold | None = None


class ThroughEvictionApi(msgspec.Struct, frozen=True):
    """Evictions through the Eviction API, which refuses what a PodDisruptionBudget forbids
    (`kubectl delete pod` would not)."""


class StatusPatch(msgspec.Struct, frozen=True):
    """A patch of pods' status subresource: kubectl 1.24 or later, and the right to patch pods/status."""


class ScaleNodeGroup(msgspec.Struct, frozen=True):
    """No command: `count` nodes like `like` are the node group's to add (cloud configuration),
    by its group's one verdict (`adder`)."""

    like: str
    count: int
    adder: NodeAdder | None


class SetGroupMaxSize(msgspec.Struct, frozen=True):
    """No command (a node group's max size is cloud configuration): set `group`'s to `wanted`."""

    group: str
    wanted: int


class ManifestEdit(msgspec.Struct, frozen=True):
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


class Command(msgspec.Struct, frozen=True):
    """How to make a change: the shell line to run, each word quoted ("" when there is none to
    run), and what report/words/suggest.py says of it after it, as a comment."""

    line: str = ""
    note: CommandNote | None = None


class Suggestion(msgspec.Struct):
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


class PolicyFixes(msgspec.Struct, frozen=True):
    """What is suggested for the ValidatingAdmissionPolicy that refuses a workload's pods: the
    verified changes (satisfyPolicy), and what podwhy could not suggest, and why."""

    suggestions: tuple[Suggestion, ...] = ()
    notes: tuple[PolicyNote, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.suggestions or self.notes)
