"""A pod's signature: the parts of it that something reads, encoded, so that pods it cannot tell
apart are found by comparing bytes (as upstream's pod signing names, per plugin, the fragments of
a pod it reads).

Each plugin declares the parts its verdicts and scores read (`Plugin.POD_PARTS`, PLUGIN_PARTS
unless it says less); plugins/registry.py gathers them for each use of a signature:

- replicas placed one after another (cluster/placement.py) reuse the verdicts and raw scores of
  the node-local plugins: their signature takes what those plugins, and the framework, read;
- pods of one owner are the same pod to the scheduler (analysis/pending.py) when no plugin and
  not the framework can tell them apart;
- the framework's own cache of pod requests (types.py) is keyed by REQUESTS, everything
  calculate_pod_resource reads.

A signature compares pods as written, and so as the scheduler schedules them: what the kubelet
reports of a running pod (its containers' statuses) is read only through REQUESTS.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any

import msgspec

from podwhy.model import objects as o


class PodPart(Enum):
    """A part of a pod that a plugin, or the framework, reads."""

    NAMESPACE = "namespace"
    # The pod's name, when objects are named after it (the PVC of a generic ephemeral volume, the
    # claims made from its claim templates) or it names claims: such a pod is like no other.
    OWN_OBJECTS = "own objects"
    LABELS = "labels"
    # The whole spec, but for the names of volumes whose source no plugin reads (the per-pod
    # kube-api-access-xxxxx token volume).
    SPEC = "spec"
    NOMINATED_NODE = "nominated node"
    # What calculate_pod_resource reads: containers, init containers, overhead, pod-level
    # resources, the containers' statuses that report resources (their names, resources and
    # allocated resources) and, with those, a PodResizePending condition's reason.
    REQUESTS = "requests"


# What a plugin may declare it reads; a plugin that declares nothing is taken to read all of it.
PLUGIN_PARTS = frozenset({PodPart.NAMESPACE, PodPart.OWN_OBJECTS, PodPart.LABELS, PodPart.SPEC})
# What the framework reads of every pod, whichever plugins run: the namespace that files what is
# known of the pod beyond its spec (its claims and PVCs, what its admission left unknown), and
# the nominated node it evaluates first.
FRAMEWORK_PARTS = frozenset({PodPart.NAMESPACE, PodPart.NOMINATED_NODE})


def _has_source(volume: o.Volume) -> bool:
    return any(getattr(volume, f) is not None for f in o.SCHEDULER_VOLUME_SOURCES)


def _spec(pod: o.Pod) -> o.PodSpec:
    spec = pod.spec
    if all(_has_source(v) for v in spec.volumes):
        return spec
    volumes = [v if _has_source(v) else msgspec.structs.replace(v, name="") for v in spec.volumes]
    return msgspec.structs.replace(spec, volumes=volumes)


def _own_objects(pod: o.Pod) -> str:
    spec = pod.spec
    if spec.resource_claims or any(v.ephemeral is not None for v in spec.volumes):
        return pod.metadata.name
    return ""


def _read_statuses(statuses: list[o.ContainerStatus], into: list[Any]) -> bool:
    """Of each container's status, what determineEffectiveRequests reads, added to INTO: its name
    (which container it is), and its resources and allocated resources where it reports
    resources; not its state, readiness or restarts, which differ from pod to pod. Whether any
    reports resources."""
    resized = False
    for s in statuses:
        if s.resources is None:
            into.append(s.name)
        else:
            into.append((s.name, s.resources, s.allocated_resources))
            resized = True
    return resized


def _requests(pod: o.Pod) -> tuple[Any, ...]:
    spec, status = pod.spec, pod.status
    statuses: list[Any] = []
    resized = _read_statuses(status.container_statuses, statuses)
    init_statuses: list[Any] = []
    if status.init_container_statuses:
        resized = _read_statuses(status.init_container_statuses, init_statuses) or resized
    return (
        spec.containers,
        spec.init_containers,
        spec.overhead,
        spec.resources,
        statuses,
        init_statuses,
        # Read only beside a status reporting resources (a resize the kubelet finds infeasible).
        [c.reason for c in status.conditions if c.type == "PodResizePending"] if resized else None,
    )


_READERS: dict[PodPart, Callable[[o.Pod], Any]] = {
    PodPart.NAMESPACE: lambda pod: pod.metadata.namespace,
    PodPart.OWN_OBJECTS: _own_objects,
    PodPart.LABELS: lambda pod: pod.metadata.labels,
    PodPart.SPEC: _spec,
    PodPart.NOMINATED_NODE: lambda pod: pod.status.nominated_node_name,
    PodPart.REQUESTS: _requests,
}
_ORDERED: dict[frozenset[PodPart], tuple[Callable[[o.Pod], Any], ...]] = {}
_encode = msgspec.json.Encoder().encode


def pod_signature(pod: o.Pod, parts: frozenset[PodPart]) -> bytes:
    """The parts of the pod, encoded in PodPart's order: two pods with equal signatures for the
    same parts are alike in all of them."""
    readers = _ORDERED.get(parts)
    if readers is None:
        readers = _ORDERED[parts] = tuple(_READERS[part] for part in PodPart if part in parts)
    return _encode(tuple(read(pod) for read in readers))


def requests_signature(pod: o.Pod) -> bytes:
    """pod_signature(pod, {REQUESTS}), read without the walk over parts: the framework keys every
    pod of a snapshot by it (types.cached_pod_resource)."""
    return _encode((_requests(pod),))
