"""MostAllocated: favour nodes that are already busy, to pack pods (mostResourceScorer)."""

from __future__ import annotations

from collections.abc import Sequence

from podwhy.framework.interface import MAX_NODE_SCORE
from podwhy.plugins.helper.shape_score import trunc_div
from podwhy.plugins.noderesources.resource_allocation import ResourceLine, ScorerResult, wrap_int64


def most_requested_score(requested: int, capacity: int) -> int:
    """Used share of the resource on a 0-100 scale; requests beyond capacity count as full."""
    if capacity == 0:
        return 0
    # Non-zero stand-in requests can push requested past capacity.
    requested = min(requested, capacity)
    return trunc_div(wrap_int64(requested * MAX_NODE_SCORE), capacity)


def most_allocated_scorer(lines: Sequence[ResourceLine]) -> ScorerResult:
    """Weighted mean of the per-resource used shares, in int64 arithmetic."""
    node_score = weight_sum = 0
    for line in lines:
        if not line.scored:
            continue
        resource_score = most_requested_score(line.requested, line.allocatable)
        line.detail["resource_score"] = resource_score
        line.detail["formula"] = "min(requested, allocatable) * 100 / allocatable"
        node_score = wrap_int64(node_score + resource_score * line.weight)
        weight_sum += line.weight
    score = trunc_div(node_score, weight_sum) if weight_sum else 0
    return ScorerResult(
        score, {"weighted_sum": node_score, "weight_sum": weight_sum, "formula": "weightedSum / weightSum"}
    )
