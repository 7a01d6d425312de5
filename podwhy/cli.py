"""podwhy's command line: parse, call the engine, render, map errors to exit codes."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from podwhy.errors import PodwhyError, UsageError
from podwhy.model.errors import ModelError

if TYPE_CHECKING:
    from podwhy.report.model import CheckReport, PendingReport, Report

app = typer.Typer(
    add_completion=True,
    no_args_is_help=True,
    help="Explain why a Kubernetes pod is Pending, exactly as kube-scheduler (v1.35 or v1.36) decides.",
    pretty_exceptions_enable=False,
)

# Exit codes for verdicts come with the verdict (Verdict.exit_code); errors carry their own.
EXIT_INPUT = 3


class Output(StrEnum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"


# Options several commands share, declared once.
KubeconfigOption = Annotated[
    str | None, typer.Option("--kubeconfig", help="Kubeconfig file(s) for live mode (default: $KUBECONFIG).")
]
ContextOption = Annotated[str | None, typer.Option("--context", help="Kubeconfig context for live mode.")]
RequestTimeoutOption = Annotated[
    float | None, typer.Option("--request-timeout", min=0.001, help="Seconds to wait for each API request.")
]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress display while fetching.")]
DebugOption = Annotated[bool, typer.Option("--debug", help="Show tracebacks of errors.")]
OutputOption = Annotated[Output, typer.Option("--output", "-o", help="table, wide, json or yaml.")]
SchedulerConfigOption = Annotated[
    Path | None, typer.Option("--scheduler-config", help="A KubeSchedulerConfiguration file.")
]
KubeVersionOption = Annotated[
    str | None,
    typer.Option(
        "--kube-version",
        help="kube-scheduler release to emulate: 1.35 or 1.36 (v1.36.3 works too)."
        " Default: the cluster's (API server /version, the kube-scheduler pod's image, the kubelets).",
    ),
]


def _check_live_options(from_: list[str] | None, *live: object) -> None:
    if from_ and any(option is not None for option in live):
        raise UsageError("--from reads a dump: --kubeconfig, --context and --request-timeout are for live mode")


def _write_structured(report: Report | PendingReport | CheckReport, output: Output) -> bool:
    """Write -o json|yaml to stdout; False for the table outputs."""
    from podwhy.report import model

    if output == Output.json:
        sys.stdout.buffer.write(model.encode_json(report) + b"\n")
        sys.stdout.flush()
        return True
    if output == Output.yaml:
        import yaml

        sys.stdout.write(yaml.safe_dump(model.to_builtins(report), sort_keys=False, allow_unicode=True))
        return True
    return False


@contextmanager
def _one_line_errors(debug: bool) -> Iterator[None]:
    """The one error handler: a PodwhyError is one line and its exit code; anything else is one
    line too, never a traceback (--debug shows it)."""
    try:
        yield
    except PodwhyError as exc:
        if debug:
            traceback.print_exc(file=sys.stderr)
        line = f"podwhy: error: {exc.message}"
        if exc.hint:
            line += f" ({exc.hint})"
        print(line, file=sys.stderr)
        raise typer.Exit(exc.exit_code) from None
    except ModelError as exc:  # a value the API would refuse, that no loader put in context: bad input
        if debug:
            traceback.print_exc(file=sys.stderr)
        print(f"podwhy: error: {exc.message}" + (f" ({exc.hint})" if exc.hint else ""), file=sys.stderr)
        raise typer.Exit(EXIT_INPUT) from None
    except Exception as exc:
        if debug:
            traceback.print_exc(file=sys.stderr)
        print(f"podwhy: internal error: {type(exc).__name__}: {exc} (rerun with --debug)", file=sys.stderr)
        raise typer.Exit(EXIT_INPUT) from None


def _complete_pod(ctx: typer.Context, incomplete: str) -> list[str]:
    """Pod names for shell completion: of the dump given with --from, else of the context's namespace."""
    params = ctx.params
    try:
        if params.get("from_"):
            from podwhy.snapshot.source import FileSource

            pods = FileSource(list(params["from_"])).load().pods
            names = [f"{p.metadata.namespace}/{p.metadata.name}" for p in pods]
        else:
            from podwhy.snapshot.live import LiveSource

            live = LiveSource(params.get("kubeconfig"), params.get("context"), request_timeout=5)
            names = live.pod_names(params.get("namespace") or live.connect())
    except Exception:  # completion never fails loudly
        return []
    return sorted(n for n in names if n.startswith(incomplete))


@app.callback()
def main() -> None:
    """podwhy: why is my pod Pending?"""


