"""`podwhy explain` on a terminal: the scheduler's message, then nodes x plugins grouped by identical
verdicts.

Renders the report model and nothing else (report.model and report.words, and rich). Every
cluster-sourced string is escaped before rich renders it, so a label like "[bold]" prints
as itself, and made safe for a terminal first (report/safe.py: no control character or bidi
override reaches it).
"""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime
from typing import TYPE_CHECKING

from msgspec import UNSET
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from podwhy.framework.evidence import ResourceEvidence
from podwhy.report.model import (
    AutoscalingReport,
    NodeReport,
    PluginStatus,
    Report,
    SchedulerWord,
    ScoreEntry,
    StatusName,
    TooSmallCause,
)
from podwhy.report.render.kueue import kueue_of, kueue_only, render_kueue
from podwhy.report.render.layout import (
    MAX_NAMES_IN_GROUP,
    fit_widths,
    hanging,
    make_console,
    narrow,
    one_line,
    say,
)
from podwhy.report.render.node import describe_evidence, mark, render_node
from podwhy.report.safe import made_safe, safe_text
from podwhy.report.words.cells import column_header, consumers_text, why_cell
from podwhy.report.words.fate import fate_text
from podwhy.report.words.kinds import add_kinds_text
from podwhy.snapshot.resources import LIVE_SOURCE
from podwhy.verdict import Verdict

if TYPE_CHECKING:
    from podwhy.report.model import PendingReport

LEGEND = "✓ passes   ✗ rejects   – not needed for this pod (Skip)   ? not evaluated   ! error"


RANKING_ROWS = 10


# Details shown under a cause said first (explain) or a group's cause (pending, without -o wide).
MAX_DETAILS = 3


def _passes_or_unknown(status: PluginStatus) -> bool:
    return status.status in (StatusName.SUCCESS, StatusName.SKIP, StatusName.NOT_EVALUATED)


def _signature(node: NodeReport) -> tuple[object, ...]:
    ff = node.firstFailure
    return (
        tuple((st.plugin, st.status, tuple(st.reasons)) for st in node.filters),
        (ff.plugin, tuple(ff.reasons)) if ff is not None else None,
    )


def _rejecting(node: NodeReport) -> list[str]:
    """The plugins that reject the node; the one where the scheduler stops comes first."""
    ff = node.firstFailure
    first = [ff.plugin] if ff is not None else []
    return first + [st.plugin for st in node.filters if not _passes_or_unknown(st) and st.plugin not in first]


def _why(members: list[NodeReport], wide: bool = False) -> str:
    """Why a group of nodes (identical verdicts) rejects the pod, a line per fact: in short words
    and the group's numbers ("cpu: needs 2, free 900m–1400m"), or with -o wide each plugin's name
    and reason strings. The plugin where the scheduler stops comes first."""
    first = members[0]
    if wide:
        parts = []
        for plugin in _rejecting(first):
            status = first.filter(plugin) or first.firstFailure
            parts.append(f"{plugin}: {'; '.join(status.reasons if status is not None else [])}")
        return "\n".join(parts) if parts else "fits"
    # Nodes of one class share their filters list and first failure (report/build/nodes.py): the
    # first node of each pair stands for the others, whose statuses would add nothing (why_facts
    # reads each status once, in the order first met, which this keeps).
    members = list({(id(m.filters), id(m.firstFailure)): m for m in members}.values())
    per_plugin = [
        [st for m in members if (st := m.filter(plugin)) is not None]
        or [m.firstFailure for m in members if m.firstFailure is not None]
        for plugin in _rejecting(first)
    ]
    return "\n".join(why_cell(per_plugin)) or "fits"


def _group_label(members: list[NodeReport]) -> str:
    if len(members) == 1:
        return members[0].name
    names = ", ".join(m.name for m in members[:MAX_NAMES_IN_GROUP])
    more = ", …" if len(members) > MAX_NAMES_IN_GROUP else ""
    return f"{len(members):,} nodes\n({names}{more})"


