"""Admission policies and webhooks in `check` (cluster/apiserver/admission/policy/admission.py):
a ValidatingAdmissionPolicy's denial in the API server's words (a controller's pods not created, a
workload refused by `kubectl apply`), Warn said as kubectl says it, bindings selected by
namespace, a webhook never called left open (exit 3, or admitted with --assume-webhooks-allow),
params read from the snapshot's ConfigMaps, or said as not evaluated where it cannot vouch for
them. The shop example's nodes, with policies beside them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from podwhy.cli import app
from tests.paths import REPO

SHOP = REPO / "fixtures" / "examples" / "shop-cluster.yaml"
VAP = "admissionregistration.k8s.io/v1"

LIMITS_POLICY = {
    "apiVersion": VAP,
    "kind": "ValidatingAdmissionPolicy",
    "metadata": {"name": "require-memory-limits"},
    "spec": {
        "failurePolicy": "Fail",
        "matchConstraints": {
            "resourceRules": [
                {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["pods"]}
            ]
        },
        "validations": [
            {
                "expression": (
                    "object.spec.containers.all(c, has(c.resources.limits) && 'memory' in c.resources.limits)"
                ),
                "message": "Memory limits are required for all containers.",
            }
        ],
    },
}


def _binding(name: str, policy: str, actions: list[str], namespaces: list[str] | None = None, **spec: Any) -> Any:
    body: dict[str, Any] = {"policyName": policy, "validationActions": actions, **spec}
    if namespaces is not None:
        body["matchResources"] = {
            "namespaceSelector": {
                "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": namespaces}]
            }
        }
    return {"apiVersion": VAP, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name}, "spec": body}


def _deployment(name: str, namespace: str = "shop", memory_limit: bool = False, replicas: int = 2) -> Any:
    resources: dict[str, Any] = {"requests": {"cpu": "100m", "memory": "64Mi"}}
    if memory_limit:
        resources["limits"] = {"memory": "64Mi"}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "registry.example.com/web:1", "resources": resources}]},
            },
        },
    }


def _check(tmp_path: Path, objects: list[Any], manifests: list[Any], *flags: str) -> tuple[int, Any, str]:
    policies = tmp_path / "policies.yaml"
    policies.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objects}))
    manifest = tmp_path / "app.yaml"
    manifest.write_text(yaml.safe_dump_all(manifests))
    args = ["check", "-f", str(manifest), "--from", str(SHOP), "--from", str(policies), "-o", "json", *flags]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "300", "NO_COLOR": "1"})
    out = json.loads(result.stdout) if result.stdout.startswith("{") else None
    return result.exit_code, out, result.stderr


def test_a_denied_pod_is_not_created_in_the_api_servers_words(tmp_path: Path) -> None:
    objects = [LIMITS_POLICY, _binding("limits", "require-memory-limits", ["Deny"])]
    code, report, _ = _check(tmp_path, objects, [_deployment("web")])
    assert code == 1
    (workload,) = report["workloads"]
    replica = workload["replicas"][0]
    assert replica["created"] is False
    name = replica["name"]
    assert replica["message"] == (
        f'not created: Error creating: pods "{name}" is forbidden: ValidatingAdmissionPolicy '
        "'require-memory-limits' with binding 'limits' denied request: Memory limits are required for all containers."
    )
    code, report, _ = _check(tmp_path, objects, [_deployment("web", memory_limit=True)])
    assert code == 0 and report["workloads"][0]["placed"] == 2


def test_a_binding_selects_its_namespaces(tmp_path: Path) -> None:
    objects = [LIMITS_POLICY, _binding("limits-ml", "require-memory-limits", ["Deny"], namespaces=["ml"])]
    code, _report, _ = _check(tmp_path, objects, [_deployment("web")])
    assert code == 0  # shop is not selected
    code, _report, _ = _check(tmp_path, objects, [_deployment("web", namespace="ml")])
    assert code == 1


def test_warn_is_said_as_kubectl_says_it_and_the_pod_is_created(tmp_path: Path) -> None:
    objects = [LIMITS_POLICY, _binding("limits-warn", "require-memory-limits", ["Warn"])]
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "solo", "namespace": "shop"},
        "spec": {"containers": [{"name": "c", "image": "x:1", "resources": {"requests": {"cpu": "100m"}}}]},
    }
    code, report, _ = _check(tmp_path, objects, [pod])
    assert code == 0
    assert report["workloads"][0]["placed"] == 1
    warning = (
        "Validation failed for ValidatingAdmissionPolicy 'require-memory-limits' with binding 'limits-warn': "
        "Memory limits are required for all containers."
    )
    assert any(warning in w for w in report["warnings"]), report["warnings"]


def test_a_workload_a_policy_refuses_is_not_applied(tmp_path: Path) -> None:
    policy = json.loads(json.dumps(LIMITS_POLICY))
    policy["metadata"]["name"] = "max-replicas"
    policy["spec"]["matchConstraints"]["resourceRules"][0].update(apiGroups=["apps"], resources=["deployments"])
    policy["spec"]["validations"] = [
        {
            "expression": "object.spec.replicas <= 3",
            "messageExpression": "'at most 3 replicas, not ' + string(object.spec.replicas)",
        }
    ]
    objects = [policy, _binding("max", "max-replicas", ["Deny"])]
    code, report, stderr = _check(tmp_path, objects, [_deployment("web", replicas=5)])
    assert code == 1 and report is None
    assert (
        "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max' "
        "denied request: at most 3 replicas, not 5"
    ) in stderr
    assert _check(tmp_path, objects, [_deployment("web", replicas=3)])[0] == 0


def _webhook(name: str, configuration: str, service: str, namespace: str, failure: str = "Fail") -> Any:
    return {
        "apiVersion": VAP,
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": configuration},
        "webhooks": [
            {
                "name": name,
                "clientConfig": {"service": {"name": service, "namespace": namespace}},
                "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}],
                "failurePolicy": failure,
                "sideEffects": "None",
                "admissionReviewVersions": ["v1"],
            }
        ],
    }


def test_a_webhook_is_named_and_leaves_the_verdict_open(tmp_path: Path) -> None:
    objects = [
        _webhook("validate.kyverno.svc-fail", "kyverno-resource-validating-webhook-cfg", "kyverno-svc", "kyverno")
    ]
    code, report, _ = _check(tmp_path, objects, [_deployment("web", memory_limit=True)])
    assert code == 3
    message = report["workloads"][0]["replicas"][0]["message"]
    assert message.startswith("not evaluated: whether admission lets it be created: its creation is sent to webhook ")
    assert "validate.kyverno.svc-fail (Kyverno policy webhook; ValidatingWebhookConfiguration" in message
    assert "failurePolicy Fail" in message
    code, report, _ = _check(tmp_path, objects, [_deployment("web", memory_limit=True)], "--assume-webhooks-allow")
    assert code == 0


def test_params_the_snapshot_cannot_vouch_for_leave_the_policy_not_evaluated(tmp_path: Path) -> None:
    policy = json.loads(json.dumps(LIMITS_POLICY))
    policy["spec"]["paramKind"] = {"apiVersion": "v1", "kind": "ConfigMap"}
    binding = _binding("limits", "require-memory-limits", ["Deny"], paramRef={"name": "cfg", "namespace": "shop"})
    code, report, _ = _check(tmp_path, [policy, binding], [_deployment("web", memory_limit=True)])
    assert code == 3
    message = report["workloads"][0]["replicas"][0]["message"]
    assert (
        "ValidatingAdmissionPolicy 'require-memory-limits' with binding 'limits' reads its binding's params"
        " (v1/ConfigMap), which the snapshot cannot vouch for: it holds no ConfigMaps" in message
    )


def _limit_range_policy() -> Any:
    """At most the memory limit a ConfigMap of the pod's namespace says (params read)."""
    policy = json.loads(json.dumps(LIMITS_POLICY))
    policy["metadata"]["name"] = "max-memory-limit"
    policy["spec"]["paramKind"] = {"apiVersion": "v1", "kind": "ConfigMap"}
    policy["spec"]["validations"] = [
        {
            "expression": "object.spec.containers.all(c, quantity(c.resources.limits.memory)"
            ".compareTo(quantity(params.data.maxMemory)) <= 0)",
            "messageExpression": "'memory limits may not exceed ' + params.data.maxMemory",
        }
    ]
    return policy


