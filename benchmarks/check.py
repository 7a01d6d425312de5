"""`podwhy check` benchmark: many replicas placed one after another onto one loaded snapshot.

    python -m benchmarks.check [--nodes N] [--pods N] [--replicas 1000] [--kind Deployment|Job]

Generates the synthetic cluster of `benchmarks.run` and a manifest of one workload with REPLICAS
identical replicas (a Deployment, or an Indexed Job whose pods differ only in their completion
index), then, in a child process, loads the cluster and times `check` (placing every replica as the
scheduler would, each seeing those before it). Memory is measured as the growth of the resident
set from the loaded snapshot to the end of the check.
Without options it measures every figure of the targets in one run: a Job and a Deployment of
1,000 replicas each, on a 150-node cluster and on a 5,000-node / 150,000-pod one (a few minutes).
Targets: >= 200 replicas/s for identical replicas on a 150-node cluster, >= 50 replicas/s at 5,000
nodes; memory <= the snapshot's plus 100 MB at 1,000 replicas; a changed 1,000-replica
Deployment's whole rollout (Rollout: its old replicas run, its image changes) completes within
30 s at 5,000 nodes / 150,000 pods.
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

from benchmarks.run import build, write

CHILD = """
import json, resource, sys, time
from podwhy.engine import CheckRequest, check
from podwhy.cluster.manifests import ManifestSource
from podwhy.snapshot.source import FileSource

def rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20

snapshot = FileSource([sys.argv[1]], complete=True).load()  # the generated cluster is whole
if sys.argv[3] == "Rollout":
    # The Deployment runs already, its old replicas spread over the nodes: the manifest changes
    # its image, so its controller rolls every replica out.
    from podwhy.model import objects as o
    import msgspec
    manifest = json.loads(open(sys.argv[2]).read())
    old_hash = "0ld0ld0ld0"
    for i in range(manifest["spec"]["replicas"]):
        node = snapshot.nodes[i % len(snapshot.nodes)].metadata.name
        pod = {
            "metadata": {"name": f"bench-{old_hash}-{i}", "namespace": "default",
                         "labels": {"app": "bench", "pod-template-hash": old_hash},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                              "name": f"bench-{old_hash}", "uid": "old", "controller": True}]},
            "spec": {"nodeName": node, "containers": [{"name": "app", "image": "bench:0",
                     "resources": {"requests": {"cpu": "10m"}}}]},
            "status": {"phase": "Running"},
        }
        snapshot.pods.append(msgspec.convert(pod, o.Pod))
loaded = rss_mib()

class Loaded:
    def load(self):
        return snapshot

t = time.perf_counter()
report = check(CheckRequest(ManifestSource([sys.argv[2]]), Loaded()))
elapsed = time.perf_counter() - t
replicas = [r for w in report.workloads for r in w.replicas]
rollout = report.workloads[0].update
print(json.dumps({"check_s": elapsed, "replicas": len(replicas), "placed": sum(1 for r in replicas if r.node),
                  "rollout": rollout.status if rollout is not None else "",
                  "loaded_mib": loaded, "after_mib": rss_mib(),
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def workload(kind: str, replicas: int) -> dict[str, Any]:
    """The manifest: a Job, a Deployment, or (Rollout) the same Deployment whose old replicas run."""
    template = {
        "metadata": {"labels": {"app": "bench"}},
        "spec": {"containers": [{"name": "app", "image": "bench:1", "resources": {"requests": {"cpu": "10m"}}}]},
    }
    if kind == "Job":
        template["spec"]["restartPolicy"] = "Never"
        spec = {"completionMode": "Indexed", "completions": replicas, "parallelism": replicas, "template": template}
        return {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "bench", "namespace": "default"},
            "spec": spec,
        }
    spec = {"replicas": replicas, "selector": {"matchLabels": {"app": "bench"}}, "template": template}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "bench", "namespace": "default"},
        "spec": spec,
    }


# The targets, per configuration: replicas per second, and memory growth at 1,000 replicas.
TARGETS = {150: 200.0, 5000: 50.0}
MEMORY_TARGET_MB = 100
# What one run measures: both cluster sizes of the issue, a Job, a Deployment and a Deployment's
# rollout (its old replicas running) on each.
MATRIX = ((150, 3000), (5000, 150000))
KINDS = ("Job", "Deployment", "Rollout")
# A changed 1,000-replica Deployment's whole rollout on 5,000 nodes / 150,000 pods, in seconds.
ROLLOUT_TARGET_S = 30.0


def measure(cluster: Path, kind: str, replicas: int, tmp: Path) -> dict[str, Any]:
    """One check of one workload on the cluster file, in a child process of its own."""
    manifest = tmp / f"{kind}.json"
    manifest.write_text(json.dumps(workload(kind, replicas)))
    t = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(cluster), str(manifest), kind],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    figures: dict[str, Any] = json.loads(out.stdout)
    figures["wall_s"] = time.perf_counter() - t
    figures["rate"] = figures["replicas"] / figures["check_s"] if figures["check_s"] else float("inf")
    figures["growth_mib"] = figures["after_mib"] - figures["loaded_mib"]
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, help="one cluster of this many nodes (default: 150 and 5,000)")
    parser.add_argument("--pods", type=int, default=None, help="its pods (default: 20 per node, 30 at 5,000)")
    parser.add_argument("--replicas", type=int, default=1000)
    parser.add_argument("--kind", choices=KINDS, help="one workload kind (default: both)")
    args = parser.parse_args()
    matrix = MATRIX if args.nodes is None else ((args.nodes, args.pods or args.nodes * 20),)
    kinds = KINDS if args.kind is None else (args.kind,)
    print(f"{'cluster':<26} {'workload':<24} {'placed':>11} {'check':>8} {'replicas/s':>11} {'target':>7}  memory")
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for nodes, pods in matrix:
            cluster = Path(tmp) / f"cluster-{nodes}.json"
            write(build(nodes, pods), cluster, "json")
            for kind in kinds:
                try:
                    f = measure(cluster, kind, args.replicas, Path(tmp))
                except RuntimeError as exc:
                    print(exc, file=sys.stderr)
                    return 1
                target = TARGETS.get(nodes)
                if kind == "Rollout":
                    met = f["rollout"] == "Completes" and (nodes < 5000 or f["check_s"] <= ROLLOUT_TARGET_S)
                else:
                    met = target is None or f["rate"] >= target
                growth_mb = f["growth_mib"] * 2**20 / 1e6
                memory_met = args.replicas > 1000 or growth_mb <= MEMORY_TARGET_MB
                failed |= not (met and memory_met)
                cluster_text = f"{nodes:,} nodes, {pods:,} pods"
                placed = f"{f['placed']:,}/{f['replicas']:,}"
                print(
                    f"{cluster_text:<26} {f'{kind} of {args.replicas:,}':<24} "
                    f"{placed:>11} {f['check_s']:>7.2f}s {f['rate']:>11,.0f} "
                    f"{'-' if target is None else f'>= {target:,.0f}':>7}  "
                    f"snapshot {f['loaded_mib']:,.0f} MiB, +{growth_mb:,.0f} MB after the check "
                    f"(target <= +{MEMORY_TARGET_MB} MB), peak {f['peak_rss_mib']:,.0f} MiB"
                )
    print("every target met" if not failed else "some target missed (2-core machines under load vary)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
