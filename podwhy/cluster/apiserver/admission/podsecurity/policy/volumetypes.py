"""The checks of a pod's volume types (policy/check_hostPathVolumes.go,
check_restrictedVolumes.go), each check's ID, level and versions as data in CHECKS."""

from __future__ import annotations

from podwhy.cluster.apiserver.admission.podsecurity.levels import BASELINE, RESTRICTED
from podwhy.cluster.apiserver.admission.podsecurity.messages import Violation, join_quote, plural
from podwhy.cluster.apiserver.admission.podsecurity.policy.checks import Check, versioned
from podwhy.model import objects as o


def _host_path_volumes(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    names = [v.name for v in spec.volumes if v.host_path is not None]
    if not names:
        return None
    return "hostPath volumes", f"{plural('volume', 'volumes', len(names))} {join_quote(names)}"


# The volume sources the restricted level allows, and the names of the others in upstream's order.
_ALLOWED_VOLUME_SOURCES = (
    "config_map",
    "csi",
    "downward_api",
    "empty_dir",
    "ephemeral",
    "image",
    "persistent_volume_claim",
    "projected",
    "secret",
)
_RESTRICTED_VOLUME_TYPES = (
    ("host_path", "hostPath"),
    ("gce_persistent_disk", "gcePersistentDisk"),
    ("aws_elastic_block_store", "awsElasticBlockStore"),
    ("git_repo", "gitRepo"),
    ("nfs", "nfs"),
    ("iscsi", "iscsi"),
    ("glusterfs", "glusterfs"),
    ("rbd", "rbd"),
    ("flex_volume", "flexVolume"),
    ("cinder", "cinder"),
    ("cephfs", "cephfs"),
    ("flocker", "flocker"),
    ("fc", "fc"),
    ("azure_file", "azureFile"),
    ("vsphere_volume", "vsphereVolume"),
    ("quobyte", "quobyte"),
    ("azure_disk", "azureDisk"),
    ("photon_persistent_disk", "photonPersistentDisk"),
    ("portworx_volume", "portworxVolume"),
    ("scale_io", "scaleIO"),
    ("storageos", "storageos"),
)


def _restricted_volumes(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    bad: list[str] = []
    types: set[str] = set()
    for v in spec.volumes:
        if any(getattr(v, source) is not None for source in _ALLOWED_VOLUME_SOURCES):
            continue
        bad.append(v.name)
        types.add(next((name for field, name in _RESTRICTED_VOLUME_TYPES if getattr(v, field) is not None), "unknown"))
    if not bad:
        return None
    return (
        "restricted volume types",
        f"{plural('volume', 'volumes', len(bad))} {join_quote(bad)} {plural('uses', 'use', len(bad))} "
        f"{plural('restricted volume type', 'restricted volume types', len(types))} {join_quote(sorted(types))}",
    )


CHECKS = (
    Check("hostPathVolumes", BASELINE, (versioned(0, _host_path_volumes),)),
    Check("restrictedVolumes", RESTRICTED, (versioned(0, _restricted_volumes, "hostPathVolumes"),)),
)
