"""A read-only snapshot of a cluster: every object podwhy uses, indexed once."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import msgspec

from podwhy.model import objects as o
from podwhy.snapshot.params import ParamStore

# Namespaces every API server creates and keeps (upstream's system namespaces), present even in a
# dump that holds nothing of them.
BUILT_IN_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


def ns_name(namespace: str, name: str) -> str:
    return f"{namespace}/{name}"


# An object as the API server knows it: kind, namespace ("" for cluster-scoped kinds) and name.
ObjectKey = tuple[str, str, str]


class Duplicate(msgspec.Struct, frozen=True):
    """One object two inputs held in different versions (or one input held twice): which was read."""

    key: ObjectKey
    first: str  # the input of the version read until then
    second: str  # the input of the version seen next
    first_version: str  # their metadata.resourceVersion ("" when unset)
    second_version: str
    kept_second: bool  # the newer resourceVersion, or the later input when they are not both integers


class Reread(msgspec.Struct, frozen=True):
    """A file given again (the same path twice, or a file inside a folder also given): read once."""

    path: str
    first: str  # the argument that named it first: the file, or a folder holding it
    second: str  # the argument that named it again
    first_folder: bool = False  # whether FIRST is a folder
    second_folder: bool = False


def second_is_newer(first: str, second: str) -> bool:
    """Whether the version with resourceVersion SECOND replaces the one with FIRST: compared as
    the integers the API server writes when both are, else the one seen later wins."""
    if first.isascii() and second.isascii() and first.isdigit() and second.isdigit():
        return int(second) >= int(first)
    return True


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
    volume_attachments: dict[str, o.VolumeAttachment] = field(default_factory=dict)
    limit_ranges: list[o.LimitRange] = field(default_factory=list)
    resource_quotas: list[o.ResourceQuota] = field(default_factory=list)
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
    # Pod groups (v1.36): only to name a pod's group policy; gang scheduling is not simulated.
    workloads: dict[str, o.SchedulingWorkload] = field(default_factory=dict)
    pod_groups: dict[str, o.PodGroup] = field(default_factory=dict)
    # Autoscalers: Cluster Autoscaler's status ConfigMap (by namespace/name; no other ConfigMap is
    # kept), Karpenter's NodePools and NodeClaims.
    autoscaler_status: dict[str, o.ConfigMap] = field(default_factory=dict)
    node_pools: dict[str, o.NodePool] = field(default_factory=dict)
    node_claims: dict[str, o.NodeClaim] = field(default_factory=dict)
    # Kueue (kueue.x-k8s.io): the cluster-scoped kinds by name, LocalQueues and Workloads by
    # "namespace/name" (docs/kueue.md). Kueue's Workloads, not scheduling.k8s.io's (`workloads`).
    resource_flavors: dict[str, o.ResourceFlavor] = field(default_factory=dict)
    cluster_queues: dict[str, o.ClusterQueue] = field(default_factory=dict)
    cohorts: dict[str, o.Cohort] = field(default_factory=dict)
    local_queues: dict[str, o.LocalQueue] = field(default_factory=dict)
    kueue_workloads: dict[str, o.KueueWorkload] = field(default_factory=dict)
    workload_priority_classes: dict[str, o.WorkloadPriorityClass] = field(default_factory=dict)
    admission_checks: dict[str, o.AdmissionCheck] = field(default_factory=dict)
    topologies: dict[str, o.Topology] = field(default_factory=dict)
    # The API server's admission configuration (admissionregistration.k8s.io), each by name
    # (docs/policies.md).
    validating_admission_policies: dict[str, o.ValidatingAdmissionPolicy] = field(default_factory=dict)
    validating_admission_policy_bindings: dict[str, o.ValidatingAdmissionPolicyBinding] = field(default_factory=dict)
    mutating_admission_policies: dict[str, o.MutatingAdmissionPolicy] = field(default_factory=dict)
    mutating_admission_policy_bindings: dict[str, o.MutatingAdmissionPolicyBinding] = field(default_factory=dict)
    validating_webhook_configurations: dict[str, o.ValidatingWebhookConfiguration] = field(default_factory=dict)
    mutating_webhook_configurations: dict[str, o.MutatingWebhookConfiguration] = field(default_factory=dict)
    # What may be the policies' params: ConfigMaps and custom resources of the kinds a
    # ValidatingAdmissionPolicy's paramKind names, and what the sources vouch for of them
    # (snapshot/params.py). Provenance as much as content: not compared.
    params: ParamStore = field(default_factory=ParamStore, compare=False)

    # Provenance: which kinds were seen (objects or typed lists), what was skipped.
    kinds_seen: set[str] = field(default_factory=set)
    # The apiVersions each kind's objects came in (before conversion): what the cluster served.
    api_versions: dict[str, set[str]] = field(default_factory=dict)
    ignored_kinds: Counter[str] = field(default_factory=Counter)
    sources: list[str] = field(default_factory=list)
    # Kinds the sources could not vouch for, each with its cause ("" when a source simply
    # lacks it, as a cluster-info dump lacks PersistentVolumeClaims).
    missing: dict[str, str] = field(default_factory=dict)
    # Manifest pods (-f) admitted without kinds the snapshot cannot vouch for, by "namespace/name":
    # the fields admission sets from them (priority from a PriorityClass, overhead and
    # scheduling from a RuntimeClass) are unknown.
    admitted_without: dict[str, frozenset[str]] = field(default_factory=dict)
    # Manifest pods (-f), by "namespace/name": the fields the API server's defaulting filled in
    # that the scheduler reads, as (field, value, why) (cluster.apiserver.defaults.Defaulted).
    defaulted: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)
    # The API server's warnings on creating the manifests' objects (cluster.apiserver.warnings): the object
    # (`Deployment default/web`) and the warning, as `kubectl apply` prints it after "Warning: ".
    api_warnings: list[tuple[str, str]] = field(default_factory=list)
    # Pods of the snapshot this release's API server would not store as they are (its validation's
    # words, by "namespace/name"): stored under an older release's rules, or a dump made or edited
    # without an API server. They are explained as kube-scheduler would schedule them as given.
    unstorable: dict[str, str] = field(default_factory=dict)
    # The API server's version (gitVersion of /version), live or as `podwhy snapshot` recorded it,
    # and where it came from; "" when unknown.
    server_version: str = ""
    server_version_from: str = ""
    # When the snapshot was taken (RFC 3339): live, or as `podwhy snapshot` recorded it; "" for
    # other dumps. Ages are measured to it, never to the clock of the machine reading a dump.
    taken_at: str = ""
    # Written by `podwhy snapshot --redact`: objects hold only what its allowlist keeps, so a merge
    # patch made from a pod's JSON would lack the rest (provenance, not compared).
    redacted: bool = field(default=False, compare=False)
    # The JSON of each unbound pod as its source held it, by "namespace/name": a suggestion that
    # replaces one of its lists (RFC 7386 has no list merge) must carry the original entries,
    # fields the typed model skips included. Bound pods, the bulk of a dump, are not kept.
    # Provenance rather than content: two readers' bytes differ in layout, so not compared.
    raw_pods: dict[str, bytes] = field(default_factory=dict, compare=False)
    # The pod template of each ReplicaSet and StatefulSet as its source held it (JSON), by object:
    # every field, read or not, as the API server stored and defaulted it; what a manifest's
    # template is compared with (cluster.controllers.rollout). Workloads only, never pods.
    raw_templates: dict[ObjectKey, bytes] = field(default_factory=dict, compare=False)

    # What loading the inputs met, worded as warnings by the report: objects held by more than one
    # input (each read once), files given twice (read once), documents without a kind found in a
    # folder (skipped, as (input, where in it)).
    # Identical copies: (object, the input of the copy read, the input of the copy met again).
    repeats: list[tuple[ObjectKey, str, str]] = field(default_factory=list)
    duplicates: list[Duplicate] = field(default_factory=list)  # copies that differ
    rereads: list[Reread] = field(default_factory=list)
    kindless: list[tuple[str, str]] = field(default_factory=list)
    # Each object loaded from an input: where it came from, and its place in its kind's list (-1
    # for kinds filed by name).
    _loaded: dict[ObjectKey, tuple[str, int]] = field(default_factory=dict, compare=False, repr=False)
    # What higher layers index of this snapshot's objects and keep for later questions of the same
    # snapshot, by their own keys (the scheduler's node view: framework/handle.py, `indexed`). Each
    # checks for itself that what it read is unchanged. A snapshot made from this one by
    # records.replace starts with none.
    indexes: dict[str, Any] = field(default_factory=dict, init=False, compare=False, repr=False)

    def add(self, kind: str, obj: Any) -> None:
        """File one decoded object under its kind, as the model's kind table says."""
        info = o.KINDS.get(kind)
        if info is None:
            self.ignored_kinds[kind] += 1
            return
        if kind == "ConfigMap" and obj.metadata.name != o.AUTOSCALER_STATUS_CONFIGMAP:
            self.ignored_kinds[kind] += 1  # never kept: podwhy reads no other ConfigMap
            return
        self.kinds_seen.add(kind)
        store = getattr(self, info.snapshot_field)
        if info.indexing is o.Indexing.LIST:
            store.append(obj)
        elif info.indexing is o.Indexing.BY_NAME:
            store[obj.metadata.name] = obj
        else:
            store[ns_name(obj.metadata.namespace, obj.metadata.name)] = obj

    def namespace_names(self) -> set[str]:
        """Every namespace the snapshot shows: its Namespace objects and the namespaces of its
        namespaced objects."""
        names = set(self.namespaces)
        for info in o.KINDS.values():
            store = getattr(self, info.snapshot_field)
            names.update(obj.metadata.namespace for obj in (store.values() if isinstance(store, dict) else store))
        names.discard("")
        return names

    def has_namespace(self, namespace: str) -> bool:
        """Whether NAMESPACE exists as far as the snapshot shows (the built-in ones always do)."""
        return namespace in self.namespaces or namespace in BUILT_IN_NAMESPACES or namespace in self.namespace_names()

    def load(self, kind: str, objs: list[Any], source: str) -> None:
        """File the objects one input (SOURCE) held, each object once: one another input held too
        is read once, its newer version when they differ (see second_is_newer)."""
        info = o.KINDS.get(kind)
        if info is None:
            self.ignored_kinds[kind] += len(objs)
            return
        if kind == "ConfigMap":  # podwhy reads no other ConfigMap: counted as ignored, never kept
            kept = [obj for obj in objs if obj.metadata.name == o.AUTOSCALER_STATUS_CONFIGMAP]
            if len(kept) < len(objs):
                self.ignored_kinds[kind] += len(objs) - len(kept)
            if not kept:
                return
            objs = kept
        self.kinds_seen.add(kind)
        store = getattr(self, info.snapshot_field)
        loaded = self._loaded
        listed = info.indexing is o.Indexing.LIST
        by_name = info.indexing is o.Indexing.BY_NAME
        cluster_scoped = kind in o.CLUSTER_SCOPED_KINDS
        for obj in objs:
            meta = obj.metadata
            key = (kind, "" if cluster_scoped else meta.namespace, meta.name)
            seen = loaded.get(key)
            if seen is not None:
                self._again(key, seen, obj, source, store, listed, by_name)
            elif listed:
                loaded[key] = (source, len(store))
                store.append(obj)
            else:
                loaded[key] = (source, -1)
                store[meta.name if by_name else ns_name(meta.namespace, meta.name)] = obj

    def _again(
        self, key: ObjectKey, seen: tuple[str, int], obj: Any, source: str, store: Any, listed: bool, by_name: bool
    ) -> None:
        """OBJ, of an object loaded before (from SEEN's input): once, and the newer version."""
        first, position = seen
        name_key = key[2] if by_name else ns_name(key[1], key[2])
        old = store[position] if listed else store[name_key]
        if old == obj:
            self.repeats.append((key, first, source))
            return
        first_version, second_version = old.metadata.resource_version, obj.metadata.resource_version
        newer = second_is_newer(first_version, second_version)
        self.duplicates.append(Duplicate(key, first, source, first_version, second_version, newer))
        if not newer:
            return
        if listed:
            store[position] = obj
        else:
            store[name_key] = obj
        self._loaded[key] = (source, position)
        if key[0] == "Pod":
            self.raw_pods.pop(ns_name(key[1], key[2]), None)
        self.raw_templates.pop(key, None)

    def holds(self, key: ObjectKey, obj: Any) -> bool:
        """Whether OBJ is the version of KEY's object the snapshot holds."""
        seen = self._loaded.get(key)
        if seen is None:
            return False
        info = o.KINDS[key[0]]
        store = getattr(self, info.snapshot_field)
        if seen[1] < 0:  # filed by name
            name_key = key[2] if info.indexing is o.Indexing.BY_NAME else ns_name(key[1], key[2])
            return bool(store.get(name_key) is obj)
        return bool(store[seen[1]] is obj)

    @property
    def missing_kinds(self) -> frozenset[str]:
        """Kinds this snapshot cannot vouch for."""
        return frozenset(self.missing)
