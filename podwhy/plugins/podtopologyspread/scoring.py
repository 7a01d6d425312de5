"""PodTopologySpread PreScore state, Score and NormalizeScore (scoring.go)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Protocol

import msgspec

from podwhy.framework.evidence import AnyEvidence, TopologySpreadScoreEvidence, TopologySpreadScoreTotalEvidence
from podwhy.framework.interface import MAX_NODE_SCORE
from podwhy.framework.status import Status, success
from podwhy.framework.types import NodeInfo
from podwhy.helpers.labelselectors import Selector
from podwhy.helpers.nodeselectors import RequiredNodeAffinity
from podwhy.model import objects as o
from podwhy.model.wellknownnames import LABEL_HOSTNAME
from podwhy.plugins.helper.normalize_score import go_div
from podwhy.plugins.podtopologyspread.common import (
    ENABLE_NODE_INCLUSION_POLICY,
    SpreadConstraint,
    count_key,
    count_matching,
    node_labels_match_spread_constraints,
)

PRE_SCORE_STATE_KEY = "PreScorePodTopologySpread"

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


class PreScoreState(msgspec.Struct):
    """Soft constraints, their per-domain match counts over all nodes and their weights."""

    constraints: list[SpreadConstraint] = msgspec.field(default_factory=list)
    # Feasible nodes lacking one of the topology keys (only when all keys are required).
    ignored_nodes: set[str] = msgspec.field(default_factory=set)
    # Per constraint: topology value -> matching pods, for the domains of the feasible nodes.
    topology_value_to_pod_counts: list[dict[str, int]] = msgspec.field(default_factory=list)
    # Per constraint: how many domains it has among the feasible nodes, and log(size+2).
    topology_sizes: list[int] = msgspec.field(default_factory=list)
    topology_normalizing_weights: list[float] = msgspec.field(default_factory=list)
    # Per constraint, made once for every node's Score: the count_key of its selector in the
    # pod's namespace, and the selector as the evidence writes it.
    count_keys: list[str] = msgspec.field(default_factory=list)
    selector_texts: list[str] = msgspec.field(default_factory=list)

    def clone(self) -> PreScoreState:
        # Never modified after PreScore, shared like upstream.
        return self


class _Domains(msgspec.Struct):
    """What init_pre_score_state found for one list of feasible nodes and topology keys."""

    names: list[str]
    ignored_nodes: set[str]
    values: list[list[str]]
    sizes: list[int]


def init_pre_score_state(
    constraints: list[SpreadConstraint],
    feasible_nodes: list[NodeInfo],
    require_all_topologies: bool,
    memos: dict[str, object] | None = None,
) -> PreScoreState:
    """Collect the domains of the feasible nodes; per-node (hostname) counts are left to Score.
    With a Handle's `memos`, the domains of the last pod with the same topology keys and the same
    feasible nodes are taken again (pods placed one after another mostly have the same)."""
    state = PreScoreState(constraints=constraints, selector_texts=[str(c.selector) for c in constraints])
    names = [ni.name for ni in feasible_nodes]
    key = f"PodTopologySpread/domains-of\x00{require_all_topologies}\x00{[c.topology_key for c in constraints]}"
    found = memos.get(key) if memos is not None else None
    if isinstance(found, _Domains) and found.names == names:
        domains = found
    else:
        domains = _find_domains(constraints, feasible_nodes, names, require_all_topologies)
        if memos is not None:
            _remember(memos, key, domains)
    state.ignored_nodes = domains.ignored_nodes  # never modified after PreScore
    state.topology_value_to_pod_counts = [dict.fromkeys(values, 0) for values in domains.values]
    state.topology_sizes = list(domains.sizes)
    state.topology_normalizing_weights = [topology_normalizing_weight(size) for size in domains.sizes]
    return state


def _find_domains(
    constraints: list[SpreadConstraint], feasible_nodes: list[NodeInfo], names: list[str], require_all_topologies: bool
) -> _Domains:
    ignored: set[str] = set()
    found: list[dict[str, None]] = [{} for _ in constraints]
    for node_info in feasible_nodes:
        labels = node_info.node.metadata.labels
        if require_all_topologies and not node_labels_match_spread_constraints(labels, constraints):
            ignored.add(node_info.name)
            continue
        for index, c in enumerate(constraints):
            if c.topology_key == LABEL_HOSTNAME:
                continue
            # A node missing the key lands in the "" domain (system defaults only).
            found[index][labels.get(c.topology_key, "")] = None
    sizes = [
        len(feasible_nodes) - len(ignored) if c.topology_key == LABEL_HOSTNAME else len(found[index])
        for index, c in enumerate(constraints)
    ]
    return _Domains(names, ignored, [list(values) for values in found], sizes)


def _node_contribution(
    constraints: list[SpreadConstraint],
    keys: list[str],
    pod: o.Pod,
    node_info: NodeInfo,
    required: RequiredNodeAffinity,
    require_all_topologies: bool,
) -> list[tuple[str, int] | None]:
    """Per constraint, the node's domain and its matching pods, or None where the node is not counted."""
    node = node_info.node
    if not ENABLE_NODE_INCLUSION_POLICY and not required.matches(node):
        return [None] * len(constraints)
    labels = node.metadata.labels
    if require_all_topologies and not node_labels_match_spread_constraints(labels, constraints):
        return [None] * len(constraints)
    out: list[tuple[str, int] | None] = []
    for index, c in enumerate(constraints):
        if c.topology_key == LABEL_HOSTNAME or (
            ENABLE_NODE_INCLUSION_POLICY and not c.match_node_inclusion_policies(pod, node, required)
        ):
            out.append(None)  # a hostname domain is counted on the node itself, in Score
            continue
        value = labels.get(c.topology_key, "")
        out.append((value, count_matching(node_info, c.selector, pod.metadata.namespace, keys[index])))
    return out


