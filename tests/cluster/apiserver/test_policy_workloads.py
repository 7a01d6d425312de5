"""Admission policies and webhooks on `kubectl apply` of a workload itself (cluster/apiserver/
admission/policy/admission.py: mutate_workload, admit_workload; cluster/manifests.py): a
MutatingAdmissionPolicy that matches Deployments changes the stored template its pods are created
from (the changes said in apiServerDefaults), its refusal fails `kubectl apply` in the API
server's words, a kind podwhy holds no schema of is not evaluated, and a webhook the workload's
creation meets leaves every replica open."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from podwhy.cluster.apiserver.admission.policy.admission import SCHEMA, ObjectDeniedError, mutate_workload
from podwhy.features.emulation import V1_35, V1_36
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.decode import decode
from tests.cluster.apiserver.test_policy_admission import LIMITS_POLICY, _check, _deployment, _webhook
from tests.cluster.apiserver.test_policy_admission import _binding as _vap_binding

MAP = "admissionregistration.k8s.io/v1beta1"
DEPLOYMENTS = {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["deployments"]}
RCS = {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["replicationcontrollers"]}
# The shop example's tainted node, whose taint the mutation tolerates.
GPU_TOLERATION = "Object.spec.template.spec.tolerations{key: 'nvidia.com/gpu', operator: 'Exists'}"


def _policy(name: str, mutations: list[Any], rules: Any = DEPLOYMENTS, **spec: Any) -> Any:
    return {
        "apiVersion": MAP,
        "kind": "MutatingAdmissionPolicy",
        "metadata": {"name": name},
        "spec": {"matchConstraints": {"resourceRules": [rules]}, "mutations": mutations, **spec},
    }


def _binding(name: str, policy: str) -> Any:
    return {
        "apiVersion": MAP,
        "kind": "MutatingAdmissionPolicyBinding",
        "metadata": {"name": name},
        "spec": {"policyName": policy},
    }


LABEL = {
    "patchType": "ApplyConfiguration",
    "applyConfiguration": {
        "expression": (
            "Object{spec: Object.spec{template: Object.spec.template{metadata: "
            "Object.spec.template.metadata{labels: {'team': 'shop'}}}}}"
        )
    },
}
TOLERATE = {
    "patchType": "JSONPatch",
    "jsonPatch": {
        "expression": f"[JSONPatch{{op: 'add', path: '/spec/template/spec/tolerations', value: [{GPU_TOLERATION}]}}]"
    },
}


def _snapshot(*objects: Any) -> Snapshot:
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": list(objects)}).encode()
    snapshot = Snapshot()
    decode(text, "policies.json").add_to(snapshot)
    return snapshot


@pytest.mark.parametrize(
    ("mutations", "changed"),
    [
        ([LABEL], [("spec.template.metadata.labels.team", "shop")]),
        (
            [LABEL, TOLERATE],
            [
                ("spec.template.metadata.labels.team", "shop"),
                ("spec.template.spec.tolerations", '[{"key":"nvidia.com/gpu","operator":"Exists"}]'),
            ],
        ),
    ],
)
def test_a_deployment_is_mutated_as_stored(mutations: list[Any], changed: list[tuple[str, str]]) -> None:
    snapshot = _snapshot(_policy("p", mutations), _binding("b", "p"))
    out = mutate_workload(snapshot, _deployment("web"), "Deployment", "shop", V1_36, "app.yaml")
    assert out.obj is not None and not out.open
    assert [(f, v) for f, v, _ in out.changed] == changed
    assert {why for _, _, why in out.changed} == {"MutatingAdmissionPolicy 'p'"}
    assert out.obj["spec"]["template"]["metadata"]["labels"] == {"app": "web", "team": "shop"}


def test_nothing_met_leaves_the_workload_as_written() -> None:
    pods_only = {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}
    snapshot = _snapshot(_policy("p", [LABEL], pods_only), _binding("b", "p"))
    out = mutate_workload(snapshot, _deployment("web"), "Deployment", "shop", V1_36, "app.yaml")
    assert out.obj is None and not out.changed and not out.open


def test_a_mutation_that_fails_refuses_the_workload_in_the_api_servers_words() -> None:
    """An ApplyConfiguration may not set an atomic field (the pod spec's nodeSelector): under
    failurePolicy Fail the request is refused; `kubectl apply` fails naming the resource."""
    atomic = {
        "patchType": "ApplyConfiguration",
        "applyConfiguration": {
            "expression": (
                "Object{spec: Object.spec{template: Object.spec.template{spec: "
                "Object.spec.template.spec{nodeSelector: {'pool': 'gpu'}}}}}"
            )
        },
    }
    snapshot = _snapshot(_policy("pin", [atomic], failurePolicy="Fail"), _binding("pin-all", "pin"))
    with pytest.raises(ObjectDeniedError) as refused:
        mutate_workload(snapshot, _deployment("web"), "Deployment", "shop", V1_35, "app.yaml")
    assert "deployments.apps \"web\" is forbidden: policy 'pin' with binding 'pin-all' denied request: " in str(
        refused.value
    )
    assert "may not mutate atomic arrays, maps or structs: .spec.template.spec.nodeSelector" in str(refused.value)


def test_a_kind_podwhy_holds_no_schema_of_is_not_evaluated() -> None:
    rc = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "legacy", "namespace": "shop"},
        "spec": {"replicas": 1, "selector": {"app": "legacy"}, "template": _deployment("legacy")["spec"]["template"]},
    }
    snapshot = _snapshot(_policy("p", [LABEL], RCS), _binding("b", "p"))
    out = mutate_workload(snapshot, rc, "ReplicationController", "shop", V1_36, "app.yaml")
    assert out.obj is None
    assert [(p.policy, p.binding, p.what) for p in out.open] == [("p", "b", SCHEMA)]


def test_check_places_the_replicas_of_the_mutated_template(tmp_path: Path) -> None:
    """The shop example's gpu-a1 is tainted `nvidia.com/gpu`; the policy's toleration lets the
    replicas of 3 CPUs go there (no other node has them free)."""
    objects = [_policy("to-gpu", [LABEL, TOLERATE]), _binding("all", "to-gpu")]
    web = _deployment("web", replicas=1)
    web["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "3"
    code, report, _ = _check(tmp_path, objects, [web])
    assert code == 0, report
    (workload,) = report["workloads"]
    assert [r["node"] for r in workload["replicas"]] == ["gpu-a1"]
    said = [(d["field"], d["why"]) for d in workload["apiServerDefaults"]][:2]
    assert said == [
        ("spec.template.metadata.labels.team", "MutatingAdmissionPolicy 'to-gpu'"),
        ("spec.template.spec.tolerations", "MutatingAdmissionPolicy 'to-gpu'"),
    ]
    code, report, _ = _check(tmp_path, [], [web])
    assert code == 1


def test_a_webhook_on_the_workload_leaves_every_replica_open(tmp_path: Path) -> None:
    hook = _webhook("validate.kyverno.svc-fail", "kyverno-resource-validating-webhook-cfg", "kyverno-svc", "kyverno")
    hook["webhooks"][0]["rules"] = [DEPLOYMENTS]
    code, report, _ = _check(tmp_path, [hook], [_deployment("web", memory_limit=True)])
    assert code == 3
    messages = {r["message"] for r in report["workloads"][0]["replicas"]}
    assert messages == {
        "not evaluated: whether admission lets it be created: the creation of Deployment shop/web is sent to webhook "
        "validate.kyverno.svc-fail (Kyverno policy webhook; ValidatingWebhookConfiguration "
        "kyverno-resource-validating-webhook-cfg, failurePolicy Fail), which podwhy does not call "
        "(--assume-webhooks-allow assumes it admits it)"
    }
    assert _check(tmp_path, [hook], [_deployment("web", memory_limit=True)], "--assume-webhooks-allow")[0] == 0


def test_a_replication_controller_meets_the_policies_too(tmp_path: Path) -> None:
    """`kubectl apply` of a ReplicationController is an admission request like any workload's (it
    was refused as a kind podwhy does not create, whatever the policies); its pods are refused by
    the pods' policy in the API server's words."""
    rc = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "legacy", "namespace": "shop"},
        "spec": {"replicas": 1, "selector": {"app": "legacy"}, "template": _deployment("legacy")["spec"]["template"]},
    }
    objects = [LIMITS_POLICY, _vap_binding("limits", "require-memory-limits", ["Deny"])]
    code, report, stderr = _check(tmp_path, objects, [rc])
    assert code == 1, stderr
    (replica,) = report["workloads"][0]["replicas"]
    assert (
        "ValidatingAdmissionPolicy 'require-memory-limits' with binding 'limits' denied request" in replica["message"]
    )
