"""Where podwhy's words go: stdout for the results, stderr for errors, warnings and what -v says."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, NoReturn, TextIO

import typer

from podwhy.cli.options import Output
from podwhy.errors import PodwhyError, one_line
from podwhy.model import shared

if TYPE_CHECKING:
    from podwhy.report.model import CheckReport, PendingReport, Report, SnapshotSummary


def stderr_width() -> int | None:
    """The width to wrap messages on stderr to: its terminal's (COLUMNS when set, as rich reads
    it), or None when stderr is not a terminal (piped, redirected: one line per message)."""
    try:
        if not sys.stderr.isatty():
            return None
        columns = os.environ.get("COLUMNS", "")
        return (
            int(columns)
            if columns.isdigit() and int(columns) > 0
            else os.get_terminal_size(sys.stderr.fileno()).columns
        )
    except (AttributeError, OSError, ValueError):
        return None


def say(line: str) -> None:
    """One message (an error, a warning, what -v says) on stderr: one line, wrapped at word
    boundaries to the terminal's width when stderr is one (report/render/stderr.py)."""
    width = stderr_width()
    if width is not None:
        from podwhy.report.render.stderr import wrapped

        line = "\n".join(wrapped(line, width))
    print(line, file=sys.stderr)


def write_structured(report: Report | PendingReport | CheckReport, output: Output) -> bool:
    """Write -o json|yaml to stdout; False for the table outputs."""
    from podwhy.report import model
    from podwhy.report.safe import json_escaped, yaml_text

    if isinstance(report, model.Report) and output in (Output.json, Output.yaml):
        _write_explanation(report, output)
        return True
    if output == Output.json:
        sys.stdout.buffer.write(json_escaped(model.encode_json(report)) + b"\n")
        sys.stdout.flush()
        return True
    if output == Output.yaml:
        sys.stdout.write(yaml_text(model.to_builtins(report)))
        return True
    if output == Output.markdown:
        from podwhy.report.render import markdown

        if isinstance(report, model.CheckReport):
            sys.stdout.write(markdown.render_check(report))
        elif isinstance(report, model.PendingReport):
            sys.stdout.write(markdown.render_pending(report))
        else:
            sys.stdout.write(markdown.render_explain(report))
        return True
    return False


def _write_explanation(report: Report, output: Output) -> None:
    """explain's -o json|yaml, written entry by entry (report/streamed.py): the same bytes as the
    whole report encoded at once, never all of them in memory."""
    from podwhy.report.streamed import json_chunks, yaml_chunks

    if output == Output.json:
        out = sys.stdout.buffer
        for chunk in json_chunks(report):
            out.write(chunk)
    else:
        for text in yaml_chunks(report):
            sys.stdout.write(text)
    sys.stdout.flush()


def stdout_to_devnull(stream: TextIO | None = None) -> None:
    """After a reader closed stdout (or STREAM): point it at /dev/null, so the interpreter's final
    flush of what is still buffered does not fail (Python's docs, "Note on SIGPIPE")."""
    try:
        fd = (stream or sys.stdout).fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test's capture): nothing flushes at exit
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


# podwhy changed, in place, the empty list or map many objects share (podwhy/model/shared.py).
SHARED_CHANGED = "podwhy changed a value its snapshot's objects share, so this answer is not vouched for"


def emit(exit_code: int, write: Callable[[], None], warnings: Iterable[str] = ()) -> NoReturn:
    """Write the results to stdout, the warnings to stderr, and exit with the verdict's code. A
    reader that stops early (`podwhy ... | head`) changes neither: no traceback, same exit code.
    Nothing is written when the answer was computed over a changed shared empty value."""
    if not shared.intact():
        raise PodwhyError(SHARED_CHANGED, hint="run again with --debug and report it as a bug")
    try:
        write()
        sys.stdout.flush()
    except BrokenPipeError:
        stdout_to_devnull()
    try:
        for warning in warnings:
            # A warning can quote input (a name, a file's text): one line, nothing raw from it.
            say(f"podwhy: warning: {one_line(warning)}")
    except BrokenPipeError:  # `2>&1 | head`: stderr went to the same reader
        stdout_to_devnull(sys.stderr)
    raise typer.Exit(exit_code)


def print_loaded(snap: SnapshotSummary) -> None:
    """-v: what the snapshot held and what of it was skipped, on stderr."""
    from podwhy.snapshot.source import input_names

    sources = one_line(input_names(snap.sources))
    say(f"loaded {snap.nodes} nodes, {snap.pods} pods from {sources}")
    if snap.ignoredKinds:
        ignored = ", ".join(f"{count} {kind}" for kind, count in snap.ignoredKinds.items())
        say(f"ignored: {one_line(ignored)}")
    kinds = [kind for kind in snap.missingKinds if not (kind == "Pod" and snap.pods)]
    if kinds:
        say(f"the snapshot cannot vouch for: {one_line(', '.join(kinds))}")
    if len(kinds) < len(snap.missingKinds):  # it holds pods, which look like some namespaces' only
        say(
            f"its {snap.pods} pods look like some namespaces' only (none of kube-system, where every cluster runs"
            " some): a dump of `kubectl get pods -A -o yaml` holds every namespace's, or pass --complete"
        )


def written(write: Callable[[], int]) -> int | None:
    """The dump written (its object count), or None when stdout's reader stopped early."""
    try:
        return write()
    except BrokenPipeError:
        stdout_to_devnull()
        return None
