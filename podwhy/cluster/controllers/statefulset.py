"""The StatefulSet controller (pkg/controller/statefulset): each ordinal's claims from the volume
claim templates, its ordinals, which pods count as running and ready, OrderedReady's one ordinal
at a time (processReplica, monotonic), and its update (updateStatefulSet: RollingUpdate from the
highest ordinal down to the partition, or OnDelete)."""

from __future__ import annotations

from collections.abc import Sequence

from podwhy.cluster.apiserver.admission.attributes import AdmissionRefusalError
from podwhy.cluster.apiserver.admission.resourcequota import admit_quota
from podwhy.cluster.controllers.rollout import ON_DELETE, PlaceFn, RemoveFn, Rollout, RolloutStatus
from podwhy.cluster.controllers.types import ManifestWorkload, ReplicaPlacement
from podwhy.cluster.placementreasons import NotCreated, OrderedWait
from podwhy.model import objects as o
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict


def mount_claims(pod: o.Pod, templates: list[o.PersistentVolumeClaim], set_name: str, ordinal: int) -> None:
    """The StatefulSet controller's volumes: each claim template mounted as the volume of its name
    (replacing a template volume of that name), then the template's other volumes (updateStorage)."""
    claimed = {t.metadata.name for t in templates}
    volumes = [
        o.Volume(
            name=t.metadata.name,
            persistent_volume_claim=o.PVCVolumeSource(claim_name=f"{t.metadata.name}-{set_name}-{ordinal}"),
        )
        for t in templates
    ]
    pod.spec.volumes = volumes + [v for v in pod.spec.volumes if v.name not in claimed]


def running_and_ready(pod: o.Pod) -> bool:
    """isRunningAndReady: Running, and its Ready condition True (a dump that gives no Ready
    condition: taken as Ready)."""
    ready = next((c.status for c in pod.status.conditions if c.type == "Ready"), "True")
    return pod.status.phase == "Running" and ready == "True"


def highest_ordinal_first(pods: Sequence[o.Pod]) -> list[o.Pod]:
    """The StatefulSet controller scales down from the highest ordinal."""
    return sorted(pods, key=lambda p: ordinal(p.metadata.name), reverse=True)


def ordinal(name: str) -> int:
    tail = name.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else -1


def one_at_a_time(
    place_one: PlaceFn,
    old: Sequence[o.Pod],
    latest: dict[int, ReplicaPlacement],
    snapshot: Snapshot,
) -> PlaceFn:
    """An OrderedReady StatefulSet's controller (processReplica, monotonic): it creates an ordinal
    only once every pod before it is Running and Ready, so once one it runs is not (the lowest
    ordinal) or one it creates stays Pending (or ResourceQuota refuses it), every later ordinal
    waits, not created. Each ordinal added is charged to quotas when it is created."""
    unready = [p for p in old if not running_and_ready(p)]
    blocked = [min(unready, key=lambda p: ordinal(p.metadata.name)).metadata.name] if unready else [""]
    running = {p.metadata.name for p in old}

    def place(pod: o.Pod) -> bool:
        if blocked[0] and blocked[0] != pod.metadata.name:
            waits = OrderedWait(pod.metadata.name, blocked[0])
            latest[id(pod)] = ReplicaPlacement(pod, Verdict.UNSCHEDULABLE, reason=waits, created=False)
            return False
        if id(pod) not in latest and pod.metadata.name not in running:  # an ordinal added (not replaced)
            try:
                admit_quota(pod, snapshot)
            except AdmissionRefusalError as refusal:
                reason = NotCreated(refusal.words)
                latest[id(pod)] = ReplicaPlacement(pod, Verdict.UNSCHEDULABLE, reason=reason, created=False)
                blocked[0] = pod.metadata.name
                return False
        if place_one(pod):
            return True
        blocked[0] = pod.metadata.name
        return False

    return place


def update_stateful_set(
    workload: ManifestWorkload,
    old: list[o.Pod],
    new: list[o.Pod],
    place_one: PlaceFn,
    remove: RemoveFn,
) -> Rollout:
    """The StatefulSet controller: missing ordinals created first (in order), then, with
    RollingUpdate, from the highest ordinal down to the partition, one at a time: the old pod goes
    and the new one of its name must run before the next. OnDelete changes nothing until pods are
    deleted."""
    strategy = workload.update_strategy
    by_name = {p.metadata.name: p for p in old}
    out = Rollout(RolloutStatus.COMPLETES, len(old))
    missing = [pod for pod in new if pod.metadata.name not in by_name]
    # OrderedReady: place_one lets later ordinals wait once one stays Pending; Parallel creates all.
    created = [place_one(pod) for pod in missing]
    out.new_replicas += sum(created)
    if not all(created):
        out.status = RolloutStatus.STALLS
        return out
    extra = [p for p in old if p.metadata.name not in {n.metadata.name for n in new}]
    for pod in highest_ordinal_first(extra):
        remove(pod)
        out.removed.append(pod.metadata.name)
    if strategy is not None and strategy.type == ON_DELETE:
        out.status = RolloutStatus.WAITS_FOR_DELETION
        return out
    partition = strategy.rolling_update.partition if strategy and strategy.rolling_update else None
    for index in range(len(new) - 1, (partition or 0) - 1, -1):
        pod = new[index]
        previous = by_name.get(pod.metadata.name)
        if previous is None:
            continue
        remove(previous)
        out.removed.append(previous.metadata.name)
        if not place_one(pod):
            out.status = RolloutStatus.STALLS
            return out
        out.new_replicas += 1
    return out
