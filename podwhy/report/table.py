"""Human output: the scheduler's message, then nodes x plugins grouped by identical verdicts.

Renders the report model and nothing else. The only module that imports rich. Every
cluster-sourced string is escaped before rich renders it, so a label like "[bold]" prints
as itself.
"""

from __future__ import annotations

import os
import sys
from collections import OrderedDict
from datetime import UTC, datetime

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from podwhy.plugins.dynamicresources import DynamicResources
from podwhy.plugins.imagelocality import ImageLocality
from podwhy.plugins.interpodaffinity import InterPodAffinity
from podwhy.plugins.nodeaffinity import NodeAffinity
from podwhy.plugins.nodename import NodeName
from podwhy.plugins.nodeports import NodePorts
from podwhy.plugins.noderesources.balanced_allocation import BalancedAllocation
from podwhy.plugins.noderesources.fit import Fit
from podwhy.plugins.nodeunschedulable import NodeUnschedulable
from podwhy.plugins.nodevolumelimits import NodeVolumeLimits
from podwhy.plugins.podtopologyspread import PodTopologySpread
from podwhy.plugins.tainttoleration import TaintToleration
from podwhy.plugins.volumebinding import VolumeBinding
from podwhy.plugins.volumerestrictions import VolumeRestrictions
from podwhy.plugins.volumezone import VolumeZone
from podwhy.report.model import (
    CheckReport,
    NodeReport,
    PendingReport,
    PluginStatus,
    Report,
    SchedulerWord,
    ScoreEntry,
    StatusName,
)
from podwhy.runtime.cycle import Verdict

SHORT_NAMES = {
    NodeUnschedulable.NAME: "Unsched",
    NodeName.NAME: "Name",
    TaintToleration.NAME: "Taints",
    NodeAffinity.NAME: "Affinity",
    NodePorts.NAME: "Ports",
    Fit.NAME: "Fit",
    VolumeRestrictions.NAME: "VolRestr",
    NodeVolumeLimits.NAME: "VolLimits",
    VolumeBinding.NAME: "VolBind",
    VolumeZone.NAME: "VolZone",
    PodTopologySpread.NAME: "Spread",
    InterPodAffinity.NAME: "PodAff",
    DynamicResources.NAME: "DRA",
    BalancedAllocation.NAME: "Balanced",
    ImageLocality.NAME: "Images",
}

LEGEND = "✓ passes   ✗ rejects   – not needed for this pod (Skip)   ? not evaluated   ! error"
MAX_NAMES_IN_GROUP = 3
RANKING_ROWS = 10
# Output to a pipe or file (CI logs) gets this many columns unless COLUMNS says otherwise,
# rather than rich's 80, which would squeeze a wide verdict table.
PIPE_WIDTH = 120


def make_console() -> Console:
    """A console for stdout. rich honours NO_COLOR and COLUMNS itself; only the width of a
    pipe or file (CI logs) differs from rich's default."""
    width = None
    if not sys.stdout.isatty() and "COLUMNS" not in os.environ:
        width = PIPE_WIDTH
    return Console(width=width, highlight=False)


def _mark(status: PluginStatus) -> str:
    if status.status == StatusName.NOT_EVALUATED:
        return "?"
    if status.status == StatusName.SKIP:
        return "–"
    if status.status == StatusName.SUCCESS:
        return "✓"
    if status.status.rejects:
        return "✗"
    return "!"


def _passes_or_unknown(status: PluginStatus) -> bool:
    return status.status in (StatusName.SUCCESS, StatusName.SKIP, StatusName.NOT_EVALUATED)


def _signature(node: NodeReport) -> tuple[object, ...]:
    ff = node.firstFailure
    return (
        tuple((st.plugin, st.status, tuple(st.reasons)) for st in node.filters),
        (ff.plugin, tuple(ff.reasons)) if ff is not None else None,
    )


def _why(node: NodeReport) -> str:
    """Reasons of every rejecting plugin; the one where the scheduler stops comes first."""
    ff = node.firstFailure
    parts: list[str] = []
    if ff is not None:
        parts.append(f"{ff.plugin}: {'; '.join(ff.reasons)}")
    for st in node.filters:
        if _passes_or_unknown(st) or (ff is not None and st.plugin == ff.plugin):
            continue
        parts.append(f"{st.plugin}: {'; '.join(st.reasons)}")
    return "\n".join(parts) if parts else "fits"


