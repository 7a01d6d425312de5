"""PodInfo and NodeInfo: the scheduler's per-pod and per-node view, and the integer Resource vector
they carry (framework/types.go)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Generic, TypeVar, overload

import msgspec

from podwhy.framework.signature import requests_signature
from podwhy.helpers.labelselectors import Selector, SelectorError, label_selector_as_selector
from podwhy.helpers.podresources import Quantities, is_pod_level_requests_set, pod_requests, to_quantities
from podwhy.helpers.resourcenames import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, is_scalar_resource_name
from podwhy.model import objects as o
from podwhy.model.quantity import milli_value, value

DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"

_encode = msgspec.json.Encoder().encode

# schedutil.DefaultMilliCPURequest / DefaultMemoryRequest: stand-ins for missing
# container requests when scoring (the "non-zero" requests).
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024


# ---------------------------------------------------------------------- resources


class Resource(msgspec.Struct):
    """The scheduler's integer resource vector (framework.Resource)."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    allowed_pod_number: int = 0
    scalar_resources: dict[str, int] = msgspec.field(default_factory=dict)

    @classmethod
    def from_quantities(cls, quantities: Quantities) -> Resource:
        res = cls()
        res.add_quantities(quantities)
        return res

    @classmethod
    def from_list(cls, resources: o.ResourceList) -> Resource:
        return cls.from_quantities(to_quantities(resources))

    def add_quantities(self, quantities: Quantities) -> None:
        for name, amount in quantities.items():
            if name == CPU:
                self.milli_cpu += milli_value(amount)
            elif name == MEMORY:
                self.memory += value(amount)
            elif name == PODS:
                self.allowed_pod_number += value(amount)
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage += value(amount)
            elif is_scalar_resource_name(name):
                self.scalar_resources[name] = self.scalar_resources.get(name, 0) + value(amount)

    def add(self, other: Resource, sign: int = 1) -> None:
        self.milli_cpu += sign * other.milli_cpu
        self.memory += sign * other.memory
        self.ephemeral_storage += sign * other.ephemeral_storage
        for name, amount in other.scalar_resources.items():
            self.scalar_resources[name] = self.scalar_resources.get(name, 0) + sign * amount

    def clone(self) -> Resource:
        return Resource(
            self.milli_cpu,
            self.memory,
            self.ephemeral_storage,
            self.allowed_pod_number,
            dict(self.scalar_resources),
        )

    def get(self, name: str) -> int:
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == PODS:
            return self.allowed_pod_number
        return self.scalar_resources.get(name, 0)


class PodResource(msgspec.Struct):
    """framework.PodResource: requests plus the non-zero CPU/memory used for scoring."""

    resource: Resource
    non0_cpu: int
    non0_mem: int
    requests: Quantities


def calculate_pod_resource(pod: o.Pod) -> PodResource:
    requests = pod_requests(pod)
    if is_pod_level_requests_set(pod):
        non_missing: Quantities = {}
        if CPU not in requests:
            non_missing[CPU] = Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000)
        if MEMORY not in requests:
            non_missing[MEMORY] = Fraction(DEFAULT_MEMORY_REQUEST)
    else:
        non_missing = {
            CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000),
            MEMORY: Fraction(DEFAULT_MEMORY_REQUEST),
        }
    non0 = pod_requests(pod, non_missing) if non_missing else requests
    return PodResource(
        resource=Resource.from_quantities(requests),
        non0_cpu=milli_value(non0.get(CPU, Fraction(0))),
        non0_mem=value(non0.get(MEMORY, Fraction(0))),
        requests=requests,
    )


_RESOURCE_CACHE: dict[bytes, PodResource] = {}


def cached_pod_resource(pod: o.Pod) -> PodResource:
    """calculate_pod_resource, memoised by content (everything it reads: the signature's REQUESTS,
    read here without its generic walk, as for every pod of a snapshot). The result is shared:
    never mutate it."""
    return _resource_by_key(requests_signature(pod), pod)


