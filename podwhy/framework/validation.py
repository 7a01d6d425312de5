"""apimachinery's field validation: field paths, field.Error texts, label and node selector checks.

Plugin-args validation and the plugins' own parse errors word their messages from these,
so a refused configuration or selector reads as kube-scheduler reports it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from podwhy.model import objects as o
from podwhy.model.labels import NODE_SELECTOR_OPERATORS, parse_int64
from podwhy.model.validation import label_key_errors, label_value_errors

# ------------------------------------------------------------------ field paths


def child(path: str, name: str) -> str:
    """field.Path.Child: `name` under `path` (a root path is empty)."""
    return f"{path}.{name}" if path else name


def index(path: str, i: int) -> str:
    """field.Path.Index."""
    return f"{path}[{i}]"


def key(path: str, name: str) -> str:
    """field.Path.Key."""
    return f"{path}[{name}]"


# ------------------------------------------------------------------ Go value texts


def go_quote(value: str) -> str:
    """%q of a string (strconv.Quote for the characters configurations hold)."""
    return json.dumps(value, ensure_ascii=False)


def go_json(value: Any) -> str:
    """json.Marshal: compact, with Go's HTML escaping."""
    out = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return out.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def go_value(value: Any) -> str:
    """How field.Error shows a bad value: numbers and booleans as %v, strings quoted, the rest as JSON."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return go_quote(value)
    return go_json(value)


# ------------------------------------------------------------------ field.Error


def invalid(path: str, value: Any, detail: str) -> str:
    """field.Invalid(...).Error()."""
    return f"{path}: Invalid value: {go_value(value)}: {detail}"


def required(path: str, detail: str = "") -> str:
    """field.Required(...).Error()."""
    return f"{path}: Required value: {detail}" if detail else f"{path}: Required value"


def forbidden(path: str, detail: str) -> str:
    """field.Forbidden(...).Error()."""
    return f"{path}: Forbidden: {detail}"


def duplicate(path: str, value: Any) -> str:
    """field.Duplicate(...).Error()."""
    return f"{path}: Duplicate value: {go_value(value)}"


def not_supported(path: str, value: Any, supported: Sequence[str]) -> str:
    """field.NotSupported(...).Error(), the supported values in the order given."""
    return f"{path}: Unsupported value: {go_value(value)}: supported values: " + ", ".join(
        go_quote(s) for s in supported
    )


def aggregate(messages: list[str]) -> str:
    """utilerrors.NewAggregate(...).Error(): duplicates dropped, several bracketed."""
    unique = list(dict.fromkeys(messages))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


# Label keys and values are validated by the model (content.IsLabelKey / IsLabelValue).


def validate_label_name(name: str, path: str) -> list[str]:
    """metav1validation.ValidateLabelName: one Invalid error per problem."""
    return [invalid(path, name, msg) for msg in label_key_errors(name)]


# ------------------------------------------------------------------ node selectors (component-helpers nodeaffinity)


def _go_json_values(values: list[str]) -> str:
    """json.Marshal of a []string; an empty list arrives as nil."""
    return go_json(values or None)


def _requirement_errors(req: o.NodeSelectorRequirement, path: str) -> list[str]:
    """labels.NewRequirement's field errors for one matchExpressions entry (operator already known)."""
    errs: list[str] = []
    key_errs = label_key_errors(req.key)
    if key_errs:
        errs.append(f"{path}.key: Invalid value: {go_quote(req.key)}: {'; '.join(key_errs)}")
    values = list(req.values)
    invalid_values = f"{path}.values: Invalid value: {_go_json_values(values)}"
    if req.operator in ("In", "NotIn") and not values:
        errs.append(f"{invalid_values}: for 'in', 'notin' operators, values set can't be empty")
    elif req.operator in ("Exists", "DoesNotExist") and values:
        errs.append(f"{invalid_values}: values set must be empty for exists and does not exist")
    elif req.operator in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(f"{invalid_values}: for 'Gt', 'Lt' operators, exactly one value is required")
        errs.extend(
            f"{path}.values[{i}]: Invalid value: {go_quote(v)}: for 'Gt', 'Lt' operators, the value must be an integer"
            for i, v in enumerate(values)
            if parse_int64(v) is None
        )
    for i, v in enumerate(values):
        value_errs = label_value_errors(v)
        if value_errs:
            errs.append(f"{path}.values[{i}][{req.key}]: Invalid value: {go_quote(v)}: {'; '.join(value_errs)}")
    return errs


