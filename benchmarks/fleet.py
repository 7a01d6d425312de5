"""An AI fleet as `kubectl get -o json` writes it: node pools of identical 8-GPU nodes, a few
DaemonSets with a pod on every node, one training pod per node, a gang (an Indexed Job of a
JobSet) with one pod Pending, and Pending pods of several owners.

The objects carry the fields kubectl prints (managedFields, conditions, images, tolerations the
DaemonSet controller and the ExtendedResourceToleration admission plugin add), the labels GKE
(or EKS, `cloud="eks"`) puts on its GPU nodes, and the taint `nvidia.com/gpu=present:NoSchedule`.
Items are written one at a time, so that a 65,000-node dump never sits in memory whole.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

GPU = "nvidia.com/gpu"
GPU_TAINT = {"key": GPU, "value": "present", "effect": "NoSchedule"}
# The Pending gang pod and where it lives.
GANG_NAMESPACE = "llm"
GANG_JOBSET = "pretrain"
CREATED = "2026-01-01T00:00:00Z"
STARTED = "2026-01-01T01:00:00Z"
# The kubelets' release: podwhy emulates it (the dump holds no other version).
KUBELET_VERSION = {"gke": "v1.34.9-gke.1071000", "eks": "v1.34.9-eks-3c4a9d1"}
ZONES = {
    "gke": ("us-central1-a", "us-central1-b", "us-central1-c"),
    "eks": ("us-east-1a", "us-east-1b", "us-east-1c"),
}
REGION = {"gke": "us-central1", "eks": "us-east-1"}
INSTANCE_TYPE = {"gke": "a3-highgpu-8g", "eks": "p5.48xlarge"}
ALLOCATABLE = {"cpu": "207740m", "memory": "1843409424Ki", GPU: "8", "pods": "110", "ephemeral-storage": "2950627164Ki"}
CAPACITY = {"cpu": "208", "memory": "1915058164Ki", GPU: "8", "pods": "110", "ephemeral-storage": "3201642092Ki"}
# What a training pod asks for: the whole node's GPUs and most of its CPU and memory.
TRAINING_REQUESTS = {"cpu": "200", "memory": "1700Gi", GPU: "8"}
# GKE's system DaemonSets on a GPU node: name, cpu, memory.
DAEMONSETS = (
    ("fluentbit-gke", "100m", "200Mi"),
    ("gke-metadata-server", "100m", "100Mi"),
    ("netd", "5m", "30Mi"),
    ("nvidia-gpu-device-plugin-large-cos", "50m", "50Mi"),
    ("pdcsi-node", "10m", "20Mi"),
)
# The tolerations the DaemonSet controller adds to its pods (AddOrUpdateDaemonPodTolerations).
DAEMON_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
]
DEFAULT_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
]
GPU_TOLERATION = {"key": GPU, "operator": "Exists", "effect": "NoSchedule"}


@dataclass(frozen=True)
class Fleet:
    """The shape of the generated cluster."""

    nodes: int
    pool_size: int = 1000
    gang: int = 512
    job_size: int = 256
    pending: int = 1000
    owners: int = 20
    cloud: str = "gke"
    # Kueue's objects too (benchmarks/fleetkueue.py): the training Jobs queued and admitted.
    kueue: bool = False

    @property
    def pools(self) -> int:
        return -(-self.nodes // self.pool_size)

    @property
    def gang_pending(self) -> str:
        """NAMESPACE/NAME of the gang's Pending pod."""
        return f"{GANG_NAMESPACE}/{self.gang_pod_name(self.gang - 1)}"

    def gang_pod_name(self, index: int) -> str:
        return _training_pod_name(f"{GANG_JOBSET}-workers-0", index)


def _suffix(i: int, width: int = 5) -> str:
    """A name suffix as the controllers' generateName gives, distinct for every I below 27**WIDTH
    (multiplying by a number prime to 27 permutes the residues)."""
    alphabet = "bcdfghjklmnpqrstvwxz2456789"
    x = (i * 0x9E3779B1) % len(alphabet) ** width
    out = []
    for _ in range(width):
        x, digit = divmod(x, len(alphabet))
        out.append(alphabet[digit])
    return "".join(out)


