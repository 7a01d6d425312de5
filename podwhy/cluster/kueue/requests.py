"""pkg/workload: a Workload's requests as Kueue counts them (workload.go's totalRequestsFromPodSets
and totalRequestsFromAdmission, resources.go's AdjustResources): per pod set, one pod's requests
(component-helpers PodRequests) times the pod set's count, less reclaimable pods.

Kueue's configuration (resources.excludeResourcePrefixes, resources.transformations) is taken as
parameters; its defaults are none."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

import msgspec

from podwhy.cluster.kueue import names
from podwhy.cluster.kueue.resources import (
    FlavorResource,
    add_int,
    go_div,
    requests_from_resource_list,
    saturating_mul,
)
from podwhy.helpers.podresources import pod_requests, to_quantities
from podwhy.model import objects as o
from podwhy.model.quantity import QuantityInput

RETAIN = "Retain"
REPLACE = "Replace"


class ResourceTransformation(msgspec.Struct, frozen=True):
    """Configuration.resources.transformations[]: INPUT becomes OUTPUTS (each a factor of it,
    scaled by the quantity of MULTIPLY_BY when the pod requests it), kept (Retain) or not (Replace)."""

    input: str
    outputs: Mapping[str, QuantityInput] = msgspec.field(default_factory=dict)
    strategy: str = RETAIN
    multiply_by: str = ""


class RequestOptions(msgspec.Struct, frozen=True):
    """What Kueue's configuration and the cluster add to a pod set's requests."""

    excluded_resource_prefixes: tuple[str, ...] = ()
    transformations: tuple[ResourceTransformation, ...] = ()
    # The RuntimeClasses a pod set's runtimeClassName may name (their overhead.podFixed).
    runtime_classes: Mapping[str, o.RuntimeClass] = msgspec.field(default_factory=dict)
    # The LimitRanges of the Workload's namespace, in the order Kueue lists them.
    limit_ranges: Sequence[o.LimitRange] = ()
    gates: Mapping[str, bool] | None = None


DEFAULT_OPTIONS = RequestOptions()


class PodSetRequests(msgspec.Struct, frozen=True):
    """workload.PodSetResources: a pod set's total requests (int64 amounts) and its pod count;
    FLAVORS is the admission's resource -> flavor (empty while pending)."""

    name: str
    count: int
    requests: dict[str, int]
    flavors: dict[str, str] = msgspec.field(default_factory=dict)

    def scaled_to(self, count: int) -> PodSetRequests:
        """PodSetResources.ScaledTo: per pod, times COUNT."""
        if self.count == 0 or self.count == count:
            return self
        per_pod = {k: go_div(v, self.count) for k, v in self.requests.items()}
        return PodSetRequests(self.name, count, {k: saturating_mul(v, count) for k, v in per_pod.items()}, self.flavors)


# ---------------------------------------------------------------- AdjustResources


def _merge_keep_first(dst: Mapping[str, QuantityInput], src: Mapping[str, QuantityInput]) -> dict[str, QuantityInput]:
    out = dict(dst)
    for name, value in src.items():
        out.setdefault(name, value)
    return out


_Defaults = tuple[dict[str, QuantityInput], dict[str, QuantityInput]]


def _limit_range_defaults(ranges: Iterable[o.LimitRange]) -> dict[str, _Defaults]:
    """limitrange.Summarize's Default and DefaultRequest by type (the first value met wins)."""
    out: dict[str, _Defaults] = {}
    for lr in ranges:
        for item in lr.spec.limits:
            default, default_request = out.get(item.type, ({}, {}))
            out[item.type] = (
                _merge_keep_first(default, item.default),
                _merge_keep_first(default_request, item.default_request),
            )
    return out


def _adjusted_container(c: o.Container, defaults: _Defaults | None) -> o.Container:
    limits: dict[str, QuantityInput] = dict(c.resources.limits)
    requests: dict[str, QuantityInput] = dict(c.resources.requests)
    if defaults is not None:
        limits = _merge_keep_first(limits, defaults[0])
        requests = _merge_keep_first(requests, defaults[1])
    requests = _merge_keep_first(requests, limits)  # UseLimitsAsMissingRequestsInPod
    resources = msgspec.structs.replace(c.resources, limits=limits, requests=requests)
    return msgspec.structs.replace(c, resources=resources)


def adjusted_pod_spec(spec: o.PodSpec, options: RequestOptions = DEFAULT_OPTIONS) -> o.PodSpec:
    """workload.AdjustResources: the RuntimeClass's pod overhead (when the spec has none), the
    namespace's LimitRange defaults, then limits as the missing requests."""
    overhead = spec.overhead
    if spec.runtime_class_name is not None and not overhead:
        rc = options.runtime_classes.get(spec.runtime_class_name)
        if rc is not None and rc.overhead is not None:
            overhead = dict(rc.overhead.pod_fixed)
    summary = _limit_range_defaults(options.limit_ranges)
    container_defaults = summary.get("Container")
    pod_resources = spec.resources
    if pod_resources is not None:
        limits: dict[str, QuantityInput] = dict(pod_resources.limits)
        requests: dict[str, QuantityInput] = dict(pod_resources.requests)
        pod_defaults = summary.get("Pod")
        if pod_defaults is not None:
            limits = _merge_keep_first(limits, pod_defaults[0])
            requests = _merge_keep_first(requests, pod_defaults[1])
        pod_resources = msgspec.structs.replace(
            pod_resources, limits=limits, requests=_merge_keep_first(requests, limits)
        )
    return msgspec.structs.replace(
        spec,
        overhead=overhead,
        resources=pod_resources,
        containers=[_adjusted_container(c, container_defaults) for c in spec.containers],
        init_containers=[_adjusted_container(c, container_defaults) for c in spec.init_containers],
    )


