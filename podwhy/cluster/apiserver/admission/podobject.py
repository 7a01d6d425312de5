"""The pod as the API server hands it to admission policies and webhooks (admission.Attributes'
object, as JSON): the manifest's pod spec as read, defaulted as the API server defaults a Pod,
with what the mutating admission plugins changed (LimitRanger's resources, Priority's priority
and class, DefaultTolerationSeconds' and RuntimeClass's tolerations, RuntimeClass's overhead and
node selector), the identity the registry gives it before validating admission (name,
namespace, uid) and PrepareForCreate's status (phase Pending, its QoS class)."""

from __future__ import annotations

import copy
from typing import Any

import msgspec

from podwhy.cluster.apiserver.defaults import default_pod_spec
from podwhy.features.emulation import Emulation
from podwhy.features.kubefeatures import POD_LEVEL_RESOURCES
from podwhy.helpers.qos import compute_pod_qos
from podwhy.model import objects as o

Json = dict[str, Any]

CONTAINER_LISTS = ("initContainers", "containers")

# The pod's spec fields the mutating admission plugins set, taken from the admitted typed pod.
_ADMITTED_FIELDS = (
    ("priority", "priority"),
    ("priority_class_name", "priorityClassName"),
    ("preemption_policy", "preemptionPolicy"),
    ("tolerations", "tolerations"),
    ("overhead", "overhead"),
    ("node_selector", "nodeSelector"),
)


def _json(value: object) -> Any:
    return msgspec.to_builtins(value)


def _admitted_spec(spec: Json, pod: o.Pod) -> None:
    """Overlay on SPEC what admission set in POD's spec (a field it left unset stays as read)."""
    for attr, key in _ADMITTED_FIELDS:
        value = getattr(pod.spec, attr)
        if value not in (None, "", [], {}):
            spec[key] = _json(value)
    raw_volumes = spec.get("volumes")
    known = len(raw_volumes) if isinstance(raw_volumes, list) else 0
    if len(pod.spec.volumes) > known:  # a controller's own (a StatefulSet's claims)
        spec["volumes"] = [*(raw_volumes or []), *(_json(v) for v in pod.spec.volumes[known:])]
    typed = {"initContainers": pod.spec.init_containers, "containers": pod.spec.containers}
    for key in CONTAINER_LISTS:
        raw = spec.get(key)
        if not isinstance(raw, list):
            continue
        for entry, container in zip(raw, typed[key], strict=False):
            if isinstance(entry, dict):
                resources = _json(container.resources)
                if resources:
                    entry["resources"] = resources


def pod_object(pod: o.Pod, raw_spec: Json | None, emulation: Emulation) -> Json:
    """POD (admitted by the built-in plugins) as admission policies see it: RAW_SPEC (the spec as
    the manifest wrote it; None: the typed pod's) defaulted and overlaid with admission's
    changes; metadata and status as the registry sets them on create."""
    spec = copy.deepcopy(raw_spec) if raw_spec is not None else _json(pod.spec)
    default_pod_spec(spec, emulation, pod=True)
    _admitted_spec(spec, pod)
    meta = pod.metadata
    metadata: Json = {"name": meta.name, "namespace": meta.namespace}
    if meta.uid:
        metadata["uid"] = meta.uid
    for key, value in (
        ("labels", meta.labels),
        ("annotations", meta.annotations),
        ("ownerReferences", _json(meta.owner_references)),
    ):
        if value:
            metadata[key] = dict(value) if isinstance(value, dict) else value
    qos = compute_pod_qos(pod, emulation.enabled(POD_LEVEL_RESOURCES))
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": spec,
        "status": {"phase": "Pending", "qosClass": qos},
    }
