"""The API server's defaulting of a Pod (pkg/apis/core/v1/defaults.go), applied to every pod that
comes from a manifest before admission and the scheduler see it: a scheduler only ever reads
stored objects, and the API server fills these in on create.

Only fields the typed model holds are filled in; each one the scheduler reads is recorded (a
`Defaulted`: the field, its value, and why) so the report can say what the API server would have
changed. Objects read from a cluster are already defaulted: defaulting them again changes
nothing (tests/cluster/apiserver/test_defaults.py proves it for every recorded cluster).

Beside it (`default_template`, `default_pod_spec`), the API server's defaulting of a whole pod
template or pod spec as JSON (a dict, as decoded from a manifest), every field and not only those
the typed model holds: what SetDefaults_PodSpec, SetDefaults_Container, SetDefaults_Volume and the
other SetDefaults_ functions of pkg/apis/core/v1/defaults.go fill in, where
zz_generated.defaults.go applies them (the same for a Deployment's, ReplicaSet's, StatefulSet's,
DaemonSet's, Job's and CronJob's template as for a Pod), and for a Pod what SetDefaults_Pod adds:
requests copied from limits, pod-level resources (with PodLevelResources), enableServiceLinks and
the host network's ports. SetDefaults_Pod is not applied to templates, so a stored template keeps
limits without requests.

A template is then compared as the API server stores it (`stored_form`): quantities canonical
(SetDefaults_ResourceList rounds them up to thousandths, the serializer canonicalizes them),
without what Go's JSON encoding omits (nulls, empty lists and maps, zero values of the fields
that are not pointers). Objects read from a cluster are already defaulted: defaulting them again
changes nothing (tests/cluster/apiserver/test_defaults_template.py checks every recorded pod and template).

The typed pod's defaulting (`default_pod`) and the JSON one share each default value.
"""

from __future__ import annotations

import copy
import re
from fractions import Fraction
from typing import Any

import msgspec

from podwhy.features.emulation import DEFAULT, Emulation
from podwhy.features.kubefeatures import IMAGE_VOLUME, POD_LEVEL_RESOURCES
from podwhy.helpers.podresources import (
    aggregate_container_limits,
    aggregate_container_requests,
    is_supported_pod_level_resource,
)
from podwhy.helpers.resourcenames import is_hugepages, is_native_resource
from podwhy.model import objects as o
from podwhy.model.quantity import QuantityError, format_quantity, go_string, parse_quantity, quantity_format
from podwhy.model.wellknownnames import DEFAULT_SCHEDULER_NAME
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


class Defaulted(msgspec.Struct, frozen=True):
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
    if emulation.enabled(POD_LEVEL_RESOURCES):
        return  # drop_disabled_pod_fields drops nothing: no pod to look at
    for pod in snapshot.pods:
        drop_disabled_pod_fields(pod, emulation)


def drop_disabled_pod_fields(pod: o.Pod, emulation: Emulation) -> None:
    """dropDisabledPodFields of one pod. The API server runs it between mutating and validating
    admission (the registry's PrepareForCreate)."""
    if not emulation.enabled(POD_LEVEL_RESOURCES) and pod.spec.resources is not None:
        pod.spec.resources = None


# ------------------------------------------------------------ whole templates, as JSON

Json = dict[str, Any]

# v1.TerminationMessagePathDefault, v1.TerminationMessageReadFile, the pull policies.
TERMINATION_MESSAGE_PATH = "/dev/termination-log"
TERMINATION_MESSAGE_POLICY = "File"
PULL_ALWAYS = "Always"
PULL_IF_NOT_PRESENT = "IfNotPresent"
# SetDefaults_Probe and SetDefaults_HTTPGetAction.
PROBE_DEFAULTS = (("timeoutSeconds", 1), ("periodSeconds", 10), ("successThreshold", 1), ("failureThreshold", 3))
HTTP_GET_DEFAULTS = (("path", "/"), ("scheme", "HTTP"))
PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
# The mode of secret, configMap, downwardAPI and projected volumes' files (0644).
VOLUME_DEFAULT_MODE = 0o644
# SetDefaults_ServiceAccountTokenProjection: an hour.
TOKEN_EXPIRATION_SECONDS = 3600
FIELD_REF_API_VERSION = "v1"
HOST_PATH_UNSET = ""
VOLUME_MODE_FILESYSTEM = "Filesystem"
# The generated defaults (+default= markers) of in-tree volume sources.
VOLUME_SOURCE_DEFAULTS: dict[str, tuple[tuple[str, object], ...]] = {
    "iscsi": (("iscsiInterface", "default"),),
    "rbd": (("pool", "rbd"), ("user", "admin"), ("keyring", "/etc/ceph/keyring")),
    "azureDisk": (("cachingMode", "ReadWrite"), ("fsType", "ext4"), ("readOnly", False), ("kind", "Shared")),
    "scaleIO": (("storageMode", "ThinProvisioned"), ("fsType", "xfs")),
}
CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")

