"""Piecewise-linear scoring functions (helper.BuildBrokenLinearFunction)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec


class FunctionShapePoint(msgspec.Struct, frozen=True):
    """A corner of the function: `score` at `utilization`."""

    utilization: int
    score: int


def trunc_div(numerator: int, denominator: int) -> int:
    """Integer division truncating toward zero, as Go's `/` on int64."""
    quotient = abs(numerator) // abs(denominator)
    return quotient if (numerator < 0) == (denominator < 0) else -quotient


class Interpolation(msgspec.Struct, frozen=True):
    """How the function reached its value: the segment used and the result."""

    utilization: int
    score: int
    # The shape points bounding the segment; equal when the value is clamped to an end.
    lower: FunctionShapePoint
    upper: FunctionShapePoint


def evaluate_broken_linear(shape: Sequence[FunctionShapePoint], utilization: int) -> Interpolation:
    """The function's value at `utilization`, with the segment it came from.

    Flat before the first point and after the last one, linear in between, with the
    interpolation done in int64 arithmetic (truncating division).
    """
    for i, point in enumerate(shape):
        if utilization <= point.utilization:
            if i == 0:
                return Interpolation(utilization, point.score, point, point)
            prev = shape[i - 1]
            score = prev.score + trunc_div(
                (point.score - prev.score) * (utilization - prev.utilization),
                point.utilization - prev.utilization,
            )
            return Interpolation(utilization, score, prev, point)
    last = shape[-1]
    return Interpolation(utilization, last.score, last, last)


def build_broken_linear_function(shape: Sequence[FunctionShapePoint]) -> Callable[[int], int]:
    """The piecewise-linear function through the shape points (BuildBrokenLinearFunction)."""
    points = tuple(shape)

    def function(utilization: int) -> int:
        return evaluate_broken_linear(points, utilization).score

    return function
