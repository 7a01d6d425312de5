"""The API server's validation of the pods it creates and of the workloads that hold pod templates
(pkg/apis/core/validation: ValidatePodCreate, ValidatePodSpec, ValidatePodTemplateSpec), limited
to the rules that matter to scheduling and to the quantities podwhy computes with.

An object the API server would refuse is refused in its words: `The Pod "web" is invalid:
spec.containers[0].resources.requests[cpu]: Invalid value: "-5": must be greater than or equal to
0`, several errors as errors.NewInvalid aggregates them (`[a, b]`, one line where kubectl prints a
list). The rules, in upstream's order within ValidatePodSpec: volume names; containers (at least
one), their names (required, DNS labels, unique across containers and init containers) and images
(required), ports (names, containerPort
and hostPort ranges, protocol, hostPort conflicts), resources (resource names, quantities not
negative, whole numbers for extended resources, requests at most their limits and equal to them
for hugepages and extended resources, hugepage sizes, HugePages needing cpu or memory);
pod-level resources (where the release reads them); hostNetwork's host ports; nodeSelector
labels; node affinity, pod affinity and anti-affinity terms; topology spread constraints; the host
namespaces a pod in a user namespace may not share; tolerations; the priority class name and
preemption policy; overhead.

Not checked (the API server refuses them too, and podwhy lets them by): the rest of the object's
metadata, images' form, probes, lifecycle hooks, env, volume sources and mounts, security contexts,
DNS settings, resource claim references, matchLabelKeys, and the workloads' own fields
(replicas, selectors, strategies). Errors of several resources come out in the manifest's order
where Go's map iteration gives any order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

import msgspec

from podwhy.cluster.apiserver.defaults import default_pod
from podwhy.errors import PodwhyError
from podwhy.features.emulation import Emulation
from podwhy.features.kubefeatures import (
    POD_LEVEL_RESOURCES,
    TAINT_TOLERATION_COMPARISON_OPERATORS,
    USER_NAMESPACES_HOST_NETWORK_SUPPORT,
)
from podwhy.helpers.fielderrors import (
    aggregate,
    child,
    duplicate,
    forbidden,
    go_json,
    index,
    invalid,
    key,
    required,
    validate_label_name,
)
from podwhy.helpers.namevalidation import (
    dns1123_label_errors,
    dns1123_subdomain_errors,
    label_key_errors,
    label_value_errors,
)
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
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.names import generated_name

# SetDefaults_ContainerPort: a port without a protocol is TCP (templates are validated defaulted).
DEFAULT_PROTOCOL = "TCP"
SUPPORTED_PROTOCOLS = ("SCTP", "TCP", "UDP")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
SCHEDULE_ACTIONS = ("DoNotSchedule", "ScheduleAnyway")
NODE_INCLUSION_POLICIES = ("Honor", "Ignore")
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")

IS_NEGATIVE = "must be greater than or equal to 0"
IS_NOT_INTEGER = "must be an integer"
IS_NOT_POSITIVE = "must be greater than zero"
PORT_RANGE = "must be between 1 and 65535, inclusive"

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

# The API groups of the kinds whose templates are validated (errors.NewInvalid's qualified kind).
_GROUPS = {
    "Pod": "",
    "ReplicationController": "",
    "Deployment": "apps",
    "ReplicaSet": "apps",
    "StatefulSet": "apps",
    "DaemonSet": "apps",
    "Job": "batch",
    "CronJob": "batch",
}


CREATE_HINT = "the API server refuses this object: `kubectl apply` fails and nothing is created"


class InvalidObjectError(PodwhyError):
    """The API server refused to create an object: errors.NewInvalid (422). The message is
    kubectl's (`The Pod "web" is invalid: ...`), after the file it came from when known; `words`
    is the API server's own (`Pod "web-7d4b9-x2x7k" is invalid: ...`), which a controller's
    FailedCreate event repeats."""

    def __init__(
        self, kind: str, name: str, errors: list[str], source: str | None = None, hint: str = CREATE_HINT
    ) -> None:
        self.kind = kind
        self.name = name
        self.errors = list(errors)
        group = _GROUPS.get(kind, "")
        reason = aggregate(self.errors)
        self.words = (
            f'{kind}.{group} "{name}" is invalid: {reason}' if group else f'{kind} "{name}" is invalid: {reason}'
        )
        where = f"{source}: " if source else ""
        super().__init__(
            f'{where}The {kind} "{name}" is invalid: {reason}',
            hint=hint,
        )

    def in_file(self, source: str, hint: str = CREATE_HINT) -> InvalidObjectError:
        """The same refusal, naming the file the object was read from."""
        return InvalidObjectError(self.kind, self.name, self.errors, source, hint)


# ------------------------------------------------------------------ entry points


def validate_pod(pod: o.Pod, emulation: Emulation) -> None:
    """ValidatePodCreate's checks of POD (defaulted, through the mutating admission plugins, its
    disabled fields dropped): its metadata (ValidateObjectMeta with ValidatePodName), then its
    spec; InvalidObjectError if the API server would refuse it."""
    meta = pod.metadata
    if meta.name.endswith("-") and any(ref.controller for ref in meta.owner_references):
        # A controller's pod whose name is still its generateName (the DaemonSet's for every
        # node): the API server validates the name it generates from it.
        meta = msgspec.structs.replace(meta, name=generated_name(meta.name, meta.name))
    errors = in_release_words(object_meta_errors(meta, name_is_dns_subdomain, "metadata"), emulation)
    errors += pod_spec_errors(pod.spec, "spec", emulation)
    if errors:
        raise InvalidObjectError("Pod", pod.metadata.name, errors)


def stored_pod_refusal(pod: o.Pod, emulation: Emulation) -> str | None:
    """The API server's words refusing a pod read from a dump or a cluster (explain NAME, pending),
    checked as validate_pod checks a created one, or None when it would store it. A copy is
    defaulted first (a stored pod is already, a hand-written one need not be); the pod itself is
    not changed. A pod the snapshot holds was stored by some API server, perhaps under an older
    release's rules (validation ratchets), or the dump was made without one: it is explained as
    the scheduler would schedule it, and the refusal said beside (Snapshot.unstorable)."""
    copy = msgspec.json.decode(msgspec.json.encode(pod), type=o.Pod)
    default_pod(copy, emulation)
    try:
        validate_pod(copy, emulation)
    except InvalidObjectError as invalid:
        return invalid.words
    return None


def note_unstorable(snapshot: Snapshot, pods: Iterable[o.Pod], emulation: Emulation) -> None:
    """Record in SNAPSHOT.unstorable each of PODS the release's API server would refuse."""
    for pod in pods:
        refusal = stored_pod_refusal(pod, emulation)
        if refusal is not None:
            snapshot.unstorable[f"{pod.metadata.namespace}/{pod.metadata.name}"] = refusal


