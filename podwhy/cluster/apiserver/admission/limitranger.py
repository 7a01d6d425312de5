"""LimitRanger admission (plugin/pkg/admission/limitranger): a namespace's LimitRanges give a
pod's containers the requests and limits they lack (MutateLimit), then refuse a pod outside
their min, max or limit-to-request ratio (ValidateLimit), in the API server's words.

The LimitRanges are read from the snapshot (or created by the manifests alongside); each item is
defaulted as the API server stores it (SetDefaults_LimitRangeItem), so one from a manifest reads
as one from the cluster.
"""

from __future__ import annotations

from fractions import Fraction

import msgspec

from podwhy.cluster.apiserver.admission.attributes import AdmissionRefusalError, Attributes, admitted_without
from podwhy.helpers.resourcenames import CPU, MEMORY
from podwhy.model import objects as o
from podwhy.model.quantity import QuantityInput, go_string, milli_value, parse_quantity, quantity_format, value

NAME = "LimitRanger"

CONTAINER = "Container"
POD = "Pod"
LIMIT_RANGER_DEFAULT = "LimitRange default in namespace {namespace}"
# resource.MaxMilliValue: milli-precision comparisons while no value overflows int64 in milli.
MAX_MILLI_VALUE = (2**63 - 1) // 1000


class LimitRangeDefault(msgspec.Struct, frozen=True):
    """A request or limit a LimitRange gave a container (the field, its value, the LimitRange)."""

    field: str
    value: str
    limit_range: str


def defaulted_item(item: o.LimitRangeItem) -> o.LimitRangeItem:
    """SetDefaults_LimitRangeItem: for containers, the default limit is the max where unset, the
    default request the default limit, then the min."""
    if item.type != CONTAINER:
        return item
    default = dict(item.default)
    for name, raw in item.max.items():
        default.setdefault(name, raw)
    default_request = dict(item.default_request)
    for name, raw in default.items():
        default_request.setdefault(name, raw)
    for name, raw in item.min.items():
        default_request.setdefault(name, raw)
    return o.LimitRangeItem(
        type=item.type,
        max=item.max,
        min=item.min,
        default=default,
        default_request=default_request,
        max_limit_request_ratio=item.max_limit_request_ratio,
    )


def namespace_limit_ranges(snapshot_ranges: list[o.LimitRange], namespace: str) -> list[o.LimitRange]:
    return [lr for lr in snapshot_ranges if lr.metadata.namespace == namespace]


def mutate(pod: o.Pod, limit_range: o.LimitRange) -> list[LimitRangeDefault]:
    """PodMutateLimitFunc: each container and init container gets the Container items' default
    limits and requests it lacks."""
    requests: dict[str, QuantityInput] = {}
    limits: dict[str, QuantityInput] = {}
    for item in map(defaulted_item, limit_range.spec.limits):
        if item.type == CONTAINER:
            requests.update(item.default_request)
            limits.update(item.default)
    out: list[LimitRangeDefault] = []
    name = limit_range.metadata.name
    for where, containers in (("containers", pod.spec.containers), ("initContainers", pod.spec.init_containers)):
        for index, container in enumerate(containers):
            res = container.resources
            new_limits, new_requests = dict(res.limits), dict(res.requests)
            for resource, raw in limits.items():
                if resource not in new_limits:
                    new_limits[resource] = raw
                    out.append(LimitRangeDefault(f"spec.{where}[{index}].resources.limits.{resource}", str(raw), name))
            for resource, raw in requests.items():
                if resource not in new_requests:
                    new_requests[resource] = raw
                    out.append(
                        LimitRangeDefault(f"spec.{where}[{index}].resources.requests.{resource}", str(raw), name)
                    )
            res.limits, res.requests = new_limits, new_requests
    return out


LIMIT_RANGER = "LimitRanger"


def _values(req: QuantityInput | None, lim: QuantityInput | None, enforced: QuantityInput) -> tuple[int, int, int]:
    """requestLimitEnforcedValues: milli-precision when nothing overflows, else whole values."""
    amounts = [parse_quantity(x) if x is not None else Fraction(0) for x in (req, lim, enforced)]
    whole = [value(a) for a in amounts]
    if all(w <= MAX_MILLI_VALUE for w in whole):
        return milli_value(amounts[0]), milli_value(amounts[1]), milli_value(amounts[2])
    return whole[0], whole[1], whole[2]


