"""One scheduling cycle of Kueue over a cohort tree (pkg/scheduler/scheduler.go's schedule): the
heads of the ClusterQueues nominated, the entries sorted as classicalIterator sorts them
(makeClassicalIterator: under nominal quota before borrowing, by borrowing height; then higher
priority first when PrioritySortingWithinCohort is on; then the earlier queue-order timestamp),
then processed in that order (processEntry) on a snapshot whose usage grows with each entry
admitted: an entry that no longer fits is skipped ("Workload no longer fits after processing
another workload", WaitingForQuota), one needing preemption without candidates reserves capacity
when its ClusterQueue cannot always reclaim (reserveCapacityForUnreclaimablePreempt,
quotaResourcesToReserve), one assigned NoFit takes nothing.

podwhy does not search for preemption candidates: an entry needing preemption that the policies
do not settle may take its quota or not, and an entry whose place in the order is not known (a
tie: Kueue's heads come from a map and its sort is not stable) may go first or not. Each is
counted at its most (its whole usage) for the entries after it: one that fits even so is
admitted, one that does not fit even without them is not, and any other is not evaluated."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from enum import Enum

import msgspec

from podwhy.cluster.kueue import names
from podwhy.cluster.kueue.order import effective_priority, queue_order_timestamp
from podwhy.cluster.kueue.resourcenode import Node, add_usage, available
from podwhy.cluster.kueue.resources import FlavorResource, add, sub
from podwhy.model import objects as o


class EntryKey(msgspec.Struct, frozen=True, order=True):
    """classicalIterator's order: borrowing height, then -priority (0 with
    PrioritySortingWithinCohort off), then the queue-order timestamp. Equal keys: no order."""

    borrowing: int
    neg_priority: int
    timestamp: datetime


def entry_key(
    workload: o.KueueWorkload,
    borrowing: int,
    requeuing_timestamp: str = names.TIMESTAMP_EVICTION,
    gates: Mapping[str, bool] | None = None,
) -> EntryKey:
    """The sort key of WORKLOAD's entry, its assignment BORROWING that high in the cohort tree."""
    by_priority = names.enabled(names.PRIORITY_SORTING_WITHIN_COHORT, dict(gates) if gates is not None else None)
    return EntryKey(
        borrowing,
        -effective_priority(workload, gates) if by_priority else 0,
        queue_order_timestamp(workload, requeuing_timestamp, gates),
    )


class EntryKind(Enum):
    """What nominate made of a head (its assignment's representative mode)."""

    FIT = "Fit"
    NO_FIT = "NoFit"
    RESERVE = "Reserve"  # Preempt without candidates: reserves capacity, admits nothing
    PREEMPT = "Preempt"  # Preempt with candidates podwhy did not search: not evaluated


class Outcome(Enum):
    """What the cycle does with an entry."""

    ADMITTED = "Admitted"  # it fits with the cycle's usage: assumed, its usage added
    NO_LONGER_FITS = "NoLongerFits"  # skipped: an entry processed before it took the quota
    NO_FIT = "NoFit"  # nominated NoFit: skipped, nothing taken
    RESERVES = "Reserves"  # needs preemption, no candidates: capacity reserved, not admitted
    NOT_EVALUATED = "NotEvaluated"  # hangs on a preemption or an order podwhy does not know


class Entry(msgspec.Struct, frozen=True, eq=False):
    """A head of a ClusterQueue, nominated: its ClusterQueue's NODE in the quota tree, the usage
    of its assignment (flavor resource to amount), what it reserves (RESERVE), its sort key; SURE:
    it is the head for certain (else the ClusterQueue's head is one of several)."""

    workload: o.KueueWorkload
    cluster_queue: str
    node: Node
    kind: EntryKind
    usage: Mapping[FlavorResource, int]
    key: EntryKey
    reserve: Mapping[FlavorResource, int] | None = None
    sure: bool = True

    def most(self) -> Mapping[FlavorResource, int]:
        """The most this entry adds to the cycle's usage."""
        if self.kind is EntryKind.NO_FIT:
            return {}
        if self.kind is EntryKind.RESERVE and self.sure:
            return self.reserve or {}
        return self.usage


class EntryResult(msgspec.Struct, frozen=True):
    """An entry's outcome; BEFORE: for NO_LONGER_FITS the entries processed before it that took
    quota of a flavor resource it needs, for NOT_EVALUATED those whose share podwhy does not know."""

    entry: Entry
    outcome: Outcome
    before: tuple[Entry, ...] = ()


