"""Karpenter (karpenter.sh/v1): NodePools (requirements, taints, limits, readiness), NodeClaims
(launched, registered, initialized) and Karpenter's events on the pod.

A NodePool can take the pod when, as Karpenter's scheduler checks it: the pool is Ready and not
static; the pod tolerates the pool's taints (startup taints do not count); the pod's node
selector and required node affinity (each term with the selector, any term) are compatible with
the pool's requirements and template labels, keys being compatible when some value (or the
label's absence) satisfies both; and the pool's limits leave room for the pod's requests.
Which instance types the cloud offers is the cloud provider's, which a snapshot does not hold:
a pool that passes every check here may still find none."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TypedDict

import msgspec

from podwhy.analysis.autoscaling.base import nominated, start_view
from podwhy.analysis.autoscaling.events import PodEvents, event_time, parse_time
from podwhy.analysis.autoscaling.facts import (
    KARPENTER,
    NOMINATED,
    AnyGroupFinding,
    AutoscalerView,
    ComingNode,
    LimitsReached,
    NodeClaimProgress,
    NodePoolNotReady,
    NodePoolStatic,
    PodExclusion,
    PoolAdmits,
    RequirementsExcludePod,
    TaintNotTolerated,
)
from podwhy.framework.runtime import Framework
from podwhy.framework.types import Resource
from podwhy.helpers.nodetaints import do_not_schedule_taints, find_matching_untolerated_taint, taint_to_string
from podwhy.model import objects as o
from podwhy.model.quantity import QuantityError, QuantityInput, quantity_milli_value, quantity_value
from podwhy.model.wellknownnames import (
    LABEL_ARCH_STABLE,
    LABEL_INSTANCE_TYPE_STABLE,
    LABEL_OS_STABLE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
)
from podwhy.plugins.noderesources.fit import compute_pod_resource_request
from podwhy.scheduler.cycle import CycleOutcome
from podwhy.snapshot.cluster import Snapshot, ns_name

COMPONENT = "karpenter"
NODEPOOL_LABEL = "karpenter.sh/nodepool"
# "Pod should schedule on: nodeclaim/default-9k4qz[, node/ip-10-0-1-2.ec2.internal]"
_NOMINATED = re.compile(r"nodeclaim/([^\s,]+)")
# Liveness (nodeclaim/lifecycle/liveness.go): a NodeClaim not Launched within 5 minutes, or not
# Registered within 15, is deleted.
LAUNCH_TIMEOUT_SECONDS = 5 * 60
REGISTRATION_TIMEOUT_SECONDS = 15 * 60
# Labels Karpenter knows values of without a NodePool defining them (v1 WellKnownLabels).
WELL_KNOWN_LABELS = frozenset(
    {
        NODEPOOL_LABEL,
        LABEL_TOPOLOGY_ZONE,
        LABEL_TOPOLOGY_REGION,
        LABEL_INSTANCE_TYPE_STABLE,
        LABEL_ARCH_STABLE,
        LABEL_OS_STABLE,
        "karpenter.sh/capacity-type",
        "node.kubernetes.io/windows-build",
    }
)
# Label domains of the cloud providers' Karpenter: their values come from instance types, which a
# snapshot does not hold, so requirements on them are not checked.
PROVIDER_LABEL_DOMAINS = ("karpenter.k8s.aws/", "karpenter.azure.com/", "karpenter.k8s.gcp/", "karpenter.k8s.oracle/")
# Requirement operators: Karpenter adds Gte and Lte to the node selector's.
IN, NOT_IN, EXISTS, DOES_NOT_EXIST, GT, LT, GTE, LTE = "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"


class Allowed(msgspec.Struct, frozen=True):
    """The values one requirement allows for one key: a finite set, or every value but some
    (within integer bounds); and whether the label may be absent."""

    values: frozenset[str]
    complement: bool
    absent_ok: bool
    low: int | None = None  # values must be > low
    high: int | None = None  # values must be < high

    @classmethod
    def of(cls, operator: str, values: Sequence[str]) -> Allowed:
        if operator == IN:
            return cls(frozenset(values), False, False)
        if operator == NOT_IN:
            return cls(frozenset(values), True, True)
        if operator == EXISTS:
            return cls(frozenset(), True, False)
        if operator == DOES_NOT_EXIST:
            return cls(frozenset(), False, True)
        bound = _int(values[0]) if values else None
        if bound is None:
            return cls(frozenset(), False, False)  # an invalid bound allows nothing
        if operator in (GT, GTE):
            return cls(frozenset(), True, False, low=bound - 1 if operator == GTE else bound)
        if operator in (LT, LTE):
            return cls(frozenset(), True, False, high=bound + 1 if operator == LTE else bound)
        return cls(frozenset(), False, False)

    def admits(self, value: str) -> bool:
        if self.low is not None or self.high is not None:
            number = _int(value)
            if number is None or (self.low is not None and number <= self.low):
                return False
            if self.high is not None and number >= self.high:
                return False
        return value not in self.values if self.complement else value in self.values

    def intersect(self, other: Allowed) -> Allowed:
        low = max((b for b in (self.low, other.low) if b is not None), default=None)
        high = min((b for b in (self.high, other.high) if b is not None), default=None)
        absent = self.absent_ok and other.absent_ok
        if not self.complement or not other.complement:
            finite = [a for a in (self, other) if not a.complement]
            values = frozenset.intersection(*(a.values for a in finite))
            values = frozenset(v for v in values if self.admits(v) and other.admits(v))
            return Allowed(values, False, absent)
        return Allowed(self.values | other.values, True, absent, low, high)

    def empty(self) -> bool:
        if self.absent_ok:
            return False
        if not self.complement:
            return not self.values
        if self.low is not None and self.high is not None:
            return self.high - self.low - 1 <= len([v for v in self.values if _int(v) is not None])
        return False


def _int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


Requirements = dict[str, Allowed]


def _add(reqs: Requirements, key: str, allowed: Allowed) -> None:
    reqs[key] = reqs[key].intersect(allowed) if key in reqs else allowed


def pool_requirements(pool: o.NodePool) -> Requirements:
    """The pool's requirements, its template labels and its own name label, per key."""
    reqs: Requirements = {}
    for r in pool.spec.template.spec.requirements:
        _add(reqs, r.key, Allowed.of(r.operator, r.values))
    for key, value in pool.spec.template.metadata.labels.items():
        _add(reqs, key, Allowed.of(IN, [value]))
    _add(reqs, NODEPOOL_LABEL, Allowed.of(IN, [pool.metadata.name]))
    return reqs


