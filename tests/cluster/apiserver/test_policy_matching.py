"""Admission policy matching (issue 38): upstream's table tests of k8s.io/apiserver
admission/plugin/policy/matching/matching_test.go (TestMatcher) and of the predicates it uses,
webhook/predicates/rules/rules_test.go (TestGroup, TestVersion, TestOperation, TestResource,
TestScope), namespace/matcher_test.go (TestGetNamespaceLabels, TestNotExemptClusterScopedResource)
and object/matcher_test.go (TestObjectSelector), each case named as upstream names it; then
policies and bindings together, and the kinds podwhy creates."""

from __future__ import annotations

from typing import Any

import pytest

from podwhy.cluster.apiserver.admission.policy.equivalence import SERVED, EquivalentResourceRegistry
from podwhy.cluster.apiserver.admission.policy.matching import (
    NO_MATCH_CONSTRAINTS,
    MatchResult,
    binding_matches,
    definition_matches,
    matches,
    matching_policies,
)
from podwhy.cluster.apiserver.admission.policy.predicates import (
    MatchError,
    match_namespace_selector,
    match_object_selector,
    namespace_labels,
    rule_group,
    rule_operation,
    rule_resource,
    rule_scope,
    rule_version,
)
from podwhy.cluster.apiserver.admission.policy.request import (
    GroupVersionKind,
    GroupVersionResource,
    Request,
    request_for,
)
from podwhy.errors import PodwhyError
from podwhy.model import objects as o
from podwhy.snapshot.source import FileSource
from tests.paths import REPO


def gvr(group: str, version: str, resource: str) -> GroupVersionResource:
    return GroupVersionResource(group, version, resource)


def gvk(group: str, version: str, kind: str) -> GroupVersionKind:
    return GroupVersionKind(group, version, kind)


def attrs(
    kind: GroupVersionKind,
    namespace: str,
    name: str,
    resource: GroupVersionResource,
    subresource: str = "",
    operation: str = "CREATE",
    obj: dict[str, Any] | None = None,
    old: dict[str, Any] | None = None,
    namespace_object: dict[str, Any] | None = None,
) -> Request:
    """admission.NewAttributesRecord, with the arguments matching reads."""
    return Request(operation, kind, resource, subresource, name, namespace, obj, old, namespace_object)


def rule(
    groups: list[str],
    versions: list[str],
    resources: list[str],
    operations: tuple[str, ...] = ("*",),
    names: tuple[str, ...] = (),
    scope: str = "*",
) -> o.NamedRuleWithOperations:
    return o.NamedRuleWithOperations(
        operations=list(operations),
        api_groups=groups,
        api_versions=versions,
        resources=resources,
        scope=scope,
        resource_names=list(names),
    )


# ---------------------------------------------------------------- matching_test.go TestMatcher


def _deployments_registry() -> EquivalentResourceRegistry:
    """TestMatcher's mapper: deployments of every group co-located, their scale subresources."""
    mapper = EquivalentResourceRegistry(lambda group, resource: "/deployments" if resource == "deployments" else "")
    for group, version in (("extensions", "v1beta1"), ("apps", "v1"), ("apps", "v1beta1"), ("apps", "v1alpha1")):
        mapper.register_kind_for(gvr(group, version, "deployments"), "", gvk(group, version, "Deployment"))
    for resource, kind in (
        (gvr("extensions", "v1beta1", "deployments"), gvk("extensions", "v1beta1", "Scale")),
        (gvr("apps", "v1", "deployments"), gvk("autoscaling", "v1", "Scale")),
        (gvr("apps", "v1beta1", "deployments"), gvk("apps", "v1beta1", "Scale")),
        (gvr("apps", "v1alpha1", "deployments"), gvk("apps", "v1alpha1", "Scale")),
    ):
        mapper.register_kind_for(resource, "scale", kind)
    # invalid kinds, to trigger an error
    mapper.register_kind_for(gvr("example.com", "v1", "widgets"), "", gvk("", "", ""))
    mapper.register_kind_for(gvr("example.com", "v2", "widgets"), "", gvk("", "", ""))
    return mapper