# The image reference grammar of ParseNormalizedNamed (github.com/distribution/reference).
_PATH_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?"
_REFERENCE = re.compile(
    rf"(?P<name>(?:{_DOMAIN}/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*)"
    r"(?::(?P<tag>[\w][\w.-]{0,127}))?"
    r"(?:@(?P<digest>[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?"
)
_DIGEST_LENGTHS = {"sha256": 64, "sha384": 96, "sha512": 128}
_ANCHORED_ID = re.compile(r"[a-f0-9]{64}")
_NAME_TOTAL_LENGTH_MAX = 255


def image_tag(image: str) -> str:
    """The tag parsers.ParseImageName finds: the reference's tag, "latest" when it names neither a
    tag nor a digest, "" when it has only a digest or does not parse."""
    if _ANCHORED_ID.fullmatch(image):
        return ""
    match = _REFERENCE.fullmatch(image)
    if match is None or len(match["name"]) > _NAME_TOTAL_LENGTH_MAX:
        return ""
    digest = match["digest"]  # (the grammar: a domain may have capitals, a path may not)
    if digest is not None:
        algorithm, _, hexdigits = digest.partition(":")
        if _DIGEST_LENGTHS.get(algorithm) != len(hexdigits):
            return ""
    tag = match["tag"] or ""
    return tag or ("" if digest else "latest")


def pull_policy(image: str) -> str:
    """SetDefaults_Container's imagePullPolicy: Always for the tag latest, else IfNotPresent."""
    return PULL_ALWAYS if image_tag(image) == "latest" else PULL_IF_NOT_PRESENT


