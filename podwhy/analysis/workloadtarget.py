"""What explain is pointed at when it is a workload (`deployment/web`, kubectl's TYPE/NAME of
Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs and ReplicationControllers):
the workload's pods through owner references (a Deployment's ReplicaSets' pods, a CronJob's
Jobs' pods), the Pending one to explain, and when none is Pending its controller's current
FailedCreate events (the pods it cannot create). Unknown names fail with the closest ones.

`failing_workloads` asks the same of every workload of a namespace for `pending`: those whose
controller reports FailedCreate now."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from podwhy.analysis.events import component_of, event_time, events_of, parse_time
from podwhy.analysis.owners import controller_ref, owner_of, replica_set_index
from podwhy.analysis.pending import is_pending
from podwhy.analysis.refusals import read_refusal
from podwhy.analysis.workloadfacts import (
    FAILED_CREATE,
    SUCCESSFUL_CREATE,
    WARNING,
    WORKLOAD_RESOURCE_NAMES,
    CreateEvent,
    PolicyRecheck,
    WorkloadFacts,
    WorkloadState,
)
from podwhy.errors import PodwhyError
from podwhy.features.emulation import Emulation
from podwhy.model import objects as o
from podwhy.model.records import replace
from podwhy.model.wellknownnames import POD_TEMPLATE_HASH
from podwhy.snapshot.cluster import Snapshot

# What kube-scheduler records when it tries a pod and no node fits: the newest says which pod of
# a workload it tried last.
FAILED_SCHEDULING = "FailedScheduling"

# The controllers' pods: the kinds whose controller creates pods itself, and the owner kind a
# Deployment's ReplicaSets and a CronJob's Jobs are found under.
CREATED_BY = {"Deployment": "ReplicaSet", "CronJob": "Job"}


def workload_kind(ref: str) -> tuple[str, str] | None:
    """(Kind, NAME) when REF is kubectl's TYPE/NAME of a workload kind; None otherwise."""
    typed, slash, name = ref.partition("/")
    kind = WORKLOAD_RESOURCE_NAMES.get(typed.lower())
    if not slash or not name or "/" in name or kind is None:
        return None
    return kind, name


def _event_namespace(event: o.Event) -> str:
    return event.involved_object.namespace or event.metadata.namespace


def _events_about(snapshot: Snapshot, kind: str, namespace: str, name: str) -> list[o.Event]:
    return [e for e in events_of(snapshot).about(kind, name) if _event_namespace(e) == namespace]


def _kept_objects(snapshot: Snapshot, kind: str) -> Iterable[o.ObjectMeta]:
    """The metadata of the snapshot's objects of KIND (Deployments and DaemonSets are not kept)."""
    if kind == "ReplicaSet":
        return (rs.metadata for rs in snapshot.replica_sets)
    if kind == "StatefulSet":
        return (sts.metadata for sts in snapshot.stateful_sets)
    if kind == "Job":
        return (job.metadata for job in snapshot.jobs.values())
    if kind == "CronJob":
        return (cj.metadata for cj in snapshot.cron_jobs.values())
    if kind == "ReplicationController":
        return (rc.metadata for rc in snapshot.replication_controllers)
    return ()


def _hashed_child(child: str, parent: str, digits: bool) -> bool:
    """Whether CHILD is named as PARENT's controller names what it creates: `<parent>-<hash>` (a
    Deployment's ReplicaSet) or `<parent>-<scheduled minutes>` (a CronJob's Job, DIGITS)."""
    suffix = child[len(parent) + 1 :] if child.startswith(parent + "-") else ""
    if not suffix or "-" in suffix:
        return False
    return suffix.isdigit() if digits else suffix.isalnum()


def workload_names(snapshot: Snapshot, kind: str, namespace: str) -> set[str]:
    """Every name of a workload of KIND in NAMESPACE the snapshot shows: its objects (where kept),
    its pods' owners, what it owns and the events about it."""
    names = {m.name for m in _kept_objects(snapshot, kind) if m.namespace == namespace}
    replica_sets = replica_set_index(snapshot)
    for pod in snapshot.pods:
        if pod.metadata.namespace != namespace:
            continue
        ref = controller_ref(pod.metadata)
        if ref is not None and ref.kind == kind:
            names.add(ref.name)
        owner = owner_of(pod, snapshot, replica_sets) if ref is not None else None
        if owner is not None and owner.kind == kind:
            names.add(owner.name)
    child = CREATED_BY.get(kind)
    if child is not None:
        for meta in _kept_objects(snapshot, child):
            ref = controller_ref(meta)
            if meta.namespace == namespace and ref is not None and ref.kind == kind:
                names.add(ref.name)
    names.update(
        e.involved_object.name
        for e in snapshot.events
        if e.involved_object.kind == kind and _event_namespace(e) == namespace and e.involved_object.name
    )
    return names


