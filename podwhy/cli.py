"""podwhy's command line: parse, call the engine, render, map errors to exit codes."""

from __future__ import annotations

import sys
import traceback
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from podwhy.errors import PodwhyError, UsageError

if TYPE_CHECKING:
    from podwhy.report.model import Report

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Explain why a Kubernetes pod is Pending, exactly as kube-scheduler v1.35 decides.",
    pretty_exceptions_enable=False,
)

# Exit codes for verdicts come with the verdict (Verdict.exit_code); errors carry their own.
EXIT_INPUT = 3


class Output(StrEnum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"


def _fail(exc: PodwhyError, debug: bool) -> NoReturn:
    if debug:
        traceback.print_exc(file=sys.stderr)
    line = f"podwhy: error: {exc.message}"
    if exc.hint:
        line += f" ({exc.hint})"
    print(line, file=sys.stderr)
    raise typer.Exit(exc.exit_code)


@app.callback()
def main() -> None:
    """podwhy: why is my pod Pending?"""


@app.command()
def explain(
    pod: Annotated[str | None, typer.Argument(help="NAME or NAMESPACE/NAME of the pod to explain.")] = None,
    from_: Annotated[
        list[str] | None,
        typer.Option(
            "--from",
            help="Snapshot to read: a kubectl -o yaml|json file, a folder, a cluster-info dump, or - for stdin."
            " Repeatable.",
        ),
    ] = None,
    namespace: Annotated[str, typer.Option("--namespace", "-n", help="Namespace of POD.")] = "default",
    pod_file: Annotated[
        Path | None, typer.Option("--file", "-f", help="Explain this pod manifest instead of one in the snapshot.")
    ] = None,
    output: Annotated[Output, typer.Option("--output", "-o", help="table, wide, json or yaml.")] = Output.table,
    node: Annotated[str | None, typer.Option("--node", help="Show the facts behind every verdict on one node.")] = None,
    scheduler_config: Annotated[
        Path | None, typer.Option("--scheduler-config", help="A KubeSchedulerConfiguration file.")
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Say what was loaded and skipped.")] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks of errors.")] = False,
) -> None:
    """Explain why POD is (or is not) schedulable, node by node and plugin by plugin."""
    from podwhy.engine import ExplainRequest
    from podwhy.engine import explain as run_explain

    try:
        if not from_:
            raise UsageError("no snapshot given", hint="pass --from PATH (a dump file, a folder, or - for stdin)")
        if pod is None and pod_file is None:
            raise UsageError("no pod given", hint="name the pod (NAME or NAMESPACE/NAME) or pass -f pod.yaml")
        report = run_explain(
            ExplainRequest(
                pod_ref=pod,
                namespace=namespace,
                sources=list(from_),
                pod_file=pod_file,
                scheduler_config=scheduler_config,
                node=node,
            )
        )
        if verbose:
            _print_loaded(report)
        _render(report, output, node)
    except PodwhyError as exc:
        _fail(exc, debug)
    except Exception as exc:  # last resort: one line, never a traceback
        if debug:
            traceback.print_exc(file=sys.stderr)
        print(f"podwhy: internal error: {type(exc).__name__}: {exc} (rerun with --debug)", file=sys.stderr)
        raise typer.Exit(EXIT_INPUT) from None
    raise typer.Exit(report.verdict.exit_code)


def _print_loaded(report: Report) -> None:
    snap = report.snapshot
    print(f"loaded {snap.nodes} nodes, {snap.pods} pods from {', '.join(snap.sources)}", file=sys.stderr)
    if snap.ignoredKinds:
        ignored = ", ".join(f"{count} {kind}" for kind, count in snap.ignoredKinds.items())
        print(f"ignored: {ignored}", file=sys.stderr)
    if snap.missingKinds:
        print(f"the snapshot cannot vouch for: {', '.join(snap.missingKinds)}", file=sys.stderr)


def _render(report: Report, output: Output, node: str | None) -> None:
    from podwhy.report import model

    if output == Output.json:
        sys.stdout.buffer.write(model.encode_json(report) + b"\n")
        sys.stdout.flush()
        return
    if output == Output.yaml:
        import yaml

        sys.stdout.write(yaml.safe_dump(model.to_builtins(report), sort_keys=False, allow_unicode=True))
        return
    from podwhy.report.table import render_table

    render_table(report, wide=output == Output.wide, node=node)
    for warning in report.warnings:
        print(f"podwhy: warning: {warning}", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    app()
