"""`pending`: every Pending pod of the snapshot classified, grouped by cause and owner, sized,
with what Kueue holds and the workloads whose pods are not being created."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import msgspec

from podwhy.analysis.autoscaling.analysis import autoscalers
from podwhy.analysis.kueuefacts import has_kueue
from podwhy.analysis.pending import analyse_groups, classify_pending, is_pending
from podwhy.analysis.suggest.causesizing import size_causes
from podwhy.analysis.suggest.groups import size_groups
from podwhy.analysis.suggest.shared import SizingShared
from podwhy.analysis.workloadfacts import FAILED_CREATE
from podwhy.analysis.workloadtarget import failing_workloads
from podwhy.cluster.apiserver.defaults import drop_disabled_fields
from podwhy.cluster.apiserver.validation.pod import note_unstorable
from podwhy.engine.config import check_before_fetching, scheduler_config
from podwhy.engine.kueue import kueue_held
from podwhy.engine.lookup import check_namespace, kindless_note
from podwhy.errors import PodwhyError
from podwhy.framework.runtime import Framework
from podwhy.heap import gc_deferred
from podwhy.report.build.pending import build_pending_report
from podwhy.report.model import PendingReport
from podwhy.report.words.pending import cause_text
from podwhy.scheduler.release import choose_version
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.resources import dump_hint
from podwhy.snapshot.source import SnapshotSource, input_names


class PendingRequest(msgspec.Struct):
    source: SnapshotSource
    # None: every namespace.
    namespace: str | None
    scheduler_config: Path | None = None
    kube_version: str | None = None
    # The command that covers every namespace (said when `namespace` holds no Pending pod).
    all_namespaces: str | None = None
    # --kueue-feature-gates (None: Kueue v0.20's defaults).
    kueue_gates: Mapping[str, bool] | None = None


def pending(request: PendingRequest) -> PendingReport:
    """Every Pending pod of the snapshot, grouped by cause and owner. The cyclic garbage collector
    is deferred for the whole of it, as for explain (explainpod.py): at 65,000 nodes its
    collections took 1.0-1.5 s of `pending -A` after the load and freed about a thousand objects."""
    with gc_deferred():
        return _pending(request)


def _pending(request: PendingRequest) -> PendingReport:
    check_before_fetching(request.scheduler_config, request.kube_version)
    snapshot = request.source.load()
    # Kueue's suspended Jobs, and workloads whose pods are not being created, have no pods.
    if not snapshot.pods and not has_kueue(snapshot) and not _reports_failed_create(snapshot):
        raise PodwhyError(
            f"the snapshot holds no pods ({input_names(snapshot.sources)}){kindless_note(snapshot)}",
            hint=dump_hint(),
        )
    if request.namespace is not None:
        check_namespace(snapshot, request.namespace, request.source)
    version = choose_version(request.kube_version, snapshot)
    drop_disabled_fields(snapshot, version.emulation)
    note_unstorable(
        snapshot,
        (
            pod
            for pod in snapshot.pods
            if is_pending(pod)
            and not pod.spec.node_name
            and (request.namespace is None or pod.metadata.namespace == request.namespace)
        ),
        version.emulation,
    )
    config = scheduler_config(request.scheduler_config, version.emulation)
    # The classifier's indexes serve the group sizing too.
    frameworks: dict[str, Framework] = {}
    scalers = autoscalers(snapshot)  # read once: for classifying, and for the groups' analysis
    pending_pods = classify_pending(snapshot, config, request.namespace, frameworks, scalers)
    # Groups of one size are analysed and sized in the report's order; the autoscalers' view of a
    # group says who would add the nodes its sizing counts.
    autoscaling = analyse_groups(snapshot, pending_pods, config, frameworks, scalers, cause_order=cause_text)
    # What sizing finds of the snapshot (shapes, startup pods, first pods' cycles), found once for both.
    shared = SizingShared(snapshot, frameworks)
    sizing = size_groups(
        snapshot, pending_pods, config, frameworks, cause_order=cause_text, autoscaling=autoscaling, shared=shared
    )
    # The summary: each cause's pods taken together, whatever their owner.
    causes = size_causes(snapshot, pending_pods, config, sizing, frameworks, cause_order=cause_text, shared=shared)
    from podwhy.analysis.suggest.policyverify import with_policy_fixes

    # None here, some elsewhere: they are classified, so that the first line and the exit code say
    # what -A would.
    elsewhere = (
        classify_pending(snapshot, config, None, frameworks, scalers)
        if request.namespace is not None and not pending_pods
        else []
    )
    return build_pending_report(
        pending_pods,
        snapshot,
        sizing,
        request.namespace,
        version,
        autoscaling,
        causes,
        elsewhere=elsewhere,
        all_namespaces=request.all_namespaces,
        kueue=kueue_held(snapshot, request.namespace, request.kueue_gates),
        not_created=with_policy_fixes(
            snapshot,
            failing_workloads(snapshot, request.namespace, version.emulation),
            config,
            version.emulation,
            frameworks,
        ),
    )


def _reports_failed_create(snapshot: Snapshot) -> bool:
    return any(e.reason == FAILED_CREATE for e in snapshot.events)
