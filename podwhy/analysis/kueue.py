"""podwhy's own Kueue question, as typed facts (no prose): what the user pointed at (a Job, a
Workload, an owner Kueue manages, a Kueue-gated pod) resolved to its Kueue Workload; Kueue's
decision recomputed by cluster/kueue; the headline figure (the first resource short of quota);
whether the Workload's recorded conditions agree with the recomputation; and who is ahead."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import msgspec

from podwhy.analysis.kueuefacts import (
    JOB,
    JOB_RESOURCE_NAMES,
    JOB_UID_LABEL,
    KUEUE_GATES,
    NO_WORKLOAD,
    POD,
    POD_GROUP_LABEL,
    QUEUE_NAME_LABEL,
    WORKLOAD,
    WORKLOAD_RESOURCE_NAMES,
    Ahead,
    Fate,
    KueueFacts,
    PodSetFigures,
    QuotaFigure,
    Recorded,
    Shortfall,
    Staleness,
    has_kueue,
)
from podwhy.analysis.kueuesuggest import suggestions_for
from podwhy.cluster.kueue import names
from podwhy.cluster.kueue.admission import KueueContext, KueueObjects, Stage, Turn, Verdict, VerdictOptions, with_turn
from podwhy.cluster.kueue.assignment import PreemptionMode, QuotaCheck
from podwhy.cluster.kueue.cycle import Outcome
from podwhy.cluster.kueue.order import effective_priority
from podwhy.model import objects as o
from podwhy.model.records import replace
from podwhy.snapshot.cluster import Snapshot


def parse_kueue_ref(ref: str, namespace: str) -> tuple[str, str, str] | None:
    """(kind, namespace, name) for `job/NAME` or `workload/NAME` in kubectl's spellings (the
    namespace from -n); None for anything else (a pod reference)."""
    kind, slash, rest = ref.partition("/")
    if not slash or not rest or "/" in rest:
        return None
    lowered = kind.lower()
    if lowered in JOB_RESOURCE_NAMES:
        return JOB, namespace, rest
    if lowered in WORKLOAD_RESOURCE_NAMES:
        return WORKLOAD, namespace, rest
    return None


def kueue_objects(snapshot: Snapshot) -> KueueObjects:
    """The engine's view of the snapshot."""
    return KueueObjects(
        cluster_queues=snapshot.cluster_queues,
        cohorts=snapshot.cohorts,
        local_queues={(lq.metadata.namespace, lq.metadata.name): lq for lq in snapshot.local_queues.values()},
        flavors=snapshot.resource_flavors,
        workloads=list(snapshot.kueue_workloads.values()),
        admission_checks=snapshot.admission_checks,
        topologies=snapshot.topologies,
        namespaces=snapshot.namespaces,
        runtime_classes=snapshot.runtime_classes,
        limit_ranges=snapshot.limit_ranges,
    )


def kueue_gates(pod: o.Pod) -> list[str]:
    """The pod's scheduling gates Kueue owns."""
    return [g.name for g in pod.spec.scheduling_gates if g.name in KUEUE_GATES]


class _Owners(msgspec.Struct, frozen=True):
    """The snapshot's Workloads by what names their owner: (namespace, uid) from the job-uid
    label and the owner references' uids, (namespace, kind, name) from the references; each list
    in the snapshot's order, a Workload once."""

    workloads: Mapping[str, o.KueueWorkload]
    size: int
    by_uid: dict[tuple[str, str], list[o.KueueWorkload]]
    by_name: dict[tuple[str, str, str], list[o.KueueWorkload]]


_OWNERS: list[_Owners] = []  # the index of the last snapshot asked about


def _owners(snapshot: Snapshot) -> _Owners:
    """The owner index of SNAPSHOT's Workloads, built once per snapshot (kept while its dict of
    Workloads is the same object and has not grown)."""
    workloads = snapshot.kueue_workloads
    if _OWNERS and _OWNERS[0].workloads is workloads and _OWNERS[0].size == len(workloads):
        return _OWNERS[0]
    by_uid: dict[tuple[str, str], list[o.KueueWorkload]] = {}
    by_name: dict[tuple[str, str, str], list[o.KueueWorkload]] = {}
    for wl in workloads.values():
        ns, refs = wl.metadata.namespace, wl.metadata.owner_references
        for uid in dict.fromkeys([wl.metadata.labels.get(JOB_UID_LABEL, ""), *(r.uid for r in refs)]):
            if uid:
                by_uid.setdefault((ns, uid), []).append(wl)
        for key in dict.fromkeys((ns, r.kind, r.name) for r in refs):
            by_name.setdefault(key, []).append(wl)
    _OWNERS[:] = [_Owners(workloads, len(workloads), by_uid, by_name)]
    return _OWNERS[0]


