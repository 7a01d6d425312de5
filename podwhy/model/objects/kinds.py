"""The kinds podwhy reads, in one table: each kind's typed struct, plural, snapshot field, how a
snapshot files it and the quantities checked when it is loaded; and the kinds `-f` manifests are
read for."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any

import msgspec

from podwhy.model.objects.admissionregistration import (
    MutatingAdmissionPolicy,
    MutatingAdmissionPolicyBinding,
    MutatingWebhookConfiguration,
    ValidatingAdmissionPolicy,
    ValidatingAdmissionPolicyBinding,
    ValidatingWebhookConfiguration,
)
from podwhy.model.objects.apps import ReplicaSet, StatefulSet, Workload
from podwhy.model.objects.batch import CronJob, CronJobManifest, Job
from podwhy.model.objects.core.node import Node
from podwhy.model.objects.core.other import (
    ConfigMap,
    Event,
    LimitRange,
    Namespace,
    ReplicationController,
    ReplicationControllerManifest,
    ResourceQuota,
    Service,
)
from podwhy.model.objects.core.pod import Pod
from podwhy.model.objects.core.volume import PersistentVolume, PersistentVolumeClaim
from podwhy.model.objects.karpenter import NodeClaim, NodePool
from podwhy.model.objects.kueue import (
    KUEUE_GROUP,
    AdmissionCheck,
    ClusterQueue,
    Cohort,
    KueueWorkload,
    LocalQueue,
    ResourceFlavor,
    Topology,
    WorkloadPriorityClass,
)
from podwhy.model.objects.meta import ResourceList
from podwhy.model.objects.node import RuntimeClass
from podwhy.model.objects.policy import PodDisruptionBudget
from podwhy.model.objects.resource import (
    DeviceClass,
    ResourceClaim,
    ResourceClaimSpec,
    ResourceClaimTemplate,
    ResourceSlice,
)
from podwhy.model.objects.scheduling import PodGroup, PriorityClass, SchedulingWorkload
from podwhy.model.objects.storage import CSIDriver, CSINode, CSIStorageCapacity, StorageClass, VolumeAttachment


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


def _quota_quantities(quota: ResourceQuota) -> Iterator[ResourceList]:
    yield quota.spec.hard
    yield quota.status.hard
    yield quota.status.used


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


def _cluster_queue_quotas(queue: ClusterQueue | Cohort) -> Iterator[ResourceList]:
    for group in queue.spec.resource_groups:
        for flavor in group.flavors:
            for quota in flavor.resources:
                yield {
                    name: value
                    for name, value in (
                        ("nominalQuota", quota.nominal_quota),
                        ("borrowingLimit", quota.borrowing_limit),
                        ("lendingLimit", quota.lending_limit),
                    )
                    if value is not None
                }


def _kueue_workload_quantities(workload: KueueWorkload) -> Iterator[ResourceList]:
    for pod_set in workload.spec.pod_sets:
        spec = pod_set.template.spec
        for container in (*spec.containers, *spec.init_containers):
            yield container.resources.requests
            yield container.resources.limits
        yield spec.overhead
    if workload.status.admission is not None:
        for assignment in workload.status.admission.pod_set_assignments:
            yield assignment.resource_usage
    for request in workload.status.resource_requests:
        yield request.resources


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

# Kueue (kueue.x-k8s.io/v1beta2): read to explain why a Workload is not admitted. Keyed by kind
# like the rest, except Kueue's Workload, whose kind scheduling.k8s.io's Workload shares: it is
# filed under its group-qualified name (as kubectl names it), which table_kind() resolves.
# Part of KINDS (a snapshot files them in its fields of these names); an add-on's, as Karpenter's:
# live mode lists them only where the server serves kueue.x-k8s.io, and no dump must hold them.
KUEUE_WORKLOAD = f"Workload.{KUEUE_GROUP}"
# (API group, kind) -> the key of a kind whose name another group's kind shares.
GROUP_QUALIFIED_KINDS: dict[tuple[str, str], str] = {(KUEUE_GROUP, "Workload"): KUEUE_WORKLOAD}
KUEUE_KINDS: dict[str, KindInfo] = {
    "ResourceFlavor": KindInfo(ResourceFlavor, "ResourceFlavors", "resource_flavors", _N),
    "ClusterQueue": KindInfo(ClusterQueue, "ClusterQueues", "cluster_queues", _N, _cluster_queue_quotas),
    "Cohort": KindInfo(Cohort, "Cohorts", "cohorts", _N, _cluster_queue_quotas),
    "LocalQueue": KindInfo(LocalQueue, "LocalQueues", "local_queues", _NS),
    KUEUE_WORKLOAD: KindInfo(KueueWorkload, "Workloads", "kueue_workloads", _NS, _kueue_workload_quantities),
    "WorkloadPriorityClass": KindInfo(
        WorkloadPriorityClass, "WorkloadPriorityClasses", "workload_priority_classes", _N
    ),
    "AdmissionCheck": KindInfo(AdmissionCheck, "AdmissionChecks", "admission_checks", _N),
    "Topology": KindInfo(Topology, "Topologies", "topologies", _N),
}

# The API server's admission configuration (admissionregistration.k8s.io, docs/policies.md): read to
# say which policies and webhooks a request meets. Like an add-on's, files vouch for them only by
# holding them, and live mode lists them where the server serves them (MutatingAdmissionPolicies
# only where their feature gate and API version are on): a cluster without any has none.
ADMISSION_KINDS: dict[str, KindInfo] = {
    "ValidatingAdmissionPolicy": KindInfo(
        ValidatingAdmissionPolicy, "ValidatingAdmissionPolicies", "validating_admission_policies", _N
    ),
    "ValidatingAdmissionPolicyBinding": KindInfo(
        ValidatingAdmissionPolicyBinding,
        "ValidatingAdmissionPolicyBindings",
        "validating_admission_policy_bindings",
        _N,
    ),
    "MutatingAdmissionPolicy": KindInfo(
        MutatingAdmissionPolicy, "MutatingAdmissionPolicies", "mutating_admission_policies", _N
    ),
    "MutatingAdmissionPolicyBinding": KindInfo(
        MutatingAdmissionPolicyBinding, "MutatingAdmissionPolicyBindings", "mutating_admission_policy_bindings", _N
    ),
    "ValidatingWebhookConfiguration": KindInfo(
        ValidatingWebhookConfiguration,
        "ValidatingWebhookConfigurations",
        "validating_webhook_configurations",
        _N,
    ),
    "MutatingWebhookConfiguration": KindInfo(
        MutatingWebhookConfiguration, "MutatingWebhookConfigurations", "mutating_webhook_configurations", _N
    ),
}


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
    # Read for ResourceQuota admission of manifests (-f, check); no plugin reads them.
    "ResourceQuota": KindInfo(ResourceQuota, "ResourceQuotas", "resource_quotas", _L, _quota_quantities),
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
    **KUEUE_KINDS,
    **ADMISSION_KINDS,
}


def table_kind(kind: str, api_version: str) -> str:
    """The key an object of KIND and API_VERSION is filed under: its kind, or its group-qualified
    name when another API group has a kind of that name (Kueue's Workload)."""
    return GROUP_QUALIFIED_KINDS.get((api_version.rpartition("/")[0], kind), kind)


def api_kind(key: str) -> str:
    """The kind the API names an object of the table's KEY by (`Workload` of `Workload.kueue.x-k8s.io`)."""
    return key.partition(".")[0]


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
    "ResourceQuota",
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
