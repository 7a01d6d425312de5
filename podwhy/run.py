"""One explain request end to end: load, resolve the pod, run the engine."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from podwhy.engine import Explanation, explain, find_pod, no_profile, split_pod_ref
from podwhy.errors import PodwhyError
from podwhy.framework.config import default_config, load_scheduler_config, profile_for_pod
from podwhy.snapshot.source import FileSource


@dataclass
class ExplainRequest:
    pod_ref: str | None
    namespace: str
    sources: list[str]
    pod_file: Path | None = None
    scheduler_config: Path | None = None


def run_explain(request: ExplainRequest) -> Explanation:
    snapshot = FileSource(request.sources).load()
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
    config = default_config() if request.scheduler_config is None else load_scheduler_config(request.scheduler_config)
    if not snapshot.nodes:
        raise PodwhyError("the snapshot holds no nodes", hint="pass a dump that includes Nodes")
    profile = profile_for_pod(config, pod)
    if profile is None:
        return no_profile(snapshot, pod, config)
    names = frozenset(p.scheduler_name for p in config.profiles)
    return explain(snapshot, pod, profile, extenders=config.extenders, scheduler_names=names)