def validate_workload(kind: str, obj: Any, emulation: Emulation, source: str) -> None:
    """The pod template checks of a workload as `kubectl apply` creates it (ValidatePodTemplateSpec
    under the kind's template path); InvalidObjectError naming SOURCE if the API server would
    refuse it. The template is not defaulted as a Pod is (no requests copied from limits)."""
    if kind == "CronJob":
        template, path = obj.spec.job_template.spec.template, "spec.jobTemplate.spec.template"
    else:
        template, path = obj.spec.template, "spec.template"
    name_fn = name_is_dns_label if kind == "StatefulSet" else name_is_dns_subdomain
    errors = object_meta_errors(obj.metadata, name_fn, "metadata")
    if kind == "CronJob" and len(obj.metadata.name) > CRON_JOB_NAME_MAX_LENGTH:
        errors.append(invalid("metadata.name", obj.metadata.name, "must be no more than 52 characters"))
    # ValidatePodTemplateSpec: the template's labels and annotations (upstream's paths lack
    # `metadata`), then its spec.
    errors += _labels_errors(template.metadata.labels, child(path, "labels"))
    errors += annotations_errors(template.metadata.annotations, child(path, "annotations"))
    errors = in_release_words(errors, emulation)
    errors += pod_spec_errors(template.spec, child(path, "spec"), emulation, is_pod=False)
    if errors:
        raise InvalidObjectError(kind, obj.metadata.name, errors, source)


# ------------------------------------------------------------------ metadata (ValidateObjectMeta)

