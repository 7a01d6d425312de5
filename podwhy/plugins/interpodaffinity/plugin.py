"""The InterPodAffinity plugin object, its args and namespace lookups (upstream plugin.go)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from podwhy.framework.equivalence import NodeReader
from podwhy.framework.interface import CycleState, Plugin, PreFilterResult
from podwhy.framework.plugin_args import InterPodAffinityArgs, PluginArgs, args_of
from podwhy.framework.signature import PodPart
from podwhy.framework.status import Status
from podwhy.framework.types import AffinityTerm, NodeInfo, PodInfo
from podwhy.model import records
from podwhy.plugins import names
from podwhy.plugins.interpodaffinity import filtering, scoring

if TYPE_CHECKING:
    from podwhy.framework.handle import Handle


def _needs_namespace_labels(term: AffinityTerm) -> bool:
    """A namespaceSelector that is neither Nothing() nor Everything() has to read Namespace labels."""
    return not term.namespace_selector.nothing and not term.namespace_selector.is_empty()


class InterPodAffinity(Plugin):
    NAME = names.INTER_POD_AFFINITY
    CURED_BY_EMPTY_NODE = True
    POD_PARTS = frozenset({PodPart.NAMESPACE, PodPart.LABELS, PodPart.SPEC})
    ARGS = InterPodAffinityArgs

    def __init__(self, handle: Handle, args: PluginArgs | None = None) -> None:
        super().__init__(handle, args)
        # Scoring-only args.
        affinity_args = args_of(InterPodAffinityArgs, args)
        self.hard_pod_affinity_weight = affinity_args.hard_pod_affinity_weight
        self.ignore_preferred_terms_of_existing_pods = affinity_args.ignore_preferred_terms_of_existing_pods

    def required_kinds(self, pod: PodInfo) -> set[str]:
        terms = [*pod.required_affinity_terms, *pod.required_anti_affinity_terms]
        if any(_needs_namespace_labels(t) for t in terms):
            return {"Namespace"}
        for node_info in self.handle.have_pods_with_required_anti_affinity:
            for existing in node_info.pods_with_required_anti_affinity:
                if any(_needs_namespace_labels(t) for t in existing.required_anti_affinity_terms):
                    return {"Namespace"}
        return set()

    def required_kinds_for_score(self, pod: PodInfo) -> set[str]:
        terms = [*pod.preferred_affinity_terms, *pod.preferred_anti_affinity_terms]
        if any(_needs_namespace_labels(weighted.term) for weighted in terms):
            return {"Namespace"}
        return self.required_kinds(pod)

    # ------------------------------------------------------------------ namespaces
    def merge_affinity_term_namespaces(self, term: AffinityTerm) -> AffinityTerm:
        """Add the namespaces the term's namespaceSelector picks to its namespace set.

        Upstream resets the selector to Nothing() on a copy of the term only, so the
        term keeps its original selector; it is later matched against empty namespace
        labels. That is reproduced here on purpose.
        """
        if term.namespace_selector.is_empty():
            return term
        matched = {
            name
            for name, ns in self.handle.snapshot.namespaces.items()
            if term.namespace_selector.matches(ns.metadata.labels)
        }
        if not matched:
            return term
        return records.replace(term, namespaces=term.namespaces | matched)

    def namespace_labels_snapshot(self, namespace: str) -> dict[str, str] | None:
        """GetNamespaceLabelsSnapshot: None when the namespace is unknown (an empty label set)."""
        labels = self.handle.namespace_labels(namespace)
        return dict(labels) if labels is not None else None

    # ------------------------------------------------------------------ extension points
    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        return filtering.pre_filter(self, state, pod, nodes)

    def add_pod(self, state: CycleState, pod: PodInfo, to_add: PodInfo, node_info: NodeInfo) -> Status:
        return filtering.update_with_pod(state, to_add, node_info, 1)

    def remove_pod(self, state: CycleState, pod: PodInfo, to_remove: PodInfo, node_info: NodeInfo) -> Status:
        return filtering.update_with_pod(state, to_remove, node_info, -1)

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status:
        return filtering.filter_node(state, node_info)

    def filter_key(self, state: CycleState, pod: PodInfo) -> NodeReader | None:
        return filtering.filter_key(state)

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
        return scoring.pre_score(self, state, pod, nodes)

    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> tuple[int, Status]:
        return scoring.score(state, node_info)

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status:
        return scoring.normalize_score(state, scores)
