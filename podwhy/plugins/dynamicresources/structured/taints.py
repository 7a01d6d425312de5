"""DRADeviceTaints: whether a device's taints prevent allocating it for a request."""

from __future__ import annotations

from typing import Any

from podwhy.model import objects as o
from podwhy.plugins.dynamicresources.structured.requests import RequestView

# Device taint effects that prevent allocation; others (None included) are ignored.
PREVENTING_TAINT_EFFECTS = ("NoSchedule", "NoExecute")


def tolerates_device_taint(toleration: Any, taint: Any) -> bool:
    """resourceclaim.ToleratesTaint: effect, key, then Equal (or empty) compares values, Exists matches any."""
    if not isinstance(toleration, dict) or not isinstance(taint, dict):
        return False
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    if key and key != taint.get("key"):
        return False
    operator = toleration.get("operator") or ""
    if operator in ("", "Equal"):
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return operator == "Exists"


def taint_prevents_allocation(device: o.Device, request: RequestView) -> bool:
    """taintPreventsAllocation: a NoSchedule or NoExecute taint that none of the request's tolerations tolerates."""
    return any(
        isinstance(taint, dict)
        and taint.get("effect") in PREVENTING_TAINT_EFFECTS
        and not any(tolerates_device_taint(t, taint) for t in request.tolerations)
        for taint in device.taints
    )