def _uid(kind: str, i: int) -> str:
    return f"{zlib.crc32(kind.encode()):08x}-0000-4000-8000-{i:012x}"


def _managed(manager: str, fields: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "manager": manager,
            "operation": "Update",
            "apiVersion": "v1",
            "time": STARTED,
            "fieldsType": "FieldsV1",
            "fieldsV1": fields,
        }
    ]


def _pool_name(fleet: Fleet, pool: int) -> str:
    return f"a3-pool-{pool:02d}" if fleet.cloud == "gke" else f"p5-group-{pool:02d}"


def node_name(fleet: Fleet, i: int) -> str:
    pool = i // fleet.pool_size
    if fleet.cloud == "gke":
        return f"gke-fleet-{_pool_name(fleet, pool)}-{_suffix(pool, 8)}-{_suffix(i, 4)}"
    return f"ip-10-{i // 65536 + 16}-{i // 256 % 256}-{i % 256}.ec2.internal"


def _node_labels(fleet: Fleet, i: int, name: str) -> dict[str, str]:
    pool = i // fleet.pool_size
    zone = ZONES[fleet.cloud][pool % 3]
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/instance-type": INSTANCE_TYPE[fleet.cloud],
        "beta.kubernetes.io/os": "linux",
        "failure-domain.beta.kubernetes.io/region": REGION[fleet.cloud],
        "failure-domain.beta.kubernetes.io/zone": zone,
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": INSTANCE_TYPE[fleet.cloud],
        "topology.kubernetes.io/region": REGION[fleet.cloud],
        "topology.kubernetes.io/zone": zone,
    }
    if fleet.cloud == "gke":
        labels |= {
            "cloud.google.com/gke-accelerator": "nvidia-h100-80gb",
            "cloud.google.com/gke-boot-disk": "pd-balanced",
            "cloud.google.com/gke-container-runtime": "containerd",
            "cloud.google.com/gke-gpu": "true",
            "cloud.google.com/gke-gpu-driver-version": "latest",
            "cloud.google.com/gke-nodepool": _pool_name(fleet, pool),
            "cloud.google.com/gke-os-distribution": "cos",
            "cloud.google.com/machine-family": "a3",
            "cloud.google.com/private-node": "true",
            "topology.gke.io/zone": zone,
        }
    else:
        labels |= {
            "eks.amazonaws.com/capacityType": "ON_DEMAND",
            "eks.amazonaws.com/nodegroup": _pool_name(fleet, pool),
            "eks.amazonaws.com/nodegroup-image": "ami-0c1e0bd6f1f3b4d5e",
            "k8s.amazonaws.com/accelerator": "nvidia-h100",
            "nvidia.com/gpu.present": "true",
        }
    return labels


def node(fleet: Fleet, i: int) -> dict[str, Any]:
    name = node_name(fleet, i)
    pool = i // fleet.pool_size
    zone = ZONES[fleet.cloud][pool % 3]
    provider = f"gce://fleet-project/{zone}/{name}" if fleet.cloud == "gke" else f"aws:///{zone}/i-{i:017x}"
    # Each kubelet posts its node's status on its own: with node leases, every 5 minutes unless it
    # changed (nodeStatusReportFrequency), so the heartbeats of a dump spread over the 5 minutes
    # before it, which is taken 10 minutes after the last pod started.
    heartbeat = _at(fleet.nodes * 8 + 600 - (i * 7919) % 300)
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": _uid("node", i),
            "resourceVersion": str(1000 + i),
            "creationTimestamp": CREATED,
            "labels": _node_labels(fleet, i, name),
            "annotations": {
                "container.googleapis.com/instance_id": str(4000000000000000000 + i),
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
        },
        "spec": {
            "podCIDR": f"10.{64 + i // 65536}.{i // 256 % 256}.0/24",
            "podCIDRs": [f"10.{64 + i // 65536}.{i // 256 % 256}.0/24"],
            "providerID": provider,
            "taints": [dict(GPU_TAINT)],
        },
        "status": {
            "addresses": [
                {"type": "InternalIP", "address": f"10.{i // 65536}.{i // 256 % 256}.{i % 256}"},
                {"type": "Hostname", "address": name},
            ],
            "allocatable": dict(ALLOCATABLE),
            "capacity": dict(CAPACITY),
            "conditions": [
                {
                    "type": t,
                    "status": "True" if t == "Ready" else "False",
                    "reason": "KubeletReady" if t == "Ready" else f"KubeletHasNo{t}",
                    "message": "kubelet is posting ready status" if t == "Ready" else f"kubelet has no {t}",
                    "lastHeartbeatTime": heartbeat,
                    "lastTransitionTime": CREATED,
                }
                for t in ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "images": [
                {
                    "names": [f"us-docker.pkg.dev/fleet/train/trainer@sha256:{j:064x}", f"trainer:v{j}"],
                    "sizeBytes": 9_000_000_000 + j,
                }
                for j in range(4)
            ],
            "nodeInfo": {
                "architecture": "amd64",
                "bootID": _uid("boot", i),
                "containerRuntimeVersion": "containerd://1.7.24",
                "kernelVersion": "6.6.56+",
                "kubeProxyVersion": KUBELET_VERSION[fleet.cloud],
                "kubeletVersion": KUBELET_VERSION[fleet.cloud],
                "machineID": f"{i:032x}",
                "operatingSystem": "linux",
                "osImage": "Container-Optimized OS from Google",
                "systemUUID": _uid("system", i),
            },
        },
    }


