"""ResourceQuota admission (cluster/apiserver/admission/resourcequota.py), after upstream's
plugin/pkg/admission/resourcequota/admission_test.go and pkg/quota/v1/evaluator/core/pods_test.go:
usage, scopes, the "must specify" constraint, the refusal in the API server's words, the charge
a later pod sees; and what it changes in `explain -f` and `check`."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.cluster.apiserver.admission.resourcequota import (
    admit,
    compute_usage,
    constraints,
    controller_usage,
    matches,
    pod_usage,
)
from podwhy.model import objects as o
from podwhy.model.quantity import go_string, parse_quantity, quantity_format

Json = dict[str, Any]


def quota(
    hard: Json, used: Json | None, *, name: str = "quota", namespace: str = "test", **spec: Any
) -> o.ResourceQuota:
    status = {"hard": hard, "used": used} if used is not None else {}
    return msgspec.convert(
        {"metadata": {"name": name, "namespace": namespace}, "spec": {"hard": hard, **spec}, "status": status},
        o.ResourceQuota,
    )


def pod(requests: Json | None = None, limits: Json | None = None, *, containers: int = 1, **spec: Any) -> o.Pod:
    """upstream's validPod: NAME in namespace test, CONTAINERS containers of the same resources."""
    resources = {"requests": requests or {}, "limits": limits or {}}
    body = {"containers": [{"name": f"c{i}", "resources": resources} for i in range(containers)], **spec}
    return msgspec.convert({"metadata": {"name": "p", "namespace": "test"}, "spec": body}, o.Pod)


def rl(cpu: str = "", memory: str = "") -> Json:
    """upstream's getResourceList: the non-empty ones."""
    return {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}


BASE_HARD = {"cpu": "3", "memory": "100Gi", "pods": "5"}
BASE_USED = {"cpu": "1", "memory": "50Gi", "pods": "3"}


