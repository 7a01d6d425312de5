"""`explain`: the pod (or the workload, Job or Workload named) → the scheduling cycle of the
release emulated → the analysis and suggestions → the report."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from podwhy.analysis.autoscaling.analysis import analyse, autoscalers
from podwhy.analysis.kueuefacts import KueueFacts
from podwhy.analysis.pending import classify_pod, pending_group
from podwhy.analysis.schedulerword import counts_other_nodes, scheduler_said
from podwhy.analysis.suggest.notes import Note
from podwhy.analysis.suggest.order import suggest
from podwhy.analysis.workloadfacts import WorkloadFacts, WorkloadState
from podwhy.cluster.apiserver.admission.attributes import admitted_without
from podwhy.cluster.apiserver.defaults import drop_disabled_fields
from podwhy.cluster.apiserver.validation.pod import note_unstorable
from podwhy.cluster.placementreasons import AdmissionOpen
from podwhy.engine.config import check_before_fetching, scheduler_config
from podwhy.engine.kueue import kueue_for_pod, kueue_report
from podwhy.engine.lookup import check_namespace, check_node, find_pod, kindless_note, split_pod_ref
from podwhy.errors import PodwhyError
from podwhy.features.emulation import EMULATED, Emulation
from podwhy.features.kubefeatures import POD_LEVEL_RESOURCES
from podwhy.framework.notevaluated import ADMISSION_CONTROL
from podwhy.framework.runtime import Framework
from podwhy.heap import gc_deferred
from podwhy.model import objects as o
from podwhy.report.build.explain import build_report
from podwhy.report.model import Report
from podwhy.scheduler.config import SchedulerConfig, profile_for_pod
from podwhy.scheduler.cycle import framework_for_release, make_framework, no_profile, run_cycle
from podwhy.scheduler.release import ChosenVersion, VersionSource, choose_version
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.resources import dump_hint
from podwhy.snapshot.source import SnapshotSource, input_names
from podwhy.verdict import Verdict

if TYPE_CHECKING:
    from podwhy.cluster.manifests import PodManifest


class ExplainRequest(msgspec.Struct):
    pod_ref: str | None
    namespace: str
    source: SnapshotSource
    pod_file: Path | None = None
    scheduler_config: Path | None = None
    # --node: checked against the snapshot before anything runs or prints.
    node: str | None = None
    # --kube-version: the kube-scheduler release to emulate (None: the cluster's, see scheduler.release).
    kube_version: str | None = None
    # --kueue-feature-gates: Kueue's gates set (None: Kueue v0.20's defaults, names.FEATURE_DEFAULTS).
    kueue_gates: Mapping[str, bool] | None = None
    # --assume-webhooks-allow: the admission webhooks a pod of -f meets (never called) admit it.
    assume_webhooks_allow: bool = False


def explain(request: ExplainRequest) -> Report:
    """The report of the pod (or workload, Job, Workload) the request names. The cyclic garbage
    collector is deferred for the whole of it (podwhy.heap): one explain builds a verdict, a status
    and a report entry per node and the suggestions' copies, which reference counting frees; at
    65,000 nodes the collections they set off took 0.6-1.2 s of an explain after the load (a
    fifth) and freed a few hundred objects."""
    with gc_deferred():
        return _explain(request)


def _explain(request: ExplainRequest) -> Report:
    manifest: PodManifest | None = None
    if request.pod_file is not None:
        from podwhy.cluster.manifests import read_pod_manifest

        manifest = read_pod_manifest(request.pod_file, request.namespace)  # fails before fetching
    check_before_fetching(request.scheduler_config, request.kube_version)
    snapshot = request.source.load()
    owned: tuple[WorkloadFacts, o.Pod | None] | None = None
    if manifest is None and request.pod_ref is not None:
        queued = kueue_report(snapshot, request.pod_ref, request.namespace, request.kueue_gates)
        if queued is not None:  # job/NAME, workload/NAME, an owner Kueue manages
            return queued
        owned = _workload_target(snapshot, request)  # deployment/NAME and the other workload kinds
        if owned is not None and owned[1] is None:  # none of its pods is Pending
            from podwhy.analysis.suggest.policyverify import with_policy_fixes
            from podwhy.report.build.notcreated import build_workload_report

            version, facts = choose_version(request.kube_version, snapshot), owned[0]
            if facts.state is WorkloadState.NOT_CREATED:  # what is suggested for a policy's refusal
                drop_disabled_fields(snapshot, version.emulation)
                config = scheduler_config(request.scheduler_config, version.emulation)
                facts = with_policy_fixes(snapshot, [facts], config, version.emulation)[0]
            return build_workload_report(facts, snapshot, version)
    if not snapshot.nodes and not snapshot.pods:
        raise PodwhyError(
            f"the snapshot holds no nodes and no pods ({input_names(snapshot.sources)}){kindless_note(snapshot)}",
            hint=dump_hint(),
        )
    pod, version = _explained_pod(request, snapshot, manifest, owned[1] if owned is not None else None)
    # Kueue holds it (gated, or its Job's Workload waits): Kueue's answer comes first.
    kueue = kueue_for_pod(snapshot, pod, request.kueue_gates) if manifest is None else None
    drop_disabled_fields(snapshot, version.emulation)
    if manifest is None:  # a pod the API server would not store as it is: said, not refused
        note_unstorable(snapshot, [pod], version.emulation)
    config = scheduler_config(request.scheduler_config, version.emulation)
    if not snapshot.nodes:
        raise PodwhyError("the snapshot holds no nodes", hint="pass a dump that includes Nodes")
    if request.node is not None:
        check_node(snapshot, request.node)
    report = _explain_pod(request, snapshot, pod, config, version, manifest, kueue)
    if owned is not None:  # the workload's Pending pod: which one, and how many are Pending
        from podwhy.report.build.notcreated import workload_target

        report.workload = workload_target(owned[0])
    return report


def _explained_pod(
    request: ExplainRequest, snapshot: Snapshot, manifest: PodManifest | None, chosen: o.Pod | None = None
) -> tuple[o.Pod, ChosenVersion]:
    """The pod to explain and the release emulated: the manifest's pod, created through the API
    server's admission with what the file creates along with it, the workload's pod CHOSEN, or
    the snapshot's pod named."""
    if chosen is not None:
        return chosen, choose_version(request.kube_version, snapshot)
    if manifest is None:
        assert request.pod_ref is not None
        namespace, name = split_pod_ref(request.pod_ref, request.namespace)
        pod = find_pod(snapshot, namespace, name, request.source)
        return pod, choose_version(request.kube_version, snapshot)
    from podwhy.cluster.controllers.resourceclaim import create_template_claims

    declared = {e.obj.metadata.name for e in manifest.support if e.kind == "Namespace"}
    namespace = manifest.pod.metadata.namespace or request.namespace
    if namespace not in declared:
        check_namespace(snapshot, namespace, request.source)
    manifest.apply(snapshot, request.namespace)  # what the file creates along with the pod
    version = choose_version(request.kube_version, snapshot)
    pod = manifest.admit(snapshot, request.namespace, version.emulation)
    left_open = manifest.admission_open
    if left_open is not None and request.assume_webhooks_allow:
        left_open = manifest.admission_open = AdmissionOpen(policies=left_open.policies)
    if left_open:  # webhooks never called, policies not evaluated: a fit is not vouched for
        admitted_without(pod, snapshot, ADMISSION_CONTROL)
    create_template_claims(pod, snapshot)  # the resource-claim controller's part
    return pod, version