def _container(name: str, image: str, requests: dict[str, str], limits: dict[str, str], access: str) -> dict[str, Any]:
    return {
        "name": name,
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "resources": {"requests": requests, "limits": limits},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "volumeMounts": [
            {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": access, "readOnly": True}
        ],
    }


def _access_name(pod_name: str) -> str:
    """The projected token volume's name, as the ServiceAccount admission plugin names it for each
    pod: `kube-api-access-` and five random characters (so no two pods' volumes are alike)."""
    return f"kube-api-access-{_suffix(zlib.crc32(pod_name.encode()))}"


def _access_volume(name: str) -> dict[str, Any]:
    return {"name": name, **API_ACCESS_SOURCE}


API_ACCESS_SOURCE = {
    "projected": {
        "defaultMode": 420,
        "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        ],
    },
}


_START = datetime.strptime(STARTED, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def _at(seconds: int) -> str:
    """STARTED plus SECONDS, as the API writes a time."""
    return (_START + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _running_status(node_index: int, pod_index: int, containers: list[dict[str, Any]]) -> dict[str, Any]:
    """A running pod's status as a kubelet of the fleet's release writes it: each pod started at
    its own time, its containers at theirs, a few restarted, and (since in-place resize) each
    container's resources and allocated resources reported. What differs from pod to pod in a
    real fleet differs here too."""
    started = _at(node_index * 8 + pod_index)
    return {
        "phase": "Running",
        "conditions": [
            {"type": t, "status": "True", "lastProbeTime": None, "lastTransitionTime": started}
            for t in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")
        ],
        "hostIP": f"10.{node_index // 65536}.{node_index // 256 % 256}.{node_index % 256}",
        "podIP": f"10.{64 + node_index // 65536}.{node_index // 256 % 256}.{7 + pod_index}",
        "qosClass": "Burstable",
        "startTime": started,
        "containerStatuses": [
            {
                "name": c["name"],
                "image": c["image"],
                "imageID": f"sha256:{node_index:056x}{pod_index:08x}",
                "containerID": f"containerd://{node_index:056x}{pod_index:04x}{k:04x}",
                "ready": True,
                "restartCount": (node_index + pod_index) % 3,
                "started": True,
                "state": {"running": {"startedAt": _at(node_index * 8 + pod_index + 5 + k)}},
                "allocatedResources": c["resources"]["requests"],
                "resources": c["resources"],
            }
            for k, c in enumerate(containers)
        ],
    }


def daemon_pod(fleet: Fleet, ds: int, i: int) -> dict[str, Any]:
    ds_name, cpu, memory = DAEMONSETS[ds]
    node = node_name(fleet, i)
    name = f"{ds_name}-{_suffix(i * 7 + ds)}"
    access = _access_name(name)
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "generateName": f"{ds_name}-",
            "namespace": "kube-system",
            "uid": _uid(f"ds{ds}", i),
            "resourceVersion": str(200000 + i),
            "creationTimestamp": STARTED,
            "labels": {
                "k8s-app": ds_name,
                "controller-revision-hash": "6d8f7b9c4d",
                "pod-template-generation": "3",
            },
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "DaemonSet",
                    "name": ds_name,
                    "uid": _uid("daemonset", ds),
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
            "managedFields": _managed(
                "kubelet", {"f:status": {"f:conditions": {}, "f:containerStatuses": {}, "f:podIP": {}}}
            ),
        },
        "spec": {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
                        ]
                    }
                }
            },
            "containers": [
                _container(
                    ds_name, f"gke.gcr.io/{ds_name}:v1.4.2", {"cpu": cpu, "memory": memory}, {"memory": memory}, access
                )
            ],
            "dnsPolicy": "Default",
            "enableServiceLinks": True,
            "hostNetwork": True,
            "nodeName": node,
            "nodeSelector": {"kubernetes.io/os": "linux"},
            "preemptionPolicy": "PreemptLowerPriority",
            "priority": 2000001000,
            "priorityClassName": "system-node-critical",
            "restartPolicy": "Always",
            "schedulerName": "default-scheduler",
            "securityContext": {},
            "serviceAccount": ds_name,
            "serviceAccountName": ds_name,
            "terminationGracePeriodSeconds": 30,
            "tolerations": [{"operator": "Exists"}, *DAEMON_TOLERATIONS],
            "volumes": [_access_volume(access)],
        },
    }
    pod["status"] = _running_status(i, ds, pod["spec"]["containers"])
    return pod


