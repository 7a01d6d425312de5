"""Human output: the message, then nodes x plugins, grouped by identical verdicts."""

from __future__ import annotations

import os
from collections import OrderedDict

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from podwhy.engine import Explanation
from podwhy.framework.runner import NodeVerdict
from podwhy.framework.status import Code, Status
from podwhy.report.json_report import status_name

_MARK = {
    Code.Success: "✓",
    Code.Skip: "–",
    Code.Unschedulable: "✗",
    Code.UnschedulableAndUnresolvable: "✗",
    Code.Error: "!",
}


def make_console(width: int | None = None) -> Console:
    no_color = "NO_COLOR" in os.environ or width is not None
    return Console(width=width, no_color=no_color, highlight=False, soft_wrap=False)


def _cell(status: Status) -> str:
    if status.not_evaluated:
        return "? not evaluated"
    mark = _MARK.get(status.code, "?")
    if status.reasons and not status.is_success():
        return f"{mark} " + escape("; ".join(status.reasons))
    return mark


def _signature(verdict: NodeVerdict) -> tuple[object, ...]:
    ff = verdict.first_failure
    return (
        verdict.feasible,
        tuple((name, status_name(st), tuple(st.reasons)) for name, st in verdict.filters.items()),
        (ff.plugin, tuple(ff.reasons)) if ff is not None else None,
    )


def _summary_line(verdict: NodeVerdict) -> str:
    ff = verdict.first_failure
    if ff is None:
        return "feasible"
    return f"{ff.plugin}: {'; '.join(ff.reasons)}"


def render_table(exp: Explanation, wide: bool = False, node: str | None = None, console: Console | None = None) -> None:
    console = console or make_console()
    pod = exp.pod.pod
    console.print(
        f"[bold]Pod[/bold] {escape(pod.metadata.namespace)}/{escape(pod.metadata.name)}  "
        f"priority {exp.pod.priority}  verdict [bold]{exp.verdict}[/bold]"
    )
    if exp.bound_node:
        console.print(f"The pod is already bound to node {escape(exp.bound_node)}; the scheduler no longer handles it.")
        return
    if exp.gates:
        console.print(
            "The pod has scheduling gates "
            + escape("[" + " ".join(exp.gates) + "]")
            + ": kube-scheduler will not try it until they are removed. What the plugins say without them:"
        )
    if exp.message:
        console.print(escape(exp.message))
    elif exp.verdict == "Schedulable":
        console.print(f"{len(exp.outcome.feasible) if exp.outcome else 0} node(s) fit the pod.")
    outcome = exp.outcome
    if outcome is None:
        return
    for rec in outcome.pre_filter:
        if not rec.status.is_success() and not rec.status.is_skip():
            console.print(f"PreFilter {rec.plugin}: {escape(rec.status.message())}")
        elif rec.node_names is not None:
            console.print(f"PreFilter {rec.plugin} restricts the pod to: {escape(', '.join(sorted(rec.node_names)))}")
    if outcome.not_evaluated:
        for plugin, reason in sorted(outcome.not_evaluated.items()):
            console.print(f"[yellow]{plugin}: {escape(reason)}[/yellow]")
    if node is not None:
        _render_node(console, exp, node)
        return
    plugins = [name for name in (outcome.nodes[0].filters if outcome.nodes else {})]
    table = Table(show_lines=False)
    table.add_column("nodes")
    table.add_column("first failure")
    for name in plugins:
        table.add_column(name, overflow="fold")
    if wide:
        groups: OrderedDict[object, list[NodeVerdict]] = OrderedDict((v.name, [v]) for v in outcome.nodes)
    else:
        groups = OrderedDict()
        for verdict in outcome.nodes:
            groups.setdefault(_signature(verdict), []).append(verdict)
    for members in groups.values():
        first = members[0]
        label = first.name if len(members) == 1 else f"{len(members):,} nodes (e.g. {first.name})"
        table.add_row(
            escape(label),
            escape(_summary_line(first)),
            *[_cell(first.filters[name]) for name in plugins],
        )
    console.print(table)


def _render_node(console: Console, exp: Explanation, node: str) -> None:
    from podwhy.errors import PodwhyError

    assert exp.outcome is not None
    verdict = next((v for v in exp.outcome.nodes if v.name == node), None)
    if verdict is None:
        raise PodwhyError(f"node {node!r} is not in the snapshot")
    console.print(f"[bold]Node[/bold] {escape(node)}: {'feasible' if verdict.feasible else 'not feasible'}")
    if verdict.first_failure is not None:
        console.print(f"kube-scheduler stops at {verdict.first_failure.plugin}: {escape(verdict.first_failure.message())}")
    if verdict.nominated_pods:
        console.print(
            "Nominated pods reserving room here: "
            + escape(", ".join(f"{pi.key} (priority {pi.priority})" for pi in verdict.nominated_pods))
        )
    for name, st in verdict.filters.items():
        console.print(f"  {name}: {escape(_cell(st))}")
        for ev in st.evidence:
            details = ", ".join(f"{k}={v}" for k, v in ev.data.items())
            console.print(f"      {escape(ev.kind)}: {escape(details)}")
