"""New nodes shaped like an existing one, as the cluster autoscaler simulates them.

A copy has the node's labels, taints and allocatable, and runs at once the pods that start on
every new node of its group without the scheduler: the node's DaemonSet pods (their controller
creates one on each node it selects, which a node with the same labels and taints is) and its
static pods (the mirror pods the kubelet creates from the node's manifest directory, which a
node booted from the same group's image has too). The cluster autoscaler keeps the same two
kinds when it builds a template node from an existing one. Everything else on the node is left
behind: those pods were placed by the scheduler and are not recreated on a new node.

The copies' pods take their cpu, memory, pod slots and host ports, and count for affinity and
spreading, exactly as pods bound to the node: they are added to the snapshot bound to the copy
and indexed like any other bound pod. A suggestion's patches add only the Node objects (the
controllers and the kubelet create these pods); whoever applies such a patch to a snapshot adds
the pods with `added_node_pods`, the same function the suggestion was verified with.
"""

from __future__ import annotations

import re

import msgspec

from podwhy.model import objects as o
from podwhy.model import records
from podwhy.model.wellknownnames import ANN_MIRROR_POD, LABEL_HOSTNAME
from podwhy.snapshot.cluster import Snapshot

TERMINAL_PHASES = ("Succeeded", "Failed")
_COPY_SUFFIX = re.compile(r"-copy[0-9]*$")


def copy_names(snapshot: Snapshot, name: str, count: int) -> list[str]:
    """Names for `count` copies of the node that no node of the snapshot has: `<name>-copy`,
    then `<name>-copy2`, ... (copied_from reads them back)."""
    taken = {n.metadata.name for n in snapshot.nodes}
    out: list[str] = []
    i = 1
    while len(out) < count:
        candidate = f"{name}-copy" if i == 1 else f"{name}-copy{i}"
        if candidate not in taken:
            out.append(candidate)
        i += 1
    return out


def copied_from(snapshot: Snapshot, copy_name: str) -> o.Node | None:
    """The node of the snapshot a copy named by copy_names was made from (None for other names)."""
    if not _COPY_SUFFIX.search(copy_name):
        return None
    original = _COPY_SUFFIX.sub("", copy_name)
    return next((n for n in snapshot.nodes if n.metadata.name == original), None)


def node_copy(node: o.Node, name: str) -> o.Node:
    """The Node object of a new node shaped like `node`: same labels (its hostname label its own
    name), taints and allocatable; no annotations, no images pulled yet."""
    labels = dict(node.metadata.labels)
    if LABEL_HOSTNAME in labels:
        labels[LABEL_HOSTNAME] = name
    meta = o.ObjectMeta(name=name, labels=labels, annotations={})
    return msgspec.structs.replace(node, metadata=meta, status=msgspec.structs.replace(node.status, images=[]))


def is_daemon_pod(pod: o.Pod) -> bool:
    return _daemon_owned(pod.metadata.owner_references)


def _daemon_owned(owners: list[o.OwnerReference]) -> bool:
    return any(ref.controller and ref.kind == "DaemonSet" for ref in owners)


def is_mirror_pod(pod: o.Pod) -> bool:
    return ANN_MIRROR_POD in pod.metadata.annotations


def starts_on_new_node(pod: o.Pod) -> bool:
    """Whether a new node of the pod's node's group runs such a pod from the start: a DaemonSet or
    static (mirror) pod that is not finished or being deleted."""
    if pod.status.phase in TERMINAL_PHASES or pod.metadata.deletion_timestamp is not None:
        return False
    return is_daemon_pod(pod) or is_mirror_pod(pod)


def startup_pods(snapshot: Snapshot, node: str) -> list[o.Pod]:
    """The pods bound to the node that a new node shaped like it runs too, in snapshot order."""
    return [p for p in snapshot.pods if p.spec.node_name == node and starts_on_new_node(p)]