@app.command()
def explain(
    pod: Annotated[
        str | None,
        typer.Argument(help="NAME or NAMESPACE/NAME of the pod to explain.", autocompletion=_complete_pod),
    ] = None,
    from_: Annotated[
        list[str] | None,
        typer.Option(
            "--from",
            help="Snapshot to read: a kubectl -o yaml|json file, a folder, a cluster-info dump, or - for stdin."
            " Repeatable. Without it, podwhy reads the cluster of the current kubeconfig context (GET only).",
        ),
    ] = None,
    namespace: Annotated[
        str | None,
        typer.Option("--namespace", "-n", help="Namespace of POD (default: the context's namespace, else default)."),
    ] = None,
    pod_file: Annotated[
        Path | None, typer.Option("--file", "-f", help="Explain this pod manifest instead of one in the snapshot.")
    ] = None,
    output: OutputOption = Output.table,
    node: Annotated[str | None, typer.Option("--node", help="Show the facts behind every verdict on one node.")] = None,
    scheduler_config: SchedulerConfigOption = None,
    kube_version: KubeVersionOption = None,
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    request_timeout: RequestTimeoutOption = None,
    quiet: QuietOption = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Say what was loaded and skipped.")] = False,
    debug: DebugOption = False,
) -> None:
    """Explain why POD is (or is not) schedulable, node by node and plugin by plugin."""
    from podwhy.engine import ExplainRequest, split_pod_ref
    from podwhy.engine import explain as run_explain
    from podwhy.snapshot.live import LiveSource
    from podwhy.snapshot.source import FileSource, SnapshotSource

    with _one_line_errors(debug):
        if pod is None and pod_file is None:
            raise UsageError("no pod given", hint="name the pod (NAME or NAMESPACE/NAME) or pass -f pod.yaml")
        if pod_file is not None and str(pod_file) == "-" and from_ and "-" in from_:
            raise UsageError("-f - and --from - cannot both read stdin")
        _check_live_options(from_, kubeconfig, context, request_timeout)
        from podwhy.report.progress import fetch_progress

        with fetch_progress(not quiet and output in (Output.table, Output.wide)) as progress:
            source: SnapshotSource
            if from_:
                source = FileSource(list(from_))
            else:
                live = LiveSource(kubeconfig, context, request_timeout, progress=progress)
                namespace = namespace or live.connect()
                if pod is not None:
                    live.events_for = split_pod_ref(pod, namespace)
                source = live
            report = run_explain(
                ExplainRequest(
                    pod_ref=pod,
                    namespace=namespace or "default",
                    source=source,
                    pod_file=pod_file,
                    scheduler_config=scheduler_config,
                    node=node,
                    kube_version=kube_version,
                )
            )
        if verbose:
            _print_loaded(report)
        _render(report, output, node)
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
    if not _write_structured(report, output):
        from podwhy.report.table import render_table

        render_table(report, wide=output == Output.wide, node=node)
    _print_warnings(report.warnings)


def _print_warnings(warnings: list[str]) -> None:
    for warning in warnings:
        print(f"podwhy: warning: {warning}", file=sys.stderr)


@app.command()
def pending(
    from_: Annotated[
        list[str] | None,
        typer.Option("--from", help="Snapshot to read (as for explain); without it, the live cluster."),
    ] = None,
    namespace: Annotated[
        str | None, typer.Option("--namespace", "-n", help="Only this namespace's pods (default: the context's).")
    ] = None,
    all_namespaces: Annotated[bool, typer.Option("--all-namespaces", "-A", help="Pods of every namespace.")] = False,
    output: OutputOption = Output.table,
    scheduler_config: SchedulerConfigOption = None,
    kube_version: KubeVersionOption = None,
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    request_timeout: RequestTimeoutOption = None,
    quiet: QuietOption = False,
    debug: DebugOption = False,
) -> None:
    """Every Pending pod, grouped by cause and owner, largest group first. Exit 0 when none is stuck."""
    from podwhy.engine import PendingRequest
    from podwhy.engine import pending as run_pending
    from podwhy.report.progress import fetch_progress
    from podwhy.snapshot.live import LiveSource
    from podwhy.snapshot.source import FileSource, SnapshotSource

    with _one_line_errors(debug):
        if namespace is not None and all_namespaces:
            raise UsageError("-n and -A do not go together")
        _check_live_options(from_, kubeconfig, context, request_timeout)
        with fetch_progress(not quiet and output in (Output.table, Output.wide)) as progress:
            source: SnapshotSource
            if from_:
                source = FileSource(list(from_))
                scope = None if all_namespaces or namespace is None else namespace
            else:
                live = LiveSource(kubeconfig, context, request_timeout, progress=progress)
                scope = None if all_namespaces else namespace or live.connect()
                live.events_for = (scope or "", "")
                source = live
            report = run_pending(PendingRequest(source, scope, scheduler_config, kube_version))
        _render_any(report, output)
    raise typer.Exit(report.exit_code)


