"""Well-known labels, taints, annotations and names, each written once (as k8s.io/api's
core/v1 well_known_labels.go, well_known_taints.go and annotation_key_constants.go, and the
controllers' own constants named where they come from)."""

from __future__ import annotations

# core/v1 types.go: DefaultSchedulerName.
DEFAULT_SCHEDULER_NAME = "default-scheduler"

# core/v1 well_known_labels.go.
LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
LABEL_TOPOLOGY_REGION = "topology.kubernetes.io/region"
LABEL_FAILURE_DOMAIN_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
LABEL_FAILURE_DOMAIN_BETA_REGION = "failure-domain.beta.kubernetes.io/region"
LABEL_INSTANCE_TYPE_STABLE = "node.kubernetes.io/instance-type"
LABEL_OS_STABLE = "kubernetes.io/os"
LABEL_ARCH_STABLE = "kubernetes.io/arch"

# core/v1 well_known_taints.go.
TAINT_NODE_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_NODE_UNREACHABLE = "node.kubernetes.io/unreachable"
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"

# core/v1 annotation_key_constants.go and the storage annotations the PV controller and the
# scheduler read (pkg/controller/volume/persistentvolume/util, storage/v1 helpers).
# The kubelet marks the API object of a static pod (a mirror pod) with it.
ANN_MIRROR_POD = "kubernetes.io/config.mirror"
ANN_MIGRATED_PLUGINS = "storage.alpha.kubernetes.io/migrated-plugins"
ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
# Set by the PV controller when it (not the user) bound a PV and a PVC, and on provisioned PVs.
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
ANN_IS_DEFAULT_STORAGE_CLASS = "storageclass.kubernetes.io/is-default-class"
ANN_BETA_IS_DEFAULT_STORAGE_CLASS = "storageclass.beta.kubernetes.io/is-default-class"

# Labels the workload controllers set on the pods they create (apps/v1 and batch/v1 types.go).
POD_TEMPLATE_HASH = "pod-template-hash"
CONTROLLER_REVISION_HASH = "controller-revision-hash"
