"""A ValidatingAdmissionPolicy binding's params, looked up as the API server looks them up
(cluster/apiserver/admission/policy/params.py, the snapshot's params of snapshot/params.py).

Ported from k8s.io/apiserver pkg/admission/plugin/policy/validating/admission_test.go (microshift
release-4.22 = v1.35; CollectParams, calculatePolicyData and the validating dispatcher are the same
in release-4.20, 4.21 and 5.0): TestInvalidParamSourceGVK, TestInvalidParamSourceInstanceName,
TestEmptyParamRef, TestEmptyParamSource, TestMultiplePoliciesSharedParamType, TestNativeTypeParam,
TestNamespaceParamRefName, TestParamRef (every combination testParamRefCase builds) and
TestNamespaceParamRefClusterScopedParamError, each fake evaluator replaced by a CEL expression
that says which params it was handed (a Warn, or a Deny's message). Then what podwhy adds: a
snapshot that cannot vouch for the informer's objects leaves the binding not evaluated."""

from __future__ import annotations

import itertools
import json
from typing import Any

import msgspec
import pytest

from podwhy.cluster.apiserver.admission.policy import params as p
from podwhy.cluster.apiserver.admission.policy.admission import PARAMS, PolicyGap, validate_policies
from podwhy.cluster.apiserver.admission.policy.request import GroupVersionKind, GroupVersionResource, Request
from podwhy.model import objects as o
from podwhy.snapshot import params as store_module
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.params import FetchedKind, read_param

_ADM = "admissionregistration.k8s.io/v1"
PARAMS_API = "example.com/v1"
PARAMS_KIND = "ParamsConfig"  # paramsGVK: namespaced
CLUSTER_KIND = "ClusterScopedParamsConfig"  # clusterScopedParamsGVK
EVERY = {"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"], "resources": ["*"], "scope": "*"}
# The observing evaluator: a Warn saying which params it was handed.
SEEN = (
    "params == null ? 'no params' : 'param ' + "
    "(has(params.metadata.namespace) ? params.metadata.namespace + '/' : '') + params.metadata.name"
)


def _policy(
    name: str = "denypolicy.example.com",
    param_kind: tuple[str, str] | None = (PARAMS_API, PARAMS_KIND),
    expression: str = "false",
    message: str = SEEN,
    failure: str = "Fail",
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "failurePolicy": failure,
        "matchConstraints": {"resourceRules": [EVERY]},
        "validations": [{"expression": expression, "messageExpression": message}],
    }
    if param_kind is not None:
        spec["paramKind"] = {"apiVersion": param_kind[0], "kind": param_kind[1]}
    return {"apiVersion": _ADM, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name}, "spec": spec}


def _binding(
    ref: dict[str, Any] | None,
    name: str = "denybinding.example.com",
    policy: str = "denypolicy.example.com",
    actions: tuple[str, ...] = ("Warn",),
) -> dict[str, Any]:
    spec: dict[str, Any] = {"policyName": policy, "validationActions": list(actions)}
    if ref is not None:
        spec["paramRef"] = ref
    return {"apiVersion": _ADM, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name}, "spec": spec}


def _param(
    name: str, namespace: str | None = "default", labels: dict[str, str] | None = None, **fields: Any
) -> dict[str, Any]:
    """newParam / newClusterScopedParam (namespace None)."""
    meta: dict[str, Any] = {"name": name, "resourceVersion": "1"}
    if namespace is not None:
        meta["namespace"] = namespace
    if labels:
        meta["labels"] = labels
    kind = PARAMS_KIND if namespace is not None else CLUSTER_KIND
    return {"apiVersion": PARAMS_API, "kind": kind, "metadata": meta, **fields}


def _config_map(name: str, namespace: str, data: dict[str, str], with_type: bool = True) -> dict[str, Any]:
    obj: dict[str, Any] = {"metadata": {"name": name, "namespace": namespace}, "data": data}
    return {"apiVersion": "v1", "kind": "ConfigMap", **obj} if with_type else obj


