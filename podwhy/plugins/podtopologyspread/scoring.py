"""PodTopologySpread PreScore state, Score and NormalizeScore (scoring.go)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from podwhy.framework.interface import MAX_NODE_SCORE
from podwhy.framework.status import Evidence, Status, success
from podwhy.framework.types import NodeInfo
from podwhy.model import objects as o
from podwhy.model.labels import RequiredNodeAffinity
from podwhy.plugins.helper.normalize_score import go_div
from podwhy.plugins.podtopologyspread.common import (
    ENABLE_NODE_INCLUSION_POLICY,
    LABEL_HOSTNAME,
    SpreadConstraint,
    count_key,
    count_matching,
    node_labels_match_spread_constraints,
)

PRE_SCORE_STATE_KEY = "PreScorePodTopologySpread"

# Marks ignored nodes during normalization; real scores are never negative.
INVALID_SCORE = -1

# ------------------------------------------------------------------ Go float helpers

# Coefficients of the FreeBSD/fdlibm log that Go's math.Log implements; Python's libm log
# can differ from it by one ulp (e.g. for log(3)), so the weights are computed the Go way.
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_LOG_COEFFS = (
    6.666666666666735130e-01,
    3.999999999940941908e-01,
    2.857142874366239149e-01,
    2.222219843214978396e-01,
    1.818357216161805012e-01,
    1.531383769920937332e-01,
    1.479819860511658591e-01,
)
_HALF_SQRT2 = math.sqrt(2) / 2


def go_log(x: float) -> float:
    """Go's math.Log for a positive finite x, bit for bit."""
    if x == 0:
        return -math.inf
    if not x > 0:
        return math.nan
    if math.isinf(x):
        return x
    mantissa, exponent = math.frexp(x)
    k = float(exponent)
    if mantissa < _HALF_SQRT2:
        k -= 1
        mantissa *= 2
    f = mantissa - 1
    s = f / (2 + f)
    s2 = s * s
    s4 = s2 * s2
    l1, l2, l3, l4, l5, l6, l7 = _LOG_COEFFS
    odd = s2 * (l1 + s4 * (l3 + s4 * (l5 + s4 * l7)))
    even = s4 * (l2 + s4 * (l4 + s4 * l6))
    r = odd + even
    hfsq = 0.5 * f * f
    return k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)


def go_round(x: float) -> int:
    """Go's math.Round: half away from zero (Python's round() rounds half to even)."""
    whole = math.trunc(x)
    if abs(x - whole) >= 0.5:
        whole += 1 if x > 0 else -1
    return int(whole)


def topology_normalizing_weight(size: int) -> float:
    """log(size+2): counts in topologies with few domains weigh less than in ones with many."""
    return go_log(float(size + 2))


def score_for_count(count: int, max_skew: int, weight: float) -> float:
    # maxSkew-1 is added so small differences between domains matter less.
    return float(count) * weight + float(max_skew - 1)


# ------------------------------------------------------------------ state


@dataclass
class PreScoreState:
    """Soft constraints, their per-domain match counts over all nodes and their weights."""

    constraints: list[SpreadConstraint] = field(default_factory=list)
    # Feasible nodes lacking one of the topology keys (only when all keys are required).
    ignored_nodes: set[str] = field(default_factory=set)
    # Per constraint: topology value -> matching pods, for the domains of the feasible nodes.
    topology_value_to_pod_counts: list[dict[str, int]] = field(default_factory=list)
    # Per constraint: how many domains it has among the feasible nodes, and log(size+2).
    topology_sizes: list[int] = field(default_factory=list)
    topology_normalizing_weights: list[float] = field(default_factory=list)
    # Per constraint, made once for every node's Score: the count_key of its selector in the
    # pod's namespace, and the selector as the evidence writes it.
    count_keys: list[str] = field(default_factory=list)
    selector_texts: list[str] = field(default_factory=list)

    def clone(self) -> PreScoreState:
        # Never modified after PreScore, shared like upstream.
        return self


