"""Pod requests and limits (component-helpers resource/helpers.go: PodRequests, PodLimits,
AggregateContainerRequests, AggregateContainerLimits, IsPodLevelResourcesSet).

Requests are summed as exact quantities and rounded only when converted to the
scheduler's integer `Resource` (milli-CPU, bytes, counts), as upstream does.
"""

from __future__ import annotations

from fractions import Fraction

from podwhy.helpers.resourcenames import CPU, MEMORY, is_hugepages
from podwhy.model import objects as o
from podwhy.model.quantity import parse_quantity

Quantities = dict[str, Fraction]


def to_quantities(resources: o.ResourceList) -> Quantities:
    return {name: parse_quantity(raw) for name, raw in resources.items()}


def _add(into: Quantities, other: Quantities) -> None:
    for name, amount in other.items():
        into[name] = into.get(name, Fraction(0)) + amount


def _max_into(into: Quantities, other: Quantities) -> None:
    for name, amount in other.items():
        current = into.get(name)
        if current is None or amount > current:
            into[name] = amount


def _max_of(*lists: Quantities) -> Quantities:
    out: Quantities = {}
    for lst in lists:
        _max_into(out, lst)
    return out


def _resize_infeasible(pod: o.Pod) -> bool:
    for cond in pod.status.conditions:
        if cond.type == "PodResizePending":
            return cond.reason == "Infeasible"
    return False


def _effective(pod: o.Pod, spec: Quantities, status: o.ContainerStatus | None) -> Quantities:
    """determineEffectiveRequests: in-place resize makes status requests count too."""
    if status is None or status.resources is None:
        return spec
    actuated = to_quantities(status.resources.requests)
    allocated = to_quantities(status.allocated_resources)
    if _resize_infeasible(pod):
        return _max_of(actuated, allocated)
    return _max_of(spec, actuated, allocated)


def _apply_non_missing(reqs: Quantities, non_missing: Quantities) -> Quantities:
    out = dict(reqs)
    for name, amount in non_missing.items():
        if name not in reqs:
            out[name] = amount
    return out


def _is_sidecar(container: o.Container) -> bool:
    return container.restart_policy == "Always"


def aggregate_container_requests(
    pod: o.Pod, non_missing: Quantities | None = None, *, use_status_resources: bool = True
) -> Quantities:
    statuses: dict[str, o.ContainerStatus] = {}
    if use_status_resources:
        statuses = {cs.name: cs for cs in pod.status.container_statuses}
        statuses.update({cs.name: cs for cs in pod.status.init_container_statuses})
    reqs: Quantities = {}
    for container in pod.spec.containers:
        creqs = _effective(pod, to_quantities(container.resources.requests), statuses.get(container.name))
        if non_missing:
            creqs = _apply_non_missing(creqs, non_missing)
        _add(reqs, creqs)
    sidecar_reqs: Quantities = {}
    init_reqs: Quantities = {}
    for container in pod.spec.init_containers:
        creqs = to_quantities(container.resources.requests)
        if _is_sidecar(container):
            creqs = _effective(pod, creqs, statuses.get(container.name))
        if non_missing:
            creqs = _apply_non_missing(creqs, non_missing)
        if _is_sidecar(container):
            # Sidecars run for the whole pod life: they add to the containers' sum and
            # to every later init container's peak.
            _add(reqs, creqs)
            _add(sidecar_reqs, creqs)
            creqs = dict(sidecar_reqs)
        else:
            tmp: Quantities = {}
            _add(tmp, creqs)
            _add(tmp, sidecar_reqs)
            creqs = tmp
        _max_into(init_reqs, creqs)
    _max_into(reqs, init_reqs)
    return reqs


def is_supported_pod_level_resource(name: str) -> bool:
    return name in (CPU, MEMORY) or is_hugepages(name)


def is_pod_level_requests_set(pod: o.Pod) -> bool:
    res = pod.spec.resources
    if res is None or not res.requests:
        return False
    return any(is_supported_pod_level_resource(n) for n in res.requests)


def pod_requests(pod: o.Pod, non_missing: Quantities | None = None, *, use_status_resources: bool = True) -> Quantities:
    """PodRequests with the v1.35 defaults: status resources, pod-level resources, overhead.

    use_status_resources=False is the incoming pod's view (NodeResourcesFit PreFilter):
    an unscheduled pod has no in-place resize state to honour.
    """
    reqs = aggregate_container_requests(pod, non_missing, use_status_resources=use_status_resources)
    if is_pod_level_requests_set(pod):
        assert pod.spec.resources is not None
        for name, raw in pod.spec.resources.requests.items():
            if is_supported_pod_level_resource(name):
                reqs[name] = parse_quantity(raw)
    if pod.spec.overhead:
        _add(reqs, to_quantities(pod.spec.overhead))
    return reqs


def aggregate_container_limits(pod: o.Pod) -> Quantities:
    """AggregateContainerLimits of a pod not yet running (no status resources): the containers'
    and sidecars' sum, at least any init container's peak (with the sidecars before it)."""
    limits: Quantities = {}
    for container in pod.spec.containers:
        _add(limits, to_quantities(container.resources.limits))
    sidecars: Quantities = {}
    init_peak: Quantities = {}
    for container in pod.spec.init_containers:
        climits = to_quantities(container.resources.limits)
        if _is_sidecar(container):
            _add(limits, climits)
            _add(sidecars, climits)
            climits = dict(sidecars)
        else:
            _add(climits, sidecars)
        _max_into(init_peak, climits)
    _max_into(limits, init_peak)
    return limits


def is_pod_level_resources_set(pod: o.Pod) -> bool:
    """IsPodLevelResourcesSet: a supported resource in the pod-level requests or limits."""
    res = pod.spec.resources
    return res is not None and any(is_supported_pod_level_resource(n) for n in (*res.requests, *res.limits))


def pod_limits(pod: o.Pod) -> Quantities:
    """PodLimits of a pod not yet running: the containers' aggregate, the pod-level limits where
    set, and the overhead added to each limit that is set and not zero."""
    limits = aggregate_container_limits(pod)
    if is_pod_level_resources_set(pod):
        assert pod.spec.resources is not None
        for name, raw in pod.spec.resources.limits.items():
            if is_supported_pod_level_resource(name):
                limits[name] = parse_quantity(raw)
    for name, raw in pod.spec.overhead.items():
        if limits.get(name):
            limits[name] += parse_quantity(raw)
    return limits
