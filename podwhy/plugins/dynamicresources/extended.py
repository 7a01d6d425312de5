"""Extended resources backed by a DeviceClass (DRAExtendedResource, on by default from v1.36).

A DeviceClass serves the extended resource `deviceclass.resource.kubernetes.io/<class>` and,
when it sets `spec.extendedResourceName`, that one too (the newest class wins a name several
classes claim). A pod requesting such a resource from a node that does not advertise it gets
its devices from DRA: DynamicResources allocates them through a claim the scheduler makes for
the pod, and NodeResourcesFit leaves the resource to it.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from podwhy.helpers.podresources import pod_requests
from podwhy.helpers.resourcenames import is_extended_resource_name
from podwhy.model import objects as o
from podwhy.model.quantity import parse_quantity, value

DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"
EXTENDED_RESOURCE_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
SIDECAR_RESTART_POLICY = "Always"


def is_dra_extended_resource_name(name: str) -> bool:
    return is_extended_resource_name(name) or name.startswith(DEVICE_CLASS_PREFIX)


def extended_resource_classes(device_classes: Mapping[str, o.DeviceClass]) -> dict[str, o.DeviceClass]:
    """The DeviceClass serving each extended resource name (the ExtendedResourceCache)."""
    mapping: dict[str, o.DeviceClass] = {}
    explicit: dict[str, o.DeviceClass] = {}
    for device_class in device_classes.values():
        mapping[DEVICE_CLASS_PREFIX + device_class.metadata.name] = device_class
        name = device_class.spec.extended_resource_name
        if name is None:
            continue
        holder = explicit.get(name)
        # The newest class wins; on a tie, the first by name.
        if holder is None or _newer(device_class, holder):
            explicit[name] = device_class
    mapping.update(explicit)
    return mapping


def _newer(candidate: o.DeviceClass, holder: o.DeviceClass) -> bool:
    mine, theirs = candidate.metadata.creation_timestamp or "", holder.metadata.creation_timestamp or ""
    if mine != theirs:
        return mine > theirs  # RFC 3339 timestamps in UTC order as text
    return candidate.metadata.name < holder.metadata.name


def _container_request(container: o.Container, resource: str) -> int:
    raw = container.resources.requests.get(resource)
    if raw is None:
        return 0
    amount = parse_quantity(raw)
    return int(amount) if amount.denominator == 1 else 0  # AsInt64 fails on a fraction


class _Request(msgspec.Struct, frozen=True):
    name: str
    class_name: str
    count: int


def _resource_request(
    index: int, container: o.Container, resource: str, class_name: str, reusable: list[_Request | None]
) -> _Request | None:
    """createResourceRequestAndMappings: the device request for one container's resource, None when
    it has none or the long-lived containers' requests after it already cover it."""
    wanted = _container_request(container, resource)
    if wanted == 0:
        return None
    covered = 0
    for request in reusable:
        if request is not None:
            covered += request.count
            if covered >= wanted:
                return None
    keys = sorted(container.resources.requests)
    return _Request(f"container-{index}-request-{keys.index(resource)}", class_name, wanted - covered)


def special_claim_requests(
    pod: o.Pod, resources: Mapping[str, int], classes: Mapping[str, o.DeviceClass]
) -> list[o.DeviceRequest]:
    """createRequestsAndMappings: the device requests of the scheduler's claim for the pod's
    DRA-backed extended resources on one node, sorted by name."""
    containers = [*pod.spec.init_containers, *pod.spec.containers]
    num_init = len(pod.spec.init_containers)
    long_lived = [i for i, c in enumerate(containers) if i >= num_init or c.restart_policy == SIDECAR_RESTART_POLICY]
    short_lived = [i for i in range(num_init) if i not in long_lived]
    requests: list[_Request] = []
    for resource in sorted(resources):
        device_class = classes.get(resource)
        if device_class is None:
            continue
        class_name = device_class.metadata.name
        long_requests: list[_Request | None] = [None] * len(containers)
        for i in long_lived:
            long_requests[i] = _resource_request(i, containers[i], resource, class_name, [])
        largest: _Request | None = None
        for i in short_lived:
            request = _resource_request(i, containers[i], resource, class_name, long_requests[i:])
            if request is not None and (largest is None or largest.count < request.count):
                largest = request
        if largest is not None:
            requests.append(largest)
        requests.extend(r for r in long_requests if r is not None)
    requests.sort(key=lambda r: r.name)
    return [
        o.DeviceRequest(
            name=r.name,
            exactly=o.ExactDeviceRequest(device_class_name=r.class_name, allocation_mode="ExactCount", count=r.count),
        )
        for r in requests
    ]


def pod_extended_requests(pod: o.Pod) -> dict[str, int]:
    """The pod's requests of DRA extended resource names (PodRequests with default options), non-zero only."""
    out: dict[str, int] = {}
    for name, amount in pod_requests(pod, None, use_status_resources=False).items():
        if is_dra_extended_resource_name(name):
            count = value(amount)
            if count:
                out[name] = count
    return out
