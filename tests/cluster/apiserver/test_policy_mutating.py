"""MutatingAdmissionPolicy (cluster/apiserver/admission/policy/mutating.py and patch/): upstream's
patch tests as tables (k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch:
json_patch_test.go's TestJSONPatch, smd_test.go's TestApplyConfiguration), the dispatcher's
failurePolicy, matchConditions and reinvocation (dispatcher.go, reinvocationcontext.go), the
JSON Patch operations of json-patch v4, and `check` with a policy that adds a label and a
toleration that lets a pod onto a tainted node."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.cluster.apiserver.admission.policy import mutating as m
from podwhy.cluster.apiserver.admission.policy import validating as v
from podwhy.cluster.apiserver.admission.policy.cel import admission_request
from podwhy.cluster.apiserver.admission.policy.patch import jsonpatch
from podwhy.cluster.apiserver.admission.policy.patch.schema import schema_for
from tests.paths import REPO

SHOP = REPO / "fixtures" / "examples" / "shop-cluster.yaml"
DEPLOYMENT = "apps/v1/Deployment"


def _deployment(
    labels: dict[str, str] | None = None,
    containers: list[Any] | None = None,
    replicas: int | None = None,
    volumes: list[Any] | None = None,
) -> dict[str, Any]:
    """An apps/v1 Deployment as JSON, with the fields upstream's cases set."""
    metadata: dict[str, Any] = {} if labels is None else {"labels": labels}
    spec: dict[str, Any] = {}
    if replicas is not None:
        spec["replicas"] = replicas
    pod: dict[str, Any] = {}
    if containers is not None:
        pod["containers"] = containers
    if volumes is not None:
        pod["volumes"] = volumes
    if pod:
        spec["template"] = {"spec": pod}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": metadata, "spec": spec}


def _named(*names: str) -> list[dict[str, Any]]:
    return [{"name": n} for n in names]


def _run(
    patch_type: str,
    expression: str,
    obj: dict[str, Any],
    old: dict[str, Any] | None = None,
    kind: str = DEPLOYMENT,
    **policy: Any,
) -> m.BindingMutation:
    compiled = m.compile_mutating_policy(m.MutatingPolicy("p", (m.Mutation(patch_type, expression),), **policy))
    request = v.PolicyRequest(
        object=obj,
        old_object=old,
        request=admission_request("apps", "v1", "Deployment", "deployments", "d", "default"),
    )
    return m.dispatch_binding(compiled, "b", request, kind, schema_for(35), lambda o: o)


