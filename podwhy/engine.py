"""Wires one explain request: snapshot source → the pod → the scheduling cycle → the report."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from podwhy.analysis.autoscaling.analysis import analyse, autoscalers
from podwhy.analysis.kueuefacts import KueueFacts, has_kueue
from podwhy.analysis.pending import analyse_groups, classify_pending, classify_pod, is_pending, pending_group
from podwhy.analysis.schedulerword import counts_other_nodes, scheduler_said
from podwhy.analysis.suggest.causesizing import size_causes
from podwhy.analysis.suggest.groups import size_groups
from podwhy.analysis.suggest.notes import Note
from podwhy.analysis.suggest.order import suggest
from podwhy.analysis.suggest.shared import SizingShared
from podwhy.analysis.workloadfacts import FAILED_CREATE, WorkloadFacts, WorkloadState
from podwhy.analysis.workloadtarget import failing_workloads
from podwhy.cluster.apiserver.admission.attributes import admitted_without
from podwhy.cluster.apiserver.defaults import drop_disabled_fields
from podwhy.cluster.apiserver.validation.pod import note_unstorable
from podwhy.cluster.placementreasons import AdmissionOpen, PlaceProgress
from podwhy.errors import PodwhyError, UsageError
from podwhy.features.emulation import DEFAULT as DEFAULT_EMULATION
from podwhy.features.emulation import EMULATED, Emulation, nearest_emulation
from podwhy.features.kubefeatures import POD_LEVEL_RESOURCES
from podwhy.framework.notevaluated import ADMISSION_CONTROL
from podwhy.framework.runtime import Framework
from podwhy.framework.types import pod_key
from podwhy.model import objects as o
from podwhy.report.build.explain import build_report
from podwhy.report.build.pending import build_pending_report
from podwhy.report.model import CheckReport, PendingReport, Report
from podwhy.report.words.pending import cause_text
from podwhy.scheduler.config import SchedulerConfig, default_config, load_scheduler_config, profile_for_pod
from podwhy.scheduler.cycle import framework_for_release, make_framework, no_profile, run_cycle
from podwhy.scheduler.release import ChosenVersion, VersionSource, choose_version, parse_kube_version_flag
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.resources import SNAPSHOT_COMMAND, dump_hint
from podwhy.snapshot.source import SnapshotSource, input_names
from podwhy.verdict import Verdict

if TYPE_CHECKING:
    from podwhy.cluster.kueue.admission import VerdictOptions
    from podwhy.cluster.manifests import ManifestSource, PodManifest


def scheduler_config(path: Path | None, emulation: Emulation = DEFAULT_EMULATION) -> SchedulerConfig:
    """The KubeSchedulerConfiguration at PATH, or what kube-scheduler runs without one, as the
    emulated release reads it."""
    return default_config(emulation) if path is None else load_scheduler_config(path, emulation)


def _check_before_fetching(config_path: Path | None, kube_version: str | None) -> None:
    """A bad --kube-version or --scheduler-config fails before anything is fetched. The
    configuration is read again once the release is known; here it is checked as the flag's
    release, else as every release podwhy emulates: it fails only when none accepts it (with the
    default release's words)."""
    if kube_version is not None:
        scheduler_config(config_path, nearest_emulation(parse_kube_version_flag(kube_version)))
        return
    try:
        scheduler_config(config_path, DEFAULT_EMULATION)
    except PodwhyError:
        for emulation in EMULATED.values():
            try:
                scheduler_config(config_path, emulation)
                return
            except PodwhyError:
                continue
        raise


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


def kindless_note(snapshot: Snapshot) -> str:
    """For an error on an empty snapshot: the documents without a kind it skipped, if any."""
    if not snapshot.kindless:
        return ""
    source, where = snapshot.kindless[0]
    count = len(snapshot.kindless)
    skipped = "1 document without a kind was" if count == 1 else f"{count:,} documents without a kind were"
    return f"; {skipped} skipped ({source}: {where}{', ...' if count > 1 else ''})"


# What kubectl takes before a slash for a pod (`kubectl get pod/web`): the resource, not a namespace.
POD_RESOURCE_NAMES = frozenset({"pod", "pods", "po"})


def split_pod_ref(ref: str, namespace: str) -> tuple[str, str]:
    """NAME, NAMESPACE/NAME, or kubectl's TYPE/NAME (`pod/NAME`, `pods/NAME`, `po/NAME`, the
    namespace from -n): kubectl's reading wins over a namespace named pod, pods or po."""
    kind, slash, rest = ref.partition("/")
    if slash and kind.lower() in POD_RESOURCE_NAMES and rest and "/" not in rest:
        return namespace, rest
    if "/" in ref:
        ns, _, name = ref.partition("/")
        if not ns or not name or "/" in name:
            raise UsageError(f"invalid pod reference {ref!r}", hint="use NAME, NAMESPACE/NAME or pod/NAME")
        return ns, name
    return namespace, ref


def closest(name: str, candidates: Sequence[str]) -> list[str]:
    """Up to three names close to `name`, for "did you mean" hints."""
    return difflib.get_close_matches(name, candidates, n=3, cutoff=0.5)


def check_namespace(snapshot: Snapshot, namespace: str, source: SnapshotSource | None = None) -> None:
    """A namespace the snapshot does not show is an error naming the closest ones, never an empty
    (all-clear) answer: no Namespace object of that name and no object in it. When the
    Namespaces could not be listed, a live source is asked for the one Namespace."""
    if snapshot.has_namespace(namespace):
        return
    listed = "Namespace" in snapshot.kinds_seen and "Namespace" not in snapshot.missing
    ask = getattr(source, "namespace_exists", None)
    if not listed and ask is not None:
        exists = ask(namespace)
        if exists:
            return
        listed = exists is False
    known = sorted(snapshot.namespace_names())
    where = "the cluster has no such Namespace" if listed else "the snapshot holds no Namespace or object of that name"
    close = closest(namespace, known)
    if close:
        hint = f"closest: {', '.join(close)}"
    elif known:
        hint = f"the snapshot has {len(known)} namespace{'s' if len(known) != 1 else ''}: {', '.join(known[:5])}"
        hint += ", …" if len(known) > 5 else ""
    else:
        hint = "the snapshot holds no namespaced objects"
    raise PodwhyError(f"namespace {namespace!r} not found: {where}", hint=hint)


def find_pod(snapshot: Snapshot, namespace: str, name: str, source: SnapshotSource | None = None) -> o.Pod:
    for pod in snapshot.pods:
        if pod.metadata.name == name and pod.metadata.namespace == namespace:
            return pod
    check_namespace(snapshot, namespace, source)
    if not snapshot.pods:
        raise PodwhyError(
            f"pod {namespace}/{name} not found: the snapshot holds no pods",
            hint="pass a dump that includes Pods, or the pod itself with -f pod.yaml",
        )
    keys = [pod_key(p) for p in snapshot.pods]
    close = closest(f"{namespace}/{name}", keys)
    if not close:
        close = [k for k in keys if k.endswith("/" + name)][:3]
    hints = [f"closest: {', '.join(close)}"] if close else []
    waiting = pending_examples(snapshot, namespace, set(close))
    hints += [waiting] if waiting else []
    hint = "; ".join(hints) or f"the snapshot has {len(keys)} pods, e.g. {', '.join(keys[:3])}"
    raise PodwhyError(f"pod {namespace}/{name} not found in the snapshot", hint=hint)


# How many of the snapshot's Pending pods a "not found" hint offers.
PENDING_EXAMPLES = 3


def pending_examples(snapshot: Snapshot, namespace: str, named: set[str]) -> str | None:
    """A few of the pods that wait for a node, those of NAMESPACE first, none NAMED already: what
    one may have meant to explain (NAMESPACE/NAME; the error line escapes what they hold)."""
    waiting = [p for p in snapshot.pods if is_pending(p) and not p.spec.node_name and pod_key(p) not in named]
    if not waiting:
        return None
    waiting.sort(key=lambda p: p.metadata.namespace != namespace)  # stable: the snapshot's order otherwise
    shown = ", ".join(pod_key(p) for p in waiting[:PENDING_EXAMPLES])
    more = f", … ({len(waiting):,} in all)" if len(waiting) > PENDING_EXAMPLES else ""
    return f"Pending pods: {shown}{more}"


def check_node(snapshot: Snapshot, node: str) -> None:
    names = [n.metadata.name for n in snapshot.nodes]
    if node in names:
        return
    close = closest(node, names)
    hint = f"closest: {', '.join(close)}" if close else f"the snapshot has {len(names)} nodes"
    raise UsageError(f"--node {node!r}: no such node in the snapshot", hint=hint)


def explain(request: ExplainRequest) -> Report:
    manifest: PodManifest | None = None
    if request.pod_file is not None:
        from podwhy.cluster.manifests import read_pod_manifest

        manifest = read_pod_manifest(request.pod_file, request.namespace)  # fails before fetching
    _check_before_fetching(request.scheduler_config, request.kube_version)
    snapshot = request.source.load()
    owned: tuple[WorkloadFacts, o.Pod | None] | None = None
    if manifest is None and request.pod_ref is not None:
        queued = _kueue_target(snapshot, request.pod_ref, request.namespace, request.kueue_gates)
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
    kueue = _kueue_for_pod(snapshot, pod, request.kueue_gates) if manifest is None else None
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


def _verdict_options(gates: Mapping[str, bool] | None) -> VerdictOptions | None:
    """Kueue's options with GATES (None: v0.20's defaults)."""
    from podwhy.cluster.kueue.admission import VerdictOptions

    return None if gates is None else VerdictOptions(gates=gates)


def _kueue_target(snapshot: Snapshot, ref: str, namespace: str, gates: Mapping[str, bool] | None) -> Report | None:
    """The report of a Job, Workload or owner Kueue manages (TYPE/NAME); None for a pod reference
    or a snapshot without Kueue objects. kubectl's reading wins, unless only the NAMESPACE/NAME
    reading names something: a pod of that name in a namespace so called."""
    if not has_kueue(snapshot):
        return None  # as kueue_target says, without loading Kueue's code
    from podwhy.analysis.kueuetarget import NotQueuedError, kueue_target
    from podwhy.report.build.kueue import build_kueue_report

    try:
        facts = kueue_target(snapshot, ref, namespace, _verdict_options(gates))
    except NotQueuedError:
        return None  # a Job Kueue does not queue: explained as any workload
    except PodwhyError:
        ns, _, name = ref.partition("/")
        if any(p.metadata.namespace == ns and p.metadata.name == name for p in snapshot.pods):
            return None
        raise
    return None if facts is None else build_kueue_report(facts, snapshot, gates)


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


def _kueue_for_pod(snapshot: Snapshot, pod: o.Pod, gates: Mapping[str, bool] | None) -> KueueFacts | None:
    """Kueue's answer for a pod it gates, or whose Job's Workload it has not admitted."""
    if not has_kueue(snapshot):
        return None
    from podwhy.analysis.kueue import facts_for_pod

    return facts_for_pod(snapshot, pod, _verdict_options(gates))


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
    """Every Pending pod of the snapshot, grouped by cause and owner."""
    _check_before_fetching(request.scheduler_config, request.kube_version)
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
        kueue=_kueue_pending(snapshot, request.namespace, request.kueue_gates),
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


def _kueue_pending(
    snapshot: Snapshot, namespace: str | None, gates: Mapping[str, bool] | None
) -> list[KueueFacts] | None:
    """What Kueue holds: only when the snapshot holds Kueue's objects (None: it holds none)."""
    if not has_kueue(snapshot):
        return None
    from podwhy.analysis.kueue import kueue_pending

    return kueue_pending(snapshot, namespace, _verdict_options(gates))


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
    _check_before_fetching(request.scheduler_config, request.kube_version)
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
        kueue_options=_verdict_options(request.kueue_gates),
        assume_webhooks_allow=request.assume_webhooks_allow,
    )
    not_checked = [(kind, "", count) for kind, count in request.manifests.not_checked().items()]
    not_checked += [(kind, field, count) for (kind, field), count in request.manifests.unsimulated_fields().items()]
    fixes = check_fixes(snapshot, placements, config, version.emulation, request.assume_webhooks_allow)
    return build_check_report(placements, snapshot, version, not_checked, displaced, fixes)
