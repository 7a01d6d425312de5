"""The scheduler's view of a snapshot: NodeInfos, nominated pods and object listers."""

from __future__ import annotations

import copy
from collections import defaultdict
from collections.abc import Iterable, Mapping
from itertools import compress
from operator import attrgetter, eq, is_, not_
from typing import Any

import msgspec

from podwhy.features.emulation import DEFAULT, Emulation
from podwhy.framework.types import ImageStateSummary, Indexing, NodeInfo, PodInfo, pod_key
from podwhy.model import objects as o
from podwhy.model.wellknownnames import DEFAULT_SCHEDULER_NAME
from podwhy.snapshot.cluster import Snapshot

TERMINAL_PHASES = ("Succeeded", "Failed")


def normalized_image_name(name: str) -> str:
    """A pod's image reference as ImageLocality looks it up: ":latest" added when it has no tag or digest."""
    if name.rfind(":") <= name.rfind("/"):
        name = name + ":latest"
    return name


_NAME = attrgetter("name")
_encode = msgspec.json.Encoder().encode

# What a Handle's indexes read of each pod besides the pod itself that code changes in place on
# a pod of a snapshot: where it runs or waits nominated, whether it still counts, whose queue it
# is in, and its pod-level resources (dropped for a release without them, given back after). The
# other parts its PodInfo reads once (containers, overhead, affinity, volumes, statuses) are set
# when a pod is made; the test suite checks every kept index it uses against one made anew
# (CHECK_KEPT). Of each node: its name, allocatable and images.
_POD_READS = attrgetter(
    "spec.node_name", "status.phase", "status.nominated_node_name", "spec.scheduler_name", "spec.resources"
)
_NODE_READS = attrgetter("metadata.name", "status.allocatable", "status.images")
# Where `indexed` keeps its Handle in Snapshot.indexes.
KEPT = "framework.handle"
# Whether `indexed` checks each view it gives of a kept Handle against one indexed anew (the test
# suite turns it on: tests/conftest.py).
CHECK_KEPT = False