DEPLOYMENT = attrs(gvk("apps", "v1", "Deployment"), "ns", "name", gvr("apps", "v1", "deployments"))
SCALE = attrs(gvk("autoscaling", "v1", "Scale"), "ns", "name", gvr("apps", "v1", "deployments"), "scale")
SCALE_AS_DEPLOYMENT = attrs(gvk("autoscaling", "v1", "Scale"), "ns", "name", gvr("apps", "v1", "deployments"))
EXTENSIONS_SCALE = attrs(
    gvk("autoscaling", "v1", "Scale"), "ns", "name", gvr("extensions", "v1beta1", "deployments"), "scale"
)
EXTENSIONS_DEPLOYMENT = attrs(
    gvk("autoscaling", "v1", "Scale"), "ns", "name", gvr("extensions", "v1beta1", "deployments")
)
EXAMPLE_POD = attrs(
    gvk("example.apiserver.k8s.io", "v1", "Pod"),
    "ns",
    "name",
    gvr("example.apiserver.k8s.io", "v1", "pods"),
    obj={"metadata": {}},
)
_DEPLOY_RULES = {
    "extensions/v1": rule(["extensions"], ["v1"], ["deployments"]),
    "extensions/v1beta1": rule(["extensions"], ["v1beta1"], ["deployments"]),
    "apps/v1beta1": rule(["apps"], ["v1beta1"], ["deployments"]),
    "apps/v1": rule(["apps"], ["v1"], ["deployments"]),
}
_SCALE_RULES = {
    "extensions/v1beta1": rule(["extensions"], ["v1beta1"], ["deployments", "deployments/scale"]),
    "apps/v1beta1": rule(["apps"], ["v1beta1"], ["deployments", "deployments/scale"]),
    "apps/v1": rule(["apps"], ["v1"], ["deployments", "deployments/scale"]),
}
_BAD_VALUE = o.LabelSelector(
    match_expressions=[o.LabelSelectorRequirement(key="key", operator="In", values=["bad value"])]
)
_BAD_KEY = o.LabelSelector(
    match_expressions=[o.LabelSelectorRequirement(key="key ", operator="In", values=["bad value"])]
)


def _criteria(*rules: o.NamedRuleWithOperations, policy: str = "Equivalent", **fields: Any) -> o.MatchResources:
    # Upstream's cases leave MatchPolicy nil unless they name it: nil is Exact in matchesResourceRules.
    return o.MatchResources(resource_rules=list(rules), match_policy=policy, **fields)


