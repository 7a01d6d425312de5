"""The report's `kueue` object as text (table, -o wide) and markdown: the fate first, Kueue's own
message, a table per pod set × resource × flavor, who is ahead, what was not evaluated, then the
verified changes that would admit it, each command whole on a line of its own."""

from __future__ import annotations

from collections.abc import Callable

from msgspec import UNSET
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from podwhy.report.model import KueueReport, Report
from podwhy.report.render.layout import say
from podwhy.report.words.kueue import assumed_text, kueue_lines, suggestion_lines

# The table's columns: the narrow one, and -o wide's (the pod set's count and the check's mode).
HEADERS = ["Pod set", "Resource", "Flavor", "Needs", "Nominal", "Used", "Borrowable", "Available"]
WIDE_HEADERS = [*HEADERS, "Mode"]


def kueue_of(report: Report) -> KueueReport | None:
    return None if report.kueue is UNSET else report.kueue


def kueue_only(report: Report) -> bool:
    """A Job or Workload's report: Kueue's answer is all there is (no pod, no nodes)."""
    kueue = kueue_of(report)
    return kueue is not None and not kueue.target.startswith("Pod ")


def _rows(kueue: KueueReport, wide: bool) -> list[list[str]]:
    rows = []
    for ps in kueue.podSets:
        name = f"{ps.name} ×{ps.count}" if wide else ps.name
        for f in ps.resources:
            row = [name, f.resource, f.flavor, f.needed, f.nominal, f.used, f.borrowable, f.available]
            rows.append([*row, f.mode] if wide else row)
    return rows


def render_kueue(console: Console, kueue: KueueReport, wide: bool) -> None:
    """Escaped as every renderer escapes what it quotes (the report is made safe before)."""
    before, after = kueue_lines(kueue)
    say(console, f"[bold]{escape(before[0])}[/bold]", 0)
    for line in before[1:]:
        say(console, escape(line), 0)
    rows = _rows(kueue, wide)
    if rows:
        table = Table(show_lines=False)
        for c, header in enumerate(WIDE_HEADERS if wide else HEADERS):
            table.add_column(header, justify="left" if c < 3 else "right", no_wrap=c >= 3)
        for row in rows:
            table.add_row(*[escape(cell) for cell in row])
        console.print(table)
    for line in after:
        say(console, escape(line), 0)
    if assumed := assumed_text(kueue):
        say(console, f"[dim]{escape(assumed)}[/dim]", 0)
    suggestions = suggestion_lines(kueue)
    if suggestions:
        console.print("[bold]Suggestions[/bold] (each verified by recomputing Kueue's decision):")
    for words, commands in suggestions:
        say(console, escape(words), 2)
        for command in commands:
            console.print(f"      {escape(command)}", soft_wrap=True)


def _fenced(text: str) -> str:
    """TEXT as a fenced block, the fence longer than any backtick run in it."""
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}sh\n{text}\n{fence}"


def _markdown_suggestions(kueue: KueueReport, esc: Callable[[str], str]) -> list[str]:
    suggestions = suggestion_lines(kueue)
    if not suggestions:
        return []
    lines = ["**Suggestions** (each verified by recomputing Kueue's decision):", ""]
    for words, commands in suggestions:
        lines += [f"- {esc(words)}", ""]
        lines += [_fenced("\n".join(commands)), ""] if commands else []
    return lines


def markdown_lines(kueue: KueueReport, esc: Callable[[str], str]) -> list[str]:
    """The same in markdown; ESC escapes a table cell or a line (markdown.cell)."""
    before, after = kueue_lines(kueue)
    after += [assumed] if (assumed := assumed_text(kueue)) else []
    lines = [f"**{esc(before[0])}**", ""]
    lines += [f"> {esc(line)}" for line in before[1:]]
    lines += [""] if len(before) > 1 else []
    rows = _rows(kueue, wide=True)
    if rows:
        lines.append("| " + " | ".join(WIDE_HEADERS) + " |")
        lines.append("|" + "---|" * len(WIDE_HEADERS))
        lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
        lines.append("")
    lines += [f"- {esc(line.strip())}" for line in after]
    lines = [*lines, ""] if after else lines
    return lines + _markdown_suggestions(kueue, esc)