def _snapshot(
    policies: list[dict[str, Any]],
    bindings: list[dict[str, Any]],
    params: list[dict[str, Any]] = (),  # type: ignore[assignment]
) -> Snapshot:
    snapshot = Snapshot()
    for policy in policies:
        snapshot.validating_admission_policies[policy["metadata"]["name"]] = msgspec.convert(
            policy, o.ValidatingAdmissionPolicy
        )
    for binding in bindings:
        snapshot.validating_admission_policy_bindings[binding["metadata"]["name"]] = msgspec.convert(
            binding, o.ValidatingAdmissionPolicyBinding
        )
    for obj in params:
        kind, api_version = obj.get("kind", "ConfigMap"), obj.get("apiVersion", "v1")
        found = read_param(kind, api_version, json.dumps(obj).encode())
        assert found is not None
        snapshot.params.add(found)
    return snapshot


def _namespaced(namespace: str, name: str = "some param") -> Request:
    """A namespaced request (attributeRecord of newParam(name, namespace))."""
    obj = _param(name, namespace)
    return Request(
        operation="CREATE",
        kind=GroupVersionKind("example.com", "v1", PARAMS_KIND),
        resource=GroupVersionResource("example.com", "v1", "paramsconfigs"),
        name=name,
        namespace=namespace,
        object=obj,
        namespace_object={"metadata": {"name": namespace}},
    )


def _cluster_scoped(name: str = "other param") -> Request:
    """A cluster-scoped request (attributeRecord of newClusterScopedParam(name))."""
    return Request(
        operation="CREATE",
        kind=GroupVersionKind("example.com", "v1", CLUSTER_KIND),
        resource=GroupVersionResource("example.com", "v1", "clusterscopedparamsconfigs"),
        name=name,
        object=_param(name, None),
    )


def _seen(warnings: tuple[str, ...]) -> list[str]:
    return [w.rpartition(": ")[2] for w in warnings]


def _denied(snapshot: Snapshot, request: Request) -> str:
    verdict, gaps = validate_policies(snapshot, request)
    assert not gaps, gaps
    return verdict.denial.text if verdict.denial is not None else ""


# ---------------------------------------------------------------- admission_test.go


def test_invalid_param_source_gvk() -> None:
    """TestInvalidParamSourceGVK: a paramKind the server does not serve is the policy's
    configuration error (live: discovery says so, recorded as FetchedKind(served=False)); the core
    group serves a fixed set of kinds, so a dump tells it too."""
    bad = (PARAMS_API, "BadParamKind")
    snapshot = _snapshot([_policy(param_kind=bad)], [_binding({"name": "replicas-test.example.com"})])
    snapshot.params.fetched["example.com/v1/BadParamKind"] = FetchedKind(served=False)
    assert _denied(snapshot, _namespaced("default")) == (
        "ValidatingAdmissionPolicy 'denypolicy.example.com' denied request: failed to configure policy: "
        "failed to find resource referenced by paramKind: 'example.com/v1, Kind=BadParamKind'"
    )
    snapshot = _snapshot([_policy(param_kind=("v1", "ConfigMapp"))], [_binding({"name": "x"})])
    assert _denied(snapshot, _namespaced("default")).endswith(
        "failed to configure policy: failed to find resource referenced by paramKind: '/v1, Kind=ConfigMapp'"
    )
    # Every binding of it, with a paramRef or not, is left unevaluated: the hook's error is the policy's.
    snapshot = _snapshot([_policy(param_kind=("v1", "ConfigMapp"))], [_binding(None)])
    assert "failed to configure policy" in _denied(snapshot, _namespaced("default"))


def test_invalid_param_source_instance_name() -> None:
    """TestInvalidParamSourceInstanceName: the param a binding names does not exist, Deny."""
    ref = {"name": "replicas-test.example.com", "namespace": "default", "parameterNotFoundAction": "Deny"}
    snapshot = _snapshot([_policy()], [_binding(ref, actions=("Deny",))], [_param("other", "default")])
    assert _denied(snapshot, _namespaced("default")) == (
        "ValidatingAdmissionPolicy 'denypolicy.example.com' with binding 'denybinding.example.com' denied request: "
        "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"
    )


def test_empty_param_ref() -> None:
    """TestEmptyParamRef: a policy with a paramKind, a binding without paramRef: evaluated with null."""
    snapshot = _snapshot([_policy()], [_binding(None)], [_param("replicas-test.example.com")])
    verdict, gaps = validate_policies(snapshot, _namespaced("default"))
    assert not gaps and _seen(verdict.warnings) == ["no params"]


