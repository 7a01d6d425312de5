"""PreScore, Score, NormalizeScore and weights over the feasible nodes (prioritizeNodes)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from podwhy.framework.evidence import AnyEvidence
from podwhy.framework.interface import MAX_NODE_SCORE, MIN_NODE_SCORE, CycleState, Plugin
from podwhy.framework.missing import not_evaluated_reason
from podwhy.framework.profile import Profile
from podwhy.framework.types import NodeInfo, PodInfo


@dataclass
class PluginScore:
    plugin: str
    raw: int
    normalized: int
    weight: int
    weighted: int
    skipped: bool = False
    evidence: list[AnyEvidence] = field(default_factory=list)
    # Set when the snapshot lacks kinds this plugin reads: the score is unknown, counted as 0.
    not_evaluated: str = ""


@dataclass
class ScoreOutcome:
    scores: dict[str, list[PluginScore]]
    totals: dict[str, int]
    best_nodes: list[str]
    # kube-scheduler does not score when only one node is feasible.
    scoring_skipped: bool
    error: str | None = None
    not_simulated: list[str] = field(default_factory=list)
    not_evaluated: list[str] = field(default_factory=list)


def run_scores(
    profile: Profile,
    plugins: dict[str, Plugin],
    state: CycleState,
    pod: PodInfo,
    nodes: list[NodeInfo],
    missing: Mapping[str, str] | None = None,
    memo: dict[str, dict[str, tuple[int, list[AnyEvidence]]]] | None = None,
    totals_only: bool = False,
) -> ScoreOutcome:
    """Score every feasible node with every Score plugin of the profile. `memo`: per plugin, raw
    scores (with their evidence) by node that an identical pod's cycle got and that still hold
    (see framework.runtime.Reuse): taken instead of scoring those nodes again, and filled in.
    `totals_only`: the totals and best nodes without each node's per-plugin rows (placement)."""
    names = nodes
    # Plugins podwhy cannot score (yet) are listed, never silently scored as zero.
    scorers = {name: pl for name, pl in plugins.items() if pl.implements("score")}
    not_simulated = [name for name in profile.score if name not in scorers]
    not_evaluated = {
        name: reason
        for name, pl in scorers.items()
        if (reason := not_evaluated_reason(pl.needed_kinds(pod, score=True), missing or {}))
    }

    def failed(message: str) -> ScoreOutcome:
        return ScoreOutcome({}, {}, [], len(nodes) == 1, message, not_simulated)

    for name in profile.pre_score:
        plugin = plugins.get(name)
        if plugin is None or not plugin.implements("pre_score") or name in not_evaluated:
            continue
        status = plugin.pre_score(state, pod, nodes)
        if status.is_skip():
            state.skip_score_plugins.add(name)
        elif not status.is_success():
            return failed(f'running PreScore plugin "{name}": {status.message()}')
    per_plugin: dict[str, dict[str, int]] = {}
    raw_scores: dict[str, dict[str, int]] = {}
    evidence: dict[tuple[str, str], list[AnyEvidence]] = {}
    for name in profile.score:
        plugin = scorers.get(name)
        if plugin is None or name in state.skip_score_plugins or name in not_evaluated:
            continue
        scores: dict[str, int] = {}
        known = memo.get(name) if memo is not None else None
        missing_nodes: list[NodeInfo] | None = None
        if known is not None and totals_only:
            # Only the evidence-free totals are wanted: the known raw scores are taken whole.
            missing_nodes = []
            for ni in names:
                hit = known.get(ni.name)
                if hit is None:
                    missing_nodes.append(ni)
                else:
                    scores[ni.name] = hit[0]
        elif known is None and totals_only and plugin.implements("score_nodes"):
            scores, status = plugin.score_nodes(state, pod, names)
            if not status.is_success():
                return failed(f'plugin "{name}" failed with: {status.message()}')
            missing_nodes = []
        for ni in names if missing_nodes is None else missing_nodes:
            if known is not None and (hit := known.get(ni.name)) is not None:
                scores[ni.name] = hit[0]
                if hit[1] and not totals_only:
                    evidence[(name, ni.name)] = hit[1]
                continue
            value, status = plugin.score(state, pod, ni)
            if not status.is_success():
                return failed(f'plugin "{name}" failed with: {status.message()}')
            scores[ni.name] = value
            if status.evidence:
                evidence[(name, ni.name)] = status.evidence
            if known is not None:
                known[ni.name] = (value, [] if totals_only else status.evidence)
        if not totals_only:
            raw_scores[name] = dict(scores)
        if plugin.implements("normalize_score"):
            status = plugin.normalize_score(state, pod, scores)
            if not status.is_success():
                return failed(f'plugin "{name}" failed with: {status.message()}')
        for value in (min(scores.values(), default=0), max(scores.values(), default=0)):
            if not MIN_NODE_SCORE <= value <= MAX_NODE_SCORE:
                return failed(
                    f'plugin "{name}" returns an invalid score {value}, it should in the range of '
                    f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"
                )
        per_plugin[name] = scores
    out: dict[str, list[PluginScore]] = {}
    totals: dict[str, int] = {}
    if totals_only:
        totals = dict.fromkeys([ni.name for ni in names], 0)
        for name, weight in profile.score.items():
            if name in per_plugin:
                for node, value in per_plugin[name].items():
                    totals[node] += value * weight
    for ni in names if not totals_only else ():
        row: list[PluginScore] = []
        total = 0
        for name, weight in profile.score.items():
            if name not in scorers:
                continue
            if name in not_evaluated:
                row.append(PluginScore(name, 0, 0, weight, 0, not_evaluated=not_evaluated[name]))
                continue
            if name not in per_plugin:
                row.append(PluginScore(name, 0, 0, weight, 0, skipped=True))
                continue
            normalized = per_plugin[name][ni.name]
            weighted = normalized * weight
            total += weighted
            row.append(
                PluginScore(
                    name,
                    raw_scores[name][ni.name],
                    normalized,
                    weight,
                    weighted,
                    evidence=evidence.get((name, ni.name), []),
                )
            )
        out[ni.name] = row
        totals[ni.name] = total
    top = max(totals.values(), default=0)
    best = [n for n, t in totals.items() if t == top]
    return ScoreOutcome(out, totals, best, len(nodes) == 1, None, not_simulated, sorted(not_evaluated))