def not_evaluated(report: Report) -> dict[str, str]:
    """Plugins podwhy could not evaluate for this pod (the snapshot lacks what they read), with the
    reason. Not a plugin whose PreFilter ran: what it left not evaluated is some nodes' verdict
    (DynamicResources' device selectors), said by the Inconclusive line and those nodes' cells."""
    out: dict[str, str] = {}
    ran = {st.plugin for st in report.preFilter if st.status != StatusName.NOT_EVALUATED}
    statuses = [*report.preFilter, *(report.nodes[0].filters if report.nodes else [])]
    for st in statuses:
        if st.status == StatusName.NOT_EVALUATED and st.reasons and st.plugin not in ran:
            out.setdefault(st.plugin, st.reasons[0])
    return dict(sorted(out.items()))


def render_pending_cause(console: Console, report: Report) -> None:
    """What `podwhy pending` says keeps the pod Pending, when it is not what follows anyway."""
    pending = report.pending
    if pending is None or (pending.verdict == report.verdict and pending.cause in (report.message, pending.verdict)):
        return
    if pending.verdict == report.verdict == Verdict.INCONCLUSIVE and report.notEvaluated:
        return  # the Inconclusive line above says it
    if pending.verdict == report.verdict and pending.verdict in (Verdict.GATED, Verdict.NO_PROFILE):
        return  # the gates sentence, or the message, says it
    if pending.verdict == report.verdict and pending.cause.startswith(fate_text(report) or "\0"):
        return  # the first line says it (will preempt N pods), the preemption line whom
    if pending.verdict == report.verdict:  # else the first line says it (fate_text)
        console.print(f"[bold]{escape(pending.cause)}[/bold]")
    for detail in pending.details[:MAX_DETAILS]:
        say(console, f"· {escape(detail)}", 2)
    if len(pending.details) > MAX_DETAILS:
        say(console, f"· … {len(pending.details) - MAX_DETAILS} more (-o json shows all)", 2)


def render_table(
    report: Report, wide: bool = False, node: str | None = None, console: Console | None = None, verbose: bool = False
) -> None:
    report, node = made_safe(report), None if node is None else safe_text(node)
    console = console or make_console()
    pod = report.pod
    kueue = kueue_of(report)
    if kueue is not None:  # Kueue holds it: its answer first (all of it for a Job or Workload)
        render_kueue(console, kueue, wide)
        if kueue_only(report):
            return
    if report.workload is not UNSET and report.workload.state != "Pending":
        from podwhy.report.render.notcreated import render_workload

        render_workload(console, report, wide)  # none of its pods is Pending: its answer is all there is
        return
    _render_heading(console, report)
    render_inconclusive(console, report)
    render_pending_cause(console, report)
    if report.verdict == Verdict.ALREADY_BOUND:
        console.print(
            f"The pod is already bound to node {escape(pod.nodeName or '')}: kube-scheduler no longer handles it."
        )
        return
    if pod.schedulingGates:
        since = ""
        if report.pending is not None and report.pending.verdict == Verdict.GATED and report.pending.details:
            since = f" ({escape(report.pending.details[0])})"
        console.print(
            "Scheduling gates "
            + escape("[" + " ".join(pod.schedulingGates) + "]")
            + f" keep kube-scheduler from trying this pod{since}. Once they are removed:"
        )
    if report.verdict == Verdict.NO_PROFILE:
        if report.message:
            console.print(escape(report.message))
        return
    if report.message:
        console.print(escape(report.message))
    else:
        console.print(f"{len(report.feasibleNodes)} of {len(report.nodes)} node(s) fit the pod.")
    for cause in report.causes:
        hanging(console, f"· {escape(cause.text)}", 2)
        if verbose and isinstance(cause, TooSmallCause):
            say(console, escape(closest_node_text(report, cause)), 4)
    preemption_line = preemption_sentence(report)
    if preemption_line:
        console.print(escape(preemption_line))
    render_scheduler_word(console, report, verbose)
    render_api_server_defaults(console, report)
    for rec in report.preFilter:
        if not _passes_or_unknown(rec):
            console.print(f"PreFilter {rec.plugin} rejects the pod: {escape(', '.join(rec.reasons))}")
        elif rec.nodeNames is not None:
            names = ", ".join(rec.nodeNames) or "no node"
            console.print(f"PreFilter {rec.plugin} restricts the pod to: {escape(names)}")
    for plugin, reason in not_evaluated(report).items():
        console.print(f"[yellow]{plugin}: {escape(reason)} — add them with another --from, or pass --complete[/yellow]")
    if node is not None:
        render_node(console, report, node)
        return
    render_nodes_table(console, report, wide, verbose)
    reserved_only = [n.name for n in report.nodes if not n.feasible and n.feasibleWithoutNominated]
    if reserved_only:
        count = len(reserved_only)
        console.print(
            f"{count} node{'s' if count != 1 else ''} fail{'' if count != 1 else 's'} only because of room reserved by "
            f"nominated pods ({escape(', '.join(reserved_only[:MAX_NAMES_IN_GROUP]))}"
            f"{', …' if count > MAX_NAMES_IN_GROUP else ''}): --node NAME shows them"
        )
    render_ranking(console, report, wide)
    render_autoscaling(console, report.autoscaling)
    render_suggestions(console, report)