def _said(raw: QuantityInput | None) -> str:
    """A quantity as the API server's messages print it: Quantity.String() of the quantity parsed
    from RAW, canonical ("1024Mi" is "1Gi"; ParseQuantity keeps the text only of "0")."""
    if raw is None:
        return ""
    return go_string(parse_quantity(raw), quantity_format(raw))


def _min(kind: str, name: str, enforced: QuantityInput, request: o.ResourceList, limit: o.ResourceList) -> str | None:
    req, lim = request.get(name), limit.get(name)
    r, li, e = _values(req, lim, enforced)
    enforced, req, lim = (
        _said(enforced),
        _said(req) if req is not None else None,
        _said(lim) if lim is not None else None,
    )
    if req is None:
        return f"minimum {name} usage per {kind} is {_said(enforced)}.  No request is specified"
    if r < e:
        return f"minimum {name} usage per {kind} is {_said(enforced)}, but request is {_said(req)}"
    if lim is not None and li < e:
        return f"minimum {name} usage per {kind} is {_said(enforced)}, but limit is {_said(lim)}"
    return None


def _max(kind: str, name: str, enforced: QuantityInput, request: o.ResourceList, limit: o.ResourceList) -> str | None:
    req, lim = request.get(name), limit.get(name)
    r, li, e = _values(req, lim, enforced)
    enforced, req, lim = (
        _said(enforced),
        _said(req) if req is not None else None,
        _said(lim) if lim is not None else None,
    )
    if lim is None:
        return f"maximum {name} usage per {kind} is {_said(enforced)}.  No limit is specified"
    if li > e:
        return f"maximum {name} usage per {kind} is {_said(enforced)}, but limit is {_said(lim)}"
    if req is not None and r > e:
        return f"maximum {name} usage per {kind} is {_said(enforced)}, but request is {_said(req)}"
    return None


def _ratio(kind: str, name: str, enforced: QuantityInput, request: o.ResourceList, limit: o.ResourceList) -> str | None:
    req, lim = request.get(name), limit.get(name)
    r, li, _ = _values(req, lim, enforced)
    said = _said(enforced)
    if req is None or r == 0:
        return f"{name} max limit to request ratio per {kind} is {said}, but no request is specified or request is 0"
    if lim is None or li == 0:
        return f"{name} max limit to request ratio per {kind} is {said}, but no limit is specified or limit is 0"
    observed = li / r
    amount = parse_quantity(enforced)
    bound = float(value(amount))
    ratio = observed
    if value(amount) <= MAX_MILLI_VALUE:
        ratio, bound = observed * 1000, float(milli_value(amount))
    if ratio > bound:
        return f"{name} max limit to request ratio per {kind} is {said}, but provided ratio is {observed:f}"
    return None


def _check(kind: str, item: o.LimitRangeItem, request: o.ResourceList, limit: o.ResourceList) -> list[str]:
    errors: list[str] = []
    for name, enforced in sorted(item.min.items()):
        errors += [e for e in [_min(kind, name, enforced, request, limit)] if e]
    for name, enforced in sorted(item.max.items()):
        errors += [e for e in [_max(kind, name, enforced, request, limit)] if e]
    for name, enforced in sorted(item.max_limit_request_ratio.items()):
        errors += [e for e in [_ratio(kind, name, enforced, request, limit)] if e]
    return errors


class _Total:
    """One resource's total as k8s.io/apimachinery's Quantity keeps it: the amount, and the format
    of the quantity it began as (Add keeps the receiver's; a larger init container's replaces it)."""

    __slots__ = ("amount", "fmt")

    def __init__(self, raw: QuantityInput) -> None:
        self.amount, self.fmt = parse_quantity(raw), quantity_format(raw)

    def __str__(self) -> str:
        return go_string(self.amount, self.fmt)


def _add(total: dict[str, _Total], resources: o.ResourceList) -> None:
    """addResourceList: a new resource as a copy of the quantity, else added to the total."""
    for name, raw in resources.items():
        if name in total:
            total[name].amount += parse_quantity(raw)
        else:
            total[name] = _Total(raw)


