"""Node labels and taints that suggestions treat with care, each with the reason, in one place.

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
from dataclasses import dataclass

from podwhy.model.wellknown import (
    LABEL_ARCH_STABLE,
    LABEL_HOSTNAME,
    LABEL_OS_STABLE,
    TAINT_NODE_NOT_READY,
    TAINT_NODE_UNREACHABLE,
    TAINT_NODE_UNSCHEDULABLE,
)


@dataclass(frozen=True)
class Rule:
    """A key (`kubernetes.io/hostname`), a key prefix ending in `/` (`topology.kubernetes.io/`:
    every key of that prefix), or a domain suffix starting with `.` (`.kubernetes.io`: every key
    whose prefix ends with it), with why it is special."""

    pattern: str
    reason: str

    def matches(self, key: str) -> bool:
        if self.pattern.endswith("/"):
            return key.startswith(self.pattern)
        if self.pattern.startswith("."):
            prefix, slash, _ = key.partition("/")
            return bool(slash) and ("." + prefix).endswith(self.pattern)
        return key == self.pattern


def _first(rules: Sequence[Rule], key: str) -> Rule | None:
    return next((r for r in rules if r.matches(key)), None)


_CORE = "reserved for Kubernetes components (the kubernetes.io and k8s.io prefixes)"
_PLATFORM = "the kubelet sets it from the node's platform; DaemonSets and multi-arch images select on it"
_ZONE = "the cloud provider sets the node's zone and region; volume topology, spreading and load balancers rely on it"
_POOL = (
    "sets it for the node's {}; its autoscaling and node management rely on it, and new nodes of the {} "
    "would not get the change"
)
_EKS = "EKS " + _POOL.format("group", "group")
_GKE = "GKE " + _POOL.format("pool", "pool")
_AKS = "AKS " + _POOL.format("pool", "pool")
_KARPENTER = "Karpenter sets it for the nodes it provisions; its NodePools and disruption rely on it"

# Most specific first: the first rule matching a key gives its reason.
WELL_KNOWN_LABELS: tuple[Rule, ...] = (
    Rule(
        LABEL_HOSTNAME,
        "the kubelet sets it to the node's hostname; hostname topology (spreading, anti-affinity) and local "
        "volumes rely on it",
    ),
    Rule(LABEL_ARCH_STABLE, _PLATFORM),
    Rule(LABEL_OS_STABLE, _PLATFORM),
    Rule(
        "beta.kubernetes.io/",
        "the kubelet or the cloud provider still sets these deprecated labels (arch, os, instance-type); older "
        "selectors rely on them",
    ),
    Rule("topology.kubernetes.io/", _ZONE),
    Rule("failure-domain.beta.kubernetes.io/", _ZONE),
    Rule(
        "node.kubernetes.io/",
        "the kubelet or the cloud provider sets it (the instance type, ...); autoscalers and load balancers rely on it",
    ),
    # The kubelet may not set these (NodeRestriction); cluster tools do: kubeadm marks its control
    # plane, OpenShift's machine config pools select on node-role.kubernetes.io/worker.
    Rule(
        "node-role.kubernetes.io/",
        "cluster tools (kubeadm, kops, OpenShift) set the node's role; control-plane placement and node "
        "configuration select on it",
    ),
    Rule("kubernetes.io/role", "cluster tools (kops) set the node's role"),
    Rule(
        "node-restriction.kubernetes.io/",
        "an administrator sets it (a kubelet cannot) to keep workloads on nodes chosen for them",
    ),
    Rule(".kubernetes.io", _CORE),
    Rule(".k8s.io", _CORE),
    Rule("kubernetes.io/", _CORE),
    Rule("k8s.io/", _CORE),
    Rule("eks.amazonaws.com/", _EKS),
    Rule("alpha.eksctl.io/", "eksctl sets it for the node's group"),
    Rule("karpenter.sh/", _KARPENTER),
    Rule("karpenter.k8s.aws/", _KARPENTER),
    Rule("topology.ebs.csi.aws.com/", "the EBS CSI driver sets the node's zone; volume topology relies on it"),
    Rule("cloud.google.com/", _GKE),
    Rule("topology.gke.io/", "GKE sets the node's zone; volume topology relies on it"),
    Rule("node.gke.io/", _GKE),
    Rule("kubernetes.azure.com/", _AKS),
    Rule("agentpool", _AKS),
    Rule(
        "topology.disk.csi.azure.com/", "the Azure disk CSI driver sets the node's zone; volume topology relies on it"
    ),
    Rule(".x-k8s.io", "a Kubernetes SIG project (Cluster API, kwok, ...) sets it for the machines it manages"),
)


# A pod's requirement on its node's platform follows its images (built for that OS and CPU): the
# scheduler cannot tell, so dropping the requirement is never suggested, however it verifies.
PLATFORM_LABELS = frozenset({LABEL_ARCH_STABLE, LABEL_OS_STABLE, "beta.kubernetes.io/arch", "beta.kubernetes.io/os"})


def well_known_label(key: str) -> str | None:
    """Why a node label must not be changed by a suggestion; None for a label anyone may set."""
    rule = _first(WELL_KNOWN_LABELS, key)
    return rule.reason if rule is not None else None


# Taints of the node's condition or lifecycle: tolerating one puts the pod on a node that is not
# ready, under pressure, cordoned, going away, or the control plane.
CONDITION_TAINTS: tuple[Rule, ...] = (
    Rule(TAINT_NODE_NOT_READY, "the node is not ready"),
    Rule(TAINT_NODE_UNREACHABLE, "the node controller cannot reach the node"),
    Rule(TAINT_NODE_UNSCHEDULABLE, "the node is cordoned"),
    Rule("node.kubernetes.io/disk-pressure", "the node is short of disk"),
    Rule("node.kubernetes.io/memory-pressure", "the node is short of memory"),
    Rule("node.kubernetes.io/pid-pressure", "the node is short of process IDs"),
    Rule("node.kubernetes.io/network-unavailable", "the node's network is not configured"),
    Rule("node.kubernetes.io/out-of-service", "the node is out of service"),
    Rule("node.cloudprovider.kubernetes.io/uninitialized", "the cloud provider has not initialized the node"),
    Rule("node.cloudprovider.kubernetes.io/shutdown", "the node's machine is shut down"),
    Rule("node-role.kubernetes.io/control-plane", "the node is the control plane"),
    Rule("node-role.kubernetes.io/master", "the node is the control plane"),
    Rule("ToBeDeletedByClusterAutoscaler", "the cluster autoscaler is removing the node"),
    Rule("karpenter.sh/disrupted", "Karpenter is removing the node"),
    Rule("karpenter.sh/disruption", "Karpenter is removing the node"),
)

# Taints that set nodes aside for some workloads: whom for ({value}: the taint's value).
RESERVING_TAINTS: tuple[Rule, ...] = (
    Rule("nvidia.com/gpu", "pods that use their NVIDIA GPUs"),
    Rule("amd.com/gpu", "pods that use their AMD GPUs"),
    Rule("gpu.intel.com/", "pods that use their Intel GPUs"),
    Rule("google.com/tpu", "pods that use their TPUs"),
    Rule("aws.amazon.com/neuron", "pods that use their AWS Neuron accelerators"),
    Rule("vpc.amazonaws.com/efa", "pods that use their EFA network adapters"),
    Rule("dedicated", "the {value} workloads (their dedicated taint)"),
    Rule("cloud.google.com/gke-spot", "workloads that accept spot nodes, which can be stopped at short notice"),
    Rule(
        "cloud.google.com/gke-preemptible", "workloads that accept preemptible nodes, which can be stopped at any time"
    ),
    Rule(
        "kubernetes.azure.com/scalesetpriority",
        "workloads that accept spot nodes, which can be stopped at short notice",
    ),
    Rule("sandbox.gke.io/runtime", "pods that run in GKE Sandbox (gVisor)"),
    Rule(LABEL_ARCH_STABLE, "pods whose images are built for {value}"),
    Rule("CriticalAddonsOnly", "critical cluster add-ons"),
)


def condition_taint(key: str) -> str | None:
    """What a taint of the node's condition or lifecycle says about the node; None for other taints."""
    rule = _first(CONDITION_TAINTS, key)
    return rule.reason if rule is not None else None


def reserving_taint(key: str, value: str = "") -> str | None:
    """For whom a well-known reserving taint sets its nodes aside; None for other taints."""
    rule = _first(RESERVING_TAINTS, key)
    return rule.reason.format(value=value or key) if rule is not None else None
