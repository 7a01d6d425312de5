"""What the framework keeps or shares to index a large snapshot faster gives what reading every pod
and node anew gives: the nodes' lowest priorities (preemption's dry run asks whether a node holds
a pod of lower priority), the allocatable Resources shared by nodes of one machine type, the
pods' requests keys, their host ports."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podwhy.features.emulation import EMULATED
from podwhy.features.kubefeatures import POD_LEVEL_RESOURCES
from podwhy.framework import types
from podwhy.framework.signature import PodPart, pod_signature, requests_signature
from podwhy.framework.types import (
    Indexing,
    NodeInfo,
    PodInfo,
    Resource,
    calculate_pod_resource,
    host_ports,
    pod_priority,
    resize_blind,
)
from podwhy.model import objects as o
from podwhy.plugins.defaultpreemption import DefaultPreemption
from tests.builders import make_handle, make_node, make_pod, make_snapshot

PRIORITIES = st.one_of(st.none(), st.integers(min_value=-3, max_value=3))


def _pod(name: str, priority: int | None, node: str = "n1") -> o.Pod:
    builder = make_pod(name).req(cpu="100m").spec(nodeName=node)
    if priority is not None:
        builder.priority(priority)
    return builder.obj()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(PRIORITIES, max_size=6),
    st.lists(st.tuples(st.booleans(), PRIORITIES), max_size=8),
    st.integers(min_value=-3, max_value=4),
)
def test_lowest_priority_follows_the_pods(initial: list[int | None], changes: list[Any], preemptor: int) -> None:
    """After every pod added or removed, a node's lowest priority is the minimum over its pods, and
    DefaultPreemption.without_victims tells a node without a lower-priority pod exactly as asking
    each pod does (defaultpreemption.go's SelectVictimsOnNode: only lower-priority pods are victims)."""
    handle = make_handle(make_node("n1").obj(), *(_pod(f"p{i}", p) for i, p in enumerate(initial)))
    ni = handle.node_info_by_name["n1"]
    plugin = DefaultPreemption(handle)
    target = make_pod("target").priority(preemptor).info()
    for step, (add, priority) in enumerate(changes):
        if add or not ni.pods:
            ni.add_pod_info(PodInfo(_pod(f"c{step}", priority)))
        else:
            ni.remove_pod(ni.pods[step % len(ni.pods)])
        priorities = [pod_priority(pi.pod) for pi in ni.pods]
        assert ni.lowest_priority() == (min(priorities) if priorities else None)
        any_victim = any(p < target.priority for p in priorities)
        status = plugin.without_victims(target, ni)
        assert (status is None) == any_victim
        copy = ni.snapshot()
        assert copy.lowest_priority() == ni.lowest_priority()


ALLOCATABLES: list[dict[str, Any]] = [
    {"cpu": "4", "memory": "16Gi", "pods": "110"},
    {"cpu": 4, "memory": "16Gi", "pods": 110},
    {"cpu": 4.0, "memory": "16Gi", "pods": "110"},
    {"cpu": "4", "memory": "16Gi", "pods": "110", "nvidia.com/gpu": "8"},
    {"pods": "110", "cpu": "4", "memory": "16Gi"},
    {"cpu": "3500m", "memory": "15Gi", "ephemeral-storage": "100Gi", "pods": "58"},
]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(range(len(ALLOCATABLES))), min_size=1, max_size=8))
def test_shared_allocatable_is_each_nodes_own(shapes: list[int]) -> None:
    """Nodes whose allocatable lists are written alike share one Resource: each is the one made of
    the node's own list, and nodes written differently never share."""
    nodes = []
    for i, shape in enumerate(shapes):
        builder = make_node(f"n{i}")
        builder.raw["status"]["allocatable"] = dict(ALLOCATABLES[shape])
        nodes.append(builder.obj())
    handle = make_handle(*nodes)
    for node, shape in zip(nodes, shapes, strict=True):
        ni = handle.node_info_by_name[node.metadata.name]
        assert ni.allocatable == Resource.from_list(node.status.allocatable)
        for other, other_shape in zip(nodes, shapes, strict=True):
            if ni.allocatable is handle.node_info_by_name[other.metadata.name].allocatable:
                assert ALLOCATABLES[shape] == ALLOCATABLES[other_shape]
    assert NodeInfo.for_node(nodes[0]).allocatable == handle.node_infos[0].allocatable


