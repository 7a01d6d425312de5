"""`-o markdown`: the reports as GitHub-flavoured Markdown, for a pull-request comment or a CI job
summary: a compact table first, the detail folded in `<details>`.

Cluster strings are escaped: a `|`, a `\\` or a newline cannot break a table, `<`, `>` and `&`
are written as entities, so no object name can open an HTML tag in the rendered comment, and no
@mention, link or image in cluster text renders as one (`cell`); control characters and bidi
overrides are escaped before (report/safe.py).
"""

from __future__ import annotations

from collections import defaultdict

from msgspec import UNSET

from podwhy.report.model import (
    CheckReport,
    CreateEventReport,
    NodeReport,
    PendingReplicas,
    PendingReport,
    Report,
    Suggestion,
    WorkloadReport,
)
from podwhy.report.render.check import check_summary
from podwhy.report.render.kueue import kueue_of, kueue_only, markdown_lines
from podwhy.report.render.layout import MAX_NAMES_IN_GROUP
from podwhy.report.render.notcreated import not_created_of, workload_of, workload_only
from podwhy.report.render.pending import no_pending_line, owners_text, pending_headline, pending_row
from podwhy.report.safe import made_safe
from podwhy.report.words.cells import why_cell
from podwhy.report.words.check import (
    displaced_lines,
    group_text,
    kueue_lines,
    not_checked_lines,
    placed_nodes_text,
    replica_text,
    rollout_lines,
)
from podwhy.report.words.fate import fate_text

# Replicas of a workload listed one per row in check's fold; a larger workload is said in short
# (a comment of every replica of a 1,000-replica Job would pass GitHub's 65,536 characters).
MAX_REPLICA_ROWS = 20

# What could make cluster text more than text in a rendered comment. A backslash is doubled
# first, so a `\\|` in the input cannot turn the escaped pipe back into a cell border. `](`, `][`
# and `]:` are every way `[...]` becomes a link or an image (inline, reference, definition,
# footnote): their `]` is escaped. An `@` is followed by a zero-width space, so no @user or
# @org/team is notified and no address becomes a mailto link; `://` and `www.` are written with
# an entity, so no bare address becomes a link. What renders reads the same.
_MARKDOWN = (
    ("\\", "\\\\"),
    ("&", "&amp;"),
    ("<", "&lt;"),
    (">", "&gt;"),
    ("|", "\\|"),
    ("](", "\\]("),
    ("][", "\\]["),
    ("]:", "\\]:"),
    ("@", "@&#8203;"),
    ("://", ":&#47;/"),
    ("www.", "www&#46;"),
    ("\r", ""),
    ("\n", "<br>"),
)


def cell(text: str) -> str:
    """TEXT safe inside a table cell (and in any Markdown line)."""
    for old, new in _MARKDOWN:
        text = text.replace(old, new)
    return text


def _code(text: str) -> str:
    """TEXT as a fenced block (commands to paste), the fence longer than any backtick run in it."""
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}sh\n{text}\n{fence}"


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return lines


def _details(summary: str, body: list[str]) -> list[str]:
    return ["<details>", f"<summary>{cell(summary)}</summary>", "", *body, "", "</details>"]


def _warnings(warnings: list[str]) -> list[str]:
    return ["", *[f"> ⚠️ {cell(w)}" for w in warnings]] if warnings else []


def render_check(report: CheckReport) -> str:
    report = made_safe(report)
    # The verdict is the first line: a job summary or PR comment shows it first.
    lines = [f"### podwhy check: {cell(check_summary(report))}", ""]
    rows = []
    for w in report.workloads:
        # Each message, then what keeps its replicas off the nodes, a line per cause (as explain's).
        whys = sorted({_why(g) for g in w.pendingGroups if g.message})
        rows.append([w.key, f"{w.placed}/{len(w.replicas)}", str(w.pending), _joined(whys)])
    lines += _table(["Workload", "Placed", "Pending", "Why"], rows)
    for line in [*not_checked_lines(report), *rollout_lines(report), *kueue_lines(report), *displaced_lines(report)]:
        lines += ["", cell(line)]
    lines += _policy_suggestions(
        [s for w in report.workloads for s in w.suggestions or []],
        [f"{w.key}: {note}" for w in report.workloads for note in w.notes or []],
    )
    lines += _warnings(report.warnings)
    summarised = any(len(w.replicas) > MAX_REPLICA_ROWS for w in report.workloads)
    title = f"Replicas (a workload of more than {MAX_REPLICA_ROWS} in short; -o wide and -o json list every one)"
    lines += ["", *_details(title if summarised else "Every replica", _replica_rows(report.workloads))]
    lines += ["", f"_Placed {cell(report.order)}; {cell(report.tieBreak)}._"]
    return "\n".join(lines) + "\n"


