"""Kueue benchmark (issue 37): `pending -A` and `explain workload/NAME` on a large batch cluster.

    python -m benchmarks.kueue [--nodes 2000] [--cluster-queues 200] [--cohorts 20]
                               [--admitted 50000] [--pending 10000] [--keep PATH]

Generates a `kubectl get namespaces,nodes,jobs -A -o json` plus `kubectl get
resourceflavors,cohorts,clusterqueues,localqueues,workloads -A -o json`-shaped List: GPU nodes in
pools (h100, a100, l4 and a CPU pool, the GPU ones tainted), a ResourceFlavor per pool,
CLUSTER_QUEUES ClusterQueues in COHORTS Cohorts (two parent Cohorts above them), each with a
cpu/memory resource group (on-demand and spot flavors) and, for most, an nvidia.com/gpu group of
two GPU flavors; some with borrowing limits, some with lending limits, one stopped. Two
LocalQueues per ClusterQueue; ADMITTED Workloads (status.admission with each pod set's flavors,
resourceUsage and count, QuotaReserved, Admitted and PodsReady conditions) of running Jobs, and
PENDING Workloads of suspended Jobs (queue-name label; QuotaReserved=False recorded) of every
kind of wait: short of quota, fitting, behind others, an untolerated flavor taint, more than the
ClusterQueue can ever hold, a missing LocalQueue, a stopped ClusterQueue.

Then, in a child process (import, load, then each command on the loaded snapshot, as the CLI
runs it), prints the load time, `pending -A`'s time after load and `explain workload/NAME`'s (the
pending Workload at the back of its ClusterQueue's queue, so that every Workload ahead is
counted), and, as separate processes, both commands end to end as a user runs them
(`podwhy pending -A --from DUMP --complete`), beside a bare `json.load` of the dump.
Targets: `pending -A` <= 10 s end to end; explain one Workload <= 1 s after load.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

KUEUE = "kueue.x-k8s.io/v1beta2"
QUEUE_NAME = "kueue.x-k8s.io/queue-name"
GPU = "nvidia.com/gpu"
POOL_LABEL = "cloud.example.com/gpu-pool"
# (pool, share of the nodes in tenths, GPUs per node, cpu, memory)
POOLS = (
    ("h100", 3, 8, "192", "2048Gi"),
    ("a100", 3, 8, "96", "1152Gi"),
    ("l4", 3, 4, "48", "192Gi"),
    ("cpu", 1, 0, "64", "256Gi"),
)
CPU_FLAVORS = ("on-demand", "spot")
# The GPU flavors a ClusterQueue's gpu group lists, by its cohort's parity.
GPU_FLAVOR_PAIRS = (("h100", "a100"), ("a100", "l4"))
CREATED = "2026-03-02T09:00:00Z"
QUEUES_PER_CQ = 2
NAMESPACES_PER_CQ = 0.5  # two ClusterQueues' LocalQueues share a namespace
STOPPED_CQ = 3  # this ClusterQueue is stopped (stopPolicy Hold): its Workloads are blocked
MISSING_QUEUE_EVERY = 997  # every so many pending Workloads name a LocalQueue that does not exist


def _ts(seconds: int) -> str:
    day, rest = divmod(seconds, 86400)
    hour, rest = divmod(rest, 3600)
    minute, second = divmod(rest, 60)
    return f"2026-03-{2 + day % 26:02d}T{hour:02d}:{minute:02d}:{second:02d}Z"


def _namespace(cq: int) -> str:
    return f"team-{int(cq * NAMESPACES_PER_CQ)}"


def _node(i: int, pool: str, gpus: int, cpu: str, memory: str) -> dict[str, Any]:
    name = f"gpu-{pool}-{i:05d}"
    zone = f"us-central1-{'abc'[i % 3]}"
    allocatable = {"cpu": cpu, "memory": memory, "pods": "110", "ephemeral-storage": "1844468203846"}
    taints: list[dict[str, str]] = []
    if gpus:
        allocatable[GPU] = str(gpus)
        taints.append({"key": GPU, "value": "present", "effect": "NoSchedule"})
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": f"0000-node-{i:06d}",
            "resourceVersion": str(1000 + i),
            "creationTimestamp": CREATED,
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "topology.kubernetes.io/zone": zone,
                POOL_LABEL: pool,
            },
        },
        "spec": {"taints": taints, "providerID": f"gce://bench/{zone}/{name}"},
        "status": {
            "allocatable": allocatable,
            "capacity": dict(allocatable),
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True",
                    "reason": "KubeletReady",
                    "message": "kubelet is posting ready status",
                    "lastHeartbeatTime": CREATED,
                    "lastTransitionTime": CREATED,
                }
            ],
            "nodeInfo": {"kubeletVersion": "v1.35.4", "containerRuntimeVersion": "containerd://2.0.2"},
        },
    }


def nodes(count: int) -> list[dict[str, Any]]:
    out = []
    i = 0
    for pool, tenths, gpus, cpu, memory in POOLS:
        for _ in range(max(1, count * tenths // 10)):
            if i < count:
                out.append(_node(i, pool, gpus, cpu, memory))
                i += 1
    return out


def flavors() -> list[dict[str, Any]]:
    out = []
    for name in CPU_FLAVORS:
        labels = {"cloud.example.com/capacity": name}
        out.append(
            {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": {"nodeLabels": labels}}
        )
    for pool, _, gpus, _, _ in POOLS:
        if gpus:
            spec = {
                "nodeLabels": {POOL_LABEL: pool},
                "nodeTaints": [{"key": GPU, "value": "present", "effect": "NoSchedule"}],
            }
            out.append({"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": pool}, "spec": spec})
    return out


def cohorts(count: int) -> list[dict[str, Any]]:
    """COUNT Cohorts, half under each of two parents; the parents hold a little GPU quota of their own."""
    parents = [
        {
            "apiVersion": KUEUE,
            "kind": "Cohort",
            "metadata": {"name": name},
            "spec": {
                "resourceGroups": [
                    {
                        "coveredResources": [GPU],
                        "flavors": [{"name": f, "resources": [{"name": GPU, "nominalQuota": "16"}]} for f in pair],
                    }
                ]
            },
        }
        for name, pair in (("org-research", GPU_FLAVOR_PAIRS[0]), ("org-prod", GPU_FLAVOR_PAIRS[1]))
    ]
    children = [
        {
            "apiVersion": KUEUE,
            "kind": "Cohort",
            "metadata": {"name": f"cohort-{c}"},
            "spec": {"parentName": "org-research" if c % 2 == 0 else "org-prod"},
        }
        for c in range(count)
    ]
    return parents + children


def _quota(name: str, nominal: str, borrowing: str | None = None, lending: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "nominalQuota": nominal}
    if borrowing is not None:
        out["borrowingLimit"] = borrowing
    if lending is not None:
        out["lendingLimit"] = lending
    return out


def cluster_queue(i: int, cohort_count: int) -> dict[str, Any]:
    cohort = i % cohort_count
    lend = "200" if i % 4 == 1 else None
    groups: list[dict[str, Any]] = [
        {
            "coveredResources": ["cpu", "memory"],
            "flavors": [
                {"name": "on-demand", "resources": [_quota("cpu", "700", lending=lend), _quota("memory", "5600Gi")]},
                {"name": "spot", "resources": [_quota("cpu", "300"), _quota("memory", "2400Gi")]},
            ],
        }
    ]
    if i % 10 != 9:  # one in ten is CPU only
        borrow = "16" if i % 3 == 0 else None
        gpu_lend = "8" if i % 5 == 2 else None
        pair = GPU_FLAVOR_PAIRS[cohort % 2]
        groups.append(
            {
                "coveredResources": [GPU],
                "flavors": [{"name": f, "resources": [_quota(GPU, "48", borrow, gpu_lend)]} for f in pair],
            }
        )
    return {
        "apiVersion": KUEUE,
        "kind": "ClusterQueue",
        "metadata": {"name": f"cq-{i}", "uid": f"0000-cq-{i:04d}", "creationTimestamp": CREATED},
        "spec": {
            "cohortName": f"cohort-{cohort}",
            "namespaceSelector": {},
            "queueingStrategy": "StrictFIFO" if i % 7 == 0 else "BestEffortFIFO",
            "stopPolicy": "Hold" if i == STOPPED_CQ else "None",
            "flavorFungibility": {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"},
            "preemption": {
                "reclaimWithinCohort": "Never",
                "withinClusterQueue": "Never",
                "borrowWithinCohort": {"policy": "Never"},
            },
            "resourceGroups": groups,
        },
        "status": {
            "conditions": [
                {
                    "type": "Active",
                    "status": "False" if i == STOPPED_CQ else "True",
                    "reason": "Stopped" if i == STOPPED_CQ else "Ready",
                    "message": "Can't admit new workloads: is stopped"
                    if i == STOPPED_CQ
                    else "Can admit new workloads",
                    "lastTransitionTime": CREATED,
                }
            ]
        },
    }


def local_queues(cq_count: int) -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": KUEUE,
            "kind": "LocalQueue",
            "metadata": {"name": f"lq-{i}-{q}", "namespace": _namespace(i), "creationTimestamp": CREATED},
            "spec": {"clusterQueue": f"cq-{i}", "stopPolicy": "None"},
        }
        for i in range(cq_count)
        for q in range(QUEUES_PER_CQ)
    ]


def namespaces(cq_count: int) -> list[dict[str, Any]]:
    names = sorted({_namespace(i) for i in range(cq_count)})
    return [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": n, "labels": {"kubernetes.io/metadata.name": n}},
            "status": {"phase": "Active"},
        }
        for n in names
    ]


def _shape(position: int, gpu_cq: bool) -> tuple[dict[str, str], int, bool]:
    """The per-pod requests, pod count and whether it tolerates the GPU taint of the pending
    Workload at POSITION (in its ClusterQueue's share)."""
    kind = position % 10
    if not gpu_cq or kind in (6, 7):  # CPU only: most fit
        return {"cpu": "4", "memory": "16Gi"}, 2, True
    if kind == 8:  # no toleration: no GPU flavor's taint is tolerated
        return {"cpu": "8", "memory": "64Gi", GPU: "1"}, 1, False
    if kind == 9:  # more than the ClusterQueue could ever hold, even borrowing
        return {"cpu": "16", "memory": "128Gi", GPU: "8"}, 40, True
    return {"cpu": "16", "memory": "128Gi", GPU: "8"}, 1 + position % 4, True


def _job(
    name: str,
    namespace: str,
    queue: str,
    requests: dict[str, str],
    count: int,
    tolerate: bool,
    suspend: bool,
    serial: int,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [
            {
                "name": "trainer",
                "image": "registry.example.com/ml/trainer:2.3",
                "args": ["--epochs", "10"],
                "resources": {"requests": dict(requests), "limits": {k: v for k, v in requests.items() if k == GPU}},
            }
        ],
        "restartPolicy": "Never",
    }
    if tolerate:
        spec["tolerations"] = [{"key": GPU, "operator": "Exists", "effect": "NoSchedule"}]
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": f"0000-job-{serial:08d}",
            "labels": {QUEUE_NAME: queue},
            "creationTimestamp": _ts(serial),
            "resourceVersion": str(50000 + serial),
        },
        "spec": {
            "parallelism": count,
            "completions": count,
            "completionMode": "NonIndexed",
            "suspend": suspend,
            "backoffLimit": 6,
            "template": {"metadata": {"labels": {"app": name}}, "spec": spec},
        },
        "status": {} if suspend else {"active": count, "startTime": _ts(serial + 60)},
    }


