"""One Workload through Kueue, as far as Kueue decides it: the workload controller's queue
blockers, then the scheduler's nominate (scheduler.go: failed admission checks, an inactive or
missing ClusterQueue, the namespace, then the flavor assignment) and the QuotaReserved=False
reason and message Kueue would set (requeueAndUpdate, UnadmittedWorkloadReasonWithFallback),
with the Workloads ahead of it in its ClusterQueue."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import Enum

import msgspec

from podwhy.cluster.kueue import names
from podwhy.cluster.kueue.assignment import Assignment, Mode, Possibility, snapshot_cluster_queue
from podwhy.cluster.kueue.blockers import (
    QueueStatus,
    admission_checks_of,
    admission_gate,
    cluster_queue_status,
    limit_range_blocker,
    local_queue_status,
    namespace_blocker,
    queue_blocker,
    resources_blocker,
)
from podwhy.cluster.kueue.cycle import (
    Entry,
    EntryKind,
    EntryResult,
    Outcome,
    entry_key,
    reserve_usage,
    run_cycle,
    subtree,
)
from podwhy.cluster.kueue.flavorassigner import AssignOptions, FlavorAssigner
from podwhy.cluster.kueue.order import Queue, queue_key, queues_of
from podwhy.cluster.kueue.requests import (
    PodSetRequests,
    RequestOptions,
    adjusted_pod_spec,
    has_condition,
    pod_set_requests,
)
from podwhy.cluster.kueue.resourcenode import Node, QuotaTree, build_tree
from podwhy.model import objects as o
from podwhy.model.records import replace


class KueueObjects(msgspec.Struct, frozen=True):
    """The Kueue objects (and the few core ones Kueue reads) a verdict reads."""

    cluster_queues: Mapping[str, o.ClusterQueue] = msgspec.field(default_factory=dict)
    cohorts: Mapping[str, o.Cohort] = msgspec.field(default_factory=dict)
    local_queues: Mapping[tuple[str, str], o.LocalQueue] = msgspec.field(default_factory=dict)  # (namespace, name)
    flavors: Mapping[str, o.ResourceFlavor] = msgspec.field(default_factory=dict)
    workloads: Sequence[o.KueueWorkload] = ()
    admission_checks: Mapping[str, o.AdmissionCheck] = msgspec.field(default_factory=dict)
    topologies: Mapping[str, o.Topology] = msgspec.field(default_factory=dict)
    namespaces: Mapping[str, o.Namespace] = msgspec.field(default_factory=dict)
    runtime_classes: Mapping[str, o.RuntimeClass] = msgspec.field(default_factory=dict)
    limit_ranges: Sequence[o.LimitRange] = ()

    @classmethod
    def of(cls, objects: Sequence[object]) -> KueueObjects:
        """Filed by kind from a flat list of objects."""
        cqs, cohorts, lqs, rfs, acs, topos, nss, rcs = {}, {}, {}, {}, {}, {}, {}, {}
        wls, lrs = [], []
        for obj in objects:
            match obj:
                case o.ClusterQueue():
                    cqs[obj.metadata.name] = obj
                case o.Cohort():
                    cohorts[obj.metadata.name] = obj
                case o.LocalQueue():
                    lqs[obj.metadata.namespace, obj.metadata.name] = obj
                case o.ResourceFlavor():
                    rfs[obj.metadata.name] = obj
                case o.KueueWorkload():
                    wls.append(obj)
                case o.AdmissionCheck():
                    acs[obj.metadata.name] = obj
                case o.Topology():
                    topos[obj.metadata.name] = obj
                case o.Namespace():
                    nss[obj.metadata.name] = obj
                case o.RuntimeClass():
                    rcs[obj.metadata.name] = obj
                case o.LimitRange():
                    lrs.append(obj)
        return cls(cqs, cohorts, lqs, rfs, wls, acs, topos, nss, rcs, lrs)


class Stage(Enum):
    """Where a Workload stands."""

    FINISHED = "Finished"
    ADMITTED = "Admitted"
    QUOTA_RESERVED = "QuotaReserved"  # waiting for its admission checks (not evaluated)
    BLOCKED = "Blocked"  # a queue blocker, the admission gate or nominate's checks
    NO_FIT = "NoFit"  # the flavor assignment found no flavor
    PREEMPT = "Preempt"  # it fits only if Kueue preempts (or, without candidates, waits)
    FITS = "Fits"  # it fits now: it waits for its turn


class Verdict(msgspec.Struct, frozen=True):
    """Why a Workload is or is not admitted, in Kueue's words: REASON and MESSAGE are the
    QuotaReserved=False condition Kueue would set ("" where Kueue sets none, or where it hangs
    on what podwhy did not evaluate); GRANULAR_REASON is the reason with the gate on."""

    stage: Stage
    reason: str
    message: str
    granular_reason: str
    cluster_queue: str = ""
    cluster_queue_status: QueueStatus | None = None
    local_queue_status: QueueStatus | None = None
    requests: tuple[PodSetRequests, ...] = ()
    assignment: Assignment | None = None
    queueing_strategy: str = ""
    ahead: tuple[o.KueueWorkload, ...] = ()
    not_evaluated: tuple[str, ...] = ()


class VerdictOptions(msgspec.Struct, frozen=True):
    """Kueue's configuration and gates; REQUESTS and ASSIGN take theirs."""

    gates: Mapping[str, bool] | None = None
    requests: RequestOptions = msgspec.field(default_factory=RequestOptions)
    assign: AssignOptions = msgspec.field(default_factory=AssignOptions)
    requeuing_timestamp: str = names.TIMESTAMP_EVICTION