# TestJSONPatch (json_patch_test.go): name, expression, object, expected object or error.
JSON_PATCH_CASES: list[tuple[str, str, dict[str, Any], dict[str, Any] | str]] = [
    (
        "jsonPatch with false test operation",
        '[JSONPatch{op: "test", path: "/spec/replicas", value: 100}, JSONPatch{op: "replace", '
        'path: "/spec/replicas", value: 3}]',
        _deployment(replicas=1),
        _deployment(replicas=1),
    ),
    (
        "jsonPatch with true test operation",
        '[JSONPatch{op: "test", path: "/spec/replicas", value: 1}, JSONPatch{op: "replace", '
        'path: "/spec/replicas", value: 3}]',
        _deployment(replicas=1),
        _deployment(replicas=3),
    ),
    (
        "jsonPatch remove to unset field",
        '[JSONPatch{op: "remove", path: "/spec/replicas"}]',
        _deployment(replicas=1),
        _deployment(),
    ),
    (
        "jsonPatch remove map entry by key",
        '[JSONPatch{op: "remove", path: "/metadata/labels/y"}]',
        _deployment(labels={"x": "1", "y": "1"}),
        _deployment(labels={"x": "1"}),
    ),
    (
        "jsonPatch remove element in list",
        '[JSONPatch{op: "remove", path: "/spec/template/spec/containers/1"}]',
        _deployment(containers=_named("a", "b", "c")),
        _deployment(containers=_named("a", "c")),
    ),
    (
        "jsonPatch copy map entry by key",
        '[JSONPatch{op: "copy", from: "/metadata/labels/x", path: "/metadata/labels/y"}]',
        _deployment(labels={"x": "1"}),
        _deployment(labels={"x": "1", "y": "1"}),
    ),
    (
        "jsonPatch copy first element to end of list",
        '[JSONPatch{op: "copy", from: "/spec/template/spec/containers/0", path: "/spec/template/spec/containers/-"}]',
        _deployment(containers=_named("a", "b", "c")),
        _deployment(containers=_named("a", "b", "c", "a")),
    ),
    (
        "jsonPatch move map entry by key",
        '[JSONPatch{op: "move", from: "/metadata/labels/x", path: "/metadata/labels/y"}]',
        _deployment(labels={"x": "1"}),
        _deployment(labels={"y": "1"}),
    ),
    (
        "jsonPatch move first element to end of list",
        '[JSONPatch{op: "move", from: "/spec/template/spec/containers/0", path: "/spec/template/spec/containers/-"}]',
        _deployment(containers=_named("a", "b", "c")),
        _deployment(containers=_named("b", "c", "a")),
    ),
    (
        "jsonPatch add map entry by key and value",
        '[JSONPatch{op: "add", path: "/metadata/labels/x", value: "2"}]',
        _deployment(labels={"y": "1"}),
        _deployment(labels={"y": "1", "x": "2"}),
    ),
    (
        "jsonPatch add map value to field",
        '[JSONPatch{op: "add", path: "/metadata/labels", value: {"y": "2"}}]',
        _deployment(),
        _deployment(labels={"y": "2"}),
    ),
    (
        "jsonPatch add map to existing map",
        '[JSONPatch{op: "add", path: "/metadata/labels", value: {"y": "2"}}]',
        _deployment(labels={"x": "1"}),
        _deployment(labels={"y": "2"}),
    ),
    (
        "jsonPatch add to start of list",
        '[JSONPatch{op: "add", path: "/spec/template/spec/containers/0", value: {"name": "x"}}]',
        _deployment(containers=_named("a")),
        _deployment(containers=_named("x", "a")),
    ),
    (
        "jsonPatch add to end of list",
        '[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: {"name": "x"}}]',
        _deployment(containers=_named("a")),
        _deployment(containers=_named("a", "x")),
    ),
    (
        "jsonPatch replace key in map",
        '[JSONPatch{op: "replace", path: "/metadata/labels/x", value: "2"}]',
        _deployment(labels={"y": "1"}),
        _deployment(labels={"y": "1", "x": "2"}),
    ),
    (
        "jsonPatch replace map value of unset field",
        '[JSONPatch{op: "replace", path: "/metadata/labels", value: {"y": "2"}}]',
        _deployment(),
        _deployment(labels={"y": "2"}),
    ),
    (
        "jsonPatch replace map value of set field",
        '[JSONPatch{op: "replace", path: "/metadata/labels", value: {"y": "2"}}]',
        _deployment(labels={"x": "1"}),
        _deployment(labels={"y": "2"}),
    ),
    (
        "jsonPatch replace first element in list",
        '[JSONPatch{op: "replace", path: "/spec/template/spec/containers/0", value: {"name": "x"}}]',
        _deployment(containers=_named("a")),
        _deployment(containers=_named("x")),
    ),
    (
        "jsonPatch add map entry by key and value (an Object initializer)",
        '[JSONPatch{op: "add", path: "/spec", value: Object.spec{selector: Object.spec.selector{}, replicas: 10}}]',
        _deployment(),
        {**_deployment(), "spec": {"selector": {}, "replicas": 10}},
    ),
    (
        "JSONPatch patch type has field access",
        '[JSONPatch{op: "add", path: "/metadata/labels", value: {"op": JSONPatch{op: "opValue"}.op, '
        '"path": JSONPatch{path: "pathValue"}.path, "from": JSONPatch{from: "fromValue"}.from, '
        '"value": string(JSONPatch{value: "valueValue"}.value)}}]',
        _deployment(labels={}),
        _deployment(labels={"op": "opValue", "path": "pathValue", "from": "fromValue", "value": "valueValue"}),
    ),
    (
        "JSONPatch patch type has field testing",
        '[JSONPatch{op: "add", path: "/metadata/labels", value: {'
        '"op": string(has(JSONPatch{op: "opValue"}.op)), "path": string(has(JSONPatch{path: "pathValue"}.path)), '
        '"from": string(has(JSONPatch{from: "fromValue"}.from)), '
        '"value": string(has(JSONPatch{value: "valueValue"}.value)), '
        '"op-unset": string(has(JSONPatch{}.op)), "path-unset": string(has(JSONPatch{}.path)), '
        '"from-unset": string(has(JSONPatch{}.from)), "value-unset": string(has(JSONPatch{}.value))}}]',
        _deployment(labels={}),
        _deployment(
            labels={
                **dict.fromkeys(("op", "path", "from", "value"), "true"),
                **dict.fromkeys(("op-unset", "path-unset", "from-unset", "value-unset"), "false"),
            }
        ),
    ),
    (
        "JSONPatch patch type equality",
        '[JSONPatch{op: "add", path: "/metadata/labels", value: {'
        '"empty": string(JSONPatch{} == JSONPatch{}), '
        '"partial": string(JSONPatch{op: "add"} == JSONPatch{op: "add"}), '
        '"same-all": string(JSONPatch{op: "add", path: "path", from: "from", value: 1} == '
        'JSONPatch{op: "add", path: "path", from: "from", value: 1}), '
        '"different-op": string(JSONPatch{op: "add"} == JSONPatch{op: "remove"}), '
        '"different-path": string(JSONPatch{op: "add", path: "x", from: "from", value: 1} == '
        'JSONPatch{op: "add", path: "path", from: "from", value: 1}), '
        '"different-from": string(JSONPatch{op: "add", path: "path", from: "x", value: 1} == '
        'JSONPatch{op: "add", path: "path", from: "from", value: 1}), '
        '"different-value": string(JSONPatch{op: "add", path: "path", from: "from", value: "1"} == '
        'JSONPatch{op: "add", path: "path", from: "from", value: 1})}}]',
        _deployment(labels={}),
        _deployment(
            labels={
                "empty": "true",
                "partial": "true",
                "same-all": "true",
                "different-op": "false",
                "different-path": "false",
                "different-from": "false",
                "different-value": "false",
            }
        ),
    ),
    (
        "JSONPatch key escaping",
        '[JSONPatch{op: "add", path: "/metadata/labels", value: {}}, '
        'JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("k8s.io/x~y"), value: "true"}]',
        _deployment(labels={}),
        _deployment(labels={"k8s.io/x~y": "true"}),
    ),
    (
        "jsonPatch with CEL initializer",
        '[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: Object.spec.template.spec.containers{'
        'name: "x", ports: [Object.spec.template.spec.containers.ports{containerPort: 8080}]}}]',
        _deployment(containers=_named("a")),
        _deployment(containers=[{"name": "a"}, {"name": "x", "ports": [{"containerPort": 8080}]}]),
    ),
    (
        "jsonPatch invalid CEL initializer field",
        '[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: Object.spec.template.spec.containers{'
        'name: "x", ports: [Object.spec.template.spec.containers.ports{containerPortZ: 8080}]}}]',
        _deployment(containers=_named("a")),
        'strict decoding error: unknown field "spec.template.spec.containers[1].ports[0].containerPortZ"',
    ),
    (
        "jsonPatch invalid CEL initializer type",
        '[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: Object.spec.template.spec.containers{'
        'name: "x", ports: [Object.spec.template.spec.containers.portsZ{containerPort: 8080}]}}]',
        _deployment(containers=_named("a")),
        ' mismatch: unexpected type name "Object.spec.template.spec.containers.portsZ", expected '
        '"Object.spec.template.spec.containers.ports", which matches field name path from root Object type',
    ),
    (
        "jsonPatch replace end of list with - not allowed",
        '[JSONPatch{op: "replace", path: "/spec/template/spec/containers/-", value: {"name": "x"}}]',
        _deployment(containers=_named("a")),
        "JSON Patch: replace operation does not apply: doc is missing key: "
        "/spec/template/spec/containers/-: missing value",
    ),
]


