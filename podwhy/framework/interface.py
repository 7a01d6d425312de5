"""Plugin base class, cycle state and the handle plugins use to read the cluster."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import msgspec

from podwhy.framework.plugin_args import PluginArgs
from podwhy.framework.signature import PLUGIN_PARTS, PodPart
from podwhy.framework.status import Status
from podwhy.framework.types import NodeInfo, PodInfo

if TYPE_CHECKING:
    from podwhy.framework.equivalence import NodeReader
    from podwhy.framework.handle import Handle

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0

# Upstream's extension points, in the order of config.Plugins.
EXTENSION_POINTS = (
    "preEnqueue",
    "queueSort",
    "preFilter",
    "filter",
    "postFilter",
    "preScore",
    "score",
    "reserve",
    "permit",
    "preBind",
    "bind",
    "postBind",
)

# The extension point each method podwhy runs belongs to (AddPod/RemovePod extend PreFilter,
# NormalizeScore extends Score).
_POINT_OF_METHOD = {
    "pre_enqueue": "preEnqueue",
    "less": "queueSort",
    "pre_filter": "preFilter",
    "filter": "filter",
    "post_filter": "postFilter",
    "pre_score": "preScore",
    "score": "score",
}


class CycleState:
    """Per-pod scheduling state keyed by plugin; cloned for the nominated-pods pass."""

    def __init__(self) -> None:
        self._data: dict[str, Any] = {}
        self.skip_filter_plugins: set[str] = set()
        self.skip_score_plugins: set[str] = set()

    def write(self, key: str, value: Any) -> None:
        self._data[key] = value

    def read(self, key: str) -> Any:
        """The value stored under key; KeyError when PreFilter did not store it."""
        return self._data[key]

    def get(self, key: str) -> Any:
        return self._data.get(key)

    def clone(self) -> CycleState:
        out = CycleState()
        for key, value in self._data.items():
            clone = getattr(value, "clone", None)
            out._data[key] = clone() if callable(clone) else copy.copy(value)
        out.skip_filter_plugins = set(self.skip_filter_plugins)
        out.skip_score_plugins = set(self.skip_score_plugins)
        return out


class PreFilterResult(msgspec.Struct):
    """Node names a PreFilter plugin restricts the pod to; None means all nodes."""

    node_names: set[str] | None = None

    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: PreFilterResult | None) -> PreFilterResult:
        if other is None or other.all_nodes():
            return PreFilterResult(None if self.node_names is None else set(self.node_names))
        if self.all_nodes():
            return PreFilterResult(set(other.node_names or set()))
        return PreFilterResult((self.node_names or set()) & (other.node_names or set()))


class PostFilterResult(msgspec.Struct):
    """fwk.PostFilterResult: the node to nominate ("" clears a nomination); None leaves it as is."""

    nominated_node_name: str | None = None


PRE_FILTER_REACHED_KEY = "podwhy/preFilterReached"


class PreFilterReached(msgspec.Struct, frozen=True):
    """The PreFilter plugins kube-scheduler ran before it stopped (it stops at UnschedulableAndUnresolvable).

    podwhy runs every PreFilter; a PostFilter plugin reading its own state checks this first,
    because upstream finds no state for a plugin it never reached ("not found").
    """

    plugins: frozenset[str]

    def clone(self) -> PreFilterReached:
        return self


class FilterRunner(Protocol):
    """The framework calls a PostFilter plugin needs to dry-run filters (fwk.Handle's part of the framework)."""

    def run_filter_plugins_with_nominated_pods(
        self, state: CycleState, pod: PodInfo, node_info: NodeInfo
    ) -> Status: ...

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod: PodInfo, to_add: PodInfo, node_info: NodeInfo
    ) -> Status: ...

    def run_pre_filter_extension_remove_pod(
        self, state: CycleState, pod: PodInfo, to_remove: PodInfo, node_info: NodeInfo
    ) -> Status: ...


class QueuedPodInfo(msgspec.Struct, frozen=True):
    """A pod waiting in the scheduling queue, with the time it was added (seconds)."""

    pod_info: PodInfo
    timestamp: float


