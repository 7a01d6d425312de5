"""scheduling.k8s.io: PriorityClasses (v1), and Workloads and PodGroups (v1alpha2, v1.36)."""

from __future__ import annotations

from typing import Any

import msgspec

from podwhy.model.objects.meta import Int32, ObjectMeta, _Base


class PriorityClass(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    value: Int32 = 0
    global_default: bool = False
    preemption_policy: str | None = None


class GangSchedulingPolicy(_Base):
    min_count: Int32 = 0


class PodGroupSchedulingPolicy(_Base):
    """Exactly one of basic (no gang) and gang."""

    basic: dict[str, Any] | None = None
    gang: GangSchedulingPolicy | None = None


class PodGroupTemplate(_Base):
    name: str = ""
    scheduling_policy: PodGroupSchedulingPolicy = msgspec.field(default_factory=PodGroupSchedulingPolicy)


class SchedulingWorkloadSpec(_Base):
    pod_group_templates: list[PodGroupTemplate] = []


class SchedulingWorkload(_Base):
    """A `Workload` of scheduling.k8s.io (GenericWorkload): templates of the pod groups it runs."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: SchedulingWorkloadSpec = msgspec.field(default_factory=SchedulingWorkloadSpec)


class WorkloadPodGroupTemplateReference(_Base):
    workload_name: str = ""
    pod_group_template_name: str = ""


class PodGroupTemplateReference(_Base):
    workload: WorkloadPodGroupTemplateReference | None = None


class PodGroupSpec(_Base):
    pod_group_template_ref: PodGroupTemplateReference | None = None
    scheduling_policy: PodGroupSchedulingPolicy = msgspec.field(default_factory=PodGroupSchedulingPolicy)


class PodGroup(_Base):
    """A `PodGroup` of scheduling.k8s.io: the group a pod names in spec.schedulingGroup.podGroupName."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PodGroupSpec = msgspec.field(default_factory=PodGroupSpec)
