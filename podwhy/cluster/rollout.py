"""What the workload controllers do when a manifest updates a workload the cluster already runs
(`check`): the Deployment controller's rolling update or recreate (pkg/controller/deployment:
rolling.go, recreate.go, util.ResolveFenceposts), scaling in the ReplicaSet controller's order of
preference (controller_utils.ActivePods), the StatefulSet controller's ordinal-by-ordinal update,
and the templates that cannot change.

The pods of the workload the snapshot holds are its old pods. Pods podwhy places count as
available at once: readiness, minReadySeconds and probes are not simulated (the report says so).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import msgspec

from podwhy.cluster.admission import DEFAULT_PREEMPTION_POLICY, DEFAULT_TOLERATION_SECONDS
from podwhy.cluster.rawdefaults import Json, canonical_quantities, default_pod_spec, default_template, stored_form
from podwhy.framework.versions import DEFAULT, Emulation
from podwhy.model import objects as o
from podwhy.model.wellknown import (
    CONTROLLER_REVISION_HASH,
    POD_TEMPLATE_HASH,
    TAINT_NODE_NOT_READY,
    TAINT_NODE_UNREACHABLE,
)
from podwhy.snapshot.cluster import Snapshot

DEFAULT_MAX_SURGE = "25%"
DEFAULT_MAX_UNAVAILABLE = "25%"
DEFAULT_PROGRESS_DEADLINE_SECONDS = 600
ROLLING_UPDATE, RECREATE, ON_DELETE = "RollingUpdate", "Recreate", "OnDelete"

# Labels a controller sets per revision or per pod: not part of what the template asks for.
_CONTROLLER_LABELS = frozenset(
    {
        POD_TEMPLATE_HASH,
        CONTROLLER_REVISION_HASH,
        "pod-template-generation",
        "statefulset.kubernetes.io/pod-name",
        "apps.kubernetes.io/pod-index",
        "batch.kubernetes.io/controller-uid",
        "controller-uid",
        "batch.kubernetes.io/job-name",
        "job-name",
        "batch.kubernetes.io/job-completion-index",
    }
)
# Volumes the API server adds to every pod (the ServiceAccount admission's token volume).
_TOKEN_VOLUME_PREFIX = "kube-api-access-"


class RolloutStatus(StrEnum):
    """What applying the manifest does to a workload the cluster runs."""

    UNCHANGED = "Unchanged"
    COMPLETES = "Completes"
    STALLS = "Stalls"
    # The template cannot change (a Job's): `kubectl apply` fails.
    IMMUTABLE = "Immutable"
    # OnDelete: nothing changes until pods are deleted.
    WAITS_FOR_DELETION = "WaitsForDeletion"


@dataclass
class RolloutStep:
    """One round of the controllers: how many old and new pods there are, and how many new ones
    run."""

    old: int
    new: int
    new_placed: int


@dataclass
class Rollout:
    status: RolloutStatus
    old_replicas: int
    new_replicas: int = 0
    # The old pods the controllers removed ("name"), in order.
    removed: list[str] = field(default_factory=list)
    steps: list[RolloutStep] = field(default_factory=list)
    progress_deadline_seconds: int = DEFAULT_PROGRESS_DEADLINE_SECONDS
    max_surge: int = 0
    max_unavailable: int = 0
    # Whether the template was compared with the old pods only (the snapshot holds no stored
    # template): the fields podwhy does not read were not compared.
    pods_compared: bool = False


def owned_by(pod: o.Pod, kind: str, name: str) -> bool:
    """POD belongs to the workload: its controller reference names it, or for a Deployment its
    ReplicaSet, which the Deployment controller names `<deployment>-<pod-template-hash>`."""
    ref = next((r for r in pod.metadata.owner_references if r.controller), None)
    if ref is None:
        return False
    if kind == "Deployment":
        hashed = pod.metadata.labels.get(POD_TEMPLATE_HASH)
        return ref.kind == "ReplicaSet" and hashed is not None and ref.name == f"{name}-{hashed}"
    return ref.kind == kind and ref.name == name


def existing_pods(snapshot: Snapshot, kind: str, namespace: str, name: str) -> list[o.Pod]:
    """The pods the snapshot holds of the workload (KIND NAMESPACE/NAME): not ended, not deleted."""
    return [
        p
        for p in snapshot.pods
        if p.metadata.namespace == namespace
        and p.status.phase not in ("Succeeded", "Failed")
        and p.metadata.deletion_timestamp is None
        and owned_by(p, kind, name)
    ]


def _template_view(pod: o.Pod) -> object:
    """What a pod's template asked for, as far as podwhy reads pods: its spec without the node and
    the ServiceAccount's token volume, with what the API server's defaulting and admission fill in
    on every pod (so a dump stripped of those compares alike), and its labels without the
    controller's."""
    tolerations = list(pod.spec.tolerations)
    for key in (TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE):
        if not any(t.key == key and t.effect == "NoExecute" for t in tolerations):
            tolerations.append(
                o.Toleration(
                    key=key, operator="Exists", effect="NoExecute", toleration_seconds=DEFAULT_TOLERATION_SECONDS
                )
            )
    spec = msgspec.structs.replace(
        pod.spec,
        node_name="",
        volumes=[v for v in pod.spec.volumes if not v.name.startswith(_TOKEN_VOLUME_PREFIX)],
        tolerations=sorted(tolerations, key=lambda t: msgspec.json.encode(t)),
        priority=pod.spec.priority or 0,
        preemption_policy=pod.spec.preemption_policy or DEFAULT_PREEMPTION_POLICY,
    )
    labels = {k: v for k, v in pod.metadata.labels.items() if k not in _CONTROLLER_LABELS}
    raw = msgspec.to_builtins(spec)
    default_pod_spec(raw, pod=True)
    canonical_quantities(raw)  # "1000m" and "1" ask for the same
    return raw, labels


