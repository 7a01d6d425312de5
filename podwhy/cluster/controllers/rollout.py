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
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import msgspec

from podwhy.cluster.apiserver.admission import podtopologylabels
from podwhy.cluster.apiserver.admission.defaulttolerationseconds import DEFAULT_TOLERATION_SECONDS
from podwhy.cluster.apiserver.admission.priority import DEFAULT_PREEMPTION_POLICY
from podwhy.cluster.apiserver.rawdefaults import (
    Json,
    canonical_quantities,
    default_pod_spec,
    default_template,
    stored_form,
)
from podwhy.framework.versions import (
    DEFAULT,
    MUTABLE_POD_RESOURCES_FOR_SUSPENDED_JOBS,
    MUTABLE_SCHEDULING_DIRECTIVES_FOR_SUSPENDED_JOBS,
    Emulation,
)
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
    # A paused Deployment (spec.paused): the controller's sync() creates no new ReplicaSet, so the
    # new template is not rolled out until it is resumed (Progressing Unknown, DeploymentPaused);
    # it still scales the ReplicaSets it has.
    PAUSED = "Paused"


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
    # How many pods it is to run when the manifest does not say (a DaemonSet: its nodes).
    replicas: int | None = None
    # A rolling update's fenceposts (None for any other update).
    max_surge: int | None = None
    max_unavailable: int | None = None
    # Whether the template was compared with the old pods only (the snapshot holds no stored
    # template): the fields podwhy does not read were not compared.
    pods_compared: bool = False
    # A Deployment's: the cluster's ReplicaSet whose template the manifest's is (FindNewReplicaSet),
    # scaled up instead of a new one ("" when the controller creates one).
    revision: str = ""
    # A Job's update: the API server's words refusing it (status Immutable), and what its
    # controller does once it applies.
    refusal: str = ""
    job: str = ""


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


def _template_view(pod: o.Pod, not_template: Collection[str] = ()) -> object:
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
    labels = {k: v for k, v in pod.metadata.labels.items() if k not in _CONTROLLER_LABELS and k not in not_template}
    raw = msgspec.to_builtins(spec)
    default_pod_spec(raw, pod=True)
    canonical_quantities(raw)  # "1000m" and "1" ask for the same
    return raw, labels


def stored_templates(snapshot: Snapshot, kind: str, namespace: str, old: Sequence[o.Pod]) -> list[Json] | None:
    """The stored pod templates a manifest of KIND is compared with, from the objects owning the
    OLD pods: their ReplicaSets' (a Deployment's or a ReplicaSet's own), or their StatefulSet's or
    Job's. None when the snapshot does not hold every one (a DaemonSet's or ReplicationController's
    template is not read): the pods are compared instead (same_template)."""
    if kind not in ("Deployment", "ReplicaSet", "StatefulSet", "Job") or not old:
        return None
    owner_kind = "ReplicaSet" if kind in ("Deployment", "ReplicaSet") else kind
    owners = {ref.name for p in old for ref in p.metadata.owner_references if ref.controller and ref.kind == owner_kind}
    found = [snapshot.raw_templates.get((owner_kind, namespace, name)) for name in sorted(owners)]
    if not found or any(data is None for data in found):
        return None
    try:
        templates = [msgspec.json.decode(data) for data in found if data is not None]
    except msgspec.DecodeError:
        return None
    return templates if all(isinstance(t, dict) for t in templates) else None


def same_template(old: Sequence[o.Pod], new: o.Pod, emulation: Emulation = DEFAULT) -> bool:
    """Every old pod asks for what the new replica asks for, in every field podwhy reads (the
    fallback when the snapshot holds no stored template: fields podwhy does not read are not
    compared). The topology labels PodTopologyLabels admission copied from the node at binding
    (on by default from v1.35) are not the template's: an old pod's are left out unless the new
    replica's template sets them."""
    view = _template_view(new)
    added: tuple[str, ...] = ()
    if podtopologylabels.enabled(emulation):
        added = tuple(key for key in podtopologylabels.TOPOLOGY_LABELS if key not in new.metadata.labels)
    return all(_template_view(p, added) == view for p in old)


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
    live = _without_hash(stored, emulation)
    return applied_template(manifest, live, emulation) == live


