"""apimachinery's field errors (util/validation/field): field paths, the Go texts of bad values,
field.Error's wording and the aggregate of several, and metav1validation's ValidateLabelName.

Plugin-args validation, the API server's validation and the plugins' own parse errors word their
messages from these, so a refused configuration or object reads as Kubernetes reports it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from podwhy.helpers.namevalidation import label_key_errors

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


def validate_label_name(name: str, path: str) -> list[str]:
    """metav1validation.ValidateLabelName: one field.Invalid error per problem."""
    return [invalid(path, name, msg) for msg in label_key_errors(name)]