@pytest.mark.parametrize(
    ("expression", "obj", "expected"), [c[1:] for c in JSON_PATCH_CASES], ids=[c[0] for c in JSON_PATCH_CASES]
)
def test_json_patch(expression: str, obj: dict[str, Any], expected: dict[str, Any] | str) -> None:
    result = _run(m.JSON_PATCH, expression, obj)
    if isinstance(expected, str):
        (refusal,) = result.refusals
        assert expected in refusal.message
    else:
        assert not result.refusals
        assert result.object == expected


_POD_SPEC = "Object.spec.template.spec"

# TestApplyConfiguration (smd_test.go): name, expression, object, old object, expected object or error.
APPLY_CASES: list[tuple[str, str, dict[str, Any], dict[str, Any] | None, dict[str, Any] | str]] = [
    (
        "apply configuration add to listType=map",
        f"Object{{spec: Object.spec{{template: Object.spec.template{{spec: "
        f'{_POD_SPEC}{{volumes: [{_POD_SPEC}.volumes{{name: "y"}}]}}}}}}}}',
        _deployment(volumes=_named("x")),
        None,
        _deployment(volumes=_named("x", "y")),
    ),
    (
        "apply configuration update listType=map entry",
        f"Object{{spec: Object.spec{{template: Object.spec.template{{spec: {_POD_SPEC}{{volumes: [{_POD_SPEC}.volumes{{"
        f'name: "y", hostPath: {_POD_SPEC}.volumes.hostPath{{path: "a"}}}}]}}}}}}}}',
        _deployment(volumes=_named("x", "y")),
        None,
        _deployment(volumes=[{"name": "x"}, {"name": "y", "hostPath": {"path": "a"}}]),
    ),
    (
        "apply configuration with conditionals",
        "Object{spec: Object.spec{replicas: object.spec.replicas % 2 == 0?object.spec.replicas "
        "+ 1:object.spec.replicas}}",
        _deployment(replicas=2),
        None,
        _deployment(replicas=3),
    ),
    (
        "apply configuration with old object",
        "Object{spec: Object.spec{replicas: oldObject.spec.replicas % 2 == "
        "0?oldObject.spec.replicas + 1:oldObject.spec.replicas}}",
        _deployment(replicas=1),
        _deployment(replicas=2),
        _deployment(replicas=3),
    ),
    (
        "complex apply configuration initialization",
        f"Object{{spec: Object.spec{{replicas: 1, template: Object.spec.template{{"
        f'metadata: Object.spec.template.metadata{{labels: {{"app": "nginx"}}}}, spec: {_POD_SPEC}{{'
        f'containers: [{_POD_SPEC}.containers{{name: "nginx", image: "nginx:1.14.2", '
        f"ports: [{_POD_SPEC}.containers.ports{{containerPort: 80}}], "
        f'resources: {_POD_SPEC}.containers.resources{{limits: {{"cpu": "128M"}}}}}}]}}}}}}}}',
        _deployment(),
        None,
        {
            **_deployment(),
            "spec": {
                "replicas": 1,
                "template": {
                    "metadata": {"labels": {"app": "nginx"}},
                    "spec": {
                        "containers": [
                            {
                                "name": "nginx",
                                "image": "nginx:1.14.2",
                                "ports": [{"containerPort": 80}],
                                "resources": {"limits": {"cpu": "128M"}},
                            }
                        ]
                    },
                },
            },
        },
    ),
    (
        "apply configuration with change to atomic",
        'Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"l": "v"}}}}',
        _deployment(replicas=1),
        None,
        "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps "
        "or structs: .spec.selector",
    ),
    (
        "apply configuration with invalid type name",
        "Object{spec: Object.specx{replicas: 1}}",
        _deployment(replicas=1),
        None,
        'type mismatch: unexpected type name "Object.specx", expected "Object.spec", which matches field name path '
        "from root Object type",
    ),
    (
        "apply configuration with invalid field name",
        "Object{spec: Object.spec{replicasx: 1}}",
        _deployment(replicas=1),
        None,
        "error applying patch: failed to convert patch object to typed object: .spec.replicasx: "
        "field not declared in schema",
    ),
    (
        "apply configuration with invalid return type",
        '"I\'m a teapot!"',
        _deployment(replicas=1),
        None,
        "must evaluate to Object but got string",
    ),
    (
        "apply configuration with invalid initializer return type",
        "Object.spec.metadata{}",
        _deployment(replicas=1),
        None,
        "must evaluate to Object but got Object.spec.metadata",
    ),
    (
        "apply configuration with duplicate env vars in original object",
        "Object{spec: Object.spec{replicas: 3}}",
        _deployment(
            replicas=1,
            containers=[{"name": "nginx", "env": [{"name": "test", "value": "a"}, {"name": "test", "value": "b"}]}],
        ),
        None,
        _deployment(
            replicas=3,
            containers=[{"name": "nginx", "env": [{"name": "test", "value": "a"}, {"name": "test", "value": "b"}]}],
        ),
    ),
    (
        "apply configuration modify existing env variable",
        f"Object{{spec: Object.spec{{template: Object.spec.template{{spec: "
        f"{_POD_SPEC}{{containers: [{_POD_SPEC}.containers{{"
        f'name: "nginx", env: [{_POD_SPEC}.containers.env{{name: "test", value: "c"}}]}}]}}}}}}}}',
        _deployment(
            replicas=1,
            containers=[
                {
                    "name": "nginx",
                    "env": [
                        {"name": "test", "value": "a"},
                        {"name": "test", "value": "b"},
                        {"name": "foo", "value": "bar"},
                    ],
                }
            ],
        ),
        None,
        _deployment(
            replicas=1,
            containers=[{"name": "nginx", "env": [{"name": "test", "value": "c"}, {"name": "foo", "value": "bar"}]}],
        ),
    ),
]


