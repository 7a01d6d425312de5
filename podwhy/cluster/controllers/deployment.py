"""The Deployment controller (pkg/controller/deployment): the ReplicaSets a Deployment controls
and the one its template is (FindNewReplicaSet), its rolling update within maxSurge and
maxUnavailable (rolling.go, util.ResolveFenceposts) and recreate (recreate.go), and which of them
an update of a Deployment the cluster runs comes to (syncDeployment; a paused one is only scaled,
sync.go)."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from podwhy.cluster.apiserver.defaults import Json
from podwhy.cluster.controllers.replicaset import deletion_order, scale
from podwhy.cluster.controllers.revisions import applied_template, without_hash
from podwhy.cluster.controllers.rollout import (
    RECREATE,
    PlaceFn,
    RemoveFn,
    Rollout,
    RolloutStatus,
    RolloutStep,
    is_available,
    scaled,
)
from podwhy.cluster.controllers.types import ManifestWorkload
from podwhy.features.emulation import DEFAULT, Emulation
from podwhy.model import objects as o
from podwhy.model.wellknownnames import POD_TEMPLATE_HASH
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.names import suffix

DEFAULT_MAX_SURGE = "25%"
DEFAULT_MAX_UNAVAILABLE = "25%"


class ReplicaSetRevision(msgspec.Struct, frozen=True):
    """A ReplicaSet of a Deployment, as FindNewReplicaSet reads it."""

    name: str
    pod_template_hash: str
    # Its stored template as JSON (None when the snapshot does not hold it).
    template: Json | None


def deployment_replica_sets(snapshot: Snapshot, namespace: str, name: str) -> list[ReplicaSetRevision]:
    """The ReplicaSets the Deployment NAMESPACE/NAME controls, oldest first
    (controller.ReplicaSetsByCreationTimestamp: the creation time, then the name)."""
    owned = [
        rs
        for rs in snapshot.replica_sets
        if rs.metadata.namespace == namespace
        and any(r.controller and r.kind == "Deployment" and r.name == name for r in rs.metadata.owner_references)
    ]
    owned.sort(key=lambda rs: (rs.metadata.creation_timestamp or "", rs.metadata.name))
    out = []
    for rs in owned:
        data = snapshot.raw_templates.get(("ReplicaSet", namespace, rs.metadata.name))
        template: Json | None = None
        if data is not None:
            try:
                decoded = msgspec.json.decode(data)
            except msgspec.DecodeError:
                decoded = None
            template = decoded if isinstance(decoded, dict) else None
        hashed = rs.metadata.labels.get(POD_TEMPLATE_HASH, "")
        if not hashed and template is not None:
            labels = template.get("metadata", {}).get("labels")
            hashed = labels.get(POD_TEMPLATE_HASH, "") if isinstance(labels, dict) else ""
        out.append(ReplicaSetRevision(rs.metadata.name, str(hashed), template))
    return out


def find_new_replica_set(
    manifest: Json, revisions: Sequence[ReplicaSetRevision], live: Json, emulation: Emulation = DEFAULT
) -> ReplicaSetRevision | None:
    """deploymentutil.FindNewReplicaSet: the oldest of REVISIONS whose template equals the
    Deployment's once MANIFEST is applied, ignoring the pod-template-hash label (EqualIgnoreHash).
    A rollback (the manifest of an older revision) finds that revision's ReplicaSet, which the
    controller scales up again rather than creating a new one. LIVE stands for the Deployment's
    template before the apply (the current revision's: podwhy does not read the Deployment's), whose
    labels and annotations the manifest does not name `kubectl apply` keeps (applied_template): an
    older revision's `kubectl rollout restart` annotation is not the Deployment's any more."""
    applied = applied_template(manifest, without_hash(live, emulation), emulation)
    for revision in revisions:
        if revision.template is not None and applied == without_hash(revision.template, emulation):
            return revision
    return None


def fenceposts(strategy: o.DeploymentStrategy | None, replicas: int) -> tuple[int, int]:
    """ResolveFenceposts: maxSurge rounded up, maxUnavailable down; both 0 makes unavailable 1."""
    rolling = strategy.rolling_update if strategy is not None else None
    surge = scaled(rolling.max_surge if rolling else None, replicas, DEFAULT_MAX_SURGE, round_up=True)
    unavailable = scaled(rolling.max_unavailable if rolling else None, replicas, DEFAULT_MAX_UNAVAILABLE, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def rolling_update(
    old: list[o.Pod],
    new: list[o.Pod],
    strategy: o.DeploymentStrategy | None,
    place: PlaceFn,
    remove: RemoveFn,
    current: Sequence[o.Pod] = (),
) -> Rollout:
    """The Deployment controller's rolling update, round by round: the new ReplicaSet grows while
    all pods stay within replicas + maxSurge; old pods go while at least replicas - maxUnavailable
    are available (unavailable old pods first). Stops when a round changes nothing. CURRENT: the
    pods the new ReplicaSet already runs (a rollout under way, or a rollback to a ReplicaSet that
    kept some), NEW the pods it is still to create."""
    replicas = len(new) + len(current)
    surge, unavailable = fenceposts(strategy, replicas)
    out = Rollout(RolloutStatus.STALLS, len(old), max_surge=surge, max_unavailable=unavailable)
    remaining = deletion_order(old)
    available_old = {id(p) for p in remaining if p.spec.node_name and p.status.phase == "Running"}
    new = [*current, *new]
    created = len(current)
    placed = sum(1 for p in current if is_available(p))
    waiting: list[o.Pod] = []  # new pods left Pending: the scheduler retries them as room frees
    while True:
        changed = False
        for pod in list(waiting):
            if place(pod):
                waiting.remove(pod)
                placed += 1
                changed = True
        # reconcileNewReplicaSet: scale up within maxSurge.
        total = len(remaining) + created
        room = min(replicas + surge - total, replicas - created)
        for _ in range(max(room, 0)):
            pod = new[created]
            created += 1
            changed = True
            if place(pod):
                placed += 1
            else:
                waiting.append(pod)
        # reconcileOldReplicaSets: unavailable old pods first, then down to minAvailable, each in
        # the ReplicaSet controller's order (which counts the new pods on each node too).
        remaining = deletion_order(remaining, [*remaining, *new[:created]])
        min_available = replicas - unavailable
        new_unavailable = created - placed
        budget = len(remaining) + created - min_available - new_unavailable
        for pod in [p for p in remaining if id(p) not in available_old]:
            if budget <= 0:
                break
            remaining.remove(pod)
            remove(pod)
            out.removed.append(pod.metadata.name)
            budget -= 1
            changed = True
        available = sum(1 for p in remaining if id(p) in available_old) + placed
        down = min(available - min_available, len(remaining))
        for pod in list(remaining)[: max(down, 0)]:
            remaining.remove(pod)
            remove(pod)
            out.removed.append(pod.metadata.name)
            changed = True
        if not changed:
            break
        out.steps.append(RolloutStep(len(remaining), created, placed))
        if created == replicas and placed == replicas and not remaining:
            out.status = RolloutStatus.COMPLETES
            break
    out.new_replicas = placed - sum(1 for p in current if is_available(p))
    return out


def recreate(old: list[o.Pod], new: list[o.Pod], place: PlaceFn, remove: RemoveFn) -> Rollout:
    """Recreate: every old pod goes, then the new ones are created."""
    out = Rollout(RolloutStatus.STALLS, len(old))
    for pod in old:
        remove(pod)
        out.removed.append(pod.metadata.name)
    out.new_replicas = sum(1 for pod in new if place(pod))
    out.steps.append(RolloutStep(0, len(new), out.new_replicas))
    if out.new_replicas == len(new):
        out.status = RolloutStatus.COMPLETES
    return out


def sync_deployment(
    workload: ManifestWorkload, old: list[o.Pod], new: list[o.Pod], place: PlaceFn, remove: RemoveFn
) -> Rollout:
    """The Deployment controller's sync of a Deployment the cluster runs whose template the
    manifest changes: paused, the old ReplicaSet only scaled (its pods of the old template);
    else recreate or the rolling update. The new ReplicaSet's own pods (WORKLOAD.current: a
    rollback to a revision that kept some) are not created again."""
    current = workload.current
    if current:
        running = {id(p) for p in current}
        old = [p for p in old if id(p) not in running]
        new = new[: max(len(new) - len(current), 0)]
    if workload.paused:
        # sync(): no new ReplicaSet is created while paused; scale() sizes the old one, whose pods
        # are of the old template.
        fresh = [_old_template_pod(old, index) for index in range(max(len(new) - len(old), 0))]
        rollout = scale(old, len(new), fresh, place, remove)
        rollout.status = RolloutStatus.PAUSED
        return rollout
    if workload.strategy is not None and workload.strategy.type == RECREATE:
        rollout = recreate(old, new, place, remove)
    else:
        rollout = rolling_update(old, new, workload.strategy, place, remove, current)
    if workload.progress_deadline_seconds is not None:
        rollout.progress_deadline_seconds = workload.progress_deadline_seconds
    rollout.revision = workload.new_replica_set
    return rollout


def _old_template_pod(old: Sequence[o.Pod], index: int) -> o.Pod:
    """A pod the old ReplicaSet adds when a paused Deployment is scaled up: the newest old pod's
    template, unbound, named `<replicaset>-<podwhy's 5 characters>`."""
    model = max(old, key=lambda p: (p.metadata.creation_timestamp or "", p.metadata.name))
    owner = next((ref for ref in model.metadata.owner_references if ref.controller), None)
    base = f"{owner.name}-" if owner is not None else model.metadata.generate_name
    name = base + suffix(f"scale/{model.metadata.namespace}/{base}/{index}")
    meta = model.metadata
    return msgspec.structs.replace(
        model,
        metadata=msgspec.structs.replace(meta, name=name, uid=f"uid-scale-{meta.namespace}-{name}"),
        spec=msgspec.structs.replace(model.spec, node_name=""),
        status=o.PodStatus(phase="Pending"),
    )
