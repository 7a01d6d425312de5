"""A workload in the reports as text and markdown: explain TYPE/NAME's answer when none of its
pods is Pending (its controller's FailedCreate events quoted verbatim, newest first, each with
its count and age, and what podwhy finds of the policy or webhook they name), the line saying
which of its pods is explained, and pending's workloads whose pods are not being created."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from msgspec import UNSET
from rich.console import Console
from rich.markup import escape

from podwhy.report.model import CreateEventReport, NotCreatedWorkload, Report, WorkloadTarget
from podwhy.report.render.layout import say

if TYPE_CHECKING:
    from podwhy.report.model import PendingReport

# FailedCreate events quoted per workload without -o wide (the newest; -o wide and JSON: all).
MAX_EVENTS = 3


def workload_of(report: Report) -> WorkloadTarget | None:
    return None if report.workload is UNSET else report.workload


def workload_only(report: Report) -> bool:
    """A workload none of whose pods is Pending: its answer is all there is (no pod, no nodes)."""
    workload = workload_of(report)
    return workload is not None and workload.state != "Pending"


def not_created_of(report: PendingReport) -> list[NotCreatedWorkload]:
    return [] if report.notCreated is UNSET else report.notCreated


def when_text(last_seen: str | None, report: Report | PendingReport) -> str:
    """ "last 2026-03-04T10:22:00Z, 3m before the snapshot", as explain says a FailedScheduling
    event's."""
    from podwhy.report.render.explain import age, age_suffix, taken_at

    ago = age(last_seen, taken_at(report), age_suffix(report))
    return ", ".join(x for x in (f"last {last_seen}" if last_seen else "", ago) if x)


def event_lines(
    events: list[CreateEventReport], when: Callable[[str | None], str], wide: bool
) -> list[tuple[str, int]]:
    """Each event (the newest MAX_EVENTS without WIDE) as (line, indent): its heading, its message
    verbatim a line at a time, then what podwhy finds of the policy or webhook it names (once)."""
    from podwhy.report.words.notcreated import events_heading, more_events_text  # only when there are some

    out: list[tuple[str, int]] = []
    said: set[str] = set()
    shown = events if wide else events[:MAX_EVENTS]
    for event in shown:
        out.append((events_heading(event.object, event.count, when(event.lastSeen)), 2))
        # Verbatim: its lines and their indentation as the API server wrote them (blank ones aside).
        out += [(line.lstrip(" "), 4 + len(line) - len(line.lstrip(" "))) for line in event.message.splitlines()]
        refusal = event.refusal
        found = [x.text for x in (refusal.policy, refusal.webhook) if x is not None]
        out += [(f"→ {text}", 4) for text in found if text not in said]
        said.update(found)
    if len(events) > len(shown):
        out.append((more_events_text(len(events) - len(shown)), 2))
    return out


def render_workload(console: Console, report: Report, wide: bool) -> None:
    """A workload's answer: the first line, then its controller's FailedCreate events."""
    workload = workload_of(report)
    if workload is None:
        return
    say(console, f"[bold]{escape(workload.summary)}[/bold]", 0)
    if workload.events:
        made_by = ", ".join(workload.creators)
        say(console, f"Its controller's FailedCreate events, newest first ({escape(made_by)}):", 0)
    for line, indent in event_lines(workload.events, lambda seen: when_text(seen, report), wide):
        say(console, escape(line), indent)
    from podwhy.report.render.explain import render_suggestions
    from podwhy.report.words.notcreated import VERIFIED_BY_ADMISSION

    render_suggestions(console, report, VERIFIED_BY_ADMISSION)
    for note in workload.notes or []:
        say(console, f"[yellow]Not suggested: {escape(note)}[/yellow]", 0)


def render_not_created(console: Console, report: PendingReport, number: int, hang: int, wide: bool) -> None:
    """`pending`'s cause of the workloads whose pods are not being created, numbered NUMBER in the
    summary: each workload with its newest refusal (every event with WIDE)."""
    from podwhy.report.render.layout import bullet_numbered
    from podwhy.report.words.notcreated import more_events_text, not_created_cause

    workloads = not_created_of(report)
    if not workloads:
        return
    bullet_numbered(console, f"{number}.".rjust(hang - 1), escape(f"{not_created_cause(len(workloads))} · NotCreated"))
    for w in workloads:
        pending = f" ({w.pending} Pending)" if w.pending else ""
        say(console, f"· {escape(w.workload)}{pending}:", hang)
        events = w.events if wide else w.events[:1]
        for line, indent in event_lines(events, lambda seen: when_text(seen, report), wide=True):
            say(console, escape(line), hang + indent)
        if len(w.events) > len(events):
            say(console, escape(more_events_text(len(w.events) - len(events))), hang + 2)
        for s in w.suggestions or []:
            say(console, escape(f"→ {s.summary}"), hang + 2)
            if s.command:
                console.print(" " * (hang + 4) + escape(s.command), soft_wrap=True)  # whole, to copy
        for note in w.notes or []:
            say(console, escape(f"→ not suggested: {note}"), hang + 2)