def test_empty_param_source() -> None:
    """TestEmptyParamSource: a policy without paramKind ignores its binding's paramRef."""
    policy = _policy(param_kind=None, message="'Denied'")
    snapshot = _snapshot([policy], [_binding({"name": "replicas-test.example.com"})])
    verdict, gaps = validate_policies(snapshot, _namespaced("default"))
    assert not gaps and _seen(verdict.warnings) == ["Denied"]


def test_multiple_policies_shared_param_type() -> None:
    """TestMultiplePoliciesSharedParamType: two policies of one paramKind each get the params."""
    ref = {"name": "replicas-test.example.com", "namespace": "default", "parameterNotFoundAction": "Deny"}
    policies = [
        _policy("denypolicy1.example.com", expression="true"),
        _policy("denypolicy2.example.com", message="'Policy2Denied'"),
    ]
    bindings = [
        _binding(ref, "denybinding1.example.com", "denypolicy1.example.com", ("Deny",)),
        _binding(ref, "denybinding2.example.com", "denypolicy2.example.com", ("Deny",)),
    ]
    snapshot = _snapshot(policies, bindings, [_param("replicas-test.example.com", maxReplicas=3)])
    assert _denied(snapshot, _namespaced("default")).endswith("denied request: Policy2Denied")
    # policy1 without its paramKind and its binding without paramRef: policy2 still gets the params.
    policies[0]["spec"].pop("paramKind")
    bindings[0]["spec"].pop("paramRef")
    snapshot = _snapshot(policies, bindings, [_param("replicas-test.example.com", maxReplicas=3)])
    assert _denied(snapshot, _namespaced("default")).endswith("denied request: Policy2Denied")


def test_native_type_param() -> None:
    """TestNativeTypeParam: a ConfigMap param, typed as the API server types it (a list item
    carries no kind or apiVersion; CEL sees the paramKind's)."""
    message = "params.kind == 'ConfigMap' && params.apiVersion == 'v1' ? 'correct type' : 'Incorrect param type'"
    policy = _policy(param_kind=("v1", "ConfigMap"), message=message)
    ref = {"name": "replicas-test.example.com", "namespace": "default", "parameterNotFoundAction": "Deny"}
    param = _config_map("replicas-test.example.com", "default", {"coolkey": "coolvalue"}, with_type=False)
    snapshot = _snapshot([policy], [_binding(ref)], [])
    found = read_param("ConfigMap", "v1", json.dumps(param).encode())
    assert found is not None
    snapshot.params.add(found)
    verdict, _ = validate_policies(snapshot, _namespaced("default"))
    assert _seen(verdict.warnings) == ["correct type"]


def test_namespace_param_ref_name() -> None:
    """TestNamespaceParamRefName: a paramRef without namespace reads the request's namespace's."""
    policy = _policy(param_kind=("v1", "ConfigMap"), message="'coolkey ' + params.data.coolkey")
    ref = {"name": "replicas-test.example.com", "parameterNotFoundAction": "Deny"}
    maps = [
        _config_map("replicas-test.example.com", ns, {"coolkey": ns})
        for ns in ("default", "mynamespace", "othernamespace")
    ]
    snapshot = _snapshot([policy], [_binding(ref)], maps)
    observed = []
    for namespace in ("default", "mynamespace", "othernamespace", "default"):
        verdict, gaps = validate_policies(snapshot, _namespaced(namespace, "replicas-test.example.com"))
        assert not gaps
        observed += _seen(verdict.warnings)
    assert observed == ["coolkey default", "coolkey mynamespace", "coolkey othernamespace", "coolkey default"]


def test_namespace_param_ref_cluster_scoped_param_error() -> None:
    """TestNamespaceParamRefClusterScopedParamError (there with ValidatingAdmissionPolicy as the
    cluster-scoped paramKind, which podwhy does not read as params: here a cluster-scoped custom kind)."""
    ref = {"name": "other-param-to-use-with-no-label.example.com", "namespace": "mynamespace"}
    snapshot = _snapshot([_policy(param_kind=(PARAMS_API, CLUSTER_KIND))], [_binding(ref)], [_param("x", None)])
    assert _denied(snapshot, _namespaced("default")).endswith(
        "failed to configure binding: paramRef.namespace must not be provided for a cluster-scoped `paramKind`"
    )


