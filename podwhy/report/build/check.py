"""The CheckReport of `podwhy check`, built from the placements."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import msgspec
from msgspec import UNSET, UnsetType

from podwhy.analysis.blocking import BlockingCauses
from podwhy.analysis.owners import owner_of
from podwhy.analysis.suggest.facts import PolicyFixes
from podwhy.cluster.controllers.rollout import Rollout
from podwhy.cluster.controllers.types import Displaced, ReplicaPlacement, WorkloadPlacement
from podwhy.cluster.kueuecheck import KueueDecision
from podwhy.framework.notevaluated import ROOM_UNKNOWNS, NotEvaluated, not_evaluated
from podwhy.framework.status import Code
from podwhy.model import objects as o
from podwhy.report.build.common import blocking_cause, scheduler_version, snapshot_summary, suggestion
from podwhy.report.build.inputs import api_server_warnings, input_warnings
from podwhy.report.build.release import version_warnings
from podwhy.report.model import (
    BlockingCause,
    CheckReport,
    CheckSummary,
    DefaultedField,
    DisplacedPod,
    FitsOnceDeleted,
    KueueAdmittedPodSet,
    KueueCheck,
    NotChecked,
    PendingReplicas,
    ReplicaReport,
    RolloutReport,
    RolloutStep,
    WorkloadReport,
)
from podwhy.report.words.check import FAILING_ROLLOUTS, replica_note, stuck
from podwhy.report.words.lacking import lacking_kinds_warning
from podwhy.report.words.notevaluated import joined_why_text
from podwhy.report.words.placement import (
    placement_text,
)
from podwhy.report.words.suggestpolicy import policy_note_text
from podwhy.scheduler.cycle import CycleOutcome
from podwhy.scheduler.release import ChosenVersion
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict


def _victim(pod: o.Pod, snapshot: Snapshot) -> str:
    owner = owner_of(pod, snapshot)
    who = str(owner) if owner is not None else "a bare pod: nothing creates it again"
    return f"{pod.metadata.namespace}/{pod.metadata.name} ({who})"


def _displaced(displaced: Displaced, snapshot: Snapshot) -> DisplacedPod:
    victim = displaced.victim
    owner = owner_of(victim, snapshot)
    placed = displaced.replacement
    return DisplacedPod(
        pod=f"{victim.metadata.namespace}/{victim.metadata.name}",
        owner=str(owner) if owner is not None else None,
        evictedBy=displaced.preemptor,
        replacement=placed.pod.metadata.name if placed is not None else "",
        node=placed.node or None if placed is not None else None,
        message=placement_text(placed.reason) if placed is not None else "",
    )


def _preemption_not_evaluated(replica: ReplicaPlacement, snapshot: Snapshot) -> tuple[str, bool]:
    """Why a replica left Pending had its preemption dry run not evaluated ("" when it was), and
    whether that leaves its Pending inconclusive: when the snapshot cannot vouch for the cluster's
    pods (a `kubectl get nodes` dump), preemption might evict pods podwhy does not see, so the
    replica is not known to stay Pending (exit 3, as any placement on such a dump); otherwise it
    stays Unschedulable, its message lacking the preemption part, as explain says it."""
    cycle = replica.cycle
    if replica.placed or not replica.created or cycle is None or cycle.verdict != Verdict.UNSCHEDULABLE:
        return "", False
    post_filter = cycle.post_filter
    reasons: list[NotEvaluated] = list(post_filter.not_evaluated.values()) if post_filter is not None else []
    room = sorted(kind for kind in cycle.fit_unknown if kind in ROOM_UNKNOWNS)
    # Preemption can help only on a node that failed for what evicting pods resolves (Unschedulable,
    # not UnschedulableAndUnresolvable), and only a pod that may preempt.
    outcome = cycle.outcome
    resolvable = (
        outcome is not None
        and outcome.pre_filter_failure is None
        and any(n.first_failure is not None and n.first_failure.code == Code.Unschedulable for n in outcome.nodes)
    )
    preempts = resolvable and (replica.pod.spec.preemption_policy or "PreemptLowerPriority") != "Never"
    if room and preempts and (why := not_evaluated(room, snapshot.missing)) is not None:
        reasons.append(why)
    return joined_why_text(reasons), bool(room) and preempts


def _replica(replica: ReplicaPlacement, snapshot: Snapshot) -> ReplicaReport:
    verdict = replica.verdict
    message = placement_text(replica.reason)
    unevaluated, unsure = _preemption_not_evaluated(replica, snapshot)
    if unsure:
        verdict = Verdict.INCONCLUSIVE  # preemption might place it
    if replica.victims and replica.node:
        victims = ", ".join(_victim(v, snapshot) for v in replica.victims)
        evicting = f"placed by preempting {len(replica.victims)} pod(s) on {replica.node}: {victims}"
        if replica.violated_pdbs:
            evicting += f"; it breaks PodDisruptionBudget {', '.join(replica.violated_pdbs)}"
        message = f"{evicting}; {message}" if message else evicting
    once = replica.once_deleted
    return ReplicaReport(
        name=replica.pod.metadata.name,
        verdict=verdict,
        node=replica.node or None,
        message=message,
        tiedNodes=list(replica.tied),
        tiedCount=replica.tied_count,
        created=replica.created,
        targetNode=replica.target_node or None,
        evicted=[_victim(victim, snapshot) for victim in replica.victims],
        violatedPdbs=list(replica.violated_pdbs),
        preemptedBy=replica.preempted_by or None,
        fitsOnceDeleted=FitsOnceDeleted(node=once.node, pods=list(once.pods), count=once.count)
        if once is not None
        else UNSET,
        preemptionNotEvaluated=unevaluated or UNSET,
    )


def _pending_groups(
    placement: WorkloadPlacement, replicas: Sequence[ReplicaReport], causes_of: _Causes
) -> list[PendingReplicas]:
    """The workload's Pending replicas (and those not created), alike ones together: one message,
    and the same causes, which analysis/blocking.py finds in each one's scheduling cycle as it
    does for explain."""
    groups: dict[tuple[str, str, bool, bytes], PendingReplicas] = {}
    for placed, report in zip(placement.replicas, replicas, strict=True):
        if report.node is not None:
            continue
        causes, said = causes_of(placed.cycle)
        note = replica_note(report)
        key = (report.message, note, report.created, said)
        group = groups.get(key)
        if group is None:
            groups[key] = PendingReplicas(replicas=[report.name], message=report.message, causes=causes, note=note)
        else:
            group.replicas.append(report.name)
    return list(groups.values())


class _Causes:
    """The causes of Pending replicas' cycles as the report says them, and their JSON (what makes
    replicas alike), each found once (replicas reusing an identical one's verdicts share them)."""

    def __init__(self, snapshot: Snapshot) -> None:
        self._facts = BlockingCauses(snapshot.nodes)
        self._said: dict[int, tuple[list[BlockingCause], bytes]] = {}

    def __call__(self, cycle: CycleOutcome | None) -> tuple[list[BlockingCause], bytes]:
        facts = self._facts(cycle) if cycle is not None else []
        said = self._said.get(id(facts)) if facts else None
        if said is None:
            causes = [blocking_cause(c) for c in facts]
            said = (causes, msgspec.json.encode(causes))
            if facts:
                self._said[id(facts)] = said
        return said


def _defaults(placement: WorkloadPlacement, snapshot: Snapshot) -> list[DefaultedField] | UnsetType:
    """What the API server filled in on the workload's first replica (its pods share a template)."""
    first = placement.replicas[0].pod if placement.replicas else None
    if first is None:
        first = placement.workload.daemon_template or next(iter(placement.workload.pods), None)
    if first is None:
        return UNSET
    filled = snapshot.defaulted.get(f"{first.metadata.namespace}/{first.metadata.name}")
    template = placement.workload.daemon_template
    if not filled and template is not None:  # a DaemonSet's pods: its template was admitted once
        filled = snapshot.defaulted.get(f"{template.metadata.namespace}/{template.metadata.name}")
    # The workload's own changes (MutatingAdmissionPolicies on its `kubectl apply`) first.
    workload = placement.workload
    own = snapshot.defaulted.get(f"{workload.kind} {workload.namespace}/{workload.name}", [])
    filled = [*own, *(filled or [])]
    return [DefaultedField(field=f, value=v, why=w) for f, v, w in filled] if filled else UNSET


def _rollout(rollout: Rollout | None, kind: str, replicas: int) -> RolloutReport | UnsetType:
    if rollout is None:
        return UNSET
    deployment = kind == "Deployment" and bool(rollout.steps)
    return RolloutReport(
        status=rollout.status.value,
        oldReplicas=rollout.old_replicas,
        replicas=replicas if rollout.replicas is None else rollout.replicas,
        newReplicas=rollout.new_replicas,
        removed=list(rollout.removed),
        steps=[RolloutStep(old=s.old, new=s.new, newPlaced=s.new_placed) for s in rollout.steps],
        maxSurge=rollout.max_surge,
        maxUnavailable=rollout.max_unavailable,
        progressDeadlineSeconds=rollout.progress_deadline_seconds if deployment else None,
        comparedPodsOnly=True if rollout.pods_compared else UNSET,
        existingReplicaSet=rollout.revision or UNSET,
        refusal=rollout.refusal or UNSET,
        job=_JOB_OUTCOMES[rollout.job] if rollout.job else UNSET,
    )


_JOB_OUTCOMES: dict[str, Literal["Runs", "Suspended", "Finished", "DeadlineExceeded"]] = {
    "Runs": "Runs",
    "Suspended": "Suspended",
    "Finished": "Finished",
    "DeadlineExceeded": "DeadlineExceeded",
}


def _toleration(t: o.Toleration) -> str:
    """A toleration as `key=value:Effect` (operator Exists: `key:Effect`)."""
    value = f"={t.value}" if t.value else ""
    effect = f":{t.effect}" if t.effect else ""
    return f"{t.key or '*'}{value}{effect}"


def _kueue(decision: KueueDecision | None) -> KueueCheck | UnsetType:
    if decision is None:
        return UNSET
    wl, verdict = decision.workload, decision.verdict
    admitted = decision.admitted
    return KueueCheck(
        workload=f"{wl.metadata.namespace}/{wl.metadata.name}" if wl is not None else "",
        localQueue=decision.local_queue,
        admitted=admitted,
        clusterQueue=verdict.cluster_queue if verdict is not None else "",
        stage=verdict.stage.value if verdict is not None else "",
        reason="" if admitted or verdict is None else verdict.reason,
        message=decision.problem if verdict is None else ("" if admitted else verdict.message),
        inconclusive=decision.unsure,
        podSets=[KueueAdmittedPodSet(name=name, flavors=dict(flavors)) for name, flavors in decision.flavors.items()],
        nodeSelector=dict(decision.node_selector),
        tolerations=[_toleration(t) for t in decision.tolerations],
        ahead=[f"{w.metadata.namespace}/{w.metadata.name}" for w in verdict.ahead] if verdict is not None else [],
        notEvaluated=list(verdict.not_evaluated) if verdict is not None else [],
    )


def build_check_report(
    placements: list[WorkloadPlacement],
    snapshot: Snapshot,
    version: ChosenVersion | None = None,
    not_checked: Sequence[tuple[str, str, int]] = (),
    displaced: Sequence[Displaced] = (),
    fixes: Mapping[str, PolicyFixes] | None = None,
) -> CheckReport:
    """The report of the PLACEMENTS; FIXES: what is suggested for the workloads whose pods a
    ValidatingAdmissionPolicy refuses, by workload key."""
    workloads: list[WorkloadReport] = []
    causes_of = _Causes(snapshot)
    for placement in placements:
        wl = placement.workload
        fixed = (fixes or {}).get(wl.key)
        replicas = [_replica(r, snapshot) for r in placement.replicas]
        placed = sum(1 for r in placement.replicas if r.placed)
        workloads.append(
            WorkloadReport(
                kind=wl.kind,
                namespace=wl.namespace,
                name=wl.name,
                source=wl.source,
                placed=placed,
                pending=len(replicas) - placed,
                replicas=replicas,
                pendingGroups=_pending_groups(placement, replicas, causes_of),
                ineligibleNodes=dict(placement.ineligible_nodes),
                rollout=_rollout(placement.rollout, wl.kind, len(wl.pods)),
                apiServerDefaults=_defaults(placement, snapshot),
                kueue=_kueue(placement.kueue),
                suggestions=[suggestion(x) for x in fixed.suggestions] if fixed is not None else UNSET,
                notes=[policy_note_text(n) for n in fixed.notes] if fixed is not None else UNSET,
            )
        )
    all_replicas = [r for w in workloads for r in w.replicas]
    summary = CheckSummary(
        workloads=len(workloads),
        replicas=len(all_replicas),
        placed=sum(w.placed for w in workloads),
        pending=sum(w.pending for w in workloads),
        failingWorkloads=sum(
            1
            for w in workloads
            if stuck(w)
            or (w.update is not None and w.update.status in FAILING_ROLLOUTS)
            or (isinstance(w.kueue, KueueCheck) and not w.kueue.admitted and not w.kueue.inconclusive)
        ),
        inconclusive=sum(1 for r in all_replicas if r.node is not None and r.verdict == Verdict.INCONCLUSIVE),
        pendingInconclusive=sum(1 for r in all_replicas if r.node is None and r.verdict == Verdict.INCONCLUSIVE),
    )
    warnings = input_warnings(snapshot) + version_warnings(version) + api_server_warnings(snapshot)
    warnings += [
        f"{w.key}: its controller runs it on no node"
        for w, p in zip(workloads, placements, strict=True)
        if p.workload.daemon_template is not None and not w.replicas and p.rollout is None
    ]
    lacking = sorted({kind for p in placements for r in p.replicas for kind in r.lacking_kinds})
    if lacking:
        warnings.append(lacking_kinds_warning(lacking))
    return CheckReport(
        summary=summary,
        workloads=workloads,
        snapshot=snapshot_summary(snapshot),
        scheduler=scheduler_version(version),
        warnings=warnings,
        notChecked=[NotChecked(kind=kind, count=count, field=field) for kind, field, count in not_checked],
        displaced=[_displaced(d, snapshot) for d in displaced],
    )
