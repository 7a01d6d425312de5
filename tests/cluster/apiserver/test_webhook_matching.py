"""Which admission webhooks a request would be sent to (issue 38): upstream's table test of
k8s.io/apiserver admission/plugin/webhook/generic/webhook_test.go (TestShouldCallHook, the cases
of selectors and rules; its matchConditions cases are CEL's, handed back unevaluated here), the
API server's order of configurations, and the well-known products recognised by name."""

from __future__ import annotations

from typing import Any

import pytest

from podwhy.cluster.apiserver.admission.policy.predicates import MatchError
from podwhy.cluster.apiserver.admission.policy.products import WebhookProduct, recognize
from podwhy.cluster.apiserver.admission.policy.request import GroupVersionKind, GroupVersionResource, request_for
from podwhy.cluster.apiserver.admission.policy.webhooks import (
    WebhookError,
    WebhookInvocation,
    matching_webhooks,
    should_call_hook,
)
from podwhy.model import objects as o
from podwhy.snapshot.source import FileSource
from tests.cluster.apiserver.test_policy_matching import (
    DEPLOYMENT,
    SCALE,
    SHOP,
    _deployments_registry,
    _pod,
    attrs,
    gvk,
    gvr,
)
from tests.paths import REPO

FIXTURE = REPO / "fixtures" / "admission" / "cluster.yaml"


def _rule(groups: list[str], versions: list[str], resources: list[str]) -> o.RuleWithOperations:
    return o.RuleWithOperations(operations=["*"], api_groups=groups, api_versions=versions, resources=resources)


def _hook(*rules: o.RuleWithOperations, policy: str = "Exact", **fields: Any) -> o.ValidatingWebhook:
    # Upstream's cases leave MatchPolicy nil unless they name it: nil is not Equivalent.
    return o.ValidatingWebhook(name="mock-hook", rules=list(rules), match_policy=policy, **fields)


_D = {
    "extensions": _rule(["extensions"], ["v1beta1"], ["deployments"]),
    "apps/v1beta1": _rule(["apps"], ["v1beta1"], ["deployments"]),
    "apps/v1": _rule(["apps"], ["v1"], ["deployments"]),
}
_S = {
    "extensions": _rule(["extensions"], ["v1beta1"], ["deployments", "deployments/scale"]),
    "apps/v1beta1": _rule(["apps"], ["v1beta1"], ["deployments", "deployments/scale"]),
    "apps/v1": _rule(["apps"], ["v1"], ["deployments", "deployments/scale"]),
}
WIDGET = attrs(gvk("example.com", "v2", "Widget"), "ns", "name", gvr("example.com", "v2", "widgets"))

# (upstream name, webhook, request, (resource, subresource, kind) when called, error)
CASES: list[tuple[str, o.ValidatingWebhook, Any, tuple[GroupVersionResource, str, GroupVersionKind] | None, str]] = [
    ("no rules (just write)", _hook(), DEPLOYMENT, None, ""),
    (
        "invalid kind lookup",
        _hook(_rule(["example.com"], ["v1"], ["widgets"]), policy="Equivalent"),
        WIDGET,
        None,
        "unknown kind",
    ),
    (
        "wildcard rule, match as requested",
        _hook(_rule(["*"], ["*"], ["*"])),
        DEPLOYMENT,
        (gvr("apps", "v1", "deployments"), "", gvk("apps", "v1", "Deployment")),
        "",
    ),
    (
        "specific rules, prefer exact match",
        _hook(_D["extensions"], _D["apps/v1beta1"], _D["apps/v1"]),
        DEPLOYMENT,
        (gvr("apps", "v1", "deployments"), "", gvk("apps", "v1", "Deployment")),
        "",
    ),
    ("specific rules, match miss", _hook(_D["extensions"], _D["apps/v1beta1"]), DEPLOYMENT, None, ""),
    ("specific rules, exact match miss", _hook(_D["extensions"], _D["apps/v1beta1"]), DEPLOYMENT, None, ""),
    (
        "specific rules, equivalent match, prefer extensions",
        _hook(_D["extensions"], _D["apps/v1beta1"], policy="Equivalent"),
        DEPLOYMENT,
        (gvr("extensions", "v1beta1", "deployments"), "", gvk("extensions", "v1beta1", "Deployment")),
        "",
    ),
    (
        "specific rules, equivalent match, prefer apps",
        _hook(_D["apps/v1beta1"], _D["extensions"], policy="Equivalent"),
        DEPLOYMENT,
        (gvr("apps", "v1beta1", "deployments"), "", gvk("apps", "v1beta1", "Deployment")),
        "",
    ),
    (
        "specific rules, subresource prefer exact match",
        _hook(_S["extensions"], _S["apps/v1beta1"], _S["apps/v1"]),
        SCALE,
        (gvr("apps", "v1", "deployments"), "scale", gvk("autoscaling", "v1", "Scale")),
        "",
    ),
    ("specific rules, subresource match miss", _hook(_S["extensions"], _S["apps/v1beta1"]), SCALE, None, ""),
    ("specific rules, subresource exact match miss", _hook(_S["extensions"], _S["apps/v1beta1"]), SCALE, None, ""),
    (
        "specific rules, subresource equivalent match, prefer extensions",
        _hook(_S["extensions"], _S["apps/v1beta1"], policy="Equivalent"),
        SCALE,
        (gvr("extensions", "v1beta1", "deployments"), "scale", gvk("extensions", "v1beta1", "Scale")),
        "",
    ),
    (
        "specific rules, subresource equivalent match, prefer apps",
        _hook(_S["apps/v1beta1"], _S["extensions"], policy="Equivalent"),
        SCALE,
        (gvr("apps", "v1beta1", "deployments"), "scale", gvk("apps", "v1beta1", "Scale")),
        "",
    ),
]


