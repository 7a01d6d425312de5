"""pkg/cache/queue's order of a ClusterQueue's pending Workloads (cluster_queue.go's
baseCompareFunc): higher effective priority first, then the earlier queue-order timestamp
(creation, or the eviction that requeued it: workload.Ordering.GetQueueOrderTimestamp), then
UID. StrictFIFO lets only the head be tried; BestEffortFIFO tries the others when the head does
not fit. Admission fair sharing's order and a preemptor's sticky head are not emulated."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta

import msgspec

from podwhy.cluster.kueue import names
from podwhy.cluster.kueue.blockers import admission_gate
from podwhy.cluster.kueue.requests import has_condition
from podwhy.model import objects as o

_EPOCH = datetime.min.replace(tzinfo=UTC)


def _parse_time(text: str | None) -> datetime:
    if not text:
        return _EPOCH
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return _EPOCH
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _condition(workload: o.KueueWorkload, cond_type: str) -> o.KueueCondition | None:
    return next((c for c in workload.status.conditions if c.type == cond_type), None)


def effective_priority(workload: o.KueueWorkload, gates: Mapping[str, bool] | None = None) -> int:
    """priority.EffectivePriority: spec.priority (0 when unset), plus the priority-boost
    annotation when PriorityBoost is on."""
    base = workload.spec.priority if workload.spec.priority is not None else names.DEFAULT_PRIORITY
    if not names.enabled(names.PRIORITY_BOOST, dict(gates) if gates is not None else None):
        return base
    raw = workload.metadata.annotations.get(names.PRIORITY_BOOST_ANNOTATION, "")
    try:
        boost = int(raw) if raw else 0
    except ValueError:
        boost = 0
    return base + boost if -(2**31) <= boost < 2**31 else base


def queue_order_timestamp(
    workload: o.KueueWorkload,
    requeuing_timestamp: str = names.TIMESTAMP_EVICTION,
    gates: Mapping[str, bool] | None = None,
) -> datetime:
    """Ordering.GetQueueOrderTimestamp: an eviction by the PodsReady timeout (with the Eviction
    requeuing timestamp) or by an admission check; without PrioritySortingWithinCohort, a
    preemption to reclaim while borrowing, plus a millisecond; else the creation time."""
    evicted = _condition(workload, names.EVICTED)
    if evicted is not None and evicted.status == "True":
        if requeuing_timestamp == names.TIMESTAMP_EVICTION and evicted.reason == names.EVICTED_BY_PODS_READY_TIMEOUT:
            return _parse_time(evicted.last_transition_time)
        if evicted.reason == names.EVICTED_BY_ADMISSION_CHECK:
            return _parse_time(evicted.last_transition_time)
    if not names.enabled(names.PRIORITY_SORTING_WITHIN_COHORT, dict(gates) if gates is not None else None):
        preempted = _condition(workload, names.PREEMPTED)
        if (
            preempted is not None
            and preempted.status == "True"
            and preempted.reason == names.IN_COHORT_RECLAIM_WHILE_BORROWING
        ):
            return _parse_time(preempted.last_transition_time) + timedelta(milliseconds=1)
    return _parse_time(workload.metadata.creation_timestamp)


class QueueKey(msgspec.Struct, frozen=True, order=True):
    """The sort key of baseCompareFunc: (-priority, timestamp, uid)."""

    neg_priority: int
    timestamp: datetime
    uid: str


def queue_key(
    workload: o.KueueWorkload,
    requeuing_timestamp: str = names.TIMESTAMP_EVICTION,
    gates: Mapping[str, bool] | None = None,
) -> QueueKey:
    return QueueKey(
        -effective_priority(workload, gates),
        queue_order_timestamp(workload, requeuing_timestamp, gates),
        workload.metadata.uid,
    )


def is_admissible(workload: o.KueueWorkload, gates: Mapping[str, bool] | None = None) -> bool:
    """workload.IsAdmissible: what the queue manager queues (no admission gate, not finished,
    active, no quota reserved, not on hold, not waiting for replacement pods)."""
    quota = _condition(workload, names.QUOTA_RESERVED)
    on_hold = quota is not None and quota.status == "False" and quota.reason == names.ON_HOLD
    return (
        admission_gate(workload, gates) is None
        and not has_condition(workload, names.FINISHED)
        and workload.spec.active
        and not has_condition(workload, names.QUOTA_RESERVED)
        and not on_hold
        and not has_condition(workload, "WaitingForReplacementPods")
    )


def pending_by_cluster_queue(
    workloads: Iterable[o.KueueWorkload],
    local_queues: Mapping[tuple[str, str], o.LocalQueue],
    requeuing_timestamp: str = names.TIMESTAMP_EVICTION,
    gates: Mapping[str, bool] | None = None,
) -> dict[str, list[o.KueueWorkload]]:
    """Every ClusterQueue's pending Workloads, by ClusterQueue name, each in the order its queue
    pops them (one pass over WORKLOADS: pending_in_cluster_queue for all of them at once)."""
    by_cq: dict[str, list[o.KueueWorkload]] = {}
    for wl in workloads:
        lq = local_queues.get((wl.metadata.namespace, wl.spec.queue_name))
        if lq is None or not is_admissible(wl, gates):
            continue
        by_cq.setdefault(lq.spec.cluster_queue, []).append(wl)
    for pending in by_cq.values():
        pending.sort(key=lambda wl: queue_key(wl, requeuing_timestamp, gates))
    return by_cq


def pending_in_cluster_queue(
    cluster_queue: str,
    workloads: Iterable[o.KueueWorkload],
    local_queues: Mapping[tuple[str, str], o.LocalQueue],
    requeuing_timestamp: str = names.TIMESTAMP_EVICTION,
    gates: Mapping[str, bool] | None = None,
) -> list[o.KueueWorkload]:
    """The ClusterQueue's pending Workloads in the order its queue pops them: those admissible
    whose LocalQueue ((namespace, name) in LOCAL_QUEUES) points to CLUSTER_QUEUE."""
    pending = []
    for wl in workloads:
        lq = local_queues.get((wl.metadata.namespace, wl.spec.queue_name))
        if lq is None or lq.spec.cluster_queue != cluster_queue or not is_admissible(wl, gates):
            continue
        pending.append(wl)
    return sorted(pending, key=lambda wl: queue_key(wl, requeuing_timestamp, gates))


class Queue(msgspec.Struct, frozen=True):
    """A ClusterQueue's pending Workloads in pop order, with their sort keys (KEYS[i] is
    WORKLOADS[i]'s): who is ahead of a Workload is a prefix, found by bisection."""

    workloads: tuple[o.KueueWorkload, ...]
    keys: tuple[QueueKey, ...]
    # (namespace, name) -> where in WORKLOADS.
    places: Mapping[tuple[str, str], tuple[int, ...]] = msgspec.field(default_factory=dict)

    @classmethod
    def of(
        cls,
        pending: Iterable[o.KueueWorkload],
        requeuing_timestamp: str = names.TIMESTAMP_EVICTION,
        gates: Mapping[str, bool] | None = None,
    ) -> Queue:
        """PENDING, already in pop order (pending_in_cluster_queue's)."""
        workloads = tuple(pending)
        places: dict[tuple[str, str], tuple[int, ...]] = {}
        for i, wl in enumerate(workloads):
            ident = (wl.metadata.namespace, wl.metadata.name)
            places[ident] = (*places.get(ident, ()), i)
        return cls(workloads, tuple(queue_key(wl, requeuing_timestamp, gates) for wl in workloads), places)

    def ahead_of(self, key: QueueKey, namespace: str, name: str) -> list[o.KueueWorkload]:
        """workloads_ahead of the Workload NAMESPACE/NAME whose key is KEY: those whose key sorts
        before KEY (the keys are sorted: a prefix), itself excluded."""
        end = bisect_left(self.keys, key)
        if not any(i < end for i in self.places.get((namespace, name), ())):
            return list(self.workloads[:end])  # not itself among them: the whole prefix
        return [wl for wl in self.workloads[:end] if (wl.metadata.namespace, wl.metadata.name) != (namespace, name)]


