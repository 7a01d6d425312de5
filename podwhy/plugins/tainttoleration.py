"""TaintToleration: NoSchedule/NoExecute taints the pod doesn't tolerate reject the node."""

from __future__ import annotations

from podwhy.framework.interface import CycleState, Plugin
from podwhy.framework.status import Evidence, Status, success, unresolvable
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.plugins.helper.taints import (
    do_not_schedule_taints,
    find_matching_untolerated_taint,
    taint_to_string,
)

ERR_REASON_NOT_MATCH = "node(s) had taints that the pod didn't tolerate"
ERR_REASON_UNTOLERATED = "node(s) had untolerated taint(s)"


class TaintToleration(Plugin):
    name = "TaintToleration"

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status:
        taint = find_matching_untolerated_taint(
            node_info.node.spec.taints, pod.pod.spec.tolerations, do_not_schedule_taints
        )
        if taint is None:
            return success()
        return unresolvable(
            ERR_REASON_UNTOLERATED,
            evidence=[
                Evidence(
                    "taint",
                    {"taint": taint_to_string(taint), "key": taint.key, "value": taint.value, "effect": taint.effect},
                )
            ],
        )
