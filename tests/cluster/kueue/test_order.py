"""A ClusterQueue's pending Workloads in the order its queue pops them, after Kueue's
pkg/workload/workload_test.go TestGetQueueOrderTimestamp and pkg/cache/queue/cluster_queue.go's
baseCompareFunc (priority, then the queue-order timestamp, then UID)."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest

from podwhy.cluster.kueue import names
from podwhy.cluster.kueue.order import (
    effective_priority,
    is_admissible,
    pending_in_cluster_queue,
    queue_order_timestamp,
    workloads_ahead,
)
from podwhy.model import objects as o
from tests.cluster.kueue.builders import workload

CREATION = "2026-08-01T10:00:00Z"
CONDITION = "2026-08-01T11:00:00Z"
T_CREATION = datetime(2026, 8, 1, 10, tzinfo=UTC)
T_CONDITION = datetime(2026, 8, 1, 11, tzinfo=UTC)


def _evicted(reason: str, status: str = "True") -> o.KueueWorkload:
    cond = {"type": "Evicted", "status": status, "reason": reason, "lastTransitionTime": CONDITION}
    return workload("name", metadata={"creationTimestamp": CREATION}, status={"conditions": [cond]})


# Upstream TestGetQueueOrderTimestamp: (workload, want with the Eviction ordering, with the Creation ordering).
TIMESTAMP_CASES = {
    "no condition": (workload("name", metadata={"creationTimestamp": CREATION}), T_CREATION, T_CREATION),
    "evicted by preemption": (_evicted("Preempted"), T_CREATION, T_CREATION),
    "evicted by PodsReady timeout": (_evicted("PodsReadyTimeout"), T_CONDITION, T_CREATION),
    "after eviction": (_evicted("PodsReadyTimeout", "False"), T_CREATION, T_CREATION),
    "evicted by admission check": (_evicted("AdmissionCheck"), T_CONDITION, T_CONDITION),
}


@pytest.mark.parametrize("name", list(TIMESTAMP_CASES))
def test_get_queue_order_timestamp(name: str) -> None:
    wl, by_eviction, by_creation = TIMESTAMP_CASES[name]
    assert queue_order_timestamp(wl, names.TIMESTAMP_EVICTION) == by_eviction
    assert queue_order_timestamp(wl, names.TIMESTAMP_CREATION) == by_creation


def _lq(name: str, cq: str, namespace: str = "default") -> o.LocalQueue:
    return msgspec.convert(
        {"metadata": {"name": name, "namespace": namespace}, "spec": {"clusterQueue": cq}}, o.LocalQueue
    )


def _wl(name: str, created: str, priority: int | None = None, queue: str = "lq", **status: object) -> o.KueueWorkload:
    spec: dict[str, object] = {} if priority is None else {"priority": priority}
    return workload(name, queue=queue, spec=spec, metadata={"creationTimestamp": created}, status=dict(status))


def test_order_and_workloads_ahead() -> None:
    """Higher priority first, then the older; Workloads of other ClusterQueues, with quota, finished,
    inactive or without a LocalQueue are not pending in it."""
    local_queues = {("default", "lq"): _lq("lq", "cq"), ("default", "other"): _lq("other", "cq2")}
    old = _wl("old", "2026-08-01T09:00:00Z")
    new = _wl("new", "2026-08-01T10:00:00Z")
    urgent = _wl("urgent", "2026-08-01T11:00:00Z", priority=100)
    same_time_b = _wl("b", "2026-08-01T12:00:00Z")
    same_time_a = _wl("a", "2026-08-01T12:00:00Z")
    elsewhere = _wl("elsewhere", "2026-08-01T08:00:00Z", queue="other")
    no_queue = _wl("lost", "2026-08-01T08:00:00Z", queue="missing")
    reserved = _wl("reserved", "2026-08-01T08:00:00Z", conditions=[{"type": "QuotaReserved", "status": "True"}])
    inactive = workload("inactive", spec={"active": False, "queueName": "lq"})
    pending = pending_in_cluster_queue(
        "cq", [new, same_time_b, old, reserved, elsewhere, urgent, same_time_a, no_queue, inactive], local_queues
    )
    assert [w.metadata.name for w in pending] == ["urgent", "old", "new", "a", "b"]
    assert [w.metadata.name for w in workloads_ahead(new, pending)] == ["urgent", "old"]
    assert workloads_ahead(urgent, pending) == []


def test_is_admissible() -> None:
    """workload.IsAdmissible: on hold and admission-gated Workloads are not queued."""
    on_hold = _wl("x", CREATION, conditions=[{"type": "QuotaReserved", "status": "False", "reason": "OnHold"}])
    gated = workload("g", metadata={"annotations": {names.ADMISSION_GATED_BY_ANNOTATION: "example.com/c"}})
    assert not is_admissible(on_hold)
    assert not is_admissible(gated)
    assert is_admissible(gated, {names.ADMISSION_GATED_BY: False})
    assert is_admissible(
        _wl("y", CREATION, conditions=[{"type": "QuotaReserved", "status": "False", "reason": "Pending"}])
    )


def test_effective_priority() -> None:
    """priority.EffectivePriority: spec.priority, 0 unset; the boost annotation with PriorityBoost."""
    boosted = workload("b", spec={"priority": 10}, metadata={"annotations": {names.PRIORITY_BOOST_ANNOTATION: "5"}})
    assert effective_priority(boosted) == 10
    assert effective_priority(boosted, {names.PRIORITY_BOOST: True}) == 15
    assert effective_priority(workload("none")) == 0
