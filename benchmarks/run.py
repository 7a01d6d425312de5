"""Load-and-explain benchmark on a synthetic cluster dump, as kubectl writes it.

    python -m benchmarks.run [--nodes 5000] [--pods 150000] [--format json|yaml] [--compare] [--keep PATH]

Generates a `kubectl get nodes,pods -A -o json`-shaped List (full-size objects with the
fields kubectl prints: managedFields, status conditions, volumes, ...), then times podwhy
loading it and explaining one Pending pod, in a child process so peak RSS is its own.
Prints the dump size, load time, explain time and peak memory.

String values that look like other types (`pod-template-hash: 5678e76978`, "0755", "1e3",
"true", "~") are in labels and annotations, as in real dumps; the YAML is written by a
YAML 1.1 writer (PyYAML), which leaves plain the ones YAML 1.1 reads as strings.
`--compare` runs the JSON and the YAML dump of the same cluster in one run and prints
both, the YAML/JSON time ratio and whether the verdicts are identical.
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

ZONES = ("eu-west-1a", "eu-west-1b", "eu-west-1c")


def _node(i: int) -> dict[str, Any]:
    name = f"ip-10-{i // 250}-{i % 250}-1.eu-west-1.compute.internal"
    zone = ZONES[i % 3]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": f"0000-node-{i:06d}",
            "resourceVersion": str(1000 + i),
            "creationTimestamp": "2026-01-01T00:00:00Z",
            "labels": {
                "podwhy.example/generation": "1e3",
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "topology.kubernetes.io/zone": zone,
                "topology.kubernetes.io/region": "eu-west-1",
                "node.kubernetes.io/instance-type": "m6i.4xlarge",
            },
            "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
        },
        "spec": {"podCIDR": f"10.{i // 250}.{i % 250}.0/24", "providerID": f"aws:///{zone}/i-{i:017x}"},
        "status": {
            "allocatable": {"cpu": "15890m", "memory": "62498Mi", "pods": "110", "ephemeral-storage": "95551679124"},
            "capacity": {"cpu": "16", "memory": "64Gi", "pods": "110", "ephemeral-storage": "104845292Ki"},
            "conditions": [
                {
                    "type": t,
                    "status": "False",
                    "reason": f"KubeletHasNo{t}",
                    "message": "ok",
                    "lastHeartbeatTime": "2026-01-01T23:53:20Z",
                    "lastTransitionTime": "2026-01-01T00:00:00Z",
                }
                for t in ("MemoryPressure", "DiskPressure", "PIDPressure")
            ],
            "images": [
                {
                    "names": [
                        f"registry.example.com/team{j}/app@sha256:{j:064x}",
                        f"registry.example.com/team{j}/app:v{j}",
                    ],
                    "sizeBytes": 50_000_000 + j * 1_000_000,
                }
                for j in range(8)
            ],
            "nodeInfo": {
                "kubeletVersion": "v1.35.4",
                "containerRuntimeVersion": "containerd://2.0.2",
                "osImage": "Ubuntu 24.04.1 LTS",
                "kernelVersion": "6.8.0-1019-aws",
            },
        },
    }


def _template_hash(app_index: int) -> str:
    """A ReplicaSet's pod-template-hash; half of them read as numbers to a YAML 1.2 reader."""
    if app_index % 2 == 0:
        return f"{5678 + app_index}e{76978 + app_index}"
    return f"{app_index:04x}d9f8c6b"