def pod_requirement_sets(pod: o.Pod, snapshot: Snapshot) -> list[Requirements]:
    """The pod's alternatives: its node selector and its volumes' zones with each required node
    affinity term (any one will do), or alone."""
    base: Requirements = {}
    for key, value in pod.spec.node_selector.items():
        _add(base, key, Allowed.of(IN, [value]))
    for term in _volume_terms(pod, snapshot):
        for r in term.match_expressions:
            _add(base, r.key, Allowed.of(r.operator, r.values))
    affinity = pod.spec.affinity.node_affinity if pod.spec.affinity is not None else None
    required = affinity.required_during_scheduling_ignored_during_execution if affinity is not None else None
    if required is None or not required.node_selector_terms:
        return [base]
    out = []
    for term in required.node_selector_terms:
        reqs = dict(base)
        for r in term.match_expressions:
            _add(reqs, r.key, Allowed.of(r.operator, r.values))
        out.append(reqs)
    return out


def _volume_terms(pod: o.Pod, snapshot: Snapshot) -> Iterable[o.NodeSelectorTerm]:
    """The single required node-affinity term of each bound PV the pod mounts (its zone)."""
    for volume in pod.spec.volumes:
        if volume.persistent_volume_claim is None:
            continue
        claim = snapshot.persistent_volume_claims.get(
            ns_name(pod.metadata.namespace, volume.persistent_volume_claim.claim_name)
        )
        bound = claim.spec.volume_name if claim is not None else ""
        pv = snapshot.persistent_volumes.get(bound) if bound else None
        affinity = pv.spec.node_affinity if pv is not None else None
        required = affinity.required if affinity is not None else None
        if required is not None and len(required.node_selector_terms) == 1:
            yield required.node_selector_terms[0]


def incompatible(pool: Requirements, pod: Requirements) -> tuple[str, str] | None:
    """The first key (in the pod's order) the pod and the pool cannot agree on, and why."""
    for key, wanted in pod.items():
        if key.startswith(PROVIDER_LABEL_DOMAINS):
            continue
        offered = pool.get(key)
        if offered is None:
            if key in WELL_KNOWN_LABELS or wanted.absent_ok:
                continue
            return key, f'label "{key}" does not have known values'
        if wanted.intersect(offered).empty():
            return key, f"{key}: the pod wants {_text(wanted)}, the NodePool offers {_text(offered)}"
    return None


def _text(allowed: Allowed) -> str:
    if not allowed.complement:
        return f"one of [{', '.join(sorted(allowed.values))}]" if allowed.values else "no value (the label absent)"
    parts = []
    if allowed.values:
        parts.append(f"not [{', '.join(sorted(allowed.values))}]")
    if allowed.low is not None:
        parts.append(f"> {allowed.low}")
    if allowed.high is not None:
        parts.append(f"< {allowed.high}")
    return " and ".join(parts) or "any value"


def _condition(conditions: Sequence[o.StatusCondition], kind: str) -> o.StatusCondition | None:
    return next((c for c in conditions if c.type == kind), None)


def _requested(pod: o.Pod) -> Resource:
    return compute_pod_resource_request(pod)


def _amount(resource: str, raw: QuantityInput) -> int:
    return quantity_milli_value(raw) if resource == "cpu" else quantity_value(raw)


def _request_of(request: Resource, resource: str) -> int:
    if resource == "cpu":
        return request.milli_cpu
    if resource == "memory":
        return request.memory
    if resource == "ephemeral-storage":
        return request.ephemeral_storage
    if resource == "nodes":
        return 1
    return request.scalar_resources.get(resource, 0)