def workload_of_owner(snapshot: Snapshot, namespace: str, kind: str, name: str, uid: str) -> o.KueueWorkload | None:
    """The Workload Kueue made for the object KIND NAMESPACE/NAME (UID): through its owner
    references or the job-uid label, the controlling reference first."""
    index = _owners(snapshot)
    found = list(index.by_uid.get((namespace, uid), ()) if uid else index.by_name.get((namespace, kind, name), ()))
    found.sort(key=lambda wl: not any(r.controller for r in wl.metadata.owner_references))
    return found[0] if found else None


def workload_of_pod(snapshot: Snapshot, pod: o.Pod) -> o.KueueWorkload | None:
    """A pod's Workload: its own (Kueue's pod integration, a pod group's Workload owns each pod
    in reverse: the Workload lists the pods as owners), else its controller's."""
    ns = pod.metadata.namespace
    own = workload_of_owner(snapshot, ns, POD, pod.metadata.name, pod.metadata.uid)
    if own is not None:
        return own
    group = pod.metadata.labels.get(POD_GROUP_LABEL)
    if group:
        wl = snapshot.kueue_workloads.get(f"{ns}/{group}")
        if wl is not None:
            return wl
    for ref in pod.metadata.owner_references:
        if ref.controller:
            wl = workload_of_owner(snapshot, ns, ref.kind, ref.name, ref.uid)
            if wl is not None:
                return wl
    return None


def kueue_held_job(job: o.Job) -> bool:
    """A Job Kueue holds: suspended, with a queue-name label."""
    return bool(job.metadata.labels.get(QUEUE_NAME_LABEL)) and job.spec.suspend is True


def _shortfall(verdict: Verdict) -> Shortfall | None:
    """The first quota check that does not fit, in the order the assigner checked them."""
    if verdict.assignment is None:
        return None
    check: QuotaCheck | None = next(
        (c for c in verdict.assignment.checks if c.mode < PreemptionMode.FIT),
        None,
    )
    if check is None:
        return None
    return Shortfall(
        verdict.cluster_queue,
        check.flavor,
        check.resource,
        check.available,
        check.nominal,
        check.used,
        check.borrowable,
        check.needed,
    )


# PreemptionMode as the report names a check's outcome.
MODE_NAMES = {
    PreemptionMode.FIT: "Fit",
    PreemptionMode.RECLAIM: "Preempt",
    PreemptionMode.PREEMPT: "Preempt",
    PreemptionMode.NO_CANDIDATES: "NoFit",
    PreemptionMode.NO_FIT: "NoFit",
}


def _figure(check: QuotaCheck) -> QuotaFigure:
    return QuotaFigure(
        check.resource,
        check.flavor,
        check.needed,
        check.nominal,
        check.used,
        check.borrowable,
        check.available,
        MODE_NAMES[check.mode],
    )


def _pod_sets(verdict: Verdict) -> tuple[PodSetFigures, ...]:
    """Each pod set's count and its quota checks, one per resource and flavor, in Kueue's order."""
    checks = verdict.assignment.checks if verdict.assignment is not None else []
    out = []
    for requests in verdict.requests:
        seen: set[tuple[str, str]] = set()
        figures = []
        for check in checks:
            if requests.name in check.pod_sets and (check.resource, check.flavor) not in seen:
                seen.add((check.resource, check.flavor))
                figures.append(_figure(check))
        out.append(PodSetFigures(requests.name, requests.count, tuple(figures)))
    return tuple(out)


def _condition(workload: o.KueueWorkload, cond_type: str) -> o.KueueCondition | None:
    return next((c for c in workload.status.conditions if c.type == cond_type), None)


def _recorded(workload: o.KueueWorkload) -> Recorded:
    for cond_type in (names.ADMITTED, names.QUOTA_RESERVED):
        cond = _condition(workload, cond_type)
        if cond is not None and (cond_type == names.QUOTA_RESERVED or cond.status == "True"):
            return Recorded(cond.type, cond.status, cond.reason, cond.message)
    return Recorded()