class Handle:
    """Everything plugins read about the cluster, built once per snapshot."""

    def __init__(
        self,
        snapshot: Snapshot,
        scheduler_names: frozenset[str] | None = None,
        emulation: Emulation = DEFAULT,
        *,
        reads: list[Any] | None = None,
    ) -> None:
        """`scheduler_names`: the profiles of this scheduler. Only pods it is responsible for sit
        in its queue, so only those count as nominated (None: every unbound nominated pod).
        `emulation`: the kube-scheduler release whose plugin behaviour to follow. `reads`: where
        to add what the index reads of each pod that code changes in place (_POD_READS), in the
        snapshot's order, read while the pod is read anyway (a kept index's record, _Kept)."""
        self.snapshot = snapshot
        self.emulation = emulation
        self.scheduler_names = scheduler_names
        self.node_infos: list[NodeInfo] = []
        self.node_info_by_name: dict[str, NodeInfo] = {}
        # Each node's position in node_infos, found when first needed (nodes_but): nodes are only
        # appended (with_nodes) or replaced in place, so positions found stay right.
        self._positions: dict[str, int] | None = None
        # What the nodes and pods share, read once (Indexing).
        indexing = Indexing()
        for node in snapshot.nodes:
            ni = NodeInfo.for_node(node, indexing)
            self.node_infos.append(ni)
            self.node_info_by_name[node.metadata.name] = ni
        self._nominated: dict[str, list[PodInfo]] = defaultdict(list)
        # Each node's pods in the snapshot's order, indexed together (NodeInfo.add_pod_infos).
        bound: dict[str, list[PodInfo]] = {}
        # Each bound pod's requests found here, in the snapshot's order (as its objects were
        # decoded, near each other), not node by node.
        requests = indexing.requests
        for pod in snapshot.pods:
            if reads is not None:
                reads.append(_POD_READS(pod))
            status = pod.status
            if status.phase in TERMINAL_PHASES:
                continue
            node_name = pod.spec.node_name
            if node_name:
                pi = PodInfo(pod)
                pi.resource = requests(pod)
                on_node = bound.get(node_name)
                if on_node is None:
                    bound[node_name] = [pi]
                else:
                    on_node.append(pi)
            elif status.nominated_node_name and (
                scheduler_names is None or (pod.spec.scheduler_name or DEFAULT_SCHEDULER_NAME) in scheduler_names
            ):
                self._nominated[status.nominated_node_name].append(PodInfo(pod))
        for name, pis in bound.items():
            on = self.node_info_by_name.get(name)
            if on is not None:
                on.add_pod_infos(pis, indexing)
        self._attachments: defaultdict[str, list[o.VolumeAttachment]] | None = None
        # Node indexes shared with the view this one was made from (with_nodes), copied on first change.
        self._borrowed: set[str] = set()
        # The nodes whose bound pods changed (add_bound_pod, remove_bound_pod), in order: what a
        # plugin kept over every node (see `memos`) needs recounting on those nodes only.
        self.pod_changes: list[str] = []
        # What plugins keep over every node between pods scheduled in turn, by their own keys;
        # each entry notes len(pod_changes) when it was made. A derived view starts empty.
        self.memos: dict[str, Any] = {}
        self._build_image_states()
        self.have_pods_with_affinity = [ni for ni in self.node_infos if ni.pods_with_affinity]
        self.have_pods_with_required_anti_affinity = [
            ni for ni in self.node_infos if ni.pods_with_required_anti_affinity
        ]

    def add_bound_pod(self, pod: o.Pod) -> PodInfo:
        """Count a pod just bound to its node (spec.nodeName), as the scheduler's cache assumes
        it: later pods see its resources, ports and affinity terms without a rebuild."""
        pi = PodInfo(pod)
        ni = self._own(pod.spec.node_name)
        ni.add_pod_info(pi)
        self.pod_changes.append(ni.name)
        if ni.pods_with_affinity and all(n is not ni for n in self.have_pods_with_affinity):
            self.have_pods_with_affinity.append(ni)
        if ni.pods_with_required_anti_affinity and all(n is not ni for n in self.have_pods_with_required_anti_affinity):
            self.have_pods_with_required_anti_affinity.append(ni)
        return pi

    def remove_bound_pod(self, pod: o.Pod) -> None:
        """Forget a pod that is gone from its node (evicted by preemption): later pods no longer
        see its resources, ports or affinity terms. A pod its node does not hold is left alone."""
        name = pod.spec.node_name
        held = self.node_info_by_name.get(name) if name else None
        uid = pod.metadata.uid or pod_key(pod)
        if held is None or not any(pi.uid == uid for pi in held.pods):
            return
        ni = self._own(name)
        ni.remove_pod(next(pi for pi in ni.pods if pi.uid == uid))
        self.pod_changes.append(ni.name)
        if not ni.pods_with_affinity:
            self.have_pods_with_affinity = [n for n in self.have_pods_with_affinity if n is not ni]
        if not ni.pods_with_required_anti_affinity:
            self.have_pods_with_required_anti_affinity = [
                n for n in self.have_pods_with_required_anti_affinity if n is not ni
            ]

    def _own(self, name: str) -> NodeInfo:
        """The node's index, copied first when it is still shared with the view this one was made
        from (with_nodes, for_release, a kept Handle's view), so that binding a pod here leaves that
        view as it was."""
        ni = self.node_info_by_name[name]
        if name not in self._borrowed:
            return ni
        self._borrowed.discard(name)
        own = ni.snapshot()
        self.node_info_by_name[name] = own
        self.node_infos[self._position(name)] = own
        for index_list in (self.have_pods_with_affinity, self.have_pods_with_required_anti_affinity):
            for i, listed in enumerate(index_list):
                if listed is ni:
                    index_list[i] = own
        return own

    def _node_positions(self) -> dict[str, int]:
        """Each node's place in node_infos, found once (see _positions). Views share the map
        until their nodes differ in number; it is replaced, never changed."""
        positions = self._positions
        if positions is None or len(positions) != len(self.node_infos):
            positions = self._positions = {ni.name: i for i, ni in enumerate(self.node_infos)}
        return positions

    def _position(self, name: str) -> int:
        return self._node_positions()[name]

    def nodes_but(self, settled: Mapping[str, object]) -> list[NodeInfo]:
        """node_infos without the nodes SETTLED names, in order. Placing pods one after another
        asks this for every pod with most nodes settled: then the few left are found by a set
        difference and put in order by position, not by a walk over every node."""
        infos, by_name = self.node_infos, self.node_info_by_name
        if len(settled) * 2 < len(infos) or len(by_name) != len(infos):
            return list(compress(infos, map(not_, map(settled.__contains__, map(_NAME, infos)))))
        return self.nodes_named(by_name.keys() - settled.keys())

    def nodes_named(self, names: Iterable[str]) -> list[NodeInfo]:
        """The nodes NAMES names, in node_infos' order (names unique among the nodes)."""
        positions, infos = self._node_positions(), self.node_infos
        return [infos[i] for i in sorted(map(positions.__getitem__, names))]

    def with_nodes(self, snapshot: Snapshot, added: list[o.Node]) -> Handle:
        """This view over `snapshot`, which is this one's with the `added` nodes (new nodes that
        hold no images yet): the same as indexing it anew, but the existing nodes' indexes are
        shared rather than rebuilt from every pod, each copied only when a pod is bound to it
        there: binding pods in the new view leaves this one as it was."""
        assert not any(n.status.images for n in added), "image states would need recounting"
        other = copy.copy(self)
        other.pod_changes, other.memos = [], {}
        other.snapshot = snapshot
        other.node_infos = list(self.node_infos)
        other.node_info_by_name = dict(self.node_info_by_name)
        other._borrowed = set(self.node_info_by_name)
        names = {n.metadata.name for n in added}
        for node in added:
            ni = NodeInfo.for_node(node)
            other.node_infos.append(ni)
            other.node_info_by_name[ni.name] = ni
        # Pods bound to the new nodes (those a new node runs from the start), indexed as anew.
        for pod in snapshot.pods:
            if pod.spec.node_name in names and pod.status.phase not in TERMINAL_PHASES:
                other.node_info_by_name[pod.spec.node_name].add_pod_info(PodInfo(pod))
        other.have_pods_with_affinity = [ni for ni in other.node_infos if ni.pods_with_affinity]
        other.have_pods_with_required_anti_affinity = [
            ni for ni in other.node_infos if ni.pods_with_required_anti_affinity
        ]
        return other

    def for_release(self, emulation: Emulation) -> Handle:
        """This view as another release's scheduler reads it. The node indexes (bound pods, their
        room, ports, terms, images) read no feature gate, so they are shared, each copied only
        when a pod is bound to it there; only the plugins' reading of the release differs. The
        snapshot's pods must be as they were when this view was built (dropDisabledPodFields of
        the other release changed none of them)."""
        other = copy.copy(self)
        other.emulation = emulation
        other.pod_changes, other.memos = [], {}
        other.node_infos = list(self.node_infos)
        other.node_info_by_name = dict(self.node_info_by_name)
        other._borrowed = set(self.node_info_by_name)
        other.have_pods_with_affinity = list(self.have_pods_with_affinity)
        other.have_pods_with_required_anti_affinity = list(self.have_pods_with_required_anti_affinity)
        return other

    def without_nominations(self, uids: frozenset[str]) -> Handle:
        """This view with those pods' nominations released (status.nominatedNodeName cleared):
        the node indexes are shared, only the room nominated pods reserve differs."""
        other = copy.copy(self)
        other.pod_changes, other.memos = [], {}
        other._nominated = defaultdict(
            list, {node: [pi for pi in pods if pi.uid not in uids] for node, pods in self._nominated.items()}
        )
        return other

    def _build_image_states(self) -> None:
        # Keyed by the names exactly as nodes report them: the scheduler normalizes only the pod's
        # image references. Each node keeps its own size for a name (cache.NewSnapshot). Nodes
        # that report the same images (a node pool's, pulled alike) share one summary: it is
        # read, never changed.
        by_images: dict[bytes, tuple[dict[str, int], list[NodeInfo]]] = {}
        # Each images list's encoding, by the list's identity (with the list): a large
        # snapshot's nodes share equal lists (snapshot/compact.py).
        written_of: dict[int, tuple[list[o.ContainerImage], bytes]] = {}
        for ni in self.node_infos:
            images = ni.node.status.images
            if not images:
                continue
            known = written_of.get(id(images))
            if known is None:
                known = written_of[id(images)] = (images, _encode(images))
            written = known[1]
            alike = by_images.get(written)
            if alike is None:
                sizes: dict[str, int] = {}
                for image in images:
                    for name in image.names:
                        sizes[name] = image.size_bytes
                by_images[written] = (sizes, [ni])
            else:
                alike[1].append(ni)
        counts: dict[str, int] = defaultdict(int)
        for sizes, nodes in by_images.values():
            for name in sizes:
                counts[name] += len(nodes)
        for sizes, nodes in by_images.values():
            states = {name: ImageStateSummary(size, counts[name]) for name, size in sizes.items()}
            for ni in nodes:
                ni.image_states = states

    # ------------------------------------------------------------------ listers
    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return self._nominated.get(node_name, [])

    def nominations(self) -> Mapping[str, list[PodInfo]]:
        """The pods nominated to each node (a node may map to none)."""
        return self._nominated

    def namespace_labels(self, namespace: str) -> dict[str, str] | None:
        ns = self.snapshot.namespaces.get(namespace)
        return ns.metadata.labels if ns is not None else None

    def pvc(self, namespace: str, name: str) -> o.PersistentVolumeClaim | None:
        return self.snapshot.persistent_volume_claims.get(f"{namespace}/{name}")

    def pv(self, name: str) -> o.PersistentVolume | None:
        return self.snapshot.persistent_volumes.get(name)

    def storage_class(self, name: str) -> o.StorageClass | None:
        return self.snapshot.storage_classes.get(name)

    def csi_node(self, name: str) -> o.CSINode | None:
        return self.snapshot.csi_nodes.get(name)

    def volume_attachments(self, node_name: str) -> list[o.VolumeAttachment]:
        """The VolumeAttachments naming the node (spec.nodeName), indexed on first use."""
        if self._attachments is None:
            self._attachments = defaultdict(list)
            for va in self.snapshot.volume_attachments.values():
                self._attachments[va.spec.node_name].append(va)
        return self._attachments.get(node_name, [])


