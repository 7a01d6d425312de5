"""The autoscaling section built: analysis.autoscaling's findings in, the report's `autoscaling` out,
in report/words/autoscaling.py's words."""

from __future__ import annotations

from podwhy.analysis.autoscaling.facts import NOT_TRIGGER_SCALE_UP, AutoscalingAnalysis, ComingNode, GroupOutcome
from podwhy.report.model import AutoscalerSaid, AutoscalingGroup, AutoscalingReport, ComingNodeReport
from podwhy.report.words.autoscaling import (
    ALL_RULED_OUT_TEXT,
    COMING_EVENTS,
    NO_AUTOSCALER_TEXT,
    NONE_SEEN_TEXT,
    can_add_text,
    coming_text,
    evidence_text,
    excluded_texts,
    finding_text,
    not_evaluated_texts,
    unknown_text,
)


def autoscaling_report(analysis: AutoscalingAnalysis) -> AutoscalingReport:
    """Will a node come for the pod: each node group's finding, what excludes the pod, what the
    autoscalers said of it, and the status and summary that follow."""
    groups = [
        AutoscalingGroup(
            autoscaler=g.autoscaler,
            group=g.group,
            outcome=g.outcome.value,
            reason=g.reason.value if g.reason is not None else None,
            text=finding_text(g),
            data=g.data,
        )
        for v in analysis.views
        for g in v.groups
    ]
    excluded = excluded_texts(analysis)
    not_evaluated = not_evaluated_texts(analysis)
    coming = next((v.coming for v in analysis.views if v.coming is not None), None)
    status, summary = _status(analysis, groups, excluded, not_evaluated)
    return AutoscalingReport(
        status=status,
        summary=summary if coming is None or analysis.coming is not None else f"{summary}; {coming_text(coming)}",
        coming=_coming_report(coming),
        groups=groups,
        excluded=excluded,
        said=_said(analysis),
        notEvaluated=not_evaluated,
        asOf=analysis.as_of or None,
    )


def _said(analysis: AutoscalingAnalysis) -> list[AutoscalerSaid]:
    """Each autoscaler's latest event on the pod, and whether podwhy's reading agrees with it."""
    said = []
    for v in analysis.views:
        if v.last_event is None:
            continue
        theirs = v.last_event.reason in COMING_EVENTS
        ours = v.coming is not None and not v.coming.overdue
        said.append(
            AutoscalerSaid(
                autoscaler=v.autoscaler,
                reason=v.last_event.reason,
                message=v.last_event.message,
                time=v.last_event.time or None,
                agrees=theirs == ours if v.last_event.reason in (*COMING_EVENTS, NOT_TRIGGER_SCALE_UP) else None,
                counts=dict(v.last_event.counts),
            )
        )
    return said


def _status(
    analysis: AutoscalingAnalysis, groups: list[AutoscalingGroup], excluded: list[str], not_evaluated: list[str]
) -> tuple[str, str]:
    """The section's status and its summary: a node coming first, then no autoscaler, none seen,
    the pod excluded, a group that could add a node, every group ruled out, else not evaluated."""
    can_add = [g for g in groups if g.outcome == GroupOutcome.CAN_ADD.value]
    if analysis.coming is not None:
        return "Coming", coming_text(analysis.coming)
    if analysis.none_found:
        return "NoAutoscaler", NO_AUTOSCALER_TEXT
    if not analysis.views:
        return "NotEvaluated", NONE_SEEN_TEXT
    if excluded:
        return "NotComing", excluded[0]
    if can_add:
        return "CanAdd", can_add_text([(g.group, g.autoscaler) for g in can_add])
    if groups and all(g.outcome == GroupOutcome.RULED_OUT.value for g in groups):
        return "NotComing", ALL_RULED_OUT_TEXT
    return "NotEvaluated", unknown_text(not_evaluated)


def _coming_report(coming: ComingNode | None) -> ComingNodeReport | None:
    if coming is None:
        return None
    return ComingNodeReport(
        autoscaler=coming.autoscaler,
        group=coming.group,
        evidence=evidence_text(coming.evidence),
        since=coming.since or None,
        ageSeconds=coming.age_seconds,
        timeoutSeconds=coming.timeout_seconds,
        overdue=coming.overdue,
    )