def _reason(granular: str, fallback: str, gates: Mapping[str, bool] | None) -> str:
    return names.unadmitted_reason(granular, fallback, dict(gates) if gates is not None else None)


def _done(workload: o.KueueWorkload) -> Verdict | None:
    if has_condition(workload, names.FINISHED):
        return Verdict(Stage.FINISHED, "", "", "")
    if has_condition(workload, names.ADMITTED):
        return Verdict(Stage.ADMITTED, "", "", "")
    if has_condition(workload, names.QUOTA_RESERVED):
        admission = workload.status.admission
        cq = admission.cluster_queue if admission is not None else ""
        return Verdict(Stage.QUOTA_RESERVED, "", "", "", cq, not_evaluated=(names.NOT_EMULATED_ADMISSION_CHECKS,))
    return None


class KueueContext:
    """What the verdicts over one set of Kueue objects share, each built once, on first use: the
    quota tree (the admitted Workloads' usage), each ClusterQueue's Active status and its queue of
    pending Workloads in pop order, and each Workload's verdict. The objects are read, never
    changed: one context serves every Workload of a snapshot (pending, who is ahead)."""

    def __init__(self, objs: KueueObjects, options: VerdictOptions | None = None) -> None:
        self.objs = objs
        self.options = options or VerdictOptions()
        self._tree: QuotaTree | None = None
        self._queues: dict[str, Queue] | None = None
        self._cq_status: dict[str, QueueStatus] = {}
        # id(workload) -> (the workload, kept so that its id stays its own; its verdict)
        self._verdicts: dict[int, tuple[o.KueueWorkload, Verdict]] = {}
        self._workload_of: dict[int, o.KueueWorkload] = {}  # id(verdict) -> its workload
        # id(root of a cohort tree) -> id(workload) -> its entry's result in the next cycle
        self._cycles: dict[int, dict[int, EntryResult]] = {}

    @property
    def tree(self) -> QuotaTree:
        if self._tree is None:
            objs = self.objs
            self._tree = build_tree(
                objs.cluster_queues.values(), objs.cohorts.values(), objs.workloads, self.options.gates
            )
        return self._tree

    def queue(self, cluster_queue: str) -> Queue:
        """The ClusterQueue's pending Workloads in pop order (every queue sorted in one pass)."""
        if self._queues is None:
            options = self.options
            self._queues = queues_of(
                self.objs.workloads, self.objs.local_queues, options.requeuing_timestamp, options.gates
            )
        return self._queues.get(cluster_queue) or Queue((), ())

    def cluster_queue_status(self, cq: o.ClusterQueue) -> QueueStatus:
        """The Active status of CQ (one of the context's ClusterQueues)."""
        name = cq.metadata.name
        status = self._cq_status.get(name)
        if status is None:
            objs = self.objs
            status = cluster_queue_status(cq, objs.flavors, objs.admission_checks, objs.topologies, self.options.gates)
            self._cq_status[name] = status
        return status

    def explain(self, workload: o.KueueWorkload) -> Verdict:
        """explain_workload over the context's objects and options (each Workload's verdict once)."""
        known = self._verdicts.get(id(workload))
        if known is not None and known[0] is workload:
            return known[1]
        verdict = _explain(workload, self)
        self._verdicts[id(workload)] = (workload, verdict)
        self._workload_of[id(verdict)] = workload
        return verdict

    def admits_next(self, verdict: Verdict) -> bool:
        """Kueue admits the Workload of VERDICT in its next cycle (turn()): it fits, it is its
        ClusterQueue's head (a StrictFIFO head ahead blocks it whether it fits or not; under
        BestEffortFIFO, one ahead that fits is admitted first), and no head of another
        ClusterQueue of its cohort tree that the cycle processes first takes the quota it needs."""
        if verdict.stage is not Stage.FITS:
            return False
        workload = self._workload_of.get(id(verdict))
        if workload is None or self._verdicts.get(id(workload), (None, None))[1] is not verdict:
            return _heads_own_queue(verdict, self)  # a verdict not of this context: its own queue only
        return self.turn(workload).admitted

    def turn(self, workload: o.KueueWorkload) -> Turn:
        """WORKLOAD's turn in Kueue's next cycle (turn_of)."""
        return turn_of(workload, self)

    def cycle(self, root: Node) -> dict[int, EntryResult]:
        """The next cycle over the cohort tree under ROOT, by id(workload) of each entry (once)."""
        known = self._cycles.get(id(root))
        if known is None:
            known = self._cycles[id(root)] = cycle_of(root, self)
        return known


