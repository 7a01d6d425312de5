"""Kueue's TestSchedule (pkg/scheduler/scheduler_test.go, v0.20) cases whose pending Workload ends
the cycle with QuotaReserved=False: podwhy's verdict gives the same reason and message.

The ClusterQueues, LocalQueues, flavors and namespaces are the test's shared fixture; each case
adds its own objects. Not ported (podwhy does not emulate what decides them, or the cycle's answer
depends on another Workload nominated in the same cycle):
  - "use second flavor when the first has no preemption candidates; ...", "preempt workloads in
    ClusterQueue and cohort", "multiple CQs need preemption", "minimal preemptions when target
    queue is exhausted", "multiple preemptions ...", "prefer reclamation over cq priority based
    preemption", "prefer first preemption flavor ...", "workload requiring reclaimation
    prioritized over wl in another full cq", "capacity not blocked when lending clusterqueue can
    reclaim (ReclaimWithinCohort=Any)", "capacity blocked when lending clusterqueue not
    guaranteed to reclaim (ReclaimWithinCohort=LowerPriority)", "preempt when workload requests
    zero of a resource not defined in ClusterQueue", "PreemptionOverBorrowing preference: ...",
    "A workload is only eligible to do preemptions if it fits fully within nominal quota", "no
    overadmission while borrowing", "do not signal `BlockedOnPreemptionGates` ...", "block
    preemptions and signal `BlockedOnPreemptionGates` when a preemption gate is present": the
    ClusterQueue has a preemption policy (candidates not searched: podwhy gives no reason);
  - "partial admission single variable pod set, preempt ...": partial admission and preemption;
  - "cannot borrow if cohort was assigned and would result in overadmission", "only one workload
    can borrow one resources from the same flavor in the same cycle if cohort quota cannot fit",
    "preemption while borrowing, workload waiting for preemption should not block a borrowing
    workload in another CQ", "in a hierarchical cohort, workload borrowing less is scheduled
    first": the message comes from another Workload admitted earlier in the same cycle (those are
    ported in test_cycle.py, on the cycle across ClusterQueues).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec
import pytest

from podwhy.cluster.kueue import names
from podwhy.cluster.kueue.admission import KueueObjects, VerdictOptions, explain_workload
from podwhy.model import objects as o
from tests.cluster.kueue.builders import (
    admitted,
    cluster_queue,
    cohort,
    flavor_quotas,
    group,
    pod_set,
    resource_flavor,
    resource_map,
    workload,
)


def _selector(dep: str) -> dict[str, Any]:
    return {"namespaceSelector": {"matchExpressions": [{"key": "dep", "operator": "In", "values": [dep]}]}}


def _strict(dep: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {"queueingStrategy": "StrictFIFO"}
    if dep:
        spec.update(_selector(dep))
    return spec


def _lq(name: str, namespace: str, cq: str) -> o.LocalQueue:
    return msgspec.convert(
        {"metadata": {"name": name, "namespace": namespace}, "spec": {"clusterQueue": cq}}, o.LocalQueue
    )


def _ns(name: str, dep: str = "") -> o.Namespace:
    return msgspec.convert({"metadata": {"name": name, "labels": {"dep": dep} if dep else {}}}, o.Namespace)


TAINT = {"key": "key", "value": "val", "effect": "NoSchedule"}
TAINT_2 = {"key": "key", "value": "val2", "effect": "NoSchedule"}


def _fixture() -> list[object]:
    """TestSchedule's resourceFlavors, clusterQueues, queues and namespaces."""
    return [
        resource_flavor("default"),
        resource_flavor("on-demand"),
        resource_flavor("spot"),
        resource_flavor("model-a"),
        resource_flavor("spot-tainted", taints=[TAINT]),
        resource_flavor("spot-tainted-2", taints=[TAINT_2]),
        cluster_queue("sales", group(flavor_quotas("default", cpu=("50", "0"))), spec=_strict("sales")),
        cluster_queue(
            "eng-alpha",
            group(flavor_quotas("on-demand", cpu=("50", "50")), flavor_quotas("spot", cpu=("100", "0"))),
            cohort="eng",
            spec=_strict("eng"),
        ),
        cluster_queue(
            "eng-beta",
            group(flavor_quotas("on-demand", cpu=("50", "10")), flavor_quotas("spot", cpu=("0", "100"))),
            group(resource_map("model-a", {"example.com/gpu": ("20", "0")})),
            cohort="eng",
            spec={
                **_strict("eng"),
                "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
            },
        ),
        cluster_queue("flavor-nonexistent-cq", group(flavor_quotas("nonexistent-flavor", cpu="50")), spec=_strict()),
        cluster_queue(
            "lend-a", group(flavor_quotas("default", cpu=("3", "", "2"))), cohort="lend", spec=_selector("lend")
        ),
        cluster_queue(
            "lend-b", group(flavor_quotas("default", cpu=("2", "", "2"))), cohort="lend", spec=_selector("lend")
        ),
        _lq("main", "sales", "sales"),
        _lq("blocked", "sales", "eng-alpha"),
        _lq("main", "eng-alpha", "eng-alpha"),
        _lq("main", "eng-beta", "eng-beta"),
        _lq("flavor-nonexistent-queue", "sales", "flavor-nonexistent-cq"),
        _lq("cq-nonexistent-queue", "sales", "nonexistent-cq"),
        _lq("lend-a-queue", "lend", "lend-a"),
        _lq("lend-b-queue", "lend", "lend-b"),
        _ns("default"),
        _ns("eng-alpha", "eng"),
        _ns("eng-beta", "eng"),
        _ns("eng-gamma", "eng"),
        _ns("sales", "sales"),
        _ns("lend", "lend"),
    ]


