"""The PodTopologyLabels admission plugin (cluster/apiserver/admission/podtopologylabels.py), after upstream's
plugin/pkg/admission/podtopologylabels/admission_test.go (TestPodTopology: its cases as data, for a
Binding and for a Pod created with spec.nodeName), the gate's default per release
(pkg/features/kube_features.go: PodTopologyLabelsAdmission alpha in v1.33, beta and on in v1.35),
and `check` binding replicas with their node's zone and region."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from podwhy.cluster.apiserver.admission.podtopologylabels import copy_topology_labels
from podwhy.features.emulation import EMULATED, V1_34, V1_35
from podwhy.model import objects as o

ZONE, REGION = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"

# TestPodTopology: (name, the node's labels, the pod's labels before, after, the gate off)
CASES: list[tuple[str, dict[str, str], dict[str, str], dict[str, str], bool]] = [
    (
        "copies topology.kubernetes.io/zone and region labels to binding labels",
        {
            ZONE: "zone1",
            REGION: "region1",
            "topology.kubernetes.io/arbitrary": "x",
            "non-topology.kubernetes.io/label": "x",
        },
        {},
        {ZONE: "zone1", REGION: "region1"},
        False,
    ),
    (
        "does not copy arbitrary topology labels",
        {ZONE: "zone1", "topology.kubernetes.io/arbitrary": "something"},
        {},
        {ZONE: "zone1"},
        False,
    ),
    (
        "does not copy topology labels that use a subdomain",
        {REGION: "region1", "sub.topology.kubernetes.io/zone": "value"},
        {},
        {REGION: "region1"},
        False,
    ),
    ("does not copy label keys that don't contain a / character", {"topology.kubernetes.io": "value"}, {}, {}, False),
    ("overwrites existing topology labels", {ZONE: "newValue"}, {ZONE: "oldValue"}, {ZONE: "newValue"}, False),
    (
        "does nothing if the SetPodTopologyLabels feature gate is disabled",
        {ZONE: "zone1", REGION: "region1"},
        {},
        {},
        True,
    ),
]


@pytest.mark.parametrize(("name", "node_labels", "before", "after", "off"), CASES, ids=[c[0] for c in CASES])
def test_pod_topology(
    name: str, node_labels: dict[str, str], before: dict[str, str], after: dict[str, str], off: bool
) -> None:
    node = o.Node(metadata=o.ObjectMeta(name="valid-test-node", labels=node_labels))
    pod = o.Pod(metadata=o.ObjectMeta(name="testPod", namespace="test-ns", labels=dict(before)))
    copy_topology_labels(pod, node, V1_34 if off else V1_35)
    assert pod.metadata.labels == after


def test_a_node_not_found_adds_nothing() -> None:
    pod = o.Pod(metadata=o.ObjectMeta(name="p", labels={"app": "x"}))
    assert copy_topology_labels(pod, None, V1_35) == {} and pod.metadata.labels == {"app": "x"}


@pytest.mark.parametrize(("minor", "on"), [(33, False), (34, False), (35, True), (36, True)])
def test_the_gate_per_release(minor: int, on: bool) -> None:
    """kube_features.go: {1.33: alpha, off}, {1.35: beta, on}."""
    node = o.Node(metadata=o.ObjectMeta(name="n", labels={ZONE: "a"}))
    pod = o.Pod(metadata=o.ObjectMeta(name="p"))
    assert copy_topology_labels(pod, node, EMULATED[minor]) == ({ZONE: "a"} if on else {})


CLUSTER = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
    labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: eu-1a, topology.kubernetes.io/region: eu-1}
  status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: x}]}
"""


@pytest.mark.parametrize("version", ["1.34", "1.35"])
def test_check_binds_replicas_with_their_nodes_topology(tmp_path: Path, version: str) -> None:
    """The replica check places gets n1's zone and region from v1.35 on (its pod is what a later
    replica's spreading or affinity counts)."""
    from podwhy.cluster.check import place
    from podwhy.cluster.manifests import ManifestSource
    from podwhy.features.emulation import EMULATED as RELEASES
    from podwhy.scheduler.config import default_config
    from podwhy.snapshot.source import FileSource

    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "d.yaml").write_text(DEPLOYMENT)
    emulation = RELEASES[int(version.split(".")[1])]
    snapshot = FileSource([str(tmp_path / "cluster.yaml")], complete=True).load()
    workloads = ManifestSource([str(tmp_path / "d.yaml")]).load_into(snapshot, emulation)
    (replica,) = place(snapshot, workloads, default_config(emulation))[0].replicas
    assert replica.node == "n1"
    copied = {ZONE: "eu-1a", REGION: "eu-1"} if version == "1.35" else {}
    assert replica.pod.metadata.labels == {**replica.pod.metadata.labels, **copied}
    assert (ZONE in replica.pod.metadata.labels) is (version == "1.35")


def test_a_pod_created_bound_gets_its_nodes_topology(tmp_path: Path) -> None:
    """admitPod: a Pod manifest with spec.nodeName."""
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "x"}]},
    }
    (tmp_path / "p.yaml").write_text(json.dumps(pod))
    from podwhy.cluster.manifests import read_pod_manifest
    from podwhy.features.emulation import V1_35 as RELEASE
    from podwhy.snapshot.source import FileSource

    snapshot = FileSource([str(tmp_path / "cluster.yaml")], complete=True).load()
    admitted = read_pod_manifest(tmp_path / "p.yaml", "default").admit(snapshot, "default", RELEASE)
    assert admitted.metadata.labels == {ZONE: "eu-1a", REGION: "eu-1"}
    assert msgspec.json.encode(admitted)  # still a valid pod
