"""One explain request end to end: load, resolve the pod, run the engine."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from podwhy.engine import Explanation, explain, find_pod, split_pod_ref
from podwhy.errors import PodwhyError
from podwhy.snapshot.offline import load_offline


@dataclass
class ExplainRequest:
    pod_ref: str | None
    namespace: str
    sources: list[str]
    pod_file: Path | None = None
    scheduler_config: Path | None = None


def run_explain(request: ExplainRequest) -> Explanation:
    snapshot = load_offline(request.sources)
    if not snapshot.nodes and not snapshot.pods:
        raise PodwhyError(
            f"the snapshot holds no nodes and no pods ({', '.join(request.sources)})",
            hint="dump them with: kubectl get nodes,pods -A -o yaml",
        )
    if request.pod_file is not None:
        from podwhy.snapshot.admission import load_pod_manifest

        pod = load_pod_manifest(request.pod_file, snapshot, request.namespace)
    else:
        assert request.pod_ref is not None
        namespace, name = split_pod_ref(request.pod_ref, request.namespace)
        pod = find_pod(snapshot, namespace, name)
    profile = None
    if request.scheduler_config is not None:
        from podwhy.framework.config import load_scheduler_config, profile_for_pod

        config = load_scheduler_config(request.scheduler_config)
        profile = profile_for_pod(config, pod)
    if not snapshot.nodes:
        raise PodwhyError("the snapshot holds no nodes", hint="pass a dump that includes Nodes")
    return explain(snapshot, pod, profile)