def _with_status(pod: o.Pod, conditions: list[dict[str, Any]]) -> o.Pod:
    pod.status.conditions = [
        o.PodCondition(type=c["type"], status="True", reason=c.get("reason", "")) for c in conditions
    ]
    return pod


def test_requests_signature_is_the_requests_part() -> None:
    """The framework's requests key is pod_signature's REQUESTS part; a PodResizePending condition
    counts only beside a container status that reports resources (determineEffectiveRequests
    reads it there alone)."""
    resized = _with_status(make_pod("e").req(cpu="1").obj(), [{"type": "PodResizePending", "reason": "Infeasible"}])
    resized.status.container_statuses = [_status("c0", requests={"cpu": "1"})]
    pods = [
        make_pod("a").req(cpu="1").obj(),
        _with_status(make_pod("b").req(cpu="1").obj(), [{"type": "Ready"}]),
        _with_status(make_pod("c").req(cpu="1").obj(), [{"type": "PodResizePending", "reason": "Infeasible"}]),
        make_pod("d").req(cpu="1").init_req({"cpu": "2"}, sidecar=True).overhead(cpu="10m").obj(),
        resized,
    ]
    keys = [requests_signature(pod) for pod in pods]
    assert keys == [pod_signature(pod, frozenset({PodPart.REQUESTS})) for pod in pods]
    assert keys[0] == keys[1] == keys[2] != keys[3]
    assert len(set(keys)) == 3


def _status(
    name: str,
    *,
    requests: dict[str, str] | None = None,
    allocated: dict[str, str] | None = None,
    started: str = "2026-01-01T00:00:00Z",
    restarts: int = 0,
    ready: bool = True,
) -> o.ContainerStatus:
    """A running container's status; with REQUESTS, one that reports its resources (the kubelet
    does since in-place resize), with ALLOCATED its allocated resources."""
    raw: dict[str, Any] = {
        "name": name,
        "ready": ready,
        "restartCount": restarts,
        "state": {"running": {"startedAt": started}},
    }
    if requests is not None:
        raw["resources"] = {"requests": requests}
    if allocated is not None:
        raw["allocatedResources"] = allocated
    return msgspec.convert(raw, o.ContainerStatus)


def test_requests_key_leaves_out_what_differs_pod_to_pod() -> None:
    """Running pods of one template share their requests key, whatever their containers' states,
    readiness, restarts and start times (a real dump's differ on every pod): the requests are
    computed once for them all, not once per pod. What the requests read still tells them apart."""

    def pod(name: str, *statuses: o.ContainerStatus) -> o.Pod:
        made = make_pod(name).req(cpu="1").obj()
        made.status.container_statuses = list(statuses)
        return made

    same = [
        pod("a", _status("c0", requests={"cpu": "1"})),
        pod("b", _status("c0", requests={"cpu": "1"}, started="2026-05-05T05:05:05Z", restarts=3, ready=False)),
    ]
    assert requests_signature(same[0]) == requests_signature(same[1])
    unlike = [
        pod("c", _status("c0", requests={"cpu": "2"})),
        pod("d", _status("c0", requests={"cpu": "1"}, allocated={"cpu": "2"})),
        pod("e", _status("other", requests={"cpu": "1"})),
        pod("f", _status("c0")),
        pod("g"),
    ]
    keys = {requests_signature(p) for p in [same[0], *unlike]}
    assert len(keys) == 6
    assert [calculate_pod_resource(p) for p in same] == [calculate_pod_resource(same[0])] * 2
    # A resize the kubelet finds infeasible: the spec's requests no longer count.
    shrunk = [pod("h", _status("c0", requests={"cpu": "500m"}, allocated={"cpu": "500m"})) for _ in range(2)]
    shrunk[1].status.conditions = [o.PodCondition(type="PodResizePending", status="True", reason="Infeasible")]
    assert requests_signature(shrunk[0]) != requests_signature(shrunk[1])
    assert calculate_pod_resource(shrunk[0]) != calculate_pod_resource(shrunk[1])
    # So for a sidecar, whose status is among the init containers'.
    sidecars = [make_pod("s").init_req({"cpu": "1"}, sidecar=True).obj() for _ in range(2)]
    for made in sidecars:
        name = made.spec.init_containers[0].name
        made.status.init_container_statuses = [_status(name, requests={"cpu": "500m"}, allocated={"cpu": "500m"})]
    sidecars[1].status.conditions = list(shrunk[1].status.conditions)
    assert requests_signature(sidecars[0]) != requests_signature(sidecars[1])
    assert calculate_pod_resource(sidecars[0]) != calculate_pod_resource(sidecars[1])


