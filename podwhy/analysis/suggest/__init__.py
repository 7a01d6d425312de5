"""Verified suggestions: small changes to an unschedulable pod or its cluster that make it fit.

Each candidate is applied to copies (the shared snapshot and pod are never mutated) and the
scheduling cycle runs again; only candidates whose re-run verdict is Schedulable are kept.
Patches are RFC 7386 JSON merge patches against objects of the snapshot (a `null` patch
removes the object, as RFC 7386 replaces the target with any non-object patch); commands are
what a user would run, against the pod's owning workload rather than the pod.

Work is bounded so that large clusters stay fast: a few candidate nodes per kind, a cap on
re-runs, and changes to the cluster (which re-index the snapshot) only below a size limit.

One module per kind of suggestion, as podwhy/plugins/ has one per plugin; order.py tries them
in order; facts.py holds what they find. Bounds are module constants of the module that reads
them. Importing the package loads none of them: each name below is loaded when first used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from podwhy.analysis.commands import template_owner
    from podwhy.analysis.sizing import SizingOutcome
    from podwhy.analysis.suggest.base import MAX_SUGGESTIONS
    from podwhy.analysis.suggest.causesizing import CauseSizing, size_causes
    from podwhy.analysis.suggest.facts import Suggestion
    from podwhy.analysis.suggest.groups import (
        GroupBudget,
        node_local_group,
        size_group,
        size_groups,
        static_filters,
    )
    from podwhy.analysis.suggest.notes import GroupSizing
    from podwhy.analysis.suggest.order import suggest
    from podwhy.analysis.suggest.patches import apply_json_patch, merge_diff, typed_document
    from podwhy.analysis.suggest.shapes import allocatable_shapes, beyond_every_node

_WHERE = {
    "template_owner": "podwhy.analysis.commands",
    "SizingOutcome": "podwhy.analysis.sizing",
    "MAX_SUGGESTIONS": "podwhy.analysis.suggest.base",
    "GroupSizing": "podwhy.analysis.suggest.notes",
    "Suggestion": "podwhy.analysis.suggest.facts",
    **dict.fromkeys(("CauseSizing", "size_causes"), "podwhy.analysis.suggest.causesizing"),
    **dict.fromkeys(("allocatable_shapes", "beyond_every_node"), "podwhy.analysis.suggest.shapes"),
    **dict.fromkeys(
        (
            "GroupBudget",
            "node_local_group",
            "size_group",
            "size_groups",
            "static_filters",
        ),
        "podwhy.analysis.suggest.groups",
    ),
    "suggest": "podwhy.analysis.suggest.order",
    **dict.fromkeys(("apply_json_patch", "merge_diff", "typed_document"), "podwhy.analysis.suggest.patches"),
}

__all__ = [
    "MAX_SUGGESTIONS",
    "CauseSizing",
    "GroupBudget",
    "GroupSizing",
    "SizingOutcome",
    "Suggestion",
    "allocatable_shapes",
    "apply_json_patch",
    "beyond_every_node",
    "merge_diff",
    "node_local_group",
    "size_causes",
    "size_group",
    "size_groups",
    "static_filters",
    "suggest",
    "template_owner",
    "typed_document",
]


def __getattr__(name: str) -> object:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)
