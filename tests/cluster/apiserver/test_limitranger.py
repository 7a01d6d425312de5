"""LimitRanger admission (cluster/apiserver/admission/limitranger.py), after upstream's
plugin/pkg/admission/limitranger/admission_test.go: defaults first, then min, max and ratio,
in the API server's words; and what it changes in podwhy's answers for manifests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.cluster.apiserver.admission.limitranger import aggregate, defaulted_item, mutate, validate
from podwhy.model import objects as o
from tests.builders import quotas_listed

Json = dict[str, Any]


def limit_range(*items: Json) -> o.LimitRange:
    return msgspec.convert(
        {"metadata": {"name": "lr", "namespace": "shop"}, "spec": {"limits": list(items)}}, o.LimitRange
    )


def pod(*containers: Json, init: tuple[Json, ...] = ()) -> o.Pod:
    spec: Json = {"containers": [{"name": f"c{i}", **c} for i, c in enumerate(containers)]}
    if init:
        spec["initContainers"] = [{"name": f"i{i}", **c} for i, c in enumerate(init)]
    return msgspec.convert({"metadata": {"name": "p", "namespace": "shop"}, "spec": spec}, o.Pod)


def res(requests: Json | None = None, limits: Json | None = None) -> Json:
    return {"resources": {"requests": requests or {}, "limits": limits or {}}}


def test_item_defaults_as_the_api_server_stores_them() -> None:
    """SetDefaults_LimitRangeItem: default from max, defaultRequest from default, then from min."""
    item = defaulted_item(
        msgspec.convert({"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "64Mi"}}, o.LimitRangeItem)
    )
    assert item.default == {"cpu": "2"}
    assert item.default_request == {"cpu": "2", "memory": "64Mi"}
    pod_item = msgspec.convert({"type": "Pod", "max": {"cpu": "2"}}, o.LimitRangeItem)
    assert defaulted_item(pod_item) == pod_item


def test_defaults_fill_only_what_a_container_lacks() -> None:
    p = pod(res({"cpu": "100m"}), init=(res(),))
    lr = limit_range(
        {"type": "Container", "default": {"cpu": "500m", "memory": "256Mi"}, "defaultRequest": {"cpu": "250m"}}
    )
    said = mutate(p, lr)
    assert dict(p.spec.containers[0].resources.requests) == {"cpu": "100m", "memory": "256Mi"}
    assert dict(p.spec.containers[0].resources.limits) == {"cpu": "500m", "memory": "256Mi"}
    assert dict(p.spec.init_containers[0].resources.requests) == {"cpu": "250m", "memory": "256Mi"}
    assert ("spec.initContainers[0].resources.requests.cpu", "250m") in [(d.field, d.value) for d in said]


# (test, LimitRange item, containers, the errors)
CASES: list[tuple[str, Json, list[Json], list[str]]] = [
    (
        "within bounds",
        {"type": "Container", "min": {"cpu": "100m"}, "max": {"cpu": "1"}},
        [res({"cpu": "500m"}, {"cpu": "1"})],
        [],
    ),
    (
        "request below the min",
        {"type": "Container", "min": {"cpu": "100m"}},
        [res({"cpu": "50m"})],
        ["minimum cpu usage per Container is 100m, but request is 50m"],
    ),
    (
        "no request with a min",
        {"type": "Container", "min": {"memory": "64Mi"}},
        [res(limits={"cpu": "1"})],
        ["minimum memory usage per Container is 64Mi.  No request is specified"],
    ),
    (
        "limit above the max",
        {"type": "Container", "max": {"cpu": "1"}},
        [res({"cpu": "500m"}, {"cpu": "2"})],
        ["maximum cpu usage per Container is 1, but limit is 2"],
    ),
    (
        "no limit with a max",
        {"type": "Container", "max": {"memory": "1Gi"}},
        [res({"memory": "512Mi"})],
        ["maximum memory usage per Container is 1Gi.  No limit is specified"],
    ),
    (
        "ratio above the max",
        {"type": "Container", "maxLimitRequestRatio": {"cpu": "2"}},
        [res({"cpu": "100m"}, {"cpu": "500m"})],
        ["cpu max limit to request ratio per Container is 2, but provided ratio is 5.000000"],
    ),
    (
        "pod totals above the pod max",
        {"type": "Pod", "max": {"cpu": "1"}},
        [res({"cpu": "600m"}, {"cpu": "600m"}), res({"cpu": "600m"}, {"cpu": "600m"})],
        ["maximum cpu usage per Pod is 1, but limit is 1200m"],
    ),
    # The total keeps the first container's format (addResourceList: a copy, then Add), as
    # Quantity.String() prints it: BinarySI 512Mi, not 536870912.
    (
        "pod totals keep their quantity's format",
        {"type": "Pod", "max": {"memory": "300Mi"}},
        [res({"memory": "256Mi"}, {"memory": "256Mi"}), res({"memory": "256Mi"}, {"memory": "256Mi"})],
        ["maximum memory usage per Pod is 300Mi, but limit is 512Mi"],
    ),
    # A container's own quantity and the LimitRange's, as Quantity.String() prints a quantity
    # decoded from JSON: canonical (ParseQuantity keeps the text only of "0"; quantity.go).
    (
        "a container's quantity as the API server prints it",
        {"type": "Container", "max": {"memory": "1024Mi"}},
        [res({"memory": "1536Mi"}, {"memory": "2048Mi"})],
        ["maximum memory usage per Container is 1Gi, but limit is 2Gi"],
    ),
    (
        "milli-units and exponents, canonical",
        {"type": "Container", "min": {"cpu": "1000m"}, "maxLimitRequestRatio": {"cpu": "2000m"}},
        [res({"cpu": "0.5"}, {"cpu": "1500m"})],
        [
            "minimum cpu usage per Container is 1, but request is 500m",
            "cpu max limit to request ratio per Container is 2, but provided ratio is 3.000000",
        ],
    ),
]


def test_a_larger_init_containers_total_replaces_the_containers() -> None:
    """maxResourceList: the init container's quantity replaces the total, with its format."""
    p = pod(res({"memory": "256Mi"}, {"memory": "256Mi"}), init=(res({"memory": "2G"}, {"memory": "2G"}),))
    item = limit_range({"type": "Pod", "max": {"memory": "1G"}})
    assert validate(p, item, pod_level=True) == ["maximum memory usage per Pod is 1G, but limit is 2G"]


