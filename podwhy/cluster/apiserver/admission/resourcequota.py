"""ResourceQuota admission of pods, as kube-apiserver's does it (the apiserver's
admission/plugin/resourcequota CheckRequest with kubernetes' pod evaluator,
pkg/quota/v1/evaluator/core/pods.go).

A pod is checked against each quota of its namespace that matches it (the quota's hard resources
include one a pod uses, and the pod is in all of its scopes): a quota on cpu or memory demands
that every container state the resource (the "must specify" refusal); a quota whose status lacks
a used figure is refused as unknown; then, for each matching quota, the pod's usage of the
resources the quota limits is added to the quota's used figures, and the first quota that would
go over refuses the pod, naming the resources over it. Admitted, the usage is charged: a
controller's next pod sees it, as the API server's quota bookkeeping does.

Quotas of a snapshot carry the quota controller's last count (status.used). A quota read from a
manifest has none yet: the controller's count of the namespace's pods is emulated.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction

import msgspec

from podwhy.cluster.apiserver.admission.attributes import AdmissionRefusalError, Attributes, admitted_without
from podwhy.helpers.podresources import is_pod_level_resources_set, pod_limits, pod_requests
from podwhy.helpers.resourcenames import (
    CPU,
    EPHEMERAL_STORAGE,
    HUGEPAGES_PREFIX,
    MEMORY,
    PODS,
    is_extended_resource_name,
    is_native_resource,
)
from podwhy.model import objects as o
from podwhy.model.quantity import DECIMAL_SI, go_string, parse_quantity, quantity_format
from podwhy.snapshot.cluster import Snapshot

NAME = "ResourceQuota"

Usage = dict[str, Fraction]

# The resource names a quota counts pods with (core/v1 types.go and the pod evaluator).
POD_OBJECT_COUNT = "count/pods"
REQUESTS_PREFIX = "requests."
LIMITS_PREFIX = "limits."
REQUESTS_CPU = "requests.cpu"
REQUESTS_MEMORY = "requests.memory"
REQUESTS_EPHEMERAL_STORAGE = "requests.ephemeral-storage"
LIMITS_CPU = "limits.cpu"
LIMITS_MEMORY = "limits.memory"
LIMITS_EPHEMERAL_STORAGE = "limits.ephemeral-storage"
REQUESTS_HUGEPAGES_PREFIX = REQUESTS_PREFIX + HUGEPAGES_PREFIX
# An implicit DRA extended resource (resource.k8s.io ResourceDeviceClassPrefix), quota'd as
# requests.deviceclass.resource.kubernetes.io/<class> (v1.35 and later).
DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"

POD_RESOURCES = (
    POD_OBJECT_COUNT,
    CPU,
    MEMORY,
    EPHEMERAL_STORAGE,
    REQUESTS_CPU,
    REQUESTS_MEMORY,
    REQUESTS_EPHEMERAL_STORAGE,
    LIMITS_CPU,
    LIMITS_MEMORY,
    LIMITS_EPHEMERAL_STORAGE,
    PODS,
)
POD_RESOURCE_PREFIXES = (HUGEPAGES_PREFIX, REQUESTS_HUGEPAGES_PREFIX)
# A quota on one of these makes every container state it (upstream calls this a mistake it keeps).
VALIDATION_SET = frozenset({CPU, MEMORY, REQUESTS_CPU, REQUESTS_MEMORY, LIMITS_CPU, LIMITS_MEMORY})

# Quota scopes (core/v1 ResourceQuotaScope) and scope selector operators.
SCOPE_TERMINATING = "Terminating"
SCOPE_NOT_TERMINATING = "NotTerminating"
SCOPE_BEST_EFFORT = "BestEffort"
SCOPE_NOT_BEST_EFFORT = "NotBestEffort"
SCOPE_PRIORITY_CLASS = "PriorityClass"
SCOPE_CROSS_NAMESPACE_POD_AFFINITY = "CrossNamespacePodAffinity"
OP_IN, OP_NOT_IN, OP_EXISTS, OP_DOES_NOT_EXIST = "In", "NotIn", "Exists", "DoesNotExist"


def is_terminating(pod: o.Pod) -> bool:
    """A pod with an activeDeadlineSeconds (the Terminating scope)."""
    return pod.spec.active_deadline_seconds is not None and pod.spec.active_deadline_seconds >= 0


def is_best_effort(pod: o.Pod) -> bool:
    """The BestEffort QoS class: no container (nor the pod level) requests or limits cpu or memory."""
    lists: list[o.ResourceList] = []
    for container in (*pod.spec.containers, *pod.spec.init_containers):
        lists += [container.resources.requests, container.resources.limits]
    if pod.spec.resources is not None:
        lists += [pod.spec.resources.requests, pod.spec.resources.limits]
    return not any(
        name in (CPU, MEMORY) and parse_quantity(raw) != 0 for resources in lists for name, raw in resources.items()
    )


def _cross_namespace(terms: Iterable[o.PodAffinityTerm]) -> bool:
    return any(t.namespaces or t.namespace_selector is not None for t in terms)


def uses_cross_namespace_pod_affinity(pod: o.Pod) -> bool:
    affinity = pod.spec.affinity
    if affinity is None:
        return False
    for part in (affinity.pod_affinity, affinity.pod_anti_affinity):
        if part is None:
            continue
        preferred = (w.pod_affinity_term for w in part.preferred_during_scheduling_ignored_during_execution)
        if _cross_namespace(part.required_during_scheduling_ignored_during_execution) or _cross_namespace(preferred):
            return True
    return False


def _priority_class_matches(pod: o.Pod, req: o.ScopedResourceSelectorRequirement) -> bool:
    """A PriorityClass scope selector, read as a label selector on {"PriorityClass": <class>}."""
    name = pod.spec.priority_class_name
    if req.operator == OP_EXISTS:
        return bool(name)
    if req.operator == OP_DOES_NOT_EXIST:
        return not name
    if req.operator == OP_IN:
        return bool(name) and name in req.values
    if req.operator == OP_NOT_IN:
        return not name or name not in req.values
    return False


def scope_matches(req: o.ScopedResourceSelectorRequirement, pod: o.Pod) -> bool:
    """podMatchesScopeFunc: whether POD is in the scope REQ names."""
    scope = req.scope_name
    if scope == SCOPE_TERMINATING:
        return is_terminating(pod)
    if scope == SCOPE_NOT_TERMINATING:
        return not is_terminating(pod)
    if scope == SCOPE_BEST_EFFORT:
        return is_best_effort(pod)
    if scope == SCOPE_NOT_BEST_EFFORT:
        return not is_best_effort(pod)
    if scope == SCOPE_PRIORITY_CLASS:
        return _priority_class_matches(pod, req)
    if scope == SCOPE_CROSS_NAMESPACE_POD_AFFINITY:
        return uses_cross_namespace_pod_affinity(pod)
    return False


def scope_selectors(quota: o.ResourceQuota) -> list[o.ScopedResourceSelectorRequirement]:
    """The quota's scopes (each an Exists requirement) and its scope selector's expressions."""
    out = [o.ScopedResourceSelectorRequirement(scope_name=s, operator=OP_EXISTS) for s in quota.spec.scopes]
    if quota.spec.scope_selector is not None:
        out += quota.spec.scope_selector.match_expressions
    return out


def _is_extended_for_quota(name: str) -> bool:
    """requests.<extended resource> (or requests.<implicit DRA extended resource>)."""
    if not name.startswith(REQUESTS_PREFIX):
        return False
    return not is_native_resource(name) or name.startswith(REQUESTS_PREFIX + DEVICE_CLASS_PREFIX)


def matching_resources(names: Iterable[str]) -> list[str]:
    """The pod evaluator's MatchingResources: the names a quota on pods limits."""
    names = list(names)
    out = [n for n in names if n in POD_RESOURCES]
    out += [n for n in names if n.startswith(POD_RESOURCE_PREFIXES) or _is_extended_for_quota(n)]
    return out


