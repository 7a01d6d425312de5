"""DefaultNormalizeScore: scale scores from [0, max] to [0, max_priority], optionally reversed."""

from __future__ import annotations


def go_div(numerator: int, denominator: int) -> int:
    """Integer division truncating toward zero, like Go's `/` on int64."""
    quotient = abs(numerator) // abs(denominator)
    return quotient if (numerator >= 0) == (denominator > 0) else -quotient


def default_normalize_score(max_priority: int, reverse: bool, scores: dict[str, int]) -> None:
    """Normalize `scores` (node name -> score) in place.

    Scores are expected to be non-negative. When every score is 0 they stay 0, or all become
    max_priority when reversed.
    """
    max_count = max((s for s in scores.values() if s > 0), default=0)
    if max_count == 0:
        if reverse:
            for node in scores:
                scores[node] = max_priority
        return
    for node, score in scores.items():
        scaled = go_div(max_priority * score, max_count)
        scores[node] = max_priority - scaled if reverse else scaled