def _render_heading(console: Console, report: Report) -> None:
    """The verdict and the pod's fate, the priority and the release emulated, and whether the API
    server would store the pod as given."""
    pod = report.pod
    fate = fate_text(report)
    # The verdict and the pod's fate first; the priority and the release emulated (with where it
    # was learnt, long on real dumps) on a second, dim line.
    say(
        console,
        f"[bold]Pod[/bold] {escape(pod.namespace)}/{escape(pod.name)} · [bold]{report.verdict}"
        + (f" — {escape(fate)}" if fate else "")
        + "[/bold]",
        0,
    )
    workload = report.workload
    if workload is not UNSET and workload.explainedText:  # which pod of the workload, how many Pending
        say(console, escape(workload.explainedText), 0)
    say(console, f"[dim]priority {pod.priority}{scheduler_version_words(report.scheduler)}[/dim]", 0)
    if report.notStorable:
        say(
            console,
            f"[yellow]The API server would not store this pod as given ({escape(report.notStorable)}):"
            " the verdict is what kube-scheduler does with it as given[/yellow]",
            0,
        )


def render_nodes_table(console: Console, report: Report, wide: bool, verbose: bool) -> None:
    """Nodes x Filter plugins, nodes of identical verdicts in one row (one node a row with -o wide),
    or one group a paragraph where the terminal is too narrow for the table."""
    all_plugins = [st.plugin for st in report.nodes[0].filters] if report.nodes else []
    # Plugins that skip this pod on every node get no column, only a mention.
    lists = {id(n.filters): n.filters for n in report.nodes}.values()  # nodes of one verdict share theirs
    skipped = [name for i, name in enumerate(all_plugins) if all(f[i].status == StatusName.SKIP for f in lists)]
    columns = [(i, name) for i, name in enumerate(all_plugins) if name not in skipped]
    plugin_names = wide or verbose  # -v names the plugins, as -o wide does
    if skipped:
        said = ", ".join(one_line(column_header(name, plugin_names)) for name in skipped)
        say(console, f"Not needed for this pod (Skip): {escape(said)}", 0)
    groups: OrderedDict[object, list[NodeReport]] = OrderedDict()
    # Nodes of one verdict share their filters list (report/build/nodes.py): its signature is made once.
    signatures: dict[tuple[int, int], tuple[object, ...]] = {}
    for verdict in report.nodes:
        if wide:
            key: object = verdict.name
        else:
            shared = (id(verdict.filters), id(verdict.firstFailure))
            key = signatures.get(shared)
            if key is None:
                key = signatures[shared] = _signature(verdict)
        groups.setdefault(key, []).append(verdict)
    # Feasible groups first, then the largest groups.
    ordered = sorted(groups.values(), key=lambda members: (not members[0].feasible, -len(members)))
    rows = [
        [_group_label(members), *[mark(members[0].filters[i]) for i, _ in columns], _why(members, wide)]
        for members in ordered
    ]
    headers = ["Nodes", *[column_header(name, plugin_names) for _, name in columns], WHY_HEADER]
    cells = [[headers[c], *[row[c] for row in rows]] for c in range(len(headers))]
    fixed = frozenset(range(1, len(headers) - 1))
    widths = None if narrow(console) else fit_widths(console.width, cells, fixed, floor=(12,))
    if widths is None:
        render_node_groups(console, ordered, wide)
    else:
        table = Table(show_lines=True, caption=LEGEND)
        for c, header in enumerate(headers):
            table.add_column(header, width=widths[c], justify="center" if c in fixed else "left", no_wrap=c in fixed)
        for row in rows:
            table.add_row(*[escape(cell) for cell in row])
        console.print(table)


