"""pkg/scheduler/flavorassigner's types: the Assignment and its pod sets' flavors, the modes and
the preference between them (isPreferred, shouldTryNextFlavor, mostSevereReason), the
ClusterQueue snapshot the assigner reads, the preemption oracle it asks, and the facts of each
quota check (flavorassigner.py computes them)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import IntEnum

import msgspec

from podwhy.cluster.kueue import names
from podwhy.cluster.kueue.flavormatch import Status, TASView, tas_view
from podwhy.cluster.kueue.resourcenode import (
    Node,
    Quota,
    QuotaTree,
    available,
    height_of_lowest_subtree_that_fits,
    potential_available,
)
from podwhy.cluster.kueue.resources import (
    MAX_INT64,
    FlavorResource,
)
from podwhy.model import objects as o

Mode = names.Mode


class PreemptionMode(IntEnum):
    """flavorassigner's preemptionMode, from the worst: noFit < noPreemptionCandidates < preempt
    < reclaim < fit."""

    NO_FIT = 0
    NO_CANDIDATES = 1
    PREEMPT = 2
    RECLAIM = 3
    FIT = 4

    def assignment_mode(self) -> Mode:
        if self is PreemptionMode.NO_FIT:
            return Mode.NO_FIT
        return Mode.FIT if self is PreemptionMode.FIT else Mode.PREEMPT


class Possibility(IntEnum):
    """preemptioncommon.PreemptionPossibility."""

    NO_CANDIDATES = 0
    PREEMPT = 1
    RECLAIM = 2

    def __str__(self) -> str:
        return {0: "NoCandidates", 1: "Preempt", 2: "Reclaim"}[self.value]

    def mode(self) -> PreemptionMode:
        return PreemptionMode(self.value + 1)


class OracleAnswer(msgspec.Struct, frozen=True):
    """What a preemption simulation says of one flavor resource: whether candidates exist, the
    borrowing level after preempting them, and whether it was evaluated (podwhy does not
    simulate preemption: an unevaluated answer is an assumption)."""

    possibility: Possibility
    borrow: int
    evaluated: bool = True


class ResourceGroup(msgspec.Struct, frozen=True):
    """resourcegroups.ResourceGroup: the resources a group covers, its flavors in order."""

    covered: frozenset[str]
    flavors: tuple[str, ...]


class ClusterQueueSnapshot(msgspec.Struct):
    """The scheduler's ClusterQueueSnapshot, as the flavor assigner reads it."""

    name: str
    resource_groups: list[ResourceGroup]
    fungibility: o.FlavorFungibility
    preemption: o.ClusterQueuePreemption
    node: Node
    tas: TASView = msgspec.field(default_factory=TASView)

    def rg_by_resource(self, resource: str) -> ResourceGroup | None:
        return next((rg for rg in self.resource_groups if resource in rg.covered), None)

    def quota(self, fr: FlavorResource) -> Quota:
        return self.node.quota(fr)

    def used(self, fr: FlavorResource) -> int:
        return self.node.usage.get(fr, 0)

    def available(self, fr: FlavorResource) -> int:
        """ClusterQueueSnapshot.Available: never below zero."""
        return max(0, available(self.node, fr))

    def potential_available(self, fr: FlavorResource) -> int:
        return potential_available(self.node, fr)


def snapshot_cluster_queue(
    cq: o.ClusterQueue,
    tree: QuotaTree,
    flavors: Mapping[str, o.ResourceFlavor],
    topologies: Mapping[str, o.Topology] | None = None,
) -> ClusterQueueSnapshot:
    """The snapshot of CQ, whose node TREE holds."""
    groups = [
        ResourceGroup(frozenset(g.covered_resources), tuple(f.name for f in g.flavors)) for g in cq.spec.resource_groups
    ]
    return ClusterQueueSnapshot(
        cq.metadata.name,
        groups,
        cq.spec.flavor_fungibility,
        cq.spec.preemption,
        tree.cluster_queues[cq.metadata.name],
        tas_view(cq, flavors, topologies or {}),
    )


Oracle = Callable[[ClusterQueueSnapshot, FlavorResource, int], OracleAnswer]


def policy_oracle(cq: ClusterQueueSnapshot, fr: FlavorResource, quantity: int) -> OracleAnswer:
    """The classical preemption's candidates, as far as the policies alone decide them: with
    withinClusterQueue Never and no Cohort or reclaimWithinCohort Never there are none (exact);
    otherwise candidates are assumed, not evaluated."""
    borrow, _ = height_of_lowest_subtree_that_fits(cq.node, fr, quantity)
    policy = cq.preemption
    if policy.within_cluster_queue == names.PREEMPTION_NEVER and (
        cq.node.parent is None or policy.reclaim_within_cohort == names.PREEMPTION_NEVER
    ):
        return OracleAnswer(Possibility.NO_CANDIDATES, borrow)
    return OracleAnswer(Possibility.PREEMPT, borrow, evaluated=False)


# ---------------------------------------------------------------- facts and results