# testParamRefCase's library of params "to try to fool the controller".
MATCHING_NAME = "replicas-test.example.com"
MATCHING, NON_MATCHING, OTHER = {"doesitmatch": "yes"}, {"doesitmatch": "no"}, {"notaffiliated": "no"}
LIBRARY = [
    *(_param(MATCHING_NAME, ns, NON_MATCHING) for ns in ("default", "mynamespace", "othernamespace")),
    *(_param(MATCHING_NAME + "1", ns, MATCHING) for ns in ("default", "mynamespace", "othernamespace")),
    *(_param(MATCHING_NAME + "2", ns, OTHER) for ns in ("default", "mynamespace", "othernamespace")),
    _param(MATCHING_NAME + "3", "default", OTHER),
    _param(MATCHING_NAME + "3", "mynamespace", MATCHING),
    _param(MATCHING_NAME + "3", "othernamespace", MATCHING),
    _param(MATCHING_NAME, None, MATCHING),
    _param(MATCHING_NAME + "1", None, NON_MATCHING),
    _param(MATCHING_NAME + "2", None, OTHER),
    _param(MATCHING_NAME + "3", None, MATCHING),
    _param(MATCHING_NAME + "4", None, NON_MATCHING),
    _param(MATCHING_NAME + "5", None, OTHER),
]


def _param_ref_cases() -> list[tuple[bool, bool, bool, bool, bool]]:
    """TestParamRef's combinations: (cluster-scoped, name, namespace, selector, deny not found)."""
    out = []
    for cluster, name, namespace, selector, deny in itertools.product((False, True), repeat=5):
        if (cluster and namespace) or (selector and name):
            continue
        out.append((cluster, name, namespace, selector, deny))
    return out


def _expected(ref: dict[str, Any], cluster: bool, request_namespace: str) -> list[str]:
    """The params testParamRefCase expects the evaluator to be handed (in podwhy's order)."""
    kind = CLUSTER_KIND if cluster else PARAMS_KIND
    out = []
    for param in LIBRARY:
        meta = param["metadata"]
        namespace = meta.get("namespace", "")
        if param["kind"] != kind or (ref.get("name") and meta["name"] != ref["name"]):
            continue
        if ref.get("namespace") and namespace != ref["namespace"]:
            continue
        if not cluster and not ref.get("namespace") and namespace != request_namespace:
            continue
        selector = ref.get("selector")
        if selector and any((meta.get("labels") or {}).get(k) != v for k, v in selector["matchLabels"].items()):
            continue
        out.append((namespace, meta["name"]))
    return [f"param {ns + '/' if ns else ''}{name}" for ns, name in sorted(out)]


@pytest.mark.parametrize(("cluster", "name", "namespace", "selector", "deny"), _param_ref_cases())
def test_param_ref(cluster: bool, name: bool, namespace: bool, selector: bool, deny: bool) -> None:
    """TestParamRef / testParamRefCase: each way a paramRef names its params, for a namespaced and
    a cluster-scoped request; then, the matched params deleted, parameterNotFoundAction."""
    ref: dict[str, Any] = {"parameterNotFoundAction": "Deny" if deny else "Allow"}
    if name:
        ref["name"] = MATCHING_NAME
    else:
        ref["selector"] = {"matchLabels": MATCHING} if selector else {}
    if namespace:
        ref["namespace"] = "mynamespace"
    policy = _policy(param_kind=(PARAMS_API, CLUSTER_KIND if cluster else PARAMS_KIND))
    binding = _binding(ref, actions=("Warn", "Deny"))
    error_on_cluster_scoped = not namespace and not cluster
    snapshot = _snapshot([policy], [binding], LIBRARY)

    expected = _expected(ref, cluster, "othernamespace")
    assert expected, "all test cases should match at least one param"
    verdict, gaps = validate_policies(snapshot, _namespaced("othernamespace"))
    assert not gaps and _seen(verdict.warnings) == expected
    assert verdict.denial is not None and verdict.denial.message == expected[0]

    verdict, gaps = validate_policies(snapshot, _cluster_scoped())
    assert not gaps
    expected_cluster = [] if error_on_cluster_scoped else _expected(ref, cluster, "default")
    if error_on_cluster_scoped:
        assert verdict.denial is not None and verdict.denial.message == (
            "failed to configure binding: cannot use namespaced paramRef in policy binding that matches "
            "cluster-scoped resources"
        )
    else:
        assert expected_cluster and verdict.denial is not None
    assert _seen(verdict.warnings) == expected_cluster

    # Every matched param deleted: parameterNotFoundAction decides. The informer holds every
    # object of a kind the server serves (its RESTMapping): as a live fetch records it. A dump
    # holding none of a namespace's (or of the kind) vouches for nothing (the tests below).
    gone = set(expected) | set(expected_cluster)
    left = [
        x
        for x in LIBRARY
        if f"param {x['metadata'].get('namespace', '') and x['metadata']['namespace'] + '/'}{x['metadata']['name']}"
        not in gone
    ]
    snapshot = _snapshot([policy], [binding], left)
    served = FetchedKind(served=True, namespaced=not cluster)
    snapshot.params.fetched[f"{PARAMS_API}/{CLUSTER_KIND if cluster else PARAMS_KIND}"] = served
    for request in (_namespaced("othernamespace"), _cluster_scoped()):
        verdict, gaps = validate_policies(snapshot, request)
        assert not gaps and not verdict.warnings, "policy should not have been evaluated"
        if request.namespace == "" and error_on_cluster_scoped:
            assert verdict.denial is not None and "cannot use namespaced paramRef" in verdict.denial.message
        elif deny:
            assert verdict.denial is not None and verdict.denial.message == (
                "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"
            )
        else:
            assert verdict.denial is None, "Allow not found expects no error when no params found"