@pytest.mark.parametrize(("test", "item", "containers", "errors"), CASES, ids=[c[0] for c in CASES])
def test_validate(test: str, item: Json, containers: list[Json], errors: list[str]) -> None:
    assert validate(pod(*containers), limit_range(item), pod_level=True) == errors


def test_several_errors_read_as_an_aggregate() -> None:
    assert aggregate(["a"]) == "a"
    assert aggregate(["a", "b"]) == "[a, b]"


# ------------------------------------------------------------------ explain -f and check
CLUSTER = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
  status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Namespace
  metadata: {name: shop}
"""
LIMIT_RANGE = """- apiVersion: v1
  kind: LimitRange
  metadata: {name: defaults, namespace: shop}
  spec:
    limits:
    - type: Container
      defaultRequest: {cpu: "3"}
      default: {cpu: "3"}
      max: {memory: 4Gi}
"""
POD = (
    "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\nspec:\n  containers:\n"
    "  - name: app\n    image: nginx:1.27\n"
)


def _run(tmp_path: Path, cluster: str, manifest: str, *extra: str) -> tuple[int, str, str]:
    (tmp_path / "cluster.yaml").write_text(cluster)
    (tmp_path / "pod.yaml").write_text(manifest)
    args = ["explain", "-f", str(tmp_path / "pod.yaml"), "--from", str(tmp_path / "cluster.yaml"), *extra]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200", "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


def test_a_namespace_default_request_is_what_the_scheduler_sees(tmp_path: Path) -> None:
    limits = "    resources: {limits: {memory: 1Gi}}\n"
    code, out, err = _run(tmp_path, CLUSTER + LIMIT_RANGE, POD + limits, "--complete")
    assert code == 1, err
    assert "0/1 nodes are available: 1 Insufficient cpu." in out
    assert "spec.containers[0].resources.requests.cpu: 3 (LimitRange defaults default)" in out


def test_a_pod_outside_the_bounds_is_refused_in_the_api_servers_words(tmp_path: Path) -> None:
    limits = "    resources: {requests: {cpu: 100m}, limits: {cpu: 100m, memory: 8Gi}}\n"
    code, out, err = _run(tmp_path, CLUSTER + LIMIT_RANGE, POD + limits, "--complete")
    assert code == 3 and out == ""
    assert err.startswith(
        'podwhy: error: pods "web" is forbidden: maximum memory usage per Container is 4Gi, but limit is 8Gi'
    )
    assert len(err.strip().splitlines()) == 1


def test_without_limit_ranges_a_pod_lacking_requests_is_inconclusive(tmp_path: Path) -> None:
    code, out, _ = _run(tmp_path, CLUSTER, POD)
    assert code == 3
    assert "Inconclusive" in out.splitlines()[0]
    # With every request given, no LimitRange could change what the scheduler sees.
    given = "    resources: {requests: {cpu: 100m, memory: 64Mi}}\n"
    code, out, _ = _run(tmp_path, CLUSTER, POD + given, "--from", quotas_listed(tmp_path))
    assert "Inconclusive" not in out.splitlines()[0]


def test_check_leaves_a_controllers_pod_outside_the_bounds_not_created(tmp_path: Path) -> None:
    """A replica LimitRanger refuses is not created (its controller's FailedCreate, retried), in
    the API server's words; check goes on (it aborted with exit 3)."""
    (tmp_path / "cluster.yaml").write_text(CLUSTER + LIMIT_RANGE)
    deployment = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        resources: {requests: {cpu: 100m}, limits: {cpu: 100m, memory: 8Gi}}
"""
    (tmp_path / "web.yaml").write_text(deployment)
    args = ["check", "-f", str(tmp_path / "web.yaml"), "--from", str(tmp_path / "cluster.yaml"), "--complete"]
    result = CliRunner().invoke(app, [*args, "-o", "json"], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert result.exit_code == 1, result.stderr
    report = json.loads(result.stdout)
    replicas = report["workloads"][0]["replicas"]
    assert len(replicas) == 2
    for replica in replicas:
        assert replica["message"].startswith('not created: Error creating: pods "web-')
        assert replica["message"].endswith("is forbidden: maximum memory usage per Container is 4Gi, but limit is 8Gi")
