"""metav1.LabelSelectorAsSelector's error text for a selector that does not parse: the wording
of apimachinery (LabelSelectorAsSelector, labels.NewRequirement, field.Error and utilerrors
aggregates), which the scheduler's PreFilter reason (a pod affinity term's) and the API server's
refusals (a policy binding's paramRef.selector) quote."""

from __future__ import annotations

from podwhy.helpers.fielderrors import aggregate, go_json, go_quote
from podwhy.helpers.namevalidation import label_key_errors, label_value_errors
from podwhy.model import objects as o


def _invalid(path: str, shown_value: str, detail: str) -> str:
    return f"{path}: Invalid value: {shown_value}: {detail}"


def requirement_error(key: str, operator: str, values: list[str] | None) -> str | None:
    """labels.NewRequirement's aggregated field errors for one requirement, or None."""
    errs: list[str] = []
    key_errs = label_key_errors(key)
    if key_errs:
        errs.append(_invalid("key", go_quote(key), "; ".join(key_errs)))
    vals = values or []
    if operator in ("in", "notin"):
        if not vals:
            errs.append(_invalid("values", go_json(values), "for 'in', 'notin' operators, values set can't be empty"))
    elif operator == "=":
        if len(vals) != 1:
            errs.append(_invalid("values", go_json(values), "exact-match compatibility requires one single value"))
    elif operator in ("exists", "!"):
        if vals:
            errs.append(_invalid("values", go_json(values), "values set must be empty for exists and does not exist"))
    for i, val in enumerate(vals):
        val_errs = label_value_errors(val)
        if val_errs:
            errs.append(_invalid(f"values[{i}][{key}]", go_quote(val), "; ".join(val_errs)))
    return aggregate(errs) if errs else None


_SELECTOR_OPERATORS = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}


def label_selector_error(selector: o.LabelSelector | None) -> str | None:
    """metav1.LabelSelectorAsSelector's error for a selector, or None when it parses."""
    if selector is None:
        return None
    for key, value in selector.match_labels.items():
        err = requirement_error(key, "=", [value])
        if err is not None:
            return err
    for expr in selector.match_expressions:
        op = _SELECTOR_OPERATORS.get(expr.operator)
        if op is None:
            return f"{go_quote(expr.operator)} is not a valid label selector operator"
        # An empty values list reaches NewRequirement as a nil slice.
        err = requirement_error(expr.key, op, list(expr.values) or None)
        if err is not None:
            return err
    return None
