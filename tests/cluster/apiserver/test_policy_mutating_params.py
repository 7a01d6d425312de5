"""A MutatingAdmissionPolicy binding's params, looked up as for a ValidatingAdmissionPolicy
(cluster/apiserver/admission/policy/admission.py mutating_invocations, params.py) and read by the
mutations and matchConditions as CEL's `params` (policy/mutating.py).

Ported from k8s.io/apiserver pkg/admission/plugin/policy/mutating/dispatcher_test.go
TestDispatcher "with param" and from test/integration/apiserver/cel/mutatingadmissionpolicy_test.go
TestMutatingAdmissionPolicy ("policy with native param", "policy with multiple params quantified by
single binding", "multiple policies requiring reinvocation") and TestMutatingAdmissionPolicy_Slow
("multiple bindings with different params", "multiple params causing reinvocation"), microshift
release-4.22 (v1.35; the same in release-5.0), each Endpoints object replaced by a Deployment
(podwhy holds the schema of the kinds it creates); then generic/policy_dispatcher.go CollectParams'
configuration errors, and what podwhy adds: params the snapshot cannot vouch for leave the binding
not evaluated, with the words a ValidatingAdmissionPolicy's get."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from podwhy.cluster import admissionopen as facts
from podwhy.cluster.apiserver.admission.policy.admission import PARAMS, ObjectDeniedError, mutate_workload
from podwhy.features.emulation import V1_35
from podwhy.model import objects as o
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.decode import decode
from podwhy.snapshot.live.params import wanted
from podwhy.snapshot.source import keep_policy_params
from tests.cluster.apiserver.test_policy_mutating import check_trainer
from tests.paths import REPO

MAP = "admissionregistration.k8s.io/v1beta1"
DEPLOYMENTS = {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["*"], "resources": ["deployments"]}
CONFIG_MAP = {"apiVersion": "v1", "kind": "ConfigMap"}
ANNOTATE = "Object{metadata: Object.metadata{annotations: params.data}}"
# Upstream's counting mutation, as it is written there (an optional map entry, cel-go's optional
# syntax, which the API server's environments enable).
COUNT = """
Object{
    metadata: Object.metadata{
        annotations: {
            ?"foo": optional.of(string(int(object.metadata.annotations["foo"]) + 1)),
        }
    }
}"""


def _count_and(key: str) -> str:
    """TestMutatingAdmissionPolicy "multiple policies requiring reinvocation": COUNT and KEY."""
    return f"""
Object{{
    metadata: Object.metadata{{
        annotations: {{
            ?"foo": optional.of(string(int(object.metadata.annotations["foo"]) + 1)),
            "{key}": "true"
        }}
    }}
}}"""


SHOP = REPO / "fixtures" / "examples" / "shop-cluster.yaml"


def _apply(expression: str) -> dict[str, Any]:
    return {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": expression}}


def _policy(
    name: str,
    *expressions: str,
    param_kind: dict[str, str] | None = CONFIG_MAP,
    reinvocation: str = "Never",
    **spec: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "matchConstraints": {"resourceRules": [DEPLOYMENTS]},
        "mutations": [_apply(e) for e in expressions],
        "reinvocationPolicy": reinvocation,
        **spec,
    }
    if param_kind is not None:
        body["paramKind"] = param_kind
    return {"apiVersion": MAP, "kind": "MutatingAdmissionPolicy", "metadata": {"name": name}, "spec": body}


def _binding(name: str, policy: str, ref: dict[str, Any] | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"policyName": policy}
    if ref is not None:
        spec["paramRef"] = ref
    return {"apiVersion": MAP, "kind": "MutatingAdmissionPolicyBinding", "metadata": {"name": name}, "spec": spec}


def _config_map(name: str, data: dict[str, str], labels: dict[str, str] | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": "default"}
    if labels:
        metadata["labels"] = labels
    return {**CONFIG_MAP, "metadata": metadata, "data": data}


def _deployment(annotations: dict[str, str] | None = None, replicas: int = 1) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "d1", "namespace": "default"}
    if annotations:
        metadata["annotations"] = annotations
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": metadata,
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "d1"}},
            "template": {
                "metadata": {"labels": {"app": "d1"}},
                "spec": {"containers": [{"name": "c", "image": "registry.example.com/d:1"}]},
            },
        },
    }


def _snapshot(*objects: Any) -> Snapshot:
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": list(objects)}).encode()
    snapshot = Snapshot()
    decode(text, "policies.json").add_to(snapshot)
    keep_policy_params(snapshot, complete=False)
    return snapshot


def _mutated(snapshot: Snapshot, deployment: dict[str, Any] | None = None) -> dict[str, Any]:
    out = mutate_workload(snapshot, deployment or _deployment(), "Deployment", "default", V1_35, "app.yaml")
    assert not out.open
    return out.obj if out.obj is not None else deployment or _deployment()


def _annotations(snapshot: Snapshot, deployment: dict[str, Any] | None = None) -> dict[str, str]:
    return dict(_mutated(snapshot, deployment)["metadata"].get("annotations") or {})


def test_with_param() -> None:
    """dispatcher_test.go TestDispatcher "with param": replicas plus the ConfigMap's key."""
    snapshot = _snapshot(
        _policy("policy1", "Object{spec: Object.spec{replicas: object.spec.replicas + int(params.data['key'])}}"),
        _binding("binding", "policy1", {"name": "cm1", "namespace": "default"}),
        _config_map("cm1", {"key": "10"}),
    )
    assert _mutated(snapshot)["spec"]["replicas"] == 11


