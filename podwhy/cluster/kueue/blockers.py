"""What keeps a Workload out of the scheduler's reach, as Kueue's cache and controllers decide it:
a ClusterQueue's Active status and its reason (pkg/cache/scheduler/clusterqueue.go's
updateQueueStatus and inactiveReason), a LocalQueue's (localqueue_controller.go), and the
QuotaReserved=False condition the workload controller sets on a pending Workload
(workload_controller.go's getQueueBlocker and resolveGranularUnadmittedQuotaReservedCondition),
with the namespace and requests-within-limits checks of the scheduler's ValidateAdmissibility."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction

import msgspec

from podwhy.cluster.kueue import names
from podwhy.cluster.kueue.resources import exact, requests_from_resource_list
from podwhy.helpers import fielderrors
from podwhy.helpers.labelselectors import SelectorError, label_selector_as_selector
from podwhy.helpers.podresources import pod_requests
from podwhy.model import objects as o
from podwhy.model.quantity import QuantityInput


class QueueStatus(msgspec.Struct, frozen=True):
    """An Active condition as Kueue computes it: whether the queue admits, its reason, its
    message; for a ClusterQueue, every inactive reason (the condition shows the first)."""

    active: bool
    reason: str
    message: str
    reasons: tuple[str, ...] = ()


def _is_true(conditions: Sequence[o.KueueCondition], cond_type: str) -> bool:
    return any(c.type == cond_type and c.status == "True" for c in conditions)


def _all_flavors(cq: o.ClusterQueue) -> set[str]:
    return {f.name for g in cq.spec.resource_groups for f in g.flavors}


def admission_checks_of(cq: o.ClusterQueue) -> dict[str, set[str]]:
    """admissioncheck.NewAdmissionChecks: each check of admissionChecksStrategy, with the flavors
    it applies to (onFlavors, else all the ClusterQueue's)."""
    strategy = cq.spec.admission_checks_strategy
    if strategy is None:
        return {}
    return {
        rule.name: set(rule.on_flavors) if rule.on_flavors else _all_flavors(cq) for rule in strategy.admission_checks
    }


class _Problems(msgspec.Struct):
    missing_flavors: list[str] = msgspec.field(default_factory=list)
    missing_checks: list[str] = msgspec.field(default_factory=list)
    inactive_checks: list[str] = msgspec.field(default_factory=list)
    multikueue: list[str] = msgspec.field(default_factory=list)
    provisioning: list[str] = msgspec.field(default_factory=list)
    multikueue_per_flavor: list[str] = msgspec.field(default_factory=list)
    missing_topologies: list[tuple[str, str]] = msgspec.field(default_factory=list)  # (topology, flavor)


def _problems(
    cq: o.ClusterQueue,
    flavors: Mapping[str, o.ResourceFlavor],
    checks: Mapping[str, o.AdmissionCheck],
    topologies: Mapping[str, o.Topology],
) -> _Problems:
    p = _Problems()
    tas: dict[str, str] = {}
    for group in cq.spec.resource_groups:
        for fq in group.flavors:
            flavor = flavors.get(fq.name)
            if flavor is None:
                p.missing_flavors.append(fq.name)
            elif flavor.spec.topology_name is not None:
                tas[fq.name] = flavor.spec.topology_name
    all_flavors = _all_flavors(cq)
    for name, on_flavors in admission_checks_of(cq).items():
        check = checks.get(name)
        if check is None:
            p.missing_checks.append(name)
            continue
        if not _is_true(check.status.conditions, names.ACTIVE):
            p.inactive_checks.append(name)
        if check.spec.controller_name == names.PROVISIONING_REQUEST_CONTROLLER:
            p.provisioning.append(name)
        if check.spec.controller_name == names.MULTIKUEUE_CONTROLLER:
            p.multikueue.append(name)
            if on_flavors != all_flavors:
                p.multikueue_per_flavor.append(name)
    for lst in (p.missing_checks, p.inactive_checks, p.multikueue, p.provisioning, p.multikueue_per_flavor):
        lst.sort()
    p.missing_topologies = sorted((topo, flv) for flv, topo in tas.items() if topo not in topologies)
    return p


def cluster_queue_status(
    cq: o.ClusterQueue,
    flavors: Mapping[str, o.ResourceFlavor],
    checks: Mapping[str, o.AdmissionCheck] | None = None,
    topologies: Mapping[str, o.Topology] | None = None,
    gates: Mapping[str, bool] | None = None,
) -> QueueStatus:
    """The ClusterQueue's Active condition as the cache computes it (updateQueueStatus,
    inactiveReason): Terminating, else inactive while stopped, referencing a missing flavor or
    a missing or inactive AdmissionCheck, misusing MultiKueue, or missing a TAS Topology."""
    if cq.metadata.deletion_timestamp is not None:
        return QueueStatus(False, names.CQ_TERMINATING, names.CQ_TERMINATING_MESSAGE, (names.CQ_TERMINATING,))
    p = _problems(cq, flavors, checks or {}, topologies or {})
    tas_on = names.enabled(names.TOPOLOGY_AWARE_SCHEDULING, dict(gates) if gates is not None else None)
    parts: list[tuple[str, str]] = []
    if cq.spec.stop_policy != names.STOP_NONE:
        parts.append((names.CQ_STOPPED, names.CQ_PART_STOPPED))
    if p.missing_flavors:
        parts.append((names.CQ_FLAVOR_NOT_FOUND, names.CQ_PART_MISSING_FLAVORS.format(",".join(p.missing_flavors))))
    if p.missing_checks:
        parts.append(
            (names.CQ_ADMISSION_CHECK_NOT_FOUND, names.CQ_PART_MISSING_CHECKS.format(",".join(p.missing_checks)))
        )
    if p.inactive_checks:
        parts.append(
            (names.CQ_ADMISSION_CHECK_INACTIVE, names.CQ_PART_INACTIVE_CHECKS.format(",".join(p.inactive_checks)))
        )
    if len(p.multikueue) > 1:
        parts.append(
            (names.CQ_MULTIPLE_MULTIKUEUE_CHECKS, names.CQ_PART_MULTIPLE_MULTIKUEUE.format(",".join(p.multikueue)))
        )
    if p.multikueue_per_flavor:
        message = names.CQ_PART_MULTIKUEUE_PER_FLAVOR.format(",".join(p.multikueue_per_flavor))
        parts.append((names.CQ_MULTIKUEUE_PER_FLAVOR, message))
    if p.multikueue and p.provisioning:
        message = names.CQ_PART_MULTIKUEUE_WITH_PROVISIONING.format(",".join(p.multikueue), ",".join(p.provisioning))
        parts.append((names.CQ_MULTIKUEUE_WITH_PROVISIONING, message))
    # isTASViolated: a TAS flavor's Topology is missing (MultiKueue queues skip the check).
    tas_violated = tas_on and bool(p.missing_topologies) and not p.multikueue
    if tas_on:
        for topology, flavor in p.missing_topologies:
            parts.append((names.CQ_TOPOLOGY_NOT_FOUND, names.CQ_PART_TOPOLOGY_NOT_FOUND.format(topology, flavor)))
    inactive = any(reason != names.CQ_TOPOLOGY_NOT_FOUND for reason, _ in parts) or tas_violated
    if not inactive:
        return QueueStatus(True, names.CQ_READY, names.CQ_READY_MESSAGE)
    if not parts:
        return QueueStatus(False, names.CQ_UNKNOWN, names.CQ_UNKNOWN_MESSAGE, (names.CQ_UNKNOWN,))
    message = names.CQ_INACTIVE_MESSAGE.format(", ".join(m for _, m in parts))
    return QueueStatus(False, parts[0][0], message, tuple(r for r, _ in parts))


def local_queue_status(lq: o.LocalQueue, cq: o.ClusterQueue | None, cq_status: QueueStatus | None) -> QueueStatus:
    """The LocalQueue's Active condition (the LocalQueue controller): stopped, its ClusterQueue
    missing or inactive, else ready."""
    if lq.spec.stop_policy != names.STOP_NONE:
        return QueueStatus(False, names.LQ_STOPPED, names.LQ_STOPPED_MESSAGE)
    if cq is None:
        return QueueStatus(False, names.LQ_CLUSTER_QUEUE_MISSING, names.LQ_CLUSTER_QUEUE_INACTIVE_MESSAGE)
    if cq_status is None or not cq_status.active:
        return QueueStatus(False, names.LQ_CLUSTER_QUEUE_INACTIVE, names.LQ_CLUSTER_QUEUE_INACTIVE_MESSAGE)
    return QueueStatus(True, names.LQ_READY, names.LQ_READY_MESSAGE)


class Blocker(msgspec.Struct, frozen=True):
    """Why a Workload waits before any quota is looked at: the QuotaReserved=False reason and
    message Kueue sets (REASON granular or legacy as the gate says), and the granular reason."""

    reason: str
    message: str
    granular_reason: str


def namespace_blocker(namespace: str, namespace_obj: o.Namespace | None, cq: o.ClusterQueue) -> str | None:
    """ValidateAdmissibility's namespace checks: the message when the namespace is missing or
    outside the ClusterQueue's namespaceSelector (none selects no namespace), else None."""
    if namespace_obj is None:
        return names.MSG_NAMESPACE_MISSING.format(namespace, namespace)
    try:
        selector = label_selector_as_selector(cq.spec.namespace_selector)
    except SelectorError as exc:
        return f"invalid namespace selector: {exc}"
    if not selector.matches(namespace_obj.metadata.labels):
        return names.MSG_NAMESPACE_MISMATCH
    return None


def _greater_keys(resources: o.ResourceRequirements) -> list[str]:
    """Requests.GreaterKeysRL: the resources requested above their limit, alphabetically."""
    requests = requests_from_resource_list(resources.requests)
    limits = requests_from_resource_list(resources.limits)
    return sorted(name for name, value in requests.items() if name in limits and value > limits[name])


def _containers(spec: o.PodSpec, path: str) -> list[tuple[str, o.ResourceRequirements]]:
    """Each init container's and container's resources with its field path, in Kueue's order."""
    return [
        *(
            (fielderrors.index(fielderrors.child(path, "initContainers"), j), c.resources)
            for j, c in enumerate(spec.init_containers)
        ),
        *(
            (fielderrors.index(fielderrors.child(path, "containers"), j), c.resources)
            for j, c in enumerate(spec.containers)
        ),
    ]


def _spec_path(i: int) -> str:
    return fielderrors.child(fielderrors.index("spec.podSets", i), "template.spec")


def resources_blocker(specs: Sequence[o.PodSpec]) -> str | None:
    """ValidateAdmissibility's ValidateResources over the pod sets' specs as AdjustResources left
    them: each init container, container and the pod-level resources requesting more than its
    limit, the message naming them; else None."""
    errors = []
    for i, spec in enumerate(specs):
        path = _spec_path(i)
        parts = _containers(spec, path)
        if spec.resources is not None:
            parts.append((fielderrors.child(path, "resources"), spec.resources))
        for where, resources in parts:
            greater = _greater_keys(resources)
            if greater:
                errors.append(fielderrors.invalid(where, greater, names.MSG_REQUESTS_EXCEED_LIMITS))
    return names.MSG_INVALID_RESOURCES.format(fielderrors.aggregate(errors)) if errors else None


Bound = tuple[dict[str, Fraction], dict[str, Fraction]]  # (max, min)
Bounds = dict[str, Bound]


def _merge(
    a: Mapping[str, Fraction], b: Mapping[str, Fraction], keep: Callable[[Fraction, Fraction], Fraction]
) -> dict[str, Fraction]:
    """resource.MergeResourceListKeepMin/Max: every name of both, KEEP deciding a conflict."""
    out = dict(a)
    for name, value in b.items():
        out[name] = keep(out[name], value) if name in out else value
    return out


def _exact(resources: Mapping[str, QuantityInput]) -> dict[str, Fraction]:
    return {name: exact(value) for name, value in resources.items()}


def limit_range_bounds(ranges: Iterable[o.LimitRange]) -> Bounds:
    """limitrange.Summarize's Max (the lowest) and Min (the highest) by limit type."""
    out: Bounds = {}
    for lr in ranges:
        for item in lr.spec.limits:
            high, low = out.get(item.type, ({}, {}))
            out[item.type] = (_merge(high, _exact(item.max), min), _merge(low, _exact(item.min), max))
    return out


def _greater(values: Mapping[str, Fraction], other: Mapping[str, Fraction]) -> list[str]:
    """MapRequests.GreaterKeys over Kueue's int64 values: the names above OTHER's, sorted."""
    mine, theirs = requests_from_resource_list(values), requests_from_resource_list(other)
    return sorted(name for name, value in mine.items() if name in theirs and value > theirs[name])


def _bound_errors(
    where: str,
    low: Mapping[str, Fraction],
    high: Mapping[str, Fraction],
    bounds: Bound,
) -> list[str]:
    errors = []
    above = _greater(high, bounds[0])
    if above:
        errors.append(fielderrors.invalid(where, above, names.MSG_LIMIT_RANGE_ABOVE_MAX))
    below = _greater(bounds[1], low)
    if below:
        errors.append(fielderrors.invalid(where, below, names.MSG_LIMIT_RANGE_BELOW_MIN))
    return errors


def limit_range_blocker(specs: Sequence[o.PodSpec], ranges: Sequence[o.LimitRange]) -> str | None:
    """ValidateAdmissibility's ValidateLimitRange (Summary.ValidatePodSpec) over the pod sets'
    specs as AdjustResources left them: per container the larger of request and limit against
    the Container max and the smaller against its min, then the pod's requests (PodRequests)
    against the Pod bounds; the message naming them, else None."""
    if not ranges:
        return None
    bounds = limit_range_bounds(ranges)
    errors = []
    for i, spec in enumerate(specs):
        path = _spec_path(i)
        container = bounds.get("Container")
        if container is not None:
            for where, res in _containers(spec, path):
                requests, limits = _exact(res.requests), _exact(res.limits)
                low, high = _merge(requests, limits, min), _merge(requests, limits, max)
                errors += _bound_errors(where, low, high, container)
        pod = bounds.get("Pod")
        if pod is not None:
            total = pod_requests(o.Pod(spec=spec), use_status_resources=False)
            errors += _bound_errors(path, total, total, pod)
    return names.MSG_LIMIT_RANGE_UNSATISFIED.format(fielderrors.aggregate(errors)) if errors else None


def queue_blocker(
    workload: o.KueueWorkload,
    lq: o.LocalQueue | None,
    cq: o.ClusterQueue | None,
    cq_status: QueueStatus | None,
    gates: Mapping[str, bool] | None = None,
) -> Blocker | None:
    """The workload controller's QuotaReserved=False condition for a pending Workload, up to the
    queues: deactivated; its LocalQueue missing or stopped; its ClusterQueue missing or inactive
    (getQueueBlocker). With the gate off only the queue blockers set one (reason Inadmissible); a
    deactivated Workload then gets none (REASON "")."""
    g = dict(gates) if gates is not None else None
    granular_on = names.enabled(names.UNADMITTED_WORKLOADS_OBSERVABILITY, g)
    queue = workload.spec.queue_name
    if not workload.spec.active:
        return Blocker(names.DEACTIVATED if granular_on else "", names.MSG_DEACTIVATED, names.DEACTIVATED)
    found: tuple[str, str] | None = None
    if lq is None:
        found = (names.MISCONFIGURED, names.MSG_LQ_MISSING.format(queue))
    elif lq.spec.stop_policy != names.STOP_NONE:
        found = (names.SUSPENDED, names.MSG_LQ_INACTIVE.format(queue))
    elif cq is None:
        found = (names.MISCONFIGURED, names.MSG_CQ_MISSING.format(lq.spec.cluster_queue))
    elif cq_status is None or not cq_status.active:
        found = (names.SUSPENDED, names.MSG_CQ_INACTIVE_CONTROLLER.format(cq.metadata.name))
    if found is None:
        return None
    granular, message = found
    return Blocker(granular if granular_on else names.LEGACY_INADMISSIBLE, message, granular)


def admission_gate(workload: o.KueueWorkload, gates: Mapping[str, bool] | None = None) -> str | None:
    """HasAdmissionGate (AdmissionGatedBy): the message when the Workload's admission is gated."""
    value = workload.metadata.annotations.get(names.ADMISSION_GATED_BY_ANNOTATION, "")
    if value and names.enabled(names.ADMISSION_GATED_BY, dict(gates) if gates is not None else None):
        return names.MSG_ADMISSION_GATED.format(value)
    return None