# (test, quotas, pod, the refusal or None, the used figures of the first quota afterwards)
CASES: list[tuple[str, list[o.ResourceQuota], o.Pod, str | None, Json | None]] = [
    (
        "below the limit: charged",  # TestAdmitBelowQuotaLimit
        [quota(BASE_HARD, BASE_USED)],
        pod(rl("100m", "2Gi")),
        None,
        {"cpu": "1100m", "memory": "52Gi", "pods": "4"},
    ),
    (
        "over the limit",  # TestAdmitExceedQuotaLimit
        [quota(BASE_HARD, BASE_USED)],
        pod(rl("3", "2Gi")),
        "exceeded quota: quota, requested: cpu=3, used: cpu=1, limited: cpu=3",
        BASE_USED,
    ),
    (
        "every resource over it is named, sorted",
        [quota(BASE_HARD, BASE_USED)],
        pod(rl("3", "60Gi")),
        "exceeded quota: quota, requested: cpu=3,memory=60Gi, used: cpu=1,memory=50Gi, limited: cpu=3,memory=100Gi",
        BASE_USED,
    ),
    (
        "a quota on limits.memory demands every container state it",  # TestAdmitEnforceQuotaConstraints
        [
            quota(
                {"cpu": "3", "memory": "100Gi", "limits.memory": "200Gi", "pods": "5"},
                {"cpu": "1", "memory": "50Gi", "limits.memory": "100Gi", "pods": "3"},
            )
        ],
        pod(rl("100m", "2Gi"), rl("200m"), containers=2),
        "failed quota: quota: must specify limits.memory for: c0,c1",
        None,
    ),
    (
        "another namespace's quota does not apply",  # TestAdmitPodInNamespaceWithoutQuota
        [quota(BASE_HARD, BASE_USED, namespace="other")],
        pod(rl("100m", "2Gi"), rl("200m")),
        None,
        BASE_USED,
    ),
    (
        "an unrelated resource over its quota does not stop a pod",  # TestAdmitWhenUnrelatedResourceExceedsQuota
        [quota({"services": "3", "pods": "4"}, {"services": "4", "pods": "1"})],
        pod(),
        None,
        {"services": "4", "pods": "2"},
    ),
    (
        "a quota whose status lacks a used figure: status unknown",
        [quota({"cpu": "3", "pods": "5"}, {"pods": "1"})],
        pod(rl("1", "1Gi")),
        "status unknown for quota: quota, resources: cpu",
        None,
    ),
    (
        "the pods count",
        [quota({"pods": "3"}, {"pods": "3"})],
        pod(),
        "exceeded quota: quota, requested: pods=1, used: pods=3, limited: pods=3",
        None,
    ),
    (
        "count/pods counts every pod",
        [quota({"count/pods": "1"}, {"count/pods": "1"})],
        pod(),
        "exceeded quota: quota, requested: count/pods=1, used: count/pods=1, limited: count/pods=1",
        None,
    ),
    (
        "requests of two containers add up, in the first one's format",
        [quota({"requests.memory": "1Gi"}, {"requests.memory": "512Mi"})],
        pod(rl(memory="300Mi"), containers=2),
        "exceeded quota: quota, requested: requests.memory=600Mi, used: requests.memory=512Mi, "
        "limited: requests.memory=1Gi",
        None,
    ),
    (
        "an extended resource is quota'd as requests.<name>",
        [quota({"requests.nvidia.com/gpu": "1"}, {"requests.nvidia.com/gpu": "1"})],
        pod({"nvidia.com/gpu": "1"}, {"nvidia.com/gpu": "1"}),
        "exceeded quota: quota, requested: requests.nvidia.com/gpu=1, used: requests.nvidia.com/gpu=1, "
        "limited: requests.nvidia.com/gpu=1",
        None,
    ),
    (
        "a Terminating quota ignores a pod without activeDeadlineSeconds",  # TestAdmitBelowTerminatingQuotaLimit
        [quota({"pods": "1"}, {"pods": "1"}, scopes=["Terminating"])],
        pod(),
        None,
        {"pods": "1"},
    ),
    (
        "a Terminating quota counts a pod with activeDeadlineSeconds",
        [quota({"pods": "1"}, {"pods": "1"}, scopes=["Terminating"])],
        pod(activeDeadlineSeconds=60),
        "exceeded quota: quota, requested: pods=1, used: pods=1, limited: pods=1",
        None,
    ),
    (
        "a BestEffort quota ignores a burstable pod",  # TestAdmitBestEffortQuotaLimitIgnoresBurstable
        [quota({"pods": "5"}, {"pods": "5"}, scopes=["BestEffort"])],
        pod(rl("100m", "1Gi")),
        None,
        {"pods": "5"},
    ),
    (
        "a BestEffort quota counts a pod without requests",  # TestAdmitBelowBestEffortQuotaLimit
        [quota({"pods": "5"}, {"pods": "5"}, scopes=["BestEffort"])],
        pod(),
        "exceeded quota: quota, requested: pods=1, used: pods=5, limited: pods=5",
        None,
    ),
    (
        "a PriorityClass In selector counts a pod of that class",
        [
            quota(
                {"pods": "1"},
                {"pods": "1"},
                scopeSelector={
                    "matchExpressions": [{"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]
                },
            )
        ],
        pod(priorityClassName="high"),
        "exceeded quota: quota, requested: pods=1, used: pods=1, limited: pods=1",
        None,
    ),
    (
        "a PriorityClass In selector ignores a pod of another class",
        [
            quota(
                {"pods": "1"},
                {"pods": "1"},
                scopeSelector={
                    "matchExpressions": [{"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]
                },
            )
        ],
        pod(priorityClassName="low"),
        None,
        {"pods": "1"},
    ),
    (
        "two quotas: the first over names itself; neither is charged",
        [
            quota({"pods": "10"}, {"pods": "1"}, name="a"),
            quota({"cpu": "1", "pods": "10"}, {"cpu": "900m", "pods": "1"}, name="b"),
        ],
        pod(rl("200m", "1Gi")),
        "exceeded quota: b, requested: cpu=200m, used: cpu=900m, limited: cpu=1",
        {"pods": "1"},
    ),
]


@pytest.mark.parametrize(("quotas", "p", "refusal", "used"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_admission(quotas: list[o.ResourceQuota], p: o.Pod, refusal: str | None, used: Json | None) -> None:
    before = [dict(q.status.used) for q in quotas]
    got = admit(p, quotas)
    assert (got.message if got is not None else None) == refusal
    if refusal is not None:
        assert [dict(q.status.used) for q in quotas] == before  # a refused pod charges nothing
    if used is not None:
        assert dict(quotas[0].status.used) == used


def test_a_controllers_next_pod_sees_the_charge() -> None:
    quotas = [quota({"requests.cpu": "1"}, {"requests.cpu": "0"})]
    refusals = [admit(pod(rl("400m")), quotas) for _ in range(3)]
    assert [r is None for r in refusals] == [True, True, False]
    assert refusals[2] is not None and refusals[2].message == (
        "exceeded quota: quota, requested: requests.cpu=400m, used: requests.cpu=800m, limited: requests.cpu=1"
    )


def test_usage_of_a_pod() -> None:
    """PodUsageFunc: requests and limits as quota names them; overhead counts; a terminal pod only
    as an object."""
    p = pod({"cpu": "1", "memory": "1Gi", "hugepages-2Mi": "2Mi"}, {"cpu": "2", "memory": "1Gi"})
    p.spec.overhead = {"cpu": "250m"}
    usage = pod_usage(p)
    assert usage == {
        "count/pods": 1,
        "pods": 1,
        "cpu": Fraction(5, 4),
        "requests.cpu": Fraction(5, 4),
        "limits.cpu": Fraction(9, 4),
        "memory": 2**30,
        "requests.memory": 2**30,
        "limits.memory": 2**30,
        "hugepages-2Mi": 2 * 2**20,
        "requests.hugepages-2Mi": 2 * 2**20,
    }
    p.status.phase = "Succeeded"
    assert pod_usage(p) == {"count/pods": 1}
    assert compute_usage({}, {}) == {"pods": 1}


def test_sidecars_and_init_containers() -> None:
    """An init container's peak counts when above the containers' sum; a sidecar adds to both."""
    p = msgspec.convert(
        {
            "metadata": {"name": "p", "namespace": "test"},
            "spec": {
                "containers": [{"name": "a", "resources": {"limits": {"cpu": "1"}}}],
                "initContainers": [
                    {"name": "side", "restartPolicy": "Always", "resources": {"limits": {"cpu": "500m"}}},
                    {"name": "init", "resources": {"limits": {"cpu": "2"}}},
                ],
            },
        },
        o.Pod,
    )
    assert pod_usage(p)["limits.cpu"] == Fraction(5, 2)


def test_constraints_are_not_demanded_of_pod_level_resources() -> None:
    p = pod(resources={"requests": {"cpu": "1"}})
    assert constraints(["limits.memory"], p) is None
    assert constraints(["limits.memory"], pod()) == "must specify limits.memory for: c0"
    assert constraints(["requests.storage"], pod()) is None  # only cpu and memory are demanded


def test_matches_needs_a_pod_resource_and_every_scope() -> None:
    assert not matches(quota({"services": "1"}, {}), pod())
    assert matches(quota({"requests.hugepages-1Gi": "1Gi"}, {}), pod())
    both = quota({"pods": "1"}, {}, scopes=["NotTerminating", "NotBestEffort"])
    assert not matches(both, pod())
    assert matches(both, pod(rl("1")))


def test_the_controller_counts_a_manifest_quota() -> None:
    running = pod(rl("500m"))
    done = pod(rl("2"))
    done.status.phase = "Failed"
    q = quota({"requests.cpu": "4", "count/pods": "10"}, None)
    assert controller_usage(q, [running, done]) == {"requests.cpu": "500m", "count/pods": "2"}


@pytest.mark.parametrize(
    ("written", "printed"),
    [
        ("1500m", "1500m"),
        ("0.5", "500m"),
        ("2000", "2k"),
        ("1024Mi", "1Gi"),
        ("1.5Gi", "1536Mi"),
        ("512", "512"),
        ("1e3", "1e3"),
        ("0", "0"),
        ("100m", "100m"),
        ("3000000000", "3G"),
    ],
)
def test_quantities_print_as_go_prints_them(written: str, printed: str) -> None:
    """Quantity.String() (quantity_test.go's canonical forms)."""
    assert go_string(parse_quantity(written), quantity_format(written)) == printed


CLUSTER = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
  status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
- apiVersion: v1
  kind: Namespace
  metadata: {name: shop}
- apiVersion: v1
  kind: ResourceQuota
  metadata: {name: compute, namespace: shop}
  spec: {hard: {requests.cpu: "2"}}
  status: {hard: {requests.cpu: "2"}, used: {requests.cpu: 1500m}}
"""
POD = """apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec:
  containers:
  - name: app
    image: nginx:1.27
    resources: {requests: {cpu: "1", memory: 64Mi}}
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        resources: {requests: {cpu: 250m, memory: 64Mi}}
"""


def _run(tmp_path: Path, *args: str, manifest: str, cluster: str = CLUSTER) -> tuple[int, str, str]:
    (tmp_path / "cluster.yaml").write_text(cluster)
    (tmp_path / "m.yaml").write_text(manifest)
    argv = [*args, "-f", str(tmp_path / "m.yaml"), "--from", str(tmp_path / "cluster.yaml"), "--complete"]
    result = CliRunner().invoke(app, argv, env={"COLUMNS": "200", "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


def test_explain_refuses_a_pod_over_its_quota_in_the_api_servers_words(tmp_path: Path) -> None:
    code, out, err = _run(tmp_path, "explain", manifest=POD)
    assert code == 3 and out == ""
    assert err.splitlines()[0].startswith(
        'podwhy: error: pods "web" is forbidden: exceeded quota: compute, requested: requests.cpu=1, '
        "used: requests.cpu=1500m, limited: requests.cpu=2"
    )
    assert len(err.strip().splitlines()) == 1


def test_check_reports_the_replicas_the_quota_leaves_uncreated(tmp_path: Path) -> None:
    code, out, err = _run(tmp_path, "check", "-o", "json", manifest=DEPLOYMENT)
    report = msgspec.json.decode(out)
    replicas = report["workloads"][0]["replicas"]
    assert [r["created"] for r in replicas] == [True, True, False]
    assert replicas[2]["node"] is None
    assert replicas[2]["message"].startswith('not created: Error creating: pods "web-')
    assert replicas[2]["message"].endswith(
        "is forbidden: exceeded quota: compute, requested: requests.cpu=250m, used: requests.cpu=2, "
        "limited: requests.cpu=2"
    )
    assert code == 1, err


def test_a_quota_in_the_manifests_is_counted_by_the_controller_first(tmp_path: Path) -> None:
    shipped = """apiVersion: v1
kind: ResourceQuota
metadata: {name: pods, namespace: shop}
spec: {hard: {pods: "2"}}
---
"""
    without = CLUSTER.split("- apiVersion: v1\n  kind: ResourceQuota")[0]
    code, out, _ = _run(tmp_path, "check", "-o", "json", manifest=shipped + DEPLOYMENT, cluster=without)
    replicas = msgspec.json.decode(out)["workloads"][0]["replicas"]
    assert [r["created"] for r in replicas] == [True, True, False]
    assert "exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2" in replicas[2]["message"]
    assert code == 1


def test_without_resource_quotas_a_fitting_manifest_pod_is_inconclusive(tmp_path: Path) -> None:
    cluster = CLUSTER.split("- apiVersion: v1\n  kind: ResourceQuota")[0]
    (tmp_path / "cluster.yaml").write_text(cluster)
    (tmp_path / "m.yaml").write_text(POD)
    argv = ["explain", "-f", str(tmp_path / "m.yaml"), "--from", str(tmp_path / "cluster.yaml")]
    result = CliRunner().invoke(app, argv, env={"COLUMNS": "200", "NO_COLOR": "1"})
    first = result.stdout.splitlines()[0]
    assert result.exit_code == 3 and "Inconclusive" in first
    assert "the snapshot holds no Pods, ResourceQuotas" in result.stderr


@pytest.mark.parametrize(
    ("policy", "created"), [("OrderedReady", [True, False, False]), ("Parallel", [True, False, False])]
)
def test_a_statefulset_is_charged_as_its_ordinals_are_created(tmp_path: Path, policy: str, created: list[bool]) -> None:
    cluster = (
        CLUSTER.split("  spec: {hard:")[0]
        + '  spec: {hard: {pods: "1"}}\n  status: {hard: {pods: "1"}, used: {pods: "0"}}\n'
    )
    sts = DEPLOYMENT.replace("kind: Deployment", "kind: StatefulSet").replace(
        "  replicas: 3\n", f"  replicas: 3\n  podManagementPolicy: {policy}\n  serviceName: web\n"
    )
    code, out, _ = _run(tmp_path, "check", "-o", "json", manifest=sts, cluster=cluster)
    replicas = msgspec.json.decode(out)["workloads"][0]["replicas"]
    assert [r["created"] for r in replicas] == created
    assert (
        'pods "web-1" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=1' in replicas[1]["message"]
    )
    waiting = replicas[2]["message"]
    assert ("once web-1 is Running" in waiting) == (policy == "OrderedReady")
    assert code == 1
