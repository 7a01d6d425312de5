"""Human output: the scheduler's message, then nodes x plugins grouped by identical verdicts.

Renders the report model and nothing else. The only module that imports rich. Every
cluster-sourced string is escaped before rich renders it, so a label like "[bold]" prints
as itself, and made safe for a terminal first (report/safe.py: no control character or bidi
override reaches it).
"""

from __future__ import annotations

import os
import re
import sys
from collections import OrderedDict
from datetime import datetime
from typing import TextIO

import msgspec
from msgspec import UnsetType
from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from podwhy.framework.evidence import AnyEvidence, ResourceEvidence
from podwhy.report.model import (
    AutoscalingReport,
    CheckReport,
    NodeReport,
    PendingGroup,
    PendingReplicas,
    PendingReport,
    PluginStatus,
    ReplicaReport,
    Report,
    SchedulerWord,
    ScoreEntry,
    StatusName,
    TooSmallCause,
    WorkloadReport,
)
from podwhy.report.safe import made_safe, safe_text
from podwhy.report.words.blocking import consumers_text
from podwhy.report.words.cells import column_header, why_cell
from podwhy.report.words.check import (
    displaced_lines,
    group_text,
    not_checked_lines,
    replica_text,
    rollout_line,
    rollout_lines,
)
from podwhy.report.words.fate import fate_text
from podwhy.report.words.kinds import add_kinds_text
from podwhy.report.words.placement import placed_nodes_text
from podwhy.snapshot.live import LIVE_SOURCE
from podwhy.verdict import Verdict

LEGEND = "✓ passes   ✗ rejects   – not needed for this pod (Skip)   ? not evaluated   ! error"
MAX_NAMES_IN_GROUP = 3
RANKING_ROWS = 10
# Output to a pipe or file (CI logs) gets this many columns unless COLUMNS says otherwise,
# rather than rich's 80, which would squeeze a wide verdict table.
PIPE_WIDTH = 120
# Below this many columns tables turn into lists: one line per group, then one per reason.
NARROW_WIDTH = 100
# Details shown under a cause said first (explain) or a group's cause (pending, without -o wide).
MAX_DETAILS = 3


# A command to copy inside a sentence, as the words write it: `kubectl ...` or `podwhy ...` ending
# a clause (they put it after a colon, so that what comes before it reads whole). One that a
# word follows ("`kubectl apply` fails") names a command, and stays in the sentence.
_COMMAND = re.compile(r"`((?:kubectl|podwhy) [^`]*)`(?=[,;.)]|$)")


def _say(console: Console, markup: str, indent: int) -> None:
    """A line indented by `indent`, its wrapped lines too (between words, without trailing
    blanks). A command in it (`kubectl ...`, `podwhy ...`) is printed whole on a line of its own,
    two columns further in, so that it can be copied: a terminal may cut it, never the wrapping.
    The markup is read first, so that its styles span the pieces whatever the text holds."""
    text = Text.from_markup(markup)
    plain = text.plain
    start = 0
    for found in _COMMAND.finditer(plain):
        _say_words(console, text, start, found.start(), indent, after_command=start > 0)
        console.print(Text(" " * (indent + 2)) + text[found.start(1) : found.end(1)], soft_wrap=True)
        start = found.end()
    _say_words(console, text, start, len(plain), indent, after_command=start > 0)


def _say_words(console: Console, text: Text, start: int, end: int, indent: int, after_command: bool) -> None:
    """TEXT[START:END] wrapped at `indent`; after a command, without the punctuation that closed it."""
    plain = text.plain
    skip = " ,;)" if after_command else " "
    while start < end and plain[start] in skip:
        start += 1
    while end > start and plain[end - 1] == " ":
        end -= 1
    if not plain[start:end].strip(",;.)"):
        return
    for line in text[start:end].wrap(console, max(console.width - indent, 20)):
        line.rstrip()
        console.print(Text(" " * indent) + line, soft_wrap=True)


def _one_line(header: str) -> str:
    return header.replace("\n", " ")


def narrow(console: Console) -> bool:
    return console.width < NARROW_WIDTH


def _longest_token(text: str) -> int:
    return max((cell_len(t) for t in text.split()), default=0)


def _longest_line(text: str) -> int:
    return max((cell_len(line) for line in text.splitlines()), default=0)


