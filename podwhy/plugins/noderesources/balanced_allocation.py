"""NodeResourcesBalancedAllocation: favour nodes whose resources would be used evenly (PreScore + Score).

The score is (1 - standard deviation of the requested/allocatable fractions) * 100 in
v1.35; from v1.36 it is the pod's improvement of that balance (see balance_improvement_scorer).
It uses the pods' actual requests (no non-zero stand-ins), and PreScore skips the
plugin for a pod that requests none of the configured resources.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec

from podwhy.framework.equivalence import NodeReader
from podwhy.framework.interface import MAX_NODE_SCORE, CycleState, Plugin
from podwhy.framework.plugin_args import NodeResourcesBalancedAllocationArgs, PluginArgs, args_of
from podwhy.framework.signature import PodPart
from podwhy.framework.status import Status, skip, success
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.plugins import names
from podwhy.plugins.noderesources.dra_extended import DraScoringState, dra_scoring_kinds, dra_scoring_state
from podwhy.plugins.noderesources.resource_allocation import (
    ResourceAllocationScorer,
    ResourceLine,
    ResourceWeight,
    ScorerResult,
    is_best_effort,
    room_key,
)

if TYPE_CHECKING:
    from podwhy.framework.handle import Handle

PRE_SCORE_STATE_KEY = "PreScoreNodeResourcesBalancedAllocation"


def _balance_score(fractions: Sequence[float]) -> tuple[int, float]:
    """balancedResourceScore: (int((1 - std) * 100), std) of the requested/allocatable fractions."""
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        total = 0.0
        for fraction in fractions:
            total += fraction
        mean = total / float(len(fractions))
        squares = 0.0
        for fraction in fractions:
            squares = squares + (fraction - mean) * (fraction - mean)
        std = math.sqrt(squares / float(len(fractions)))
    return int((1 - std) * float(MAX_NODE_SCORE)), std


def _fractions(lines: Sequence[ResourceLine], with_pod: bool) -> list[float]:
    fractions: list[float] = []
    for line in lines:
        if not line.scored:
            continue
        requested = line.requested if with_pod else line.requested - line.pod_request
        # float64 conversions first, then the division, as upstream does.
        fraction = min(float(requested) / float(line.allocatable), 1.0)
        if with_pod:
            line.detail["fraction"] = fraction
        else:
            line.detail["fraction_without_pod"] = fraction
        fractions.append(fraction)
    return fractions


def balanced_resource_scorer(lines: Sequence[ResourceLine]) -> ScorerResult:
    """v1.35: (1 - std of the fractions with the pod) * 100 in float64, truncated to int64."""
    score, std = _balance_score(_fractions(lines, True))
    return ScorerResult(score, {"std": std, "formula": "int((1 - std) * 100)"})


def balance_improvement_scorer(lines: Sequence[ResourceLine]) -> ScorerResult:
    """v1.36 (kubernetes#135573): how much the pod improves the node's balance. Both balance
    scores lie in [50, 100]; 50 + (50 + with - without) / 2 maps their difference back there."""
    with_pod, std = _balance_score(_fractions(lines, True))
    without_pod, std_without = _balance_score(_fractions(lines, False))
    half = MAX_NODE_SCORE // 2
    # int64 division truncates toward zero (the numerator is never negative here).
    numerator = half + with_pod - without_pod
    score = half + (abs(numerator) // 2) * (1 if numerator >= 0 else -1)
    return ScorerResult(
        score,
        {
            "std": std,
            "std_without_pod": std_without,
            "score_with_pod": with_pod,
            "score_without_pod": without_pod,
            "formula": "50 + (50 + scoreWithPod - scoreWithoutPod) / 2",
        },
    )


class PreScoreState(msgspec.Struct, frozen=True):
    """The pod's request per configured resource, and what counting DRA-backed extended resources
    needs (DRAExtendedResource; None when no DeviceClass serves a configured resource)."""

    pod_requests: tuple[int, ...]
    dra: DraScoringState | None = None

    def clone(self) -> PreScoreState:
        return self


class BalancedAllocation(Plugin):
    NAME = names.NODE_RESOURCES_BALANCED_ALLOCATION
    NODE_LOCAL_SCORE = True
    POD_PARTS = frozenset({PodPart.SPEC})
    # A RuntimeClass adds its overhead and scheduling constraints to the pod at admission.
    ADMISSION_KINDS = frozenset({"RuntimeClass"})
    ARGS = NodeResourcesBalancedAllocationArgs

    def __init__(self, handle: Handle, args: PluginArgs | None = None) -> None:
        super().__init__(handle, args)
        balanced_args = args_of(NodeResourcesBalancedAllocationArgs, args)
        resources = tuple(ResourceWeight(r.name, r.weight) for r in balanced_args.resources)
        # Feature gates as in v1.35: InPlacePodVerticalScaling (status resources) and
        # PodLevelResources are on. DRAExtendedResource (on from v1.36) is read per cycle: the
        # DRA-backed extended resources among `resources` are counted from slices and claims.
        self.scorer = ResourceAllocationScorer(
            strategy="BalancedAllocation",
            resources=resources,
            scorer=balance_improvement_scorer
            if handle.emulation.balanced_allocation_improvement
            else balanced_resource_scorer,
            use_requested=True,
            use_status_resources=True,
            use_pod_level_resources=True,
        )

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
        pod_requests = self.scorer.pod_requests(pod.pod)
        if is_best_effort(pod_requests):
            # Upstream skips pods requesting nothing so they do not all pile onto one node.
            return skip()
        state.write(PRE_SCORE_STATE_KEY, PreScoreState(tuple(pod_requests), self._dra_state()))
        return success()

    def _dra_state(self) -> DraScoringState | None:
        return dra_scoring_state(self.handle, [r.name for r in self.scorer.resources])

    def required_kinds_for_score(self, pod: PodInfo) -> set[str]:
        resources = [r.name for r in self.scorer.resources]
        return dra_scoring_kinds(self.handle, resources, self.scorer.pod_requests(pod.pod))

    def score_key(self, state: CycleState, pod: PodInfo) -> NodeReader | None:
        pre = state.get(PRE_SCORE_STATE_KEY)
        dra = pre.dra if isinstance(pre, PreScoreState) else self._dra_state()
        # DRA-backed resources are counted from each node's slices: not keyed.
        return room_key if dra is None else None

    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> tuple[int, Status]:
        pre = state.get(PRE_SCORE_STATE_KEY)
        if not isinstance(pre, PreScoreState):
            pod_requests = self.scorer.pod_requests(pod.pod)
            if is_best_effort(pod_requests):
                return 0, success()
            pre = PreScoreState(tuple(pod_requests), self._dra_state())
        return self.scorer.score(node_info, pre.pod_requests, pre.dra)