class _Kept:
    """A Handle kept for its snapshot, with what it read there: the nodes and pods (the objects
    themselves, in order) and what its indexes read of each."""

    __slots__ = ("handle", "node_reads", "nodes", "pod_reads", "pods")

    def __init__(self, handle: Handle, snapshot: Snapshot, pod_reads: list[Any]) -> None:
        """POD_READS: what the handle read of each of the snapshot's pods (Handle's `reads`)."""
        self.handle = handle
        self.nodes = list(snapshot.nodes)
        self.pods = list(snapshot.pods)
        self.node_reads = list(map(_NODE_READS, self.nodes))
        self.pod_reads = pod_reads

    def holds(self, snapshot: Snapshot, scheduler_names: frozenset[str] | None) -> bool:
        """Whether indexing SNAPSHOT anew would index exactly what the kept Handle did: the same
        scheduler names, the same node and pod objects in the same order, each read alike (an
        attribute replaced by an equal value reads alike)."""
        nodes, pods = snapshot.nodes, snapshot.pods
        return (
            self.handle.scheduler_names == scheduler_names
            and len(nodes) == len(self.nodes)
            and len(pods) == len(self.pods)
            and all(map(is_, nodes, self.nodes))
            and all(map(is_, pods, self.pods))
            # Read and compared one by one, without a list of 391,000 reads made first.
            and all(map(eq, self.node_reads, map(_NODE_READS, nodes)))
            and all(map(eq, self.pod_reads, map(_POD_READS, pods)))
        )


