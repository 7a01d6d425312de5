"""Kueue v0.20's reasons, condition types, messages and feature gates, in one place (Kueue's own
words: apis/kueue/v1beta2, pkg/features/kube_features.go, and the format strings of the
scheduler, the cache and the controllers)."""

from __future__ import annotations

from enum import IntEnum
from typing import Final

# ---------------------------------------------------------------- condition types

QUOTA_RESERVED: Final = "QuotaReserved"
ADMITTED: Final = "Admitted"
FINISHED: Final = "Finished"
EVICTED: Final = "Evicted"
PREEMPTED: Final = "Preempted"
ACTIVE: Final = "Active"  # ClusterQueue, LocalQueue, AdmissionCheck

# ---------------------------------------------------------------- QuotaReserved=False reasons

# The granular reasons (UnadmittedWorkloadsObservability), and the legacy ones they replace.
NO_MATCHING_FLAVOR: Final = "NoMatchingFlavor"
WAITING_FOR_QUOTA: Final = "WaitingForQuota"
EXCEEDS_MAX_QUOTA: Final = "ExceedsMaxQuota"
TOPOLOGY_PLACEMENT_FAILED: Final = "TopologyPlacementFailed"
WAITING_FOR_PREEMPTED_WORKLOADS: Final = "WaitingForPreemptedWorkloads"
MISCONFIGURED: Final = "Misconfigured"
SUSPENDED: Final = "Suspended"
PENDING_EVALUATION: Final = "PendingEvaluation"
DEACTIVATED: Final = "Deactivated"
ADMISSION_GATED: Final = "AdmissionGated"
ON_HOLD: Final = "OnHold"
LEGACY_PENDING: Final = "Pending"  # the scheduler's reason with the gate off
LEGACY_INADMISSIBLE: Final = "Inadmissible"  # the workload controller's reason with the gate off

# Eviction reasons the queue order reads.
EVICTED_BY_PODS_READY_TIMEOUT: Final = "PodsReadyTimeout"
EVICTED_BY_ADMISSION_CHECK: Final = "AdmissionCheck"
IN_COHORT_RECLAIM_WHILE_BORROWING: Final = "InCohortReclaimWhileBorrowing"

# ---------------------------------------------------------------- ClusterQueue Active reasons

CQ_TERMINATING: Final = "Terminating"
CQ_STOPPED: Final = "Stopped"
CQ_FLAVOR_NOT_FOUND: Final = "FlavorNotFound"
CQ_ADMISSION_CHECK_NOT_FOUND: Final = "AdmissionCheckNotFound"
CQ_ADMISSION_CHECK_INACTIVE: Final = "AdmissionCheckInactive"
CQ_MULTIPLE_MULTIKUEUE_CHECKS: Final = "MultipleMultiKueueAdmissionChecks"
CQ_MULTIKUEUE_PER_FLAVOR: Final = "MultiKueueAdmissionCheckAppliedPerFlavor"
CQ_MULTIKUEUE_WITH_PROVISIONING: Final = "MultiKueueWithProvisioningRequest"
CQ_TOPOLOGY_NOT_FOUND: Final = "TopologyNotFound"
CQ_UNKNOWN: Final = "Unknown"
CQ_READY: Final = "Ready"

