"""The DaemonSet controller (pkg/controller/daemon): the tolerations it adds to its pods, the
nodes it runs a pod on (nodeShouldRunDaemonPod), its pod for each node (NewPod, with the node
name affinity), created and handed to the scheduler (manage), and its update: OnDelete, or the
rolling update node by node, within maxSurge and maxUnavailable (update.go's rollingUpdate)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from podwhy.cluster.apiserver.admission.attributes import AdmissionRefusalError
from podwhy.cluster.apiserver.admission.resourcequota import admit_quota
from podwhy.cluster.controllers.podcontrol import Scheduler, create_claims
from podwhy.cluster.controllers.revisions import same_template
from podwhy.cluster.controllers.rollout import (
    ON_DELETE,
    RemoveFn,
    Rollout,
    RolloutStatus,
    RolloutStep,
    is_available,
    scaled,
)
from podwhy.cluster.controllers.types import (
    ManifestWorkload,
    ReplicaPlacement,
    WorkloadPlacement,
    created_uid,
    deep_copy,
)
from podwhy.cluster.placementreasons import NotCreated
from podwhy.framework.status import Status
from podwhy.model import objects as o
from podwhy.model.wellknownnames import TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE, TAINT_NODE_UNSCHEDULABLE
from podwhy.plugins import names
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.names import generated_name
from podwhy.verdict import Verdict

DAEMON_TOLERATIONS = (
    (TAINT_NODE_NOT_READY, "NoExecute"),
    (TAINT_NODE_UNREACHABLE, "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    (TAINT_NODE_UNSCHEDULABLE, "NoSchedule"),
)
HOST_NETWORK_TOLERATION = ("node.kubernetes.io/network-unavailable", "NoSchedule")
# Filters whose verdict decides whether the DaemonSet controller creates a pod for a node.
DAEMON_PREDICATES = (names.NODE_AFFINITY, names.TAINT_TOLERATION)


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


def daemon_pod_for_node(template: o.Pod, node_name: str) -> o.Pod:
    """The DaemonSet controller's pod for one node, `<daemonset>-<5 characters>`: the template with
    a required node affinity on that node's name (replacing any required node selector terms)."""
    pod = deep_copy(template, o.Pod)
    base = pod.metadata.name
    pod.metadata.name = generated_name(base, f"{pod.metadata.namespace}/{base}/{node_name}")
    pod.metadata.uid = created_uid(pod.metadata.namespace, "Pod", pod.metadata.name)
    term = o.NodeSelectorTerm(
        match_fields=[o.NodeSelectorRequirement(key="metadata.name", operator="In", values=[node_name])]
    )
    affinity = pod.spec.affinity or o.Affinity()
    node_affinity = affinity.node_affinity or o.NodeAffinity()
    node_affinity.required_during_scheduling_ignored_during_execution = o.NodeSelector(node_selector_terms=[term])
    affinity.node_affinity = node_affinity
    pod.spec.affinity = affinity
    return pod


def daemon_nodes(scheduler: Scheduler, template: o.Pod, snapshot: Snapshot) -> tuple[list[str], dict[str, str]]:
    """The nodes the DaemonSet controller would create a pod for, and the others with why not: the
    verdicts of DAEMON_PREDICATES, run by the scheduler's own plugins for the template (every node
    when no profile serves it)."""
    outcome = scheduler.run_filters(template)
    node_names = sorted(n.metadata.name for n in snapshot.nodes)
    if outcome is None:
        return node_names, {}
    eligible: list[str] = []
    ineligible: dict[str, str] = {}
    for verdict in sorted(outcome.nodes, key=lambda v: v.name):
        failed = [
            st for name in DAEMON_PREDICATES if (st := verdict.filters.get(name)) is not None and st.is_rejected()
        ]
        if failed:
            ineligible[verdict.name] = "; ".join(_reason(st) for st in failed)
        else:
            eligible.append(verdict.name)
    return eligible, ineligible


def _reason(status: Status) -> str:
    return f"{status.plugin}: {status.message()}"