def _holding(
    name: str, namespace: str, cq: str, pod_sets: list[tuple[str, int, str, str]], resource: str = "cpu"
) -> o.KueueWorkload:
    """MakeWorkload(name, namespace).ReserveQuotaAt(MakeAdmission(cq)...): POD_SETS as (name,
    count, RESOURCE per pod, flavor); the Workload holds count x that of the flavor."""
    assignments, sets = [], []
    for ps, count, per_pod, flavor in pod_sets:
        total = str(int(per_pod) * count)
        usage = {"name": ps, "count": count, "flavors": {resource: flavor}, "resourceUsage": {resource: total}}
        assignments.append(usage)
        sets.append(pod_set(ps, count, {resource: per_pod}))
    status = {
        "conditions": [{"type": "QuotaReserved", "status": "True"}],
        "admission": {"clusterQueue": cq, "podSetAssignments": assignments},
    }
    return workload(name, *sets, namespace=namespace, queue="", status=status)


@dataclass(frozen=True)
class Case:
    """One TestSchedule case: the pending Workload WANT is about, the objects the case adds, its
    feature gates, and the QuotaReserved=False (reason, message) upstream wants."""

    workload: o.KueueWorkload
    want: tuple[str, str]
    extra: list[object] = field(default_factory=list)
    gates: dict[str, bool] = field(default_factory=dict)