# apimachinery's TotalAnnotationSizeLimitB: the annotations' keys and values together, in bytes.
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * (1 << 10)
# A CronJob's Jobs are named `<cronjob>-<11 characters>` within a DNS label's 63 (ValidateCronJobCreate).
CRON_JOB_NAME_MAX_LENGTH = 63 - 11


def _mask_trailing_dash(name: str) -> str:
    """maskTrailingDash, as upstream writes it: a trailing dash, and the character before it,
    become one 'a'."""
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


def name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    """NameIsDNSSubdomain: a name (or, PREFIX, a generateName) a lowercase RFC 1123 subdomain."""
    return dns1123_subdomain_errors(_mask_trailing_dash(name) if prefix else name)


def name_is_dns_label(name: str, prefix: bool) -> list[str]:
    """NameIsDNSLabel (StatefulSets' names, namespaces)."""
    return dns1123_label_errors(_mask_trailing_dash(name) if prefix else name)


def annotations_errors(annotations: dict[str, str], path: str) -> list[str]:
    """ValidateAnnotations: every key a qualified name once lowercased (shown as written), and
    the keys and values together at most 256 KiB."""
    errs: list[str] = []
    for name in annotations:
        errs += [invalid(path, name, m) for m in label_key_errors(name.lower())]
    size = sum(len(k.encode()) + len(v.encode()) for k, v in annotations.items())
    if size > TOTAL_ANNOTATION_SIZE_LIMIT:
        errs.append(f"{path}: Too long: may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes")
    return errs


def object_meta_errors(meta: o.ObjectMeta, name_fn: Callable[[str, bool], list[str]], path: str) -> list[str]:
    """ValidateObjectMeta of a namespaced object: generateName (as a prefix), the name (required),
    the namespace (a DNS label; the one kubectl sends when the manifest names none), labels and
    annotations. Owner references, finalizers and managed fields are not checked."""
    errs: list[str] = []
    if meta.generate_name:
        errs += [invalid(child(path, "generateName"), meta.generate_name, m) for m in name_fn(meta.generate_name, True)]
    if not meta.name:
        errs.append(required(child(path, "name"), "name or generateName is required"))
    else:
        errs += [invalid(child(path, "name"), meta.name, m) for m in name_fn(meta.name, False)]
    if meta.namespace:
        errs += [invalid(child(path, "namespace"), meta.namespace, m) for m in name_is_dns_label(meta.namespace, False)]
    errs += _labels_errors(meta.labels, child(path, "labels"))
    errs += annotations_errors(meta.annotations, child(path, "annotations"))
    return errs


_LABEL_LENGTH = re.compile(r"(?<=must be no more than )(\d+) bytes")


def in_release_words(errors: list[str], emulation: Emulation) -> list[str]:
    """ERRORS as the release's API server words a bad label key and a label's length (the model
    words them as v1.35 and later do)."""
    if emulation.label_key_words == "a valid label key" and emulation.label_length_unit == "bytes":
        return errors
    out = []
    for error in errors:
        error = error.replace(": a valid label key must consist", f": {emulation.label_key_words} must consist")
        out.append(_LABEL_LENGTH.sub(rf"\1 {emulation.label_length_unit}", error))
    return out


def pod_spec_errors(spec: o.PodSpec, path: str, emulation: Emulation, *, is_pod: bool = True) -> list[str]:
    """ValidatePodSpec's errors (the rules of this module), in its order. IS_POD: the spec is a
    Pod's (PodValidationOptions.ResourceIsPod), not a template's."""
    return in_release_words(_pod_spec_errors(spec, path, emulation, is_pod), emulation)


def _pod_spec_errors(spec: o.PodSpec, path: str, emulation: Emulation, is_pod: bool) -> list[str]:
    errs = _volume_errors(spec.volumes, child(path, "volumes"))
    errs += _container_errors(spec.containers, child(path, "containers"))
    errs += _init_container_errors(spec.init_containers, spec.containers, child(path, "initContainers"))
    if emulation.enabled(POD_LEVEL_RESOURCES):
        errs += _pod_resources_errors(spec, path)
    errs += _host_network_errors(spec, path, is_pod)
    errs += _labels_errors(spec.node_selector, child(path, "nodeSelector"))
    if spec.affinity is not None:
        errs += _affinity_errors(spec.affinity, child(path, "affinity"))
    errs += _spread_errors(spec.topology_spread_constraints, child(path, "topologySpreadConstraints"))
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
        errs += _requirements_errors({}, spec.overhead, child(path, "overhead"), _container_resource_name_errors)
    return errs