def fit_widths(
    width: int, cells: list[list[str]], fixed: frozenset[int] = frozenset(), floor: tuple[int, ...] = ()
) -> list[int] | None:
    """Content widths for the columns of a boxed table `width` columns wide (each column's
    cells, header first): a column is as wide as its longest line, the widest are narrowed
    first, never below their longest word (so rich wraps between words and never inside a
    name); `fixed` columns never narrow. None when the words do not fit: the caller then
    renders a list instead. `floor`: the least width of the first columns, when there is room."""
    room = width - (3 * len(cells) + 1)  # a border before each column and after the last, padding 1 each side
    widths = [max(1, max((_longest_line(c) for c in col), default=1)) for col in cells]
    widths = [max(w, floor[i]) if i < len(floor) else w for i, w in enumerate(widths)]
    minimum = [
        w if i in fixed else max(1, max((_longest_token(c) for c in col), default=1))
        for i, (w, col) in enumerate(zip(widths, cells, strict=True))
    ]
    if sum(minimum) > room:
        return None
    excess = sum(widths) - room
    while excess > 0:
        i = max((j for j in range(len(widths)) if widths[j] > minimum[j]), key=lambda j: widths[j])
        widths[i] -= 1
        excess -= 1
    return widths


class _StdoutConsole(Console):
    """A reader that stops early (`podwhy ... | head`) is the command line's to handle (it keeps
    the verdict's exit code); rich's own handling would exit with 1."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError


# Blanks at the end of a line, before its newline and any colour codes that close it.
_TRAILING_BLANKS = re.compile(r"[ \t]+((?:\x1b\[[0-9;]*m)*)(?=\n)")


class _NoTrailingBlanks:
    """Stdout without blanks at the ends of lines (rich pads wrapped text to the width): what is
    piped or pasted carries no trailing spaces. Blanks at the end of a write wait for the next
    one, which tells whether a line ends there."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._held = ""

    def write(self, text: str) -> int:
        text = _TRAILING_BLANKS.sub(r"\1", self._held + text)
        body = text.rstrip(" \t")
        self._held = text[len(body) :]
        self._stream.write(body)
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self._stream, "encoding", "utf-8") or "utf-8"


def make_console() -> Console:
    """A console for stdout. rich honours NO_COLOR and COLUMNS itself; only the width of a
    pipe or file (CI logs) differs from rich's default."""
    width = None
    if not sys.stdout.isatty() and "COLUMNS" not in os.environ:
        width = PIPE_WIDTH
    return _StdoutConsole(file=_NoTrailingBlanks(sys.stdout), width=width, highlight=False)  # type: ignore[arg-type]


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
    """Plugins podwhy could not evaluate for this pod, with the reason."""
    out: dict[str, str] = {}
    statuses = [*report.preFilter, *(report.nodes[0].filters if report.nodes else [])]
    for st in statuses:
        if st.status == StatusName.NOT_EVALUATED and st.reasons:
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
        _say(console, f"· {escape(detail)}", 2)
    if len(pending.details) > MAX_DETAILS:
        _say(console, f"· … {len(pending.details) - MAX_DETAILS} more (-o json shows all)", 2)


