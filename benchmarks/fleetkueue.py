"""Kueue on the AI fleet (`benchmarks/fleet.py` with `--kueue`): what `kubectl get
resourceflavors,cohorts,clusterqueues,localqueues,workloads -A -o json` adds to the dump.

- a ResourceFlavor per node pool (the pool's node label; the GPU taint its nodes carry);
- a Cohort `fleet` and, in it, a ClusterQueue per team: `llm` (the gang's) and `research-T`, one per
  POOLS_PER_TEAM pools (the fine-tuning Jobs', by the pool of each Job's first node; a ClusterQueue
  lists at most 64 flavors), each with a cpu, memory and nvidia.com/gpu group whose nominal quota in
  each pool's flavor is what its running Jobs use there: the pools' GPUs, CPU and memory divided
  between the teams, every quota used up;
- a LocalQueue per ClusterQueue, in its Jobs' namespace; the training Jobs labelled
  `kueue.x-k8s.io/queue-name` (their template with the trainer's requests, as the Workload copies
  it), each with its admitted Workload (status.admission, QuotaReserved and Admitted, as Kueue
  v0.20 writes them), named as Kueue names it; the gang's Job is admitted too (its last pod is
  still Unschedulable: the quota holds it, the nodes do not);
- SUSPENDED suspended Jobs in `research-0`'s queue, each with its pending Workload (QuotaReserved
  False, WaitingForQuota: the quota is used up, and the cohort has none to lend).
"""

from __future__ import annotations

import copy
import zlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from podwhy.cluster.kueue.jobframework import JOB_GVK, workload_name

if TYPE_CHECKING:
    from benchmarks.fleet import Fleet

KUEUE = "kueue.x-k8s.io/v1beta2"
QUEUE_NAME = "kueue.x-k8s.io/queue-name"
GPU = "nvidia.com/gpu"
COHORT = "fleet"
POOLS_PER_TEAM = 16
SUSPENDED = 4  # suspended Jobs whose Workloads wait for quota
SUSPENDED_PODS = 4  # pods of each (fewer than any of research-0's flavors holds at 1,000-node pools)
SUSPENDED_NAMESPACE = "research"
SUSPENDED_JOB = "sweep-0-workers-0"  # the one explain is timed on
QUEUED = "2026-01-01T02:00:00Z"
# Kueue v0.20's words (pkg/workload/admissionchecks.go, pkg/scheduler/scheduler.go).
QUOTA_RESERVED_MESSAGE = "Quota reserved in ClusterQueue {}"
ADMITTED_MESSAGE = "The workload is admitted"
# The pending Workloads' recorded condition: the flavor assigner's message (Assignment.Message), its
# reasons for every resource and flavor tried sorted (Status.Message).
PENDING_MESSAGE = "couldn't assign flavors to pod set main: {}"
INSUFFICIENT_UNUSED = "insufficient unused quota for {} in flavor {}, {} more needed"


def cluster_queue_of(fleet: Fleet, namespace: str, first_node: int) -> str:
    """The ClusterQueue (and LocalQueue) of a training Job of NAMESPACE whose first pod is on FIRST_NODE."""
    if namespace != "research":
        return namespace
    return f"research-{first_node // fleet.pool_size // POOLS_PER_TEAM}"


# The template's token volume: a Job's template names it as its pods did before stop 45 (each pod's
# own is named by the ServiceAccount admission plugin, benchmarks/fleet.py _access_name).
TEMPLATE_ACCESS = "kube-api-access"


def queued_job(fleet: Fleet, item: dict[str, Any], first_node: int, suspend: bool = False) -> dict[str, Any]:
    """ITEM, a training Job of the fleet, as Kueue's Job integration has it: labelled with its
    queue, its template the trainer's (the requests the Workload counts)."""
    from benchmarks.fleet import _training_spec

    meta = item["metadata"]
    meta["labels"][QUEUE_NAME] = cluster_queue_of(fleet, meta["namespace"], first_node)
    item["spec"]["suspend"] = suspend
    item["spec"]["template"]["spec"] = _training_spec(fleet, TEMPLATE_ACCESS)
    return item