def explain_workload(workload: o.KueueWorkload, objs: KueueObjects, options: VerdictOptions | None = None) -> Verdict:
    """Why WORKLOAD is (not) admitted: the first blocker Kueue meets, else its flavor assignment.
    (A KueueContext shares what the verdicts of many Workloads over the same objects compute.)"""
    return KueueContext(objs, options).explain(workload)


def _explain(workload: o.KueueWorkload, context: KueueContext) -> Verdict:
    objs, options = context.objs, context.options
    gates = options.gates
    done = _done(workload)
    if done is not None:
        return done
    ns = workload.metadata.namespace
    lq = objs.local_queues.get((ns, workload.spec.queue_name))
    cq = objs.cluster_queues.get(lq.spec.cluster_queue) if lq is not None else None
    cq_status = context.cluster_queue_status(cq) if cq is not None else None
    lq_status = local_queue_status(lq, cq, cq_status) if lq is not None else None
    cq_name = lq.spec.cluster_queue if lq is not None else ""
    base = Verdict(Stage.BLOCKED, "", "", "", cq_name, cq_status, lq_status)
    blocker = queue_blocker(workload, lq, cq, cq_status, gates)
    if blocker is not None:
        return replace(base, reason=blocker.reason, message=blocker.message, granular_reason=blocker.granular_reason)
    gated = admission_gate(workload, gates)
    if gated is not None:
        return replace(base, reason=names.ADMISSION_GATED, message=gated, granular_reason=names.ADMISSION_GATED)
    assert cq is not None and lq is not None
    return _nominate(workload, cq, context, base)