def _resource_by_key(key: bytes, pod: o.Pod) -> PodResource:
    found = _RESOURCE_CACHE.get(key)
    if found is None:
        found = _RESOURCE_CACHE[key] = calculate_pod_resource(pod)
    return found


def _resize_pending(pod: o.Pod, conditions: list[o.PodCondition]) -> o.Pod:
    return msgspec.structs.replace(pod, status=msgspec.structs.replace(pod.status, conditions=conditions))


_INFEASIBLE = [o.PodCondition(type="PodResizePending", status="True", reason="Infeasible")]


def _same(a: PodResource, b: PodResource) -> bool:
    """Equal, their maps in one order too (what reads them in turn reads them alike)."""
    return (
        a == b
        and list(a.requests) == list(b.requests)
        and list(a.resource.scalar_resources) == list(b.resource.scalar_resources)
    )


def resize_blind(pod: o.Pod) -> bool:
    """Whether the pod's requests are the same whatever its PodResizePending condition says: with
    the resize infeasible, determineEffectiveRequests takes of a container whose status reports
    resources only what it runs with and was allocated; otherwise its spec's requests too. Found
    by calculating both."""
    return _same(
        calculate_pod_resource(_resize_pending(pod, _INFEASIBLE)), calculate_pod_resource(_resize_pending(pod, []))
    )


# Whether a pod's PodResizePending condition cannot change its requests (resize_blind), by the
# same key as _RESOURCE_CACHE.
_RESIZE_BLIND: dict[bytes, bool] = {}


def _requests_by_content(pod: o.Pod) -> tuple[PodResource, bool]:
    """cached_pod_resource(pod) and resize_blind(pod), each found once per content."""
    key = requests_signature(pod)
    blind = _RESIZE_BLIND.get(key)
    if blind is None:
        blind = _RESIZE_BLIND[key] = resize_blind(pod)
    return _resource_by_key(key, pod), blind


class Indexing:
    """What indexing many pods and nodes at once (every one a Handle indexes, in the snapshot's
    order) reads of the objects they share, read once per object: a large snapshot's pods share
    their containers lists and the resources their statuses report, its nodes their allocatable
    lists (snapshot/compact.py), so most pods' requests are found by the identity of what
    calculate_pod_resource reads, not by encoding it, and most nodes' allocatable likewise.

    Valid only while nothing the pods and nodes hold changes, as while one index is made: it keeps
    the first pod of each key and each list it keys by identity, so that no object of a key is
    freed and its identity given to another."""

    __slots__ = ("_allocatable_lists", "_allocatables", "_ports", "_requests")

    def __init__(self) -> None:
        # By the identities of what the requests read: a pod with them, and its requests, or None
        # when its PodResizePending condition may change them (then found by content).
        self._requests: dict[tuple[Any, ...], tuple[o.Pod, PodResource | None]] = {}
        # Whether a containers list declares any port, by its identity (with the list).
        self._ports: dict[int, tuple[list[o.Container], bool]] = {}
        # Nodes' allocatable Resources: by the identity of the list (with it), and by its encoding.
        self._allocatable_lists: dict[int, tuple[o.ResourceList, Resource]] = {}
        self._allocatables: dict[bytes, Resource] = {}

    def requests(self, pod: o.Pod) -> PodResource:
        """cached_pod_resource(pod)."""
        spec, status = pod.spec, pod.status
        # Each status adds its name and two identities: a flat tuple, made without a list (one
        # status is the common case).
        key: tuple[Any, ...] = (id(spec.containers), id(spec.init_containers), id(spec.overhead), id(spec.resources))
        for s in status.container_statuses:
            key += (s.name, id(s.resources), id(s.allocated_resources))
        if status.init_container_statuses:
            key += (None,)
            for s in status.init_container_statuses:
                key += (s.name, id(s.resources), id(s.allocated_resources))
        found = self._requests.get(key)
        if found is None:
            resource, blind = _requests_by_content(pod)
            found = self._requests[key] = (pod, resource if blind else None)
        kept = found[1]
        return cached_pod_resource(pod) if kept is None else kept

    def allocatable(self, listed: o.ResourceList) -> Resource:
        """Resource.from_list(LISTED), one Resource for equal lists (a Resource is read, never
        changed, once made: nodes of one machine type share it); found by the list's identity
        first, as a large snapshot's nodes share equal lists (snapshot/compact.py)."""
        found = self._allocatable_lists.get(id(listed))
        if found is None:
            written = _encode(listed)
            resource = self._allocatables.get(written)
            if resource is None:
                resource = self._allocatables[written] = Resource.from_list(listed)
            found = self._allocatable_lists[id(listed)] = (listed, resource)
        return found[1]

    def declares_ports(self, containers: list[o.Container]) -> bool:
        """Whether any of the containers declares a port."""
        found = self._ports.get(id(containers))
        if found is None:
            found = self._ports[id(containers)] = (containers, any(c.ports for c in containers))
        return found[1]


