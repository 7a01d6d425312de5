"""Node labels and taints that suggestions treat with care, each with its typed meaning, in one
place (report/words/meanings.py says them).

- Well-known labels are never suggested as a change to a node: Kubernetes, the cloud provider or
  cluster tooling sets them and other components rely on them. A pod selecting on one gets a
  suggestion about the pod (its selector names a value no node has) or about capacity instead.
- Taints of a node's condition or lifecycle are never tolerated in a suggestion: the honest
  answer is the node's condition.
- Taints that reserve nodes for some workloads are tolerated only as the last resort, saying for
  whom the nodes are reserved.

docs/suggestsafe.md lists them for users.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import Generic, TypeVar

import msgspec

from podwhy.model.wellknownnames import (
    LABEL_ARCH_STABLE,
    LABEL_HOSTNAME,
    LABEL_OS_STABLE,
    TAINT_NODE_NOT_READY,
    TAINT_NODE_UNREACHABLE,
    TAINT_NODE_UNSCHEDULABLE,
)

M = TypeVar("M", bound=Enum)


class LabelMeaning(Enum):
    """Who sets a well-known node label, and who relies on it."""

    HOSTNAME = "hostname"
    PLATFORM = "platform"
    BETA = "beta"
    ZONE = "zone"
    NODE = "node"
    NODE_ROLE = "nodeRole"
    KOPS_ROLE = "kopsRole"
    NODE_RESTRICTION = "nodeRestriction"
    CORE = "core"
    EKS = "eks"
    EKSCTL = "eksctl"
    KARPENTER = "karpenter"
    EBS_ZONE = "ebsZone"
    GKE = "gke"
    GKE_ZONE = "gkeZone"
    AKS = "aks"
    AZURE_DISK_ZONE = "azureDiskZone"
    SIG_PROJECT = "sigProject"


class NodeCondition(Enum):
    """What a taint of the node's condition or lifecycle says about the node."""

    NOT_READY = "notReady"
    UNREACHABLE = "unreachable"
    CORDONED = "cordoned"
    DISK_PRESSURE = "diskPressure"
    MEMORY_PRESSURE = "memoryPressure"
    PID_PRESSURE = "pidPressure"
    NETWORK_UNAVAILABLE = "networkUnavailable"
    OUT_OF_SERVICE = "outOfService"
    UNINITIALIZED = "uninitialized"
    SHUT_DOWN = "shutDown"
    CONTROL_PLANE = "controlPlane"
    AUTOSCALER_REMOVING = "autoscalerRemoving"
    KARPENTER_REMOVING = "karpenterRemoving"


class Reservation(Enum):
    """For whom a well-known reserving taint sets its nodes aside."""

    NVIDIA_GPU = "nvidiaGpu"
    AMD_GPU = "amdGpu"
    INTEL_GPU = "intelGpu"
    TPU = "tpu"
    NEURON = "neuron"
    EFA = "efa"
    # The taint's value names the workloads.
    DEDICATED = "dedicated"
    GKE_SPOT = "gkeSpot"
    GKE_PREEMPTIBLE = "gkePreemptible"
    AZURE_SPOT = "azureSpot"
    GVISOR = "gvisor"
    # The taint's value names the architecture.
    ARCH = "arch"
    CRITICAL_ADDONS = "criticalAddons"


class Rule(msgspec.Struct, Generic[M], frozen=True):
    """A key (`kubernetes.io/hostname`), a key prefix ending in `/` (`topology.kubernetes.io/`:
    every key of that prefix), or a domain suffix starting with `.` (`.kubernetes.io`: every key
    whose prefix ends with it), with why it is special (report/words/meanings.py says it)."""

    pattern: str
    meaning: M

    def matches(self, key: str) -> bool:
        if self.pattern.endswith("/"):
            return key.startswith(self.pattern)
        if self.pattern.startswith("."):
            prefix, slash, _ = key.partition("/")
            return bool(slash) and ("." + prefix).endswith(self.pattern)
        return key == self.pattern


def _first(rules: Sequence[Rule[M]], key: str) -> Rule[M] | None:
    return next((r for r in rules if r.matches(key)), None)


