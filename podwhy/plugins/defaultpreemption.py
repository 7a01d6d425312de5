"""DefaultPreemption: when no node fits, find the lower-priority pods whose eviction would let it fit.

podwhy only dry-runs the preemption: it reports the node kube-scheduler would nominate and
the victims it would evict, and evicts nothing.
"""

from __future__ import annotations

from podwhy.framework.interface import CycleState, Plugin, PostFilterResult
from podwhy.framework.preemption import Evaluator, PreemptionArgs, PreemptionOutcome
from podwhy.framework.status import Code, Status
from podwhy.framework.types import PodInfo

# Where the plugin leaves its full outcome for the report.
PREEMPTION_STATE_KEY = "podwhy/preemption"
MESSAGE_PREFIX = "preemption: "


class DefaultPreemption(Plugin):
    name = "DefaultPreemption"

    def post_filter(
        self, state: CycleState, pod: PodInfo, node_statuses: dict[str, Status]
    ) -> tuple[PostFilterResult | None, Status]:
        if self.framework is None:
            return None, Status(Code.Error, ["preemption needs the framework to re-run filters"])
        evaluator = Evaluator(
            self.framework,
            self.handle.node_infos,
            self.handle.snapshot.pod_disruption_budgets,
            PreemptionArgs.from_args(self.args),
        )
        result, status, outcome = evaluator.preempt(state, pod, node_statuses)
        state.write(PREEMPTION_STATE_KEY, outcome)
        msg = status.message()
        if msg:
            return result, Status(status.code, [MESSAGE_PREFIX + msg], self.name)
        return result, status


def preemption_outcome(state: CycleState) -> PreemptionOutcome | None:
    """The outcome DefaultPreemption stored in the cycle state, if it ran."""
    outcome = state.get(PREEMPTION_STATE_KEY)
    return outcome if isinstance(outcome, PreemptionOutcome) else None
