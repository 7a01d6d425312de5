"""Plugin name -> class, for every plugin podwhy implements."""

from __future__ import annotations

import importlib

from podwhy.framework.interface import Plugin

# Module (under podwhy.plugins) and class for each upstream plugin name.
_PLUGINS: dict[str, tuple[str, str]] = {
    "NodeUnschedulable": ("nodeunschedulable", "NodeUnschedulable"),
    "NodeName": ("nodename", "NodeName"),
    "TaintToleration": ("tainttoleration", "TaintToleration"),
    "NodeAffinity": ("nodeaffinity", "NodeAffinity"),
    "NodePorts": ("nodeports", "NodePorts"),
    "NodeResourcesFit": ("noderesources.fit", "Fit"),
    "VolumeRestrictions": ("volumerestrictions", "VolumeRestrictions"),
    "NodeVolumeLimits": ("nodevolumelimits", "NodeVolumeLimits"),
    "VolumeBinding": ("volumebinding", "VolumeBinding"),
    "VolumeZone": ("volumezone", "VolumeZone"),
    "PodTopologySpread": ("podtopologyspread", "PodTopologySpread"),
    "InterPodAffinity": ("interpodaffinity", "InterPodAffinity"),
    "DynamicResources": ("dynamicresources", "DynamicResources"),
    "NodeResourcesBalancedAllocation": ("noderesources.balanced_allocation", "BalancedAllocation"),
    "ImageLocality": ("imagelocality", "ImageLocality"),
    "DefaultPreemption": ("defaultpreemption", "DefaultPreemption"),
}


def plugin_class(name: str) -> type[Plugin] | None:
    """The class implementing an upstream plugin, or None if podwhy lacks it."""
    spec = _PLUGINS.get(name)
    if spec is None:
        return None
    try:
        module = importlib.import_module(f"podwhy.plugins.{spec[0]}")
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("podwhy.plugins"):
            return None
        raise
    cls = getattr(module, spec[1], None)
    return cls if isinstance(cls, type) and issubclass(cls, Plugin) else None
