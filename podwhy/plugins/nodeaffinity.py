"""NodeAffinity: the pod's nodeSelector, its required node affinity and the scheduler-enforced
addedAffinity must all match the node; matching preferred terms (the pod's and addedAffinity's)
add their weights to the node's score."""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache
from typing import TYPE_CHECKING

import msgspec
from msgspec import UNSET

from podwhy.framework.equivalence import NodeReader, labels_at
from podwhy.framework.evidence import (
    AnyEvidence,
    MatchedTerm,
    NodeAffinityTermEvidence,
    NodeSelectorEvidence,
    PreferredNodeAffinityEvidence,
)
from podwhy.framework.interface import MAX_NODE_SCORE, CycleState, Plugin, PreFilterResult
from podwhy.framework.plugin_args import NodeAffinityArgs, PluginArgs, args_of
from podwhy.framework.signature import PodPart
from podwhy.framework.status import Status, error, skip, success, unresolvable
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.helpers.fielderrors import aggregate
from podwhy.helpers.labelselectors import NODE_SELECTOR_OPERATORS, SelectorError, new_requirement
from podwhy.helpers.nodeselectors import (
    LazyNodeSelector,
    NodeSelectorTermMatcher,
    RequiredNodeAffinity,
    is_empty_term,
    node_selector_term_errors,
    parse_node_selector_term,
)
from podwhy.model import objects as o
from podwhy.plugins import names
from podwhy.plugins.helper.normalize_score import default_normalize_score

if TYPE_CHECKING:
    from podwhy.framework.handle import Handle

PRE_FILTER_STATE_KEY = "PreFilterNodeAffinity"
PRE_SCORE_STATE_KEY = "PreScoreNodeAffinity"

ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"

OBJECT_NAME_FIELD = "metadata.name"


class _PreFilterState(msgspec.Struct, frozen=True):
    required: RequiredNodeAffinity

    def clone(self) -> _PreFilterState:
        # Not affected by adding or removing pods: share it.
        return self


class _PreferredTerm(msgspec.Struct, frozen=True):
    index: int
    weight: int
    matcher: NodeSelectorTermMatcher


class _PreScoreState(msgspec.Struct, frozen=True):
    preferred: tuple[_PreferredTerm, ...] | None

    def clone(self) -> _PreScoreState:
        return self


def preferred_terms(terms: list[o.PreferredSchedulingTerm]) -> tuple[_PreferredTerm, ...] | str:
    """NewPreferredSchedulingTerms: the terms that count (non-zero weight, non-empty), or the parse error text."""
    parsed: list[_PreferredTerm] = []
    errors: list[str] = []
    for i, term in enumerate(terms):
        if term.weight == 0 or is_empty_term(term.preference):
            continue
        term_errors = node_selector_term_errors(term.preference, f"[{i}]")
        if term_errors:
            errors.extend(term_errors)
        else:
            parsed.append(_PreferredTerm(i, term.weight, parse_node_selector_term(term.preference)))
    if errors:
        return aggregate(errors)
    return tuple(parsed)


def pod_preferred_terms(pod: o.Pod) -> tuple[_PreferredTerm, ...] | str | None:
    """The pod's parsed preferred node affinity; None when it has none, the error text when it does not parse."""
    aff = pod.spec.affinity
    terms = aff.node_affinity.preferred_during_scheduling_ignored_during_execution if aff and aff.node_affinity else []
    # An empty list never reaches the scheduler as non-nil (the API drops it).
    return preferred_terms(terms) if terms else None


def _score_terms(terms: tuple[_PreferredTerm, ...], node: o.Node, source: str, matched: list[MatchedTerm]) -> int:
    """Sum of the weights of the terms matching the node; the matches are appended to `matched`."""
    total = 0
    for term in terms:
        if term.matcher.matches(node):
            total += term.weight
            matched.append(MatchedTerm(source=source, term=term.index, weight=term.weight))
    return total


def required_node_selector(pod: o.Pod) -> o.NodeSelector | None:
    """spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution, or None."""
    aff = pod.spec.affinity
    if aff is None or aff.node_affinity is None:
        return None
    return aff.node_affinity.required_during_scheduling_ignored_during_execution


# ------------------------------------------------------------------ evidence


def _describe(req: o.NodeSelectorRequirement) -> str:
    if req.operator in ("Exists", "DoesNotExist"):
        return f"{req.key} {req.operator}"
    return f"{req.key} {req.operator} [{', '.join(req.values)}]"


