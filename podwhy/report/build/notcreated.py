"""Explain's `workload` and pending's `notCreated` from analysis/workloadtarget.py's facts, and the
whole report of a workload none of whose pods is Pending (no pod is explained: `pod` names the
workload)."""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import UNSET, UnsetType

from podwhy.analysis.workloadfacts import CreateEvent, PolicyRecheck, Refusal, WorkloadFacts, WorkloadState
from podwhy.analysis.workloadfacts import WebhookNamed as WebhookFacts
from podwhy.model.wellknownnames import DEFAULT_SCHEDULER_NAME
from podwhy.report.build.common import scheduler_version, snapshot_summary, suggestion
from podwhy.report.build.inputs import input_warnings
from podwhy.report.model import (
    CreateEventReport,
    NotCreatedWorkload,
    PodSummary,
    RefusalReport,
    Report,
    SchedulerWord,
    Suggestion,
    WebhookNamed,
    WorkloadTarget,
)
from podwhy.report.model import PolicyRecheck as PolicyRecheckReport
from podwhy.report.words.notcreated import target_text
from podwhy.report.words.suggestpolicy import policy_note_text
from podwhy.report.words.workloadfate import explained_text, recheck_text, summary_text, webhook_words
from podwhy.scheduler.release import ChosenVersion
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict

# The verdict of a workload's report when none of its pods is explained.
VERDICTS = {
    WorkloadState.NOT_CREATED: Verdict.NOT_CREATED,
    WorkloadState.RUNNING: Verdict.SCHEDULABLE,
    WorkloadState.NO_EVENTS: Verdict.INCONCLUSIVE,
}


def _recheck(recheck: PolicyRecheck) -> PolicyRecheckReport:
    return PolicyRecheckReport(
        policy=recheck.policy,
        binding=recheck.binding,
        stillDenies=recheck.denies,
        expression=recheck.expression,
        expressionIndex=recheck.expression_index,
        message=recheck.message,
        nowBinding=recheck.now_binding,
        notEvaluated=recheck.not_evaluated,
        text=recheck_text(recheck),
    )


def _webhook(webhook: WebhookFacts) -> WebhookNamed:
    return WebhookNamed(
        name=webhook.name,
        configuration=webhook.configuration,
        mutating=webhook.mutating,
        failurePolicy=webhook.failure_policy,
        product=webhook.product,
        text=webhook_words(webhook),
    )


def _refusal(refusal: Refusal) -> RefusalReport:
    return RefusalReport(
        kind=refusal.kind.value,
        text=refusal.text,
        policy=_recheck(refusal.policy) if refusal.policy is not None else None,
        webhook=_webhook(refusal.webhook) if refusal.webhook is not None else None,
    )


def event_reports(events: Sequence[CreateEvent]) -> list[CreateEventReport]:
    return [
        CreateEventReport(
            object=f"{e.owner_kind} {e.owner}",
            message=e.message,
            count=e.count,
            lastSeen=e.last_seen or None,
            reportingComponent=e.component,
            refusal=_refusal(e.refusal),
        )
        for e in events
    ]


def workload_target(facts: WorkloadFacts) -> WorkloadTarget:
    """The report's `workload` object."""
    pending = facts.state is WorkloadState.PENDING
    return WorkloadTarget(
        target=target_text(facts.kind, facts.namespace, facts.name),
        state=facts.state.value,
        summary=explained_text(facts) if pending else summary_text(facts),
        creators=[f"{kind} {name}" for kind, name in facts.creators],
        pods=dict(facts.phases),
        pending=list(facts.pending),
        explained=facts.explained,
        explainedText=explained_text(facts) if pending else "",
        events=event_reports(facts.events),
        notes=_notes(facts),
    )


def _notes(facts: WorkloadFacts) -> list[str] | UnsetType:
    """What podwhy could not suggest for the policy refusing the workload's pods (unset: nothing
    was looked for)."""
    if facts.fixes is None:
        return UNSET
    return [policy_note_text(note) for note in facts.fixes.notes]


def _suggestions(facts: WorkloadFacts) -> list[Suggestion] | UnsetType:
    if facts.fixes is None:
        return UNSET
    return [suggestion(s) for s in facts.fixes.suggestions]


def build_workload_report(facts: WorkloadFacts, snapshot: Snapshot, version: ChosenVersion | None) -> Report:
    """The report of a workload none of whose pods is Pending: `workload` says it all."""
    target = workload_target(facts)
    emulated = scheduler_version(version)
    return Report(
        pod=PodSummary(
            namespace=facts.namespace,
            name=facts.name,
            uid="",
            phase="",
            priority=0,
            schedulerName=DEFAULT_SCHEDULER_NAME,
        ),
        verdict=VERDICTS[facts.state],
        message=target.summary,
        snapshot=snapshot_summary(snapshot),
        warnings=input_warnings(snapshot),
        scheduler=SchedulerWord(
            version=emulated.version, versionSource=emulated.versionSource, clusterVersion=emulated.clusterVersion
        ),
        notEvaluated=target.summary if facts.state is WorkloadState.NO_EVENTS else "",
        lackingKinds=["Event"] if facts.state is WorkloadState.NO_EVENTS else [],
        workload=target,
        suggestions=[suggestion(s) for s in facts.fixes.suggestions] if facts.fixes is not None else [],
    )


def not_created(facts: Sequence[WorkloadFacts]) -> list[NotCreatedWorkload]:
    """Pending's `notCreated`: each workload whose controller reports FailedCreate now."""
    return [
        NotCreatedWorkload(
            workload=f"{f.namespace}/{f.name} ({f.kind})",
            creators=[f"{kind} {name}" for kind, name in f.creators],
            pending=len(f.pending),
            events=event_reports(f.events),
            suggestions=_suggestions(f),
            notes=_notes(f),
        )
        for f in facts
    ]