# Sets of domain counts kept on a Handle at most (each holds an entry per node).
MAX_DOMAIN_MEMOS = 16


class DomainCounts(msgspec.Struct):
    """Matching pods per domain over every node, for one set of constraints of one kind of pod,
    kept on the Handle while pods are bound one after another: only the nodes whose pods changed
    since (Handle.pod_changes) are counted again."""

    changes_seen: int
    # Per constraint: domain -> matching pods over every node counted.
    totals: list[dict[str, int]]
    # Per node: what it adds to `totals` (see _node_contribution).
    by_node: dict[str, list[tuple[str, int] | None]]

    def _apply(self, contribution: list[tuple[str, int] | None], sign: int) -> None:
        for index, part in enumerate(contribution):
            if part is not None:
                value, count = part
                totals = self.totals[index]
                totals[value] = totals.get(value, 0) + sign * count


def _memo_key(state: PreScoreState, pod: o.Pod, require_all_topologies: bool) -> str:
    """Everything the counts depend on besides the nodes: the constraints (selector, namespace,
    policies), whether every key is required, and what the inclusion policies read of the pod."""
    parts = [
        repr((c.topology_key, key, c.node_affinity_policy, c.node_taints_policy))
        for c, key in zip(state.constraints, state.count_keys, strict=True)
    ]
    spec = pod.spec
    affinity = spec.affinity.node_affinity if spec.affinity is not None else None
    honor_taints = any(c.node_taints_policy != "Ignore" for c in state.constraints)
    pod_side = (sorted(spec.node_selector.items()), affinity, spec.tolerations if honor_taints else None)
    return f"PodTopologySpread/domains\x00{require_all_topologies}\x00{parts}\x00{pod_side!r}"


def count_domains(
    state: PreScoreState,
    pod: o.Pod,
    all_nodes: list[NodeInfo],
    require_all_topologies: bool,
    memos: dict[str, object] | None = None,
    pod_changes: list[str] | None = None,
    by_name: Mapping[str, NodeInfo] | None = None,
) -> None:
    """Add up matching pods of every node (feasible or not) into the domains found in PreScore.
    With the Handle's `memos` and `pod_changes`, the counts of an earlier pod with the same
    constraints are brought up to date rather than made again."""
    required = RequiredNodeAffinity.of_pod(pod)
    namespace = pod.metadata.namespace
    keys = state.count_keys = [count_key(c.selector, namespace) for c in state.constraints]
    constraints = state.constraints
    memo: DomainCounts | None = None
    key = ""
    if memos is not None and pod_changes is not None and by_name is not None:
        key = _memo_key(state, pod, require_all_topologies)
        found = memos.get(key)
        memo = found if isinstance(found, DomainCounts) else None
    if memo is None:
        memo = DomainCounts(len(pod_changes or ()), [{} for _ in constraints], {})
        for node_info in all_nodes:
            contribution = _node_contribution(constraints, keys, pod, node_info, required, require_all_topologies)
            memo.by_node[node_info.name] = contribution
            memo._apply(contribution, 1)
        if memos is not None:
            _remember(memos, key, memo)
    elif pod_changes is not None and by_name is not None and memo.changes_seen < len(pod_changes):
        for name in set(pod_changes[memo.changes_seen :]):
            changed = by_name.get(name)
            if changed is None:
                continue
            memo._apply(memo.by_node.get(name, []), -1)
            contribution = _node_contribution(constraints, keys, pod, changed, required, require_all_topologies)
            memo.by_node[name] = contribution
            memo._apply(contribution, 1)
        memo.changes_seen = len(pod_changes)
    for index, counts in enumerate(state.topology_value_to_pod_counts):
        totals = memo.totals[index]
        for value in counts:
            counts[value] += totals.get(value, 0)


