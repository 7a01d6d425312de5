"""The quota tree, after Kueue's pkg/cache/scheduler/resource_test.go TestAvailable (available and
potentialAvailable before, with and after usage) and the hierarchy's cycle check
(pkg/cache/hierarchy/cycle.go), the borrowing height of preemption/classical's
FindHeightOfLowestSubtreeThatFits, and usage read from admitted Workloads."""

from __future__ import annotations

from typing import Any

import pytest

from podwhy.cluster.kueue.resourcenode import (
    add_usage,
    available,
    build_tree,
    has_cycle,
    height_of_lowest_subtree_that_fits,
    potential_available,
    remove_usage,
)
from podwhy.cluster.kueue.resources import FlavorResource
from podwhy.model import objects as o
from tests.cluster.kueue.builders import admitted, cluster_queue, cohort, flavor_quotas, group

RED, BLUE = FlavorResource("red", "cpu"), FlavorResource("blue", "cpu")


def _cq(name: str, *flavors: dict[str, Any], parent: str = "") -> Any:
    return cluster_queue(name, group(*flavors), cohort=parent)


def _co(name: str, *flavors: dict[str, Any], parent: str = "") -> Any:
    return cohort(name, group(*flavors), parent=parent) if flavors else cohort(name, parent=parent)


# Upstream TestAvailable: (cluster queues, cohorts, usage, want available, want potentially available).
AVAILABLE_CASES: dict[
    str,
    tuple[
        list[Any],
        list[Any],
        dict[str, dict[FlavorResource, int]],
        dict[str, dict[FlavorResource, int]],
        dict[str, dict[FlavorResource, int]],
    ],
] = {
    "base cqs": (
        [
            _cq("cq1", flavor_quotas("red", cpu="0")),
            _cq("cq2", flavor_quotas("red", cpu="5"), flavor_quotas("blue", cpu="10")),
        ],
        [],
        {"cq1": {RED: 1000}, "cq2": {RED: 2_500, BLUE: 1_000}},
        {"cq1": {RED: 0}, "cq2": {RED: 2_500, BLUE: 9_000}},
        {"cq1": {RED: 0}, "cq2": {RED: 5_000, BLUE: 10_000}},
    ),
    "cqs with cohort": (
        [
            _cq("cq1", flavor_quotas("red", cpu="10"), parent="cohort"),
            _cq("cq2", flavor_quotas("red", cpu=("10", "", "9")), parent="cohort"),
        ],
        [_co("cohort", flavor_quotas("red", cpu="10"))],
        {"cq1": {RED: 1000}, "cq2": {RED: 500}},
        {"cq1": {RED: 28_000}, "cq2": {RED: 28_500}},
        {"cq1": {RED: 29_000}, "cq2": {RED: 30_000}},
    ),
    "cq borrows from cohort": (
        [_cq("cq1", flavor_quotas("red", cpu="10"), parent="cohort")],
        [_co("cohort", flavor_quotas("red", cpu="10"))],
        {"cq1": {RED: 11_000}},
        {"cq1": {RED: 9_000}},
        {"cq1": {RED: 20_000}},
    ),
    "cq oversubscription spills into cohort": (
        [
            _cq("cq1", flavor_quotas("red", cpu="10"), parent="cohort"),
            _cq("cq2", flavor_quotas("red", cpu=("10", "0", "0")), parent="cohort"),
        ],
        [_co("cohort", flavor_quotas("red", cpu="10"))],
        {"cq1": {RED: 31_000}},
        {"cq1": {RED: 0}, "cq2": {RED: 0}},
        {"cq1": {RED: 20_000}, "cq2": {RED: 10_000}},
    ),
    "lending and borrowing limits respected": (
        [
            _cq("cq1", flavor_quotas("red", cpu="10"), parent="cohort"),
            _cq("cq2", flavor_quotas("red", cpu=("10", "2")), parent="cohort"),
            _cq("cq3", flavor_quotas("red", cpu=("10", "", "5")), parent="cohort"),
        ],
        [_co("cohort", flavor_quotas("red", cpu="10"))],
        {"cq1": {RED: 20_000}, "cq2": {RED: 10_000}, "cq3": {RED: 6_000}},
        {"cq1": {RED: 4_000}, "cq2": {RED: 2_000}, "cq3": {RED: 4_000}},
        {"cq1": {RED: 35_000}, "cq2": {RED: 12_000}, "cq3": {RED: 40_000}},
    ),
    "hierarchical cohort": (
        [
            _cq("cq1", flavor_quotas("red", cpu="10"), parent="left"),
            _cq("cq2", flavor_quotas("red", cpu=("10", "", "0")), parent="right"),
        ],
        [
            _co("root"),
            _co("left", flavor_quotas("red", cpu="10"), parent="root"),
            _co("right", flavor_quotas("red", cpu="10"), parent="root"),
        ],
        {"cq1": {RED: 10_000}, "cq2": {RED: 5_000}},
        {"cq1": {RED: 20_000}, "cq2": {RED: 25_000}},
        {"cq1": {RED: 30_000}, "cq2": {RED: 40_000}},
    ),
    "hierarchical cohort respects borrowing limit": (
        [
            _cq("left-cq1", flavor_quotas("red", cpu="10"), parent="left"),
            _cq("left-cq2", flavor_quotas("red", cpu=("10", "5")), parent="left"),
            _cq("right-cq", flavor_quotas("red", cpu="10"), parent="right"),
        ],
        [
            _co("root"),
            _co("left", flavor_quotas("red", cpu=("10", "5")), parent="root"),
            _co("right", flavor_quotas("red", cpu="10"), parent="root"),
        ],
        {},
        {"left-cq1": {RED: 35_000}, "left-cq2": {RED: 15_000}, "right-cq": {RED: 50_000}},
        {"left-cq1": {RED: 35_000}, "left-cq2": {RED: 15_000}, "right-cq": {RED: 50_000}},
    ),
    "hierarchical cohort respects lending limit": (
        [
            _cq("left-cq1", flavor_quotas("red", cpu=("10", "", "5")), parent="left"),
            _cq("left-cq2", flavor_quotas("red", cpu="10"), parent="left"),
            _cq("right-cq", flavor_quotas("red", cpu="0"), parent="right"),
            _cq("root-cq", flavor_quotas("red", cpu="0"), parent="root"),
        ],
        [
            _co("root"),
            _co("left", flavor_quotas("red", cpu=("0", "", "5")), parent="root"),
            _co("right", flavor_quotas("red", cpu="0"), parent="root"),
        ],
        {},
        {"left-cq1": {RED: 20_000}, "left-cq2": {RED: 15_000}, "right-cq": {RED: 5_000}, "root-cq": {RED: 5_000}},
        {"left-cq1": {RED: 20_000}, "left-cq2": {RED: 15_000}, "right-cq": {RED: 5_000}, "root-cq": {RED: 5_000}},
    ),
}


