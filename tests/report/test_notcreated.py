"""explain TYPE/NAME of a workload and pending's workloads whose pods are not being created (issue
38), from the command line: the first lines, the exit codes, the JSON against its schema, and the
table, -o wide and markdown snapshotted (fixtures/notcreated/)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema.protocols import Validator
from syrupy.assertion import SnapshotAssertion
from typer.testing import CliRunner

from podwhy.cli import app
from tests.paths import REPO, TESTS

pytestmark = pytest.mark.usefixtures("moved_clock")

CLUSTER = REPO / "fixtures" / "notcreated" / "cluster.yaml"
KUEUE = TESTS / "scenarios-kueue" / "short-quota" / "cluster.yaml"


def run(*args: str, sources: tuple[Path, ...] = (CLUSTER,)) -> tuple[int, str, str]:
    froms = [arg for source in sources for arg in ("--from", str(source))]
    result = CliRunner().invoke(app, [*args, *froms], env={"COLUMNS": "140", "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


def _extra(tmp_path: Path, *items: dict[str, Any]) -> Path:
    path = tmp_path / "extra.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": list(items)}))
    return path


# ------------------------------------------------------------------ explain TYPE/NAME


@pytest.mark.parametrize("ref", ["deployment/web", "deploy/web", "deployments.apps/web"])
def test_a_deployment_whose_pods_are_not_created_says_so_first(ref: str) -> None:
    code, out, _ = run("explain", ref, "-n", "shop")
    assert code == 1
    first, second, third, *_ = out.splitlines()
    assert first.startswith("The pods of Deployment shop/web are not being created: ValidatingAdmissionPolicy")
    assert second == "Its controller's FailedCreate events, newest first (ReplicaSet web-6c9f8b7d5):"
    assert third == "  ReplicaSet web-6c9f8b7d5: FailedCreate, 12 times (last 2026-03-04T10:22:00Z)"


def test_explain_workload_table(snapshot: SnapshotAssertion) -> None:
    assert run("explain", "deployment/web", "-n", "shop")[1] == snapshot


def test_explain_workload_markdown(snapshot: SnapshotAssertion) -> None:
    assert run("explain", "deployment/web", "-n", "shop", "-o", "markdown")[1] == snapshot


def test_explain_workload_json(snapshot: SnapshotAssertion, report_schema_validator: Validator) -> None:
    code, out, _ = run("explain", "deployment/web", "-n", "shop", "-o", "json")
    doc = json.loads(out)
    report_schema_validator.validate(doc)
    assert code == 1 and doc["verdict"] == "NotCreated"
    workload = doc["workload"]
    assert workload["state"] == "NotCreated" and workload["creators"] == ["ReplicaSet web-6c9f8b7d5"]
    policy = workload["events"][0]["refusal"]["policy"]
    assert policy["stillDenies"] is True and policy["expressionIndex"] == 0
    assert policy["message"] == "Memory limits are required for all containers."
    # The verified change (issue 38): the memory limit from the request, the Deployment patched.
    (suggestion,) = doc["suggestions"]
    assert suggestion["kind"] == "satisfyPolicy" and suggestion["nodes"] == ["worker-1"]
    assert suggestion["command"] == (
        "kubectl patch deployment web -n shop --type strategic -p "
        """'{"spec":{"template":{"spec":{"containers":[{"name":"web","resources":{"limits":{"memory":"256Mi"}}}]}}}}'"""
    )
    assert workload["notes"] == []
    doc["snapshot"]["sources"] = [Path(source).name for source in doc["snapshot"]["sources"]]
    assert doc == snapshot


def test_a_policy_podwhy_cannot_satisfy_leaves_a_note(tmp_path: Path) -> None:
    """A second policy the changed pod then meets asks for a label podwhy has no value for: nothing
    is offered (it would not be admitted), the field is named."""
    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "require-team"},
        "spec": {
            "matchConstraints": {
                "resourceRules": [
                    {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}
                ]
            },
            "validations": [{"expression": "has(object.metadata.labels.team)"}],
        },
    }
    binding = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "require-team-binding"},
        "spec": {"policyName": "require-team", "validationActions": ["Deny"]},
    }
    code, out, _ = run("explain", "deployment/web", "-n", "shop", sources=(CLUSTER, _extra(tmp_path, policy, binding)))
    assert code == 1 and "Suggestions" not in out
    assert "Not suggested: ValidatingAdmissionPolicy 'require-team' (spec.validations[0]) requires label team:" in out
    code, out, _ = run(
        "explain", "deployment/web", "-n", "shop", "-o", "json", sources=(CLUSTER, _extra(tmp_path, policy, binding))
    )
    doc = json.loads(out)
    assert doc["suggestions"] == [] and len(doc["workload"]["notes"]) == 1


def test_explain_daemonset_refused_by_a_webhook(snapshot: SnapshotAssertion) -> None:
    code, out, _ = run("explain", "ds/node-agent", "-n", "shop")
    assert code == 1
    assert "(Kyverno policy webhook; ValidatingWebhookConfiguration kyverno-resource-validating-webhook-cfg" in out
    assert out == snapshot


def test_a_pending_pod_of_the_workload_is_explained(snapshot: SnapshotAssertion) -> None:
    code, out, _ = run("explain", "deploy/api", "-n", "shop")
    assert code == 1
    first, second, *_ = out.splitlines()
    assert first == "Pod shop/api-5d4f8c7b9-c2n9v · Unschedulable"
    assert second.startswith("Pod shop/api-5d4f8c7b9-c2n9v of Deployment shop/api is explained (the one")
    assert out == snapshot


def test_a_pending_pods_report_names_its_workload(report_schema_validator: Validator) -> None:
    code, out, _ = run("explain", "deploy/api", "-n", "shop", "-o", "json")
    doc = json.loads(out)
    report_schema_validator.validate(doc)
    assert code == 1
    assert doc["pod"]["name"] == "api-5d4f8c7b9-c2n9v"
    assert doc["workload"]["state"] == "Pending" and doc["workload"]["explained"] == "api-5d4f8c7b9-c2n9v"
    assert doc["workload"]["pending"] == ["api-5d4f8c7b9-b8m4q", "api-5d4f8c7b9-c2n9v"]


def test_a_typo_names_the_closest_workload() -> None:
    code, _, err = run("explain", "deployment/wbe", "-n", "shop")
    assert code == 3
    assert "Deployment shop/wbe not found in the snapshot" in err and "closest: deployment/web" in err


def test_a_namespace_so_called_is_read_when_no_workload_matches(tmp_path: Path) -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "cache", "namespace": "deployment", "uid": "uid-cache"},
        "spec": {"containers": [{"name": "c", "image": "redis"}]},
        "status": {"phase": "Pending"},
    }
    code, out, _ = run("explain", "deployment/cache", sources=(CLUSTER, _extra(tmp_path, pod)))
    assert out.splitlines()[0].startswith("Pod deployment/cache · ")
    assert code == 0


def test_a_job_kueue_does_not_queue_is_explained_as_a_workload(tmp_path: Path) -> None:
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "plain", "namespace": "ml", "uid": "uid-plain"},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}},
    }
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "plain.1", "namespace": "ml"},
        "involvedObject": {"kind": "Job", "name": "plain", "namespace": "ml"},
        "reason": "FailedCreate",
        "type": "Warning",
        "count": 3,
        "message": 'Error creating: pods "plain-x1y2z" is forbidden: exceeded quota: ml-quota, requested: '
        "pods=1, used: pods=10, limited: pods=10",
    }
    code, out, _ = run("explain", "job/plain", "-n", "ml", sources=(KUEUE, _extra(tmp_path, job, event)))
    assert code == 1
    assert out.splitlines()[0] == "The pods of Job ml/plain are not being created: a ResourceQuota refuses them"
    # A Job Kueue queues keeps Kueue's answer.
    code, out, _ = run("explain", "job/train-7", "-n", "ml", sources=(KUEUE, _extra(tmp_path, job, event)))
    assert "Job ml/train-7" in out.splitlines()[0]


def test_a_workload_all_of_whose_pods_run_exits_0(tmp_path: Path) -> None:
    created = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "web.created", "namespace": "shop"},
        "involvedObject": {"kind": "ReplicaSet", "name": "web-6c9f8b7d5", "namespace": "shop"},
        "reason": "SuccessfulCreate",
        "type": "Normal",
        "count": 1,
        "lastTimestamp": "2026-03-04T10:30:00Z",
        "message": "Created pod: web-6c9f8b7d5-q2w3e",
    }
    code, out, _ = run("explain", "deployment/web", "-n", "shop", sources=(CLUSTER, _extra(tmp_path, created)))
    assert code == 0
    assert out.splitlines()[0].startswith("Deployment shop/web has no pods, and its controller reports no FailedCreate")


# ------------------------------------------------------------------ pending


def test_pending_counts_the_workloads_that_cannot_create_pods() -> None:
    code, out, _ = run("pending", "-n", "shop")
    assert code == 1
    assert out.splitlines()[0] == (
        "2 Pending pods in namespace shop, 2 stuck, in 1 group; 2 workloads cannot create pods"
    )
    assert "2. 2 workloads cannot create pods · NotCreated" in out


@pytest.mark.parametrize("output", ["table", "wide", "markdown"])
def test_pending_not_created(output: str, snapshot: SnapshotAssertion) -> None:
    assert run("pending", "-n", "shop", "-o", output)[1] == snapshot


def test_pending_not_created_json(snapshot: SnapshotAssertion, pending_schema_validator: Validator) -> None:
    code, out, _ = run("pending", "-n", "shop", "-o", "json")
    doc = json.loads(out)
    pending_schema_validator.validate(doc)
    assert code == 1
    assert [w["workload"] for w in doc["notCreated"]] == ["shop/web (Deployment)", "shop/node-agent (DaemonSet)"]
    web, agent = doc["notCreated"]
    assert [s["kind"] for s in web["suggestions"]] == ["satisfyPolicy"] and web["notes"] == []
    assert "suggestions" not in agent  # a webhook refuses it: nothing looked for
    doc["snapshot"]["sources"] = [Path(source).name for source in doc["snapshot"]["sources"]]
    assert doc == snapshot


def test_pending_without_pending_pods_leads_with_the_workloads(tmp_path: Path) -> None:
    items = yaml.safe_load(CLUSTER.read_text())["items"]
    kept = [i for i in items if i["kind"] != "Pod" or i["status"]["phase"] != "Pending"]
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": kept}))
    code, out, _ = run("pending", "-n", "shop", sources=(path,))
    assert code == 1
    assert out.splitlines()[0] == "2 workloads cannot create pods in namespace shop, and no Pending pod."
    code, out, _ = run("pending", "-n", "shop", "-o", "markdown", sources=(path,))
    assert "**2 workloads cannot create pods**" in out


def test_live_explain_of_a_workload_lists_the_namespaces_events() -> None:
    from podwhy.cli.explain import _pod_events

    assert _pod_events("deployment/web", "shop") == ("shop", "")
    assert _pod_events("sts/db", None) == ("", "")
    assert _pod_events("shop/web-0", None) == ("shop", "web-0")
    assert _pod_events("pod/web-0", "shop") == ("shop", "web-0")


def test_a_replication_controllers_refusal_gets_its_verified_suggestion(tmp_path: Path) -> None:
    """A ReplicationController's stored template is kept (as a ReplicaSet's): its refusal is
    evaluated again and the fix is a patch of the ReplicationController."""
    from tests.analysis.test_workloadtarget import LEGACY_RC

    extra = tmp_path / "legacy.yaml"
    extra.write_text(LEGACY_RC)
    code, out, err = run("explain", "rc/legacy", "-n", "shop", "-o", "json", sources=(CLUSTER, extra))
    assert code == 1, err
    (suggestion,) = json.loads(out)["suggestions"]
    assert suggestion["kind"] == "satisfyPolicy"
    assert suggestion["command"].startswith("kubectl patch replicationcontroller legacy -n shop --type strategic")
