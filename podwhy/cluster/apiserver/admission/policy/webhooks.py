"""Which admission webhooks a request would be sent to (k8s.io/apiserver admission/plugin/webhook/
generic webhook.go ShouldCallHook, and configuration/*_webhook_manager.go's order): the namespace
and object selectors, the rules, and matchPolicy Equivalent. podwhy never calls a webhook: a
matching one is named with its failurePolicy, and its matchConditions (CEL) handed back
unevaluated."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import msgspec

from podwhy.cluster.apiserver.admission.policy.equivalence import SERVED, EquivalentResourceRegistry
from podwhy.cluster.apiserver.admission.policy.matching import UNKNOWN_KIND
from podwhy.cluster.apiserver.admission.policy.predicates import (
    MatchError,
    internal_error,
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


class WebhookInvocation(msgspec.Struct, frozen=True):
    """A webhook the request would be sent to: the webhook (its name, failurePolicy, timeout,
    clientConfig), its configuration's name, the resource and kind it would be sent as (an
    equivalent one under Equivalent), and its matchConditions, CEL for the caller to evaluate (the
    webhook is called only if they all hold; an error fails closed, 403)."""

    webhook: o.ValidatingWebhook  # or a MutatingWebhook (which extends it)
    configuration: str
    uid: str  # as the API server names it: configuration/webhook/index among same-named ones
    resource: GroupVersionResource
    subresource: str
    kind: GroupVersionKind

    @property
    def name(self) -> str:
        return self.webhook.name

    @property
    def failure_policy(self) -> str:
        return self.webhook.failure_policy

    @property
    def match_conditions(self) -> list[o.MatchCondition]:
        return self.webhook.match_conditions


class WebhookError(msgspec.Struct, frozen=True):
    """A webhook whose selectors the API server cannot decide on for this request, or whose
    equivalent resource has no kind: the request fails with ERROR (whatever the failurePolicy)."""

    webhook: o.ValidatingWebhook  # or a MutatingWebhook (which extends it)
    configuration: str
    error: MatchError


def _equivalent(
    webhook: o.ValidatingWebhook, request: Request, registry: EquivalentResourceRegistry
) -> tuple[GroupVersionResource, GroupVersionKind] | MatchError | None:
    """The first equivalent resource a rule matches, rule by rule (earlier rules first)."""
    equivalents = registry.equivalent_resources_for(request.resource, request.subresource)
    for rule in webhook.rules:
        for equivalent in equivalents:
            if equivalent == request.resource:
                continue
            moved = Request(
                operation=request.operation,
                kind=request.kind,
                resource=equivalent,
                subresource=request.subresource,
                name=request.name,
                namespace=request.namespace,
                object=request.object,
                old_object=request.old_object,
                namespace_object=request.namespace_object,
            )
            if rule_matches(rule, moved):
                kind = registry.kind_for(equivalent, request.subresource)
                if kind is None:
                    return internal_error(UNKNOWN_KIND.format(resource=equivalent))
                return equivalent, kind
    return None


def should_call_hook(
    webhook: o.ValidatingWebhook,
    configuration: str,
    request: Request,
    uid: str = "",
    registry: EquivalentResourceRegistry = SERVED,
) -> WebhookInvocation | MatchError | None:
    """ShouldCallHook up to the matchConditions: the invocation, None when the webhook does not
    apply, or the error the request fails with (a selector error, or the namespace not found,
    said only when a rule matches)."""
    in_namespace, namespace_error = match_namespace_selector(webhook.namespace_selector, request)
    if not in_namespace and namespace_error is None:
        return None
    selected, object_error = match_object_selector(webhook.object_selector, request)
    if not selected and object_error is None:
        return None
    uid = uid or f"{configuration}/{webhook.name}/0"
    found: WebhookInvocation | None = None
    if any(rule_matches(rule, request) for rule in webhook.rules):
        found = WebhookInvocation(webhook, configuration, uid, request.resource, request.subresource, request.kind)
    elif webhook.match_policy == o.EQUIVALENT:
        equivalent = _equivalent(webhook, request, registry)
        if isinstance(equivalent, MatchError):
            return equivalent
        if equivalent is not None:
            found = WebhookInvocation(webhook, configuration, uid, equivalent[0], request.subresource, equivalent[1])
    if found is None:
        return None
    return namespace_error or object_error or found


Configuration = o.ValidatingWebhookConfiguration | o.MutatingWebhookConfiguration


def matching_webhooks(
    configurations: Mapping[str, o.ValidatingWebhookConfiguration]
    | Mapping[str, o.MutatingWebhookConfiguration]
    | Iterable[Configuration],
    request: Request,
    registry: EquivalentResourceRegistry = SERVED,
) -> list[WebhookInvocation | WebhookError]:
    """The webhooks of CONFIGURATIONS a request would be sent to (or fails on), in the API server's
    order: configurations by name, webhooks as each lists them. The admission configuration itself
    is exempt (rules.IsExemptAdmissionConfigurationResource)."""
    if is_exempt(request):
        return []
    items: list[Configuration] = (
        list(configurations.values()) if isinstance(configurations, Mapping) else list(configurations)
    )
    out: list[WebhookInvocation | WebhookError] = []
    for configuration in sorted(items, key=lambda c: c.metadata.name):
        name = configuration.metadata.name
        seen: dict[str, int] = {}
        for webhook in configuration.webhooks:
            index = seen.get(webhook.name, 0)
            seen[webhook.name] = index + 1
            outcome = should_call_hook(webhook, name, request, f"{name}/{webhook.name}/{index}", registry)
            if isinstance(outcome, MatchError):
                out.append(WebhookError(webhook, name, outcome))
            elif outcome is not None:
                out.append(outcome)
    return out