def _nominate(workload: o.KueueWorkload, cq: o.ClusterQueue, context: KueueContext, base: Verdict) -> Verdict:
    """scheduler.nominate, then processEntry's reason for the assignment's mode."""
    objs, options = context.objs, context.options
    gates = options.gates
    tree = context.tree
    cq_name = cq.metadata.name
    if any(c.state in ("Retry", "Rejected") for c in workload.status.admission_checks):
        reason = _reason(names.PENDING_EVALUATION, names.LEGACY_PENDING, gates)
        return replace(base, reason=reason, message=names.MSG_FAILED_CHECKS, granular_reason=names.PENDING_EVALUATION)
    if tree.in_cycle(tree.cluster_queues[cq_name]):
        reason = _reason(names.SUSPENDED, names.LEGACY_PENDING, gates)
        return replace(
            base, reason=reason, message=names.MSG_CQ_INACTIVE.format(cq_name), granular_reason=names.SUSPENDED
        )
    ns = workload.metadata.namespace
    request_options = options.requests
    if not request_options.runtime_classes and not request_options.limit_ranges:
        request_options = replace(
            request_options,
            runtime_classes=objs.runtime_classes,
            limit_ranges=[lr for lr in objs.limit_ranges if lr.metadata.namespace == ns],
            gates=request_options.gates if request_options.gates is not None else gates,
        )
    # The Workload as the queue manager holds it: AdjustResources applied (wi.Obj).
    specs = [adjusted_pod_spec(ps.template.spec, request_options) for ps in workload.spec.pod_sets]
    problem = (
        namespace_blocker(ns, objs.namespaces.get(ns), cq)
        or resources_blocker(specs)
        or limit_range_blocker(specs, request_options.limit_ranges)
    )
    if problem is not None:
        reason = _reason(names.MISCONFIGURED, names.LEGACY_PENDING, gates)
        return replace(base, reason=reason, message=problem, granular_reason=names.MISCONFIGURED)
    requests = pod_set_requests(workload, request_options)
    assignment = _assign(workload, requests, cq, tree, objs, options)
    key = queue_key(workload, options.requeuing_timestamp, gates)
    ahead = tuple(context.queue(cq_name).ahead_of(key, ns, workload.metadata.name))
    verdict = replace(
        base,
        requests=tuple(requests),
        assignment=assignment,
        queueing_strategy=cq.spec.queueing_strategy,
        ahead=ahead,
    )
    verdict = _by_mode(workload, verdict, assignment, gates)
    flags = _not_evaluated(cq, objs, options)
    return replace(
        verdict, not_evaluated=verdict.not_evaluated + tuple(f for f in flags if f not in verdict.not_evaluated)
    )


def _not_evaluated(cq: o.ClusterQueue, objs: KueueObjects, options: VerdictOptions) -> list[str]:
    """What else decides admission and is not emulated: the ClusterQueue's admission checks (MultiKueue among them), and
    fair sharing when Kueue's configuration enables it."""
    flags = []
    checks = admission_checks_of(cq)
    if checks:
        flags.append(names.NOT_EMULATED_ADMISSION_CHECKS)
    if any(
        (ac := objs.admission_checks.get(name)) is not None and ac.spec.controller_name == names.MULTIKUEUE_CONTROLLER
        for name in checks
    ):
        flags.append(names.NOT_EMULATED_MULTIKUEUE)
    if options.assign.fair_sharing:
        flags.append(names.NOT_EMULATED_FAIR_SHARING)
    return flags


def _assign(
    workload: o.KueueWorkload,
    requests: list[PodSetRequests],
    cq: o.ClusterQueue,
    tree: QuotaTree,
    objs: KueueObjects,
    options: VerdictOptions,
) -> Assignment:
    snapshot = snapshot_cluster_queue(cq, tree, objs.flavors, objs.topologies)
    assign_options = options.assign
    if assign_options.gates is None and options.gates is not None:
        assign_options = replace(assign_options, gates=options.gates)
    return FlavorAssigner(workload, requests, snapshot, objs.flavors, assign_options).assign()


def _by_mode(
    workload: o.KueueWorkload, verdict: Verdict, assignment: Assignment, gates: Mapping[str, bool] | None
) -> Verdict:
    mode = assignment.representative_mode()
    not_evaluated = list(assignment.not_evaluated)
    message = assignment.message()
    if mode is Mode.NO_FIT:
        if names.enabled(names.PARTIAL_ADMISSION, dict(gates) if gates is not None else None) and any(
            ps.min_count is not None and ps.count > ps.min_count for ps in workload.spec.pod_sets
        ):
            not_evaluated.append(names.NOT_EMULATED_PARTIAL_ADMISSION)
        reason = _reason(assignment.no_fit_reason, names.LEGACY_PENDING, gates)
        return replace(
            verdict,
            stage=Stage.NO_FIT,
            reason=reason,
            message=message,
            granular_reason=assignment.no_fit_reason,
            not_evaluated=tuple(not_evaluated),
        )
    if mode is Mode.PREEMPT:
        answers = [c.preemption for c in assignment.checks if c.preemption is not None]
        if answers and all(a.evaluated and a.possibility is Possibility.NO_CANDIDATES for a in answers):
            reason = _reason(names.WAITING_FOR_QUOTA, names.LEGACY_PENDING, gates)
            granular = names.WAITING_FOR_QUOTA
        else:
            reason, granular = "", ""
        return replace(
            verdict,
            stage=Stage.PREEMPT,
            reason=reason,
            message=message,
            granular_reason=granular,
            not_evaluated=tuple(not_evaluated),
        )
    return replace(verdict, stage=Stage.FITS, not_evaluated=tuple(not_evaluated))


