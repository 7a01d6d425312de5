"""PodTopologySpread PreFilter state, Filter check and nominated-pod updates (filtering.go)."""

from __future__ import annotations

import msgspec

from podwhy.framework.evidence import TopologySpreadEvidence
from podwhy.framework.status import Status, success, unresolvable, unschedulable
from podwhy.framework.types import NodeInfo
from podwhy.helpers.nodeselectors import RequiredNodeAffinity
from podwhy.model import objects as o
from podwhy.plugins.podtopologyspread.common import (
    ENABLE_NODE_INCLUSION_POLICY,
    SpreadConstraint,
    count_key,
    count_matching,
    node_labels_match_spread_constraints,
)

PRE_FILTER_STATE_KEY = "PreFilterPodTopologySpread"

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

MAX_INT32 = 2**31 - 1


class CriticalPaths:
    """The two domains with (about) the fewest matching pods; entry 0 always holds the minimum.

    Entry 1 is not guaranteed to be the second minimum, only >= entry 0, as upstream.
    """

    __slots__ = ("paths",)

    def __init__(self) -> None:
        # (topology value, match count); "" with MaxInt32 marks an unused slot.
        self.paths: list[tuple[str, int]] = [("", MAX_INT32), ("", MAX_INT32)]

    def update(self, topology_value: str, num: int) -> None:
        paths = self.paths
        if topology_value == paths[0][0]:
            index = 0
        elif topology_value == paths[1][0]:
            index = 1
        else:
            index = -1
        if index >= 0:
            paths[index] = (paths[index][0], num)
            if paths[0][1] > paths[1][1]:
                paths[0], paths[1] = paths[1], paths[0]
        elif num < paths[0][1]:
            paths[1] = paths[0]
            paths[0] = (topology_value, num)
        elif num < paths[1][1]:
            paths[1] = (topology_value, num)

    def clone(self) -> CriticalPaths:
        out = CriticalPaths()
        out.paths = list(self.paths)
        return out


class PreFilterState(msgspec.Struct):
    """Per-constraint match counts by topology value, computed in PreFilter and read in Filter."""

    constraints: list[SpreadConstraint] = msgspec.field(default_factory=list)
    critical_paths: list[CriticalPaths] = msgspec.field(default_factory=list)
    tp_value_to_match_num: list[dict[str, int]] = msgspec.field(default_factory=list)

    def min_match_num(self, constraint_index: int, min_domains: int) -> int:
        """The global minimum; 0 while there are fewer eligible domains than minDomains."""
        if len(self.tp_value_to_match_num[constraint_index]) < min_domains:
            return 0
        return self.critical_paths[constraint_index].paths[0][1]

    def clone(self) -> PreFilterState:
        return PreFilterState(
            constraints=self.constraints,  # never mutated, shared like upstream
            critical_paths=[paths.clone() for paths in self.critical_paths],
            tp_value_to_match_num=[dict(counts) for counts in self.tp_value_to_match_num],
        )


def calculate_pre_filter_state(
    pod: o.Pod, constraints: list[SpreadConstraint], nodes: list[NodeInfo]
) -> PreFilterState:
    """Count matching pods per topology domain over the nodes eligible for each constraint."""
    state = PreFilterState(
        constraints=constraints,
        critical_paths=[],
        tp_value_to_match_num=[{} for _ in constraints],
    )
    if not constraints:
        return state
    required = RequiredNodeAffinity.of_pod(pod)
    namespace = pod.metadata.namespace
    keys = [count_key(c.selector, namespace) for c in constraints]
    for node_info in nodes:
        node = node_info.node
        if not ENABLE_NODE_INCLUSION_POLICY and not required.matches(node):
            continue
        node_labels = node.metadata.labels
        if not node_labels_match_spread_constraints(node_labels, constraints):
            continue
        for index, c in enumerate(constraints):
            if ENABLE_NODE_INCLUSION_POLICY and not c.match_node_inclusion_policies(pod, node, required):
                continue
            value = node_labels[c.topology_key]
            count = count_matching(node_info, c.selector, namespace, keys[index])
            counts = state.tp_value_to_match_num[index]
            counts[value] = counts.get(value, 0) + count
    for counts in state.tp_value_to_match_num:
        paths = CriticalPaths()
        for value, num in counts.items():
            paths.update(value, num)
        state.critical_paths.append(paths)
    return state


def update_with_pod(state: PreFilterState, updated_pod: o.Pod, preemptor: o.Pod, node: o.Node, delta: int) -> None:
    """Add (delta 1) or remove (delta -1) one pod's contribution on `node` (AddPod/RemovePod)."""
    if updated_pod.metadata.namespace != preemptor.metadata.namespace:
        return
    node_labels = node.metadata.labels
    if not node_labels_match_spread_constraints(node_labels, state.constraints):
        return
    required = RequiredNodeAffinity.of_pod(preemptor)
    if not ENABLE_NODE_INCLUSION_POLICY and not required.matches(node):
        return
    pod_labels = updated_pod.metadata.labels
    for index, c in enumerate(state.constraints):
        if not c.selector.matches(pod_labels):
            continue
        if ENABLE_NODE_INCLUSION_POLICY and not c.match_node_inclusion_policies(preemptor, node, required):
            continue
        value = node_labels[c.topology_key]
        counts = state.tp_value_to_match_num[index]
        counts[value] = counts.get(value, 0) + delta
        state.critical_paths[index].update(value, counts[value])


def filter_node(state: PreFilterState, pod: o.Pod, node_info: NodeInfo) -> Status:
    """Reject the node when it lacks a topology key or placing the pod there exceeds a maxSkew."""
    if not state.constraints:
        return success()
    node_labels = node_info.node.metadata.labels
    pod_labels = pod.metadata.labels
    for index, c in enumerate(state.constraints):
        if c.topology_key not in node_labels:
            return unresolvable(
                ERR_REASON_NODE_LABEL_NOT_MATCH,
                evidence=[
                    TopologySpreadEvidence(
                        topology_key=c.topology_key,
                        max_skew=c.max_skew,
                        selector=str(c.selector),
                        missing_label=c.topology_key,
                    )
                ],
            )
        tp_value = node_labels[c.topology_key]
        min_match_num = state.min_match_num(index, c.min_domains)
        self_match_num = 1 if c.selector.matches(pod_labels) else 0
        match_num = state.tp_value_to_match_num[index].get(tp_value, 0)
        skew = match_num + self_match_num - min_match_num
        if skew > c.max_skew:
            return unschedulable(
                ERR_REASON_CONSTRAINTS_NOT_MATCH,
                evidence=[
                    TopologySpreadEvidence(
                        topology_key=c.topology_key,
                        max_skew=c.max_skew,
                        selector=str(c.selector),
                        domain=tp_value,
                        matching_pods=match_num,
                        self_match=self_match_num,
                        global_minimum=min_match_num,
                        eligible_domains=len(state.tp_value_to_match_num[index]),
                        min_domains=c.min_domains,
                        skew=skew,
                    )
                ],
            )
    return success()
