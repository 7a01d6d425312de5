"""InterPodAffinity PreFilter, PreFilterExtensions and Filter (upstream filtering.go)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, TypedDict

import msgspec

from podwhy.framework.equivalence import NodeReader, labels_at, reads_nothing
from podwhy.framework.evidence import AnyEvidence, MatchingDomain, PodAffinityTermEvidence
from podwhy.framework.interface import CycleState, PreFilterResult
from podwhy.framework.status import Status, error, skip, success, unresolvable, unschedulable
from podwhy.framework.types import AffinityTerm, NodeInfo, PodInfo
from podwhy.model import objects as o
from podwhy.plugins.interpodaffinity.parse_errors import pod_affinity_parse_error

if TYPE_CHECKING:
    from podwhy.plugins.interpodaffinity.plugin import InterPodAffinity

PRE_FILTER_STATE_KEY = "PreFilterInterPodAffinity"

ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"

# (topology key, topology value)
TopologyPair = tuple[str, str]


class TopologyCounts(msgspec.Struct):
    """topologyToMatchedTermCount, plus the pods behind each count (for evidence only)."""

    counts: dict[TopologyPair, int] = msgspec.field(default_factory=dict)
    pods: dict[TopologyPair, list[PodInfo]] = msgspec.field(default_factory=dict)

    def update(self, node: o.Node, topology_key: str, delta: int, matched: PodInfo) -> None:
        """Count the matched pod in the node's domain; a node without the key counts nowhere."""
        value = node.metadata.labels.get(topology_key)
        if value is None:
            return
        pair = (topology_key, value)
        count = self.counts.get(pair, 0) + delta
        # Counts can go down on RemovePod; an entry at zero is dropped as upstream does.
        if count == 0:
            self.counts.pop(pair, None)
        else:
            self.counts[pair] = count
        contributors = self.pods.setdefault(pair, [])
        if delta > 0:
            contributors.append(matched)
        else:
            for i, pi in enumerate(contributors):
                if pi.uid == matched.uid:
                    del contributors[i]
                    break
        if not contributors:
            del self.pods[pair]

    def get(self, pair: TopologyPair) -> int:
        return self.counts.get(pair, 0)

    def __len__(self) -> int:
        return len(self.counts)

    def clone(self) -> TopologyCounts:
        return TopologyCounts(dict(self.counts), {pair: list(pods) for pair, pods in self.pods.items()})


class PreFilterState(msgspec.Struct):
    """What PreFilter computed for Filter; the incoming pod's terms have namespaceSelectors merged."""

    pod_info: PodInfo
    affinity_terms: list[AffinityTerm]
    anti_affinity_terms: list[AffinityTerm]
    namespace_labels: dict[str, str] | None
    # Existing pods whose required anti-affinity terms match the incoming pod.
    existing_anti_affinity_counts: TopologyCounts = msgspec.field(default_factory=TopologyCounts)
    # Existing pods matching all of the incoming pod's required affinity terms.
    affinity_counts: TopologyCounts = msgspec.field(default_factory=TopologyCounts)
    # Existing pods matching the incoming pod's required anti-affinity terms.
    anti_affinity_counts: TopologyCounts = msgspec.field(default_factory=TopologyCounts)

    def clone(self) -> PreFilterState:
        return PreFilterState(
            pod_info=self.pod_info,
            affinity_terms=self.affinity_terms,
            anti_affinity_terms=self.anti_affinity_terms,
            namespace_labels=self.namespace_labels,
            existing_anti_affinity_counts=self.existing_anti_affinity_counts.clone(),
            affinity_counts=self.affinity_counts.clone(),
            anti_affinity_counts=self.anti_affinity_counts.clone(),
        )

    def update_with_pod(self, other: PodInfo, node: o.Node, delta: int) -> None:
        add_anti_affinity_matches(
            self.existing_anti_affinity_counts,
            other.required_anti_affinity_terms,
            self.pod_info.pod,
            self.namespace_labels,
            node,
            delta,
            other,
        )
        add_affinity_matches(self.affinity_counts, self.affinity_terms, other, node, delta)
        # The incoming pod's terms have their namespaceSelector merged: no namespace labels needed.
        add_anti_affinity_matches(
            self.anti_affinity_counts, self.anti_affinity_terms, other.pod, None, node, delta, other
        )


def pod_matches_all_affinity_terms(terms: list[AffinityTerm], pod: o.Pod) -> bool:
    """True iff there are terms and the pod matches every one (namespace labels not consulted)."""
    return bool(terms) and all(t.matches(pod, None) for t in terms)


def add_affinity_matches(
    counts: TopologyCounts, terms: list[AffinityTerm], existing: PodInfo, node: o.Node, delta: int
) -> None:
    """Count the pod once per term, only when it matches all the terms."""
    if pod_matches_all_affinity_terms(terms, existing.pod):
        for term in terms:
            counts.update(node, term.topology_key, delta, existing)


