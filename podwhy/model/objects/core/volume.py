"""The core API group (v1), volumes: a pod's volume sources, persistent volumes and their
claims, and the topology terms storage classes restrict them by."""

from __future__ import annotations

import msgspec

from podwhy.model.objects.core.node import NodeSelector
from podwhy.model.objects.meta import Int32, LabelSelector, ObjectMeta, ResourceList, _Base

# ---------------------------------------------------------------- a pod's volumes


class Opaque(_Base):
    """An object whose presence is read, never its fields (msgspec skips them when decoding)."""


class PVCVolumeSource(_Base):
    claim_name: str = ""
    read_only: bool = False


class GCEPersistentDiskVolumeSource(_Base):
    pd_name: str = ""
    read_only: bool = False


class AWSElasticBlockStoreVolumeSource(_Base):
    volume_id: str = msgspec.field(default="", name="volumeID")
    read_only: bool = False


class RBDVolumeSource(_Base):
    monitors: list[str] = []
    image: str = ""
    pool: str = ""
    read_only: bool = False


class ISCSIVolumeSource(_Base):
    target_portal: str = ""
    iqn: str = ""
    lun: Int32 = 0
    read_only: bool = False


class CSIVolumeSource(_Base):
    driver: str = ""
    read_only: bool = False


# In-tree sources that CSI migration can translate; NodeVolumeLimits and VolumeBinding read them.
class AzureDiskVolumeSource(_Base):
    disk_name: str = ""
    disk_uri: str = msgspec.field(default="", name="diskURI")
    caching_mode: str | None = None
    fs_type: str | None = None
    read_only: bool | None = None
    kind: str | None = None


class AzureFileVolumeSource(_Base):
    secret_name: str = ""
    share_name: str = ""
    read_only: bool = False


class CinderVolumeSource(_Base):
    volume_id: str = msgspec.field(default="", name="volumeID")
    read_only: bool = False


class VsphereVirtualDiskVolumeSource(_Base):
    volume_path: str = ""


class PortworxVolumeSource(_Base):
    volume_id: str = msgspec.field(default="", name="volumeID")
    read_only: bool = False


class PersistentVolumeClaimTemplate(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PersistentVolumeClaimSpec | None = None


class EphemeralVolumeSource(_Base):
    volume_claim_template: PersistentVolumeClaimTemplate | None = None


class ImageVolumeSource(_Base):
    reference: str = ""


class Volume(_Base):
    name: str = ""
    # An OCI image mounted as a volume (ImageLocality counts it from v1.36).
    image: ImageVolumeSource | None = None
    persistent_volume_claim: PVCVolumeSource | None = None
    ephemeral: EphemeralVolumeSource | None = None
    gce_persistent_disk: GCEPersistentDiskVolumeSource | None = None
    aws_elastic_block_store: AWSElasticBlockStoreVolumeSource | None = None
    rbd: RBDVolumeSource | None = None
    iscsi: ISCSIVolumeSource | None = None
    csi: CSIVolumeSource | None = None
    azure_disk: AzureDiskVolumeSource | None = None
    azure_file: AzureFileVolumeSource | None = None
    cinder: CinderVolumeSource | None = None
    vsphere_volume: VsphereVirtualDiskVolumeSource | None = None
    portworx_volume: PortworxVolumeSource | None = None
    # Sources no plugin reads: only which one a volume has matters (PodSecurity's volume types).
    host_path: Opaque | None = None
    empty_dir: Opaque | None = None
    secret: Opaque | None = None
    config_map: Opaque | None = None
    projected: Opaque | None = None
    downward_api: Opaque | None = msgspec.field(default=None, name="downwardAPI")
    git_repo: Opaque | None = None
    nfs: Opaque | None = None
    glusterfs: Opaque | None = None
    flex_volume: Opaque | None = None
    cephfs: Opaque | None = None
    flocker: Opaque | None = None
    fc: Opaque | None = None
    quobyte: Opaque | None = None
    photon_persistent_disk: Opaque | None = None
    scale_io: Opaque | None = msgspec.field(default=None, name="scaleIO")
    storageos: Opaque | None = None


# The volume sources the scheduler's plugins read (the others only name a kind of volume).
SCHEDULER_VOLUME_SOURCES = (
    "image",
    "persistent_volume_claim",
    "ephemeral",
    "gce_persistent_disk",
    "aws_elastic_block_store",
    "rbd",
    "iscsi",
    "csi",
    "azure_disk",
    "azure_file",
    "cinder",
    "vsphere_volume",
    "portworx_volume",
)

# ---------------------------------------------------------------- persistent volumes and claims


class ObjectReference(_Base):
    kind: str = ""
    namespace: str = ""
    name: str = ""
    uid: str = ""


class VolumeNodeAffinity(_Base):
    required: NodeSelector | None = None


class LocalVolumeSource(_Base):
    path: str = ""


class HostPathVolumeSource(_Base):
    path: str = ""


class CSIPersistentVolumeSource(_Base):
    driver: str = ""
    volume_handle: str = ""
    read_only: bool = False


class PersistentVolumeSpec(_Base):
    capacity: ResourceList = {}
    access_modes: list[str] = []
    storage_class_name: str = ""
    claim_ref: ObjectReference | None = None
    node_affinity: VolumeNodeAffinity | None = None
    volume_mode: str | None = None
    persistent_volume_reclaim_policy: str = ""
    local: LocalVolumeSource | None = None
    host_path: HostPathVolumeSource | None = None
    csi: CSIPersistentVolumeSource | None = None
    gce_persistent_disk: GCEPersistentDiskVolumeSource | None = None
    aws_elastic_block_store: AWSElasticBlockStoreVolumeSource | None = None
    rbd: RBDVolumeSource | None = None
    iscsi: ISCSIVolumeSource | None = None
    azure_disk: AzureDiskVolumeSource | None = None
    azure_file: AzureFileVolumeSource | None = None
    cinder: CinderVolumeSource | None = None
    vsphere_volume: VsphereVirtualDiskVolumeSource | None = None
    portworx_volume: PortworxVolumeSource | None = None
    volume_attributes_class_name: str | None = None


class PersistentVolumeStatus(_Base):
    phase: str = ""


class PersistentVolume(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PersistentVolumeSpec = msgspec.field(default_factory=PersistentVolumeSpec)
    status: PersistentVolumeStatus = msgspec.field(default_factory=PersistentVolumeStatus)


class VolumeResourceRequirements(_Base):
    requests: ResourceList = {}
    limits: ResourceList = {}


class PersistentVolumeClaimSpec(_Base):
    access_modes: list[str] = []
    storage_class_name: str | None = None
    volume_name: str = ""
    resources: VolumeResourceRequirements = msgspec.field(default_factory=VolumeResourceRequirements)
    volume_mode: str | None = None
    selector: LabelSelector | None = None
    volume_attributes_class_name: str | None = None


class PersistentVolumeClaimStatus(_Base):
    phase: str = ""
    capacity: ResourceList = {}
    access_modes: list[str] = []


class PersistentVolumeClaim(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PersistentVolumeClaimSpec = msgspec.field(default_factory=PersistentVolumeClaimSpec)
    status: PersistentVolumeClaimStatus = msgspec.field(default_factory=PersistentVolumeClaimStatus)


class TopologySelectorLabelRequirement(_Base):
    key: str = ""
    values: list[str] = []


class TopologySelectorTerm(_Base):
    match_label_expressions: list[TopologySelectorLabelRequirement] = []
