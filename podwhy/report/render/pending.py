"""`podwhy pending` on a terminal: the headline, the summary by cause and owner, one row per group
of Pending pods."""

from __future__ import annotations

from msgspec import UNSET
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from podwhy.report.model import (
    AutoscalingReport,
    PendingGroup,
    PendingReport,
)
from podwhy.report.render.layout import (
    MAX_NAMES_IN_GROUP,
    bullet_numbered,
    fit_widths,
    glued,
    hanging,
    make_console,
    narrow,
    say,
    text_cell,
)
from podwhy.report.render.notcreated import not_created_of, render_not_created
from podwhy.report.safe import made_safe
from podwhy.report.words.kueue import held_text, pending_kueue_lines


def autoscaling_line(autoscaling: AutoscalingReport) -> str:
    """The autoscaling section in one line (a pending group's): its summary and each group's reason."""
    groups = "; ".join(f"{g.group}: {g.text}" for g in autoscaling.groups if g.outcome != "CanAdd")
    return f"autoscaling: {autoscaling.summary}" + (f" ({groups})" if groups and autoscaling.status != "Coming" else "")


def pending_scope(report: PendingReport) -> str:
    """Which namespaces `pending` covered: "in namespace shop", "in all 14 namespaces"."""
    scope = report.scope
    if scope.namespace is not None:
        elsewhere = scope.elsewhere
        others = f" (other namespaces hold {elsewhere}: -A shows them)" if elsewhere else ""
        return f"in namespace {scope.namespace}{others}"
    count = scope.namespaces
    if count == 1 and scope.only is not None:
        return f"in the one namespace, {scope.only}"
    return f"in all {count} namespaces" if count != 1 else "in the one namespace"


def no_pending_line(report: PendingReport) -> str:
    """The first line when the namespace covered holds no Pending pod: the stuck pods of the
    others first, and what shows them (the command follows on a line of its own)."""
    scope = report.scope
    kueue_held = "" if report.kueue is UNSET else held_text(report.kueue)
    failing = not_created_of(report)
    if failing:  # the exit code says they are stuck: so does the first line
        from podwhy.report.words.notcreated import not_created_cause

        also = f"; {kueue_held}" if kueue_held else ""
        return f"{not_created_cause(len(failing))} {pending_scope(report)}{also}, and no Pending pod."
    if kueue_held:  # the exit code says they are stuck: so does the first line
        return f"{kueue_held} {pending_scope(report)}, and no Pending pod."
    if scope.namespace is None or not scope.elsewhere or not scope.allNamespaces:
        return f"No Pending pods {pending_scope(report)}."
    stuck, held = scope.elsewhereStuck, scope.elsewhere
    pods = f"{held} Pending pod{'s' if held != 1 else ''}"
    lead = f"{stuck} stuck Pending pod{'s' if stuck != 1 else ''}" if stuck else f"No stuck pod, {pods},"
    of = f" (of {pods})" if stuck and stuck != held else ""
    return f"{lead}{of} in other namespaces, none in {scope.namespace}; -A shows them:"


def owners_text(owners: list[str], bare: int) -> str:
    """ "shop/a (Deployment)"; "9 owners: a, b, c and 6 more"; with the pods no controller owns."""
    shown = ", ".join(owners[:MAX_NAMES_IN_GROUP]) + (
        f" and {len(owners) - MAX_NAMES_IN_GROUP} more" if len(owners) > MAX_NAMES_IN_GROUP else ""
    )
    said = (f"{len(owners)} owners: {shown}" if len(owners) > 1 else shown) if owners else ""
    no_owner = f"{bare} without an owner" if bare else ""
    return "; ".join(x for x in (said, no_owner) if x)


def _pods(count: int) -> str:
    return f"{count} pod{'s' if count != 1 else ''}"


