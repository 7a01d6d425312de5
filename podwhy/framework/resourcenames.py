"""Which resource names are native and which extended (v1helper.IsNativeResource,
IsExtendedResourceName): names only, no quantities, so that the report's words can tell them apart."""

from __future__ import annotations

from podwhy.model.validation import is_qualified_name


def is_prefixed_native_resource(name: str) -> bool:
    return "kubernetes.io/" in name


def is_native_resource(name: str) -> bool:
    return "/" not in name or is_prefixed_native_resource(name)


def is_extended_resource_name(name: str) -> bool:
    if is_native_resource(name) or name.startswith("requests."):
        return False
    return is_qualified_name("requests." + name)