CQ_READY_MESSAGE: Final = "Can admit new workloads"
CQ_TERMINATING_MESSAGE: Final = "Can't admit new workloads; clusterQueue is terminating"
CQ_UNKNOWN_MESSAGE: Final = "Can't admit new workloads."
CQ_INACTIVE_MESSAGE: Final = "Can't admit new workloads: {}."  # the parts, joined by ", "
CQ_PART_STOPPED: Final = "is stopped"
CQ_PART_MISSING_FLAVORS: Final = "references missing ResourceFlavor(s): {}"
CQ_PART_MISSING_CHECKS: Final = "references missing AdmissionCheck(s): {}"
CQ_PART_INACTIVE_CHECKS: Final = "references inactive AdmissionCheck(s): {}"
CQ_PART_MULTIPLE_MULTIKUEUE: Final = (
    "Cannot use multiple MultiKueue AdmissionChecks on the same ClusterQueue, found: {}"
)
CQ_PART_MULTIKUEUE_PER_FLAVOR: Final = "Cannot specify MultiKueue AdmissionCheck per flavor, found: {}"
CQ_PART_MULTIKUEUE_WITH_PROVISIONING: Final = (
    "Cannot use both MultiKueue and ProvisioningRequest AdmissionChecks together, found: {}, {}"
)
CQ_PART_TOPOLOGY_NOT_FOUND: Final = 'there is no Topology "{}" for TAS flavor "{}"'

MULTIKUEUE_CONTROLLER: Final = "kueue.x-k8s.io/multikueue"
PROVISIONING_REQUEST_CONTROLLER: Final = "kueue.x-k8s.io/provisioning-request"

# ---------------------------------------------------------------- LocalQueue Active reasons

LQ_STOPPED: Final = "Stopped"
LQ_STOPPED_MESSAGE: Final = "LocalQueue is stopped"
LQ_CLUSTER_QUEUE_INACTIVE: Final = "ClusterQueueIsInactive"
LQ_CLUSTER_QUEUE_MISSING: Final = "ClusterQueueDoesNotExist"
LQ_CLUSTER_QUEUE_INACTIVE_MESSAGE: Final = "Can't submit new workloads to clusterQueue"
LQ_READY: Final = "Ready"
LQ_READY_MESSAGE: Final = "Can submit new workloads to localQueue"

# ---------------------------------------------------------------- messages of a pending Workload

# The workload controller (getQueueBlocker, resolveGranularUnadmittedQuotaReservedCondition).
MSG_DEACTIVATED: Final = "The workload is deactivated"
MSG_LQ_MISSING: Final = "LocalQueue {} doesn't exist"
MSG_LQ_INACTIVE: Final = "LocalQueue {} is inactive"
MSG_CQ_MISSING: Final = "ClusterQueue {} doesn't exist"
MSG_CQ_INACTIVE_CONTROLLER: Final = "ClusterQueue {} is inactive"
MSG_PENDING_EVALUATION: Final = "Workload is pending evaluation in the scheduling queue"
MSG_ADMISSION_GATED: Final = "Admission is gated by: {}"
# The scheduler's nominate.
MSG_FAILED_CHECKS: Final = "The workload has failed admission checks"
MSG_CQ_INACTIVE: Final = "ClusterQueue {} is inactive"
MSG_CQ_NOT_FOUND: Final = "ClusterQueue {} not found"
MSG_NAMESPACE_MISSING: Final = 'workload namespace "{}" does not exist: namespaces "{}" not found'
MSG_NAMESPACE_MISMATCH: Final = "workload namespace doesn't match ClusterQueue selector"
MSG_INVALID_RESOURCES: Final = "resources validation failed: {}"  # workload.ErrInvalidWLResources
MSG_REQUESTS_EXCEED_LIMITS: Final = "requests must not exceed its limits"
# workload.ErrLimitRangeConstraintsUnsatisfiedResources and pkg/util/limitrange's messages.
MSG_LIMIT_RANGE_UNSATISFIED: Final = "resources didn't satisfy LimitRange constraints: {}"
MSG_LIMIT_RANGE_ABOVE_MAX: Final = "requests must not be above the limitRange max"
MSG_LIMIT_RANGE_BELOW_MIN: Final = "requests must not be below the limitRange min"
# The flavor assigner (Assignment.Message, Status reasons, fitsResourceQuota).
MSG_ASSIGNMENT: Final = "couldn't assign flavors to pod set {}: {}"
MSG_ASSIGNMENT_ERROR: Final = "failed to assign flavors to pod set {}: {}"
MSG_RESOURCE_UNAVAILABLE: Final = "resource {} unavailable in ClusterQueue"
MSG_FLAVOR_NOT_FOUND: Final = "flavor {} not found"
MSG_UNTOLERATED_TAINT: Final = "untolerated taint {} in flavor {}"
MSG_NO_AFFINITY_MATCH: Final = "flavor {} doesn't match node affinity"
MSG_FLAVOR_NO_RESOURCE: Final = "flavor {} does not provide resource {}"
MSG_EXCEEDS_MAX: Final = (
    "insufficient quota for {} in flavor {}, previously considered podsets requests ({}) "
    "+ current podset request ({}) > maximum capacity ({})"
)
MSG_INSUFFICIENT_UNUSED: Final = "insufficient unused quota for {} in flavor {}, {} more needed"
MSG_TAS_FLAVOR_UNSUPPORTED: Final = 'Flavor "{}" does not support TopologyAwareScheduling'
MSG_TAS_FLAVOR_MISSING: Final = 'Flavor "{}" information missing in TAS cache'
MSG_TAS_LEVEL_MISSING: Final = 'Flavor "{}" does not contain the requested level'
MSG_TAS_ONLY: Final = 'Flavor "{}" supports only TopologyAwareScheduling'
# Appended by the scheduler once preemptions are issued (not emulated: for reference).
MSG_PENDING_PREEMPTION: Final = ". Pending the preemption of {} workload(s)"
# processEntry's skip of an entry whose quota a Workload processed earlier in the cycle took
# (reason WaitingForQuota).
MSG_NO_LONGER_FITS: Final = "Workload no longer fits after processing another workload"

