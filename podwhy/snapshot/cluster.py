"""A read-only snapshot of a cluster: every object podwhy uses, indexed once."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from podwhy.model import objects as o


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
    # Only to name a pod's owner (a Job's CronJob): no plugin reads them.
    jobs: dict[str, o.Job] = field(default_factory=dict)
    cron_jobs: dict[str, o.CronJob] = field(default_factory=dict)
    device_classes: dict[str, o.DeviceClass] = field(default_factory=dict)
    resource_slices: list[o.ResourceSlice] = field(default_factory=list)
    resource_claims: dict[str, o.ResourceClaim] = field(default_factory=dict)
    resource_claim_templates: dict[str, o.ResourceClaimTemplate] = field(default_factory=dict)

    # Provenance: which kinds were seen (objects or typed lists), what was skipped.
    kinds_seen: set[str] = field(default_factory=set)
    ignored_kinds: Counter[str] = field(default_factory=Counter)
    sources: list[str] = field(default_factory=list)
    from_cluster_info_dump: bool = False
    # Kinds the sources could not vouch for, each with its cause ("" when a source simply
    # lacks it, as a cluster-info dump lacks PersistentVolumeClaims).
    missing: dict[str, str] = field(default_factory=dict)
    # The API server's version (gitVersion of /version), live or as `podwhy snapshot` recorded it,
    # and where it came from; "" when unknown.
    server_version: str = ""
    server_version_from: str = ""
    # The JSON of each unbound pod as its source held it, by "namespace/name": a suggestion that
    # replaces one of its lists (RFC 7386 has no list merge) must carry the original entries,
    # fields the typed model skips included. Bound pods, the bulk of a dump, are not kept.
    # Provenance rather than content: two readers' bytes differ in layout, so not compared.
    raw_pods: dict[str, bytes] = field(default_factory=dict, compare=False)

    def add(self, kind: str, obj: Any) -> None:
        """File one decoded object under its kind, as the model's kind table says."""
        info = o.KINDS.get(kind)
        if info is None:
            self.ignored_kinds[kind] += 1
            return
        self.kinds_seen.add(kind)
        store = getattr(self, info.snapshot_field)
        if info.indexing is o.Indexing.LIST:
            store.append(obj)
        elif info.indexing is o.Indexing.BY_NAME:
            store[obj.metadata.name] = obj
        else:
            store[ns_name(obj.metadata.namespace, obj.metadata.name)] = obj

    @property
    def missing_kinds(self) -> frozenset[str]:
        """Kinds this snapshot cannot vouch for."""
        return frozenset(self.missing)
