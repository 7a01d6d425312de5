"""Kueue's answer said as a person would, from the report alone: the fate (the first line, made
by words/kueuefate.py), Kueue's own message quoted, never reworded; then who is ahead, the
recorded condition when it is stale, what was not evaluated, and the changes that would admit it
with their commands."""

from __future__ import annotations

from podwhy.report.model import (
    KueuePendingGroup,
    KueueQuotaChange,
    KueueReport,
    KueueSuggestion,
    KueueTolerationAdded,
)


def kueue_lines(kueue: KueueReport) -> tuple[list[str], list[str]]:
    """What comes before the table (the fate, Kueue's own words) and after it (who is ahead, the
    recorded condition when stale, what was not evaluated)."""
    before = [kueue.summary]
    if kueue.message:
        before.append(f"Kueue ({kueue.reason}): {kueue.message}" if kueue.reason else f"Kueue: {kueue.message}")
    after = []
    if kueue.ahead:
        count = len(kueue.ahead)
        after.append(f"{count} Workload{'s' if count != 1 else ''} ahead in ClusterQueue {kueue.clusterQueue}:")
        after += [f"  {a.position}. {a.workload} (priority {a.priority})" for a in kueue.ahead]
    if kueue.stale and kueue.recorded is not None:
        rec = kueue.recorded
        quoted = f": {rec.message}" if rec.message else ""
        after.append(
            f"The Workload's recorded condition is stale ({rec.type}={rec.status} {rec.reason}{quoted});"
            " the lines above are recomputed from the objects"
        )
    after += [f"Not evaluated: {what}" for what in kueue.notEvaluated]
    return before, after


def assumed_text(kueue: KueueReport) -> str:
    """What was assumed of Kueue, on one line: its release, the gates that decide the words, the
    reasons they give, and the flag that changes them ("" when the report does not say)."""
    if not kueue.kueueVersion:
        return ""
    gates = ", ".join(f"{gate} {'on' if on else 'off'}" for gate, on in kueue.featureGates.items())
    said = f"; {gates} ({kueue.reasons} reasons)" if gates else ""
    return f"Kueue {kueue.kueueVersion} assumed{said}; --kueue-feature-gates changes it"


def held_text(groups: list[KueuePendingGroup]) -> str:
    """ "Kueue holds 2 Jobs or Workloads": those not admitted ("" for none), for `pending`'s first
    line, which must agree with its exit code."""
    count = sum(g.count for g in groups if not g.admitted)
    if not count:
        return ""
    return f"Kueue holds {count} Job{'s' if count != 1 else ''} or Workload{'s' if count != 1 else ''}"


def pending_kueue_lines(groups: list[KueuePendingGroup]) -> list[str]:
    """`pending`'s Kueue part: a heading, then a line per ClusterQueue and cause with its
    targets, and the first one's fate."""
    if not groups:
        return []
    count = sum(g.count for g in groups)
    lines = [f"Kueue holds {count} Job{'s' if count != 1 else ''} or Workload{'s' if count != 1 else ''}:"]
    for g in groups:
        queue = f"ClusterQueue {g.clusterQueue}" if g.clusterQueue else "no ClusterQueue"
        shown = ", ".join(g.targets[:5]) + (f", … ({g.count} in all)" if g.count > 5 else "")
        lines.append(f"· {g.count} · {queue} · {g.cause}: {shown}")
        lines.append(f"  {g.example}")
    return lines


def _quota_text(change: KueueQuotaChange) -> str:
    return (
        f"raise ClusterQueue {change.clusterQueue}'s {change.field} of {change.resource} in flavor {change.flavor}"
        f" from {change.old} to {change.new}"
    )


def _taint_text(t: KueueTolerationAdded) -> str:
    value = f"={t.value}" if t.value else ""
    effect = f":{t.effect}" if t.effect else ""
    return f"{t.key}{value}{effect}"


def suggestion_text(s: KueueSuggestion) -> str:
    """A Kueue suggestion's change in words, from its typed fields (the report's `text`)."""
    if s.quota:
        said = "; ".join(_quota_text(c) for c in s.quota)
        if s.takesFromOthers:
            lenders = sorted({c.clusterQueue for c in s.quota})
            whose = " and ".join(f"ClusterQueue {name}'s" for name in lenders)
            said += f" (this takes quota from {whose} own guarantee)"
        return said
    if s.localQueue:
        return f"submit it to LocalQueue {s.localQueue}, which exists"
    if s.tolerations:
        flavor = s.tolerations[0].flavor
        taints = ", ".join(_taint_text(t) for t in s.tolerations)
        plural = "s" if len(s.tolerations) != 1 else ""
        return f"tolerate flavor {flavor}'s taint{plural} {taints} in the pod template"
    return s.knob


def suggestion_lines(kueue: KueueReport) -> list[tuple[str, list[str]]]:
    """Each suggestion's words ("→ ..."), and its commands, each on a line of its own."""
    return [(f"→ {s.text}", [c for c in s.commands if c]) for s in kueue.suggestions]