# ---------------------------------------------------------------------- pods and nodes


def pod_priority(pod: o.Pod) -> int:
    """corev1helpers.PodPriority: nil priority is 0."""
    return pod.spec.priority if pod.spec.priority is not None else 0


def pod_key(pod: o.Pod) -> str:
    return f"{pod.metadata.namespace}/{pod.metadata.name}"


class AffinityTerm(msgspec.Struct, frozen=True):
    """A processed PodAffinityTerm (fwk.AffinityTerm)."""

    namespaces: frozenset[str]
    selector: Selector
    topology_key: str
    namespace_selector: Selector
    source: o.PodAffinityTerm

    def matches(self, pod: o.Pod, ns_labels: dict[str, str] | None) -> bool:
        # A nil labels.Set is an empty set: Everything() and "!key"-style selectors still match it.
        if pod.metadata.namespace in self.namespaces or self.namespace_selector.matches(ns_labels or {}):
            return self.selector.matches(pod.metadata.labels)
        return False


class WeightedAffinityTerm(msgspec.Struct, frozen=True):
    term: AffinityTerm
    weight: int


def new_affinity_term(pod: o.Pod, term: o.PodAffinityTerm) -> AffinityTerm:
    if not term.namespaces and term.namespace_selector is None:
        namespaces = frozenset({pod.metadata.namespace})
    else:
        namespaces = frozenset(term.namespaces)
    return AffinityTerm(
        namespaces=namespaces,
        selector=label_selector_as_selector(term.label_selector),
        topology_key=term.topology_key,
        namespace_selector=label_selector_as_selector(term.namespace_selector),
        source=term,
    )


def _terms(pod: o.Pod, terms: list[o.PodAffinityTerm]) -> list[AffinityTerm]:
    try:
        return [new_affinity_term(pod, t) for t in terms]
    except SelectorError:
        # Upstream drops all terms of a kind when one selector fails to parse.
        return []


def _weighted(pod: o.Pod, terms: list[o.WeightedPodAffinityTerm]) -> list[WeightedAffinityTerm]:
    try:
        return [WeightedAffinityTerm(new_affinity_term(pod, t.pod_affinity_term), t.weight) for t in terms]
    except SelectorError:
        return []


_T = TypeVar("_T")


class _Once(Generic[_T]):
    """functools.cached_property without its lock (Python 3.11 takes one on every first read):
    PodInfo's parts are read for every pod of a snapshot, by one thread. The value is stored in the
    instance's __dict__, where later reads find it before this descriptor."""

    def __init__(self, func: Callable[[Any], _T]) -> None:
        self.func = func
        self.name = func.__name__

    @overload
    def __get__(self, obj: None, owner: type) -> _Once[_T]: ...
    @overload
    def __get__(self, obj: object, owner: type) -> _T: ...
    def __get__(self, obj: object | None, owner: type) -> _Once[_T] | _T:
        if obj is None:
            return self
        value: _T = self.func(obj)
        obj.__dict__[self.name] = value
        return value