def _staleness(recorded: Recorded, verdict: Verdict, admitted: bool) -> Staleness:
    """The recorded condition against the recomputation (VERDICT: its reason and message, the
    cycle's where it skips the Workload): a Workload Kueue would admit now that records waiting,
    or one whose recorded reason or message differs from Kueue's now."""
    if not recorded.type:
        return Staleness.NONE_RECORDED
    if verdict.stage in (Stage.ADMITTED, Stage.FINISHED, Stage.QUOTA_RESERVED):
        return Staleness.AGREES  # read from the conditions themselves
    if admitted:
        return Staleness.RECORDED_STALE if recorded.status == "False" else Staleness.AGREES
    if not verdict.message:
        return Staleness.AGREES  # nothing recomputed to compare (a preemption not evaluated)
    same = recorded.message == verdict.message and recorded.reason in (verdict.reason, verdict.granular_reason)
    return Staleness.AGREES if same else Staleness.RECORDED_STALE


def _fits(workload: o.KueueWorkload, context: KueueContext) -> bool:
    return context.explain(workload).stage is Stage.FITS


class FactsContext(KueueContext):
    """The engine's context (one per snapshot), with who is ahead in each ClusterQueue's queue as
    facts: a Workload's Workloads ahead are a prefix of its queue, so each place's facts are made
    once, as far down the queue as a Workload asked."""

    def __init__(self, objs: KueueObjects, options: VerdictOptions | None = None) -> None:
        super().__init__(objs, options)
        self.queue_facts: dict[str, list[Ahead]] = {}


def _ahead_of(wl: o.KueueWorkload, position: int, context: KueueContext) -> Ahead:
    key = f"{wl.metadata.namespace}/{wl.metadata.name}"
    return Ahead(key, effective_priority(wl, context.options.gates), position, _fits(wl, context))


def _ahead(verdict: Verdict, context: KueueContext) -> tuple[Ahead, ...]:
    count = len(verdict.ahead)
    queue = context.queue(verdict.cluster_queue).workloads
    if not isinstance(context, FactsContext) or verdict.ahead != queue[:count]:
        return tuple(_ahead_of(wl, position, context) for position, wl in enumerate(verdict.ahead, start=1))
    known = context.queue_facts.setdefault(verdict.cluster_queue, [])
    for position in range(len(known) + 1, count + 1):
        known.append(_ahead_of(queue[position - 1], position, context))
    return tuple(known[:count])


def _fate(verdict: Verdict, admitted: bool, head: str, shortfall: Shortfall | None, turn: Turn | None) -> Fate:
    stage = verdict.stage
    settled = {Stage.FINISHED: Fate.FINISHED, Stage.ADMITTED: Fate.ADMITTED, Stage.QUOTA_RESERVED: Fate.CHECKS}
    if stage in settled:
        return settled[stage]
    if stage is Stage.FITS:
        if head:
            return Fate.BEHIND_STRICT_HEAD
        if admitted:
            return Fate.ADMITS_NEXT
        outcome = turn.outcome if turn is not None else None
        if outcome is Outcome.NO_LONGER_FITS:
            return Fate.BEHIND_COHORT
        return Fate.COHORT_NOT_EVALUATED if outcome is Outcome.NOT_EVALUATED else Fate.BEHIND_OTHERS
    if shortfall is not None and verdict.granular_reason in (names.WAITING_FOR_QUOTA, names.EXCEEDS_MAX_QUOTA):
        return Fate.SHORT_OF_QUOTA
    if stage is Stage.PREEMPT:
        return Fate.SHORT_OF_QUOTA if verdict.reason and shortfall is not None else Fate.PREEMPTION
    return Fate.NO_FLAVOR if stage is Stage.NO_FIT else Fate.BLOCKED