def _group_label(members: list[NodeReport]) -> str:
    if len(members) == 1:
        return members[0].name
    names = ", ".join(m.name for m in members[:MAX_NAMES_IN_GROUP])
    more = ", …" if len(members) > MAX_NAMES_IN_GROUP else ""
    return f"{len(members):,} nodes\n({names}{more})"


def not_evaluated(report: Report) -> dict[str, str]:
    """Plugins podwhy could not evaluate for this pod, with the reason."""
    out: dict[str, str] = {}
    statuses = [*report.preFilter, *(report.nodes[0].filters if report.nodes else [])]
    for st in statuses:
        if st.status == StatusName.NOT_EVALUATED and st.reasons:
            out.setdefault(st.plugin, st.reasons[0])
    return dict(sorted(out.items()))


def render_table(report: Report, wide: bool = False, node: str | None = None, console: Console | None = None) -> None:
    console = console or make_console()
    pod = report.pod
    console.print(
        f"[bold]Pod[/bold] {escape(pod.namespace)}/{escape(pod.name)}"
        f" · priority {pod.priority} · [bold]{report.verdict}[/bold]" + scheduler_version_words(report.scheduler)
    )
    if report.verdict == Verdict.ALREADY_BOUND:
        console.print(
            f"The pod is already bound to node {escape(pod.nodeName or '')}: kube-scheduler no longer handles it."
        )
        return
    if pod.schedulingGates:
        console.print(
            "Scheduling gates "
            + escape("[" + " ".join(pod.schedulingGates) + "]")
            + " keep kube-scheduler from trying this pod. Once they are removed:"
        )
    if report.verdict == Verdict.NO_PROFILE:
        if report.message:
            console.print(escape(report.message))
        return
    if report.message:
        console.print(escape(report.message))
    else:
        console.print(f"{len(report.feasibleNodes)} of {len(report.nodes)} node(s) fit the pod.")
    preemption_line = preemption_sentence(report)
    if preemption_line:
        console.print(escape(preemption_line))
    render_scheduler_word(console, report)
    for rec in report.preFilter:
        if not _passes_or_unknown(rec):
            console.print(f"PreFilter {rec.plugin} rejects the pod: {escape(', '.join(rec.reasons))}")
        elif rec.nodeNames is not None:
            names = ", ".join(rec.nodeNames) or "no node"
            console.print(f"PreFilter {rec.plugin} restricts the pod to: {escape(names)}")
    for plugin, reason in not_evaluated(report).items():
        console.print(f"[yellow]{plugin}: {escape(reason)} — add them with another --from[/yellow]")
    if node is not None:
        render_node(console, report, node)
        return
    all_plugins = [st.plugin for st in report.nodes[0].filters] if report.nodes else []
    # Plugins that skip this pod on every node get no column, only a mention.
    skipped = [
        name for i, name in enumerate(all_plugins) if all(n.filters[i].status == StatusName.SKIP for n in report.nodes)
    ]
    columns = [(i, name) for i, name in enumerate(all_plugins) if name not in skipped]
    if skipped:
        console.print(f"Not needed for this pod (Skip): {', '.join(skipped)}")
    table = Table(show_lines=True, caption=LEGEND)
    table.add_column("Nodes", overflow="fold", min_width=12)
    for _, name in columns:
        table.add_column(SHORT_NAMES.get(name, name), justify="center", no_wrap=True)
    table.add_column("Why not (the scheduler stops at the first)", overflow="fold", min_width=24, ratio=1)
    groups: OrderedDict[object, list[NodeReport]] = OrderedDict()
    for verdict in report.nodes:
        key: object = verdict.name if wide else _signature(verdict)
        groups.setdefault(key, []).append(verdict)
    # Feasible groups first, then the largest groups.
    ordered = sorted(groups.values(), key=lambda members: (not members[0].feasible, -len(members)))
    for members in ordered:
        first = members[0]
        table.add_row(
            escape(_group_label(members)),
            *[_mark(first.filters[i]) for i, _ in columns],
            escape(_why(first)),
        )
    console.print(table)
    reserved_only = [n.name for n in report.nodes if not n.feasible and n.feasibleWithoutNominated]
    if reserved_only:
        count = len(reserved_only)
        console.print(
            f"{count} node{'s' if count != 1 else ''} fail{'' if count != 1 else 's'} only because of room reserved by "
            f"nominated pods ({escape(', '.join(reserved_only[:MAX_NAMES_IN_GROUP]))}"
            f"{', …' if count > MAX_NAMES_IN_GROUP else ''}): --node NAME shows them"
        )
    render_ranking(console, report, wide)
    render_suggestions(console, report)


