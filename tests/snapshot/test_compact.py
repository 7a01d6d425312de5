"""What a snapshot repeats held once (snapshot/compact.py): the objects read and encode the same,
and the repeated strings, lists, maps and records of pods and nodes are one object each."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from podwhy.model import objects as o
from podwhy.model import shared
from podwhy.model.shared import SharedDict, SharedList
from podwhy.snapshot import compact
from podwhy.snapshot.decode import decode


def _pod(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"train-{i}",
            "namespace": "llm",
            "labels": {"job-name": "train", "batch.kubernetes.io/job-completion-index": str(i)},
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "train", "uid": "u-1"}],
        },
        "spec": {
            "nodeName": f"gpu-{i % 2}",
            "schedulerName": "default-scheduler",
            "priorityClassName": "high",
            "preemptionPolicy": "PreemptLowerPriority",
            "nodeSelector": {"cloud.google.com/gke-nodepool": "a3-pool-00"},
            "tolerations": [
                {
                    "key": "node.kubernetes.io/not-ready",
                    "operator": "Exists",
                    "effect": "NoExecute",
                    "tolerationSeconds": 300,
                },
                {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
            ],
            "volumes": [{"name": "kube-api-access", "emptyDir": {}}],
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "gpu", "operator": "In", "values": ["h100"]}]}
                        ]
                    }
                }
            },
            "containers": [
                {"name": "trainer", "image": "trainer:1", "resources": {"requests": {"nvidia.com/gpu": "8"}}}
            ],
        },
        "status": {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True"}, {"type": "PodScheduled", "status": "True"}],
            "containerStatuses": [
                {
                    "name": "trainer",
                    "image": "trainer:1",
                    "ready": True,
                    "restartCount": i,
                    "state": {"running": {"startedAt": f"2026-01-01T00:00:0{i}Z"}},
                    "resources": {"requests": {"nvidia.com/gpu": "8"}, "limits": {"nvidia.com/gpu": "8"}},
                    "allocatedResources": {"nvidia.com/gpu": "8"},
                }
            ],
        },
    }


def _node(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": f"gpu-{i}", "labels": {"cloud.google.com/gke-nodepool": "a3-pool-00"}},
        "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
        "status": {
            "allocatable": {"nvidia.com/gpu": "8", "cpu": "207", "pods": 110},
            "images": [{"names": ["trainer:1"], "sizeBytes": 1}],
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ready"}],
            "nodeInfo": {"kubeletVersion": "v1.35.0", "operatingSystem": "linux"},
        },
    }


_DUMP = json.dumps({"apiVersion": "v1", "kind": "List", "items": [_node(0), _node(1), *map(_pod, range(4))]}).encode()


def _read(on: bool, monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Any]]:
    if not on:
        monkeypatch.setattr(compact.Compactor, "compact", lambda *_: None)
    objects = decode(_DUMP, "dump.json").objects
    monkeypatch.undo()
    return objects


def test_objects_read_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    held_once, as_decoded = _read(True, monkeypatch), _read(False, monkeypatch)
    for kind in ("Pod", "Node"):
        assert msgspec.json.encode(held_once[kind]) == msgspec.json.encode(as_decoded[kind])


# The repeated strings of two pods (and two nodes): a path through the object to each.
POD_STRINGS = [
    lambda p: p.metadata.namespace,
    lambda p: p.metadata.labels["job-name"],
    lambda p: p.metadata.owner_references[0].uid,
    lambda p: p.spec.scheduler_name,
    lambda p: p.spec.priority_class_name,
    lambda p: p.spec.preemption_policy,
    lambda p: p.spec.node_selector["cloud.google.com/gke-nodepool"],
    lambda p: p.spec.tolerations[0].key,
    lambda p: p.spec.tolerations[1].value,
    lambda p: p.spec.tolerations[1].effect,
    lambda p: p.spec.containers[0].image,
    lambda p: p.spec.containers[0].resources.requests["nvidia.com/gpu"],
    lambda p: p.status.phase,
    lambda p: p.status.conditions[0].type,
    lambda p: p.status.conditions[0].status,
    lambda p: p.status.container_statuses[0].image,
    lambda p: next(iter(p.metadata.labels)),  # a label's key
    lambda p: p.spec.volumes[0].name,
    lambda p: (
        p.spec.affinity.node_affinity.required_during_scheduling_ignored_during_execution.node_selector_terms[0]
        .match_expressions[0]
        .values[0]
    ),
]
NODE_STRINGS = [
    lambda n: n.metadata.labels["cloud.google.com/gke-nodepool"],
    lambda n: n.spec.taints[0].key,
    lambda n: n.status.allocatable["cpu"],
    lambda n: n.status.images[0].names[0],
    lambda n: n.status.conditions[0].reason,
    lambda n: n.status.conditions[0].message,
    lambda n: n.status.node_info.kubelet_version,
]


def test_repeated_strings_are_one_object(monkeypatch: pytest.MonkeyPatch) -> None:
    objects = _read(True, monkeypatch)
    pods, nodes = objects["Pod"], objects["Node"]
    for path in POD_STRINGS:
        assert path(pods[0]) is path(pods[3])
    for path in NODE_STRINGS:
        assert path(nodes[0]) is path(nodes[1])
    assert pods[0].spec.node_name is pods[2].spec.node_name
    assert nodes[0].status.allocatable["pods"] == 110  # an integer stays an integer


def test_manifests_are_left_as_decoded() -> None:
    """Manifests (`-f`) are few, and their text is kept: nothing is replaced."""
    manifests = decode(_DUMP, "dump.json", manifests=True).objects["Pod"]
    assert manifests[0].spec.scheduler_name is not manifests[1].spec.scheduler_name


# The values two pods (and two nodes) repeat whole: shared, and refusing any change in place.
POD_VALUES = [
    lambda p: p.spec.tolerations,
    lambda p: p.spec.containers,
    lambda p: p.spec.node_selector,
    lambda p: p.spec.affinity,
    lambda p: p.metadata.owner_references,
    lambda p: p.status.container_statuses[0].resources,
    lambda p: p.status.container_statuses[0].resources.requests,
    lambda p: p.status.container_statuses[0].allocated_resources,
]
NODE_VALUES = [
    lambda n: n.spec.taints,
    lambda n: n.status.allocatable,
    lambda n: n.status.images,
    lambda n: n.status.conditions,
]


def test_repeated_values_are_one_object(monkeypatch: pytest.MonkeyPatch) -> None:
    objects = _read(True, monkeypatch)
    pods, nodes = objects["Pod"], objects["Node"]
    for path in POD_VALUES:
        assert path(pods[0]) is path(pods[3])
    for path in NODE_VALUES:
        assert path(nodes[0]) is path(nodes[1])
    for value in [path(pods[0]) for path in POD_VALUES] + [path(nodes[0]) for path in NODE_VALUES]:
        assert isinstance(value, (SharedList, SharedDict, o.Affinity, o.ContainerStatusResources)), value
    # Values that differ are each a pod's own: the labels (a completion index), the volumes.
    assert pods[0].metadata.labels is not pods[3].metadata.labels
    assert pods[0].metadata.labels == {"job-name": "train", "batch.kubernetes.io/job-completion-index": "0"}
    assert pods[0].spec.volumes is not pods[3].spec.volumes


def test_a_shared_value_refuses_a_change_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    pods = _read(True, monkeypatch)["Pod"]
    with pytest.raises(TypeError, match="changed in place"):
        pods[0].spec.tolerations.append(o.Toleration(key="k"))
    with pytest.raises(TypeError, match="changed in place"):
        pods[0].spec.node_selector["k"] = "v"
    assert len(pods[3].spec.tolerations) == 2 and "k" not in pods[3].spec.node_selector
    with pytest.raises(TypeError, match="changed in place"):
        pods[0].status.container_statuses[0].resources.requests["cpu"] = "1"
    with pytest.raises(TypeError, match="changed in place"):
        pods[0].status.container_statuses[0].allocated_resources["cpu"] = "1"
    pods[0].spec.tolerations = [*pods[0].spec.tolerations, o.Toleration(key="k")]  # a copy: its own
    assert len(pods[3].spec.tolerations) == 2


def test_empty_lists_and_maps_are_the_shared_empty_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    pod = _read(True, monkeypatch)["Pod"][0]
    for value in (
        pod.metadata.annotations,
        pod.spec.init_containers,
        pod.spec.overhead,
        pod.spec.topology_spread_constraints,
        pod.spec.scheduling_gates,
        pod.spec.resource_claims,
        pod.status.init_container_statuses,
        pod.spec.containers[0].ports,
        pod.spec.containers[0].resources.limits,
    ):
        assert value is shared.EMPTY_LIST or value is shared.EMPTY_DICT


def test_a_table_of_values_seen_once_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past LIMIT values, a table that found fewer than half of them again starts over; one that
    did keeps them."""
    monkeypatch.setattr(compact, "LIMIT", 4)
    table = compact._Table(list)
    for i in range(10):
        assert table.one(i, [i]) == [i]
    assert len(table.found) <= 4
    kept = compact._Table(list)
    for i in range(4):
        kept.one(i, [i])
        kept.one(i, [i])
    first = kept.found[0]
    kept.one(99, [99])
    assert kept.found[0] is first and len(kept.found) == 5
