"""LeastAllocated: favour nodes with more room left (leastResourceScorer)."""

from __future__ import annotations

from collections.abc import Sequence

from podwhy.framework.interface import MAX_NODE_SCORE
from podwhy.plugins.helper.shape_score import trunc_div
from podwhy.plugins.noderesources.resource_allocation import ResourceLine, ScorerResult, wrap_int64


def least_requested_score(requested: int, capacity: int) -> int:
    """Free share of the resource on a 0-100 scale; 0 once requests exceed capacity."""
    if capacity == 0 or requested > capacity:
        return 0
    return trunc_div(wrap_int64((capacity - requested) * MAX_NODE_SCORE), capacity)


def least_allocated_scorer(lines: Sequence[ResourceLine]) -> ScorerResult:
    """Weighted mean of the per-resource free shares, in int64 arithmetic."""
    node_score = weight_sum = 0
    for line in lines:
        if not line.scored:
            continue
        resource_score = least_requested_score(line.requested, line.allocatable)
        line.detail["resource_score"] = resource_score
        line.detail["formula"] = "(allocatable - requested) * 100 / allocatable"
        node_score = wrap_int64(node_score + resource_score * line.weight)
        weight_sum += line.weight
    score = trunc_div(node_score, weight_sum) if weight_sum else 0
    return ScorerResult(
        score, {"weighted_sum": node_score, "weight_sum": weight_sum, "formula": "weightedSum / weightSum"}
    )