@pytest.mark.parametrize(
    ("expression", "obj", "old", "expected"), [c[1:] for c in APPLY_CASES], ids=[c[0] for c in APPLY_CASES]
)
def test_apply_configuration(
    expression: str, obj: dict[str, Any], old: dict[str, Any] | None, expected: dict[str, Any] | str
) -> None:
    result = _run(m.APPLY_CONFIGURATION, expression, obj, old)
    if isinstance(expected, str):
        (refusal,) = result.refusals
        assert expected in refusal.message
    else:
        assert not result.refusals, result.refusals
        assert result.object == expected


POD = "v1/Pod"


def _pod(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "x:1"}], **spec},
    }


def test_apply_configuration_cannot_set_atomic_fields_of_a_pod() -> None:
    """The issue's nodeSelector and tolerations: atomic in the served schema, refused."""
    expression = (
        "Object{spec: Object.spec{nodeSelector: {'pool': 'gpu'}, tolerations: [Object.spec.tolerations{key: 'k'}]}}"
    )
    (refusal,) = _run(m.APPLY_CONFIGURATION, expression, _pod(), kind=POD).refusals
    assert refusal.text == (
        "policy 'p' with binding 'b' denied request: error applying patch: invalid ApplyConfiguration: "
        "may not mutate atomic arrays, maps or structs: .spec.nodeSelector, .spec.tolerations"
    )


