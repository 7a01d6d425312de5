"""Builds the report model once from a scheduling cycle's outcome, and words its warnings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from podwhy.analysis import blocking
from podwhy.analysis.autoscaling.facts import AutoscalingAnalysis
from podwhy.analysis.kueuefacts import KueueFacts
from podwhy.analysis.pending import PendingPod
from podwhy.analysis.schedulerword import scheduler_said, serving
from podwhy.analysis.suggest.facts import Suggestion as SuggestedChange
from podwhy.analysis.suggest.notes import Note
from podwhy.analysis.verdictgroups import VerdictGroups
from podwhy.cluster.placementreasons import AdmissionOpen
from podwhy.framework.outcome import PostFilterOutcome, PreFilterRecord
from podwhy.model import objects as o
from podwhy.model.wellknownnames import DEFAULT_SCHEDULER_NAME
from podwhy.report.build.autoscaling import autoscaling_report
from podwhy.report.build.common import blocking_cause, scheduler_version, snapshot_summary, suggestion
from podwhy.report.build.inputs import api_server_warnings, input_warnings
from podwhy.report.build.nodes import nodes_and_groups, plugin_status, requests_text, status_name
from podwhy.report.build.release import version_warnings
from podwhy.report.model import (
    Candidate,
    DefaultedField,
    DryRunStatus,
    PendingCause,
    PodSummary,
    Preemption,
    PreFilterEntry,
    Report,
    SamplingReport,
    SchedulerWord,
    SchedulingEvent,
    StatusName,
    Victim,
)
from podwhy.report.words.admission import admission_open_text
from podwhy.report.words.kinds import add_kinds_text
from podwhy.report.words.lacking import lacking_kinds_warning
from podwhy.report.words.notevaluated import not_evaluated_text
from podwhy.report.words.pending import cause_text, details_text
from podwhy.report.words.schedulers import no_profile_note, no_scheduler
from podwhy.report.words.suggest import note_text
from podwhy.scheduler.cycle import CycleOutcome
from podwhy.scheduler.release import ChosenVersion, VersionSource
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict

DEFAULT_CONFIG_SOURCE = "the default configuration"


def _pre_filter_entry(rec: PreFilterRecord) -> PreFilterEntry:
    st = plugin_status(rec.plugin, rec.status)
    return PreFilterEntry(
        plugin=st.plugin,
        status=st.status,
        reasons=st.reasons,
        evidence=st.evidence,
        nodeNames=sorted(rec.node_names) if rec.node_names is not None else None,
    )


def _preemption(post_filter: PostFilterOutcome) -> Preemption:
    pre = post_filter.preemption
    out = Preemption(
        nominatedNode=pre.nominated_node if pre is not None else None,
        victims=[v.key for v in pre.victims] if pre is not None else [],
        pdbViolations=list(pre.violated_pdbs) if pre is not None else [],
        message=post_filter.preemption_message,
        postFilter=[plugin_status(st.plugin, st, with_evidence=False) for st in post_filter.statuses],
    )
    if pre is None:
        return out
    out.candidates = [
        Candidate(
            node=c.node,
            victims=[Victim(pod=v.key, priority=v.priority) for v in c.victims],
            numPDBViolations=c.num_pdb_violations,
            pdbViolations=c.pdbs(),
        )
        for c in pre.candidates
    ]
    # A status's name is that of its code (unless not evaluated): found once per code.
    names: dict[int, StatusName] = {}
    dry_run: list[DryRunStatus] = []
    for node, st in pre.node_statuses.items():
        if st.not_evaluated is not None:
            name = status_name(st)
        else:
            name = names.get(st.code) or names.setdefault(st.code, status_name(st))
        dry_run.append(DryRunStatus(node=node, status=name, plugin=st.plugin, reasons=list(st.reasons)))
    out.dryRun = dry_run
    return out


def _no_profile_message(cycle: CycleOutcome, snapshot: Snapshot) -> str:
    message = (
        f"no profile of {cycle.config_source} has schedulerName {cycle.scheduler_name!r} "
        f"(profiles: {', '.join(cycle.profiles)}): this scheduler ignores the pod"
    )
    finding = serving(snapshot, cycle.scheduler_name)
    if cycle.config_source == DEFAULT_CONFIG_SOURCE and not finding.running:
        message += " (for a scheduler of its own, pass its configuration with --scheduler-config)"
    return f"{message}; {no_profile_note(finding)}"


def _no_scheduler_warning(cycle: CycleOutcome, snapshot: Snapshot) -> str | None:
    """When the snapshot shows the scheduler pods serving the pod's schedulerName all down."""
    pod = cycle.pod.pod
    if cycle.verdict in (Verdict.ALREADY_BOUND, Verdict.NO_PROFILE):
        return None
    finding = serving(snapshot, pod.spec.scheduler_name or DEFAULT_SCHEDULER_NAME)
    if not finding.none_running:
        return None
    return (
        f"{no_scheduler(finding)}: nothing schedules the pod until one runs; the verdict is what it would decide then"
    )


