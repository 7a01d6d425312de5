"""Storage helpers shared by the volume plugins.

PVC/PV/StorageClass lookups with the API's not-found wording, generic ephemeral
volumes, a StorageClass's allowedTopologies, and the part of in-tree -> CSI migration the scheduler
uses (which in-tree plugin a volume belongs to, its CSI driver and volume handle,
and the rewritten PV topology). What the PV controller shares with them (a claim's and a
volume's class, a PV's node affinity, FindMatchingVolume) is helpers/persistentvolumes.py.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import unquote, urlsplit

import msgspec

from podwhy.helpers.labelselectors import SelectorError, new_requirement
from podwhy.model import objects as o
from podwhy.model.wellknownnames import (
    ANN_MIGRATED_PLUGINS,
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
)

LABEL_MULTI_ZONE_DELIMITER = "__"

READ_WRITE_ONCE_POD = "ReadWriteOncePod"

_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2}).{0,2}")


# ------------------------------------------------------------------ API errors


def pvc_not_found(name: str) -> str:
    return f'persistentvolumeclaim "{name}" not found'


def pv_not_found(name: str) -> str:
    return f'persistentvolume "{name}" not found'


def storage_class_not_found(name: str) -> str:
    return f'storageclass.storage.k8s.io "{name}" not found'


# ------------------------------------------------------------------ claims and classes


def ephemeral_claim_name(pod: o.Pod, volume: o.Volume) -> str:
    """The PVC the ephemeral volume controller creates for a generic ephemeral volume."""
    return f"{pod.metadata.name}-{volume.name}"


def pod_claim_name(pod: o.Pod, volume: o.Volume) -> tuple[str, bool] | None:
    """(claim name, is ephemeral) for a volume backed by a PVC, None for other volumes."""
    if volume.persistent_volume_claim is not None:
        return volume.persistent_volume_claim.claim_name, False
    if volume.ephemeral is not None:
        return ephemeral_claim_name(pod, volume), True
    return None


def volume_is_for_pod(pod: o.Pod, pvc: o.PersistentVolumeClaim) -> str | None:
    """Why an ephemeral volume's PVC may not be used by the pod, None when it may."""
    controller = next((ref for ref in pvc.metadata.owner_references if ref.controller), None)
    owned = controller is not None and controller.uid == pod.metadata.uid
    if pvc.metadata.namespace != pod.metadata.namespace or not owned:
        return (
            f"PVC {pvc.metadata.namespace}/{pvc.metadata.name} was not created for pod "
            f"{pod.metadata.namespace}/{pod.metadata.name} (pod is not owner)"
        )
    return None


def match_topology_selector_terms(terms: list[o.TopologySelectorTerm], node_labels: Mapping[str, str]) -> bool:
    """StorageClass allowedTopologies: terms ORed, no terms match everything, empty terms nothing."""
    if not terms:
        return True
    for term in terms:
        if not term.match_label_expressions:
            continue
        try:
            reqs = [new_requirement(e.key, "In", list(e.values)) for e in term.match_label_expressions]
        except SelectorError:
            continue
        if all(r.matches(node_labels) for r in reqs):
            return True
    return False


# ------------------------------------------------------------------ CSI migration


class TranslationError(Exception):
    """In-tree -> CSI translation failed; the message is upstream's."""


class InTreePlugin(msgspec.Struct, frozen=True):
    in_tree_name: str
    csi_driver: str
    # Attribute holding the source on Volume and on PersistentVolumeSpec.
    source_attr: str
    # CSI zone topology key the PV's zone affinity is rewritten to ("" = no rewrite).
    topology_key: str = ""


GCE_PD = InTreePlugin("kubernetes.io/gce-pd", "pd.csi.storage.gke.io", "gce_persistent_disk", "topology.gke.io/zone")
AWS_EBS = InTreePlugin(
    "kubernetes.io/aws-ebs", "ebs.csi.aws.com", "aws_elastic_block_store", "topology.ebs.csi.aws.com/zone"
)
CINDER = InTreePlugin(
    "kubernetes.io/cinder", "cinder.csi.openstack.org", "cinder", "topology.cinder.csi.openstack.org/zone"
)
AZURE_DISK = InTreePlugin("kubernetes.io/azure-disk", "disk.csi.azure.com", "azure_disk")
AZURE_FILE = InTreePlugin("kubernetes.io/azure-file", "file.csi.azure.com", "azure_file")
VSPHERE = InTreePlugin("kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com", "vsphere_volume")
PORTWORX = InTreePlugin("kubernetes.io/portworx-volume", "pxd.portworx.com", "portworx_volume")

IN_TREE_PLUGINS = (GCE_PD, AWS_EBS, CINDER, AZURE_DISK, AZURE_FILE, VSPHERE, PORTWORX)
_BY_IN_TREE_NAME = {p.in_tree_name: p for p in IN_TREE_PLUGINS}

