"""Human output: the scheduler's message, then nodes x plugins grouped by identical verdicts.

The only module that imports rich. Every cluster-sourced string is escaped before rich
renders it, so a label like "[bold]" prints as itself.
"""

from __future__ import annotations

import os
import sys
from collections import OrderedDict

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from podwhy.engine import Explanation
from podwhy.errors import PodwhyError
from podwhy.framework.status import Code, Status
from podwhy.report.json_report import status_name
from podwhy.runtime.framework import NodeVerdict
from podwhy.runtime.scoring import PluginScore

SHORT_NAMES = {
    "NodeUnschedulable": "Unsched",
    "NodeName": "Name",
    "TaintToleration": "Taints",
    "NodeAffinity": "Affinity",
    "NodePorts": "Ports",
    "NodeResourcesFit": "Fit",
    "VolumeRestrictions": "VolRestr",
    "NodeVolumeLimits": "VolLimits",
    "VolumeBinding": "VolBind",
    "VolumeZone": "VolZone",
    "PodTopologySpread": "Spread",
    "InterPodAffinity": "PodAff",
    "DynamicResources": "DRA",
    "NodeResourcesBalancedAllocation": "Balanced",
    "ImageLocality": "Images",
}

LEGEND = "✓ passes   ✗ rejects   – not needed for this pod (Skip)   ? not evaluated   ! error"
MAX_NAMES_IN_GROUP = 3


PIPE_WIDTH = 120


def make_console(width: int | None = None) -> Console:
    """A console for stdout; fixed width and no colour when `width` is given (tests).

    Output to a pipe or file (CI logs) gets 120 columns unless COLUMNS says otherwise,
    rather than rich's 80, which would squeeze a wide verdict table.
    """
    no_color = "NO_COLOR" in os.environ or width is not None
    if width is None and not sys.stdout.isatty() and "COLUMNS" not in os.environ:
        width = PIPE_WIDTH
    return Console(width=width, no_color=no_color, highlight=False)


def _mark(status: Status) -> str:
    if status.not_evaluated:
        return "?"
    if status.code == Code.Skip:
        return "–"
    if status.code == Code.Success:
        return "✓"
    if status.is_rejected():
        return "✗"
    return "!"


def _signature(verdict: NodeVerdict) -> tuple[object, ...]:
    ff = verdict.first_failure
    return (
        tuple((name, status_name(st), tuple(st.reasons)) for name, st in verdict.filters.items()),
        (ff.plugin, tuple(ff.reasons)) if ff is not None else None,
    )


def _why(verdict: NodeVerdict) -> str:
    """Reasons of every rejecting plugin; the one where the scheduler stops comes first."""
    ff = verdict.first_failure
    parts: list[str] = []
    if ff is not None:
        parts.append(f"{ff.plugin}: {'; '.join(ff.reasons)}")
    for name, st in verdict.filters.items():
        if st.is_success() or st.is_skip() or (ff is not None and name == ff.plugin):
            continue
        parts.append(f"{name}: {'; '.join(st.reasons)}")
    return "\n".join(parts) if parts else "fits"


def _group_label(members: list[NodeVerdict]) -> str:
    if len(members) == 1:
        return members[0].name
    names = ", ".join(m.name for m in members[:MAX_NAMES_IN_GROUP])
    more = ", …" if len(members) > MAX_NAMES_IN_GROUP else ""
    return f"{len(members):,} nodes\n({names}{more})"


