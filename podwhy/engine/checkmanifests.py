"""`check`: the manifests' workloads created through the API server and their controllers, their
pods placed one after another by the scheduler of the release emulated."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from podwhy.cluster.apiserver.defaults import drop_disabled_fields
from podwhy.cluster.placementreasons import PlaceProgress
from podwhy.engine.config import check_before_fetching, scheduler_config
from podwhy.engine.kueue import verdict_options
from podwhy.engine.lookup import check_namespace, kindless_note
from podwhy.errors import PodwhyError
from podwhy.report.model import CheckReport
from podwhy.scheduler.release import choose_version
from podwhy.snapshot.resources import SNAPSHOT_COMMAND
from podwhy.snapshot.source import SnapshotSource, input_names

if TYPE_CHECKING:
    from podwhy.cluster.manifests import ManifestSource


class CheckRequest(msgspec.Struct):
    manifests: ManifestSource
    source: SnapshotSource
    scheduler_config: Path | None = None
    kube_version: str | None = None
    # Told how far the placement is (the command line shows it when it takes long).
    progress: Callable[[PlaceProgress], None] | None = None
    # --kueue-feature-gates (None: Kueue v0.20's defaults).
    kueue_gates: Mapping[str, bool] | None = None
    # --assume-webhooks-allow: the admission webhooks a pod meets (never called) admit it.
    assume_webhooks_allow: bool = False


def check(request: CheckRequest) -> CheckReport:
    """Place the manifests' replicas onto the snapshot one after another."""
    from podwhy.analysis.suggest.policyverify import check_fixes
    from podwhy.cluster.check import place
    from podwhy.cluster.controllers.types import Displaced
    from podwhy.report.build.check import build_check_report

    request.manifests.read()  # bad manifests fail before the snapshot is fetched
    check_before_fetching(request.scheduler_config, request.kube_version)
    snapshot = request.source.load()
    if not snapshot.nodes:
        raise PodwhyError(
            f"the snapshot holds no nodes ({input_names(snapshot.sources)}){kindless_note(snapshot)}",
            hint=f"pass a dump that includes Nodes: {SNAPSHOT_COMMAND}",
        )
    version = choose_version(request.kube_version, snapshot)
    drop_disabled_fields(snapshot, version.emulation)
    config = scheduler_config(request.scheduler_config, version.emulation)
    # The manifests' own Namespaces are created first, as `kubectl apply` of them would.
    declared = request.manifests.namespaces()
    for namespace in request.manifests.workload_namespaces():
        if namespace not in declared:
            check_namespace(snapshot, namespace, request.source)
    workloads = request.manifests.load_into(snapshot, version.emulation)
    displaced: list[Displaced] = []
    placements = place(
        snapshot,
        workloads,
        config,
        applied_claims=request.manifests.applied_claims,
        progress=request.progress,
        displaced_out=displaced,
        kueue_options=verdict_options(request.kueue_gates),
        assume_webhooks_allow=request.assume_webhooks_allow,
    )
    not_checked = [(kind, "", count) for kind, count in request.manifests.not_checked().items()]
    not_checked += [(kind, field, count) for (kind, field), count in request.manifests.unsimulated_fields().items()]
    fixes = check_fixes(snapshot, placements, config, version.emulation, request.assume_webhooks_allow)
    return build_check_report(placements, snapshot, version, not_checked, displaced, fixes)