# ---------------------------------------------------------------- the next cycle


class Turn(msgspec.Struct, frozen=True):
    """A fitting Workload's turn in Kueue's next cycle: whether it is its ClusterQueue's head (for
    certain), its entry's outcome in the cycle (None when it is not the head), and BEFORE, the
    heads of other ClusterQueues of its cohort tree that the cycle processes first and that take
    the quota it needs (NO_LONGER_FITS) or whose share podwhy does not know (NOT_EVALUATED)."""

    head: bool
    outcome: Outcome | None = None
    before: tuple[o.KueueWorkload, ...] = ()
    # NOT_EVALUATED: why (names.NOT_EMULATED_PREEMPTION, NOT_EMULATED_CYCLE_ORDER).
    not_evaluated: tuple[str, ...] = ()

    @property
    def admitted(self) -> bool:
        return self.outcome is Outcome.ADMITTED


def _no_candidates(verdict: Verdict) -> bool:
    """A Preempt-mode assignment whose preemption has no candidates, for certain."""
    assignment = verdict.assignment
    answers = [c.preemption for c in assignment.checks if c.preemption is not None] if assignment else []
    return bool(answers) and all(a.evaluated and a.possibility is Possibility.NO_CANDIDATES for a in answers)


def _heads_own_queue(verdict: Verdict, context: KueueContext) -> bool:
    """The rule within a ClusterQueue alone: nothing ahead goes first (a StrictFIFO head ahead
    whatever it is; under BestEffortFIFO, one that fits)."""
    if not verdict.ahead:
        return True
    if verdict.queueing_strategy == names.STRICT_FIFO:
        return False
    return not any(context.explain(wl).stage is Stage.FITS for wl in verdict.ahead)


def possible_heads(cq_name: str, context: KueueContext) -> list[tuple[o.KueueWorkload, Verdict]]:
    """The Workload that heads the ClusterQueue in Kueue's next cycle (Manager.heads: every active
    ClusterQueue pops its head): under StrictFIFO the first of its queue, whatever becomes of it
    (requeued at once, it stays there); under BestEffortFIFO the first that Kueue does not set
    aside as inadmissible (NoFit, blocked at nominate, Preempt without candidates: requeued
    among the inadmissible until an event in the cohort), i.e. the first that fits. One needing a
    preemption podwhy does not evaluate heads it when it has candidates (it preempts, requeued at
    once), else is set aside: each such one before the first that fits may be the head, so all of
    them are returned, with that first one (one entry: the head for certain)."""
    cq = context.objs.cluster_queues.get(cq_name)
    if cq is None or not context.cluster_queue_status(cq).active:
        return []
    queue = context.queue(cq_name).workloads
    if cq.spec.queueing_strategy == names.STRICT_FIFO:
        return [(queue[0], context.explain(queue[0]))] if queue else []
    out: list[tuple[o.KueueWorkload, Verdict]] = []
    for wl in queue:
        verdict = context.explain(wl)
        if verdict.stage is Stage.FITS:
            return [*out, (wl, verdict)]
        if verdict.stage is Stage.PREEMPT and not _no_candidates(verdict):
            out.append((wl, verdict))
    return out


HeadsOf = Callable[[str, "KueueContext"], list[tuple[o.KueueWorkload, Verdict]]]


def entry_of(wl: o.KueueWorkload, verdict: Verdict, node: Node, context: KueueContext, sure: bool) -> Entry | None:
    """nominate's entry of a head: None for one nominate turns away (blocked: no assignment)."""
    assignment = verdict.assignment
    if assignment is None or verdict.stage not in (Stage.FITS, Stage.PREEMPT, Stage.NO_FIT):
        return None
    options = context.options
    key = entry_key(wl, assignment.borrowing, options.requeuing_timestamp, options.gates)
    usage = assignment.usage
    if verdict.stage is Stage.FITS:
        return Entry(wl, verdict.cluster_queue, node, EntryKind.FIT, usage, key, sure=sure)
    if verdict.stage is Stage.NO_FIT:
        return Entry(wl, verdict.cluster_queue, node, EntryKind.NO_FIT, usage, key, sure=sure)
    if not _no_candidates(verdict):
        # Its borrowing once its candidates are gone (the oracle's) is not known: at its lowest,
        # it comes as early as it may.
        key = entry_key(wl, 0, options.requeuing_timestamp, options.gates)
        return Entry(wl, verdict.cluster_queue, node, EntryKind.PREEMPT, usage, key, sure=sure)
    cq = context.objs.cluster_queues[verdict.cluster_queue]
    reserve = reserve_usage(node, usage, assignment.borrowing, cq.spec.preemption)
    return Entry(wl, verdict.cluster_queue, node, EntryKind.RESERVE, usage, key, reserve, sure)