# ---------------------------------------------------------------- flavor assignment modes


class Mode(IntEnum):
    """FlavorAssignmentMode, from the least preferred: NoFit < Preempt < DeferredFit < Fit."""

    NO_FIT = 0
    PREEMPT = 1
    DEFERRED_FIT = 2
    FIT = 3

    def __str__(self) -> str:
        return {0: "NoFit", 1: "Preempt", 2: "DeferredFit", 3: "Fit"}[self.value]


# FlavorFungibility policies and preferences.
MAY_STOP_SEARCH: Final = "MayStopSearch"
TRY_NEXT_FLAVOR: Final = "TryNextFlavor"
BORROWING_OVER_PREEMPTION: Final = "BorrowingOverPreemption"
PREEMPTION_OVER_BORROWING: Final = "PreemptionOverBorrowing"
# Preemption policies and queueing strategies.
PREEMPTION_NEVER: Final = "Never"
PREEMPTION_ANY: Final = "Any"
STRICT_FIFO: Final = "StrictFIFO"
BEST_EFFORT_FIFO: Final = "BestEffortFIFO"
STOP_NONE: Final = "None"
STOP_HOLD: Final = "Hold"
STOP_HOLD_AND_DRAIN: Final = "HoldAndDrain"
# PodsReady requeuing timestamp (Configuration.waitForPodsReady.requeuingStrategy.timestamp).
TIMESTAMP_EVICTION: Final = "Eviction"
TIMESTAMP_CREATION: Final = "Creation"

# ---------------------------------------------------------------- resources

PODS: Final = "pods"
CPU: Final = "cpu"
MEMORY: Final = "memory"
EPHEMERAL_STORAGE: Final = "ephemeral-storage"
HUGEPAGES_PREFIX: Final = "hugepages-"
UNLIMITED_TEXT: Final = "<unlimited>"
ADMISSION_GATED_BY_ANNOTATION: Final = "kueue.x-k8s.io/admission-gated-by"
PRIORITY_BOOST_ANNOTATION: Final = "kueue.x-k8s.io/priority-boost"
DEFAULT_PRIORITY: Final = 0

# ---------------------------------------------------------------- feature gates (v0.20 defaults)