def _daemon_refusal(workload: ManifestWorkload, pod: o.Pod, snapshot: Snapshot) -> str | None:
    """The API server's words refusing a DaemonSet's pod for one node (PodSecurity refused its
    template, or a quota has no room left), or None once it is created and charged."""
    if workload.daemon_refusal:
        return f'pods "{pod.metadata.name}" is forbidden: {workload.daemon_refusal}'
    try:
        admit_quota(pod, snapshot)
    except AdmissionRefusalError as refusal:
        return refusal.words
    return None


def create_daemon_pod(
    scheduler: Scheduler, workload: ManifestWorkload, snapshot: Snapshot, node: str
) -> ReplicaPlacement:
    """The DaemonSet controller's pod for NODE, created (or refused) and scheduled."""
    template = workload.daemon_template
    assert template is not None
    admitted_without = snapshot.admitted_without.get(f"{template.metadata.namespace}/{template.metadata.name}")
    pod = daemon_pod_for_node(template, node)
    if admitted_without:
        snapshot.admitted_without[f"{pod.metadata.namespace}/{pod.metadata.name}"] = admitted_without
    refused = _daemon_refusal(workload, pod, snapshot)
    if refused is not None:
        replica = ReplicaPlacement(pod, Verdict.UNSCHEDULABLE, reason=NotCreated(refused), created=False)
    else:
        create_claims(scheduler, workload, pod, snapshot)
        replica = scheduler.schedule(pod)
    replica.target_node = node
    return replica


def manage_daemon_set(scheduler: Scheduler, workload: ManifestWorkload, snapshot: Snapshot) -> WorkloadPlacement:
    """A new DaemonSet's pod on each node its controller runs it on (manage)."""
    result = WorkloadPlacement(workload)
    assert workload.daemon_template is not None
    eligible, result.ineligible_nodes = daemon_nodes(scheduler, workload.daemon_template, snapshot)
    result.replicas = [create_daemon_pod(scheduler, workload, snapshot, node) for node in eligible]
    return result


def update_daemon_set(scheduler: Scheduler, workload: ManifestWorkload, snapshot: Snapshot) -> WorkloadPlacement:
    """A DaemonSet the cluster runs: unchanged, OnDelete, or its controller's rolling update node
    by node (a node's pod already of the new template counts as updated)."""
    result = WorkloadPlacement(workload)
    template = workload.daemon_template
    assert template is not None
    old = workload.existing
    if workload.template_unchanged is None:  # no stored template: its pods are compared
        emulation = workload.emulation
        current = [p for p in old if same_template([p], daemon_pod_for_node(template, p.spec.node_name), emulation)]
    else:  # the stored template, as the controller compares it with its ControllerRevision's
        current = list(old) if workload.template_unchanged else []
    if len(current) == len(old):
        pods_only = workload.template_unchanged is None
        result.rollout = Rollout(RolloutStatus.UNCHANGED, len(old), pods_compared=pods_only)
        return result
    if workload.update_strategy is not None and workload.update_strategy.type == ON_DELETE:
        result.rollout = Rollout(RolloutStatus.WAITS_FOR_DELETION, len(old))
        return result
    eligible, result.ineligible_nodes = daemon_nodes(scheduler, template, snapshot)
    updated = {p.spec.node_name for p in current}
    outdated = [p for p in old if p.spec.node_name not in updated]
    by_node: dict[str, o.Pod] = {}
    extra: list[str] = []
    for pod in sorted(outdated, key=lambda p: (p.metadata.creation_timestamp or "", p.metadata.name)):
        if pod.spec.node_name and pod.spec.node_name not in by_node:
            by_node[pod.spec.node_name] = pod
        else:  # not on a node, or a second one on its node: the manage loop deletes it
            scheduler.unbind(pod)
            extra.append(pod.metadata.name)
    latest: dict[str, ReplicaPlacement] = {}

    def place_on(node: str) -> bool:
        replica = latest.get(node)
        if replica is None:
            replica = latest[node] = create_daemon_pod(scheduler, workload, snapshot, node)
        elif replica.created and not replica.placed:
            replica = latest[node] = scheduler.schedule(replica.pod)
            replica.target_node = node
        return replica.placed

    result.rollout = daemon_rolling_update(
        eligible, by_node, updated, workload.update_strategy, place_on, scheduler.unbind
    )
    result.rollout.old_replicas = len(old)
    result.rollout.removed[:0] = extra
    result.replicas = [latest[node] for node in eligible if node in latest]
    return result