class Plugin:
    """A scheduler plugin. Subclasses override the extension points they implement.

    NAME is the plugin's upstream name, written nowhere else. ARGS is the args kind a
    plugin takes (None: it takes none). UNSIMULATED_POINTS are the extension points the
    plugin has upstream that podwhy never runs (binding, reserving, ...); the others
    follow from the methods a plugin overrides.
    """

    NAME: ClassVar[str] = ""
    ARGS: ClassVar[type[PluginArgs] | None] = None
    UNSIMULATED_POINTS: ClassVar[frozenset[str]] = frozenset()

    # Traits podwhy's own reasoning reads; plugins/registry.py gathers them by name.
    # Its Filter verdict on a node reads only the pod and that node (its labels, taints,
    # allocatable, and the pods bound or nominated there): nothing placed on other nodes changes it.
    NODE_LOCAL_FILTER: ClassVar[bool] = False
    # Its raw Score of a node reads only the pod and that node (ImageLocality's also the number of
    # nodes holding an image, which placing pods does not change).
    NODE_LOCAL_SCORE: ClassVar[bool] = False
    # A new copy of a node it rejects the pod on (running only that node's DaemonSet and static
    # pods) may take the pod: its rejection rests on what runs on the node, or where the node is
    # among the others (addNode checks that the copy's own pods leave room).
    CURED_BY_EMPTY_NODE: ClassVar[bool] = False
    # Its Filter may leave a node's verdict not evaluated (a Status carrying not_evaluated, on the
    # nodes where what it reads there podwhy cannot evaluate): the cycle looks for those.
    NODE_NOT_EVALUATED: ClassVar[bool] = False
    # The parts of a pod its verdicts and scores read (framework/signature.py).
    POD_PARTS: ClassVar[frozenset[PodPart]] = PLUGIN_PARTS

    def __init__(self, handle: Handle, args: PluginArgs | None = None) -> None:
        self.handle = handle
        self.args = args
        # Set by the Framework that runs the plugin (PostFilter plugins re-run filters through it).
        self.framework: FilterRunner | None = None

    # Kinds of objects the plugin must read for this pod; used to mark it
    # "not evaluated" when the snapshot cannot vouch for them.
    def required_kinds(self, pod: PodInfo) -> set[str]:
        return set()

    # The same for scoring, where a plugin may read more than its Filter does.
    def required_kinds_for_score(self, pod: PodInfo) -> set[str]:
        return self.required_kinds(pod)

    # Kinds whose admission results (fields the API server sets on a pod from them) the plugin
    # reads: a manifest pod admitted without them (Snapshot.admitted_without) leaves it unknown.
    ADMISSION_KINDS: ClassVar[frozenset[str]] = frozenset()

    def needed_kinds(self, pod: PodInfo, score: bool = False) -> set[str]:
        """Everything the plugin's verdict (or score) for the pod rests on the snapshot vouching for."""
        kinds = self.required_kinds_for_score(pod) if score else self.required_kinds(pod)
        admitted = self.handle.snapshot.admitted_without.get(pod.key) if self.ADMISSION_KINDS else None
        return kinds | (admitted & self.ADMISSION_KINDS) if admitted else kinds

    # --- extension points (overridden by subclasses) ---------------------
    def pre_enqueue(self, pod: PodInfo) -> Status:
        """Whether the pod may enter the active queue at all."""
        raise NotImplementedError

    def less(self, first: QueuedPodInfo, second: QueuedPodInfo) -> bool:
        """QueueSort: whether `first` is popped from the queue before `second`."""
        raise NotImplementedError

    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        raise NotImplementedError

    def add_pod(self, state: CycleState, pod: PodInfo, to_add: PodInfo, node_info: NodeInfo) -> Status:
        raise NotImplementedError

    def remove_pod(self, state: CycleState, pod: PodInfo, to_remove: PodInfo, node_info: NodeInfo) -> Status:
        raise NotImplementedError

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status:
        raise NotImplementedError

    def filter_key(self, state: CycleState, pod: PodInfo) -> NodeReader | None:
        """What of a node this plugin's Filter reads for the pod, once PreFilter has run
        (framework/equivalence.py): a reader whose values are equal on two nodes only when Filter
        gives them equal statuses, reasons and evidence included (`reads_nothing` when it gives
        every node the same). None, the default: it cannot say, and each node is filtered on its
        own for this pod."""
        return None

    def score_key(self, state: CycleState, pod: PodInfo) -> NodeReader | None:
        """What of a node this plugin's Score reads for the pod, once PreScore has run: a reader
        whose values are equal on two nodes only when Score gives them the same score and status,
        evidence included. None, the default: each node is scored on its own."""
        return None

    def post_filter(
        self, state: CycleState, pod: PodInfo, node_statuses: dict[str, Status]
    ) -> tuple[PostFilterResult | None, Status]:
        """Runs when no node fits; node_statuses holds each rejected node's status (absent: unresolvable)."""
        raise NotImplementedError

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
        raise NotImplementedError

    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> tuple[int, Status]:
        raise NotImplementedError

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> tuple[dict[str, int], Status]:
        """Score of each of `nodes` without evidence, the same raw scores as `score` (optional:
        a plugin whose Score is costly across many nodes offers it for callers wanting totals)."""
        raise NotImplementedError

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status:
        raise NotImplementedError

    # --- which points a plugin has ----------------------------------------
    @classmethod
    def implements(cls, point: str) -> bool:
        method: Callable[..., Any] | None = getattr(cls, point, None)
        base: Callable[..., Any] | None = getattr(Plugin, point, None)
        return method is not None and method is not base

    @classmethod
    def extension_points(cls) -> frozenset[str]:
        """The extension points the plugin extends: those of its methods, and the unsimulated ones."""
        simulated = {point for method, point in _POINT_OF_METHOD.items() if cls.implements(method)}
        return frozenset(simulated) | cls.UNSIMULATED_POINTS

    @classmethod
    def has_pre_filter_extensions(cls) -> bool:
        return cls.implements("add_pod")
