"""NodeUnschedulable: cordoned nodes (spec.unschedulable) reject pods that don't tolerate it."""

from __future__ import annotations

from podwhy.framework.evidence import UnschedulableEvidence
from podwhy.framework.interface import CycleState, Plugin
from podwhy.framework.signature import PodPart
from podwhy.framework.status import Status, success, unresolvable
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.helpers.nodetaints import tolerations_tolerate_taint
from podwhy.model import objects as o
from podwhy.model.wellknownnames import TAINT_NODE_UNSCHEDULABLE
from podwhy.plugins import names

ERR_REASON_UNKNOWN_CONDITION = "node(s) had unknown conditions"
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"


class NodeUnschedulable(Plugin):
    NAME = names.NODE_UNSCHEDULABLE
    NODE_LOCAL_FILTER = True
    POD_PARTS = frozenset({PodPart.SPEC})

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status:
        if not node_info.node.spec.unschedulable:
            return success()
        # A pod that tolerates the unschedulable taint also tolerates spec.unschedulable.
        taint = o.Taint(key=TAINT_NODE_UNSCHEDULABLE, effect="NoSchedule")
        if tolerations_tolerate_taint(pod.pod.spec.tolerations, taint):
            return success()
        return unresolvable(
            ERR_REASON_UNSCHEDULABLE,
            evidence=[UnschedulableEvidence(node=node_info.name, spec_unschedulable=True)],
        )
