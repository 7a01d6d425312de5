"""The CheckReport of `podwhy check`, built from the placements, and its JUnit XML rendering."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

import msgspec
from msgspec import UNSET, UnsetType

from podwhy.analysis.blocking import BlockingCauses
from podwhy.analysis.pending import owner_of
from podwhy.cluster.placement import Displaced, ReplicaPlacement, WorkloadPlacement
from podwhy.cluster.rollout import Rollout, RolloutStatus
from podwhy.errors import PodwhyError
from podwhy.model import objects as o
from podwhy.report.build import blocking_cause, scheduler_version, snapshot_summary
from podwhy.report.inputs import api_server_warnings, input_warnings
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
from podwhy.report.versions import version_warnings
from podwhy.report.words.kinds import lacking_kinds_warning
from podwhy.report.words.placement import once_deleted_text, placement_text
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


def _replica(replica: ReplicaPlacement, snapshot: Snapshot) -> ReplicaReport:
    verdict = replica.verdict
    message = placement_text(replica.reason)
    if replica.victims and replica.node:
        victims = ", ".join(_victim(v, snapshot) for v in replica.victims)
        evicting = f"placed by preempting {len(replica.victims)} pod(s) on {replica.node}: {victims}"
        if replica.violated_pdbs:
            evicting += f"; it breaks PodDisruptionBudget {', '.join(replica.violated_pdbs)}"
        message = f"{evicting}; {message}" if message else evicting
    once = replica.once_deleted
    if once is not None:
        message = f"{message}; {once_deleted_text(once)}" if message else once_deleted_text(once)
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
    )


def _pending_groups(
    placement: WorkloadPlacement, replicas: Sequence[ReplicaReport], causes_of: _Causes
) -> list[PendingReplicas]:
    """The workload's Pending replicas (and those not created), alike ones together: one message,
    and the same causes, which analysis/blocking.py finds in each one's scheduling cycle as it
    does for explain."""
    groups: dict[tuple[str, bool, bytes], PendingReplicas] = {}
    for placed, report in zip(placement.replicas, replicas, strict=True):
        if report.node is not None:
            continue
        causes, said = causes_of(placed.cycle)
        key = (report.message, report.created, said)
        group = groups.get(key)
        if group is None:
            groups[key] = PendingReplicas(replicas=[report.name], message=report.message, causes=causes)
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
    )


FAILING_ROLLOUTS = frozenset({RolloutStatus.STALLS.value, RolloutStatus.IMMUTABLE.value})


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
            1 for w in workloads if w.pending or (w.update is not None and w.update.status in FAILING_ROLLOUTS)
        ),
        inconclusive=sum(1 for r in all_replicas if r.node is not None and r.verdict == Verdict.INCONCLUSIVE),
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
        pending = [r for r in workload.replicas if r.node is None]
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
                    "message": f"{summary}: {pending[0].message}",
                },
            )
            failure.text = "\n".join(_pending_lines(workload))
        elif _inconclusive(workload):
            # Not a pass: an <error> (GitHub's, GitLab's and Jenkins' reports all show it as a
            # failed test, where <skipped> would read as green), with what was not evaluated.
            doubtful = _inconclusive(workload)
            error = ET.SubElement(
                case,
                "error",
                {
                    "type": "Inconclusive",
                    "message": f"{len(doubtful)} of {len(workload.replicas)} replicas placed, but "
                    f"{doubtful[0].message.removeprefix('placed, but ')}",
                },
            )
            error.text = "\n".join(f"{r.name}: {r.message}" for r in doubtful)
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
    message = {r.name: r.message for r in workload.replicas if r.node is None}
    lines: list[str] = []
    for group in workload.pendingGroups:
        lines += [f"{name}: {message.get(name, group.message)}" for name in group.replicas]
        lines += [f"  · {cause.text}" for cause in group.causes]
    return lines


def _inconclusive(workload: WorkloadReport) -> list[ReplicaReport]:
    """The workload's replicas placed without every input evaluated (exit 3)."""
    return [r for r in workload.replicas if r.node is not None and r.verdict == Verdict.INCONCLUSIVE]


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
    return f"{line}; {PODS_ONLY_NOTE}" if rollout.comparedPodsOnly is True else line


# Said of an "unchanged" template decided from the running pods alone.
PODS_ONLY_NOTE = (
    "compared with its running pods only (the snapshot holds no stored template of it): fields podwhy"
    " does not read, such as env, command, probes or annotations, were not compared"
)


def _rollout_words(workload: WorkloadReport, rollout: RolloutReport) -> str:
    old, new, removed = rollout.oldReplicas, rollout.newReplicas, rollout.removed
    if rollout.status == "Unchanged":
        if removed:
            return f"unchanged template: scaled down from {old} to {old - len(removed)} (removes {', '.join(removed)})"
        if workload.replicas:
            return f"unchanged template: scaled up from {old}, {new} of {len(workload.replicas)} new replicas placed"
        return f"unchanged: {old} replica{'s' if old != 1 else ''} running"
    if rollout.status == "Completes":
        return f"rollout completes: {new} new replica{'s' if new != 1 else ''} ({len(removed)} old removed)"
    if rollout.status == "Immutable":
        return (
            "template changed, but a Job's template is immutable: `kubectl apply` fails "
            f'(The Job "{workload.name}" is invalid: spec.template: field is immutable); its pods keep running'
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


def rollout_lines(report: CheckReport) -> list[str]:
    """Each updated workload's rollout, then what is not simulated of them."""
    lines = [f"{w.key}: {rollout_line(w)}" for w in report.workloads if w.update is not None]
    return [*lines, ROLLOUT_NOTE] if lines else []