def creators(snapshot: Snapshot, kind: str, namespace: str, name: str) -> list[tuple[str, str]]:
    """The objects whose controller creates the workload's pods, as (kind, name): a Deployment's
    ReplicaSets and a CronJob's Jobs (those of the snapshot it controls, those its pods' owners
    and the events name after it: `<deployment>-<hash>`, `<cronjob>-<minutes>`), else itself."""
    child = CREATED_BY.get(kind)
    if child is None:
        return [(kind, name)]
    found: set[str] = set()
    taken: set[str] = set()  # children the snapshot shows another parent of
    digits = kind == "CronJob"
    for meta in _kept_objects(snapshot, child):
        if meta.namespace != namespace:
            continue
        ref = controller_ref(meta)
        if ref is not None and ref.kind == kind and ref.name == name:
            found.add(meta.name)
        elif ref is None and _hashed_child(meta.name, name, digits):
            found.add(meta.name)  # orphaned, named after it
        else:
            taken.add(meta.name)
    replica_sets = replica_set_index(snapshot)
    for pod in snapshot.pods:
        ref = controller_ref(pod.metadata)
        if pod.metadata.namespace != namespace or ref is None or ref.kind != child:
            continue
        owner = owner_of(pod, snapshot, replica_sets)
        if owner is not None and owner.kind == kind and owner.name == name:
            found.add(ref.name)
    for event in snapshot.events:
        about = event.involved_object
        if about.kind == child and _event_namespace(event) == namespace and about.name not in taken:
            if _hashed_child(about.name, name, digits):
                found.add(about.name)
    return [(child, n) for n in sorted(found)]


def pods_of(snapshot: Snapshot, namespace: str, owners: list[tuple[str, str]]) -> list[o.Pod]:
    """The pods the OWNERS created (their controller reference), by name."""
    wanted = set(owners)
    out = []
    for pod in snapshot.pods:
        ref = controller_ref(pod.metadata)
        if pod.metadata.namespace == namespace and ref is not None and (ref.kind, ref.name) in wanted:
            out.append(pod)
    return sorted(out, key=lambda p: p.metadata.name)


def _when(event: o.Event) -> float:
    return parse_time(event_time(event)) or 0.0


def current_failures(snapshot: Snapshot, namespace: str, owners: list[tuple[str, str]]) -> list[o.Event]:
    """The owners' FailedCreate Warning events their controller has not created a pod since (no
    newer SuccessfulCreate of the same owner), newest first."""
    out: list[o.Event] = []
    for kind, name in owners:
        events = _events_about(snapshot, kind, namespace, name)
        created = max((_when(e) for e in events if e.reason == SUCCESSFUL_CREATE), default=None)
        out += [
            e
            for e in events
            if e.reason == FAILED_CREATE and e.type == WARNING and (created is None or _when(e) > created)
        ]
    return sorted(out, key=_when, reverse=True)


def _tried_last(snapshot: Snapshot, pending: list[o.Pod]) -> o.Pod | None:
    """The Pending pod kube-scheduler tried most recently (its newest FailedScheduling event), if
    any of them has one."""
    index = events_of(snapshot)
    best: tuple[float, o.Pod] | None = None
    for pod in pending:
        times = [_when(e) for e in index.of_pod(pod, reasons=(FAILED_SCHEDULING,))]
        if times and (best is None or max(times) > best[0]):
            best = (max(times), pod)
    return best[1] if best is not None else None


def _phases(pods: list[o.Pod]) -> tuple[tuple[str, int], ...]:
    counts: dict[str, int] = {}
    for pod in pods:
        phase = pod.status.phase or "Pending"
        counts[phase] = counts.get(phase, 0) + 1
    return tuple(sorted(counts.items()))


def create_events(snapshot: Snapshot, events: list[o.Event], emulation: Emulation) -> tuple[CreateEvent, ...]:
    """The FailedCreate EVENTS as facts, each refusal's words read (a policy re-evaluated on the
    template of the object the event is about)."""
    out = []
    rechecks: dict[tuple[str, ...], PolicyRecheck] = {}  # one policy re-evaluated once per owner
    for e in events:
        ref = e.involved_object
        owner = (ref.kind, ref.name)
        out.append(
            CreateEvent(
                owner_kind=ref.kind,
                owner=ref.name,
                message=e.message,
                count=e.count or (e.series.count if e.series is not None else 0) or 1,
                last_seen=event_time(e),
                component=component_of(e),
                refusal=read_refusal(snapshot, e.message, owner, _event_namespace(e), emulation, rechecks),
            )
        )
    return tuple(out)