def matches(quota: o.ResourceQuota, pod: o.Pod) -> bool:
    """The quota limits a resource pods use, and POD is in every one of its scopes."""
    hard = quota_hard(quota)
    return bool(matching_resources(hard)) and all(scope_matches(req, pod) for req in scope_selectors(quota))


def compute_usage(requests: Usage, limits: Usage) -> Usage:
    """podComputeUsageHelper: what requests and limits count as in a quota."""
    out: Usage = {PODS: Fraction(1)}
    for name, requested, limited in (
        (CPU, REQUESTS_CPU, LIMITS_CPU),
        (MEMORY, REQUESTS_MEMORY, LIMITS_MEMORY),
        (EPHEMERAL_STORAGE, REQUESTS_EPHEMERAL_STORAGE, LIMITS_EPHEMERAL_STORAGE),
    ):
        if name in requests:
            out[name] = out[requested] = requests[name]
        if name in limits:
            out[limited] = limits[name]
    for name, amount in requests.items():
        if name.startswith(HUGEPAGES_PREFIX):
            out[name] = out[REQUESTS_PREFIX + name] = amount
        if is_extended_resource_name(name) or name.startswith(DEVICE_CLASS_PREFIX):
            out[REQUESTS_PREFIX + name] = amount
    return out


def counts_compute(pod: o.Pod) -> bool:
    """QuotaV1Pod: a pod in a terminal phase no longer counts for compute resources. (A pod past
    its deletion grace period does not either; podwhy does not read the clock: it counts.)"""
    return pod.status.phase not in ("Succeeded", "Failed")


