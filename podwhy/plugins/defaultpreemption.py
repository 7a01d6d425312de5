"""DefaultPreemption: when no node fits, find the lower-priority pods whose eviction would let it fit.

podwhy only dry-runs the preemption: it reports the node kube-scheduler would nominate and
the victims it would evict, and evicts nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from podwhy.framework.interface import CycleState, Plugin, PostFilterResult
from podwhy.framework.plugin_args import DefaultPreemptionArgs, PluginArgs, args_of
from podwhy.framework.preemption import PREEMPTION_STATE_KEY, Evaluator
from podwhy.framework.signature import PodPart
from podwhy.framework.status import Code, Status
from podwhy.framework.types import PodInfo
from podwhy.plugins import names

if TYPE_CHECKING:
    from podwhy.framework.handle import Handle

MESSAGE_PREFIX = "preemption: "


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
            self.preemption_args,
        )
        result, status, outcome = evaluator.preempt(state, pod, node_statuses)
        state.write(PREEMPTION_STATE_KEY, outcome)
        msg = status.message()
        if msg:
            return result, Status(status.code, [MESSAGE_PREFIX + msg], self.NAME)
        return result, status
