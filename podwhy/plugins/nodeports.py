"""NodePorts: the pod's host ports must be free on the node."""

from __future__ import annotations

from collections.abc import Hashable

import msgspec

from podwhy.framework.equivalence import NodeReader, reads_nothing
from podwhy.framework.evidence import HostPortEvidence, PortHolder
from podwhy.framework.interface import CycleState, Plugin, PreFilterResult
from podwhy.framework.signature import PodPart
from podwhy.framework.status import Status, error, skip, success, unschedulable
from podwhy.framework.types import DEFAULT_BIND_ALL_HOST_IP, HostPortInfo, NodeInfo, PodInfo, host_ports
from podwhy.model import objects as o
from podwhy.plugins import names

PRE_FILTER_STATE_KEY = "PreFilterNodePorts"

ERR_REASON = "node(s) didn't have free ports for the requested pod ports"


class _PreFilterState(msgspec.Struct, frozen=True):
    ports: tuple[o.ContainerPort, ...]

    def clone(self) -> _PreFilterState:
        # Not affected by adding or removing pods: share it.
        return self


def fits_ports(wanted: tuple[o.ContainerPort, ...] | list[o.ContainerPort], used: HostPortInfo) -> bool:
    return not any(used.check_conflict(p.host_ip, p.protocol, p.host_port) for p in wanted)


def _holders(port: o.ContainerPort, node_info: NodeInfo) -> list[PortHolder]:
    """Pods on the node whose host ports collide with `port`, by the same rule as the check."""
    wanted = HostPortInfo()
    wanted.add(port.host_ip, port.protocol, port.host_port)
    out = []
    for pi in node_info.pods:
        for used in host_ports(pi.pod):
            if wanted.check_conflict(used.host_ip, used.protocol, used.host_port):
                out.append(PortHolder(pod=pi.key, host_ip=used.host_ip or DEFAULT_BIND_ALL_HOST_IP))
    return out


class NodePorts(Plugin):
    NAME = names.NODE_PORTS
    NODE_LOCAL_FILTER = True
    CURED_BY_EMPTY_NODE = True
    POD_PARTS = frozenset({PodPart.SPEC})

    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        ports = host_ports(pod.pod)
        if not ports:
            return None, skip()
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(tuple(ports)))
        return None, success()

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status:
        st = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(st, _PreFilterState):
            # Upstream has no fallback: Filter without its PreFilter is an error.
            return error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        used = node_info.used_ports
        conflicts = [p for p in st.ports if used.check_conflict(p.host_ip, p.protocol, p.host_port)]
        if not conflicts:
            return success()
        return unschedulable(
            ERR_REASON,
            evidence=[
                HostPortEvidence(
                    host_ip=p.host_ip or DEFAULT_BIND_ALL_HOST_IP,
                    protocol=p.protocol or "TCP",
                    host_port=p.host_port,
                    used_by=_holders(p, node_info),
                )
                for p in conflicts
            ],
        )

    def filter_key(self, state: CycleState, pod: PodInfo) -> NodeReader | None:
        st = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(st, _PreFilterState):
            return reads_nothing  # the same error on every node
        ports = st.ports

        def conflict(node_info: NodeInfo) -> Hashable:
            # A conflict names the pods holding the port: such a node is its own class.
            used = node_info.used_ports
            if used.ports and any(used.check_conflict(p.host_ip, p.protocol, p.host_port) for p in ports):
                return node_info.name
            return None

        return conflict