def pod_usage(pod: o.Pod) -> Usage:
    """PodUsageFunc: count/pods always, and the compute usage of a pod that is not terminal."""
    out: Usage = {POD_OBJECT_COUNT: Fraction(1)}
    if counts_compute(pod):
        out.update(compute_usage(pod_requests(pod, use_status_resources=False), pod_limits(pod)))
    return out


def constraints(required: Iterable[str], pod: o.Pod) -> str | None:
    """A quota on cpu or memory makes every container state it: the "must specify" error, or None.
    Not demanded of a pod with pod-level resources."""
    if is_pod_level_resources_set(pod):
        return None
    needed = set(required) & VALIDATION_SET
    missing: dict[str, set[str]] = {}
    for container in (*pod.spec.containers, *pod.spec.init_containers):
        stated = compute_usage(_quantities(container.resources.requests), _quantities(container.resources.limits))
        for name in needed - set(stated):
            missing.setdefault(name, set()).add(container.name)
    if not missing:
        return None
    return "must specify " + "; ".join(f"{name} for: {','.join(sorted(missing[name]))}" for name in sorted(missing))


def _quantities(resources: o.ResourceList) -> Usage:
    return {name: parse_quantity(raw) for name, raw in resources.items()}


def quota_hard(quota: o.ResourceQuota) -> o.ResourceList:
    """The hard limits the quota controller published (its spec's, before the first sync)."""
    return quota.status.hard or quota.spec.hard


def controller_usage(quota: o.ResourceQuota, pods: Iterable[o.Pod]) -> o.ResourceList:
    """The quota controller's count for a quota it has not synced yet (read from a manifest): the
    usage of the namespace's pods in its scopes, of each resource it limits."""
    limited = matching_resources(quota_hard(quota))
    total: Usage = dict.fromkeys(limited, Fraction(0))
    selectors = scope_selectors(quota)
    for pod in pods:
        if pod.metadata.namespace != quota.metadata.namespace:
            continue
        if not all(scope_matches(req, pod) for req in selectors):
            continue
        for name, amount in pod_usage(pod).items():
            if name in total:
                total[name] += amount
    hard = quota_hard(quota)
    return {name: go_string(amount, quantity_format(hard[name])) for name, amount in total.items()}


def _with_format(raw: str | int | float) -> tuple[Fraction, str]:
    return parse_quantity(raw), quantity_format(raw)


def _pretty(amounts: dict[str, tuple[Fraction, str]]) -> str:
    """prettyPrint: name=quantity, sorted by name, comma-separated."""
    return ",".join(f"{name}={go_string(*amounts[name])}" for name in sorted(amounts))


class QuotaRefusal(msgspec.Struct):
    """ResourceQuota admission refused a pod: the quota, and the API server's words."""

    quota: str
    message: str


def _formats(pod: o.Pod, limits: bool) -> dict[str, str]:
    """The format each of the pod's aggregated quantities keeps: that of its first container's
    (Go's sums keep the receiver's), or of the pod level where that is set."""
    out: dict[str, str] = {}
    for container in (*pod.spec.containers, *pod.spec.init_containers):
        resources = container.resources.limits if limits else container.resources.requests
        for name, raw in resources.items():
            out.setdefault(name, quantity_format(raw))
    if pod.spec.resources is not None:
        level = pod.spec.resources.limits if limits else pod.spec.resources.requests
        out.update({name: quantity_format(raw) for name, raw in level.items()})
    for name, raw in pod.spec.overhead.items():
        out.setdefault(name, quantity_format(raw))
    return out


