"""`podwhy pending` benchmark: many Pending pods explained from one loaded snapshot.

    python -m benchmarks.pending [--nodes 5000] [--pods 100000] [--pending 1000] [--owners 40]
                                 [--autoscaler-groups 20]

Generates the synthetic cluster of `benchmarks.run` plus PENDING pods of OWNERS ReplicaSets
(identical replicas, as a ReplicaSet's are; `--varying N` makes the replicas of N owners all
differ, so each of them is evaluated on its own), then times loading and `pending` in a child process.
Half the owners' pods ask for 64 cpu, which no node has (their groups are told so at once), half
fit now; `--sizable N` makes N of the former ask for 14 cpu instead, which only an added node holds
(one per node), so that their groups are sized (how many nodes each needs, verified).
`--autoscaler-groups N` puts the nodes in N Cluster Autoscaler node groups (EKS labels) at their
max size and adds CA's status ConfigMap: the largest Unschedulable groups then get the
autoscalers' view too (each node group's template node filtered for their first pod).
Targets: >= 100 pending pods per second after loading; 1,000 pending pods in <= 20 s end to end.
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

from benchmarks.run import _pod, build, write

# Fits no node of the benchmark cluster (15890m allocatable), not even an empty one.
CPU_BEYOND_EVERY_NODE = "64"
# Fits no node as it is (about 12.9 cores free on each), but an empty one.
CPU_FOR_AN_EMPTY_NODE = "14"


def pending_pods(count: int, owners: int, varying: int = 0, sizable: int = 0) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(count):
        owner = i % owners
        # Replicas of one owner share its template (the seed), as a ReplicaSet's pods do.
        pod = _pod(owner * 400, None)
        pod["metadata"]["name"] = f"pending-{owner}-{i}"
        pod["metadata"]["namespace"] = f"team-{owner % 8}"
        pod["metadata"]["ownerReferences"] = [
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": f"batch-{owner}",
                "uid": f"rs-{owner}",
                "controller": True,
            }
        ]
        pod["metadata"]["labels"] = {"app": f"batch-{owner}"}
        requests = pod["spec"]["containers"][0]["resources"]["requests"]
        # Owners alternate between pods that cannot fit anywhere (or only on an added node) and pods that fit.
        big = CPU_FOR_AN_EMPTY_NODE if owner // 2 < sizable else CPU_BEYOND_EVERY_NODE
        requests["cpu"] = big if owner % 2 else "500m"
        if owner < varying:
            requests["memory"] = f"{256 + i % 97}Mi"  # replicas that differ: each is evaluated
        pod["status"] = {"phase": "Pending"}
        out.append(pod)
    return out


def autoscaled(cluster: dict[str, Any], groups: int) -> dict[str, Any]:
    """Cluster Autoscaler's status ConfigMap for GROUPS node groups, each at its max size, with the
    cluster's nodes labelled into them in turn."""
    nodes = [item for item in cluster["items"] if item["kind"] == "Node"]
    lines = ["autoscalerStatus: Running", "nodeGroups:"]
    for g in range(groups):
        members = len(nodes[g::groups])
        lines += [
            f"- name: eks-group{g}-00000000-0000-0000-0000-{g:012d}",
            "  health:",
            "    status: Healthy",
            f"    cloudProviderTarget: {members}",
            "    minSize: 1",
            f"    maxSize: {members}",
            f"    nodeCounts: {{registered: {{total: {members}, ready: {members}, notStarted: 0}}}}",
            "  scaleUp: {status: NoActivity}",
        ]
    for i, node in enumerate(nodes):
        node["metadata"].setdefault("labels", {})["eks.amazonaws.com/nodegroup"] = f"group{i % groups}"
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "cluster-autoscaler-status", "namespace": "kube-system"},
        "data": {"status": "\n".join(lines) + "\n"},
    }


CHILD = """
import json, resource, sys, time
from podwhy.engine import PendingRequest, pending
from podwhy.snapshot.source import FileSource
t = time.perf_counter()
snapshot = FileSource(sys.argv[1:], complete=True).load()
t_load = time.perf_counter() - t

class Loaded:
    def load(self):
        return snapshot

t = time.perf_counter()
report = pending(PendingRequest(Loaded(), None))
t_pending = time.perf_counter() - t
sizing = {}
for group in report.groups:
    if group.sizing is not None:
        sizing[group.sizing.outcome] = sizing.get(group.sizing.outcome, 0) + 1
nodes = [len(s.patches) for g in report.groups for s in g.suggestions]
autoscaled = sum(1 for g in report.groups if g.autoscaling is not None)
print(json.dumps({"load_s": t_load, "pending_s": t_pending, "total": report.total, "groups": len(report.groups),
                  "sizing": sizing, "nodes_suggested": nodes, "autoscaled": autoscaled,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=100000)
    parser.add_argument("--pending", type=int, default=1000)
    parser.add_argument("--owners", type=int, default=40)
    parser.add_argument(
        "--varying", type=int, default=0, help="owners whose replicas all differ (each one evaluated on its own)"
    )
    parser.add_argument(
        "--sizable", type=int, default=0, help="owners whose pods only an added node holds (their groups get sized)"
    )
    parser.add_argument(
        "--autoscaler-groups", type=int, default=0, help="Cluster Autoscaler node groups the nodes belong to"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base, extra = Path(tmp) / "cluster.json", Path(tmp) / "pending.json"
        t = time.perf_counter()
        cluster = build(args.nodes, args.pods)
        items = pending_pods(args.pending, args.owners, args.varying, args.sizable)
        if args.autoscaler_groups:
            items.append(autoscaled(cluster, args.autoscaler_groups))
        write(cluster, base, "json")
        extra.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
        print(f"generated in {time.perf_counter() - t:.1f}s", file=sys.stderr)
        t = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(base), str(extra)], capture_output=True, text=True, check=False
        )
        wall = time.perf_counter() - t
    if out.returncode != 0:
        print(out.stderr, file=sys.stderr)
        return 1
    figures = json.loads(out.stdout)
    rate = figures["total"] / figures["pending_s"] if figures["pending_s"] else float("inf")
    print(
        f"cluster:      {args.nodes} nodes, {args.pods} pods + {args.pending} pending of {args.owners} owners"
        f" ({args.varying} with replicas that all differ, {args.sizable} that only added nodes hold)"
    )
    print(f"load:         {figures['load_s']:.2f} s")
    print(f"pending:      {figures['pending_s']:.2f} s for {figures['total']} pods ({rate:,.0f} pods/s after loading)")
    print(f"groups:       {figures['groups']}")
    outcomes = ", ".join(f"{count} {outcome}" for outcome, count in sorted(figures["sizing"].items()))
    sized = figures["nodes_suggested"]
    print(f"sizing:       {outcomes or 'no Unschedulable group'}; nodes suggested per sized group: {sized}")
    if args.autoscaler_groups:
        print(f"autoscaling:  {figures['autoscaled']} groups with the view of {args.autoscaler_groups} node groups")
    print(f"end to end:   {wall:.2f} s (child process: import, load, classify)")
    print(f"peak memory:  {figures['peak_rss_mib']:,.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
