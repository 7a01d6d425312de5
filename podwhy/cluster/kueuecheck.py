"""Kueue in front of `check`: a Job of the manifests that Kueue manages is created suspended by
Kueue's webhook (jobframework's Default), its Workload built as Kueue's Job controller builds it
(kueue/jobframework.py) and nominated over the snapshot's Kueue objects (kueue/admission.py),
behind the Workloads pending there, in Kueue's order: those ahead of it that fit are admitted
first, cycle by cycle (a StrictFIFO head that does not fit blocks it). One Kueue would not admit keeps its pods
uncreated; one it admits has Kueue's PodSetInfo injected into its pods (pkg/podset: the flavors'
node labels merged into the nodeSelector, their tolerations appended) and is charged to its
ClusterQueue for the Jobs after it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import msgspec

from podwhy.cluster.controllers.types import ManifestWorkload, created_uid
from podwhy.cluster.kueue import jobframework as jf
from podwhy.cluster.kueue import names
from podwhy.cluster.kueue.admission import KueueContext, KueueObjects, Stage, Turn, Verdict, VerdictOptions, with_turn
from podwhy.cluster.kueue.cycle import Outcome
from podwhy.cluster.kueue.resources import DEFAULT_FORMATTER
from podwhy.model import objects as o
from podwhy.snapshot.cluster import Snapshot

# Why a Kueue-managed Job is inconclusive when the snapshot holds none of Kueue's kinds.
NO_KUEUE_KINDS = "the snapshot holds none of Kueue's objects (ClusterQueues, LocalQueues, ...)"


class KueueDecision(msgspec.Struct):
    """What Kueue does with one workload of the manifests it manages."""

    local_queue: str
    workload: o.KueueWorkload | None = None
    verdict: Verdict | None = None
    # A fitting one's turn in Kueue's next cycle (the heads of its cohort's other ClusterQueues).
    turn: Turn | None = None
    # Kueue makes no Workload of it (its words), or podwhy cannot say (why): its pods are not created.
    problem: str = ""
    inconclusive: str = ""
    # Admitted: the flavor of each pod set's resources, and what Kueue injects into its pods.
    flavors: dict[str, dict[str, str]] = msgspec.field(default_factory=dict)
    node_selector: dict[str, str] = msgspec.field(default_factory=dict)
    tolerations: list[o.Toleration] = msgspec.field(default_factory=list)

    @property
    def admitted(self) -> bool:
        """Kueue admits it in its next cycle: it fits, nothing podwhy does not evaluate holds it,
        no StrictFIFO head waits before it, and no head of another ClusterQueue of its cohort
        that the cycle processes first takes its quota."""
        v = self.verdict
        if v is not None and v.stage is Stage.ADMITTED:
            return True  # a Job the cluster has, whose Workload Kueue has admitted
        return (
            v is not None
            and v.stage is Stage.FITS
            and not v.not_evaluated
            and not (v.queueing_strategy == names.STRICT_FIFO and v.ahead)
            and (self.turn is None or self.turn.admitted)
        )

    @property
    def unsure(self) -> str:
        """Why Kueue's decision is not known ("" when it is): the snapshot has no Kueue objects,
        or it fits only by what podwhy does not evaluate (preemption, admission checks...)."""
        if self.inconclusive:
            return self.inconclusive
        v = self.verdict
        if v is None:
            return ""
        if v.stage is Stage.FITS and v.not_evaluated:
            return "not evaluated: " + ", ".join(v.not_evaluated)
        if v.stage is Stage.FITS and self.turn is not None and self.turn.outcome is Outcome.NOT_EVALUATED:
            return "not evaluated: " + ", ".join(self.turn.not_evaluated)
        if v.stage is Stage.PREEMPT and not v.reason:
            return "not evaluated: " + names.NOT_EMULATED_PREEMPTION
        return ""


def _has_kueue(snapshot: Snapshot) -> bool:
    if snapshot.kinds_seen & set(o.KUEUE_KINDS):
        return True
    return bool(snapshot.cluster_queues or snapshot.local_queues or snapshot.resource_flavors)


def _key(workload: o.KueueWorkload) -> tuple[str, str]:
    return workload.metadata.namespace, workload.metadata.name


def _objects(
    snapshot: Snapshot, extra: list[o.KueueWorkload], admitted: dict[tuple[str, str], o.KueueWorkload]
) -> KueueObjects:
    """The snapshot's Kueue objects, the manifests' Workloads before this one (EXTRA) and, in
    place of a pending Workload, its copy ADMITTED first."""
    workloads = [admitted.get(_key(wl), wl) for wl in [*snapshot.kueue_workloads.values(), *extra]]
    objs: list[object] = [
        *snapshot.cluster_queues.values(),
        *snapshot.cohorts.values(),
        *snapshot.local_queues.values(),
        *snapshot.resource_flavors.values(),
        *workloads,
        *snapshot.admission_checks.values(),
        *snapshot.topologies.values(),
        *snapshot.namespaces.values(),
        *snapshot.runtime_classes.values(),
        *snapshot.limit_ranges,
    ]
    return KueueObjects.of(objs)


def _reads(snapshot: Snapshot) -> jf.KueueReads:
    return jf.KueueReads(
        namespaces=snapshot.namespaces,
        local_queues={(lq.metadata.namespace, lq.metadata.name): lq for lq in snapshot.local_queues.values()},
        workload_priority_classes=snapshot.workload_priority_classes,
        priority_classes=snapshot.priority_classes,
    )


def _applied_after(snapshot: Snapshot) -> datetime:
    """A time after everything the snapshot's queues know (when it was taken, each Workload's
    creation and conditions): a Job applied now is created later, so it queues behind them."""
    times = [snapshot.taken_at]
    for wl in snapshot.kueue_workloads.values():
        times.append(wl.metadata.creation_timestamp or "")
        times.extend(c.last_transition_time or "" for c in wl.status.conditions)
    parsed = [_parse(t) for t in times if t]
    return max((t for t in parsed if t is not None), default=datetime(1970, 1, 1, tzinfo=UTC))


def _parse(text: str) -> datetime | None:
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def suspends(snapshot: Snapshot) -> Callable[[o.ObjectMeta], bool]:
    """Whether Kueue manages a Job of this metadata in SNAPSHOT's cluster (its webhook suspends it
    and its controller resumes it once admitted): the Job's pods are those it runs then."""
    options = jf.FrameworkOptions()
    return lambda meta: jf.is_managed("Job", meta, _reads(snapshot), options)  # the cluster as it is then


