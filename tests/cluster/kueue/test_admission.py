"""One Workload through Kueue: the verdict (the reason and message Kueue would set on its
QuotaReserved condition, with UnadmittedWorkloadsObservability on, its v0.20 default, and off),
from the objects a dump holds."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from podwhy.cluster.kueue import names
from podwhy.cluster.kueue.admission import KueueObjects, Stage, VerdictOptions, explain_workload
from podwhy.cluster.kueue.assignment import Possibility, PreemptionMode
from podwhy.model import objects as o
from tests.cluster.kueue.builders import (
    admitted,
    cluster_queue,
    cohort,
    flavor_quotas,
    group,
    pod_set,
    resource_flavor,
    workload,
)


def _ns(name: str = "default", **labels: str) -> o.Namespace:
    return msgspec.convert({"metadata": {"name": name, "labels": labels}}, o.Namespace)


def _lq(name: str = "lq", cq: str = "cq", namespace: str = "default") -> o.LocalQueue:
    return msgspec.convert(
        {"metadata": {"name": name, "namespace": namespace}, "spec": {"clusterQueue": cq}}, o.LocalQueue
    )


def _objects(*extra: Any, cq: o.ClusterQueue | None = None) -> KueueObjects:
    cq = cq or cluster_queue("cq", group(flavor_quotas("default-flavor", cpu="9", memory="36Gi")))
    return KueueObjects.of([cq, resource_flavor("default-flavor"), _lq(), _ns(), *extra])


def _pending(
    name: str = "job", cpu: str = "1", count: int = 1, created: str = "2026-08-01T10:00:00Z"
) -> o.KueueWorkload:
    return workload(
        name, pod_set(count=count, requests={"cpu": cpu, "memory": "200Mi"}), metadata={"creationTimestamp": created}
    )


GRANULAR_OFF = VerdictOptions(gates={names.UNADMITTED_WORKLOADS_OBSERVABILITY: False})


def test_fits() -> None:
    verdict = explain_workload(_pending(), _objects())
    assert (verdict.stage, verdict.reason, verdict.message) == (Stage.FITS, "", "")
    assert verdict.cluster_queue == "cq" and verdict.queueing_strategy == "BestEffortFIFO"
    assert verdict.assignment is not None
    assert [(c.flavor, c.resource, c.needed, c.available, c.mode) for c in verdict.assignment.checks] == [
        # In Kueue's order: by the FNV-1a hash of the name (VectorizedResourceRequests).
        ("default-flavor", "memory", 200 * 2**20, 36 * 2**30, PreemptionMode.FIT),
        ("default-flavor", "cpu", 1_000, 9_000, PreemptionMode.FIT),
    ]


def test_exceeds_max_quota() -> None:
    """The Workload asks for more than the ClusterQueue can ever give: ExceedsMaxQuota."""
    objs = _objects()
    verdict = explain_workload(_pending(cpu="1", count=20), objs)
    message = (
        "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default-flavor, "
        "previously considered podsets requests (0) + current podset request (20) > maximum capacity (9)"
    )
    assert (verdict.stage, verdict.reason, verdict.message) == (Stage.NO_FIT, "ExceedsMaxQuota", message)
    legacy = explain_workload(_pending(cpu="1", count=20), objs, GRANULAR_OFF)
    assert (legacy.reason, legacy.granular_reason, legacy.message) == ("Pending", "", message)


def test_waiting_for_quota_without_candidates() -> None:
    """Quota used by admitted Workloads, and the ClusterQueue's policies (Never, its default) allow
    no preemption: Kueue waits (WaitingForQuota), the message says how much more is needed."""
    running = admitted(
        "running", "cq", {"cpu": "8", "memory": "1Gi"}, {"cpu": "default-flavor", "memory": "default-flavor"}
    )
    verdict = explain_workload(_pending(cpu="3"), _objects(running))
    assert verdict.stage is Stage.PREEMPT
    assert verdict.reason == "WaitingForQuota"
    assert verdict.message == (
        "couldn't assign flavors to pod set main: "
        "insufficient unused quota for cpu in flavor default-flavor, 2 more needed"
    )
    assert verdict.assignment is not None
    cpu = next(c for c in verdict.assignment.checks if c.resource == "cpu")
    assert (cpu.used, cpu.available, cpu.max_capacity, cpu.needed) == (8_000, 1_000, 9_000, 3_000)
    assert (
        cpu.preemption is not None
        and cpu.preemption.possibility is Possibility.NO_CANDIDATES
        and cpu.preemption.evaluated
    )
    assert verdict.not_evaluated == ()


def test_preemption_not_evaluated() -> None:
    """With a preemption policy podwhy does not emulate the search for candidates: no reason, flagged."""
    cq = cluster_queue(
        "cq",
        group(flavor_quotas("default-flavor", cpu="9", memory="36Gi")),
        spec={"preemption": {"withinClusterQueue": "LowerPriority"}},
    )
    running = admitted("running", "cq", {"cpu": "8"}, {"cpu": "default-flavor"})
    verdict = explain_workload(_pending(cpu="3"), _objects(running, cq=cq))
    assert (verdict.stage, verdict.reason) == (Stage.PREEMPT, "")
    assert names.NOT_EMULATED_PREEMPTION in verdict.not_evaluated


def test_borrowing_from_the_cohort() -> None:
    """A Workload past its ClusterQueue's nominal quota fits by borrowing its Cohort's unused quota."""
    cq = cluster_queue("cq", group(flavor_quotas("default-flavor", cpu="2", memory="1Gi")), cohort="team")
    lender = cluster_queue("lender", group(flavor_quotas("default-flavor", cpu="10", memory="1Gi")), cohort="team")
    verdict = explain_workload(_pending(cpu="5"), _objects(lender, cohort("team"), cq=cq))
    assert verdict.stage is Stage.FITS
    assert verdict.assignment is not None and verdict.assignment.borrowing == 1
    cpu = next(c for c in verdict.assignment.checks if c.resource == "cpu")
    assert (cpu.nominal, cpu.available, cpu.borrowable, cpu.borrow) == (2_000, 12_000, 10_000, 1)


@pytest.mark.parametrize(
    ("case", "want"),
    [
        ("no local queue", ("Misconfigured", "LocalQueue lq doesn't exist")),
        ("stopped cluster queue", ("Suspended", "ClusterQueue cq is inactive")),
        ("missing flavor", ("Suspended", "ClusterQueue cq is inactive")),
        ("namespace not selected", ("Misconfigured", "workload namespace doesn't match ClusterQueue selector")),
        ("cohort cycle", ("Suspended", "ClusterQueue cq is inactive")),
        ("failed checks", ("PendingEvaluation", "The workload has failed admission checks")),
        ("gated", ("AdmissionGated", "Admission is gated by: example.com/ctrl")),
    ],
)
def test_blocked(case: str, want: tuple[str, str]) -> None:
    wl = _pending()
    objs = _objects()
    if case == "no local queue":
        objs = KueueObjects.of([cluster_queue("cq"), _ns()])
    elif case == "stopped cluster queue":
        objs = _objects(
            cq=cluster_queue("cq", group(flavor_quotas("default-flavor", cpu="9")), spec={"stopPolicy": "Hold"})
        )
    elif case == "missing flavor":
        objs = KueueObjects.of([cluster_queue("cq", group(flavor_quotas("gone", cpu="9"))), _lq(), _ns()])
    elif case == "namespace not selected":
        spec = {"namespaceSelector": {"matchLabels": {"kueue": "on"}}}
        objs = _objects(cq=cluster_queue("cq", group(flavor_quotas("default-flavor", cpu="9")), spec=spec))
    elif case == "cohort cycle":
        cq = cluster_queue("cq", group(flavor_quotas("default-flavor", cpu="9")), cohort="a")
        objs = _objects(cohort("a", parent="b"), cohort("b", parent="a"), cq=cq)
    elif case == "failed checks":
        wl.status.admission_checks.append(o.AdmissionCheckState(name="prov", state="Retry"))
    elif case == "gated":
        wl.metadata.annotations[names.ADMISSION_GATED_BY_ANNOTATION] = "example.com/ctrl"
    verdict = explain_workload(wl, objs)
    assert verdict.stage is Stage.BLOCKED
    assert (verdict.reason, verdict.message) == want


def test_stopped_cluster_queue_status() -> None:
    cq = cluster_queue("cq", group(flavor_quotas("default-flavor", cpu="9")), spec={"stopPolicy": "Hold"})
    verdict = explain_workload(_pending(), _objects(cq=cq))
    assert verdict.cluster_queue_status is not None
    assert (verdict.cluster_queue_status.reason, verdict.cluster_queue_status.message) == (
        "Stopped",
        "Can't admit new workloads: is stopped.",
    )
    assert verdict.local_queue_status is not None and verdict.local_queue_status.reason == "ClusterQueueIsInactive"


def test_legacy_reasons() -> None:
    """UnadmittedWorkloadsObservability off: the controller's blockers read Inadmissible, the
    scheduler's Pending."""
    objs = KueueObjects.of([cluster_queue("cq"), _ns()])
    assert explain_workload(_pending(), objs, GRANULAR_OFF).reason == "Inadmissible"
    spec = {"namespaceSelector": {"matchLabels": {"kueue": "on"}}}
    objs = _objects(cq=cluster_queue("cq", group(flavor_quotas("default-flavor", cpu="9")), spec=spec))
    assert explain_workload(_pending(), objs, GRANULAR_OFF).reason == "Pending"