def pending_headline(report: PendingReport) -> str:
    """ "187 Pending pods in namespace shop, 187 stuck, in 9 groups" (markup-free), and what Kueue
    holds ("; Kueue holds 2 Jobs or Workloads")."""
    held = "" if report.kueue is UNSET else held_text(report.kueue)
    failing = not_created_of(report)
    if failing:
        from podwhy.report.words.notcreated import not_created_cause

        held = "; ".join(x for x in (not_created_cause(len(failing)), held) if x)
    return (
        f"{report.total} Pending pod{'s' if report.total != 1 else ''} {pending_scope(report)}, "
        f"{report.stuck} stuck{f', {report.waiting} waiting for a node' if report.waiting else ''}, "
        f"in {len(report.groups)} group{'s' if len(report.groups) != 1 else ''}" + (f"; {held}" if held else "")
    )


def render_pending_summary(console: Console, report: PendingReport, wide: bool = False) -> None:
    """The summary by cause, before the groups: its verdict, pods and owners, its next step (and
    the commands for it, whole), what keeps them off every node in plain words (else the cause),
    and the nodes that would hold them all. Numbers are right-aligned (" 9.", "10."), so that
    every cause's lines start in one column."""
    console.print("[bold]By cause[/bold]:")
    causes = len(report.summary) + (1 if not_created_of(report) else 0)
    hang = len(f"{causes}.") + 1
    for i, cause in enumerate(report.summary, 1):
        who = f"{_pods(cause.count)} · {cause.verdict} · {owners_text(cause.owners, cause.bare)}".rstrip(" ·")
        bullet_numbered(console, f"{i}.".rjust(hang - 1), escape(who))
        if cause.remedy:
            hanging(console, f"→ {escape(cause.remedy)}", hang)
        for command in cause.commands:
            # Pasted whole: never wrapped.
            console.print(" " * (hang + 2) + escape(command), soft_wrap=True)
        for line in cause.blocking or [cause.cause]:
            hanging(console, f"{'· ' if cause.blocking else ''}{escape(line)}", hang)
        if cause.nodes is not None:
            hanging(console, f"⇒ nodes to hold them all: {escape(cause.nodes.note)}", hang)
    render_not_created(console, report, len(report.summary) + 1, hang, wide)


def render_pending_kueue(console: Console, report: PendingReport) -> None:
    """What Kueue holds, by ClusterQueue and cause (nothing without Kueue's objects)."""
    if report.kueue is UNSET:
        return
    for line in pending_kueue_lines(report.kueue):
        hanging(console, escape(line.lstrip()), 4 if line.startswith(" ") else 2 if line.startswith("·") else 0)


def pending_row(
    report: PendingReport, alike: list[PendingGroup], said: set[int], wide: bool
) -> tuple[str, str, str, list[tuple[str, str]]]:
    """One row of the groups (Pods, Verdict, Why, commands): a group, or groups alike but for their
    owner. A cause is said once: in the summary (when it has no plain words instead), else by the
    first group of it; later ones name its number. A sizing note the summary says is not repeated."""
    group = alike[0]
    count = sum(g.count for g in alike)
    if len(alike) == 1:
        who = _pods(group.count) + (f" of {group.owner}" if group.owner else "")
    else:
        # Owners of one kind name it once: "one per Deployment: 21 of shop/web-0, ...".
        kinds = {g.owner.rpartition(" (")[2] for g in alike if g.owner}
        kind = next(iter(kinds)).rstrip(")") if len(kinds) == 1 and all(g.owner for g in alike) else ""
        each = ", ".join(
            f"{g.count} of {g.owner.rpartition(' (')[0] if kind else g.owner}"
            if g.owner
            else f"{g.count} without an owner"
            for g in alike
        )
        who = f"{_pods(count)} in {len(alike)} groups alike, one per {kind or 'owner'}: {each}"
    pods = [p for g in alike for p in g.pods]
    # Groups alike show one pod to explain (-o wide: every pod).
    shown = pods if wide else pods[: MAX_NAMES_IN_GROUP if len(alike) == 1 else 1]
    more = f"\n… {len(pods) - len(shown)} more" if len(shown) < len(pods) else ""
    index = report.cause_of(group)
    cause = report.summary[index] if index is not None else None
    if index is not None and cause is not None and (index in said or not cause.blocking):
        why = f"cause {index + 1} (above)"
    else:
        why = group.cause
    if index is not None:
        said.add(index)
    why += "".join(f"\n· {d}" for d in group.details[: None if wide else MAX_NAMES_IN_GROUP])
    # One sizing per cause: a group whose cause the summary sizes refers to it ("cause 1 (above)").
    own = report.own_suggestions(group)
    if group.sizing is not None and not group.suggestions and not report.sized_by_cause(group):
        # Never silent: why the group has no node count.
        why += f"\n⇏ {group.sizing.note}"
    if group.autoscaling is not None:
        why += f"\n⟳ {autoscaling_line(group.autoscaling)}"
    commands = [(s.summary, s.command) for s in own]
    return who + "\n" + "\n".join(shown) + more, str(group.verdict), why, commands