def _usage(count: int, requests: dict[str, str]) -> dict[str, str]:
    return {
        "cpu": str(int(requests["cpu"]) * count),
        "memory": f"{int(requests['memory'][:-2]) * count}Gi",
        GPU: str(int(requests[GPU]) * count),
    }


def workload(
    job: dict[str, Any], flavor: str | None, requests: dict[str, str], tried: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The Workload Kueue makes of JOB; admitted in FLAVOR, or pending when FLAVOR is None, every
    flavor TRIED used up."""
    meta = job["metadata"]
    count = job["spec"]["parallelism"]
    queue, cq = meta["labels"][QUEUE_NAME], meta["labels"][QUEUE_NAME]
    usage = _usage(count, requests)
    created = meta["creationTimestamp"]
    if flavor is not None:
        conditions = [
            _condition("QuotaReserved", "True", "QuotaReserved", QUOTA_RESERVED_MESSAGE.format(cq), created),
            _condition("Admitted", "True", "Admitted", ADMITTED_MESSAGE, created),
        ]
    else:
        reasons = sorted(INSUFFICIENT_UNUSED.format(r, f, q) for f in tried for r, q in usage.items())
        message = PENDING_MESSAGE.format(", ".join(reasons))
        conditions = [_condition("QuotaReserved", "False", "WaitingForQuota", message, created)]
    status: dict[str, Any] = {"conditions": conditions}
    if flavor is not None:
        status["admission"] = {
            "clusterQueue": cq,
            "podSetAssignments": [
                {
                    "name": "main",
                    "count": count,
                    "flavors": {"cpu": flavor, "memory": flavor, GPU: flavor},
                    "resourceUsage": usage,
                }
            ],
        }
    status["resourceRequests"] = [{"name": "main", "resources": usage}]
    return {
        "apiVersion": KUEUE,
        "kind": "Workload",
        "metadata": {
            "name": workload_name(meta["name"], meta["uid"], JOB_GVK),
            "namespace": meta["namespace"],
            "uid": f"{meta['uid'][:-12]}{int(meta['uid'][-12:], 16) + 0x800000000000:012x}",
            "creationTimestamp": created,
            "resourceVersion": "1",
            "generation": 1,
            "labels": {"kueue.x-k8s.io/job-uid": meta["uid"]},
            "ownerReferences": [
                {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "name": meta["name"],
                    "uid": meta["uid"],
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
            "finalizers": ["kueue.x-k8s.io/resource-in-use"],
        },
        "spec": {
            "active": True,
            "queueName": queue,
            "priority": 0,
            "podSets": [{"name": "main", "count": count, "template": copy.deepcopy(job["spec"]["template"])}],
        },
        "status": status,
    }


def _condition(cond_type: str, status: str, reason: str, message: str, when: str) -> dict[str, Any]:
    return {
        "type": cond_type,
        "status": status,
        "reason": reason,
        "message": message,
        "lastTransitionTime": when,
        "observedGeneration": 1,
    }


def flavor(fleet: Fleet, pool: int) -> dict[str, Any]:
    from benchmarks.fleet import GPU_TAINT, _pool_name

    key = "cloud.google.com/gke-nodepool" if fleet.cloud == "gke" else "eks.amazonaws.com/nodegroup"
    name = _pool_name(fleet, pool)
    return {
        "apiVersion": KUEUE,
        "kind": "ResourceFlavor",
        "metadata": {"name": name, "uid": f"f1a40000-0000-4000-8000-{pool:012x}", "creationTimestamp": QUEUED},
        "spec": {"nodeLabels": {key: name}, "nodeTaints": [dict(GPU_TAINT)]},
    }


def cluster_queue(fleet: Fleet, name: str, quota: dict[int, int], requests: dict[str, str]) -> dict[str, Any]:
    """ClusterQueue NAME of the cohort, its nominal quota in each pool's flavor QUOTA's pods' worth."""
    from benchmarks.fleet import _pool_name

    flavors = [
        {
            "name": _pool_name(fleet, pool),
            "resources": [{"name": r, "nominalQuota": q} for r, q in _usage(pods, requests).items()],
        }
        for pool, pods in sorted(quota.items())
    ]
    return {
        "apiVersion": KUEUE,
        "kind": "ClusterQueue",
        "metadata": {
            "name": name,
            "uid": f"c0e00000-0000-4000-8000-{zlib.crc32(name.encode()):012x}",
            "creationTimestamp": QUEUED,
        },
        "spec": {
            "cohortName": COHORT,
            "namespaceSelector": {},
            "queueingStrategy": "BestEffortFIFO",
            "stopPolicy": "None",
            "flavorFungibility": {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"},
            "preemption": {
                "reclaimWithinCohort": "Never",
                "withinClusterQueue": "Never",
                "borrowWithinCohort": {"policy": "Never"},
            },
            "resourceGroups": [{"coveredResources": ["cpu", "memory", GPU], "flavors": flavors}],
        },
        "status": {"conditions": [_condition("Active", "True", "Ready", "Can admit new workloads", QUEUED)]},
    }


def local_queue(namespace: str, name: str) -> dict[str, Any]:
    return {
        "apiVersion": KUEUE,
        "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": namespace, "creationTimestamp": QUEUED},
        "spec": {"clusterQueue": name, "stopPolicy": "None"},
        "status": {
            "conditions": [_condition("Active", "True", "Ready", "Can submit new workloads to localQueue", QUEUED)]
        },
    }


def suspended_jobs(fleet: Fleet) -> Iterator[dict[str, Any]]:
    """The suspended Jobs waiting in research-0's queue."""
    from benchmarks.fleet import _uid, job

    for k in range(SUSPENDED):
        name, uid = f"sweep-{k}-workers-0", _uid("job", 1_000_000 + k)
        item = job(SUSPENDED_NAMESPACE, name, f"sweep-{k}", SUSPENDED_PODS, uid, 0)
        item["metadata"]["creationTimestamp"] = QUEUED
        item["status"] = {}
        yield queued_job(fleet, item, 0, suspend=True)


def items(fleet: Fleet, jobs: list[tuple[dict[str, Any], int]]) -> Iterator[dict[str, Any]]:
    """Kueue's objects for the fleet whose training JOBS (each with its first node) were written."""
    from benchmarks.fleet import TRAINING_REQUESTS, _pool_name

    quota: dict[str, dict[int, int]] = {"research-0": {}}
    queues: dict[str, str] = {SUSPENDED_NAMESPACE: "research-0"}
    for item, first in jobs:
        meta = item["metadata"]
        cq = meta["labels"][QUEUE_NAME]
        pool = first // fleet.pool_size
        quota.setdefault(cq, {})
        quota[cq][pool] = quota[cq].get(pool, 0) + item["spec"]["parallelism"]
        queues.setdefault(cq, meta["namespace"])
    if not quota["research-0"]:
        quota["research-0"] = {0: 0}
    for pool in range(fleet.pools):
        yield flavor(fleet, pool)
    yield {"apiVersion": KUEUE, "kind": "Cohort", "metadata": {"name": COHORT, "creationTimestamp": QUEUED}, "spec": {}}
    for cq in sorted(quota):
        yield cluster_queue(fleet, cq, quota[cq], TRAINING_REQUESTS)
    for cq in sorted(quota):
        yield local_queue(queues[cq], cq)
    for item, first in jobs:
        yield workload(item, _pool_name(fleet, first // fleet.pool_size), TRAINING_REQUESTS)
    tried = tuple(_pool_name(fleet, pool) for pool in sorted(quota["research-0"]))
    for item in suspended_jobs(fleet):
        yield workload(item, None, TRAINING_REQUESTS, tried)