WHY_HEADER = "Why not (the scheduler stops at the first)"


def render_node_groups(console: Console, ordered: list[list[NodeReport]], wide: bool = False) -> None:
    """The nodes x plugins table as a list: each group of nodes, then each rejecting plugin and
    its reasons on a line of its own (the one where the scheduler stops first)."""
    console.print("Nodes, grouped by identical verdicts (the scheduler stops at the first ✗):")
    for members in ordered:
        count = len(members)
        names = ", ".join(m.name for m in members[:MAX_NAMES_IN_GROUP])
        if count > MAX_NAMES_IN_GROUP:
            names += f", … ({count - MAX_NAMES_IN_GROUP:,} more)"
        label = names if count == 1 else f"{count:,} nodes: {names}"
        console.print(escape(label))
        first = members[0]
        lines = _why(members, wide).splitlines() if not first.feasible else []
        if first.feasible:
            console.print("  ✓ fits")
        for line in lines:
            say(console, f"✗ {escape(line)}", 2)
        for st in first.filters:
            if st.status == StatusName.NOT_EVALUATED:
                say(console, f"? {st.plugin}: not evaluated", 2)


def render_autoscaling(console: Console, autoscaling: AutoscalingReport | None, indent: int = 0) -> None:
    """Will a node come: the autoscalers' view (what each group can do, what each last said)."""
    if autoscaling is None:
        return
    say(console, f"[bold]Autoscaling[/bold]: {escape(autoscaling.summary)}", indent)
    for g in autoscaling.groups:
        mark = "✓" if g.outcome == "CanAdd" else ("?" if g.outcome == "NotEvaluated" else "✗")
        say(console, f"{mark} {escape(g.group)} ({escape(g.autoscaler)}): {escape(g.text)}", indent + 2)
    for line in autoscaling.excluded:
        say(console, f"✗ {escape(line)}", indent + 2)
    for said in autoscaling.said:
        agrees = "" if said.agrees is None else (" (agrees)" if said.agrees else " (differs from podwhy's reading)")
        when = f" at {said.time}" if said.time else ""
        say(
            console,
            f"{escape(said.autoscaler)} said{when}: {escape(said.reason)}: {escape(said.message)}{agrees}",
            indent + 2,
        )
    for line in autoscaling.notEvaluated:
        if line not in autoscaling.summary:  # said once
            say(console, f"? {escape(line)}", indent + 2)


def render_api_server_defaults(console: Console, report: Report) -> None:
    """What the API server fills in on the manifest's pod before the scheduler sees it."""
    if not isinstance(report.apiServerDefaults, list) or not report.apiServerDefaults:
        return
    said = "; ".join(f"{d.field}: {d.value} ({d.why})" for d in report.apiServerDefaults)
    say(console, escape(f"The API server fills in (defaulting), and the scheduler reads: {said}"), 0)


def render_suggestions(
    console: Console, report: Report, verified_by: str = "each verified by re-running the scheduler's plugins"
) -> None:
    if not report.suggestions:
        return
    console.print(f"[bold]Suggestions[/bold] ({verified_by}):")
    for s in report.suggestions:
        first, *each = s.summary.split("\n")
        hanging(console, f"• {escape(first)}", 2)
        for line in each:  # one per evicted pod ("· ..."), under the suggestion
            hanging(console, escape(line), 4)
        if s.command:
            console.print(f"      {escape(s.command)}", soft_wrap=True)  # whole, below the words hanging at 4


