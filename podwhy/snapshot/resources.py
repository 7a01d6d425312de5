"""The resources podwhy reads, as `kubectl get` names them, and the commands that dump them: data
the report's words quote (live.py reads them from the API server)."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import quote

import msgspec


class Resource(msgspec.Struct, frozen=True):
    """One listable resource: where it is served and what kind its items are."""

    kind: str
    group_version: str  # "v1" for the core group
    plural: str
    # One object read by name (one GET, never a list): its namespace and name.
    namespace: str = ""
    name: str = ""
    # Served only where an add-on is installed (Karpenter's CRDs): not served means the cluster
    # has none (vouched absent), not a missing kind.
    optional: bool = False

    @property
    def group(self) -> str:
        return self.group_version.rpartition("/")[0]

    def path(self, namespace: str | None = None) -> str:
        base = "/api/v1" if self.group_version == "v1" else f"/apis/{self.group_version}"
        if self.name:
            namespaced = f"/namespaces/{quote(self.namespace, safe='')}" if self.namespace else ""
            return f"{base}{namespaced}/{self.plural}/{quote(self.name, safe='')}"
        if namespace is not None:
            return f"{base}/namespaces/{quote(namespace, safe='')}/{self.plural}"
        return f"{base}/{self.plural}"

    @property
    def display(self) -> str:
        plural = f"{self.plural}.{self.group}" if self.group else self.plural
        if self.name:
            return f"{plural} {self.namespace}/{self.name}" if self.namespace else f"{plural} {self.name}"
        return plural


# Everything the plugins read, the owners pods are named after, and nothing else (never Secrets,
# and of the ConfigMaps only Cluster Autoscaler's status, see AUTOSCALER_RESOURCES).
RESOURCES: tuple[Resource, ...] = (
    Resource("Node", "v1", "nodes"),
    Resource("Pod", "v1", "pods"),
    Resource("PersistentVolume", "v1", "persistentvolumes"),
    Resource("PersistentVolumeClaim", "v1", "persistentvolumeclaims"),
    Resource("Namespace", "v1", "namespaces"),
    Resource("Service", "v1", "services"),
    Resource("LimitRange", "v1", "limitranges"),
    Resource("ResourceQuota", "v1", "resourcequotas"),
    Resource("ReplicationController", "v1", "replicationcontrollers"),
    Resource("StorageClass", "storage.k8s.io/v1", "storageclasses"),
    Resource("CSINode", "storage.k8s.io/v1", "csinodes"),
    Resource("CSIDriver", "storage.k8s.io/v1", "csidrivers"),
    Resource("CSIStorageCapacity", "storage.k8s.io/v1", "csistoragecapacities"),
    Resource("VolumeAttachment", "storage.k8s.io/v1", "volumeattachments"),
    Resource("PriorityClass", "scheduling.k8s.io/v1", "priorityclasses"),
    Resource("RuntimeClass", "node.k8s.io/v1", "runtimeclasses"),
    Resource("PodDisruptionBudget", "policy/v1", "poddisruptionbudgets"),
    Resource("ReplicaSet", "apps/v1", "replicasets"),
    Resource("StatefulSet", "apps/v1", "statefulsets"),
    # Not read by plugins: they name a pod's owner (Job -> CronJob) for `pending` and suggestions.
    Resource("Job", "batch/v1", "jobs"),
    Resource("CronJob", "batch/v1", "cronjobs"),
    Resource("DeviceClass", "resource.k8s.io/v1", "deviceclasses"),
    Resource("ResourceSlice", "resource.k8s.io/v1", "resourceslices"),
    Resource("ResourceClaim", "resource.k8s.io/v1", "resourceclaims"),
    Resource("ResourceClaimTemplate", "resource.k8s.io/v1", "resourceclaimtemplates"),
)
# Kueue's objects (docs/kueue.md), listed only where the server serves kueue.x-k8s.io (elsewhere
# Kueue is not installed: the cluster has none). Kueue's Workload is keyed by its group-qualified
# kind (model/objects/kinds.py table_kind), scheduling.k8s.io's being `Workload`.
KUEUE_RESOURCES: tuple[Resource, ...] = (
    Resource("ResourceFlavor", "kueue.x-k8s.io/v1beta2", "resourceflavors", optional=True),
    Resource("ClusterQueue", "kueue.x-k8s.io/v1beta2", "clusterqueues", optional=True),
    Resource("Cohort", "kueue.x-k8s.io/v1beta2", "cohorts", optional=True),
    Resource("LocalQueue", "kueue.x-k8s.io/v1beta2", "localqueues", optional=True),
    Resource("Workload.kueue.x-k8s.io", "kueue.x-k8s.io/v1beta2", "workloads", optional=True),
    Resource("WorkloadPriorityClass", "kueue.x-k8s.io/v1beta2", "workloadpriorityclasses", optional=True),
    Resource("AdmissionCheck", "kueue.x-k8s.io/v1beta2", "admissionchecks", optional=True),
    Resource("Topology", "kueue.x-k8s.io/v1beta2", "topologies", optional=True),
)
# The API server's admission configuration (docs/policies.md), listed where the server serves it:
# a kind it does not serve (MutatingAdmissionPolicies where their feature gate is off) it has none
# of. Each is listed in the newest version the server serves of those podwhy reads
# (apiversions.VERSIONS).
_ADM_V1 = "admissionregistration.k8s.io/v1"
ADMISSION_RESOURCES: tuple[Resource, ...] = (
    Resource("ValidatingAdmissionPolicy", _ADM_V1, "validatingadmissionpolicies", optional=True),
    Resource("ValidatingAdmissionPolicyBinding", _ADM_V1, "validatingadmissionpolicybindings", optional=True),
    Resource("MutatingAdmissionPolicy", _ADM_V1, "mutatingadmissionpolicies", optional=True),
    Resource("MutatingAdmissionPolicyBinding", _ADM_V1, "mutatingadmissionpolicybindings", optional=True),
    Resource("ValidatingWebhookConfiguration", _ADM_V1, "validatingwebhookconfigurations", optional=True),
    Resource("MutatingWebhookConfiguration", _ADM_V1, "mutatingwebhookconfigurations", optional=True),
)
# The complete dump: what `podwhy snapshot` writes, or every resource above through kubectl.
SNAPSHOT_COMMAND = "podwhy snapshot -o cluster.json.gz"
# Where the whole story of dumps is told: the kubectl commands (kubectl_dump_command, the
# autoscalers' own), --complete, and what a partial dump leaves unevaluated.
SNAPSHOT_DOCS = '"Which snapshot to take" in podwhy\'s README'


def dump_hint() -> str:
    """How to dump a cluster so that every plugin can be evaluated: one command, and where the
    kubectl ways are (a hint stays short: the kubectl command alone is 700 characters)."""
    return f"dump the cluster with `{SNAPSHOT_COMMAND}`; to dump it with kubectl, see {SNAPSHOT_DOCS}"


def kubectl_dump_command(kinds: Iterable[str] | None = None) -> str:
    """`kubectl get` of every resource podwhy reads (or of those of KINDS) as one YAML List. Names
    are group-qualified, so a custom resource of the same plural is never listed instead."""
    names = [r.display for r in RESOURCES if kinds is None or r.kind in kinds]
    return f"kubectl get {','.join(names)} -A -o yaml"


def admission_dump_command(kinds: Iterable[str] | None = None) -> str:
    """`kubectl get` of the admission policies and webhook configurations (of KINDS) as one YAML
    List: apart from kubectl_dump_command, as kubectl fails on a resource type the server does not
    serve (MutatingAdmissionPolicies, where their feature gate is off)."""
    names = [r.display for r in ADMISSION_RESOURCES if kinds is None or r.kind in kinds]
    return f"kubectl get {','.join(names)} -o yaml"


def kueue_dump_command(kinds: Iterable[str] | None = None) -> str:
    """`kubectl get` of Kueue's objects (of KINDS) as one YAML List: apart from kubectl_dump_command,
    as kubectl fails on a resource type the server does not serve (Kueue's, where it is not installed)."""
    names = [r.display for r in KUEUE_RESOURCES if kinds is None or r.kind in kinds]
    return f"kubectl get {','.join(names)} -A -o yaml"


# How a live source names itself among a snapshot's sources, and how a kind the server refused ends.
LIVE_SOURCE = "live: "
FORBIDDEN = ": forbidden"
