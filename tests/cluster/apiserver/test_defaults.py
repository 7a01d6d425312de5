"""The API server's Pod defaulting (cluster/apiserver/defaults.py), as data from upstream's
pkg/apis/core/v1/defaults_test.go (TestSetDefaultRequestsPod, TestSetDefaultPodSpecHostNetwork,
TestSetDefaultContainerPortProtocol, the pod-level resources cases), then what it changes in
podwhy's answers for manifests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.cluster.apiserver.defaults import default_pod
from podwhy.model import objects as o
from podwhy.snapshot.source import FileSource
from tests.conformance import case_dirs, cluster_file, golden_dirs

Json = dict[str, Any]


def pod(spec: Json) -> o.Pod:
    return msgspec.convert({"metadata": {"name": "p", "namespace": "default"}, "spec": spec}, o.Pod)


def c(name: str = "c", **fields: Any) -> Json:
    return {"name": name, **fields}


# (test, pod spec, the containers' requests after defaulting, pod-level requests after, host ports after)
CASES: list[tuple[str, Json, list[Json], Json | None, list[list[int]]]] = [
    (
        "limits only: requests copied from limits",
        {"containers": [c(resources={"limits": {"cpu": "100m", "nvidia.com/gpu": "1"}})]},
        [{"cpu": "100m", "nvidia.com/gpu": "1"}],
        None,
        [[]],
    ),
    (
        "a request given stays; only missing ones are copied",
        {"containers": [c(resources={"requests": {"cpu": "50m"}, "limits": {"cpu": "100m", "memory": "1Gi"}})]},
        [{"cpu": "50m", "memory": "1Gi"}],
        None,
        [[]],
    ),
    (
        "no limits: nothing to copy",
        {"containers": [c(resources={"requests": {"cpu": "50m"}})]},
        [{"cpu": "50m"}],
        None,
        [[]],
    ),
    (
        "init containers too",
        {
            "initContainers": [c("i", resources={"limits": {"memory": "64Mi"}})],
            "containers": [c(resources={"limits": {"cpu": "1"}})],
        },
        [{"cpu": "1"}],
        None,
        [[]],
    ),
    (
        "pod-level limits: requests from the containers' requests, then from the pod's limits",
        {
            "resources": {"limits": {"cpu": "2", "memory": "1Gi"}},
            "containers": [c(resources={"requests": {"cpu": "500m"}})],
        },
        [{"cpu": "500m"}],
        {"cpu": "500m", "memory": "1Gi"},
        [[]],
    ),
    (
        "pod-level requests given are kept",
        {"resources": {"limits": {"cpu": "2"}, "requests": {"cpu": "1"}}, "containers": [c()]},
        [{}],
        {"cpu": "1"},
        [[]],
    ),
    (
        "host network: each port's hostPort is its containerPort",
        {
            "hostNetwork": True,
            "containers": [c(ports=[{"containerPort": 7000}, {"containerPort": 80, "hostPort": 8080}])],
        },
        [{}],
        None,
        [[7000, 8080]],
    ),
    (
        "no host network: hostPort stays unset",
        {"containers": [c(ports=[{"containerPort": 7000}])]},
        [{}],
        None,
        [[0]],
    ),
]


@pytest.mark.parametrize(("test", "spec", "requests", "pod_requests", "host_ports"), CASES, ids=[t[0] for t in CASES])
def test_pod_defaults(
    test: str, spec: Json, requests: list[Json], pod_requests: Json | None, host_ports: list[list[int]]
) -> None:
    p = pod(spec)
    default_pod(p)
    assert [dict(x.resources.requests) for x in p.spec.containers] == requests
    got = dict(p.spec.resources.requests) if p.spec.resources is not None else None
    assert got == pod_requests
    assert [[port.host_port for port in x.ports] for x in p.spec.containers] == host_ports
    assert all(port.protocol == "TCP" for x in p.spec.containers for port in x.ports)
    assert p.spec.scheduler_name == "default-scheduler"
    # Defaulting is idempotent: a second pass fills in nothing.
    assert default_pod(p) == []


def test_what_the_api_server_fills_in_is_said() -> None:
    p = pod(
        {
            "hostNetwork": True,
            "containers": [c(resources={"limits": {"nvidia.com/gpu": "1"}}, ports=[{"containerPort": 7000}])],
        }
    )
    said = [(d.field, d.value, d.why) for d in default_pod(p)]
    assert said == [
        ("spec.containers[0].resources.requests.nvidia.com/gpu", "1", "copied from limits"),
        ("spec.containers[0].ports[0].hostPort", "7000", "host network: the container port"),
    ]


def test_the_pod_level_hugepages_limit_is_said() -> None:
    """defaults_test.go's "pod has cpu limit with hugepages requests=unset limits=unset, container
    hugepages requests=unset limits=set": the containers' hugepage limits (6Mi) become the pod's
    limit, then its request; `check -o json` lists both under apiServerDefaults."""
    p = pod(
        {
            "resources": {"limits": {"cpu": "5m"}},
            "containers": [
                c("a", resources={"limits": {"cpu": "2m", "hugepages-2Mi": "4Mi"}}),
                c("b", resources={"limits": {"cpu": "1m", "hugepages-2Mi": "2Mi"}}),
            ],
        }
    )
    said = [(d.field, d.value, d.why) for d in default_pod(p)]
    assert p.spec.resources is not None
    assert p.spec.resources.limits == {"cpu": "5m", "hugepages-2Mi": "6Mi"}
    assert p.spec.resources.requests == {"cpu": "3m", "hugepages-2Mi": "6Mi"}
    assert said[-3:] == [
        ("spec.resources.limits.hugepages-2Mi", "6Mi", "the containers' limits"),
        ("spec.resources.requests.cpu", "3m", "the containers' requests"),
        ("spec.resources.requests.hugepages-2Mi", "6Mi", "copied from the pod's limits"),
    ]


DAEMON_SET = """apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: c, image: x, resources: {limits: {cpu: 100m}}}]
"""


def test_a_daemon_sets_pods_say_their_defaults(tmp_path: Path) -> None:
    """check -o json: a DaemonSet's pods (one per node, named from its template) have the
    apiServerDefaults of the template the controller creates them from."""
    cluster = _cluster(tmp_path, ["n1", "n2"], "")
    manifest = tmp_path / "ds.yaml"
    manifest.write_text(DAEMON_SET)
    code, out, err = _run("check", "-f", str(manifest), "--from", str(cluster), "-o", "json")
    assert code == 0, err
    (workload,) = json.loads(out)["workloads"]
    assert workload["apiServerDefaults"] == [
        {"field": "spec.containers[0].resources.requests.cpu", "value": "100m", "why": "copied from limits"}
    ]


def test_stored_objects_change_only_where_no_api_server_stored_them() -> None:
    """Every pod of every recorded cluster is as an API server stores it, so defaulting fills in
    nothing the scheduler reads, with one exception: g0012's target, which the recording gave the
    scheduler directly (an API server would add its pod-level hugepages request, the containers' own)."""
    changed = []
    read: set[Path] = set()
    for golden in golden_dirs():
        for case in case_dirs(golden):
            if cluster_file(case) in read:  # a later release's case that reuses a cluster
                continue
            read.add(cluster_file(case))
            snapshot = FileSource([str(cluster_file(case))], complete=True).load()
            for p in snapshot.pods:
                if default_pod(p):
                    changed.append((case.name, p.metadata.name))
                assert default_pod(p) == []
    assert sorted(set(changed)) == [("g0012", "target")]


# ------------------------------------------------------------------ the two real reports (issue 23)
NODE = """
- apiVersion: v1
  kind: Node
  metadata: {name: NAME, labels: {kubernetes.io/hostname: NAME}}
  status:
    allocatable: {cpu: "8", memory: 32Gi, pods: "110", nvidia.com/gpu: "1"}
    capacity: {cpu: "8", memory: 32Gi, pods: "110", nvidia.com/gpu: "1"}
"""


def _cluster(tmp_path: Path, nodes: list[str], pods: str) -> Path:
    text = "apiVersion: v1\nkind: List\nitems:\n" + "".join(NODE.replace("NAME", n) for n in nodes) + pods
    path = tmp_path / "cluster.yaml"
    path.write_text(text)
    return path


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [*args, "--complete"], env={"COLUMNS": "200", "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


def test_a_limits_only_gpu_pod_asks_for_the_gpu(tmp_path: Path) -> None:
    """NVIDIA's samples set only limits; the API server copies them into requests."""
    holder = """
- apiVersion: v1
  kind: Pod
  metadata: {name: trainer-0, namespace: default}
  spec:
    nodeName: gpu-1
    containers:
    - name: cuda
      image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
      resources: {requests: {nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}
  status: {phase: Running}
"""
    cluster = _cluster(tmp_path, ["gpu-1"], holder)
    manifest = tmp_path / "gpu-pod.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: gpu-pod}\nspec:\n  restartPolicy: Never\n  containers:\n"
        "  - name: cuda-container\n    image: nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0\n"
        "    resources:\n      limits:\n        nvidia.com/gpu: 1\n"
    )
    code, out, err = _run("explain", "-f", str(manifest), "--from", str(cluster))
    assert code == 1, err
    # The scheduler's message follows the first screen's verdict and priority lines.
    assert any(line.startswith("0/1 nodes are available: 1 Insufficient nvidia.com/gpu.") for line in out.splitlines())
    assert "spec.containers[0].resources.requests.nvidia.com/gpu: 1 (copied from limits)" in out
    deployment = tmp_path / "deploy.yaml"
    deployment.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: gpu}\nspec:\n  replicas: 1\n"
        "  selector: {matchLabels: {app: gpu}}\n  template:\n    metadata: {labels: {app: gpu}}\n    spec:\n"
        "      containers:\n      - name: c\n        image: x:1\n        resources: {limits: {nvidia.com/gpu: 1}}\n"
    )
    code, out, err = _run("check", "-f", str(deployment), "--from", str(cluster))
    assert code == 1, err
    assert out.startswith("0/1 replicas placed")