def age(timestamp: str | None, now: datetime | None, suffix: str = "ago") -> str:
    """'3m ago' for an RFC 3339 timestamp, measured to NOW (when the snapshot was taken); '' when
    there is no such time (a dump that does not record it) or it cannot be read."""
    if not timestamp or now is None:
        return ""
    try:
        then = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return ""
    if then.tzinfo is None:
        return ""
    seconds = int((now - then).total_seconds())
    if seconds < 0:
        return ""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit} {suffix}"
    return f"{seconds}s {suffix}"


def taken_at(report: Report | PendingReport) -> datetime | None:
    """When the report's snapshot was taken (live, or as `podwhy snapshot` recorded it)."""
    text = report.snapshot.takenAt
    if not isinstance(text, str):
        return None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else None


def age_suffix(report: Report | PendingReport) -> str:
    """'ago' for a live snapshot; a recorded one was taken earlier: ages are 'before the snapshot'."""
    live = any(source.startswith(LIVE_SOURCE) for source in report.snapshot.sources)
    return "ago" if live else "before the snapshot"


# How the table names the way the emulated release was chosen.
VERSION_SOURCE_WORDS = {
    "flag": "--kube-version",
    "apiServer": "API server",
    "schedulerImage": "kube-scheduler image",
    "kubeletLowerBound": "newest kubelet, a lower bound",
    "default": "default",
}


def closest_node_text(report: Report, cause: TooSmallCause) -> str:
    """-v: the arithmetic on the node with the most room, and the pods that hold it."""
    node = report.node(cause.mostFreeNode)
    sums = [
        describe_evidence(e)
        for status in (node.filters if node is not None else [])
        for e in (status.evidence if isinstance(status.evidence, list) else [])
        if isinstance(e, ResourceEvidence) and e.resource == cause.resource
    ]
    held = consumers_text(cause.resource, [(c.pod, c.requested) for c in cause.topConsumers])
    return f"{cause.mostFreeNode}: " + "; ".join(x for x in (*sums[:1], held) if x)


def render_inconclusive(console: Console, report: Report) -> None:
    """Why the verdict is Inconclusive, at the top: what was not evaluated and how to add it."""
    if report.verdict != Verdict.INCONCLUSIVE or not report.notEvaluated:
        return
    say(console, f"[yellow]Inconclusive: {escape(report.notEvaluated)}[/yellow]", 0)
    if report.lackingKinds:
        say(console, escape(add_kinds_text(report.lackingKinds)), 2)


def scheduler_version_words(word: SchedulerWord | None) -> str:
    """ " · kube-scheduler v1.36 (API server v1.36.3)" for the table's second line."""
    if word is None:
        return ""
    source = VERSION_SOURCE_WORDS[word.versionSource]
    found = f" {escape(word.clusterVersion)}" if word.clusterVersion else ""
    return f" · kube-scheduler v{word.version} ({source}{found})"


def render_scheduler_word(console: Console, report: Report, verbose: bool = False) -> None:
    """What kube-scheduler itself said (PodScheduled condition, FailedScheduling event), beside
    podwhy: one line when it differs; its words and the usual causes with -v (and in the JSON)."""
    word = report.scheduler
    if word is None:
        return
    event = word.event
    if event is not None:
        ago = age(event.lastSeen, taken_at(report), age_suffix(report))
        when = ", ".join(x for x in (f"last {event.lastSeen}" if event.lastSeen else "", ago) if x)
        console.print(
            f"Last FailedScheduling event: {event.count} time{'s' if event.count != 1 else ''}"
            + (f" ({escape(when)})" if when else "")
        )
    if word.agrees is True:
        console.print("kube-scheduler's own message agrees with podwhy's.")
        return
    if word.agrees is not False:
        return
    if word.likelyRelease is not None:
        release = word.likelyRelease
        say(
            console,
            f"[bold]kube-scheduler's own last message is v{release}'s wording[/bold]: the cluster likely runs"
            f" v{release}, not v{word.version} as podwhy emulates it (pass --kube-version {release}).",
            0,
        )
    if not verbose:
        console.print(
            "[bold]kube-scheduler's own last message differs from podwhy's[/bold] (-v shows it and the usual causes)."
        )
        return
    console.print("[bold]kube-scheduler's own last message differs from podwhy's:[/bold]")
    if word.condition is not None:
        say(console, f"PodScheduled condition: {escape(word.condition)}", 2)
    if event is not None and event.message != word.condition:
        say(console, f"FailedScheduling event: {escape(event.message)}", 2)
    console.print("Usual causes:")
    for cause in word.causes:
        say(console, f"· {escape(cause)}", 2)