def _cases() -> dict[str, Case]:
    return {
        "flavors with mixed misconfiguration and insufficient quota": Case(
            workload("new-job", pod_set(requests={"cpu": "10"}), namespace="sales", queue="custom-q"),
            (
                "WaitingForQuota",
                "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, "
                "5 more needed, untolerated taint {key val NoSchedule <nil>} in flavor spot-tainted",
            ),
            [
                cluster_queue(
                    "custom-cq",
                    group(
                        flavor_quotas("spot-tainted", cpu=("20", "20")),
                        flavor_quotas("on-demand", cpu=("15", "15")),
                    ),
                    spec=_strict(),
                ),
                _lq("custom-q", "sales", "custom-cq"),
                admitted("existing-on-demand-job", "custom-cq", {"cpu": "10"}, {"cpu": "on-demand"}, namespace="sales"),
            ],
        ),
        "flavors with mixed taint mismatch and exceeding limits": Case(
            workload("new-job2", pod_set(requests={"cpu": "10"}), namespace="sales", queue="custom-q2"),
            (
                "ExceedsMaxQuota",
                "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor on-demand, "
                "previously considered podsets requests (0) + current podset request (10) > maximum capacity (5), "
                "untolerated taint {key val NoSchedule <nil>} in flavor spot-tainted",
            ),
            [
                cluster_queue(
                    "custom-cq2",
                    group(
                        flavor_quotas("spot-tainted", cpu=("20", "20")),
                        flavor_quotas("on-demand", cpu=("5", "5")),
                    ),
                    spec=_strict(),
                ),
                _lq("custom-q2", "sales", "custom-cq2"),
            ],
        ),
        "flavors are structurally incompatible": Case(
            workload("new-job3", pod_set(requests={"cpu": "1"}), namespace="sales", queue="custom-q3"),
            (
                "NoMatchingFlavor",
                "couldn't assign flavors to pod set main: untolerated taint {key val NoSchedule <nil>} in flavor "
                "spot-tainted, untolerated taint {key val2 NoSchedule <nil>} in flavor spot-tainted-2",
            ),
            [
                cluster_queue(
                    "custom-cq3",
                    group(
                        flavor_quotas("spot-tainted", cpu=("20", "20")),
                        flavor_quotas("spot-tainted-2", cpu=("5", "5")),
                    ),
                    spec=_strict(),
                ),
                _lq("custom-q3", "sales", "custom-cq3"),
            ],
        ),
        "single clusterQueue full": Case(
            workload("new", pod_set("one", 11, {"cpu": "1"}), namespace="sales", queue="main"),
            (
                "WaitingForQuota",
                "couldn't assign flavors to pod set one: insufficient unused quota for cpu in flavor default, "
                "1 more needed",
            ),
            [_holding("assigned", "sales", "sales", [("one", 40, "1", "default")])],
            {names.PARTIAL_ADMISSION: True},
        ),
        "failed to match clusterQueue selector": Case(
            workload("new", pod_set("one", 1, {"cpu": "1"}), namespace="sales", queue="blocked"),
            ("Misconfigured", "workload namespace doesn't match ClusterQueue selector"),
            gates={names.PARTIAL_ADMISSION: True},
        ),
        "can borrow if needs reclaim from cohort in different flavor": Case(
            workload("can-reclaim", pod_set(requests={"cpu": "100"}), namespace="eng-alpha", queue="main"),
            (
                "WaitingForQuota",
                "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, "
                "50 more needed, insufficient unused quota for cpu in flavor spot, 1 more needed",
            ),
            [
                workload("needs-to-borrow", pod_set(requests={"cpu": "1"}), namespace="eng-beta", queue="main"),
                _holding("user-on-demand", "eng-beta", "eng-beta", [("main", 1, "50", "on-demand")]),
                _holding("user-spot", "eng-beta", "eng-beta", [("main", 1, "1", "spot")]),
            ],
        ),
        "workload exceeds lending limit when borrow in cohort": Case(
            workload("b", pod_set(requests={"cpu": "3"}), namespace="lend", queue="lend-b-queue"),
            (
                "WaitingForQuota",
                "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, "
                "1 more needed",
            ),
            [_holding("a", "lend", "lend-b", [("main", 1, "2", "default")])],
        ),
        "hierarchical cohort respects lending limit when borrowing": Case(
            workload("wl-pending", pod_set(requests={"cpu": "4"}), namespace="eng-alpha", queue="lq-borrower"),
            (
                "WaitingForQuota",
                "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, "
                "1 more needed",
            ),
            [
                cohort("root"),
                cohort("child", parent="root"),
                cluster_queue(
                    "cq-lender",
                    group(flavor_quotas("on-demand", cpu=("10", "", "3"))),
                    cohort="child",
                    spec=_selector("eng"),
                ),
                cluster_queue(
                    "cq-borrower",
                    group(flavor_quotas("on-demand", cpu=("5", "10"))),
                    cohort="child",
                    spec=_selector("eng"),
                ),
                _lq("lq-lender", "eng-alpha", "cq-lender"),
                _lq("lq-borrower", "eng-alpha", "cq-borrower"),
                _holding("wl-existing", "eng-alpha", "cq-borrower", [("main", 1, "5", "on-demand")]),
            ],
        ),
        "cannot borrow resource not listed in clusterQueue": Case(
            workload("new", pod_set(requests={"example.com/gpu": "1"}), namespace="eng-alpha", queue="main"),
            (
                "NoMatchingFlavor",
                "couldn't assign flavors to pod set main: resource example.com/gpu unavailable in ClusterQueue",
            ),
        ),
        # PartialAdmission is on (its default) and two pod sets have a minCount: Kueue's second,
        # partial pass fails too and keeps the first pass's message.
        "partial admission disabled, multiple variable pod sets": Case(
            workload(
                "new",
                pod_set("one", 20, {"cpu": "1"}),
                pod_set("two", 30, {"cpu": "1"}, minCount=10),
                pod_set("three", 15, {"cpu": "1"}, minCount=5),
                namespace="sales",
                queue="main",
            ),
            (
                "ExceedsMaxQuota",
                "couldn't assign flavors to pod set three: insufficient quota for cpu in flavor default, "
                "previously considered podsets requests (50) + current podset request (15) > maximum capacity (50)",
            ),
        ),
        "not enough resources": Case(
            workload("new", pod_set("one", 1, {"cpu": "100"}), namespace="sales", queue="main"),
            (
                "ExceedsMaxQuota",
                "couldn't assign flavors to pod set one: insufficient quota for cpu in flavor default, "
                "previously considered podsets requests (0) + current podset request (100) > maximum capacity (50)",
            ),
        ),
        "container does not satisfy limitRange constraints": Case(
            workload("new", pod_set("one", 1, {"cpu": "500m"}), namespace="sales", queue="main"),
            (
                "Misconfigured",
                "resources didn't satisfy LimitRange constraints: spec.podSets[0].template.spec.containers[0]: "
                'Invalid value: ["cpu"]: requests must not be above the limitRange max',
            ),
            [
                msgspec.convert(
                    {
                        "metadata": {"name": "alpha", "namespace": "sales"},
                        "spec": {"limits": [{"type": "Container", "max": {"cpu": "300m"}}]},
                    },
                    o.LimitRange,
                )
            ],
        ),
        "container resource requests exceed limits": Case(
            workload(
                "new",
                pod_set(
                    "one",
                    1,
                    spec={
                        "containers": [
                            {"name": "c", "resources": {"requests": {"cpu": "200m"}, "limits": {"cpu": "100m"}}}
                        ]
                    },
                ),
                namespace="sales",
                queue="main",
            ),
            (
                "Misconfigured",
                "resources validation failed: spec.podSets[0].template.spec.containers[0]: "
                'Invalid value: ["cpu"]: requests must not exceed its limits',
            ),
        ),
        "prevent integer overflow when sum of requests over podsets exceeds MaxInt64": Case(
            workload(
                "vuln-wl",
                pod_set("ps1", 1, {"cpu": "1000000m"}),
                pod_set("ps2", 1, {"cpu": "9223372036854775000m"}),
                namespace="default",
                queue="overflow-queue",
            ),
            (
                "ExceedsMaxQuota",
                "couldn't assign flavors to pod set ps2: insufficient quota for cpu in flavor default, "
                "previously considered podsets requests (1k) + current podset request (9223372036854775) "
                "> maximum capacity (10k)",
            ),
            [
                cluster_queue("overflow-cq", group(flavor_quotas("default", cpu="10000"))),
                _lq("overflow-queue", "default", "overflow-cq"),
            ],
        ),
        "prevent integer overflow in ResourceValue conversion to MilliValue": Case(
            workload(
                "vuln-wl", pod_set("ps1", 1, {"cpu": "9223372036854776"}), namespace="default", queue="overflow-queue"
            ),
            (
                "ExceedsMaxQuota",
                "couldn't assign flavors to pod set ps1: insufficient quota for cpu in flavor default, "
                "previously considered podsets requests (0) + current podset request (9223372036854775807m) "
                "> maximum capacity (10)",
            ),
            [
                cluster_queue("overflow-cq", group(flavor_quotas("default", cpu="10"))),
                _lq("overflow-queue", "default", "overflow-cq"),
            ],
        ),
    }