def _render_any(report: PendingReport, output: Output) -> None:
    if not _write_structured(report, output):
        from podwhy.report.table import render_pending

        render_pending(report, wide=output == Output.wide)
    _print_warnings(report.warnings)


@app.command()
def check(
    files: Annotated[
        list[str],
        typer.Option(
            "--file",
            "-f",
            help="Manifests: a file, a folder, multi-document YAML, or - for stdin (e.g. helm template). Repeatable.",
        ),
    ],
    from_: Annotated[
        list[str] | None,
        typer.Option("--from", help="Snapshot to place them onto (as for explain); without it, the live cluster."),
    ] = None,
    namespace: Annotated[
        str | None,
        typer.Option("--namespace", "-n", help="Namespace of manifests that name none (default: the context's)."),
    ] = None,
    output: OutputOption = Output.table,
    junit: Annotated[
        Path | None, typer.Option("--junit", help="Also write JUnit XML here (one testcase per workload).")
    ] = None,
    scheduler_config: SchedulerConfigOption = None,
    kube_version: KubeVersionOption = None,
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    request_timeout: RequestTimeoutOption = None,
    quiet: QuietOption = False,
    debug: DebugOption = False,
) -> None:
    """Place the replicas of manifests onto the cluster one after another, as the scheduler would.

    Exit 0 when every replica fits, 1 when one would stay Pending.
    """
    from podwhy.engine import CheckRequest
    from podwhy.engine import check as run_check
    from podwhy.report.progress import fetch_progress
    from podwhy.snapshot.live import LiveSource
    from podwhy.snapshot.manifests import ManifestSource
    from podwhy.snapshot.source import FileSource, SnapshotSource

    with _one_line_errors(debug):
        _check_live_options(from_, kubeconfig, context, request_timeout)
        if "-" in files and from_ and "-" in from_:
            raise UsageError("-f - and --from - cannot both read stdin")
        with fetch_progress(not quiet and output in (Output.table, Output.wide)) as progress:
            source: SnapshotSource
            if from_:
                source = FileSource(list(from_))
            else:
                live = LiveSource(kubeconfig, context, request_timeout, progress=progress)
                namespace = namespace or live.connect()
                source = live
            manifests = ManifestSource(files, namespace or "default")
            report = run_check(CheckRequest(manifests, source, scheduler_config, kube_version))
        if junit is not None:
            from podwhy.report.check import write_junit

            write_junit(report, junit)
        if not _write_structured(report, output):
            from podwhy.report.table import render_check

            render_check(report, wide=output == Output.wide)
        for warning in report.warnings:
            print(f"podwhy: warning: {warning}", file=sys.stderr)
    raise typer.Exit(report.exit_code)


@app.command()
def snapshot(
    output: Annotated[Path, typer.Option("--output", "-o", help="File to write (a JSON List; .gz compresses it).")],
    namespace: Annotated[
        str | None,
        typer.Option("--namespace", "-n", help="Namespace whose events to include (default: the context's)."),
    ] = None,
    all_namespaces: Annotated[
        bool, typer.Option("--all-namespaces", "-A", help="Include the events of every namespace.")
    ] = False,
    redact: Annotated[
        bool, typer.Option("--redact", help="Replace env values, command lines and annotations plugins do not read.")
    ] = False,
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    request_timeout: RequestTimeoutOption = None,
    quiet: QuietOption = False,
    debug: DebugOption = False,
) -> None:
    """Write everything podwhy reads from the cluster to a file that --from reads back to the same report.

    Nodes, pods and every other kind the plugins read are fetched cluster-wide (the scheduler sees
    them all); -n/-A choose whose events come along. Secrets and ConfigMaps are never read.
    """
    from podwhy.report.progress import fetch_progress
    from podwhy.snapshot.live import LiveSource
    from podwhy.snapshot.writer import write_dump

    with _one_line_errors(debug):
        if namespace is not None and all_namespaces:
            raise UsageError("-n and -A do not go together")
        with fetch_progress(not quiet) as progress:
            live = LiveSource(kubeconfig, context, request_timeout, progress=progress)
            events_namespace = "" if all_namespaces else namespace or live.connect()
            live.events_for = (events_namespace, "")
            fetched = live.fetch(raw=True)
        items = {(r.kind, r.group_version): v for r, v in fetched.items() if not isinstance(v, str)}
        missing = {r.kind: v for r, v in fetched.items() if isinstance(v, str)}
        count = write_dump(output, items, missing, redact_text=redact, server_version=live.server_version)
    print(f"wrote {count:,} objects to {output}", file=sys.stderr)
    if missing:
        print(f"podwhy: warning: not fetched: {'; '.join(missing.values())}", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    app()
