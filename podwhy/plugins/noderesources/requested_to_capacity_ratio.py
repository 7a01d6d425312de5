"""RequestedToCapacityRatio: score each resource's utilization through a user-given shape."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from podwhy.framework.evidence import ShapePoint
from podwhy.framework.interface import MAX_NODE_SCORE
from podwhy.framework.plugin_args import MAX_CUSTOM_PRIORITY_SCORE, MAX_UTILIZATION
from podwhy.plugins.helper.shape_score import FunctionShapePoint, evaluate_broken_linear, trunc_div
from podwhy.plugins.noderesources.resource_allocation import ResourceLine, Scorer, ScorerResult, wrap_int64

# Shape scores are given on 0..MaxCustomPriorityScore and scaled to the node score range.
SHAPE_SCORE_SCALE = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE


def go_round(number: float) -> int:
    """math.Round: half away from zero."""
    whole = math.trunc(number)
    if abs(number - whole) >= 0.5:
        whole += 1 if number > 0 else -1
    return whole


def utilization(requested: int, capacity: int) -> int:
    """Requested share of capacity in percent, truncated; full when over capacity."""
    if capacity == 0 or requested > capacity:
        return MAX_UTILIZATION
    return trunc_div(wrap_int64(requested * MAX_UTILIZATION), capacity)


def requested_to_capacity_ratio_scorer(shape: Iterable[tuple[int, int]]) -> Scorer:
    """A scorer for the shape's (utilization, score) points, scores scaled to 0-100."""
    points = tuple(FunctionShapePoint(u, s * SHAPE_SCORE_SCALE) for u, s in shape)
    shape_facts = [ShapePoint(utilization=p.utilization, score=p.score) for p in points]

    def scorer(lines: Sequence[ResourceLine]) -> ScorerResult:
        node_score = weight_sum = 0
        for line in lines:
            if not line.scored:
                continue
            used = utilization(line.requested, line.allocatable)
            point = evaluate_broken_linear(points, used)
            line.detail["utilization"] = used
            line.detail["resource_score"] = point.score
            line.detail["between"] = [
                ShapePoint(utilization=point.lower.utilization, score=point.lower.score),
                ShapePoint(utilization=point.upper.utilization, score=point.upper.score),
            ]
            # A resource scoring 0 does not count toward the mean at all.
            if point.score > 0:
                node_score = wrap_int64(node_score + point.score * line.weight)
                weight_sum += line.weight
            else:
                line.detail["counted_in_mean"] = False
        score = go_round(float(node_score) / float(weight_sum)) if weight_sum else 0
        return ScorerResult(
            score,
            {
                "shape": shape_facts,
                "weighted_sum": node_score,
                "weight_sum": weight_sum,
                "formula": "round(weightedSum / weightSum)",
            },
        )

    return scorer