def _measure(tree: Any) -> tuple[dict[str, dict[FlavorResource, int]], dict[str, dict[FlavorResource, int]]]:
    got_available, got_potential = {}, {}
    for name, cq in tree.cluster_queues.items():
        got_available[name] = {fr: max(0, available(cq, fr)) for fr in cq.quotas}
        got_potential[name] = {fr: potential_available(cq, fr) for fr in cq.quotas}
    return got_available, got_potential


@pytest.mark.parametrize("name", list(AVAILABLE_CASES))
def test_available(name: str) -> None:
    """Upstream TestAvailable: before usage (and after removing it) available is the potential."""
    cqs, cohorts, usage, want_available, want_potential = AVAILABLE_CASES[name]
    tree = build_tree(cqs, cohorts)
    assert _measure(tree) == (want_potential, want_potential)
    for cq_name, frs in usage.items():
        for fr, q in frs.items():
            add_usage(tree.cluster_queues[cq_name], fr, q)
    assert _measure(tree) == (want_available, want_potential)
    for cq_name, frs in usage.items():
        for fr, q in frs.items():
            remove_usage(tree.cluster_queues[cq_name], fr, q)
    assert _measure(tree) == (want_potential, want_potential)


def test_usage_from_admitted_workloads() -> None:
    """Usage is the admitted Workloads' podSetAssignments.resourceUsage, in their flavors."""
    cqs = [
        _cq("cq1", flavor_quotas("red", cpu="10"), parent="cohort"),
        _cq("cq2", flavor_quotas("red", cpu="10"), parent="cohort"),
    ]
    wl = admitted("a", "cq1", {"cpu": "12"}, {"cpu": "red"})
    finished = admitted("done", "cq2", {"cpu": "5"}, {"cpu": "red"})
    finished.status.conditions.append(o.KueueCondition(type="Finished", status="True"))
    tree = build_tree(cqs, [], [wl, finished])
    cq1, cq2 = tree.cluster_queues["cq1"], tree.cluster_queues["cq2"]
    assert cq1.usage == {RED: 12_000}
    assert cq2.usage == {}
    assert tree.cohorts["cohort"].usage == {RED: 12_000}
    assert available(cq2, RED) == 8_000
    assert tree.cohorts["cohort"].explicit is False  # implicit: no Cohort object


