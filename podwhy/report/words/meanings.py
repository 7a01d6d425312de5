"""Well-known labels and taints in words: analysis/keymeanings.py's meanings said as the reason a
label is never changed, what a condition taint says of its node, and for whom a reserving taint
sets its nodes aside."""

from __future__ import annotations

from podwhy.analysis.keymeanings import LabelMeaning, NodeCondition, Reservation, Reserving

_CORE = "reserved for Kubernetes components (the kubernetes.io and k8s.io prefixes)"
_PLATFORM = "the kubelet sets it from the node's platform; DaemonSets and multi-arch images select on it"
_ZONE = "the cloud provider sets the node's zone and region; volume topology, spreading and load balancers rely on it"
_POOL = (
    "sets it for the node's {}; its autoscaling and node management rely on it, and new nodes of the {} "
    "would not get the change"
)
_KARPENTER = "Karpenter sets it for the nodes it provisions; its NodePools and disruption rely on it"
_GKE = "GKE " + _POOL.format("pool", "pool")
_AKS = "AKS " + _POOL.format("pool", "pool")

LABELS: dict[LabelMeaning, str] = {
    LabelMeaning.HOSTNAME: "the kubelet sets it to the node's hostname; hostname topology (spreading, "
    "anti-affinity) and local volumes rely on it",
    LabelMeaning.PLATFORM: _PLATFORM,
    LabelMeaning.BETA: "the kubelet or the cloud provider still sets these deprecated labels (arch, os, "
    "instance-type); older selectors rely on them",
    LabelMeaning.ZONE: _ZONE,
    LabelMeaning.NODE: "the kubelet or the cloud provider sets it (the instance type, ...); autoscalers and load "
    "balancers rely on it",
    LabelMeaning.NODE_ROLE: "cluster tools (kubeadm, kops, OpenShift) set the node's role; control-plane placement "
    "and node configuration select on it",
    LabelMeaning.KOPS_ROLE: "cluster tools (kops) set the node's role",
    LabelMeaning.NODE_RESTRICTION: "an administrator sets it (a kubelet cannot) to keep workloads on nodes chosen "
    "for them",
    LabelMeaning.CORE: _CORE,
    LabelMeaning.EKS: "EKS " + _POOL.format("group", "group"),
    LabelMeaning.EKSCTL: "eksctl sets it for the node's group",
    LabelMeaning.KARPENTER: _KARPENTER,
    LabelMeaning.EBS_ZONE: "the EBS CSI driver sets the node's zone; volume topology relies on it",
    LabelMeaning.GKE: _GKE,
    LabelMeaning.GKE_ZONE: "GKE sets the node's zone; volume topology relies on it",
    LabelMeaning.AKS: _AKS,
    LabelMeaning.AZURE_DISK_ZONE: "the Azure disk CSI driver sets the node's zone; volume topology relies on it",
    LabelMeaning.SIG_PROJECT: "a Kubernetes SIG project (Cluster API, kwok, ...) sets it for the machines it manages",
}

CONDITIONS: dict[NodeCondition, str] = {
    NodeCondition.NOT_READY: "the node is not ready",
    NodeCondition.UNREACHABLE: "the node controller cannot reach the node",
    NodeCondition.CORDONED: "the node is cordoned",
    NodeCondition.DISK_PRESSURE: "the node is short of disk",
    NodeCondition.MEMORY_PRESSURE: "the node is short of memory",
    NodeCondition.PID_PRESSURE: "the node is short of process IDs",
    NodeCondition.NETWORK_UNAVAILABLE: "the node's network is not configured",
    NodeCondition.OUT_OF_SERVICE: "the node is out of service",
    NodeCondition.UNINITIALIZED: "the cloud provider has not initialized the node",
    NodeCondition.SHUT_DOWN: "the node's machine is shut down",
    NodeCondition.CONTROL_PLANE: "the node is the control plane",
    NodeCondition.AUTOSCALER_REMOVING: "the cluster autoscaler is removing the node",
    NodeCondition.KARPENTER_REMOVING: "Karpenter is removing the node",
}

# {value}: the taint's value (its key when it has none).
RESERVATIONS: dict[Reservation, str] = {
    Reservation.NVIDIA_GPU: "pods that use their NVIDIA GPUs",
    Reservation.AMD_GPU: "pods that use their AMD GPUs",
    Reservation.INTEL_GPU: "pods that use their Intel GPUs",
    Reservation.TPU: "pods that use their TPUs",
    Reservation.NEURON: "pods that use their AWS Neuron accelerators",
    Reservation.EFA: "pods that use their EFA network adapters",
    Reservation.DEDICATED: "the {value} workloads (their dedicated taint)",
    Reservation.GKE_SPOT: "workloads that accept spot nodes, which can be stopped at short notice",
    Reservation.GKE_PREEMPTIBLE: "workloads that accept preemptible nodes, which can be stopped at any time",
    Reservation.AZURE_SPOT: "workloads that accept spot nodes, which can be stopped at short notice",
    Reservation.GVISOR: "pods that run in GKE Sandbox (gVisor)",
    Reservation.ARCH: "pods whose images are built for {value}",
    Reservation.CRITICAL_ADDONS: "critical cluster add-ons",
}


def label_text(meaning: LabelMeaning) -> str:
    """Why a well-known node label is never changed by a suggestion."""
    return LABELS[meaning]


def condition_text(condition: NodeCondition) -> str:
    """What a taint of the node's condition or lifecycle says about the node."""
    return CONDITIONS[condition]


def reserving_text(reserving: Reserving) -> str:
    """For whom a reserving taint sets its nodes aside."""
    return RESERVATIONS[reserving.reservation].format(value=reserving.value)
