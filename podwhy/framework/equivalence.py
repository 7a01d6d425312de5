"""Node equivalence classes for one pod's Filter and Score phases: nodes that no Filter plugin can
tell apart for this pod are filtered once, and every node of the class gets that node's verdict;
likewise, per Score plugin, for the scores (`class_scorer`).

kube-scheduler filters every node on its own; podwhy gets the same verdicts faster. After
PreFilter, each Filter plugin that runs on the nodes says what of a node its Filter reads for
this pod (`Plugin.filter_key`): a function of the node whose value is equal on two nodes only
when the plugin's status on them is equal, evidence and all (a plugin whose evidence names the
node, or the pods on it, keys by the node's name where it would say so). A node's class is the
tuple of those values. A plugin that cannot say (volumes, DRA: their Filter reads objects per
node or writes per-node state) leaves every node to be filtered on its own for that pod, and a
node with pods nominated to it (the two passes of addGENominatedPods) is always filtered on its
own.

Nodes are still walked in the scheduler's order and counted one by one, so where the walk stops
(numFeasibleNodesToFind) and every node's verdict are those of per-node evaluation: the first
node of a class met in the walk is filtered, the later ones take its verdict under their own
name. `tests/scheduler/test_node_classes.py` compares both on generated clusters.

Set PODWHY_NODE_CLASSES=0 to filter and score every node on its own, and to have preemption's dry
run copy every node it tries (framework/preemption.py), or `ENABLED` from a test.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Mapping
from functools import lru_cache, partial
from itertools import count
from typing import TYPE_CHECKING

import msgspec

from podwhy.framework.status import Status
from podwhy.framework.types import NodeInfo, PodInfo

if TYPE_CHECKING:
    from podwhy.framework.interface import CycleState, Plugin

ENV = "PODWHY_NODE_CLASSES"
# Classes on unless the environment says "0" (tests switch them with this flag).
ENABLED = os.environ.get(ENV, "1") != "0"

# What of a node a Filter plugin reads for the pod: equal values, equal statuses.
NodeReader = Callable[[NodeInfo], Hashable]

encode = msgspec.json.Encoder().encode


def reads_nothing(node_info: NodeInfo) -> Hashable:
    """The reader of a plugin whose status is the same on every node for this pod."""
    return None


def node_name(node_info: NodeInfo) -> Hashable:
    """The reader of a plugin whose status names the node: each node is its own class."""
    return node_info.name


def labels_at(keys: list[str] | tuple[str, ...]) -> NodeReader:
    """The node's values (None when absent) of these label keys, and nothing else of it: the same
    reader for the same keys (see NodeClasses.key)."""
    return _labels_reader(tuple(sorted(set(keys))))


@lru_cache(maxsize=256)
def _labels_reader(ordered: tuple[str, ...]) -> NodeReader:
    if not ordered:
        return reads_nothing

    def read(node_info: NodeInfo) -> Hashable:
        return tuple(map(node_info.node.metadata.labels.get, ordered))

    return read


class Representative(msgspec.Struct):
    """The verdict of a class's first node, as filter_node gave it (before PreFilter's
    settlement of that node, which the walk applies to every node itself)."""

    filters: dict[str, Status]
    first_failure: Status | None
    feasible: bool


# Tokens for the tuples of readers whose values nodes keep (NodeInfo.class_keys): the same readers
# get the same token in every cycle that asks (a pod's cycles in other releases, over the same node
# indexes, read alike where their plugins read alike). A token is never given twice: once the
# table is forgotten, values kept under older tokens are simply not found again.
_TOKENS: dict[tuple[NodeReader, ...], int] = {}
_NEXT_TOKEN = count()
_MAX_TOKENS = 256
# The values a node keeps at most, of as many tuples of readers.
_KEPT_PER_NODE = 8


def _token(readers: tuple[NodeReader, ...]) -> int:
    token = _TOKENS.get(readers)
    if token is None:
        if len(_TOKENS) >= _MAX_TOKENS:
            _TOKENS.clear()
        token = _TOKENS[readers] = next(_NEXT_TOKEN)
    return token


class NodeClasses:
    """The classes of one run_filters: each class's key and representative verdict."""

    __slots__ = ("_nominated", "_read", "_readers", "_seen", "_token")

    def __init__(self, readers: list[NodeReader], nominated: Mapping[str, list[PodInfo]]) -> None:
        self._readers = tuple(r for r in readers if r is not reads_nothing)
        self._nominated = nominated
        self._seen: dict[Hashable, Representative] = {}
        self._read = _joined(self._readers)
        self._token = _token(self._readers)

    def key(self, node_info: NodeInfo) -> Hashable | None:
        """The node's class, None when it must be filtered on its own. A node keeps the value it
        gave these readers until its pods change (what a reader reads of a node but its pods, its
        labels, taints and allocatable, never changes): read once for the pod's cycles in every
        release whose plugins read alike."""
        if self._nominated and self._nominated.get(node_info.name):
            return None
        kept = node_info.class_keys
        found = kept.get(self._token)
        if found is None:
            if len(kept) >= _KEPT_PER_NODE:
                kept.clear()
            found = kept[self._token] = self._read(node_info)
        return found

    def get(self, key: Hashable) -> Representative | None:
        return self._seen.get(key)

    def add(self, key: Hashable, filters: dict[str, Status], first_failure: Status | None, feasible: bool) -> None:
        self._seen[key] = Representative(dict(filters), first_failure, feasible)

    def __len__(self) -> int:
        return len(self._seen)


def _joined(readers: tuple[NodeReader, ...]) -> Callable[[NodeInfo], Hashable]:
    """The tuple of the readers' values, read for every node of every cycle: without a loop for the
    usual few (the default profile's node-local Filter plugins read four)."""
    if len(readers) == 4:
        r0, r1, r2, r3 = readers
        return lambda node_info: (r0(node_info), r1(node_info), r2(node_info), r3(node_info))
    if len(readers) == 3:
        r0, r1, r2 = readers
        return lambda node_info: (r0(node_info), r1(node_info), r2(node_info))
    return lambda node_info: tuple([read(node_info) for read in readers])


def node_classes(
    state: CycleState,
    pod: PodInfo,
    rows: list[tuple[str, Plugin, Status | None]],
    nominated: Mapping[str, list[PodInfo]],
) -> NodeClasses | None:
    """The classes of the nodes for this pod, its PreFilter run: ROWS are the profile's Filter
    plugins with the status PreFilter settled on every node (None: Filter runs on each node).
    None when classes are off or a plugin that runs cannot say what it reads."""
    if not ENABLED:
        return None
    readers = []
    for _name, plugin, fixed in rows:
        if fixed is not None:
            continue
        reader = plugin.filter_key(state, pod)
        if reader is None:
            return None
        readers.append(reader)
    return NodeClasses(readers, nominated)


def class_scorer(plugin: Plugin, state: CycleState, pod: PodInfo) -> Callable[[NodeInfo], tuple[int, Status]]:
    """The plugin's Score over one pass of the nodes: each node that its `score_key` cannot tell
    from a node scored earlier in the pass takes that node's score and status."""
    reader = plugin.score_key(state, pod) if ENABLED else None
    if reader is None:
        return partial(plugin.score, state, pod)
    seen: dict[Hashable, tuple[int, Status]] = {}

    def score(node_info: NodeInfo) -> tuple[int, Status]:
        key = reader(node_info)
        found = seen.get(key)
        if found is None:
            found = seen[key] = plugin.score(state, pod, node_info)
        return found

    return score
