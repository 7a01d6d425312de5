"""What a large snapshot repeats, held once (issue 39: memory per pod).

A dump of an AI fleet holds 390,000 pods whose tolerations, containers, labels and owners repeat a
few hundred distinct values millions of times; the decoder makes new objects for each. Right after
each Pod or Node is decoded, Compactor gives it the one equal value it has seen first:

- strings (tolerations, conditions, labels, owners, images...): immutable, equal, the same hash;
- lists, maps and records a fleet repeats whole (tolerations, containers, owners, labels,
  annotations, the node selector, affinity, security context, the resources a container's
  status reports; a node's taints, allocatable, capacity and images), and every empty list and
  map: the shared lists and maps are model.shared's, which refuse any change in place, so no pod
  can change another's.

Only equal values are shared (equal JSON encodings, or equal keys and values in the same order):
every object encodes byte for byte as decoded. Timestamps and per-pod values (names, uids,
conditions, container states, volumes, whose token volume's name is each pod's own) are left
as decoded. A table of values keeps at most LIMIT of them while fewer than half are seen again.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import msgspec

from podwhy.model import objects as o
from podwhy.model.shared import EMPTY_DICT, EMPTY_LIST, SharedDict, SharedList

T = TypeVar("T")

# Past this many values, a table that found fewer than half of them again starts over.
LIMIT = 1 << 17

_encode = msgspec.json.Encoder().encode


def _empty_fields(cls: type[msgspec.Struct]) -> tuple[str, ...]:
    """CLS's fields whose default is an empty list or map."""
    return tuple(
        f.name for f in msgspec.structs.fields(cls) if f.default_factory in (list, dict) or f.default in ([], {})
    )


_EMPTY_FIELDS = {cls: _empty_fields(cls) for cls in (o.ObjectMeta, o.PodSpec, o.PodStatus, o.Container)}
_EMPTY_REQUIREMENTS = _empty_fields(o.ResourceRequirements)


def _empties(obj: msgspec.Struct, names: tuple[str, ...]) -> None:
    """OBJ's empty lists and maps (NAMES) replaced by the shared empty ones."""
    for name in names:
        value = getattr(obj, name)
        if not value:
            kind = type(value)
            if kind is list:
                setattr(obj, name, EMPTY_LIST)
            elif kind is dict:
                setattr(obj, name, EMPTY_DICT)


class _Table:
    """Values seen, by key; cleared when full of values seen once (so it stays bounded). MAKE
    makes a value seen for the first time shareable (its strings held once, a shared list...)."""

    __slots__ = ("found", "hits", "make")

    def __init__(self, make: Callable[[Any], Any]) -> None:
        self.found: dict[Hashable, Any] = {}
        self.hits = 0
        self.make = make

    def one(self, key: Hashable, value: T) -> T:
        """The value seen first with KEY; else VALUE made shareable, remembered."""
        found = self.found.get(key)
        if found is not None:
            self.hits += 1
            return found  # type: ignore[no-any-return]
        value = self.make(value)
        if len(self.found) >= LIMIT:
            if self.hits * 2 < len(self.found):
                self.found.clear()
            self.hits = 0
        self.found[key] = value
        return value


def _map_key(mapping: dict[str, str]) -> Hashable:
    """Equal for two maps of strings only when their keys and values are equal, in the same order."""
    return (*mapping.keys(), *mapping.values())


def _shared_list(first: Callable[[list[T]], None]) -> Callable[[list[T]], list[T]]:
    """A new list's maker: FIRST holds its strings once, then it is shared."""

    def make(items: list[T]) -> list[T]:
        first(items)
        return SharedList(items)

    return make


