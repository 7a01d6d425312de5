"""Feature gates as upstream's pkg/features/kube_features.go has them: each gate's name once, and
its default in every minor release podwhy emulates, as data.

Only the gates something in podwhy reads are here: those the scheduler's plugins and its default
profile read, and a few of the API server's and the controllers'. A release's `Emulation`
(features/emulation.py) carries its defaults; nothing else compares version numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

# The scheduler's gates (upstream's names).
DYNAMIC_RESOURCE_ALLOCATION = "DynamicResourceAllocation"
NODE_DECLARED_FEATURES = "NodeDeclaredFeatures"
DRA_EXTENDED_RESOURCE = "DRAExtendedResource"
DRA_DEVICE_TAINTS = "DRADeviceTaints"
DRA_DEVICE_TAINT_RULES = "DRADeviceTaintRules"
DRA_PARTITIONABLE_DEVICES = "DRAPartitionableDevices"
DRA_CONSUMABLE_CAPACITY = "DRAConsumableCapacity"
DRA_PRIORITIZED_LIST = "DRAPrioritizedList"
DRA_ADMIN_ACCESS = "DRAAdminAccess"
DRA_DEVICE_BINDING_CONDITIONS = "DRADeviceBindingConditions"
DRA_SCHEDULER_FILTER_TIMEOUT = "DRASchedulerFilterTimeout"
GENERIC_WORKLOAD = "GenericWorkload"
GANG_SCHEDULING = "GangScheduling"
TOPOLOGY_AWARE_WORKLOAD_SCHEDULING = "TopologyAwareWorkloadScheduling"
POD_LEVEL_RESOURCES = "PodLevelResources"
IN_PLACE_POD_VERTICAL_SCALING = "InPlacePodVerticalScaling"
STORAGE_CAPACITY_SCORING = "StorageCapacityScoring"
TAINT_TOLERATION_COMPARISON_OPERATORS = "TaintTolerationComparisonOperators"
IMAGE_VOLUME = "ImageVolume"
# Not the scheduler's: the API server's PodTopologyLabels admission plugin (copies the node's
# topology.kubernetes.io/zone and region labels onto a pod at binding,
# cluster/apiserver/admission/podtopologylabels.py),
# validateHostUsers (hostNetwork with hostUsers false), and what a suspended Job's template may
# change (pkg/registry/batch/job/strategy.go).
POD_TOPOLOGY_LABELS_ADMISSION = "PodTopologyLabelsAdmission"
USER_NAMESPACES_HOST_NETWORK_SUPPORT = "UserNamespacesHostNetworkSupport"
MUTABLE_SCHEDULING_DIRECTIVES_FOR_SUSPENDED_JOBS = "MutableSchedulingDirectivesForSuspendedJobs"
MUTABLE_POD_RESOURCES_FOR_SUSPENDED_JOBS = "MutablePodResourcesForSuspendedJobs"
# The API server's MutatingAdmissionPolicy plugin and API (k8s.io/apiserver/pkg/features): alpha
# (v1alpha1) in v1.33, beta and off (v1beta1) in v1.34 and v1.35, GA (v1) in v1.36. Where it is
# off by default a cluster serves MutatingAdmissionPolicies only if it turned the gate on.
MUTATING_ADMISSION_POLICY = "MutatingAdmissionPolicy"

# Default feature gates per minor release (kube_features.go of v1.34.7, v1.35.4 and v1.36.3).
_GATES_1_35: dict[str, bool] = {
    DYNAMIC_RESOURCE_ALLOCATION: True,
    NODE_DECLARED_FEATURES: False,  # Alpha
    DRA_EXTENDED_RESOURCE: False,  # Alpha
    DRA_DEVICE_TAINTS: False,  # Alpha
    DRA_DEVICE_TAINT_RULES: False,  # Alpha
    DRA_PARTITIONABLE_DEVICES: False,  # Alpha
    DRA_CONSUMABLE_CAPACITY: False,  # Alpha
    DRA_PRIORITIZED_LIST: True,  # Beta
    DRA_ADMIN_ACCESS: True,  # Beta
    DRA_DEVICE_BINDING_CONDITIONS: False,  # Alpha
    DRA_SCHEDULER_FILTER_TIMEOUT: True,  # Beta
    GENERIC_WORKLOAD: False,  # Alpha
    GANG_SCHEDULING: False,  # Alpha
    TOPOLOGY_AWARE_WORKLOAD_SCHEDULING: False,  # not in v1.35
    POD_LEVEL_RESOURCES: True,
    IN_PLACE_POD_VERTICAL_SCALING: True,
    STORAGE_CAPACITY_SCORING: False,
    TAINT_TOLERATION_COMPARISON_OPERATORS: False,
    IMAGE_VOLUME: True,  # Beta
    # Beta and on from v1.35 (alpha and off in v1.33 and v1.34): the API server copies a node's
    # zone and region labels onto the pods bound to it (cluster/apiserver/admission/podtopologylabels.py).
    POD_TOPOLOGY_LABELS_ADMISSION: True,
    # Alpha and off (v1.35 on; not in v1.33 and v1.34): the API server refuses hostNetwork with
    # hostUsers false (validateHostUsers).
    USER_NAMESPACES_HOST_NETWORK_SUPPORT: False,
    MUTABLE_SCHEDULING_DIRECTIVES_FOR_SUSPENDED_JOBS: False,  # Alpha
    MUTABLE_POD_RESOURCES_FOR_SUSPENDED_JOBS: False,  # Alpha
    MUTATING_ADMISSION_POLICY: False,  # Beta, off by default
}
# v1.34.7: the gates the scheduler reads have v1.35's defaults (golden-v1.34/README.md).
_GATES_1_34: dict[str, bool] = {
    **_GATES_1_35,
    POD_TOPOLOGY_LABELS_ADMISSION: False,  # Alpha
    MUTABLE_SCHEDULING_DIRECTIVES_FOR_SUSPENDED_JOBS: False,  # not in v1.34
    MUTABLE_POD_RESOURCES_FOR_SUSPENDED_JOBS: False,  # not in v1.34
}
# v1.33.3: DynamicResourceAllocation beta and off (no DynamicResources plugin), PodLevelResources
# alpha and off (pod-level resources do not count).
_GATES_1_33: dict[str, bool] = {
    **_GATES_1_34,
    DYNAMIC_RESOURCE_ALLOCATION: False,
    DRA_PRIORITIZED_LIST: False,  # Alpha
    DRA_ADMIN_ACCESS: False,  # Alpha
    DRA_SCHEDULER_FILTER_TIMEOUT: False,  # not in v1.33
    POD_LEVEL_RESOURCES: False,  # Alpha
}
_GATES_1_36: dict[str, bool] = {
    **_GATES_1_35,
    NODE_DECLARED_FEATURES: True,  # Beta
    DRA_EXTENDED_RESOURCE: True,  # Beta
    DRA_DEVICE_TAINTS: True,  # Beta
    DRA_DEVICE_TAINT_RULES: False,  # Beta, off by default
    DRA_PARTITIONABLE_DEVICES: True,  # Beta
    DRA_CONSUMABLE_CAPACITY: True,  # Beta
    DRA_PRIORITIZED_LIST: True,  # GA
    DRA_ADMIN_ACCESS: True,  # GA
    DRA_DEVICE_BINDING_CONDITIONS: True,  # Beta
    TOPOLOGY_AWARE_WORKLOAD_SCHEDULING: False,  # Alpha
    IMAGE_VOLUME: True,  # GA
    MUTABLE_SCHEDULING_DIRECTIVES_FOR_SUSPENDED_JOBS: True,  # Beta
    MUTABLE_POD_RESOURCES_FOR_SUSPENDED_JOBS: True,  # Beta
    MUTATING_ADMISSION_POLICY: True,  # GA
}

# Each emulated minor release's defaults.
DEFAULTS: Mapping[int, Mapping[str, bool]] = MappingProxyType(
    {
        33: MappingProxyType(_GATES_1_33),
        34: MappingProxyType(_GATES_1_34),
        35: MappingProxyType(_GATES_1_35),
        36: MappingProxyType(_GATES_1_36),
    }
)