def render_pending(report: PendingReport, wide: bool = False, console: Console | None = None) -> None:
    """Pending pods: a summary by cause, then the groups (by cause and owner, largest first; groups
    alike but for their owner together): a table, or below NARROW_WIDTH columns (or when names
    would not fit) a list, a group at a time."""
    report = made_safe(report)
    console = console or make_console()
    if not report.total:
        console.print(escape(no_pending_line(report)))
        if report.scope.allNamespaces and report.scope.elsewhere:
            console.print(escape(report.scope.allNamespaces), soft_wrap=True)
        if not_created_of(report):
            console.print("[bold]By cause[/bold]:")
            render_not_created(console, report, 1, 3, wide)
        render_pending_kueue(console, report)
        return
    pods, _, rest = pending_headline(report).partition(" Pending ")
    console.print(f"[bold]{pods} Pending {escape(rest.split(' ', 1)[0])}[/bold] {escape(rest.split(' ', 1)[1])}")
    render_pending_summary(console, report, wide)
    render_pending_kueue(console, report)
    said: set[int] = set()
    rows = [pending_row(report, alike, said, wide) for alike in report.shown_groups()]
    cells = [
        ["Pods", *[glued(r[0]) for r in rows]],
        ["Verdict", *[r[1] for r in rows]],
        # A command's words are not measured: it is pasted whole, never read across a column.
        ["Why", *[glued(r[2] + "".join(f"\n⇒ {summary}" for summary, _ in r[3])) for r in rows]],
    ]
    widths = None if narrow(console) else fit_widths(console.width, cells, frozenset({1}), floor=(14,))
    if widths is None:
        console.print("[bold]Groups[/bold]:")
        for who, verdict, why, commands in rows:
            first, _, pods = who.partition("\n")
            hanging(console, f"[bold]{escape(first)}[/bold] · {verdict}", 0)
            for line in pods.splitlines():
                say(console, f"{escape(line)}", 2)
            for line in why.splitlines():
                hanging(console, f"{escape(line)}", 2)
            for summary, command in commands:
                hanging(console, f"⇒ {escape(summary)}", 2)
                console.print(f"    {escape(command)}", soft_wrap=True)
    else:
        table = Table(show_lines=True)
        table.add_column("Pods", width=widths[0])
        table.add_column("Verdict", width=widths[1], no_wrap=True)
        table.add_column("Why", width=widths[2], overflow="fold")
        below: list[tuple[str, str]] = []
        for who, verdict, why, commands in rows:
            # Wrapped here as the lists are (bullets hang, numbers stay with what they count); a
            # command goes below the table, whole on a line of its own, never folded in a column.
            parts = [text_cell(console, why, widths[2])]
            for summary, command in commands:
                parts.append(text_cell(console, f"⇒ {summary} (command below)", widths[2]))
                below.append((who.partition("\n")[0], command))
            table.add_row(text_cell(console, who, widths[0]), verdict, Text("\n").join(parts))
        console.print(table)
        if below:
            console.print("[bold]Commands[/bold] (each whole, to paste):")
            for who, command in below:
                console.print(f"  # {escape(who)}", soft_wrap=True)
                console.print(f"  {escape(command)}", soft_wrap=True)
    if report.autoscalers:
        # The caveat of every "add nodes" above, said once.
        say(console, f"Autoscaling: {escape(report.autoscalers)}", 0)
    console.print("podwhy explain NAMESPACE/NAME shows one pod node by node.")
