"""Which flavor the assigner picks, after Kueue's flavorassigner_test.go TestReclaimBeforePriorityPreemption,
TestHierarchical, TestDeletedFlavors and TestIsPreferred (upstream's testOracle answers the
preemption simulations)."""

from __future__ import annotations

from typing import Any

import pytest

from podwhy.cluster.kueue import names
from podwhy.cluster.kueue.assignment import (
    GranularMode,
    Mode,
    OracleAnswer,
    Possibility,
    PreemptionMode,
    is_preferred,
    snapshot_cluster_queue,
)
from podwhy.cluster.kueue.flavorassigner import AssignOptions, FlavorAssigner
from podwhy.cluster.kueue.requests import pod_set_requests
from podwhy.cluster.kueue.resourcenode import add_usage, build_tree
from podwhy.cluster.kueue.resources import FlavorResource
from podwhy.model import objects as o
from tests.cluster.kueue.builders import cluster_queue, cohort, flavor_quotas, group, pod_set, resource_flavor, workload

FIT, PREEMPT, NO_FIT = Mode.FIT, Mode.PREEMPT, Mode.NO_FIT
Usage = dict[tuple[str, str], int]
Simulation = dict[tuple[str, str], tuple[Possibility, int]]


def _assign(
    requests: dict[str, str],
    test_cq: o.ClusterQueue,
    other_cq: o.ClusterQueue,
    cohorts: list[o.Cohort],
    flavors: dict[str, o.ResourceFlavor],
    test_usage: Usage,
    other_usage: Usage,
    simulation: Simulation,
) -> Any:
    tree = build_tree([test_cq, other_cq], cohorts)
    for cq, usage in ((test_cq, test_usage), (other_cq, other_usage)):
        for (flavor, res), q in usage.items():
            add_usage(tree.cluster_queues[cq.metadata.name], FlavorResource(flavor, res), q)

    def oracle(_cq: Any, fr: FlavorResource, _q: int) -> OracleAnswer:
        return OracleAnswer(*simulation.get((fr.flavor, fr.resource), (Possibility.PREEMPT, 0)))

    wl = workload("wl", pod_set(requests=requests))
    snapshot = snapshot_cluster_queue(test_cq, tree, flavors)
    return FlavorAssigner(wl, pod_set_requests(wl), snapshot, flavors, AssignOptions(oracle=oracle)).assign()


# ---------------------------------------------------------------- TestReclaimBeforePriorityPreemption

ITALIAN = {n: resource_flavor(n) for n in ("uno", "due", "tre")}
RECLAIM_CASES: dict[
    str, tuple[dict[str, str], Usage, Usage, Simulation, dict[str, Any] | None, Mode, dict[str, str]]
] = {
    "Select first flavor which fits": (
        {"gpu": "10"},
        {("uno", "gpu"): 1},
        {("due", "gpu"): 1},
        {},
        None,
        FIT,
        {"gpu": "tre"},
    ),
    "Select first flavor where gpu reclamation is possible": (
        {"gpu": "10"},
        {("uno", "gpu"): 1},
        {("due", "gpu"): 1, ("tre", "gpu"): 1},
        {("uno", "gpu"): (Possibility.PREEMPT, 0), ("due", "gpu"): (Possibility.RECLAIM, 0)},
        None,
        PREEMPT,
        {"gpu": "due"},
    ),
    "Select first flavor when flavor fungibility is disabled": (
        {"gpu": "10"},
        {("uno", "gpu"): 1},
        {("due", "gpu"): 1, ("tre", "gpu"): 1},
        {},
        {"whenCanPreempt": "MayStopSearch"},
        PREEMPT,
        {"gpu": "uno"},
    ),
    "Select first flavor where priority based preemption is possible": (
        {"gpu": "10"},
        {("uno", "gpu"): 1, ("due", "gpu"): 1, ("tre", "gpu"): 1},
        {},
        {},
        None,
        PREEMPT,
        {"gpu": "uno"},
    ),
    "Select second flavor where gpu reclamation is possible, as compute Fits": (
        {"gpu": "10", "compute": "10"},
        {("uno", "gpu"): 1, ("uno", "compute"): 1, ("due", "compute"): 1},
        {("due", "gpu"): 1, ("tre", "gpu"): 1},
        {
            ("uno", "gpu"): (Possibility.PREEMPT, 0),
            ("due", "gpu"): (Possibility.RECLAIM, 0),
            ("tre", "gpu"): (Possibility.RECLAIM, 0),
        },
        None,
        PREEMPT,
        {"gpu": "tre", "compute": "tre"},
    ),
}