def node_selector_term_errors(term: o.NodeSelectorTerm, path: str) -> list[str]:
    """The parse errors of one NodeSelectorTerm, worded and located as component-helpers reports them."""
    errs: list[str] = []
    for j, req in enumerate(term.match_expressions):
        req_path = f"{path}.matchExpressions[{j}]"
        if req.operator not in NODE_SELECTOR_OPERATORS:
            supported = ", ".join(f'"{op}"' for op in NODE_SELECTOR_OPERATORS)
            errs.append(
                f"{req_path}.operator: Unsupported value: {go_quote(req.operator)}: supported values: {supported}"
            )
            continue
        errs.extend(_requirement_errors(req, req_path))
    for j, req in enumerate(term.match_fields):
        req_path = f"{path}.matchFields[{j}]"
        if req.operator not in ("In", "NotIn"):
            errs.append(
                f'{req_path}.operator: Unsupported value: {go_quote(req.operator)}: supported values: "In", "NotIn"'
            )
        elif len(req.values) != 1:
            errs.append(f"{req_path}.values: Invalid value: {_go_json_values(list(req.values))}: must have one element")
    return errs


# ------------------------------------------------------------------ durations (metav1.Duration)

NANOSECOND = 1
MICROSECOND = 1000 * NANOSECOND
MILLISECOND = 1000 * MICROSECOND
SECOND = 1000 * MILLISECOND
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE

_DURATION_UNITS = {
    "ns": NANOSECOND,
    "us": MICROSECOND,
    "µs": MICROSECOND,  # U+00B5
    "μs": MICROSECOND,  # U+03BC
    "ms": MILLISECOND,
    "s": SECOND,
    "m": MINUTE,
    "h": HOUR,
}
_INT64_MAX = 2**63 - 1


class DurationError(ValueError):
    """A duration time.ParseDuration refuses; the message is Go's."""


def _leading_digits(text: str) -> tuple[str, str]:
    digits = re.match(r"[0-9]*", text)
    assert digits is not None
    return digits.group(), text[digits.end() :]


def parse_go_duration(text: str) -> int:
    """time.ParseDuration, in nanoseconds."""
    invalid_duration = DurationError(f"time: invalid duration {go_quote(text)}")
    rest = text
    negative = False
    if rest[:1] in ("-", "+"):
        negative = rest[0] == "-"
        rest = rest[1:]
    if rest == "0":
        return 0
    if not rest:
        raise invalid_duration
    total = Fraction(0)
    while rest:
        if not (rest[0] == "." or rest[0].isdigit()):
            raise invalid_duration
        whole, rest = _leading_digits(rest)
        frac = ""
        if rest[:1] == ".":
            frac, rest = _leading_digits(rest[1:])
            if not whole and not frac:
                raise invalid_duration
        elif not whole:
            raise invalid_duration
        unit_match = re.match(r"[^0-9.]*", rest)
        unit = unit_match.group() if unit_match else ""
        if not unit:
            raise DurationError(f"time: missing unit in duration {go_quote(text)}")
        rest = rest[len(unit) :]
        if unit not in _DURATION_UNITS:
            raise DurationError(f"time: unknown unit {go_quote(unit)} in duration {go_quote(text)}")
        number = Fraction(int(whole or "0")) + (Fraction(int(frac), 10 ** len(frac)) if frac else 0)
        total += number * _DURATION_UNITS[unit]
        if total > _INT64_MAX + 1:
            raise invalid_duration
    nanos = int(total)  # Go drops the fraction of a nanosecond
    if nanos > _INT64_MAX + (1 if negative else 0):
        raise invalid_duration
    return -nanos if negative else nanos


def _fmt_frac(value: int, precision: int) -> tuple[str, int]:
    """Go's fmtFrac: the fraction digits of value/10**precision without trailing zeros, and the quotient."""
    digits = ""
    printed = False
    for _ in range(precision):
        digit = value % 10
        printed = printed or digit != 0
        if printed:
            digits = str(digit) + digits
        value //= 10
    return ("." + digits if printed else ""), value


def format_go_duration(nanos: int) -> str:
    """time.Duration.String."""
    if nanos == 0:
        return "0s"
    sign = "-" if nanos < 0 else ""
    u = abs(nanos)
    if u < SECOND:
        if u < MICROSECOND:
            return f"{sign}{u}ns"
        if u < MILLISECOND:
            frac, whole = _fmt_frac(u, 3)
            return f"{sign}{whole}{frac}µs"
        frac, whole = _fmt_frac(u, 6)
        return f"{sign}{whole}{frac}ms"
    frac, u = _fmt_frac(u, 9)
    out = f"{u % 60}{frac}s"
    u //= 60
    if u > 0:
        out = f"{u % 60}m{out}"
        u //= 60
        if u > 0:
            out = f"{u}h{out}"
    return sign + out
