"""The preemption evaluator (pkg/scheduler/framework/preemption): the dry run over the nodes, the
candidates, the choice of one (SelectCandidate, pickOneNodeForPreemption) and the outcome, with
the Interface a preemption plugin implements for the rest (how many candidates, whether the pod
may preempt, the victims on one node, the order of the score functions). DefaultPreemption's
implementation is the plugin's (plugins/defaultpreemption.py): the framework knows no plugin.

A dry run only: nothing is evicted. Where kube-scheduler is random (the node it starts the
dry run at, Go map order among tied candidates) podwhy takes the snapshot's node order,
starting at the first node, so the same input always gives the same answer.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Protocol

import msgspec

from podwhy.framework import equivalence
from podwhy.framework.fiterror import nodes_available_message
from podwhy.framework.interface import CycleState, FilterRunner, PostFilterResult
from podwhy.framework.status import Code, Status
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.helpers.labelselectors import Selector, SelectorError, label_selector_as_selector
from podwhy.model import objects as o

ERR_NOT_HELPFUL = "Preemption is not helpful for scheduling"
ERR_NO_CANDIDATE = "no candidate node for preemption"
ERR_NO_NODES = "no nodes available"

# A pod without status.startTime counts as starting now: later than any recorded time.
_NOW = math.inf
# MaxInt32 + 1: keeps sums of negative priorities ordered like their counts (pickOneNodeForPreemption).
_PRIORITY_OFFSET = 2**31


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


class Budget(msgspec.Struct, frozen=True):
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


# ---------------------------------------------------------------------- results


class Candidate(msgspec.Struct):
    """A node where evicting `victims` lets the pod fit."""

    node: str
    victims: list[PodInfo]
    num_pdb_violations: int
    # Budgets the evicted victims would break, per victim key.
    violated_pdbs: dict[str, list[str]] = msgspec.field(default_factory=dict)

    def pdbs(self) -> list[str]:
        return sorted({key for keys in self.violated_pdbs.values() for key in keys})


class PreemptionOutcome(msgspec.Struct):
    """What DefaultPreemption concluded; `message` is its status message without "preemption: "."""

    message: str = ""
    nominated_node: str | None = None
    victims: list[PodInfo] = msgspec.field(default_factory=list)
    violated_pdbs: list[str] = msgspec.field(default_factory=list)
    candidates: list[Candidate] = msgspec.field(default_factory=list)
    # Dry-run verdicts of the nodes examined that did not become candidates.
    node_statuses: dict[str, Status] = msgspec.field(default_factory=dict)
    potential_nodes: list[str] = msgspec.field(default_factory=list)
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

ScoreFunc = Callable[[str], float]


class Interface(Protocol):
    """preemption.Interface: what a preemption plugin decides for the Evaluator (the offset of
    GetOffsetAndNumCandidates is always 0 here: the dry run starts at the first node)."""

    def num_candidates(self, num_nodes: int) -> int:
        """GetOffsetAndNumCandidates' number: how many candidates the dry run looks for."""
        ...

    def pod_eligible_to_preempt_others(self, pod: PodInfo, nominated_node_status: Status) -> tuple[bool, str]:
        """PodEligibleToPreemptOthers: whether the pod may preempt, else why not."""
        ...

    def without_victims(self, pod: PodInfo, node_info: NodeInfo) -> Status | None:
        """The status select_victims_on_node gives a node where no pod may be a victim, found
        without copying the node or the state (None: some pod may be, select them)."""
        ...

    def select_victims_on_node(
        self, state: CycleState, pod: PodInfo, node_info: NodeInfo, budgets: Sequence[Budget]
    ) -> tuple[list[PodInfo], int, Status, dict[str, list[str]]]:
        """SelectVictimsOnNode on a copy of the node and state the caller owns: the victims, how
        many of them break a PodDisruptionBudget, the status, and the budgets each victim breaks."""
        ...

    def ordered_score_funcs(self, candidates: Mapping[str, Candidate]) -> list[ScoreFunc] | None:
        """OrderedScoreFuncs: None for pickOneNodeForPreemption's own."""
        ...


class Evaluator:
    """preemption.Evaluator: runs preemption with a plugin's Interface."""

    def __init__(
        self,
        framework: FilterRunner,
        node_infos: Sequence[NodeInfo],
        pdbs: Sequence[o.PodDisruptionBudget],
        interface: Interface,
    ) -> None:
        self.framework = framework
        self.node_infos = list(node_infos)
        self.budgets = [Budget.of(pdb) for pdb in pdbs]
        self.interface = interface

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
            # Most nodes of a large cluster of one priority hold no victim: they are told so
            # without the copies, which only a selection of victims changes (off with the
            # equivalence classes, so that their property test compares with the copies made).
            none = self.interface.without_victims(pod, node) if equivalence.ENABLED else None
            if none is not None:
                statuses[node.name] = none
                continue
            node_copy = node.snapshot()
            state_copy = state.clone()
            victims, num_pdb, status, violated = self.interface.select_victims_on_node(
                state_copy, pod, node_copy, self.budgets
            )
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
        eligible, reason = self.interface.pod_eligible_to_preempt_others(pod, node_status(node_statuses, nominated))
        if not eligible:
            outcome.eligible = False
            outcome.message = reason
            return None, Status(Code.Unschedulable, [reason]), outcome

        if not self.node_infos:
            outcome.message = ERR_NO_NODES
            return None, Status(Code.Error, [ERR_NO_NODES]), outcome
        # Nodes whose failure removing pods could fix; unresolvable ones are not tried.
        # (node_status of a node without a status is unresolvable: never tried.)
        status_of, unschedulable = node_statuses.get, Code.Unschedulable
        potential = [
            ni for ni in self.node_infos if (st := status_of(ni.name)) is not None and st.code == unschedulable
        ]
        outcome.potential_nodes = [ni.name for ni in potential]
        candidates: list[Candidate] = []
        statuses: dict[str, Status] = {}
        errors: list[str] = []
        if potential:
            outcome.dry_run = True
            num_candidates = self.interface.num_candidates(len(potential))
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

        best = select_candidate(candidates, self.interface.ordered_score_funcs({c.node: c for c in candidates}))
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


# ---------------------------------------------------------------------- choosing the node


def _score_functions(candidates: Mapping[str, Candidate]) -> list[ScoreFunc]:
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


def pick_one_node_for_preemption(candidates: Sequence[Candidate], score_funcs: list[ScoreFunc] | None = None) -> str:
    """pickOneNodeForPreemption with the plugin's score functions (None: the default ones); the
    final tie goes to the first candidate in dry-run order."""
    if not candidates:
        return ""
    by_node = {c.node: c for c in candidates}
    remaining = list(by_node)
    for score in score_funcs if score_funcs is not None else _score_functions(by_node):
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


def select_candidate(candidates: Sequence[Candidate], score_funcs: list[ScoreFunc] | None = None) -> Candidate | None:
    """SelectCandidate (without extenders)."""
    if not candidates:
        return None
    if len(candidates) == 1:
        return candidates[0]
    node = pick_one_node_for_preemption(candidates, score_funcs)
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
