"""What running a profile's plugins for one pod yields, as upstream's framework/types.go and
runtime return it: each PreFilter plugin's record, each node's Filter verdict, the filtering
outcome (upstream's Diagnosis) and its FitError message, the PostFilter outcome, and what an
identical pod's cycle lets the next one reuse. framework/runtime.py fills them."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from podwhy.framework.fiterror import NO_NODE_AVAILABLE_MSG, nodes_available_message
from podwhy.framework.interface import CycleState, Plugin, PostFilterResult, PreFilterResult
from podwhy.framework.notevaluated import NotEvaluated, merged
from podwhy.framework.preemption import PreemptionOutcome
from podwhy.framework.scoring import ScoreMemo
from podwhy.framework.status import Code, Status
from podwhy.framework.types import PodInfo
from podwhy.model.records import replace


class PreFilterRecord(msgspec.Struct):
    plugin: str
    status: Status
    node_names: set[str] | None = None


class NodeVerdict(msgspec.Struct):
    name: str
    filters: dict[str, Status] = msgspec.field(default_factory=dict)
    first_failure: Status | None = None
    feasible: bool = False
    nominated_pods: list[PodInfo] = msgspec.field(default_factory=list)
    # Whether the node would pass every filter without the room nominated pods reserve on it
    # (None when no nominated pod is counted here).
    feasible_without_nominated: bool | None = None


class Reuse(msgspec.Struct):
    """What the cycle of an earlier, identical pod learnt that still holds for this one (placement's
    identical replicas): each node's verdict, given when every filter of that cycle read only the
    pod and the node, and the raw scores of Score plugins that read only the pod and the node.
    The caller drops a node from both once a pod is bound to it. Verdicts are taken only when this
    pod's PreFilter skipped and could not evaluate the same plugins as that pod's did."""

    pre_filter_skips: frozenset[str] = frozenset()
    not_evaluated: frozenset[str] = frozenset()
    verdicts: dict[str, NodeVerdict] = msgspec.field(default_factory=dict)
    raw_scores: ScoreMemo = msgspec.field(default_factory=lambda: ScoreMemo(()))

    def forget(self, node: str) -> None:
        self.verdicts.pop(node, None)
        self.raw_scores.forget(node)


class FilterOutcome(msgspec.Struct):
    pre_filter: list[PreFilterRecord]
    # Upstream's combined PreFilter status (None when PreFilter succeeded).
    pre_filter_failure: Status | None
    pre_filter_result: PreFilterResult | None
    nodes: list[NodeVerdict]
    feasible: list[str]
    state: CycleState
    plugins: dict[str, Plugin]
    # PreFilter and Filter plugins not evaluated (kinds the snapshot lacks): a node may pass only for that.
    not_evaluated: dict[str, NotEvaluated]
    error: str | None = None
    # The profile's other plugins not evaluated for the pod (PostFilter ones, DefaultPreemption).
    other_not_evaluated: dict[str, NotEvaluated] = msgspec.field(default_factory=dict)
    # False when the walk stopped at enough feasible nodes: `nodes` holds only those walked.
    complete: bool = True
    # How many of `nodes`, first, are the known rejections given to run_filters (`settled`).
    settled_first: int = 0
    # Plugins that ran but could not tell a feasible node's verdict (a Filter status carrying
    # not_evaluated: DynamicResources' device selectors podwhy cannot evaluate), with why, said
    # once over those nodes: such a node may pass or fail.
    node_not_evaluated: dict[str, NotEvaluated] = msgspec.field(default_factory=dict)


class PostFilterOutcome(msgspec.Struct):
    """RunPostFilterPlugins: each plugin's status, the combined one and the nomination."""

    statuses: list[Status]
    status: Status
    result: PostFilterResult | None
    preemption: PreemptionOutcome | None
    # PostFilter plugins that could not be evaluated (kinds the snapshot lacks): the message lacks their part.
    not_evaluated: dict[str, NotEvaluated] = msgspec.field(default_factory=dict)
    # Plugins of the profile podwhy does not implement: the message lacks their part too.
    not_simulated: list[str] = msgspec.field(default_factory=list)
    # The preemption dry run assumed no PodDisruptionBudgets because the snapshot cannot vouch for them,
    # and it found candidates (among which budgets would choose).
    pdbs_assumed_none: bool = False
    # Filter plugins whose verdict on a node the PostFilter plugins re-filtered (the preemption
    # dry run) podwhy could not tell, taken as a pass there (DynamicResources' device selectors):
    # which node preemption helps, and the message's part, rest on them.
    filters_not_evaluated: dict[str, NotEvaluated] = msgspec.field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return not self.not_evaluated and not self.not_simulated and not self.filters_not_evaluated

    def message(self) -> str:
        return self.status.message()

    @property
    def preemption_message(self) -> str:
        """DefaultPreemption's own message; if it never ran, that of the plugin that stopped the run."""
        if self.preemption is not None:
            return self.preemption.message
        stopped_early = not self.status.is_success() and self.status.code != Code.Unschedulable
        return self.status.message() if stopped_early else ""


def fit_error_message(outcome: FilterOutcome, num_all_nodes: int) -> str:
    """FitError.Error() without the PostFilter part: "0/N nodes are available: ...".

    Reasons are counted per node and sorted as strings, as upstream does.
    """
    if outcome.pre_filter_failure is not None:
        return NO_NODE_AVAILABLE_MSG.format(num_all_nodes) + f": {outcome.pre_filter_failure.message()}."
    counts: dict[str, int] = {}
    for verdict in outcome.nodes:
        if verdict.first_failure is None:
            continue
        for reason in verdict.first_failure.reasons:
            counts[reason] = counts.get(reason, 0) + 1
    return nodes_available_message(num_all_nodes, counts)


def node_not_evaluated(nodes: list[NodeVerdict], plugins: Sequence[str]) -> dict[str, NotEvaluated]:
    """FilterOutcome.node_not_evaluated of NODES: per plugin of PLUGINS (Filter plugins that ran),
    what it could not tell of the feasible nodes, merged; the plugin named in the fact. Each
    Status object is read once (the nodes of an equivalence class share theirs)."""
    found: dict[str, list[NotEvaluated]] = {}
    seen: set[int] = set()
    for verdict in nodes:
        if not verdict.feasible:
            continue
        filters = verdict.filters
        for name in plugins:
            st = filters.get(name)
            if st is None or st.not_evaluated is None or id(st) in seen:
                continue
            seen.add(id(st))
            found.setdefault(name, []).append(st.not_evaluated)
    return {name: replace(merged(facts), plugins=(name,)) for name, facts in found.items()}