# ------------------------------------------------------------------ values as Go prints them


def _invalid_named(path: str, value: Any, detail: str) -> str:
    """field.Invalid of a value of a named type (ResourceName, TolerationOperator, a pointer):
    not a plain Go string, so shown as JSON."""
    return f"{path}: Invalid value: {go_json(value)}: {detail}"


def _not_supported_named(path: str, value: Any, supported: tuple[str, ...]) -> str:
    listed = ", ".join(go_json(s) for s in supported)
    return f"{path}: Unsupported value: {go_json(value)}: supported values: {listed}"


def _string(raw: o.QuantityInput) -> str:
    """Quantity.String() of a quantity as written (its canonical form)."""
    return go_string(parse_quantity(raw), quantity_format(raw))


# ------------------------------------------------------------------ volumes and containers


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
    errs += _requirements_errors(
        resources.requests, resources.limits, child(path, "resources"), _container_resource_name_errors
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
            errs.append(_not_supported_named(child(port_path, "protocol"), protocol, SUPPORTED_PROTOCOLS))
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


# ------------------------------------------------------------------ resources


def _resource_name_errors(name: str, path: str) -> list[str]:
    """validateResourceName: a qualified name; unqualified, a standard resource."""
    errs = [_invalid_named(path, name, m) for m in label_key_errors(name)]  # IsQualifiedName
    if errs:
        return errs
    if (
        "/" not in name
        and name not in _STANDARD_RESOURCES
        and not name.startswith(("hugepages-", "requests.hugepages-"))
    ):
        return [_invalid_named(path, name, "must be a standard resource type or fully qualified")]
    return []


def _container_resource_name_errors(name: str, path: str) -> list[str]:
    """validateContainerResourceName: a standard container resource (cpu, memory,
    ephemeral-storage, hugepages-*), or a native or extended resource name."""
    errs = _resource_name_errors(name, path)
    if "/" not in name:
        if name not in _STANDARD_CONTAINER_RESOURCES and not is_hugepages(name):
            errs.append(_invalid_named(path, name, "must be a standard resource for containers"))
    elif not is_native_resource(name) and not is_extended_resource_name(name):
        errs.append(_invalid_named(path, name, "doesn't follow extended resource name standard"))
    return errs


def _pod_resource_name_errors(name: str, path: str) -> list[str]:
    """validatePodResourceName: cpu, memory or hugepages-*."""
    errs = _resource_name_errors(name, path)
    if errs:
        return errs
    if not is_supported_pod_level_resource(name):
        return [_not_supported_named(path, name, _POD_LEVEL_RESOURCES)]
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


def _requirements_errors(
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


def _pod_resources_errors(spec: o.PodSpec, path: str) -> list[str]:
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
    errs += _requirements_errors(res.requests, res.limits, res_path, _pod_resource_name_errors)
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


# ------------------------------------------------------------------ labels, affinity, spreading


def _labels_errors(labels: dict[str, str], path: str) -> list[str]:
    """metav1validation.ValidateLabels: every key a qualified name, every value a label value."""
    errs: list[str] = []
    for name, value in labels.items():
        errs += validate_label_name(name, path)
        errs += [invalid(path, value, m) for m in label_value_errors(value)]
    return errs


def _node_requirement_errors(req: o.NodeSelectorRequirement, path: str, check_values: bool) -> list[str]:
    """ValidateNodeSelectorRequirement."""
    errs: list[str] = []
    values_path = child(path, "values")
    if req.operator in ("In", "NotIn"):
        if not req.values:
            errs.append(required(values_path, "must be specified when `operator` is 'In' or 'NotIn'"))
    elif req.operator in ("Exists", "DoesNotExist"):
        if req.values:
            errs.append(forbidden(values_path, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif req.operator in ("Gt", "Lt"):
        if len(req.values) != 1:
            errs.append(required(values_path, "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    else:
        errs.append(_invalid_named(child(path, "operator"), req.operator, "not a valid selector operator"))
    errs += validate_label_name(req.key, child(path, "key"))
    if check_values:
        for i, value in enumerate(req.values):
            errs += [invalid(index(values_path, i), value, m) for m in label_value_errors(value)]
    return errs


def _node_field_requirement_errors(req: o.NodeSelectorRequirement, path: str) -> list[str]:
    """ValidateNodeFieldSelectorRequirement: `metadata.name` In or NotIn one node name."""
    errs: list[str] = []
    if req.operator in ("In", "NotIn"):
        if len(req.values) != 1:
            detail = "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"
            errs.append(required(child(path, "values"), detail))
    else:
        errs.append(_invalid_named(child(path, "operator"), req.operator, "not a valid selector operator"))
    if req.key != "metadata.name":
        errs.append(invalid(child(path, "key"), req.key, "not a valid field selector key"))
    else:
        for i, value in enumerate(req.values):
            errs += [invalid(index(child(path, "values"), i), value, m) for m in dns1123_subdomain_errors(value)]
    return errs


def _node_term_errors(term: o.NodeSelectorTerm, path: str, check_values: bool) -> list[str]:
    errs: list[str] = []
    for j, req in enumerate(term.match_expressions):
        errs += _node_requirement_errors(req, index(child(path, "matchExpressions"), j), check_values)
    for j, req in enumerate(term.match_fields):
        errs += _node_field_requirement_errors(req, index(child(path, "matchFields"), j))
    return errs


def _weight_errors(weight: int, path: str) -> list[str]:
    return [] if 1 <= weight <= 100 else [invalid(child(path, "weight"), weight, "must be in the range 1-100")]


def _label_selector_errors(selector: o.LabelSelector | None, path: str) -> list[str]:
    """metav1validation.ValidateLabelSelector (label values checked, as on create)."""
    if selector is None:
        return []
    errs = _labels_errors(selector.match_labels, child(path, "matchLabels"))
    for i, req in enumerate(selector.match_expressions):
        req_path = index(child(path, "matchExpressions"), i)
        values_path = child(req_path, "values")
        if req.operator in ("In", "NotIn"):
            if not req.values:
                errs.append(required(values_path, "must be specified when `operator` is 'In' or 'NotIn'"))
        elif req.operator in ("Exists", "DoesNotExist"):
            if req.values:
                errs.append(
                    forbidden(values_path, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
                )
        else:
            errs.append(_invalid_named(child(req_path, "operator"), req.operator, "not a valid selector operator"))
        errs += validate_label_name(req.key, child(req_path, "key"))
        for j, value in enumerate(req.values):
            errs += [invalid(index(values_path, j), value, m) for m in label_value_errors(value)]
    return errs


def _pod_affinity_term_errors(term: o.PodAffinityTerm, path: str) -> list[str]:
    """validatePodAffinityTerm, but for matchLabelKeys and mismatchLabelKeys."""
    errs = _label_selector_errors(term.label_selector, child(path, "labelSelector"))
    errs += _label_selector_errors(term.namespace_selector, child(path, "namespaceSelector"))
    for name in term.namespaces:
        errs += [invalid(child(path, "namespace"), name, m) for m in dns1123_label_errors(name)]
    topology_path = child(path, "topologyKey")
    if not term.topology_key:
        errs.append(required(topology_path, "can not be empty"))
    return errs + validate_label_name(term.topology_key, topology_path)


def _pod_affinity_errors(affinity: o.PodAffinity, path: str) -> list[str]:
    errs: list[str] = []
    required_path = child(path, "requiredDuringSchedulingIgnoredDuringExecution")
    for i, term in enumerate(affinity.required_during_scheduling_ignored_during_execution):
        errs += _pod_affinity_term_errors(term, index(required_path, i))
    preferred_path = child(path, "preferredDuringSchedulingIgnoredDuringExecution")
    for i, weighted in enumerate(affinity.preferred_during_scheduling_ignored_during_execution):
        errs += _weight_errors(weighted.weight, index(preferred_path, i))
        errs += _pod_affinity_term_errors(
            weighted.pod_affinity_term, child(index(preferred_path, i), "podAffinityTerm")
        )
    return errs


def _affinity_errors(affinity: o.Affinity, path: str) -> list[str]:
    """validateAffinity: required node affinity (label values checked), preferred terms (weights
    1-100; any label value), pod affinity and anti-affinity terms."""
    errs: list[str] = []
    node = affinity.node_affinity
    if node is not None:
        node_path = child(path, "nodeAffinity")
        selector = node.required_during_scheduling_ignored_during_execution
        if selector is not None:
            terms_path = child(child(node_path, "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms")
            if not selector.node_selector_terms:
                errs.append(required(terms_path, "must have at least one node selector term"))
            for i, term in enumerate(selector.node_selector_terms):
                errs += _node_term_errors(term, index(terms_path, i), check_values=True)
        preferred_path = child(node_path, "preferredDuringSchedulingIgnoredDuringExecution")
        for i, preferred in enumerate(node.preferred_during_scheduling_ignored_during_execution):
            errs += _weight_errors(preferred.weight, index(preferred_path, i))
            errs += _node_term_errors(preferred.preference, child(index(preferred_path, i), "preference"), False)
    if affinity.pod_affinity is not None:
        errs += _pod_affinity_errors(affinity.pod_affinity, child(path, "podAffinity"))
    if affinity.pod_anti_affinity is not None:
        errs += _pod_affinity_errors(affinity.pod_anti_affinity, child(path, "podAntiAffinity"))
    return errs


def _spread_errors(constraints: list[o.TopologySpreadConstraint], path: str) -> list[str]:
    """validateTopologySpreadConstraints, but for matchLabelKeys."""
    errs: list[str] = []
    for i, constraint in enumerate(constraints):
        item = index(path, i)
        if constraint.max_skew <= 0:
            errs.append(invalid(child(item, "maxSkew"), constraint.max_skew, IS_NOT_POSITIVE))
        if not constraint.topology_key:
            errs.append(required(child(item, "topologyKey"), "can not be empty"))
        action = constraint.when_unsatisfiable
        if action not in SCHEDULE_ACTIONS:
            errs.append(_not_supported_named(child(item, "whenUnsatisfiable"), action, SCHEDULE_ACTIONS))
        if any(
            (c.topology_key, c.when_unsatisfiable) == (constraint.topology_key, action) for c in constraints[i + 1 :]
        ):
            errs.append(
                duplicate(child(item, "{topologyKey, whenUnsatisfiable}"), f"{{{constraint.topology_key}, {action}}}")
            )
        if constraint.min_domains is not None:
            min_path = child(item, "minDomains")
            if constraint.min_domains <= 0:
                errs.append(invalid(min_path, constraint.min_domains, IS_NOT_POSITIVE))
            if action != "DoNotSchedule":
                detail = f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}"
                errs.append(_invalid_named(min_path, constraint.min_domains, detail))
        for name, policy in (
            ("nodeAffinityPolicy", constraint.node_affinity_policy),
            ("nodeTaintsPolicy", constraint.node_taints_policy),
        ):
            if policy is not None and policy not in NODE_INCLUSION_POLICIES:
                errs.append(_not_supported_named(child(item, name), policy, NODE_INCLUSION_POLICIES))
        errs += _label_selector_errors(constraint.label_selector, child(item, "labelSelector"))
    return errs


# ------------------------------------------------------------------ tolerations and priority


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
            errs.append(_invalid_named(child(item, "operator"), tol.operator, detail))
        if tol.toleration_seconds is not None and tol.effect != "NoExecute":
            detail = "effect must be 'NoExecute' when `tolerationSeconds` is set"
            errs.append(_invalid_named(child(item, "effect"), tol.effect, detail))
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
                errs.append(_not_supported_named(child(item, "operator"), tol.operator, supported))
        else:
            errs.append(_not_supported_named(child(item, "operator"), tol.operator, ("Equal", "Exists")))
        if tol.effect and tol.effect not in TAINT_EFFECTS:
            errs.append(_not_supported_named(child(item, "effect"), tol.effect, TAINT_EFFECTS))
    return errs


def _preemption_policy_errors(policy: str, path: str) -> list[str]:
    """ValidatePreemptionPolicy."""
    if policy in PREEMPTION_POLICIES:
        return []
    if not policy:
        return [required(path)]
    return [_not_supported_named(path, policy, PREEMPTION_POLICIES)]
