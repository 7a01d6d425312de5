"""The default kube-scheduler v1.35 profile: plugin order per extension point and weights."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DEFAULT_SCHEDULER_NAME = "default-scheduler"

PRE_FILTER_ORDER = (
    "NodeAffinity",
    "NodePorts",
    "NodeResourcesFit",
    "VolumeRestrictions",
    "NodeVolumeLimits",
    "VolumeBinding",
    "VolumeZone",
    "PodTopologySpread",
    "InterPodAffinity",
    "DynamicResources",
)

FILTER_ORDER = (
    "NodeUnschedulable",
    "NodeName",
    "TaintToleration",
    "NodeAffinity",
    "NodePorts",
    "NodeResourcesFit",
    "VolumeRestrictions",
    "NodeVolumeLimits",
    "VolumeBinding",
    "VolumeZone",
    "PodTopologySpread",
    "InterPodAffinity",
    "DynamicResources",
)

POST_FILTER_ORDER = ("DynamicResources", "DefaultPreemption")

PRE_SCORE_ORDER = (
    "TaintToleration",
    "NodeAffinity",
    "NodeResourcesFit",
    "VolumeBinding",
    "PodTopologySpread",
    "InterPodAffinity",
    "NodeResourcesBalancedAllocation",
)

SCORE_WEIGHTS = {
    "TaintToleration": 3,
    "NodeAffinity": 2,
    "NodeResourcesFit": 1,
    "VolumeBinding": 1,
    "PodTopologySpread": 2,
    "InterPodAffinity": 2,
    "DynamicResources": 2,
    "NodeResourcesBalancedAllocation": 1,
    "ImageLocality": 1,
}


@dataclass
class Profile:
    """One scheduling profile: which plugins run at each point, in order, with args."""

    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    pre_filter: list[str] = field(default_factory=lambda: list(PRE_FILTER_ORDER))
    filter: list[str] = field(default_factory=lambda: list(FILTER_ORDER))
    post_filter: list[str] = field(default_factory=lambda: list(POST_FILTER_ORDER))
    pre_score: list[str] = field(default_factory=lambda: list(PRE_SCORE_ORDER))
    score: dict[str, int] = field(default_factory=lambda: dict(SCORE_WEIGHTS))
    plugin_args: dict[str, dict[str, Any]] = field(default_factory=dict)
    percentage_of_nodes_to_score: int | None = None


def default_profile() -> Profile:
    return Profile()