def render_table(
    report: Report, wide: bool = False, node: str | None = None, console: Console | None = None, verbose: bool = False
) -> None:
    report, node = made_safe(report), None if node is None else safe_text(node)
    console = console or make_console()
    pod = report.pod
    fate = fate_text(report)
    # The verdict and the pod's fate first; the priority and the release emulated (with where it
    # was learnt, long on real dumps) on a second, dim line.
    _say(
        console,
        f"[bold]Pod[/bold] {escape(pod.namespace)}/{escape(pod.name)} · [bold]{report.verdict}"
        + (f" — {escape(fate)}" if fate else "")
        + "[/bold]",
        0,
    )
    _say(console, f"[dim]priority {pod.priority}{scheduler_version_words(report.scheduler)}[/dim]", 0)
    if report.notStorable:
        _say(
            console,
            f"[yellow]The API server would not store this pod as given ({escape(report.notStorable)}):"
            " the verdict is what kube-scheduler does with it as given[/yellow]",
            0,
        )
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
        _hanging(console, f"· {escape(cause.text)}", 2)
        if verbose and isinstance(cause, TooSmallCause):
            _say(console, escape(closest_node_text(report, cause)), 4)
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
    all_plugins = [st.plugin for st in report.nodes[0].filters] if report.nodes else []
    # Plugins that skip this pod on every node get no column, only a mention.
    skipped = [
        name for i, name in enumerate(all_plugins) if all(n.filters[i].status == StatusName.SKIP for n in report.nodes)
    ]
    columns = [(i, name) for i, name in enumerate(all_plugins) if name not in skipped]
    plugin_names = wide or verbose  # -v names the plugins, as -o wide does
    if skipped:
        said = ", ".join(_one_line(column_header(name, plugin_names)) for name in skipped)
        _say(console, f"Not needed for this pod (Skip): {escape(said)}", 0)
    groups: OrderedDict[object, list[NodeReport]] = OrderedDict()
    for verdict in report.nodes:
        key: object = verdict.name if wide else _signature(verdict)
        groups.setdefault(key, []).append(verdict)
    # Feasible groups first, then the largest groups.
    ordered = sorted(groups.values(), key=lambda members: (not members[0].feasible, -len(members)))
    rows = [
        [_group_label(members), *[_mark(members[0].filters[i]) for i, _ in columns], _why(members, wide)]
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
            _say(console, f"✗ {escape(line)}", 2)
        for st in first.filters:
            if st.status == StatusName.NOT_EVALUATED:
                _say(console, f"? {st.plugin}: not evaluated", 2)


def render_autoscaling(console: Console, autoscaling: AutoscalingReport | None, indent: int = 0) -> None:
    """Will a node come: the autoscalers' view (what each group can do, what each last said)."""
    if autoscaling is None:
        return
    _say(console, f"[bold]Autoscaling[/bold]: {escape(autoscaling.summary)}", indent)
    for g in autoscaling.groups:
        mark = "✓" if g.outcome == "CanAdd" else ("?" if g.outcome == "NotEvaluated" else "✗")
        _say(console, f"{mark} {escape(g.group)} ({escape(g.autoscaler)}): {escape(g.text)}", indent + 2)
    for line in autoscaling.excluded:
        _say(console, f"✗ {escape(line)}", indent + 2)
    for said in autoscaling.said:
        agrees = "" if said.agrees is None else (" (agrees)" if said.agrees else " (differs from podwhy's reading)")
        when = f" at {said.time}" if said.time else ""
        _say(
            console,
            f"{escape(said.autoscaler)} said{when}: {escape(said.reason)}: {escape(said.message)}{agrees}",
            indent + 2,
        )
    for line in autoscaling.notEvaluated:
        if line not in autoscaling.summary:  # said once
            _say(console, f"? {escape(line)}", indent + 2)


def autoscaling_line(autoscaling: AutoscalingReport) -> str:
    """The autoscaling section in one line (a pending group's): its summary and each group's reason."""
    groups = "; ".join(f"{g.group}: {g.text}" for g in autoscaling.groups if g.outcome != "CanAdd")
    return f"autoscaling: {autoscaling.summary}" + (f" ({groups})" if groups and autoscaling.status != "Coming" else "")


def render_api_server_defaults(console: Console, report: Report) -> None:
    """What the API server fills in on the manifest's pod before the scheduler sees it."""
    if not isinstance(report.apiServerDefaults, list) or not report.apiServerDefaults:
        return
    said = "; ".join(f"{d.field}: {d.value} ({d.why})" for d in report.apiServerDefaults)
    _say(console, escape(f"The API server fills in (defaulting), and the scheduler reads: {said}"), 0)


def render_suggestions(console: Console, report: Report) -> None:
    if not report.suggestions:
        return
    console.print("[bold]Suggestions[/bold] (each verified by re-running the scheduler's plugins):")
    for s in report.suggestions:
        first, *each = s.summary.split("\n")
        _hanging(console, f"• {escape(first)}", 2)
        for line in each:  # one per evicted pod ("· ..."), under the suggestion
            _hanging(console, escape(line), 4)
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


def taken_at(report: Report) -> datetime | None:
    """When the report's snapshot was taken (live, or as `podwhy snapshot` recorded it)."""
    text = report.snapshot.takenAt
    if not isinstance(text, str):
        return None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else None


def age_suffix(report: Report) -> str:
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
    _say(console, f"[yellow]Inconclusive: {escape(report.notEvaluated)}[/yellow]", 0)
    if report.lackingKinds:
        _say(console, escape(add_kinds_text(report.lackingKinds)), 2)


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
        _say(
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
        _say(console, f"PodScheduled condition: {escape(word.condition)}", 2)
    if event is not None and event.message != word.condition:
        _say(console, f"FailedScheduling event: {escape(event.message)}", 2)
    console.print("Usual causes:")
    for cause in word.causes:
        _say(console, f"· {escape(cause)}", 2)


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
        weights = ", ".join(f"{_one_line(column_header(ps.plugin, wide))} ×{ps.weight}" for _, ps in columns)
        console.print(escape(title) + (f"; weights: {weights}" if weights else "") + ":")
        for line in body:
            points = ", ".join(
                f"{_one_line(column_header(ps.plugin, wide))} {v}"
                for (_, ps), v in zip(columns, line[1:-1], strict=True)
            )
            _say(console, f"{escape(line[0])}: total {line[-1]}" + (f" = {escape(points)}" if points else ""), 2)
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
            _say(console, f"{escape(pi.pod)} (priority {pi.priority}; requests {escape(requests) or 'nothing'})", 2)
        if verdict.feasibleWithoutNominated and not verdict.feasible:
            console.print("Without that reserved room the pod would fit here.")
    if narrow(console):
        for st in verdict.filters:
            console.print(f"{_mark(st)} {st.plugin}: {st.status}")
            for line in [*st.reasons, *_evidence(st.evidence)]:
                _say(console, f"{escape(line)}", 4)
    else:
        table = Table(show_lines=True)
        table.add_column("Plugin", no_wrap=True)
        table.add_column("", justify="center")
        table.add_column("Status", no_wrap=True)
        table.add_column("Details", overflow="fold")
        for st in verdict.filters:
            details = [*st.reasons, *_evidence(st.evidence)]
            table.add_row(st.plugin, _mark(st), st.status, escape("\n".join(details)))
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
                _say(console, escape(how), 4)
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
    """ "187 Pending pods in namespace shop, 187 stuck, in 9 groups" (markup-free)."""
    return (
        f"{report.total} Pending pod{'s' if report.total != 1 else ''} {pending_scope(report)}, "
        f"{report.stuck} stuck{f', {report.waiting} waiting for a node' if report.waiting else ''}, "
        f"in {len(report.groups)} group{'s' if len(report.groups) != 1 else ''}"
    )


def render_pending_summary(console: Console, report: PendingReport) -> None:
    """The summary by cause, before the groups: its verdict, pods and owners, its next step (and
    the commands for it, whole), what keeps them off every node in plain words (else the cause),
    and the nodes that would hold them all. Numbers are right-aligned (" 9.", "10."), so that
    every cause's lines start in one column."""
    console.print("[bold]By cause[/bold]:")
    hang = len(f"{len(report.summary)}.") + 1
    for i, cause in enumerate(report.summary, 1):
        who = f"{_pods(cause.count)} · {cause.verdict} · {owners_text(cause.owners, cause.bare)}".rstrip(" ·")
        _bullet_numbered(console, f"{i}.".rjust(hang - 1), escape(who))
        if cause.remedy:
            _hanging(console, f"→ {escape(cause.remedy)}", hang)
        for command in cause.commands:
            # Pasted whole: never wrapped.
            console.print(" " * (hang + 2) + escape(command), soft_wrap=True)
        for line in cause.blocking or [cause.cause]:
            _hanging(console, f"{'· ' if cause.blocking else ''}{escape(line)}", hang)
        if cause.nodes is not None:
            _hanging(console, f"⇒ nodes to hold them all: {escape(cause.nodes.note)}", hang)


def _bullet_numbered(console: Console, number: str, markup: str) -> None:
    """ "1. text", its wrapped lines hanging under the text (a number kept with what it counts)."""
    hang = len(number) + 1
    for i, line in enumerate(Text.from_markup(_glued(markup)).wrap(console, max(console.width - hang, 20))):
        line.rstrip()
        console.print(Text((number + " ") if i == 0 else " " * hang) + _unglued(line), soft_wrap=True)


# What opens a line of `pending`'s lists: a detail, a next step, a sizing, an autoscaler's view.
BULLETS = ("· ", "• ", "→ ", "⇒ ", "⇏ ", "⟳ ")
# Holds a number to the words it counts while lines are wrapped ("6 of default/web", "2 pods"):
# one cell wide and no blank, so that no line ends with a number; a blank again once wrapped.
GLUE = "\ue000"
_COUNTED = re.compile(r"(?<![\w./:-])(\d+) (of )?(?=[^\s\d])")


def _glued(text: str) -> str:
    return _COUNTED.sub(lambda m: m.group(1) + GLUE + ("of" + GLUE if m.group(2) else ""), text)


def _unglued(line: Text) -> Text:
    if GLUE not in line.plain:
        return line
    return Text(line.plain.replace(GLUE, " "), style=line.style, spans=list(line.spans), end=line.end)


def _wrapped(console: Console, markup: str, indent: int, width: int) -> list[Text]:
    """A line indented by `indent`, wrapped between words within `width`: one that opens with a
    bullet ("· needs cpu 2; ...") has its wrapped lines hang under the text after the bullet,
    never under the bullet; a number stays on the line of what it counts."""
    text = Text.from_markup(_glued(markup))
    bullet = text.plain[:2] if text.plain[:2] in BULLETS else ""
    body = text[len(bullet) :] if bullet else text
    hang = indent + len(bullet)
    out = []
    for i, line in enumerate(body.wrap(console, max(width - hang, 20 if width >= 20 + hang else 1))):
        line.rstrip()
        lead = " " * indent + bullet if i == 0 else " " * hang
        out.append(Text(lead) + _unglued(line))
    return out


def _hanging(console: Console, markup: str, indent: int) -> None:
    for line in _wrapped(console, markup, indent, console.width):
        console.print(line, soft_wrap=True)


def _cell(console: Console, plain: str, width: int) -> Text:
    """A table cell's text wrapped as the lists wrap it (`_wrapped`), to the column's width."""
    lines = [line for part in plain.split("\n") for line in _wrapped(console, escape(part), 0, width)]
    return Text("\n").join(lines)


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
        return
    pods, _, rest = pending_headline(report).partition(" Pending ")
    console.print(f"[bold]{pods} Pending {escape(rest.split(' ', 1)[0])}[/bold] {escape(rest.split(' ', 1)[1])}")
    render_pending_summary(console, report)
    said: set[int] = set()
    rows = [pending_row(report, alike, said, wide) for alike in report.shown_groups()]
    cells = [
        ["Pods", *[_glued(r[0]) for r in rows]],
        ["Verdict", *[r[1] for r in rows]],
        # A command's words are not measured: it is pasted whole, never read across a column.
        ["Why", *[_glued(r[2] + "".join(f"\n⇒ {summary}" for summary, _ in r[3])) for r in rows]],
    ]
    widths = None if narrow(console) else fit_widths(console.width, cells, frozenset({1}), floor=(14,))
    if widths is None:
        console.print("[bold]Groups[/bold]:")
        for who, verdict, why, commands in rows:
            first, _, pods = who.partition("\n")
            _hanging(console, f"[bold]{escape(first)}[/bold] · {verdict}", 0)
            for line in pods.splitlines():
                _say(console, f"{escape(line)}", 2)
            for line in why.splitlines():
                _hanging(console, f"{escape(line)}", 2)
            for summary, command in commands:
                _hanging(console, f"⇒ {escape(summary)}", 2)
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
            parts = [_cell(console, why, widths[2])]
            for summary, command in commands:
                parts.append(_cell(console, f"⇒ {summary} (command below)", widths[2]))
                below.append((who.partition("\n")[0], command))
            table.add_row(_cell(console, who, widths[0]), verdict, Text("\n").join(parts))
        console.print(table)
        if below:
            console.print("[bold]Commands[/bold] (each whole, to paste):")
            for who, command in below:
                console.print(f"  # {escape(who)}", soft_wrap=True)
                console.print(f"  {escape(command)}", soft_wrap=True)
    if report.autoscalers:
        # The caveat of every "add nodes" above, said once.
        _say(console, f"Autoscaling: {escape(report.autoscalers)}", 0)
    console.print("podwhy explain NAMESPACE/NAME shows one pod node by node.")


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
    for line in [*not_checked_lines(report), *rollout_lines(report)]:
        _say(console, escape(line), 0)
    for line in displaced_lines(report):
        _say(console, escape(line), 0)
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
            _say(console, f"{escape(replica.name)} → {escape(_placed_node(replica))}", 2)
            if replica.message:
                _say(console, f"{escape(replica_text(replica))}", 4)
            if replica.node is None:
                _causes(console, group_of.get(replica.name))
        for node_name, why in workload.ineligibleNodes.items():
            _say(console, f"{escape(node_name)}: not run here by its controller: {escape(why)}", 2)
        return
    if placed:
        _say(console, f"{len(placed)} placed on {escape(_nodes_count(placed))}", 2)
    for members, group in _pending_rows(workload):
        where = _pending_where(members)
        _say(console, f"{len(members)} {escape(where)}: {escape(_replica_names(members))}", 2)
        if group.message:
            _say(console, f"{escape(group_text(group))}", 4)
        _causes(console, group)


def _causes(console: Console, group: PendingReplicas | None) -> None:
    """What keeps Pending replicas off the nodes, under their message, as explain says it."""
    for cause in group.causes if group is not None else []:
        _hanging(console, f"· {escape(cause.text)}", 4)
