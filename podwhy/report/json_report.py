"""The stable JSON/YAML report (apiVersion podwhy/v1, kind Explanation)."""

from __future__ import annotations

from typing import Any

from podwhy.engine import Explanation, PostFilterOutcome
from podwhy.framework.status import Code, Status
from podwhy.model.quantity import milli_value, value
from podwhy.runtime.scoring import PluginScore

API_VERSION = "podwhy/v1"
KIND = "Explanation"
NOT_EVALUATED = "NotEvaluated"


def status_name(status: Status) -> str:
    return NOT_EVALUATED if status.not_evaluated else Code(status.code).name


def _reasons(status: Status) -> list[str]:
    return [status.not_evaluated] if status.not_evaluated else list(status.reasons)


def _status_json(plugin: str, status: Status, with_evidence: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"plugin": plugin, "status": status_name(status), "reasons": _reasons(status)}
    if with_evidence and status.evidence:
        out["evidence"] = [e.to_json() for e in status.evidence]
    return out


def _requests(exp: Explanation) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, amount in sorted(exp.pod.resource.requests.items()):
        if name == "cpu":
            out[name] = f"{milli_value(amount)}m"
        else:
            out[name] = str(value(amount))
    return out


def build_report(exp: Explanation) -> dict[str, Any]:
    pod = exp.pod.pod
    report: dict[str, Any] = {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "pod": {
            "namespace": pod.metadata.namespace,
            "name": pod.metadata.name,
            "uid": pod.metadata.uid,
            "phase": pod.status.phase,
            "priority": exp.pod.priority,
            "schedulerName": pod.spec.scheduler_name or "default-scheduler",
            "nodeName": pod.spec.node_name or None,
            "nominatedNodeName": pod.status.nominated_node_name or None,
            "schedulingGates": list(exp.gates),
            "requests": _requests(exp),
        },
        "verdict": exp.verdict,
        "message": exp.message,
        "messageComplete": exp.message_complete,
        "preFilter": [],
        "nodes": [],
        "feasibleNodes": [],
        "bestNodes": [],
        "preemption": None,
        "snapshot": {
            "sources": list(exp.snapshot.sources),
            "nodes": len(exp.snapshot.nodes),
            "pods": len(exp.snapshot.pods),
            "missingKinds": sorted(exp.snapshot.missing_kinds),
            "ignoredKinds": dict(sorted(exp.snapshot.ignored_kinds.items())),
        },
        "warnings": list(exp.warnings),
        "extenders": list(exp.extenders),
        "sampling": None,
    }
    if exp.sampling is not None:
        report["sampling"] = {
            "percentageOfNodesToScore": exp.sampling.percentage_of_nodes_to_score,
            "effectivePercentage": exp.sampling.adaptive_percentage,
            "nodesConsidered": exp.sampling.num_nodes,
            "numFeasibleNodesToFind": exp.sampling.num_feasible_nodes_to_find,
        }
    outcome = exp.outcome
    if outcome is None:
        return report
    report["preFilter"] = [
        {
            **_status_json(rec.plugin, rec.status),
            "nodeNames": sorted(rec.node_names) if rec.node_names is not None else None,
        }
        for rec in outcome.pre_filter
    ]
    scores = exp.scores
    for verdict in outcome.nodes:
        ff = verdict.first_failure
        node_scores = scores.scores.get(verdict.name, []) if scores is not None else []
        report["nodes"].append(
            {
                "name": verdict.name,
                "feasible": verdict.feasible,
                "filters": [_status_json(name, st) for name, st in verdict.filters.items()],
                "firstFailure": _status_json(ff.plugin, ff, with_evidence=False) if ff is not None else None,
                "nominatedPods": [pi.key for pi in verdict.nominated_pods],
                "scores": [_score_json(ps) for ps in node_scores],
                "totalScore": scores.totals.get(verdict.name) if scores is not None else None,
            }
        )
    report["feasibleNodes"] = list(outcome.feasible)
    if exp.post_filter is not None:
        report["preemption"] = _preemption_json(exp.post_filter)
    if scores is not None:
        report["bestNodes"] = list(scores.best_nodes)
        report["scoringSkipped"] = scores.scoring_skipped
        report["nominatedNodeFits"] = exp.nominated_node_fits
    return report


def _score_json(ps: PluginScore) -> dict[str, Any]:
    out: dict[str, Any] = {
        "plugin": ps.plugin,
        "raw": ps.raw,
        "normalized": ps.normalized,
        "weight": ps.weight,
        "weighted": ps.weighted,
    }
    if ps.skipped:
        out["skipped"] = True
    if ps.not_evaluated:
        out["notEvaluated"] = ps.not_evaluated
    if ps.evidence:
        out["evidence"] = [e.to_json() for e in ps.evidence]
    return out


def _preemption_json(post_filter: PostFilterOutcome) -> dict[str, Any]:
    pre = post_filter.preemption
    out: dict[str, Any] = {
        "nominatedNode": pre.nominated_node if pre is not None else None,
        "victims": [v.key for v in pre.victims] if pre is not None else [],
        "pdbViolations": list(pre.violated_pdbs) if pre is not None else [],
        "candidates": [],
        "message": post_filter.preemption_message,
        "dryRun": [],
        "postFilter": [_status_json(st.plugin, st, with_evidence=False) for st in post_filter.statuses],
    }
    if pre is None:
        return out
    out["candidates"] = [
        {
            "node": c.node,
            "victims": [{"pod": v.key, "priority": v.priority} for v in c.victims],
            "numPDBViolations": c.num_pdb_violations,
            "pdbViolations": c.pdbs(),
        }
        for c in pre.candidates
    ]
    out["dryRun"] = [
        {"node": node, "status": status_name(st), "plugin": st.plugin, "reasons": list(st.reasons)}
        for node, st in pre.node_statuses.items()
    ]
    return out