def startup_pods_by_node(snapshot: Snapshot) -> dict[str, list[o.Pod]]:
    """startup_pods of every node that has some. Asked of every pod of a large snapshot: a DaemonSet's
    pods share one list of owners (snapshot/compact.py), so each list is looked at once."""
    out: dict[str, list[o.Pod]] = {}
    daemon: dict[int, bool] = {}  # by the owners list's identity: every list stays held by its pods
    for pod in snapshot.pods:
        node = pod.spec.node_name
        meta = pod.metadata
        if not node or pod.status.phase in TERMINAL_PHASES or meta.deletion_timestamp is not None:
            continue
        owners = meta.owner_references
        ran = daemon.get(id(owners))
        if ran is None:
            ran = daemon[id(owners)] = _daemon_owned(owners)
        if ran or ANN_MIRROR_POD in meta.annotations:
            on = out.get(node)
            if on is None:
                out[node] = [pod]
            else:
                on.append(pod)
    return out


def _pinned(affinity: o.Affinity | None, original: str, name: str) -> o.Affinity | None:
    """The affinity with `metadata.name` field terms naming the original node renamed to the copy
    (the DaemonSet controller pins each pod to its node so)."""
    node_affinity = affinity.node_affinity if affinity is not None else None
    required = node_affinity.required_during_scheduling_ignored_during_execution if node_affinity else None
    if affinity is None or node_affinity is None or required is None:
        return affinity
    terms = [
        msgspec.structs.replace(
            term,
            match_fields=[
                msgspec.structs.replace(req, values=[name if v == original else v for v in req.values])
                if req.key == "metadata.name"
                else req
                for req in term.match_fields
            ],
        )
        for term in required.node_selector_terms
    ]
    required = msgspec.structs.replace(required, node_selector_terms=terms)
    return msgspec.structs.replace(
        affinity,
        node_affinity=msgspec.structs.replace(
            node_affinity, required_during_scheduling_ignored_during_execution=required
        ),
    )


def pod_for_copy(pod: o.Pod, original: str, name: str) -> o.Pod:
    """The pod as it runs on the copy `name` of node `original`: bound there, pinned there, with a
    name and uid of its own (deterministic: a mirror pod `<static>-<node>` becomes `<static>-<copy>`
    as the kubelet names it, any other `<pod>-<copy>`)."""
    meta = pod.metadata
    suffix = f"-{original}"
    if is_mirror_pod(pod) and meta.name.endswith(suffix) and len(meta.name) > len(suffix):
        pod_name = meta.name[: -len(suffix)] + f"-{name}"
    else:
        pod_name = f"{meta.name}-{name}"
    uid = f"{meta.uid or meta.namespace + '/' + meta.name}@{name}"
    spec = msgspec.structs.replace(pod.spec, node_name=name, affinity=_pinned(pod.spec.affinity, original, name))
    return msgspec.structs.replace(
        pod,
        metadata=msgspec.structs.replace(meta, name=pod_name, uid=uid),
        spec=spec,
        status=msgspec.structs.replace(pod.status, nominated_node_name=""),
    )


def added_node_pods(snapshot: Snapshot, added: o.Node, original: o.Node | None = None) -> list[o.Pod]:
    """The pods a node added to the snapshot runs from the start: those of the node it is a copy of
    (`original`, else the one copied_from names), bound to it. None for a node that is no copy."""
    original = original if original is not None else copied_from(snapshot, added.metadata.name)
    if original is None:
        return []
    name = original.metadata.name
    return [pod_for_copy(p, name, added.metadata.name) for p in startup_pods(snapshot, name)]


def with_copies(
    snapshot: Snapshot, node: o.Node, count: int, startup: list[o.Pod] | None = None
) -> tuple[Snapshot, list[o.Node]]:
    """The snapshot with `count` copies of the node and their startup pods (fresh node and pod
    lists: the given snapshot is untouched), and the copies. `startup`: startup_pods of the node,
    when the caller knows them."""
    name = node.metadata.name
    added = [node_copy(node, copy_name) for copy_name in copy_names(snapshot, name, count)]
    template = startup_pods(snapshot, name) if startup is None else startup
    pods = [pod_for_copy(p, name, copy.metadata.name) for copy in added for p in template]
    changed = records.replace(snapshot, nodes=[*snapshot.nodes, *added], pods=[*snapshot.pods, *pods])
    return changed, added