def rounded_quantity(raw: object, *, canonical: bool = False) -> object:
    """SetDefaults_ResourceList of one quantity: rounded up to thousandths (RAW as written when
    that changes nothing), and with CANONICAL in the form Quantity's MarshalJSON writes, as the
    API server stores it ("1000m" is "1", "1024Mi" is "1Gi"); RAW unchanged if unparsable."""
    if not isinstance(raw, str | int | float) or isinstance(raw, bool):
        return raw
    try:
        amount = parse_quantity(raw)
    except (QuantityError, ValueError):
        return raw
    milli = amount * 1000
    rounded = Fraction(-(-milli.numerator // milli.denominator), 1000)
    if rounded == amount and not canonical:
        return raw
    return go_string(rounded, quantity_format(raw))


def _resource_list(parent: Json, key: str, canonical: bool = False) -> None:
    values = parent.get(key)
    if isinstance(values, dict):
        parent[key] = {name: rounded_quantity(raw, canonical=canonical) for name, raw in values.items()}


def _resources(parent: Json, key: str = "resources", canonical: bool = False) -> None:
    res = parent.get(key)
    if isinstance(res, dict):
        _resource_list(res, "limits", canonical)
        _resource_list(res, "requests", canonical)


def _fill(obj: Json, defaults: tuple[tuple[str, object], ...], zero: object = None) -> None:
    """Each default where OBJ has no value (or, for ZERO, the zero value Go cannot tell apart)."""
    for key, value in defaults:
        if obj.get(key) is None or (zero is not None and obj.get(key) == zero):
            obj[key] = value


def _dict(value: object) -> Json | None:
    return value if isinstance(value, dict) else None


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _field_ref(parent: Json | None) -> None:
    ref = _dict(parent.get("fieldRef")) if parent is not None else None
    if ref is not None:
        _fill(ref, (("apiVersion", FIELD_REF_API_VERSION),), zero="")


def _http_get(handler: Json | None) -> None:
    action = _dict(handler.get("httpGet")) if handler is not None else None
    if action is not None:
        _fill(action, HTTP_GET_DEFAULTS, zero="")


def _container(container: Json, emulation: Emulation) -> None:
    """SetDefaults_Container and what the generated defaults apply to its parts."""
    if not container.get("imagePullPolicy"):
        container["imagePullPolicy"] = pull_policy(str(container.get("image") or ""))
    _fill(container, (("terminationMessagePath", TERMINATION_MESSAGE_PATH),), zero="")
    _fill(container, (("terminationMessagePolicy", TERMINATION_MESSAGE_POLICY),), zero="")
    for port in _list(container.get("ports")):
        if isinstance(port, dict):
            _fill(port, (("protocol", DEFAULT_PROTOCOL),), zero="")
    for env in _list(container.get("env")):
        source = _dict(env.get("valueFrom")) if isinstance(env, dict) else None
        if source is None:
            continue
        _field_ref(source)
        file_key = _dict(source.get("fileKeyRef"))
        if file_key is not None and emulation.file_key_ref_optional_default:
            _fill(file_key, (("optional", False),))
    _resources(container)
    for name in PROBES:
        probe = _dict(container.get(name))
        if probe is None:
            continue
        _fill(probe, PROBE_DEFAULTS, zero=0)
        _http_get(probe)
        grpc = _dict(probe.get("grpc"))
        if grpc is not None:
            _fill(grpc, (("service", ""),))
    lifecycle = _dict(container.get("lifecycle"))
    if lifecycle is not None:
        for hook in ("postStart", "preStop"):
            _http_get(_dict(lifecycle.get(hook)))


def _volume(volume: Json, emulation: Emulation) -> None:
    """SetDefaults_Volume (a volume without a source is an emptyDir) and each source's defaults."""
    if all(value is None for key, value in volume.items() if key != "name"):
        volume["emptyDir"] = {}
    image = _dict(volume.get("image"))
    if image is not None and emulation.enabled(IMAGE_VOLUME) and not image.get("pullPolicy"):
        image["pullPolicy"] = pull_policy(str(image.get("reference") or ""))
    host_path = _dict(volume.get("hostPath"))
    if host_path is not None:
        _fill(host_path, (("type", HOST_PATH_UNSET),))
    for kind in ("secret", "configMap", "downwardAPI", "projected"):
        source = _dict(volume.get(kind))
        if source is not None:
            _fill(source, (("defaultMode", VOLUME_DEFAULT_MODE),))
    downward = _dict(volume.get("downwardAPI"))
    for item in _list(downward.get("items")) if downward is not None else []:
        _field_ref(_dict(item))
    projected = _dict(volume.get("projected"))
    for source in _list(projected.get("sources")) if projected is not None else []:
        if not isinstance(source, dict):
            continue
        api = _dict(source.get("downwardAPI"))
        for item in _list(api.get("items")) if api is not None else []:
            _field_ref(_dict(item))
        token = _dict(source.get("serviceAccountToken"))
        if token is not None:
            _fill(token, (("expirationSeconds", TOKEN_EXPIRATION_SECONDS),))
    for kind, defaults in VOLUME_SOURCE_DEFAULTS.items():
        source = _dict(volume.get(kind))
        if source is not None:
            _fill(source, defaults, zero="")
    ephemeral = _dict(volume.get("ephemeral"))
    claim = _dict(ephemeral.get("volumeClaimTemplate")) if ephemeral is not None else None
    spec = _dict(claim.get("spec")) if claim is not None else None
    if spec is not None:
        _fill(spec, (("volumeMode", VOLUME_MODE_FILESYSTEM),))
        _resources(spec)


def _pod_defaults(spec: Json, emulation: Emulation) -> None:
    """SetDefaults_Pod: what a Pod gets and a template does not."""
    for name in ("containers", "initContainers"):
        for container in _list(spec.get(name)):
            res = _dict(container.get("resources")) if isinstance(container, dict) else None
            limits = _dict(res.get("limits")) if res is not None else None
            if res is None or limits is None:
                continue
            requests = _dict(res.get("requests")) or {}
            res["requests"] = {**requests, **{k: v for k, v in limits.items() if k not in requests}}
    if isinstance(spec.get("resources"), dict):
        pod_resources(spec, emulation)
    _fill(spec, (("enableServiceLinks", DEFAULT_ENABLE_SERVICE_LINKS),))
    if spec.get("hostNetwork") is True:
        for name in ("containers", "initContainers"):
            for container in _list(spec.get(name)):
                for port in _list(container.get("ports")) if isinstance(container, dict) else []:
                    if isinstance(port, dict) and not port.get("hostPort"):
                        port["hostPort"] = port.get("containerPort")


def pod_resources(spec: Json, emulation: Emulation) -> None:
    """defaultHugePagePodLimits and defaultPodRequests (PodLevelResources), as the typed pod's
    defaulting computes them: the spec read as a typed pod, its pod-level resources copied back."""
    try:
        pod = msgspec.convert({"spec": spec}, o.Pod)
    except msgspec.ValidationError:
        return  # validation refuses it
    res = pod_level_resource_defaults(pod, emulation)
    if res is not None:
        raw = spec["resources"]
        for key, values in (("limits", res.limits), ("requests", res.requests)):
            if values:
                raw[key] = {**values, **(_dict(raw.get(key)) or {})}


def default_pod_spec(spec: Json, emulation: Emulation = DEFAULT, *, pod: bool = False) -> None:
    """The API server's defaulting of SPEC in place: a template's (SetDefaults_PodSpec and the
    generated defaults of its parts) or, with POD, a Pod's (SetDefaults_Pod first)."""
    if pod:
        _pod_defaults(spec, emulation)
    _fill(spec, (("dnsPolicy", DEFAULT_DNS_POLICY), ("restartPolicy", DEFAULT_RESTART_POLICY)), zero="")
    _fill(spec, (("securityContext", {}),))
    _fill(spec, (("terminationGracePeriodSeconds", DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS),))
    _fill(spec, (("schedulerName", DEFAULT_SCHEDULER_NAME),), zero="")
    for volume in _list(spec.get("volumes")):
        if isinstance(volume, dict):
            _volume(volume, emulation)
    for name in CONTAINER_LISTS:
        for container in _list(spec.get(name)):
            if isinstance(container, dict):
                _container(container, emulation)
    _resource_list(spec, "overhead")
    _resources(spec)


def default_template(template: Json, emulation: Emulation = DEFAULT) -> Json:
    """A defaulted copy of TEMPLATE (a PodTemplateSpec), as a workload's template is stored."""
    out = copy.deepcopy(template)
    spec = _dict(out.get("spec"))
    if spec is None:
        out["spec"] = spec = {}
    default_pod_spec(spec, emulation)
    return out


# Go maps (their entries are data: an empty value is kept) and the struct fields that are not
# pointers, so that `{}` is what Go writes for them unset.
_MAPS = frozenset(
    {"labels", "annotations", "nodeSelector", "limits", "requests", "overhead", "volumeAttributes", "options"}
)
_MAPS |= {"matchLabels"}
_EMPTY_STRUCTS = frozenset({"resources", "metadata"})
# Fields that are neither pointers nor maps, written with omitempty: a zero value is omitted.
_ZERO_OMITTED = frozenset(
    {
        "chapAuthDiscovery",
        "chapAuthSession",
        "failureThreshold",
        "hostIPC",
        "hostNetwork",
        "hostPID",
        "hostPort",
        "initialDelaySeconds",
        "partition",
        "periodSeconds",
        "readOnly",
        "sslEnabled",
        "stdin",
        "stdinOnce",
        "successThreshold",
        "timeoutSeconds",
        "tty",
    }
)


def _stored(value: object, key: str = "") -> object:
    if isinstance(value, dict):
        if key in _MAPS:
            return {k: v for k, v in value.items() if v is not None}
        out: Json = {}
        for name, item in value.items():
            kept = _stored(item, name)
            if kept is None or kept == "" or kept == [] or (kept == {} and name in _MAPS | _EMPTY_STRUCTS):
                continue
            if name in _ZERO_OMITTED and kept in (0, False) and not isinstance(kept, str):
                continue
            out[name] = kept
        return out
    if isinstance(value, list):
        return [_stored(item) for item in value]
    return value


def canonical_quantities(spec: Json) -> None:
    """Every quantity of a pod SPEC in place, in the form the API server writes it."""
    _resource_list(spec, "overhead", canonical=True)
    _resources(spec, canonical=True)
    for name in CONTAINER_LISTS:
        for container in _list(spec.get(name)):
            if isinstance(container, dict):
                _resources(container, canonical=True)
    for volume in _list(spec.get("volumes")):
        ephemeral = _dict(volume.get("ephemeral")) if isinstance(volume, dict) else None
        claim = _dict(ephemeral.get("volumeClaimTemplate")) if ephemeral is not None else None
        claim_spec = _dict(claim.get("spec")) if claim is not None else None
        if claim_spec is not None:
            _resources(claim_spec, canonical=True)
        empty_dir = _dict(volume.get("emptyDir")) if isinstance(volume, dict) else None
        if empty_dir is not None and empty_dir.get("sizeLimit") is not None:
            empty_dir["sizeLimit"] = rounded_quantity(empty_dir["sizeLimit"], canonical=True)


def stored_form(template: Json) -> Json:
    """TEMPLATE as the API server writes it back: quantities canonical, and without what Go's
    encoding omits (nulls, empty lists and maps, empty strings, the zero values of fields that
    are not pointers, the template's creationTimestamp)."""
    out = copy.deepcopy(template)
    meta = _dict(out.get("metadata"))
    if meta is not None:
        meta.pop("creationTimestamp", None)
    spec = _dict(out.get("spec"))
    if spec is not None:
        canonical_quantities(spec)
    stored = _stored(out)
    assert isinstance(stored, dict)
    return stored