class QuotaCheck(msgspec.Struct, frozen=True):
    """fitsResourceQuota's facts for one resource in one flavor: what earlier pod sets took in
    this assignment (ASSUMED), this pod set group's request, and NEEDED (their sum); the
    ClusterQueue's quota and usage; AVAILABLE (unused quota it may use now, borrowing included)
    and MAX_CAPACITY (potentialAvailable, the most it may ever use); BORROWABLE (what of AVAILABLE
    is beyond its own unused nominal quota); the mode, the borrowing level, and the preemption
    oracle's answer when it was asked."""

    pod_sets: tuple[str, ...]
    flavor: str
    resource: str
    assumed: int
    request: int
    needed: int
    nominal: int
    borrowing_limit: int | None
    lending_limit: int | None
    used: int
    available: int
    max_capacity: int
    borrowable: int
    mode: PreemptionMode
    borrow: int
    preemption: OracleAnswer | None = None


class FlavorAssignment(msgspec.Struct):
    """flavorassigner.FlavorAssignment."""

    name: str
    mode: Mode
    tried_flavor_idx: int = 0
    borrow: int = 0


class FlavorAttempt(msgspec.Struct):
    """FlavorAssignmentAttempt: one flavor tried, with its worst outcome across the resources."""

    flavor: str
    mode: Mode
    borrow: int = 0
    possibility: Possibility | None = None
    reasons: list[str] = msgspec.field(default_factory=list)
    no_fit_reason: str = ""


class PodSetAssignment(msgspec.Struct):
    """flavorassigner.PodSetAssignment: the flavors of a pod set's resources and why not."""

    name: str
    flavors: dict[str, FlavorAssignment]
    status: Status
    requests: dict[str, int]
    count: int
    attempts: list[FlavorAttempt] = msgspec.field(default_factory=list)

    def representative_mode(self) -> Mode:
        if self.status.is_fit():
            return Mode.FIT
        if self.status.is_error() or not self.flavors:
            return Mode.NO_FIT
        return min(f.mode for f in self.flavors.values())


class Assignment(msgspec.Struct):
    """flavorassigner.Assignment, and the facts behind it."""

    pod_sets: list[PodSetAssignment] = msgspec.field(default_factory=list)
    borrowing: int = 0
    usage: dict[FlavorResource, int] = msgspec.field(default_factory=dict)
    no_fit_reason: str = ""
    checks: list[QuotaCheck] = msgspec.field(default_factory=list)
    # What podwhy did not evaluate that Kueue would have (names.NOT_EMULATED_*).
    not_evaluated: list[str] = msgspec.field(default_factory=list)

    def representative_mode(self) -> Mode:
        """The worst mode among the pod sets (NoFit when none was assigned)."""
        if not self.pod_sets:
            return Mode.NO_FIT
        return min(ps.representative_mode() for ps in self.pod_sets)

    def message(self) -> str:
        """Assignment.Message: the pod sets that do not fit, "; "-joined."""
        parts = []
        for ps in self.pod_sets:
            if ps.status.is_fit():
                continue
            if ps.status.is_error():
                return names.MSG_ASSIGNMENT_ERROR.format(ps.name, ps.status.err)
            parts.append(names.MSG_ASSIGNMENT.format(ps.name, ps.status.message()))
        return "; ".join(parts)


# ---------------------------------------------------------------- preference between modes


class GranularMode(msgspec.Struct, frozen=True):
    mode: PreemptionMode
    borrow: int


_WORST = GranularMode(PreemptionMode.NO_FIT, MAX_INT64)
_BEST = GranularMode(PreemptionMode.FIT, 0)


def is_preferred(a: GranularMode, b: GranularMode, fungibility: o.FlavorFungibility) -> bool:
    """isPreferred: A better than B under the fungibility preference."""
    if a.mode is PreemptionMode.NO_FIT:
        return False
    if b.mode is PreemptionMode.NO_FIT:
        return True
    a_none, b_none = a.mode is PreemptionMode.NO_CANDIDATES, b.mode is PreemptionMode.NO_CANDIDATES
    if a_none != b_none:
        return not a_none
    if fungibility.preference == names.PREEMPTION_OVER_BORROWING:
        if a.borrow != b.borrow:
            return a.borrow < b.borrow
        return a.mode > b.mode
    if a.mode != b.mode:
        return a.mode > b.mode
    return a.borrow < b.borrow


def should_try_next_flavor(mode: GranularMode, fungibility: o.FlavorFungibility) -> bool:
    """shouldTryNextFlavor."""
    if mode.mode in (PreemptionMode.NO_FIT, PreemptionMode.NO_CANDIDATES):
        return True
    if (
        mode.mode in (PreemptionMode.PREEMPT, PreemptionMode.RECLAIM)
        and fungibility.when_can_preempt == names.TRY_NEXT_FLAVOR
    ):
        return True
    return mode.borrow != 0 and fungibility.when_can_borrow == names.TRY_NEXT_FLAVOR


REASON_SEVERITY: dict[str, int] = {
    names.NO_MATCHING_FLAVOR: 4,
    names.EXCEEDS_MAX_QUOTA: 3,
    names.WAITING_FOR_QUOTA: 2,
    names.TOPOLOGY_PLACEMENT_FAILED: 1,
}


def most_severe_reason(a: str, b: str) -> str:
    """mostSevereReason: NoMatchingFlavor > ExceedsMaxQuota > WaitingForQuota > TopologyPlacementFailed."""
    return a if reason_severity(a) >= reason_severity(b) else b


def reason_severity(reason: str) -> int:
    return REASON_SEVERITY.get(reason, 0)