def workloads_ahead(
    target: o.KueueWorkload,
    pending: Iterable[o.KueueWorkload],
    requeuing_timestamp: str = names.TIMESTAMP_EVICTION,
    gates: Mapping[str, bool] | None = None,
) -> list[o.KueueWorkload]:
    """The pending Workloads the queue pops before TARGET (in order)."""
    key = queue_key(target, requeuing_timestamp, gates)
    me = (target.metadata.namespace, target.metadata.name)
    return [
        wl
        for wl in pending
        if (wl.metadata.namespace, wl.metadata.name) != me and queue_key(wl, requeuing_timestamp, gates) < key
    ]


_QUEUES: dict[tuple[int, int, str, object], tuple[object, object, int, dict[str, Queue]]] = {}
_QUEUES_KEPT = 8


def queues_of(
    workloads: Sequence[o.KueueWorkload],
    local_queues: Mapping[tuple[str, str], o.LocalQueue],
    requeuing_timestamp: str = names.TIMESTAMP_EVICTION,
    gates: Mapping[str, bool] | None = None,
) -> dict[str, Queue]:
    """Every ClusterQueue's Queue (pending_by_cluster_queue, each sorted once), remembered for the
    last few lists of Workloads and LocalQueues, which are not changed once asked about:
    verifying a suggestion asks again over the same ones."""
    key = (id(workloads), id(local_queues), requeuing_timestamp, frozenset(gates.items()) if gates else None)
    known = _QUEUES.get(key)
    if known is not None and known[0] is workloads and known[1] is local_queues and known[2] == len(workloads):
        return known[3]
    by_cq = pending_by_cluster_queue(workloads, local_queues, requeuing_timestamp, gates)
    queues = {name: Queue.of(pending, requeuing_timestamp, gates) for name, pending in by_cq.items()}
    if len(_QUEUES) >= _QUEUES_KEPT:
        _QUEUES.pop(next(iter(_QUEUES)))
    _QUEUES[key] = (workloads, local_queues, len(workloads), queues)
    return queues
