"""The DaemonSet controller (pkg/controller/daemon): the tolerations it adds to its pods, and its
rolling update node by node, within maxSurge and maxUnavailable (rolling_update.go)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from podwhy.cluster.controllers.rollout import RemoveFn, Rollout, RolloutStatus, RolloutStep, is_available, scaled
from podwhy.model import objects as o
from podwhy.model.wellknownnames import TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE, TAINT_NODE_UNSCHEDULABLE

DAEMON_TOLERATIONS = (
    (TAINT_NODE_NOT_READY, "NoExecute"),
    (TAINT_NODE_UNREACHABLE, "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    (TAINT_NODE_UNSCHEDULABLE, "NoSchedule"),
)
HOST_NETWORK_TOLERATION = ("node.kubernetes.io/network-unavailable", "NoSchedule")


def add_daemon_tolerations(pod: o.Pod) -> None:
    """The tolerations the DaemonSet controller adds to its pods (util.AddOrUpdateDaemonPodTolerations)."""
    wanted = list(DAEMON_TOLERATIONS)
    if pod.spec.host_network:
        wanted.append(HOST_NETWORK_TOLERATION)
    for key, effect in wanted:
        if not any(t.key == key and t.effect == effect for t in pod.spec.tolerations):
            pod.spec.tolerations.append(o.Toleration(key=key, operator="Exists", effect=effect))


def daemon_fenceposts(strategy: o.StatefulSetUpdateStrategy | None, desired: int) -> tuple[int, int]:
    """A DaemonSet's maxSurge and maxUnavailable over the DESIRED nodes, both rounded up (defaults:
    0 and 1); both 0 makes unavailable 1."""
    rolling = strategy.rolling_update if strategy is not None else None
    surge = scaled(rolling.max_surge if rolling else None, desired, "0", round_up=True)
    unavailable = scaled(rolling.max_unavailable if rolling else None, desired, "1", round_up=True)
    if desired > 0 and surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


# Creates (or, once created, schedules again) the new pod for a node and says whether it runs.
PlaceOnNodeFn = Callable[[str], bool]


def daemon_rolling_update(
    nodes: Sequence[str],
    old: dict[str, o.Pod],
    updated: Collection[str],
    strategy: o.StatefulSetUpdateStrategy | None,
    place: PlaceOnNodeFn,
    remove: RemoveFn,
) -> Rollout:
    """The DaemonSet controller's rolling update over the NODES it is to run on (in order; the
    controller walks them in no particular order), OLD the pod of the previous template on each
    node, UPDATED the nodes that already run the new one. With maxSurge 0, at most maxUnavailable
    nodes are without an available pod at once: an old pod is deleted first, then its node's new
    pod created (an unavailable old pod is replaced at once). With maxSurge > 0, the new pod is
    created beside the old one on at most maxSurge nodes at once, and the old pod is deleted once
    the new one runs: a node without room for both keeps its old pod, its new one Pending. Nodes
    the new template no longer runs on lose their pod; nodes without one get the new pod."""
    wanted = set(nodes)
    surge, unavailable = daemon_fenceposts(strategy, len(nodes))
    out = Rollout(RolloutStatus.STALLS, len(old), max_surge=surge, max_unavailable=unavailable)
    out.replicas = len(nodes)
    remaining = dict(old)
    for node in sorted(old):
        if node not in wanted:  # the manage loop deletes pods where the node should not run it
            out.removed.append(remaining.pop(node).metadata.name)
            remove(old[node])
    new: dict[str, bool] = {}  # node -> whether its new pod runs

    def create(node: str) -> None:
        new[node] = place(node)

    def drop(node: str) -> None:
        pod = remaining.pop(node)
        remove(pod)
        out.removed.append(pod.metadata.name)

    while True:
        before = (len(remaining), len(new), sum(new.values()))
        for node in [n for n in nodes if n in new and not new[n]]:  # the scheduler tries again
            new[node] = place(node)
        for node in [n for n in nodes if n not in remaining and n not in new and n not in updated]:  # manage loop
            create(node)
        old_nodes = [n for n in nodes if n in remaining and n not in new]
        if surge > 0:
            for node in [n for n in nodes if n in remaining and new.get(n)]:
                drop(node)  # its new pod runs
            waiting = sum(1 for n in nodes if n in remaining and n in new and not new[n])
            at_once = [n for n in old_nodes if not is_available(remaining[n])]
            candidates = [n for n in old_nodes if is_available(remaining[n])]
            for node in at_once + candidates[: max(surge - waiting, 0)]:
                create(node)
        else:
            down = sum(1 for n in nodes if n not in remaining and n not in updated and not new.get(n))
            at_once = [n for n in old_nodes if not is_available(remaining[n])]
            candidates = [n for n in old_nodes if is_available(remaining[n])]
            room = max(unavailable - down - len(at_once), 0)
            for node in at_once + candidates[:room]:
                drop(node)
        after = (len(remaining), len(new), sum(new.values()))
        if after == before:
            break
        out.steps.append(RolloutStep(len(remaining), len(new) + len(updated), sum(new.values()) + len(updated)))
    out.new_replicas = sum(new.values())
    if not remaining and len(new) + len(updated) == len(nodes) and all(new.values()):
        out.status = RolloutStatus.COMPLETES
    return out