class PodInfo:
    """A pod with its parsed affinity terms and cached resource requests."""

    __slots__ = ("__dict__", "pod", "resource")

    # Its requests (calculate_pod_resource), read when first asked (__getattr__), then a slot:
    # read for every pod bound to a node of a snapshot, and often after.
    resource: PodResource

    def __init__(self, pod: o.Pod) -> None:
        self.pod = pod

    def __getattr__(self, name: str) -> Any:
        # Called only for an attribute not set: `resource` before its first read.
        if name != "resource":
            raise AttributeError(name)
        resource = self.resource = cached_pod_resource(self.pod)
        return resource

    @property
    def key(self) -> str:
        return pod_key(self.pod)

    @property
    def uid(self) -> str:
        return self.pod.metadata.uid or pod_key(self.pod)

    @_Once
    def required_affinity_terms(self) -> list[AffinityTerm]:
        aff = self.pod.spec.affinity
        if aff is None or aff.pod_affinity is None:
            return []
        return _terms(self.pod, aff.pod_affinity.required_during_scheduling_ignored_during_execution)

    @_Once
    def required_anti_affinity_terms(self) -> list[AffinityTerm]:
        aff = self.pod.spec.affinity
        if aff is None or aff.pod_anti_affinity is None:
            return []
        return _terms(self.pod, aff.pod_anti_affinity.required_during_scheduling_ignored_during_execution)

    @_Once
    def preferred_affinity_terms(self) -> list[WeightedAffinityTerm]:
        aff = self.pod.spec.affinity
        if aff is None or aff.pod_affinity is None:
            return []
        return _weighted(self.pod, aff.pod_affinity.preferred_during_scheduling_ignored_during_execution)

    @_Once
    def preferred_anti_affinity_terms(self) -> list[WeightedAffinityTerm]:
        aff = self.pod.spec.affinity
        if aff is None or aff.pod_anti_affinity is None:
            return []
        return _weighted(self.pod, aff.pod_anti_affinity.preferred_during_scheduling_ignored_during_execution)

    @property
    def priority(self) -> int:
        return pod_priority(self.pod)

    def __repr__(self) -> str:
        return f"PodInfo({self.key})"


def pod_with_affinity(pod: o.Pod) -> bool:
    aff = pod.spec.affinity
    return aff is not None and (aff.pod_affinity is not None or aff.pod_anti_affinity is not None)


def pod_with_required_anti_affinity(pod: o.Pod) -> bool:
    aff = pod.spec.affinity
    return (
        aff is not None
        and aff.pod_anti_affinity is not None
        and bool(aff.pod_anti_affinity.required_during_scheduling_ignored_during_execution)
    )


def host_ports(pod: o.Pod) -> list[o.ContainerPort]:
    """schedutil.GetHostPorts: sidecar init containers and containers with a hostPort."""
    spec = pod.spec
    ports = (
        [p for c in spec.init_containers if c.restart_policy == "Always" for p in c.ports if p.host_port > 0]
        if spec.init_containers
        else []
    )
    # Asked of every pod bound to a node: most containers declare no port at all.
    for c in spec.containers:
        if c.ports:
            ports.extend([p for p in c.ports if p.host_port > 0])
    return ports