def _without_hash(stored: Json, emulation: Emulation) -> Json:
    """A stored template as the API server writes it, less a ReplicaSet's pod-template-hash label."""
    live = stored_form(default_template(stored, emulation))
    labels = live.get("metadata", {}).get("labels")
    if isinstance(labels, dict):
        labels.pop(POD_TEMPLATE_HASH, None)
        if not labels:
            del live["metadata"]["labels"]
    return live


@dataclass(frozen=True)
class ReplicaSetRevision:
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
    applied = applied_template(manifest, _without_hash(live, emulation), emulation)
    for revision in revisions:
        if revision.template is not None and applied == _without_hash(revision.template, emulation):
            return revision
    return None


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


POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
_PHASE_ORDINAL = {"Unknown": 1, "Running": 2}  # any other phase as Pending, 0
# An int32 as the controller accepts it: no sign but "-", no leading zeros.
_DELETION_COST = re.compile(r"-[0-9]+|0|[1-9][0-9]*")
# Sorts after any RFC 3339 time: an unknown time counts as the newest.
_UNKNOWN_TIME = "\uffff"


def _ready_since(pod: o.Pod) -> str | None:
    """When the pod became Ready (_UNKNOWN_TIME if not said), None while it is not Ready."""
    ready = next((c for c in pod.status.conditions if c.type == "Ready" and c.status == "True"), None)
    return None if ready is None else ready.last_transition_time or _UNKNOWN_TIME


def deletion_cost(pod: o.Pod) -> int:
    """The pod-deletion-cost annotation: 0 when absent or not an int32 written as the controller
    accepts it."""
    value = pod.metadata.annotations.get(POD_DELETION_COST)
    if value is None or _DELETION_COST.fullmatch(value) is None:
        return 0
    number = int(value)
    return number if -(2**31) <= number < 2**31 else 0


def _restarts(pod: o.Pod) -> tuple[int, int]:
    """The most restarts of a regular container, then of a sidecar (an init container with
    restartPolicy Always)."""
    sidecars = {c.name for c in pod.spec.init_containers if c.restart_policy == "Always"}
    regular = max((c.restart_count for c in pod.status.container_statuses), default=0)
    sidecar = max((c.restart_count for c in pod.status.init_container_statuses if c.name in sidecars), default=0)
    return regular, sidecar


def deletion_order(pods: Sequence[o.Pod], related: Sequence[o.Pod] | None = None) -> list[o.Pod]:
    """The ReplicaSet controller's preference when it scales down (ActivePodsWithRanks): unscheduled
    before scheduled; Pending, Unknown, then Running; not Ready before Ready; the lower
    pod-deletion-cost first; the pods on nodes running more of the workload's active pods (of
    RELATED, by default PODS) first; Ready the shortest time first; more container restarts first;
    the newest first (an unknown time before any). The controller compares both times in powers of
    two of their age, then by uid, which needs the clock: podwhy compares them exactly, then by name."""
    on_node: dict[str, int] = {}
    for pod in pods if related is None else related:
        if pod.status.phase not in ("Succeeded", "Failed") and pod.metadata.deletion_timestamp is None:
            on_node[pod.spec.node_name] = on_node.get(pod.spec.node_name, 0) + 1
    # Stable sorts, the least significant rule first (reverse=True keeps equal pods in order).
    out = sorted(pods, key=lambda p: p.metadata.name)
    out.sort(key=lambda p: p.metadata.creation_timestamp or _UNKNOWN_TIME, reverse=True)
    out.sort(key=_restarts, reverse=True)
    out.sort(key=lambda p: _ready_since(p) or "", reverse=True)  # (only Ready pods compare)
    out.sort(key=lambda p: on_node.get(p.spec.node_name, 0), reverse=True)
    out.sort(key=deletion_cost)
    out.sort(key=lambda p: (bool(p.spec.node_name), _PHASE_ORDINAL.get(p.status.phase, 0), _ready_since(p) is not None))
    return out


