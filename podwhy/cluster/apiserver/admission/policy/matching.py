"""Whether an admission policy applies to a request (k8s.io/apiserver admission/plugin/policy/matching
matching.go, and policy/generic/policy_matcher.go's DefinitionMatches and BindingMatches): the
namespace and object selectors, the excluded and the matched resource rules with their names, and
matchPolicy Equivalent. A policy's matchConditions are CEL, handed back unevaluated."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import msgspec

from podwhy.cluster.apiserver.admission.policy.equivalence import SERVED, EquivalentResourceRegistry
from podwhy.cluster.apiserver.admission.policy.predicates import (
    MatchError,
    match_namespace_selector,
    match_object_selector,
    rule_matches,
)
from podwhy.cluster.apiserver.admission.policy.request import (
    GroupVersionKind,
    GroupVersionResource,
    Request,
    is_exempt,
)
from podwhy.model import objects as o

# policy_matcher.go's configuration errors, and matching.go's equivalent without a kind.
NO_MATCH_CONSTRAINTS = "policy contained no match constraints, a required field"
UNKNOWN_KIND = "unable to convert to {resource}: unknown kind"


class MatchResult(msgspec.Struct, frozen=True):
    """Whether the request matches; under matchPolicy Equivalent, the resource and kind a rule
    matched (the request's own otherwise); or why it could not be decided (ERROR: a selector the
    API server cannot parse, a namespace it does not find), which the caller applies the policy's
    failurePolicy to."""

    matches: bool
    resource: GroupVersionResource | None = None
    kind: GroupVersionKind | None = None
    error: MatchError | None = None


_NO = MatchResult(False)


def _named(rule: o.NamedRuleWithOperations, name: str) -> bool:
    """An empty resourceNames matches every name (a request without one, too)."""
    return not rule.resource_names or name in rule.resource_names


def _with_resource(request: Request, resource: GroupVersionResource) -> Request:
    return Request(
        operation=request.operation,
        kind=request.kind,
        resource=resource,
        subresource=request.subresource,
        name=request.name,
        namespace=request.namespace,
        object=request.object,
        old_object=request.old_object,
        namespace_object=request.namespace_object,
    )


def matches_resource_rules(
    rules: list[o.NamedRuleWithOperations],
    match_policy: str,
    request: Request,
    registry: EquivalentResourceRegistry = SERVED,
) -> MatchResult:
    """matchesResourceRules: a rule that matches the request as made (with its names), else, under
    Equivalent, the first rule that matches an equivalent resource, rule by rule."""
    for rule in rules:
        if rule_matches(rule, request) and _named(rule, request.name):
            return MatchResult(True, request.resource, request.kind)
    if match_policy != o.EQUIVALENT:
        return _NO
    equivalents = registry.equivalent_resources_for(request.resource, request.subresource)
    for rule in rules:
        for equivalent in equivalents:
            if equivalent == request.resource or not rule_matches(rule, _with_resource(request, equivalent)):
                continue
            kind = registry.kind_for(equivalent, request.subresource)
            if kind is None:
                return MatchResult(False, error=MatchError(500, UNKNOWN_KIND.format(resource=equivalent)))
            if _named(rule, request.name):
                return MatchResult(True, equivalent, kind)
    return _NO


def matches(criteria: o.MatchResources, request: Request, registry: EquivalentResourceRegistry = SERVED) -> MatchResult:
    """Matcher.Matches: the selectors first (an error is said only if the rules match), then the
    excluded rules, then the rules (none: every resource)."""
    in_namespace, namespace_error = match_namespace_selector(criteria.namespace_selector, request)
    if not in_namespace and namespace_error is None:
        return _NO
    selected, object_error = match_object_selector(criteria.object_selector, request)
    if not selected and object_error is None:
        return _NO
    excluded = matches_resource_rules(criteria.exclude_resource_rules, criteria.match_policy, request, registry)
    if excluded.matches or excluded.error is not None:
        return MatchResult(False, error=excluded.error)
    if not criteria.resource_rules:
        found = MatchResult(True, request.resource, request.kind)
    else:
        found = matches_resource_rules(criteria.resource_rules, criteria.match_policy, request, registry)
    if found.error is not None or not found.matches:
        return found
    error = namespace_error or object_error
    return MatchResult(False, error=error) if error is not None else found


def definition_matches(
    policy: o.ValidatingAdmissionPolicy | o.MutatingAdmissionPolicy,
    request: Request,
    registry: EquivalentResourceRegistry = SERVED,
) -> MatchResult:
    """DefinitionMatches: the policy's matchConstraints (none: a configuration error)."""
    constraints = policy.spec.match_constraints
    if constraints is None:
        return MatchResult(False, error=MatchError(500, NO_MATCH_CONSTRAINTS))
    return matches(constraints, request, registry)


def binding_matches(
    binding: o.ValidatingAdmissionPolicyBinding | o.MutatingAdmissionPolicyBinding,
    request: Request,
    registry: EquivalentResourceRegistry = SERVED,
) -> MatchResult:
    """BindingMatches: the binding's matchResources (none: whatever its policy matches). Only
    MATCHES and ERROR are the binding's: the resource and kind are the policy's."""
    criteria = binding.spec.match_resources
    if criteria is None:
        return MatchResult(True)
    return matches(criteria, request, registry)


P = TypeVar("P", o.ValidatingAdmissionPolicy, o.MutatingAdmissionPolicy)
B = TypeVar("B", o.ValidatingAdmissionPolicyBinding, o.MutatingAdmissionPolicyBinding)


@dataclass(frozen=True)
class PolicyMatch(Generic[P, B]):
    """One policy the request meets: its matchConstraints' result (the resource and kind it matched,
    or the error that makes it a configuration error), each of its bindings the request meets, and
    each binding whose matchResources could not be decided (with why). MATCH_CONDITIONS are the
    policy's, CEL for the evaluator to run (the request meets the policy only if they all hold)."""

    policy: P
    definition: MatchResult
    bindings: list[B] = field(default_factory=list)
    binding_errors: list[tuple[B, MatchError]] = field(default_factory=list)

    @property
    def match_conditions(self) -> list[o.MatchCondition]:
        return self.policy.spec.match_conditions


def matching_policies(
    policies: Mapping[str, P],
    bindings: Iterable[B],
    request: Request,
    registry: EquivalentResourceRegistry = SERVED,
) -> list[PolicyMatch[P, B]]:
    """The policies a request meets, each with its bindings that match (policy_dispatcher.go's
    Dispatch up to the params): a policy without a binding is never run, a binding of a policy that
    does not exist is skipped; a policy whose matchConstraints cannot be decided is listed with the
    error (a configuration error, under its failurePolicy). Upstream walks a map (no order): here
    policies go by name and bindings in the order given. The admission configuration itself is
    exempt."""
    if is_exempt(request):
        return []
    by_policy: dict[str, list[B]] = {}
    for binding in bindings:
        by_policy.setdefault(binding.spec.policy_name, []).append(binding)
    out: list[PolicyMatch[P, B]] = []
    for name in sorted(by_policy):
        policy = policies.get(name)
        if policy is None:
            continue
        definition = definition_matches(policy, request, registry)
        if definition.error is not None:
            out.append(PolicyMatch(policy, definition))
            continue
        if not definition.matches:
            continue
        found: PolicyMatch[P, B] = PolicyMatch(policy, definition)
        for binding in by_policy[name]:
            result = binding_matches(binding, request, registry)
            if result.error is not None:
                found.binding_errors.append((binding, result.error))
            elif result.matches:
                found.bindings.append(binding)
        if found.bindings or found.binding_errors:
            out.append(found)
    return out
