"""`podwhy check`: the replicas of manifests placed onto the cluster one after another."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from podwhy.cli.errors import one_line_errors
from podwhy.cli.options import (
    AssumeWebhooksOption,
    Output,
    OutputOption,
    Shared,
    from_option,
    namespace_option,
    parse_path,
    shared_options,
)
from podwhy.cli.output import emit, print_loaded, say, write_structured
from podwhy.cli.sources import check_live_options, no_empty_path, select_source
from podwhy.errors import PodwhyError, UsageError, one_line

if TYPE_CHECKING:
    from podwhy.report.model import CheckReport

# What -v says.
CHECK_SAYS = "what was loaded and skipped, and the namespace of manifests that name none"


@shared_options(CHECK_SAYS)
def check(
    files: Annotated[
        list[str],
        typer.Option(
            "--file",
            "-f",
            metavar="PATH",
            help="Manifests: a file, a folder, multi-document YAML, or - for stdin (e.g. helm template). Repeatable.",
        ),
    ],
    from_: Annotated[
        list[str] | None, from_option("Snapshot to place them onto (as for explain); without it, the live cluster.")
    ] = None,
    namespace: Annotated[
        str | None, namespace_option("Namespace of manifests that name none (default: the context's).")
    ] = None,
    output: OutputOption = Output.table,
    junit: Annotated[
        Path | None,
        typer.Option(
            "--junit", parser=parse_path, metavar="FILE", help="Also write JUnit XML here (one testcase per workload)."
        ),
    ] = None,
    assume_webhooks_allow: AssumeWebhooksOption = False,
    *,
    shared: Shared,
) -> None:
    """Place the replicas of manifests onto the cluster one after another, as the scheduler would.

    Exit 0 when every replica fits, 1 when one would stay Pending, 3 when that is not known (an
    admission webhook the pod meets, a policy podwhy cannot evaluate).
    """
    from podwhy.cluster.manifests import ManifestSource
    from podwhy.engine import CheckRequest
    from podwhy.engine import check as run_check
    from podwhy.report.render.progress import fetch_progress, place_progress

    with one_line_errors(shared.debug):
        check_live_options(from_, shared)
        no_empty_path("-f", files)
        if "-" in files and from_ and "-" in from_:
            raise UsageError("-f - and --from - cannot both read stdin")
        if junit is not None:
            _check_output_path(junit)
        shown = shared.progress_shown(output)
        with fetch_progress(shown, shared.verbose) as progress, place_progress(shown) as placing:
            selected = select_source(from_, shared, progress, namespace=namespace)
            namespace = selected.namespace or "default"
            manifests = ManifestSource(files, namespace)
            report = run_check(
                CheckRequest(
                    manifests,
                    selected.source,
                    shared.scheduler_config,
                    shared.kube_version,
                    placing,
                    kueue_gates=shared.kueue_gates,
                    assume_webhooks_allow=assume_webhooks_allow,
                )
            )
        if junit is not None:
            from podwhy.report.render.junit import write_junit

            write_junit(report, junit)
        if shared.verbose:
            print_loaded(report.snapshot)
            say(f"namespace of manifests that name none: {one_line(namespace)}")
        emit(report.exit_code, lambda: _render(report, output), report.warnings)


def _check_output_path(path: Path) -> None:
    """A file podwhy will write after the work, checked before it: an error at once, not after a fetch."""
    if path.is_dir():
        raise PodwhyError(f"{path}: cannot write: is a directory")
    folder = path.parent
    if not folder.is_dir():
        raise PodwhyError(f"{path}: cannot write: no folder {folder}")
    if not os.access(folder, os.W_OK):
        raise PodwhyError(f"{path}: cannot write: permission denied")


def _render(report: CheckReport, output: Output) -> None:
    if not write_structured(report, output):
        from podwhy.report.render.check import render_check

        render_check(report, wide=output == Output.wide)