def render_suggestions(console: Console, report: Report) -> None:
    if not report.suggestions:
        return
    console.print("[bold]Suggestions[/bold] (each verified by re-running the scheduler's plugins):")
    for s in report.suggestions:
        console.print(f"  • {escape(s.summary)}")
        console.print(f"    {escape(s.command)}", soft_wrap=True)


def age(timestamp: str | None, now: datetime | None = None) -> str:
    """'3m ago' for an RFC 3339 timestamp; '' when there is none or it cannot be read."""
    if not timestamp:
        return ""
    try:
        then = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return ""
    seconds = int(((now or datetime.now(UTC)) - then).total_seconds())
    if seconds < 0:
        return ""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return f"{seconds}s ago"


# How the table names the way the emulated release was chosen.
VERSION_SOURCE_WORDS = {
    "flag": "--kube-version",
    "apiServer": "API server",
    "schedulerImage": "kube-scheduler image",
    "kubeletLowerBound": "newest kubelet, a lower bound",
    "default": "default",
}


def scheduler_version_words(word: SchedulerWord | None) -> str:
    """ " · kube-scheduler v1.36 (API server v1.36.3)" for the table's first line."""
    if word is None:
        return ""
    source = VERSION_SOURCE_WORDS[word.versionSource]
    found = f" {escape(word.clusterVersion)}" if word.clusterVersion else ""
    return f" · kube-scheduler v{word.version} ({source}{found})"


def render_scheduler_word(console: Console, report: Report) -> None:
    """What kube-scheduler itself said (PodScheduled condition, FailedScheduling event), beside podwhy."""
    word = report.scheduler
    if word is None:
        return
    event = word.event
    if event is not None:
        when = ", ".join(x for x in (f"last {event.lastSeen}" if event.lastSeen else "", age(event.lastSeen)) if x)
        console.print(
            f"Last FailedScheduling event: {event.count} time{'s' if event.count != 1 else ''}"
            + (f" ({escape(when)})" if when else "")
        )
    if word.agrees is True:
        console.print("kube-scheduler's own message agrees with podwhy's.")
        return
    if word.agrees is False:
        if word.condition is not None:
            console.print(f"[bold]kube-scheduler said otherwise[/bold] (PodScheduled): {escape(word.condition)}")
        if event is not None and event.message != word.condition:
            console.print(f"[bold]kube-scheduler said otherwise[/bold] (event): {escape(event.message)}")
        console.print("Usual causes: " + escape("; ".join(word.causes)) + ".")


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
    table = Table(title=title, title_justify="left")
    table.add_column("Node", overflow="fold")
    for _, ps in columns:
        table.add_column(SHORT_NAMES.get(ps.plugin, ps.plugin) + f" ×{ps.weight}", justify="right")
    table.add_column("Total", justify="right")
    shown = rows if wide else rows[:RANKING_ROWS]
    best = set(report.bestNodes)
    for row in shown:
        cells = [_score_cell(row.scores[i]) for i, _ in columns]
        star = " ★" if row.name in best else ""
        table.add_row(escape(row.name) + star, *cells, str(row.totalScore))
    console.print(table)
    if len(rows) > len(shown):
        console.print(f"… and {len(rows) - len(shown)} more feasible node(s) (-o wide shows all)")
    if skipped:
        console.print(f"Nothing to score for this pod (PreScore Skip): {', '.join(skipped)}")


def _score_cell(ps: ScoreEntry) -> str:
    if isinstance(ps.notEvaluated, str) and ps.notEvaluated:
        return "?"
    return "–" if ps.skipped is True else str(ps.weighted)


def describe_evidence(data: dict[str, object]) -> str:
    """One line of facts; resource comparisons read as arithmetic."""
    kind = data.get("kind")
    if kind == "resource" and {"resource", "requested", "used", "allocatable"} <= data.keys():
        unit = "m" if data.get("unit") == "millicores" else ""
        name = data["resource"]
        return (
            f"{name}: this pod {data['requested']}{unit} + already requested {data['used']}{unit}"
            f" vs allocatable {data['allocatable']}{unit}"
        )
    facts = ", ".join(f"{k}={v}" for k, v in data.items() if k != "kind")
    return f"{kind}: {facts}"


