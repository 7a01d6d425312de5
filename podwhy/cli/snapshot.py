"""`podwhy snapshot`: everything podwhy reads from the live cluster, written to a file --from reads."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from podwhy.cli.errors import discarded_unless_written, one_line_errors
from podwhy.cli.options import Shared, namespace_option, parse_path, shared_options
from podwhy.cli.output import say, written
from podwhy.cli.sources import namespace_events, select_source
from podwhy.errors import UsageError, one_line

if TYPE_CHECKING:
    from podwhy.snapshot.writer import DumpTarget

# What -v says.
SNAPSHOT_SAYS = "how many objects of each kind were fetched"


@shared_options(SNAPSHOT_SAYS, scheduling=False)
def snapshot(
    output: Annotated[
        Path,
        typer.Option(
            "--output",
            "-o",
            parser=parse_path,
            metavar="FILE",
            help="File to write (a JSON List; .gz compresses it; - for stdout).",
        ),
    ],
    namespace: Annotated[
        str | None, namespace_option("Namespace whose events to include (default: the context's).")
    ] = None,
    all_namespaces: Annotated[
        bool, typer.Option("--all-namespaces", "-A", metavar="", help="Include the events of every namespace.")
    ] = False,
    redact: Annotated[
        bool,
        typer.Option(
            "--redact",
            metavar="",
            help="Keep only what scheduling needs: an allowlist per kind (docs/redact.md).",
        ),
    ] = False,
    *,
    shared: Shared,
) -> None:
    """Write everything podwhy reads from the cluster to a file that --from reads back to the same report.

    Nodes, pods and every other kind the plugins read are fetched cluster-wide (the scheduler sees
    them all); -n/-A choose whose events come along. Secrets are never read; of the ConfigMaps, only
    Cluster Autoscaler's status and those a ValidatingAdmissionPolicy binding's paramRef can select.
    """
    count, target, missing, kinds = _snapshot(output, namespace, all_namespaces, redact, shared)
    if shared.verbose:
        fetched = ", ".join(f"{number:,} {kind}" for kind, number in sorted(kinds.items()) if number)
        empty = ", ".join(kind for kind, number in sorted(kinds.items()) if not number)
        say(f"fetched: {one_line(fetched) or 'nothing'}")
        if empty:
            say(f"the cluster has none of: {one_line(empty)}")
    if count is not None:
        say(f"wrote {count:,} objects to {target.description}")
    if missing:
        say(f"podwhy: warning: not fetched: {one_line('; '.join(missing.values()))}")


def _snapshot(
    output: Path, namespace: str | None, all_namespaces: bool, redact: bool, shared: Shared
) -> tuple[int | None, DumpTarget, dict[str, str], dict[str, int]]:
    """`podwhy snapshot`'s work: (objects written or None, where, the kinds not fetched and why, how
    many objects of each kind were fetched)."""
    from podwhy.report.render.progress import fetch_progress
    from podwhy.snapshot.writer import DumpTarget, Parts, Spool, write_dump

    with one_line_errors(shared.debug):
        if namespace is not None and all_namespaces:
            raise UsageError("-n and -A do not go together")
        target = DumpTarget(output)  # a path that cannot be written fails before anything is fetched
        with discarded_unless_written(target):
            spool = Spool(target.folder)  # the pages, as they arrive: no copy of the cluster in memory
            try:
                with fetch_progress(not shared.quiet, shared.verbose) as progress:
                    selected = select_source(
                        None,
                        shared,
                        progress,
                        namespace=namespace,
                        all_namespaces=all_namespaces,
                        events_for=namespace_events,
                    )
                    live = selected.live
                    assert live is not None  # no --from: the live cluster
                    live.sink = spool
                    fetched = live.fetch(raw=True)
                # Two lists can hold one kind (the pods' Events and Cluster Autoscaler's): both are kept.
                items: dict[tuple[str, str], Parts] = {}
                for r, v in fetched.items():
                    if not isinstance(v, str):
                        items.setdefault((r.kind, r.group_version), Parts()).add(v, spool, r)
                missing = {r.kind: v for r, v in fetched.items() if isinstance(v, str)}
                count = written(
                    lambda: write_dump(
                        target,
                        items,
                        missing,
                        redact_text=redact,
                        server_version=live.server_version,
                        taken_at=live.taken_at,
                        params=live.params,
                    )
                )
            finally:
                spool.close()
            params = live.params.kinds.items()
            missing.update({key: f"{kind.missing} (policies' params)" for key, kind in params if kind.missing})
    kinds: dict[str, int] = {}
    for (kind, _), parts in items.items():
        kinds[kind] = kinds.get(kind, 0) + len(parts)
    for kind, _, _ in live.params.objects:  # the policies' params (the autoscaler's status may be one too)
        kinds[kind] = kinds.get(kind, 0) + 1
    return count, target, missing, kinds
