"""Upstream plugin name -> class, for every in-tree plugin of kube-scheduler v1.33 to v1.36 that podwhy knows."""

from __future__ import annotations

from podwhy.framework.interface import Plugin
from podwhy.framework.signature import FRAMEWORK_PARTS, PodPart
from podwhy.plugins.defaultbinder import DefaultBinder
from podwhy.plugins.defaultpreemption import DefaultPreemption
from podwhy.plugins.dynamicresources import DynamicResources
from podwhy.plugins.imagelocality import ImageLocality
from podwhy.plugins.interpodaffinity import InterPodAffinity
from podwhy.plugins.nodeaffinity import NodeAffinity
from podwhy.plugins.nodedeclaredfeatures import NodeDeclaredFeatures
from podwhy.plugins.nodename import NodeName
from podwhy.plugins.nodeports import NodePorts
from podwhy.plugins.noderesources.balanced_allocation import BalancedAllocation
from podwhy.plugins.noderesources.fit import Fit
from podwhy.plugins.nodeunschedulable import NodeUnschedulable
from podwhy.plugins.nodevolumelimits import NodeVolumeLimits
from podwhy.plugins.podtopologyspread import PodTopologySpread
from podwhy.plugins.queuesort import PrioritySort
from podwhy.plugins.schedulinggates import SchedulingGates
from podwhy.plugins.tainttoleration import TaintToleration
from podwhy.plugins.volumebinding import VolumeBinding
from podwhy.plugins.volumerestrictions import VolumeRestrictions
from podwhy.plugins.volumezone import VolumeZone

_CLASSES: tuple[type[Plugin], ...] = (
    SchedulingGates,
    PrioritySort,
    NodeUnschedulable,
    NodeName,
    TaintToleration,
    NodeAffinity,
    NodePorts,
    Fit,
    VolumeRestrictions,
    NodeVolumeLimits,
    VolumeBinding,
    VolumeZone,
    PodTopologySpread,
    InterPodAffinity,
    DynamicResources,
    DefaultPreemption,
    BalancedAllocation,
    ImageLocality,
    DefaultBinder,
    NodeDeclaredFeatures,
)

PLUGINS: dict[str, type[Plugin]] = {cls.NAME: cls for cls in _CLASSES}

# The plugins of each trait (framework/interface.py), by name.
# Filters whose verdict on a node reads only the pod and that node: nothing placed on other nodes changes it.
NODE_LOCAL_FILTERS = frozenset(cls.NAME for cls in _CLASSES if cls.NODE_LOCAL_FILTER)
# Score plugins whose raw score of a node reads only the pod and that node; the others
# (PodTopologySpread, InterPodAffinity, and the claim plugins) count pods across nodes.
NODE_LOCAL_SCORES = frozenset(cls.NAME for cls in _CLASSES if cls.NODE_LOCAL_SCORE)
# Plugins whose rejection a new copy of the node can cure.
CURED_BY_EMPTY_NODE = frozenset(cls.NAME for cls in _CLASSES if cls.CURED_BY_EMPTY_NODE)

# The parts of a pod signature (framework/signature.py) for each of its uses.
# Replicas placed one after another that agree in these get the same verdict and raw score from
# every node-local plugin on a node to which nothing was bound between their cycles.
NODE_LOCAL_PARTS: frozenset[PodPart] = FRAMEWORK_PARTS.union(
    *(cls.POD_PARTS for cls in _CLASSES if cls.NODE_LOCAL_FILTER or cls.NODE_LOCAL_SCORE)
)
# Pods that agree in these are the same pod to the scheduler: no plugin can tell them apart.
SCHEDULER_PARTS: frozenset[PodPart] = FRAMEWORK_PARTS.union(*(cls.POD_PARTS for cls in _CLASSES))


def plugin_class(name: str) -> type[Plugin] | None:
    """The class implementing an upstream plugin, or None if podwhy does not know it."""
    return PLUGINS.get(name)