@pytest.mark.parametrize("name", list(RECLAIM_CASES))
def test_reclaim_before_priority_preemption(name: str) -> None:
    """Upstream TestReclaimBeforePriorityPreemption: reclaim is preferred to priority preemption."""
    requests, test_usage, other_usage, simulation, fungibility, want_mode, want = RECLAIM_CASES[name]
    preemption = {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "LowerPriority"}
    test_cq = cluster_queue(
        "test-clusterqueue",
        group(*(flavor_quotas(f, compute="10", gpu="10") for f in ("uno", "due", "tre"))),
        cohort="cohort",
        spec={"preemption": preemption, "flavorFungibility": fungibility or {"whenCanPreempt": "TryNextFlavor"}},
    )
    other_cq = cluster_queue(
        "other-clusterqueue",
        group(*(flavor_quotas(f, compute="0", gpu="0") for f in ("uno", "due", "tre"))),
        cohort="cohort",
    )
    got = _assign(requests, test_cq, other_cq, [], ITALIAN, test_usage, other_usage, simulation)
    assert got.representative_mode() is want_mode
    assert {res: fa.name for res, fa in got.pod_sets[0].flavors.items()} == want


# ---------------------------------------------------------------- TestHierarchical

NUMBERS = {n: resource_flavor(n) for n in ("one", "two", "three")}
HIERARCHY = [
    cohort("three", group(flavor_quotas("three", cpu="4"))),
    cohort("two", group(flavor_quotas("two", cpu="4")), parent="three"),
    cohort("one", group(flavor_quotas("one", cpu="4")), parent="two"),
]
ZERO = [flavor_quotas(f, cpu="0") for f in ("one", "two", "three")]
HIERARCHICAL_CASES: dict[
    str, tuple[list[dict[str, Any]], Usage, Usage, dict[str, Any] | None, Simulation, Mode, dict[str, str]]
] = {
    "Select the top flavor": (ZERO, {("one", "cpu"): 4_000}, {("two", "cpu"): 4_000}, None, {}, FIT, {"cpu": "three"}),
    "Select the first flavor which fits": (ZERO, {("one", "cpu"): 4_000}, {}, None, {}, FIT, {"cpu": "two"}),
    "Select deeper-borrowing flavor that fits when shallower-borrowing flavor has no preemption candidates": (
        [flavor_quotas("one", cpu=("4", "0")), flavor_quotas("two", cpu="0"), flavor_quotas("three", cpu="0")],
        {("one", "cpu"): 4_000},
        {},
        {"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor", "preference": "PreemptionOverBorrowing"},
        {("one", "cpu"): (Possibility.NO_CANDIDATES, 1)},
        FIT,
        {"cpu": "two"},
    ),
}


@pytest.mark.parametrize("name", list(HIERARCHICAL_CASES))
def test_hierarchical(name: str) -> None:
    """Upstream TestHierarchical: a three-level Cohort tree, each level with 4 CPUs of its own flavor."""
    flavors, test_usage, other_usage, fungibility, simulation, want_mode, want = HIERARCHICAL_CASES[name]
    test_cq = cluster_queue(
        "test-clusterqueue",
        group(*flavors),
        cohort="one",
        spec={
            "preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "LowerPriority"},
            "flavorFungibility": fungibility or {"whenCanPreempt": "TryNextFlavor"},
        },
    )
    other_cq = cluster_queue("other-clusterqueue", group(*ZERO), cohort="two")
    got = _assign({"cpu": "4"}, test_cq, other_cq, HIERARCHY, NUMBERS, test_usage, other_usage, simulation)
    assert got.representative_mode() is want_mode
    assert {res: fa.name for res, fa in got.pod_sets[0].flavors.items()} == want


# ---------------------------------------------------------------- TestDeletedFlavors