# A pod of a pod group (spec.schedulingGroup, v1.36): what podwhy does not simulate about it.
POD_GROUP_NOT_SIMULATED = (
    "the pod belongs to pod group {group}{policy}: gang scheduling of pod groups (feature gates GenericWorkload and"
    " GangScheduling, off by default) is not simulated; podwhy schedules the pod on its own, as the default"
    " scheduler does, while with gang scheduling on its group's pods are placed together or not at all"
)


def _pod_group_policy(snapshot: Snapshot, namespace: str, name: str) -> str:
    """ " (policy gang, minCount N)" or " (policy basic)" of the pod's PodGroup; "" when the
    snapshot does not hold it (or it names neither)."""
    pod_group = snapshot.pod_groups.get(f"{namespace}/{name}")
    if pod_group is None:
        return ""
    policy = pod_group.spec.scheduling_policy
    if policy.gang is not None:
        return f" (policy gang, minCount {policy.gang.min_count})"
    if policy.basic is not None:
        return " (policy basic)"
    return ""


def _warnings(cycle: CycleOutcome, snapshot: Snapshot) -> list[str]:
    warnings: list[str] = []
    post_filter = cycle.post_filter
    # The preemption dry run's own warning says what no PodDisruptionBudgets mean: said once.
    pdbs_said = post_filter is not None and post_filter.pdbs_assumed_none
    lacking = [k for k in cycle.lacking_kinds if not (pdbs_said and k == "PodDisruptionBudget")]
    if lacking:
        warnings.append(lacking_kinds_warning(lacking))
    group = cycle.pod.pod.spec.scheduling_group
    if group is not None and group.pod_group_name:
        policy = _pod_group_policy(snapshot, cycle.pod.pod.metadata.namespace, group.pod_group_name)
        warnings.append(POD_GROUP_NOT_SIMULATED.format(group=group.pod_group_name, policy=policy))
    no_scheduler = _no_scheduler_warning(cycle, snapshot)
    if no_scheduler is not None:
        warnings.append(no_scheduler)
    scores = cycle.scores
    if cycle.ignored_score_error is not None:
        warnings.append(
            f"scoring failed ({cycle.ignored_score_error}); the scheduler does not score here, so it is not an error"
        )
    lacking_scores = [name for name in scores.not_evaluated if name not in scores.unsure] if scores is not None else []
    if lacking_scores:
        warnings.append(
            "scores not evaluated (the snapshot lacks kinds they read), counted as 0: " + ", ".join(lacking_scores)
        )
    for why in scores.unsure.values() if scores is not None else ():
        # Its Score reads what its Filter found, and normalizing weighs each node against the others.
        warnings.append(f"scores counted as 0 on every node, {not_evaluated_text(why)}")
    if scores is not None and scores.not_simulated:
        warnings.append("score plugins podwhy does not simulate yet: " + ", ".join(scores.not_simulated))
    if cycle.missing_plugins:
        warnings.append("plugins podwhy does not simulate yet: " + ", ".join(cycle.missing_plugins))
    if post_filter is not None:
        for name, why in post_filter.not_evaluated.items():
            warnings.append(f"PostFilter {name} {not_evaluated_text(why)}")
        for why in post_filter.filters_not_evaluated.values():
            warnings.append(
                f"the preemption dry run took a node as fitting where {not_evaluated_text(why)}: whether"
                " preemption helps there, and the message's preemption part, rest on it"
            )
        if post_filter.pdbs_assumed_none:
            warnings.append(
                "the snapshot has no PodDisruptionBudgets: the preemption dry run assumed none, "
                "so it may pick victims whose eviction a budget would forbid; "
                + add_kinds_text(["PodDisruptionBudget"])
            )
    sampling = cycle.sampling
    feasible = cycle.outcome.feasible if cycle.outcome is not None else []
    if sampling is not None and len(feasible) > sampling.num_feasible_nodes_to_find and not cycle.nominated_node_fits:
        warnings.append(
            f"kube-scheduler stops filtering after {sampling.num_feasible_nodes_to_find} feasible node(s) "
            f"(percentageOfNodesToScore {sampling.adaptive_percentage}% of {sampling.num_nodes}), starting where its "
            f"previous cycle stopped: it scores a sample of the {len(feasible)} feasible nodes listed "
            "here, so it may pick another node than bestNodes"
        )
    if cycle.extenders:
        warnings.append(
            "scheduler extenders are not simulated: "
            + ", ".join(cycle.extenders)
            + " can reject nodes podwhy accepts (a pod that looks schedulable may stay Pending) and change scores"
        )
    return warnings


