"""A read-only snapshot of a cluster: every object podwhy uses, indexed once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from podwhy.model import objects as o

# Kinds that `kubectl cluster-info dump` never writes: a plugin that needs one of them
# for the pod at hand cannot be evaluated from such a dump.
CLUSTER_INFO_DUMP_LACKS = frozenset(
    {
        "PersistentVolume",
        "PersistentVolumeClaim",
        "StorageClass",
        "CSINode",
        "CSIDriver",
        "CSIStorageCapacity",
        "PriorityClass",
        "PodDisruptionBudget",
        "Namespace",
        "RuntimeClass",
        "DeviceClass",
        "ResourceSlice",
        "ResourceClaim",
        "ResourceClaimTemplate",
        "StatefulSet",
    }
)

PLURAL = {
    "PersistentVolume": "PersistentVolumes",
    "PersistentVolumeClaim": "PersistentVolumeClaims",
    "StorageClass": "StorageClasses",
    "CSINode": "CSINodes",
    "CSIDriver": "CSIDrivers",
    "CSIStorageCapacity": "CSIStorageCapacities",
    "PriorityClass": "PriorityClasses",
    "PodDisruptionBudget": "PodDisruptionBudgets",
    "Namespace": "Namespaces",
    "RuntimeClass": "RuntimeClasses",
    "DeviceClass": "DeviceClasses",
    "ResourceSlice": "ResourceSlices",
    "ResourceClaim": "ResourceClaims",
    "ResourceClaimTemplate": "ResourceClaimTemplates",
    "StatefulSet": "StatefulSets",
}


def not_evaluated_reason(kinds: set[str] | frozenset[str], missing: Mapping[str, str] | None = None) -> str:
    """The verdict of a plugin that needs kinds the snapshot cannot vouch for ("" if none).

    Kinds a source gave a cause for (`missing`) are listed with it; the others are absent.
    """
    if not kinds:
        return ""
    causes = missing or {}
    absent = [k for k in sorted(kinds) if not causes.get(k)]
    parts = ["the snapshot has no " + ", ".join(PLURAL.get(k, k + "s") for k in absent)] if absent else []
    parts.extend(dict.fromkeys(causes[k] for k in sorted(kinds) if causes.get(k)))
    return "not evaluated: " + "; ".join(parts)


def ns_name(namespace: str, name: str) -> str:
    return f"{namespace}/{name}"


@dataclass
class Snapshot:
    nodes: list[o.Node] = field(default_factory=list)
    pods: list[o.Pod] = field(default_factory=list)
    persistent_volumes: dict[str, o.PersistentVolume] = field(default_factory=dict)
    persistent_volume_claims: dict[str, o.PersistentVolumeClaim] = field(default_factory=dict)
    storage_classes: dict[str, o.StorageClass] = field(default_factory=dict)
    csi_nodes: dict[str, o.CSINode] = field(default_factory=dict)
    csi_drivers: dict[str, o.CSIDriver] = field(default_factory=dict)
    csi_storage_capacities: list[o.CSIStorageCapacity] = field(default_factory=list)
    namespaces: dict[str, o.Namespace] = field(default_factory=dict)
    priority_classes: dict[str, o.PriorityClass] = field(default_factory=dict)
    runtime_classes: dict[str, o.RuntimeClass] = field(default_factory=dict)
    pod_disruption_budgets: list[o.PodDisruptionBudget] = field(default_factory=list)
    events: list[o.Event] = field(default_factory=list)
    services: list[o.Service] = field(default_factory=list)
    replication_controllers: list[o.ReplicationController] = field(default_factory=list)
    replica_sets: list[o.ReplicaSet] = field(default_factory=list)
    stateful_sets: list[o.StatefulSet] = field(default_factory=list)
    device_classes: dict[str, o.DeviceClass] = field(default_factory=dict)
    resource_slices: list[o.ResourceSlice] = field(default_factory=list)
    resource_claims: dict[str, o.ResourceClaim] = field(default_factory=dict)
    resource_claim_templates: dict[str, o.ResourceClaimTemplate] = field(default_factory=dict)

    # Provenance: which kinds were seen (objects or typed lists), what was skipped.
    kinds_seen: set[str] = field(default_factory=set)
    ignored_kinds: Counter[str] = field(default_factory=Counter)
    sources: list[str] = field(default_factory=list)
    from_cluster_info_dump: bool = False
    # Kinds a source could not provide, with why (e.g. "cannot list persistentvolumeclaims: forbidden").
    missing: dict[str, str] = field(default_factory=dict)

    def add(self, kind: str, obj: object) -> None:
        """File one decoded object under its kind."""
        self.kinds_seen.add(kind)
        meta: o.ObjectMeta = obj.metadata  # type: ignore[attr-defined]
        if kind == "Node":
            self.nodes.append(obj)  # type: ignore[arg-type]
        elif kind == "Pod":
            self.pods.append(obj)  # type: ignore[arg-type]
        elif kind == "PersistentVolume":
            self.persistent_volumes[meta.name] = obj  # type: ignore[assignment]
        elif kind == "PersistentVolumeClaim":
            self.persistent_volume_claims[ns_name(meta.namespace, meta.name)] = obj  # type: ignore[assignment]
        elif kind == "StorageClass":
            self.storage_classes[meta.name] = obj  # type: ignore[assignment]
        elif kind == "CSINode":
            self.csi_nodes[meta.name] = obj  # type: ignore[assignment]
        elif kind == "CSIDriver":
            self.csi_drivers[meta.name] = obj  # type: ignore[assignment]
        elif kind == "CSIStorageCapacity":
            self.csi_storage_capacities.append(obj)  # type: ignore[arg-type]
        elif kind == "Namespace":
            self.namespaces[meta.name] = obj  # type: ignore[assignment]
        elif kind == "PriorityClass":
            self.priority_classes[meta.name] = obj  # type: ignore[assignment]
        elif kind == "RuntimeClass":
            self.runtime_classes[meta.name] = obj  # type: ignore[assignment]
        elif kind == "PodDisruptionBudget":
            self.pod_disruption_budgets.append(obj)  # type: ignore[arg-type]
        elif kind == "Event":
            self.events.append(obj)  # type: ignore[arg-type]
        elif kind == "Service":
            self.services.append(obj)  # type: ignore[arg-type]
        elif kind == "ReplicationController":
            self.replication_controllers.append(obj)  # type: ignore[arg-type]
        elif kind == "ReplicaSet":
            self.replica_sets.append(obj)  # type: ignore[arg-type]
        elif kind == "StatefulSet":
            self.stateful_sets.append(obj)  # type: ignore[arg-type]
        elif kind == "DeviceClass":
            self.device_classes[meta.name] = obj  # type: ignore[assignment]
        elif kind == "ResourceSlice":
            self.resource_slices.append(obj)  # type: ignore[arg-type]
        elif kind == "ResourceClaim":
            self.resource_claims[ns_name(meta.namespace, meta.name)] = obj  # type: ignore[assignment]
        elif kind == "ResourceClaimTemplate":
            self.resource_claim_templates[ns_name(meta.namespace, meta.name)] = obj  # type: ignore[assignment]
        else:  # pragma: no cover - callers only pass known kinds
            self.ignored_kinds[kind] += 1

    @property
    def missing_kinds(self) -> frozenset[str]:
        """Kinds this snapshot cannot vouch for (absent from a cluster-info dump)."""
        lacking = CLUSTER_INFO_DUMP_LACKS - self.kinds_seen if self.from_cluster_info_dump else frozenset()
        return frozenset(lacking | self.missing.keys())