def score_node(state: PreScoreState, pod: o.Pod, node_info: NodeInfo) -> tuple[int, Status]:
    """Sum over the constraints of count*weight + maxSkew-1, rounded; ignored nodes score 0."""
    labels = node_info.node.metadata.labels
    if node_info.name in state.ignored_nodes:
        missing = [c.topology_key for c in state.constraints if c.topology_key not in labels]
        return 0, Status(evidence=[TopologySpreadScoreEvidence(ignored=True, missing_labels=sorted(set(missing)))])
    total = 0.0
    evidence: list[AnyEvidence] = []
    for index, c in enumerate(state.constraints):
        selector = state.selector_texts[index]
        if c.topology_key not in labels:
            evidence.append(
                TopologySpreadScoreEvidence(
                    topology_key=c.topology_key,
                    max_skew=c.max_skew,
                    selector=selector,
                    missing_label=c.topology_key,
                    points=0.0,
                )
            )
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
            TopologySpreadScoreEvidence(
                topology_key=c.topology_key,
                max_skew=c.max_skew,
                selector=selector,
                domain=value,
                matching_pods=count,
                domains=state.topology_sizes[index],
                domain_weight=weight,
                points=points,
            )
        )
    raw = go_round(total)
    evidence.append(TopologySpreadScoreTotalEvidence(sum=total, raw=raw, fewer_is_better=True))
    return raw, Status(evidence=evidence)


class HostCounts(msgspec.Struct):
    """Per node, its pods matching one selector of one namespace (the nodes with any), kept on
    the Handle while pods are bound one after another: only changed nodes are counted again."""

    changes_seen: int
    nonzero: dict[str, int]


def _host_counts(
    memos: dict[str, object], ckey: str, selector: Selector, namespace: str, handle: _NodeIndex
) -> dict[str, int]:
    key = f"PodTopologySpread/hosts\x00{ckey}"
    found = memos.get(key)
    changes = handle.pod_changes
    if not isinstance(found, HostCounts):
        nonzero = {}
        for ni in handle.node_infos:
            if count := count_matching(ni, selector, namespace, ckey):
                nonzero[ni.name] = count
        found = HostCounts(len(changes), nonzero)
        _remember(memos, key, found)
    elif found.changes_seen < len(changes):
        for name in set(changes[found.changes_seen :]):
            changed = handle.node_info_by_name.get(name)
            count = count_matching(changed, selector, namespace, ckey) if changed is not None else 0
            if count:
                found.nonzero[name] = count
            else:
                found.nonzero.pop(name, None)
        found.changes_seen = len(changes)
    return found.nonzero


def _remember(memos: dict[str, object], key: str, value: object) -> None:
    while len(memos) >= MAX_DOMAIN_MEMOS:  # the oldest go first
        del memos[next(iter(memos))]
    memos[key] = value


class _NodeIndex(Protocol):
    """What score_nodes reads of the Handle."""

    node_infos: list[NodeInfo]
    node_info_by_name: dict[str, NodeInfo]
    pod_changes: list[str]
    memos: dict[str, Any]


