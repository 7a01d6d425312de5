"""`podwhy explain --node NAME`: one node's verdict plugin by plugin, with the evidence behind each
and its scores."""

from __future__ import annotations

import msgspec
from msgspec import UnsetType
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from podwhy.framework.evidence import AnyEvidence, ResourceEvidence
from podwhy.report.model import (
    PluginStatus,
    Report,
    ScoreEntry,
    StatusName,
)
from podwhy.report.render.layout import (
    narrow,
    say,
)


def mark(status: PluginStatus) -> str:
    if status.status == StatusName.NOT_EVALUATED:
        return "?"
    if status.status == StatusName.SKIP:
        return "–"
    if status.status == StatusName.SUCCESS:
        return "✓"
    if status.status.rejects:
        return "✗"
    return "!"


def describe_evidence(evidence: AnyEvidence) -> str:
    """One line of facts; resource comparisons read as arithmetic, other kinds as their JSON fields."""
    match evidence:
        case ResourceEvidence():
            unit = "m" if evidence.unit == "millicores" else ""
            return (
                f"{evidence.resource}: this pod {evidence.requested}{unit} + already requested {evidence.used}{unit}"
                f" vs allocatable {evidence.allocatable}{unit}"
            )
        case _:
            data: dict[str, object] = msgspec.to_builtins(evidence)
            kind = data.pop("kind")
            facts = ", ".join(f"{k}={v}" for k, v in data.items())
            return f"{kind}: {facts}"


def _evidence(items: list[AnyEvidence] | UnsetType) -> list[str]:
    return [describe_evidence(e) for e in items] if isinstance(items, list) else []


def render_node(console: Console, report: Report, name: str) -> None:
    """One node, with the facts behind every verdict."""
    verdict = report.node(name)
    if verdict is None:  # the command line checks --node before anything is printed
        return
    console.print(f"[bold]Node[/bold] {escape(name)}: {'fits' if verdict.feasible else 'does not fit'}")
    ff = verdict.firstFailure
    if ff is not None:
        console.print(f"kube-scheduler stops at {ff.plugin}: {escape(', '.join(ff.reasons))}")
    if verdict.nominatedPods:
        console.print("Nominated pods of equal or higher priority reserving room here:")
        for pi in verdict.nominatedPods:
            requests = ", ".join(f"{k} {v}" for k, v in pi.requests.items())
            say(console, f"{escape(pi.pod)} (priority {pi.priority}; requests {escape(requests) or 'nothing'})", 2)
        if verdict.feasibleWithoutNominated and not verdict.feasible:
            console.print("Without that reserved room the pod would fit here.")
    if narrow(console):
        for st in verdict.filters:
            console.print(f"{mark(st)} {st.plugin}: {st.status}")
            for line in [*st.reasons, *_evidence(st.evidence)]:
                say(console, f"{escape(line)}", 4)
    else:
        table = Table(show_lines=True)
        table.add_column("Plugin", no_wrap=True)
        table.add_column("", justify="center")
        table.add_column("Status", no_wrap=True)
        table.add_column("Details", overflow="fold")
        for st in verdict.filters:
            details = [*st.reasons, *_evidence(st.evidence)]
            table.add_row(st.plugin, mark(st), st.status, escape("\n".join(details)))
        console.print(table)
    if not verdict.scores:
        return
    title = f"Scores on {name} (total {verdict.totalScore})"
    if narrow(console):
        console.print(escape(title) + ":")
        for ps in verdict.scores:
            console.print(
                f"  {ps.plugin}: raw {ps.raw}, normalized {ps.normalized} × weight {ps.weight} = {ps.weighted} points"
            )
            how = _score_how(ps)
            if how:
                say(console, escape(how), 4)
        return
    score_table = Table(title=escape(title), title_justify="left")
    for column in ("Plugin", "raw", "normalized", "× weight", "= points", "How"):
        score_table.add_column(column, overflow="fold", justify="left" if column in ("Plugin", "How") else "right")
    for ps in verdict.scores:
        score_table.add_row(
            ps.plugin, str(ps.raw), str(ps.normalized), str(ps.weight), str(ps.weighted), escape(_score_how(ps))
        )
    console.print(score_table)


def _score_how(ps: ScoreEntry) -> str:
    if isinstance(ps.notEvaluated, str) and ps.notEvaluated:
        return ps.notEvaluated
    if ps.skipped is True:
        return "PreScore returned Skip: nothing to score for this pod"
    return "\n".join(_evidence(ps.evidence))
