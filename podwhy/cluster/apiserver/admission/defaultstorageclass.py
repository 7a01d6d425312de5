"""DefaultStorageClass admission (plugin/pkg/admission/storage/storageclass/setdefault): a claim
created without a class gets the cluster's default one."""

from __future__ import annotations

from podwhy.model import objects as o
from podwhy.model.wellknownnames import (
    ANN_BETA_IS_DEFAULT_STORAGE_CLASS,
    ANN_BETA_STORAGE_CLASS,
    ANN_IS_DEFAULT_STORAGE_CLASS,
)
from podwhy.snapshot.cluster import Snapshot

NAME = "DefaultStorageClass"

# The annotations that make a StorageClass the default one (the beta one is still honoured).
DEFAULT_CLASS_ANNOTATIONS = (
    ANN_IS_DEFAULT_STORAGE_CLASS,
    ANN_BETA_IS_DEFAULT_STORAGE_CLASS,
)


def default_storage_class(snapshot: Snapshot) -> o.StorageClass | None:
    """The cluster's default StorageClass: of those annotated as default, the newest, then the
    first by name (storageutil.GetDefaultClass)."""
    defaults = [
        sc
        for sc in snapshot.storage_classes.values()
        if any(sc.metadata.annotations.get(key) == "true" for key in DEFAULT_CLASS_ANNOTATIONS)
    ]
    if not defaults:
        return None
    defaults.sort(key=lambda sc: sc.metadata.name)
    defaults.sort(key=lambda sc: sc.metadata.creation_timestamp or "", reverse=True)
    return defaults[0]


def admit_claim(pvc: o.PersistentVolumeClaim, snapshot: Snapshot) -> o.PersistentVolumeClaim:
    """DefaultStorageClass admission: a claim created without a class gets the default one."""
    if pvc.spec.storage_class_name is None and ANN_BETA_STORAGE_CLASS not in pvc.metadata.annotations:
        default = default_storage_class(snapshot)
        if default is not None:
            pvc.spec.storage_class_name = default.metadata.name
    if not pvc.status.phase:
        pvc.status.phase = "Pending"
    return pvc