def _pod(i: int, node: str | None) -> dict[str, Any]:
    app = f"svc-{i % 400}"
    template_hash = _template_hash(i % 400)
    spec: dict[str, Any] = {
        "containers": [
            {
                "name": "app",
                "image": f"registry.example.com/team{i % 8}/app:v{i % 8}",
                "imagePullPolicy": "IfNotPresent",
                "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
                "resources": {"requests": {"cpu": "100m", "memory": "256Mi"}, "limits": {"memory": "512Mi"}},
                "env": [{"name": "LOG_LEVEL", "value": "info"}],
                "volumeMounts": [
                    {
                        "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                        "name": "kube-api-access",
                        "readOnly": True,
                    }
                ],
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
            },
            {
                "name": "sidecar",
                "image": "registry.example.com/mesh/proxy:1.22",
                "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}},
            },
        ],
        "tolerations": [
            {
                "key": "node.kubernetes.io/not-ready",
                "operator": "Exists",
                "effect": "NoExecute",
                "tolerationSeconds": 300,
            },
            {
                "key": "node.kubernetes.io/unreachable",
                "operator": "Exists",
                "effect": "NoExecute",
                "tolerationSeconds": 300,
            },
        ],
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": {"matchLabels": {"app": app, "pod-template-hash": template_hash}},
            }
        ],
        "volumes": [
            {
                "name": "kube-api-access",
                "projected": {
                    "defaultMode": 420,
                    "sources": [{"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}],
                },
            }
        ],
        "schedulerName": "default-scheduler",
        "priority": 0,
        "restartPolicy": "Always",
        "serviceAccountName": "default",
        "dnsPolicy": "ClusterFirst",
    }
    if node:
        spec["nodeName"] = node
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"{app}-{template_hash}-{i:06d}",
            "namespace": f"team-{i % 40}",
            "uid": f"0000-pod-{i:08d}",
            "resourceVersion": str(100000 + i),
            "creationTimestamp": "2026-01-01T01:00:00Z",
            "labels": {"app": app, "pod-template-hash": template_hash},
            "annotations": {
                "podwhy.example/mode": "0755",
                "podwhy.example/scale": "1e3",
                "podwhy.example/enabled": "true",
                "podwhy.example/unset": "~",
            },
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": f"{app}-{template_hash}",
                    "uid": f"rs-{i % 400}",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
            "managedFields": [
                {
                    "manager": "kube-controller-manager",
                    "operation": "Update",
                    "apiVersion": "v1",
                    "time": "2026-01-01T01:00:00Z",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}},
                }
            ],
        },
        "spec": spec,
        "status": {
            "phase": "Running" if node else "Pending",
            "conditions": [
                {"type": t, "status": "True", "lastTransitionTime": "2026-01-01T01:06:40Z"}
                for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")
            ]
            if node
            else [],
            "hostIP": "10.0.0.1" if node else None,
            "podIP": f"10.244.{i // 250 % 250}.{i % 250}" if node else None,
            "qosClass": "Burstable",
            "startTime": "2026-01-01T01:06:40Z",
        },
    }


