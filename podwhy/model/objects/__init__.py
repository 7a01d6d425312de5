"""Typed views of the Kubernetes objects podwhy reads.

Only the fields the scheduler's plugins (and the report) use are declared; msgspec
skips everything else while decoding, which keeps large dumps fast and small.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any

import msgspec

from podwhy.model.quantity import QuantityInput

ResourceList = dict[str, QuantityInput]

# Go's int32 and int64: the API server rejects a value outside its field's range, and so does
# decoding (a one-line error naming the field).
Int32 = Annotated[int, msgspec.Meta(ge=-(2**31), le=2**31 - 1)]
Int64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]


class _Base(msgspec.Struct, rename="camel", kw_only=True, omit_defaults=True, gc=False):
    pass


# ---------------------------------------------------------------- metadata


class OwnerReference(_Base):
    kind: str = ""
    name: str = ""
    uid: str = ""
    controller: bool | None = None
    api_version: str = ""


class ObjectMeta(_Base):
    name: str = ""
    namespace: str = ""
    uid: str = ""
    # Which version of the object this is: when two inputs hold one object, the newer is read.
    resource_version: str = ""
    labels: dict[str, str] = {}
    annotations: dict[str, str] = {}
    deletion_timestamp: str | None = None
    creation_timestamp: str | None = None
    owner_references: list[OwnerReference] = []
    generate_name: str = ""
    # Set with deletionTimestamp, which is the end of this grace period (not when deletion began).
    deletion_grace_period_seconds: Int64 | None = None


# ---------------------------------------------------------------- selectors


class LabelSelectorRequirement(_Base):
    key: str = ""
    operator: str = ""
    values: list[str] = []


class LabelSelector(_Base):
    match_labels: dict[str, str] = {}
    match_expressions: list[LabelSelectorRequirement] = []


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

    def __post_init__(self) -> None:
        if (self.command or self.args) and "sched" not in self.image:
            if not any("sched" in word for word in (*self.command, *self.args)):
                self.command = self.args = _NO_WORDS


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
    priority_class_name: str = ""
    preemption_policy: str | None = None
    scheduler_name: str = ""
    volumes: list[Volume] = []
    topology_spread_constraints: list[TopologySpreadConstraint] = []
    scheduling_gates: list[PodSchedulingGate] = []
    runtime_class_name: str | None = None
    host_network: bool = False
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


# ---------------------------------------------------------------- storage


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


class StorageClass(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    provisioner: str = ""
    volume_binding_mode: str | None = None
    allowed_topologies: list[TopologySelectorTerm] = []
    parameters: dict[str, str] = {}


class VolumeNodeResources(_Base):
    count: Int32 | None = None


class CSINodeDriver(_Base):
    name: str = ""
    node_id: str = msgspec.field(default="", name="nodeID")
    topology_keys: list[str] = []
    allocatable: VolumeNodeResources | None = None


class CSINodeSpec(_Base):
    drivers: list[CSINodeDriver] = []


class CSINode(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: CSINodeSpec = msgspec.field(default_factory=CSINodeSpec)


class CSIDriverSpec(_Base):
    attach_required: bool | None = None
    storage_capacity: bool | None = None


class CSIDriver(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: CSIDriverSpec = msgspec.field(default_factory=CSIDriverSpec)


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


class VolumeAttachmentSource(_Base):
    # The attached PersistentVolume (an inline volume's spec is not read: the scheduler skips it).
    persistent_volume_name: str | None = None


class VolumeAttachmentSpec(_Base):
    attacher: str = ""
    source: VolumeAttachmentSource = msgspec.field(default_factory=VolumeAttachmentSource)
    node_name: str = ""


class VolumeAttachment(_Base):
    """A CSI volume attached (or attaching, or still detaching) to a node: NodeVolumeLimits
    counts it against the node's limit even when no pod uses the volume any more."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: VolumeAttachmentSpec = msgspec.field(default_factory=VolumeAttachmentSpec)


