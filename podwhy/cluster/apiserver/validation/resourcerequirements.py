"""The validation of a container's and a pod's resources (pkg/apis/core/validation:
validateResourceRequirements, validateContainerResourceName, ValidateResourceQuantityValue,
validatePodResources, validatePodResourceConsistency): resource names, quantities not negative,
whole numbers for integer and extended resources, requests at most their limits and equal to them
for hugepages and extended resources, hugepage sizes, HugePages needing cpu or memory; pod-level
resources and their consistency with the containers'. Errors of several resources come out in
the manifest's order where Go's map iteration gives any order."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from podwhy.cluster.apiserver.validation.invalid import invalid_named, not_supported_named
from podwhy.helpers.fielderrors import child, forbidden, index, invalid, key, required
from podwhy.helpers.namevalidation import label_key_errors
from podwhy.helpers.podresources import (
    aggregate_container_limits,
    aggregate_container_requests,
    is_supported_pod_level_resource,
)
from podwhy.helpers.resourcenames import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    is_extended_resource_name,
    is_hugepages,
    is_native_resource,
)
from podwhy.model import objects as o
from podwhy.model.quantity import QuantityError, go_string, parse_quantity, quantity_format

IS_NEGATIVE = "must be greater than or equal to 0"
IS_NOT_INTEGER = "must be an integer"

# helper.IsStandardResourceName / IsStandardContainerResourceName / the integer resources.
_STANDARD_RESOURCES = frozenset(
    {
        *(CPU, MEMORY, EPHEMERAL_STORAGE),
        *("requests.cpu", "requests.memory", "requests.ephemeral-storage"),
        *("limits.cpu", "limits.memory", "limits.ephemeral-storage"),
        *("pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps"),
        *("persistentvolumeclaims", "storage", "requests.storage", "services.nodeports", "services.loadbalancers"),
    }
)
_STANDARD_CONTAINER_RESOURCES = frozenset({CPU, MEMORY, EPHEMERAL_STORAGE})
_INTEGER_RESOURCES = frozenset(
    {
        *("pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps"),
        *("persistentvolumeclaims", "services.nodeports", "services.loadbalancers"),
    }
)
# resourcehelper.SupportedPodLevelResources, as NotSupported lists it (sorted).
_POD_LEVEL_RESOURCES = ("cpu", "hugepages-", "memory")


def _string(raw: o.QuantityInput) -> str:
    """Quantity.String() of a quantity as written (its canonical form)."""
    return go_string(parse_quantity(raw), quantity_format(raw))


def _resource_name_errors(name: str, path: str) -> list[str]:
    """validateResourceName: a qualified name; unqualified, a standard resource."""
    errs = [invalid_named(path, name, m) for m in label_key_errors(name)]  # IsQualifiedName
    if errs:
        return errs
    if (
        "/" not in name
        and name not in _STANDARD_RESOURCES
        and not name.startswith(("hugepages-", "requests.hugepages-"))
    ):
        return [invalid_named(path, name, "must be a standard resource type or fully qualified")]
    return []


def container_resource_name_errors(name: str, path: str) -> list[str]:
    """validateContainerResourceName: a standard container resource (cpu, memory,
    ephemeral-storage, hugepages-*), or a native or extended resource name."""
    errs = _resource_name_errors(name, path)
    if "/" not in name:
        if name not in _STANDARD_CONTAINER_RESOURCES and not is_hugepages(name):
            errs.append(invalid_named(path, name, "must be a standard resource for containers"))
    elif not is_native_resource(name) and not is_extended_resource_name(name):
        errs.append(invalid_named(path, name, "doesn't follow extended resource name standard"))
    return errs


def _pod_resource_name_errors(name: str, path: str) -> list[str]:
    """validatePodResourceName: cpu, memory or hugepages-*."""
    errs = _resource_name_errors(name, path)
    if errs:
        return errs
    if not is_supported_pod_level_resource(name):
        return [not_supported_named(path, name, _POD_LEVEL_RESOURCES)]
    return []


def _overcommit_allowed(name: str) -> bool:
    """helper.IsOvercommitAllowed: native resources but hugepages."""
    return is_native_resource(name) and not is_hugepages(name)


def _quantity_errors(name: str, raw: o.QuantityInput, path: str) -> list[str]:
    """ValidateResourceQuantityValue: not negative; a whole number for integer resources."""
    amount = parse_quantity(raw)
    errs: list[str] = []
    if amount < 0:
        errs.append(invalid(path, _string(raw), IS_NEGATIVE))
    if (name in _INTEGER_RESOURCES or is_extended_resource_name(name)) and _milli(amount) % 1000 != 0:
        errs.append(invalid(path, _string(raw), IS_NOT_INTEGER))
    return errs


def _milli(amount: Fraction) -> int:
    """Quantity.MilliValue(): rounded up."""
    scaled = amount * 1000
    return -((-scaled.numerator) // scaled.denominator)


def _hugepage_errors(name: str, raw: o.QuantityInput, path: str) -> list[str]:
    """validateResourceQuantityHugePageValue: a whole number of pages of the name's size."""
    try:
        page = parse_quantity(name[len("hugepages-") :])
    except QuantityError:
        page = Fraction(0)
    amount = parse_quantity(raw)
    page_value = -((-page.numerator) // page.denominator)
    value = -((-amount.numerator) // amount.denominator)
    divisible = page > 0 and _milli(page) % 1000 == 0 and _go_rem(value, page_value) == 0
    if divisible:
        return []
    return [invalid(path, _string(raw), f"{_string(raw)} is not positive integer multiple of {name}")]


def _go_rem(a: int, b: int) -> int:
    """Go's %: the remainder takes the dividend's sign."""
    rem = abs(a) % abs(b)
    return -rem if a < 0 else rem


def requirements_errors(
    requests: o.ResourceList,
    limits: o.ResourceList,
    path: str,
    name_errors: Callable[[str, str], list[str]],
) -> list[str]:
    """validateResourceRequirements: each limit, then each request (at most its limit, equal to it
    where overcommit is not allowed, which also needs the limit); HugePages need cpu or memory."""
    errs: list[str] = []
    lim_path, req_path = child(path, "limits"), child(path, "requests")
    for name, raw in limits.items():
        field = key(lim_path, name)
        errs += name_errors(name, field)
        errs += _quantity_errors(name, raw, field)
        if is_hugepages(name):
            errs += _hugepage_errors(name, raw, field)
    for name, raw in requests.items():
        field = key(req_path, name)
        errs += name_errors(name, field)
        errs += _quantity_errors(name, raw, field)
        if name in limits:
            request, limit = parse_quantity(raw), parse_quantity(limits[name])
            if request != limit and not _overcommit_allowed(name):
                errs.append(
                    invalid(req_path, _string(raw), f"must be equal to {name} limit of {_string(limits[name])}")
                )
            elif request > limit:
                errs.append(
                    invalid(
                        req_path, _string(raw), f"must be less than or equal to {name} limit of {_string(limits[name])}"
                    )
                )
        elif not _overcommit_allowed(name):
            errs.append(required(lim_path, "Limit must be set for non overcommitable resources"))
        if is_hugepages(name):
            errs += _hugepage_errors(name, raw, field)
    compute = {CPU, MEMORY}
    hugepages = any(is_hugepages(n) for n in (*requests, *limits))
    if hugepages and not compute & {*requests, *limits}:
        errs.append(forbidden(path, "HugePages require cpu or memory"))
    return errs


def pod_resources_errors(spec: o.PodSpec, path: str) -> list[str]:
    """validatePodResources: pod-level requests and limits (not on Windows), then their
    consistency with the containers'."""
    res = spec.resources
    if res is None:
        return []
    res_path = child(path, "resources")
    if spec.os is not None and spec.os.name == "windows":
        return [forbidden(res_path, "may not be set for a windows pod")]
    errs: list[str] = []
    if res.claims:
        errs.append(forbidden(child(res_path, "claims"), "claims may not be set for Resources at pod-level"))
    errs += requirements_errors(res.requests, res.limits, res_path, _pod_resource_name_errors)
    if errs:
        return errs  # the consistency sums assume valid quantities
    return _pod_resource_consistency(spec, res, res_path)


def _pod_resource_consistency(spec: o.PodSpec, res: o.ResourceRequirements, path: str) -> list[str]:
    """validatePodResourceConsistency: pod-level requests at least the containers' aggregate,
    hugepage limits at least theirs, each container's limit at most the pod's."""
    errs: list[str] = []
    pod = o.Pod(spec=spec)
    formats = _first_formats(spec, "requests")
    for name, total in aggregate_container_requests(pod, use_status_resources=False).items():
        if name not in res.requests:
            continue
        if total > parse_quantity(res.requests[name]):
            shown = go_string(total, formats.get(name, "DecimalSI"))
            detail = f"must be greater than or equal to aggregate container requests of {shown}"
            errs.append(invalid(key(child(path, "requests"), name), _string(res.requests[name]), detail))
    formats = _first_formats(spec, "limits")
    for name, total in aggregate_container_limits(pod).items():
        if not is_hugepages(name) or name not in res.limits:
            continue
        if total > parse_quantity(res.limits[name]):
            shown = go_string(total, formats.get(name, "DecimalSI"))
            detail = f"must be greater than or equal to aggregate container limits of {shown}"
            errs.append(invalid(key(child(path, "limits"), name), _string(res.limits[name]), detail))
    for i, container in enumerate(spec.containers):
        for name, raw in container.resources.limits.items():
            if name in res.limits and parse_quantity(raw) > parse_quantity(res.limits[name]):
                # Upstream's path: spec.resources.containers[i][name].limits.
                field = child(key(index(child(path, "containers"), i), name), "limits")
                detail = f"must be less than or equal to pod limits of {_string(res.limits[name])}"
                errs.append(invalid(field, _string(raw), detail))
    return errs


def _first_formats(spec: o.PodSpec, which: str) -> dict[str, str]:
    """The format of each resource's first container quantity (an aggregate keeps it)."""
    formats: dict[str, str] = {}
    for container in (*spec.containers, *spec.init_containers):
        for name, raw in getattr(container.resources, which).items():
            formats.setdefault(name, quantity_format(raw))
    return formats