def test_apply_configuration_merges_containers_by_name_and_labels_by_key() -> None:
    expression = (
        "Object{metadata: Object.metadata{labels: {'team': 'ml'}}, spec: Object.spec{containers: "
        "[Object.spec.containers{name: 'c', env: [Object.spec.containers.env{name: 'A', value: '1'}]}, "
        "Object.spec.containers{name: 'sidecar', image: 'proxy:1'}]}}"
    )
    result = _run(m.APPLY_CONFIGURATION, expression, _pod(), kind=POD)
    assert result.changed and not result.refusals
    assert result.object["metadata"]["labels"] == {"app": "web", "team": "ml"}
    assert result.object["spec"]["containers"] == [
        {"name": "c", "image": "x:1", "env": [{"name": "A", "value": "1"}]},
        {"name": "sidecar", "image": "proxy:1"},
    ]


def test_failure_policy_ignore_drops_the_error_and_keeps_the_object() -> None:
    expression = "Object{spec: Object.spec{replicasx: 1}}"
    result = _run(m.APPLY_CONFIGURATION, expression, _deployment(replicas=1), failure_policy=v.IGNORE)
    assert result.refusals == () and result.object == _deployment(replicas=1) and not result.changed


def test_a_runtime_error_is_worded_as_the_api_server_words_it() -> None:
    result = _run(m.APPLY_CONFIGURATION, "Object{spec: Object.spec{replicas: object.spec.missing}}", _deployment())
    (refusal,) = result.refusals
    assert refusal.text == (
        "policy 'p' with binding 'b' denied request: expression 'Object{spec: Object.spec{replicas: "
        "object.spec.missing}}' resulted in error: no such key: missing"
    )