def init_pre_score_state(
    constraints: list[SpreadConstraint], feasible_nodes: list[NodeInfo], require_all_topologies: bool
) -> PreScoreState:
    """Collect the domains of the feasible nodes; per-node (hostname) counts are left to Score."""
    state = PreScoreState(
        constraints=constraints,
        topology_value_to_pod_counts=[{} for _ in constraints],
        selector_texts=[str(c.selector) for c in constraints],
    )
    sizes = [0] * len(constraints)
    for node_info in feasible_nodes:
        labels = node_info.node.metadata.labels
        if require_all_topologies and not node_labels_match_spread_constraints(labels, constraints):
            state.ignored_nodes.add(node_info.name)
            continue
        for index, c in enumerate(constraints):
            if c.topology_key == LABEL_HOSTNAME:
                continue
            # A node missing the key lands in the "" domain (system defaults only).
            value = labels.get(c.topology_key, "")
            counts = state.topology_value_to_pod_counts[index]
            if value not in counts:
                counts[value] = 0
                sizes[index] += 1
    for index, c in enumerate(constraints):
        if c.topology_key == LABEL_HOSTNAME:
            sizes[index] = len(feasible_nodes) - len(state.ignored_nodes)
        state.topology_sizes.append(sizes[index])
        state.topology_normalizing_weights.append(topology_normalizing_weight(sizes[index]))
    return state


def count_domains(state: PreScoreState, pod: o.Pod, all_nodes: list[NodeInfo], require_all_topologies: bool) -> None:
    """Add up matching pods of every node (feasible or not) into the domains found in PreScore."""
    required = RequiredNodeAffinity.of_pod(pod)
    namespace = pod.metadata.namespace
    keys = state.count_keys = [count_key(c.selector, namespace) for c in state.constraints]
    for node_info in all_nodes:
        node = node_info.node
        if not ENABLE_NODE_INCLUSION_POLICY and not required.matches(node):
            continue
        labels = node.metadata.labels
        if require_all_topologies and not node_labels_match_spread_constraints(labels, state.constraints):
            continue
        for index, c in enumerate(state.constraints):
            if ENABLE_NODE_INCLUSION_POLICY and not c.match_node_inclusion_policies(pod, node, required):
                continue
            counts = state.topology_value_to_pod_counts[index]
            value = labels.get(c.topology_key, "")
            if value not in counts:
                continue
            counts[value] += count_matching(node_info, c.selector, namespace, keys[index])


def score_node(state: PreScoreState, pod: o.Pod, node_info: NodeInfo) -> tuple[int, Status]:
    """Sum over the constraints of count*weight + maxSkew-1, rounded; ignored nodes score 0."""
    labels = node_info.node.metadata.labels
    if node_info.name in state.ignored_nodes:
        missing = [c.topology_key for c in state.constraints if c.topology_key not in labels]
        return 0, Status(
            evidence=[Evidence("topologySpreadScore", {"ignored": True, "missingLabels": sorted(set(missing))})]
        )
    total = 0.0
    evidence: list[Evidence] = []
    for index, c in enumerate(state.constraints):
        base = {"topologyKey": c.topology_key, "maxSkew": c.max_skew, "selector": state.selector_texts[index]}
        if c.topology_key not in labels:
            evidence.append(Evidence("topologySpreadScore", {**base, "missingLabel": c.topology_key, "points": 0.0}))
            continue
        value = labels[c.topology_key]
        if c.topology_key == LABEL_HOSTNAME:
            # Counted on the node itself, without the node inclusion policies.
            count = count_matching(node_info, c.selector, pod.metadata.namespace, state.count_keys[index])
        else:
            count = state.topology_value_to_pod_counts[index][value]
        weight = state.topology_normalizing_weights[index]
        points = score_for_count(count, c.max_skew, weight)
        total += points
        evidence.append(
            Evidence(
                "topologySpreadScore",
                {
                    **base,
                    "domain": value,
                    "matchingPods": count,
                    "domains": state.topology_sizes[index],
                    "domainWeight": weight,
                    "points": points,
                },
            )
        )
    raw = go_round(total)
    evidence.append(Evidence("topologySpreadScoreTotal", {"sum": total, "raw": raw, "fewerIsBetter": True}))
    return raw, Status(evidence=evidence)


def normalize_scores(state: PreScoreState, scores: dict[str, int]) -> Status:
    """Map [min, max] to [MaxNodeScore*min/max, MaxNodeScore], reversed; ignored nodes get 0."""
    min_score: int | None = None
    max_score = 0
    for name, score in scores.items():
        if name in state.ignored_nodes:
            scores[name] = INVALID_SCORE
            continue
        min_score = score if min_score is None else min(min_score, score)
        max_score = max(max_score, score)
    for name, score in scores.items():
        if score == INVALID_SCORE:
            scores[name] = 0
        elif max_score == 0:
            scores[name] = MAX_NODE_SCORE
        else:
            assert min_score is not None
            scores[name] = go_div(MAX_NODE_SCORE * (max_score + min_score - score), max_score)
    return success()