L = LabelMeaning
# Most specific first: the first rule matching a key gives its meaning.
WELL_KNOWN_LABELS: tuple[Rule[LabelMeaning], ...] = (
    Rule(LABEL_HOSTNAME, L.HOSTNAME),
    Rule(LABEL_ARCH_STABLE, L.PLATFORM),
    Rule(LABEL_OS_STABLE, L.PLATFORM),
    Rule("beta.kubernetes.io/", L.BETA),
    Rule("topology.kubernetes.io/", L.ZONE),
    Rule("failure-domain.beta.kubernetes.io/", L.ZONE),
    Rule("node.kubernetes.io/", L.NODE),
    # The kubelet may not set these (NodeRestriction); cluster tools do: kubeadm marks its control
    # plane, OpenShift's machine config pools select on node-role.kubernetes.io/worker.
    Rule("node-role.kubernetes.io/", L.NODE_ROLE),
    Rule("kubernetes.io/role", L.KOPS_ROLE),
    Rule("node-restriction.kubernetes.io/", L.NODE_RESTRICTION),
    Rule(".kubernetes.io", L.CORE),
    Rule(".k8s.io", L.CORE),
    Rule("kubernetes.io/", L.CORE),
    Rule("k8s.io/", L.CORE),
    Rule("eks.amazonaws.com/", L.EKS),
    Rule("alpha.eksctl.io/", L.EKSCTL),
    Rule("karpenter.sh/", L.KARPENTER),
    Rule("karpenter.k8s.aws/", L.KARPENTER),
    Rule("topology.ebs.csi.aws.com/", L.EBS_ZONE),
    Rule("cloud.google.com/", L.GKE),
    Rule("topology.gke.io/", L.GKE_ZONE),
    Rule("node.gke.io/", L.GKE),
    Rule("kubernetes.azure.com/", L.AKS),
    Rule("agentpool", L.AKS),
    Rule("topology.disk.csi.azure.com/", L.AZURE_DISK_ZONE),
    Rule(".x-k8s.io", L.SIG_PROJECT),
)


# A pod's requirement on its node's platform follows its images (built for that OS and CPU): the
# scheduler cannot tell, so dropping the requirement is never suggested, however it verifies.
PLATFORM_LABELS = frozenset({LABEL_ARCH_STABLE, LABEL_OS_STABLE, "beta.kubernetes.io/arch", "beta.kubernetes.io/os"})


def well_known_label(key: str) -> LabelMeaning | None:
    """Why a node label must not be changed by a suggestion; None for a label anyone may set."""
    rule = _first(WELL_KNOWN_LABELS, key)
    return rule.meaning if rule is not None else None


C = NodeCondition
# Taints of the node's condition or lifecycle: tolerating one puts the pod on a node that is not
# ready, under pressure, cordoned, going away, or the control plane.
CONDITION_TAINTS: tuple[Rule[NodeCondition], ...] = (
    Rule(TAINT_NODE_NOT_READY, C.NOT_READY),
    Rule(TAINT_NODE_UNREACHABLE, C.UNREACHABLE),
    Rule(TAINT_NODE_UNSCHEDULABLE, C.CORDONED),
    Rule("node.kubernetes.io/disk-pressure", C.DISK_PRESSURE),
    Rule("node.kubernetes.io/memory-pressure", C.MEMORY_PRESSURE),
    Rule("node.kubernetes.io/pid-pressure", C.PID_PRESSURE),
    Rule("node.kubernetes.io/network-unavailable", C.NETWORK_UNAVAILABLE),
    Rule("node.kubernetes.io/out-of-service", C.OUT_OF_SERVICE),
    Rule("node.cloudprovider.kubernetes.io/uninitialized", C.UNINITIALIZED),
    Rule("node.cloudprovider.kubernetes.io/shutdown", C.SHUT_DOWN),
    Rule("node-role.kubernetes.io/control-plane", C.CONTROL_PLANE),
    Rule("node-role.kubernetes.io/master", C.CONTROL_PLANE),
    Rule("ToBeDeletedByClusterAutoscaler", C.AUTOSCALER_REMOVING),
    Rule("karpenter.sh/disrupted", C.KARPENTER_REMOVING),
    Rule("karpenter.sh/disruption", C.KARPENTER_REMOVING),
)

R = Reservation
# Taints that set nodes aside for some workloads: whom for.
RESERVING_TAINTS: tuple[Rule[Reservation], ...] = (
    Rule("nvidia.com/gpu", R.NVIDIA_GPU),
    Rule("amd.com/gpu", R.AMD_GPU),
    Rule("gpu.intel.com/", R.INTEL_GPU),
    Rule("google.com/tpu", R.TPU),
    Rule("aws.amazon.com/neuron", R.NEURON),
    Rule("vpc.amazonaws.com/efa", R.EFA),
    Rule("dedicated", R.DEDICATED),
    Rule("cloud.google.com/gke-spot", R.GKE_SPOT),
    Rule("cloud.google.com/gke-preemptible", R.GKE_PREEMPTIBLE),
    Rule("kubernetes.azure.com/scalesetpriority", R.AZURE_SPOT),
    Rule("sandbox.gke.io/runtime", R.GVISOR),
    Rule(LABEL_ARCH_STABLE, R.ARCH),
    Rule("CriticalAddonsOnly", R.CRITICAL_ADDONS),
)


class Reserving(msgspec.Struct, frozen=True):
    """A well-known reserving taint's meaning, and its value (its key when it has none): the
    dedicated workloads' name, the architecture."""

    reservation: Reservation
    value: str


def condition_taint(key: str) -> NodeCondition | None:
    """What a taint of the node's condition or lifecycle says about the node; None for other taints."""
    rule = _first(CONDITION_TAINTS, key)
    return rule.meaning if rule is not None else None


def reserving_taint(key: str, value: str = "") -> Reserving | None:
    """For whom a well-known reserving taint sets its nodes aside; None for other taints."""
    rule = _first(RESERVING_TAINTS, key)
    return Reserving(rule.meaning, value or key) if rule is not None else None
