"""storage.k8s.io: StorageClasses, CSINodes, CSIDrivers, VolumeAttachments, CSIStorageCapacities."""

from __future__ import annotations

import msgspec

from podwhy.model.objects.core.volume import TopologySelectorTerm
from podwhy.model.objects.meta import Int32, LabelSelector, ObjectMeta, _Base
from podwhy.model.quantity import QuantityInput


class StorageClass(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    provisioner: str = ""
    volume_binding_mode: str | None = None
    allowed_topologies: list[TopologySelectorTerm] = []
    parameters: dict[str, str] = {}


class VolumeNodeResources(_Base):
    count: Int32 | None = None


class CSINodeDriver(_Base):
    name: str = ""
    node_id: str = msgspec.field(default="", name="nodeID")
    topology_keys: list[str] = []
    allocatable: VolumeNodeResources | None = None


class CSINodeSpec(_Base):
    drivers: list[CSINodeDriver] = []


class CSINode(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: CSINodeSpec = msgspec.field(default_factory=CSINodeSpec)


class CSIDriverSpec(_Base):
    attach_required: bool | None = None
    storage_capacity: bool | None = None


class CSIDriver(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: CSIDriverSpec = msgspec.field(default_factory=CSIDriverSpec)


class VolumeAttachmentSource(_Base):
    # The attached PersistentVolume (an inline volume's spec is not read: the scheduler skips it).
    persistent_volume_name: str | None = None


class VolumeAttachmentSpec(_Base):
    attacher: str = ""
    source: VolumeAttachmentSource = msgspec.field(default_factory=VolumeAttachmentSource)
    node_name: str = ""


class VolumeAttachment(_Base):
    """A CSI volume attached (or attaching, or still detaching) to a node: NodeVolumeLimits
    counts it against the node's limit even when no pod uses the volume any more."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: VolumeAttachmentSpec = msgspec.field(default_factory=VolumeAttachmentSpec)


class CSIStorageCapacity(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    storage_class_name: str = ""
    node_topology: LabelSelector | None = None
    capacity: QuantityInput | None = None
    maximum_volume_size: QuantityInput | None = None
