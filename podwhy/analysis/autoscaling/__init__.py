"""Autoscalers beside the scheduler: will a node come for a pod no node fits, and if not, why
not. One module per autoscaler (clusterautoscaler, karpenter) behind base.Autoscaler; the facts
they find in facts.py. Importing the package loads none of them: each name below is loaded when
first used."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from podwhy.analysis.autoscaling.analysis import AUTOSCALER_KINDS, analyse, autoscalers
    from podwhy.analysis.autoscaling.base import Autoscaler
    from podwhy.analysis.autoscaling.facts import (
        AnyGroupFinding,
        AutoscalerEvent,
        AutoscalerView,
        AutoscalingAnalysis,
        ComingEvidence,
        ComingNode,
        GroupFinding,
        GroupOutcome,
        NodeClaimProgress,
        PodExclusion,
        Reason,
        ScaleUpTriggered,
        StatusUnknown,
    )

_WHERE = {
    **dict.fromkeys(("AUTOSCALER_KINDS", "analyse", "autoscalers"), "podwhy.analysis.autoscaling.analysis"),
    "Autoscaler": "podwhy.analysis.autoscaling.base",
    **dict.fromkeys(
        (
            "AnyGroupFinding",
            "AutoscalerEvent",
            "AutoscalerView",
            "AutoscalingAnalysis",
            "ComingEvidence",
            "ComingNode",
            "GroupFinding",
            "GroupOutcome",
            "NodeClaimProgress",
            "PodExclusion",
            "Reason",
            "ScaleUpTriggered",
            "StatusUnknown",
        ),
        "podwhy.analysis.autoscaling.facts",
    ),
}

__all__ = [
    "AUTOSCALER_KINDS",
    "AnyGroupFinding",
    "Autoscaler",
    "AutoscalerEvent",
    "AutoscalerView",
    "AutoscalingAnalysis",
    "ComingEvidence",
    "ComingNode",
    "GroupFinding",
    "GroupOutcome",
    "NodeClaimProgress",
    "PodExclusion",
    "Reason",
    "ScaleUpTriggered",
    "StatusUnknown",
    "analyse",
    "autoscalers",
]


def __getattr__(name: str) -> object:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)
