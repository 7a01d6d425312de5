"""What a large snapshot repeats, held once (issue 39: memory per pod).

A dump of an AI fleet holds 390,000 pods whose tolerations, containers, labels and owners repeat a
few hundred distinct values millions of times; the decoder makes new objects for each. Right after
each Pod or Node is decoded, Compactor gives it the one equal value it has seen first:

- strings (tolerations, conditions, labels, owners, images...): immutable, equal, the same hash;
- lists, maps and records a fleet repeats whole (tolerations, containers, owners, labels,
  annotations, the node selector, affinity, security context; a node's taints, allocatable,
  capacity and images), and every empty list and map: the shared lists and maps are
  model.shared's, which refuse any change in place, so no pod can change another's.

Only equal values are shared (equal JSON encodings, or equal keys and values in the same order):
every object encodes byte for byte as decoded. Timestamps and per-pod values (names, uids,
conditions, container statuses, volumes, whose token volume's name is each pod's own) are left
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
    """Values seen, by key; cleared when full of values seen once (so it stays bounded)."""

    __slots__ = ("found", "hits")

    def __init__(self) -> None:
        self.found: dict[Hashable, Any] = {}
        self.hits = 0

    def one(self, key: Hashable, value: T, first: Callable[[T], T]) -> T:
        """The value seen first with KEY; else VALUE made shareable by FIRST, remembered."""
        found = self.found.get(key)
        if found is not None:
            self.hits += 1
            return found  # type: ignore[no-any-return]
        value = first(value)
        if len(self.found) >= LIMIT:
            if self.hits * 2 < len(self.found):
                self.found.clear()
            self.hits = 0
        self.found[key] = value
        return value


def _map_key(mapping: dict[str, str]) -> Hashable:
    """Equal for two maps of strings only when their keys and values are equal, in the same order."""
    return (*mapping.keys(), *mapping.values())


class Compactor:
    """The values one input's pods and nodes repeat, held once."""

    def __init__(self) -> None:
        self._strings: dict[str, str] = {}
        self._tables: dict[str, _Table] = {}

    def __len__(self) -> int:
        return len(self._strings)

    def compact(self, kind: str, obj: Any) -> None:
        if kind == "Pod":
            self.pod(obj)
        elif kind == "Node":
            self.node(obj)

    def _table(self, name: str) -> _Table:
        table = self._tables.get(name)
        if table is None:
            table = self._tables[name] = _Table()
        return table

    def _list(self, name: str, items: list[T], first: Callable[[list[T]], None]) -> list[T]:
        """ITEMS, or the equal list seen first (shared); FIRST holds the strings of a new one once."""
        if not items:
            return EMPTY_LIST if type(items) is list else items

        def shareable(value: list[T]) -> list[T]:
            first(value)
            return SharedList(value)

        return self._table(name).one(_encode(items), items, shareable)

    def _strings_map(self, name: str, mapping: dict[str, str], values: bool = True) -> dict[str, str]:
        """MAPPING of strings, or the equal map seen first (shared); its strings held once."""
        if not mapping:
            return EMPTY_DICT if type(mapping) is dict else mapping
        one = self._strings.setdefault

        def shareable(value: dict[str, str]) -> dict[str, str]:
            if values:
                return SharedDict({one(k, k): one(v, v) for k, v in value.items()})
            return SharedDict({one(k, k): v for k, v in value.items()})

        return self._table(name).one(_map_key(mapping), mapping, shareable)

    def _record(self, name: str, record: T, shareable: Callable[[T], T]) -> T:
        """RECORD, or the equal one seen first (shared); SHAREABLE makes a new one so, once."""
        return self._table(name).one(_encode(record), record, shareable)

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
        spec.node_selector = self._strings_map("nodeSelector", spec.node_selector)
        spec.tolerations = self._list("tolerations", spec.tolerations, self._tolerations)
        spec.containers = self._list("containers", spec.containers, self._containers)
        spec.init_containers = self._list("initContainers", spec.init_containers, self._containers)
        if spec.affinity is not None:
            spec.affinity = self._record("affinity", spec.affinity, self._affinity)
        if spec.security_context is not None:
            spec.security_context = self._record("securityContext", spec.security_context, _as_it_is)
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
        for container_status in status.container_statuses:
            container_status.name = one(container_status.name, container_status.name)
            container_status.image = one(container_status.image, container_status.image)
        _empties(status, _EMPTY_FIELDS[o.PodStatus])

    def _tolerations(self, tolerations: list[o.Toleration]) -> None:
        one = self._strings.setdefault
        for toleration in tolerations:
            toleration.key = one(toleration.key, toleration.key)
            toleration.operator = one(toleration.operator, toleration.operator)
            toleration.value = one(toleration.value, toleration.value)
            toleration.effect = one(toleration.effect, toleration.effect)

    def _containers(self, containers: list[o.Container]) -> None:
        one = self._strings.setdefault
        for container in containers:
            container.name = one(container.name, container.name)
            container.image = one(container.image, container.image)
            resources = container.resources
            _values(one, resources.requests)
            _values(one, resources.limits)
            _empties(resources, _EMPTY_REQUIREMENTS)
            _empties(container, _EMPTY_FIELDS[o.Container])

    def _affinity(self, affinity: o.Affinity) -> o.Affinity:
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
        node.spec.taints = self._list("taints", node.spec.taints, self._taints)
        status = node.status
        if status.allocatable:
            status.allocatable = self._record("allocatable", status.allocatable, self._quantities)
        if status.capacity:
            status.capacity = self._record("capacity", status.capacity, self._quantities)
        status.images = self._list("images", status.images, self._images)
        status.conditions = self._list("nodeConditions", status.conditions, self._node_conditions)
        info = status.node_info
        if info is not None:
            info.kubelet_version = one(info.kubelet_version, info.kubelet_version)
            info.operating_system = one(info.operating_system, info.operating_system)

    def _taints(self, taints: list[o.Taint]) -> None:
        one = self._strings.setdefault
        for taint in taints:
            taint.key = one(taint.key, taint.key)
            taint.value = one(taint.value, taint.value)
            taint.effect = one(taint.effect, taint.effect)

    def _quantities(self, quantities: dict[str, Any]) -> dict[str, Any]:
        _values(self._strings.setdefault, quantities)
        return SharedDict(quantities)

    def _node_conditions(self, conditions: list[o.NodeCondition]) -> None:
        one = self._strings.setdefault
        for condition in conditions:
            condition.type = one(condition.type, condition.type)
            condition.status = one(condition.status, condition.status)
            condition.reason = one(condition.reason, condition.reason)
            condition.message = one(condition.message, condition.message)

    def _images(self, images: list[o.ContainerImage]) -> None:
        one = self._strings.setdefault
        for image in images:
            image.names = [one(name, name) for name in image.names]

    # ------------------------------------------------------------------ both

    def _meta(self, meta: o.ObjectMeta) -> None:
        one = self._strings.setdefault
        meta.namespace = one(meta.namespace, meta.namespace)
        meta.labels = self._strings_map("labels", meta.labels)
        meta.annotations = self._strings_map("annotations", meta.annotations, values=False)
        meta.owner_references = self._list("ownerReferences", meta.owner_references, self._owners)

    def _owners(self, owners: list[o.OwnerReference]) -> None:
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
