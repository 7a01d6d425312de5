"""The API server's validation of a pod's spec (pkg/apis/core/validation: ValidatePodSpec),
limited to the rules that matter to scheduling and to the quantities podwhy computes with.

The rules, in upstream's order within ValidatePodSpec: volume names; containers (at least one),
their names (required, DNS labels, unique across containers and init containers) and images
(required), ports (names, containerPort and hostPort ranges, protocol, hostPort conflicts),
resources (resourcerequirements.py); pod-level resources (where the release reads them);
hostNetwork's host ports; nodeSelector labels; affinity and topology spread constraints
(affinity.py); the host namespaces a pod in a user namespace may not share; tolerations; the
priority class name and preemption policy; overhead.

Not checked (the API server refuses them too, and podwhy lets them by): images' form, probes,
lifecycle hooks, env, volume sources and mounts, security contexts, DNS settings and resource
claim references."""

from __future__ import annotations

from podwhy.cluster.apiserver.defaults import DEFAULT_PROTOCOL
from podwhy.cluster.apiserver.validation.affinity import affinity_errors, spread_errors
from podwhy.cluster.apiserver.validation.invalid import invalid_named, not_supported_named
from podwhy.cluster.apiserver.validation.objectmeta import in_release_words, labels_errors
from podwhy.cluster.apiserver.validation.resourcerequirements import (
    container_resource_name_errors,
    pod_resources_errors,
    requirements_errors,
)
from podwhy.features.emulation import Emulation
from podwhy.features.kubefeatures import (
    POD_LEVEL_RESOURCES,
    TAINT_TOLERATION_COMPARISON_OPERATORS,
    USER_NAMESPACES_HOST_NETWORK_SUPPORT,
)
from podwhy.helpers.fielderrors import child, duplicate, forbidden, index, invalid, required, validate_label_name
from podwhy.helpers.namevalidation import dns1123_label_errors, dns1123_subdomain_errors, label_value_errors
from podwhy.model import objects as o

SUPPORTED_PROTOCOLS = ("SCTP", "TCP", "UDP")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
PORT_RANGE = "must be between 1 and 65535, inclusive"


def pod_spec_errors(spec: o.PodSpec, path: str, emulation: Emulation, *, is_pod: bool = True) -> list[str]:
    """ValidatePodSpec's errors (the rules of this module), in its order. IS_POD: the spec is a
    Pod's (PodValidationOptions.ResourceIsPod), not a template's."""
    return in_release_words(_pod_spec_errors(spec, path, emulation, is_pod), emulation)


def _pod_spec_errors(spec: o.PodSpec, path: str, emulation: Emulation, is_pod: bool) -> list[str]:
    errs = _volume_errors(spec.volumes, child(path, "volumes"))
    errs += _container_errors(spec.containers, child(path, "containers"))
    errs += _init_container_errors(spec.init_containers, spec.containers, child(path, "initContainers"))
    if emulation.enabled(POD_LEVEL_RESOURCES):
        errs += pod_resources_errors(spec, path)
    errs += _host_network_errors(spec, path, is_pod)
    errs += labels_errors(spec.node_selector, child(path, "nodeSelector"))
    if spec.affinity is not None:
        errs += affinity_errors(spec.affinity, child(path, "affinity"))
    errs += spread_errors(spec.topology_spread_constraints, child(path, "topologySpreadConstraints"))
    errs += _host_users_errors(spec, path, emulation)
    comparison = emulation.enabled(TAINT_TOLERATION_COMPARISON_OPERATORS)
    errs += _toleration_errors(spec.tolerations, child(path, "tolerations"), comparison)
    if spec.priority_class_name:
        class_path = child(path, "priorityClassName")
        errs += [
            invalid(class_path, spec.priority_class_name, m) for m in dns1123_subdomain_errors(spec.priority_class_name)
        ]
    if spec.preemption_policy is not None:
        errs += _preemption_policy_errors(spec.preemption_policy, child(path, "preemptionPolicy"))
    if spec.overhead:
        errs += requirements_errors({}, spec.overhead, child(path, "overhead"), container_resource_name_errors)
    return errs