def cycle_of(
    root: Node, context: KueueContext, extra: o.KueueWorkload | None = None, heads_of: HeadsOf | None = None
) -> dict[int, EntryResult]:
    """Kueue's next cycle over the cohort tree under ROOT: the heads of its ClusterQueues
    (HEADS_OF, possible_heads by default; EXTRA, a fitting Workload the queues do not hold, in
    place of its ClusterQueue's) nominated and processed (cycle.run_cycle), by id(workload)."""
    heads_of = heads_of or possible_heads
    nodes = list(subtree(root))
    extra_cq = context.explain(extra).cluster_queue if extra is not None else ""
    entries = []
    for node in nodes:
        if node.is_cohort:
            continue
        heads = heads_of(node.name, context) if node.name != extra_cq else []
        if extra is not None and node.name == extra_cq:
            heads = [(extra, context.explain(extra))]
        for wl, verdict in heads:
            entry = entry_of(wl, verdict, node, context, sure=len(heads) == 1)
            if entry is not None:
                entries.append(entry)
    return {id(r.entry.workload): r for r in run_cycle(entries, nodes)}


def turn_of(workload: o.KueueWorkload, context: KueueContext) -> Turn:
    """WORKLOAD's turn in Kueue's next cycle (not the head: no outcome). podwhy's next cycle is
    the one after every ClusterQueue has set aside what it sets aside (possible_heads): the
    first cycle after an event that requeues the inadmissible Workloads may try one of them
    first, once."""
    verdict = context.explain(workload)
    if verdict.stage is not Stage.FITS or not _heads_own_queue(verdict, context):
        return Turn(head=False)
    node = context.tree.cluster_queues.get(verdict.cluster_queue)
    if node is None:
        return Turn(head=False)
    queue = context.queue(verdict.cluster_queue)
    meta = workload.metadata
    if any(queue.workloads[i] is workload for i in queue.places.get((meta.namespace, meta.name), ())):
        result = context.cycle(node.root()).get(id(workload))
    else:  # not among the queues' Workloads (one built apart): its ClusterQueue's head in their place
        result = cycle_of(node.root(), context, workload).get(id(workload))
    if result is None:
        return Turn(head=False)
    before = tuple(e.workload for e in result.before)
    if not result.entry.sure:  # another head of its own ClusterQueue may go first
        own = tuple(wl for wl, _ in possible_heads(verdict.cluster_queue, context) if wl is not workload)
        before = tuple({id(wl): wl for wl in own + before}.values())
    why: tuple[str, ...] = ()
    if result.outcome is Outcome.NOT_EVALUATED:
        preempting = not result.entry.sure or any(e.kind is EntryKind.PREEMPT or not e.sure for e in result.before)
        tied = any(e.kind is EntryKind.FIT and e.sure for e in result.before)  # unknown through a tie
        why = (names.NOT_EMULATED_PREEMPTION,) * preempting + (names.NOT_EMULATED_CYCLE_ORDER,) * tied
    return Turn(result.entry.sure, result.outcome, before, why)


def with_turn(verdict: Verdict, turn: Turn | None, gates: Mapping[str, bool] | None) -> Verdict:
    """VERDICT with what Kueue's next cycle writes of a fitting head it skips: WaitingForQuota,
    "Workload no longer fits after processing another workload" (processEntry), and what hangs on
    what podwhy does not evaluate."""
    if turn is None:
        return verdict
    if turn.outcome is Outcome.NO_LONGER_FITS:
        reason = _reason(names.WAITING_FOR_QUOTA, names.LEGACY_PENDING, gates)
        return replace(
            verdict, reason=reason, message=names.MSG_NO_LONGER_FITS, granular_reason=names.WAITING_FOR_QUOTA
        )
    if turn.outcome is Outcome.NOT_EVALUATED:
        extra = tuple(f for f in turn.not_evaluated if f not in verdict.not_evaluated)
        return replace(verdict, not_evaluated=verdict.not_evaluated + extra)
    return verdict