# Places one new pod and says whether it runs; removes one old pod.
PlaceFn = Callable[[o.Pod], bool]
RemoveFn = Callable[[o.Pod], None]


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
    placed = sum(1 for p in current if _available(p))
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
    out.new_replicas = placed - sum(1 for p in current if _available(p))
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


def daemon_fenceposts(strategy: o.StatefulSetUpdateStrategy | None, desired: int) -> tuple[int, int]:
    """A DaemonSet's maxSurge and maxUnavailable over the DESIRED nodes, both rounded up (defaults:
    0 and 1); both 0 makes unavailable 1."""
    rolling = strategy.rolling_update if strategy is not None else None
    surge = scaled(rolling.max_surge if rolling else None, desired, "0", round_up=True)
    unavailable = scaled(rolling.max_unavailable if rolling else None, desired, "1", round_up=True)
    if desired > 0 and surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def _available(pod: o.Pod) -> bool:
    """Whether a pod the cluster runs counts as available (podwhy reads no readiness)."""
    return bool(pod.spec.node_name) and pod.status.phase == "Running"


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
            at_once = [n for n in old_nodes if not _available(remaining[n])]
            candidates = [n for n in old_nodes if _available(remaining[n])]
            for node in at_once + candidates[: max(surge - waiting, 0)]:
                create(node)
        else:
            down = sum(1 for n in nodes if n not in remaining and n not in updated and not new.get(n))
            at_once = [n for n in old_nodes if not _available(remaining[n])]
            candidates = [n for n in old_nodes if _available(remaining[n])]
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


def scale(
    old: list[o.Pod],
    replicas: int,
    fresh: list[o.Pod],
    place: PlaceFn,
    remove: RemoveFn,
    doomed_first: Callable[[Sequence[o.Pod]], list[o.Pod]] = deletion_order,
) -> Rollout:
    """The template unchanged: the controller only scales to REPLICAS pods. Scaling down removes
    pods in its order of preference (DOOMED_FIRST); scaling up places the FRESH pods it adds. Only
    scaled, it stays Unchanged: a pod it adds that stays Pending is said as such (nothing is
    rolled out, so nothing stalls)."""
    out = Rollout(RolloutStatus.UNCHANGED, len(old))
    for pod in doomed_first(old)[: max(len(old) - replicas, 0)]:
        remove(pod)
        out.removed.append(pod.metadata.name)
    added = fresh[: max(replicas - len(old), 0)]
    out.new_replicas = sum(1 for pod in added if place(pod))
    return out


# ---------------------------------------------------------------- Jobs

INDEXED = "Indexed"


@dataclass(frozen=True)
class JobShape:
    """What of a Job's spec an update may change, and its controller reads to size it."""

    parallelism: int
    completions: int | None
    completion_mode: str
    suspend: bool
    active_deadline_seconds: int | None

    @property
    def indexed(self) -> bool:
        return self.completion_mode == INDEXED


def job_shape(spec: o.WorkloadSpec | o.JobSpec) -> JobShape:
    """A Job spec as the API server defaults it (parallelism 1, NonIndexed, not suspended)."""
    return JobShape(
        parallelism=1 if spec.parallelism is None else spec.parallelism,
        completions=spec.completions,
        completion_mode=spec.completion_mode or "NonIndexed",
        suspend=bool(spec.suspend),
        active_deadline_seconds=spec.active_deadline_seconds,
    )


@dataclass(frozen=True)
class LiveJob:
    """A Job the snapshot holds: its spec, its stored template (None when not read), its status."""

    shape: JobShape
    template: Json | None
    start_time: str | None
    succeeded: int
    # "Complete" or "Failed" once it has finished ("" while it runs).
    finished: str
    # Its JobSuspended condition is True.
    suspended_condition: bool
    # Its uid (its pods' controller-uid label).
    uid: str = ""


def live_job(job: o.Job, template: Json | None) -> LiveJob:
    conditions = {c.type: c.status for c in job.status.conditions}
    finished = next((t for t in ("Complete", "Failed") if conditions.get(t) == "True"), "")
    return LiveJob(
        shape=job_shape(job.spec),
        template=template,
        start_time=job.status.start_time,
        succeeded=job.status.succeeded or 0,
        finished=finished,
        suspended_condition=conditions.get("Suspended") == "True",
        uid=job.metadata.uid,
    )