# (upstream name, criteria, request, matches, kind, resource, error)
MATCHER_CASES: list[
    tuple[str, o.MatchResources, Request, bool, GroupVersionKind | None, GroupVersionResource | None, str]
] = [
    (
        "wildcard rule, match as requested",
        _criteria(rule(["*"], ["*"], ["*"]), policy="Exact"),
        DEPLOYMENT,
        True,
        gvk("apps", "v1", "Deployment"),
        None,
        "",
    ),
    (
        "specific rules, prefer exact match",
        _criteria(
            _DEPLOY_RULES["extensions/v1"], _DEPLOY_RULES["apps/v1beta1"], _DEPLOY_RULES["apps/v1"], policy="Exact"
        ),
        DEPLOYMENT,
        True,
        gvk("apps", "v1", "Deployment"),
        None,
        "",
    ),
    (
        "specific rules, match miss",
        _criteria(_DEPLOY_RULES["extensions/v1beta1"], _DEPLOY_RULES["apps/v1beta1"], policy="Exact"),
        DEPLOYMENT,
        False,
        None,
        None,
        "",
    ),
    (
        "specific rules, exact match miss",
        _criteria(_DEPLOY_RULES["extensions/v1beta1"], _DEPLOY_RULES["apps/v1beta1"], policy="Exact"),
        DEPLOYMENT,
        False,
        None,
        None,
        "",
    ),
    (
        "specific rules, equivalent match, prefer extensions",
        _criteria(_DEPLOY_RULES["extensions/v1beta1"], _DEPLOY_RULES["apps/v1beta1"]),
        DEPLOYMENT,
        True,
        gvk("extensions", "v1beta1", "Deployment"),
        gvr("extensions", "v1beta1", "deployments"),
        "",
    ),
    (
        "specific rules, equivalent match, prefer apps",
        _criteria(_DEPLOY_RULES["apps/v1beta1"], _DEPLOY_RULES["extensions/v1beta1"]),
        DEPLOYMENT,
        True,
        gvk("apps", "v1beta1", "Deployment"),
        gvr("apps", "v1beta1", "deployments"),
        "",
    ),
    (
        "specific rules, subresource prefer exact match",
        _criteria(
            _SCALE_RULES["extensions/v1beta1"], _SCALE_RULES["apps/v1beta1"], _SCALE_RULES["apps/v1"], policy="Exact"
        ),
        SCALE,
        True,
        gvk("autoscaling", "v1", "Scale"),
        None,
        "",
    ),
    (
        "specific rules, subresource match miss",
        _criteria(_SCALE_RULES["extensions/v1beta1"], _SCALE_RULES["apps/v1beta1"], policy="Exact"),
        SCALE,
        False,
        None,
        None,
        "",
    ),
    (
        "specific rules, subresource exact match miss",
        _criteria(_SCALE_RULES["extensions/v1beta1"], _SCALE_RULES["apps/v1beta1"], policy="Exact"),
        SCALE,
        False,
        None,
        None,
        "",
    ),
    (
        "specific rules, subresource equivalent match, prefer extensions",
        _criteria(_SCALE_RULES["extensions/v1beta1"], _SCALE_RULES["apps/v1beta1"]),
        SCALE,
        True,
        gvk("extensions", "v1beta1", "Scale"),
        gvr("extensions", "v1beta1", "deployments"),
        "",
    ),
    (
        "specific rules, subresource equivalent match, prefer apps",
        _criteria(_SCALE_RULES["apps/v1beta1"], _SCALE_RULES["extensions/v1beta1"]),
        SCALE,
        True,
        gvk("apps", "v1beta1", "Scale"),
        gvr("apps", "v1beta1", "deployments"),
        "",
    ),
    (
        "specific rules, prefer exact match and name match",
        _criteria(rule(["apps"], ["v1"], ["deployments"], names=("name",)), policy="Exact"),
        SCALE_AS_DEPLOYMENT,
        True,
        gvk("autoscaling", "v1", "Scale"),
        None,
        "",
    ),
    (
        "specific rules, prefer exact match and name match miss",
        _criteria(rule(["apps"], ["v1"], ["deployments"], names=("wrong-name",)), policy="Exact"),
        SCALE_AS_DEPLOYMENT,
        False,
        None,
        None,
        "",
    ),
    (
        "specific rules, subresource equivalent match, prefer extensions and name match",
        _criteria(rule(["apps"], ["v1"], ["deployments", "deployments/scale"], names=("name",))),
        EXTENSIONS_SCALE,
        True,
        gvk("autoscaling", "v1", "Scale"),
        gvr("apps", "v1", "deployments"),
        "",
    ),
    (
        "specific rules, subresource equivalent match, prefer extensions and name match miss",
        _criteria(rule(["apps"], ["v1"], ["deployments", "deployments/scale"], names=("wrong-name",))),
        EXTENSIONS_SCALE,
        False,
        None,
        None,
        "",
    ),
    (
        "exclude resource match on miss",
        _criteria(
            rule(["*"], ["*"], ["*"]), policy="Exact", exclude_resource_rules=[_DEPLOY_RULES["extensions/v1beta1"]]
        ),
        SCALE_AS_DEPLOYMENT,
        True,
        gvk("autoscaling", "v1", "Scale"),
        None,
        "",
    ),
    (
        "exclude resource miss on match",
        _criteria(
            rule(["*"], ["*"], ["*"]), policy="Exact", exclude_resource_rules=[_DEPLOY_RULES["extensions/v1beta1"]]
        ),
        EXTENSIONS_DEPLOYMENT,
        False,
        None,
        None,
        "",
    ),
    (
        "treat empty ResourceRules as match",
        _criteria(policy="Exact", exclude_resource_rules=[_DEPLOY_RULES["extensions/v1beta1"]]),
        SCALE_AS_DEPLOYMENT,
        True,
        None,
        None,
        "",
    ),
    (
        "treat non-empty ResourceRules as no match",
        _criteria(o.NamedRuleWithOperations(scope=""), policy="Exact"),
        SCALE_AS_DEPLOYMENT,
        False,
        None,
        None,
        "",
    ),
    (
        "erroring namespace selector on otherwise non-matching rule doesn't error",
        _criteria(rule(["*"], ["*"], ["deployments"]), policy="Exact", namespace_selector=_BAD_KEY),
        EXAMPLE_POD,
        False,
        None,
        None,
        "",
    ),
    (
        "erroring namespace selector on otherwise matching rule errors",
        _criteria(rule(["*"], ["*"], ["pods"]), policy="Exact", namespace_selector=_BAD_VALUE),
        EXAMPLE_POD,
        False,
        None,
        None,
        "bad value",
    ),
    (
        "erroring object selector on otherwise non-matching rule doesn't error",
        _criteria(rule(["*"], ["*"], ["deployments"]), policy="Exact", object_selector=_BAD_VALUE),
        EXAMPLE_POD,
        False,
        None,
        None,
        "",
    ),
    (
        "erroring object selector on otherwise matching rule errors",
        _criteria(rule(["*"], ["*"], ["pods"]), policy="Exact", object_selector=_BAD_VALUE),
        EXAMPLE_POD,
        False,
        None,
        None,
        "bad value",
    ),
]
# Not ported: "no rules (just write)" sets no object selector (Go's nil, LabelSelectorAsSelector's
# Nothing); podwhy reads every MatchResources with SetDefaults_MatchResources applied, as the API
# server stores it, so a nil selector cannot occur.