QUANTITY = st.sampled_from(["1", "2"])
# Few requests, so that drawn pods often share all but one part.
REQUESTS = st.dictionaries(st.sampled_from(["cpu", "nvidia.com/gpu"]), QUANTITY, max_size=1)


@st.composite
def _pods_with_statuses(draw: st.DrawFn) -> o.Pod:
    builder = make_pod("p").req(draw(REQUESTS))
    if draw(st.booleans()):
        builder.init_req(draw(REQUESTS), sidecar=draw(st.booleans()))
    pod = builder.obj()
    names = [c.name for c in pod.spec.containers] + [c.name for c in pod.spec.init_containers] + ["gone"]

    def statuses() -> list[o.ContainerStatus]:
        listed = []
        for name in draw(st.lists(st.sampled_from(names), max_size=3)):
            listed.append(
                _status(
                    name,
                    requests=draw(st.none() | REQUESTS),
                    allocated=draw(st.none() | REQUESTS),
                    started=draw(st.sampled_from(["2026-01-01T00:00:00Z", "2026-02-02T02:02:02Z"])),
                    restarts=draw(st.integers(0, 2)),
                    ready=draw(st.booleans()),
                )
            )
        return listed

    pod.status.container_statuses = statuses()
    pod.status.init_container_statuses = statuses()
    reasons = draw(st.lists(st.sampled_from(["Infeasible", "Deferred", ""]), max_size=2))
    pod.status.conditions = [o.PodCondition(type="PodResizePending", status="True", reason=r) for r in reasons]
    return pod


@settings(max_examples=200, deadline=None)
@given(st.lists(_pods_with_statuses(), min_size=2, max_size=6))
def test_pods_with_one_requests_key_have_the_same_requests(pods: list[o.Pod]) -> None:
    """The requests key (types.cached_pod_resource's) holds everything calculate_pod_resource
    reads: pods with equal keys have equal requests, whatever else differs in their statuses."""
    by_key: dict[bytes, Any] = {}
    for pod in pods:
        resource = calculate_pod_resource(pod)
        assert by_key.setdefault(requests_signature(pod), resource) == resource


RESIZE_REASONS = st.lists(st.sampled_from(["Infeasible", "Deferred", ""]), max_size=2)