def test_reclaimable_pods_scale_usage_down() -> None:
    """totalRequestsFromAdmission: pods since reclaimed no longer count (ReclaimablePods)."""
    wl = admitted("a", "cq1", {"cpu": "4"}, {"cpu": "red"}, count=4)
    wl.status.reclaimable_pods.append(o.ReclaimablePod(name="main", count=1))
    tree = build_tree([_cq("cq1", flavor_quotas("red", cpu="10"))], [], [wl])
    assert tree.cluster_queues["cq1"].usage == {RED: 3_000}


def test_cycle() -> None:
    """hierarchy.HasCycle: a Cohort whose parents loop; its ClusterQueues are left out (inactive)."""
    cohorts = [_co("a", parent="b"), _co("b", parent="a"), _co("c", parent="a"), _co("root"), _co("d", parent="root")]
    tree = build_tree(
        [_cq("cq", flavor_quotas("red", cpu="1"), parent="c"), _cq("ok", flavor_quotas("red", cpu="1"), parent="d")],
        cohorts,
    )
    assert tree.cyclic_cohorts() == ["a", "b", "c"]
    assert tree.in_cycle(tree.cluster_queues["cq"])
    assert not tree.in_cycle(tree.cluster_queues["ok"])
    assert not has_cycle(tree.cohorts["root"])
    self_parent = build_tree([], [_co("self", parent="self")])
    assert self_parent.cyclic_cohorts() == ["self"]


def test_height_of_lowest_subtree_that_fits() -> None:
    """FindHeightOfLowestSubtreeThatFits: 0 within nominal quota; else the height of the lowest
    Cohort whose subtree holds the request (and whether a larger tree is above it)."""
    tree = build_tree(
        [
            _cq("cq1", flavor_quotas("red", cpu="10"), parent="left"),
            _cq("cq2", flavor_quotas("red", cpu="10"), parent="left"),
            _cq("cq3", flavor_quotas("red", cpu="10"), parent="right"),
            _cq("alone", flavor_quotas("red", cpu="10")),
        ],
        [_co("root"), _co("left", parent="root"), _co("right", parent="root")],
    )
    cq1 = tree.cluster_queues["cq1"]
    assert height_of_lowest_subtree_that_fits(cq1, RED, 5_000) == (0, True)
    assert height_of_lowest_subtree_that_fits(cq1, RED, 15_000) == (1, True)
    assert height_of_lowest_subtree_that_fits(cq1, RED, 25_000) == (2, False)
    assert height_of_lowest_subtree_that_fits(cq1, RED, 45_000) == (2, False)
    assert height_of_lowest_subtree_that_fits(tree.cluster_queues["alone"], RED, 15_000) == (0, False)