def _policy_suggestions(suggestions: list[Suggestion], notes: list[str]) -> list[str]:
    """The satisfyPolicy suggestions folded, each with its command, and what was not suggested."""
    from podwhy.report.words.notcreated import VERIFIED_BY_ADMISSION

    body: list[str] = []
    for s in suggestions:
        body += [f"- {cell(s.summary)}", "", *([_code(s.command), ""] if s.command else [])]
    lines = ["", *_details(f"Suggestions ({VERIFIED_BY_ADMISSION})", body)] if body else []
    return lines + [f"> Not suggested: {cell(note)}" for note in notes]


def _why(group: PendingReplicas) -> str:
    """Pending replicas' message, then what keeps them off the nodes, a line per cause (as explain's)."""
    return group_text(group) + "".join(f"\n· {c.text}" for c in group.causes)


def _joined(whys: list[str]) -> str:
    """Messages in one cell: on a line each once one has causes under it, else after "; "."""
    return ("\n" if any("\n" in why for why in whys) else "; ").join(whys)


def _replica_rows(workloads: list[WorkloadReport]) -> list[str]:
    """A row per replica; a workload of more replicas than a comment holds well, a row for its
    placed replicas (a few of their nodes named) and one per group of alike Pending replicas."""
    rows: list[list[str]] = []
    for w in workloads:
        if len(w.replicas) <= MAX_REPLICA_ROWS:
            rows += [[w.key, r.name, r.node or "Pending", replica_text(r)] for r in w.replicas]
            continue
        placed = [r.node for r in w.replicas if r.node is not None]
        if placed:
            rows.append([w.key, f"{len(placed)} placed", placed_nodes_text(placed), ""])
        for group in w.pendingGroups:
            shown = group.replicas[:MAX_NAMES_IN_GROUP]
            names = ", ".join(shown) + (", …" if len(group.replicas) > len(shown) else "")
            count = len(group.replicas)
            rows.append([w.key, names if count == 1 else f"{count} replicas: {names}", "Pending", _why(group)])
    return _table(["Workload", "Replica", "Node", "Why Pending"], rows)


def render_pending(report: PendingReport) -> str:
    """What the table says: the headline, the summary by cause, then the groups (groups alike but
    for their owner together); the suggestions' commands and every pod folded."""
    report = made_safe(report)
    if not report.total:
        lines = ["### podwhy pending", "", f"**{cell(no_pending_line(report))}**"]
        if report.scope.allNamespaces and report.scope.elsewhere:
            lines += ["", _code(report.scope.allNamespaces)]
        return "\n".join([*lines, *_not_created(report), *_kueue_pending(report)]) + "\n"
    lines = ["### podwhy pending", "", f"**{cell(pending_headline(report))}**", ""]
    causes = [
        [
            f"{i}. " + "\n".join(c.blocking or [c.cause]),
            f"{c.count} {c.verdict}",
            owners_text(c.owners, c.bare),
            c.nodes.note if c.nodes is not None else "",
            "\n".join([f"→ {c.remedy}" if c.remedy else "", *c.commands]).strip(),
        ]
        for i, c in enumerate(report.summary, 1)
    ]
    lines += _table(["Cause", "Pods", "Owners", "Nodes to hold them all", "Next step"], causes)
    lines += _not_created(report)
    lines += _kueue_pending(report)
    said: set[int] = set()
    rows = []
    suggested: list[tuple[str, str, str]] = []
    for alike in report.shown_groups():
        who, verdict, why, commands = pending_row(report, alike, said, wide=False)
        rows.append([who.partition("\n")[0], verdict, why])
        owner = alike[0].owner or alike[0].pods[0]
        suggested += [(owner, summary, command) for summary, command in commands]
    lines += ["", *_table(["Pods", "Verdict", "Why"], rows)]
    if suggested:
        body: list[str] = []
        for owner, summary, command in suggested:
            body += [f"- {cell(owner)}: {cell(summary)}", "", _code(command), ""]
        lines += ["", *_details("Suggestions", body)]
    pods = [[p, str(g.verdict)] for g in report.groups for p in g.pods]
    lines += ["", *_details("Every Pending pod", _table(["Pod", "Verdict"], pods))]
    if report.autoscalers:
        lines += ["", f"Autoscaling: {cell(report.autoscalers)}"]
    lines += _warnings(report.warnings)
    return "\n".join(lines) + "\n"


def _events_table(events: list[CreateEventReport]) -> list[str]:
    """A controller's FailedCreate events, newest first, each message verbatim."""
    rows = [[e.object, str(e.count), e.lastSeen or "", e.message] for e in events]
    return _table(["Object", "Count", "Last seen", "FailedCreate"], rows)


