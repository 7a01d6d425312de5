"""Label selectors with apimachinery's rules (pkg/labels: Requirement, Selector, SelectorFromSet;
metav1.LabelSelectorAsSelector): building one validates it, as NewRequirement does."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import msgspec

from podwhy.helpers.namevalidation import is_valid_label_key, is_valid_label_value
from podwhy.model import objects as o
from podwhy.model.errors import ModelError

_INT = re.compile(r"^[+-]?[0-9]+$")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
# Operators a NodeSelectorRequirement may use in matchExpressions.
NODE_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def parse_int64(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64), None where Go returns an error (syntax or range)."""
    if not _INT.fullmatch(text):
        return None
    val = int(text)
    return val if _INT64_MIN <= val <= _INT64_MAX else None


class SelectorError(ModelError):
    """A selector that apimachinery would refuse to build."""


@dataclass(frozen=True)
class Requirement:
    key: str
    operator: str  # In, NotIn, Exists, DoesNotExist, Gt, Lt, Equals, NotEquals
    values: tuple[str, ...] = ()

    @functools.cached_property
    def value_set(self) -> frozenset[str]:
        """The values as a set: a lookup costs the same for 1 value or 100,000 (as Go's sets.String)."""
        return frozenset(self.values)

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.operator
        if op in ("In", "Equals"):
            return self.key in labels and labels[self.key] in self.value_set
        if op in ("NotIn", "NotEquals"):
            return self.key not in labels or labels[self.key] not in self.value_set
        if op == "Exists":
            return self.key in labels
        if op == "DoesNotExist":
            return self.key not in labels
        if op in ("Gt", "Lt"):
            if self.key not in labels:
                return False
            have, want = parse_int64(labels[self.key]), parse_int64(self.values[0])
            if have is None or want is None:
                return False
            return have > want if op == "Gt" else have < want
        return False


def new_requirement(key: str, operator: str, values: Sequence[str]) -> Requirement:
    """labels.NewRequirement: validate, then build. The plugins build a pod's requirements once per
    node: the outcome is remembered, so a legal selector of 100,000 values is validated once."""
    outcome = _new_requirement(key, operator, tuple(values))
    if isinstance(outcome, str):
        raise SelectorError(outcome)
    return outcome


@functools.lru_cache(maxsize=4096)
def _new_requirement(key: str, operator: str, values: tuple[str, ...]) -> Requirement | str:
    try:
        return _validated(key, operator, values)
    except SelectorError as exc:
        return str(exc)


def _validated(key: str, operator: str, values: tuple[str, ...]) -> Requirement:
    if not is_valid_label_key(key):
        raise SelectorError(f"invalid label key {key!r}")
    if operator in ("In", "NotIn"):
        if not values:
            raise SelectorError(f"{key}: for 'in', 'notin' operators, values set can't be empty")
    elif operator in ("Equals", "NotEquals"):
        if len(values) != 1:
            raise SelectorError(f"{key}: exact-match compatibility requires one single value")
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            raise SelectorError(f"{key}: values set must be empty for exists and does not exist")
    elif operator in ("Gt", "Lt"):
        if len(values) != 1 or parse_int64(values[0]) is None:
            raise SelectorError(f"{key}: for 'Gt', 'Lt' operators, exactly one integer value is required")
    else:
        raise SelectorError(f"{key}: operator {operator!r} is not recognized")
    for val in values:
        if not is_valid_label_value(val):
            raise SelectorError(f"{key}: invalid label value {val!r}")
    return Requirement(key, operator, values)


class Selector(msgspec.Struct, frozen=True):
    """labels.Selector. `nothing` is labels.Nothing(); no requirements is Everything()."""

    requirements: tuple[Requirement, ...] = ()
    nothing: bool = False

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.nothing:
            return False
        return all(r.matches(labels) for r in self.requirements)

    def is_empty(self) -> bool:
        return not self.nothing and not self.requirements

    def __str__(self) -> str:
        if self.nothing:
            return "<none>"
        parts = []
        for r in self.requirements:
            if r.operator in ("Equals", "In") and len(r.values) == 1 and r.operator == "Equals":
                parts.append(f"{r.key}={r.values[0]}")
            elif r.operator == "NotEquals":
                parts.append(f"{r.key}!={r.values[0]}")
            elif r.operator == "Exists":
                parts.append(r.key)
            elif r.operator == "DoesNotExist":
                parts.append(f"!{r.key}")
            elif r.operator in ("Gt", "Lt"):
                parts.append(f"{r.key}{'>' if r.operator == 'Gt' else '<'}{r.values[0]}")
            else:
                parts.append(f"{r.key} {r.operator.lower()} ({','.join(r.values)})")
        return ",".join(parts)


NOTHING = Selector(nothing=True)
EVERYTHING = Selector()


def selector_from_set(labels: Mapping[str, str]) -> Selector:
    """labels.SelectorFromSet (validated)."""
    return Selector(tuple(sorted((new_requirement(k, "Equals", [v]) for k, v in labels.items()), key=lambda r: r.key)))


def label_selector_as_selector(selector: o.LabelSelector | None) -> Selector:
    """metav1.LabelSelectorAsSelector: nil matches nothing, empty matches everything."""
    if selector is None:
        return NOTHING
    if not selector.match_labels and not selector.match_expressions:
        return EVERYTHING
    reqs = [new_requirement(k, "Equals", [v]) for k, v in selector.match_labels.items()]
    for expr in selector.match_expressions:
        if expr.operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            raise SelectorError(f"{expr.operator!r} is not a valid label selector operator")
        reqs.append(new_requirement(expr.key, expr.operator, list(expr.values)))
    return Selector(tuple(sorted(reqs, key=lambda r: r.key)))