def _training_spec(fleet: Fleet, access: str) -> dict[str, Any]:
    limits = {GPU: TRAINING_REQUESTS[GPU]}
    return {
        "containers": [
            _container("trainer", "us-docker.pkg.dev/fleet/train/trainer:v3", dict(TRAINING_REQUESTS), limits, access)
        ],
        "dnsPolicy": "ClusterFirst",
        "enableServiceLinks": True,
        "nodeSelector": (
            {"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"}
            if fleet.cloud == "gke"
            else {"k8s.amazonaws.com/accelerator": "nvidia-h100"}
        ),
        "preemptionPolicy": "PreemptLowerPriority",
        "priority": 0,
        "restartPolicy": "Never",
        "schedulerName": "default-scheduler",
        "securityContext": {},
        "serviceAccount": "default",
        "serviceAccountName": "default",
        "subdomain": "workers",
        "terminationGracePeriodSeconds": 30,
        # ExtendedResourceToleration adds the GPU toleration to a pod asking for GPUs.
        "tolerations": [*DEFAULT_TOLERATIONS, dict(GPU_TOLERATION)],
        "volumes": [_access_volume(access)],
    }


def _training_pod_name(job: str, index: int) -> str:
    return f"{job}-{index}-{_suffix(index * 131 + len(job))}"


def training_pod(
    fleet: Fleet, namespace: str, job: str, jobset: str, index: int, uid: str, node: int | None
) -> dict[str, Any]:
    name = _training_pod_name(job, index)
    spec = _training_spec(fleet, _access_name(name))
    spec["hostname"] = f"{job}-{index}"
    if node is not None:
        spec["nodeName"] = node_name(fleet, node)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "generateName": f"{job}-{index}-",
            "namespace": namespace,
            "uid": _uid(job, index),
            "resourceVersion": str(300000 + index),
            "creationTimestamp": STARTED,
            "labels": {
                "batch.kubernetes.io/controller-uid": uid,
                "batch.kubernetes.io/job-completion-index": str(index),
                "batch.kubernetes.io/job-name": job,
                "controller-uid": uid,
                "job-name": job,
                "jobset.sigs.k8s.io/jobset-name": jobset,
                "jobset.sigs.k8s.io/replicatedjob-name": "workers",
            },
            "annotations": {"batch.kubernetes.io/job-completion-index": str(index)},
            "ownerReferences": [
                {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "name": job,
                    "uid": uid,
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
            "managedFields": _managed("kube-controller-manager", {"f:metadata": {"f:labels": {}}}),
        },
        "spec": spec,
        "status": (  # after the node's DaemonSet pods
            _running_status(node, len(DAEMONSETS), spec["containers"]) if node is not None else {"phase": "Pending"}
        ),
    }


