"""`podwhy pending`: every Pending pod, grouped by cause and owner."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from podwhy.cli.errors import one_line_errors
from podwhy.cli.options import (
    Output,
    OutputOption,
    Shared,
    from_option,
    namespace_option,
    program_name,
    shared_options,
)
from podwhy.cli.output import emit, print_loaded, say, write_structured
from podwhy.cli.sources import check_live_options, namespace_events, select_source
from podwhy.errors import UsageError, one_line

if TYPE_CHECKING:
    from podwhy.report.model import PendingReport

# What -v says.
PENDING_SAYS = "what was loaded and skipped, and which namespaces the pods come from and why"


@shared_options(PENDING_SAYS)
def pending(
    from_: Annotated[
        list[str] | None, from_option("Snapshot to read (as for explain); without it, the live cluster.")
    ] = None,
    namespace: Annotated[
        str | None,
        namespace_option("Only this namespace's pods (default: the context's namespace live, default offline)."),
    ] = None,
    all_namespaces: Annotated[
        bool, typer.Option("--all-namespaces", "-A", metavar="", help="Pods of every namespace.")
    ] = False,
    output: OutputOption = Output.table,
    *,
    shared: Shared,
) -> None:
    """Every Pending pod, grouped by cause and owner, largest group first. Exit 0 when none is stuck."""
    from podwhy.engine import PendingRequest
    from podwhy.engine import pending as run_pending
    from podwhy.report.render.progress import fetch_progress

    with one_line_errors(shared.debug):
        if namespace is not None and all_namespaces:
            raise UsageError("-n and -A do not go together")
        check_live_options(from_, shared)
        with fetch_progress(shared.progress_shown(output), shared.verbose) as progress:
            # One rule, live or offline: -A every namespace, else -n, else the context's namespace
            # (live) or default (offline), as explain and check choose theirs.
            selected = select_source(
                from_, shared, progress, namespace=namespace, all_namespaces=all_namespaces, events_for=namespace_events
            )
            scope = selected.namespace
            if all_namespaces:
                why = "-A"
            elif namespace:
                why = "-n"
            else:
                why = "no -n: default, as offline explain and check" if from_ else "no -n: the context's namespace"
            rerun = _all_namespaces_command(from_, shared)
            report = run_pending(
                PendingRequest(
                    selected.source, scope, shared.scheduler_config, shared.kube_version, rerun, shared.kueue_gates
                )
            )
        if shared.verbose:
            print_loaded(report.snapshot)
            say(f"namespaces: {'every one' if scope is None else one_line(scope)} ({why})")
        emit(report.exit_code, lambda: _render(report, output), report.warnings)


def _all_namespaces_command(from_: list[str] | None, shared: Shared) -> str:
    """`pending` again with -A and the same inputs: what a namespace without Pending pods points to."""
    import shlex

    args = [*(program_name() or "podwhy").split(), "pending", "-A"]
    for path in from_ or []:
        args += ["--from", path]
    for option, value in (
        ("--scheduler-config", shared.scheduler_config),
        ("--kube-version", shared.kube_version),
        ("--kueue-feature-gates", shared.kueue_feature_gates),
        ("--kubeconfig", shared.live.kubeconfig),
        ("--context", shared.live.context),
        ("--request-timeout", shared.live.request_timeout),
    ):
        if value is not None:
            args += [option, f"{value:g}" if isinstance(value, float) else str(value)]
    if shared.complete:
        args.append("--complete")
    return shlex.join(args)


def _render(report: PendingReport, output: Output) -> None:
    if not write_structured(report, output):
        from podwhy.report.render.pending import render_pending

        render_pending(report, wide=output == Output.wide)
