"""`podwhy check` on a terminal: the summary, then each workload's replicas, placed and Pending,
with the causes of those left Pending."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from podwhy.report.model import (
    CheckReport,
    PendingReplicas,
    ReplicaReport,
    WorkloadReport,
)
from podwhy.report.render.layout import (
    MAX_NAMES_IN_GROUP,
    fit_widths,
    hanging,
    make_console,
    narrow,
    say,
)
from podwhy.report.safe import made_safe
from podwhy.report.words.check import (
    displaced_lines,
    group_text,
    kueue_lines,
    kueue_unsure,
    not_checked_lines,
    placed_nodes_text,
    replica_text,
    rollout_line,
    rollout_lines,
)
from podwhy.verdict import Verdict


def _nodes_count(replicas: list[ReplicaReport]) -> str:
    """ "worker-1 (2), worker-2": where replicas were placed, most first (a few nodes named)."""
    return placed_nodes_text([r.node for r in replicas if r.node is not None])


def _pending_rows(workload: WorkloadReport) -> list[tuple[list[ReplicaReport], PendingReplicas]]:
    """The workload's groups of alike Pending replicas (one message and the same causes), each
    with its replicas: each group is one row."""
    by_name = {r.name: r for r in workload.replicas if r.node is None}
    return [(_members(group, by_name), group) for group in workload.pendingGroups]


def _members(group: PendingReplicas, by_name: dict[str, ReplicaReport]) -> list[ReplicaReport]:
    return [by_name[name] for name in group.replicas if name in by_name]


def _why_pending(group: PendingReplicas | None, message: str) -> str:
    """A Pending replica's message, then what keeps it off the nodes, a line per cause (as explain's)."""
    causes = group.causes if group is not None else []
    return message + "".join(f"\n· {cause.text}" for cause in causes)


def _pending_where(members: list[ReplicaReport]) -> str:
    targets = [r.targetNode for r in members if r.targetNode is not None]
    if not targets:
        return "Pending"
    shown = ", ".join(targets[:MAX_NAMES_IN_GROUP]) + (", …" if len(targets) > MAX_NAMES_IN_GROUP else "")
    return f"Pending (for {shown})"


def _replica_names(members: list[ReplicaReport]) -> str:
    names = [r.name for r in members]
    shown = ", ".join(names[:MAX_NAMES_IN_GROUP]) + (", …" if len(names) > MAX_NAMES_IN_GROUP else "")
    return shown


def check_summary(report: CheckReport) -> str:
    """The first line of `check`: "33/41 replicas placed; 8 stay Pending in 2 workloads"."""
    summary = report.summary
    line = f"{summary.placed}/{summary.replicas} replicas placed"
    evicted = [victim for w in report.workloads for r in w.replicas for victim in r.evicted]
    preempting = f"; preemption evicts {len(evicted)} pod{'s' if len(evicted) != 1 else ''}" if evicted else ""
    unchanged = [w for w in report.workloads if w.update is not None and w.update.status == "Unchanged"]
    waiting = [w for w in report.workloads if w.update is not None and w.update.status == "WaitsForDeletion"]
    if not summary.replicas and (unchanged or waiting) and len(unchanged) + len(waiting) == summary.workloads:
        # What runs once applied: a scale-down's removed pods are gone.
        running = sum(w.update.oldReplicas - len(w.update.removed) for w in [*unchanged, *waiting] if w.update)
        kinds = [
            f"{len(group)} workload{'s' if len(group) != 1 else ''} {what}"
            for group, what in ((unchanged, "unchanged"), (waiting, "OnDelete, waiting for pods to be deleted"))
            if group
        ]
        return f"nothing to place: {', '.join(kinds)} ({running} replica{'s' if running != 1 else ''} running)"
    if unchanged:
        preempting += f"; {len(unchanged)} workload{'s' if len(unchanged) != 1 else ''} unchanged"
    if not summary.pending and summary.failingWorkloads:
        paused = sum(1 for w in report.workloads if w.update is not None and w.update.status == "Paused")
        failing = summary.failingWorkloads - paused
        said = [f"{failing} workload{'s' if failing != 1 else ''} cannot be updated"] if failing else []
        if paused:
            plural = paused != 1
            said.append(f"{paused} paused Deployment{'s' if plural else ''} do{'' if plural else 'es'} not roll out")
        return line + "; " + ", ".join(said) + preempting
    unsure = summary.pendingInconclusive
    if not summary.failingWorkloads and unsure and summary.pending == unsure:
        # Exit 3: Pending only for lack of preemption's dry run, which might make room.
        workloads = f"{summary.workloads} workload{'s' if summary.workloads != 1 else ''}"
        doubts = _placed_doubts(report)
        placed_doubt = f", {doubts[0]}" if doubts else ""
        why = next(
            (r.preemptionNotEvaluated for w in report.workloads for r in w.replicas if r.preemptionNotEvaluated),
            "",
        )
        kueue_why = kueue_unsure(report)
        if kueue_why and not why:
            return f"inconclusive: {line} in {workloads}{placed_doubt}; {kueue_why}" + preempting
        return (
            f"inconclusive: {line} in {workloads}{placed_doubt}; {unsure} stay{'s' if unsure == 1 else ''} Pending"
            f" unless preemption makes room, not evaluated: {why}" + preempting
        )
    if not summary.pending:
        workloads = f"{summary.workloads} workload{'s' if summary.workloads != 1 else ''}"
        if summary.inconclusive:
            # Exit 3: the first line says so, and why (what was not evaluated for the placements).
            doubts = list(
                dict.fromkeys(
                    r.message.removeprefix("placed, but ")
                    for w in report.workloads
                    for r in w.replicas
                    if r.node is not None and r.verdict == Verdict.INCONCLUSIVE and r.message
                )
            )
            why = doubts[0] if doubts else "not evaluated"
            more = f" (and {len(doubts) - 1} more)" if len(doubts) > 1 else ""
            return f"inconclusive: {line} in {workloads}, {why}{more}" + preempting
        return line + f" in {workloads}: everything fits" + preempting
    failing = summary.failingWorkloads
    known = summary.pending - unsure
    maybe = f" ({unsure} more unless preemption, not evaluated, makes room)" if unsure else ""
    return line + f"; {known} stay Pending in {failing} workload{'s' if failing != 1 else ''}{maybe}" + preempting


def _placed_doubts(report: CheckReport) -> list[str]:
    """What was not evaluated for the replicas placed inconclusively, each said once."""
    return list(
        dict.fromkeys(
            r.message.removeprefix("placed, but ")
            for w in report.workloads
            for r in w.replicas
            if r.node is not None and r.verdict == Verdict.INCONCLUSIVE and r.message
        )
    )


def render_check(report: CheckReport, wide: bool = False, console: Console | None = None) -> None:
    """The summary first; then per workload one line when every replica was placed, else its
    placed replicas and one row per group of identical Pending replicas (-o wide: every replica):
    a table, or below NARROW_WIDTH columns (or when names would not fit) a list."""
    report = made_safe(report)
    console = console or make_console()
    console.print(f"[bold]{escape(check_summary(report))}[/bold]")
    for line in [*not_checked_lines(report), *rollout_lines(report), *kueue_lines(report)]:
        say(console, escape(line), 0)
    for line in displaced_lines(report):
        say(console, escape(line), 0)
    rows: list[tuple[str, str, str, str]] = []
    for workload in report.workloads:
        rows.extend(_check_rows(workload, wide))
    headers = ("Workload", "Replica", "Node", "Why Pending")
    cells = [[headers[c], *[row[c] for row in rows]] for c in range(4)]
    widths = None if narrow(console) else fit_widths(console.width, cells, floor=(14,))
    if widths is None:
        for workload in report.workloads:
            _print_check_workload(console, workload, wide)
    else:
        table = Table(show_lines=True)
        for c, header in enumerate(headers):
            table.add_column(header, width=widths[c])
        for row in rows:
            table.add_row(*[escape(cell) for cell in row])
        console.print(table)
    _render_suggestions(console, report)
    console.print(f"Placed {report.order}.")
    console.print(f"{report.tieBreak[:1].upper()}{report.tieBreak[1:]}.")


def _placed_node(replica: ReplicaReport) -> str:
    node = replica.node or _pending_where([replica])
    if replica.node is not None and replica.tiedNodes:
        node += f" (tied with {replica.tiedCount - 1})"
    return node


def _check_rows(workload: WorkloadReport, wide: bool) -> list[tuple[str, str, str, str]]:
    """The table rows of one workload (Workload, Replica, Node, Why Pending)."""
    who = f"{workload.key}\n{workload.placed}/{len(workload.replicas)} placed"
    rows: list[tuple[str, str, str, str]] = []
    if not workload.replicas:
        return [(who, "", "", rollout_line(workload) or "no replicas")]
    if wide:
        group_of = {name: group for group in workload.pendingGroups for name in group.replicas}
        rows = [
            (
                "",
                r.name,
                _placed_node(r),
                _why_pending(group_of.get(r.name) if r.node is None else None, replica_text(r)),
            )
            for r in workload.replicas
        ]
        rows += [("", "", n, f"not run here by its controller: {why}") for n, why in workload.ineligibleNodes.items()]
    else:
        placed = [r for r in workload.replicas if r.node is not None]
        if len(placed) == 1:
            rows.append(("", placed[0].name, _placed_node(placed[0]), ""))
        elif placed:
            rows.append(
                (
                    "",
                    f"all {len(placed)}" if not workload.pending else f"{len(placed)} placed",
                    _nodes_count(placed),
                    "",
                )
            )
        for members, group in _pending_rows(workload):
            names = _replica_names(members)
            rows.append(
                (
                    "",
                    names if len(members) == 1 else f"{len(members)} replicas\n{names}",
                    _pending_where(members),
                    _why_pending(group, group_text(group)),
                )
            )
    return [(who, *rows[0][1:]), *rows[1:]]


def _print_check_workload(console: Console, workload: WorkloadReport, wide: bool) -> None:
    """One workload as a list: one line when every replica was placed."""
    head = f"{workload.key}: {workload.placed}/{len(workload.replicas)} placed"
    if not workload.replicas:
        console.print(f"{escape(head)}: {escape(rollout_line(workload) or 'no replicas')}")
        return
    placed = [r for r in workload.replicas if r.node is not None]
    if not workload.pending and not wide:
        console.print(f"{escape(head)} on {escape(_nodes_count(placed))}")
        return
    console.print(f"[bold]{escape(head)}[/bold]")
    if wide:
        group_of = {name: group for group in workload.pendingGroups for name in group.replicas}
        for replica in workload.replicas:
            say(console, f"{escape(replica.name)} → {escape(_placed_node(replica))}", 2)
            if replica.message:
                say(console, f"{escape(replica_text(replica))}", 4)
            if replica.node is None:
                _causes(console, group_of.get(replica.name))
        for node_name, why in workload.ineligibleNodes.items():
            say(console, f"{escape(node_name)}: not run here by its controller: {escape(why)}", 2)
        return
    if placed:
        say(console, f"{len(placed)} placed on {escape(_nodes_count(placed))}", 2)
    for members, group in _pending_rows(workload):
        where = _pending_where(members)
        say(console, f"{len(members)} {escape(where)}: {escape(_replica_names(members))}", 2)
        if group.message:
            say(console, f"{escape(group_text(group))}", 4)
        _causes(console, group)


def _causes(console: Console, group: PendingReplicas | None) -> None:
    """What keeps Pending replicas off the nodes, under their message, as explain says it."""
    for cause in group.causes if group is not None else []:
        hanging(console, f"· {escape(cause.text)}", 4)


def _render_suggestions(console: Console, report: CheckReport) -> None:
    """The changes that make the policies refusing workloads' pods admit them, and what was not
    suggested, and why."""
    from podwhy.report.words.notcreated import VERIFIED_BY_ADMISSION

    suggested = [s for w in report.workloads for s in w.suggestions or []]
    if suggested:
        console.print(f"[bold]Suggestions[/bold] ({VERIFIED_BY_ADMISSION}):")
    for s in suggested:
        hanging(console, f"• {escape(s.summary)}", 2)
        if s.command:
            console.print(f"      {escape(s.command)}", soft_wrap=True)  # whole, below the words hanging at 4
    for w in report.workloads:
        for note in w.notes or []:
            say(console, f"[yellow]Not suggested ({escape(w.key)}): {escape(note)}[/yellow]", 0)