# Plugins whose migration is on in v1.35 (CSIMigrationPortworx is GA and locked on).
MIGRATION_ON = frozenset(p.in_tree_name for p in (GCE_PD, AWS_EBS, CINDER, AZURE_DISK, PORTWORX))


def inline_plugin(volume: o.Volume) -> InTreePlugin | None:
    """The in-tree plugin of a migratable inline volume (IsInlineMigratable)."""
    return next((p for p in IN_TREE_PLUGINS if getattr(volume, p.source_attr) is not None), None)


def pv_plugin(pv: o.PersistentVolume) -> InTreePlugin | None:
    """The in-tree plugin of a migratable PV (IsPVMigratable)."""
    return next((p for p in IN_TREE_PLUGINS if getattr(pv.spec, p.source_attr) is not None), None)


def plugin_by_in_tree_name(name: str) -> InTreePlugin | None:
    return _BY_IN_TREE_NAME.get(name)


def migrated_on_node(csi_node: o.CSINode | None, plugin_name: str) -> bool:
    """The node's CSINode lists the in-tree plugin as migrated to its CSI driver."""
    if csi_node is None:
        return False
    listed = csi_node.metadata.annotations.get(ANN_MIGRATED_PLUGINS, "")
    return bool(listed) and plugin_name in listed.split(",")


def _ebs_volume_id(kubernetes_id: str) -> str:
    """KubernetesVolumeIDToEBSVolumeID: aws://<zone>/<vol-id> or a bare vol-id."""
    if not kubernetes_id.startswith("aws://"):
        return kubernetes_id
    bad_escape = _BAD_ESCAPE.search(kubernetes_id)
    if bad_escape is not None:
        raise TranslationError(
            "failed to translate Kubernetes ID to EBS Volume ID Invalid disk name "
            f'({kubernetes_id}): parse "{kubernetes_id}": invalid URL escape "{bad_escape.group(0)}"'
        )
    aws_id = unquote(urlsplit(kubernetes_id).path).strip("/")
    if not aws_id.startswith("vol-") or "/" in aws_id:
        raise TranslationError(
            f"failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume ({kubernetes_id})"
        )
    return aws_id


def _check_azure_kind(source: o.AzureDiskVolumeSource) -> None:
    if source.kind is not None and source.kind.lower() != "managed":
        raise TranslationError(f"kind({source.kind}) is not supported in csi migration")


def inline_volume_handle(volume: o.Volume, plugin: InTreePlugin) -> str | None:
    """The CSI volume handle of a translated inline volume; None when it has no CSI source."""
    if plugin is GCE_PD and volume.gce_persistent_disk is not None:
        return f"projects/UNSPECIFIED/zones/UNSPECIFIED/disks/{volume.gce_persistent_disk.pd_name}"
    if plugin is AWS_EBS and volume.aws_elastic_block_store is not None:
        return _ebs_volume_id(volume.aws_elastic_block_store.volume_id)
    if plugin is CINDER and volume.cinder is not None:
        return volume.cinder.volume_id
    if plugin is AZURE_DISK and volume.azure_disk is not None:
        _check_azure_kind(volume.azure_disk)
        return volume.azure_disk.disk_uri
    if plugin is PORTWORX and volume.portworx_volume is not None:
        return volume.portworx_volume.volume_id
    return None


def _gce_region_from_zones(zones: list[str]) -> str:
    if not zones:
        raise TranslationError("failed to get region from zones: no zones specified")
    regions: set[str] = set()
    for zone in zones:
        parts = zone.split("-")
        if len(parts) != 3:
            raise TranslationError(
                "failed to get region from zones: zone in unexpected format, "
                f"expected: {{locale}}-{{region}}-{{zone}}, got: {zone}"
            )
        regions.add("-".join(parts[:2]))
    if len(regions) != 1:
        listed = " ".join(f"{r}:{{}}" for r in sorted(regions))
        raise TranslationError(
            f"failed to get region from zones: multiple or no regions gotten from zones, got: map[{listed}]"
        )
    return next(iter(regions))


def _gce_pv_handle(pv: o.PersistentVolume, pd_name: str) -> str:
    zones_label = pv.metadata.labels.get(LABEL_FAILURE_DOMAIN_BETA_ZONE, "") or pv.metadata.labels.get(
        LABEL_TOPOLOGY_ZONE, ""
    )
    zones = zones_label.split(LABEL_MULTI_ZONE_DELIMITER)
    if len(zones) == 1 and zones[0]:
        return f"projects/UNSPECIFIED/zones/{zones[0]}/disks/{pd_name}"
    if len(zones) > 1:
        return f"projects/UNSPECIFIED/regions/{_gce_region_from_zones(zones)}/disks/{pd_name}"
    return f"projects/UNSPECIFIED/zones/UNSPECIFIED/disks/{pd_name}"


