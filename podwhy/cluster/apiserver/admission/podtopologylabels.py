"""The PodTopologyLabels admission plugin (plugin/pkg/admission/podtopologylabels, gate
PodTopologyLabelsAdmission: alpha and off in v1.33 and v1.34, beta and on from v1.35): when a pod
is bound to a node (its Binding, or a Pod created with spec.nodeName), the node's
`topology.kubernetes.io/zone` and `topology.kubernetes.io/region` labels are copied onto the pod,
replacing the pod's own values of those keys. A node without them, or not found, adds nothing."""

from __future__ import annotations

from podwhy.cluster.apiserver.admission.attributes import Attributes
from podwhy.features.emulation import Emulation
from podwhy.features.kubefeatures import POD_TOPOLOGY_LABELS_ADMISSION
from podwhy.model import objects as o
from podwhy.model.wellknownnames import LABEL_TOPOLOGY_REGION, LABEL_TOPOLOGY_ZONE

NAME = "PodTopologyLabels"

# The plugin's defaultConfig.
TOPOLOGY_LABELS = (LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION)


def enabled(emulation: Emulation) -> bool:
    """Whether the release's API server copies the labels at all."""
    return emulation.enabled(POD_TOPOLOGY_LABELS_ADMISSION)


def labels_to_copy(node: o.Node | None, emulation: Emulation) -> dict[str, str]:
    """topologyLabelsForNodeName: the node's topology labels the plugin copies (none when the
    release does not)."""
    if node is None or not enabled(emulation):
        return {}
    return {k: v for k, v in node.metadata.labels.items() if k in TOPOLOGY_LABELS}


def copy_topology_labels(pod: o.Pod, node: o.Node | None, emulation: Emulation) -> dict[str, str]:
    """admitBinding / admitPod: merge the node's topology labels into POD's (in place, the pod's
    own values of those keys replaced); the labels copied."""
    copied = labels_to_copy(node, emulation)
    if copied:
        pod.metadata.labels = {**pod.metadata.labels, **copied}
    return copied


def admit_pod(pod: o.Pod, attributes: Attributes) -> None:
    """At a pod's creation: a pod created bound gets its node's zone and region."""
    if pod.spec.node_name:
        node = next((n for n in attributes.snapshot.nodes if n.metadata.name == pod.spec.node_name), None)
        copy_topology_labels(pod, node, attributes.emulation)