def _scored_nodes(report: Report) -> list[NodeReport]:
    return [n for n in report.nodes if n.totalScore is not None]


def render_ranking(console: Console, report: Report, wide: bool) -> None:
    """Feasible nodes by total score, a column per Score plugin (weighted points)."""
    scored = _scored_nodes(report)
    if not scored:
        return
    rows = sorted(scored, key=lambda n: (-(n.totalScore or 0), n.name))
    first_row = scored[0].scores
    skipped = [ps.plugin for i, ps in enumerate(first_row) if all(n.scores[i].skipped is True for n in scored)]
    columns = [(i, ps) for i, ps in enumerate(first_row) if ps.plugin not in skipped]
    title = "Scores (weighted; ★ = best, the scheduler picks one of them at random)"
    if report.scoringSkipped is True:
        title = "Scores (only one node fits: kube-scheduler takes it without scoring)"
    shown = rows if wide else rows[:RANKING_ROWS]
    best = set(report.bestNodes)
    headers = ["Node", *[column_header(ps.plugin, wide) + f" ×{ps.weight}" for _, ps in columns], "Total"]
    body = [
        [
            row.name + (" ★" if row.name in best else ""),
            *[_score_cell(row.scores[i]) for i, _ in columns],
            str(row.totalScore),
        ]
        for row in shown
    ]
    cells = [[headers[c], *[line[c] for line in body]] for c in range(len(headers))]
    widths = None if narrow(console) else fit_widths(console.width, cells, frozenset(range(1, len(headers))))
    if widths is None:
        weights = ", ".join(f"{one_line(column_header(ps.plugin, wide))} ×{ps.weight}" for _, ps in columns)
        console.print(escape(title) + (f"; weights: {weights}" if weights else "") + ":")
        for line in body:
            points = ", ".join(
                f"{one_line(column_header(ps.plugin, wide))} {v}"
                for (_, ps), v in zip(columns, line[1:-1], strict=True)
            )
            say(console, f"{escape(line[0])}: total {line[-1]}" + (f" = {escape(points)}" if points else ""), 2)
    else:
        table = Table(title=title, title_justify="left")
        for c, header in enumerate(headers):
            table.add_column(header, width=widths[c], justify="left" if c == 0 else "right", no_wrap=c > 0)
        for line in body:
            table.add_row(*[escape(cell) for cell in line])
        console.print(table)
    if len(rows) > len(shown):
        console.print(f"… and {len(rows) - len(shown)} more feasible node(s) (-o wide shows all)")
    if skipped:
        console.print(f"Nothing to score for this pod (PreScore Skip): {', '.join(skipped)}")


def _score_cell(ps: ScoreEntry) -> str:
    if isinstance(ps.notEvaluated, str) and ps.notEvaluated:
        return "?"
    return "–" if ps.skipped is True else str(ps.weighted)


def preemption_sentence(report: Report) -> str:
    """One line on what DefaultPreemption's dry run would do, when it nominates a node."""
    pre = report.preemption
    if pre is None or pre.nominatedNode is None or not pre.victims:
        return ""
    priorities = {v.pod: v.priority for c in pre.candidates if c.node == pre.nominatedNode for v in c.victims}
    count = len(pre.victims)
    victims = ", ".join(f"{v} (priority {priorities.get(v, '?')})" for v in pre.victims)
    pods = f"{count} pod{'s' if count != 1 else ''}"
    line = f"Preemption (dry run): would preempt {pods} on {pre.nominatedNode}: {victims}"
    if pre.pdbViolations:
        line += f"; violates PDB {', '.join(pre.pdbViolations)}"
    return line
