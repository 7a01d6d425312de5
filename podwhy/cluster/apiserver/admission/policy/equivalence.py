"""Equivalent resources (apimachinery's runtime.EquivalentResourceRegistry): the versions and
groups of one resource the API server stores once, which a rule of matchPolicy Equivalent also
matches, and the kind each serves.

`SERVED` is what the emulated releases' API servers register for the kinds podwhy creates. Each of
these is served in one version only since Kubernetes 1.25 (extensions/v1beta1 and apps/v1beta1,
v1beta2 Deployments, ReplicaSets, StatefulSets and DaemonSets were removed in 1.16, batch/v1beta1
CronJobs in 1.25), so each is equivalent to itself alone: a rule for apps/v1beta1 deployments
matches no request of a v1.33 to v1.36 server."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from podwhy.cluster.apiserver.admission.policy.request import (
    CREATED_RESOURCES,
    GroupVersionKind,
    GroupVersionResource,
)


def _default_key(group: str, resource: str) -> str:
    """schema.GroupResource.String(): `resource.group`, or `resource` in the core group."""
    return f"{resource}.{group}" if group else resource


class EquivalentResourceRegistry(msgspec.Struct):
    """Resources registered with their kind per subresource; resources whose KEY_FUNC agrees are
    equivalent (the API server keys them by their storage prefix). KEY_FUNC's "" means the
    default key, the group and resource."""

    key_func: Callable[[str, str], str] | None = None
    _resources: dict[str, dict[str, list[GroupVersionResource]]] = msgspec.field(default_factory=dict)
    _kinds: dict[GroupVersionResource, dict[str, GroupVersionKind]] = msgspec.field(default_factory=dict)
    _keys: dict[tuple[str, str], str] = msgspec.field(default_factory=dict)

    def register_kind_for(self, resource: GroupVersionResource, subresource: str, kind: GroupVersionKind) -> None:
        self._kinds.setdefault(resource, {})[subresource] = kind
        group_resource = (resource.group, resource.resource)
        key = self.key_func(*group_resource) if self.key_func is not None else ""
        key = key or _default_key(*group_resource)
        self._keys[group_resource] = key
        self._resources.setdefault(key, {}).setdefault(subresource, []).append(resource)

    def equivalent_resources_for(self, resource: GroupVersionResource, subresource: str) -> list[GroupVersionResource]:
        """The resources equivalent to RESOURCE that serve SUBRESOURCE, in the order registered
        (RESOURCE among them)."""
        key = self._keys.get((resource.group, resource.resource))
        if key is None:
            return []
        return list(self._resources.get(key, {}).get(subresource, []))

    def kind_for(self, resource: GroupVersionResource, subresource: str) -> GroupVersionKind | None:
        """The kind RESOURCE's SUBRESOURCE serves; None when it is not registered (or registered
        without a kind, which upstream's callers treat alike)."""
        kind = self._kinds.get(resource, {}).get(subresource)
        return kind if kind is not None and kind != GroupVersionKind("", "", "") else None


def served_registry() -> EquivalentResourceRegistry:
    """What the emulated API servers register for the kinds podwhy creates (see the module's word)."""
    registry = EquivalentResourceRegistry()
    for (api_version, kind), resource in CREATED_RESOURCES.items():
        group, _, version = api_version.rpartition("/")
        registry.register_kind_for(resource, "", GroupVersionKind(group, version, kind))
    return registry


SERVED = served_registry()