def _expression_failure(req: o.NodeSelectorRequirement, labels: dict[str, str]) -> str | None:
    """Why one matchExpressions entry rejects these labels, None when it matches."""
    if req.operator not in NODE_SELECTOR_OPERATORS:
        return f"{_describe(req)}: operator not supported (matches no node)"
    try:
        parsed = new_requirement(req.key, req.operator, list(req.values))
    except SelectorError as exc:
        return f"{_describe(req)}: invalid ({exc}; matches no node)"
    return None if parsed.matches(labels) else _describe(req)


def _field_failure(req: o.NodeSelectorRequirement, node_name: str) -> str | None:
    """Why one matchFields entry rejects the node, None when it matches."""
    if req.operator not in ("In", "NotIn"):
        return f"{_describe(req)}: operator not supported in matchFields (matches no node)"
    if len(req.values) != 1:
        return f"{_describe(req)}: matchFields needs exactly one value (matches no node)"
    if not node_name:
        return None
    got = node_name if req.key == OBJECT_NAME_FIELD else ""
    return None if (got == req.values[0]) == (req.operator == "In") else _describe(req)


def _term_evidence(selector: o.NodeSelector, node: o.Node, source: str) -> list[AnyEvidence]:
    """One item per nodeSelectorTerm (they are ORed), naming what in it rejects the node."""
    labels = node.metadata.labels
    out: list[AnyEvidence] = []
    for i, term in enumerate(selector.node_selector_terms):
        if is_empty_term(term):
            out.append(NodeAffinityTermEvidence(source=source, term=i, unmatched=["empty term"]))
            continue
        parsed = parse_node_selector_term(term)
        # A term with any invalid requirement matches nothing; list every requirement's verdict then.
        failures = [f for r in term.match_expressions if (f := _expression_failure(r, labels)) is not None]
        failures += [f for r in term.match_fields if (f := _field_failure(r, node.metadata.name)) is not None]
        if not failures and not parsed.parse_errors:
            continue
        keys = sorted({r.key for r in term.match_expressions})
        out.append(
            NodeAffinityTermEvidence(
                source=source,
                term=i,
                unmatched=failures or list(parsed.parse_errors),
                node_labels={k: labels.get(k) for k in keys},
                node_name=node.metadata.name if term.match_fields else UNSET,
            )
        )
    if not selector.node_selector_terms:
        out.append(NodeAffinityTermEvidence(source=source, term=None, unmatched=["no terms"]))
    return out


def _pod_evidence(pod: o.Pod, node: o.Node) -> list[AnyEvidence]:
    labels = node.metadata.labels
    out: list[AnyEvidence] = [
        NodeSelectorEvidence(key=key, required=want, node_value=labels.get(key))
        for key, want in sorted(pod.spec.node_selector.items())
        if labels.get(key) != want
    ]
    required = required_node_selector(pod)
    if required is not None and not LazyNodeSelector.parse(required).matches(node):
        out.extend(_term_evidence(required, node, "pod"))
    return out


def _selector_reads(selector: o.NodeSelector | None, keys: list[str]) -> bool:
    """Add the label keys the selector's terms read to KEYS; whether a term reads the node's name."""
    if selector is None:
        return False
    names = False
    for term in selector.node_selector_terms:
        keys.extend(r.key for r in term.match_expressions)
        names = names or bool(term.match_fields)
    return names


@lru_cache(maxsize=256)  # the same reader for the same labels' (see equivalence.NodeClasses.key)
def _with_name(labels: NodeReader) -> NodeReader:
    def read(node_info: NodeInfo) -> Hashable:
        return (node_info.name, labels(node_info))

    return read


# ------------------------------------------------------------------ plugin