def test_params_are_read_from_the_snapshots_config_maps(tmp_path: Path) -> None:
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "limits", "namespace": "shop"},
        "data": {"maxMemory": "32Mi"},
    }
    binding = _binding(
        "max-memory", "max-memory-limit", ["Deny"], paramRef={"name": "limits", "parameterNotFoundAction": "Deny"}
    )
    objects = [_limit_range_policy(), binding, config]
    code, report, _ = _check(tmp_path, objects, [_deployment("web", memory_limit=True)])
    assert code == 1
    assert report["workloads"][0]["replicas"][0]["message"].endswith(
        "ValidatingAdmissionPolicy 'max-memory-limit' with binding 'max-memory' denied request: "
        "memory limits may not exceed 32Mi"
    )
    config["data"]["maxMemory"] = "64Mi"
    code, report, _ = _check(tmp_path, objects, [_deployment("web", memory_limit=True)])
    assert code == 0 and report["workloads"][0]["placed"] == 2


def test_without_policies_or_webhooks_nothing_changes(tmp_path: Path) -> None:
    code, report, _ = _check(tmp_path, [], [_deployment("web")])
    assert code == 0 and report["workloads"][0]["placed"] == 2


def _explain(tmp_path: Path, objects: list[Any], pod: Any, *flags: str) -> tuple[int, Any]:
    policies = tmp_path / "policies.yaml"
    policies.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objects}))
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(yaml.safe_dump(pod))
    args = ["explain", "-f", str(manifest), "--from", str(SHOP), "--from", str(policies), "-o", "json", *flags]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "300", "NO_COLOR": "1"})
    return result.exit_code, json.loads(result.stdout) if result.stdout.startswith("{") else result.stderr


POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "debug", "namespace": "shop"},
    "spec": {"containers": [{"name": "c", "image": "x:1", "resources": {"requests": {"cpu": "100m"}}}]},
}


def test_explain_f_leaves_a_fit_open_to_a_webhook(tmp_path: Path) -> None:
    """explain -f: a webhook the pod meets makes a fit Inconclusive, the webhook named in a warning."""
    objects = [
        _webhook("validation.gatekeeper.sh", "gatekeeper-validating", "gatekeeper-webhook-service", "gatekeeper-system")
    ]
    code, report = _explain(tmp_path, objects, POD)
    assert code == 3 and report["verdict"] == "Inconclusive"
    assert any("validation.gatekeeper.sh (Gatekeeper policy webhook;" in w for w in report["warnings"])
    code, report = _explain(tmp_path, objects, POD, "--assume-webhooks-allow")
    assert code == 0 and report["verdict"] == "Schedulable"


def test_explain_f_of_a_denied_pod_is_the_api_servers_refusal(tmp_path: Path) -> None:
    code, stderr = _explain(tmp_path, [LIMITS_POLICY, _binding("limits", "require-memory-limits", ["Deny"])], POD)
    assert code != 0
    assert (
        "pods \"debug\" is forbidden: ValidatingAdmissionPolicy 'require-memory-limits' with binding 'limits' denied"
        " request: Memory limits are required for all containers." in stderr
    )


def test_a_mutating_webhook_leaves_a_pending_replica_open(tmp_path: Path) -> None:
    """A replica that stays Pending as podwhy admitted it may fit once a mutating webhook (never
    called) changes it: Inconclusive, with what kube-scheduler says of it as admitted; a
    validating webhook can only refuse it, so a Pending replica stays Pending (exit 1)."""
    big = _deployment("huge", memory_limit=True, replicas=1)
    big["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "64"
    mutating = _webhook("sidecar-injector.istio.io", "istio-sidecar-injector", "istiod", "istio-system")
    mutating["kind"] = "MutatingWebhookConfiguration"
    code, report, _ = _check(tmp_path, [mutating], [big])
    assert code == 3
    (replica,) = report["workloads"][0]["replicas"]
    assert replica["verdict"] == "Inconclusive"
    assert replica["message"].startswith("not evaluated: what admission changes of it: its creation is sent to")
    assert "as podwhy admitted it, kube-scheduler says: 0/" in replica["message"]
    validating = _webhook(
        "validate.kyverno.svc-fail", "kyverno-resource-validating-webhook-cfg", "kyverno-svc", "kyverno"
    )
    assert _check(tmp_path, [validating], [big])[0] == 1
