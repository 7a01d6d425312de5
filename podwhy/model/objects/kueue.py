"""kueue.x-k8s.io (v1beta2, Kueue v0.20): ResourceFlavors, ClusterQueues, Cohorts, LocalQueues,
Workloads, WorkloadPriorityClasses, AdmissionChecks and Topologies.

Defaults are the CRDs' (kubebuilder markers of apis/kueue/v1beta2): a field the API server
would have defaulted reads as that default when a manifest leaves it out.
"""

from __future__ import annotations

import msgspec

from podwhy.model.objects.core.node import Taint
from podwhy.model.objects.core.pod import PodTemplateSpec, Toleration
from podwhy.model.objects.meta import Int32, LabelSelector, ObjectMeta, ResourceList, _Base
from podwhy.model.quantity import QuantityInput

KUEUE_GROUP = "kueue.x-k8s.io"
KUEUE_API_VERSION = f"{KUEUE_GROUP}/v1beta2"


class KueueCondition(_Base):
    """metav1.Condition, as every Kueue status holds it: the fields podwhy reads are a
    PodCondition's, in a struct of its own (`--redact` keeps Kueue's messages, not a pod's)."""

    type: str = ""
    status: str = ""
    reason: str = ""
    message: str = ""
    last_transition_time: str | None = None


# Defaults of the CRDs (kubebuilder:default markers).
DEFAULT_PODSET_NAME = "main"  # PodSet.name, PodSetAssignment.name
DEFAULT_QUEUEING_STRATEGY = "BestEffortFIFO"  # ClusterQueueSpec.queueingStrategy
DEFAULT_STOP_POLICY = "None"  # ClusterQueueSpec.stopPolicy, LocalQueueSpec.stopPolicy
DEFAULT_WHEN_CAN_BORROW = "MayStopSearch"  # FlavorFungibility.whenCanBorrow
DEFAULT_WHEN_CAN_PREEMPT = "TryNextFlavor"  # FlavorFungibility.whenCanPreempt
DEFAULT_PREEMPTION_POLICY = "Never"  # reclaimWithinCohort, withinClusterQueue, borrowWithinCohort.policy


# ---------------------------------------------------------------- ResourceFlavor


class ResourceFlavorSpec(_Base):
    node_labels: dict[str, str] = {}
    node_taints: list[Taint] = []
    tolerations: list[Toleration] = []
    topology_name: str | None = None


class ResourceFlavor(_Base):
    """A `ResourceFlavor`: the nodes a flavor's quota stands for (labels, taints)."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ResourceFlavorSpec = msgspec.field(default_factory=ResourceFlavorSpec)


# ---------------------------------------------------------------- quotas (ClusterQueue, Cohort)


class KueueResourceQuota(_Base):
    """Kueue's ResourceQuota: one resource's quota in one flavor (core has a ResourceQuota kind)."""

    name: str = ""
    nominal_quota: QuantityInput = "0"
    borrowing_limit: QuantityInput | None = None  # None: no limit
    lending_limit: QuantityInput | None = None  # None: no limit


class FlavorQuotas(_Base):
    name: str = ""
    resources: list[KueueResourceQuota] = []


class ResourceGroup(_Base):
    covered_resources: list[str] = []
    flavors: list[FlavorQuotas] = []


class FairSharing(_Base):
    weight: QuantityInput | None = None  # None: 1


class FlavorFungibility(_Base):
    when_can_borrow: str = DEFAULT_WHEN_CAN_BORROW
    when_can_preempt: str = DEFAULT_WHEN_CAN_PREEMPT
    preference: str | None = None


class BorrowWithinCohort(_Base):
    policy: str = DEFAULT_PREEMPTION_POLICY
    max_priority_threshold: Int32 | None = None


class ClusterQueuePreemption(_Base):
    """Read only to say preemption is not emulated (and which policy would apply)."""

    reclaim_within_cohort: str = DEFAULT_PREEMPTION_POLICY
    borrow_within_cohort: BorrowWithinCohort | None = None
    within_cluster_queue: str = DEFAULT_PREEMPTION_POLICY


class AdmissionCheckStrategyRule(_Base):
    name: str = ""
    on_flavors: list[str] = []  # empty: every flavor


class AdmissionChecksStrategy(_Base):
    admission_checks: list[AdmissionCheckStrategyRule] = []


class ResourceUsage(_Base):
    name: str = ""
    total: QuantityInput = "0"
    borrowed: QuantityInput = "0"


class FlavorUsage(_Base):
    name: str = ""
    resources: list[ResourceUsage] = []


# ---------------------------------------------------------------- ClusterQueue


class ClusterQueueSpec(_Base):
    resource_groups: list[ResourceGroup] = []
    cohort_name: str = ""
    queueing_strategy: str = DEFAULT_QUEUEING_STRATEGY
    # None: no namespace may submit (a nothing selector); {} selects every namespace.
    namespace_selector: LabelSelector | None = None
    flavor_fungibility: FlavorFungibility = msgspec.field(default_factory=FlavorFungibility)
    preemption: ClusterQueuePreemption = msgspec.field(default_factory=ClusterQueuePreemption)
    admission_checks_strategy: AdmissionChecksStrategy | None = None
    stop_policy: str = DEFAULT_STOP_POLICY
    fair_sharing: FairSharing | None = None


class ClusterQueueStatus(_Base):
    conditions: list[KueueCondition] = []
    flavors_reservation: list[FlavorUsage] = []
    flavors_usage: list[FlavorUsage] = []
    pending_workloads: Int32 = 0
    reserving_workloads: Int32 = 0
    admitted_workloads: Int32 = 0


class ClusterQueue(_Base):
    """A `ClusterQueue`: quotas by flavor, its cohort, and how it orders and admits Workloads."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ClusterQueueSpec = msgspec.field(default_factory=ClusterQueueSpec)
    status: ClusterQueueStatus = msgspec.field(default_factory=ClusterQueueStatus)


