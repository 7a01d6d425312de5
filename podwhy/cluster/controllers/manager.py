"""kube-controller-manager as `check` runs it: each workload of the manifests handed to its
controller's sync, which creates its pods (a new workload) or carries out the update of one the
cluster runs (its rollout, or scale), handing each pod it creates to the scheduler as it is
created (podcontrol.Scheduler) and each pod it deletes gone at once.

A new workload's pods are created in the controller's order; an OrderedReady StatefulSet creates
(and is charged to quotas for) an ordinal only once the one before it runs, and a Pod that names
its node goes to that node's kubelet, not to the scheduler.
"""

from __future__ import annotations

from podwhy.cluster.apiserver.admission.attributes import AdmissionRefusalError
from podwhy.cluster.apiserver.admission.resourcequota import admit_quota
from podwhy.cluster.controllers.daemonset import manage_daemon_set, update_daemon_set
from podwhy.cluster.controllers.deployment import sync_deployment
from podwhy.cluster.controllers.job import update_job
from podwhy.cluster.controllers.podcontrol import Scheduler, create_claims
from podwhy.cluster.controllers.replicaset import deletion_order, scale
from podwhy.cluster.controllers.revisions import same_template
from podwhy.cluster.controllers.rollout import PlaceFn, RemoveFn, Rollout
from podwhy.cluster.controllers.statefulset import highest_ordinal_first, one_at_a_time, update_stateful_set
from podwhy.cluster.controllers.types import ManifestWorkload, ReplicaPlacement, WorkloadPlacement
from podwhy.cluster.placementreasons import NotCreated, OrderedWait
from podwhy.model import objects as o
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict


def sync_workload(scheduler: Scheduler, workload: ManifestWorkload, snapshot: Snapshot) -> WorkloadPlacement:
    """One workload's controller: its pods created one after another, each scheduled as it is
    created (or, for a workload the cluster runs, its update)."""
    if workload.existing or workload.live_job is not None:
        return _update(scheduler, workload, snapshot)
    if workload.daemon_template is not None:
        return manage_daemon_set(scheduler, workload, snapshot)
    return _create(scheduler, workload, snapshot)


def _create(scheduler: Scheduler, workload: ManifestWorkload, snapshot: Snapshot) -> WorkloadPlacement:
    """A new workload's pods in the controller's order: one the API server refused is not created
    (FailedCreate); with OrderedReady no later ordinal is created until this one runs."""
    result = WorkloadPlacement(workload)
    waiting_for = ""
    for pod in workload.pods:
        refused = workload.refused.get(pod.metadata.name)
        if refused is not None and not waiting_for:
            reason = NotCreated(refused)
            result.replicas.append(ReplicaPlacement(pod, Verdict.UNSCHEDULABLE, reason=reason, created=False))
            if workload.ordered:  # OrderedReady: no later ordinal until this one runs
                waiting_for = pod.metadata.name
            continue
        if not waiting_for and workload.ordered:
            try:
                admit_quota(pod, snapshot)
            except AdmissionRefusalError as refusal:
                reason = NotCreated(refusal.words)
                result.replicas.append(ReplicaPlacement(pod, Verdict.UNSCHEDULABLE, reason=reason, created=False))
                waiting_for = pod.metadata.name
                continue
        if waiting_for:
            waits = OrderedWait(pod.metadata.name, waiting_for)
            result.replicas.append(ReplicaPlacement(pod, Verdict.UNSCHEDULABLE, reason=waits, created=False))
            continue
        create_claims(scheduler, workload, pod, snapshot)
        replica = scheduler.pin(pod) if pod.spec.node_name else scheduler.schedule(pod)
        result.replicas.append(replica)
        if workload.ordered and not replica.placed:
            waiting_for = pod.metadata.name
    return result


def _update(scheduler: Scheduler, workload: ManifestWorkload, snapshot: Snapshot) -> WorkloadPlacement:
    """A manifest that updates a workload the cluster runs: its controller's rollout (or scale),
    with each pod it creates scheduled as it is created and each pod it removes gone at once."""
    if workload.kind == "DaemonSet":
        return update_daemon_set(scheduler, workload, snapshot)
    result = WorkloadPlacement(workload)
    old = workload.existing
    # Each new pod's latest placement (a Pending one is tried again as old pods go).
    latest: dict[int, ReplicaPlacement] = {}

    def place_one(pod: o.Pod) -> bool:
        refused = workload.refused.get(pod.metadata.name)
        if refused is not None:
            reason = NotCreated(refused)
            latest[id(pod)] = ReplicaPlacement(pod, Verdict.UNSCHEDULABLE, reason=reason, created=False)
            return False
        if id(pod) not in latest:
            create_claims(scheduler, workload, pod, snapshot)
        replica = scheduler.schedule(pod)
        latest[id(pod)] = replica
        return replica.placed

    place: PlaceFn = place_one
    if workload.kind == "StatefulSet" and workload.ordered:
        place = one_at_a_time(place_one, workload.existing, latest, snapshot)
    new = workload.pods
    # The stored template compared in full, or else the old pods as far as podwhy reads them.
    from_pods = workload.template_unchanged is None
    emulation = workload.emulation
    unchanged = bool(new) and same_template(old, new[0], emulation) if from_pods else bool(workload.template_unchanged)
    result.rollout = _sync(workload, old, new, unchanged, place, scheduler.unbind, snapshot)
    result.rollout.pods_compared = from_pods and unchanged
    # The new pods in the controller's order, then those a paused Deployment's old ReplicaSet adds.
    ours = {id(pod) for pod in new}
    result.replicas = [latest[id(pod)] for pod in new if id(pod) in latest]
    result.replicas += [replica for key, replica in latest.items() if key not in ours]
    return result


def _sync(
    workload: ManifestWorkload,
    old: list[o.Pod],
    new: list[o.Pod],
    unchanged: bool,
    place: PlaceFn,
    remove: RemoveFn,
    snapshot: Snapshot,
) -> Rollout:
    """The rollout (or scale) of a workload that runs pods, by its controller and strategy
    (UNCHANGED: the manifest leaves its template as it is)."""
    kind = workload.kind
    if kind == "Job":
        return update_job(workload, old, new, unchanged, place, remove, snapshot)
    if unchanged or kind in ("ReplicaSet", "ReplicationController"):
        # Scaling only (a ReplicaSet's changed template applies only to the pods it adds).
        names = {p.metadata.name for p in old}
        fresh = [p for p in new if p.metadata.name not in names]
        order = highest_ordinal_first if kind == "StatefulSet" else deletion_order
        return scale(old, len(new), fresh, place, remove, order)
    if kind == "StatefulSet":
        return update_stateful_set(workload, old, new, place, remove)
    return sync_deployment(workload, old, new, place, remove)
