"""Every Pending pod of a snapshot, classified by why it is Pending.

A Pending pod is not always unscheduled: it may be gated, ignored by every profile, nominated
and waiting for its victims, or bound with containers that do not start. Unscheduled pods run
the scheduling cycle; the snapshot is indexed once for all of them, and pods of one owner with
identical specs are evaluated once.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import msgspec

from podwhy.framework.profile import DEFAULT_SCHEDULER_NAME
from podwhy.heap import gc_deferred
from podwhy.model import objects as o
from podwhy.runtime.config import SchedulerConfig, profile_for_pod
from podwhy.runtime.cycle import CycleOutcome, Verdict, make_framework, run_cycle
from podwhy.runtime.framework import Framework
from podwhy.snapshot.cluster import Snapshot

# Waiting reasons that mean an image problem: the image is named.
IMAGE_REASONS = frozenset({"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull"})
# Event reasons that explain a container still being created.
VOLUME_EVENT_REASONS = ("FailedAttachVolume", "FailedMount")
# The API server's default terminationGracePeriodSeconds.
DEFAULT_GRACE_PERIOD_S = 30


@dataclass
class Owner:
    kind: str
    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name} ({self.kind})"


@dataclass
class PendingPod:
    pod: o.Pod
    verdict: Verdict
    # The one-line cause pods are grouped by (for unscheduled pods: the scheduler's message).
    cause: str
    owner: Owner | None
    details: list[str] = field(default_factory=list)
    # The scheduling cycle, when one ran (shared by identical pods of one owner).
    cycle: CycleOutcome | None = None

    @property
    def key(self) -> str:
        return f"{self.pod.metadata.namespace}/{self.pod.metadata.name}"

    @property
    def group_key(self) -> tuple[str, str, str | None]:
        """Pods are reported in groups of one verdict, cause and owner."""
        return str(self.verdict), self.cause, str(self.owner) if self.owner is not None else None


def is_pending(pod: o.Pod) -> bool:
    return pod.status.phase in ("Pending", "") and pod.metadata.deletion_timestamp is None


def owner_of(pod: o.Pod, snapshot: Snapshot, replica_sets: dict[tuple[str, str], o.ReplicaSet]) -> Owner | None:
    """The pod's controller, lifted from a ReplicaSet to its Deployment when the snapshot has it."""
    ref = next((r for r in pod.metadata.owner_references if r.controller), None)
    if ref is None:
        return None
    namespace = pod.metadata.namespace
    if ref.kind == "ReplicaSet":
        rs = replica_sets.get((namespace, ref.name))
        parent = next((r for r in rs.metadata.owner_references if r.controller), None) if rs is not None else None
        if parent is not None:
            return Owner(parent.kind, namespace, parent.name)
    return Owner(ref.kind, namespace, ref.name)


def _bound_not_running(pod: o.Pod, snapshot: Snapshot, nodes: dict[str, o.Node]) -> tuple[str, list[str]]:
    """Why a bound pod's containers do not run: its node, then its containers, then its events."""
    node = nodes.get(pod.spec.node_name)
    if node is None:
        return f"bound to node {pod.spec.node_name}, which no longer exists", []
    ready = next((c for c in node.status.conditions if c.type == "Ready"), None)
    if ready is not None and ready.status != "True":
        return f"bound to node {pod.spec.node_name}, which is NotReady", []
    details: list[str] = []
    causes: list[str] = []
    statuses = [(s, True) for s in pod.status.init_container_statuses]
    statuses += [(s, False) for s in pod.status.container_statuses]
    for status, init in statuses:
        waiting = status.state.waiting if status.state is not None else None
        if waiting is None or not waiting.reason:
            if init and not (status.state is not None and status.state.terminated is not None):
                causes.append("init containers not finished")
            continue
        what = f"{'init container' if init else 'container'} {status.name}: {waiting.reason}"
        if waiting.reason in IMAGE_REASONS:
            what += f" (image {status.image})" if status.image else ""
            causes.append(f"{waiting.reason} (image {status.image})" if status.image else waiting.reason)
        elif waiting.reason == "CreateContainerConfigError":
            # The kubelet names the missing ConfigMap, Secret or key in the message.
            causes.append(f"CreateContainerConfigError: {waiting.message}" if waiting.message else waiting.reason)
        else:
            causes.append(waiting.reason)
        if waiting.message:
            what += f": {waiting.message}"
        details.append(what)
    meta = pod.metadata
    for event in snapshot.events:
        if (
            event.reason in VOLUME_EVENT_REASONS
            and event.involved_object.name == meta.name
            and (event.involved_object.namespace or event.metadata.namespace) == meta.namespace
        ):
            details.append(f"event {event.reason}: {event.message}")
            if "ContainerCreating" in causes or not causes:
                causes.append(event.reason)
    if not causes:
        return f"bound to node {pod.spec.node_name}, containers not started yet", details
    return f"bound, not running: {', '.join(dict.fromkeys(causes))}", details


