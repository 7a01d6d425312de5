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
    max_count = max(0, max(scores.values(), default=0))
    if max_count == 0:
        if reverse:
            for node in scores:
                scores[node] = max_priority
        return
    # Scores take few distinct values over many nodes: each is scaled once.
    scaled: dict[int, int] = {}
    for score in set(scores.values()):
        value = go_div(max_priority * score, max_count)
        scaled[score] = max_priority - value if reverse else value
    for node, score in scores.items():
        scores[node] = scaled[score]