def indexed(snapshot: Snapshot, scheduler_names: frozenset[str] | None, emulation: Emulation = DEFAULT) -> Handle:
    """A Handle over SNAPSHOT (see Handle): the snapshot's nodes and pods are indexed once and
    the index kept with the snapshot (Snapshot.indexes); every Handle asked of it later, while its
    nodes and pods are those indexed and read alike, is a view of the kept one (as for_release
    makes: node indexes copied on first change), so explaining one pod after another, or
    re-running a cycle, does not index every pod again. A snapshot whose nodes or pods changed is
    indexed anew."""
    kept = snapshot.indexes.get(KEPT)
    if isinstance(kept, _Kept) and kept.holds(snapshot, scheduler_names):
        view = kept.handle.for_release(emulation)
        if CHECK_KEPT:
            check_same(view, Handle(snapshot, scheduler_names, emulation))
    else:
        reads: list[Any] = []
        handle = Handle(snapshot, scheduler_names, emulation, reads=reads)
        snapshot.indexes[KEPT] = _Kept(handle, snapshot, reads)
        view = handle.for_release(emulation)
    view._attachments = None  # the snapshot's VolumeAttachments, read anew
    return view


def described(handle: Handle) -> list[Any]:
    """Everything a Handle's indexes hold, in order, as plain values: two Handles index a
    snapshot alike exactly when their descriptions are equal."""

    def pods(pis: list[PodInfo]) -> list[tuple[str, int]]:
        return [(pi.key, id(pi.pod)) for pi in pis]

    nodes = [
        (
            ni.name,
            id(ni.node),
            pods(ni.pods),
            pods(ni.pods_with_affinity),
            pods(ni.pods_with_required_anti_affinity),
            pods(ni.added_pods),
            {ip: sorted(ports) for ip, ports in ni.used_ports.ports.items()},
            ni.requested,
            ni.non_zero_requested,
            ni.allocatable,
            ni.image_states,
            ni.pvc_ref_counts,
            ni.lowest_priority(),
        )
        for ni in handle.node_infos
    ]
    return [
        nodes,
        sorted(handle.node_info_by_name),
        all(handle.node_info_by_name.get(ni.name) is ni for ni in handle.node_infos),
        sorted((node, pods(pis)) for node, pis in handle.nominations().items() if pis),
        [ni.name for ni in handle.have_pods_with_affinity],
        [ni.name for ni in handle.have_pods_with_required_anti_affinity],
        handle.scheduler_names,
        handle.emulation,
    ]


def check_same(view: Handle, fresh: Handle) -> None:
    """Fail loudly when a kept Handle's view indexes its snapshot otherwise than a Handle indexed
    anew (CHECK_KEPT)."""
    if described(view) != described(fresh):
        raise AssertionError("a kept scheduler index differs from the snapshot indexed anew (framework/handle.py)")