class CSIStorageCapacity(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    storage_class_name: str = ""
    node_topology: LabelSelector | None = None
    capacity: QuantityInput | None = None
    maximum_volume_size: QuantityInput | None = None


# ---------------------------------------------------------------- cluster policy objects


class Namespace(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)


class PriorityClass(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    value: Int32 = 0
    global_default: bool = False
    preemption_policy: str | None = None


class RuntimeClassOverhead(_Base):
    pod_fixed: ResourceList = {}


class RuntimeClassScheduling(_Base):
    node_selector: dict[str, str] = {}
    tolerations: list[Toleration] = []


class RuntimeClass(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    handler: str = ""
    overhead: RuntimeClassOverhead | None = None
    scheduling: RuntimeClassScheduling | None = None


class PodDisruptionBudgetSpec(_Base):
    min_available: Int32 | str | None = None
    max_unavailable: Int32 | str | None = None
    selector: LabelSelector | None = None


class PodDisruptionBudgetStatus(_Base):
    disruptions_allowed: Int32 = 0
    current_healthy: Int32 = 0
    desired_healthy: Int32 = 0
    expected_pods: Int32 = 0
    disrupted_pods: dict[str, str] = {}


class PodDisruptionBudget(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PodDisruptionBudgetSpec = msgspec.field(default_factory=PodDisruptionBudgetSpec)
    status: PodDisruptionBudgetStatus = msgspec.field(default_factory=PodDisruptionBudgetStatus)


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


class SelectorSpec(_Base):
    selector: LabelSelector | None = None


class ReplicaSet(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: SelectorSpec = msgspec.field(default_factory=SelectorSpec)


class RollingUpdateStatefulSetStrategy(_Base):
    # Ordinals below the partition keep the current revision, even when recreated.
    partition: Int32 | None = None


class StatefulSetUpdateStrategy(_Base):
    type: str = ""  # RollingUpdate (the default) or OnDelete
    rolling_update: RollingUpdateStatefulSetStrategy | None = None


class StatefulSetSpec(_Base):
    selector: LabelSelector | None = None
    # OrderedReady (the default) or Parallel: whether a Pending pod blocks the controller (suggestions).
    pod_management_policy: str = ""
    update_strategy: StatefulSetUpdateStrategy = msgspec.field(default_factory=StatefulSetUpdateStrategy)


class StatefulSet(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: StatefulSetSpec = msgspec.field(default_factory=StatefulSetSpec)


class JobSpec(_Base):
    # True: the user wrote the selector and the template's labels; none of them were generated.
    manual_selector: bool | None = None


class Job(_Base):
    """A Job of the snapshot: only what names a pod's owner (its CronJob) and how to recreate it."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: JobSpec = msgspec.field(default_factory=JobSpec)


class CronJob(_Base):
    """A CronJob of the snapshot: only its name (the owner its Jobs' pods are grouped under)."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)


# ---------------------------------------------------------------- workload templates (podwhy check)


class PodTemplateSpec(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PodSpec = msgspec.field(default_factory=PodSpec)


class WorkloadSpec(_Base):
    """The fields of Deployment, StatefulSet, DaemonSet, ReplicaSet and Job specs that make pods."""

    replicas: Int32 | None = None
    selector: LabelSelector | None = None
    template: PodTemplateSpec = msgspec.field(default_factory=PodTemplateSpec)
    # StatefulSet: OrderedReady (default) creates the next ordinal once the previous one runs.
    pod_management_policy: str = ""
    # Job: how many pods run at once, and how many must finish; Indexed pods carry their index.
    parallelism: Int32 | None = None
    completions: Int32 | None = None
    completion_mode: str = ""
    # StatefulSet: the PVCs each ordinal gets (`<claim>-<statefulset>-<ordinal>`).
    volume_claim_templates: list[PersistentVolumeClaim] = []
    # Job: what its controller does once pods fail; not simulated (check places the first pods).
    pod_failure_policy: dict[str, Any] | None = None


class Workload(_Base):
    """A pod controller read from a manifest (not part of snapshots)."""

    api_version: str = ""
    kind: str = ""
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: WorkloadSpec = msgspec.field(default_factory=WorkloadSpec)


class JobTemplateSpec(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: WorkloadSpec = msgspec.field(default_factory=WorkloadSpec)


class CronJobSpec(_Base):
    job_template: JobTemplateSpec = msgspec.field(default_factory=JobTemplateSpec)


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


class CronJobManifest(_Base):
    """A CronJob read from a manifest, with its Job template (not part of snapshots)."""

    api_version: str = ""
    kind: str = ""
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: CronJobSpec = msgspec.field(default_factory=CronJobSpec)


# ---------------------------------------------------------------- dynamic resource allocation

# A request's allocation mode, when it names a class and no mode (the API server's default).
ALLOCATION_MODE_EXACT_COUNT = "ExactCount"


class CELDeviceSelector(_Base):
    expression: str = ""


class DeviceSelector(_Base):
    cel: CELDeviceSelector | None = None


class DeviceClassSpec(_Base):
    selectors: list[DeviceSelector] = []
    config: list[Any] = []
    extended_resource_name: str | None = None


class DeviceClass(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: DeviceClassSpec = msgspec.field(default_factory=DeviceClassSpec)


class DeviceAttribute(_Base):
    # Exactly one is set; the wire names are Go's (int, bool, string, version).
    int_value: Int64 | None = msgspec.field(default=None, name="int")
    bool_value: bool | None = msgspec.field(default=None, name="bool")
    string_value: str | None = msgspec.field(default=None, name="string")
    version_value: str | None = msgspec.field(default=None, name="version")


class CapacityRequestPolicyRange(_Base):
    min: QuantityInput | None = None
    max: QuantityInput | None = None
    step: QuantityInput | None = None


class CapacityRequestPolicy(_Base):
    """How much of a shareable device's capacity one allocation may consume (DRAConsumableCapacity)."""

    default: QuantityInput | None = None
    valid_values: list[QuantityInput] = []
    valid_range: CapacityRequestPolicyRange | None = None


class DeviceCapacity(_Base):
    value: QuantityInput = 0
    request_policy: CapacityRequestPolicy | None = None


class CapacityRequirements(_Base):
    """A request's `capacity`: how much of each capacity of a shared device it consumes."""

    requests: dict[str, QuantityInput] | None = None


class ResourcePool(_Base):
    name: str = ""
    generation: Int64 = 0
    resource_slice_count: Int64 = 0


class Device(_Base):
    name: str = ""
    attributes: dict[str, DeviceAttribute] = {}
    capacity: dict[str, DeviceCapacity] = {}
    consumes_counters: list[Any] = []
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    taints: list[Any] = []
    binds_to_node: bool | None = None
    binding_conditions: list[str] = []
    binding_failure_conditions: list[str] = []
    allow_multiple_allocations: bool | None = None


class ResourceSliceSpec(_Base):
    driver: str = ""
    pool: ResourcePool = msgspec.field(default_factory=ResourcePool)
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    devices: list[Device] = []
    per_device_node_selection: bool | None = None
    shared_counters: list[Any] = []


class ResourceSlice(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ResourceSliceSpec = msgspec.field(default_factory=ResourceSliceSpec)


class ExactDeviceRequest(_Base):
    device_class_name: str = ""
    selectors: list[DeviceSelector] = []
    allocation_mode: str = ""
    count: Int64 | None = None
    admin_access: bool | None = None
    tolerations: list[Any] = []
    capacity: CapacityRequirements | None = None


class DeviceSubRequest(_Base):
    name: str = ""
    device_class_name: str = ""
    selectors: list[DeviceSelector] = []
    allocation_mode: str = ""
    count: Int64 | None = None
    tolerations: list[Any] = []
    capacity: CapacityRequirements | None = None


class DeviceRequest(_Base):
    name: str = ""
    exactly: ExactDeviceRequest | None = None
    first_available: list[DeviceSubRequest] = []


class DeviceConstraint(_Base):
    requests: list[str] = []
    match_attribute: str | None = None
    distinct_attribute: str | None = None


class DeviceClaim(_Base):
    requests: list[DeviceRequest] = []
    constraints: list[DeviceConstraint] = []
    config: list[Any] = []


class ResourceClaimSpec(_Base):
    devices: DeviceClaim = msgspec.field(default_factory=DeviceClaim)


class DeviceRequestAllocationResult(_Base):
    request: str = ""
    driver: str = ""
    pool: str = ""
    device: str = ""
    admin_access: bool | None = None
    share_id: str | None = msgspec.field(default=None, name="shareID")
    consumed_capacity: dict[str, QuantityInput] | None = None


class DeviceAllocationResult(_Base):
    results: list[DeviceRequestAllocationResult] = []
    config: list[Any] = []


class AllocationResult(_Base):
    devices: DeviceAllocationResult = msgspec.field(default_factory=DeviceAllocationResult)
    node_selector: NodeSelector | None = None
    allocation_timestamp: str | None = None


class ResourceClaimConsumerReference(_Base):
    api_group: str = ""
    resource: str = ""
    name: str = ""
    uid: str = ""


class ResourceClaimStatus(_Base):
    allocation: AllocationResult | None = None
    reserved_for: list[ResourceClaimConsumerReference] = []
    devices: list[Any] = []


class ResourceClaim(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ResourceClaimSpec = msgspec.field(default_factory=ResourceClaimSpec)
    status: ResourceClaimStatus = msgspec.field(default_factory=ResourceClaimStatus)


class ResourceClaimTemplateSpec(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ResourceClaimSpec = msgspec.field(default_factory=ResourceClaimSpec)


class ResourceClaimTemplate(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ResourceClaimTemplateSpec = msgspec.field(default_factory=ResourceClaimTemplateSpec)


# ---------------------------------------------------------------- pod groups (scheduling.k8s.io/v1alpha2, v1.36)


class GangSchedulingPolicy(_Base):
    min_count: Int32 = 0


class PodGroupSchedulingPolicy(_Base):
    """Exactly one of basic (no gang) and gang."""

    basic: dict[str, Any] | None = None
    gang: GangSchedulingPolicy | None = None


class PodGroupTemplate(_Base):
    name: str = ""
    scheduling_policy: PodGroupSchedulingPolicy = msgspec.field(default_factory=PodGroupSchedulingPolicy)


class SchedulingWorkloadSpec(_Base):
    pod_group_templates: list[PodGroupTemplate] = []


class SchedulingWorkload(_Base):
    """A `Workload` of scheduling.k8s.io (GenericWorkload): templates of the pod groups it runs."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: SchedulingWorkloadSpec = msgspec.field(default_factory=SchedulingWorkloadSpec)


class WorkloadPodGroupTemplateReference(_Base):
    workload_name: str = ""
    pod_group_template_name: str = ""


class PodGroupTemplateReference(_Base):
    workload: WorkloadPodGroupTemplateReference | None = None


class PodGroupSpec(_Base):
    pod_group_template_ref: PodGroupTemplateReference | None = None
    scheduling_policy: PodGroupSchedulingPolicy = msgspec.field(default_factory=PodGroupSchedulingPolicy)


class PodGroup(_Base):
    """A `PodGroup` of scheduling.k8s.io: the group a pod names in spec.schedulingGroup.podGroupName."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PodGroupSpec = msgspec.field(default_factory=PodGroupSpec)


# ---------------------------------------------------------------- autoscalers


class ConfigMap(_Base):
    """Only Cluster Autoscaler's status ConfigMap is ever kept (see AUTOSCALER_STATUS_CONFIGMAP):
    podwhy reads no other ConfigMap, whatever a dump holds."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    data: dict[str, str] = {}


# metav1.Condition (Karpenter's NodePools and NodeClaims): the fields podwhy reads are a PodCondition's.
StatusCondition = PodCondition


class KarpenterRequirement(_Base):
    """NodeSelectorRequirementWithMinValues: a node selector requirement (with Karpenter's Gte/Lte)."""

    key: str = ""
    operator: str = ""
    values: list[str] = []
    min_values: Int32 | None = None


class NodeClassReference(_Base):
    group: str = ""
    kind: str = ""
    name: str = ""


class NodeClaimTemplateMeta(_Base):
    labels: dict[str, str] = {}
    annotations: dict[str, str] = {}


class NodeClaimTemplateSpec(_Base):
    taints: list[Taint] = []
    startup_taints: list[Taint] = []
    requirements: list[KarpenterRequirement] = []
    node_class_ref: NodeClassReference = msgspec.field(default_factory=NodeClassReference)


class NodeClaimTemplate(_Base):
    metadata: NodeClaimTemplateMeta = msgspec.field(default_factory=NodeClaimTemplateMeta)
    spec: NodeClaimTemplateSpec = msgspec.field(default_factory=NodeClaimTemplateSpec)


class DisruptionBudget(_Base):
    nodes: str = "10%"
    schedule: str | None = None
    duration: str | None = None
    reasons: list[str] = []


class NodePoolDisruption(_Base):
    consolidate_after: str | None = None
    consolidation_policy: str = ""
    budgets: list[DisruptionBudget] = []


class NodePoolSpec(_Base):
    template: NodeClaimTemplate = msgspec.field(default_factory=NodeClaimTemplate)
    disruption: NodePoolDisruption = msgspec.field(default_factory=NodePoolDisruption)
    # Resource name -> the most the pool may provision (Karpenter's "nodes" counts nodes).
    limits: ResourceList = {}
    weight: Int32 | None = None
    # A static NodePool (alpha): the provisioner does not launch nodes for pending pods.
    replicas: Int64 | None = None


class NodePoolStatus(_Base):
    resources: ResourceList = {}
    conditions: list[StatusCondition] = []


class NodePool(_Base):
    """A Karpenter `NodePool` (karpenter.sh/v1): what nodes it may launch, and its limits."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: NodePoolSpec = msgspec.field(default_factory=NodePoolSpec)
    status: NodePoolStatus = msgspec.field(default_factory=NodePoolStatus)


class NodeClaimResources(_Base):
    requests: ResourceList = {}


class NodeClaimSpec(_Base):
    taints: list[Taint] = []
    startup_taints: list[Taint] = []
    requirements: list[KarpenterRequirement] = []
    resources: NodeClaimResources = msgspec.field(default_factory=NodeClaimResources)
    node_class_ref: NodeClassReference = msgspec.field(default_factory=NodeClassReference)


class NodeClaimStatus(_Base):
    node_name: str = ""
    provider_id: str = msgspec.field(default="", name="providerID")
    capacity: ResourceList = {}
    allocatable: ResourceList = {}
    conditions: list[StatusCondition] = []


class NodeClaim(_Base):
    """A Karpenter `NodeClaim` (karpenter.sh/v1): one node being launched, registered, initialized."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: NodeClaimSpec = msgspec.field(default_factory=NodeClaimSpec)
    status: NodeClaimStatus = msgspec.field(default_factory=NodeClaimStatus)


# ---------------------------------------------------------------- the kinds podwhy reads


class Indexing(Enum):
    """How a snapshot files the objects of a kind."""

    LIST = "list"
    BY_NAME = "by name"
    BY_NAMESPACED_NAME = "by namespace/name"


def _pod_quantities(pod: Pod) -> Iterator[ResourceList]:
    spec = pod.spec
    for container in (*spec.containers, *spec.init_containers):
        yield container.resources.requests
        yield container.resources.limits
    yield spec.overhead
    if spec.resources is not None:
        yield spec.resources.requests


def _node_quantities(node: Node) -> Iterator[ResourceList]:
    yield node.status.allocatable
    yield node.status.capacity


def _slice_quantities(rs: ResourceSlice) -> Iterator[ResourceList]:
    """Device capacities and their requestPolicy values (the allocator computes with them)."""
    for device in rs.spec.devices:
        for capacity in device.capacity.values():
            yield {"value": capacity.value}
            policy = capacity.request_policy
            if policy is None:
                continue
            yield {str(i): v for i, v in enumerate(policy.valid_values)}
            bounds = policy.valid_range
            yield {
                name: value
                for name, value in (
                    ("default", policy.default),
                    ("validRange.min", bounds.min if bounds else None),
                    ("validRange.max", bounds.max if bounds else None),
                    ("validRange.step", bounds.step if bounds else None),
                )
                if value is not None
            }


def _request_capacities(spec: ResourceClaimSpec) -> Iterator[ResourceList]:
    for request in spec.devices.requests:
        if request.exactly is not None and request.exactly.capacity is not None:
            yield request.exactly.capacity.requests or {}
        for sub in request.first_available:
            if sub.capacity is not None:
                yield sub.capacity.requests or {}


def _claim_quantities(claim: ResourceClaim) -> Iterator[ResourceList]:
    """Capacity requests, and the capacity allocated shares consume."""
    yield from _request_capacities(claim.spec)
    if claim.status.allocation is not None:
        for result in claim.status.allocation.devices.results:
            if result.consumed_capacity:
                yield result.consumed_capacity


def _claim_template_quantities(template: ResourceClaimTemplate) -> Iterator[ResourceList]:
    yield from _request_capacities(template.spec.spec)


@dataclass(frozen=True)
class KindInfo:
    """One kind: its typed struct, plural, the snapshot field that holds it and how it is indexed."""

    type: type[msgspec.Struct]
    plural: str
    snapshot_field: str
    indexing: Indexing
    # Quantity maps checked when the object is loaded, so an error can name the object.
    quantities: Callable[[Any], Iterator[ResourceList]] | None = None


_L, _N, _NS = Indexing.LIST, Indexing.BY_NAME, Indexing.BY_NAMESPACED_NAME

KINDS: dict[str, KindInfo] = {
    "Node": KindInfo(Node, "Nodes", "nodes", _L, _node_quantities),
    "Pod": KindInfo(Pod, "Pods", "pods", _L, _pod_quantities),
    "PersistentVolume": KindInfo(PersistentVolume, "PersistentVolumes", "persistent_volumes", _N),
    "PersistentVolumeClaim": KindInfo(PersistentVolumeClaim, "PersistentVolumeClaims", "persistent_volume_claims", _NS),
    "StorageClass": KindInfo(StorageClass, "StorageClasses", "storage_classes", _N),
    "CSINode": KindInfo(CSINode, "CSINodes", "csi_nodes", _N),
    "CSIDriver": KindInfo(CSIDriver, "CSIDrivers", "csi_drivers", _N),
    "CSIStorageCapacity": KindInfo(CSIStorageCapacity, "CSIStorageCapacities", "csi_storage_capacities", _L),
    "VolumeAttachment": KindInfo(VolumeAttachment, "VolumeAttachments", "volume_attachments", _N),
    # Read for LimitRanger admission of manifests (-f, check); no plugin reads them.
    "LimitRange": KindInfo(LimitRange, "LimitRanges", "limit_ranges", _L),
    "Namespace": KindInfo(Namespace, "Namespaces", "namespaces", _N),
    "PriorityClass": KindInfo(PriorityClass, "PriorityClasses", "priority_classes", _N),
    "RuntimeClass": KindInfo(RuntimeClass, "RuntimeClasses", "runtime_classes", _N),
    "PodDisruptionBudget": KindInfo(PodDisruptionBudget, "PodDisruptionBudgets", "pod_disruption_budgets", _L),
    "Event": KindInfo(Event, "Events", "events", _L),
    "Service": KindInfo(Service, "Services", "services", _L),
    "ReplicationController": KindInfo(ReplicationController, "ReplicationControllers", "replication_controllers", _L),
    "ReplicaSet": KindInfo(ReplicaSet, "ReplicaSets", "replica_sets", _L),
    "StatefulSet": KindInfo(StatefulSet, "StatefulSets", "stateful_sets", _L),
    "Job": KindInfo(Job, "Jobs", "jobs", _NS),
    "CronJob": KindInfo(CronJob, "CronJobs", "cron_jobs", _NS),
    "DeviceClass": KindInfo(DeviceClass, "DeviceClasses", "device_classes", _N),
    "ResourceSlice": KindInfo(ResourceSlice, "ResourceSlices", "resource_slices", _L, _slice_quantities),
    "ResourceClaim": KindInfo(ResourceClaim, "ResourceClaims", "resource_claims", _NS, _claim_quantities),
    "ResourceClaimTemplate": KindInfo(
        ResourceClaimTemplate,
        "ResourceClaimTemplates",
        "resource_claim_templates",
        _NS,
        _claim_template_quantities,
    ),
    # Read to name a pod group's policy; no plugin reads them (gang scheduling is not simulated).
    "Workload": KindInfo(SchedulingWorkload, "Workloads", "workloads", _NS),
    "PodGroup": KindInfo(PodGroup, "PodGroups", "pod_groups", _NS),
    # Autoscalers: Cluster Autoscaler's status ConfigMap (no other), Karpenter's NodePools and NodeClaims.
    "ConfigMap": KindInfo(ConfigMap, "ConfigMaps", "autoscaler_status", _NS),
    "NodePool": KindInfo(NodePool, "NodePools", "node_pools", _N),
    "NodeClaim": KindInfo(NodeClaim, "NodeClaims", "node_claims", _N),
}

# The only ConfigMap podwhy keeps: Cluster Autoscaler's status (the default of its
# --status-config-map-name, in its --namespace, kube-system by default: live mode reads that one;
# a dump's may be in any namespace). Any other ConfigMap a dump holds is dropped unread.
AUTOSCALER_STATUS_CONFIGMAP = "cluster-autoscaler-status"
AUTOSCALER_STATUS_NAMESPACE = "kube-system"
# The autoscalers' kinds: no plugin reads them, so a snapshot that cannot vouch for them makes
# nothing NotEvaluated and no report lists them as missing; only the autoscaling analysis says so.
AUTOSCALER_KINDS = frozenset({"ConfigMap", "NodePool", "NodeClaim"})

KIND_TYPES: dict[str, type[msgspec.Struct]] = {kind: info.type for kind, info in KINDS.items()}

# Kinds of alpha APIs (not served unless enabled): read when a dump holds them, but neither
# fetched live, nor listed in the dump command, nor demanded of a complete dump.
ALPHA_KINDS = frozenset({"Workload", "PodGroup"})

# The kinds without a namespace: an object of one is known by its kind and name alone.
CLUSTER_SCOPED_KINDS = frozenset(
    {"Node", "ResourceSlice", *(kind for kind, info in KINDS.items() if info.indexing is Indexing.BY_NAME)}
)

# What `-f` manifests are read for: Pods, the workloads that make pods (their templates), and
# the objects a chart ships alongside that plugins or admission read (added to the snapshot).
WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob")
MANIFEST_SUPPORT_KINDS = (
    "Namespace",
    "LimitRange",
    "Service",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "PodDisruptionBudget",
    "PriorityClass",
    "RuntimeClass",
    "StorageClass",
    "DeviceClass",
    "ResourceClaim",
    "ResourceClaimTemplate",
)
MANIFEST_KIND_TYPES: dict[str, type[msgspec.Struct]] = {
    "Pod": Pod,
    **{kind: KIND_TYPES[kind] for kind in MANIFEST_SUPPORT_KINDS},
    **{kind: Workload for kind in WORKLOAD_KINDS if kind != "CronJob"},
    "CronJob": CronJobManifest,
    "ReplicationController": ReplicationControllerManifest,
}


def plural(kind: str) -> str:
    """The kind's plural as the API names it (Kinds podwhy does not read get an "s")."""
    info = KINDS.get(kind)
    return info.plural if info is not None else kind + "s"
