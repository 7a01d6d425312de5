"""DefaultPreemption: when no node fits, find the lower-priority pods whose eviction would let it fit.

The plugin is preemption.Interface as upstream's default_preemption.go implements it (how many
candidates, whether a pod may preempt, the victims on one node with the PodDisruptionBudgets they
break); the framework's Evaluator (framework/preemption.py) runs the dry run over the nodes and
picks the node. podwhy only dry-runs the preemption: it reports the node kube-scheduler would
nominate and the victims it would evict, and evicts nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from podwhy.framework.interface import CycleState, Plugin, PostFilterResult
from podwhy.framework.plugin_args import DefaultPreemptionArgs, PluginArgs, args_of
from podwhy.framework.preemption import (
    PREEMPTION_STATE_KEY,
    Budget,
    Candidate,
    Evaluator,
    ScoreFunc,
    importance_key,
)
from podwhy.framework.signature import PodPart
from podwhy.framework.status import Code, Status, unresolvable
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.model import objects as o
from podwhy.plugins import names

if TYPE_CHECKING:
    from podwhy.framework.handle import Handle

MESSAGE_PREFIX = "preemption: "

ERR_NO_VICTIMS = "No preemption victims found for incoming pod"
ERR_POLICY_NEVER = "not eligible due to preemptionPolicy=Never."
ERR_TERMINATING_ON_NOMINATED = "not eligible due to a terminating pod on the nominated node."

PREEMPT_NEVER = "Never"
DISRUPTION_TARGET = "DisruptionTarget"
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"


def calculate_num_candidates(args: DefaultPreemptionArgs, num_nodes: int) -> int:
    """calculateNumCandidates: a percentage of the nodes, at least the absolute, at most all."""
    n = num_nodes * args.min_candidate_nodes_percentage // 100
    n = max(n, args.min_candidate_nodes_absolute)
    return min(n, num_nodes)


def terminating_by_preemption(pod: o.Pod) -> bool:
    """podTerminatingByPreemption: being deleted with a scheduler-set DisruptionTarget condition."""
    if pod.metadata.deletion_timestamp is None:
        return False
    for condition in pod.status.conditions:
        if condition.type == DISRUPTION_TARGET:
            return condition.status == "True" and condition.reason == REASON_PREEMPTION_BY_SCHEDULER
    return False


def _as_error(status: Status) -> Status:
    if status.code == Code.Error:
        return status
    return Status(Code.Error, list(status.reasons), status.plugin)


def filter_pods_with_pdb_violation(
    pods: Sequence[PodInfo], budgets: Sequence[Budget]
) -> tuple[list[PodInfo], list[PodInfo], dict[str, list[str]]]:
    """filterPodsWithPDBViolation, order-preserving; also which budgets each violating pod breaks."""
    allowed = [b.disruptions_allowed for b in budgets]
    violating: list[PodInfo] = []
    non_violating: list[PodInfo] = []
    broken: dict[str, list[str]] = {}
    for pi in pods:
        pod = pi.pod
        hit: list[str] = []
        if pod.metadata.labels:
            for i, budget in enumerate(budgets):
                if budget.namespace != pod.metadata.namespace or budget.selector is None:
                    continue
                if not budget.selector.matches(pod.metadata.labels):
                    continue
                # Already counted by the API server as disrupted: not a new violation.
                if pod.metadata.name in budget.disrupted_pods:
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    hit.append(budget.key)
        if hit:
            violating.append(pi)
            broken[pi.key] = hit
        else:
            non_violating.append(pi)
    return violating, non_violating, broken


class DefaultPreemption(Plugin):
    NAME = names.DEFAULT_PREEMPTION
    POD_PARTS = frozenset({PodPart.SPEC})
    # The pod's priority, which a PriorityClass gives it at admission.
    ADMISSION_KINDS = frozenset({"PriorityClass"})
    ARGS = DefaultPreemptionArgs
    # Its PreEnqueue holds back pods whose own preemption is still evicting victims.
    UNSIMULATED_POINTS = frozenset({"preEnqueue"})

    def __init__(self, handle: Handle, args: PluginArgs | None = None) -> None:
        super().__init__(handle, args)
        self.preemption_args = args_of(DefaultPreemptionArgs, args)

    def post_filter(
        self, state: CycleState, pod: PodInfo, node_statuses: dict[str, Status]
    ) -> tuple[PostFilterResult | None, Status]:
        if self.framework is None:
            return None, Status(Code.Error, ["preemption needs the framework to re-run filters"])
        evaluator = Evaluator(
            self.framework,
            self.handle.node_infos,
            self.handle.snapshot.pod_disruption_budgets,
            self,
        )
        result, status, outcome = evaluator.preempt(state, pod, node_statuses)
        state.write(PREEMPTION_STATE_KEY, outcome)
        msg = status.message()
        if msg:
            return result, Status(status.code, [MESSAGE_PREFIX + msg], self.NAME)
        return result, status

    # -------------------------------------------------------------- preemption.Interface
    def num_candidates(self, num_nodes: int) -> int:
        return calculate_num_candidates(self.preemption_args, num_nodes)

    def ordered_score_funcs(self, candidates: Mapping[str, Candidate]) -> list[ScoreFunc] | None:
        """DefaultPreemption has none of its own: pickOneNodeForPreemption's order."""
        return None

    # -------------------------------------------------------------- eligibility
    def is_eligible_pod(self, node_info: NodeInfo, victim: PodInfo, preemptor: PodInfo) -> bool:
        """IsEligiblePod: DefaultPreemption's own lets every lower-priority pod be a victim."""
        return True

    def is_preemption_allowed(self, node_info: NodeInfo, victim: PodInfo, preemptor: PodInfo) -> bool:
        """isPreemptionAllowed: only pods of lower priority are victims."""
        return victim.priority < preemptor.priority and self.is_eligible_pod(node_info, victim, preemptor)

    def pod_eligible_to_preempt_others(self, pod: PodInfo, nominated_node_status: Status) -> tuple[bool, str]:
        """PodEligibleToPreemptOthers: not with preemptionPolicy Never, nor while a victim of an
        earlier preemption is still terminating on the nominated node."""
        if pod.pod.spec.preemption_policy == PREEMPT_NEVER:
            return False, ERR_POLICY_NEVER
        nominated = pod.pod.status.nominated_node_name
        if nominated:
            # A nominated node the filters call unresolvable: look for another one.
            if nominated_node_status.code == Code.UnschedulableAndUnresolvable:
                return True, ""
            node_info = self.handle.node_info_by_name.get(nominated)
            if node_info is not None:
                for pi in node_info.pods:
                    if self.is_preemption_allowed(node_info, pi, pod) and terminating_by_preemption(pi.pod):
                        return False, ERR_TERMINATING_ON_NOMINATED
        return True, ""

    # -------------------------------------------------------------- victims on one node
    def without_victims(self, pod: PodInfo, node_info: NodeInfo) -> Status | None:
        priority = pod.priority
        if type(self).is_eligible_pod is DefaultPreemption.is_eligible_pod:
            # Every pod of lower priority may be a victim: is there one? (The node keeps its lowest
            # priority until its pods change: the pod's cycles in other releases ask it again.)
            lowest = node_info.lowest_priority()
            if lowest is not None and lowest < priority:
                return None
            return Status(Code.UnschedulableAndUnresolvable, [ERR_NO_VICTIMS])  # unresolvable's, made directly
        for pi in node_info.pods:
            # Only a pod of lower priority may be a victim: the others are not asked further (their
            # priority read as PodInfo.priority reads it, for every pod of every node tried).
            victim = pi.pod.spec.priority
            if (victim if victim is not None else 0) < priority and self.is_preemption_allowed(node_info, pi, pod):
                return None
        return unresolvable(ERR_NO_VICTIMS)

    def select_victims_on_node(
        self, state: CycleState, pod: PodInfo, node_info: NodeInfo, budgets: Sequence[Budget]
    ) -> tuple[list[PodInfo], int, Status, dict[str, list[str]]]:
        """SelectVictimsOnNode on a copy of the node and state the caller owns."""
        fw = self.framework
        assert fw is not None, "post_filter runs the evaluator only with the framework set"

        def remove(pi: PodInfo) -> Status:
            if not any(p.uid == pi.uid for p in node_info.pods):
                missing = f"no corresponding pod {pi.pod.metadata.name} in pods of node {node_info.name}"
                return Status(Code.Error, [missing])
            node_info.remove_pod(pi)
            return fw.run_pre_filter_extension_remove_pod(state, pod, pi, node_info)

        def add(pi: PodInfo) -> Status:
            node_info.add_pod_info(pi)
            return fw.run_pre_filter_extension_add_pod(state, pod, pi, node_info)

        # Upstream ranges over the node's pod slice while swap-removing from the same array;
        # mirror that visiting order, which decides the order of equally important victims.
        slots = list(node_info.pods)
        live = len(slots)
        potential: list[PodInfo] = []
        for i in range(len(slots)):
            pi = slots[i]
            if not self.is_preemption_allowed(node_info, pi, pod):
                continue
            potential.append(pi)
            at = next((j for j in range(live) if slots[j].uid == pi.uid), None)
            if at is not None:
                slots[at] = slots[live - 1]
                live -= 1
            st = remove(pi)
            if not st.is_success():
                return [], 0, _as_error(st), {}
        if not potential:
            return [], 0, unresolvable(ERR_NO_VICTIMS), {}

        # If the pod does not fit with every lower-priority pod gone, this node cannot help.
        status = fw.run_filter_plugins_with_nominated_pods(state, pod, node_info)
        if not status.is_success():
            return [], 0, status, {}

        # Python's sort is stable, like Go's sort.Slice on up to 12 elements (insertion sort); on
        # longer lists Go may order equally important pods (same priority and start) differently.
        potential.sort(key=importance_key)
        violating, non_violating, broken = filter_pods_with_pdb_violation(potential, budgets)
        victims: list[PodInfo] = []

        def reprieve(pi: PodInfo) -> tuple[bool, Status]:
            st = add(pi)
            if not st.is_success():
                return False, st
            fits = fw.run_filter_plugins_with_nominated_pods(state, pod, node_info).is_success()
            if not fits:
                st = remove(pi)
                if not st.is_success():
                    return False, st
                victims.append(pi)
            return fits, Status()

        num_violating = 0
        for pi in violating:
            fits, st = reprieve(pi)
            if not st.is_success():
                return [], 0, _as_error(st), {}
            if not fits:
                num_violating += 1
        for pi in non_violating:
            _, st = reprieve(pi)
            if not st.is_success():
                return [], 0, _as_error(st), {}
        if violating and non_violating:
            victims.sort(key=importance_key)
        victim_keys = {v.key for v in victims}
        violated = {key: pdbs for key, pdbs in broken.items() if key in victim_keys}
        return victims, num_violating, Status(), violated
