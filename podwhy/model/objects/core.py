"""The core API group (v1): pods and what their specs name, nodes, persistent volumes and claims,
namespaces, LimitRanges, events, services, ReplicationControllers, ConfigMaps."""

from __future__ import annotations

from typing import Any

import msgspec

from podwhy.model.objects.meta import Int32, Int64, LabelSelector, ObjectMeta, ResourceList, _Base

# ---------------------------------------------------------------- node selectors and affinity


class NodeSelectorRequirement(_Base):
    key: str = ""
    operator: str = ""
    values: list[str] = []


class NodeSelectorTerm(_Base):
    match_expressions: list[NodeSelectorRequirement] = []
    match_fields: list[NodeSelectorRequirement] = []


class NodeSelector(_Base):
    node_selector_terms: list[NodeSelectorTerm] = []


class PreferredSchedulingTerm(_Base):
    weight: Int32 = 0
    preference: NodeSelectorTerm = msgspec.field(default_factory=NodeSelectorTerm)


class NodeAffinity(_Base):
    required_during_scheduling_ignored_during_execution: NodeSelector | None = None
    preferred_during_scheduling_ignored_during_execution: list[PreferredSchedulingTerm] = []


class PodAffinityTerm(_Base):
    label_selector: LabelSelector | None = None
    namespaces: list[str] = []
    topology_key: str = ""
    namespace_selector: LabelSelector | None = None
    match_label_keys: list[str] = []
    mismatch_label_keys: list[str] = []


class WeightedPodAffinityTerm(_Base):
    weight: Int32 = 0
    pod_affinity_term: PodAffinityTerm = msgspec.field(default_factory=PodAffinityTerm)


class PodAffinity(_Base):
    required_during_scheduling_ignored_during_execution: list[PodAffinityTerm] = []
    preferred_during_scheduling_ignored_during_execution: list[WeightedPodAffinityTerm] = []


class Affinity(_Base):
    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAffinity | None = None


# ---------------------------------------------------------------- pods


class Toleration(_Base):
    key: str = ""
    operator: str = ""
    value: str = ""
    effect: str = ""
    toleration_seconds: Int64 | None = None


class ContainerPort(_Base):
    container_port: Int32 = 0
    host_port: Int32 = 0
    protocol: str = ""
    host_ip: str = msgspec.field(default="", name="hostIP")
    name: str = ""


class ResourceClaimRef(_Base):
    name: str = ""
    request: str = ""


class ResourceRequirements(_Base):
    requests: ResourceList = {}
    limits: ResourceList = {}
    claims: list[ResourceClaimRef] = []


# One empty list shared by every container whose command line is dropped (never mutated).
_NO_WORDS: list[str] = []


class Opaque(_Base):
    """An object whose presence is read, never its fields (msgspec skips them when decoding)."""


# What PodSecurity admission reads of security contexts (pod-security-admission's checks).
class SELinuxOptions(_Base):
    user: str = ""
    role: str = ""
    type: str = ""


class SeccompProfile(_Base):
    type: str = ""


class AppArmorProfile(_Base):
    type: str = ""


class WindowsSecurityContextOptions(_Base):
    host_process: bool | None = None


class Capabilities(_Base):
    add: list[str] = []
    drop: list[str] = []


class Sysctl(_Base):
    name: str = ""


class SecurityContext(_Base):
    privileged: bool | None = None
    allow_privilege_escalation: bool | None = None
    run_as_non_root: bool | None = None
    run_as_user: Int64 | None = None
    capabilities: Capabilities | None = None
    proc_mount: str | None = None
    se_linux_options: SELinuxOptions | None = msgspec.field(default=None, name="seLinuxOptions")
    seccomp_profile: SeccompProfile | None = None
    app_armor_profile: AppArmorProfile | None = None
    windows_options: WindowsSecurityContextOptions | None = None


class PodSecurityContext(_Base):
    run_as_non_root: bool | None = None
    run_as_user: Int64 | None = None
    se_linux_options: SELinuxOptions | None = msgspec.field(default=None, name="seLinuxOptions")
    seccomp_profile: SeccompProfile | None = None
    app_armor_profile: AppArmorProfile | None = None
    windows_options: WindowsSecurityContextOptions | None = None
    sysctls: list[Sysctl] = []


