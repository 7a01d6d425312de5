"""Verdicts known before a cycle (placement's KnownRejections keeps the nodes known to reject pods
of one spec while it places them one after another), and the walk they leave.

A cycle given such verdicts filters only the other nodes (Framework.run_filters). At 65,000 nodes
finding those by comparing every node's name with the known ones took longer than the cycle
itself, pod after pod, though only a few names change between two pods: a node learnt to reject,
a node a pod was bound to forgotten. Settled keeps, for each Handle it is walked over, the names of
that Handle's nodes it does not hold, and brings them up to date with the names changed since.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, KeysView, Mapping, ValuesView
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from podwhy.framework.handle import Handle
    from podwhy.framework.outcome import NodeVerdict
    from podwhy.framework.types import NodeInfo


class _Walk:
    """What Settled knows of one Handle: its nodes not settled, and the settled names that are
    none of its nodes, as of `seen` changes."""

    __slots__ = ("handle", "left", "nodes", "outside", "seen")

    def __init__(self, handle: Handle, verdicts: dict[str, NodeVerdict], seen: int) -> None:
        by_name = handle.node_info_by_name
        self.handle = handle  # kept, so that its id stays its own
        self.nodes = len(by_name)
        self.left = set(by_name.keys() - verdicts.keys())
        self.outside = set(verdicts.keys() - by_name.keys())
        self.seen = seen


class Settled(Mapping[str, "NodeVerdict"]):
    """Node verdicts by node name, in the order they were set; changed only through `set` and
    `discard`, so that the walks kept per Handle follow every change."""

    __slots__ = ("_changed", "_verdicts", "_walks")

    def __init__(self, verdicts: Mapping[str, NodeVerdict] | None = None) -> None:
        self._verdicts: dict[str, NodeVerdict] = dict(verdicts) if verdicts is not None else {}
        # Every name set or discarded, in order: a walk looks at those since it last looked.
        self._changed: list[str] = []
        self._walks: dict[int, _Walk] = {}

    def __getitem__(self, name: str) -> NodeVerdict:
        return self._verdicts[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._verdicts)

    def __len__(self) -> int:
        return len(self._verdicts)

    def __contains__(self, name: object) -> bool:
        return name in self._verdicts

    def keys(self) -> KeysView[str]:
        return self._verdicts.keys()

    def values(self) -> ValuesView[NodeVerdict]:
        return self._verdicts.values()

    def items(self) -> ItemsView[str, NodeVerdict]:
        return self._verdicts.items()

    def set(self, name: str, verdict: NodeVerdict) -> None:
        self._verdicts[name] = verdict
        self._changed.append(name)

    def discard(self, name: str) -> None:
        if self._verdicts.pop(name, None) is not None:
            self._changed.append(name)

    def copy(self) -> Settled:
        """The same verdicts, in the same order, with no walk kept."""
        return Settled(self._verdicts)

    def walk(self, handle: Handle) -> tuple[list[NodeInfo], bool]:
        """HANDLE's nodes not settled, in its order (Handle.nodes_but), and whether every settled
        node is one of its nodes."""
        verdicts, by_name = self._verdicts, handle.node_info_by_name
        if len(by_name) != len(handle.node_infos):  # nodes sharing a name: walked as nodes_but walks
            return handle.nodes_but(verdicts), verdicts.keys() <= by_name.keys()
        kept = self._walks.get(id(handle))
        if kept is None or kept.handle is not handle or kept.nodes != len(by_name):
            kept = self._walks[id(handle)] = _Walk(handle, verdicts, len(self._changed))
        elif kept.seen < len(self._changed):
            left, outside = kept.left, kept.outside
            for name in self._changed[kept.seen :]:
                settled = name in verdicts
                if name in by_name:
                    if settled:
                        left.discard(name)
                    else:
                        left.add(name)
                elif settled:
                    outside.add(name)
                else:
                    outside.discard(name)
            kept.seen = len(self._changed)
        return handle.nodes_named(kept.left), not kept.outside