def _pod_totals(pod: o.Pod, pod_level: bool, limits: bool) -> o.ResourceList:
    """podRequests / podLimits of the admission plugin: containers and sidecars summed, init
    containers' peak (maxResourceList: a larger quantity replaces the total), pod-level cpu and
    memory overriding (spec only, no status); each total printed as its Quantity prints."""

    def pick(container: o.Container) -> o.ResourceList:
        return container.resources.limits if limits else container.resources.requests

    total: dict[str, _Total] = {}
    for container in pod.spec.containers:
        _add(total, pick(container))
    sidecars: dict[str, _Total] = {}
    init_peak: dict[str, _Total] = {}
    for container in pod.spec.init_containers:
        own: dict[str, _Total] = {}
        _add(own, pick(container))
        if container.restart_policy == "Always":
            _add(total, pick(container))
            _add(sidecars, pick(container))
            own = {name: _copy(t) for name, t in sidecars.items()}
        else:
            for name, t in sidecars.items():
                if name in own:
                    own[name].amount += t.amount
                else:
                    own[name] = _copy(t)
        for name, t in own.items():
            if name not in init_peak or t.amount > init_peak[name].amount:
                init_peak[name] = _copy(t)
    for name, t in init_peak.items():
        if name not in total or t.amount > total[name].amount:
            total[name] = t
    out: o.ResourceList = {name: str(t) for name, t in total.items()}
    if pod_level and pod.spec.resources is not None:
        for name, raw in (pod.spec.resources.limits if limits else pod.spec.resources.requests).items():
            if name in (CPU, MEMORY):
                out[name] = raw
    return out


def _copy(total: _Total) -> _Total:
    out = _Total.__new__(_Total)
    out.amount, out.fmt = total.amount, total.fmt
    return out


def validate(pod: o.Pod, limit_range: o.LimitRange, pod_level: bool) -> list[str]:
    """PodValidateLimitFunc: each Container item against every container and init container, each
    Pod item against the pod's totals; the errors (sorted: upstream walks Go maps)."""
    errors: list[str] = []
    for item in map(defaulted_item, limit_range.spec.limits):
        if item.type == CONTAINER:
            for container in (*pod.spec.containers, *pod.spec.init_containers):
                errors += _check(CONTAINER, item, container.resources.requests, container.resources.limits)
        elif item.type == POD:
            errors += _check(POD, item, _pod_totals(pod, pod_level, False), _pod_totals(pod, pod_level, True))
    return errors


def aggregate(errors: list[str]) -> str:
    """utilerrors.NewAggregate's words: one error as is, several in brackets."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


def admit_pod(pod: o.Pod, attributes: Attributes) -> None:
    """LimitRanger's mutating half: the namespace's LimitRanges default the containers' requests
    and limits (its bounds are checked after the pod is validated: validate_pod). Without
    LimitRanges the snapshot can vouch for, a pod whose containers lack a cpu or memory request
    is admitted without them: its requests are unknown."""
    snapshot = attributes.snapshot
    if "LimitRange" in snapshot.missing:
        lacking = any(
            CPU not in c.resources.requests or MEMORY not in c.resources.requests
            for c in (*pod.spec.containers, *pod.spec.init_containers)
        )
        if lacking:
            admitted_without(pod, snapshot, "LimitRange")
        return
    ranges = namespace_limit_ranges(snapshot.limit_ranges, pod.metadata.namespace)
    attributes.defaulted += [
        (d.field, d.value, f"LimitRange {d.limit_range} default") for lr in ranges for d in mutate(pod, lr)
    ]


def validate_pod(pod: o.Pod, attributes: Attributes) -> None:
    """LimitRanger's validating half, after the pod itself was validated: a pod outside the
    bounds of its namespace's LimitRanges is refused (the first one it breaks)."""
    snapshot = attributes.snapshot
    if "LimitRange" in snapshot.missing:
        return
    namespace = pod.metadata.namespace
    for lr in namespace_limit_ranges(snapshot.limit_ranges, namespace):
        errors = validate(pod, lr, pod_level=pod.spec.resources is not None)
        if errors:
            # A controller's pod is not created (FailedCreate); `kubectl apply` of a Pod fails.
            raise AdmissionRefusalError(
                pod, LIMIT_RANGER, aggregate(errors), f"LimitRange {lr.metadata.name} in namespace {namespace}"
            )