def _job(workload: ManifestWorkload, created: datetime) -> o.Workload | None:
    """The Job as `kubectl apply` (or a CronJob's controller, its next Job) creates it (the uid
    check gives it; CREATED its creation time, unless the manifest has one), when it is a new Job."""
    job = workload.job_manifest
    if job is None or workload.kind not in ("Job", "CronJob"):
        return None
    live = workload.live_job
    if live is not None and not (live.shape.suspend and workload.kueue_managed):
        return None  # a Job that runs: Kueue admitted it
    copy = msgspec.json.decode(msgspec.json.encode(job), type=o.Workload)
    copy.metadata.namespace = workload.namespace
    live_uid = live.uid if live is not None else ""
    copy.metadata.uid = live_uid or copy.metadata.uid or created_uid(workload.namespace, "Job", copy.metadata.name)
    copy.metadata.creation_timestamp = copy.metadata.creation_timestamp or created.strftime("%Y-%m-%dT%H:%M:%SZ")
    return copy


def _admitted_workload(workload: o.KueueWorkload, verdict: Verdict) -> o.KueueWorkload:
    """WORKLOAD as Kueue admits it: QuotaReserved and Admitted, its pod sets' flavors and usage."""
    assert verdict.assignment is not None
    assignments = []
    for psa in verdict.assignment.pod_sets:
        usage: o.ResourceList = {res: DEFAULT_FORMATTER.quantity_string(res, q) for res, q in psa.requests.items()}
        flavors = {res: fa.name for res, fa in psa.flavors.items()}
        assignments.append(o.PodSetAssignment(name=psa.name, flavors=flavors, resource_usage=usage, count=psa.count))
    admitted: o.KueueWorkload = msgspec.json.decode(msgspec.json.encode(workload), type=o.KueueWorkload)
    admitted.status.admission = o.Admission(cluster_queue=verdict.cluster_queue, pod_set_assignments=assignments)
    admitted.status.conditions = [
        o.KueueCondition(type=names.QUOTA_RESERVED, status="True"),
        o.KueueCondition(type=names.ADMITTED, status="True"),
    ]
    return admitted


def _pod_set_info(decision: KueueDecision, flavors: dict[str, o.ResourceFlavor]) -> None:
    """podset.FromAssignment: the node labels of the flavors assigned (merged in resource order)
    and their tolerations, for the pod set "main"."""
    for flavor_name in dict.fromkeys(decision.flavors.get(o.DEFAULT_PODSET_NAME, {}).values()):
        flavor = flavors.get(flavor_name)
        if flavor is None:
            continue
        decision.node_selector.update(flavor.spec.node_labels)
        decision.tolerations.extend(t for t in flavor.spec.tolerations if t not in decision.tolerations)


def inject(pod: o.Pod, decision: KueueDecision) -> None:
    """PodSetInfo.Merge into the pod: node labels into the nodeSelector (a key the pod sets to
    another value is Kueue's conflict: the pod keeps its own), tolerations appended."""
    if decision.node_selector:
        selector = dict(decision.node_selector)
        selector.update(pod.spec.node_selector or {})
        pod.spec.node_selector = selector
    if decision.tolerations:
        pod.spec.tolerations = list(pod.spec.tolerations or []) + [
            t for t in decision.tolerations if t not in (pod.spec.tolerations or [])
        ]


