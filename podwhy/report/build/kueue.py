"""The report's `kueue` object from analysis/kueue.py's facts, and the whole report of a Job or
Workload explain is pointed at (no pod exists yet: `pod` names the target)."""

from __future__ import annotations

from podwhy.analysis.kueue import KueueFacts, Staleness, format_amount
from podwhy.cluster.kueue.assignment import PreemptionMode, QuotaCheck
from podwhy.model.wellknownnames import DEFAULT_SCHEDULER_NAME
from podwhy.report.build.common import snapshot_summary
from podwhy.report.build.inputs import input_warnings
from podwhy.report.model import (
    KueueAhead,
    KueuePendingGroup,
    KueuePodSet,
    KueueQuotaFigure,
    KueueRecorded,
    KueueReport,
    PodSummary,
    Report,
)
from podwhy.report.words.kueuefate import summary_text
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict

# PreemptionMode as the report names a check's outcome.
MODE_NAMES = {
    PreemptionMode.FIT: "Fit",
    PreemptionMode.RECLAIM: "Preempt",
    PreemptionMode.PREEMPT: "Preempt",
    PreemptionMode.NO_CANDIDATES: "NoFit",
    PreemptionMode.NO_FIT: "NoFit",
}


def _figure(check: QuotaCheck) -> KueueQuotaFigure:
    res = check.resource
    return KueueQuotaFigure(
        resource=res,
        flavor=check.flavor,
        needed=format_amount(res, check.needed),
        nominal=format_amount(res, check.nominal),
        used=format_amount(res, check.used),
        borrowable=format_amount(res, check.borrowable),
        available=format_amount(res, check.available),
        mode=MODE_NAMES[check.mode],
    )


def _pod_sets(facts: KueueFacts) -> list[KueuePodSet]:
    verdict = facts.verdict
    if verdict is None:
        return []
    checks = verdict.assignment.checks if verdict.assignment is not None else []
    out = []
    for requests in verdict.requests:
        seen: set[tuple[str, str]] = set()
        figures = []
        for check in checks:
            if requests.name in check.pod_sets and (check.resource, check.flavor) not in seen:
                seen.add((check.resource, check.flavor))
                figures.append(_figure(check))
        out.append(KueuePodSet(name=requests.name, count=requests.count, resources=figures))
    return out


def kueue_report(facts: KueueFacts) -> KueueReport:
    verdict = facts.verdict
    wl = facts.workload
    rec = facts.recorded
    return KueueReport(
        target=f"{facts.kind} {facts.key}",
        summary=summary_text(facts),
        workload=f"{wl.metadata.namespace}/{wl.metadata.name}" if wl is not None else "",
        clusterQueue=facts.cluster_queue,
        localQueue=facts.local_queue,
        admitted=facts.admitted,
        stage=verdict.stage.value if verdict is not None else "",
        reason="" if facts.admitted or verdict is None else verdict.reason,
        message="" if facts.admitted or verdict is None else verdict.message,
        podSets=_pod_sets(facts),
        ahead=[KueueAhead(workload=a.key, priority=a.priority, position=a.position) for a in facts.ahead],
        blockedBy=facts.strict_fifo_head,
        notEvaluated=list(facts.not_evaluated),
        recorded=KueueRecorded(type=rec.type, status=rec.status, reason=rec.reason, message=rec.message)
        if rec.type
        else None,
        stale=facts.staleness is Staleness.RECORDED_STALE,
    )


def kueue_verdict(facts: KueueFacts) -> Verdict:
    """A Job or Workload's verdict: admitted (it runs as far as Kueue decides), inconclusive where
    what decides was not evaluated, else held back before scheduling (Gated: exit 1)."""
    if facts.admitted:
        return Verdict.SCHEDULABLE
    if facts.inconclusive:
        return Verdict.INCONCLUSIVE
    return Verdict.GATED


def build_kueue_report(facts: KueueFacts, snapshot: Snapshot) -> Report:
    """The report of a Job or Workload: no pod, no nodes; `kueue` says it all."""
    kueue = kueue_report(facts)
    wl = facts.workload
    priority = wl.spec.priority if wl is not None and wl.spec.priority is not None else 0
    verdict = kueue_verdict(facts)
    return _report(facts, snapshot, kueue, verdict, priority)


def _report(
    facts: KueueFacts,
    snapshot: Snapshot,
    kueue: KueueReport,
    verdict: Verdict,
    priority: int,
) -> Report:
    wl = facts.workload
    return Report(
        pod=PodSummary(
            namespace=facts.namespace,
            name=facts.name,
            uid=wl.metadata.uid if wl is not None else "",
            phase="",
            priority=priority,
            schedulerName=DEFAULT_SCHEDULER_NAME,
        ),
        verdict=verdict,
        message=kueue.summary,
        snapshot=snapshot_summary(snapshot),
        warnings=input_warnings(snapshot),
        notEvaluated="; ".join(facts.not_evaluated) if verdict == Verdict.INCONCLUSIVE else "",
        kueue=kueue,
    )


def kueue_pending_groups(held: list[KueueFacts]) -> list[KueuePendingGroup]:
    """What Kueue holds, by ClusterQueue and cause (Kueue's reason, else podwhy's fate where
    Kueue sets none or what decides was not evaluated), most first."""
    groups: dict[tuple[str, str], list[KueueFacts]] = {}
    for facts in held:
        reason = facts.verdict.reason if facts.verdict is not None else ""
        cause = facts.fate.value if facts.inconclusive or facts.admitted or not reason else reason
        groups.setdefault((facts.cluster_queue, cause), []).append(facts)
    out = [
        KueuePendingGroup(
            clusterQueue=cq,
            cause=cause,
            admitted=all(f.admitted for f in members),
            count=len(members),
            targets=[f"{f.kind} {f.key}" for f in members],
            example=summary_text(members[0]),
        )
        for (cq, cause), members in groups.items()
    ]
    out.sort(key=lambda g: (-g.count, g.clusterQueue, g.cause))
    return out