def _nominated(pod: o.Pod, nodes: dict[str, o.Node], snapshot: Snapshot) -> tuple[str, list[str]]:
    """Nominated and waiting: the victims still terminating there, or a stale nomination."""
    node_name = pod.status.nominated_node_name
    if node_name not in nodes:
        return f"nominated to node {node_name}, which no longer exists (stale nomination)", []
    priority = pod.spec.priority or 0
    terminating = [
        p
        for p in snapshot.pods
        if p.spec.node_name == node_name
        and p.metadata.deletion_timestamp is not None
        and (p.spec.priority or 0) < priority
    ]
    details = [
        f"victim {p.metadata.namespace}/{p.metadata.name} terminating since {p.metadata.deletion_timestamp}"
        f" (grace period {_grace_period(p)}s)"
        for p in terminating
    ]
    if terminating:
        return f"nominated to node {node_name}, waiting for {len(terminating)} victim(s) to terminate", details
    return f"nominated to node {node_name}", details


def _grace_period(pod: o.Pod) -> int:
    seconds = pod.spec.termination_grace_period_seconds
    return DEFAULT_GRACE_PERIOD_S if seconds is None else seconds


def _has_source(volume: o.Volume) -> bool:
    return any(getattr(volume, f) is not None for f in volume.__struct_fields__ if f != "name")


def _signature(pod: o.Pod) -> bytes:
    """What makes two pods of one owner the same to the scheduler: spec, labels, nomination.

    Names of volumes the scheduler does not read (the per-pod kube-api-access-xxxxx token volume)
    are left out. Pods with generic ephemeral volumes or resource claims refer to objects of their
    own (PVCs, claims named after the pod): they are never taken for one another.
    """
    spec = pod.spec
    if spec.resource_claims or any(v.ephemeral is not None for v in spec.volumes):
        return msgspec.json.encode((pod.metadata.namespace, pod.metadata.name))
    volumes = [v if _has_source(v) else msgspec.structs.replace(v, name="") for v in spec.volumes]
    spec = msgspec.structs.replace(spec, volumes=volumes)
    return msgspec.json.encode((pod.metadata.namespace, pod.metadata.labels, spec, pod.status.nominated_node_name))


def pending_group(snapshot: Snapshot, pod: o.Pod) -> tuple[Owner | None, list[o.Pod]]:
    """The pod's pending group: the unscheduled Pending pods of its owner with identical specs,
    itself included ([] for a pod that is not one of the snapshot's, or has no owner)."""
    if pod.spec.node_name or not any(p is pod for p in snapshot.pods):
        return None, []
    replica_sets = {(rs.metadata.namespace, rs.metadata.name): rs for rs in snapshot.replica_sets}
    owner = owner_of(pod, snapshot, replica_sets)
    if owner is None:
        return None, []
    signature = _signature(pod)
    members = [
        p
        for p in snapshot.pods
        if p.metadata.namespace == pod.metadata.namespace
        and not p.spec.node_name
        and is_pending(p)
        and owner_of(p, snapshot, replica_sets) == owner
        and _signature(p) == signature
    ]
    return owner, members


