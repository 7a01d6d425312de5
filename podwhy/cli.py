"""podwhy's command line: parse, call the engine, render, map errors to exit codes."""

from __future__ import annotations

import json
import sys
import traceback
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from podwhy.errors import PodwhyError, UsageError
from podwhy.model.errors import ModelError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Explain why a Kubernetes pod is Pending, exactly as kube-scheduler v1.35 decides.",
    pretty_exceptions_enable=False,
)

EXIT_SCHEDULABLE = 0
EXIT_UNSCHEDULABLE = 1
EXIT_USAGE = 2
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
    from podwhy.run import ExplainRequest, run_explain

    try:
        if not from_:
            raise UsageError("no snapshot given", hint="pass --from PATH (a dump file, a folder, or - for stdin)")
        if pod is None and pod_file is None:
            raise UsageError("no pod given", hint="name the pod (NAME or NAMESPACE/NAME) or pass -f pod.yaml")
        request = ExplainRequest(
            pod_ref=pod,
            namespace=namespace,
            sources=list(from_),
            pod_file=pod_file,
            scheduler_config=scheduler_config,
        )
        exp = run_explain(request)
        if verbose:
            _print_loaded(exp)
        code = EXIT_SCHEDULABLE if exp.verdict == "Schedulable" else EXIT_UNSCHEDULABLE
        if exp.verdict in ("Error", "Inconclusive"):
            code = EXIT_INPUT
        _render(exp, output, node)
    except PodwhyError as exc:
        _fail(exc, debug)
    except ModelError as exc:
        _fail(PodwhyError(exc.message, exc.hint), debug)
    except Exception as exc:  # last resort: one line, never a traceback
        if debug:
            traceback.print_exc(file=sys.stderr)
        print(f"podwhy: internal error: {type(exc).__name__}: {exc} (rerun with --debug)", file=sys.stderr)
        raise typer.Exit(EXIT_INPUT) from None
    raise typer.Exit(code)


def _print_loaded(exp: Any) -> None:
    snap = exp.snapshot
    print(
        f"loaded {len(snap.nodes)} nodes, {len(snap.pods)} pods from {', '.join(snap.sources)}",
        file=sys.stderr,
    )
    if snap.ignored_kinds:
        ignored = ", ".join(f"{count} {kind}" for kind, count in sorted(snap.ignored_kinds.items()))
        print(f"ignored: {ignored}", file=sys.stderr)
    if snap.missing_kinds:
        print(f"the snapshot cannot vouch for: {', '.join(sorted(snap.missing_kinds))}", file=sys.stderr)


def _render(exp: Any, output: Output, node: str | None) -> None:
    from podwhy.report.json_report import build_report

    if output in (Output.json, Output.yaml):
        report = build_report(exp)
        if output == Output.json:
            sys.stdout.write(json.dumps(report, indent=2) + "\n")
        else:
            import yaml

            sys.stdout.write(yaml.safe_dump(report, sort_keys=False, allow_unicode=True))
        return
    from podwhy.report.table import render_table

    render_table(exp, wide=output == Output.wide, node=node)
    for warning in exp.warnings:
        print(f"podwhy: warning: {warning}", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    app()
