"""The API server's defaulting of a Pod (pkg/apis/core/v1/defaults.go), applied to every pod that
comes from a manifest before admission and the scheduler see it: a scheduler only ever reads
stored objects, and the API server fills these in on create.

Only fields the typed model holds are filled in; each one the scheduler reads is recorded (a
`Defaulted`: the field, its value, and why) so the report can say what the API server would have
changed. Objects read from a cluster are already defaulted: defaulting them again changes
nothing (tests/test_defaults.py proves it for every recorded cluster).
"""

from __future__ import annotations

from dataclasses import dataclass

from podwhy.framework.resources import (
    aggregate_container_limits,
    aggregate_container_requests,
    is_hugepages,
    is_native_resource,
    is_supported_pod_level_resource,
)
from podwhy.framework.versions import DEFAULT, POD_LEVEL_RESOURCES, Emulation
from podwhy.model import objects as o
from podwhy.model.quantity import format_quantity, go_string, quantity_format
from podwhy.model.wellknown import DEFAULT_SCHEDULER_NAME
from podwhy.snapshot.cluster import Snapshot

# v1.DefaultEnableServiceLinks, and the PodSpec/Container defaults of SetDefaults_PodSpec.
DEFAULT_ENABLE_SERVICE_LINKS = True
DEFAULT_PROTOCOL = "TCP"
DEFAULT_RESTART_POLICY = "Always"
DEFAULT_DNS_POLICY = "ClusterFirst"
DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30

FROM_LIMITS = "copied from limits"
HOST_NETWORK = "host network: the container port"
FROM_CONTAINERS = "the containers' requests"
FROM_POD_LIMITS = "copied from the pod's limits"
FROM_CONTAINER_LIMITS = "the containers' limits"


@dataclass(frozen=True)
class Defaulted:
    """A field of the pod the API server fills in that the scheduler reads."""

    field: str  # as a JSON path of the pod: spec.containers[0].resources.requests.nvidia.com/gpu
    value: str
    why: str


def _requests_from_limits(containers: list[o.Container], where: str, out: list[Defaulted]) -> None:
    """SetDefaults_Pod: a container's limit with no request of the same resource is its request."""
    for index, container in enumerate(containers):
        limits = container.resources.limits
        if not limits:
            continue
        requests = dict(container.resources.requests)
        for name, raw in limits.items():
            if name not in requests:
                requests[name] = raw
                out.append(Defaulted(f"spec.{where}[{index}].resources.requests.{name}", str(raw), FROM_LIMITS))
        container.resources.requests = requests


def _host_network_ports(containers: list[o.Container], where: str, out: list[Defaulted]) -> None:
    """defaultHostNetworkPorts: on the host's network a port's hostPort is its containerPort."""
    for index, container in enumerate(containers):
        for number, port in enumerate(container.ports):
            if port.host_port == 0:
                port.host_port = port.container_port
                out.append(
                    Defaulted(f"spec.{where}[{index}].ports[{number}].hostPort", str(port.container_port), HOST_NETWORK)
                )


def _overcommit_allowed(name: str) -> bool:
    """corev1helper.IsOvercommitAllowed: native resources but hugepages."""
    return is_native_resource(name) and not is_hugepages(name)


def _pod_level_hugepage_limits(pod: o.Pod, out: list[Defaulted]) -> None:
    """defaultHugePagePodLimits: the containers' aggregate hugepage limits (AggregateContainerLimits:
    init containers' peaks included) become the pod's, where the pod sets resources but neither a
    limit nor a request of that size."""
    res = pod.spec.resources
    if res is None or (not res.limits and not res.requests):
        return
    limits = dict(res.limits)
    for name, amount in aggregate_container_limits(pod).items():
        if is_hugepages(name) and name not in res.requests and name not in limits:
            # The aggregate keeps the format of the first container's quantity (Quantity.Add).
            first = next(
                c.resources.limits[name]
                for c in (*pod.spec.containers, *pod.spec.init_containers)
                if name in c.resources.limits
            )
            limits[name] = go_string(amount, quantity_format(first))
            out.append(Defaulted(f"spec.resources.limits.{name}", str(limits[name]), FROM_CONTAINER_LIMITS))
    if limits:
        res.limits = limits


def _pod_level_requests(pod: o.Pod, out: list[Defaulted]) -> None:
    """defaultPodRequests: where the pod sets limits, its requests default to the containers'
    (overcommittable resources), then to its limits."""
    res = pod.spec.resources
    if res is None or not res.limits:
        return
    requests = dict(res.requests)
    for name, amount in aggregate_container_requests(pod, use_status_resources=False).items():
        if name not in requests and is_supported_pod_level_resource(name) and _overcommit_allowed(name):
            requests[name] = format_quantity(amount)
            out.append(Defaulted(f"spec.resources.requests.{name}", str(requests[name]), FROM_CONTAINERS))
    for name, raw in res.limits.items():
        if name not in requests and is_supported_pod_level_resource(name):
            requests[name] = raw
            out.append(Defaulted(f"spec.resources.requests.{name}", str(raw), FROM_POD_LIMITS))
    if requests:
        res.requests = requests


def pod_level_resource_defaults(
    pod: o.Pod, emulation: Emulation, out: list[Defaulted] | None = None
) -> o.ResourceRequirements | None:
    """defaultHugePagePodLimits then defaultPodRequests, in place, where the release has
    PodLevelResources: the pod's resources after them."""
    if emulation.enabled(POD_LEVEL_RESOURCES):
        filled: list[Defaulted] = [] if out is None else out
        _pod_level_hugepage_limits(pod, filled)
        _pod_level_requests(pod, filled)
    return pod.spec.resources


def default_pod(pod: o.Pod, emulation: Emulation = DEFAULT) -> list[Defaulted]:
    """SetDefaults_Pod and what SetDefaults_PodSpec / SetDefaults_ContainerPort fill in, in place;
    the fields the scheduler reads that were filled in."""
    out: list[Defaulted] = []
    _requests_from_limits(pod.spec.containers, "containers", out)
    _requests_from_limits(pod.spec.init_containers, "initContainers", out)
    pod_level_resource_defaults(pod, emulation, out)
    if pod.spec.host_network:
        _host_network_ports(pod.spec.containers, "containers", out)
        _host_network_ports(pod.spec.init_containers, "initContainers", out)
    for container in (*pod.spec.containers, *pod.spec.init_containers):
        for port in container.ports:
            if not port.protocol:
                port.protocol = DEFAULT_PROTOCOL
    if not pod.spec.scheduler_name:
        pod.spec.scheduler_name = DEFAULT_SCHEDULER_NAME
    if pod.spec.termination_grace_period_seconds is None:
        pod.spec.termination_grace_period_seconds = DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS
    return out


def drop_disabled_fields(snapshot: Snapshot, emulation: Emulation) -> None:
    """The pods as a cluster of the emulated release holds them: its API server drops the fields of
    a disabled feature on create (dropDisabledPodFields), and its scheduler ignores them. With
    PodLevelResources off (v1.33), pod-level `spec.resources` does not count."""
    for pod in snapshot.pods:
        drop_disabled_pod_fields(pod, emulation)


def drop_disabled_pod_fields(pod: o.Pod, emulation: Emulation) -> None:
    """dropDisabledPodFields of one pod. The API server runs it between mutating and validating
    admission (the registry's PrepareForCreate)."""
    if not emulation.enabled(POD_LEVEL_RESOURCES) and pod.spec.resources is not None:
        pod.spec.resources = None
