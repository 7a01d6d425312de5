"""karpenter.sh (v1): Karpenter's NodePools and NodeClaims."""

from __future__ import annotations

import msgspec

from podwhy.model.objects.core.node import Taint
from podwhy.model.objects.core.pod import PodCondition
from podwhy.model.objects.meta import Int32, Int64, ObjectMeta, ResourceList, _Base

# metav1.Condition (Karpenter's NodePools and NodeClaims): the fields podwhy reads are a PodCondition's.
StatusCondition = PodCondition


class KarpenterRequirement(_Base):
    """NodeSelectorRequirementWithMinValues: a node selector requirement (with Karpenter's Gte/Lte)."""

    key: str = ""
    operator: str = ""
    values: list[str] = []
    min_values: Int32 | None = None


class NodeClassReference(_Base):
    group: str = ""
    kind: str = ""
    name: str = ""


class NodeClaimTemplateMeta(_Base):
    labels: dict[str, str] = {}
    annotations: dict[str, str] = {}


class NodeClaimTemplateSpec(_Base):
    taints: list[Taint] = []
    startup_taints: list[Taint] = []
    requirements: list[KarpenterRequirement] = []
    node_class_ref: NodeClassReference = msgspec.field(default_factory=NodeClassReference)


class NodeClaimTemplate(_Base):
    metadata: NodeClaimTemplateMeta = msgspec.field(default_factory=NodeClaimTemplateMeta)
    spec: NodeClaimTemplateSpec = msgspec.field(default_factory=NodeClaimTemplateSpec)


class DisruptionBudget(_Base):
    nodes: str = "10%"
    schedule: str | None = None
    duration: str | None = None
    reasons: list[str] = []


class NodePoolDisruption(_Base):
    consolidate_after: str | None = None
    consolidation_policy: str = ""
    budgets: list[DisruptionBudget] = []


class NodePoolSpec(_Base):
    template: NodeClaimTemplate = msgspec.field(default_factory=NodeClaimTemplate)
    disruption: NodePoolDisruption = msgspec.field(default_factory=NodePoolDisruption)
    # Resource name -> the most the pool may provision (Karpenter's "nodes" counts nodes).
    limits: ResourceList = {}
    weight: Int32 | None = None
    # A static NodePool (alpha): the provisioner does not launch nodes for pending pods.
    replicas: Int64 | None = None


class NodePoolStatus(_Base):
    resources: ResourceList = {}
    conditions: list[StatusCondition] = []


class NodePool(_Base):
    """A Karpenter `NodePool` (karpenter.sh/v1): what nodes it may launch, and its limits."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: NodePoolSpec = msgspec.field(default_factory=NodePoolSpec)
    status: NodePoolStatus = msgspec.field(default_factory=NodePoolStatus)


class NodeClaimResources(_Base):
    requests: ResourceList = {}


class NodeClaimSpec(_Base):
    taints: list[Taint] = []
    startup_taints: list[Taint] = []
    requirements: list[KarpenterRequirement] = []
    resources: NodeClaimResources = msgspec.field(default_factory=NodeClaimResources)
    node_class_ref: NodeClassReference = msgspec.field(default_factory=NodeClassReference)


class NodeClaimStatus(_Base):
    node_name: str = ""
    provider_id: str = msgspec.field(default="", name="providerID")
    capacity: ResourceList = {}
    allocatable: ResourceList = {}
    conditions: list[StatusCondition] = []


class NodeClaim(_Base):
    """A Karpenter `NodeClaim` (karpenter.sh/v1): one node being launched, registered, initialized."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: NodeClaimSpec = msgspec.field(default_factory=NodeClaimSpec)
    status: NodeClaimStatus = msgspec.field(default_factory=NodeClaimStatus)