def facts_for(
    kind: str,
    namespace: str,
    name: str,
    workload: o.KueueWorkload | None,
    snapshot: Snapshot,
    options: VerdictOptions | None = None,
    gates: Iterable[str] = (),
    suggest: bool = True,
    context: KueueContext | None = None,
) -> KueueFacts:
    """Kueue's decision for WORKLOAD (the one of KIND NAMESPACE/NAME), recomputed, with the
    verified changes that would admit it (SUGGEST; `pending` has no use for them). CONTEXT (the
    snapshot's, with OPTIONS) is what the verdicts of several Workloads share."""
    if workload is None:
        return KueueFacts(kind, namespace, name, None, not_evaluated=(NO_WORKLOAD,), gates=tuple(gates))
    context = context or FactsContext(kueue_objects(snapshot), options)
    verdict = context.explain(workload)
    ahead = _ahead(verdict, context) if verdict.ahead else ()
    head = ""
    turn = context.turn(workload) if verdict.stage is Stage.FITS else None
    admitted = verdict.stage in (Stage.ADMITTED, Stage.FINISHED) or (turn is not None and turn.admitted)
    verdict = with_turn(verdict, turn, context.options.gates)
    if verdict.stage is Stage.FITS and ahead and verdict.queueing_strategy == names.STRICT_FIFO:
        head = ahead[0].key
    lq = workload.spec.queue_name
    recorded = _recorded(workload)
    shortfall = _shortfall(verdict)
    facts = KueueFacts(
        kind,
        namespace,
        name,
        workload,
        local_queue=lq,
        cluster_queue=verdict.cluster_queue,
        admitted=admitted,
        shortfall=shortfall,
        recorded=recorded,
        staleness=_staleness(recorded, verdict, admitted),
        ahead=ahead,
        strict_fifo_head=head,
        cohort_ahead=tuple(f"{w.metadata.namespace}/{w.metadata.name}" for w in turn.before) if turn else (),
        not_evaluated=verdict.not_evaluated,
        gates=tuple(gates),
        fate=_fate(verdict, admitted, head, shortfall, turn),
        granular_reason=verdict.granular_reason,
        stage=verdict.stage.value,
        reason=verdict.reason,
        message=verdict.message,
        pod_sets=_pod_sets(verdict),
    )
    if not suggest:
        return facts
    return replace(facts, suggestions=suggestions_for(facts, context.objs, context.options))


def facts_for_job(
    snapshot: Snapshot, job: o.Job, options: VerdictOptions | None = None, context: KueueContext | None = None
) -> KueueFacts:
    """A Job's Workload, recomputed; a Job Kueue holds without a Workload in the snapshot is not
    evaluated (Kueue's job reconciler makes the Workload: the snapshot has none for it)."""
    ns, name = job.metadata.namespace, job.metadata.name
    workload = workload_of_owner(snapshot, ns, JOB, name, job.metadata.uid)
    if workload is None:
        queue = job.metadata.labels.get(QUEUE_NAME_LABEL, "")
        return KueueFacts(JOB, ns, name, None, local_queue=queue, not_evaluated=(NO_WORKLOAD,))
    return facts_for(JOB, ns, name, workload, snapshot, options, context=context)


def facts_for_pod(snapshot: Snapshot, pod: o.Pod, options: VerdictOptions | None = None) -> KueueFacts | None:
    """The Kueue answer for a pod: a Kueue-gated one, or one whose Job Kueue holds; None when
    Kueue has no part in it."""
    gates = kueue_gates(pod)
    workload = workload_of_pod(snapshot, pod)
    if not gates and (workload is None or _condition_true(workload, names.ADMITTED)):
        return None
    ns = pod.metadata.namespace
    return facts_for(POD, ns, pod.metadata.name, workload, snapshot, options, gates)


def _condition_true(workload: o.KueueWorkload, cond_type: str) -> bool:
    cond = _condition(workload, cond_type)
    return cond is not None and cond.status == "True"


def workload_owner(workload: o.KueueWorkload) -> tuple[str, str]:
    """The kind and name of the object a Workload was made for (itself when none)."""
    for ref in workload.metadata.owner_references:
        if ref.controller:
            return ref.kind, ref.name
    return WORKLOAD, workload.metadata.name


def kueue_pending(snapshot: Snapshot, namespace: str | None, options: VerdictOptions | None = None) -> list[KueueFacts]:
    """What Kueue holds in NAMESPACE (None: every one): each Workload neither admitted nor
    finished, as its owner (a Job, ...), and each suspended Job with a queue name whose Workload
    the snapshot lacks. A Kueue-gated pod is its Workload's (pending lists the pod as Gated)."""
    if not has_kueue(snapshot):
        return []
    context = FactsContext(kueue_objects(snapshot), options)  # shared by every Workload's verdict
    out = []
    owned: set[str] = set()
    for wl in snapshot.kueue_workloads.values():
        ns = wl.metadata.namespace
        if namespace is not None and ns != namespace:
            continue
        kind, name = workload_owner(wl)
        if kind == JOB:
            owned.add(f"{ns}/{name}")
        if _condition_true(wl, names.ADMITTED) or _condition_true(wl, names.FINISHED):
            continue
        out.append(facts_for(kind, ns, name, wl, snapshot, options, suggest=False, context=context))
    for key, job in snapshot.jobs.items():
        if (namespace is None or job.metadata.namespace == namespace) and key not in owned and kueue_held_job(job):
            if workload_of_owner(snapshot, job.metadata.namespace, JOB, job.metadata.name, job.metadata.uid) is None:
                out.append(facts_for_job(snapshot, job, options, context))
    return out