def _evidence(items: object) -> list[str]:
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
            console.print(f"  {escape(pi.pod)} (priority {pi.priority}; requests {escape(requests) or 'nothing'})")
        if verdict.feasibleWithoutNominated and not verdict.feasible:
            console.print("Without that reserved room the pod would fit here.")
    table = Table(show_lines=True)
    table.add_column("Plugin")
    table.add_column("", justify="center")
    table.add_column("Status")
    table.add_column("Details", overflow="fold")
    for st in verdict.filters:
        details = [*st.reasons, *_evidence(st.evidence)]
        table.add_row(st.plugin, _mark(st), st.status, escape("\n".join(details)))
    console.print(table)
    if not verdict.scores:
        return
    score_table = Table(title=f"Scores on {escape(name)} (total {verdict.totalScore})", title_justify="left")
    for column in ("Plugin", "raw", "normalized", "× weight", "= points", "How"):
        score_table.add_column(column, overflow="fold", justify="left" if column in ("Plugin", "How") else "right")
    for ps in verdict.scores:
        if isinstance(ps.notEvaluated, str) and ps.notEvaluated:
            how = ps.notEvaluated
        elif ps.skipped is True:
            how = "PreScore returned Skip: nothing to score for this pod"
        else:
            how = "\n".join(_evidence(ps.evidence))
        score_table.add_row(ps.plugin, str(ps.raw), str(ps.normalized), str(ps.weight), str(ps.weighted), escape(how))
    console.print(score_table)


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


def render_pending(report: PendingReport, wide: bool = False, console: Console | None = None) -> None:
    """Pending pods grouped by cause and owner, largest group first."""
    console = console or make_console()
    if not report.total:
        console.print("No Pending pods.")
        return
    console.print(
        f"[bold]{report.total} Pending pod{'s' if report.total != 1 else ''}[/bold], {report.stuck} stuck, "
        f"in {len(report.groups)} group{'s' if len(report.groups) != 1 else ''}"
    )
    table = Table(show_lines=True)
    table.add_column("Pods", overflow="fold", min_width=14)
    table.add_column("Verdict", no_wrap=True)
    table.add_column("Why", overflow="fold", ratio=1)
    for group in report.groups:
        shown = group.pods if wide else group.pods[:MAX_NAMES_IN_GROUP]
        more = f"\n… {group.count - len(shown)} more" if len(shown) < group.count else ""
        who = f"{group.count} pod{'s' if group.count != 1 else ''}" + (f" of {group.owner}" if group.owner else "")
        why = group.cause + "".join(f"\n· {d}" for d in group.details[: None if wide else MAX_NAMES_IN_GROUP])
        why += "".join(f"\n⇒ {s.summary}\n  {s.command}" for s in group.suggestions)
        if group.sizing is not None and not group.suggestions:
            # Never silent: why the group has no node count.
            why += f"\n⇏ {group.sizing.note}"
        table.add_row(escape(who + "\n" + "\n".join(shown) + more), str(group.verdict), escape(why))
    console.print(table)
    console.print("podwhy explain NAMESPACE/NAME shows one pod node by node.")


def render_check(report: CheckReport, wide: bool = False, console: Console | None = None) -> None:
    """Per workload, per replica: the node it was placed on, or Pending and why."""
    console = console or make_console()
    summary = report.summary
    table = Table(show_lines=True)
    table.add_column("Workload", overflow="fold", min_width=14)
    table.add_column("Replica", overflow="fold", no_wrap=True)
    table.add_column("Node", overflow="fold", no_wrap=True)
    table.add_column("Why Pending", overflow="fold", ratio=1)
    for workload in report.workloads:
        who = f"{workload.key}\n{workload.placed}/{len(workload.replicas)} placed"
        if not workload.replicas:
            table.add_row(escape(who), "", "", "no replicas")
            continue
        for index, replica in enumerate(workload.replicas):
            node = replica.node or ("Pending" if replica.targetNode is None else f"Pending (for {replica.targetNode})")
            if replica.node is not None and replica.tiedNodes:
                node += f" (tied with {len(replica.tiedNodes) - 1})"
            table.add_row(
                escape(who) if index == 0 else "", escape(replica.name), escape(node), escape(replica.message)
            )
        if wide:
            for node_name, why in workload.ineligibleNodes.items():
                table.add_row("", "", escape(node_name), escape(f"not run here by its controller: {why}"))
    console.print(table)
    verdict = "everything fits" if not summary.pending else f"{summary.pending} replica(s) stay Pending"
    console.print(
        f"[bold]{summary.placed}/{summary.replicas} replicas placed[/bold] in {summary.workloads} workload(s): "
        f"{verdict}."
    )
    console.print(f"Placed one after another; {report.tieBreak}.")