DISAGREEMENT_CAUSES = [
    "the scheduler's message is older than the state of the snapshot (objects changed since it tried)",
    "a scheduler extender rejected nodes (podwhy cannot call extenders)",
    "the scheduler runs a non-default configuration (pass it with --scheduler-config) or is another scheduler",
    "a nominated pod's reservation has moved or gone since the scheduler tried",
]


def likely_release_cause(release: str) -> str:
    return f"the cluster's kube-scheduler is v{release}, whose words these are exactly (pass --kube-version {release})"


def _older_release_cause(version: ChosenVersion | None) -> list[str]:
    """When the release came from a kubelet (a lower bound) older than the one emulated: the likeliest
    cause of a disagreement is that the cluster's kube-scheduler is older than podwhy's."""
    if version is None or version.source != VersionSource.KUBELET or version.found is None:
        return []
    found = version.found
    if (found.major, found.minor) >= (1, version.emulation.minor):
        return []
    return [
        f"the cluster's kube-scheduler is older than the release podwhy emulates: its newest kubelet runs {found}"
        f" (the control plane runs that or newer), podwhy emulates v{version.emulation.name}, the nearest release"
        " it has; an older release words its messages and decides some cases differently"
    ]


def _not_evaluated_cause(plugins: Sequence[str]) -> list[str]:
    """A plugin podwhy could not evaluate may have rejected nodes the scheduler counted."""
    if not plugins:
        return []
    return [
        f"podwhy could not evaluate {', '.join(sorted(plugins))} (the snapshot lacks kinds they read): "
        "they may reject nodes"
    ]


def scheduler_word(
    pod: o.Pod,
    snapshot: Snapshot,
    report: Report,
    not_evaluated: Sequence[str] = (),
    version: ChosenVersion | None = None,
    likely_release: str | None = None,
) -> SchedulerWord:
    """What kube-scheduler last said of the pod, and whether it agrees; `not_evaluated`: the
    PreFilter/Filter plugins podwhy could not evaluate, a likely cause of a disagreement;
    `version`: the release emulated."""
    emulated = scheduler_version(version)
    said = scheduler_said(pod, snapshot, report.verdict, report.message, report.messageComplete)
    condition, event = said.condition, said.event
    if condition is None and event is None:
        return SchedulerWord(
            version=emulated.version, versionSource=emulated.versionSource, clusterVersion=emulated.clusterVersion
        )
    return SchedulerWord(
        version=emulated.version,
        versionSource=emulated.versionSource,
        clusterVersion=emulated.clusterVersion,
        condition=condition.message if condition is not None else None,
        conditionReason=condition.reason if condition is not None else None,
        conditionSince=condition.last_transition_time if condition is not None else None,
        event=SchedulingEvent(
            message=event.message,
            count=event.count,
            lastSeen=event.last_seen or None,
            reportingComponent=event.component,
        )
        if event is not None
        else None,
        agrees=said.agrees,
        causes=[
            *([likely_release_cause(likely_release)] if likely_release else []),
            *_older_release_cause(version),
            *_not_evaluated_cause(not_evaluated),
            *DISAGREEMENT_CAUSES,
        ]
        if said.agrees is False
        else [],
        likelyRelease=likely_release if said.agrees is False else None,
    )


def pending_cause(item: PendingPod | None) -> PendingCause | None:
    if item is None:
        return None
    return PendingCause(
        verdict=item.verdict,
        cause=cause_text(item.cause),
        owner=str(item.owner) if item.owner is not None else None,
        details=details_text(item.details),
    )


def _pod_summary(cycle: CycleOutcome) -> PodSummary:
    pod = cycle.pod.pod
    return PodSummary(
        namespace=pod.metadata.namespace,
        name=pod.metadata.name,
        uid=pod.metadata.uid,
        phase=pod.status.phase,
        priority=cycle.pod.priority,
        schedulerName=pod.spec.scheduler_name or DEFAULT_SCHEDULER_NAME,
        nodeName=pod.spec.node_name or None,
        nominatedNodeName=pod.status.nominated_node_name or None,
        schedulingGates=list(cycle.gates),
        requests=requests_text(cycle.pod),
    )


