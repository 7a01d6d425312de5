"""The report's `kueue` object from analysis/kueue.py's facts, and the whole report of a Job or
Workload explain is pointed at (no pod exists yet: `pod` names the target)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from podwhy.analysis.kueuefacts import (
    KUEUE_GATES,
    KueueFacts,
    QueueSwitch,
    QuotaFigure,
    QuotaRaise,
    Staleness,
    TaintToleration,
    format_amount,
)
from podwhy.analysis.kueuefacts import KueueSuggestion as SuggestionFacts
from podwhy.cluster.kueue import names
from podwhy.model import objects as o
from podwhy.model.wellknownnames import DEFAULT_SCHEDULER_NAME
from podwhy.report.build.common import snapshot_summary
from podwhy.report.build.inputs import input_warnings
from podwhy.report.model import (
    REASONS_GRANULAR,
    REASONS_LEGACY,
    KueueAhead,
    KueuePendingGroup,
    KueuePodSet,
    KueueQuotaChange,
    KueueQuotaFigure,
    KueueRecorded,
    KueueReport,
    KueueSuggestion,
    KueueTolerationAdded,
    PodSummary,
    Report,
)
from podwhy.report.words.kueue import suggestion_text
from podwhy.report.words.kueuefate import summary_text
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict


def _figure(res: str, figure: QuotaFigure) -> KueueQuotaFigure:
    return KueueQuotaFigure(
        resource=res,
        flavor=figure.flavor,
        needed=format_amount(res, figure.needed),
        nominal=format_amount(res, figure.nominal),
        used=format_amount(res, figure.used),
        borrowable=format_amount(res, figure.borrowable),
        available=format_amount(res, figure.available),
        mode=figure.mode,
    )


def _pod_sets(facts: KueueFacts) -> list[KueuePodSet]:
    return [
        KueuePodSet(name=ps.name, count=ps.count, resources=[_figure(f.resource, f) for f in ps.figures])
        for ps in facts.pod_sets
    ]


def _suggestion(facts: SuggestionFacts) -> KueueSuggestion:
    quota = [
        KueueQuotaChange(
            clusterQueue=c.cluster_queue,
            flavor=c.flavor,
            resource=c.resource,
            field=c.knob.value,
            old=format_amount(c.resource, c.old),
            new=format_amount(c.resource, c.new),
        )
        for c in facts.changes
        if isinstance(c, QuotaRaise)
    ]
    queue = next((c.new for c in facts.changes if isinstance(c, QueueSwitch)), "")
    tolerations = [
        KueueTolerationAdded(flavor=c.flavor, key=c.key, value=c.value, effect=c.effect)
        for c in facts.changes
        if isinstance(c, TaintToleration)
    ]
    out = KueueSuggestion(
        knob=facts.knob.value,
        text="",
        quota=quota,
        localQueue=queue,
        tolerations=tolerations,
        takesFromOthers=facts.takes_from_others,
        commands=[c.line for c in facts.commands],
    )
    out.text = suggestion_text(out)
    return out


def _assumed(gates: Mapping[str, bool] | None) -> dict[str, Any]:
    """KueueReport's kueueVersion, featureGates and reasons: what was assumed of Kueue."""
    given = dict(gates or {})
    decides = names.UNADMITTED_WORKLOADS_OBSERVABILITY
    granular = names.enabled(decides, given)
    shown = {decides: granular}
    shown |= {gate: on for gate, on in sorted(given.items()) if on != names.FEATURE_DEFAULTS.get(gate)}
    return {
        "kueueVersion": names.KUEUE_VERSION,
        "featureGates": shown,
        "reasons": REASONS_GRANULAR if granular else REASONS_LEGACY,
    }


def kueue_report(facts: KueueFacts, gates: Mapping[str, bool] | None = None) -> KueueReport:
    """GATES: --kueue-feature-gates' (None: Kueue v0.20's defaults), said as what was assumed."""
    wl = facts.workload
    rec = facts.recorded
    return KueueReport(
        target=f"{facts.kind} {facts.key}",
        summary=summary_text(facts),
        workload=f"{wl.metadata.namespace}/{wl.metadata.name}" if wl is not None else "",
        clusterQueue=facts.cluster_queue,
        localQueue=facts.local_queue,
        admitted=facts.admitted,
        stage=facts.stage,
        reason="" if facts.admitted else facts.reason,
        message="" if facts.admitted else facts.message,
        podSets=_pod_sets(facts),
        ahead=[KueueAhead(workload=a.key, priority=a.priority, position=a.position) for a in facts.ahead],
        blockedBy=facts.strict_fifo_head or (facts.cohort_ahead[0] if facts.cohort_ahead else ""),
        notEvaluated=list(facts.not_evaluated),
        recorded=KueueRecorded(type=rec.type, status=rec.status, reason=rec.reason, message=rec.message)
        if rec.type
        else None,
        stale=facts.staleness is Staleness.RECORDED_STALE,
        suggestions=[_suggestion(s) for s in facts.suggestions],
        **_assumed(gates),
    )


def kueue_verdict(facts: KueueFacts) -> Verdict:
    """A Job or Workload's verdict: admitted (it runs as far as Kueue decides), inconclusive where
    what decides was not evaluated, else held back before scheduling (Gated: exit 1)."""
    if facts.admitted:
        return Verdict.SCHEDULABLE
    if facts.inconclusive:
        return Verdict.INCONCLUSIVE
    return Verdict.GATED


def build_kueue_report(facts: KueueFacts, snapshot: Snapshot, gates: Mapping[str, bool] | None = None) -> Report:
    """The report of a Job or Workload: no pod, no nodes; `kueue` says it all."""
    kueue = kueue_report(facts, gates)
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
        reason = facts.reason
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


def attach_kueue(report: Report, facts: KueueFacts, pod: o.Pod, gates: Mapping[str, bool] | None = None) -> None:
    """A pod's report with Kueue's answer: when only Kueue's gates hold the pod and what decides
    Kueue's part was not evaluated, the pod's answer is inconclusive too (exit 3), in Kueue's
    words, so that the first line and the exit code agree."""
    report.kueue = kueue_report(facts, gates)
    only_kueue = all(g.name in KUEUE_GATES for g in pod.spec.scheduling_gates)
    if report.verdict == Verdict.GATED and only_kueue and facts.inconclusive:
        report.verdict = Verdict.INCONCLUSIVE
        report.message = report.kueue.summary
        report.notEvaluated = "; ".join(facts.not_evaluated)
