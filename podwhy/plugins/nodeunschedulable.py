"""NodeUnschedulable: cordoned nodes (spec.unschedulable) reject pods that don't tolerate it."""

from __future__ import annotations

from collections.abc import Hashable

from podwhy.framework.equivalence import NodeReader, reads_nothing
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


_UNSCHEDULABLE_TAINT = o.Taint(key=TAINT_NODE_UNSCHEDULABLE, effect="NoSchedule")


def _cordoned(node_info: NodeInfo) -> Hashable:
    # A cordoned node's rejection names it.
    return node_info.name if node_info.node.spec.unschedulable else None


class NodeUnschedulable(Plugin):
    NAME = names.NODE_UNSCHEDULABLE
    NODE_LOCAL_FILTER = True
    POD_PARTS = frozenset({PodPart.SPEC})

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status:
        if not node_info.node.spec.unschedulable:
            return success()
        # A pod that tolerates the unschedulable taint also tolerates spec.unschedulable.
        if tolerations_tolerate_taint(pod.pod.spec.tolerations, _UNSCHEDULABLE_TAINT):
            return success()
        return unresolvable(
            ERR_REASON_UNSCHEDULABLE,
            evidence=[UnschedulableEvidence(node=node_info.name, spec_unschedulable=True)],
        )

    def filter_key(self, state: CycleState, pod: PodInfo) -> NodeReader | None:
        if tolerations_tolerate_taint(pod.pod.spec.tolerations, _UNSCHEDULABLE_TAINT):
            return reads_nothing
        return _cordoned
