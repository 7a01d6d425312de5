"""NodePorts PreFilter + Filter, after the cases of upstream's node_ports_test.go."""

from __future__ import annotations

from typing import Any

import pytest

from podwhy.framework.evidence import HostPortEvidence, PortHolder
from podwhy.framework.interface import CycleState
from podwhy.framework.status import Code
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.model import objects as o
from podwhy.plugins.nodeports import ERR_REASON, NodePorts
from tests.builders import make_handle, make_node, make_pod, node_info

Json = dict[str, Any]


def ports(*specs: str) -> list[Json]:
    """ContainerPorts from "PROTOCOL/hostIP/hostPort" strings, as upstream's test builds them."""
    out = []
    for spec in specs:
        protocol, host_ip, host_port = spec.split("/")
        out.append({"protocol": protocol, "hostIP": host_ip, "hostPort": int(host_port), "containerPort": 80})
    return out


def pod_with_ports(
    *specs: str, name: str = "pod", node_name: str = "", init_ports: list[Json] | None = None, sidecar: bool = False
) -> o.Pod:
    """One container "c" with these host ports; optionally an init container (a sidecar) with others."""
    builder = make_pod(name).container("c", ports=ports(*specs))
    if node_name:
        builder.node(node_name)
    if init_ports is not None:
        init: Json = {"name": "init", "ports": init_ports}
        if sidecar:
            init["restartPolicy"] = "Always"
        builder.spec(initContainers=[init])
    return builder.obj()


def make_node_info(*existing: o.Pod) -> tuple[NodePorts, NodeInfo]:
    handle = make_handle(make_node("m1").obj(), *existing)
    return NodePorts(handle), node_info(handle, "m1")


def existing(*specs: str) -> o.Pod:
    return pod_with_ports(*specs, name="existing", node_name="m1")


SIDECAR_PORT = [{"containerPort": 8001, "hostPort": 8001, "protocol": "TCP"}]