def test_done_and_ahead() -> None:
    """Admitted Workloads are done; a pending one lists the Workloads its queue pops first."""
    running = admitted("running", "cq", {"cpu": "1"}, {"cpu": "default-flavor"})
    assert explain_workload(running, _objects(running)).stage is Stage.ADMITTED
    first = _pending("first", created="2026-08-01T09:00:00Z")
    me = _pending("me", created="2026-08-01T10:00:00Z")
    verdict = explain_workload(me, _objects(first, me))
    assert [w.metadata.name for w in verdict.ahead] == ["first"]


def test_partial_admission_flagged() -> None:
    """A pod set with minCount could be admitted partially: not evaluated, said so."""
    wl = workload("job", pod_set(count=20, requests={"cpu": "1"}, minCount=5))
    verdict = explain_workload(wl, _objects())
    assert verdict.stage is Stage.NO_FIT
    assert names.NOT_EMULATED_PARTIAL_ADMISSION in verdict.not_evaluated


def test_admission_checks_flagged() -> None:
    """A ClusterQueue with admission checks (here MultiKueue's): admission past the quota is not
    evaluated, said so."""
    spec = {"admissionChecksStrategy": {"admissionChecks": [{"name": "mk"}]}}
    cq = cluster_queue("cq", group(flavor_quotas("default-flavor", cpu="9", memory="36Gi")), spec=spec)
    check = msgspec.convert(
        {
            "metadata": {"name": "mk"},
            "spec": {"controllerName": names.MULTIKUEUE_CONTROLLER},
            "status": {"conditions": [{"type": "Active", "status": "True"}]},
        },
        o.AdmissionCheck,
    )
    verdict = explain_workload(_pending(), _objects(check, cq=cq))
    assert verdict.stage is Stage.FITS
    assert verdict.not_evaluated == (names.NOT_EMULATED_ADMISSION_CHECKS, names.NOT_EMULATED_MULTIKUEUE)


def test_limit_range_defaults_then_bounds() -> None:
    """A namespace's LimitRange defaults are applied to the requests (AdjustResources) and its
    bounds checked on the adjusted Workload (ValidateLimitRange): within them it fits, nothing
    said as not evaluated; a request over the max is Misconfigured in Kueue's words."""
    lr = msgspec.convert(
        {
            "metadata": {"name": "lr", "namespace": "default"},
            "spec": {"limits": [{"type": "Container", "max": {"cpu": "8"}, "defaultRequest": {"memory": "1Gi"}}]},
        },
        o.LimitRange,
    )
    wl = workload("job", pod_set(requests={"cpu": "1"}))
    verdict = explain_workload(wl, _objects(lr))
    assert verdict.not_evaluated == ()
    assert verdict.requests[0].requests == {"cpu": 1_000, "memory": 2**30}
    over = explain_workload(workload("job", pod_set(requests={"cpu": "9"})), _objects(lr))
    assert over.granular_reason == names.MISCONFIGURED
    assert over.message == (
        "resources didn't satisfy LimitRange constraints: spec.podSets[0].template.spec.containers[0]: "
        'Invalid value: ["cpu"]: requests must not be above the limitRange max'
    )