def _workload(
    job: dict[str, Any], conditions: list[dict[str, Any]], priority: int, admission: dict[str, Any] | None
) -> dict[str, Any]:
    meta = job["metadata"]
    name, count = meta["name"], job["spec"]["parallelism"]
    template = job["spec"]["template"]
    requests = template["spec"]["containers"][0]["resources"]["requests"]
    total = {r: _times(v, count) for r, v in requests.items()}
    status: dict[str, Any] = {"conditions": conditions, "resourceRequests": [{"name": "main", "resources": total}]}
    if admission is not None:
        status["admission"] = admission
    return {
        "apiVersion": KUEUE,
        "kind": "Workload",
        "metadata": {
            "name": f"job-{name}-{int(meta['uid'][-8:]) % 99991:05x}",
            "namespace": meta["namespace"],
            "uid": f"wl-{meta['uid']}",
            "creationTimestamp": meta["creationTimestamp"],
            "resourceVersion": meta["resourceVersion"],
            "labels": {"kueue.x-k8s.io/job-uid": meta["uid"]},
            "ownerReferences": [
                {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "name": name,
                    "uid": meta["uid"],
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
            "finalizers": ["kueue.x-k8s.io/resource-in-use"],
        },
        "spec": {
            "active": True,
            "queueName": meta["labels"][QUEUE_NAME],
            "priority": priority,
            "podSets": [{"name": "main", "count": count, "template": template}],
        },
        "status": status,
    }


def _times(quantity: str, count: int) -> str:
    if quantity.endswith("Gi"):
        return f"{int(quantity[:-2]) * count}Gi"
    return str(int(quantity) * count)


def _condition(cond_type: str, status: str, reason: str, message: str, serial: int) -> dict[str, Any]:
    return {
        "type": cond_type,
        "status": status,
        "reason": reason,
        "message": message,
        "lastTransitionTime": _ts(serial + 30),
    }


def admitted(count: int, cq_count: int, cohort_count: int) -> list[dict[str, Any]]:
    """COUNT running Jobs and their admitted Workloads, spread over the ClusterQueues: seven in ten
    CPU-only (on-demand, every third spot), the rest one or two GPUs in the ClusterQueue's flavors
    (more GPUs than its nominal quota: it borrows, and its cohort is short)."""
    out = []
    for j in range(count):
        cq, position = j % cq_count, j // cq_count
        gpu = cq % 10 != 9 and position % 10 >= 7
        requests = {"cpu": "8", "memory": "64Gi", GPU: str(1 + position % 2)} if gpu else {"cpu": "2", "memory": "8Gi"}
        queue = f"lq-{cq}-{position % QUEUES_PER_CQ}"
        job = _job(f"run-{cq}-{j}", _namespace(cq), queue, requests, 1, gpu, False, j)
        cpu_flavor = CPU_FLAVORS[1 if position % 3 == 0 else 0]
        assigned = {"cpu": cpu_flavor, "memory": cpu_flavor}
        if gpu:
            assigned[GPU] = GPU_FLAVOR_PAIRS[cq % cohort_count % 2][position // 2 % 2]
        admission = {
            "clusterQueue": f"cq-{cq}",
            "podSetAssignments": [{"name": "main", "count": 1, "flavors": assigned, "resourceUsage": dict(requests)}],
        }
        conditions = [
            _condition("QuotaReserved", "True", "QuotaReserved", f"Quota reserved in ClusterQueue cq-{cq}", j),
            _condition("Admitted", "True", "Admitted", "The workload is admitted", j),
            _condition("PodsReady", "True", "Started", "All pods reached readiness and the workload is running", j),
        ]
        out += [job, _workload(job, conditions, (position % 3) * 100, admission)]
    return out


# What a pending Workload records (the message of an earlier cycle: it may be stale).
RECORDED_MESSAGE = (
    "couldn't assign flavors to pod set main: insufficient unused quota for {} in flavor {}, {} more needed"
)


def pending(count: int, cq_count: int, cohort_count: int, serial0: int) -> tuple[list[dict[str, Any]], str]:
    """COUNT suspended Jobs and their pending Workloads, spread over the ClusterQueues, and the
    namespace/name of the one at the back of cq-1's queue (lowest priority, newest, a GPU one)."""
    out = []
    target = ""
    for k in range(count):
        cq, position = k % cq_count, k // cq_count
        gpu_cq = cq % 10 != 9
        requests, pods, tolerate = _shape(position, gpu_cq)
        missing = k % MISSING_QUEUE_EVERY == MISSING_QUEUE_EVERY - 1
        queue = "lq-missing" if missing else f"lq-{cq}-{position % QUEUES_PER_CQ}"
        serial = serial0 + k
        job = _job(f"train-{cq}-{k}", _namespace(cq), queue, requests, pods, tolerate, True, serial)
        resource = GPU if GPU in requests else "cpu"
        flavor = GPU_FLAVOR_PAIRS[cq % cohort_count % 2][0] if resource == GPU else CPU_FLAVORS[0]
        message = RECORDED_MESSAGE.format(resource, flavor, requests[resource])
        conditions = [_condition("QuotaReserved", "False", "Pending", message, serial)]
        priority = position % 3 * 100
        wl = _workload(job, conditions, priority, None)
        out += [job, wl]
        if cq == 1 % cq_count and priority == 0 and position % 10 < 6 and not missing:
            target = f"{wl['metadata']['namespace']}/{wl['metadata']['name']}"
    return out, target


def build(
    node_count: int, cq_count: int, cohort_count: int, admitted_count: int, pending_count: int
) -> tuple[dict[str, Any], str]:
    """The dump, and the namespace/name of the Workload explain is timed on."""
    items: list[dict[str, Any]] = [*namespaces(cq_count), *nodes(node_count), *flavors(), *cohorts(cohort_count)]
    items += [cluster_queue(i, cohort_count) for i in range(cq_count)]
    items += local_queues(cq_count)
    items += admitted(admitted_count, cq_count, cohort_count)
    held, target = pending(pending_count, cq_count, cohort_count, admitted_count)
    items += held
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}, target


CHILD = """
import hashlib, json, resource, sys, time
t0 = time.perf_counter()
import msgspec
from podwhy.engine import ExplainRequest, PendingRequest, explain, pending
from podwhy.snapshot.source import FileSource
t1 = time.perf_counter()
snapshot = FileSource([sys.argv[1]], complete=True).load()
t2 = time.perf_counter()

class Loaded:
    def load(self):
        return snapshot

namespace, name = sys.argv[2].split("/")
# explain first: nothing pending computed is at hand (as when explain runs alone).
c2 = time.process_time()
explained = explain(ExplainRequest(f"workload/{name}", namespace, Loaded()))
t3, c3 = time.perf_counter(), time.process_time()
report = pending(PendingRequest(Loaded(), None))
t4, c4 = time.perf_counter(), time.process_time()
kueue = explained.kueue
digest = hashlib.sha256(msgspec.json.encode([report.kueue, kueue])).hexdigest()[:16]
print(json.dumps({"import_s": t1 - t0, "load_s": t2 - t1, "explain_s": t3 - t2, "explain_cpu_s": c3 - c2,
                  "pending_s": t4 - t3, "pending_cpu_s": c4 - c3,
                  "workloads": len(snapshot.kueue_workloads), "cluster_queues": len(snapshot.cluster_queues),
                  "held": sum(g.count for g in report.kueue), "groups": len(report.kueue),
                  "ahead": len(kueue.ahead), "summary": kueue.summary, "digest": digest,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


# The podwhy command, as installed, in this interpreter.
PODWHY = [sys.executable, "-c", "import sys; from podwhy.cli import app; sys.argv[0] = 'podwhy'; app()"]


def _timed(command: list[str]) -> tuple[float, int]:
    """The wall time of COMMAND (its output discarded) and its exit code."""
    t = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    if done.returncode not in (0, 1):
        print(done.stderr[-2000:], file=sys.stderr)
    return time.perf_counter() - t, done.returncode


def _bare_parse(path: Path) -> float:
    t = time.perf_counter()
    with path.open() as f:
        json.load(f)
    return time.perf_counter() - t


def report(args: argparse.Namespace, path: Path, target: str, figures: dict[str, Any], walls: dict[str, float]) -> None:
    size_mib = path.stat().st_size / 2**20
    print(
        f"cluster:      {args.nodes} nodes, {figures['cluster_queues']} ClusterQueues in {args.cohorts} cohorts,"
        f" {figures['workloads']} Workloads ({args.admitted} admitted, {args.pending} pending)"
    )
    print(f"dump:         {size_mib:,.0f} MiB JSON; bare json.load {walls['parse']:.2f} s")
    print(f"load:         {figures['load_s']:.2f} s (import {figures['import_s']:.2f} s)")
    print(
        f"pending -A:   {figures['pending_s']:.2f} s after load ({figures['pending_cpu_s']:.2f} s CPU):"
        f" {figures['held']} held in {figures['groups']} groups"
    )
    print(
        f"explain:      {figures['explain_s']:.3f} s after load ({figures['explain_cpu_s']:.3f} s CPU):"
        f" workload/{target}, {figures['ahead']} ahead"
    )
    print(f"              {figures['summary']}")
    print(
        f"end to end:   pending -A {walls['pending']:.2f} s, explain {walls['explain']:.2f} s"
        " (the podwhy CLI, each its own process)"
    )
    print(f"peak memory:  {figures['peak_rss_mib']:,.0f} MiB")
    print(f"results:      {figures['digest']} (digest of pending's Kueue groups and explain's kueue object)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--cluster-queues", type=int, default=200)
    parser.add_argument("--cohorts", type=int, default=20)
    parser.add_argument("--admitted", type=int, default=50000)
    parser.add_argument("--pending", type=int, default=10000)
    parser.add_argument("--keep", type=Path, help="write the dump here and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "kueue.json"
        t = time.perf_counter()
        doc, target = build(args.nodes, args.cluster_queues, args.cohorts, args.admitted, args.pending)
        with path.open("w") as out:
            json.dump(doc, out, indent=4)
        del doc
        print(f"generated in {time.perf_counter() - t:.1f}s", file=sys.stderr)
        walls = {"parse": _bare_parse(path)}
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(path), target], capture_output=True, text=True, check=False
        )
        if out.returncode != 0:
            print(out.stderr, file=sys.stderr)
            return 1
        figures = json.loads(out.stdout)
        source = ["--from", str(path), "--complete", "-q"]
        walls["pending"], _ = _timed([*PODWHY, "pending", *source, "-A"])
        namespace, name = target.split("/")
        walls["explain"], _ = _timed([*PODWHY, "explain", *source, "-n", namespace, f"workload/{name}"])
        report(args, path, target, figures, walls)
    return 0


if __name__ == "__main__":
    sys.exit(main())
