"""NewPodInfo's error text for pod affinity terms whose selectors do not parse.

The API server refuses such pods, so this only matters for hand-made input; the
wording follows apimachinery (LabelSelectorAsSelector, labels.NewRequirement,
field.Error and utilerrors aggregates) so the PreFilter reason reads the same.
"""

from __future__ import annotations

import json
import re

from podwhy.model import objects as o

_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_ERR = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)
_LABEL_VALUE_FMT = f"({_LABEL_KEY_FMT})?"
_LABEL_VALUE_ERR = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_ERR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
_LABEL_KEY_RE = re.compile(f"^{_LABEL_KEY_FMT}$")
_LABEL_VALUE_RE = re.compile(f"^{_LABEL_VALUE_FMT}$")
_DNS1123_SUBDOMAIN_RE = re.compile(f"^{_DNS1123_SUBDOMAIN_FMT}$")


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def _max_len_error(length: int) -> str:
    return f"must be no more than {length} bytes"


def _full(pattern: re.Pattern[str], value: str) -> bool:
    return pattern.fullmatch(value) is not None


def label_key_errors(key: str) -> list[str]:
    """content.IsLabelKey."""
    errs: list[str] = []
    parts = key.split("/")
    if len(parts) > 2:
        return [
            "a valid label key "
            + _regex_error(_LABEL_KEY_ERR, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            prefix_errs = []
            if len(prefix.encode()) > 253:
                prefix_errs.append(_max_len_error(253))
            if not _full(_DNS1123_SUBDOMAIN_RE, prefix):
                prefix_errs.append(_regex_error(_DNS1123_SUBDOMAIN_ERR, _DNS1123_SUBDOMAIN_FMT, "example.com"))
            errs.extend("prefix part " + m for m in prefix_errs)
    if not name:
        errs.append("name part must be non-empty")
    elif len(name.encode()) > 63:
        errs.append("name part " + _max_len_error(63))
    if not _full(_LABEL_KEY_RE, name):
        errs.append("name part " + _regex_error(_LABEL_KEY_ERR, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc"))
    return errs


def label_value_errors(value: str) -> list[str]:
    """content.IsLabelValue."""
    errs: list[str] = []
    if len(value.encode()) > 63:
        errs.append(_max_len_error(63))
    if not _full(_LABEL_VALUE_RE, value):
        errs.append(_regex_error(_LABEL_VALUE_ERR, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def _go_quote(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _go_json(values: list[str] | None) -> str:
    out = json.dumps(values, ensure_ascii=False, separators=(",", ":"))
    return out.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _invalid(path: str, shown_value: str, detail: str) -> str:
    return f"{path}: Invalid value: {shown_value}: {detail}"


def aggregate(messages: list[str]) -> str:
    """utilerrors.NewAggregate(...).Error(): duplicates dropped, several bracketed."""
    unique = list(dict.fromkeys(messages))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


def requirement_error(key: str, operator: str, values: list[str] | None) -> str | None:
    """labels.NewRequirement's aggregated field errors for one requirement, or None."""
    errs: list[str] = []
    key_errs = label_key_errors(key)
    if key_errs:
        errs.append(_invalid("key", _go_quote(key), "; ".join(key_errs)))
    vals = values or []
    if operator in ("in", "notin"):
        if not vals:
            errs.append(_invalid("values", _go_json(values), "for 'in', 'notin' operators, values set can't be empty"))
    elif operator == "=":
        if len(vals) != 1:
            errs.append(_invalid("values", _go_json(values), "exact-match compatibility requires one single value"))
    elif operator in ("exists", "!"):
        if vals:
            errs.append(_invalid("values", _go_json(values), "values set must be empty for exists and does not exist"))
    for i, val in enumerate(vals):
        val_errs = label_value_errors(val)
        if val_errs:
            errs.append(_invalid(f"values[{i}][{key}]", _go_quote(val), "; ".join(val_errs)))
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
            return f"{_go_quote(expr.operator)} is not a valid label selector operator"
        # An empty values list reaches NewRequirement as a nil slice.
        err = requirement_error(expr.key, op, list(expr.values) or None)
        if err is not None:
            return err
    return None


def affinity_term_error(term: o.PodAffinityTerm) -> str | None:
    return label_selector_error(term.label_selector) or label_selector_error(term.namespace_selector)


def pod_affinity_parse_error(pod: o.Pod) -> str | None:
    """The error NewPodInfo returns for the pod's affinity terms, or None."""
    aff = pod.spec.affinity
    if aff is None:
        return None
    pa, paa = aff.pod_affinity, aff.pod_anti_affinity
    kinds: list[tuple[str, list[o.PodAffinityTerm]]] = [
        ("requiredAffinityTerms", pa.required_during_scheduling_ignored_during_execution if pa else []),
        ("requiredAntiAffinityTerms", paa.required_during_scheduling_ignored_during_execution if paa else []),
        (
            "preferredAffinityTerms",
            [w.pod_affinity_term for w in pa.preferred_during_scheduling_ignored_during_execution] if pa else [],
        ),
        (
            "preferredAntiAffinityTerms",
            [w.pod_affinity_term for w in paa.preferred_during_scheduling_ignored_during_execution] if paa else [],
        ),
    ]
    errors: list[str] = []
    for kind, terms in kinds:
        for term in terms:
            err = affinity_term_error(term)
            if err is not None:
                # Parsing of a kind stops at its first bad term.
                errors.append(f"{kind}: {err}")
                break
    return aggregate(errors) if errors else None
