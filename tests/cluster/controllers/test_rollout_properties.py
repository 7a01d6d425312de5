"""Invariants of the Deployment controller's rolling update (cluster/controllers/deployment.py), over generated
Deployments and node capacities: never more than replicas + maxSurge pods, never an available old
pod removed below replicas - maxUnavailable available, a completed rollout runs exactly the new
replicas, and one with room enough always completes."""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import given
from hypothesis import strategies as st

from podwhy.cluster.controllers.deployment import fenceposts, rolling_update
from podwhy.cluster.controllers.rollout import RolloutStatus
from podwhy.model import objects as o
from tests.builders import from_raw


@dataclass
class Cluster:
    """Nodes with slots; every pod takes one. Records what the controller does."""

    free: list[int]
    where: dict[int, int] = field(default_factory=dict)
    total: int = 0
    available: int = 0
    max_total: int = 0
    min_available_after_removal: int | None = None

    def place(self, pod: o.Pod) -> bool:
        if id(pod) not in self.where:
            self.total += 1
        for node, slots in enumerate(self.free):
            if slots:
                self.free[node] -= 1
                self.where[id(pod)] = node
                self.available += 1
                self.max_total = max(self.max_total, self.total)
                return True
        self.where.setdefault(id(pod), -1)
        self.max_total = max(self.max_total, self.total)
        return False

    def remove(self, pod: o.Pod) -> None:
        node = self.where.pop(id(pod))
        self.total -= 1
        if node >= 0:
            self.free[node] += 1
            self.available -= 1
            low = self.min_available_after_removal
            self.min_available_after_removal = self.available if low is None else min(low, self.available)


def _pods(prefix: str, count: int, running: bool) -> list[o.Pod]:
    status = {"phase": "Running"} if running else {"phase": "Pending"}
    spec = {"nodeName": "n"} if running else {}
    return [
        from_raw(o.Pod, {"metadata": {"name": f"{prefix}-{i}"}, "spec": spec, "status": status}) for i in range(count)
    ]


amounts = st.one_of(st.integers(0, 4), st.sampled_from(["0%", "10%", "25%", "50%", "100%"]), st.none())


@given(
    replicas=st.integers(1, 8),
    old_count=st.integers(0, 10),
    surge=amounts,
    unavailable=amounts,
    nodes=st.lists(st.integers(0, 6), min_size=1, max_size=4),
)
def test_rolling_update_bounds(
    replicas: int, old_count: int, surge: int | str | None, unavailable: int | str | None, nodes: list[int]
) -> None:
    rolling = {k: v for k, v in (("maxSurge", surge), ("maxUnavailable", unavailable)) if v is not None}
    strategy = from_raw(o.DeploymentStrategy, {"rollingUpdate": rolling})
    max_surge, max_unavailable = fenceposts(strategy, replicas)
    old = _pods("old", old_count, running=True)
    cluster = Cluster(free=[*nodes, old_count])  # the old pods' own node, full
    cluster.free[-1] = 0
    for pod in old:
        cluster.where[id(pod)] = len(nodes)
    cluster.total = cluster.available = old_count
    new = _pods("new", replicas, running=False)
    rollout = rolling_update(old, new, strategy, cluster.place, cluster.remove)
    # Pods are created only within replicas + maxSurge (or, from above it, never more than before).
    assert cluster.max_total <= max(replicas + max_surge, old_count)
    # An available old pod goes only while replicas - maxUnavailable stay available.
    if cluster.min_available_after_removal is not None:
        assert cluster.min_available_after_removal >= min(replicas - max_unavailable, old_count)
    if rollout.status is RolloutStatus.COMPLETES:
        assert (
            rollout.new_replicas == replicas
            and cluster.total == replicas
            and not cluster.where.keys() - {id(p) for p in new}
        )
    # With room for every new pod beside every old one, it always completes.
    if sum(nodes) >= replicas:
        assert rollout.status is RolloutStatus.COMPLETES
