"""Every apiVersion of the kinds podwhy reads, and how each becomes the one typed model.

`VERSIONS` is the table: kind -> apiVersion -> how an object of that version is read. Most
versions are the model's own shape (`SAME`: decoded straight into it, as fast as ever). The
others are decoded into their own wire structs below and converted as the API server's
conversion functions convert them (kubernetes/kubernetes pkg/apis/resource/v1beta1,
v1alpha3 and pkg/apis/policy/v1beta1 conversion.go, with the versions' defaulting applied
first, as the server applies it before converting). A version that cannot be read exactly is
`Refused` with why. Anything else is an error naming the object: never a guess.

Versions are listed newest first: live mode lists a kind in the first one the server serves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from podwhy.model import objects as o
from podwhy.model.quantity import QuantityInput


class _Wire(msgspec.Struct, rename="camel", kw_only=True, omit_defaults=True, gc=False):
    pass


class Served(msgspec.Struct, frozen=True):
    """A version podwhy reads: decoded as WIRE (None: the model's own type), then CONVERTed."""

    wire: type[msgspec.Struct] | None = None
    convert: Callable[[Any], Any] | None = None


class Refused(msgspec.Struct, frozen=True):
    """A version podwhy cannot read exactly, and why (the end of a one-line error)."""

    why: str


SAME = Served()


class NotConvertible(Exception):  # noqa: N818 - a refusal, worded by the decoder
    """An object of an older version holds FIELD, which the model's version cannot hold one to one:
    the object is refused (typed.converted words it), never read as a guess."""

    def __init__(self, field: str, why: str) -> None:
        super().__init__(f"{field}: {why}")
        self.field = field
        self.why = why


# ---------------------------------------------------------------- resource.k8s.io v1beta1 and v1alpha3
# v1beta2 is v1's shape. v1beta1 (Kubernetes 1.32+) and v1alpha3 (1.31-1.33) wrap a device's
# fields in `basic` and put a request's fields on the request itself (v1 has them under
# `exactly`); v1alpha3 gives a capacity as a bare quantity, v1beta1 as {value: quantity}.


class BasicDeviceV1alpha3(_Wire):
    attributes: dict[str, o.DeviceAttribute] = {}
    capacity: dict[str, QuantityInput] = {}
    consumes_counters: list[Any] = []
    node_name: str | None = None
    node_selector: o.NodeSelector | None = None
    all_nodes: bool | None = None
    taints: list[Any] = []


class BasicDeviceV1beta1(_Wire):
    attributes: dict[str, o.DeviceAttribute] = {}
    capacity: dict[str, o.DeviceCapacity] = {}
    consumes_counters: list[Any] = []
    node_name: str | None = None
    node_selector: o.NodeSelector | None = None
    all_nodes: bool | None = None
    taints: list[Any] = []
    binds_to_node: bool | None = None
    binding_conditions: list[str] = []
    binding_failure_conditions: list[str] = []
    allow_multiple_allocations: bool | None = None


class DeviceV1alpha3(_Wire):
    name: str = ""
    basic: BasicDeviceV1alpha3 | None = None


class DeviceV1beta1(_Wire):
    name: str = ""
    basic: BasicDeviceV1beta1 | None = None


class ResourceSliceSpecV1alpha3(_Wire):
    driver: str = ""
    pool: o.ResourcePool = msgspec.field(default_factory=o.ResourcePool)
    # Plain string and bool in these versions; unset is "" and false.
    node_name: str = ""
    node_selector: o.NodeSelector | None = None
    all_nodes: bool = False
    devices: list[DeviceV1alpha3] = []
    per_device_node_selection: bool | None = None
    shared_counters: list[Any] = []


class ResourceSliceSpecV1beta1(_Wire):
    driver: str = ""
    pool: o.ResourcePool = msgspec.field(default_factory=o.ResourcePool)
    node_name: str = ""
    node_selector: o.NodeSelector | None = None
    all_nodes: bool = False
    devices: list[DeviceV1beta1] = []
    per_device_node_selection: bool | None = None
    shared_counters: list[Any] = []


class ResourceSliceV1alpha3(_Wire):
    metadata: o.ObjectMeta = msgspec.field(default_factory=o.ObjectMeta)
    spec: ResourceSliceSpecV1alpha3 = msgspec.field(default_factory=ResourceSliceSpecV1alpha3)


class ResourceSliceV1beta1(_Wire):
    metadata: o.ObjectMeta = msgspec.field(default_factory=o.ObjectMeta)
    spec: ResourceSliceSpecV1beta1 = msgspec.field(default_factory=ResourceSliceSpecV1beta1)


class DeviceRequestV1alpha3(_Wire):
    """A request with its ExactDeviceRequest fields on itself. A list that is null or absent
    is unset (Go's nil), unlike an empty one: it decides whether the request is `exactly`."""

    name: str = ""
    device_class_name: str = ""
    selectors: list[o.DeviceSelector] | None = None
    allocation_mode: str = ""
    count: o.Int64 | None = None
    admin_access: bool | None = None
    first_available: list[o.DeviceSubRequest] = []
    tolerations: list[Any] | None = None


class DeviceRequestV1beta1(DeviceRequestV1alpha3):
    capacity: o.CapacityRequirements | None = None


class DeviceClaimV1alpha3(_Wire):
    requests: list[DeviceRequestV1alpha3] = []
    constraints: list[o.DeviceConstraint] = []
    config: list[Any] = []


class DeviceClaimV1beta1(_Wire):
    requests: list[DeviceRequestV1beta1] = []
    constraints: list[o.DeviceConstraint] = []
    config: list[Any] = []


class ResourceClaimSpecV1alpha3(_Wire):
    devices: DeviceClaimV1alpha3 = msgspec.field(default_factory=DeviceClaimV1alpha3)


class ResourceClaimSpecV1beta1(_Wire):
    devices: DeviceClaimV1beta1 = msgspec.field(default_factory=DeviceClaimV1beta1)


class ResourceClaimV1alpha3(_Wire):
    metadata: o.ObjectMeta = msgspec.field(default_factory=o.ObjectMeta)
    spec: ResourceClaimSpecV1alpha3 = msgspec.field(default_factory=ResourceClaimSpecV1alpha3)
    status: o.ResourceClaimStatus = msgspec.field(default_factory=o.ResourceClaimStatus)


class ResourceClaimV1beta1(_Wire):
    metadata: o.ObjectMeta = msgspec.field(default_factory=o.ObjectMeta)
    spec: ResourceClaimSpecV1beta1 = msgspec.field(default_factory=ResourceClaimSpecV1beta1)
    status: o.ResourceClaimStatus = msgspec.field(default_factory=o.ResourceClaimStatus)


class ResourceClaimTemplateSpecV1alpha3(_Wire):
    metadata: o.ObjectMeta = msgspec.field(default_factory=o.ObjectMeta)
    spec: ResourceClaimSpecV1alpha3 = msgspec.field(default_factory=ResourceClaimSpecV1alpha3)


class ResourceClaimTemplateSpecV1beta1(_Wire):
    metadata: o.ObjectMeta = msgspec.field(default_factory=o.ObjectMeta)
    spec: ResourceClaimSpecV1beta1 = msgspec.field(default_factory=ResourceClaimSpecV1beta1)


class ResourceClaimTemplateV1alpha3(_Wire):
    metadata: o.ObjectMeta = msgspec.field(default_factory=o.ObjectMeta)
    spec: ResourceClaimTemplateSpecV1alpha3 = msgspec.field(default_factory=ResourceClaimTemplateSpecV1alpha3)


class ResourceClaimTemplateV1beta1(_Wire):
    metadata: o.ObjectMeta = msgspec.field(default_factory=o.ObjectMeta)
    spec: ResourceClaimTemplateSpecV1beta1 = msgspec.field(default_factory=ResourceClaimTemplateSpecV1beta1)


def _device_v1alpha3(device: DeviceV1alpha3) -> o.Device:
    basic = device.basic
    if basic is None:
        return o.Device(name=device.name)
    return o.Device(
        name=device.name,
        attributes=basic.attributes,
        capacity={name: o.DeviceCapacity(value=value) for name, value in basic.capacity.items()},
        consumes_counters=basic.consumes_counters,
        node_name=basic.node_name,
        node_selector=basic.node_selector,
        all_nodes=basic.all_nodes,
        taints=basic.taints,
    )


def _device_v1beta1(device: DeviceV1beta1) -> o.Device:
    basic = device.basic
    if basic is None:
        return o.Device(name=device.name)
    return o.Device(
        name=device.name,
        attributes=basic.attributes,
        capacity=basic.capacity,
        consumes_counters=basic.consumes_counters,
        node_name=basic.node_name,
        node_selector=basic.node_selector,
        all_nodes=basic.all_nodes,
        taints=basic.taints,
        binds_to_node=basic.binds_to_node,
        binding_conditions=basic.binding_conditions,
        binding_failure_conditions=basic.binding_failure_conditions,
        allow_multiple_allocations=basic.allow_multiple_allocations,
    )


def _slice_spec(
    spec: ResourceSliceSpecV1alpha3 | ResourceSliceSpecV1beta1, devices: list[o.Device]
) -> o.ResourceSliceSpec:
    return o.ResourceSliceSpec(
        driver=spec.driver,
        pool=spec.pool,
        node_name=spec.node_name or None,
        node_selector=spec.node_selector,
        all_nodes=True if spec.all_nodes else None,
        devices=devices,
        per_device_node_selection=spec.per_device_node_selection,
        shared_counters=spec.shared_counters,
    )


def slice_from_v1alpha3(obj: ResourceSliceV1alpha3) -> o.ResourceSlice:
    devices = [_device_v1alpha3(d) for d in obj.spec.devices]
    return o.ResourceSlice(metadata=obj.metadata, spec=_slice_spec(obj.spec, devices))


def slice_from_v1beta1(obj: ResourceSliceV1beta1) -> o.ResourceSlice:
    devices = [_device_v1beta1(d) for d in obj.spec.devices]
    return o.ResourceSlice(metadata=obj.metadata, spec=_slice_spec(obj.spec, devices))


def _request(request: DeviceRequestV1alpha3) -> o.DeviceRequest:
    """Convert_v1beta1_DeviceRequest_To_resource_DeviceRequest, after SetDefaults_DeviceRequest."""
    mode, count = request.allocation_mode, request.count or 0
    if request.device_class_name:
        mode = mode or o.ALLOCATION_MODE_EXACT_COUNT
        if mode == o.ALLOCATION_MODE_EXACT_COUNT and count == 0:
            count = 1
    capacity = request.capacity if isinstance(request, DeviceRequestV1beta1) else None
    exact = None
    if (  # hasAnyMainRequestFieldsSet
        request.device_class_name
        or request.selectors is not None
        or mode
        or count != 0
        or request.admin_access is not None
        or request.tolerations is not None
        or capacity is not None
    ):
        exact = o.ExactDeviceRequest(
            device_class_name=request.device_class_name,
            selectors=request.selectors or [],
            allocation_mode=mode,
            count=count or None,
            admin_access=request.admin_access,
            tolerations=request.tolerations or [],
            capacity=capacity,
        )
    return o.DeviceRequest(name=request.name, exactly=exact, first_available=request.first_available)


def _claim_spec(spec: ResourceClaimSpecV1alpha3 | ResourceClaimSpecV1beta1) -> o.ResourceClaimSpec:
    devices = spec.devices
    return o.ResourceClaimSpec(
        devices=o.DeviceClaim(
            requests=[_request(r) for r in devices.requests], constraints=devices.constraints, config=devices.config
        )
    )


def claim_from_old(obj: ResourceClaimV1alpha3 | ResourceClaimV1beta1) -> o.ResourceClaim:
    return o.ResourceClaim(metadata=obj.metadata, spec=_claim_spec(obj.spec), status=obj.status)


def claim_template_from_old(
    obj: ResourceClaimTemplateV1alpha3 | ResourceClaimTemplateV1beta1,
) -> o.ResourceClaimTemplate:
    spec = o.ResourceClaimTemplateSpec(metadata=obj.spec.metadata, spec=_claim_spec(obj.spec.spec))
    return o.ResourceClaimTemplate(metadata=obj.metadata, spec=spec)


# ---------------------------------------------------------------- policy/v1beta1 PodDisruptionBudget
# In policy/v1beta1 an empty selector selects no pod; in policy/v1 it selects every pod. The API
# server keeps each meaning across versions with a label no pod carries (pkg/apis/policy).

PDB_V1BETA1_LABEL = "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match"


def pdb_from_v1beta1(pdb: o.PodDisruptionBudget) -> o.PodDisruptionBudget:
    """Convert_v1beta1_PodDisruptionBudget_To_policy_PodDisruptionBudget."""
    selector = pdb.spec.selector
    if selector is None:
        return pdb
    match_all = [o.LabelSelectorRequirement(key=PDB_V1BETA1_LABEL, operator="DoesNotExist")]
    if not selector.match_labels and not selector.match_expressions:
        match_none = [o.LabelSelectorRequirement(key=PDB_V1BETA1_LABEL, operator="Exists")]
        pdb.spec.selector = o.LabelSelector(match_expressions=match_none)
    elif not selector.match_labels and selector.match_expressions == match_all:
        pdb.spec.selector = o.LabelSelector()
    else:
        selector.match_expressions = [e for e in selector.match_expressions if e.key != PDB_V1BETA1_LABEL]
    return pdb


# ---------------------------------------------------------------- kueue.x-k8s.io v1beta1
# Kueue serves v1beta1 beside v1beta2 (0.15 and later; before, v1beta1 only) and converts between
# them (apis/kueue/v1beta1/*_conversion.go). Where the fields the model reads are the same in both,
# v1beta1 reads as v1beta2 (SAME); ClusterQueues and Workloads are converted as Kueue converts them.


def _copy(cls: type[msgspec.Struct], obj: msgspec.Struct, **changes: Any) -> Any:
    """OBJ as a CLS (a struct it extends), with CHANGES."""
    fields = {name: getattr(obj, name) for name in cls.__struct_fields__}
    return cls(**(fields | changes))


class ClusterQueueSpecV1beta1(o.ClusterQueueSpec, kw_only=True):
    cohort: str = ""
    admission_checks: list[str] = []  # noqa: RUF012 - a msgspec field's default, copied per object


class ClusterQueueV1beta1(_Wire):
    metadata: o.ObjectMeta = msgspec.field(default_factory=o.ObjectMeta)
    spec: ClusterQueueSpecV1beta1 = msgspec.field(default_factory=ClusterQueueSpecV1beta1)
    status: o.ClusterQueueStatus = msgspec.field(default_factory=o.ClusterQueueStatus)


class KueueWorkloadSpecV1beta1(o.KueueWorkloadSpec, kw_only=True):
    priority_class_name: str = ""
    priority_class_source: str = ""


class KueueWorkloadV1beta1(_Wire):
    metadata: o.ObjectMeta = msgspec.field(default_factory=o.ObjectMeta)
    spec: KueueWorkloadSpecV1beta1 = msgspec.field(default_factory=KueueWorkloadSpecV1beta1)
    status: o.KueueWorkloadStatus = msgspec.field(default_factory=o.KueueWorkloadStatus)


# v1beta1's flavorFungibility values v1beta2 dropped, and what Kueue's conversion makes of them.
KUEUE_V1BETA1_FUNGIBILITY = {"Borrow": "MayStopSearch", "Preempt": "MayStopSearch"}
# v1beta1's spec.priorityClassSource values: the priorityClassRef (group, kind) each becomes.
KUEUE_V1BETA1_PRIORITY_SOURCES = {
    "kueue.x-k8s.io/workloadpriorityclass": ("kueue.x-k8s.io", "WorkloadPriorityClass"),
    "scheduling.k8s.io/priorityclass": ("scheduling.k8s.io", "PriorityClass"),
}


def cluster_queue_from_v1beta1(obj: ClusterQueueV1beta1) -> o.ClusterQueue:
    """Convert_v1beta1_ClusterQueueSpec_To_v1beta2_ClusterQueueSpec: `cohort` is `cohortName`,
    `admissionChecks` rules of `admissionChecksStrategy` for every flavor, and flavorFungibility's
    Borrow and Preempt are MayStopSearch."""
    spec = obj.spec
    strategy = spec.admission_checks_strategy
    if spec.admission_checks:
        if strategy is not None:
            raise NotConvertible(
                "spec.admissionChecks",
                "set with spec.admissionChecksStrategy, which Kueue's validation forbids; v1beta2 holds one of them",
            )
        rules = [o.AdmissionCheckStrategyRule(name=name) for name in spec.admission_checks]
        strategy = o.AdmissionChecksStrategy(admission_checks=rules)
    fungibility = spec.flavor_fungibility
    fungibility = msgspec.structs.replace(
        fungibility,
        when_can_borrow=KUEUE_V1BETA1_FUNGIBILITY.get(fungibility.when_can_borrow, fungibility.when_can_borrow),
        when_can_preempt=KUEUE_V1BETA1_FUNGIBILITY.get(fungibility.when_can_preempt, fungibility.when_can_preempt),
    )
    out_spec = _copy(
        o.ClusterQueueSpec,
        spec,
        cohort_name=spec.cohort,
        admission_checks_strategy=strategy,
        flavor_fungibility=fungibility,
    )
    return o.ClusterQueue(metadata=obj.metadata, spec=out_spec, status=obj.status)


def kueue_workload_from_v1beta1(obj: KueueWorkloadV1beta1) -> o.KueueWorkload:
    """Convert_v1beta1_WorkloadSpec_To_v1beta2_WorkloadSpec: priorityClassName and
    priorityClassSource are priorityClassRef (none when the source is "", as Kueue converts it)."""
    spec = obj.spec
    ref = None
    source = spec.priority_class_source
    if source:
        group_kind = KUEUE_V1BETA1_PRIORITY_SOURCES.get(source)
        if group_kind is None:
            known = " nor ".join(KUEUE_V1BETA1_PRIORITY_SOURCES)
            raise NotConvertible(
                "spec.priorityClassSource", f"{source!r} is neither {known}: v1beta2 has no ref for it"
            )
        ref = o.PriorityClassRef(group=group_kind[0], kind=group_kind[1], name=spec.priority_class_name)
    out_spec = _copy(o.KueueWorkloadSpec, spec, priority_class_ref=ref)
    return o.KueueWorkload(metadata=obj.metadata, spec=out_spec, status=obj.status)


# ---------------------------------------------------------------- admissionregistration.k8s.io
# ValidatingAdmissionPolicies and MutatingAdmissionPolicies have one shape in v1, v1beta1 and
# v1alpha1; v1alpha1 alone defaults a binding's paramRef.parameterNotFoundAction (to Deny,
# pkg/apis/admissionregistration/v1alpha1 SetDefaults_ParamRef), which the later versions require.


def binding_from_v1alpha1(
    binding: o.ValidatingAdmissionPolicyBinding | o.MutatingAdmissionPolicyBinding,
) -> o.ValidatingAdmissionPolicyBinding | o.MutatingAdmissionPolicyBinding:
    """A v1alpha1 binding with SetDefaults_ParamRef applied."""
    ref = binding.spec.param_ref
    if ref is not None and ref.parameter_not_found_action is None:
        ref.parameter_not_found_action = o.V1ALPHA1_PARAMETER_NOT_FOUND_ACTION
    return binding


WEBHOOKS_V1BETA1 = (
    "admissionregistration.k8s.io/v1beta1 webhook configurations are served by Kubernetes 1.21 and "
    "older only, and default otherwise (failurePolicy Ignore, matchPolicy Exact, timeoutSeconds 30): "
    "podwhy reads admissionregistration.k8s.io/v1"
)


# ---------------------------------------------------------------- the table

CLASSIC_DRA = (
    "resource.k8s.io/v1alpha2 is the classic dynamic resource allocation of Kubernetes 1.26-1.30 "
    "(ResourceClasses, driver controllers), which kube-scheduler 1.35 does not implement: "
    "a cluster must serve resource.k8s.io/v1alpha3 or newer for podwhy to read its DRA objects"
)
# A v1 Pod of those versions names its claims under `source`, a field 1.31 removed (no conversion).
CLASSIC_DRA_POD = (
    "a pod of the classic dynamic resource allocation of Kubernetes 1.26-1.30, which kube-scheduler "
    "1.35 does not implement (since 1.31 a pod names its claim in resourceClaimName or resourceClaimTemplateName)"
)
_DRA = "resource.k8s.io"
_ADM = o.ADMISSIONREGISTRATION_GROUP
_ADM_POLICY: dict[str, Served | Refused] = {f"{_ADM}/v1": SAME, f"{_ADM}/v1beta1": SAME, f"{_ADM}/v1alpha1": SAME}
_ADM_BINDING: dict[str, Served | Refused] = {
    f"{_ADM}/v1": SAME,
    f"{_ADM}/v1beta1": SAME,
    f"{_ADM}/v1alpha1": Served(convert=binding_from_v1alpha1),
}
_ADM_WEBHOOKS: dict[str, Served | Refused] = {f"{_ADM}/v1": SAME, f"{_ADM}/v1beta1": Refused(WEBHOOKS_V1BETA1)}
_KUEUE = "kueue.x-k8s.io"
KUEUE_V1ALPHA1 = (
    "kueue.x-k8s.io/v1alpha1 is the alpha API of Kueue before 0.13 (Cohorts) and 0.14 (Topologies): "
    "podwhy reads kueue.x-k8s.io/v1beta2 and v1beta1"
)
_KUEUE_BOTH: dict[str, Served | Refused] = {f"{_KUEUE}/v1beta2": SAME, f"{_KUEUE}/v1beta1": SAME}

VERSIONS: dict[str, dict[str, Served | Refused]] = {
    "Node": {"v1": SAME},
    "Pod": {"v1": SAME},
    "PersistentVolume": {"v1": SAME},
    "PersistentVolumeClaim": {"v1": SAME},
    "Namespace": {"v1": SAME},
    "Service": {"v1": SAME},
    "LimitRange": {"v1": SAME},
    "ResourceQuota": {"v1": SAME},
    "ReplicationController": {"v1": SAME},
    # The model reads core/v1 and events.k8s.io Events alike (see objects.Event).
    "Event": {"v1": SAME, "events.k8s.io/v1": SAME, "events.k8s.io/v1beta1": SAME},
    "StorageClass": {"storage.k8s.io/v1": SAME},
    "CSINode": {"storage.k8s.io/v1": SAME},
    "CSIDriver": {"storage.k8s.io/v1": SAME},
    "VolumeAttachment": {"storage.k8s.io/v1": SAME},
    "CSIStorageCapacity": {"storage.k8s.io/v1": SAME, "storage.k8s.io/v1beta1": SAME},
    "PriorityClass": {"scheduling.k8s.io/v1": SAME},
    "RuntimeClass": {"node.k8s.io/v1": SAME},
    "PodDisruptionBudget": {"policy/v1": SAME, "policy/v1beta1": Served(convert=pdb_from_v1beta1)},
    "ReplicaSet": {"apps/v1": SAME},
    "StatefulSet": {"apps/v1": SAME},
    "Deployment": {"apps/v1": SAME},
    "DaemonSet": {"apps/v1": SAME},
    "Job": {"batch/v1": SAME},
    "CronJob": {"batch/v1": SAME, "batch/v1beta1": SAME},
    "DeviceClass": {f"{_DRA}/v1": SAME, f"{_DRA}/v1beta2": SAME, f"{_DRA}/v1beta1": SAME, f"{_DRA}/v1alpha3": SAME},
    "ResourceSlice": {
        f"{_DRA}/v1": SAME,
        f"{_DRA}/v1beta2": SAME,
        f"{_DRA}/v1beta1": Served(ResourceSliceV1beta1, slice_from_v1beta1),
        f"{_DRA}/v1alpha3": Served(ResourceSliceV1alpha3, slice_from_v1alpha3),
        f"{_DRA}/v1alpha2": Refused(CLASSIC_DRA),
    },
    "ResourceClaim": {
        f"{_DRA}/v1": SAME,
        f"{_DRA}/v1beta2": SAME,
        f"{_DRA}/v1beta1": Served(ResourceClaimV1beta1, claim_from_old),
        f"{_DRA}/v1alpha3": Served(ResourceClaimV1alpha3, claim_from_old),
        f"{_DRA}/v1alpha2": Refused(CLASSIC_DRA),
    },
    "Workload": {"scheduling.k8s.io/v1alpha2": SAME},
    # Autoscalers: Cluster Autoscaler's status ConfigMap; Karpenter's v1 API (v1.0 and later).
    "ConfigMap": {"v1": SAME},
    "NodePool": {"karpenter.sh/v1": SAME},
    "NodeClaim": {"karpenter.sh/v1": SAME},
    "PodGroup": {"scheduling.k8s.io/v1alpha2": SAME},
    "ResourceClaimTemplate": {
        f"{_DRA}/v1": SAME,
        f"{_DRA}/v1beta2": SAME,
        f"{_DRA}/v1beta1": Served(ResourceClaimTemplateV1beta1, claim_template_from_old),
        f"{_DRA}/v1alpha3": Served(ResourceClaimTemplateV1alpha3, claim_template_from_old),
        f"{_DRA}/v1alpha2": Refused(CLASSIC_DRA),
    },
    # Kueue (kueue.x-k8s.io): v1beta2 is the model's; v1beta1 as Kueue converts it (above).
    "ResourceFlavor": _KUEUE_BOTH,
    "ClusterQueue": {
        f"{_KUEUE}/v1beta2": SAME,
        f"{_KUEUE}/v1beta1": Served(ClusterQueueV1beta1, cluster_queue_from_v1beta1),
    },
    "Cohort": {**_KUEUE_BOTH, f"{_KUEUE}/v1alpha1": Refused(KUEUE_V1ALPHA1)},
    "LocalQueue": _KUEUE_BOTH,
    o.KUEUE_WORKLOAD: {
        f"{_KUEUE}/v1beta2": SAME,
        f"{_KUEUE}/v1beta1": Served(KueueWorkloadV1beta1, kueue_workload_from_v1beta1),
    },
    "WorkloadPriorityClass": _KUEUE_BOTH,
    "AdmissionCheck": _KUEUE_BOTH,
    "Topology": {**_KUEUE_BOTH, f"{_KUEUE}/v1alpha1": Refused(KUEUE_V1ALPHA1)},
    # admissionregistration.k8s.io: the policies in every version a release serves (one shape).
    "ValidatingAdmissionPolicy": _ADM_POLICY,
    "ValidatingAdmissionPolicyBinding": _ADM_BINDING,
    "MutatingAdmissionPolicy": _ADM_POLICY,
    "MutatingAdmissionPolicyBinding": _ADM_BINDING,
    "ValidatingWebhookConfiguration": _ADM_WEBHOOKS,
    "MutatingWebhookConfiguration": _ADM_WEBHOOKS,
}


def group_of(api_version: str) -> str:
    """The API group of an apiVersion ("" for the core group's "v1")."""
    return api_version.rpartition("/")[0]


def is_builtin_group(group: str) -> bool:
    """Whether GROUP is one of Kubernetes' own: a custom resource's group has a dot and is not a
    *.k8s.io group (so a Knative `Service` or a Volcano `Job` is a kind of its own)."""
    return "." not in group or group.endswith(".k8s.io")


def read_versions(kind: str) -> list[str]:
    """The apiVersions podwhy reads KIND in, newest first."""
    return [v for v, how in VERSIONS.get(kind, {}).items() if isinstance(how, Served)]


def unknown_version(kind: str, api_version: str) -> str:
    """Why an apiVersion of KIND that the table does not hold is not read."""
    return f"apiVersion {api_version} is not one podwhy reads {kind} in (it reads {', '.join(read_versions(kind))})"


def no_version(kind: str) -> str | None:
    """Why an object of KIND without an apiVersion cannot be read (None: every version reads alike)."""
    twins = sorted(key for key in VERSIONS if key.partition(".")[0] == kind and key != kind)
    if twins:  # scheduling.k8s.io's Workload, or Kueue's (kinds.table_kind)
        groups = ", ".join(group_of(v) for key in (kind, *twins) for v in read_versions(key)[:1])
        return (
            f"it has no apiVersion, and {kind} is a kind of several API groups ({groups}) "
            "(kubectl refuses such an object too)"
        )
    readings = [how for how in VERSIONS.get(kind, {}).values() if isinstance(how, Served)]
    if all(how is SAME for how in readings):
        return None
    return (
        f"it has no apiVersion, and {kind} reads differently in {', '.join(read_versions(kind))} "
        "(kubectl refuses such an object too)"
    )