def _volume_errors(volumes: list[o.Volume], path: str) -> list[str]:
    """ValidateVolumes' name checks: required, a DNS label, unique."""
    errs: list[str] = []
    names: set[str] = set()
    for i, volume in enumerate(volumes):
        name_path = child(index(path, i), "name")
        own = [required(name_path)] if not volume.name else _dns_label(volume.name, name_path)
        if volume.name in names:
            own.append(duplicate(name_path, volume.name))
        if not own:
            names.add(volume.name)
        errs += own
    return errs


def _dns_label(value: str, path: str) -> list[str]:
    return [invalid(path, value, m) for m in dns1123_label_errors(value)]


def _container_common_errors(container: o.Container, path: str) -> list[str]:
    """validateContainerCommon: the name, the ports, the resources."""
    name_path = child(path, "name")
    errs = [required(name_path)] if not container.name else _dns_label(container.name, name_path)
    if not container.image:
        errs.append(required(child(path, "image")))
    errs += _port_errors(container.ports, child(path, "ports"))
    resources = container.resources
    errs += requirements_errors(
        resources.requests, resources.limits, child(path, "resources"), container_resource_name_errors
    )
    return errs


def _container_errors(containers: list[o.Container], path: str) -> list[str]:
    """validateContainers: at least one; names unique among them; host ports not shared."""
    if not containers:
        return [required(path)]
    errs: list[str] = []
    names: set[str] = set()
    for i, container in enumerate(containers):
        errs += _container_common_errors(container, index(path, i))
        if container.name in names:
            errs.append(duplicate(child(index(path, i), "name"), container.name))
        else:
            names.add(container.name)
    errs += _host_port_conflicts(list(enumerate(containers)), path)
    return errs


def _init_container_errors(inits: list[o.Container], containers: list[o.Container], path: str) -> list[str]:
    """validateInitContainers: names unique among the containers and init containers; each one's
    host ports checked alone (init containers run one after another)."""
    errs: list[str] = []
    names = {c.name for c in containers}
    for i, container in enumerate(inits):
        errs += _container_common_errors(container, index(path, i))
        if container.name in names:
            errs.append(duplicate(child(index(path, i), "name"), container.name))
        elif container.name:
            names.add(container.name)
        errs += _host_port_conflicts([(i, container)], path)
    return errs


def _port_name_errors(name: str) -> list[str]:
    """validation.IsValidPortName."""
    msgs: list[str] = []
    if len(name.encode()) > 15:
        msgs.append("must be no more than 15 characters")
    if not name or any(c not in "-abcdefghijklmnopqrstuvwxyz0123456789" for c in name):
        msgs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not any("a" <= c <= "z" for c in name):
        msgs.append("must contain at least one letter (a-z)")
    if "--" in name:
        msgs.append("must not contain consecutive hyphens")
    if name and (name[0] == "-" or name[-1] == "-"):
        msgs.append("must not begin or end with a hyphen")
    return msgs


def _port_errors(ports: list[o.ContainerPort], path: str) -> list[str]:
    """validateContainerPorts."""
    errs: list[str] = []
    names: set[str] = set()
    for i, port in enumerate(ports):
        port_path = index(path, i)
        if port.name:
            msgs = _port_name_errors(port.name)
            if msgs:
                errs += [invalid(child(port_path, "name"), port.name, m) for m in msgs]
            elif port.name in names:
                errs.append(duplicate(child(port_path, "name"), port.name))
            else:
                names.add(port.name)
        if port.container_port == 0:
            errs.append(required(child(port_path, "containerPort")))
        elif not 1 <= port.container_port <= 65535:
            errs.append(invalid(child(port_path, "containerPort"), port.container_port, PORT_RANGE))
        if port.host_port != 0 and not 1 <= port.host_port <= 65535:
            errs.append(invalid(child(port_path, "hostPort"), port.host_port, PORT_RANGE))
        protocol = port.protocol or DEFAULT_PROTOCOL
        if protocol not in SUPPORTED_PROTOCOLS:
            errs.append(not_supported_named(child(port_path, "protocol"), protocol, SUPPORTED_PROTOCOLS))
    return errs