def _go_value(value: int | str | None) -> str:
    """A field's value as field.Invalid prints it."""
    if value is None:
        return "null"
    return f'"{value}"' if isinstance(value, str) else str(value)


def job_update_refusal(
    name: str,
    manifest: Json,
    new: JobShape,
    live: LiveJob,
    active: int,
    emulation: Emulation = DEFAULT,
) -> str | None:
    """The API server's words refusing `kubectl apply` of a Job whose update its validation
    forbids (ValidateJobSpecUpdate, in its order), or None: `completions` is immutable but for an
    Indexed Job, whose completions change only with parallelism equal to them (elastic Indexed
    Jobs); the template is immutable unless the Job is suspended — then (jobStrategy's options)
    its scheduling directives (nodeSelector, node affinity, tolerations, labels, annotations,
    scheduling gates) may change if it never started (v1.35; from v1.36, the
    MutableSchedulingDirectivesForSuspendedJobs gate: if its Suspended condition is True and no pod
    is active), and with MutablePodResourcesForSuspendedJobs its containers' resources too;
    `completionMode` is immutable. `parallelism`, `suspend` and `activeDeadlineSeconds` may
    change. MANIFEST is the manifest's pod template; LIVE's template None: not compared."""
    old = live.shape
    errors: list[str] = []
    if not new.indexed:
        if new.completions != old.completions:
            errors.append(f"spec.completions: Invalid value: {_go_value(new.completions)}: field is immutable")
    elif new.completions != old.completions and new.completions is not None and new.completions != new.parallelism:
        errors.append(
            f"spec.completions: Invalid value: {new.completions}: can only be modified in tandem with spec.parallelism"
        )
    if live.template is not None and not same_stored_template(manifest, live.template, emulation):
        if not _suspended_template_change_allowed(manifest, live, active, emulation):
            errors.append("spec.template: field is immutable")
    if new.completion_mode != old.completion_mode:
        errors.append(f"spec.completionMode: Invalid value: {_go_value(new.completion_mode)}: field is immutable")
    if not errors:
        return None
    said = errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]"
    return f'The Job "{name}" is invalid: {said}'


def _suspended_template_change_allowed(manifest: Json, live: LiveJob, active: int, emulation: Emulation) -> bool:
    """validatePodTemplateUpdate for a Job that was suspended: the changes its options allow."""
    if not live.shape.suspend or live.template is None:
        return False
    scheduling = live.start_time is None
    resources = False
    if emulation.enabled(MUTABLE_SCHEDULING_DIRECTIVES_FOR_SUSPENDED_JOBS):
        scheduling = live.suspended_condition and active == 0
    if emulation.enabled(MUTABLE_POD_RESOURCES_FOR_SUSPENDED_JOBS):
        resources = live.suspended_condition and active == 0
    if not scheduling and not resources:
        return False
    old = _without_hash(live.template, emulation)
    new = applied_template(manifest, old, emulation)
    relaxed = msgspec.json.decode(msgspec.json.encode(old))
    if scheduling:
        _take_scheduling_directives(relaxed, new)
    if resources:
        _take_resources(relaxed, new)
    return bool(stored_form(relaxed) == new)


def _take_scheduling_directives(old: Json, new: Json) -> None:
    """What AllowMutableSchedulingDirectives lets change: the old template takes the new one's
    node affinity (an affinity of nothing else may be dropped), nodeSelector, tolerations,
    annotations, labels and schedulingGates."""
    old_spec, new_spec = old.setdefault("spec", {}), new.get("spec", {})
    old_meta, new_meta = old.setdefault("metadata", {}), new.get("metadata", {})
    old_affinity, new_affinity = old_spec.get("affinity"), new_spec.get("affinity")
    if new_affinity is None and isinstance(old_affinity, dict):
        old_affinity.pop("nodeAffinity", None)
        if not old_affinity:
            old_spec.pop("affinity")
    elif isinstance(new_affinity, dict):
        kept = dict(old_affinity) if isinstance(old_affinity, dict) else {}
        kept.pop("nodeAffinity", None)
        if "nodeAffinity" in new_affinity:
            kept["nodeAffinity"] = new_affinity["nodeAffinity"]
        old_spec["affinity"] = kept
    for part, source, target in (
        ("nodeSelector", new_spec, old_spec),
        ("tolerations", new_spec, old_spec),
        ("schedulingGates", new_spec, old_spec),
        ("annotations", new_meta, old_meta),
        ("labels", new_meta, old_meta),
    ):
        if part in source:
            target[part] = source[part]
        else:
            target.pop(part, None)


