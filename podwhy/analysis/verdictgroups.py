"""A cycle's node verdicts grouped by the very Status objects they hold, for what reads the
verdicts after the cycle (blocking causes, suggestions, the report's nodes).

With node equivalence classes (framework/equivalence.py) every node of a class holds the Status
objects of the class's first node, and its feasibility: what a reader finds from a node's
statuses alone is the same on every node of the group, so it is found once per group. Nodes
filtered on their own hold statuses of their own and make groups of one: grouping by identity
never joins nodes whose statuses merely look alike, so it is exact whatever the classes are.

The groups hold the verdicts, so the ids that key them name the same objects while they live.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from heapq import merge

from podwhy.framework.outcome import NodeVerdict
from podwhy.framework.status import Status


class VerdictGroup:
    """Nodes whose verdicts hold the same feasibility, the same first failure and, plugin by
    plugin in the same order, the same Status objects. `verdict`: the first node's (its
    `filters`, `first_failure` and `feasible` are every member's); `positions`: the members'
    places among the verdicts grouped, ascending; `names`: their names, in that order."""

    __slots__ = ("_failing", "names", "positions", "verdict")

    def __init__(self, verdict: NodeVerdict) -> None:
        self.verdict = verdict
        self.positions: list[int] = []
        self.names: list[str] = []
        self._failing: dict[str, Status] | None = None

    @property
    def failing(self) -> dict[str, Status]:
        """The filters that reject the members (a plugin's status rejects or not), in order."""
        if self._failing is None:
            self._failing = {name: st for name, st in self.verdict.filters.items() if st.is_rejected()}
        return self._failing

    def only_failing(self, plugin: str) -> Status | None:
        """PLUGIN's status when it alone rejects the members, else None."""
        failing = self.failing
        return failing.get(plugin) if len(failing) == 1 else None


# The last grouping VerdictGroups.of made (one).
_LAST: list[VerdictGroups] = []


class VerdictGroups:
    """The groups of VERDICTS, in the order of their first nodes, and each node's group."""

    __slots__ = ("groups", "of_node", "verdicts")

    @classmethod
    def of(cls, verdicts: Sequence[NodeVerdict], kept: VerdictGroups | None = None) -> VerdictGroups:
        """VERDICTS grouped: KEPT when it groups these very verdicts (the one grouping a reader
        keeps for the last cycle it read), else the last grouping made here when it grouped
        them (the suggestions' and the report's readers of one cycle share it: a cycle's verdicts
        are not changed once it is over), else a new grouping."""
        if kept is not None and kept.verdicts is verdicts:
            return kept
        last = _LAST[0] if _LAST else None
        if last is not None and last.verdicts is verdicts and len(last.of_node) == len(verdicts):
            return last
        made = cls(verdicts)
        _LAST[:] = [made]  # it holds the verdicts, so that their id stays theirs
        return made

    def __init__(self, verdicts: Sequence[NodeVerdict]) -> None:
        self.verdicts = verdicts
        found: dict[tuple[object, ...], int] = {}
        groups: list[VerdictGroup] = []
        of_node: list[int] = []
        for position, verdict in enumerate(verdicts):
            filters = verdict.filters
            # Plugin names are strings, ids integers: the key says which is which.
            key = (verdict.feasible, id(verdict.first_failure), *filters, *map(id, filters.values()))
            index = found.get(key)
            if index is None:
                index = found[key] = len(groups)
                groups.append(VerdictGroup(verdict))
            group = groups[index]
            group.positions.append(position)
            group.names.append(verdict.name)
            of_node.append(index)
        self.groups = groups
        self.of_node = of_node

    def names_of(self, groups: Iterable[VerdictGroup]) -> list[str]:
        """The names of the members of GROUPS, in the verdicts' order."""
        chosen = list(groups)
        if len(chosen) == 1:
            return list(chosen[0].names)
        verdicts = self.verdicts
        return [verdicts[p].name for p in merge(*(g.positions for g in chosen))]