def add_anti_affinity_matches(
    counts: TopologyCounts,
    terms: Iterable[AffinityTerm],
    target: o.Pod,
    ns_labels: dict[str, str] | None,
    node: o.Node,
    delta: int,
    matched: PodInfo,
) -> None:
    """Count once per term that matches the target pod."""
    for term in terms:
        if term.matches(target, ns_labels):
            counts.update(node, term.topology_key, delta, matched)


def existing_anti_affinity_counts(
    pod: o.Pod, ns_labels: dict[str, str] | None, nodes: list[NodeInfo]
) -> TopologyCounts:
    counts = TopologyCounts()
    for node_info in nodes:
        for existing in node_info.pods_with_required_anti_affinity:
            add_anti_affinity_matches(
                counts, existing.required_anti_affinity_terms, pod, ns_labels, node_info.node, 1, existing
            )
    return counts


def incoming_affinity_anti_affinity_counts(
    affinity_terms: list[AffinityTerm], anti_affinity_terms: list[AffinityTerm], all_nodes: list[NodeInfo]
) -> tuple[TopologyCounts, TopologyCounts]:
    affinity = TopologyCounts()
    anti_affinity = TopologyCounts()
    if not affinity_terms and not anti_affinity_terms:
        return affinity, anti_affinity
    for node_info in all_nodes:
        for existing in node_info.pods:
            add_affinity_matches(affinity, affinity_terms, existing, node_info.node, 1)
            add_anti_affinity_matches(
                anti_affinity, anti_affinity_terms, existing.pod, None, node_info.node, 1, existing
            )
    return affinity, anti_affinity


# ---------------------------------------------------------------------- extension points


def pre_filter(
    plugin: InterPodAffinity, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
) -> tuple[PreFilterResult | None, Status]:
    parse_error = pod_affinity_parse_error(pod.pod)
    if parse_error is not None:
        return None, unresolvable(f"parsing pod: {parse_error}")
    affinity_terms = [plugin.merge_affinity_term_namespaces(t) for t in pod.required_affinity_terms]
    anti_affinity_terms = [plugin.merge_affinity_term_namespaces(t) for t in pod.required_anti_affinity_terms]
    ns_labels = plugin.namespace_labels_snapshot(pod.pod.metadata.namespace)
    s = PreFilterState(
        pod_info=pod,
        affinity_terms=affinity_terms,
        anti_affinity_terms=anti_affinity_terms,
        namespace_labels=ns_labels,
        existing_anti_affinity_counts=existing_anti_affinity_counts(
            pod.pod, ns_labels, plugin.handle.have_pods_with_required_anti_affinity
        ),
    )
    s.affinity_counts, s.anti_affinity_counts = incoming_affinity_anti_affinity_counts(
        affinity_terms, anti_affinity_terms, nodes
    )
    if not s.existing_anti_affinity_counts and not affinity_terms and not anti_affinity_terms:
        return None, skip()
    state.write(PRE_FILTER_STATE_KEY, s)
    return None, success()


def _read_state(state: CycleState) -> PreFilterState | Status:
    try:
        value = state.read(PRE_FILTER_STATE_KEY)
    except KeyError:
        return error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
    if not isinstance(value, PreFilterState):
        return error(f"{value!r}  convert to interpodaffinity.state error")
    return value


def update_with_pod(state: CycleState, other: PodInfo, node_info: NodeInfo, delta: int) -> Status:
    s = _read_state(state)
    if isinstance(s, Status):
        return s
    s.update_with_pod(other, node_info.node, delta)
    return success()


def satisfy_pod_affinity(s: PreFilterState, node: o.Node) -> bool:
    pods_exist = True
    for term in s.affinity_terms:
        value = node.metadata.labels.get(term.topology_key)
        if value is None:
            # Every topology key must be on the node.
            return False
        if s.affinity_counts.get((term.topology_key, value)) <= 0:
            pods_exist = False
    if pods_exist:
        return True
    # First pod of a self-affine group: nothing anywhere matches, but the pod matches its own terms.
    return len(s.affinity_counts) == 0 and pod_matches_all_affinity_terms(s.affinity_terms, s.pod_info.pod)


def satisfy_pod_anti_affinity(s: PreFilterState, node: o.Node) -> bool:
    if len(s.anti_affinity_counts) > 0:
        for term in s.anti_affinity_terms:
            value = node.metadata.labels.get(term.topology_key)
            if value is not None and s.anti_affinity_counts.get((term.topology_key, value)) > 0:
                return False
    return True


def satisfy_existing_pods_anti_affinity(s: PreFilterState, node: o.Node) -> bool:
    if len(s.existing_anti_affinity_counts) > 0:
        for pair in node.metadata.labels.items():
            if s.existing_anti_affinity_counts.get(pair) > 0:
                return False
    return True


