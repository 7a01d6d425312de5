"""Pod resource requests as the scheduler computes them (component-helpers PodRequests).

Requests are summed as exact quantities and rounded only when converted to the
scheduler's integer `Resource` (milli-CPU, bytes, counts), as upstream does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from podwhy.framework.resourcenames import (
    is_extended_resource_name as is_extended_resource_name,
)
from podwhy.framework.resourcenames import (
    is_native_resource as is_native_resource,
)
from podwhy.framework.resourcenames import (
    is_prefixed_native_resource as is_prefixed_native_resource,
)
from podwhy.framework.signature import PodPart, pod_signature
from podwhy.model import objects as o
from podwhy.model.quantity import milli_value, parse_quantity, value

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"
HUGEPAGES_PREFIX = "hugepages-"

# schedutil.DefaultMilliCPURequest / DefaultMemoryRequest: stand-ins for missing
# container requests when scoring (the "non-zero" requests).
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024

Quantities = dict[str, Fraction]


def is_hugepages(name: str) -> bool:
    return name.startswith(HUGEPAGES_PREFIX)


def is_scalar_resource_name(name: str) -> bool:
    return (
        is_extended_resource_name(name)
        or is_hugepages(name)
        or is_prefixed_native_resource(name)
        or name.startswith("attachable-volumes-")
    )


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


@dataclass
class Resource:
    """The scheduler's integer resource vector (framework.Resource)."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    allowed_pod_number: int = 0
    scalar_resources: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_quantities(cls, quantities: Quantities) -> Resource:
        res = cls()
        res.add_quantities(quantities)
        return res

    @classmethod
    def from_list(cls, resources: o.ResourceList) -> Resource:
        return cls.from_quantities(to_quantities(resources))

    def add_quantities(self, quantities: Quantities) -> None:
        for name, amount in quantities.items():
            if name == CPU:
                self.milli_cpu += milli_value(amount)
            elif name == MEMORY:
                self.memory += value(amount)
            elif name == PODS:
                self.allowed_pod_number += value(amount)
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage += value(amount)
            elif is_scalar_resource_name(name):
                self.scalar_resources[name] = self.scalar_resources.get(name, 0) + value(amount)

    def add(self, other: Resource, sign: int = 1) -> None:
        self.milli_cpu += sign * other.milli_cpu
        self.memory += sign * other.memory
        self.ephemeral_storage += sign * other.ephemeral_storage
        for name, amount in other.scalar_resources.items():
            self.scalar_resources[name] = self.scalar_resources.get(name, 0) + sign * amount

    def clone(self) -> Resource:
        return Resource(
            self.milli_cpu,
            self.memory,
            self.ephemeral_storage,
            self.allowed_pod_number,
            dict(self.scalar_resources),
        )

    def get(self, name: str) -> int:
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == PODS:
            return self.allowed_pod_number
        return self.scalar_resources.get(name, 0)


@dataclass
class PodResource:
    """framework.PodResource: requests plus the non-zero CPU/memory used for scoring."""

    resource: Resource
    non0_cpu: int
    non0_mem: int
    requests: Quantities


def calculate_pod_resource(pod: o.Pod) -> PodResource:
    requests = pod_requests(pod)
    if is_pod_level_requests_set(pod):
        non_missing: Quantities = {}
        if CPU not in requests:
            non_missing[CPU] = Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000)
        if MEMORY not in requests:
            non_missing[MEMORY] = Fraction(DEFAULT_MEMORY_REQUEST)
    else:
        non_missing = {
            CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000),
            MEMORY: Fraction(DEFAULT_MEMORY_REQUEST),
        }
    non0 = pod_requests(pod, non_missing) if non_missing else requests
    return PodResource(
        resource=Resource.from_quantities(requests),
        non0_cpu=milli_value(non0.get(CPU, Fraction(0))),
        non0_mem=value(non0.get(MEMORY, Fraction(0))),
        requests=requests,
    )


_RESOURCE_CACHE: dict[bytes, PodResource] = {}
# Everything calculate_pod_resource reads; replicas of one template share it.
_RESOURCE_PARTS = frozenset({PodPart.REQUESTS})


def cached_pod_resource(pod: o.Pod) -> PodResource:
    """calculate_pod_resource, memoised by content. The result is shared: never mutate it."""
    key = pod_signature(pod, _RESOURCE_PARTS)
    found = _RESOURCE_CACHE.get(key)
    if found is None:
        found = _RESOURCE_CACHE[key] = calculate_pod_resource(pod)
    return found