def test_match_conditions_false_skips_the_binding() -> None:
    condition = v.MatchCondition("only-gpu", "object.metadata.?labels.?pool == optional.of('gpu')")
    result = _run(
        m.JSON_PATCH,
        "[JSONPatch{op: 'add', path: '/metadata/labels/x', value: 'y'}]",
        _deployment(labels={"pool": "cpu"}),
        match_conditions=(condition,),
    )
    assert not result.changed and result.object == _deployment(labels={"pool": "cpu"})


def test_variables_are_read_by_the_mutations() -> None:
    variables = (v.Variable("team", "'ml-' + string(object.spec.replicas)"),)
    result = _run(
        m.JSON_PATCH,
        "[JSONPatch{op: 'add', path: '/metadata/labels/team', value: variables.team}]",
        _deployment(labels={}, replicas=2),
        variables=variables,
    )
    assert result.object["metadata"]["labels"] == {"team": "ml-2"}


def test_the_authorizer_is_not_evaluated() -> None:
    result = _run(
        m.JSON_PATCH,
        "authorizer.group('').resource('pods').check('create').allowed() ? [] : []",
        _deployment(),
    )
    assert result.not_evaluated == "authorizer" and not result.refusals


def test_a_function_podwhy_lacks_is_not_evaluated() -> None:
    result = _run(m.JSON_PATCH, "duration('1h') > duration('1m') ? [] : []", _deployment())
    assert result.not_evaluated == "cel:duration" and not result.refusals


def _invocation(name: str, expression: str, reinvocation: str = m.NEVER) -> m.Invocation:
    policy = m.MutatingPolicy(name, (m.Mutation(m.JSON_PATCH, expression),), reinvocation_policy=reinvocation)
    return m.Invocation(m.compile_mutating_policy(policy), f"{name}-binding")


def test_reinvocation_runs_if_needed_policies_again_after_a_later_change() -> None:
    """dispatchInvocations and policyReinvokeContext: a policy with reinvocationPolicy IfNeeded
    runs again when a later one changed the object; Never ones do not."""
    first = _invocation(
        "a-copy",
        "has(object.metadata.labels.b) ? [JSONPatch{op: 'add', path: '/metadata/labels/a', "
        "value: object.metadata.labels.b}] : []",
        m.IF_NEEDED,
    )
    never = _invocation(
        "b-never", "[JSONPatch{op: 'add', path: '/metadata/labels/n', value: string(size(object.metadata.labels))}]"
    )
    second = _invocation("c-set", "[JSONPatch{op: 'add', path: '/metadata/labels/b', value: 'from-c'}]")
    request = v.PolicyRequest(object=_deployment(labels={}))
    context = m.ReinvocationContext()
    args = ([first, never, second], request, DEPLOYMENT, schema_for(35), lambda o: o, context)
    outcome = m.admit(*args)
    assert outcome.object["metadata"]["labels"] == {"n": "0", "b": "from-c"}
    assert context.should_reinvoke
    again = m.admit([first, never, second], v.PolicyRequest(object=outcome.object), *args[2:], reinvoking=True)
    assert again.object["metadata"]["labels"] == {"n": "0", "b": "from-c", "a": "from-c"}
    assert [d.policy for d in again.mutations] == ["a-copy"]


def test_the_first_refusal_is_the_requests() -> None:
    bad = _invocation("a-bad", "[JSONPatch{op: 'remove', path: '/metadata/labels/none'}]")
    good = _invocation("b-good", "[JSONPatch{op: 'add', path: '/metadata/labels/x', value: 'y'}]")
    outcome = m.admit(
        [bad, good],
        v.PolicyRequest(object=_deployment(labels={})),
        DEPLOYMENT,
        schema_for(35),
        lambda o: o,
        m.ReinvocationContext(),
    )
    assert outcome.refusal is not None
    assert outcome.refusal.text == (
        "policy 'a-bad' with binding 'a-bad-binding' denied request: JSON Patch: error in remove for path: "
        "'/metadata/labels/none': Unable to remove nonexistent key: none: missing value"
    )


