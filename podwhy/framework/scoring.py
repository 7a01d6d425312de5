"""PreScore, Score, NormalizeScore and weights over the feasible nodes (prioritizeNodes)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from itertools import repeat
from operator import add, mul
from typing import cast

import msgspec

from podwhy.framework.equivalence import class_scorer
from podwhy.framework.evidence import AnyEvidence
from podwhy.framework.interface import MAX_NODE_SCORE, MIN_NODE_SCORE, CycleState, Plugin
from podwhy.framework.notevaluated import NotEvaluated, not_evaluated
from podwhy.framework.profile import Profile
from podwhy.framework.status import Status
from podwhy.framework.types import NodeInfo, PodInfo


class PluginScore(msgspec.Struct):
    plugin: str
    raw: int
    normalized: int
    weight: int
    weighted: int
    skipped: bool = False
    evidence: list[AnyEvidence] = msgspec.field(default_factory=list)
    # Set when the snapshot lacks kinds this plugin reads: the score is unknown, counted as 0.
    not_evaluated: NotEvaluated | None = None


class ScoreOutcome(msgspec.Struct):
    scores: dict[str, list[PluginScore]]
    totals: dict[str, int]
    best_nodes: list[str]
    # kube-scheduler does not score when only one node is feasible.
    scoring_skipped: bool
    error: str | None = None
    not_simulated: list[str] = msgspec.field(default_factory=list)
    not_evaluated: list[str] = msgspec.field(default_factory=list)
    # Those of not_evaluated whose Filter left some feasible node's verdict not evaluated (run_scores'
    # UNSURE), with what it could not tell; the others lack kinds of the snapshot.
    unsure: dict[str, NotEvaluated] = msgspec.field(default_factory=dict)


class ScoreMemo:
    """Raw scores of Score plugins that read only the pod and the node, as an identical pod's cycle
    got them (placement's identical replicas, see framework.runtime.Reuse): per plugin, by node. The
    caller drops a node once a pod is bound to it or leaves it.

    `base` keeps, per node, the weighted sum of the raw scores of the memo's plugins that have no
    NormalizeScore (`static`, in the profile's order): their share of a node's total, which stands
    as long as the node does, so a cycle adds it up only for the nodes it lacks."""

    def __init__(self, plugins: Iterable[str]) -> None:
        self.raw: dict[str, dict[str, int]] = {name: {} for name in plugins}
        self.static: tuple[tuple[str, int], ...] = ()
        self.base: dict[str, int] = {}

    def forget(self, node: str) -> None:
        for scores in self.raw.values():
            scores.pop(node, None)
        self.base.pop(node, None)


def run_scores(
    profile: Profile,
    plugins: dict[str, Plugin],
    state: CycleState,
    pod: PodInfo,
    nodes: list[NodeInfo],
    missing: Mapping[str, str] | None = None,
    memo: ScoreMemo | None = None,
    totals_only: bool = False,
    unsure: Mapping[str, NotEvaluated] | None = None,
) -> ScoreOutcome:
    """Score every feasible node with every Score plugin of the profile. `totals_only`: the totals
    and best nodes without each node's per-plugin rows (placement). `memo` (with `totals_only`):
    raw scores an identical pod's cycle got and that still hold (see ScoreMemo), taken instead of
    scoring those nodes again, and filled in. UNSURE: the Filter plugins that left some feasible
    node's verdict not evaluated (FilterOutcome.node_not_evaluated). Such a plugin's Score reads
    what its Filter found (DynamicResources: the devices it would allocate), and normalizing
    weighs every node's score against the others', so it is not evaluated on any node."""
    # Plugins podwhy cannot score (yet) are listed, never silently scored as zero.
    scorers = {name: pl for name, pl in plugins.items() if pl.implements("score")}
    not_simulated = [name for name in profile.score if name not in scorers]
    unevaluated = {
        name: why
        for name, pl in scorers.items()
        if (why := not_evaluated(pl.needed_kinds(pod, score=True), missing or {})) is not None
    }
    unsure_scores = {name: why for name, why in (unsure or {}).items() if name in scorers and name not in unevaluated}
    unevaluated.update(unsure_scores)

    def failed(message: str) -> ScoreOutcome:
        return ScoreOutcome({}, {}, [], len(nodes) == 1, message, not_simulated)

    message = _run_pre_score(profile, plugins, state, pod, nodes, unevaluated)
    if message:
        return failed(message)
    scoring = [
        (name, scorers[name])
        for name in profile.score
        if name in scorers and name not in state.skip_score_plugins and name not in unevaluated
    ]
    if totals_only:
        found = _totals(profile, scoring, state, pod, nodes, memo if memo is not None else ScoreMemo(()))
        if isinstance(found, str):
            return failed(found)
        top = max(found.values(), default=0)
        best = [n for n, t in found.items() if t == top]
        return ScoreOutcome({}, found, best, len(nodes) == 1, None, not_simulated, sorted(unevaluated), unsure_scores)
    scored = _run_score_plugins(scoring, state, pod, nodes)
    if isinstance(scored, str):
        return failed(scored)
    out, totals = _weighted_rows(profile, scorers, unevaluated, nodes, scored)
    top = max(totals.values(), default=0)
    best = [n for n, t in totals.items() if t == top]
    return ScoreOutcome(out, totals, best, len(nodes) == 1, None, not_simulated, sorted(unevaluated), unsure_scores)


def _run_pre_score(
    profile: Profile,
    plugins: dict[str, Plugin],
    state: CycleState,
    pod: PodInfo,
    nodes: list[NodeInfo],
    unevaluated: Mapping[str, NotEvaluated],
) -> str:
    """RunPreScorePlugins: a Skip leaves the plugin's Score out; the first failure is the error ("": none)."""
    for name in profile.pre_score:
        plugin = plugins.get(name)
        if plugin is None or not plugin.implements("pre_score") or name in unevaluated:
            continue
        status = plugin.pre_score(state, pod, nodes)
        if status.is_skip():
            state.skip_score_plugins.add(name)
        elif not status.is_success():
            return f'running PreScore plugin "{name}": {status.message()}'
    return ""


class _Scored(msgspec.Struct):
    """Each plugin's scores by node: raw, normalized, and the evidence behind a raw score."""

    raw: dict[str, dict[str, int]] = msgspec.field(default_factory=dict)
    normalized: dict[str, dict[str, int]] = msgspec.field(default_factory=dict)
    evidence: dict[tuple[str, str], list[AnyEvidence]] = msgspec.field(default_factory=dict)


def _run_score_plugins(
    scoring: list[tuple[str, Plugin]], state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
) -> _Scored | str:
    """RunScorePlugins' Score and NormalizeScore phases, plugin by plugin: the scores, or the error."""
    scored = _Scored()
    for name, plugin in scoring:
        scores: dict[str, int] = {}
        score = class_scorer(plugin, state, pod)
        for ni in nodes:
            value, status = score(ni)
            if not status.is_success():
                return _score_failed(name, status)
            scores[ni.name] = value
            if status.evidence:
                scored.evidence[(name, ni.name)] = status.evidence
        scored.raw[name] = dict(scores)
        message = _normalized(name, plugin, state, pod, scores)
        if message:
            return message
        scored.normalized[name] = scores
    return scored


def _weighted_rows(
    profile: Profile,
    scorers: Mapping[str, Plugin],
    unevaluated: Mapping[str, NotEvaluated],
    nodes: list[NodeInfo],
    scored: _Scored,
) -> tuple[dict[str, list[PluginScore]], dict[str, int]]:
    """RunScorePlugins' weights phase: each node's row of the profile's Score plugins (those not
    evaluated and those PreScore skipped at zero) and its total."""
    out: dict[str, list[PluginScore]] = {}
    totals: dict[str, int] = {}
    for ni in nodes:
        row: list[PluginScore] = []
        total = 0
        for name, weight in profile.score.items():
            if name not in scorers:
                continue
            if name in unevaluated:
                row.append(PluginScore(name, 0, 0, weight, 0, not_evaluated=unevaluated[name]))
                continue
            if name not in scored.normalized:
                row.append(PluginScore(name, 0, 0, weight, 0, skipped=True))
                continue
            normalized = scored.normalized[name][ni.name]
            weighted = normalized * weight
            total += weighted
            row.append(
                PluginScore(
                    name,
                    scored.raw[name][ni.name],
                    normalized,
                    weight,
                    weighted,
                    evidence=scored.evidence.get((name, ni.name), []),
                )
            )
        out[ni.name] = row
        totals[ni.name] = total
    return out, totals


def _score_failed(name: str, status: Status) -> str:
    return f'plugin "{name}" failed with: {status.message()}'


def _normalized(name: str, plugin: Plugin, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> str:
    """NormalizeScore (when the plugin has it), then the range check: the error, or ""."""
    if plugin.implements("normalize_score"):
        status = plugin.normalize_score(state, pod, scores)
        if not status.is_success():
            return _score_failed(name, status)
    for value in (min(scores.values(), default=0), max(scores.values(), default=0)):
        if not MIN_NODE_SCORE <= value <= MAX_NODE_SCORE:
            return (
                f'plugin "{name}" returns an invalid score {value}, it should in the range of '
                f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"
            )
    return ""


def _totals(
    profile: Profile,
    scoring: list[tuple[str, Plugin]],
    state: CycleState,
    pod: PodInfo,
    nodes: list[NodeInfo],
    memo: ScoreMemo,
) -> dict[str, int] | str:
    """Each node's total (the weighted sum of its normalized scores), or the error that stops
    scoring: the same as scoring every plugin over every node in the profile's order, with the
    memo's raw scores taken as they are.

    The memo's plugins without NormalizeScore add to a node's total their raw scores, which stand
    while the node does: their weighted sum is kept per node (memo.base). It is added up for the
    nodes that lack it, node by node; should a score fail or fall out of range there, every plugin
    is scored again in the profile's order, so the error is the one that order meets first."""
    names = [ni.name for ni in nodes]
    static = tuple(
        (name, profile.score[name])
        for name, plugin in scoring
        if name in memo.raw and not plugin.implements("normalize_score")
    )
    if static != memo.static:
        memo.static, memo.base = static, {}
    sums = [0] * len(names)
    if static:
        known_sums = list(map(memo.base.get, names))
        if None not in known_sums or _fill_base(memo, dict(scoring), state, pod, nodes, known_sums):
            sums = cast("list[int]", known_sums)  # every node's base is there now
        else:
            static = ()
    done = {name for name, _ in static}
    offset = 0
    for name, plugin in scoring:
        if name in done:
            continue
        known = memo.raw.get(name)
        # A score for each node, and only for those (a plugin's score_nodes names its own nodes).
        whole = known is not None or not plugin.implements("score_nodes")
        if known is not None:
            scores: dict[str, int] | str = _memo_scores(name, plugin, state, pod, nodes, names, known)
        elif plugin.implements("score_nodes"):
            scores, status = plugin.score_nodes(state, pod, nodes)
            if not status.is_success():
                return _score_failed(name, status)
        else:
            scores = {}
            score = class_scorer(plugin, state, pod)
            for ni in nodes:
                value, status = score(ni)
                if not status.is_success():
                    return _score_failed(name, status)
                scores[ni.name] = value
        if isinstance(scores, str):
            return scores
        message = _normalized(name, plugin, state, pod, scores)
        if message:
            return message
        weight = profile.score[name]
        low, high = min(scores.values(), default=0), max(scores.values(), default=0)
        if low == high and whole:
            offset += low * weight  # the same score on every node (e.g. TaintToleration without taints)
        else:
            sums = list(map(add, sums, map(mul, map(scores.get, names, repeat(0)), repeat(weight))))
    if offset:
        sums = list(map(add, sums, repeat(offset)))
    return dict(zip(names, sums, strict=True))


def _memo_scores(
    name: str,
    plugin: Plugin,
    state: CycleState,
    pod: PodInfo,
    nodes: list[NodeInfo],
    names: list[str],
    known: dict[str, int],
) -> dict[str, int] | str:
    """The raw scores of the nodes, the known ones taken, the others scored in order and remembered;
    or the error of a score that failed."""
    values = list(map(known.get, names))
    score = class_scorer(plugin, state, pod)
    for i, value in enumerate(values):
        if value is None:
            value, status = score(nodes[i])
            if not status.is_success():
                return _score_failed(name, status)
            values[i] = known[names[i]] = value
    return dict(zip(names, cast("list[int]", values), strict=True))


def _fill_base(
    memo: ScoreMemo,
    plugins: dict[str, Plugin],
    state: CycleState,
    pod: PodInfo,
    nodes: list[NodeInfo],
    sums: list[int | None],
) -> bool:
    """memo.base of the nodes whose `sums` entry is None, set there too, in the nodes' order. False
    when a score fails or falls out of range (the caller scores plugin by plugin instead)."""
    scorers: dict[str, Callable[[NodeInfo], tuple[int, Status]]] = {}
    for i, total in enumerate(sums):
        if total is not None:
            continue
        ni = nodes[i]
        total = 0
        for name, weight in memo.static:
            known = memo.raw[name]
            value = known.get(ni.name)
            if value is None:
                score = scorers.get(name) or scorers.setdefault(name, class_scorer(plugins[name], state, pod))
                value, status = score(ni)
                if not status.is_success():
                    return False
                known[ni.name] = value
            if not MIN_NODE_SCORE <= value <= MAX_NODE_SCORE:
                return False
            total += value * weight
        sums[i] = memo.base[ni.name] = total
    return True