def classify_pending(snapshot: Snapshot, config: SchedulerConfig, namespace: str | None = None) -> list[PendingPod]:
    """Every Pending pod (of `namespace`, or all), each with why it is Pending."""
    nodes = {n.metadata.name: n for n in snapshot.nodes}
    replica_sets = {(rs.metadata.namespace, rs.metadata.name): rs for rs in snapshot.replica_sets}
    names = frozenset(p.scheduler_name for p in config.profiles)
    frameworks: dict[str, Framework] = {}
    evaluated: dict[tuple[str, bytes], CycleOutcome] = {}
    out: list[PendingPod] = []
    for pod in snapshot.pods:
        if not is_pending(pod) or (namespace is not None and pod.metadata.namespace != namespace):
            continue
        owner = owner_of(pod, snapshot, replica_sets)
        if pod.spec.node_name:
            cause, details = _bound_not_running(pod, snapshot, nodes)
            out.append(PendingPod(pod, Verdict.BOUND_NOT_RUNNING, cause, owner, details))
            continue
        profile = profile_for_pod(config, pod)
        if profile is None:
            wanted = pod.spec.scheduler_name or DEFAULT_SCHEDULER_NAME
            out.append(PendingPod(pod, Verdict.NO_PROFILE, f"no scheduler profile named {wanted!r}", owner))
            continue
        if profile.scheduler_name not in frameworks:
            frameworks[profile.scheduler_name] = make_framework(snapshot, profile, names)
        key = (str(owner) if owner is not None else pod.metadata.uid or pod.metadata.name, _signature(pod))
        cycle = evaluated.get(key)
        if cycle is None:
            # Why a pod is Pending needs neither scores nor every plugin's row: the scheduler's own
            # short-circuit gives the same verdict and message at a fraction of the cost.
            # For the same reason one feasible node settles it: the scheduler stops there too when
            # nothing scores, and it tries the nominated node first.
            with gc_deferred():
                full = run_cycle(
                    snapshot,
                    pod,
                    framework=frameworks[profile.scheduler_name],
                    extenders=config.extenders,
                    scoring=False,
                    every_plugin=False,
                    feasible_to_find=1,
                )
            # Keep the verdict and message only: per-node rows of many pods would not fit in memory.
            cycle = evaluated[key] = dataclasses.replace(full, outcome=None, scores=None, post_filter=None)
        out.append(_from_cycle(pod, owner, cycle, nodes, snapshot))
    return out


def _from_cycle(
    pod: o.Pod, owner: Owner | None, cycle: CycleOutcome, nodes: dict[str, o.Node], snapshot: Snapshot
) -> PendingPod:
    gates = [g.name for g in pod.spec.scheduling_gates]
    if gates:
        return PendingPod(pod, Verdict.GATED, f"scheduling gates [{' '.join(gates)}]", owner, cycle=cycle)
    if pod.status.nominated_node_name:
        cause, details = _nominated(pod, nodes, snapshot)
        if pod.status.nominated_node_name in nodes and not cycle.nominated_node_fits:
            cause += " (it no longer fits there: stale nomination)"
        return PendingPod(pod, Verdict.NOMINATED, cause, owner, details, cycle)
    if cycle.verdict == Verdict.SCHEDULABLE:
        cause = "fits now: the scheduler has not bound it yet, or the cluster changed since it tried"
    elif cycle.verdict == Verdict.UNSCHEDULABLE:
        cause = cycle.message
    else:
        cause = cycle.message or str(cycle.verdict)
    return PendingPod(pod, cycle.verdict, cause, owner, cycle=cycle)