# json-patch v4's operations and words.
OPERATIONS: list[tuple[str, Any, list[jsonpatch.Operation], Any]] = [
    (
        "add at index -1 appends (v4 counts from the list grown by one)",
        {"a": [1, 2]},
        [jsonpatch.Operation("add", "/a/-1", value=9, has_value=True)],
        {"a": [1, 2, 9]},
    ),
    (
        "add past the end",
        {"a": [1]},
        [jsonpatch.Operation("add", "/a/5", value=9, has_value=True)],
        "error in add for path: '/a/5': Unable to access invalid index: 5: invalid index referenced",
    ),
    (
        "add under a missing parent",
        {},
        [jsonpatch.Operation("add", "/a/b", value=1, has_value=True)],
        'add operation does not apply: doc is missing path: "/a/b": missing value',
    ),
    (
        "remove past the end",
        {"a": [1]},
        [jsonpatch.Operation("remove", "/a/1")],
        "error in remove for path: '/a/1': Unable to access invalid index: 1: invalid index referenced",
    ),
    (
        "replace past the end",
        {"a": [1]},
        [jsonpatch.Operation("replace", "/a/3", value=2, has_value=True)],
        "replace operation does not apply: doc is missing key: /a/3: missing value",
    ),
    (
        "move without from",
        {"a": 1},
        [jsonpatch.Operation("move", "/b")],
        "move operation failed to decode from: operation, missing from field: missing value",
    ),
    (
        "test of a number by value",
        {"a": 1},
        [
            jsonpatch.Operation("test", "/a", value=1.0, has_value=True),
            jsonpatch.Operation("add", "/b", value=2, has_value=True),
        ],
        {"a": 1, "b": 2},
    ),
    ("unknown operation", {}, [jsonpatch.Operation("merge", "/a")], "Unexpected kind: merge"),
]


@pytest.mark.parametrize(("doc", "operations", "expected"), [c[1:] for c in OPERATIONS], ids=[c[0] for c in OPERATIONS])
def test_json_patch_operations(doc: Any, operations: list[jsonpatch.Operation], expected: Any) -> None:
    if isinstance(expected, str):
        with pytest.raises(jsonpatch.JSONPatchError) as raised:
            jsonpatch.apply(doc, operations)
        assert str(raised.value) == expected
    else:
        assert jsonpatch.apply(doc, operations) == expected


def test_a_failed_test_leaves_the_object_unpatched() -> None:
    with pytest.raises(jsonpatch.TestFailedError):
        jsonpatch.apply({"a": 1}, [jsonpatch.Operation("test", "/a", value=2, has_value=True)])


def test_the_schema_follows_the_release() -> None:
    """A field only a later release serves is not declared in an earlier one's schema."""
    expression = "Object{spec: Object.spec{hostnameOverride: 'x'}}"
    compiled = m.compile_mutating_policy(m.MutatingPolicy("p", (m.Mutation(m.APPLY_CONFIGURATION, expression),)))
    request = v.PolicyRequest(object=_pod())
    old = m.dispatch_binding(compiled, "b", request, POD, schema_for(33), lambda o: o)
    assert old.refusals[0].message.endswith(".spec.hostnameOverride: field not declared in schema")
    new = m.dispatch_binding(compiled, "b", request, POD, schema_for(34), lambda o: o)
    assert new.object["spec"]["hostnameOverride"] == "x"


# ------------------------------------------------------------------ check