def build_report(
    cycle: CycleOutcome,
    snapshot: Snapshot,
    suggestions: Sequence[SuggestedChange] = (),
    notes: Sequence[Note] = (),
    pending: PendingPod | None = None,
    version: ChosenVersion | None = None,
    autoscaling: AutoscalingAnalysis | None = None,
    likely_release: str | None = None,
    kueue: KueueFacts | None = None,
    kueue_gates: Mapping[str, bool] | None = None,
    admission_open: AdmissionOpen | None = None,
) -> Report:
    """The report of one pod's cycle; `notes` (what a bound kept the suggestions from looking for)
    join the warnings, and so do those of the `version` emulated; `pending`: how `podwhy pending`
    classifies the pod; `likely_release`: the release whose words kube-scheduler's are, when they
    disagree with the emulated one's; `kueue`: Kueue's answer when Kueue holds the pod (with the
    Kueue gates assumed), said first; `admission_open`: what the API server's admission of a pod
    of -f leaves open (webhooks, policies not evaluated), said among the warnings."""
    pod = cycle.pod.pod
    # The node verdicts grouped by their shared statuses, for the causes and the nodes.
    grouped = VerdictGroups.of(cycle.outcome.nodes) if cycle.outcome is not None else None
    report = Report(
        pod=_pod_summary(cycle),
        verdict=cycle.verdict,
        message=_no_profile_message(cycle, snapshot) if cycle.verdict == Verdict.NO_PROFILE else cycle.message,
        messageComplete=cycle.message_complete,
        causes=[blocking_cause(c) for c in blocking.blocking_causes(cycle, snapshot.nodes, snapshot.pods, grouped)],
        pending=pending_cause(pending),
        snapshot=snapshot_summary(snapshot),
        warnings=[
            *input_warnings(snapshot),
            *version_warnings(version),
            *api_server_warnings(snapshot),
            *_warnings(cycle, snapshot),
            *([admission_open_text(admission_open)] if admission_open else []),
            *(note_text(n) for n in notes),
        ],
        extenders=list(cycle.extenders),
        notStorable=snapshot.unstorable.get(f"{pod.metadata.namespace}/{pod.metadata.name}", ""),
        notEvaluated=not_evaluated_text(cycle.not_evaluated)
        if cycle.verdict == Verdict.INCONCLUSIVE and cycle.not_evaluated is not None
        else "",
        lackingKinds=list(cycle.lacking_kinds) if cycle.verdict == Verdict.INCONCLUSIVE else [],
        suggestions=[suggestion(s) for s in suggestions],
        autoscaling=autoscaling_report(autoscaling) if autoscaling is not None else None,
    )
    not_evaluated = list(cycle.outcome.not_evaluated) if cycle.outcome is not None else []
    report.scheduler = scheduler_word(pod, snapshot, report, not_evaluated, version, likely_release)
    defaulted = snapshot.defaulted.get(f"{pod.metadata.namespace}/{pod.metadata.name}")
    if defaulted:
        report.apiServerDefaults = [DefaultedField(field=f, value=v, why=w) for f, v, w in defaulted]
    if cycle.sampling is not None:
        report.sampling = SamplingReport(
            percentageOfNodesToScore=cycle.sampling.percentage_of_nodes_to_score,
            effectivePercentage=cycle.sampling.adaptive_percentage,
            nodesConsidered=cycle.sampling.num_nodes,
            numFeasibleNodesToFind=cycle.sampling.num_feasible_nodes_to_find,
        )
    outcome = cycle.outcome
    if outcome is None:
        return _with_kueue(report, pod, kueue, kueue_gates)
    report.preFilter = [_pre_filter_entry(rec) for rec in outcome.pre_filter]
    scores = cycle.scores
    report.nodes, report.nodeGroups = nodes_and_groups(outcome.nodes, scores, grouped)
    report.feasibleNodes = list(outcome.feasible)
    if cycle.post_filter is not None:
        report.preemption = _preemption(cycle.post_filter)
    if scores is not None:
        report.bestNodes = list(scores.best_nodes)
        report.scoringSkipped = scores.scoring_skipped
        report.nominatedNodeFits = cycle.nominated_node_fits
    return _with_kueue(report, pod, kueue, kueue_gates)


def _with_kueue(report: Report, pod: o.Pod, kueue: KueueFacts | None, gates: Mapping[str, bool] | None) -> Report:
    """The report with Kueue's answer, when Kueue holds the pod (report/build/kueue.py, loaded
    only then)."""
    if kueue is not None:
        from podwhy.report.build.kueue import attach_kueue

        attach_kueue(report, kueue, pod, gates)
    return report