class _Named(TypedDict):
    autoscaler: str
    group: str


def limits_left(pool: o.NodePool, pod: o.Pod, named: _Named) -> LimitsReached | None:
    """The first limit that leaves less than the pod's request (less than one node's worth);
    NAMED: the finding's autoscaler and group."""
    request = _requested(pod)
    for resource, raw_limit in sorted(pool.spec.limits.items()):
        try:
            limit = _amount(resource, raw_limit)
            used = _amount(resource, pool.status.resources.get(resource, 0))
        except QuantityError:
            continue
        wanted = _request_of(request, resource)
        if used >= limit or limit - used < wanted:
            return LimitsReached(
                **named,
                resource=resource,
                limit=str(raw_limit),
                used=str(pool.status.resources.get(resource, 0)),
                pod_request=wanted,
                unit="millicores" if resource == "cpu" else ("nodes" if resource == "nodes" else "units"),
            )
    return None


def excluded(pod: o.Pod) -> tuple[PodExclusion, str | int] | None:
    """IsProvisionable: Karpenter provisions for no DaemonSet or static pod, nor a preempting one."""
    if (waiting := nominated(pod)) is not None:
        return waiting
    for ref in pod.metadata.owner_references:
        if ref.controller and ref.kind in ("DaemonSet", "Node"):
            return PodExclusion.DAEMON_OR_STATIC, ref.kind
    return None


class Karpenter:
    name = KARPENTER

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.events = PodEvents(snapshot, COMPONENT)

    @staticmethod
    def present(snapshot: Snapshot) -> bool:
        return bool(snapshot.node_pools) or bool(snapshot.node_claims)

    def pools(self) -> list[o.NodePool]:
        """Highest weight first, then by name (OrderByWeight)."""
        return sorted(self.snapshot.node_pools.values(), key=lambda p: (-(p.spec.weight or 0), p.metadata.name))

    def view(self, pod: o.Pod, cycle: CycleOutcome, framework: Framework, now: float | None) -> AutoscalerView:
        events = self.events.of(pod)
        view = start_view(self.name, events, excluded(pod), event_time)
        view.coming = self._coming(events, now)
        wanted = pod_requirement_sets(pod, self.snapshot)
        for pool in self.pools():
            view.groups.append(self.finding(pod, pool, wanted))
        return view

    def coming(self, pod: o.Pod, now: float | None) -> ComingNode | None:
        return self._coming(self.events.of(pod), now)

    def _coming(self, events: list[o.Event], now: float | None) -> ComingNode | None:
        nominations = [e for e in events if e.reason == NOMINATED]
        if not nominations or events[-1].reason != NOMINATED:
            return None
        match = _NOMINATED.search(nominations[-1].message)
        if match is None:
            return None
        claim = self.snapshot.node_claims.get(match.group(1))
        if claim is None:
            return None  # deleted: it failed to launch or register (or its node came and went)
        initialized = _condition(claim.status.conditions, "Initialized")
        if initialized is not None and initialized.status == "True":
            return None  # its node is there
        launched = _condition(claim.status.conditions, "Launched")
        pool = claim.metadata.labels.get(NODEPOOL_LABEL, "")
        name = claim.metadata.name
        if launched is not None and launched.status == "True":
            registered = _condition(claim.status.conditions, "Registered")
            since = (registered.last_transition_time if registered else None) or launched.last_transition_time or ""
            timeout = REGISTRATION_TIMEOUT_SECONDS
            state = NodeClaimProgress(name, launched=True)
        else:
            since = claim.metadata.creation_timestamp or ""
            timeout = LAUNCH_TIMEOUT_SECONDS
            state = NodeClaimProgress(name, False)
            if launched is not None and launched.reason:
                state = NodeClaimProgress(name, False, launched.reason, launched.message)
        started = parse_time(since) if since else None
        age = int(now - started) if now is not None and started is not None else None
        return ComingNode(self.name, pool, state, since, age, timeout)

    def finding(self, pod: o.Pod, pool: o.NodePool, wanted: list[Requirements]) -> AnyGroupFinding:
        """What POOL can do for POD (`wanted`: pod_requirement_sets of it)."""
        named = _Named(autoscaler=self.name, group=pool.metadata.name)
        if pool.spec.replicas is not None:
            return NodePoolStatic(**named, replicas=pool.spec.replicas)
        ready = _condition(pool.status.conditions, "Ready")
        if ready is not None and ready.status != "True":
            return NodePoolNotReady(**named, condition_reason=ready.reason, condition_message=ready.message)
        taint = find_matching_untolerated_taint(
            pool.spec.template.spec.taints, pod.spec.tolerations, do_not_schedule_taints
        )
        if taint is not None:
            return TaintNotTolerated(**named, taint=taint_to_string(taint))
        offered = pool_requirements(pool)
        conflicts = [incompatible(offered, alternative) for alternative in wanted]
        if all(c is not None for c in conflicts):
            key, why = next(c for c in conflicts if c is not None)
            return RequirementsExcludePod(**named, key=key, detail=why)
        short = limits_left(pool, pod, named)
        if short is not None:
            return short
        return PoolAdmits(**named)
