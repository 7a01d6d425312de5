"""Builds the report model once from a scheduling cycle's outcome, and words its warnings."""

from __future__ import annotations

from msgspec import UNSET

from podwhy.framework.status import Code, Status
from podwhy.framework.types import PodInfo
from podwhy.model.quantity import milli_value, value
from podwhy.report.model import (
    Candidate,
    DryRunStatus,
    NodeReport,
    NominatedPod,
    PluginStatus,
    PodSummary,
    Preemption,
    PreFilterEntry,
    Report,
    SamplingReport,
    ScoreEntry,
    SnapshotSummary,
    StatusName,
    Victim,
)
from podwhy.runtime.cycle import CycleOutcome, Verdict
from podwhy.runtime.framework import PostFilterOutcome, PreFilterRecord
from podwhy.runtime.scoring import PluginScore
from podwhy.snapshot.cluster import Snapshot

DEFAULT_SCHEDULER_NAME = "default-scheduler"
DEFAULT_CONFIG_SOURCE = "the default configuration"


def status_name(status: Status) -> StatusName:
    return StatusName.NOT_EVALUATED if status.not_evaluated else StatusName(Code(status.code).name)


def plugin_status(plugin: str, status: Status, with_evidence: bool = True) -> PluginStatus:
    return PluginStatus(
        plugin=plugin,
        status=status_name(status),
        reasons=[status.not_evaluated] if status.not_evaluated else list(status.reasons),
        evidence=[e.to_json() for e in status.evidence] if with_evidence and status.evidence else UNSET,
    )


def _pre_filter_entry(rec: PreFilterRecord) -> PreFilterEntry:
    st = plugin_status(rec.plugin, rec.status)
    return PreFilterEntry(
        plugin=st.plugin,
        status=st.status,
        reasons=st.reasons,
        evidence=st.evidence,
        nodeNames=sorted(rec.node_names) if rec.node_names is not None else None,
    )


def _requests(pod: PodInfo) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, amount in sorted(pod.resource.requests.items()):
        out[name] = f"{milli_value(amount)}m" if name == "cpu" else str(value(amount))
    return out


def _score_entry(ps: PluginScore) -> ScoreEntry:
    return ScoreEntry(
        plugin=ps.plugin,
        raw=ps.raw,
        normalized=ps.normalized,
        weight=ps.weight,
        weighted=ps.weighted,
        skipped=True if ps.skipped else UNSET,
        notEvaluated=ps.not_evaluated or UNSET,
        evidence=[e.to_json() for e in ps.evidence] if ps.evidence else UNSET,
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
    out.dryRun = [
        DryRunStatus(node=node, status=status_name(st), plugin=st.plugin, reasons=list(st.reasons))
        for node, st in pre.node_statuses.items()
    ]
    return out


def _no_profile_message(cycle: CycleOutcome) -> str:
    message = (
        f"no profile of {cycle.config_source} has schedulerName {cycle.scheduler_name!r} "
        f"(profiles: {', '.join(cycle.profiles)}): this scheduler ignores the pod"
    )
    if cycle.config_source == DEFAULT_CONFIG_SOURCE:
        message += " (for a scheduler of its own, pass its configuration with --scheduler-config)"
    return message


def _warnings(cycle: CycleOutcome, snapshot: Snapshot) -> list[str]:
    warnings: list[str] = []
    scores = cycle.scores
    if cycle.ignored_score_error is not None:
        warnings.append(
            f"scoring failed ({cycle.ignored_score_error}); the scheduler does not score here, so it is not an error"
        )
    if scores is not None and scores.not_evaluated:
        warnings.append(
            "scores not evaluated (the snapshot lacks kinds they read), counted as 0: "
            + ", ".join(scores.not_evaluated)
        )
    if scores is not None and scores.not_simulated:
        warnings.append("score plugins podwhy does not simulate yet: " + ", ".join(scores.not_simulated))
    if cycle.missing_plugins:
        warnings.append("plugins podwhy does not simulate yet: " + ", ".join(cycle.missing_plugins))
    post_filter = cycle.post_filter
    if post_filter is not None:
        for name, reason in post_filter.not_evaluated.items():
            warnings.append(f"PostFilter {name} {reason}")
        if post_filter.pdbs_assumed_none:
            warnings.append(
                "the snapshot has no PodDisruptionBudgets: the preemption dry run assumed none, "
                "so it may pick victims whose eviction a budget would forbid"
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


def build_report(cycle: CycleOutcome, snapshot: Snapshot) -> Report:
    pod = cycle.pod.pod
    report = Report(
        pod=PodSummary(
            namespace=pod.metadata.namespace,
            name=pod.metadata.name,
            uid=pod.metadata.uid,
            phase=pod.status.phase,
            priority=cycle.pod.priority,
            schedulerName=pod.spec.scheduler_name or DEFAULT_SCHEDULER_NAME,
            nodeName=pod.spec.node_name or None,
            nominatedNodeName=pod.status.nominated_node_name or None,
            schedulingGates=list(cycle.gates),
            requests=_requests(cycle.pod),
        ),
        verdict=cycle.verdict,
        message=_no_profile_message(cycle) if cycle.verdict == Verdict.NO_PROFILE else cycle.message,
        messageComplete=cycle.message_complete,
        snapshot=SnapshotSummary(
            sources=list(snapshot.sources),
            nodes=len(snapshot.nodes),
            pods=len(snapshot.pods),
            missingKinds=sorted(snapshot.missing_kinds),
            ignoredKinds=dict(sorted(snapshot.ignored_kinds.items())),
        ),
        warnings=_warnings(cycle, snapshot),
        extenders=list(cycle.extenders),
    )
    if cycle.sampling is not None:
        report.sampling = SamplingReport(
            percentageOfNodesToScore=cycle.sampling.percentage_of_nodes_to_score,
            effectivePercentage=cycle.sampling.adaptive_percentage,
            nodesConsidered=cycle.sampling.num_nodes,
            numFeasibleNodesToFind=cycle.sampling.num_feasible_nodes_to_find,
        )
    outcome = cycle.outcome
    if outcome is None:
        return report
    report.preFilter = [_pre_filter_entry(rec) for rec in outcome.pre_filter]
    scores = cycle.scores
    for verdict in outcome.nodes:
        ff = verdict.first_failure
        report.nodes.append(
            NodeReport(
                name=verdict.name,
                feasible=verdict.feasible,
                filters=[plugin_status(name, st) for name, st in verdict.filters.items()],
                firstFailure=plugin_status(ff.plugin, ff, with_evidence=False) if ff is not None else None,
                nominatedPods=[
                    NominatedPod(pod=pi.key, priority=pi.priority, requests=_requests(pi))
                    for pi in verdict.nominated_pods
                ],
                scores=[_score_entry(ps) for ps in scores.scores.get(verdict.name, [])] if scores is not None else [],
                totalScore=scores.totals.get(verdict.name) if scores is not None else None,
            )
        )
    report.feasibleNodes = list(outcome.feasible)
    if cycle.post_filter is not None:
        report.preemption = _preemption(cycle.post_filter)
    if scores is not None:
        report.bestNodes = list(scores.best_nodes)
        report.scoringSkipped = scores.scoring_skipped
        report.nominatedNodeFits = cycle.nominated_node_fits
    return report
