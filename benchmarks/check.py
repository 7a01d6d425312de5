"""`podwhy check` benchmark: many replicas placed one after another onto one loaded snapshot.

    python -m benchmarks.check [--nodes 150] [--pods 3000] [--replicas 1000] [--kind Deployment|Job]

Generates the synthetic cluster of `benchmarks.run` and a manifest of one workload with REPLICAS
identical replicas (a Deployment, or an Indexed Job whose pods differ only in their completion
index), then, in a child process, loads the cluster and times `check` (placing every replica as the
scheduler would, each seeing those before it). Memory is measured as the growth of the resident
set from the loaded snapshot to the end of the check.
Targets: >= 200 replicas/s for identical replicas on a 150-node cluster, >= 50 replicas/s at 5,000
nodes; memory <= the snapshot's plus 100 MB at 1,000 replicas.
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
from podwhy.snapshot.manifests import ManifestSource
from podwhy.snapshot.source import FileSource

def rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20

snapshot = FileSource([sys.argv[1]], complete=True).load()  # the generated cluster is whole
loaded = rss_mib()

class Loaded:
    def load(self):
        return snapshot

t = time.perf_counter()
report = check(CheckRequest(ManifestSource([sys.argv[2]]), Loaded()))
elapsed = time.perf_counter() - t
replicas = [r for w in report.workloads for r in w.replicas]
print(json.dumps({"check_s": elapsed, "replicas": len(replicas), "placed": sum(1 for r in replicas if r.node),
                  "loaded_mib": loaded, "after_mib": rss_mib(),
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def workload(kind: str, replicas: int) -> dict[str, Any]:
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=150)
    parser.add_argument("--pods", type=int, default=3000)
    parser.add_argument("--replicas", type=int, default=1000)
    parser.add_argument("--kind", choices=["Deployment", "Job"], default="Deployment")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cluster, manifest = Path(tmp) / "cluster.json", Path(tmp) / "workload.json"
        write(build(args.nodes, args.pods), cluster, "json")
        manifest.write_text(json.dumps(workload(args.kind, args.replicas)))
        t = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(cluster), str(manifest)], capture_output=True, text=True, check=False
        )
        wall = time.perf_counter() - t
    if out.returncode != 0:
        print(out.stderr, file=sys.stderr)
        return 1
    figures = json.loads(out.stdout)
    rate = figures["replicas"] / figures["check_s"] if figures["check_s"] else float("inf")
    print(f"cluster:      {args.nodes} nodes, {args.pods} pods; one {args.kind} of {args.replicas} replicas")
    placed = f"{figures['placed']}/{figures['replicas']} placed"
    print(f"check:        {figures['check_s']:.2f} s, {placed} ({rate:,.0f} replicas/s)")
    growth = figures["after_mib"] - figures["loaded_mib"]
    print(f"memory:       snapshot {figures['loaded_mib']:,.0f} MiB, after the check +{growth:,.0f} MiB")
    print(f"peak memory:  {figures['peak_rss_mib']:,.0f} MiB")
    print(f"end to end:   {wall:.2f} s (child process: import, load, check)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