def job(namespace: str, name: str, jobset: str, size: int, uid: str, active: int) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": uid,
            "creationTimestamp": STARTED,
            "labels": {"jobset.sigs.k8s.io/jobset-name": jobset},
        },
        "spec": {
            "parallelism": size,
            "completions": size,
            "completionMode": "Indexed",
            "backoffLimit": 0,
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}},
            "template": {
                "metadata": {"labels": {"batch.kubernetes.io/controller-uid": uid, "job-name": name}},
                "spec": {"containers": [{"name": "trainer", "image": "us-docker.pkg.dev/fleet/train/trainer:v3"}]},
            },
        },
        "status": {"active": active, "startTime": STARTED},
    }


def daemonset(fleet: Fleet, ds: int) -> dict[str, Any]:
    ds_name, cpu, memory = DAEMONSETS[ds]
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": ds_name, "namespace": "kube-system", "uid": _uid("daemonset", ds), "generation": 3},
        "spec": {
            "selector": {"matchLabels": {"k8s-app": ds_name}},
            "template": {
                "metadata": {"labels": {"k8s-app": ds_name}},
                "spec": {
                    "containers": [
                        {
                            "name": ds_name,
                            "image": f"gke.gcr.io/{ds_name}:v1.4.2",
                            "resources": {"requests": {"cpu": cpu, "memory": memory}, "limits": {"memory": memory}},
                        }
                    ],
                    "hostNetwork": True,
                    "nodeSelector": {"kubernetes.io/os": "linux"},
                    "priorityClassName": "system-node-critical",
                    "tolerations": [{"operator": "Exists"}],
                },
            },
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}},
        },
        "status": {
            "currentNumberScheduled": fleet.nodes,
            "desiredNumberScheduled": fleet.nodes,
            "numberAvailable": fleet.nodes,
            "numberMisscheduled": 0,
            "numberReady": fleet.nodes,
            "observedGeneration": 3,
            "updatedNumberScheduled": fleet.nodes,
        },
    }


def pending_pod(fleet: Fleet, owner: int, i: int) -> dict[str, Any]:
    """One of the Pending pods: owners in thirds ask for a GPU with no GPU free, run on CPU
    without tolerating the GPU taint, or select a node pool that does not exist."""
    kind = owner % 3
    app = f"{('infer', 'etl', 'spot')[kind]}-{owner}"
    requests, limits = {"cpu": "4", "memory": "32Gi"}, {}
    spec: dict[str, Any] = {"tolerations": list(DEFAULT_TOLERATIONS)}
    if kind != 1:
        requests[GPU] = limits[GPU] = "1"
        spec["tolerations"].append(dict(GPU_TOLERATION))
    if kind == 2:
        key = "cloud.google.com/gke-nodepool" if fleet.cloud == "gke" else "eks.amazonaws.com/nodegroup"
        spec["nodeSelector"] = {key: "spot-pool"}
    template_hash = f"{owner:04x}c8d9f6"
    name = f"{app}-{template_hash}-{_suffix(i)}"
    access = _access_name(name)
    spec |= {
        "containers": [_container("main", f"us-docker.pkg.dev/fleet/{app}:v1", requests, limits, access)],
        "priority": 0,
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "serviceAccountName": "default",
        "volumes": [_access_volume(access)],
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": f"team-{owner % 5}",
            "uid": _uid("pending", i),
            "creationTimestamp": STARTED,
            "labels": {"app": app, "pod-template-hash": template_hash},
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": f"{app}-{template_hash}",
                    "uid": _uid("replicaset", owner),
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": spec,
        "status": {"phase": "Pending", "qosClass": "Burstable"},
    }


def gang_condition_message(nodes: int) -> str:
    """kube-scheduler's message on the gang's Pending pod when the cluster had NODES nodes: every
    node is full of GPUs, CPU and memory, and no pod of lower priority runs (DynamicResources'
    PostFilter speaks first)."""
    return (
        f"0/{nodes} nodes are available: {nodes} Insufficient cpu, {nodes} Insufficient memory, "
        f"{nodes} Insufficient {GPU}. no new claims to deallocate, preemption: 0/{nodes} nodes are available: "
        f"{nodes} No preemption victims found for incoming pod."
    )


