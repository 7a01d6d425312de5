"""`check` with dynamic resource allocation: claims made from templates per pod as the
resource-claim controller makes them, allocated as DynamicResources' Reserve/PreBind allocate them,
so the next replica sees those devices in use; a claim shared by several pods is allocated once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from podwhy.cli import app
from tests.paths import REPO

DRA = REPO / "fixtures" / "realworld" / "dra-v1beta1"  # one node, 8 GPUs
CLUSTER = [str(DRA / name) for name in ("node.json", "resourceslices.yaml", "deviceclass.yaml")]

TEMPLATE = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceClaimTemplate",
    "metadata": {"name": "single-gpu", "namespace": "default"},
    "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}},
}


def _pod_spec(claim: dict[str, str]) -> dict[str, Any]:
    return {
        "containers": [{"name": "c", "image": "ubuntu", "resources": {"claims": [{"name": "gpu"}]}}],
        "resourceClaims": [{"name": "gpu", **claim}],
    }


def _check(tmp_path: Path, *docs: dict[str, Any]) -> dict[str, Any]:
    manifests = tmp_path / "m.yaml"
    manifests.write_text(yaml.safe_dump_all(docs))
    args = ["check", "-f", str(manifests), *[a for c in CLUSTER for a in ("--from", c)], "--complete"]
    result = CliRunner().invoke(app, [*args, "--kube-version", "1.35", "-o", "json"])
    assert result.exit_code in (0, 1), result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_a_claim_per_pod_from_its_template_until_the_gpus_run_out(tmp_path: Path) -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "trainer", "namespace": "default"},
        "spec": {
            "replicas": 9,
            "selector": {"matchLabels": {"app": "trainer"}},
            "template": {
                "metadata": {"labels": {"app": "trainer"}},
                "spec": _pod_spec({"resourceClaimTemplateName": "single-gpu"}),
            },
        },
    }
    report = _check(tmp_path, TEMPLATE, deployment)
    replicas = report["workloads"][0]["replicas"]
    assert [r["node"] is not None for r in replicas] == [True] * 8 + [False]
    assert "cannot allocate all claims" in replicas[8]["message"]


def test_a_claim_shared_by_two_pods_is_allocated_once(tmp_path: Path) -> None:
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "shared-gpu", "namespace": "default"},
        "spec": TEMPLATE["spec"]["spec"],
    }
    pods = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"pod{i}", "namespace": "default"},
            "spec": _pod_spec({"resourceClaimName": "shared-gpu"}),
        }
        for i in range(2)
    ]
    # Each of the 8 GPUs once by its own template claim, after the shared one: the shared claim takes
    # one GPU for both pods, so 7 are left for the others.
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "others", "namespace": "default"},
        "spec": {
            "parallelism": 8,
            "completions": 8,
            "template": {"spec": {**_pod_spec({"resourceClaimTemplateName": "single-gpu"}), "restartPolicy": "Never"}},
        },
    }
    report = _check(tmp_path, TEMPLATE, claim, *pods, job)
    shared, other, others = report["workloads"]
    assert shared["placed"] == other["placed"] == 1
    assert (others["placed"], others["pending"]) == (7, 1)


def test_explain_f_with_its_claim_template_in_the_same_file(tmp_path: Path) -> None:
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gpu-ns"}}
    template = {**TEMPLATE, "metadata": {"name": "single-gpu", "namespace": "gpu-ns"}}
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "pod0", "namespace": "gpu-ns"},
        "spec": _pod_spec({"resourceClaimTemplateName": "single-gpu"}),
    }
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(yaml.safe_dump_all([namespace, template, pod]))
    args = ["explain", "-f", str(manifest), *[a for c in CLUSTER for a in ("--from", c)], "--complete"]
    result = CliRunner().invoke(app, [*args, "--kube-version", "1.35", "-o", "json"])
    assert result.exit_code == 0, result.stdout
    assert json.loads(result.stdout)["verdict"] == "Schedulable"


def test_claim_names_are_cut_as_the_resource_claim_controller_cuts_them() -> None:
    from podwhy.cluster.controllers.resourceclaim import claim_generate_name

    assert claim_generate_name("pod0", "gpu") == "pod0-gpu-"
    pod, claim = "p" * 60, "c" * 20  # 82 characters with the dashes: each cut to len * 57 // 82
    assert claim_generate_name(pod, claim) == "p" * 41 + "-" + "c" * 13


def test_a_preempted_pods_claim_is_released_for_the_next_pod(tmp_path: Path) -> None:
    """Eight running low-priority pods hold the eight GPUs. A high-priority pod that needs only CPU
    preempts one of them; the resource-claim controller then deallocates the victim's claim, so a
    later GPU pod finds that GPU free (without the release it would find none)."""
    node = "dra-example-driver-cluster-worker"
    running: list[dict[str, Any]] = []
    for i in range(8):
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"low-{i}", "namespace": "default", "uid": f"uid-low-{i}"},
            "spec": {
                **_pod_spec({"resourceClaimName": f"low-{i}-gpu"}),
                "nodeName": node,
                "priority": 0,
                "containers": [
                    {
                        "name": "c",
                        "image": "ubuntu",
                        "resources": {"requests": {"cpu": "900m"}, "claims": [{"name": "gpu"}]},
                    }
                ],
            },
            "status": {"phase": "Running"},
        }
        claim = {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": f"low-{i}-gpu", "namespace": "default", "uid": f"uid-claim-{i}"},
            "spec": TEMPLATE["spec"]["spec"],
            "status": {
                "allocation": {
                    "devices": {
                        "results": [{"request": "gpu", "driver": "gpu.example.com", "pool": node, "device": f"gpu-{i}"}]
                    }
                },
                "reservedFor": [{"resource": "pods", "name": f"low-{i}", "uid": f"uid-low-{i}"}],
            },
        }
        running += [pod, claim]
    cluster = tmp_path / "running.yaml"
    cluster.write_text(yaml.safe_dump_all(running))
    CLUSTER.append(str(cluster))
    try:
        high_class = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}}
        high_class["value"] = 1000
        urgent = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "urgent", "namespace": "default"},
            "spec": {
                "priorityClassName": "high",
                "containers": [{"name": "c", "image": "ubuntu", "resources": {"requests": {"cpu": "1500m"}}}],
            },
        }
        later = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "later", "namespace": "default"},
            "spec": {
                **_pod_spec({"resourceClaimTemplateName": "single-gpu"}),
                "containers": [
                    {
                        "name": "c",
                        "image": "ubuntu",
                        "resources": {"requests": {"cpu": "100m"}, "claims": [{"name": "gpu"}]},
                    }
                ],
            },
        }
        report = _check(tmp_path, TEMPLATE, high_class, urgent, later)
    finally:
        CLUSTER.remove(str(cluster))
    first, second = report["workloads"]
    (evicted,) = first["replicas"][0]["evicted"]
    assert first["replicas"][0]["node"] == node
    assert evicted.startswith("default/low-")
    assert second["replicas"][0]["node"] == node, second["replicas"][0]["message"]