def stored_templates(snapshot: Snapshot, kind: str, namespace: str, old: Sequence[o.Pod]) -> list[Json] | None:
    """The stored pod templates a manifest of KIND is compared with, from the objects owning the
    OLD pods: their ReplicaSets' (a Deployment's or a ReplicaSet's own), or their StatefulSet's.
    None when the snapshot does not hold every one (a DaemonSet's, Job's or ReplicationController's
    template is not read): the pods are compared instead (same_template)."""
    if kind not in ("Deployment", "ReplicaSet", "StatefulSet") or not old:
        return None
    owner_kind = "StatefulSet" if kind == "StatefulSet" else "ReplicaSet"
    owners = {ref.name for p in old for ref in p.metadata.owner_references if ref.controller and ref.kind == owner_kind}
    found = [snapshot.raw_templates.get((owner_kind, namespace, name)) for name in sorted(owners)]
    if not found or any(data is None for data in found):
        return None
    try:
        templates = [msgspec.json.decode(data) for data in found if data is not None]
    except msgspec.DecodeError:
        return None
    return templates if all(isinstance(t, dict) for t in templates) else None


def same_template(old: Sequence[o.Pod], new: o.Pod) -> bool:
    """Every old pod asks for what the new replica asks for, in every field podwhy reads (the
    fallback when the snapshot holds no stored template: fields podwhy does not read are not
    compared)."""
    view = _template_view(new)
    return all(_template_view(p) == view for p in old)


def applied_template(manifest: Json, live: Json, emulation: Emulation = DEFAULT) -> Json:
    """The template `kubectl apply` of MANIFEST's template leaves on a workload whose stored
    template is LIVE, as the API server stores it: the manifest's, defaulted, with the live
    template's labels and annotations the manifest does not name kept (its three-way merge keeps
    a field it did not apply before, such as `kubectl rollout restart`'s
    kubectl.kubernetes.io/restartedAt). Other live-only fields are not merged: podwhy does not
    read the last-applied-configuration, so a field set by another client (`kubectl set env`)
    and absent from the manifest counts as a change."""
    applied = default_template(manifest, emulation)
    meta = applied.setdefault("metadata", {})
    live_meta = live.get("metadata")
    if isinstance(meta, dict) and isinstance(live_meta, dict):
        for part in ("labels", "annotations"):
            kept = live_meta.get(part)
            if isinstance(kept, dict) and kept:
                mine = meta.get(part)
                meta[part] = {**kept, **(mine if isinstance(mine, dict) else {})}
    return stored_form(applied)