@pytest.mark.parametrize(
    ("criteria", "request_", "expect", "kind", "resource", "error"),
    [case[1:] for case in MATCHER_CASES],
    ids=[case[0] for case in MATCHER_CASES],
)
def test_matcher(
    criteria: o.MatchResources,
    request_: Request,
    expect: bool,
    kind: GroupVersionKind | None,
    resource: GroupVersionResource | None,
    error: str,
) -> None:
    """matching_test.go TestMatcher."""
    result = matches(criteria, request_, _deployments_registry())
    if error:
        assert result.error is not None and error in result.error.message and not result.matches
        return
    assert result.error is None
    assert result.matches is expect
    if kind is not None:
        assert result.kind == kind
    if result.matches:
        assert result.resource == (resource or request_.resource)


def test_an_equivalent_resource_without_a_kind_is_an_error() -> None:
    """matchesResourceRules: `unable to convert to ...: unknown kind` (TestMatcher's invalid kinds)."""
    request = attrs(gvk("example.com", "v2", "Widget"), "ns", "name", gvr("example.com", "v2", "widgets"))
    result = matches(_criteria(rule(["example.com"], ["v1"], ["widgets"])), request, _deployments_registry())
    assert result == MatchResult(
        False, error=MatchError(500, "unable to convert to example.com/v1, Resource=widgets: unknown kind")
    )


# ---------------------------------------------------------------- rules_test.go


def _a(group: str, version: str, resource: str, subresource: str = "", operation: str = "CREATE") -> Request:
    return attrs(
        gvk(group, version, "k" + resource), "ns", "name", gvr(group, version, resource), subresource, operation
    )


def _cluster(group: str, version: str, resource: str, subresource: str = "", name: str = "name") -> Request:
    return attrs(gvk(group, version, "k" + resource), "", name, gvr(group, version, resource), subresource)


def _namespaced(group: str, version: str, resource: str, subresource: str = "", name: str = "name") -> Request:
    return attrs(gvk(group, version, "k" + resource), "ns", name, gvr(group, version, resource), subresource)


def _r(**fields: Any) -> o.RuleWithOperations:
    return o.RuleWithOperations(**fields)


