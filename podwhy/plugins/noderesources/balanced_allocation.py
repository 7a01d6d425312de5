"""NodeResourcesBalancedAllocation: favour nodes whose resources would be used evenly (PreScore + Score).

The score is (1 - standard deviation of the requested/allocatable fractions) * 100.
It uses the pods' actual requests (no non-zero stand-ins), and PreScore skips the
plugin for a pod that requests none of the configured resources.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from podwhy.framework.interface import MAX_NODE_SCORE, CycleState, Plugin
from podwhy.framework.plugin_args import NodeResourcesBalancedAllocationArgs, PluginArgs, args_of
from podwhy.framework.status import Status, skip, success
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.plugins.noderesources.resource_allocation import (
    ResourceAllocationScorer,
    ResourceLine,
    ResourceWeight,
    ScorerResult,
    is_best_effort,
)

if TYPE_CHECKING:
    from podwhy.framework.handle import Handle

PRE_SCORE_STATE_KEY = "PreScoreNodeResourcesBalancedAllocation"


def balanced_resource_scorer(lines: Sequence[ResourceLine]) -> ScorerResult:
    """(1 - std of the fractions) * 100 in float64, truncated to int64."""
    fractions: list[float] = []
    total = 0.0
    for line in lines:
        if not line.scored:
            continue
        # float64 conversions first, then the division, as upstream does.
        fraction = min(float(line.requested) / float(line.allocatable), 1.0)
        line.detail["fraction"] = fraction
        total += fraction
        fractions.append(fraction)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / float(len(fractions))
        squares = 0.0
        for fraction in fractions:
            squares = squares + (fraction - mean) * (fraction - mean)
        std = math.sqrt(squares / float(len(fractions)))
    score = int((1 - std) * float(MAX_NODE_SCORE))
    return ScorerResult(score, {"std": std, "formula": "int((1 - std) * 100)"})


@dataclass(frozen=True)
class PreScoreState:
    """The pod's request per configured resource."""

    pod_requests: tuple[int, ...]

    def clone(self) -> PreScoreState:
        return self


class BalancedAllocation(Plugin):
    NAME = "NodeResourcesBalancedAllocation"
    # A RuntimeClass adds its overhead and scheduling constraints to the pod at admission.
    ADMISSION_KINDS = frozenset({"RuntimeClass"})
    ARGS = NodeResourcesBalancedAllocationArgs

    def __init__(self, handle: Handle, args: PluginArgs | None = None) -> None:
        super().__init__(handle, args)
        balanced_args = args_of(NodeResourcesBalancedAllocationArgs, args)
        resources = tuple(ResourceWeight(r.name, r.weight) for r in balanced_args.resources)
        # Feature gates as in v1.35: InPlacePodVerticalScaling (status resources) and
        # PodLevelResources are on.
        self.scorer = ResourceAllocationScorer(
            strategy="BalancedAllocation",
            resources=resources,
            scorer=balanced_resource_scorer,
            use_requested=True,
            use_status_resources=True,
            use_pod_level_resources=True,
        )

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
        pod_requests = self.scorer.pod_requests(pod.pod)
        if is_best_effort(pod_requests):
            # Upstream skips pods requesting nothing so they do not all pile onto one node.
            return skip()
        state.write(PRE_SCORE_STATE_KEY, PreScoreState(tuple(pod_requests)))
        return success()

    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> tuple[int, Status]:
        pre = state.get(PRE_SCORE_STATE_KEY)
        if isinstance(pre, PreScoreState):
            pod_requests: Sequence[int] = pre.pod_requests
        else:
            pod_requests = self.scorer.pod_requests(pod.pod)
            if is_best_effort(pod_requests):
                return 0, success()
        return self.scorer.score(node_info, pod_requests)
