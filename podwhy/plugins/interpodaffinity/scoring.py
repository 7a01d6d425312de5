"""InterPodAffinity PreScore, Score and NormalizeScore (upstream scoring.go).

PreScore walks the existing pods once and accumulates a signed weight per
topology pair (key, value) of the existing pod's node; a node's raw score is the
sum of the pairs it carries. Five sources add to a pair:
- the incoming pod's preferred affinity terms matching the existing pod (+weight),
- its preferred anti-affinity terms matching the existing pod (-weight),
- the existing pod's required affinity terms matching the incoming pod (+hardPodAffinityWeight),
- the existing pod's preferred affinity terms matching the incoming pod (+weight),
- the existing pod's preferred anti-affinity terms matching the incoming pod (-weight).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import msgspec

from podwhy.framework.evidence import AffinityContribution, AnyEvidence, PodAffinityScoreEvidence
from podwhy.framework.interface import MAX_NODE_SCORE, CycleState
from podwhy.framework.status import Status, error, skip, success
from podwhy.framework.types import AffinityTerm, NodeInfo, PodInfo, WeightedAffinityTerm
from podwhy.model import objects as o
from podwhy.plugins.interpodaffinity.filtering import TermFacts, term_facts
from podwhy.plugins.interpodaffinity.parse_errors import pod_affinity_parse_error

if TYPE_CHECKING:
    from podwhy.plugins.interpodaffinity.plugin import InterPodAffinity

PRE_SCORE_STATE_KEY = "PreScoreInterPodAffinity"

# Evidence lists are capped so reports on large clusters stay readable.
MAX_LISTED_PODS = 10

# Which rule a contribution comes from (evidence only).
RULE_PREFERRED_AFFINITY = "preferredAffinity"
RULE_PREFERRED_ANTI_AFFINITY = "preferredAntiAffinity"
RULE_EXISTING_REQUIRED_AFFINITY = "existingRequiredAffinity"
RULE_EXISTING_PREFERRED_AFFINITY = "existingPreferredAffinity"
RULE_EXISTING_PREFERRED_ANTI_AFFINITY = "existingPreferredAntiAffinity"

TopologyPair = tuple[str, str]


class Contribution(msgspec.Struct):
    """Matches of one rule and term (with one weight) in one topology pair."""

    rule: str
    term: TermFacts
    weight: int
    matches: int = 0
    # Incoming-pod rules: the existing pods the term matched; existing-pod rules: the pods owning the term.
    pods: list[str] = msgspec.field(default_factory=list)
    pod_count: int = 0

    def add(self, pod_key: str) -> None:
        self.matches += 1
        if pod_key not in self.pods:
            self.pod_count += 1
            if len(self.pods) < MAX_LISTED_PODS:
                self.pods.append(pod_key)

    def fact(self) -> AffinityContribution:
        # The pair's topology key is already on the enclosing evidence.
        return AffinityContribution(
            rule=self.rule,
            selector=self.term["selector"],
            namespaces=self.term["namespaces"],
            namespace_selector=self.term["namespace_selector"],
            weight=self.weight,
            matches=self.matches,
            subtotal=self.weight * self.matches,
            pod_count=self.pod_count,
            pods=sorted(self.pods),
        )


@dataclass
class PreScoreState:
    """topologyScore: summed weight per topology key and value, plus what made it up."""

    topology_score: dict[str, dict[str, int]] = field(default_factory=dict)
    contributions: dict[TopologyPair, dict[tuple[str, str, int], Contribution]] = field(default_factory=dict)
    hard_pod_affinity_weight: int = 0
    # Evidence description of each term by id(); every term outlives PreScore (held by PodInfos or the caller).
    _term_cache: dict[int, tuple[str, TermFacts]] = field(default_factory=dict, repr=False)

    def clone(self) -> PreScoreState:
        # Never changed after PreScore, as upstream's Clone assumes.
        return self

    def add(self, rule: str, term: AffinityTerm, weight: int, node: o.Node, pod_key: str) -> None:
        value = node.metadata.labels.get(term.topology_key)
        if value is None:
            return
        per_key = self.topology_score.setdefault(term.topology_key, {})
        # An entry is created even when the weights cancel out: it keeps PreScore from skipping.
        per_key[value] = per_key.get(value, 0) + weight
        cached = self._term_cache.get(id(term))
        if cached is None:
            data = term_facts(term)
            cached = self._term_cache[id(term)] = (json.dumps(data, sort_keys=True), data)
        term_json, term_data = cached
        group = (rule, term_json, weight)
        by_term = self.contributions.setdefault((term.topology_key, value), {})
        contribution = by_term.get(group)
        if contribution is None:
            contribution = by_term[group] = Contribution(rule, term_data, weight)
        contribution.add(pod_key)


def _has_preferred_terms(pod: o.Pod) -> bool:
    aff = pod.spec.affinity
    if aff is None:
        return False
    pa, paa = aff.pod_affinity, aff.pod_anti_affinity
    affinity = pa is not None and bool(pa.preferred_during_scheduling_ignored_during_execution)
    anti_affinity = paa is not None and bool(paa.preferred_during_scheduling_ignored_during_execution)
    return affinity or anti_affinity


def _merged(plugin: InterPodAffinity, terms: list[WeightedAffinityTerm]) -> list[WeightedAffinityTerm]:
    return [WeightedAffinityTerm(plugin.merge_affinity_term_namespaces(t.term), t.weight) for t in terms]


def _process_existing_pod(
    s: PreScoreState,
    existing: PodInfo,
    node: o.Node,
    incoming: o.Pod,
    ns_labels: dict[str, str] | None,
    preferred: list[WeightedAffinityTerm],
    preferred_anti: list[WeightedAffinityTerm],
) -> None:
    if not node.metadata.labels:
        return
    # The incoming pod's terms have their namespaceSelector merged: the existing pod's namespace labels are not read.
    for wt in preferred:
        if wt.term.matches(existing.pod, None):
            s.add(RULE_PREFERRED_AFFINITY, wt.term, wt.weight, node, existing.key)
    for wt in preferred_anti:
        if wt.term.matches(existing.pod, None):
            s.add(RULE_PREFERRED_ANTI_AFFINITY, wt.term, -wt.weight, node, existing.key)
    if s.hard_pod_affinity_weight > 0:
        for term in existing.required_affinity_terms:
            if term.matches(incoming, ns_labels):
                s.add(RULE_EXISTING_REQUIRED_AFFINITY, term, s.hard_pod_affinity_weight, node, existing.key)
    for wt in existing.preferred_affinity_terms:
        if wt.term.matches(incoming, ns_labels):
            s.add(RULE_EXISTING_PREFERRED_AFFINITY, wt.term, wt.weight, node, existing.key)
    for wt in existing.preferred_anti_affinity_terms:
        if wt.term.matches(incoming, ns_labels):
            s.add(RULE_EXISTING_PREFERRED_ANTI_AFFINITY, wt.term, -wt.weight, node, existing.key)


def pre_score(plugin: InterPodAffinity, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
    has_constraints = _has_preferred_terms(pod.pod)
    if plugin.ignore_preferred_terms_of_existing_pods and not has_constraints:
        return skip()
    # Upstream walks the snapshot's nodes, not only the feasible ones it is given.
    if has_constraints:
        all_nodes = plugin.handle.node_infos
    else:
        all_nodes = plugin.handle.have_pods_with_affinity
    parse_error = pod_affinity_parse_error(pod.pod)
    if parse_error is not None:
        return error(f"failed to parse pod: {parse_error}")
    preferred = _merged(plugin, pod.preferred_affinity_terms)
    preferred_anti = _merged(plugin, pod.preferred_anti_affinity_terms)
    ns_labels = plugin.namespace_labels_snapshot(pod.pod.metadata.namespace)
    s = PreScoreState(hard_pod_affinity_weight=plugin.hard_pod_affinity_weight)
    for node_info in all_nodes:
        # Without preferred terms of its own, only pods with (anti-)affinity can add anything.
        existing_pods = node_info.pods if has_constraints else node_info.pods_with_affinity
        for existing in existing_pods:
            _process_existing_pod(s, existing, node_info.node, pod.pod, ns_labels, preferred, preferred_anti)
    if not s.topology_score:
        return skip()
    state.write(PRE_SCORE_STATE_KEY, s)
    return success()


def _read_state(state: CycleState) -> PreScoreState | Status:
    try:
        value = state.read(PRE_SCORE_STATE_KEY)
    except KeyError:
        return error(f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
    if not isinstance(value, PreScoreState):
        return error(f"{value!r}  convert to interpodaffinity.preScoreState error")
    return value


def score(state: CycleState, node_info: NodeInfo) -> tuple[int, Status]:
    s = _read_state(state)
    if isinstance(s, Status):
        return 0, s
    labels = node_info.node.metadata.labels
    total = 0
    evidence: list[AnyEvidence] = []
    for key in sorted(s.topology_score):
        value = labels.get(key)
        if value is None:
            continue
        pair_score = s.topology_score[key].get(value, 0)
        total += pair_score
        contributions = s.contributions.get((key, value))
        if not contributions:
            continue
        evidence.append(
            PodAffinityScoreEvidence(
                topology_key=key,
                topology_value=value,
                score=pair_score,
                contributions=[
                    c.fact() for c in sorted(contributions.values(), key=lambda c: (c.rule, -abs(c.weight)))
                ],
            )
        )
    return total, Status(evidence=evidence)


def normalize_score(state: CycleState, scores: dict[str, int]) -> Status:
    s = _read_state(state)
    if isinstance(s, Status):
        return s
    if not s.topology_score or not scores:
        return success()
    low = min(scores.values())
    high = max(scores.values())
    spread = high - low
    for name, value in scores.items():
        normalized = 0.0
        if spread > 0:
            # Same float operation order as upstream: the ratio first, then scaled.
            normalized = float(MAX_NODE_SCORE) * (float(value - low) / float(spread))
        scores[name] = int(normalized)
    return success()