RULE_CASES: list[tuple[str, Any, o.RuleWithOperations, list[Request], list[Request]]] = [
    ("TestGroup/wildcard", rule_group, _r(api_groups=["*"]), [_a("g", "v", "r")], []),
    (
        "TestGroup/exact",
        rule_group,
        _r(api_groups=["g1", "g2"]),
        [_a("g1", "v", "r"), _a("g2", "v2", "r3")],
        [_a("g3", "v", "r"), _a("g4", "v", "r")],
    ),
    ("TestVersion/wildcard", rule_version, _r(api_versions=["*"]), [_a("g", "v", "r")], []),
    (
        "TestVersion/exact",
        rule_version,
        _r(api_versions=["v1", "v2"]),
        [_a("g1", "v1", "r"), _a("g2", "v2", "r")],
        [_a("g1", "v3", "r"), _a("g2", "v4", "r")],
    ),
    (
        "TestOperation/wildcard",
        rule_operation,
        _r(operations=["*"]),
        [_a("g", "v", "r", operation=op) for op in ("CREATE", "UPDATE", "DELETE", "CONNECT")],
        [],
    ),
    *[
        (
            f"TestOperation/{op.lower()}",
            rule_operation,
            _r(operations=[op]),
            [_a("g", "v", "r", operation=op)],
            [_a("g", "v", "r", operation=other) for other in ("CREATE", "UPDATE", "DELETE", "CONNECT") if other != op],
        )
        for op in ("CREATE", "UPDATE", "DELETE", "CONNECT")
    ],
    (
        "TestOperation/multiple",
        rule_operation,
        _r(operations=["UPDATE", "DELETE"]),
        [_a("g", "v", "r", operation="UPDATE"), _a("g", "v", "r", operation="DELETE")],
        [_a("g", "v", "r", operation="CREATE"), _a("g", "v", "r", operation="CONNECT")],
    ),
    (
        "TestResource/no subresources",
        rule_resource,
        _r(resources=["*"]),
        [_a("g", "v", "r"), _a("2", "v", "r2")],
        [_a("g", "v", "r", "exec"), _a("2", "v", "r2", "proxy")],
    ),
    (
        "TestResource/r & subresources",
        rule_resource,
        _r(resources=["r/*"]),
        [_a("g", "v", "r"), _a("g", "v", "r", "exec")],
        [_a("2", "v", "r2"), _a("2", "v", "r2", "proxy")],
    ),
    (
        "TestResource/r & subresources or r2",
        rule_resource,
        _r(resources=["r/*", "r2"]),
        [_a("g", "v", "r"), _a("g", "v", "r", "exec"), _a("2", "v", "r2")],
        [_a("2", "v", "r2", "proxy")],
    ),
    (
        "TestResource/proxy or exec",
        rule_resource,
        _r(resources=["*/proxy", "*/exec"]),
        [_a("g", "v", "r", "exec"), _a("2", "v", "r2", "proxy"), _a("2", "v", "r3", "proxy")],
        [_a("g", "v", "r"), _a("2", "v", "r2"), _a("2", "v", "r4", "scale")],
    ),
    (
        "TestScope/cluster scope",
        rule_scope,
        _r(resources=["*"], scope="Cluster"),
        [
            _cluster("g", "v", "r"),
            _cluster("g", "v", "r", "exec"),
            _cluster("", "v1", "namespaces", name="ns"),
            _cluster("", "v1", "namespaces", "finalize", name="ns"),
            _namespaced("", "v1", "namespaces", name="ns"),
            _namespaced("", "v1", "namespaces", "finalize", name="ns"),
        ],
        [_namespaced("g", "v", "r"), _namespaced("g", "v", "r", "exec")],
    ),
    (
        "TestScope/namespace scope",
        rule_scope,
        _r(resources=["*"], scope="Namespaced"),
        [_namespaced("g", "v", "r"), _namespaced("g", "v", "r", "exec")],
        [
            _cluster("", "v1", "namespaces", name="ns"),
            _cluster("", "v1", "namespaces", "finalize", name="ns"),
            _namespaced("", "v1", "namespaces", name="ns"),
            _namespaced("", "v1", "namespaces", "finalize", name="ns"),
            _cluster("g", "v", "r"),
            _cluster("g", "v", "r", "exec"),
        ],
    ),
    (
        "TestScope/all scopes",
        rule_scope,
        _r(resources=["*"], scope="*"),
        [
            _namespaced("g", "v", "r"),
            _namespaced("g", "v", "r", "exec"),
            _cluster("g", "v", "r"),
            _cluster("g", "v", "r", "exec"),
            _cluster("", "v1", "namespaces", name="ns"),
            _cluster("", "v1", "namespaces", "finalize", name="ns"),
            _namespaced("", "v1", "namespaces", name="ns"),
            _namespaced("", "v1", "namespaces", "finalize", name="ns"),
        ],
        [],
    ),
]