# ---------------------------------------------------------------- Cohort


class CohortSpec(_Base):
    parent_name: str = ""
    resource_groups: list[ResourceGroup] = []
    fair_sharing: FairSharing | None = None


class Cohort(_Base):
    """A `Cohort`: a node of the quota tree (its own quota shared with its ClusterQueues)."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: CohortSpec = msgspec.field(default_factory=CohortSpec)


# ---------------------------------------------------------------- LocalQueue


class LocalQueueSpec(_Base):
    cluster_queue: str = ""
    stop_policy: str = DEFAULT_STOP_POLICY


class LocalQueueStatus(_Base):
    conditions: list[KueueCondition] = []
    pending_workloads: Int32 = 0
    reserving_workloads: Int32 = 0
    admitted_workloads: Int32 = 0


class LocalQueue(_Base):
    """A `LocalQueue`: a namespace's door to a ClusterQueue."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: LocalQueueSpec = msgspec.field(default_factory=LocalQueueSpec)
    status: LocalQueueStatus = msgspec.field(default_factory=LocalQueueStatus)


# ---------------------------------------------------------------- Workload


class PriorityClassRef(_Base):
    """v1beta2's priorityClassRef (v1beta1's priorityClassName and priorityClassSource)."""

    group: str = ""  # kueue.x-k8s.io (WorkloadPriorityClass) or scheduling.k8s.io (PriorityClass)
    kind: str = ""
    name: str = ""


class PodSetTopologyRequest(_Base):
    """Topology-aware scheduling's request: read only to say TAS is not emulated."""

    required: str | None = None
    preferred: str | None = None
    unconstrained: bool | None = None
    pod_set_group_name: str | None = None
    pod_set_slice_required_topology: str | None = None
    pod_set_slice_size: Int32 | None = None


class PodSet(_Base):
    name: str = DEFAULT_PODSET_NAME
    template: PodTemplateSpec = msgspec.field(default_factory=PodTemplateSpec)
    count: Int32 = 1
    min_count: Int32 | None = None
    topology_request: PodSetTopologyRequest | None = None


class KueueWorkloadSpec(_Base):
    pod_sets: list[PodSet] = []
    queue_name: str = ""
    priority_class_ref: PriorityClassRef | None = None
    priority: Int32 | None = None
    active: bool = True
    maximum_execution_time_seconds: Int32 | None = None


class PodSetAssignment(_Base):
    name: str = DEFAULT_PODSET_NAME
    flavors: dict[str, str] = {}  # resource -> flavor
    resource_usage: ResourceList = {}
    count: Int32 | None = None  # None on Workloads admitted before the field existed


class Admission(_Base):
    cluster_queue: str = ""
    pod_set_assignments: list[PodSetAssignment] = []


class RequeueState(_Base):
    count: Int32 | None = None
    requeue_at: str | None = None


class PodSetRequest(_Base):
    name: str = ""
    resources: ResourceList = {}


class ReclaimablePod(_Base):
    name: str = ""
    count: Int32 = 0


class AdmissionCheckState(_Base):
    name: str = ""
    state: str = ""  # Pending, Ready, Retry or Rejected
    message: str = ""
    last_transition_time: str | None = None


class KueueWorkloadStatus(_Base):
    conditions: list[KueueCondition] = []
    admission: Admission | None = None
    requeue_state: RequeueState | None = None
    reclaimable_pods: list[ReclaimablePod] = []
    admission_checks: list[AdmissionCheckState] = []
    resource_requests: list[PodSetRequest] = []


class KueueWorkload(_Base):
    """A Kueue `Workload` (kueue.x-k8s.io): pod sets queued for admission by a ClusterQueue.
    Not scheduling.k8s.io's `Workload` (SchedulingWorkload): the API group tells them apart."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: KueueWorkloadSpec = msgspec.field(default_factory=KueueWorkloadSpec)
    status: KueueWorkloadStatus = msgspec.field(default_factory=KueueWorkloadStatus)


# ---------------------------------------------------------------- WorkloadPriorityClass, AdmissionCheck, Topology


class WorkloadPriorityClass(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    value: Int32 = 0


class AdmissionCheckSpec(_Base):
    controller_name: str = ""


class AdmissionCheckStatus(_Base):
    conditions: list[KueueCondition] = []


class AdmissionCheck(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: AdmissionCheckSpec = msgspec.field(default_factory=AdmissionCheckSpec)
    status: AdmissionCheckStatus = msgspec.field(default_factory=AdmissionCheckStatus)


class TopologyLevel(_Base):
    node_label: str = ""


class TopologySpec(_Base):
    levels: list[TopologyLevel] = []


class Topology(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: TopologySpec = msgspec.field(default_factory=TopologySpec)