def _affinity_terms(pv: o.PersistentVolume) -> list[o.NodeSelectorTerm]:
    na = pv.spec.node_affinity
    if na is None or na.required is None:
        return []
    return na.required.node_selector_terms


def _topology_key_exists(pv: o.PersistentVolume, key: str) -> bool:
    return any(r.key == key for term in _affinity_terms(pv) for r in term.match_expressions)


def _topology_values(pv: o.PersistentVolume, key: str) -> list[str]:
    return sorted({v for term in _affinity_terms(pv) for r in term.match_expressions if r.key == key for v in r.values})


def _replace_topology(pv: o.PersistentVolume, old_key: str, new_key: str) -> None:
    for term in _affinity_terms(pv):
        for req in term.match_expressions:
            if req.key == old_key:
                req.key = new_key


def _add_topology(pv: o.PersistentVolume, key: str, zones: list[str]) -> None:
    cleaned = sorted({z.strip() for z in zones if z.strip()})
    if not cleaned:
        return  # upstream reports an error here that its caller ignores
    if pv.spec.node_affinity is None:
        pv.spec.node_affinity = o.VolumeNodeAffinity()
    if pv.spec.node_affinity.required is None:
        pv.spec.node_affinity.required = o.NodeSelector()
    if not pv.spec.node_affinity.required.node_selector_terms:
        pv.spec.node_affinity.required.node_selector_terms = [o.NodeSelectorTerm()]
    for term in pv.spec.node_affinity.required.node_selector_terms:
        term.match_expressions = [
            *term.match_expressions,
            o.NodeSelectorRequirement(key=key, operator="In", values=list(cleaned)),
        ]


def _translate_topology(pv: o.PersistentVolume, csi_key: str) -> None:
    """Rewrite the PV's zone affinity (or zone label) to the CSI driver's topology key."""
    if _topology_key_exists(pv, LABEL_TOPOLOGY_ZONE):
        zone_label, region_label = LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION
    elif _topology_key_exists(pv, LABEL_FAILURE_DOMAIN_BETA_ZONE):
        zone_label, region_label = LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_FAILURE_DOMAIN_BETA_REGION
    elif LABEL_TOPOLOGY_ZONE in pv.metadata.labels:
        zone_label, region_label = LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION
    elif LABEL_FAILURE_DOMAIN_BETA_ZONE in pv.metadata.labels:
        zone_label, region_label = LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_FAILURE_DOMAIN_BETA_REGION
    else:
        zone_label, region_label = LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION
    if _topology_values(pv, zone_label):
        _replace_topology(pv, zone_label, csi_key)
    elif zone_label in pv.metadata.labels:
        _add_topology(pv, csi_key, pv.metadata.labels[zone_label].split(LABEL_MULTI_ZONE_DELIMITER))
    if region_label == LABEL_FAILURE_DOMAIN_BETA_REGION and _topology_values(pv, region_label):
        _replace_topology(pv, region_label, LABEL_TOPOLOGY_REGION)


def translate_pv(pv: o.PersistentVolume) -> o.PersistentVolume:
    """A copy of a migratable in-tree PV as its CSI driver sees it (TranslateInTreePVToCSI)."""
    plugin = pv_plugin(pv)
    if plugin is None:
        raise TranslationError(f'could not find in-tree plugin translation logic for "{pv.metadata.name}"')
    out = msgspec.convert(msgspec.to_builtins(pv), o.PersistentVolume)
    spec = out.spec
    if plugin is GCE_PD and spec.gce_persistent_disk is not None:
        handle = _gce_pv_handle(out, spec.gce_persistent_disk.pd_name)
    elif plugin is AWS_EBS and spec.aws_elastic_block_store is not None:
        handle = _ebs_volume_id(spec.aws_elastic_block_store.volume_id)
    elif plugin is CINDER and spec.cinder is not None:
        handle = spec.cinder.volume_id
    elif plugin is AZURE_DISK and spec.azure_disk is not None:
        _check_azure_kind(spec.azure_disk)
        handle = spec.azure_disk.disk_uri
    elif plugin is PORTWORX and spec.portworx_volume is not None:
        handle = spec.portworx_volume.volume_id
    else:
        # Azure File and vSphere PVs are never translated here: their migration is not checked.
        raise TranslationError(f'could not find in-tree plugin translation logic for "{pv.metadata.name}"')
    if plugin.topology_key:
        _translate_topology(out, plugin.topology_key)
    setattr(spec, plugin.source_attr, None)
    spec.csi = o.CSIPersistentVolumeSource(driver=plugin.csi_driver, volume_handle=handle)
    return out
