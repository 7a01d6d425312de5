"""`podwhy explain`: why one pod is (or is not) schedulable, node by node and plugin by plugin."""

from __future__ import annotations

from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from podwhy.cli.complete import complete_pod
from podwhy.cli.errors import one_line_errors
from podwhy.cli.options import (
    AssumeWebhooksOption,
    Output,
    OutputOption,
    Shared,
    from_option,
    namespace_option,
    shared_options,
)
from podwhy.cli.output import emit, print_loaded, write_structured
from podwhy.cli.sources import check_live_options, no_empty_path, select_source
from podwhy.errors import UsageError
from podwhy.report.model.listing import NODES_LISTED

if TYPE_CHECKING:
    from podwhy.report.model import Report


class NodesListing(StrEnum):
    """--nodes: how much of every node -o json|yaml lists (report/build/listing.py)."""

    auto = "auto"
    all = "all"
    grouped = "grouped"


NODES_HELP = (
    "How -o json|yaml lists the nodes: auto gives every node's entry (nodes) up to"
    f" {NODES_LISTED:,} nodes, above that their verdicts grouped (nodeGroups, always given) and every"
    f" other per-node list cut to {NODES_LISTED:,}; all gives every node's entry, written as it goes;"
    " grouped gives the groups only."
)

# What -v says.
EXPLAIN_SAYS = "what was loaded and skipped, and what kube-scheduler said when it differs"


@shared_options(EXPLAIN_SAYS)
def explain(
    pod: Annotated[
        str | None,
        typer.Argument(
            metavar="POD", help="NAME or NAMESPACE/NAME of the pod to explain.", autocompletion=complete_pod
        ),
    ] = None,
    from_: Annotated[
        list[str] | None,
        from_option(
            "Snapshot to read: a kubectl -o yaml|json file, a folder, a cluster-info dump, or - for stdin."
            " Repeatable. Without it, podwhy reads the cluster of the current kubeconfig context (GET only)."
        ),
    ] = None,
    namespace: Annotated[
        str | None, namespace_option("Namespace of POD (default: the context's namespace, else default).")
    ] = None,
    pod_file: Annotated[
        str | None,
        typer.Option("--file", "-f", metavar="FILE", help="Explain this pod manifest instead of one in the snapshot."),
    ] = None,
    output: OutputOption = Output.table,
    node: Annotated[
        str | None, typer.Option("--node", metavar="NODE", help="Show the facts behind every verdict on one node.")
    ] = None,
    nodes: Annotated[
        NodesListing, typer.Option("--nodes", metavar="MODE", case_sensitive=False, help=NODES_HELP)
    ] = NodesListing.auto,
    assume_webhooks_allow: AssumeWebhooksOption = False,
    *,
    shared: Shared,
) -> None:
    """Explain why POD is (or is not) schedulable, node by node and plugin by plugin."""
    from podwhy.engine import ExplainRequest
    from podwhy.engine import explain as run_explain

    with one_line_errors(shared.debug):
        if pod is None and pod_file is None:
            raise UsageError("no pod given", hint="name the pod (NAME or NAMESPACE/NAME) or pass -f pod.yaml")
        if pod is not None and pod_file is not None:
            raise UsageError(
                f"two pods given: {pod} and -f {pod_file}", hint="explain one: NAME (or NAMESPACE/NAME), or -f FILE"
            )
        no_empty_path("-f", [] if pod_file is None else [pod_file])
        if pod_file == "-" and from_ and "-" in from_:
            raise UsageError("-f - and --from - cannot both read stdin")
        check_live_options(from_, shared)
        from podwhy.report.render.progress import fetch_progress

        events = None if pod is None else partial(_pod_events, pod)
        with fetch_progress(shared.progress_shown(output), shared.verbose) as progress:
            selected = select_source(from_, shared, progress, namespace=namespace, events_for=events)
            report = run_explain(
                ExplainRequest(
                    pod_ref=pod,
                    namespace=selected.namespace or "default",
                    source=selected.source,
                    pod_file=None if pod_file is None else Path(pod_file),
                    scheduler_config=shared.scheduler_config,
                    node=node,
                    kube_version=shared.kube_version,
                    kueue_gates=shared.kueue_gates,
                    assume_webhooks_allow=assume_webhooks_allow,
                )
            )
        if shared.verbose:
            print_loaded(report.snapshot)
        if output in (Output.json, Output.yaml):  # a large cluster's nodes: grouped unless --nodes all
            from podwhy.report.build.listing import listed

            report = listed(report, nodes.value)
        # Warnings go to stderr whatever the output: -o json|yaml keeps stdout to the report alone.
        emit(report.verdict.exit_code, lambda: _render(report, output, node, shared.verbose), report.warnings)


def _pod_events(pod: str, namespace: str | None) -> tuple[str, str]:
    """The events of POD, named as explain's POD argument names it (live: in the namespace chosen);
    for a workload (deployment/NAME), every event of the namespace: its controller's FailedCreate
    are about objects named after it (its ReplicaSets), its pods' about those."""
    from podwhy.analysis.workloadtarget import workload_kind
    from podwhy.engine import split_pod_ref

    if workload_kind(pod) is not None:
        return namespace or "", ""
    return split_pod_ref(pod, namespace or "")


def _render(report: Report, output: Output, node: str | None, verbose: bool = False) -> None:
    if write_structured(report, output):
        return
    from podwhy.report.render.explain import render_table

    render_table(report, wide=output == Output.wide, node=node, verbose=verbose)
