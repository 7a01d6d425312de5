"""The core API group (v1), nodes: their specs and statuses, taints, and the node selectors
pods' affinity and persistent volumes' node affinity are written in."""

from __future__ import annotations

import msgspec

from podwhy.model.objects.meta import Int64, ObjectMeta, ResourceList, _Base

# ---------------------------------------------------------------- node selectors


class NodeSelectorRequirement(_Base):
    key: str = ""
    operator: str = ""
    values: list[str] = []


class NodeSelectorTerm(_Base):
    match_expressions: list[NodeSelectorRequirement] = []
    match_fields: list[NodeSelectorRequirement] = []


class NodeSelector(_Base):
    node_selector_terms: list[NodeSelectorTerm] = []


# ---------------------------------------------------------------- nodes


class Taint(_Base):
    key: str = ""
    value: str = ""
    effect: str = ""
    time_added: str | None = None


class NodeSpec(_Base):
    unschedulable: bool = False
    taints: list[Taint] = []


class ContainerImage(_Base):
    names: list[str] = []
    size_bytes: Int64 = 0


class NodeCondition(_Base):
    type: str = ""
    status: str = ""
    # Why a node is NotReady ("Kubelet stopped posting node status.").
    reason: str = ""
    message: str = ""


class NodeSystemInfo(_Base):
    kubelet_version: str = ""
    # The kubelet's own runtime.GOOS, as it reports it.
    operating_system: str = ""


class NodeStatus(_Base):
    allocatable: ResourceList = {}
    capacity: ResourceList = {}
    images: list[ContainerImage] = []
    conditions: list[NodeCondition] = []
    # The features the kubelet declares (NodeDeclaredFeatures, v1.36).
    declared_features: list[str] = []
    node_info: NodeSystemInfo | None = None

    def __post_init__(self) -> None:
        # The API server keeps declaredFeatures sorted and unique (validateNodeDeclaredFeatures),
        # and the scheduler matches them as such.
        features = self.declared_features
        for i in range(1, len(features)):
            if features[i] == features[i - 1]:
                raise ValueError(f"declaredFeatures[{i}]: Duplicate value: {features[i]!r}")
            if features[i] < features[i - 1]:
                raise ValueError(
                    f"declaredFeatures[{i}]: Invalid value: {features[i]!r}: list must be sorted alphabetically"
                )


class Node(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: NodeSpec = msgspec.field(default_factory=NodeSpec)
    status: NodeStatus = msgspec.field(default_factory=NodeStatus)