class HostPortInfo:
    """ip -> {(protocol, port)} with the 0.0.0.0 wildcard semantics of fwk.HostPortInfo."""

    def __init__(self) -> None:
        self.ports: dict[str, set[tuple[str, int]]] = {}

    @staticmethod
    def _sanitize(ip: str, protocol: str) -> tuple[str, str]:
        return ip or DEFAULT_BIND_ALL_HOST_IP, protocol or "TCP"

    def add(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        self.ports.setdefault(ip, set()).add((protocol, port))

    def remove(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        entries = self.ports.get(ip)
        if entries is not None:
            entries.discard((protocol, port))
            if not entries:
                del self.ports[ip]

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        if port <= 0:
            return False
        ip, protocol = self._sanitize(ip, protocol)
        pp = (protocol, port)
        if ip == DEFAULT_BIND_ALL_HOST_IP:
            return any(pp in entries for entries in self.ports.values())
        return any(pp in self.ports.get(key, ()) for key in (DEFAULT_BIND_ALL_HOST_IP, ip))

    def __len__(self) -> int:
        return sum(len(v) for v in self.ports.values())

    def clone(self) -> HostPortInfo:
        out = HostPortInfo()
        out.ports = {ip: set(v) for ip, v in self.ports.items()}
        return out


class ImageStateSummary(msgspec.Struct):
    size: int
    num_nodes: int


@dataclass(slots=True)
class NodeInfo:
    """The scheduler's aggregated view of one node and the pods bound to it."""

    node: o.Node
    pods: list[PodInfo] = field(default_factory=list)
    pods_with_affinity: list[PodInfo] = field(default_factory=list)
    pods_with_required_anti_affinity: list[PodInfo] = field(default_factory=list)
    used_ports: HostPortInfo = field(default_factory=HostPortInfo)
    requested: Resource = field(default_factory=Resource)
    non_zero_requested: Resource = field(default_factory=Resource)
    allocatable: Resource = field(default_factory=Resource)
    image_states: dict[str, ImageStateSummary] = field(default_factory=dict)
    pvc_ref_counts: dict[str, int] = field(default_factory=dict)
    # Pods added on top of the bound ones (nominated pods, preemption what-ifs).
    added_pods: list[PodInfo] = field(default_factory=list)
    # Counts of its pods matching a selector, by what was counted (see count_matching); dropped
    # whenever its pods change. Pods placed one after another are each scored over every node:
    # most nodes' counts stay what they were.
    match_counts: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    # The node's name, read on every filter of every node: an attribute, not a property.
    name: str = field(init=False, repr=False, compare=False)
    # The class keys it gave Filter plugins' readers (equivalence.NodeClasses.key), by their token;
    # forgotten whenever its pods change.
    class_keys: dict[int, Hashable] = field(default_factory=dict, repr=False, compare=False)
    # The lowest priority of its pods (see lowest_priority) once asked; forgotten whenever its pods
    # change.
    _lowest: int | None = field(default=None, init=False, repr=False, compare=False)
    _lowest_known: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.name = self.node.metadata.name

    @classmethod
    def for_node(cls, node: o.Node, indexing: Indexing | None = None) -> NodeInfo:
        """The node's index, without pods. INDEXING: what indexing many nodes reads of what
        they share (Indexing.allocatable)."""
        if indexing is None:
            return cls(node=node, allocatable=Resource.from_list(node.status.allocatable))
        return cls(node=node, allocatable=indexing.allocatable(node.status.allocatable))

    def lowest_priority(self) -> int | None:
        """The lowest priority (PodInfo.priority) of its pods, None without pods: preemption's dry
        run asks it of every node it tries, in each cycle of the pod."""
        if not self._lowest_known:
            self._lowest = min([pod_priority(pi.pod) for pi in self.pods], default=None)
            self._lowest_known = True
        return self._lowest

    def _pods_changed(self) -> None:
        """Forget what was kept of its pods."""
        self.match_counts.clear()
        self.class_keys.clear()
        self._lowest_known = False

    def add_pod_info(self, pi: PodInfo) -> None:
        self._pods_changed()
        self.pods.append(pi)
        if pod_with_affinity(pi.pod):
            self.pods_with_affinity.append(pi)
        if pod_with_required_anti_affinity(pi.pod):
            self.pods_with_required_anti_affinity.append(pi)
        self._update(pi, 1)

    def add_pod_infos(self, pis: list[PodInfo], indexing: Indexing | None = None) -> None:
        """add_pod_info of each pod in turn, the same index made with the sums taken once: a Handle
        indexes every pod of a snapshot so (INDEXING: what it read of the objects pods share)."""
        if indexing is None:
            indexing = Indexing()
        self._pods_changed()
        # The lowest priority known at once when these are all its pods (as a Handle indexes them).
        lowest = None if self.pods or not pis else pod_priority(pis[0].pod)
        self.pods.extend(pis)
        requested, scalars, ports = self.requested, self.requested.scalar_resources, self.used_ports
        cpu = memory = storage = non0_cpu = non0_mem = 0
        for pi in pis:
            pod = pi.pod
            spec = pod.spec
            if lowest is not None:
                priority = spec.priority or 0  # pod_priority
                if priority < lowest:
                    lowest = priority
            aff = spec.affinity
            if aff is not None and (aff.pod_affinity is not None or aff.pod_anti_affinity is not None):
                self.pods_with_affinity.append(pi)
                if pod_with_required_anti_affinity(pod):
                    self.pods_with_required_anti_affinity.append(pi)
            res = pi.resource
            own = res.resource
            cpu += own.milli_cpu
            memory += own.memory
            storage += own.ephemeral_storage
            if own.scalar_resources:
                for name, amount in own.scalar_resources.items():  # as Resource.add counts them
                    scalars[name] = scalars.get(name, 0) + amount
            non0_cpu += res.non0_cpu
            non0_mem += res.non0_mem
            # host_ports, asked only of a pod that may have one: most containers declare no port.
            if spec.init_containers or indexing.declares_ports(spec.containers):
                for port in host_ports(pod):
                    ports.add(port.host_ip, port.protocol, port.host_port)
            for volume in spec.volumes:
                if volume.persistent_volume_claim is not None:
                    self._count_claims(pod, 1)
                    break
        requested.milli_cpu += cpu
        requested.memory += memory
        requested.ephemeral_storage += storage
        self.non_zero_requested.milli_cpu += non0_cpu
        self.non_zero_requested.memory += non0_mem
        if lowest is not None:
            self._lowest, self._lowest_known = lowest, True

    def remove_pod(self, pi: PodInfo) -> None:
        uid = pi.uid
        self.pods_with_affinity = [p for p in self.pods_with_affinity if p.uid != uid]
        self.pods_with_required_anti_affinity = [p for p in self.pods_with_required_anti_affinity if p.uid != uid]
        kept = [p for p in self.pods if p.uid != uid]
        if len(kept) != len(self.pods):
            self._pods_changed()
            self.pods = kept
            self._update(pi, -1)

    def _update(self, pi: PodInfo, sign: int) -> None:
        res = pi.resource
        self.requested.add(res.resource, sign)
        self.non_zero_requested.milli_cpu += sign * res.non0_cpu
        self.non_zero_requested.memory += sign * res.non0_mem
        for port in host_ports(pi.pod):
            if sign > 0:
                self.used_ports.add(port.host_ip, port.protocol, port.host_port)
            else:
                self.used_ports.remove(port.host_ip, port.protocol, port.host_port)
        self._count_claims(pi.pod, sign)

    def _count_claims(self, pod: o.Pod, sign: int) -> None:
        for vol in pod.spec.volumes:
            if vol.persistent_volume_claim is None:
                continue
            key = f"{pod.metadata.namespace}/{vol.persistent_volume_claim.claim_name}"
            count = self.pvc_ref_counts.get(key, 0) + sign
            if count <= 0:
                self.pvc_ref_counts.pop(key, None)
            else:
                self.pvc_ref_counts[key] = count

    def snapshot(self) -> NodeInfo:
        """A copy that can take added/removed pods without touching this one."""
        return NodeInfo(
            node=self.node,
            pods=list(self.pods),
            pods_with_affinity=list(self.pods_with_affinity),
            pods_with_required_anti_affinity=list(self.pods_with_required_anti_affinity),
            used_ports=self.used_ports.clone(),
            requested=self.requested.clone(),
            non_zero_requested=self.non_zero_requested.clone(),
            allocatable=self.allocatable,
            image_states=self.image_states,
            pvc_ref_counts=dict(self.pvc_ref_counts),
            added_pods=list(self.added_pods),
        )
