"""What sizing reads of one unchanged snapshot, found once for every group and cause sized in a
run (`podwhy pending` sizes up to 5 groups and 5 causes, explain one group and one added node):
the startup pods of each node, each node's shape, the distinct new-node shapes, each profile's
framework, and the Filter cycle of a group's first pod. Each is what the functions that used to
find it per group return, so sharing them changes no answer; the snapshot must not change while
one SizingShared is used (placements work on copies: with_copies)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from podwhy.analysis.verdictgroups import VerdictGroups
from podwhy.cluster.nodecopy import startup_pods_by_node
from podwhy.framework.runtime import Framework
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.model import objects as o
from podwhy.scheduler.config import SchedulerConfig
from podwhy.scheduler.cycle import FILTER_ONLY, CycleOutcome, run_cycle
from podwhy.snapshot.cluster import Snapshot


class SizingShared:
    """Facts of one snapshot, each found when first asked for."""

    __slots__ = (
        "_cycles",
        "_grouped",
        "_named",
        "_node_shapes",
        "_pod_infos",
        "_shapes",
        "_startup",
        "frameworks",
        "snapshot",
    )

    def __init__(self, snapshot: Snapshot, frameworks: Mapping[str, Framework] | None = None) -> None:
        self.snapshot = snapshot
        # Per profile name, a framework over the snapshot (the caller's, else made once).
        self.frameworks: dict[str, Framework] = dict(frameworks or {})
        self._startup: dict[str, list[o.Pod]] | None = None
        self._node_shapes: dict[str, str] = {}
        self._shapes: list[NodeInfo] | None = None
        self._pod_infos: dict[int, PodInfo] | None = None
        # By the pod's id and profile name: the pod (kept, so that its id stays its) and its cycle.
        self._cycles: dict[tuple[int, str], tuple[o.Pod, CycleOutcome]] = {}
        self._grouped: VerdictGroups | None = None
        self._named: dict[str, o.Node] | None = None

    def startup(self) -> dict[str, list[o.Pod]]:
        """startup_pods_by_node of the snapshot."""
        if self._startup is None:
            self._startup = startup_pods_by_node(self.snapshot)
        return self._startup

    def nodes_by_name(self) -> dict[str, o.Node]:
        """The snapshot's nodes by name."""
        if self._named is None:
            self._named = {n.metadata.name: n for n in self.snapshot.nodes}
        return self._named

    def verdict_groups(self, cycle: CycleOutcome) -> VerdictGroups:
        """The node verdicts of CYCLE grouped by their shared statuses (the last cycle's kept)."""
        assert cycle.outcome is not None
        self._grouped = VerdictGroups.of(cycle.outcome.nodes, self._grouped)
        return self._grouped

    def node_shape(self, node: o.Node, shape: Callable[[o.Node], str]) -> str:
        """SHAPE of the node (a pure function of it), by the node's name: names are unique in a snapshot."""
        name = node.metadata.name
        found = self._node_shapes.get(name)
        if found is None:
            found = self._node_shapes[name] = shape(node)
        return found

    def pod_info(self, pod: o.Pod) -> PodInfo:
        """The PodInfo a framework over the snapshot indexed for the pod (its requests already
        computed), else a new one: the same requests either way."""
        if self._pod_infos is None:
            self._pod_infos = {
                id(info.pod): info
                for framework in self.frameworks.values()
                for node_info in framework.handle.node_infos
                for info in node_info.pods
            }
        return self._pod_infos.get(id(pod)) or PodInfo(pod)

    def allocatable_shapes(self, make: Callable[[SizingShared], list[NodeInfo]]) -> list[NodeInfo]:
        if self._shapes is None:
            self._shapes = make(self)
        return self._shapes

    def filter_cycle(self, pod: o.Pod, framework: Framework, config: SchedulerConfig) -> CycleOutcome:
        """run_cycle of the pod with every plugin on every node, no scoring (FILTER_ONLY), once
        per pod and profile: a cycle reads the framework's indexes and changes none of them."""
        key = (id(pod), framework.profile.scheduler_name)
        found = self._cycles.get(key)
        if found is None:
            cycle = run_cycle(self.snapshot, pod, framework=framework, extenders=config.extenders, options=FILTER_ONLY)
            found = self._cycles[key] = (pod, cycle)
        return found[1]