ALLOW = "Allow"
# (name, policies, bindings, params, annotations before, annotations expected)
INTEGRATION_CASES = [
    (
        "policy with native param",
        [
            _policy(
                "policy-with-native",
                "Object{metadata: Object.metadata{annotations: {params.data['key']: params.data['value']}}}",
            )
        ],
        [
            _binding(
                "policy-with-native",
                "policy-with-native",
                {"name": "policy-with-native-param", "parameterNotFoundAction": ALLOW},
            )
        ],
        [_config_map("policy-with-native-param", {"key": "myFooKey", "value": "myFooValue"})],
        None,
        {"myFooKey": "myFooValue"},
    ),
    (
        "policy with multiple params quantified by single binding",
        [_policy("multi-param-binding", ANNOTATE)],
        [
            _binding(
                "multi-param-binding",
                "multi-param-binding",
                {
                    "selector": {"matchLabels": {"multi-param-binding-param": "true"}},
                    "namespace": "default",
                    "parameterNotFoundAction": ALLOW,
                },
            )
        ],
        [
            _config_map(
                "multi-param-binding-param-1",
                {"multi-param-binding-key1": "value1"},
                {"multi-param-binding-param": "true"},
            ),
            _config_map(
                "multi-param-binding-param-2",
                {"multi-param-binding-key2": "value2", "multi-param-binding-key3": "value3"},
                {"multi-param-binding-param": "true"},
            ),
        ],
        None,
        {
            "multi-param-binding-key1": "value1",
            "multi-param-binding-key2": "value2",
            "multi-param-binding-key3": "value3",
        },
    ),
    (
        "multiple bindings with different params",
        [_policy("multi-binding", ANNOTATE)],
        [
            _binding(
                f"multi-binding-{i}",
                "multi-binding",
                {"name": f"multi-binding-param-{i}", "namespace": "default", "parameterNotFoundAction": ALLOW},
            )
            for i in (1, 2)
        ],
        [
            _config_map("multi-binding-param-1", {"multi-binding-key1": "value1"}),
            _config_map("multi-binding-param-2", {"multi-binding-key2": "value2", "multi-binding-key3": "value3"}),
        ],
        None,
        {"multi-binding-key1": "value1", "multi-binding-key2": "value2", "multi-binding-key3": "value3"},
    ),
    (
        # TestMutatingAdmissionPolicy: 0->1->2->3 by the three policies, 3->4->5 as the two IfNeeded
        # ones are reinvoked once (the third is Never).
        "multiple policies requiring reinvocation",
        [
            _policy("policy-1", _count_and("firstApplied"), param_kind=None, reinvocation="IfNeeded"),
            _policy("policy-2", _count_and("secondApplied"), param_kind=None, reinvocation="IfNeeded"),
            _policy("policy-3", _count_and("thirdApplied"), param_kind=None),
        ],
        [
            _binding("policy-1", "policy-1", None),
            _binding("policy-2", "policy-2", None),
            _binding("policy-3", "policy-3", None),
        ],
        [],
        {"foo": "0"},
        {"firstApplied": "true", "secondApplied": "true", "thirdApplied": "true", "foo": "5"},
    ),
    (
        # IfNeeded, invoked once per param: each of its two invocations runs again on reinvocation.
        "multiple params causing reinvocation",
        [
            _policy("multi-param-reinvocation", ANNOTATE, COUNT, reinvocation="IfNeeded"),
            _policy("policy-with-param-no-reinvoke", ANNOTATE, COUNT),
        ],
        [
            _binding(
                "multi-param-reinvocation",
                "multi-param-reinvocation",
                {"selector": {"matchLabels": {"multi-param-reinvocation": "true"}}, "parameterNotFoundAction": ALLOW},
            ),
            _binding(
                "policy-with-param-no-reinvoke",
                "policy-with-param-no-reinvoke",
                {"name": "multi-param-reinvocation-param-3", "parameterNotFoundAction": ALLOW},
            ),
        ],
        [
            _config_map(
                "multi-param-reinvocation-param-1", {"firstApplied": "true"}, {"multi-param-reinvocation": "true"}
            ),
            _config_map(
                "multi-param-reinvocation-param-2", {"secondApplied": "true"}, {"multi-param-reinvocation": "true"}
            ),
            _config_map("multi-param-reinvocation-param-3", {"thirdApplied": "true"}),
        ],
        {"foo": "0"},
        {"firstApplied": "true", "secondApplied": "true", "thirdApplied": "true", "foo": "5"},
    ),
]


