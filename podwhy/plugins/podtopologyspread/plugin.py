"""The PodTopologySpread plugin: constraints of the pod (or the configured defaults) and its extension points."""

from __future__ import annotations

from typing import TYPE_CHECKING

from podwhy.framework.equivalence import NodeReader, labels_at, reads_nothing
from podwhy.framework.interface import CycleState, Plugin, PreFilterResult
from podwhy.framework.plugin_args import SYSTEM_DEFAULTING, PluginArgs, PodTopologySpreadArgs, args_of
from podwhy.framework.signature import PodPart
from podwhy.framework.status import Status, error, skip, success
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.helpers.labelselectors import SelectorError
from podwhy.model import objects as o
from podwhy.plugins import names
from podwhy.plugins.podtopologyspread.common import (
    DO_NOT_SCHEDULE,
    SCHEDULE_ANYWAY,
    SYSTEM_DEFAULT_CONSTRAINTS,
    SpreadConstraint,
    build_default_constraints,
    filter_topology_spread_constraints,
    owner_kinds_needed,
)
from podwhy.plugins.podtopologyspread.filtering import (
    PRE_FILTER_STATE_KEY,
    PreFilterState,
    calculate_pre_filter_state,
    filter_node,
    update_with_pod,
)
from podwhy.plugins.podtopologyspread.scoring import (
    PRE_SCORE_STATE_KEY,
    PreScoreState,
    count_domains,
    init_pre_score_state,
    normalize_scores,
    score_node,
    score_nodes,
)

if TYPE_CHECKING:
    from podwhy.framework.handle import Handle


class ConstraintsError(Exception):
    """A constraint whose label selector does not parse."""


class PodTopologySpread(Plugin):
    NAME = names.POD_TOPOLOGY_SPREAD
    CURED_BY_EMPTY_NODE = True
    POD_PARTS = frozenset({PodPart.NAMESPACE, PodPart.LABELS, PodPart.SPEC})
    ARGS = PodTopologySpreadArgs

    def __init__(self, handle: Handle, args: PluginArgs | None = None) -> None:
        super().__init__(handle, args)
        spread_args = args_of(PodTopologySpreadArgs, args)
        self.system_defaulted = spread_args.defaulting_type == SYSTEM_DEFAULTING
        self.default_constraints: list[o.TopologySpreadConstraint]
        if self.system_defaulted:
            self.default_constraints = list(SYSTEM_DEFAULT_CONSTRAINTS)
        else:
            self.default_constraints = list(spread_args.default_constraints)

    # ------------------------------------------------------------------ constraints
    def constraints_for(self, pod: o.Pod, action: str) -> list[SpreadConstraint]:
        """The pod's own constraints for `action`, or the default ones when it declares none."""
        kind = "hard" if action == DO_NOT_SCHEDULE else "soft"
        if pod.spec.topology_spread_constraints:
            try:
                return filter_topology_spread_constraints(
                    pod.spec.topology_spread_constraints, pod.metadata.labels, action
                )
            except SelectorError as exc:
                raise ConstraintsError(f"obtaining pod's {kind} topology spread constraints: {exc}") from exc
        try:
            return build_default_constraints(pod, self.default_constraints, self.handle.snapshot, action)
        except SelectorError as exc:
            raise ConstraintsError(f"setting default {kind} topology spread constraints: {exc}") from exc

    def required_kinds(self, pod: PodInfo) -> set[str]:
        # Owners and Services only matter when default DoNotSchedule constraints apply.
        if pod.pod.spec.topology_spread_constraints:
            return set()
        if not any(c.when_unsatisfiable == DO_NOT_SCHEDULE for c in self.default_constraints):
            return set()
        return owner_kinds_needed(pod.pod)

    def required_kinds_for_score(self, pod: PodInfo) -> set[str]:
        # Scoring uses the (ScheduleAnyway) defaults too, built from the pod's owners.
        if pod.pod.spec.topology_spread_constraints or not self.default_constraints:
            return set()
        return owner_kinds_needed(pod.pod)

    # ------------------------------------------------------------------ PreFilter
    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        try:
            constraints = self.constraints_for(pod.pod, DO_NOT_SCHEDULE)
        except ConstraintsError as exc:
            return None, error(f"get constraints from pod: {exc}")
        if not constraints:
            return None, skip()
        state.write(PRE_FILTER_STATE_KEY, calculate_pre_filter_state(pod.pod, constraints, nodes))
        return None, success()

    def add_pod(self, state: CycleState, pod: PodInfo, to_add: PodInfo, node_info: NodeInfo) -> Status:
        return self._update(state, pod, to_add, node_info, 1)

    def remove_pod(self, state: CycleState, pod: PodInfo, to_remove: PodInfo, node_info: NodeInfo) -> Status:
        return self._update(state, pod, to_remove, node_info, -1)

    def _update(self, state: CycleState, pod: PodInfo, changed: PodInfo, node_info: NodeInfo, delta: int) -> Status:
        pre = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(pre, PreFilterState):
            return error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        update_with_pod(pre, changed.pod, pod.pod, node_info.node, delta)
        return success()

    # ------------------------------------------------------------------ Filter
    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status:
        pre = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(pre, PreFilterState):
            return error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        return filter_node(pre, pod.pod, node_info)

    def filter_key(self, state: CycleState, pod: PodInfo) -> NodeReader | None:
        # Counts are per topology domain: the node's domain (or its lack) of each constraint.
        pre = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(pre, PreFilterState):
            return reads_nothing  # the same error on every node
        return labels_at([c.topology_key for c in pre.constraints])

    # ------------------------------------------------------------------ PreScore / Score
    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
        all_nodes = self.handle.node_infos
        if not all_nodes:
            return skip()
        # Nodes without every topology key still get hostname spreading under the system defaults.
        require_all_topologies = bool(pod.pod.spec.topology_spread_constraints) or not self.system_defaulted
        try:
            constraints = self.constraints_for(pod.pod, SCHEDULE_ANYWAY)
        except ConstraintsError as exc:
            return error(f"calculating preScoreState: {exc}")
        if not constraints:
            return skip()
        handle = self.handle
        memos = handle.memos.setdefault(self.NAME, {})
        pre = init_pre_score_state(constraints, nodes, require_all_topologies, memos)
        count_domains(
            pre,
            pod.pod,
            all_nodes,
            require_all_topologies,
            memos,
            handle.pod_changes,
            handle.node_info_by_name,
        )
        state.write(PRE_SCORE_STATE_KEY, pre)
        return success()

    def _pre_score_state(self, state: CycleState) -> PreScoreState | Status:
        pre = state.get(PRE_SCORE_STATE_KEY)
        if not isinstance(pre, PreScoreState):
            return error(f'error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        return pre

    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> tuple[int, Status]:
        pre = self._pre_score_state(state)
        if isinstance(pre, Status):
            return 0, pre
        return score_node(pre, pod.pod, node_info)

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> tuple[dict[str, int], Status]:
        pre = self._pre_score_state(state)
        if isinstance(pre, Status):
            return {}, pre
        return score_nodes(pre, pod.pod, nodes, self.handle, self.handle.memos.setdefault(self.NAME, {})), success()

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status:
        pre = self._pre_score_state(state)
        if isinstance(pre, Status):
            return pre
        return normalize_scores(pre, scores)