def _explain_pod(
    request: ExplainRequest,
    snapshot: Snapshot,
    pod: o.Pod,
    config: SchedulerConfig,
    version: ChosenVersion,
    manifest: PodManifest | None,
    kueue: KueueFacts | None = None,
) -> Report:
    """The pod's scheduling cycle, what `pending` says of it, the autoscalers' view and the
    suggestions, as the report; the release the cluster likely runs when its scheduler disagrees;
    KUEUE: Kueue's answer when Kueue holds the pod, said first."""
    profile = profile_for_pod(config, pod)
    # What `pending` would say of it: only for a pod of the snapshot, not one given with -f.
    classify = manifest is None
    if profile is None:
        classified = classify_pod(snapshot, config, pod) if classify else None
        return build_report(
            no_profile(pod, config),
            snapshot,
            pending=classified,
            version=version,
            kueue=kueue,
            kueue_gates=request.kueue_gates,
        )
    names = frozenset(p.scheduler_name for p in config.profiles)
    # Indexed once: the cycle and the suggestions' re-runs share it (a bound pod needs none).
    framework = None if pod.spec.node_name else make_framework(snapshot, profile, names)
    cycle = run_cycle(snapshot, pod, profile, extenders=config.extenders, scheduler_names=names, framework=framework)
    scalers = autoscalers(snapshot)  # read once: for classifying, and for the analysis
    classified = classify_pod(snapshot, config, pod, cycle, framework, scalers) if classify else None
    owner, group = pending_group(snapshot, pod) if cycle.verdict == Verdict.UNSCHEDULABLE else (None, [])
    analysis = None
    if cycle.verdict == Verdict.UNSCHEDULABLE and framework is not None:
        analysis = analyse(snapshot, pod, cycle, framework, scalers)
    notes: list[Note] = []
    suggestions = suggest(
        snapshot,
        cycle,
        profile,
        names,
        config=config,
        group=group,
        group_owner=str(owner) if owner else None,
        framework=framework,
        notes=notes,
        manifest=None if request.pod_file is None else str(request.pod_file),
        autoscaling=analysis,
        document=manifest.document if manifest is not None else None,
    )
    # When kube-scheduler's own word disagrees, the release whose words it is: computed before the
    # report is built, which it then only reads.
    likely = None
    if version.source is not VersionSource.FLAG and manifest is None:
        said = scheduler_said(pod, snapshot, cycle.verdict, cycle.message, cycle.message_complete)
        if said.agrees is False and not counts_other_nodes(said, len(snapshot.nodes)):  # else none agrees
            likely = _likely_release(snapshot, pod, version.emulation, request.scheduler_config, framework)
    return build_report(
        cycle,
        snapshot,
        suggestions,
        notes,
        classified,
        version,
        analysis,
        likely_release=likely,
        kueue=kueue,
        kueue_gates=request.kueue_gates,
        admission_open=manifest.admission_open if manifest is not None else None,
    )


