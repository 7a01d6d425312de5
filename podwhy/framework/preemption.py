"""The preemption evaluator (framework/preemption and DefaultPreemption's victim selection).

A dry run only: nothing is evicted. Where kube-scheduler is random (the node it starts the
dry run at, Go map order among tied candidates) podwhy takes the snapshot's node order,
starting at the first node, so the same input always gives the same answer.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from podwhy.framework.fiterror import nodes_available_message
from podwhy.framework.interface import CycleState, FilterRunner, PostFilterResult
from podwhy.framework.plugin_args import DefaultPreemptionArgs
from podwhy.framework.status import Code, Status, unresolvable
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.helpers.labelselectors import Selector, SelectorError, label_selector_as_selector
from podwhy.model import objects as o

ERR_NO_VICTIMS = "No preemption victims found for incoming pod"
ERR_NOT_HELPFUL = "Preemption is not helpful for scheduling"
ERR_POLICY_NEVER = "not eligible due to preemptionPolicy=Never."
ERR_TERMINATING_ON_NOMINATED = "not eligible due to a terminating pod on the nominated node."
ERR_NO_CANDIDATE = "no candidate node for preemption"
ERR_NO_NODES = "no nodes available"

PREEMPT_NEVER = "Never"
DISRUPTION_TARGET = "DisruptionTarget"
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"

# A pod without status.startTime counts as starting now: later than any recorded time.
_NOW = math.inf
# MaxInt32 + 1: keeps sums of negative priorities ordered like their counts (pickOneNodeForPreemption).
_PRIORITY_OFFSET = 2**31


def calculate_num_candidates(args: DefaultPreemptionArgs, num_nodes: int) -> int:
    """calculateNumCandidates: a percentage of the nodes, at least the absolute, at most all."""
    n = num_nodes * args.min_candidate_nodes_percentage // 100
    n = max(n, args.min_candidate_nodes_absolute)
    return min(n, num_nodes)


# ---------------------------------------------------------------------- pod ordering


def pod_start_time(pod: o.Pod) -> float:
    """util.GetPodStartTime as a sortable number (seconds since the epoch, inf when not started)."""
    text = pod.status.start_time
    if not text:
        return _NOW
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return _NOW


def importance_key(pi: PodInfo) -> tuple[int, float]:
    """Sorting by this key ascending is util.MoreImportantPod: higher priority, then older, first."""
    return (-pi.priority, pod_start_time(pi.pod))


def earliest_start_time_of_top_priority(victims: Sequence[PodInfo]) -> float:
    """util.GetEarliestPodStartTime: the earliest start among the highest-priority victims."""
    top = max(v.priority for v in victims)
    return min(pod_start_time(v.pod) for v in victims if v.priority == top)


# ---------------------------------------------------------------------- PodDisruptionBudgets


@dataclass(frozen=True)
class Budget:
    """A PodDisruptionBudget with its parsed selector (None: matches no pod)."""

    key: str
    namespace: str
    selector: Selector | None
    disruptions_allowed: int
    disrupted_pods: frozenset[str]

    @classmethod
    def of(cls, pdb: o.PodDisruptionBudget) -> Budget:
        try:
            selector: Selector | None = label_selector_as_selector(pdb.spec.selector)
        except SelectorError:
            selector = None
        # A nil or empty selector matches nothing here.
        if selector is not None and (selector.nothing or selector.is_empty()):
            selector = None
        return cls(
            f"{pdb.metadata.namespace}/{pdb.metadata.name}",
            pdb.metadata.namespace,
            selector,
            pdb.status.disruptions_allowed,
            frozenset(pdb.status.disrupted_pods),
        )


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


# ---------------------------------------------------------------------- results


@dataclass
class Candidate:
    """A node where evicting `victims` lets the pod fit."""

    node: str
    victims: list[PodInfo]
    num_pdb_violations: int
    # Budgets the evicted victims would break, per victim key.
    violated_pdbs: dict[str, list[str]] = field(default_factory=dict)

    def pdbs(self) -> list[str]:
        return sorted({key for keys in self.violated_pdbs.values() for key in keys})


@dataclass
class PreemptionOutcome:
    """What DefaultPreemption concluded; `message` is its status message without "preemption: "."""

    message: str = ""
    nominated_node: str | None = None
    victims: list[PodInfo] = field(default_factory=list)
    violated_pdbs: list[str] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    # Dry-run verdicts of the nodes examined that did not become candidates.
    node_statuses: dict[str, Status] = field(default_factory=dict)
    potential_nodes: list[str] = field(default_factory=list)
    eligible: bool = True
    dry_run: bool = False

    def clone(self) -> PreemptionOutcome:
        return self


def fit_error_text(num_all_nodes: int, node_statuses: Mapping[str, Status], absent_reasons: Sequence[str]) -> str:
    """FitError.Error() for a node-status map without PreFilter or PostFilter messages."""
    counts: dict[str, int] = {}
    for status in node_statuses.values():
        for reason in status.reasons:
            counts[reason] = counts.get(reason, 0) + 1
    if len(node_statuses) < num_all_nodes:
        for reason in absent_reasons:
            counts[reason] = counts.get(reason, 0) + num_all_nodes - len(node_statuses)
    return nodes_available_message(num_all_nodes, counts)


# ---------------------------------------------------------------------- the evaluator

EligiblePodFunc = Callable[[NodeInfo, PodInfo, PodInfo], bool]


def _always_eligible(node_info: NodeInfo, victim: PodInfo, preemptor: PodInfo) -> bool:
    return True


class Evaluator:
    """preemption.Evaluator with DefaultPreemption's Interface methods."""

    def __init__(
        self,
        framework: FilterRunner,
        node_infos: Sequence[NodeInfo],
        pdbs: Sequence[o.PodDisruptionBudget],
        args: DefaultPreemptionArgs | None = None,
        is_eligible_pod: EligiblePodFunc = _always_eligible,
    ) -> None:
        self.framework = framework
        self.node_infos = list(node_infos)
        self.node_info_by_name = {ni.name: ni for ni in self.node_infos}
        self.budgets = [Budget.of(pdb) for pdb in pdbs]
        self.args = args or DefaultPreemptionArgs.default()
        self.is_eligible_pod = is_eligible_pod

    # -------------------------------------------------------------- eligibility
    def is_preemption_allowed(self, node_info: NodeInfo, victim: PodInfo, preemptor: PodInfo) -> bool:
        return victim.priority < preemptor.priority and self.is_eligible_pod(node_info, victim, preemptor)

    def pod_eligible_to_preempt_others(self, pod: PodInfo, nominated_node_status: Status) -> tuple[bool, str]:
        if pod.pod.spec.preemption_policy == PREEMPT_NEVER:
            return False, ERR_POLICY_NEVER
        nominated = pod.pod.status.nominated_node_name
        if nominated:
            # A nominated node the filters call unresolvable: look for another one.
            if nominated_node_status.code == Code.UnschedulableAndUnresolvable:
                return True, ""
            node_info = self.node_info_by_name.get(nominated)
            if node_info is not None:
                for pi in node_info.pods:
                    if self.is_preemption_allowed(node_info, pi, pod) and terminating_by_preemption(pi.pod):
                        return False, ERR_TERMINATING_ON_NOMINATED
        return True, ""

    # -------------------------------------------------------------- victims on one node
    def select_victims_on_node(
        self, state: CycleState, pod: PodInfo, node_info: NodeInfo
    ) -> tuple[list[PodInfo], int, Status, dict[str, list[str]]]:
        """SelectVictimsOnNode on a copy of the node and state the caller owns."""
        fw = self.framework

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
        violating, non_violating, broken = filter_pods_with_pdb_violation(potential, self.budgets)
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

    # -------------------------------------------------------------- all nodes
    def dry_run_preemption(
        self, state: CycleState, pod: PodInfo, potential_nodes: Sequence[NodeInfo], num_candidates: int
    ) -> tuple[list[Candidate], dict[str, Status], list[str]]:
        """DryRunPreemption, sequential from the first node; stops as upstream cancels its workers."""
        non_violating: list[Candidate] = []
        violating: list[Candidate] = []
        statuses: dict[str, Status] = {}
        errors: list[str] = []
        for node in potential_nodes:
            node_copy = node.snapshot()
            state_copy = state.clone()
            victims, num_pdb, status, violated = self.select_victims_on_node(state_copy, pod, node_copy)
            if status.is_success() and victims:
                candidate = Candidate(node.name, victims, num_pdb, violated)
                (non_violating if num_pdb == 0 else violating).append(candidate)
                if non_violating and len(non_violating) + len(violating) >= num_candidates:
                    break
                continue
            if status.is_success():
                status = Status(Code.Error, [f'expected at least one victim pod on node "{node.name}"'])
            if status.code == Code.Error:
                errors.append(status.message())
            statuses[node.name] = status
        return [*non_violating, *violating], statuses, errors

    def preempt(
        self, state: CycleState, pod: PodInfo, node_statuses: Mapping[str, Status]
    ) -> tuple[PostFilterResult | None, Status, PreemptionOutcome]:
        """Evaluator.Preempt without the API calls."""
        outcome = PreemptionOutcome()
        nominated = pod.pod.status.nominated_node_name
        eligible, reason = self.pod_eligible_to_preempt_others(pod, node_status(node_statuses, nominated))
        if not eligible:
            outcome.eligible = False
            outcome.message = reason
            return None, Status(Code.Unschedulable, [reason]), outcome

        if not self.node_infos:
            outcome.message = ERR_NO_NODES
            return None, Status(Code.Error, [ERR_NO_NODES]), outcome
        # Nodes whose failure removing pods could fix; unresolvable ones are not tried.
        potential = [ni for ni in self.node_infos if node_status(node_statuses, ni.name).code == Code.Unschedulable]
        outcome.potential_nodes = [ni.name for ni in potential]
        candidates: list[Candidate] = []
        statuses: dict[str, Status] = {}
        errors: list[str] = []
        if potential:
            outcome.dry_run = True
            num_candidates = calculate_num_candidates(self.args, len(potential))
            candidates, statuses, errors = self.dry_run_preemption(state, pod, potential, num_candidates)
        outcome.candidates = candidates
        outcome.node_statuses = statuses
        if errors and not candidates:
            # utilerrors.Aggregate's message: one error as is, several deduplicated in brackets.
            unique = list(dict.fromkeys(errors))
            msg = unique[0] if len(errors) == 1 or len(unique) == 1 else "[" + ", ".join(unique) + "]"
            outcome.message = msg
            return None, Status(Code.Error, [msg]), outcome
        if not candidates:
            msg = fit_error_text(len(self.node_infos), statuses, [ERR_NOT_HELPFUL])
            outcome.message = msg
            return PostFilterResult(""), Status(Code.Unschedulable, [msg]), outcome

        best = select_candidate(candidates)
        if best is None or not best.node:
            outcome.message = ERR_NO_CANDIDATE
            return None, Status(Code.Unschedulable, [ERR_NO_CANDIDATE]), outcome
        outcome.nominated_node = best.node
        outcome.victims = list(best.victims)
        outcome.violated_pdbs = best.pdbs()
        return PostFilterResult(best.node), Status(), outcome