@pytest.mark.parametrize(
    ("policies", "bindings", "params", "before", "expected"),
    [pytest.param(*case[1:], id=case[0]) for case in INTEGRATION_CASES],
)
def test_integration_params(
    policies: list[Any], bindings: list[Any], params: list[Any], before: dict[str, str] | None, expected: dict[str, str]
) -> None:
    snapshot = _snapshot(*policies, *bindings, *params)
    assert _annotations(snapshot, _deployment(before)) == expected


def test_match_conditions_read_params() -> None:
    """The matcher is handed the invocation's param (dispatcher.go Matcher.Match(..., invocation.Param, ...))."""
    snapshot = _snapshot(
        _policy("p", ANNOTATE, matchConditions=[{"name": "on", "expression": "params.data.on == 'yes'"}]),
        _binding("b", "p", {"selector": {}, "parameterNotFoundAction": ALLOW}),
        _config_map("off", {"on": "no", "off": "x"}),
        _config_map("on", {"on": "yes"}),
    )
    assert _annotations(snapshot) == {"on": "yes"}


def test_a_binding_without_param_ref_is_invoked_with_null_params() -> None:
    """CollectParams: a nil paramRef gives one nil param."""
    snapshot = _snapshot(
        _policy("p", "Object{metadata: Object.metadata{annotations: {'null': string(params == null)}}}"),
        _binding("b", "p", None),
    )
    assert _annotations(snapshot) == {"null": "true"}


NO_PARAMS_DENY = "no params found for policy binding with `Deny` parameterNotFoundAction"


@pytest.mark.parametrize(
    ("ref", "param_kind", "words"),
    [
        (
            {"name": "missing", "parameterNotFoundAction": "Deny"},
            CONFIG_MAP,
            f"failed to configure binding: {NO_PARAMS_DENY}",
        ),
        (
            {"name": "cm1", "selector": {}, "parameterNotFoundAction": "Deny"},
            CONFIG_MAP,
            "failed to configure binding: paramRef.name and paramRef.selector are mutually exclusive",
        ),
        (
            {"parameterNotFoundAction": "Deny"},
            CONFIG_MAP,
            "failed to configure binding: one of name or selector must be provided",
        ),
        (
            {"name": "cm1", "parameterNotFoundAction": "Deny"},
            {"apiVersion": "v1", "kind": "Nope"},
            "failed to configure policy: failed to find resource referenced by paramKind: '/v1, Kind=Nope'",
        ),
    ],
)
def test_configuration_errors_refuse_under_fail(ref: dict[str, Any], param_kind: dict[str, str], words: str) -> None:
    """policy_dispatcher.go Dispatch's addConfigError (CollectParams' and the hook's
    ConfigurationError), in the PolicyError's words; under Ignore they are dropped."""
    objects = [_binding("b", "p", ref), _config_map("cm1", {"a": "b"})]
    with pytest.raises(ObjectDeniedError) as refused:
        _mutated(_snapshot(_policy("p", ANNOTATE, param_kind=param_kind, failurePolicy="Fail"), *objects))
    binding = "policy 'p' with binding 'b'" if "binding:" in words else 'policy "p"'
    assert f"{binding} denied request: {words}" in str(refused.value)
    ignored = _snapshot(_policy("p", ANNOTATE, param_kind=param_kind, failurePolicy="Ignore"), *objects)
    assert _annotations(ignored) == {}


def test_allow_with_no_params_found_invokes_nothing() -> None:
    snapshot = _snapshot(
        _policy("p", "Object{metadata: Object.metadata{annotations: {'x': 'y'}}}"),
        _binding("b", "p", {"name": "missing", "parameterNotFoundAction": ALLOW}),
        _config_map("cm1", {"a": "b"}),
    )
    assert _annotations(snapshot) == {}