def build(nodes: int, pods: int) -> dict[str, Any]:
    node_objs = [_node(i) for i in range(nodes)]
    names = [n["metadata"]["name"] for n in node_objs]
    items: list[Any] = list(node_objs)
    for i in range(pods - 1):
        items.append(_pod(i, names[i % nodes]))
    target = _pod(pods - 1, None)
    target["metadata"]["name"] = "target"
    target["metadata"]["namespace"] = "default"
    target["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "14"
    items.append(target)
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


def write(doc: dict[str, Any], path: Path, fmt: str) -> None:
    with path.open("w") as out:
        if fmt == "json":
            json.dump(doc, out, indent=4)
        else:
            import yaml

            yaml.dump(doc, out, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False)


CHILD = """
import json, resource, sys, time
t0 = time.perf_counter()
from podwhy.snapshot.source import FileSource
from podwhy.engine import find_pod
from podwhy.report.build.explain import build_report
from podwhy.scheduler.cycle import run_cycle
t1, c1 = time.perf_counter(), time.process_time()
snap = FileSource([sys.argv[1]], complete=True).load()
t2, c2 = time.perf_counter(), time.process_time()
exp = build_report(run_cycle(snap, find_pod(snap, "default", "target")), snap)
t3, c3 = time.perf_counter(), time.process_time()
print(json.dumps({"import_s": t1 - t0, "load_s": t2 - t1, "explain_s": t3 - t2,
                  "load_cpu_s": c2 - c1, "explain_cpu_s": c3 - c2,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "nodes": len(snap.nodes), "pods": len(snap.pods), "verdict": exp.verdict,
                  "message": exp.message}))
"""


def measure(path: Path) -> dict[str, Any] | None:
    """Load and explain the dump at PATH in a child process; its figures, or None if it failed."""
    out = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        print(out.stderr, file=sys.stderr)
        return None
    figures: dict[str, Any] = json.loads(out.stdout)
    return figures


def report(fmt: str, path: Path, figures: dict[str, Any]) -> None:
    size_mib = path.stat().st_size / 2**20
    print(f"dump:        {size_mib:,.0f} MiB {fmt} ({figures['nodes']} nodes, {figures['pods']} pods)")
    print(f"load:        {figures['load_s']:.2f} s ({figures['load_cpu_s']:.2f} s CPU)")
    explain_cpu = figures["explain_cpu_s"]
    print(f"explain:     {figures['explain_s']:.2f} s ({explain_cpu:.2f} s CPU, verdict {figures['verdict']})")
    print(f"total:       {figures['load_s'] + figures['explain_s']:.2f} s")
    print(f"peak memory: {figures['peak_rss_mib']:,.0f} MiB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=150000)
    parser.add_argument("--format", choices=("json", "yaml"), default="json")
    parser.add_argument("--compare", action="store_true", help="run the JSON and the YAML dump and compare them")
    parser.add_argument(
        "--keep", type=Path, help="write the dump here and keep it (with --compare: PATH.json, PATH.yaml)"
    )
    args = parser.parse_args()
    formats = ("json", "yaml") if args.compare else (args.format,)
    with tempfile.TemporaryDirectory() as tmp:
        paths: dict[str, Path] = {}
        for fmt in formats:
            if args.keep is None:
                paths[fmt] = Path(tmp) / f"dump.{fmt}"
            else:
                paths[fmt] = args.keep.with_suffix(f".{fmt}") if args.compare else args.keep
        doc: dict[str, Any] | None = None
        for fmt, path in paths.items():
            if path.exists():
                continue
            t = time.perf_counter()
            if doc is None:
                doc = build(args.nodes, args.pods)
            write(doc, path, fmt)
            print(
                f"generated {args.nodes} nodes / {args.pods} pods ({fmt}) in {time.perf_counter() - t:.1f}s",
                file=sys.stderr,
            )
        doc = None
        results: dict[str, dict[str, Any]] = {}
        for fmt, path in paths.items():
            figures = measure(path)
            if figures is None:
                return 1
            results[fmt] = figures
            report(fmt, path, figures)
    if args.compare:
        json_total = results["json"]["load_s"] + results["json"]["explain_s"]
        yaml_total = results["yaml"]["load_s"] + results["yaml"]["explain_s"]
        same = all(results["json"][k] == results["yaml"][k] for k in ("verdict", "message", "nodes", "pods"))
        load_ratio = results["yaml"]["load_s"] / results["json"]["load_s"]
        cpu = {fmt: figures["load_cpu_s"] + figures["explain_cpu_s"] for fmt, figures in results.items()}
        print(f"yaml/json:   {yaml_total / json_total:.2f}x total time, {load_ratio:.2f}x load time")
        # CPU time is what other processes on the machine cannot skew.
        print(f"             {cpu['yaml'] / cpu['json']:.2f}x total CPU time")
        peaks = results["yaml"]["peak_rss_mib"], results["json"]["peak_rss_mib"]
        print(f"peak memory: {peaks[0]:,.0f} MiB yaml, {peaks[1]:,.0f} MiB json")
        print(f"verdicts:    {'identical' if same else 'DIFFERENT'}")
        if not same:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