def node_status(node_statuses: Mapping[str, Status], name: str) -> Status:
    """NodeToStatus.Get: a node without a status was rejected as unresolvable."""
    status = node_statuses.get(name)
    return status if status is not None else Status(Code.UnschedulableAndUnresolvable)


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


# ---------------------------------------------------------------------- choosing the node


def _score_functions(candidates: Mapping[str, Candidate]) -> list[Callable[[str], float]]:
    def fewest_pdb_violations(node: str) -> float:
        return -candidates[node].num_pdb_violations

    def lowest_top_priority(node: str) -> float:
        return -candidates[node].victims[0].priority

    def smallest_priority_sum(node: str) -> float:
        return -sum(v.priority + _PRIORITY_OFFSET for v in candidates[node].victims)

    def fewest_victims(node: str) -> float:
        return -len(candidates[node].victims)

    def latest_start_time(node: str) -> float:
        # A victim that has not started counts as starting now, the latest possible time.
        return earliest_start_time_of_top_priority(candidates[node].victims)

    return [fewest_pdb_violations, lowest_top_priority, smallest_priority_sum, fewest_victims, latest_start_time]


def pick_one_node_for_preemption(candidates: Sequence[Candidate]) -> str:
    """pickOneNodeForPreemption; the final tie goes to the first candidate in dry-run order."""
    if not candidates:
        return ""
    by_node = {c.node: c for c in candidates}
    remaining = list(by_node)
    for score in _score_functions(by_node):
        best = -math.inf
        selected: list[str] = []
        for node in remaining:
            value = score(node)
            if value > best:
                best = value
                selected = []
            if value == best:
                selected.append(node)
        if len(selected) == 1:
            return selected[0]
        remaining = selected
    return remaining[0]


def select_candidate(candidates: Sequence[Candidate]) -> Candidate | None:
    if not candidates:
        return None
    if len(candidates) == 1:
        return candidates[0]
    node = pick_one_node_for_preemption(candidates)
    for candidate in candidates:
        if candidate.node == node:
            return candidate
    return candidates[0]


# Where DefaultPreemption leaves its full outcome for the report.
PREEMPTION_STATE_KEY = "podwhy/preemption"


def preemption_outcome(state: CycleState) -> PreemptionOutcome | None:
    """The outcome DefaultPreemption stored in the cycle state, if it ran."""
    outcome = state.get(PREEMPTION_STATE_KEY)
    return outcome if isinstance(outcome, PreemptionOutcome) else None