@pytest.mark.parametrize(("webhook", "request_", "called", "error"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_should_call_hook(
    webhook: o.ValidatingWebhook,
    request_: Any,
    called: tuple[GroupVersionResource, str, GroupVersionKind] | None,
    error: str,
) -> None:
    """webhook_test.go TestShouldCallHook."""
    outcome = should_call_hook(webhook, "mock-cfg", request_, registry=_deployments_registry())
    if error:
        assert isinstance(outcome, MatchError) and error in outcome.message
        return
    if called is None:
        assert outcome is None
        return
    assert isinstance(outcome, WebhookInvocation)
    assert (outcome.resource, outcome.subresource, outcome.kind) == called
    assert outcome.name == "mock-hook" and outcome.configuration == "mock-cfg"


def test_a_selector_error_is_said_only_when_a_rule_matches() -> None:
    bad = o.LabelSelector(
        match_expressions=[o.LabelSelectorRequirement(key="key", operator="In", values=["bad value"])]
    )
    pods = _hook(_rule([""], ["v1"], ["pods"]), object_selector=bad)
    deployments = _hook(_rule(["apps"], ["v1"], ["deployments"]), object_selector=bad)
    request = request_for(_pod("shop"), SHOP)
    outcome = should_call_hook(pods, "cfg", request)
    assert isinstance(outcome, MatchError) and outcome.code == 500 and "bad value" in outcome.message
    assert should_call_hook(deployments, "cfg", request) is None


# ---------------------------------------------------------------- the fixture's webhooks


def test_the_webhooks_a_pod_meets_in_the_api_servers_order() -> None:
    snapshot = FileSource([str(FIXTURE)]).load()
    request = request_for(_pod("shop"), SHOP)
    found = matching_webhooks(snapshot.validating_webhook_configurations, request)
    assert all(isinstance(f, WebhookInvocation) for f in found)
    # Configurations by name: gatekeeper's before kyverno's.
    assert [(f.configuration, f.name, f.failure_policy) for f in found if isinstance(f, WebhookInvocation)] == [
        ("gatekeeper-validating-webhook-configuration", "validation.gatekeeper.sh", "Ignore"),
        ("kyverno-resource-validating-webhook-cfg", "validate.kyverno.svc-fail", "Fail"),
    ]
    # cert-manager's rules cover its own groups only.
    assert matching_webhooks(snapshot.mutating_webhook_configurations, request) == []


def test_namespace_selectors_exempt_namespaces() -> None:
    snapshot = FileSource([str(FIXTURE)]).load()
    kyverno = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kyverno", "labels": {}}}
    kyverno["metadata"]["labels"] = {"kubernetes.io/metadata.name": "kyverno"}
    ignored = {"metadata": {"name": "ops", "labels": {"admission.gatekeeper.sh/ignore": "yes"}}}
    names = [
        f.name
        for f in matching_webhooks(snapshot.validating_webhook_configurations, request_for(_pod("kyverno"), kyverno))
        if isinstance(f, WebhookInvocation)
    ]
    assert names == ["validation.gatekeeper.sh"]
    names = [
        f.name
        for f in matching_webhooks(snapshot.validating_webhook_configurations, request_for(_pod("ops"), ignored))
        if isinstance(f, WebhookInvocation)
    ]
    assert names == ["validate.kyverno.svc-fail"]


def test_a_namespace_the_api_server_does_not_find_fails_the_request() -> None:
    snapshot = FileSource([str(FIXTURE)]).load()
    found = matching_webhooks(snapshot.validating_webhook_configurations, request_for(_pod("gone"), None))
    assert [(type(f).__name__, f.webhook.name) for f in found] == [
        ("WebhookError", "validation.gatekeeper.sh"),
        ("WebhookError", "validate.kyverno.svc-fail"),
    ]
    assert all(isinstance(f, WebhookError) and f.error == MatchError(404, 'namespaces "gone" not found') for f in found)


def test_match_conditions_are_handed_back_unevaluated() -> None:
    condition = o.MatchCondition(name="not-system", expression="!request.userInfo.username.startsWith('system:')")
    hook = _hook(_rule([""], ["v1"], ["pods"]), match_conditions=[condition])
    configuration = o.MutatingWebhookConfiguration(
        metadata=o.ObjectMeta(name="c"),
        webhooks=[o.MutatingWebhook(**{f: getattr(hook, f) for f in hook.__struct_fields__})],
    )
    (found,) = matching_webhooks([configuration], request_for(_pod("shop"), SHOP))
    assert isinstance(found, WebhookInvocation) and found.match_conditions == [condition]
    assert isinstance(found.webhook, o.MutatingWebhook) and found.webhook.reinvocation_policy == "Never"
    assert found.uid == "c/mock-hook/0"


# ---------------------------------------------------------------- well-known products


@pytest.mark.parametrize(
    ("name", "service", "product"),
    [
        ("validate.kyverno.svc-fail", None, WebhookProduct.KYVERNO),
        ("mutate.kyverno.svc-ignore", None, WebhookProduct.KYVERNO),
        ("custom.example.com", o.ServiceReference(namespace="x", name="kyverno-svc"), WebhookProduct.KYVERNO),
        ("custom.example.com", o.ServiceReference(namespace="kyverno", name="x"), WebhookProduct.KYVERNO),
        ("validation.gatekeeper.sh", None, WebhookProduct.GATEKEEPER),
        ("check-ignore-label.gatekeeper.sh", None, WebhookProduct.GATEKEEPER),
        (
            "x.example.com",
            o.ServiceReference(namespace="policy", name="gatekeeper-webhook-service"),
            WebhookProduct.GATEKEEPER,
        ),
        ("x.example.com", o.ServiceReference(namespace="gatekeeper-system", name="x"), WebhookProduct.GATEKEEPER),
        ("webhook.cert-manager.io", None, WebhookProduct.CERT_MANAGER),
        (
            "x.example.com",
            o.ServiceReference(namespace="infra", name="cert-manager-webhook"),
            WebhookProduct.CERT_MANAGER,
        ),
        ("x.example.com", o.ServiceReference(namespace="infra", name="policy-webhook"), None),
        ("x.example.com", None, None),
    ],
)
def test_well_known_webhooks_are_recognised(
    name: str, service: o.ServiceReference | None, product: WebhookProduct | None
) -> None:
    webhook = o.ValidatingWebhook(name=name, client_config=o.WebhookClientConfig(service=service))
    assert recognize(webhook) is product


def test_the_fixtures_webhooks_are_recognised() -> None:
    snapshot = FileSource([str(FIXTURE)]).load()
    hooks = [
        *(w for c in snapshot.validating_webhook_configurations.values() for w in c.webhooks),
        *(w for c in snapshot.mutating_webhook_configurations.values() for w in c.webhooks),
    ]
    assert {w.name: recognize(w) for w in hooks} == {
        "validate.kyverno.svc-fail": WebhookProduct.KYVERNO,
        "validation.gatekeeper.sh": WebhookProduct.GATEKEEPER,
        "webhook.cert-manager.io": WebhookProduct.CERT_MANAGER,
    }