UNADMITTED_WORKLOADS_OBSERVABILITY: Final = "UnadmittedWorkloadsObservability"
UNADMITTED_WORKLOADS_EXPLICIT_STATUS: Final = "UnadmittedWorkloadsExplicitStatus"
FLAVOR_FUNGIBILITY: Final = "FlavorFungibility"
TOPOLOGY_AWARE_SCHEDULING: Final = "TopologyAwareScheduling"
PARTIAL_ADMISSION: Final = "PartialAdmission"
RECLAIMABLE_PODS: Final = "ReclaimablePods"
PRIORITY_SORTING_WITHIN_COHORT: Final = "PrioritySortingWithinCohort"
PRIORITY_BOOST: Final = "PriorityBoost"
ADMISSION_GATED_BY: Final = "AdmissionGatedBy"
QUOTA_CHECK_STRATEGY: Final = "QuotaCheckStrategy"

# pkg/features/kube_features.go at v0.20: the gates podwhy's emulation reads, by default value.
# UnadmittedWorkloadsObservability is beta and on since v0.19: the scheduler's QuotaReserved=False
# reason is the granular one (WaitingForQuota, NoMatchingFlavor...), "Pending" with it off; the
# workload controller's is Misconfigured or Suspended, "Inadmissible" with it off.
# VectorizedResourceRequests (beta, on since v0.19): requests are a slice sorted by the FNV-1a
# hash of the resource name (pkg/resources/slice_requests.go), so resources are tried in that
# order; off, they are a Go map, whose order is random (podwhy then takes name order).
VECTORIZED_RESOURCE_REQUESTS: Final = "VectorizedResourceRequests"

# The release whose defaults FEATURE_DEFAULTS are (what a report says it assumed).
KUEUE_VERSION: Final = "v0.20"

FEATURE_DEFAULTS: Final[dict[str, bool]] = {
    UNADMITTED_WORKLOADS_OBSERVABILITY: True,
    UNADMITTED_WORKLOADS_EXPLICIT_STATUS: False,
    FLAVOR_FUNGIBILITY: True,
    TOPOLOGY_AWARE_SCHEDULING: True,
    PARTIAL_ADMISSION: True,
    RECLAIMABLE_PODS: True,
    PRIORITY_SORTING_WITHIN_COHORT: True,
    PRIORITY_BOOST: False,
    ADMISSION_GATED_BY: True,
    QUOTA_CHECK_STRATEGY: True,
    VECTORIZED_RESOURCE_REQUESTS: True,
}


def enabled(gate: str, gates: dict[str, bool] | None = None) -> bool:
    """Whether GATE is on: as GATES sets it, else its v0.20 default."""
    if gates is not None and gate in gates:
        return gates[gate]
    return FEATURE_DEFAULTS[gate]


def unadmitted_reason(granular: str, fallback: str, gates: dict[str, bool] | None = None) -> str:
    """UnadmittedWorkloadReasonWithFallback: the granular reason when the gate is on."""
    return granular if enabled(UNADMITTED_WORKLOADS_OBSERVABILITY, gates) else fallback


# ---------------------------------------------------------------- what podwhy does not emulate

NOT_EMULATED_PREEMPTION: Final = "preemption"
NOT_EMULATED_TAS: Final = "topology-aware scheduling"
NOT_EMULATED_ADMISSION_CHECKS: Final = "admission checks"
NOT_EMULATED_MULTIKUEUE: Final = "MultiKueue"
NOT_EMULATED_FAIR_SHARING: Final = "fair sharing"
NOT_EMULATED_PARTIAL_ADMISSION: Final = "partial admission"
# Kueue's heads come from a map and its sort of them is not stable: the order between two heads
# alike in borrowing, priority and timestamp is not known.
NOT_EMULATED_CYCLE_ORDER: Final = "the cycle's order between heads alike in borrowing, priority and time"