class Compactor:
    """The values one input's pods and nodes repeat, held once."""

    def __init__(self) -> None:
        self._strings: dict[str, str] = {}
        one = self._strings.setdefault
        self._labels = _Table(lambda labels: SharedDict({one(k, k): one(v, v) for k, v in labels.items()}))
        self._annotations = _Table(lambda annotations: SharedDict({one(k, k): v for k, v in annotations.items()}))
        self._node_selectors = _Table(lambda selector: SharedDict({one(k, k): one(v, v) for k, v in selector.items()}))
        self._owners = _Table(_shared_list(self._owner_strings))
        self._tolerations = _Table(_shared_list(self._toleration_strings))
        self._containers = _Table(_shared_list(self._container_strings))
        self._affinities = _Table(self._affinity_strings)
        self._security_contexts = _Table(_as_it_is)
        self._taints = _Table(_shared_list(self._taint_strings))
        self._quantities = _Table(self._quantity_strings)
        self._status_resources = _Table(self._status_resources_strings)
        self._images = _Table(_shared_list(self._image_strings))
        self._node_conditions = _Table(_shared_list(self._node_condition_strings))

    def __len__(self) -> int:
        return len(self._strings)

    def compact(self, kind: str, obj: Any) -> None:
        if kind == "Pod":
            self.pod(obj)
        elif kind == "Node":
            self.node(obj)

    # ------------------------------------------------------------------ pods

    def pod(self, pod: o.Pod) -> None:
        one = self._strings.setdefault
        self._meta(pod.metadata)
        spec = pod.spec
        spec.node_name = one(spec.node_name, spec.node_name)
        spec.scheduler_name = one(spec.scheduler_name, spec.scheduler_name)
        if spec.priority_class_name:
            spec.priority_class_name = one(spec.priority_class_name, spec.priority_class_name)
        if spec.preemption_policy:
            spec.preemption_policy = one(spec.preemption_policy, spec.preemption_policy)
        if spec.node_selector:
            spec.node_selector = self._node_selectors.one(_map_key(spec.node_selector), spec.node_selector)
        if spec.tolerations:
            spec.tolerations = self._tolerations.one(_encode(spec.tolerations), spec.tolerations)
        if spec.containers:
            spec.containers = self._containers.one(_encode(spec.containers), spec.containers)
        if spec.init_containers:
            spec.init_containers = self._containers.one(_encode(spec.init_containers), spec.init_containers)
        if spec.affinity is not None:
            spec.affinity = self._affinities.one(_encode(spec.affinity), spec.affinity)
        if spec.security_context is not None:
            spec.security_context = self._security_contexts.one(_encode(spec.security_context), spec.security_context)
        for volume in spec.volumes:
            volume.name = one(volume.name, volume.name)
        _empties(spec, _EMPTY_FIELDS[o.PodSpec])
        status = pod.status
        status.phase = one(status.phase, status.phase)
        for condition in status.conditions:
            condition.type = one(condition.type, condition.type)
            condition.status = one(condition.status, condition.status)
            condition.reason = one(condition.reason, condition.reason)
            if condition.message:
                condition.message = one(condition.message, condition.message)
        for statuses in (status.container_statuses, status.init_container_statuses):
            for container_status in statuses:
                container_status.name = one(container_status.name, container_status.name)
                container_status.image = one(container_status.image, container_status.image)
                # What the kubelet reports of a container's resources (since in-place resize): its
                # pod template's, on every pod of it.
                reported = container_status.resources
                if reported is not None:
                    container_status.resources = self._status_resources.one(_encode(reported), reported)
                allocated = container_status.allocated_resources
                if allocated:
                    container_status.allocated_resources = self._quantities.one(_encode(allocated), allocated)
        _empties(status, _EMPTY_FIELDS[o.PodStatus])

    def _toleration_strings(self, tolerations: list[o.Toleration]) -> None:
        one = self._strings.setdefault
        for toleration in tolerations:
            toleration.key = one(toleration.key, toleration.key)
            toleration.operator = one(toleration.operator, toleration.operator)
            toleration.value = one(toleration.value, toleration.value)
            toleration.effect = one(toleration.effect, toleration.effect)

    def _container_strings(self, containers: list[o.Container]) -> None:
        one = self._strings.setdefault
        for container in containers:
            container.name = one(container.name, container.name)
            container.image = one(container.image, container.image)
            resources = container.resources
            _values(one, resources.requests)
            _values(one, resources.limits)
            _empties(resources, _EMPTY_REQUIREMENTS)
            _empties(container, _EMPTY_FIELDS[o.Container])

    def _status_resources_strings(self, reported: o.ContainerStatusResources) -> o.ContainerStatusResources:
        reported.requests = self._quantity_strings(reported.requests) if reported.requests else EMPTY_DICT
        reported.limits = self._quantity_strings(reported.limits) if reported.limits else EMPTY_DICT
        return reported

    def _affinity_strings(self, affinity: o.Affinity) -> o.Affinity:
        one = self._strings.setdefault
        node_affinity = affinity.node_affinity
        if node_affinity is not None and node_affinity.required_during_scheduling_ignored_during_execution is not None:
            for term in node_affinity.required_during_scheduling_ignored_during_execution.node_selector_terms:
                _requirements(one, term.match_expressions)
                _requirements(one, term.match_fields)  # a DaemonSet pod's: its node's name
        return affinity

    # ------------------------------------------------------------------ nodes

    def node(self, node: o.Node) -> None:
        one = self._strings.setdefault
        self._meta(node.metadata)
        spec, status = node.spec, node.status
        spec.taints = self._taints.one(_encode(spec.taints), spec.taints) if spec.taints else EMPTY_LIST
        if status.allocatable:
            status.allocatable = self._quantities.one(_encode(status.allocatable), status.allocatable)
        if status.capacity:
            status.capacity = self._quantities.one(_encode(status.capacity), status.capacity)
        if status.images:
            status.images = self._images.one(_encode(status.images), status.images)
        if status.conditions:
            status.conditions = self._node_conditions.one(_encode(status.conditions), status.conditions)
        info = status.node_info
        if info is not None:
            info.kubelet_version = one(info.kubelet_version, info.kubelet_version)
            info.operating_system = one(info.operating_system, info.operating_system)

    def _taint_strings(self, taints: list[o.Taint]) -> None:
        one = self._strings.setdefault
        for taint in taints:
            taint.key = one(taint.key, taint.key)
            taint.value = one(taint.value, taint.value)
            taint.effect = one(taint.effect, taint.effect)

    def _quantity_strings(self, quantities: dict[str, Any]) -> dict[str, Any]:
        _values(self._strings.setdefault, quantities)
        return SharedDict(quantities)

    def _node_condition_strings(self, conditions: list[o.NodeCondition]) -> None:
        one = self._strings.setdefault
        for condition in conditions:
            condition.type = one(condition.type, condition.type)
            condition.status = one(condition.status, condition.status)
            condition.reason = one(condition.reason, condition.reason)
            condition.message = one(condition.message, condition.message)

    def _image_strings(self, images: list[o.ContainerImage]) -> None:
        one = self._strings.setdefault
        for image in images:
            image.names = [one(name, name) for name in image.names]

    # ------------------------------------------------------------------ both

    def _meta(self, meta: o.ObjectMeta) -> None:
        """The namespace, labels, annotations and owners: held once. Its empty maps and lists
        are the shared ones (_empties)."""
        meta.namespace = self._strings.setdefault(meta.namespace, meta.namespace)
        if meta.labels:
            meta.labels = self._labels.one(_map_key(meta.labels), meta.labels)
        if meta.annotations:
            meta.annotations = self._annotations.one(_map_key(meta.annotations), meta.annotations)
        if meta.owner_references:
            meta.owner_references = self._owners.one(_encode(meta.owner_references), meta.owner_references)
        _empties(meta, _EMPTY_FIELDS[o.ObjectMeta])

    def _owner_strings(self, owners: list[o.OwnerReference]) -> None:
        one = self._strings.setdefault
        for owner in owners:
            owner.kind = one(owner.kind, owner.kind)
            owner.api_version = one(owner.api_version, owner.api_version)
            owner.name = one(owner.name, owner.name)
            owner.uid = one(owner.uid, owner.uid)


def _as_it_is(value: T) -> T:
    """A record shared as it is: no string of it is held once."""
    return value


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
