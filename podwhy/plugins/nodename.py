"""NodeName: a pod with spec.nodeName fits only that node."""

from __future__ import annotations

from podwhy.framework.equivalence import NodeReader, node_name, reads_nothing
from podwhy.framework.evidence import NodeNameEvidence
from podwhy.framework.interface import CycleState, Plugin
from podwhy.framework.signature import PodPart
from podwhy.framework.status import Status, success, unresolvable
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.plugins import names

ERR_REASON = "node(s) didn't match the requested node name"


def fits(pod: PodInfo, node_info: NodeInfo) -> bool:
    return not pod.pod.spec.node_name or pod.pod.spec.node_name == node_info.name


class NodeName(Plugin):
    NAME = names.NODE_NAME
    NODE_LOCAL_FILTER = True
    POD_PARTS = frozenset({PodPart.SPEC})

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status:
        if fits(pod, node_info):
            return success()
        return unresolvable(
            ERR_REASON,
            evidence=[NodeNameEvidence(requested=pod.pod.spec.node_name, node=node_info.name)],
        )

    def filter_key(self, state: CycleState, pod: PodInfo) -> NodeReader | None:
        # Its rejection names the node.
        return node_name if pod.pod.spec.node_name else reads_nothing