def test_a_host_network_deployment_needs_its_ports_free(tmp_path: Path) -> None:
    """On the host's network a port's hostPort is its containerPort: NodePorts counts them."""
    taken = "".join(
        f"""
- apiVersion: v1
  kind: Pod
  metadata: {{name: exporter-{n}, namespace: default}}
  spec:
    nodeName: {n}
    hostNetwork: true
    containers:
    - name: c
      image: x:1
      ports: [{{containerPort: 9100, hostPort: 9100, protocol: TCP}}]
  status: {{phase: Running}}
"""
        for n in ("a", "b")
    )
    cluster = _cluster(tmp_path, ["a", "b"], taken)
    deployment = tmp_path / "deploy.yaml"
    deployment.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: metrics}\nspec:\n  replicas: 2\n"
        "  selector: {matchLabels: {app: metrics}}\n  template:\n    metadata: {labels: {app: metrics}}\n"
        "    spec:\n      hostNetwork: true\n      containers:\n      - name: c\n        image: x:1\n"
        "        ports: [{containerPort: 9100}]\n"
    )
    code, out, err = _run("check", "-f", str(deployment), "--from", str(cluster))
    assert code == 1, err
    assert out.startswith("0/2 replicas placed")
    assert "didn't have free ports for the requested pod ports" in out