class NodeAffinity(Plugin):
    NAME = names.NODE_AFFINITY
    NODE_LOCAL_FILTER = NODE_LOCAL_SCORE = True
    POD_PARTS = frozenset({PodPart.SPEC})
    # A RuntimeClass adds its overhead and scheduling constraints to the pod at admission.
    ADMISSION_KINDS = frozenset({"RuntimeClass"})
    ARGS = NodeAffinityArgs

    def __init__(self, handle: Handle, args: PluginArgs | None = None) -> None:
        super().__init__(handle, args)
        self.added_affinity = args_of(NodeAffinityArgs, args).added_affinity
        self.added_required: o.NodeSelector | None = None
        self.added_node_selector: LazyNodeSelector | None = None
        self.added_preferred: tuple[_PreferredTerm, ...] | None = None
        if self.added_affinity is not None:
            self.added_required = self.added_affinity.required_during_scheduling_ignored_during_execution
            if self.added_required is not None:
                self.added_node_selector = LazyNodeSelector.parse(self.added_required)
            added_terms = self.added_affinity.preferred_during_scheduling_ignored_during_execution
            if added_terms:
                parsed = preferred_terms(added_terms)
                # Decoding the args has refused terms that do not parse.
                assert not isinstance(parsed, str)
                self.added_preferred = parsed

    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        required = required_node_selector(pod.pod)
        # An empty nodeSelector map never reaches the scheduler as non-nil (the API drops it).
        if required is None and self.added_node_selector is None and not pod.pod.spec.node_selector:
            return None, skip()
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(RequiredNodeAffinity.of_pod(pod.pod)))
        if required is None or not required.node_selector_terms:
            return None, success()

        # Terms are ORed: the pod is limited to named nodes only when every term names some.
        node_names: set[str] = set()
        per_term: list[list[str]] = []
        for term in required.node_selector_terms:
            term_names: set[str] | None = None
            for req in term.match_fields:
                if req.key == OBJECT_NAME_FIELD and req.operator == "In":
                    # Requirements within a term are ANDed.
                    term_names = set(req.values) if term_names is None else term_names & set(req.values)
            if term_names is None:
                return None, success()
            per_term.append(sorted(term_names))
            node_names |= term_names
        if not node_names:
            return None, unresolvable(
                ERR_REASON_CONFLICT,
                evidence=[NodeAffinityTermEvidence(source="pod", node_names_per_term=per_term)],
            )
        return PreFilterResult(node_names), success()

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status:
        node = node_info.node
        if self.added_node_selector is not None and not self.added_node_selector.matches(node):
            assert self.added_required is not None
            return unresolvable(
                ERR_REASON_ENFORCED, evidence=_term_evidence(self.added_required, node, "addedAffinity")
            )
        st = state.get(PRE_FILTER_STATE_KEY)
        # Without PreFilter (disabled in the profile) upstream computes the same thing here.
        required = st.required if isinstance(st, _PreFilterState) else RequiredNodeAffinity.of_pod(pod.pod)
        if not required.matches(node):
            return unresolvable(ERR_REASON_POD, evidence=_pod_evidence(pod.pod, node))
        return success()

    def filter_key(self, state: CycleState, pod: PodInfo) -> NodeReader | None:
        # The labels its selectors name (the evidence shows the node's values of those), and the
        # node's name where a term has matchFields.
        keys = list(pod.pod.spec.node_selector)
        names = _selector_reads(required_node_selector(pod.pod), keys)
        names = _selector_reads(self.added_required, keys) or names
        labels = labels_at(keys)
        return _with_name(labels) if names else labels

    # -------------------------------------------------------------- scoring

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
        terms = pod_preferred_terms(pod.pod)
        if isinstance(terms, str):
            return error(terms)
        if terms is None and self.added_preferred is None:
            return skip()
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(terms))
        return success()

    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> tuple[int, Status]:
        node = node_info.node
        matched: list[MatchedTerm] = []
        total = 0
        if self.added_preferred is not None:
            total += _score_terms(self.added_preferred, node, "addedAffinity", matched)
        st = state.get(PRE_SCORE_STATE_KEY)
        if isinstance(st, _PreScoreState):
            terms = st.preferred
        else:
            # Without PreScore (disabled in the profile) upstream parses the pod's terms here.
            parsed = pod_preferred_terms(pod.pod)
            if isinstance(parsed, str):
                return 0, error(parsed)
            terms = parsed
        if terms is not None:
            total += _score_terms(terms, node, "pod", matched)
        return total, Status(evidence=[PreferredNodeAffinityEvidence(matched_terms=matched, sum=total)])

    def score_key(self, state: CycleState, pod: PodInfo) -> NodeReader | None:
        # The labels its preferred terms name, and the node's name where one has matchFields.
        keys: list[str] = []
        names = False
        aff = pod.pod.spec.affinity
        terms = []
        if aff is not None and aff.node_affinity is not None:
            terms.extend(aff.node_affinity.preferred_during_scheduling_ignored_during_execution)
        if self.added_affinity is not None:
            terms.extend(self.added_affinity.preferred_during_scheduling_ignored_during_execution)
        for term in terms:
            keys.extend(r.key for r in term.preference.match_expressions)
            names = names or bool(term.preference.match_fields)
        labels = labels_at(keys)
        return _with_name(labels) if names else labels

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status:
        default_normalize_score(MAX_NODE_SCORE, False, scores)
        return success()
