"""node.k8s.io: RuntimeClasses."""

from __future__ import annotations

import msgspec

from podwhy.model.objects.core.pod import Toleration
from podwhy.model.objects.meta import ObjectMeta, ResourceList, _Base


class RuntimeClassOverhead(_Base):
    pod_fixed: ResourceList = {}


class RuntimeClassScheduling(_Base):
    node_selector: dict[str, str] = {}
    tolerations: list[Toleration] = []


class RuntimeClass(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    handler: str = ""
    overhead: RuntimeClassOverhead | None = None
    scheduling: RuntimeClassScheduling | None = None