def test_lowering_a_request_derived_from_a_limit_patches_the_manifest_as_written(tmp_path: Path) -> None:
    """A manifest that sets only limits has no `requests` to add a member to: the suggested patch
    adds the whole map, so that it applies to the file as written (as `kubectl patch --local`)."""
    import json
    import shlex

    import yaml

    from tests.analysis.test_commands import kubectl_patch

    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n"
        "  metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\n"
        "  status: {allocatable: {cpu: '2', memory: 8Gi, pods: '110'}}\n"
    )
    manifest = tmp_path / "web.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n  - name: app\n"
        "    image: nginx:1.27\n    resources:\n      limits: {cpu: '3', memory: 1Gi}\n"
    )
    result = CliRunner().invoke(
        app, ["explain", "-f", str(manifest), "--from", str(cluster), "--complete", "-o", "json"]
    )
    report = json.loads(result.stdout)
    (lower,) = [s for s in report["suggestions"] if s["kind"] == "lowerRequest"]
    words = shlex.split(lower["command"], comments=True)
    patched = kubectl_patch(
        yaml.safe_load(manifest.read_text()), words[words.index("--type") + 1], words[words.index("-p") + 1]
    )
    resources = patched["spec"]["containers"][0]["resources"]
    assert resources == {"limits": {"cpu": "3", "memory": "1Gi"}, "requests": {"cpu": "2000m", "memory": "1Gi"}}


@pytest.mark.parametrize(("version", "placed"), [("1.33", "1/1 replicas placed"), ("1.35", "0/1 replicas placed")])
def test_pod_level_resources_of_replicas_follow_the_release(tmp_path: Path, version: str, placed: str) -> None:
    """With PodLevelResources off (v1.33) the API server drops pod-level resources from the pods a
    controller creates, before validating admission and the scheduler see them."""
    cluster = _cluster(tmp_path, ["a"], "")
    deployment = tmp_path / "deploy.yaml"
    deployment.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: big}\nspec:\n  replicas: 1\n"
        "  selector: {matchLabels: {app: big}}\n  template:\n    metadata: {labels: {app: big}}\n    spec:\n"
        "      resources: {requests: {cpu: '16'}}\n"
        "      containers:\n      - name: c\n        image: x:1\n"
        "        resources: {requests: {cpu: 100m, memory: 1Mi}}\n"
    )
    code, out, err = _run("check", "-f", str(deployment), "--from", str(cluster), "--kube-version", version)
    assert out.startswith(placed), err
    assert code == (0 if version == "1.33" else 1)
