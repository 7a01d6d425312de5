"""The strings a large snapshot repeats, held once (issue 39: memory per pod).

A dump of an AI fleet holds 390,000 pods whose tolerations, conditions, labels and owners repeat
a few hundred distinct strings millions of times; the decoder makes a new string for each (it
shares only short map keys). Right after each Pod or Node is decoded, Strings replaces each of
those fields' strings with the one equal string it has seen first, so the copies are freed while
the next item is decoded. Only strings are replaced (immutable, equal, the same hash): no object
reads differently. The fields are the ones a fleet repeats; every other string is left as decoded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from podwhy.model import objects as o


class Strings:
    """One table of strings for one input."""

    def __init__(self) -> None:
        self._table: dict[str, str] = {}

    def __len__(self) -> int:
        return len(self._table)

    def compact(self, kind: str, obj: Any) -> None:
        if kind == "Pod":
            self.pod(obj)
        elif kind == "Node":
            self.node(obj)

    def pod(self, pod: o.Pod) -> None:
        one = self._table.setdefault
        self._meta(pod.metadata)
        spec = pod.spec
        spec.node_name = one(spec.node_name, spec.node_name)
        spec.scheduler_name = one(spec.scheduler_name, spec.scheduler_name)
        if spec.priority_class_name:
            spec.priority_class_name = one(spec.priority_class_name, spec.priority_class_name)
        if spec.preemption_policy:
            spec.preemption_policy = one(spec.preemption_policy, spec.preemption_policy)
        _values(one, spec.node_selector)
        for toleration in spec.tolerations:
            toleration.key = one(toleration.key, toleration.key)
            toleration.operator = one(toleration.operator, toleration.operator)
            toleration.value = one(toleration.value, toleration.value)
            toleration.effect = one(toleration.effect, toleration.effect)
        for volume in spec.volumes:
            volume.name = one(volume.name, volume.name)
        affinity = spec.affinity.node_affinity if spec.affinity is not None else None
        if affinity is not None and affinity.required_during_scheduling_ignored_during_execution is not None:
            for term in affinity.required_during_scheduling_ignored_during_execution.node_selector_terms:
                _requirements(one, term.match_expressions)
                _requirements(one, term.match_fields)  # a DaemonSet pod's: its node's name
        for container in spec.containers:
            container.name = one(container.name, container.name)
            container.image = one(container.image, container.image)
            _values(one, container.resources.requests)
            _values(one, container.resources.limits)
        status = pod.status
        status.phase = one(status.phase, status.phase)
        for condition in status.conditions:
            condition.type = one(condition.type, condition.type)
            condition.status = one(condition.status, condition.status)
            condition.reason = one(condition.reason, condition.reason)
            if condition.message:
                condition.message = one(condition.message, condition.message)
        for container_status in status.container_statuses:
            container_status.name = one(container_status.name, container_status.name)
            container_status.image = one(container_status.image, container_status.image)

    def node(self, node: o.Node) -> None:
        one = self._table.setdefault
        self._meta(node.metadata)
        for taint in node.spec.taints:
            taint.key = one(taint.key, taint.key)
            taint.value = one(taint.value, taint.value)
            taint.effect = one(taint.effect, taint.effect)
        status = node.status
        _values(one, status.allocatable)
        _values(one, status.capacity)
        for image in status.images:
            image.names = [one(name, name) for name in image.names]
        for condition in status.conditions:
            condition.type = one(condition.type, condition.type)
            condition.status = one(condition.status, condition.status)
            condition.reason = one(condition.reason, condition.reason)
            condition.message = one(condition.message, condition.message)
        info = status.node_info
        if info is not None:
            info.kubelet_version = one(info.kubelet_version, info.kubelet_version)
            info.operating_system = one(info.operating_system, info.operating_system)

    def _meta(self, meta: o.ObjectMeta) -> None:
        one = self._table.setdefault
        meta.namespace = one(meta.namespace, meta.namespace)
        if meta.labels:
            meta.labels = {one(key, key): one(value, value) for key, value in meta.labels.items()}
        if meta.annotations:
            meta.annotations = {one(key, key): value for key, value in meta.annotations.items()}
        for owner in meta.owner_references:
            owner.kind = one(owner.kind, owner.kind)
            owner.api_version = one(owner.api_version, owner.api_version)
            owner.name = one(owner.name, owner.name)
            owner.uid = one(owner.uid, owner.uid)


def _values(one: Callable[[str, str], str], mapping: dict[str, Any]) -> None:
    """MAPPING's string values held once (in place: its keys, short, the decoder shares already)."""
    for key, value in mapping.items():
        if type(value) is str:
            mapping[key] = one(value, value)


def _requirements(one: Callable[[str, str], str], requirements: list[o.NodeSelectorRequirement]) -> None:
    for requirement in requirements:
        requirement.key = one(requirement.key, requirement.key)
        requirement.operator = one(requirement.operator, requirement.operator)
        requirement.values = [one(value, value) for value in requirement.values]