def render_table(exp: Explanation, wide: bool = False, node: str | None = None, console: Console | None = None) -> None:
    console = console or make_console()
    pod = exp.pod.pod
    console.print(
        f"[bold]Pod[/bold] {escape(pod.metadata.namespace)}/{escape(pod.metadata.name)}"
        f" · priority {exp.pod.priority} · [bold]{exp.verdict}[/bold]"
    )
    if exp.bound_node:
        console.print(
            f"The pod is already bound to node {escape(exp.bound_node)}: kube-scheduler no longer handles it."
        )
        return
    if exp.gates:
        console.print(
            "Scheduling gates "
            + escape("[" + " ".join(exp.gates) + "]")
            + " keep kube-scheduler from trying this pod. Once they are removed:"
        )
    outcome = exp.outcome
    if outcome is None:
        if exp.message:
            console.print(escape(exp.message))
        return
    if exp.message:
        console.print(escape(exp.message))
    else:
        console.print(f"{len(outcome.feasible)} of {len(outcome.nodes)} node(s) fit the pod.")
    preemption_line = preemption_sentence(exp)
    if preemption_line:
        console.print(escape(preemption_line))
    for rec in outcome.pre_filter:
        if not rec.status.is_success() and not rec.status.is_skip():
            console.print(f"PreFilter {rec.plugin} rejects the pod: {escape(rec.status.message())}")
        elif rec.node_names is not None:
            names = ", ".join(sorted(rec.node_names)) or "no node"
            console.print(f"PreFilter {rec.plugin} restricts the pod to: {escape(names)}")
    for plugin, reason in sorted(outcome.not_evaluated.items()):
        console.print(f"[yellow]{plugin}: {escape(reason)} — add them with another --from[/yellow]")
    if node is not None:
        render_node(console, exp, node)
        return
    all_plugins = list(outcome.nodes[0].filters) if outcome.nodes else []
    # Plugins that skip this pod on every node get no column, only a mention.
    skipped = [n for n in all_plugins if all(v.filters[n].is_skip() for v in outcome.nodes)]
    plugins = [n for n in all_plugins if n not in skipped]
    if skipped:
        console.print(f"Not needed for this pod (Skip): {', '.join(skipped)}")
    table = Table(show_lines=True, caption=LEGEND)
    table.add_column("Nodes", overflow="fold", min_width=12)
    for name in plugins:
        table.add_column(SHORT_NAMES.get(name, name), justify="center", no_wrap=True)
    table.add_column("Why not (the scheduler stops at the first)", overflow="fold", min_width=24, ratio=1)
    groups: OrderedDict[object, list[NodeVerdict]] = OrderedDict()
    for verdict in outcome.nodes:
        key: object = verdict.name if wide else _signature(verdict)
        groups.setdefault(key, []).append(verdict)
    # Feasible groups first, then the largest groups.
    ordered = sorted(groups.values(), key=lambda members: (not members[0].feasible, -len(members)))
    for members in ordered:
        first = members[0]
        table.add_row(
            escape(_group_label(members)),
            *[_mark(first.filters[name]) for name in plugins],
            escape(_why(first)),
        )
    console.print(table)
    render_ranking(console, exp, wide)


RANKING_ROWS = 10


def render_ranking(console: Console, exp: Explanation, wide: bool) -> None:
    """Feasible nodes by total score, a column per Score plugin (weighted points)."""
    scores = exp.scores
    if scores is None or not scores.scores:
        return
    rows = sorted(scores.totals.items(), key=lambda item: (-item[1], item[0]))
    first_row = next(iter(scores.scores.values()))
    skipped = [ps.plugin for ps in first_row if all(ps.skipped for ps in _column(scores.scores, ps.plugin))]
    plugins = [ps.plugin for ps in first_row if ps.plugin not in skipped]
    title = "Scores (weighted; ★ = best, the scheduler picks one of them at random)"
    if scores.scoring_skipped:
        title = "Scores (only one node fits: kube-scheduler takes it without scoring)"
    table = Table(title=title, title_justify="left")
    table.add_column("Node", overflow="fold")
    for name in plugins:
        table.add_column(SHORT_NAMES.get(name, name) + f" ×{profile_weight(exp, name)}", justify="right")
    table.add_column("Total", justify="right")
    shown = rows if wide else rows[:RANKING_ROWS]
    best = set(scores.best_nodes)
    for node_name, total in shown:
        cells = []
        for ps in scores.scores[node_name]:
            if ps.plugin in skipped:
                continue
            cells.append("?" if ps.not_evaluated else "–" if ps.skipped else str(ps.weighted))
        star = " ★" if node_name in best else ""
        table.add_row(escape(node_name) + star, *cells, str(total))
    console.print(table)
    if len(rows) > len(shown):
        console.print(f"… and {len(rows) - len(shown)} more feasible node(s) (-o wide shows all)")
    if skipped:
        console.print(f"Nothing to score for this pod (PreScore Skip): {', '.join(skipped)}")