def _usage_formats(pod: o.Pod) -> dict[str, str]:
    requests, limits = _formats(pod, False), _formats(pod, True)
    out = {name: fmt for name, fmt in requests.items()}
    out.update({REQUESTS_PREFIX + name: fmt for name, fmt in requests.items()})
    out.update({LIMITS_PREFIX + name: fmt for name, fmt in limits.items()})
    return out


def admit(pod: o.Pod, quotas: Sequence[o.ResourceQuota]) -> QuotaRefusal | None:
    """CheckRequest for the creation of POD against its namespace's QUOTAS: a refusal, or None
    (and the pod's usage charged to each matching quota's used figures)."""
    mine = [q for q in quotas if q.metadata.namespace == pod.metadata.namespace]
    interesting: list[tuple[o.ResourceQuota, list[str]]] = []
    for quota in mine:
        if not matches(quota, pod):
            continue
        restricted = matching_resources(quota_hard(quota))
        problem = constraints(restricted, pod)
        if problem is not None:
            return QuotaRefusal(quota.metadata.name, f"failed quota: {quota.metadata.name}: {problem}")
        unknown = sorted(n for n in quota_hard(quota) if n in restricted and n not in quota.status.used)
        if unknown:
            return QuotaRefusal(
                quota.metadata.name,
                f"status unknown for quota: {quota.metadata.name}, resources: {','.join(unknown)}",
            )
        interesting.append((quota, restricted))
    if not interesting:
        return None
    usage = {name: amount for name, amount in pod_usage(pod).items() if amount != 0}
    negative = sorted(name for name, amount in usage.items() if amount < 0)
    if negative:
        why = f"quota usage is negative for resource(s): {','.join(negative)}"
        return QuotaRefusal(interesting[0][0].metadata.name, why)
    if not usage:
        return None
    formats = _usage_formats(pod)
    charged: list[tuple[o.ResourceQuota, dict[str, str]]] = []
    for quota, _restricted in interesting:
        hard = quota_hard(quota)
        requested = {name: amount for name, amount in usage.items() if name in hard}
        exceeded = []
        new_used: dict[str, str] = {}
        for name, amount in requested.items():
            used_raw = quota.status.used.get(name)
            total = amount + (parse_quantity(used_raw) if used_raw is not None else 0)
            if total > parse_quantity(hard[name]):
                exceeded.append(name)
            fmt = quantity_format(used_raw) if used_raw is not None else formats.get(name, DECIMAL_SI)
            new_used[name] = go_string(total, fmt)
        if exceeded:
            req = {n: (requested[n], formats.get(n, DECIMAL_SI)) for n in exceeded}
            used = {n: _with_format(quota.status.used[n]) for n in exceeded if n in quota.status.used}
            limit = {n: _with_format(hard[n]) for n in exceeded}
            return QuotaRefusal(
                quota.metadata.name,
                f"exceeded quota: {quota.metadata.name}, requested: {_pretty(req)}, used: {_pretty(used)}, "
                f"limited: {_pretty(limit)}",
            )
        charged.append((quota, new_used))
    for quota, new_used in charged:
        quota.status.used = {**quota.status.used, **new_used}
    return None


def sync_manifest_quotas(snapshot: Snapshot) -> None:
    """The quota controller's first count of a quota that has none yet (one read from a
    manifest): its hard limits published, and what the namespace's pods use of them."""
    for quota in snapshot.resource_quotas:
        if not quota.status.hard:
            quota.status.hard = dict(quota.spec.hard)
            quota.status.used = controller_usage(quota, snapshot.pods)


def admit_quota(pod: o.Pod, snapshot: Snapshot) -> None:
    """ResourceQuota admission, the last step of a pod's creation: refused (AdmissionRefusalError), or
    admitted and charged to the matching quotas. Without ResourceQuotas the snapshot can vouch
    for, the pod is admitted without them (a quota may refuse it)."""
    if "ResourceQuota" in snapshot.missing:
        admitted_without(pod, snapshot, "ResourceQuota")
        return
    refusal = admit(pod, snapshot.resource_quotas)
    if refusal is not None:
        cause = f"ResourceQuota {refusal.quota} in namespace {pod.metadata.namespace}"
        raise AdmissionRefusalError(pod, "ResourceQuota", refusal.message, cause)


def validate_pod(pod: o.Pod, attributes: Attributes) -> None:
    """The validating chain's ResourceQuota: admit_quota."""
    admit_quota(pod, attributes.snapshot)
