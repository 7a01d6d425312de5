"""Autoscalers beside the scheduler: will a node come for a pod no node fits, and if not, why
not. One module per autoscaler (clusterautoscaler, karpenter) behind base.Autoscaler."""

from podwhy.analysis.autoscaling.analysis import AUTOSCALER_KINDS, analyse, autoscalers
from podwhy.analysis.autoscaling.base import (
    Autoscaler,
    AutoscalerEvent,
    AutoscalerView,
    AutoscalingAnalysis,
    ComingEvidence,
    ComingNode,
    GroupFinding,
    GroupOutcome,
    NodeClaimProgress,
    NotEvaluated,
    PodExclusion,
    Reason,
    ScaleUpTriggered,
)

__all__ = [
    "AUTOSCALER_KINDS",
    "Autoscaler",
    "AutoscalerEvent",
    "AutoscalerView",
    "AutoscalingAnalysis",
    "ComingEvidence",
    "ComingNode",
    "GroupFinding",
    "GroupOutcome",
    "NodeClaimProgress",
    "NotEvaluated",
    "PodExclusion",
    "Reason",
    "ScaleUpTriggered",
    "analyse",
    "autoscalers",
]
