"""pkg/cache/scheduler's quota tree: ClusterQueues and Cohorts (pkg/cache/hierarchy), each a
resourceNode of quotas, subtree quota and usage (resource_node.go), what a ClusterQueue may still
use (available, potentialAvailable, clusterqueue_snapshot.go) and how far up the tree a request
borrows (preemption/classical's FindHeightOfLowestSubtreeThatFits).

Usage is the admitted Workloads' (status.admission's podSetAssignments, per flavor) whose quota
reservation is active, bubbled up past each node's local (non-lendable) quota."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import msgspec

from podwhy.cluster.kueue.requests import admitted_requests, assigned_usage, has_active_quota_reservation
from podwhy.cluster.kueue.resources import (
    FlavorResource,
    add,
    amount_from_quantity,
    sub,
)
from podwhy.model import objects as o


class Quota(msgspec.Struct, frozen=True):
    """scheduler.ResourceQuota: nominal quota, and the limits (None: no limit)."""

    nominal: int = 0
    borrowing_limit: int | None = None
    lending_limit: int | None = None


_QUOTAS: dict[int, tuple[object, dict[FlavorResource, Quota]]] = {}
_QUOTAS_KEPT = 4096


def quotas_of(groups: Iterable[o.ResourceGroup]) -> dict[FlavorResource, Quota]:
    """createResourceQuotas (remembered per list of resource groups, not changed once read: a
    suggestion's tree is built again over the same ClusterQueues)."""
    known = _QUOTAS.get(id(groups))
    if known is not None and known[0] is groups:
        return dict(known[1])
    out = _quotas_of(groups)
    if len(_QUOTAS) >= _QUOTAS_KEPT:
        _QUOTAS.clear()
    _QUOTAS[id(groups)] = (groups, out)
    return dict(out)


def _quotas_of(groups: Iterable[o.ResourceGroup]) -> dict[FlavorResource, Quota]:
    out: dict[FlavorResource, Quota] = {}
    for group in groups:
        for flavor in group.flavors:
            for q in flavor.resources:
                out[FlavorResource(flavor.name, q.name)] = Quota(
                    amount_from_quantity(q.name, q.nominal_quota),
                    None if q.borrowing_limit is None else amount_from_quantity(q.name, q.borrowing_limit),
                    None if q.lending_limit is None else amount_from_quantity(q.name, q.lending_limit),
                )
    return out


@dataclass(eq=False)
class Node:
    """A ClusterQueue or a Cohort of the tree (resourceNode plus its place in the hierarchy)."""

    name: str
    is_cohort: bool
    quotas: dict[FlavorResource, Quota] = field(default_factory=dict)
    subtree_quota: dict[FlavorResource, int] = field(default_factory=dict)
    usage: dict[FlavorResource, int] = field(default_factory=dict)
    parent: Node | None = None
    child_cqs: list[Node] = field(default_factory=list)
    child_cohorts: list[Node] = field(default_factory=list)
    # A Cohort object exists for it (else it is implicit: named by a ClusterQueue or a child).
    explicit: bool = False
    # node_height, kept by build_tree once the tree is whole (None: counted on each call).
    height: int | None = None

    def has_parent(self) -> bool:
        return self.parent is not None

    def local_quota(self, fr: FlavorResource) -> int:
        """localQuota: what the lending limit keeps out of the parent's reach."""
        quota = self.quotas.get(fr)
        if quota is not None and quota.lending_limit is not None:
            return max(0, sub(self.subtree_quota.get(fr, 0), quota.lending_limit))
        return 0

    def local_available(self, fr: FlavorResource) -> int:
        """LocalAvailable."""
        return max(0, sub(self.local_quota(fr), self.usage.get(fr, 0)))

    def path_to_root(self) -> Iterator[Node]:
        """The ancestors, parent first (PathParentToRoot; stops on a cycle)."""
        seen: set[int] = set()
        node = self.parent
        while node is not None and id(node) not in seen:
            seen.add(id(node))
            yield node
            node = node.parent

    def root(self) -> Node:
        """The top of the tree (the last ancestor; the node itself without one)."""
        top = self
        for ancestor in self.path_to_root():
            top = ancestor
        return top

    def child_count(self) -> int:
        return len(self.child_cqs) + len(self.child_cohorts)

    def borrowing_with(self, fr: FlavorResource, val: int) -> bool:
        """BorrowingWith: a ClusterQueue past its nominal quota, a Cohort past its subtree quota."""
        limit = self.subtree_quota.get(fr, 0) if self.is_cohort else self.quota(fr).nominal
        return limit < add(self.usage.get(fr, 0), val)

    def quota(self, fr: FlavorResource) -> Quota:
        return self.quotas.get(fr, Quota())


def has_cycle(cohort: Node) -> bool:
    """hierarchy.HasCycle: the parents of COHORT come back to one already seen."""
    seen: set[str] = set()
    node: Node | None = cohort
    while node is not None and node.parent is not None:
        if node.name in seen:
            return True
        seen.add(node.name)
        node = node.parent
    return False


def available(node: Node, fr: FlavorResource) -> int:
    """available: local quota left, plus what the parent has left, capped by the borrowing limit
    less what the node already uses of it (may be negative after over-admission)."""
    if node.parent is None:
        return sub(node.subtree_quota.get(fr, 0), node.usage.get(fr, 0))
    parent_available = available(node.parent, fr)
    quota = node.quotas.get(fr)
    if quota is not None and quota.borrowing_limit is not None:
        lq = node.local_quota(fr)
        stored_in_parent = sub(node.subtree_quota.get(fr, 0), lq)
        used_in_parent = max(0, sub(node.usage.get(fr, 0), lq))
        with_max_from_parent = add(sub(stored_in_parent, used_in_parent), quota.borrowing_limit)
        parent_available = min(with_max_from_parent, parent_available)
    return add(node.local_available(fr), parent_available)


def potential_available(node: Node, fr: FlavorResource) -> int:
    """potentialAvailable: the most NODE could use with no usage anywhere, within borrowing limits."""
    if node.parent is None:
        return node.subtree_quota.get(fr, 0)
    avail = add(node.local_quota(fr), potential_available(node.parent, fr))
    quota = node.quotas.get(fr)
    if quota is not None and quota.borrowing_limit is not None:
        avail = min(add(node.subtree_quota.get(fr, 0), quota.borrowing_limit), avail)
    return avail


def add_usage(node: Node, fr: FlavorResource, val: int) -> None:
    """addUsage: usage past the local quota is also the parent's."""
    local_available = node.local_available(fr)
    node.usage[fr] = add(node.usage.get(fr, 0), val)
    if node.parent is not None and val > local_available:
        add_usage(node.parent, fr, sub(val, local_available))


def remove_usage(node: Node, fr: FlavorResource, val: int) -> None:
    """removeUsage."""
    stored_in_parent = sub(node.usage.get(fr, 0), node.local_quota(fr))
    node.usage[fr] = sub(node.usage.get(fr, 0), val)
    if stored_in_parent <= 0 or node.parent is None:
        return
    remove_usage(node.parent, fr, min(val, stored_in_parent))


def node_height(node: Node) -> int:
    """getNodeHeight: the distance to the furthest leaf."""
    if node.height is not None:
        return node.height
    height = min(node.child_count(), 1)
    for child in node.child_cohorts:
        height = max(height, node_height(child) + 1)
    return height


def height_of_lowest_subtree_that_fits(cq: Node, fr: FlavorResource, val: int) -> tuple[int, bool]:
    """FindHeightOfLowestSubtreeThatFits: 0 without borrowing; else the height of the lowest
    Cohort whose subtree holds VAL, and whether that subtree is smaller than the whole tree."""
    if not cq.borrowing_with(fr, val) or cq.parent is None:
        return 0, cq.parent is not None
    remaining = sub(val, cq.local_available(fr))
    for tracking in cq.path_to_root():
        if not tracking.borrowing_with(fr, remaining):
            return node_height(tracking), tracking.parent is not None
        remaining = sub(remaining, tracking.local_available(fr))
    return node_height(cq.parent.root()), False


def _update_cohort(cohort: Node) -> None:
    """updateCohortResourceNode: subtree quotas and usage accumulated from the children."""
    cohort.subtree_quota = {fr: q.nominal for fr, q in cohort.quotas.items()}
    cohort.usage = {}
    for child in cohort.child_cohorts:
        _update_cohort(child)
        _accumulate(cohort, child)
    for cq in cohort.child_cqs:
        cq.subtree_quota = {fr: q.nominal for fr, q in cq.quotas.items()}
        _accumulate(cohort, cq)


def _accumulate(parent: Node, child: Node) -> None:
    for fr, quota in child.subtree_quota.items():
        parent.subtree_quota[fr] = add(parent.subtree_quota.get(fr, 0), sub(quota, child.local_quota(fr)))
    for fr, used in child.usage.items():
        parent.usage[fr] = add(parent.usage.get(fr, 0), max(0, sub(used, child.local_quota(fr))))


class QuotaTree(msgspec.Struct):
    """The cache's hierarchy: ClusterQueues and Cohorts by name (implicit Cohorts included)."""

    cluster_queues: dict[str, Node] = msgspec.field(default_factory=dict)
    cohorts: dict[str, Node] = msgspec.field(default_factory=dict)

    def cohort(self, name: str) -> Node:
        """getOrCreateCohort: a Cohort no object defines is implicit, without quota."""
        node = self.cohorts.get(name)
        if node is None:
            node = self.cohorts[name] = Node(name, is_cohort=True)
        return node

    def in_cycle(self, cq: Node) -> bool:
        """skipInactiveCQReason's HasCycle: the ClusterQueue's Cohort chain loops."""
        return cq.parent is not None and has_cycle(cq.parent)

    def cyclic_cohorts(self) -> list[str]:
        return sorted(name for name, node in self.cohorts.items() if has_cycle(node))


def build_tree(
    cluster_queues: Iterable[o.ClusterQueue],
    cohorts: Iterable[o.Cohort] = (),
    workloads: Iterable[o.KueueWorkload] = (),
    gates: Mapping[str, bool] | None = None,
) -> QuotaTree:
    """The quota tree of CLUSTER_QUEUES and COHORTS, with the usage of WORKLOADS that hold quota
    (HasActiveQuotaReservation) in a ClusterQueue of the tree."""
    tree = QuotaTree()
    for obj in cohorts:
        node = tree.cohort(obj.metadata.name)
        node.explicit = True
        node.quotas = quotas_of(obj.spec.resource_groups)
    for obj in cohorts:
        if obj.spec.parent_name:
            child, parent = tree.cohorts[obj.metadata.name], tree.cohort(obj.spec.parent_name)
            child.parent = parent
            parent.child_cohorts.append(child)
    for cq_obj in cluster_queues:
        cq = Node(cq_obj.metadata.name, is_cohort=False, quotas=quotas_of(cq_obj.spec.resource_groups))
        cq.subtree_quota = {fr: q.nominal for fr, q in cq.quotas.items()}
        tree.cluster_queues[cq.name] = cq
        if cq_obj.spec.cohort_name:
            cq.parent = tree.cohort(cq_obj.spec.cohort_name)
            cq.parent.child_cqs.append(cq)
    for cohort in list(tree.cohorts.values()):
        if cohort.parent is None:
            _update_cohort(cohort)
    for node in [*tree.cohorts.values(), *tree.cluster_queues.values()]:
        if not has_cycle(node):
            node.height = node_height(node)
    held: list[tuple[Node, FlavorResource, int]] = []
    in_cycle: dict[str, bool] = {}
    for name, fr, q in held_usage(workloads, gates):
        holder = tree.cluster_queues.get(name)
        if holder is None:
            continue
        if name not in in_cycle:
            in_cycle[name] = tree.in_cycle(holder)
        if not in_cycle[name]:
            held.append((holder, fr, q))
    add_all_usage(held)
    return tree


# Below this total (per resource) no sum of usage comes near int64's saturation or Unlimited.
SUMMABLE = 2**62

Held = list[tuple[str, FlavorResource, int]]
# The usage of the last few lists of Workloads asked about: verifying a suggestion builds a tree
# per change over the same Workloads (id(list) -> (the list, its length, the gates, its usage)).
_HELD: dict[int, tuple[Iterable[o.KueueWorkload], int, object, Held]] = {}
_HELD_KEPT = 8


def held_usage(workloads: Iterable[o.KueueWorkload], gates: Mapping[str, bool] | None = None) -> Held:
    """(ClusterQueue, resource, amount) of every Workload that holds quota (its admission's usage),
    in the Workloads' order; summed per ClusterQueue and resource when add_all_usage may sum them
    (none negative, no sum near saturation), which gives every node the same totals. Remembered
    for a list of Workloads (not changed once asked about) and gates."""
    gates_key = frozenset(gates.items()) if gates is not None else None
    size = len(workloads) if isinstance(workloads, Sequence) else -1
    known = _HELD.get(id(workloads))
    if known is not None and known[0] is workloads and known[1] == size >= 0 and known[2] == gates_key:
        return known[3]
    held: Held = []
    for wl in workloads:
        admission = wl.status.admission
        if admission is None or not has_active_quota_reservation(wl):
            continue
        held += [(admission.cluster_queue, fr, q) for fr, q in assigned_usage(admitted_requests(wl, gates)).items()]
    # add_all_usage's own test, over every Workload (those of a ClusterQueue outside the tree
    # included: their subset passes it whenever all of them do).
    totals: dict[FlavorResource, int] = {}
    for _, fr, q in held:
        totals[fr] = totals.get(fr, 0) + q
    if all(q >= 0 for _, _, q in held) and all(total < SUMMABLE for total in totals.values()):
        summed: dict[tuple[str, FlavorResource], int] = {}
        for name, fr, q in held:
            summed[name, fr] = summed.get((name, fr), 0) + q
        held = [(name, fr, q) for (name, fr), q in summed.items()]
    if size >= 0:
        if len(_HELD) >= _HELD_KEPT:
            _HELD.pop(next(iter(_HELD)))
        _HELD[id(workloads)] = (workloads, size, gates_key, held)
    return held


def add_all_usage(usages: list[tuple[Node, FlavorResource, int]]) -> None:
    """add_usage of each (node, resource, amount), in order. What a node passes to its parent is
    its total past its local quota, whatever the order of the additions, as long as none is
    negative and no sum saturates: then each node's total is added at once, in one call per node
    and resource (the same usage everywhere); else one by one."""
    totals: dict[FlavorResource, int] = {}
    for _, fr, q in usages:
        if q < 0:
            break
        totals[fr] = totals.get(fr, 0) + q
    else:
        if all(total < SUMMABLE for total in totals.values()):
            summed: dict[tuple[int, FlavorResource], tuple[Node, int]] = {}
            for node, fr, q in usages:
                key = (id(node), fr)
                known = summed.get(key)
                summed[key] = (node, q if known is None else known[1] + q)
            usages = [(node, fr, q) for (_, fr), (node, q) in summed.items()]
    for node, fr, q in usages:
        add_usage(node, fr, q)