def _workload_target(snapshot: Snapshot, request: ExplainRequest) -> tuple[WorkloadFacts, o.Pod | None] | None:
    """The workload kubectl's TYPE/NAME names (a Deployment, a StatefulSet...) and its Pending
    pod to explain (None: none of its pods is Pending); None for a pod reference. kubectl's
    reading wins, unless only the NAMESPACE/NAME reading names something: a pod of that name in a
    namespace so called."""
    from podwhy.analysis.workloadtarget import workload_kind, workload_target

    assert request.pod_ref is not None
    typed = workload_kind(request.pod_ref)
    if typed is None:
        return None
    kind, name = typed
    emulation = choose_version(request.kube_version, snapshot).emulation
    try:
        return workload_target(snapshot, kind, request.namespace, name, emulation)
    except PodwhyError:
        ns, _, pod_name = request.pod_ref.partition("/")
        if any(p.metadata.namespace == ns and p.metadata.name == pod_name for p in snapshot.pods):
            return None
        check_namespace(snapshot, request.namespace, request.source)
        raise


def _likely_release(
    snapshot: Snapshot, pod: o.Pod, emulated: Emulation, config_path: Path | None, base: Framework | None = None
) -> str | None:
    """The other emulated release whose scheduler words the message kube-scheduler itself gave
    the pod exactly, nearest to the emulated one first; None when none does. A release that drops
    disabled fields drops them from the snapshot's pods (those come last); they are given back
    before returning, so that the snapshot is as the emulated release holds it. BASE: the emulated
    release's framework over the snapshot, whose node indexes a release that changes no pod shares."""
    others = sorted(
        (e for e in EMULATED.values() if e != emulated),
        key=lambda e: (not e.enabled(POD_LEVEL_RESOURCES), abs(e.minor - emulated.minor), -e.minor),
    )
    kept = [(p, p.spec.resources) for p in snapshot.pods if p.spec.resources is not None]
    try:
        for emulation in others:
            drop_disabled_fields(snapshot, emulation)
            config = scheduler_config(config_path, emulation)
            profile = profile_for_pod(config, pod)
            if profile is None:
                continue
            names = frozenset(p.scheduler_name for p in config.profiles)
            # The pods are as BASE indexed them unless this release dropped a field of one.
            same_pods = not kept or emulation.enabled(POD_LEVEL_RESOURCES)
            shared = base is not None and same_pods and base.handle.scheduler_names == names
            framework = framework_for_release(base, profile) if shared and base is not None else None
            cycle = run_cycle(
                snapshot, pod, profile, extenders=config.extenders, scheduler_names=names, framework=framework
            )
            if scheduler_said(pod, snapshot, cycle.verdict, cycle.message, cycle.message_complete).agrees:
                return emulation.name
        return None
    finally:
        for kept_pod, resources in kept:
            kept_pod.spec.resources = resources