def _resize_conditions(reasons: list[str]) -> list[o.PodCondition]:
    return [o.PodCondition(type="PodResizePending", status="True", reason=r) for r in reasons]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_pods_with_statuses(), min_size=1, max_size=4),
    st.lists(
        st.tuples(
            st.integers(0, 3),
            RESIZE_REASONS,
            st.integers(0, 3),
            st.sampled_from(["", "init", "containers", "allocated"]),
        ),
        max_size=8,
    ),
)
def test_requests_found_by_identity_are_each_pods_own(drawn: list[o.Pod], variants: list[Any]) -> None:
    """Indexing finds a pod's requests by the identity of what they read (its containers lists, the
    resources its statuses report): pods that share some of those, or all but their
    PodResizePending condition, still get each their own requests, maps in the same order."""
    pods = list(drawn)
    for i, reasons, j, statuses in variants:
        base, other = drawn[i % len(drawn)], drawn[j % len(drawn)]
        status = msgspec.structs.replace(base.status, conditions=_resize_conditions(reasons))
        if statuses == "init":
            status.init_container_statuses = other.status.init_container_statuses
        elif statuses == "containers":
            status.container_statuses = other.status.container_statuses
        elif statuses == "allocated":  # the same reported resources, others allocated
            status.container_statuses = [
                msgspec.structs.replace(mine, allocated_resources=theirs.allocated_resources)
                for mine, theirs in zip(base.status.container_statuses, other.status.container_statuses, strict=False)
            ]
        pods.append(msgspec.structs.replace(base, status=status))
    indexing = Indexing()
    for pod in pods:
        found, own = indexing.requests(pod), calculate_pod_resource(pod)
        assert found == own
        assert list(found.requests) == list(own.requests)
        assert list(found.resource.scalar_resources) == list(own.resource.scalar_resources)


@pytest.mark.parametrize(
    ("spec", "reported", "allocated", "blind"),
    [
        # The spec asks for more than the container runs with and was allocated: an infeasible
        # resize leaves only the latter (determineEffectiveRequests).
        ({"cpu": "2"}, {"cpu": "1"}, {"cpu": "1"}, False),
        ({"cpu": "2"}, {"cpu": "1"}, {"cpu": "2"}, True),
        ({"cpu": "1"}, {"cpu": "2"}, {"cpu": "1"}, True),
        ({"cpu": "1", "nvidia.com/gpu": "1"}, {"cpu": "1"}, {"cpu": "1"}, False),
        ({"cpu": "1"}, None, None, True),
    ],
)
def test_resize_blind_when_the_condition_cannot_change_the_requests(
    spec: dict[str, str], reported: dict[str, str] | None, allocated: dict[str, str] | None, blind: bool
) -> None:
    pod = make_pod("p").req(spec).obj()
    if reported is not None:
        pod.status.container_statuses = [_status(pod.spec.containers[0].name, requests=reported, allocated=allocated)]
    for reasons in ([], ["Infeasible"], ["Deferred"]):
        pod.status.conditions = _resize_conditions(reasons)
        assert resize_blind(pod) is blind


def _reference_host_ports(pod: o.Pod) -> list[o.ContainerPort]:
    """schedutil.GetHostPorts as written: sidecar init containers' then the containers' hostPorts."""
    ports = [p for c in pod.spec.init_containers if c.restart_policy == "Always" for p in c.ports if p.host_port > 0]
    return ports + [p for c in pod.spec.containers for p in c.ports if p.host_port > 0]


def test_host_ports_in_upstreams_order() -> None:
    sidecar = {"name": "side", "restartPolicy": "Always", "ports": [{"containerPort": 9, "hostPort": 9000}]}
    plain_init = {"name": "init", "ports": [{"containerPort": 7, "hostPort": 7000}]}
    pods = [
        make_pod("none").obj(),
        make_pod("one").host_port(8080).obj(),
        make_pod("mixed").host_port(8080).host_port(8081, "UDP").spec(initContainers=[plain_init, sidecar]).obj(),
    ]
    pods[2].spec.containers[0].ports.append(o.ContainerPort(container_port=80))
    for pod in pods:
        assert host_ports(pod) == _reference_host_ports(pod)
    assert [p.host_port for p in host_ports(pods[2])] == [9000, 8080, 8081]


def test_drop_disabled_fields_only_where_the_release_drops() -> None:
    """A release with PodLevelResources on keeps every pod as it is; one without drops the
    pod-level resources (dropDisabledPodFields)."""
    from podwhy.cluster.apiserver.defaults import drop_disabled_fields

    for emulation in EMULATED.values():
        snapshot = make_snapshot(make_pod("p").pod_requests(cpu="1").obj())
        drop_disabled_fields(snapshot, emulation)
        kept = snapshot.pods[0].spec.resources is not None
        assert kept == emulation.enabled(POD_LEVEL_RESOURCES)