def _node_groups(
    memos: dict[str, object], keys: list[str], handle: _NodeIndex
) -> dict[str, tuple[str | bool | None, ...]]:
    """Per node, its domain in each constraint's KEYS (True for a hostname it has), None where it
    lacks the key; kept in MEMOS for the next pod with the same keys."""
    groups_key = f"PodTopologySpread/groups\x00{keys}"
    found_groups = memos.get(groups_key)
    if isinstance(found_groups, dict):
        return found_groups
    group_of: dict[str, tuple[str | bool | None, ...]] = {}
    for ni in handle.node_infos:
        labels = ni.node.metadata.labels
        group_of[ni.name] = tuple((key in labels or None) if key == LABEL_HOSTNAME else labels.get(key) for key in keys)
    _remember(memos, groups_key, group_of)
    return group_of


def score_nodes(
    state: PreScoreState, pod: o.Pod, nodes: list[NodeInfo], handle: _NodeIndex, memos: dict[str, object]
) -> dict[str, int]:
    """score_node's raw scores of many nodes, without evidence (placement wants only totals).
    A node's score depends only on its domains and its own matching pods: nodes of the same
    domains without matching pods of their own score alike, and are scored once together."""
    namespace = pod.metadata.namespace
    constraints = state.constraints
    group_of = _node_groups(memos, [c.topology_key for c in constraints], handle)
    hosts = [
        _host_counts(memos, state.count_keys[index], c.selector, namespace, handle)
        if c.topology_key == LABEL_HOSTNAME
        else None
        for index, c in enumerate(constraints)
    ]
    raw_of: dict[tuple[int | None, ...], int] = {}

    domain_counts = state.topology_value_to_pod_counts
    host_counts = [host for host in hosts if host is not None]

    def counts_of(name: str, group: tuple[str | bool | None, ...]) -> tuple[int | None, ...]:
        counts: list[int | None] = []
        for index, value in enumerate(group):
            host = hosts[index]
            if value is None:
                counts.append(None)
            elif host is not None:
                counts.append(host.get(name, 0))
            else:
                counts.append(domain_counts[index][str(value)])
        return tuple(counts)

    def raw_for(counts: tuple[int | None, ...]) -> int:
        found = raw_of.get(counts)
        if found is None:
            found = raw_of[counts] = _raw_score(state, counts)
        return found

    # Nodes without matching pods of their own: their score is their domains'.
    ignored = state.ignored_nodes
    by_group: dict[tuple[str | bool | None, ...], int] = {}
    out: dict[str, int] = {}
    for ni in nodes:
        if ni.name in ignored:
            out[ni.name] = 0  # lacks a topology key: not scored, and not in the domains
            continue
        group = group_of[ni.name]
        value = by_group.get(group)
        if value is None:
            value = by_group[group] = raw_for(counts_of("", group))
        out[ni.name] = value
    # Nodes with matching pods of their own: their domains and their own pods per hostname
    # constraint decide their score.
    by_host: dict[tuple[tuple[str | bool | None, ...], tuple[int, ...]], int] = {}
    single = len(host_counts) == 1
    for host in host_counts:
        for name in host:
            if name in out and name not in ignored:
                group = group_of[name]
                key = (group, (host[name],) if single else tuple([h.get(name, 0) for h in host_counts]))
                value = by_host.get(key)
                if value is None:
                    value = by_host[key] = raw_for(counts_of(name, group))
                out[name] = value
    return out


def _raw_score(state: PreScoreState, counts: tuple[int | None, ...]) -> int:
    total = 0.0
    for index, count in enumerate(counts):
        if count is not None:
            c = state.constraints[index]
            total += score_for_count(count, c.max_skew, state.topology_normalizing_weights[index])
    return go_round(total)


def normalize_scores(state: PreScoreState, scores: dict[str, int]) -> Status:
    """Map [min, max] to [MaxNodeScore*min/max, MaxNodeScore], reversed; ignored nodes get 0."""
    ignored = state.ignored_nodes
    counted = [score for name, score in scores.items() if name not in ignored] if ignored else list(scores.values())
    min_score = min(counted, default=0)
    max_score = max(0, max(counted, default=0))
    # Raw scores take few distinct values: each is normalized once.
    normalized: dict[int, int] = {}
    for score in set(counted):
        if max_score == 0:
            normalized[score] = MAX_NODE_SCORE
        else:
            normalized[score] = go_div(MAX_NODE_SCORE * (max_score + min_score - score), max_score)
    for name, score in scores.items():
        scores[name] = 0 if name in ignored else normalized[score]
    return success()