@pytest.mark.parametrize(
    ("part", "the_rule", "match", "no_match"), [c[1:] for c in RULE_CASES], ids=[c[0] for c in RULE_CASES]
)
def test_rules(part: Any, the_rule: o.RuleWithOperations, match: list[Request], no_match: list[Request]) -> None:
    """rules_test.go: each part of a rule (group, version, operation, resource, scope) alone."""
    for request in match:
        assert part(the_rule, request), request
    for request in no_match:
        assert not part(the_rule, request), request


# ---------------------------------------------------------------- namespace/matcher_test.go

_NS1 = {"metadata": {"name": "1", "labels": {"runlevel": "1"}}}
_NS2 = {"metadata": {"name": "2", "labels": {"runlevel": "2"}}}
_NAMESPACES = gvr("", "", "namespaces")


@pytest.mark.parametrize(
    ("request_", "labels"),
    [
        pytest.param(
            attrs(gvk("", "", ""), "", "2", _NAMESPACES, obj=_NS2, namespace_object=None),
            {"runlevel": "2"},
            id="request is for creating namespace, the labels should be from the object itself",
        ),
        pytest.param(
            attrs(gvk("", "", ""), "2", "2", _NAMESPACES, operation="UPDATE", obj=_NS2, namespace_object=_NS2),
            {"runlevel": "2"},
            id="request is for updating namespace, the labels should be from the new object",
        ),
        pytest.param(
            attrs(gvk("", "", ""), "1", "1", _NAMESPACES, operation="DELETE", obj=_NS2, namespace_object=_NS1),
            {"runlevel": "1"},
            id="request is for deleting namespace, the labels should be from the cache",
        ),
        pytest.param(
            attrs(gvk("", "", ""), "1", "mock-name", _NAMESPACES, "finalizers", namespace_object=_NS1),
            {"runlevel": "1"},
            id="request is for namespace/finalizer",
        ),
        pytest.param(
            attrs(gvk("", "", ""), "1", "mock-name", gvr("", "", "pods"), namespace_object=_NS1),
            {"runlevel": "1"},
            id="request is for pod",
        ),
    ],
)
def test_get_namespace_labels(request_: Request, labels: dict[str, str]) -> None:
    """namespace/matcher_test.go TestGetNamespaceLabels."""
    assert namespace_labels(request_) == labels


def test_not_exempt_cluster_scoped_resource() -> None:
    """namespace/matcher_test.go TestNotExemptClusterScopedResource: a cluster-scoped object (not a
    Namespace) is never exempted by a namespace selector, even one no namespace matches."""
    node = attrs(gvk("", "", ""), "", "mock-name", gvr("", "v1", "nodes"))
    assert match_namespace_selector(o.LabelSelector(), node) == (True, None)
    selective = o.LabelSelector(match_labels={"runlevel": "0"})
    assert match_namespace_selector(selective, node) == (True, None)


def test_a_namespace_not_found_is_404_when_the_selector_needs_it() -> None:
    pod = attrs(gvk("", "v1", "Pod"), "gone", "p", gvr("", "v1", "pods"))
    assert match_namespace_selector(o.LabelSelector(), pod) == (True, None)
    assert match_namespace_selector(o.LabelSelector(match_labels={"a": "b"}), pod) == (
        False,
        MatchError(404, 'namespaces "gone" not found'),
    )


# ---------------------------------------------------------------- object/matcher_test.go

_NODE1 = {"metadata": {"labels": {"runlevel": "1"}}}
_NODE2 = {"metadata": {"labels": {"runlevel": "2"}}}
_RUNLEVEL1_EXCLUDER = o.LabelSelector(
    match_expressions=[o.LabelSelectorRequirement(key="runlevel", operator="NotIn", values=["1"])]
)
_EMPTY = gvr("", "", "")


