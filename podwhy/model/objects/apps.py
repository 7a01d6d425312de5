"""apps: the ReplicaSets and StatefulSets of a snapshot, and a workload read from a manifest
(Deployment, StatefulSet, DaemonSet, ReplicaSet, and batch's Job, which share its shape)."""

from __future__ import annotations

from typing import Any

import msgspec

from podwhy.model.objects.core.pod import PodTemplateSpec
from podwhy.model.objects.core.volume import PersistentVolumeClaim
from podwhy.model.objects.meta import Int32, Int64, LabelSelector, ObjectMeta, _Base


class SelectorSpec(_Base):
    selector: LabelSelector | None = None


class ReplicaSet(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: SelectorSpec = msgspec.field(default_factory=SelectorSpec)


class RollingUpdateStatefulSetStrategy(_Base):
    # Ordinals below the partition keep the current revision, even when recreated.
    partition: Int32 | None = None
    # DaemonSet (and StatefulSet's alpha field): how many pods may be down, or be added, at once.
    max_unavailable: Int32 | str | None = None
    max_surge: Int32 | str | None = None


class StatefulSetUpdateStrategy(_Base):
    type: str = ""  # RollingUpdate (the default) or OnDelete
    rolling_update: RollingUpdateStatefulSetStrategy | None = None


class StatefulSetSpec(_Base):
    selector: LabelSelector | None = None
    # OrderedReady (the default) or Parallel: whether a Pending pod blocks the controller (suggestions).
    pod_management_policy: str = ""
    update_strategy: StatefulSetUpdateStrategy = msgspec.field(default_factory=StatefulSetUpdateStrategy)


class StatefulSet(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: StatefulSetSpec = msgspec.field(default_factory=StatefulSetSpec)


class RollingUpdateDeployment(_Base):
    # An integer or a percentage of the replicas ("25%", the default of both).
    max_surge: Int32 | str | None = None
    max_unavailable: Int32 | str | None = None


class DeploymentStrategy(_Base):
    type: str = ""  # RollingUpdate (the default) or Recreate
    rolling_update: RollingUpdateDeployment | None = None


class WorkloadSpec(_Base):
    """The fields of Deployment, StatefulSet, DaemonSet, ReplicaSet and Job specs that make pods."""

    replicas: Int32 | None = None
    selector: LabelSelector | None = None
    template: PodTemplateSpec = msgspec.field(default_factory=PodTemplateSpec)
    # StatefulSet: OrderedReady (default) creates the next ordinal once the previous one runs.
    pod_management_policy: str = ""
    # Job: how many pods run at once, and how many must finish; Indexed pods carry their index.
    parallelism: Int32 | None = None
    completions: Int32 | None = None
    completion_mode: str = ""
    # Job: suspended, its controller creates no pods (and deletes those it runs); how long it may run.
    suspend: bool | None = None
    active_deadline_seconds: Int64 | None = None
    # StatefulSet: the PVCs each ordinal gets (`<claim>-<statefulset>-<ordinal>`).
    volume_claim_templates: list[PersistentVolumeClaim] = []
    # Job: what its controller does once pods fail; not simulated (check places the first pods).
    pod_failure_policy: dict[str, Any] | None = None
    # Deployment: how a changed template rolls out, and how long before it reports a stall.
    strategy: DeploymentStrategy | None = None
    progress_deadline_seconds: Int32 | None = None
    # Deployment: paused, its controller rolls out no new template (it still scales).
    paused: bool = False
    # StatefulSet and DaemonSet: how a changed template rolls out.
    update_strategy: StatefulSetUpdateStrategy | None = None


class Workload(_Base):
    """A pod controller read from a manifest (not part of snapshots)."""

    api_version: str = ""
    kind: str = ""
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: WorkloadSpec = msgspec.field(default_factory=WorkloadSpec)