def reserve_usage(
    node: Node, usage: Mapping[FlavorResource, int], borrowing: int, preemption: o.ClusterQueuePreemption
) -> dict[FlavorResource, int]:
    """reserveCapacityForUnreclaimablePreempt: nothing when the ClusterQueue can always reclaim
    (reclaimWithinCohort Any, preemption.CanAlwaysReclaim); else quotaResourcesToReserve of the
    Preempt-mode USAGE: borrowing, up to nominal + borrowingLimit past what it uses (all of it
    without a limit); not borrowing, up to its unused nominal quota, never below zero."""
    if preemption.reclaim_within_cohort == names.PREEMPTION_ANY:
        return {}
    out: dict[FlavorResource, int] = {}
    for fr, q in usage.items():
        quota, used = node.quota(fr), node.usage.get(fr, 0)
        if borrowing > 0:
            if quota.borrowing_limit is None:
                out[fr] = q
            else:
                out[fr] = min(q, sub(add(quota.nominal, quota.borrowing_limit), used))
        else:
            out[fr] = max(0, min(q, sub(quota.nominal, used)))
    return out


def subtree(root: Node) -> Iterator[Node]:
    """ROOT and every Cohort and ClusterQueue below it (each once, a cycle cut)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        stack.extend(node.child_cqs)
        stack.extend(node.child_cohorts)


def fits(node: Node, usage: Mapping[FlavorResource, int]) -> bool:
    """ClusterQueueSnapshot.Fits: every flavor resource's Available (never below zero) holds it."""
    return all(max(0, available(node, fr)) >= q for fr, q in usage.items())


def _add(entry: Entry, usage: Mapping[FlavorResource, int]) -> None:
    for fr, q in usage.items():
        add_usage(entry.node, fr, q)


def _shares(a: Entry, b: Entry) -> bool:
    return any(fr in b.most() for fr in a.usage)


class _Cycle:
    """The cycle's state: the tree's usage (the certain effects), and the entries whose share is
    not known, counted at their most only in the checks of the entries after them."""

    def __init__(self, nodes: Sequence[Node]) -> None:
        self.nodes = nodes
        self.taken: list[Entry] = []
        self.unknown: list[Entry] = []

    def _fits_with(self, entry: Entry, extra: Sequence[Entry]) -> bool:
        if not extra:
            return fits(entry.node, entry.usage)
        saved = [(n, dict(n.usage)) for n in self.nodes]
        try:
            for other in extra:
                _add(other, other.most())
            return fits(entry.node, entry.usage)
        finally:
            for n, usage in saved:
                n.usage = usage

    def outcome(self, entry: Entry, ties: Sequence[Entry]) -> EntryResult:
        kind = entry.kind
        if kind is EntryKind.NO_FIT:
            return EntryResult(entry, Outcome.NO_FIT)
        if not entry.sure or kind is EntryKind.PREEMPT:
            return EntryResult(entry, Outcome.NOT_EVALUATED, tuple(self.unknown))
        if kind is EntryKind.RESERVE:
            return EntryResult(entry, Outcome.RESERVES)
        if not fits(entry.node, entry.usage):
            return EntryResult(entry, Outcome.NO_LONGER_FITS, tuple(e for e in self.taken if _shares(entry, e)))
        extra = [*self.unknown, *ties]
        if self._fits_with(entry, extra):
            return EntryResult(entry, Outcome.ADMITTED)
        return EntryResult(entry, Outcome.NOT_EVALUATED, tuple(e for e in extra if _shares(entry, e)))

    def apply(self, result: EntryResult) -> None:
        entry = result.entry
        if result.outcome is Outcome.ADMITTED:
            _add(entry, entry.usage)
            self.taken.append(entry)
        elif result.outcome is Outcome.RESERVES and entry.reserve:
            _add(entry, entry.reserve)
            if any(q for q in entry.reserve.values()):
                self.taken.append(entry)
        elif result.outcome is Outcome.NOT_EVALUATED and entry.most():
            self.unknown.append(entry)


def run_cycle(entries: Sequence[Entry], nodes: Sequence[Node]) -> list[EntryResult]:
    """ENTRIES (heads of ClusterQueues of one cohort tree, whose nodes are NODES) processed as
    Kueue's cycle processes them, each one's outcome in processing order. The nodes' usage is
    the snapshot's again on return."""
    ordered = sorted(entries, key=lambda e: e.key)
    saved = [(n, dict(n.usage)) for n in nodes]
    cycle = _Cycle(nodes)
    out: list[EntryResult] = []
    try:
        start = 0
        while start < len(ordered):
            end = start + 1
            while end < len(ordered) and ordered[end].key == ordered[start].key:
                end += 1
            group = ordered[start:end]
            results = [cycle.outcome(e, [t for t in group if t is not e]) for e in group]
            for result in results:
                cycle.apply(result)
            out += results
            start = end
    finally:
        for n, usage in saved:
            n.usage = usage
    return out
