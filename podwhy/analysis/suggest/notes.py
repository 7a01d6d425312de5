"""What the suggestions' verifier and the sizing of a pending group have to say, as typed facts:
how sizing a group went (what it takes, or why there is no count), and what a bound or a rule kept
the suggestions from. report/words/suggest.py says them. Nothing here imports the machinery that
finds them.
"""

from __future__ import annotations

import msgspec

from podwhy.analysis.keymeanings import NodeCondition
from podwhy.analysis.sizing import SizingOutcome
from podwhy.analysis.suggest.facts import Asks, Suggestion
from podwhy.framework.notevaluated import NotEvaluated
from podwhy.verdict import Verdict

# ---- sizing a pending group ----


class WorkBound(msgspec.Struct, frozen=True):
    """Node evaluations one group may spend, or all groups of one run (`run`)."""

    work: int
    run: bool = False


class NoCycle(msgspec.Struct, frozen=True):
    """Not sized: no scheduling cycle to start from."""


class PluginsNotEvaluated(msgspec.Struct, frozen=True):
    """Not sized: placements would pass plugins podwhy cannot run (the cycle's fact)."""

    why: NotEvaluated


class PluginMessage(msgspec.Struct, frozen=True):
    """The plugin's own message."""

    message: str


class ShortBesideStartup(msgspec.Struct, frozen=True):
    """Too little is left beside the DaemonSet and static pods a new copy runs: NodeResourcesFit's
    reasons (its own words)."""

    reasons: str


class PortsTakenByStartup(msgspec.Struct, frozen=True):
    """The pod's host ports are taken by the DaemonSet and static pods a new copy runs."""


KeptOff = PluginMessage | ShortBesideStartup | PortsTakenByStartup


class CopyKeeps(msgspec.Struct, frozen=True):
    """A reason a new copy of a node keeps (the plugin, and why), on that many nodes."""

    plugin: str
    why: KeptOff
    nodes: int


class NoCopy(msgspec.Struct, frozen=True):
    """No node qualifies for copying: every reason new copies keep, in the order first found."""

    reasons: tuple[CopyKeeps, ...]


class ShortEverywhere(msgspec.Struct, frozen=True):
    """A resource no new node has enough of: the request, the most any new node has free, and
    that node's allocatable."""

    resource: str
    requested: int
    room: int
    capacity: int


class ShapeLacks(msgspec.Struct, frozen=True):
    node: str
    resources: tuple[str, ...]


class BeyondEveryNode(msgspec.Struct, frozen=True):
    """No new node shaped like one of the cluster holds one such pod. `started`: new nodes run
    DaemonSet or static pods. Either the resources short everywhere, or each shape's lack (and
    how many more shapes)."""

    started: bool
    short: tuple[ShortEverywhere, ...] = ()
    lacking: tuple[ShapeLacks, ...] = ()
    more: int = 0


class StoppedByTime(msgspec.Struct, frozen=True):
    seconds: float


class StoppedByWork(msgspec.Struct, frozen=True):
    bound: WorkBound
    nodes: int


class TooManyNodes(msgspec.Struct, frozen=True):
    limit: int
    like: str


class NoShapeFits(msgspec.Struct, frozen=True):
    """Per node shape tried: not one pod fits a new one (`none_fits`), or more take no more."""

    like: str
    none_fits: bool


class NoCount(msgspec.Struct, frozen=True):
    shapes: tuple[NoShapeFits, ...]


class Sized(msgspec.Struct, frozen=True):
    count: int
    like: str


class NotLargest(msgspec.Struct, frozen=True):
    """Only the `limit` largest Unschedulable groups an added node could hold are sized."""

    limit: int


class TooLittleLeft(msgspec.Struct, frozen=True):
    bound: WorkBound


class RunAgain(msgspec.Struct, frozen=True):
    """The group's first pod is no longer Unschedulable."""

    verdict: Verdict


SizingNote = (
    NoCycle
    | PluginsNotEvaluated
    | NoCopy
    | BeyondEveryNode
    | StoppedByTime
    | StoppedByWork
    | TooManyNodes
    | NoCount
    | Sized
    | NotLargest
    | TooLittleLeft
    | RunAgain
)


class GroupSizing(msgspec.Struct):
    """How sizing a pending group went: its outcome, what it takes when sized (otherwise why there
    is no count), the suggestion that adds the nodes, and (`podwhy pending`) the autoscalers'
    levers for the group (a node group's max size raised)."""

    outcome: SizingOutcome
    note: SizingNote
    suggestion: Suggestion | None = None
    levers: list[Suggestion] = msgspec.field(default_factory=list)


# ---- what a bound or a rule kept the suggestions from ----


class ConditionTaints(msgspec.Struct, frozen=True):
    """Nodes that would take the pod but for taints of their condition: (key, what it says of the
    node), never tolerated."""

    taints: tuple[tuple[str, NodeCondition], ...]
    nodes: tuple[str, ...]


class PlatformSelection(msgspec.Struct, frozen=True):
    """The pod asks for a platform no node has: dropping the requirement is not suggested."""

    asks: Asks
    have: tuple[str, ...]


class NoTopologyKeyFix(msgspec.Struct, frozen=True):
    """No node has the topologyKey of spread constraint `index`, and no node label key like it
    (`similar`, each tried) makes the pod fit."""

    index: int
    topology_key: str
    similar: tuple[str, ...]


class NoResourceFix(msgspec.Struct, frozen=True):
    """No node advertises the extended resource, and no advertised one like it (`similar`, each
    tried) makes the pod fit."""

    resource: str
    similar: tuple[str, ...]


class NoAffinityFix(msgspec.Struct, frozen=True):
    """No pod matches required pod affinity term `index` (`selector` in `namespaces`), and neither
    another namespace nor a like label value makes the pod fit."""

    index: int
    selector: str
    namespaces: tuple[str, ...]


class SuggestionsBound(msgspec.Struct, frozen=True):
    reruns: int
    seconds: float


class GroupNotSized(msgspec.Struct, frozen=True):
    """The pod's pending group (`pods` of `owner`) was not sized: why."""

    pods: int
    owner: str | None
    why: SuggestionsBound | SizingNote


Note = ConditionTaints | PlatformSelection | GroupNotSized | NoTopologyKeyFix | NoResourceFix | NoAffinityFix