class HostAddress(_Base):
    """An httpGet or tcpSocket action: the host it calls (empty: the pod's own IP)."""

    host: str = ""


class Handler(_Base):
    """A probe or a lifecycle hook: of its actions, those that may call another host."""

    http_get: HostAddress | None = None
    tcp_socket: HostAddress | None = None


def _calls_host(handler: Handler | None) -> bool:
    if handler is None:
        return False
    return bool(
        (handler.http_get is not None and handler.http_get.host)
        or (handler.tcp_socket is not None and handler.tcp_socket.host)
    )


class Lifecycle(_Base):
    post_start: Handler | None = None
    pre_stop: Handler | None = None


class ContainerRestartRule(_Base):
    # "Restart", "RestartAllContainers" (NodeDeclaredFeatures reads it, v1.36).
    action: str = ""


class Container(_Base):
    name: str = ""
    image: str = ""
    resources: ResourceRequirements = msgspec.field(default_factory=ResourceRequirements)
    ports: list[ContainerPort] = []
    restart_policy: str | None = None
    restart_policy_rules: list[ContainerRestartRule] = []
    # What a scheduler pod runs, and with which flags (podwhy pending: which schedulerName it serves).
    # Kept only where the image or a word mentions a scheduler: the command lines of every other
    # container would cost a large dump a third more memory, and nothing reads them.
    command: list[str] = []
    args: list[str] = []
    security_context: SecurityContext | None = None
    # Kept only where they call a host other than the pod (what PodSecurity's baseline forbids):
    # nothing else reads probes and hooks, which most containers of a dump have.
    liveness_probe: Handler | None = None
    readiness_probe: Handler | None = None
    startup_probe: Handler | None = None
    lifecycle: Lifecycle | None = None

    def __post_init__(self) -> None:
        if (self.command or self.args) and "sched" not in self.image:
            if not any("sched" in word for word in (*self.command, *self.args)):
                self.command = self.args = _NO_WORDS
        if self.liveness_probe is not None and not _calls_host(self.liveness_probe):
            self.liveness_probe = None
        if self.readiness_probe is not None and not _calls_host(self.readiness_probe):
            self.readiness_probe = None
        if self.startup_probe is not None and not _calls_host(self.startup_probe):
            self.startup_probe = None
        lifecycle = self.lifecycle
        if lifecycle is not None and not (_calls_host(lifecycle.post_start) or _calls_host(lifecycle.pre_stop)):
            self.lifecycle = None


class PVCVolumeSource(_Base):
    claim_name: str = ""
    read_only: bool = False


class GCEPersistentDiskVolumeSource(_Base):
    pd_name: str = ""
    read_only: bool = False


class AWSElasticBlockStoreVolumeSource(_Base):
    volume_id: str = msgspec.field(default="", name="volumeID")
    read_only: bool = False


class RBDVolumeSource(_Base):
    monitors: list[str] = []
    image: str = ""
    pool: str = ""
    read_only: bool = False


class ISCSIVolumeSource(_Base):
    target_portal: str = ""
    iqn: str = ""
    lun: Int32 = 0
    read_only: bool = False


class CSIVolumeSource(_Base):
    driver: str = ""
    read_only: bool = False


# In-tree sources that CSI migration can translate; NodeVolumeLimits and VolumeBinding read them.
class AzureDiskVolumeSource(_Base):
    disk_name: str = ""
    disk_uri: str = msgspec.field(default="", name="diskURI")
    caching_mode: str | None = None
    fs_type: str | None = None
    read_only: bool | None = None
    kind: str | None = None


class AzureFileVolumeSource(_Base):
    secret_name: str = ""
    share_name: str = ""
    read_only: bool = False


class CinderVolumeSource(_Base):
    volume_id: str = msgspec.field(default="", name="volumeID")
    read_only: bool = False


class VsphereVirtualDiskVolumeSource(_Base):
    volume_path: str = ""


