"""Where a command reads the cluster from, chosen once for every command: the --from files (or
stdin), else the live cluster of the kubeconfig's context (--kubeconfig, --context,
--request-timeout, --insecure-skip-tls-verify), and the namespace that goes with it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, NamedTuple

from podwhy.errors import UsageError

if TYPE_CHECKING:
    from podwhy.cli.options import Shared
    from podwhy.report.render.progress import ProgressCallback
    from podwhy.snapshot.live.source import LiveSource
    from podwhy.snapshot.source import SnapshotSource


def no_empty_path(option: str, paths: Iterable[str]) -> None:
    """An empty path would read the current folder (Path('') is '.'): a usage error."""
    if any(path == "" for path in paths):
        raise UsageError(f"{option} '': an empty path", hint=f"name a file (or - for stdin) after {option}")


def check_live_options(from_: list[str] | None, shared: Shared) -> None:
    """--from and the live-mode options exclude each other; --complete is said of --from files."""
    no_empty_path("--from", from_ or [])
    if from_ and shared.live.given():
        raise UsageError(
            "--from reads a dump: --kubeconfig, --context, --request-timeout and --insecure-skip-tls-verify"
            " are for live mode"
        )
    if shared.complete and not from_:
        raise UsageError("--complete is said of --from files: a live cluster is complete by itself")


class Selected(NamedTuple):
    """The source a command reads, and its namespace: None for -A; else -n; else the context's
    namespace (live) or default (offline)."""

    source: SnapshotSource
    namespace: str | None
    # The same source when it is the live cluster, else None.
    live: LiveSource | None


def namespace_events(namespace: str | None) -> tuple[str, str]:
    """The events of every pod of NAMESPACE (of every namespace for None)."""
    return (namespace or "", "")


def select_source(
    from_: list[str] | None,
    shared: Shared,
    progress: ProgressCallback | None = None,
    *,
    namespace: str | None = None,
    all_namespaces: bool = False,
    events_for: Callable[[str | None], tuple[str, str]] | None = None,
) -> Selected:
    """The --from files when given, else the live cluster (connected only when the namespace is
    the context's). EVENTS_FOR: the pods whose events a live source fetches, of the namespace."""
    if from_:
        from podwhy.snapshot.source import FileSource

        files = FileSource(list(from_), progress=progress, complete=shared.complete)
        return Selected(files, None if all_namespaces else namespace or "default", None)
    from podwhy.snapshot.live.source import LiveSource

    live = shared.live
    source = LiveSource(
        live.kubeconfig,
        live.context,
        live.request_timeout,
        progress=progress,
        insecure_skip_tls_verify=live.insecure_skip_tls_verify,
    )
    namespace = None if all_namespaces else namespace or source.connect()
    if events_for is not None:
        source.events_for = events_for(namespace)
    return Selected(source, namespace, source)