# ---------------------------------------------------------------- excluded prefixes, transformations


def drop_excluded(requests: Mapping[str, Fraction], prefixes: Iterable[str]) -> dict[str, Fraction]:
    """dropExcludedResources."""
    prefixes = tuple(prefixes)
    return {name: q for name, q in requests.items() if not any(name.startswith(p) for p in prefixes)}


def apply_transformations(
    requests: Mapping[str, Fraction], transformations: Iterable[ResourceTransformation]
) -> dict[str, Fraction]:
    """applyResourceTransformations: outputs summed apart from what the pod set asked for, a
    negative total floored at zero, then added to what is retained."""
    by_input = {t.input: t for t in transformations}
    if not any(name in by_input for name in requests):
        return dict(requests)
    retained: dict[str, Fraction] = {}
    generated: dict[str, Fraction] = {}
    for name, quantity in requests.items():
        mapping = by_input.get(name)
        if mapping is None:
            retained[name] = quantity
            continue
        base = quantity
        if mapping.multiply_by and mapping.multiply_by in requests:
            base = quantity * requests[mapping.multiply_by]
        for output, factor in to_quantities(dict(mapping.outputs)).items():
            generated[output] = generated.get(output, Fraction(0)) + base * factor
        if mapping.strategy == RETAIN:
            retained[name] = quantity
    out = dict(retained)
    for name, quantity in generated.items():
        out[name] = out.get(name, Fraction(0)) + max(quantity, Fraction(0))
    return out


# ---------------------------------------------------------------- counts


def counts_after_reclaim(workload: o.KueueWorkload, gates: Mapping[str, bool] | None = None) -> dict[str, int]:
    """podSetsCountsAfterReclaim: each pod set's count less its reclaimable pods (ReclaimablePods)."""
    counts = {ps.name: ps.count for ps in workload.spec.pod_sets}
    if not names.enabled(names.RECLAIMABLE_PODS, dict(gates) if gates is not None else None):
        return counts
    for reclaimable in workload.status.reclaimable_pods:
        if reclaimable.name in counts:
            counts[reclaimable.name] -= min(reclaimable.count, counts[reclaimable.name])
    return counts


def single_pod_requests(spec: o.PodSpec, options: RequestOptions = DEFAULT_OPTIONS) -> dict[str, Fraction]:
    """One pod's requests: PodRequests of the adjusted spec, less excluded resources, transformed."""
    reqs = pod_requests(o.Pod(spec=adjusted_pod_spec(spec, options)), use_status_resources=False)
    reqs = drop_excluded(reqs, options.excluded_resource_prefixes)
    return apply_transformations(reqs, options.transformations)


def pod_set_requests(workload: o.KueueWorkload, options: RequestOptions = DEFAULT_OPTIONS) -> list[PodSetRequests]:
    """totalRequestsFromPodSets: what a pending Workload asks for, pod set by pod set."""
    counts = counts_after_reclaim(workload, options.gates)
    out = []
    for ps in workload.spec.pod_sets:
        count = counts[ps.name]
        per_pod = requests_from_resource_list(single_pod_requests(ps.template.spec, options))
        total = {name: saturating_mul(max(v, 0), count) for name, v in per_pod.items()}
        out.append(PodSetRequests(ps.name, count, total))
    return out


def admitted_requests(workload: o.KueueWorkload, gates: Mapping[str, bool] | None = None) -> list[PodSetRequests]:
    """totalRequestsFromAdmission: what an admitted Workload holds, from its podSetAssignments
    (resourceUsage per flavor), scaled down for pods since reclaimed."""
    admission = workload.status.admission
    if admission is None:
        return []
    after_reclaim = counts_after_reclaim(workload, gates)
    totals = {ps.name: ps.count for ps in workload.spec.pod_sets}
    out = []
    for psa in admission.pod_set_assignments:
        count = psa.count if psa.count is not None else totals.get(psa.name, 0)
        requests = requests_from_resource_list(psa.resource_usage)
        current = after_reclaim.get(psa.name, 0)
        if current < count:
            requests = {k: saturating_mul(go_div(v, count), current) for k, v in requests.items()}
            count = current
        out.append(PodSetRequests(psa.name, count, requests, dict(psa.flavors)))
    return out


def assigned_usage(pod_sets: Iterable[PodSetRequests]) -> dict[FlavorResource, int]:
    """Info.ResourceUsage().Assigned: the requests of resources with a flavor, by flavor."""
    usage: dict[FlavorResource, int] = {}
    for ps in pod_sets:
        for res, q in ps.requests.items():
            flavor = ps.flavors.get(res, "")
            if flavor:
                fr = FlavorResource(flavor, res)
                usage[fr] = add_int(usage.get(fr, 0), q)
    return usage


def has_condition(workload: o.KueueWorkload, cond_type: str, status: str = "True") -> bool:
    return any(c.type == cond_type and c.status == status for c in workload.status.conditions)


def has_active_quota_reservation(workload: o.KueueWorkload) -> bool:
    """HasActiveQuotaReservation: QuotaReserved, not Finished, active. What counts as usage."""
    return (
        has_condition(workload, names.QUOTA_RESERVED)
        and not has_condition(workload, names.FINISHED)
        and workload.spec.active
        and workload.status.admission is not None
    )