def _take_resources(old: Json, new: Json) -> None:
    """What AllowMutablePodResources lets change: each container's resources."""
    for kind in ("containers", "initContainers"):
        old_list, new_list = old.get("spec", {}).get(kind), new.get("spec", {}).get(kind)
        if not isinstance(old_list, list) or not isinstance(new_list, list) or len(old_list) != len(new_list):
            continue
        for before, after in zip(old_list, new_list, strict=True):
            if isinstance(before, dict) and isinstance(after, dict):
                if "resources" in after:
                    before["resources"] = after["resources"]
                else:
                    before.pop("resources", None)


def _completion_index(pod: o.Pod) -> int | None:
    value = pod.metadata.labels.get("batch.kubernetes.io/job-completion-index") or pod.metadata.annotations.get(
        "batch.kubernetes.io/job-completion-index"
    )
    return int(value) if value is not None and value.isdigit() else None


def want_active(shape: JobShape, active: int, succeeded: int) -> int:
    """manageJob: how many pods the Job controller keeps running."""
    if shape.completions is None:
        # A work queue: once one pod succeeded, what runs is left running.
        return active if succeeded > 0 else shape.parallelism
    return max(min(shape.completions - succeeded, shape.parallelism), 0)


def job_removal_order(shape: JobShape, pods: Sequence[o.Pod]) -> list[o.Pod]:
    """activePodsForRemoval: an Indexed Job's pods of an index out of range (>= completions) or
    repeated first, then controller.ActivePods' order."""
    first: list[o.Pod] = []
    left: list[o.Pod] = []
    if shape.indexed:
        seen: set[int] = set()
        for pod in sorted(pods, key=lambda p: (_completion_index(p) or 0, p.metadata.name)):
            index = _completion_index(pod)
            if index is None or index >= (shape.completions or 0) or index in seen:
                first.append(pod)
            else:
                seen.add(index)
                left.append(pod)
    else:
        left = list(pods)
    return first + deletion_order(left, related=())


class JobOutcome(StrEnum):
    """What the Job controller does once the update applies, beyond sizing the pods."""

    RUNS = "Runs"
    SUSPENDED = "Suspended"
    FINISHED = "Finished"
    DEADLINE_EXCEEDED = "DeadlineExceeded"


def job_sync(
    shape: JobShape,
    active: list[o.Pod],
    succeeded: int,
    fresh: list[o.Pod],
    place: PlaceFn,
    remove: RemoveFn,
    outcome: JobOutcome = JobOutcome.RUNS,
) -> Rollout:
    """The Job controller's syncJob once the update applies: a finished Job does nothing; a Job
    past its activeDeadlineSeconds fails (DeadlineExceeded) and a suspended one keeps no pod: every
    active pod is deleted; else manageJob deletes pods beyond the pods it wants active, or creates
    the missing ones (from FRESH, which leaves out the indexes running)."""
    out = Rollout(RolloutStatus.UNCHANGED, len(active))
    out.job = outcome
    if outcome == JobOutcome.FINISHED:
        return out
    if outcome in (JobOutcome.SUSPENDED, JobOutcome.DEADLINE_EXCEEDED):
        wanted = 0
    else:
        wanted = want_active(shape, len(active), succeeded)
    out.replicas = wanted
    if len(active) > wanted:
        for pod in job_removal_order(shape, active)[: len(active) - wanted]:
            remove(pod)
            out.removed.append(pod.metadata.name)
        return out
    if shape.indexed:
        running = {_completion_index(p) for p in active}
        fresh = [p for p in fresh if _completion_index(p) not in running]
    out.new_replicas = sum(1 for pod in fresh[: wanted - len(active)] if place(pod))
    return out
