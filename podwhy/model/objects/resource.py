"""resource.k8s.io (dynamic resource allocation): DeviceClasses, ResourceSlices, ResourceClaims
and their templates."""

from __future__ import annotations

from typing import Any

import msgspec

from podwhy.model.objects.core.node import NodeSelector
from podwhy.model.objects.meta import Int64, ObjectMeta, _Base
from podwhy.model.quantity import QuantityInput

# A request's allocation mode, when it names a class and no mode (the API server's default).
ALLOCATION_MODE_EXACT_COUNT = "ExactCount"


class CELDeviceSelector(_Base):
    expression: str = ""


class DeviceSelector(_Base):
    cel: CELDeviceSelector | None = None


class DeviceClassSpec(_Base):
    selectors: list[DeviceSelector] = []
    config: list[Any] = []
    extended_resource_name: str | None = None


class DeviceClass(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: DeviceClassSpec = msgspec.field(default_factory=DeviceClassSpec)


class DeviceAttribute(_Base):
    # Exactly one is set; the wire names are Go's (int, bool, string, version).
    int_value: Int64 | None = msgspec.field(default=None, name="int")
    bool_value: bool | None = msgspec.field(default=None, name="bool")
    string_value: str | None = msgspec.field(default=None, name="string")
    version_value: str | None = msgspec.field(default=None, name="version")


class CapacityRequestPolicyRange(_Base):
    min: QuantityInput | None = None
    max: QuantityInput | None = None
    step: QuantityInput | None = None


class CapacityRequestPolicy(_Base):
    """How much of a shareable device's capacity one allocation may consume (DRAConsumableCapacity)."""

    default: QuantityInput | None = None
    valid_values: list[QuantityInput] = []
    valid_range: CapacityRequestPolicyRange | None = None


class DeviceCapacity(_Base):
    value: QuantityInput = 0
    request_policy: CapacityRequestPolicy | None = None


class CapacityRequirements(_Base):
    """A request's `capacity`: how much of each capacity of a shared device it consumes."""

    requests: dict[str, QuantityInput] | None = None


class ResourcePool(_Base):
    name: str = ""
    generation: Int64 = 0
    resource_slice_count: Int64 = 0


class Device(_Base):
    name: str = ""
    attributes: dict[str, DeviceAttribute] = {}
    capacity: dict[str, DeviceCapacity] = {}
    consumes_counters: list[Any] = []
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    taints: list[Any] = []
    binds_to_node: bool | None = None
    binding_conditions: list[str] = []
    binding_failure_conditions: list[str] = []
    allow_multiple_allocations: bool | None = None


class ResourceSliceSpec(_Base):
    driver: str = ""
    pool: ResourcePool = msgspec.field(default_factory=ResourcePool)
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    devices: list[Device] = []
    per_device_node_selection: bool | None = None
    shared_counters: list[Any] = []


class ResourceSlice(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ResourceSliceSpec = msgspec.field(default_factory=ResourceSliceSpec)


class ExactDeviceRequest(_Base):
    device_class_name: str = ""
    selectors: list[DeviceSelector] = []
    allocation_mode: str = ""
    count: Int64 | None = None
    admin_access: bool | None = None
    tolerations: list[Any] = []
    capacity: CapacityRequirements | None = None


class DeviceSubRequest(_Base):
    name: str = ""
    device_class_name: str = ""
    selectors: list[DeviceSelector] = []
    allocation_mode: str = ""
    count: Int64 | None = None
    tolerations: list[Any] = []
    capacity: CapacityRequirements | None = None


class DeviceRequest(_Base):
    name: str = ""
    exactly: ExactDeviceRequest | None = None
    first_available: list[DeviceSubRequest] = []


class DeviceConstraint(_Base):
    requests: list[str] = []
    match_attribute: str | None = None
    distinct_attribute: str | None = None


class DeviceClaim(_Base):
    requests: list[DeviceRequest] = []
    constraints: list[DeviceConstraint] = []
    config: list[Any] = []


class ResourceClaimSpec(_Base):
    devices: DeviceClaim = msgspec.field(default_factory=DeviceClaim)


class DeviceRequestAllocationResult(_Base):
    request: str = ""
    driver: str = ""
    pool: str = ""
    device: str = ""
    admin_access: bool | None = None
    share_id: str | None = msgspec.field(default=None, name="shareID")
    consumed_capacity: dict[str, QuantityInput] | None = None


class DeviceAllocationResult(_Base):
    results: list[DeviceRequestAllocationResult] = []
    config: list[Any] = []


class AllocationResult(_Base):
    devices: DeviceAllocationResult = msgspec.field(default_factory=DeviceAllocationResult)
    node_selector: NodeSelector | None = None
    allocation_timestamp: str | None = None


class ResourceClaimConsumerReference(_Base):
    api_group: str = ""
    resource: str = ""
    name: str = ""
    uid: str = ""


class ResourceClaimStatus(_Base):
    allocation: AllocationResult | None = None
    reserved_for: list[ResourceClaimConsumerReference] = []
    devices: list[Any] = []


class ResourceClaim(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ResourceClaimSpec = msgspec.field(default_factory=ResourceClaimSpec)
    status: ResourceClaimStatus = msgspec.field(default_factory=ResourceClaimStatus)


class ResourceClaimTemplateSpec(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ResourceClaimSpec = msgspec.field(default_factory=ResourceClaimSpec)


class ResourceClaimTemplate(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ResourceClaimTemplateSpec = msgspec.field(default_factory=ResourceClaimTemplateSpec)
