"""Resource names and their kinds (core/v1's ResourceName constants, v1helper's IsNativeResource,
IsExtendedResourceName, IsHugePageResourceName, IsScalarResourceName): names only, no quantities,
so that the report's words can tell them apart."""

from __future__ import annotations

from functools import cache

from podwhy.helpers.namevalidation import is_qualified_name

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"
STORAGE = "storage"
HUGEPAGES_PREFIX = "hugepages-"
_ATTACHABLE_VOLUMES_PREFIX = "attachable-volumes-"


def is_prefixed_native_resource(name: str) -> bool:
    return "kubernetes.io/" in name


def is_native_resource(name: str) -> bool:
    return "/" not in name or is_prefixed_native_resource(name)


# Asked of every extended resource of every pod on every node filtered: the answer is the name's.
@cache
def is_extended_resource_name(name: str) -> bool:
    if is_native_resource(name) or name.startswith("requests."):
        return False
    return is_qualified_name("requests." + name)


def is_hugepages(name: str) -> bool:
    return name.startswith(HUGEPAGES_PREFIX)


def is_scalar_resource_name(name: str) -> bool:
    return (
        is_extended_resource_name(name)
        or is_hugepages(name)
        or is_prefixed_native_resource(name)
        or name.startswith(_ATTACHABLE_VOLUMES_PREFIX)
    )
