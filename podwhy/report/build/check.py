"""The CheckReport of `podwhy check`, built from the placements, and its JUnit XML rendering."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import msgspec
from msgspec import UNSET, UnsetType

from podwhy.analysis.blocking import BlockingCauses
from podwhy.analysis.pending import owner_of
from podwhy.cluster.placement import Displaced, ReplicaPlacement, WorkloadPlacement
from podwhy.cluster.placementreasons import OnceDeleted
from podwhy.cluster.rollout import Rollout, RolloutStatus
from podwhy.errors import PodwhyError
from podwhy.framework.missing import ROOM_UNKNOWNS, not_evaluated_reason
from podwhy.framework.status import Code
from podwhy.model import objects as o
from podwhy.report.build.explain import blocking_cause, scheduler_version, snapshot_summary
from podwhy.report.build.inputs import api_server_warnings, input_warnings
from podwhy.report.model import (
    BlockingCause,
    CheckReport,
    CheckSummary,
    DefaultedField,
    DisplacedPod,
    FitsOnceDeleted,
    NotChecked,
    PendingReplicas,
    ReplicaReport,
    RolloutReport,
    RolloutStep,
    WorkloadReport,
)
from podwhy.report.safe import made_safe
from podwhy.report.build.versions import version_warnings
from podwhy.report.words.kinds import lacking_kinds_warning
from podwhy.report.words.placement import (
    once_deleted_text,
    pending_note,
    placement_text,
    preemption_not_evaluated_text,
    with_note,
)
from podwhy.scheduler.cycle import CycleOutcome
from podwhy.scheduler.versions import ChosenVersion
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


def displaced_lines(report: CheckReport) -> list[str]:
    """The cluster's pods the replicas' preemption evicted, and where their replacements went."""
    lines = []
    for d in report.displaced:
        owner = f" ({d.owner})" if d.owner else ""
        where = (
            f"its replacement {d.replacement} goes to {d.node}"
            if d.node
            else (f"its replacement {d.replacement} stays Pending: {d.message}")
        )
        lines.append(f"Evicted by {d.evictedBy}'s preemption: {d.pod}{owner}; {where}")
    return lines


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
    reasons = [
        why.removeprefix("not evaluated: ") for why in (post_filter.not_evaluated if post_filter else {}).values()
    ]
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
    if room and preempts:
        reasons.append(not_evaluated_reason(room, snapshot.missing).removeprefix("not evaluated: "))
    said = list(dict.fromkeys(why for why in reasons if why))
    lacks = "the snapshot has no "
    if len(said) > 1 and all(why.startswith(lacks) for why in said):  # one sentence for the kinds
        said = [lacks + ", ".join(why.removeprefix(lacks) for why in said)]
    return "; ".join(said), bool(room) and preempts


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


def replica_note(replica: ReplicaReport) -> str:
    """podwhy's own words beside a Pending replica's message: where it fits once the pods being
    deleted are gone, that its preemption was not evaluated."""
    once = replica.fitsOnceDeleted
    return pending_note(
        once_deleted_text(OnceDeleted(once.node, tuple(once.pods), once.count)) if once is not UNSET else "",
        preemption_not_evaluated_text(replica.preemptionNotEvaluated)
        if replica.preemptionNotEvaluated is not UNSET
        else "",
    )


def replica_text(replica: ReplicaReport) -> str:
    """A replica's message, then podwhy's note on it (what the table, markdown and JUnit say)."""
    return with_note(replica.message, replica_note(replica)) if replica.node is None else replica.message


def group_text(group: PendingReplicas) -> str:
    """Alike Pending replicas' message, then podwhy's note on them."""
    return with_note(group.message, group.note)


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


# A rollout that does not complete (exit 1, a JUnit failure): it stalls, cannot be applied, or
# does not start (a paused Deployment).
FAILING_ROLLOUTS = frozenset({RolloutStatus.STALLS.value, RolloutStatus.IMMUTABLE.value, RolloutStatus.PAUSED.value})


def build_check_report(
    placements: list[WorkloadPlacement],
    snapshot: Snapshot,
    version: ChosenVersion | None = None,
    not_checked: Sequence[tuple[str, str, int]] = (),
    displaced: Sequence[Displaced] = (),
) -> CheckReport:
    workloads: list[WorkloadReport] = []
    causes_of = _Causes(snapshot)
    for placement in placements:
        wl = placement.workload
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
            )
        )
    all_replicas = [r for w in workloads for r in w.replicas]
    summary = CheckSummary(
        workloads=len(workloads),
        replicas=len(all_replicas),
        placed=sum(w.placed for w in workloads),
        pending=sum(w.pending for w in workloads),
        failingWorkloads=sum(
            1 for w in workloads if _stuck(w) or (w.update is not None and w.update.status in FAILING_ROLLOUTS)
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


def _stuck(workload: WorkloadReport) -> list[ReplicaReport]:
    """The workload's replicas known to stay Pending (or not created): not those whose preemption
    was not evaluated."""
    return [r for r in workload.replicas if r.node is None and r.verdict != Verdict.INCONCLUSIVE]


def junit_xml(report: CheckReport) -> bytes:
    """One testcase per workload; a failure (with every Pending replica's message) when any stays Pending.
    Every string is made safe first (report/safe.py): what is left is text XML 1.0 allows."""
    report = made_safe(report)
    suite = ET.Element(
        "testsuite",
        {
            "name": "podwhy check",
            "tests": str(report.summary.workloads),
            "failures": str(report.summary.failingWorkloads),
            "errors": str(sum(1 for w in report.workloads if _inconclusive(w))),
        },
    )
    for workload in report.workloads:
        case = ET.SubElement(
            suite, "testcase", {"classname": f"{workload.namespace}.{workload.kind}", "name": workload.name}
        )
        pending = _stuck(workload)
        failed_rollout = workload.update is not None and workload.update.status in FAILING_ROLLOUTS
        if failed_rollout and not pending:
            ET.SubElement(case, "failure", {"type": "Rollout", "message": rollout_line(workload)})
        elif pending:
            summary = f"{len(pending)} of {len(workload.replicas)} replicas stay Pending"
            failure = ET.SubElement(
                case,
                "failure",
                {
                    "type": "Pending",
                    "message": f"{summary}: {replica_text(pending[0])}",
                },
            )
            failure.text = "\n".join(_pending_lines(workload))
        elif _inconclusive(workload):
            # Not a pass: an <error> (GitHub's, GitLab's and Jenkins' reports all show it as a
            # failed test, where <skipped> would read as green), with what was not evaluated.
            doubtful = _inconclusive(workload)
            placed_doubts = [r for r in doubtful if r.node is not None]
            unsure = [r for r in doubtful if r.node is None]
            said = []
            if placed_doubts:
                said.append(
                    f"{len(placed_doubts)} of {len(workload.replicas)} replicas placed, but "
                    f"{placed_doubts[0].message.removeprefix('placed, but ')}"
                )
            if unsure:
                said.append(f"{len(unsure)} Pending, but {replica_note(unsure[0])}")
            error = ET.SubElement(case, "error", {"type": "Inconclusive", "message": "; ".join(said)})
            error.text = "\n".join(f"{r.name}: {replica_text(r)}" for r in doubtful)
        placed = [f"{r.name} -> {r.node}" for r in workload.replicas if r.node is not None]
        if placed:
            ET.SubElement(case, "system-out").text = "\n".join(placed)
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data


def _pending_lines(workload: WorkloadReport) -> list[str]:
    """Each Pending replica and its message, group by group, each group's causes (as explain says
    them) under its last replica."""
    message = {r.name: replica_text(r) for r in workload.replicas if r.node is None}
    lines: list[str] = []
    for group in workload.pendingGroups:
        lines += [f"{name}: {message.get(name, group_text(group))}" for name in group.replicas]
        lines += [f"  · {cause.text}" for cause in group.causes]
    return lines


def _inconclusive(workload: WorkloadReport) -> list[ReplicaReport]:
    """The workload's replicas placed without every input evaluated, or left Pending without their
    preemption evaluated (exit 3)."""
    return [r for r in workload.replicas if r.verdict == Verdict.INCONCLUSIVE]


def write_junit(report: CheckReport, path: Path) -> None:
    try:
        path.write_bytes(junit_xml(report) + b"\n")
    except OSError as exc:
        raise PodwhyError(f"{path}: cannot write: {exc.strerror}") from None


def not_checked_lines(report: CheckReport) -> list[str]:
    """What the check left out, in words: kinds whose controllers podwhy does not simulate, and
    fields of the workloads it read whose effect it does not simulate."""
    lines: list[str] = []
    kinds = [f"{n.count} {n.kind}" for n in report.notChecked if not n.field]
    if kinds:
        what = "podwhy does not simulate their controllers; pods they create are not placed"
        lines.append(f"Not checked: {', '.join(kinds)}: {what}")
    fields = [f"{n.field} of {n.count} {n.kind}" for n in report.notChecked if n.field]
    if fields:
        lines.append(
            f"Not simulated: {', '.join(fields)}: what the controller does once pods fail; the pods it starts with are"
            " placed"
        )
    return lines


# Said once when a check updates workloads the cluster runs.
ROLLOUT_NOTE = (
    "Rollouts: each pod the controllers create is scheduled as it is created and counts as available once"
    " placed (readiness, probes and minReadySeconds are not simulated)"
)


def rollout_line(workload: WorkloadReport) -> str:
    """What updating the workload the cluster runs does, in words ("" when it runs nothing yet)."""
    rollout = workload.update
    if rollout is None:
        return ""
    line = _rollout_words(workload, rollout)
    if rollout.existingReplicaSet is not UNSET:
        line += (
            f"; its ReplicaSet {rollout.existingReplicaSet} already has the manifest's template (a rollback, or a"
            " rollout under way): the controller scales it up rather than creating one"
        )
    return f"{line}; {PODS_ONLY_NOTE}" if rollout.comparedPodsOnly is True else line


# Said of an "unchanged" template decided from the running pods alone.
PODS_ONLY_NOTE = (
    "compared with its running pods only (the snapshot holds no stored template of it): fields podwhy"
    " does not read, such as env, command, probes or annotations, were not compared"
)


def _rollout_words(workload: WorkloadReport, rollout: RolloutReport) -> str:
    old, new, removed = rollout.oldReplicas, rollout.newReplicas, rollout.removed
    if rollout.job is not UNSET and rollout.job != "Runs":
        return _job_words(workload, rollout)
    if rollout.job is not UNSET and rollout.status in ("Unchanged", "Completes"):
        what = "unchanged template" if rollout.status == "Unchanged" else "scheduling directives changed"
        if removed:
            kept = old - len(removed)
            return f"{what}: the Job controller deletes {', '.join(removed)} ({kept} keep running)"
        if workload.replicas:
            created = len(workload.replicas)
            return (
                f"{what}: the Job controller creates {created} more pod{'s' if created != 1 else ''}, {new} placed"
                f" ({old} running)"
            )
        return f"{what}: {old} pod{'s' if old != 1 else ''} running, none to add"
    if rollout.status == "Unchanged":
        if removed:
            return f"unchanged template: scaled down from {old} to {old - len(removed)} (removes {', '.join(removed)})"
        if workload.replicas:
            return f"unchanged template: scaled up from {old}, {new} of {len(workload.replicas)} new replicas placed"
        return f"unchanged: {old} replica{'s' if old != 1 else ''} running"
    if rollout.status == "Completes":
        return f"rollout completes: {new} new replica{'s' if new != 1 else ''} ({len(removed)} old removed)"
    if rollout.status == "Immutable":
        refusal = rollout.refusal if rollout.refusal is not UNSET else ""
        if refusal.endswith(": spec.template: field is immutable"):
            return (
                f"template changed, but a Job's template is immutable: `kubectl apply` fails ({refusal}); its pods"
                " keep running"
            )
        return f"`kubectl apply` fails ({refusal}); its pods keep running"
    if rollout.status == "Paused":
        running = old - len(removed) + new
        scaled = f", scaled to {rollout.replicas} with the old template" if rollout.replicas != old else ""
        return (
            "template changed, but the Deployment is paused (spec.paused): its controller does not start the"
            f" rollout (condition Progressing: Unknown, DeploymentPaused); {running} old replica"
            f"{'s' if running != 1 else ''} keep{'s' if running == 1 else ''} running{scaled}; it rolls out once"
            f" resumed: `kubectl rollout resume deployment/{workload.name} -n {workload.namespace}`"
        )
    if rollout.status == "WaitsForDeletion":
        return f"updateStrategy OnDelete: nothing changes until its pods are deleted ({old} old keep running)"
    still = rollout.steps[-1].old if rollout.steps else old - len(removed)
    created = len(workload.replicas)
    line = (
        f"rollout stalls at {new} of {rollout.replicas} new replicas placed ({created} created, {still} old still run)"
    )
    if rollout.progressDeadlineSeconds is not None:
        line += f"; the Deployment reports ProgressDeadlineExceeded after {rollout.progressDeadlineSeconds}s"
    waiting = sum(1 for r in workload.replicas if r.fitsOnceDeleted is not UNSET)
    if waiting:
        line += (
            f"; {waiting} of its Pending replicas fit{'s' if waiting == 1 else ''} once pods being deleted are gone:"
            " the rollout depends on them leaving"
        )
    return line


def _job_words(workload: WorkloadReport, rollout: RolloutReport) -> str:
    """What the Job controller does with a Job it will not run more pods of."""
    old, removed = rollout.oldReplicas, rollout.removed
    deleted = f"deletes its {len(removed)} active pod{'s' if len(removed) != 1 else ''}" if removed else "runs no pod"
    if rollout.job == "Suspended":
        return f"suspended (spec.suspend): the Job controller {deleted} and creates none until it is resumed"
    if rollout.job == "Finished":
        return f"the Job has finished: its controller creates no more pods ({old} running)"
    return f"past its activeDeadlineSeconds: the Job controller fails it (DeadlineExceeded) and {deleted}"


def rollout_lines(report: CheckReport) -> list[str]:
    """Each updated workload's rollout, then what is not simulated of them."""
    lines = [f"{w.key}: {rollout_line(w)}" for w in report.workloads if w.update is not None]
    return [*lines, ROLLOUT_NOTE] if lines else []
