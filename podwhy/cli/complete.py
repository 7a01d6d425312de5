"""Shell completion: pod names for explain's POD (typer's --install-completion installs it)."""

from __future__ import annotations

import typer

from podwhy.cli.options import LiveOptions, Shared
from podwhy.cli.sources import select_source


def complete_pod(ctx: typer.Context, incomplete: str) -> list[str]:
    """Pod names for shell completion: of the dump given with --from, else of the context's namespace."""
    params = ctx.params
    try:
        live = LiveOptions(
            params.get("kubeconfig"),
            params.get("context"),
            request_timeout=5,
            insecure_skip_tls_verify=bool(params.get("insecure_skip_tls_verify")),
        )
        shared = Shared(live, quiet=True, verbose=False, debug=False)
        selected = select_source(params.get("from_"), shared, namespace=params.get("namespace"))
        if selected.live is not None and selected.namespace is not None:
            names = selected.live.pod_names(selected.namespace)
        else:
            pods = selected.source.load().pods
            names = [f"{p.metadata.namespace}/{p.metadata.name}" for p in pods]
    except Exception:  # completion never fails loudly
        return []
    return sorted(n for n in names if n.startswith(incomplete))