def same_stored_template(manifest: Json, stored: Json, emulation: Emulation = DEFAULT) -> bool:
    """Whether applying MANIFEST's pod template leaves the STORED one as it is, every field
    compared as the API server stores it: what decides whether the controllers create new pods
    (the Deployment controller hashes the whole template into pod-template-hash and looks for the
    ReplicaSet whose template equals it but for that label; the StatefulSet and DaemonSet
    controllers compare the template with their ControllerRevision's). STORED is read as stored
    (defaulting it again changes nothing), less a ReplicaSet's pod-template-hash label."""
    live = stored_form(default_template(stored, emulation))
    labels = live.get("metadata", {}).get("labels")
    if isinstance(labels, dict):
        labels.pop(POD_TEMPLATE_HASH, None)
        if not labels:
            del live["metadata"]["labels"]
    return applied_template(manifest, live, emulation) == live


def scaled(value: int | str | None, total: int, default: str, round_up: bool) -> int:
    """intstr.GetScaledValueFromIntOrPercent: an integer, or a percentage of TOTAL rounded up
    (maxSurge) or down (maxUnavailable)."""
    raw = default if value is None else value
    if isinstance(raw, int):
        return raw
    if raw.endswith("%") and raw[:-1].isdigit():
        exact = int(raw[:-1]) * total / 100
        return math.ceil(exact) if round_up else math.floor(exact)
    return int(raw) if raw.isdigit() else 0


def fenceposts(strategy: o.DeploymentStrategy | None, replicas: int) -> tuple[int, int]:
    """ResolveFenceposts: maxSurge rounded up, maxUnavailable down; both 0 makes unavailable 1."""
    rolling = strategy.rolling_update if strategy is not None else None
    surge = scaled(rolling.max_surge if rolling else None, replicas, DEFAULT_MAX_SURGE, round_up=True)
    unavailable = scaled(rolling.max_unavailable if rolling else None, replicas, DEFAULT_MAX_UNAVAILABLE, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def deletion_order(pods: Sequence[o.Pod]) -> list[o.Pod]:
    """The ReplicaSet controller's preference when it scales down (ActivePods): unscheduled
    before scheduled, Pending before Running, then the newest first (podwhy reads no readiness)."""
    by_name = sorted(pods, key=lambda p: p.metadata.name)
    newest_first = sorted(by_name, key=lambda p: p.metadata.creation_timestamp or "", reverse=True)
    return sorted(newest_first, key=lambda p: (bool(p.spec.node_name), p.status.phase == "Running"))


# Places one new pod and says whether it runs; removes one old pod.
PlaceFn = Callable[[o.Pod], bool]
RemoveFn = Callable[[o.Pod], None]


def rolling_update(
    old: list[o.Pod],
    new: list[o.Pod],
    strategy: o.DeploymentStrategy | None,
    place: PlaceFn,
    remove: RemoveFn,
) -> Rollout:
    """The Deployment controller's rolling update, round by round: the new ReplicaSet grows while
    all pods stay within replicas + maxSurge; old pods go while at least replicas - maxUnavailable
    are available (unavailable old pods first). Stops when a round changes nothing."""
    replicas = len(new)
    surge, unavailable = fenceposts(strategy, replicas)
    out = Rollout(RolloutStatus.STALLS, len(old), max_surge=surge, max_unavailable=unavailable)
    remaining = deletion_order(old)
    available_old = {id(p) for p in remaining if p.spec.node_name and p.status.phase == "Running"}
    created = 0
    placed = 0
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
        # reconcileOldReplicaSets: unavailable old pods first, then down to minAvailable.
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
    out.new_replicas = placed
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


def scale(
    old: list[o.Pod],
    replicas: int,
    fresh: list[o.Pod],
    place: PlaceFn,
    remove: RemoveFn,
    doomed_first: Callable[[Sequence[o.Pod]], list[o.Pod]] = deletion_order,
) -> Rollout:
    """The template unchanged: the controller only scales to REPLICAS pods. Scaling down removes
    pods in its order of preference (DOOMED_FIRST); scaling up places the FRESH pods it adds."""
    out = Rollout(RolloutStatus.UNCHANGED, len(old))
    for pod in doomed_first(old)[: max(len(old) - replicas, 0)]:
        remove(pod)
        out.removed.append(pod.metadata.name)
    added = fresh[: max(replicas - len(old), 0)]
    out.new_replicas = sum(1 for pod in added if place(pod))
    if out.new_replicas < len(added):
        out.status = RolloutStatus.STALLS
    return out
