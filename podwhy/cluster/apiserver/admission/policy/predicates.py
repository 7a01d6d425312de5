"""The webhook predicates policies share (k8s.io/apiserver admission/plugin/webhook/predicates):
a namespace selector (namespace/matcher.go), an object selector (object/matcher.go) and a rule
(rules/rules.go), each deciding whether a request is one it covers."""

from __future__ import annotations

import msgspec

from podwhy.cluster.apiserver.admission.policy.request import (
    CREATE,
    NAMESPACE_NONE,
    NAMESPACES,
    UPDATE,
    Request,
    labels_of,
)
from podwhy.helpers.labelselectors import SelectorError, label_selector_as_selector
from podwhy.model import objects as o

WILDCARD = "*"


class MatchError(msgspec.Struct, frozen=True):
    """Why the API server could not decide (an apierrors.StatusError): its HTTP code and message."""

    code: int
    message: str


def internal_error(message: str) -> MatchError:
    """apierrors.NewInternalError."""
    return MatchError(500, f"Internal error occurred: {message}")


# ---------------------------------------------------------------- namespace selector


def namespace_labels(request: Request) -> dict[str, str] | MatchError:
    """Matcher.GetNamespaceLabels: a Namespace created or updated is its own (the object's labels);
    any other request's the labels of the namespace it is in; not found: 404."""
    if request.resource.resource == "namespaces" and not request.subresource and request.operation in (CREATE, UPDATE):
        return labels_of(request.object) or {}
    labels = labels_of(request.namespace_object)
    if labels is None:
        return MatchError(404, f'namespaces "{request.namespace}" not found')
    return labels


def match_namespace_selector(selector: o.LabelSelector, request: Request) -> tuple[bool, MatchError | None]:
    """Matcher.MatchNamespaceSelector: a cluster-scoped object other than a Namespace is never
    exempted; an empty selector selects every namespace."""
    if request.namespace == NAMESPACE_NONE and request.resource.resource != "namespaces":
        return True, None
    try:
        parsed = label_selector_as_selector(selector)
    except SelectorError as exc:
        return False, internal_error(str(exc))
    if parsed.is_empty():
        return True, None
    labels = namespace_labels(request)
    if isinstance(labels, MatchError):
        return False, labels
    return parsed.matches(labels), None


# ---------------------------------------------------------------- object selector


def match_object_selector(selector: o.LabelSelector, request: Request) -> tuple[bool, MatchError | None]:
    """Matcher.MatchObjectSelector: the object's or the old object's labels (no object: no match)."""
    try:
        parsed = label_selector_as_selector(selector)
    except SelectorError as exc:
        return False, internal_error(str(exc))
    if parsed.is_empty():
        return True, None
    for obj in (request.object, request.old_object):
        labels = labels_of(obj)
        if labels is not None and parsed.matches(labels):
            return True, None
    return False, None


# ---------------------------------------------------------------- rules


def _exact_or_wildcard(items: list[str], requested: str) -> bool:
    return any(item in (WILDCARD, requested) for item in items)


def rule_scope(rule: o.RuleWithOperations, request: Request) -> bool:
    """A Namespace is cluster-scoped, whatever namespace its request names (its own)."""
    scope = rule.scope
    if scope == o.ALL_SCOPES:
        return True
    if scope == o.NAMESPACED_SCOPE:
        return request.resource != NAMESPACES and request.namespace != NAMESPACE_NONE
    if scope == o.CLUSTER_SCOPE:
        return request.resource == NAMESPACES or request.namespace == NAMESPACE_NONE
    return False


def rule_group(rule: o.RuleWithOperations, request: Request) -> bool:
    return _exact_or_wildcard(rule.api_groups, request.resource.group)


def rule_version(rule: o.RuleWithOperations, request: Request) -> bool:
    return _exact_or_wildcard(rule.api_versions, request.resource.version)


def rule_operation(rule: o.RuleWithOperations, request: Request) -> bool:
    return any(op in (o.OPERATION_ALL, request.operation) for op in rule.operations)


def rule_resource(rule: o.RuleWithOperations, request: Request) -> bool:
    """`r` is the resource alone, `r/s` its subresource s, `*` any resource (not a subresource),
    `r/*` r and its subresources, `*/s` any resource's subresource s, `*/*` everything."""
    for entry in rule.resources:
        resource, _, subresource = entry.partition("/")
        if resource in (WILDCARD, request.resource.resource) and subresource in (WILDCARD, request.subresource):
            return True
    return False


def rule_matches(rule: o.RuleWithOperations, request: Request) -> bool:
    """rules.Matcher.Matches."""
    return (
        rule_scope(rule, request)
        and rule_operation(rule, request)
        and rule_group(rule, request)
        and rule_version(rule, request)
        and rule_resource(rule, request)
    )