# ---------------------------------------------------------------- CollectParams' other branches


@pytest.mark.parametrize(
    ("ref", "error"),
    [
        # policy_dispatcher.go CollectParams: "This should be validated, but just in case."
        ({"name": "a", "selector": {}}, p.NAME_AND_SELECTOR),
        # "Should be unreachable due to validation."
        ({"parameterNotFoundAction": "Deny"}, p.NAME_OR_SELECTOR),
        # metav1.LabelSelectorAsSelector's errors, as a configuration error.
        (
            {"selector": {"matchExpressions": [{"key": "a", "operator": "Foo"}]}},
            '"Foo" is not a valid label selector operator',
        ),
        (
            {"selector": {"matchExpressions": [{"key": "a", "operator": "In"}]}},
            "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
        ),
    ],
)
def test_collect_params_configuration_errors(ref: dict[str, Any], error: str) -> None:
    snapshot = _snapshot([_policy()], [_binding(ref)], [_param("a")])
    assert _denied(snapshot, _namespaced("default")).endswith(f"denied request: failed to configure binding: {error}")


def test_a_configuration_error_under_ignore_is_dropped() -> None:
    """addConfigError under failurePolicy Ignore: nothing refuses."""
    snapshot = _snapshot([_policy(param_kind=("v1", "Nope"), failure="Ignore")], [_binding({"name": "x"})])
    assert _denied(snapshot, _namespaced("default")) == ""


def test_a_paramkind_whose_apiversion_does_not_parse_leaves_the_policy_out() -> None:
    """calculatePolicyData: `failed to parse paramKind APIVersion` skips the policy (it is not
    among the hooks: no decision, no error; the API server's validation stores none such)."""
    snapshot = _snapshot([_policy(param_kind=("a/b/c", "K"))], [_binding({"name": "x"}, actions=("Deny",))])
    verdict, gaps = validate_policies(snapshot, _namespaced("default"))
    assert verdict.denial is None and not verdict.warnings and not gaps
    assert p.parse_group_version("a/b/c") == "unexpected GroupVersion string: a/b/c"
    assert p.parse_group_version("v1") == ("", "v1") and p.parse_group_version("/") == ("", "")


LABEL = {"policy": "max"}


def test_a_selector_matching_several_params_evaluates_the_policy_once_with_each() -> None:
    """The dispatcher validates the policy once per param; the informer's List walks a map (no
    order): podwhy takes namespace, then name. The first denial refuses the request."""
    policy = _policy(
        param_kind=("v1", "ConfigMap"), expression="int(params.data.max) >= 3", message="'max ' + params.data.max"
    )
    ref = {"selector": {"matchLabels": LABEL}, "parameterNotFoundAction": "Allow"}
    maps = [
        {
            **_config_map(name, "shop", {"max": value}),
            "metadata": {"name": name, "namespace": "shop", "labels": {"policy": "max"}},
        }
        for name, value in (("zeta", "1"), ("alpha", "2"), ("mid", "5"))
    ]
    snapshot = _snapshot([policy], [_binding(ref, actions=("Deny", "Warn"))], maps)
    verdict, _ = validate_policies(snapshot, _namespaced("shop"))
    assert _seen(verdict.warnings) == ["max 2", "max 1"]  # alpha, then zeta; mid admits
    assert verdict.denial is not None and verdict.denial.message == "max 2"