ANTI = {
    "podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "a"}}, "topologyKey": "kubernetes.io/hostname"}
        ]
    }
}
PREFERRED = {
    "podAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 1, "podAffinityTerm": {"labelSelector": {}, "topologyKey": "zone"}}
        ]
    }
}


def _varied_pod(i: int, kind: int) -> o.Pod:
    builder = make_pod(f"v{i}").spec(nodeName="n1")
    if kind == 0:
        builder.req(cpu="250m", memory="1Gi")
    elif kind == 1:
        builder.req({"nvidia.com/gpu": "1", "example.com/zero": "0"}).host_port(8000 + i)
    elif kind == 2:
        builder.req(cpu="1").affinity(ANTI).pvc("data").pvc("data", volume_name="again")
    elif kind == 3:
        builder.affinity(PREFERRED).init_req({"cpu": "2"}, sidecar=True).overhead(cpu="10m")
    else:
        builder.req(ephemeral_storage="1Gi").pod_requests(cpu="3", memory="2Gi").host_port(9000, "UDP")
    return builder.obj()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=4), max_size=10), st.booleans(), st.lists(PRIORITIES))
def test_pods_indexed_together_as_one_by_one(kinds: list[int], first: bool, priorities: list[int | None]) -> None:
    """NodeInfo.add_pod_infos gives the index add_pod_info gives pod after pod: the same pods,
    affinity lists, requests (scalar entries in the same order), ports and claim counts."""
    pods = [_varied_pod(i, kind) for i, kind in enumerate(kinds)]
    for pod, priority in zip(pods, priorities, strict=False):
        pod.spec.priority = priority
    node = make_node("n1").obj()
    together, one_by_one = NodeInfo.for_node(node), NodeInfo.for_node(node)
    if first:
        together.add_pod_info(PodInfo(make_pod("first").req(cpu="1").spec(nodeName="n1").obj()))
        one_by_one.add_pod_info(together.pods[0])
    infos = [PodInfo(pod) for pod in pods]
    together.add_pod_infos(infos)
    for pi in infos:
        one_by_one.add_pod_info(pi)
    assert together.pods == one_by_one.pods
    assert together.pods_with_affinity == one_by_one.pods_with_affinity
    assert together.pods_with_required_anti_affinity == one_by_one.pods_with_required_anti_affinity
    assert together.requested == one_by_one.requested
    assert list(together.requested.scalar_resources) == list(one_by_one.requested.scalar_resources)
    assert together.non_zero_requested == one_by_one.non_zero_requested
    assert together.used_ports.ports == one_by_one.used_ports.ports
    assert list(together.pvc_ref_counts.items()) == list(one_by_one.pvc_ref_counts.items())
    assert together.lowest_priority() == one_by_one.lowest_priority()
    priorities_now = [pod_priority(pi.pod) for pi in together.pods]
    assert together.lowest_priority() == (min(priorities_now) if priorities_now else None)


def test_pods_that_share_no_object_are_calculated_once_per_content(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pods of one template that share no object (as from a snapshot nothing compacted) miss
    Indexing's identities: their requests and whether their resize condition counts are then
    found by content, each calculated once, not once a pod."""
    calls: list[str] = []
    real = types.calculate_pod_resource

    def counted(pod: o.Pod) -> Any:
        calls.append(pod.metadata.name)
        return real(pod)

    monkeypatch.setattr(types, "calculate_pod_resource", counted)
    pods = []
    for i in range(20):
        pod = make_pod(f"p{i}").req(cpu="1234m").obj()
        pod.status.container_statuses = [_status(pod.spec.containers[0].name, requests={"cpu": "1234m"})]
        pods.append(pod)
    indexing = Indexing()
    assert {indexing.requests(pod).resource.milli_cpu for pod in pods} == {1234}
    assert len(calls) <= 3, calls  # the requests, then with the resize infeasible and without