@pytest.mark.parametrize(
    ("selector", "request_", "expect"),
    [
        pytest.param(
            o.LabelSelector(),
            attrs(gvk("", "", ""), "", "name", _EMPTY),
            True,
            id="empty object selector matches everything",
        ),
        pytest.param(
            _RUNLEVEL1_EXCLUDER, attrs(gvk("", "", ""), "", "name", _EMPTY, obj=_NODE2), True, id="matches new object"
        ),
        pytest.param(
            _RUNLEVEL1_EXCLUDER,
            attrs(gvk("", "", ""), "", "name", _EMPTY, operation="DELETE", old=_NODE2),
            True,
            id="matches old object",
        ),
        pytest.param(
            _RUNLEVEL1_EXCLUDER,
            attrs(gvk("", "", ""), "", "name", _EMPTY, obj=_NODE1),
            False,
            id="does not match new object",
        ),
        pytest.param(
            _RUNLEVEL1_EXCLUDER,
            attrs(gvk("", "", ""), "", "name", _EMPTY, old=_NODE1),
            False,
            id="does not match old object",
        ),
    ],
)
def test_object_selector(selector: o.LabelSelector, request_: Request, expect: bool) -> None:
    """object/matcher_test.go TestObjectSelector. Not ported: the two cases of an object that is no
    Kubernetes object (NodeProxyOptions): podwhy's requests carry objects only."""
    assert match_object_selector(selector, request_) == (expect, None)


# ---------------------------------------------------------------- policies and bindings

FIXTURE = REPO / "fixtures" / "admission" / "cluster.yaml"
SHOP = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop", "labels": {"environment": "production"}}}
SANDBOX = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "sandbox", "labels": {}}}


