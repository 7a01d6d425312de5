"""The kubelet's admission of a pod bound to its node (pkg/kubelet/lifecycle/predicate.go).

A pod whose manifest sets `spec.nodeName` never meets the scheduler: the kubelet of that node
admits it or rejects it (the pod then fails with the kubelet's reason). Its checks, in its order,
the first failure alone being reported: the pod's `kubernetes.io/os` label against the node's;
then the scheduler's AdmissionCheck (NodeResourcesFit with the requests of extended resources the
node does not advertise dropped, required node affinity, node name, host ports), and the node's
NoExecute taints the pod does not tolerate.
"""

from __future__ import annotations

import msgspec

from podwhy.framework.types import NodeInfo, PodInfo, host_ports
from podwhy.helpers.nodeselectors import RequiredNodeAffinity
from podwhy.helpers.nodetaints import find_matching_untolerated_taint
from podwhy.helpers.resourcenames import is_extended_resource_name
from podwhy.model import objects as o
from podwhy.model.wellknownnames import LABEL_OS_STABLE
from podwhy.plugins import names, nodeaffinity, nodename, nodeports, tainttoleration
from podwhy.plugins.noderesources.fit import compute_pod_resource_request, fits_request

# The OS a kubelet runs on when its node does not say (runtime.GOOS of the Linux kubelet).
DEFAULT_NODE_OS = "linux"


def kubelet_os(node: o.Node) -> str:
    """The kubelet's runtime.GOOS, which its admission compares with: what it reports in
    status.nodeInfo.operatingSystem, else its node's kubernetes.io/os label (the kubelet sets it
    to the same), else Linux."""
    info = node.status.node_info
    return (
        (info.operating_system if info is not None else "")
        or node.metadata.labels.get(LABEL_OS_STABLE)
        or DEFAULT_NODE_OS
    )


# PodAdmitResult reasons (lifecycle/predicate.go).
POD_OS_SELECTOR_MISMATCH = "PodOSSelectorNodeLabelDoesNotMatch"
POD_OS_SELECTOR_MESSAGE = "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label"
POD_OS_NOT_SUPPORTED = "PodOSNotSupported"
POD_OS_NOT_SUPPORTED_MESSAGE = "Failed to admit pod as the OS field doesn't match node OS"
OUT_OF = {
    "cpu": "OutOfcpu",
    "memory": "OutOfmemory",
    "ephemeral-storage": "OutOfephemeral-storage",
    "pods": "OutOfpods",
}
INSUFFICIENT_RESOURCE_PREFIX = "OutOf"


class KubeletRejection(msgspec.Struct, frozen=True):
    """Why the kubelet would not admit the pod: the pod's status.reason and status.message."""

    reason: str
    message: str


def _predicate_failure(name: str, description: str) -> KubeletRejection:
    return KubeletRejection(name, f"Predicate {name} failed: {description}")


def admit(pod: o.Pod, node_info: NodeInfo) -> KubeletRejection | None:
    """None when the node's kubelet admits POD, else its first reason."""
    node = node_info.node
    node_os = kubelet_os(node)
    wanted_os = pod.metadata.labels.get(LABEL_OS_STABLE)
    if wanted_os is not None and wanted_os != node_os:
        return KubeletRejection(POD_OS_SELECTOR_MISMATCH, POD_OS_SELECTOR_MESSAGE)
    if pod.spec.os is not None and pod.spec.os.name and pod.spec.os.name != node_os:
        return KubeletRejection(POD_OS_NOT_SUPPORTED, POD_OS_NOT_SUPPORTED_MESSAGE)
    request = compute_pod_resource_request(pod)
    allocatable = node_info.allocatable.scalar_resources
    request.scalar_resources = {
        name: amount
        for name, amount in request.scalar_resources.items()
        if not is_extended_resource_name(name) or name in allocatable
    }
    short = fits_request(request, node_info)
    if short:
        first = short[0]
        reason = OUT_OF.get(first.resource_name, INSUFFICIENT_RESOURCE_PREFIX + first.resource_name)
        return KubeletRejection(
            reason,
            f"Node didn't have enough resource: {first.resource_name}, requested: {first.requested}, "
            f"used: {first.used}, capacity: {first.capacity}",
        )
    if not RequiredNodeAffinity.of_pod(pod).matches(node):
        return _predicate_failure(names.NODE_AFFINITY, nodeaffinity.ERR_REASON_POD)
    if not nodename.fits(PodInfo(pod), node_info):
        return _predicate_failure(names.NODE_NAME, nodename.ERR_REASON)
    used = node_info.used_ports
    if any(used.check_conflict(p.host_ip, p.protocol, p.host_port) for p in host_ports(pod)):
        return _predicate_failure(names.NODE_PORTS, nodeports.ERR_REASON)
    untolerated = find_matching_untolerated_taint(
        node.spec.taints, pod.spec.tolerations, lambda taint: taint.effect == "NoExecute"
    )
    if untolerated is not None:
        return _predicate_failure(names.TAINT_TOLERATION, tainttoleration.ERR_REASON_NOT_MATCH)
    return None
