"""startup_pods_by_node, which looks at each list of owners once (pods of one DaemonSet share
theirs once the snapshot is compacted), finds on each node exactly the pods startup_pods finds
by reading every pod: DaemonSet (controller) and mirror pods, not finished, not being deleted."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from podwhy.cluster.nodecopy import startup_pods, startup_pods_by_node
from podwhy.model import objects as o
from podwhy.model.wellknownnames import ANN_MIRROR_POD
from tests.builders import make_node, make_pod, make_snapshot

OWNERS = st.sampled_from(
    [
        None,
        ("DaemonSet", "agent", True),
        ("DaemonSet", "agent", False),  # not the controller: a new node does not run it
        ("ReplicaSet", "web", True),
        ("Job", "train", True),
    ]
)
POD = st.tuples(
    st.sampled_from(["", "n1", "n2", "n3"]),
    OWNERS,
    st.booleans(),  # mirror
    st.sampled_from(["Running", "Pending", "Succeeded", "Failed"]),
    st.booleans(),  # being deleted
)


def _pod(index: int, spec: tuple[Any, ...]) -> o.Pod:
    node, owner, mirror, phase, deleting = spec
    builder = make_pod(f"p{index}").phase(phase)
    if node:
        builder.node(node)
    if owner is not None:
        builder.owner(owner[0], owner[1], controller=owner[2])
    if deleting:
        builder.terminating()
    pod = builder.obj()
    if mirror:
        pod.metadata.annotations[ANN_MIRROR_POD] = "hash"
    return pod


@settings(max_examples=80, deadline=None)
@given(st.lists(POD, max_size=14), st.booleans())
def test_startup_pods_by_node_reads_as_each_pod(specs: list[tuple[Any, ...]], share: bool) -> None:
    pods = [_pod(i, spec) for i, spec in enumerate(specs)]
    if share:  # equal owner lists held once, as snapshot/compact.py holds them
        held: dict[str, list[o.OwnerReference]] = {}
        for pod in pods:
            key = repr(pod.metadata.owner_references)
            pod.metadata.owner_references = held.setdefault(key, pod.metadata.owner_references)
    snapshot = make_snapshot(*(make_node(n).obj() for n in ("n1", "n2", "n3")), *pods)
    expected = {n: found for n in ("n1", "n2", "n3") if (found := startup_pods(snapshot, n))}
    assert startup_pods_by_node(snapshot) == expected