# (name, incoming pod, pod already on the node, want PreFilter code, want Filter code)
CASES: list[tuple[str, o.Pod, o.Pod | None, Code, Code]] = [
    ("skip filter", pod_with_ports(), None, Code.Skip, Code.Success),
    ("other port", pod_with_ports("UDP/127.0.0.1/8080"), existing("UDP/127.0.0.1/9090"), Code.Success, Code.Success),
    (
        "same udp port",
        pod_with_ports("UDP/127.0.0.1/8080"),
        existing("UDP/127.0.0.1/8080"),
        Code.Success,
        Code.Unschedulable,
    ),
    (
        "same tcp port",
        pod_with_ports("TCP/127.0.0.1/8080"),
        existing("TCP/127.0.0.1/8080"),
        Code.Success,
        Code.Unschedulable,
    ),
    (
        "different host ip",
        pod_with_ports("TCP/127.0.0.1/8080"),
        existing("TCP/127.0.0.2/8080"),
        Code.Success,
        Code.Success,
    ),
    (
        "different protocol",
        pod_with_ports("UDP/127.0.0.1/8080"),
        existing("TCP/127.0.0.1/8080"),
        Code.Success,
        Code.Success,
    ),
    (
        "second udp port conflict",
        pod_with_ports("UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"),
        existing("UDP/127.0.0.1/8080"),
        Code.Success,
        Code.Unschedulable,
    ),
    (
        "first tcp port conflict",
        pod_with_ports("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
        existing("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"),
        Code.Success,
        Code.Unschedulable,
    ),
    (
        "first tcp port conflict due to 0.0.0.0 hostIP",
        pod_with_ports("TCP/0.0.0.0/8001"),
        existing("TCP/127.0.0.1/8001"),
        Code.Success,
        Code.Unschedulable,
    ),
    (
        "TCP hostPort conflict due to 0.0.0.0 hostIP",
        pod_with_ports("TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
        existing("TCP/127.0.0.1/8001"),
        Code.Success,
        Code.Unschedulable,
    ),
    (
        "second tcp port conflict to 0.0.0.0 hostIP",
        pod_with_ports("TCP/127.0.0.1/8001"),
        existing("TCP/0.0.0.0/8001"),
        Code.Success,
        Code.Unschedulable,
    ),
    (
        "second different protocol",
        pod_with_ports("UDP/127.0.0.1/8001"),
        existing("TCP/0.0.0.0/8001"),
        Code.Success,
        Code.Success,
    ),
    (
        "UDP hostPort conflict due to 0.0.0.0 hostIP",
        pod_with_ports("UDP/127.0.0.1/8001"),
        existing("TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"),
        Code.Success,
        Code.Unschedulable,
    ),
    (
        "non-sidecar initContainer using hostPort",
        pod_with_ports(init_ports=SIDECAR_PORT),
        existing("TCP/0.0.0.0/8001"),
        Code.Skip,
        Code.Success,
    ),
    (
        "TCP hostPort conflict from sidecar initContainer",
        pod_with_ports(init_ports=SIDECAR_PORT, sidecar=True),
        existing("TCP/0.0.0.0/8001"),
        Code.Success,
        Code.Unschedulable,
    ),
    # Edge cases beyond upstream's table.
    (
        "empty hostIP and protocol mean 0.0.0.0 and TCP",
        pod_with_ports("//8001"),
        existing("TCP/127.0.0.1/8001"),
        Code.Success,
        Code.Unschedulable,
    ),
    (
        "SCTP and TCP on the same host port do not conflict",
        pod_with_ports("SCTP/0.0.0.0/8001"),
        existing("TCP/0.0.0.0/8001"),
        Code.Success,
        Code.Success,
    ),
]


@pytest.mark.parametrize(
    ("pod", "on_node", "want_pre", "want_code"), [pytest.param(*case[1:], id=case[0]) for case in CASES]
)
def test_node_ports(pod: o.Pod, on_node: o.Pod | None, want_pre: Code, want_code: Code) -> None:
    plugin, node_info = make_node_info(*([on_node] if on_node else []))
    state = CycleState()
    result, status = plugin.pre_filter(state, PodInfo(pod), [node_info])
    assert result is None
    assert status.code == want_pre
    if status.is_skip():
        return
    got = plugin.filter(state, PodInfo(pod), node_info)
    assert got.code == want_code
    assert got.reasons == ([ERR_REASON] if want_code == Code.Unschedulable else [])


def test_evidence_names_conflicting_port_and_holder() -> None:
    plugin, node_info = make_node_info(existing("TCP/0.0.0.0/8001", "UDP/10.0.0.1/53"))
    pod = PodInfo(pod_with_ports("TCP/127.0.0.1/8001", "UDP/10.0.0.2/53", "//8080"))
    state = CycleState()
    plugin.pre_filter(state, pod, [node_info])
    got = plugin.filter(state, pod, node_info)
    assert got.evidence == [
        HostPortEvidence(
            host_ip="127.0.0.1",
            protocol="TCP",
            host_port=8001,
            used_by=[PortHolder(pod="default/existing", host_ip="0.0.0.0")],
        )
    ]


def test_filter_without_pre_filter_is_an_error() -> None:
    plugin, node_info = make_node_info()
    got = plugin.filter(CycleState(), PodInfo(pod_with_ports()), node_info)
    assert got.code == Code.Error
    assert got.reasons == ['reading "PreFilterNodePorts" from cycleState: not found']


def test_pre_filter_state_survives_clone() -> None:
    plugin, node_info = make_node_info(existing("TCP/0.0.0.0/8001"))
    pod = PodInfo(pod_with_ports("TCP/0.0.0.0/8001"))
    state = CycleState()
    plugin.pre_filter(state, pod, [node_info])
    assert plugin.filter(state.clone(), pod, node_info).code == Code.Unschedulable