def _workload_of(snapshot: Snapshot, namespace: str, uid: str) -> o.KueueWorkload | None:
    """The Workload Kueue made for the Job of UID (a Job the cluster has), by the job-uid label
    or an owner reference."""
    for wl in snapshot.kueue_workloads.values():
        if wl.metadata.namespace == namespace and (
            wl.metadata.labels.get(jf.JOB_UID_LABEL) == uid or any(r.uid == uid for r in wl.metadata.owner_references)
        ):
            return wl
    return None


def _first_to_go(verdict: Verdict, context: KueueContext) -> o.KueueWorkload | None:
    """The Workload ahead that Kueue admits before this one: under StrictFIFO the head, when it
    fits; under BestEffortFIFO the first in Kueue's order that fits (those that do not are set
    aside as inadmissible)."""
    for ahead in verdict.ahead:
        if context.explain(ahead).stage is Stage.FITS:
            return ahead
        if verdict.queueing_strategy == names.STRICT_FIFO:
            return None
    return None


def _in_turn(
    workload: o.KueueWorkload,
    snapshot: Snapshot,
    added: list[o.KueueWorkload],
    admitted: dict[tuple[str, str], o.KueueWorkload],
    options: VerdictOptions | None,
) -> tuple[Verdict, Turn | None]:
    """WORKLOAD's verdict in its turn: Kueue's cycles admit, one by one, the Workloads ahead of it
    in its ClusterQueue that fit (each charged to the quota before the next is looked at, and
    recorded in ADMITTED for the Jobs after it); then WORKLOAD's verdict over what is left, and,
    when it fits, its turn in the next cycle against the other ClusterQueues' heads."""
    while True:
        context = KueueContext(_objects(snapshot, added, admitted), options)
        verdict = context.explain(workload)
        if verdict.stage is not Stage.FITS:
            return verdict, None
        first = _first_to_go(verdict, context) if verdict.ahead else None
        if first is None:
            turn = context.turn(workload)
            return with_turn(verdict, turn, options.gates if options is not None else None), turn
        admitted[_key(first)] = _admitted_workload(first, context.explain(first))


def decide(
    snapshot: Snapshot,
    workloads: list[ManifestWorkload],
    options: jf.FrameworkOptions | None = None,
    verdict_options: VerdictOptions | None = None,
) -> dict[int, KueueDecision]:
    """Kueue's decision on each managed workload (by index), in the manifests' order: the pending
    Workloads ahead of it that fit are admitted first (_in_turn), and each one admitted is
    charged to its ClusterQueue for those after it."""
    options = options or jf.FrameworkOptions()
    reads = _reads(snapshot)
    have_kueue = _has_kueue(snapshot)
    added: list[o.KueueWorkload] = []
    admitted: dict[tuple[str, str], o.KueueWorkload] = {}  # pending Workloads admitted first
    out: dict[int, KueueDecision] = {}
    applied = _applied_after(snapshot)
    for index, workload in enumerate(workloads):
        # Applied in the manifests' order, a second apart: each queues behind those before it.
        job = _job(workload, applied + timedelta(seconds=index + 1))
        if job is None or not jf.is_managed("Job", job.metadata, reads, options):
            continue
        job.metadata = jf.apply_defaults(job.metadata, reads, options)
        decision = KueueDecision(jf.queue_name(job.metadata))
        out[index] = decision
        lq_key = f"{workload.namespace}/{decision.local_queue}"
        if not have_kueue and lq_key not in snapshot.local_queues:
            decision.inconclusive = NO_KUEUE_KINDS
            continue
        existing = _workload_of(snapshot, job.metadata.namespace, job.metadata.uid)
        if existing is None:
            built = jf.job_workload(job, reads, options)
            if built.workload is None:
                decision.problem = built.problem
                continue
            existing = built.workload
            added.append(existing)  # the Jobs after it queue behind it, or are charged for it
        decision.workload = existing
        decision.verdict, decision.turn = _in_turn(existing, snapshot, added, admitted, verdict_options)
        if decision.admitted and decision.verdict.assignment is not None:
            decision.flavors = {
                ps.name: {res: fa.name for res, fa in ps.flavors.items()} for ps in decision.verdict.assignment.pod_sets
            }
            admitted[_key(existing)] = _admitted_workload(existing, decision.verdict)
        elif decision.admitted and existing.status.admission is not None:
            decision.flavors = {psa.name: dict(psa.flavors) for psa in existing.status.admission.pod_set_assignments}
        _pod_set_info(decision, snapshot.resource_flavors)
    return out
