"""Node selectors as component-helpers' scheduling/corev1/nodeaffinity matches them: a
NodeSelectorTerm parsed (its label requirements and its metadata.name field requirements), the
terms ORed (LazyErrorNodeSelector), a pod's nodeSelector ANDed with its required node affinity
(GetRequiredNodeAffinity), and the parse errors of a term worded and located as upstream reports
them."""

from __future__ import annotations

import msgspec

from podwhy.helpers.fielderrors import go_json, go_quote
from podwhy.helpers.labelselectors import (
    NODE_SELECTOR_OPERATORS,
    Requirement,
    Selector,
    SelectorError,
    new_requirement,
    parse_int64,
)
from podwhy.helpers.namevalidation import label_key_errors, label_value_errors
from podwhy.model import objects as o


class NodeSelectorTermMatcher(msgspec.Struct, frozen=True):
    """One parsed NodeSelectorTerm (component-helpers nodeaffinity)."""

    label_selector: Selector | None
    field_requirements: tuple[Requirement, ...] | None
    parse_errors: tuple[str, ...] = ()

    def matches(self, node: o.Node) -> bool:
        if self.parse_errors:
            return False
        if self.label_selector is not None and not self.label_selector.matches(node.metadata.labels):
            return False
        if self.field_requirements is not None and node.metadata.name:
            # fields.Set.Get: an unknown field reads as "".
            fields = {"metadata.name": node.metadata.name}
            for req in self.field_requirements:
                got = fields.get(req.key, "")
                if (got == req.values[0]) != (req.operator == "Equals"):
                    return False
        return True


def is_empty_term(term: o.NodeSelectorTerm) -> bool:
    return not term.match_expressions and not term.match_fields


def parse_node_selector_term(term: o.NodeSelectorTerm) -> NodeSelectorTermMatcher:
    errors: list[str] = []
    label_sel: Selector | None = None
    if term.match_expressions:
        reqs = []
        for expr in term.match_expressions:
            if expr.operator not in NODE_SELECTOR_OPERATORS:
                errors.append(f"matchExpressions: operator {expr.operator!r} not supported")
                continue
            try:
                reqs.append(new_requirement(expr.key, expr.operator, list(expr.values)))
            except SelectorError as exc:
                errors.append(str(exc))
        label_sel = Selector(tuple(reqs))
    field_reqs: tuple[Requirement, ...] | None = None
    if term.match_fields:
        freqs = []
        for expr in term.match_fields:
            if expr.operator not in ("In", "NotIn"):
                errors.append(f"matchFields: operator {expr.operator!r} not supported")
            elif len(expr.values) != 1:
                errors.append("matchFields: values must have one element")
            else:
                op = "Equals" if expr.operator == "In" else "NotEquals"
                freqs.append(Requirement(expr.key, op, (expr.values[0],)))
        field_reqs = tuple(freqs)
    return NodeSelectorTermMatcher(label_sel, field_reqs, tuple(errors))


class LazyNodeSelector(msgspec.Struct, frozen=True):
    """LazyErrorNodeSelector: terms are ORed; empty terms are dropped."""

    terms: tuple[NodeSelectorTermMatcher, ...]

    @classmethod
    def parse(cls, selector: o.NodeSelector) -> LazyNodeSelector:
        return cls(tuple(parse_node_selector_term(t) for t in selector.node_selector_terms if not is_empty_term(t)))

    def matches(self, node: o.Node) -> bool:
        return any(t.matches(node) for t in self.terms)


class RequiredNodeAffinity(msgspec.Struct, frozen=True):
    """nodeaffinity.GetRequiredNodeAffinity: nodeSelector AND required node affinity."""

    label_selector: Selector | None
    node_selector: LazyNodeSelector | None

    @classmethod
    def of_pod(cls, pod: o.Pod) -> RequiredNodeAffinity:
        sel = None
        if pod.spec.node_selector:
            sel = Selector(tuple(Requirement(k, "Equals", (v,)) for k, v in sorted(pod.spec.node_selector.items())))
        ns = None
        aff = pod.spec.affinity
        if aff and aff.node_affinity and aff.node_affinity.required_during_scheduling_ignored_during_execution:
            ns = LazyNodeSelector.parse(aff.node_affinity.required_during_scheduling_ignored_during_execution)
        return cls(sel, ns)

    def matches(self, node: o.Node) -> bool:
        if self.label_selector is not None and not self.label_selector.matches(node.metadata.labels):
            return False
        if self.node_selector is not None:
            return self.node_selector.matches(node)
        return True


# ------------------------------------------------------------------ parse errors


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