@pytest.mark.parametrize("granular", [False, True])
def test_deleted_flavors(granular: bool) -> None:
    """Upstream TestDeletedFlavors: a flavor the ClusterQueue names but no ResourceFlavor defines."""
    gates = {names.UNADMITTED_WORKLOADS_OBSERVABILITY: granular}
    flavors = {"flavor": resource_flavor("flavor")}

    def run(cq: o.ClusterQueue, cpu: str) -> Any:
        wl = workload("wl", pod_set(requests={"cpu": cpu}))
        tree = build_tree([cq])
        snapshot = snapshot_cluster_queue(cq, tree, flavors)
        return FlavorAssigner(wl, pod_set_requests(wl), snapshot, flavors, AssignOptions(gates=gates)).assign()

    skip = run(
        cluster_queue(
            "test-clusterqueue", group(flavor_quotas("deleted-flavor", cpu="4"), flavor_quotas("flavor", cpu="4"))
        ),
        "3",
    )
    assert skip.representative_mode() is FIT
    assert {r: (f.name, f.tried_flavor_idx) for r, f in skip.pod_sets[0].flavors.items()} == {"cpu": ("flavor", -1)}
    deleted = skip.pod_sets[0].attempts[0]
    assert (deleted.flavor, deleted.mode, deleted.reasons) == (
        "deleted-flavor",
        NO_FIT,
        ["flavor deleted-flavor not found"],
    )
    assert deleted.no_fit_reason == (names.NO_MATCHING_FLAVOR if granular else "")
    assert skip.usage == {FlavorResource("flavor", "cpu"): 3_000}

    missing = run(cluster_queue("test-clusterqueue", group(flavor_quotas("deleted-flavor", cpu="4"))), "1")
    assert missing.representative_mode() is NO_FIT
    assert missing.pod_sets[0].status.reasons == ["flavor deleted-flavor not found"]
    assert missing.no_fit_reason == (names.NO_MATCHING_FLAVOR if granular else "")
    assert missing.message() == "couldn't assign flavors to pod set main: flavor deleted-flavor not found"


# ---------------------------------------------------------------- TestIsPreferred

P = PreemptionMode
TRY = {"when_can_borrow": "TryNextFlavor", "when_can_preempt": "TryNextFlavor"}
PREFERRED_CASES: dict[str, tuple[tuple[P, int], tuple[P, int], dict[str, Any], bool]] = {
    "feature gate disabled prioritises preemption": ((P.FIT, 0), (P.PREEMPT, 0), TRY, True),
    "explicit BorrowingOverPreemption prioritises borrowing distance": (
        (P.PREEMPT, 1),
        (P.FIT, 2),
        {**TRY, "preference": "BorrowingOverPreemption"},
        False,
    ),
    "explicit PreemptionOverBorrowing prioritises lower preemption": (
        (P.PREEMPT, 1),
        (P.FIT, 2),
        {**TRY, "preference": "PreemptionOverBorrowing"},
        True,
    ),
    "explicit PreemptionOverBorrowing breaks borrowing ties with preemption": (
        (P.PREEMPT, 1),
        (P.FIT, 1),
        {**TRY, "preference": "PreemptionOverBorrowing"},
        False,
    ),
    "explicit PreemptionOverBorrowing rejects no-candidate flavor before borrowing comparison": (
        (P.NO_CANDIDATES, 1),
        (P.FIT, 2),
        {**TRY, "preference": "PreemptionOverBorrowing"},
        False,
    ),
    "explicit PreemptionOverBorrowing prefers fit over shallower-borrowing no-candidate flavor": (
        (P.FIT, 2),
        (P.NO_CANDIDATES, 1),
        {**TRY, "preference": "PreemptionOverBorrowing"},
        True,
    ),
    "no-candidate flavor remains preferable to no-fit flavor": ((P.NO_CANDIDATES, 1), (P.NO_FIT, 0), {}, True),
    "no-fit flavor remains worse than no-candidate flavor": ((P.NO_FIT, 0), (P.NO_CANDIDATES, 1), {}, False),
    "no-candidate flavors retain borrowing preference": (
        (P.NO_CANDIDATES, 1),
        (P.NO_CANDIDATES, 2),
        {"preference": "PreemptionOverBorrowing"},
        True,
    ),
    "no-candidate flavors retain borrowing preference in reverse": (
        (P.NO_CANDIDATES, 2),
        (P.NO_CANDIDATES, 1),
        {"preference": "PreemptionOverBorrowing"},
        False,
    ),
}


@pytest.mark.parametrize("name", list(PREFERRED_CASES))
def test_is_preferred(name: str) -> None:
    """Upstream TestIsPreferred."""
    a, b, config, want = PREFERRED_CASES[name]
    assert is_preferred(GranularMode(*a), GranularMode(*b), o.FlavorFungibility(**config)) is want