class PortworxVolumeSource(_Base):
    volume_id: str = msgspec.field(default="", name="volumeID")
    read_only: bool = False


class PersistentVolumeClaimTemplate(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PersistentVolumeClaimSpec | None = None


class EphemeralVolumeSource(_Base):
    volume_claim_template: PersistentVolumeClaimTemplate | None = None


class ImageVolumeSource(_Base):
    reference: str = ""


class Volume(_Base):
    name: str = ""
    # An OCI image mounted as a volume (ImageLocality counts it from v1.36).
    image: ImageVolumeSource | None = None
    persistent_volume_claim: PVCVolumeSource | None = None
    ephemeral: EphemeralVolumeSource | None = None
    gce_persistent_disk: GCEPersistentDiskVolumeSource | None = None
    aws_elastic_block_store: AWSElasticBlockStoreVolumeSource | None = None
    rbd: RBDVolumeSource | None = None
    iscsi: ISCSIVolumeSource | None = None
    csi: CSIVolumeSource | None = None
    azure_disk: AzureDiskVolumeSource | None = None
    azure_file: AzureFileVolumeSource | None = None
    cinder: CinderVolumeSource | None = None
    vsphere_volume: VsphereVirtualDiskVolumeSource | None = None
    portworx_volume: PortworxVolumeSource | None = None
    # Sources no plugin reads: only which one a volume has matters (PodSecurity's volume types).
    host_path: Opaque | None = None
    empty_dir: Opaque | None = None
    secret: Opaque | None = None
    config_map: Opaque | None = None
    projected: Opaque | None = None
    downward_api: Opaque | None = msgspec.field(default=None, name="downwardAPI")
    git_repo: Opaque | None = None
    nfs: Opaque | None = None
    glusterfs: Opaque | None = None
    flex_volume: Opaque | None = None
    cephfs: Opaque | None = None
    flocker: Opaque | None = None
    fc: Opaque | None = None
    quobyte: Opaque | None = None
    photon_persistent_disk: Opaque | None = None
    scale_io: Opaque | None = msgspec.field(default=None, name="scaleIO")
    storageos: Opaque | None = None


# The volume sources the scheduler's plugins read (the others only name a kind of volume).
SCHEDULER_VOLUME_SOURCES = (
    "image",
    "persistent_volume_claim",
    "ephemeral",
    "gce_persistent_disk",
    "aws_elastic_block_store",
    "rbd",
    "iscsi",
    "csi",
    "azure_disk",
    "azure_file",
    "cinder",
    "vsphere_volume",
    "portworx_volume",
)


class TopologySpreadConstraint(_Base):
    max_skew: Int32 = 0
    topology_key: str = ""
    when_unsatisfiable: str = ""
    label_selector: LabelSelector | None = None
    min_domains: Int32 | None = None
    node_affinity_policy: str | None = None
    node_taints_policy: str | None = None
    match_label_keys: list[str] = []


class PodSchedulingGate(_Base):
    name: str = ""


class PodResourceClaim(_Base):
    name: str = ""
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None
    # Kubernetes 1.26-1.30 named the claim here (classic DRA); read only to refuse such a pod.
    source: dict[str, Any] | None = None


class PodSchedulingGroup(_Base):
    pod_group_name: str | None = None


class PodOS(_Base):
    name: str = ""


class PodSpec(_Base):
    node_name: str = ""
    node_selector: dict[str, str] = {}
    affinity: Affinity | None = None
    tolerations: list[Toleration] = []
    containers: list[Container] = []
    init_containers: list[Container] = []
    overhead: ResourceList = {}
    resources: ResourceRequirements | None = None
    priority: Int32 | None = None
    # How long victims of preemption may take to go.
    termination_grace_period_seconds: Int64 | None = None
    # Set, the pod is in a quota's Terminating scope (ResourceQuota admission).
    active_deadline_seconds: Int64 | None = None
    priority_class_name: str = ""
    preemption_policy: str | None = None
    scheduler_name: str = ""
    volumes: list[Volume] = []
    topology_spread_constraints: list[TopologySpreadConstraint] = []
    scheduling_gates: list[PodSchedulingGate] = []
    runtime_class_name: str | None = None
    host_network: bool = False
    host_pid: bool = msgspec.field(default=False, name="hostPID")
    host_ipc: bool = msgspec.field(default=False, name="hostIPC")
    security_context: PodSecurityContext | None = None
    # The OS the pod's containers need: the kubelet of another OS refuses it.
    os: PodOS | None = None
    # False: a user namespace (with hostNetwork, NodeDeclaredFeatures asks for node support, v1.36).
    host_users: bool | None = None
    # The pod group it belongs to (v1.36, GenericWorkload): gang scheduling is not simulated.
    scheduling_group: PodSchedulingGroup | None = None
    resource_claims: list[PodResourceClaim] = []


class ContainerStatusResources(_Base):
    requests: ResourceList = {}
    limits: ResourceList = {}


class ContainerStateWaiting(_Base):
    reason: str = ""
    message: str = ""


class ContainerStateRunning(_Base):
    started_at: str | None = None


class ContainerStateTerminated(_Base):
    reason: str = ""
    message: str = ""
    exit_code: Int32 = 0


class ContainerState(_Base):
    waiting: ContainerStateWaiting | None = None
    running: ContainerStateRunning | None = None
    terminated: ContainerStateTerminated | None = None


class ContainerStatus(_Base):
    name: str = ""
    resources: ContainerStatusResources | None = None
    allocated_resources: ResourceList = {}
    # Why a bound pod is not running yet.
    image: str = ""
    ready: bool = False
    state: ContainerState | None = None
    # The previous run (a crash-looping container's exit code and reason).
    last_state: ContainerState | None = None
    restart_count: Int32 = 0


class PodCondition(_Base):
    type: str = ""
    status: str = ""
    reason: str = ""
    message: str = ""
    last_transition_time: str | None = None


class PodResourceClaimStatus(_Base):
    name: str = ""
    resource_claim_name: str | None = None


class PodStatus(_Base):
    phase: str = ""
    nominated_node_name: str = ""
    # Preemption orders victims by it (util.GetPodStartTime).
    start_time: str | None = None
    conditions: list[PodCondition] = []
    container_statuses: list[ContainerStatus] = []
    init_container_statuses: list[ContainerStatus] = []
    resource_claim_statuses: list[PodResourceClaimStatus] = []
    resources: ContainerStatusResources | None = None


class Pod(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PodSpec = msgspec.field(default_factory=PodSpec)
    status: PodStatus = msgspec.field(default_factory=PodStatus)


# ---------------------------------------------------------------- nodes


class Taint(_Base):
    key: str = ""
    value: str = ""
    effect: str = ""
    time_added: str | None = None


class NodeSpec(_Base):
    unschedulable: bool = False
    taints: list[Taint] = []


class ContainerImage(_Base):
    names: list[str] = []
    size_bytes: Int64 = 0


class NodeCondition(_Base):
    type: str = ""
    status: str = ""
    # Why a node is NotReady ("Kubelet stopped posting node status.").
    reason: str = ""
    message: str = ""


class NodeSystemInfo(_Base):
    kubelet_version: str = ""
    # The kubelet's own runtime.GOOS, as it reports it.
    operating_system: str = ""


class NodeStatus(_Base):
    allocatable: ResourceList = {}
    capacity: ResourceList = {}
    images: list[ContainerImage] = []
    conditions: list[NodeCondition] = []
    # The features the kubelet declares (NodeDeclaredFeatures, v1.36).
    declared_features: list[str] = []
    node_info: NodeSystemInfo | None = None

    def __post_init__(self) -> None:
        # The API server keeps declaredFeatures sorted and unique (validateNodeDeclaredFeatures),
        # and the scheduler matches them as such.
        features = self.declared_features
        for i in range(1, len(features)):
            if features[i] == features[i - 1]:
                raise ValueError(f"declaredFeatures[{i}]: Duplicate value: {features[i]!r}")
            if features[i] < features[i - 1]:
                raise ValueError(
                    f"declaredFeatures[{i}]: Invalid value: {features[i]!r}: list must be sorted alphabetically"
                )


class Node(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: NodeSpec = msgspec.field(default_factory=NodeSpec)
    status: NodeStatus = msgspec.field(default_factory=NodeStatus)


# ---------------------------------------------------------------- persistent volumes and claims


class ObjectReference(_Base):
    kind: str = ""
    namespace: str = ""
    name: str = ""
    uid: str = ""


class VolumeNodeAffinity(_Base):
    required: NodeSelector | None = None


class LocalVolumeSource(_Base):
    path: str = ""


class HostPathVolumeSource(_Base):
    path: str = ""


class CSIPersistentVolumeSource(_Base):
    driver: str = ""
    volume_handle: str = ""
    read_only: bool = False


class PersistentVolumeSpec(_Base):
    capacity: ResourceList = {}
    access_modes: list[str] = []
    storage_class_name: str = ""
    claim_ref: ObjectReference | None = None
    node_affinity: VolumeNodeAffinity | None = None
    volume_mode: str | None = None
    persistent_volume_reclaim_policy: str = ""
    local: LocalVolumeSource | None = None
    host_path: HostPathVolumeSource | None = None
    csi: CSIPersistentVolumeSource | None = None
    gce_persistent_disk: GCEPersistentDiskVolumeSource | None = None
    aws_elastic_block_store: AWSElasticBlockStoreVolumeSource | None = None
    rbd: RBDVolumeSource | None = None
    iscsi: ISCSIVolumeSource | None = None
    azure_disk: AzureDiskVolumeSource | None = None
    azure_file: AzureFileVolumeSource | None = None
    cinder: CinderVolumeSource | None = None
    vsphere_volume: VsphereVirtualDiskVolumeSource | None = None
    portworx_volume: PortworxVolumeSource | None = None
    volume_attributes_class_name: str | None = None


class PersistentVolumeStatus(_Base):
    phase: str = ""


class PersistentVolume(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PersistentVolumeSpec = msgspec.field(default_factory=PersistentVolumeSpec)
    status: PersistentVolumeStatus = msgspec.field(default_factory=PersistentVolumeStatus)


class VolumeResourceRequirements(_Base):
    requests: ResourceList = {}
    limits: ResourceList = {}


class PersistentVolumeClaimSpec(_Base):
    access_modes: list[str] = []
    storage_class_name: str | None = None
    volume_name: str = ""
    resources: VolumeResourceRequirements = msgspec.field(default_factory=VolumeResourceRequirements)
    volume_mode: str | None = None
    selector: LabelSelector | None = None
    volume_attributes_class_name: str | None = None


class PersistentVolumeClaimStatus(_Base):
    phase: str = ""
    capacity: ResourceList = {}
    access_modes: list[str] = []


class PersistentVolumeClaim(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PersistentVolumeClaimSpec = msgspec.field(default_factory=PersistentVolumeClaimSpec)
    status: PersistentVolumeClaimStatus = msgspec.field(default_factory=PersistentVolumeClaimStatus)


class TopologySelectorLabelRequirement(_Base):
    key: str = ""
    values: list[str] = []


class TopologySelectorTerm(_Base):
    match_label_expressions: list[TopologySelectorLabelRequirement] = []


# ---------------------------------------------------------------- namespaces and their LimitRanges


class LimitRangeItem(_Base):
    type: str = ""  # Container, Pod or PersistentVolumeClaim
    max: ResourceList = {}
    min: ResourceList = {}
    default: ResourceList = {}
    default_request: ResourceList = {}
    max_limit_request_ratio: ResourceList = {}


class LimitRangeSpec(_Base):
    limits: list[LimitRangeItem] = []


class LimitRange(_Base):
    """A namespace's defaults and bounds for its pods' resources (LimitRanger admission)."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: LimitRangeSpec = msgspec.field(default_factory=LimitRangeSpec)


class ScopedResourceSelectorRequirement(_Base):
    scope_name: str = ""
    operator: str = ""  # In, NotIn, Exists, DoesNotExist
    values: list[str] = []


class ScopeSelector(_Base):
    match_expressions: list[ScopedResourceSelectorRequirement] = []


class ResourceQuotaSpec(_Base):
    hard: ResourceList = {}
    scopes: list[str] = []
    scope_selector: ScopeSelector | None = None


class ResourceQuotaStatus(_Base):
    hard: ResourceList = {}
    used: ResourceList = {}


class ResourceQuota(_Base):
    """A namespace's quota (ResourceQuota admission): its status is what the quota controller
    last counted, which the API server's admission checks a new pod against."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ResourceQuotaSpec = msgspec.field(default_factory=ResourceQuotaSpec)
    status: ResourceQuotaStatus = msgspec.field(default_factory=ResourceQuotaStatus)


class Namespace(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)


# ---------------------------------------------------------------- events


class EventSource(_Base):
    component: str = ""


class EventSeries(_Base):
    count: Int32 = 0
    last_observed_time: str | None = None


class Event(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    involved_object: ObjectReference = msgspec.field(default_factory=ObjectReference)
    reason: str = ""
    message: str = ""
    type: str = ""
    count: Int32 = 0
    first_timestamp: str | None = None
    last_timestamp: str | None = None
    # events.k8s.io recorders (the scheduler's) set these instead of count/lastTimestamp.
    event_time: str | None = None
    series: EventSeries | None = None
    reporting_component: str = ""
    source: EventSource | None = None
    # events.k8s.io/v1 names these differently (`kubectl get events.events.k8s.io`); decoding
    # moves them to their core/v1 names above, so every reader sees one shape.
    regarding: ObjectReference | None = None
    note: str = ""
    reporting_controller: str = ""
    deprecated_count: Int32 = 0
    deprecated_first_timestamp: str | None = None
    deprecated_last_timestamp: str | None = None
    deprecated_source: EventSource | None = None

    def __post_init__(self) -> None:
        if self.regarding is not None:
            if not self.involved_object.name:
                self.involved_object = self.regarding
            self.regarding = None
        if self.note:
            self.message = self.message or self.note
            self.note = ""
        if self.reporting_controller:
            self.reporting_component = self.reporting_component or self.reporting_controller
            self.reporting_controller = ""
        if self.deprecated_count:
            self.count = self.count or self.deprecated_count
            self.deprecated_count = 0
        if self.deprecated_first_timestamp is not None:
            self.first_timestamp = self.first_timestamp or self.deprecated_first_timestamp
            self.deprecated_first_timestamp = None
        if self.deprecated_last_timestamp is not None:
            self.last_timestamp = self.last_timestamp or self.deprecated_last_timestamp
            self.deprecated_last_timestamp = None
        if self.deprecated_source is not None:
            self.source = self.source or self.deprecated_source
            self.deprecated_source = None


# ---------------------------------------------------------------- workload owners (default spreading)


class ServiceSpec(_Base):
    selector: dict[str, str] = {}


class Service(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ServiceSpec = msgspec.field(default_factory=ServiceSpec)


class ReplicationControllerSpec(_Base):
    selector: dict[str, str] = {}


class ReplicationController(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ReplicationControllerSpec = msgspec.field(default_factory=ReplicationControllerSpec)


# ---------------------------------------------------------------- pod templates (podwhy check)


class PodTemplateSpec(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PodSpec = msgspec.field(default_factory=PodSpec)


class ReplicationControllerManifestSpec(_Base):
    replicas: Int32 | None = None
    # A plain label map (equality only); unset, the API server defaults it to the template's labels.
    selector: dict[str, str] = {}
    template: PodTemplateSpec = msgspec.field(default_factory=PodTemplateSpec)


class ReplicationControllerManifest(_Base):
    """A ReplicationController read from a manifest (not part of snapshots)."""

    api_version: str = ""
    kind: str = ""
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ReplicationControllerManifestSpec = msgspec.field(default_factory=ReplicationControllerManifestSpec)


# ---------------------------------------------------------------- autoscalers


class ConfigMap(_Base):
    """Only Cluster Autoscaler's status ConfigMap is ever kept (see kinds.AUTOSCALER_STATUS_CONFIGMAP):
    podwhy reads no other ConfigMap, whatever a dump holds."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    data: dict[str, str] = {}