def _facts(snapshot: Snapshot, kind: str, namespace: str, name: str, emulation: Emulation) -> WorkloadFacts:
    """Where the workload KIND NAMESPACE/NAME stands (it is known to the snapshot)."""
    owners = creators(snapshot, kind, namespace, name)
    pods = pods_of(snapshot, namespace, owners)
    pending = [p for p in pods if is_pending(p)]
    base = WorkloadFacts(kind, namespace, name, WorkloadState.RUNNING, tuple(owners), _phases(pods))
    if pending:
        latest = _tried_last(snapshot, pending)
        chosen = latest or pending[0]
        return replace(
            base,
            state=WorkloadState.PENDING,
            pending=tuple(p.metadata.name for p in pending),
            explained=chosen.metadata.name,
            latest=latest is not None,
        )
    failures = current_failures(snapshot, namespace, owners)
    if failures:
        return replace(base, state=WorkloadState.NOT_CREATED, events=create_events(snapshot, failures, emulation))
    if not pods and ("Event" not in snapshot.kinds_seen or "Event" in snapshot.missing):
        return replace(base, state=WorkloadState.NO_EVENTS)
    return base


def _closest(name: str, candidates: Iterable[str]) -> list[str]:
    return difflib.get_close_matches(name, sorted(candidates), n=3, cutoff=0.5)


def workload_target(
    snapshot: Snapshot, kind: str, namespace: str, name: str, emulation: Emulation
) -> tuple[WorkloadFacts, o.Pod | None]:
    """The facts of the workload KIND NAMESPACE/NAME and the pod to explain (None when none of its
    pods is Pending). An unknown name fails naming the closest of the namespace's workloads of
    that kind."""
    known = workload_names(snapshot, kind, namespace)
    if name not in known:
        close = _closest(name, known)
        if close:
            hint = f"closest: {', '.join(f'{kind.lower()}/{c}' for c in close)}"
        elif known:
            hint = f"the snapshot shows {len(known)} {kind}s in namespace {namespace}"
        else:
            hint = f"the snapshot shows no {kind} in namespace {namespace}, and no pod or event of one"
        raise PodwhyError(f"{kind} {namespace}/{name} not found in the snapshot", hint=hint)
    facts = _facts(snapshot, kind, namespace, name, emulation)
    if facts.state is not WorkloadState.PENDING:
        return facts, None
    pod = next(p for p in snapshot.pods if p.metadata.namespace == namespace and p.metadata.name == facts.explained)
    return facts, pod


def failing_workloads(snapshot: Snapshot, namespace: str | None, emulation: Emulation) -> list[WorkloadFacts]:
    """The workloads of NAMESPACE (None: every namespace) whose controller reports FailedCreate
    now, each by the workload its pods are grouped under (a ReplicaSet's Deployment, a Job's
    CronJob), most events first."""
    owners: dict[tuple[str, str, str], list[o.Event]] = {}
    replica_sets = replica_set_index(snapshot)
    jobs = snapshot.jobs
    for event in snapshot.events:
        ref = event.involved_object
        event_ns = _event_namespace(event)
        if event.reason != FAILED_CREATE or event.type != WARNING or (namespace is not None and event_ns != namespace):
            continue
        kind, name = _lifted(ref.kind, event_ns, ref.name, replica_sets, jobs)
        owners.setdefault((kind, event_ns, name), []).append(event)
    out = []
    for kind, event_ns, name in sorted(owners):
        made_by = creators(snapshot, kind, event_ns, name)
        failures = current_failures(snapshot, event_ns, made_by)
        if failures:
            pods = pods_of(snapshot, event_ns, made_by)
            facts = WorkloadFacts(
                kind,
                event_ns,
                name,
                WorkloadState.NOT_CREATED,
                tuple(made_by),
                _phases(pods),
                tuple(p.metadata.name for p in pods if is_pending(p)),
                events=create_events(snapshot, failures, emulation),
            )
            out.append(facts)
    return sorted(out, key=lambda f: (-sum(e.count for e in f.events), f.namespace, f.name))


def _lifted(
    kind: str, namespace: str, name: str, replica_sets: dict[tuple[str, str], o.ReplicaSet], jobs: dict[str, o.Job]
) -> tuple[str, str]:
    """The workload a creator's pods are grouped under: a ReplicaSet's Deployment (its controller,
    else the name `<deployment>-<hash>` its pod-template-hash label shows), a Job's CronJob."""
    if kind == "ReplicaSet":
        rs = replica_sets.get((namespace, name))
        parent = controller_ref(rs.metadata) if rs is not None else None
        if parent is not None:
            return parent.kind, parent.name
        hashed = rs.metadata.labels.get(POD_TEMPLATE_HASH, "") if rs is not None else ""
        if hashed and name.endswith(f"-{hashed}") and len(name) > len(hashed) + 1:
            return "Deployment", name[: -len(hashed) - 1]
    if kind == "Job":
        job = jobs.get(f"{namespace}/{name}")
        parent = controller_ref(job.metadata) if job is not None else None
        if parent is not None and parent.kind == "CronJob":
            return parent.kind, parent.name
    return kind, name
