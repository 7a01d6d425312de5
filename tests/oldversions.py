"""The API server's conversion the other way: objects of podwhy's v1 model, as dicts, written in
the older versions a cluster serves (Convert_resource_*_To_v1beta1 / _To_v1alpha3 and
Convert_policy_PodDisruptionBudget_To_v1beta1 upstream). Tests write a cluster in an old
version and require podwhy to read it back to the same report."""

from __future__ import annotations

import copy
from typing import Any

Json = dict[str, Any]

DRA_KINDS = ("DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate")
PDB_LABEL = "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match"
# v1 Device fields v1alpha3's BasicDevice does not have (the conversion drops them).
_NOT_IN_V1ALPHA3 = ("bindsToNode", "bindingConditions", "bindingFailureConditions", "allowMultipleAllocations")


def _device(device: Json, version: str) -> Json:
    basic = {k: v for k, v in device.items() if k != "name"}
    if version == "v1alpha3":
        for key in _NOT_IN_V1ALPHA3:
            basic.pop(key, None)
        if "capacity" in basic:
            basic["capacity"] = {name: cap["value"] for name, cap in basic["capacity"].items()}
    return {"name": device["name"], "basic": basic}


def _request(request: Json, version: str) -> Json:
    out = {k: v for k, v in request.items() if k != "exactly"}
    exact = dict(request.get("exactly") or {})
    if version == "v1alpha3":
        exact.pop("capacity", None)
    out.update(exact)
    return out


def _claim_spec(spec: Json, version: str) -> Json:
    spec = copy.deepcopy(spec)
    devices = spec.get("devices")
    if isinstance(devices, dict) and devices.get("requests"):
        devices["requests"] = [_request(r, version) for r in devices["requests"]]
    return spec


def dra_to(obj: Json, version: str) -> Json:
    """A resource.k8s.io/v1 object (with kind and apiVersion) as resource.k8s.io/VERSION serves it."""
    kind = obj["kind"]
    out = copy.deepcopy(obj)
    out["apiVersion"] = f"resource.k8s.io/{version}"
    if version in ("v1", "v1beta2") or kind == "DeviceClass":
        return out
    spec = out.get("spec") or {}
    if kind == "ResourceSlice":
        spec["devices"] = [_device(d, version) for d in spec.get("devices") or []]
        if not spec.get("nodeName"):
            spec.pop("nodeName", None)
        if not spec.get("allNodes"):
            spec.pop("allNodes", None)
    elif kind == "ResourceClaim":
        out["spec"] = _claim_spec(spec, version)
    elif kind == "ResourceClaimTemplate":
        spec["spec"] = _claim_spec(spec.get("spec") or {}, version)
    return out


def pdb_to_v1beta1(obj: Json) -> Json:
    """A policy/v1 PodDisruptionBudget as policy/v1beta1 serves it."""
    out = copy.deepcopy(obj)
    out["apiVersion"] = "policy/v1beta1"
    spec = out.get("spec") or {}
    selector = spec.get("selector")
    if selector is None:
        return out
    if not selector.get("matchLabels") and not selector.get("matchExpressions"):
        spec["selector"] = {"matchExpressions": [{"key": PDB_LABEL, "operator": "DoesNotExist"}]}
    elif not selector.get("matchLabels") and selector.get("matchExpressions") == [
        {"key": PDB_LABEL, "operator": "Exists"}
    ]:
        spec["selector"] = {}
    return out


def to_old(obj: Json, dra_version: str = "v1beta1") -> Json:
    """OBJ in the older version of its kind (DRA kinds in DRA_VERSION), others unchanged."""
    kind = obj.get("kind")
    if kind in DRA_KINDS:
        return dra_to(obj, dra_version)
    if kind == "PodDisruptionBudget":
        return pdb_to_v1beta1(obj)
    return obj