def filter_node(state: CycleState, node_info: NodeInfo) -> Status:
    s = _read_state(state)
    if isinstance(s, Status):
        return s
    node = node_info.node
    if not satisfy_pod_affinity(s, node):
        return unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH, evidence=affinity_evidence(s, node))
    if not satisfy_pod_anti_affinity(s, node):
        return unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH, evidence=anti_affinity_evidence(s, node))
    if not satisfy_existing_pods_anti_affinity(s, node):
        return unschedulable(
            ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH, evidence=existing_anti_affinity_evidence(s, node)
        )
    return success()


def filter_key(state: CycleState) -> NodeReader:
    """The node's domains that Filter looks up: the topology keys of the pod's terms and those of
    the existing pods' anti-affinity terms matching it (counts and evidence are per domain)."""
    s = _read_state(state)
    if isinstance(s, Status):
        return reads_nothing  # the same error on every node
    keys = [t.topology_key for t in (*s.affinity_terms, *s.anti_affinity_terms)]
    counts = s.existing_anti_affinity_counts
    keys.extend(pair[0] for pair in (*counts.counts, *counts.pods))
    return labels_at(keys)


# ---------------------------------------------------------------------- evidence


class TermFacts(TypedDict):
    """An affinity term as evidence shows it."""

    topology_key: str
    selector: str
    namespaces: list[str]
    namespace_selector: str


def term_facts(term: AffinityTerm) -> TermFacts:
    return {
        "topology_key": term.topology_key,
        "selector": str(term.selector),
        "namespaces": sorted(term.namespaces),
        "namespace_selector": str(term.namespace_selector),
    }


# Evidence lists are capped so reports on large clusters stay readable.
MAX_LISTED_PODS = 10
MAX_LISTED_DOMAINS = 10


def _pod_keys(pods: Iterable[PodInfo]) -> list[str]:
    return sorted({pi.key for pi in pods})[:MAX_LISTED_PODS]


def affinity_evidence(s: PreFilterState, node: o.Node) -> list[AnyEvidence]:
    out: list[AnyEvidence] = []
    for term in s.affinity_terms:
        key = term.topology_key
        value = node.metadata.labels.get(key)
        if value is None:
            problem = "node has no label for the topology key"
        elif s.affinity_counts.get((key, value)) <= 0:
            problem = "no pod matching all affinity terms in the node's topology domain"
        else:
            continue
        # Domains (of this key) holding pods that match all the affinity terms.
        domains = [
            MatchingDomain(value=pair[1], count=s.affinity_counts.get(pair), pods=_pod_keys(pods))
            for pair, pods in sorted(s.affinity_counts.pods.items())
            if pair[0] == key
        ]
        out.append(
            PodAffinityTermEvidence(
                rule="affinity",
                **term_facts(term),
                node_topology_value=value,
                problem=problem,
                matching_domain_count=len(domains),
                matching_domains=domains[:MAX_LISTED_DOMAINS],
                any_matching_pod=len(s.affinity_counts) > 0,
                pod_matches_own_terms=pod_matches_all_affinity_terms(s.affinity_terms, s.pod_info.pod),
            )
        )
    return out


def anti_affinity_evidence(s: PreFilterState, node: o.Node) -> list[AnyEvidence]:
    out: list[AnyEvidence] = []
    for term in s.anti_affinity_terms:
        value = node.metadata.labels.get(term.topology_key)
        if value is None:
            continue
        pair = (term.topology_key, value)
        if s.anti_affinity_counts.get(pair) <= 0:
            continue
        conflicting = [pi for pi in s.anti_affinity_counts.pods.get(pair, []) if term.matches(pi.pod, None)]
        out.append(
            PodAffinityTermEvidence(
                rule="antiAffinity",
                **term_facts(term),
                node_topology_value=value,
                conflicting_pod_count=len({pi.uid for pi in conflicting}),
                conflicting_pods=_pod_keys(conflicting),
            )
        )
    return out


def existing_anti_affinity_evidence(s: PreFilterState, node: o.Node) -> list[AnyEvidence]:
    out: list[AnyEvidence] = []
    for pair in sorted(node.metadata.labels.items()):
        if s.existing_anti_affinity_counts.get(pair) <= 0:
            continue
        contributors = {pi.uid: pi for pi in s.existing_anti_affinity_counts.pods.get(pair, [])}
        for existing in sorted(contributors.values(), key=lambda pi: pi.key):
            for term in existing.required_anti_affinity_terms:
                if term.topology_key != pair[0] or not term.matches(s.pod_info.pod, s.namespace_labels):
                    continue
                out.append(
                    PodAffinityTermEvidence(
                        rule="existingAntiAffinity", pod=existing.key, **term_facts(term), node_topology_value=pair[1]
                    )
                )
    return out