def _reclaim_never() -> Case:
    """ "capacity blocked when lending clusterqueue not guaranteed to reclaim
    (ReclaimWithinCohort=Never)": ClusterQueueA (2 gpu, one held) and ClusterQueueB (0 gpu) in
    Cohort root; a2-pending asks for 2 in ClusterQueueA. (Its siblings with Any and LowerPriority
    need the preemption search: not ported.)"""
    return Case(
        workload("a2-pending", pod_set(requests={"gpu": "2"}), namespace="eng-alpha", queue="lq"),
        (
            "WaitingForQuota",
            "couldn't assign flavors to pod set main: insufficient unused quota for gpu in flavor on-demand, "
            "1 more needed",
        ),
        [
            cluster_queue(
                "ClusterQueueA",
                group(flavor_quotas("on-demand", gpu="2")),
                cohort="root",
                spec={"preemption": {"reclaimWithinCohort": "Never"}},
            ),
            cluster_queue("ClusterQueueB", group(flavor_quotas("on-demand", gpu="0")), cohort="root"),
            _lq("lq", "eng-alpha", "ClusterQueueA"),
            _lq("lq", "eng-beta", "ClusterQueueB"),
            _holding("a1-admitted", "eng-alpha", "ClusterQueueA", [("main", 1, "1", "on-demand")], "gpu"),
            workload("b1-pending", pod_set(requests={"gpu": "1"}), namespace="eng-beta", queue="lq"),
        ],
    )


CASES = {
    **_cases(),
    "capacity blocked when lending clusterqueue not guaranteed to reclaim (ReclaimWithinCohort=Never)": (
        _reclaim_never()
    ),
}

# Where podwhy disagrees with upstream, and why.
XFAIL: dict[str, str] = {}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=XFAIL[name])) if name in XFAIL else name
        for name in CASES
    ],
)
def test_schedule_message(name: str) -> None:
    case = CASES[name]
    objs = KueueObjects.of([*_fixture(), *case.extra, case.workload])
    verdict = explain_workload(case.workload, objs, VerdictOptions(gates=case.gates or None))
    assert (verdict.reason, verdict.message) == case.want