def _column(rows: dict[str, list[PluginScore]], plugin: str) -> list[PluginScore]:
    return [ps for row in rows.values() for ps in row if ps.plugin == plugin]


def profile_weight(exp: Explanation, plugin: str) -> int:
    assert exp.scores is not None
    for row in exp.scores.scores.values():
        for ps in row:
            if ps.plugin == plugin:
                return ps.weight
    return 0


def describe_evidence(kind: str, data: dict[str, object]) -> str:
    """One line of facts; resource comparisons read as arithmetic."""
    if kind == "resource" and {"resource", "requested", "used", "allocatable"} <= data.keys():
        unit = "m" if data.get("unit") == "millicores" else ""
        name = data["resource"]
        return (
            f"{name}: this pod {data['requested']}{unit} + already requested {data['used']}{unit}"
            f" vs allocatable {data['allocatable']}{unit}"
        )
    facts = ", ".join(f"{k}={v}" for k, v in data.items())
    return f"{kind}: {facts}"


def render_node(console: Console, exp: Explanation, node: str) -> None:
    """One node, with the facts behind every verdict."""
    assert exp.outcome is not None
    verdict = next((v for v in exp.outcome.nodes if v.name == node), None)
    if verdict is None:
        raise PodwhyError(f"node {node!r} is not in the snapshot", hint=f"it has {len(exp.outcome.nodes)} nodes")
    console.print(f"[bold]Node[/bold] {escape(node)}: {'fits' if verdict.feasible else 'does not fit'}")
    if verdict.first_failure is not None:
        console.print(
            f"kube-scheduler stops at {verdict.first_failure.plugin}: {escape(verdict.first_failure.message())}"
        )
    if verdict.nominated_pods:
        console.print("Nominated pods of equal or higher priority reserving room here:")
        for pi in verdict.nominated_pods:
            console.print(f"  {escape(pi.key)} (priority {pi.priority})")
    table = Table(show_lines=True)
    table.add_column("Plugin")
    table.add_column("", justify="center")
    table.add_column("Status")
    table.add_column("Details", overflow="fold")
    for name, st in verdict.filters.items():
        details = [st.not_evaluated] if st.not_evaluated else list(st.reasons)
        details.extend(describe_evidence(ev.kind, ev.data) for ev in st.evidence)
        table.add_row(name, _mark(st), status_name(st), escape("\n".join(details)))
    console.print(table)
    node_scores = exp.scores.scores.get(node) if exp.scores is not None else None
    if not node_scores:
        return
    assert exp.scores is not None
    score_table = Table(title=f"Scores on {escape(node)} (total {exp.scores.totals[node]})", title_justify="left")
    for column in ("Plugin", "raw", "normalized", "× weight", "= points", "How"):
        score_table.add_column(column, overflow="fold", justify="left" if column in ("Plugin", "How") else "right")
    for ps in node_scores:
        if ps.not_evaluated:
            how = ps.not_evaluated
        elif ps.skipped:
            how = "PreScore returned Skip: nothing to score for this pod"
        else:
            how = "\n".join(describe_evidence(ev.kind, ev.data) for ev in ps.evidence)
        score_table.add_row(ps.plugin, str(ps.raw), str(ps.normalized), str(ps.weight), str(ps.weighted), escape(how))
    console.print(score_table)


def preemption_sentence(exp: Explanation) -> str:
    """One line on what DefaultPreemption's dry run would do, when it nominates a node."""
    pre = exp.post_filter.preemption if exp.post_filter is not None else None
    if pre is None or pre.nominated_node is None or not pre.victims:
        return ""
    count = len(pre.victims)
    victims = ", ".join(f"{v.key} (priority {v.priority})" for v in pre.victims)
    pods = f"{count} pod{'s' if count != 1 else ''}"
    line = f"Preemption (dry run): would preempt {pods} on {pre.nominated_node}: {victims}"
    if pre.violated_pdbs:
        line += f"; violates PDB {', '.join(pre.violated_pdbs)}"
    return line