def _pod(namespace: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": namespace, "labels": labels or {}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }


def _deployment(name: str, namespace: str = "shop") -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": namespace}}


def test_a_binding_selects_the_namespaces_its_policy_applies_in() -> None:
    snapshot = FileSource([str(FIXTURE)]).load()
    policies, bindings = snapshot.validating_admission_policies, snapshot.validating_admission_policy_bindings
    in_shop = matching_policies(policies, bindings.values(), request_for(_pod("shop"), SHOP))
    (found,) = in_shop
    assert found.policy.metadata.name == "require-resource-limits"
    assert [b.metadata.name for b in found.bindings] == ["require-resource-limits-binding"]
    assert found.definition == MatchResult(True, gvr("", "v1", "pods"), gvk("", "v1", "Pod"))
    assert [c.name for c in found.match_conditions] == ["not-kube-system"]  # CEL, for the evaluator
    assert matching_policies(policies, bindings.values(), request_for(_pod("sandbox"), SANDBOX)) == []


def test_excluded_names_and_bindings_without_match_resources() -> None:
    snapshot = FileSource([str(FIXTURE)]).load()
    policies, bindings = snapshot.validating_admission_policies, snapshot.validating_admission_policy_bindings
    web = matching_policies(policies, bindings.values(), request_for(_deployment("web"), SHOP))
    assert [(m.policy.metadata.name, [b.metadata.name for b in m.bindings]) for m in web] == [
        ("max-replicas", ["max-replicas-shop"]),
        ("require-resource-limits", ["require-resource-limits-binding"]),
    ]
    legacy = matching_policies(policies, bindings.values(), request_for(_deployment("legacy"), SHOP))
    assert [m.policy.metadata.name for m in legacy] == ["require-resource-limits"]
    # Bindings of a policy that does not exist are skipped; a policy without bindings never runs.
    orphan = o.ValidatingAdmissionPolicyBinding(
        metadata=o.ObjectMeta(name="orphan"), spec=o.ValidatingAdmissionPolicyBindingSpec(policy_name="nope")
    )
    assert matching_policies({}, [orphan], request_for(_deployment("web"), SHOP)) == []


def test_a_mutating_policy_binding_selects_objects_by_label() -> None:
    snapshot = FileSource([str(FIXTURE)]).load()
    policies, bindings = snapshot.mutating_admission_policies, snapshot.mutating_admission_policy_bindings
    (found,) = matching_policies(policies, bindings.values(), request_for(_pod("sandbox"), SANDBOX))
    assert found.policy.metadata.name == "add-team-label"
    labelled = request_for(_pod("sandbox", {"team": "x"}), SANDBOX)
    assert matching_policies(policies, bindings.values(), labelled) == []


def test_a_policy_without_match_constraints_is_a_configuration_error() -> None:
    policy = o.ValidatingAdmissionPolicy(metadata=o.ObjectMeta(name="p"))
    binding = o.ValidatingAdmissionPolicyBinding(
        metadata=o.ObjectMeta(name="b"), spec=o.ValidatingAdmissionPolicyBindingSpec(policy_name="p")
    )
    request = request_for(_pod("shop"), SHOP)
    assert definition_matches(policy, request) == MatchResult(False, error=MatchError(500, NO_MATCH_CONSTRAINTS))
    (found,) = matching_policies({"p": policy}, [binding], request)
    assert found.definition.error is not None and not found.bindings
    assert binding_matches(binding, request) == MatchResult(True)


def test_a_binding_whose_namespace_selector_cannot_be_decided_is_listed_with_why() -> None:
    policy = o.ValidatingAdmissionPolicy(
        metadata=o.ObjectMeta(name="p"),
        spec=o.ValidatingAdmissionPolicySpec(match_constraints=_criteria(rule([""], ["v1"], ["pods"]))),
    )
    binding = o.ValidatingAdmissionPolicyBinding(
        metadata=o.ObjectMeta(name="b"),
        spec=o.ValidatingAdmissionPolicyBindingSpec(
            policy_name="p",
            match_resources=o.MatchResources(namespace_selector=o.LabelSelector(match_labels={"a": "b"})),
        ),
    )
    (found,) = matching_policies({"p": policy}, [binding], request_for(_pod("gone"), None))
    assert found.bindings == [] and found.binding_errors == [(binding, MatchError(404, 'namespaces "gone" not found'))]


def test_the_admission_configuration_itself_is_exempt() -> None:
    policy = o.ValidatingAdmissionPolicy(
        metadata=o.ObjectMeta(name="p"),
        spec=o.ValidatingAdmissionPolicySpec(match_constraints=_criteria(rule(["*"], ["*"], ["*"]))),
    )
    binding = o.ValidatingAdmissionPolicyBinding(
        metadata=o.ObjectMeta(name="b"), spec=o.ValidatingAdmissionPolicyBindingSpec(policy_name="p")
    )
    vap = attrs(
        gvk("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy"),
        "",
        "x",
        gvr("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies"),
    )
    assert matching_policies({"p": policy}, [binding], vap) == []
    assert len(matching_policies({"p": policy}, [binding], request_for(_pod("shop"), SHOP))) == 1


# ---------------------------------------------------------------- the kinds podwhy creates


@pytest.mark.parametrize(
    ("obj", "resource", "kind"),
    [
        (_pod("shop"), gvr("", "v1", "pods"), gvk("", "v1", "Pod")),
        (_deployment("web"), gvr("apps", "v1", "deployments"), gvk("apps", "v1", "Deployment")),
        ({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {}}, gvr("apps", "v1", "replicasets"), None),
        ({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {}}, gvr("apps", "v1", "statefulsets"), None),
        ({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {}}, gvr("apps", "v1", "daemonsets"), None),
        ({"apiVersion": "batch/v1", "kind": "Job", "metadata": {}}, gvr("batch", "v1", "jobs"), None),
        ({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {}}, gvr("batch", "v1", "cronjobs"), None),
        (
            {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {}},
            gvr("", "v1", "persistentvolumeclaims"),
            None,
        ),
    ],
)
def test_each_kind_podwhy_creates_is_requested_as_its_resource(
    obj: dict[str, Any], resource: GroupVersionResource, kind: GroupVersionKind | None
) -> None:
    request = request_for(obj, SHOP)
    assert request.resource == resource and request.operation == "CREATE"
    if kind is not None:
        assert request.kind == kind
    # Equivalent to itself alone on the emulated releases: an old group's rule does not match.
    assert SERVED.equivalent_resources_for(resource, "") == [resource]
    assert SERVED.kind_for(resource, "") == request.kind
    old_group = _criteria(rule(["extensions"], ["v1beta1"], [resource.resource]))
    assert not matches(old_group, request).matches
    assert matches(_criteria(rule([resource.group], ["*"], [resource.resource])), request).matches


def test_a_kind_podwhy_does_not_create_is_refused() -> None:
    with pytest.raises(PodwhyError, match="Service v1 is not a kind podwhy creates"):
        request_for({"apiVersion": "v1", "kind": "Service", "metadata": {}}, None)