def _namespace(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}},
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }


def _queued(fleet: Fleet, item: dict[str, Any], first: int, jobs: list[tuple[dict[str, Any], int]]) -> dict[str, Any]:
    """ITEM, a training Job whose first pod is on node FIRST; with Kueue, queued and kept in JOBS."""
    if fleet.kueue:
        from benchmarks.fleetkueue import queued_job

        jobs.append((queued_job(fleet, item, first), first))
    return item


def _training(fleet: Fleet, jobs: list[tuple[dict[str, Any], int]]) -> Iterator[dict[str, Any]]:
    """The gang's Job (all but its last pod bound), then Jobs of `job_size` filling the other nodes."""
    gang_job, gang_uid = f"{GANG_JOBSET}-workers-0", _uid("job", 0)
    gang = min(fleet.gang, fleet.nodes + 1)
    yield _queued(fleet, job(GANG_NAMESPACE, gang_job, GANG_JOBSET, gang, gang_uid, gang), 0, jobs)
    for index in range(gang):
        bound = index < gang - 1
        pod = training_pod(fleet, GANG_NAMESPACE, gang_job, GANG_JOBSET, index, gang_uid, index if bound else None)
        if not bound:
            pod["status"]["conditions"] = [
                {
                    "type": "PodScheduled",
                    "status": "False",
                    "reason": "Unschedulable",
                    # Written when the fleet had one node more: a 65,000-node fleet's nodes come and
                    # go every minute, and a node's deletion does not retry an unschedulable pod.
                    "message": gang_condition_message(fleet.nodes + 1),
                    "lastProbeTime": None,
                    "lastTransitionTime": STARTED,
                }
            ]
        yield pod
    first, j = gang - 1, 1
    while first < fleet.nodes:
        size = min(fleet.job_size, fleet.nodes - first)
        name, uid = f"finetune-{j}-workers-0", _uid("job", j)
        yield _queued(fleet, job("research", name, f"finetune-{j}", size, uid, size), first, jobs)
        for index in range(size):
            yield training_pod(fleet, "research", name, f"finetune-{j}", index, uid, first + index)
        first, j = first + size, j + 1


def items(fleet: Fleet) -> Iterator[dict[str, Any]]:
    """Every object of the fleet, nodes first, as `kubectl get nodes,namespaces,daemonsets,jobs,pods -A`
    (with Kueue, then Kueue's own command's: the suspended Jobs, flavors, queues and Workloads)."""
    for i in range(fleet.nodes):
        yield node(fleet, i)
    for ns in ("default", "kube-system", GANG_NAMESPACE, "research", *(f"team-{k}" for k in range(5))):
        yield _namespace(ns)
    for ds in range(len(DAEMONSETS)):
        yield daemonset(fleet, ds)
    for ds in range(len(DAEMONSETS)):
        for i in range(fleet.nodes):
            yield daemon_pod(fleet, ds, i)
    jobs: list[tuple[dict[str, Any], int]] = []
    yield from _training(fleet, jobs)
    for i in range(fleet.pending):
        yield pending_pod(fleet, i % fleet.owners, i)
    if fleet.kueue:
        from benchmarks import fleetkueue

        yield from fleetkueue.suspended_jobs(fleet)
        yield from fleetkueue.items(fleet, jobs)


def write(fleet: Fleet, path: Path) -> int:
    """Write the fleet to PATH as `kubectl get -o json` does (a List, four-space indents); the
    number of items."""
    encoder = msgspec.json.Encoder()
    count = 0
    with path.open("wb") as out:
        out.write(b'{\n    "apiVersion": "v1",\n    "items": [\n')
        for item in items(fleet):
            if count:
                out.write(b",\n")
            text = msgspec.json.format(encoder.encode(item), indent=4)
            out.write(b"        " + text.replace(b"\n", b"\n        "))
            count += 1
        out.write(b'\n    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n')
    return count