def test_params_the_snapshot_cannot_vouch_for_leave_the_binding_not_evaluated() -> None:
    """No ConfigMap in the namespace looked in: the informer may hold it (the VAP's gap)."""
    snapshot = _snapshot(
        _policy("p", ANNOTATE),
        _binding("b", "p", {"name": "cm1", "namespace": "elsewhere", "parameterNotFoundAction": "Deny"}),
        _config_map("cm1", {"a": "b"}),
    )
    out = mutate_workload(snapshot, _deployment(), "Deployment", "default", V1_35, "app.yaml")
    assert out.obj is None
    (gap,) = out.open
    assert (gap.policy, gap.binding, gap.what, gap.why) == ("p", "b", PARAMS, facts.PARAMS_NO_OBJECTS_IN_NAMESPACE)
    assert (gap.param_kind, gap.detail) == ("v1/ConfigMap", "elsewhere")


def test_the_snapshot_keeps_the_config_maps_a_mutating_policy_names() -> None:
    snapshot = _snapshot(
        _policy("p", ANNOTATE),
        _binding("b", "p", {"name": "cm1", "parameterNotFoundAction": "Deny"}),
        _config_map("cm1", {"a": "b"}),
    )
    assert ("default", "cm1") in snapshot.params.of_kind(("", "ConfigMap"))


# ------------------------------------------------------------------ check


def test_check_a_policy_reading_a_config_map_param_lets_the_pod_onto_the_tainted_node(tmp_path: Path) -> None:
    """The GPU node's taint is tolerated, and the team label set, from the ConfigMap the binding names."""
    policy = {
        "apiVersion": MAP,
        "kind": "MutatingAdmissionPolicy",
        "metadata": {"name": "gpu-team"},
        "spec": {
            "paramKind": CONFIG_MAP,
            "matchConstraints": {
                "resourceRules": [
                    {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}
                ]
            },
            "failurePolicy": "Fail",
            "mutations": [
                _apply("Object{metadata: Object.metadata{labels: {'team': params.data.team}}}"),
                {
                    "patchType": "JSONPatch",
                    "jsonPatch": {
                        "expression": "[JSONPatch{op: 'add', path: '/spec/tolerations/-', "
                        "value: Object.spec.tolerations{key: params.data.taint, operator: 'Exists', "
                        "effect: 'NoSchedule'}}]"
                    },
                },
            ],
        },
    }
    binding = _binding("gpu-team-binding", "gpu-team", {"name": "gpu-team", "parameterNotFoundAction": "Deny"})
    param = {**CONFIG_MAP, "metadata": {"name": "gpu-team", "namespace": "shop"}}
    param["data"] = {"team": "ml", "taint": "nvidia.com/gpu"}

    def check(*objects: Any) -> tuple[int, Any]:
        return check_trainer(tmp_path, list(objects))

    code, report = check(policy, binding)  # no ConfigMap at all: the informer may hold it
    assert code == 3 and report["workloads"][0]["placed"] == 0  # inconclusive, said as a VAP's params are
    said = "reads its binding's params (v1/ConfigMap), which the snapshot cannot vouch for: it holds no ConfigMaps"
    assert said in report["workloads"][0]["replicas"][0]["message"]
    code, report = check(policy, binding, param)
    assert code == 0
    (workload,) = report["workloads"]
    assert workload["placed"] == 1 and workload["replicas"][0]["node"] == "gpu-a1"
    why = "MutatingAdmissionPolicy 'gpu-team'"
    assert {"field": "metadata.labels.team", "value": "ml", "why": why} in workload["apiServerDefaults"]
    toleration = '{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}'
    assert any(d["value"] == toleration and d["why"] == why for d in workload["apiServerDefaults"])


def test_a_live_fetch_wants_the_params_a_mutating_policys_bindings_name() -> None:
    """A MutatingAdmissionPolicyBinding names a MutatingAdmissionPolicy, never a
    ValidatingAdmissionPolicy of the same name (which has no paramKind here)."""
    vap = {**_policy("p", ANNOTATE, param_kind=None), "kind": "ValidatingAdmissionPolicy"}
    policies = [msgspec.convert(vap, o.ValidatingAdmissionPolicy)]
    policies.append(msgspec.convert(_policy("p", ANNOTATE), o.MutatingAdmissionPolicy))
    binding = msgspec.convert(_binding("b", "p", {"name": "cm1"}), o.MutatingAdmissionPolicyBinding)
    assert [(k, [r.name for r in refs]) for k, refs in wanted(policies, [binding]).items()] == [
        (("v1", "ConfigMap"), ["cm1"])
    ]
