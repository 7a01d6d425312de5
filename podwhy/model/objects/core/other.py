"""The core API group (v1), the rest podwhy reads: namespaces with their LimitRanges and
ResourceQuotas, events, services, ReplicationControllers and ConfigMaps."""

from __future__ import annotations

import msgspec

from podwhy.model.objects.core.pod import PodTemplateSpec
from podwhy.model.objects.core.volume import ObjectReference
from podwhy.model.objects.meta import Int32, ObjectMeta, ResourceList, _Base

# ---------------------------------------------------------------- namespaces and their LimitRanges


class LimitRangeItem(_Base):
    type: str = ""  # Container, Pod or PersistentVolumeClaim
    max: ResourceList = {}
    min: ResourceList = {}
    default: ResourceList = {}
    default_request: ResourceList = {}
    max_limit_request_ratio: ResourceList = {}


class LimitRangeSpec(_Base):
    limits: list[LimitRangeItem] = []


class LimitRange(_Base):
    """A namespace's defaults and bounds for its pods' resources (LimitRanger admission)."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: LimitRangeSpec = msgspec.field(default_factory=LimitRangeSpec)


class ScopedResourceSelectorRequirement(_Base):
    scope_name: str = ""
    operator: str = ""  # In, NotIn, Exists, DoesNotExist
    values: list[str] = []


class ScopeSelector(_Base):
    match_expressions: list[ScopedResourceSelectorRequirement] = []


class ResourceQuotaSpec(_Base):
    hard: ResourceList = {}
    scopes: list[str] = []
    scope_selector: ScopeSelector | None = None


class ResourceQuotaStatus(_Base):
    hard: ResourceList = {}
    used: ResourceList = {}


class ResourceQuota(_Base):
    """A namespace's quota (ResourceQuota admission): its status is what the quota controller
    last counted, which the API server's admission checks a new pod against."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ResourceQuotaSpec = msgspec.field(default_factory=ResourceQuotaSpec)
    status: ResourceQuotaStatus = msgspec.field(default_factory=ResourceQuotaStatus)


class Namespace(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)


# ---------------------------------------------------------------- events


class EventSource(_Base):
    component: str = ""


class EventSeries(_Base):
    count: Int32 = 0
    last_observed_time: str | None = None


class Event(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    involved_object: ObjectReference = msgspec.field(default_factory=ObjectReference)
    reason: str = ""
    message: str = ""
    type: str = ""
    count: Int32 = 0
    first_timestamp: str | None = None
    last_timestamp: str | None = None
    # events.k8s.io recorders (the scheduler's) set these instead of count/lastTimestamp.
    event_time: str | None = None
    series: EventSeries | None = None
    reporting_component: str = ""
    source: EventSource | None = None
    # events.k8s.io/v1 names these differently (`kubectl get events.events.k8s.io`); decoding
    # moves them to their core/v1 names above, so every reader sees one shape.
    regarding: ObjectReference | None = None
    note: str = ""
    reporting_controller: str = ""
    deprecated_count: Int32 = 0
    deprecated_first_timestamp: str | None = None
    deprecated_last_timestamp: str | None = None
    deprecated_source: EventSource | None = None

    def __post_init__(self) -> None:
        if self.regarding is not None:
            if not self.involved_object.name:
                self.involved_object = self.regarding
            self.regarding = None
        if self.note:
            self.message = self.message or self.note
            self.note = ""
        if self.reporting_controller:
            self.reporting_component = self.reporting_component or self.reporting_controller
            self.reporting_controller = ""
        if self.deprecated_count:
            self.count = self.count or self.deprecated_count
            self.deprecated_count = 0
        if self.deprecated_first_timestamp is not None:
            self.first_timestamp = self.first_timestamp or self.deprecated_first_timestamp
            self.deprecated_first_timestamp = None
        if self.deprecated_last_timestamp is not None:
            self.last_timestamp = self.last_timestamp or self.deprecated_last_timestamp
            self.deprecated_last_timestamp = None
        if self.deprecated_source is not None:
            self.source = self.source or self.deprecated_source
            self.deprecated_source = None


# ---------------------------------------------------------------- workload owners (default spreading)


class ServiceSpec(_Base):
    selector: dict[str, str] = {}


class Service(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ServiceSpec = msgspec.field(default_factory=ServiceSpec)


class ReplicationControllerSpec(_Base):
    selector: dict[str, str] = {}


class ReplicationController(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ReplicationControllerSpec = msgspec.field(default_factory=ReplicationControllerSpec)


# ---------------------------------------------------------------- pod templates (podwhy check)


class ReplicationControllerManifestSpec(_Base):
    replicas: Int32 | None = None
    # A plain label map (equality only); unset, the API server defaults it to the template's labels.
    selector: dict[str, str] = {}
    template: PodTemplateSpec = msgspec.field(default_factory=PodTemplateSpec)


class ReplicationControllerManifest(_Base):
    """A ReplicationController read from a manifest (not part of snapshots)."""

    api_version: str = ""
    kind: str = ""
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ReplicationControllerManifestSpec = msgspec.field(default_factory=ReplicationControllerManifestSpec)


# ---------------------------------------------------------------- autoscalers


class ConfigMap(_Base):
    """Only Cluster Autoscaler's status ConfigMap is ever kept (see kinds.AUTOSCALER_STATUS_CONFIGMAP):
    podwhy reads no other ConfigMap, whatever a dump holds."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    data: dict[str, str] = {}