def _host_port_conflicts(containers: list[tuple[int, o.Container]], path: str) -> list[str]:
    """AccumulateUniqueHostPorts: one protocol/hostIP/hostPort used twice."""
    errs: list[str] = []
    seen: set[str] = set()
    for i, container in containers:
        for j, port in enumerate(container.ports):
            if port.host_port == 0:
                continue
            text = f"{port.protocol or DEFAULT_PROTOCOL}/{port.host_ip}/{port.host_port}"
            if text in seen:
                errs.append(duplicate(child(index(child(index(path, i), "ports"), j), "hostPort"), text))
            else:
                seen.add(text)
    return errs


def _host_network_errors(spec: o.PodSpec, path: str, is_pod: bool) -> list[str]:
    """validatePodHostNetworkDeps: with hostNetwork a container's hostPort must equal its
    containerPort (a template may leave it 0: the Pod's defaulting copies it); init containers
    are not checked."""
    if not spec.host_network:
        return []
    errs: list[str] = []
    for i, container in enumerate(spec.containers):
        ports_path = child(index(child(path, "containers"), i), "ports")
        for j, port in enumerate(container.ports):
            if (is_pod or port.host_port != 0) and port.host_port != port.container_port:
                detail = "must match `containerPort` when `hostNetwork` is true"
                errs.append(invalid(child(index(ports_path, j), "hostPort"), port.host_port, detail))
    return errs


def _host_users_errors(spec: o.PodSpec, path: str, emulation: Emulation) -> list[str]:
    """validateHostUsers: a pod in a user namespace (hostUsers false) shares none of the host's
    namespaces (hostNetwork allowed only with UserNamespacesHostNetworkSupport). Upstream's
    paths for hostPID and hostIPC are its Go field names."""
    if spec.host_users is None or spec.host_users:
        return []
    detail = emulation.host_users_forbidden
    errs: list[str] = []
    if spec.host_network and not emulation.enabled(USER_NAMESPACES_HOST_NETWORK_SUPPORT):
        errs.append(forbidden(child(path, "hostNetwork"), detail))
    if spec.host_pid:
        errs.append(forbidden(child(path, "HostPID"), detail))
    if spec.host_ipc:
        errs.append(forbidden(child(path, "HostIPC"), detail))
    return errs


def _toleration_errors(tolerations: list[o.Toleration], path: str, comparison: bool) -> list[str]:
    """ValidateTolerations. With TaintTolerationComparisonOperators on (no release podwhy
    emulates turns it on), Lt and Gt are accepted without their value checks."""
    errs: list[str] = []
    for i, tol in enumerate(tolerations):
        item = index(path, i)
        if tol.key:
            errs += validate_label_name(tol.key, child(item, "key"))
        if not tol.key and tol.operator != "Exists":
            detail = 'operator must be Exists when `key` is empty, which means "match all values and all keys"'
            errs.append(invalid_named(child(item, "operator"), tol.operator, detail))
        if tol.toleration_seconds is not None and tol.effect != "NoExecute":
            detail = "effect must be 'NoExecute' when `tolerationSeconds` is set"
            errs.append(invalid_named(child(item, "effect"), tol.effect, detail))
        if tol.operator in ("Equal", ""):
            msgs = label_value_errors(tol.value)
            if msgs:
                errs.append(invalid(child(item, "operator"), tol.value, ";".join(msgs)))
        elif tol.operator == "Exists":
            if tol.value:
                errs.append(
                    invalid(child(item, "operator"), tol.value, "value must be empty when `operator` is 'Exists'")
                )
        elif tol.operator in ("Lt", "Gt"):
            if not comparison:
                supported = ("Equal", "Exists", "Lt", "Gt")
                errs.append(not_supported_named(child(item, "operator"), tol.operator, supported))
        else:
            errs.append(not_supported_named(child(item, "operator"), tol.operator, ("Equal", "Exists")))
        if tol.effect and tol.effect not in TAINT_EFFECTS:
            errs.append(not_supported_named(child(item, "effect"), tol.effect, TAINT_EFFECTS))
    return errs


def _preemption_policy_errors(policy: str, path: str) -> list[str]:
    """ValidatePreemptionPolicy."""
    if policy in PREEMPTION_POLICIES:
        return []
    if not policy:
        return [required(path)]
    return [not_supported_named(path, policy, PREEMPTION_POLICIES)]
