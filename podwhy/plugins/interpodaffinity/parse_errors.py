"""NewPodInfo's error text for pod affinity terms whose selectors do not parse.

The API server refuses such pods, so this only matters for hand-made input; the
wording follows apimachinery (LabelSelectorAsSelector, labels.NewRequirement,
field.Error and utilerrors aggregates) so the PreFilter reason reads the same.
"""

from __future__ import annotations

from podwhy.helpers.fielderrors import aggregate
from podwhy.helpers.selectorerrors import label_selector_error
from podwhy.model import objects as o


def affinity_term_error(term: o.PodAffinityTerm) -> str | None:
    return label_selector_error(term.label_selector) or label_selector_error(term.namespace_selector)


def pod_affinity_parse_error(pod: o.Pod) -> str | None:
    """The error NewPodInfo returns for the pod's affinity terms, or None."""
    aff = pod.spec.affinity
    if aff is None:
        return None
    pa, paa = aff.pod_affinity, aff.pod_anti_affinity
    kinds: list[tuple[str, list[o.PodAffinityTerm]]] = [
        ("requiredAffinityTerms", pa.required_during_scheduling_ignored_during_execution if pa else []),
        ("requiredAntiAffinityTerms", paa.required_during_scheduling_ignored_during_execution if paa else []),
        (
            "preferredAffinityTerms",
            [w.pod_affinity_term for w in pa.preferred_during_scheduling_ignored_during_execution] if pa else [],
        ),
        (
            "preferredAntiAffinityTerms",
            [w.pod_affinity_term for w in paa.preferred_during_scheduling_ignored_during_execution] if paa else [],
        ),
    ]
    errors: list[str] = []
    for kind, terms in kinds:
        for term in terms:
            err = affinity_term_error(term)
            if err is not None:
                # Parsing of a kind stops at its first bad term.
                errors.append(f"{kind}: {err}")
                break
    return aggregate(errors) if errors else None