def _findings(events: list[CreateEventReport]) -> list[str]:
    """What podwhy finds of the policies and webhooks the events name, each once."""
    found = list(dict.fromkeys(x.text for e in events for x in (e.refusal.policy, e.refusal.webhook) if x is not None))
    return ["", *(f"- {cell(text)}" for text in found)] if found else []


def _not_created(report: PendingReport) -> list[str]:
    """The workloads whose pods are not being created, each with its newest refusal."""
    workloads = not_created_of(report)
    if not workloads:
        return []
    from podwhy.report.words.notcreated import not_created_cause

    rows = [
        [
            w.workload,
            str(w.events[0].count),
            w.events[0].message,
            w.events[0].refusal.policy.text
            if w.events[0].refusal.policy is not None
            else w.events[0].refusal.webhook.text
            if w.events[0].refusal.webhook is not None
            else "",
        ]
        for w in workloads
        if w.events
    ]
    title = f"**{cell(not_created_cause(len(workloads)))}**"
    suggested = _policy_suggestions(
        [s for w in workloads for s in w.suggestions or []],
        [f"{w.workload}: {note}" for w in workloads for note in w.notes or []],
    )
    return ["", title, "", *_table(["Workload", "Count", "Newest FailedCreate", "Found"], rows), *suggested]


def _kueue_pending(report: PendingReport) -> list[str]:
    """What Kueue holds, by ClusterQueue and cause (nothing without Kueue's objects)."""
    if report.kueue is UNSET or not report.kueue:
        return []
    rows = [[g.clusterQueue, g.cause, str(g.count), ", ".join(g.targets), g.example] for g in report.kueue]
    return ["", "**Kueue**", "", *_table(["ClusterQueue", "Cause", "Count", "Held", "First"], rows)]


def render_explain(report: Report) -> str:
    report = made_safe(report)
    kueue = kueue_of(report)
    if kueue is not None and kueue_only(report):
        lines = ["### podwhy explain", "", *markdown_lines(kueue, cell), *_warnings(report.warnings)]
        return "\n".join(lines).rstrip("\n") + "\n"
    workload = workload_of(report)
    if workload is not None and workload_only(report):
        lines = ["### podwhy explain", "", f"**{cell(workload.summary)}**"]
        if workload.events:
            lines += ["", *_events_table(workload.events), *_findings(workload.events)]
        lines += _policy_suggestions(report.suggestions, workload.notes or [])
        return "\n".join([*lines, *_warnings(report.warnings)]) + "\n"
    pod = f"{report.pod.namespace}/{report.pod.name}"
    fate = fate_text(report)
    lines = ["### podwhy explain", "", *(markdown_lines(kueue, cell) if kueue is not None else [])]
    lines += [f"**{cell(pod)}: {report.verdict}{f' — {cell(fate)}' if fate else ''}**", ""]
    if workload is not None and workload.explainedText:
        lines += [cell(workload.explainedText), ""]
    if report.message:
        lines += [f"> {cell(report.message)}", ""]
    if report.causes:
        lines += [*(f"- {cell(cause.text)}" for cause in report.causes), ""]
    # Nodes grouped by where kube-scheduler stopped on them.
    stopped: dict[tuple[str, ...], list[NodeReport]] = defaultdict(list)
    for node in report.nodes:
        failure = node.firstFailure
        stopped[() if failure is None else (failure.plugin, *failure.reasons)].append(node)
    rows = []
    for key, nodes in stopped.items():
        names = [n.name for n in nodes]
        # In short with the group's numbers, as the table says it ("cpu: needs 2, free 1400m").
        statuses = [n.filter(n.firstFailure.plugin) or n.firstFailure for n in nodes if n.firstFailure is not None]
        facts = why_cell([statuses]) if key else []
        rows.append(
            [f"{len(names)} ({', '.join(names[:5])}{', ...' if len(names) > 5 else ''})", "; ".join(facts) or "fits"]
        )
    lines += _table(["Nodes", "Where the scheduler stopped"], rows)
    if report.autoscaling is not None:
        lines += ["", f"**Autoscaling:** {cell(report.autoscaling.summary)}"]
        groups = [[f"{g.group} ({g.autoscaler})", g.outcome, g.text] for g in report.autoscaling.groups]
        if groups:
            lines += ["", *_table(["Node group", "Outcome", "Why"], groups)]
    if report.suggestions:
        body: list[str] = []
        for s in report.suggestions:
            first, *each = s.summary.split("\n")
            # One nested item per evicted pod.
            victims = [f"  - {cell(line.removeprefix('· '))}" for line in each]
            body += [f"- {cell(first)}", *victims, "", *([_code(s.command), ""] if s.command else [])]
        lines += ["", *_details(f"{len(report.suggestions)} suggestions, each verified", body)]
    lines += _warnings(report.warnings)
    return "\n".join(lines) + "\n"
