"""What the suggestions' verifier and the sizing of a pending group have to say, as typed facts:
how sizing a group went (what it takes, or why there is no count), and what a bound or a rule kept
the suggestions from. report/words/suggest.py says them. Nothing here imports the machinery that
finds them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from podwhy.analysis.keymeanings import NodeCondition
from podwhy.analysis.sizing import SizingOutcome
from podwhy.analysis.suggest.facts import Asks, Suggestion
from podwhy.framework.notevaluated import NotEvaluated
from podwhy.verdict import Verdict

# ---- sizing a pending group ----


@dataclass(frozen=True)
class WorkBound:
    """Node evaluations one group may spend, or all groups of one run (`run`)."""

    work: int
    run: bool = False


@dataclass(frozen=True)
class NoCycle:
    """Not sized: no scheduling cycle to start from."""


@dataclass(frozen=True)
class PluginsNotEvaluated:
    """Not sized: placements would pass plugins podwhy cannot run (the cycle's fact)."""

    why: NotEvaluated


@dataclass(frozen=True)
class PluginMessage:
    """The plugin's own message."""

    message: str


@dataclass(frozen=True)
class ShortBesideStartup:
    """Too little is left beside the DaemonSet and static pods a new copy runs: NodeResourcesFit's
    reasons (its own words)."""

    reasons: str


@dataclass(frozen=True)
class PortsTakenByStartup:
    """The pod's host ports are taken by the DaemonSet and static pods a new copy runs."""


KeptOff = PluginMessage | ShortBesideStartup | PortsTakenByStartup


@dataclass(frozen=True)
class CopyKeeps:
    """A reason a new copy of a node keeps (the plugin, and why), on that many nodes."""

    plugin: str
    why: KeptOff
    nodes: int


@dataclass(frozen=True)
class NoCopy:
    """No node qualifies for copying: every reason new copies keep, in the order first found."""

    reasons: tuple[CopyKeeps, ...]


@dataclass(frozen=True)
class ShortEverywhere:
    """A resource no new node has enough of: the request, the most any new node has free, and
    that node's allocatable."""

    resource: str
    requested: int
    room: int
    capacity: int


@dataclass(frozen=True)
class ShapeLacks:
    node: str
    resources: tuple[str, ...]


@dataclass(frozen=True)
class BeyondEveryNode:
    """No new node shaped like one of the cluster holds one such pod. `started`: new nodes run
    DaemonSet or static pods. Either the resources short everywhere, or each shape's lack (and
    how many more shapes)."""

    started: bool
    short: tuple[ShortEverywhere, ...] = ()
    lacking: tuple[ShapeLacks, ...] = ()
    more: int = 0


@dataclass(frozen=True)
class StoppedByTime:
    seconds: float


@dataclass(frozen=True)
class StoppedByWork:
    bound: WorkBound
    nodes: int


@dataclass(frozen=True)
class TooManyNodes:
    limit: int
    like: str


@dataclass(frozen=True)
class NoShapeFits:
    """Per node shape tried: not one pod fits a new one (`none_fits`), or more take no more."""

    like: str
    none_fits: bool


@dataclass(frozen=True)
class NoCount:
    shapes: tuple[NoShapeFits, ...]


@dataclass(frozen=True)
class Sized:
    count: int
    like: str


@dataclass(frozen=True)
class NotLargest:
    """Only the `limit` largest Unschedulable groups an added node could hold are sized."""

    limit: int


@dataclass(frozen=True)
class TooLittleLeft:
    bound: WorkBound


@dataclass(frozen=True)
class RunAgain:
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


@dataclass
class GroupSizing:
    """How sizing a pending group went: its outcome, what it takes when sized (otherwise why there
    is no count), the suggestion that adds the nodes, and (`podwhy pending`) the autoscalers'
    levers for the group (a node group's max size raised)."""

    outcome: SizingOutcome
    note: SizingNote
    suggestion: Suggestion | None = None
    levers: list[Suggestion] = field(default_factory=list)


# ---- what a bound or a rule kept the suggestions from ----


@dataclass(frozen=True)
class ConditionTaints:
    """Nodes that would take the pod but for taints of their condition: (key, what it says of the
    node), never tolerated."""

    taints: tuple[tuple[str, NodeCondition], ...]
    nodes: tuple[str, ...]


@dataclass(frozen=True)
class PlatformSelection:
    """The pod asks for a platform no node has: dropping the requirement is not suggested."""

    asks: Asks
    have: tuple[str, ...]


@dataclass(frozen=True)
class NoTopologyKeyFix:
    """No node has the topologyKey of spread constraint `index`, and no node label key like it
    (`similar`, each tried) makes the pod fit."""

    index: int
    topology_key: str
    similar: tuple[str, ...]


@dataclass(frozen=True)
class NoResourceFix:
    """No node advertises the extended resource, and no advertised one like it (`similar`, each
    tried) makes the pod fit."""

    resource: str
    similar: tuple[str, ...]


@dataclass(frozen=True)
class NoAffinityFix:
    """No pod matches required pod affinity term `index` (`selector` in `namespaces`), and neither
    another namespace nor a like label value makes the pod fit."""

    index: int
    selector: str
    namespaces: tuple[str, ...]


@dataclass(frozen=True)
class SuggestionsBound:
    reruns: int
    seconds: float


@dataclass(frozen=True)
class GroupNotSized:
    """The pod's pending group (`pods` of `owner`) was not sized: why."""

    pods: int
    owner: str | None
    why: SuggestionsBound | SizingNote


Note = ConditionTaints | PlatformSelection | GroupNotSized | NoTopologyKeyFix | NoResourceFix | NoAffinityFix
