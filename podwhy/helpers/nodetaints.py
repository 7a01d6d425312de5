"""Taints and tolerations: whether a toleration tolerates a taint (k8s.io/api core/v1
toleration.go, Taint.ToString), the first taint no toleration tolerates (component-helpers
scheduling/corev1 FindMatchingUntoleratedTaint, TolerationsTolerateTaint), and the scheduler's
filter of the taints that keep pods off (plugins/helper DoNotScheduleTaintsFilterFunc), which
the kubelet's admission and podwhy's analysis apply too."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from podwhy.model import objects as o

_DECIMAL_INT = re.compile(r"^-?(0|[1-9][0-9]*)$")

# TaintTolerationComparisonOperators (Gt/Lt tolerations) is off by default in v1.35.
ENABLE_COMPARISON_OPERATORS = False


def _compare_numeric(toleration_value: str, taint_value: str, operator: str) -> bool:
    if not _DECIMAL_INT.match(toleration_value) or not _DECIMAL_INT.match(taint_value):
        return False
    tol, taint = int(toleration_value), int(taint_value)
    if not (-(2**63) <= tol < 2**63 and -(2**63) <= taint < 2**63):
        return False
    return taint < tol if operator == "Lt" else taint > tol


def tolerates_taint(toleration: o.Toleration, taint: o.Taint, comparison_operators: bool | None = None) -> bool:
    """Toleration.ToleratesTaint; COMPARISON_OPERATORS says whether Gt and Lt tolerate (the
    scheduler's TaintTolerationComparisonOperators gate when None; Kueue always passes true)."""
    if comparison_operators is None:
        comparison_operators = ENABLE_COMPARISON_OPERATORS
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    op = toleration.operator
    if op in ("", "Equal"):
        return toleration.value == taint.value
    if op == "Exists":
        return True
    if op in ("Lt", "Gt") and comparison_operators:
        return _compare_numeric(toleration.value, taint.value, op)
    return False


def tolerations_tolerate_taint(tolerations: Iterable[o.Toleration], taint: o.Taint) -> bool:
    return any(tolerates_taint(t, taint) for t in tolerations)


def do_not_schedule_taints(taint: o.Taint) -> bool:
    """helper.DoNotScheduleTaintsFilterFunc: only NoSchedule and NoExecute taints count."""
    return taint.effect in ("NoSchedule", "NoExecute")


def find_matching_untolerated_taint(
    taints: Iterable[o.Taint],
    tolerations: list[o.Toleration],
    inclusion: Callable[[o.Taint], bool] | None,
) -> o.Taint | None:
    for taint in taints:
        if inclusion is not None and not inclusion(taint):
            continue
        if not tolerations_tolerate_taint(tolerations, taint):
            return taint
    return None


def taint_to_string(taint: o.Taint) -> str:
    """Taint.ToString(): key=value:effect, key:effect when the value is empty."""
    if not taint.value:
        return f"{taint.key}:{taint.effect}"
    return f"{taint.key}={taint.value}:{taint.effect}"