GPU_POLICY = [
    {
        "apiVersion": "admissionregistration.k8s.io/v1beta1",
        "kind": "MutatingAdmissionPolicy",
        "metadata": {"name": "gpu-team"},
        "spec": {
            "matchConstraints": {
                "resourceRules": [
                    {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}
                ]
            },
            "matchConditions": [
                {
                    "name": "gpu-pinned",
                    "expression": "object.spec.?nodeSelector[?'kubernetes.io/hostname'] == optional.of('gpu-a1')",
                }
            ],
            "failurePolicy": "Fail",
            "reinvocationPolicy": "Never",
            "mutations": [
                {
                    "patchType": "ApplyConfiguration",
                    "applyConfiguration": {"expression": "Object{metadata: Object.metadata{labels: {'team': 'ml'}}}"},
                },
                {
                    "patchType": "JSONPatch",
                    "jsonPatch": {
                        "expression": "[JSONPatch{op: 'add', path: '/spec/tolerations/-', "
                        "value: Object.spec.tolerations{"
                        "key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule'}}]"
                    },
                },
            ],
        },
    },
    {
        "apiVersion": "admissionregistration.k8s.io/v1beta1",
        "kind": "MutatingAdmissionPolicyBinding",
        "metadata": {"name": "gpu-team-binding"},
        "spec": {"policyName": "gpu-team"},
    },
]

TEAM_VAP = [
    {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "require-team"},
        "spec": {
            "matchConstraints": {
                "resourceRules": [
                    {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}
                ]
            },
            "validations": [{"expression": "'team' in object.metadata.labels", "message": "a team label is required"}],
        },
    },
    {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "require-team"},
        "spec": {"policyName": "require-team", "validationActions": ["Deny"]},
    },
]


def _trainer() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "trainer", "namespace": "shop"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "trainer"}},
            "template": {
                "metadata": {"labels": {"app": "trainer"}},
                "spec": {
                    "nodeSelector": {"kubernetes.io/hostname": "gpu-a1"},
                    "containers": [
                        {"name": "c", "image": "registry.example.com/t:1", "resources": {"requests": {"cpu": "100m"}}}
                    ],
                },
            },
        },
    }


def check_trainer(tmp_path: Path, objects: list[Any], *flags: str) -> tuple[int, Any]:
    """`podwhy check -f` of the trainer Deployment on the shop cluster with OBJECTS beside it
    (also test_policy_mutating_params.py): the exit code and the JSON report."""
    policies = tmp_path / "policies.yaml"
    policies.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objects}))
    manifest = tmp_path / "app.yaml"
    manifest.write_text(yaml.safe_dump(_trainer()))
    args = ["check", "-f", str(manifest), "--from", str(SHOP), "--from", str(policies), "-o", "json", *flags]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "300", "NO_COLOR": "1"})
    assert result.stdout.startswith("{"), result.stderr
    return result.exit_code, json.loads(result.stdout)


def test_check_a_policy_adding_a_label_and_a_toleration_lets_the_pod_onto_the_tainted_node(tmp_path: Path) -> None:
    code, report = check_trainer(tmp_path, TEAM_VAP)
    assert code == 1  # no team label: refused by the ValidatingAdmissionPolicy
    code, report = check_trainer(tmp_path, [])
    assert code == 1 and report["workloads"][0]["placed"] == 0  # the GPU node's taint
    code, report = check_trainer(tmp_path, [*GPU_POLICY, *TEAM_VAP])
    assert code == 0
    (workload,) = report["workloads"]
    assert workload["placed"] == 1 and workload["replicas"][0]["node"] == "gpu-a1"
    why = "MutatingAdmissionPolicy 'gpu-team'"
    assert {"field": "metadata.labels.team", "value": "ml", "why": why} in workload["apiServerDefaults"]
    toleration = '{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}'
    assert any(d["value"] == toleration and d["why"] == why for d in workload["apiServerDefaults"])


def test_check_an_apply_configuration_setting_tolerations_is_refused(tmp_path: Path) -> None:
    policy = json.loads(json.dumps(GPU_POLICY))
    policy[0]["spec"]["mutations"] = [
        {
            "patchType": "ApplyConfiguration",
            "applyConfiguration": {
                "expression": "Object{spec: Object.spec{tolerations: [Object.spec.tolerations{key: 'nvidia.com/gpu'}]}}"
            },
        }
    ]
    code, report = check_trainer(tmp_path, policy)
    assert code == 1
    replica = report["workloads"][0]["replicas"][0]
    assert replica["created"] is False
    assert replica["message"] == (
        "not created: Error creating: policy 'gpu-team' with binding 'gpu-team-binding' denied request: error "
        "applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.tolerations"
    )