# ---------------------------------------------------------------- what the snapshot cannot vouch for


def _gap(snapshot: Snapshot, request: Request | None = None) -> PolicyGap:
    verdict, gaps = validate_policies(snapshot, request or _namespaced("shop"))
    assert verdict.denial is None and not verdict.warnings
    (gap,) = gaps
    assert gap.what == PARAMS
    return gap


CONFIG_MAP_POLICY = _policy(param_kind=("v1", "ConfigMap"))
BY_NAME = {"name": "limits", "parameterNotFoundAction": "Deny"}


def test_no_config_maps_at_all_leave_it_not_evaluated() -> None:
    gap = _gap(_snapshot([CONFIG_MAP_POLICY], [_binding(BY_NAME)]))
    assert (gap.binding, gap.why, gap.param_kind) == ("denybinding.example.com", p.NO_OBJECTS, "v1/ConfigMap")


def test_none_in_the_namespace_looked_in_leaves_it_not_evaluated() -> None:
    snapshot = _snapshot([CONFIG_MAP_POLICY], [_binding(BY_NAME)], [_config_map("kube-root-ca.crt", "other", {})])
    gap = _gap(snapshot)
    assert (gap.why, gap.detail) == (p.NO_OBJECTS_IN_NAMESPACE, "shop")
    # Another ConfigMap of the namespace (every namespace has its kube-root-ca.crt): vouched, not found.
    snapshot = _snapshot([CONFIG_MAP_POLICY], [_binding(BY_NAME)], [_config_map("kube-root-ca.crt", "shop", {})])
    assert "no params found" in _denied(snapshot, _namespaced("shop"))
    # --complete: the user's word.
    snapshot = _snapshot([CONFIG_MAP_POLICY], [_binding(BY_NAME)])
    snapshot.params.complete = True
    assert "no params found" in _denied(snapshot, _namespaced("shop"))


def test_a_live_fetch_vouches_for_every_namespace_or_says_why_not() -> None:
    snapshot = _snapshot([CONFIG_MAP_POLICY], [_binding(BY_NAME)])
    snapshot.params.fetched["v1/ConfigMap"] = FetchedKind(served=True)
    assert "no params found" in _denied(snapshot, _namespaced("shop"))
    snapshot.params.fetched["v1/ConfigMap"] = FetchedKind(served=True, missing="cannot list configmaps: forbidden")
    gap = _gap(snapshot)
    assert (gap.binding, gap.why, gap.detail) == (None, p.NOT_FETCHED, "cannot list configmaps: forbidden")


@pytest.mark.parametrize(
    ("param_kind", "why"),
    [
        (("v1", "Secret"), p.SECRETS),
        (("v1", "PodTemplate"), p.NOT_READ),
        (("apps/v1", "Deployment"), p.NOT_READ),
        (("kueue.x-k8s.io/v1beta2", "ClusterQueue"), p.NOT_READ),  # read, in part, as a typed kind
        ((PARAMS_API, "Unknown"), p.UNKNOWN_KIND),
    ],
)
def test_kinds_podwhy_does_not_read_as_params(param_kind: tuple[str, str], why: str) -> None:
    gap = _gap(_snapshot([_policy(param_kind=param_kind)], [_binding({"name": "x"})]))
    assert (gap.binding, gap.why) == (None, why)


def test_a_custom_kind_held_in_another_version_only() -> None:
    old = {**_param("x", "shop"), "apiVersion": "example.com/v1beta1"}
    gap = _gap(_snapshot([_policy()], [_binding({"name": "x"})], [old]))
    assert (gap.why, gap.detail) == (p.OTHER_VERSION, "example.com/v1beta1")


def test_params_past_the_bound_are_dropped_and_said(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "MAX_PARAM_BYTES", 300)
    maps = [_config_map(f"cm-{i}", "shop", {"v": "x" * 100}) for i in range(5)]
    snapshot = _snapshot([CONFIG_MAP_POLICY], [_binding(BY_NAME)], maps)
    assert snapshot.params.dropped == {("", "ConfigMap")} and not snapshot.params.objects
    assert _gap(snapshot).why == p.TOO_MANY
