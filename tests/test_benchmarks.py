"""The documented benchmark commands run and print their figures (tiny clusters: what is timed
is the code path, never the machine; the figures themselves are the benchmarks' business)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SMALL = ["--nodes", "20", "--pods", "200"]


@pytest.mark.parametrize(
    ("module", "args", "lines"),
    [
        ("benchmarks.run", SMALL, ["dump:", "load:", "explain:", "peak memory:"]),
        ("benchmarks.run", [*SMALL, "--compare"], ["yaml/json:", "verdicts:    identical"]),
        ("benchmarks.pending", [*SMALL, "--pending", "30", "--owners", "4"], ["pending:", "end to end:"]),
        (
            "benchmarks.pending",
            [*SMALL, "--pending", "30", "--owners", "4", "--autoscaler-groups", "3"],
            ["autoscaling:  2 groups with the view of 3 node groups"],
        ),
        ("benchmarks.live", SMALL, ["live:", "offline:", "verdicts:"]),
        ("benchmarks.check", [*SMALL, "--replicas", "30", "--kind", "Job"], ["Job of 30", "replicas/s", "+"]),
        (
            "benchmarks.kueue",
            ["--nodes", "20", "--cluster-queues", "20", "--cohorts", "4", "--admitted", "500", "--pending", "200"],
            ["pending -A:", "200 held in", "explain:", "ahead", "end to end:", "results:"],
        ),
        (
            "benchmarks.scale",
            ["--nodes", "30", "--pool-size", "10", "--gang", "8", "--job-size", "8", "--pending", "20", "--runs", "1"],
            [
                "bare parse:",
                "explain:",
                "node groups",
                "--nodes all:",
                "pending -A:",
                "after one load:",
                "(Unschedulable) (builds the index kept for the rest)",
                "(Unschedulable) again",
                "exactness:",
                "example explain:",
                "--help:",
                "modules:",
            ],
        ),
        (
            "benchmarks.scale",
            [
                *["--nodes", "30", "--pool-size", "10", "--gang", "8", "--job-size", "8", "--pending", "20"],
                *["--runs", "1", "--kueue"],
            ],
            ["kueue:", "explain job:", "first line:    Job research/sweep-0-workers-0 waits in queue research-0"],
        ),
    ],
    ids=["run", "run-compare", "pending", "pending-autoscaled", "live", "check", "kueue", "scale", "scale-kueue"],
)
def test_benchmark_command_runs(module: str, args: list[str], lines: list[str]) -> None:
    out = subprocess.run(
        [sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
    for line in lines:
        assert line in out.stdout, out.stdout


def _fleet_dump(tmp_path: Path, kueue: bool) -> Path:
    from benchmarks.fleet import Fleet, write

    path = tmp_path / "fleet.json"
    write(Fleet(30, pool_size=10, gang=8, job_size=8, pending=20, owners=4, kueue=kueue), path)
    return path


def test_fleet_kueue_dump_decodes_with_its_workloads(tmp_path: Path) -> None:
    """`--kueue`: the dump decodes with podwhy; every training Job has its Workload, named as Kueue
    names it, admitted; the suspended Jobs' Workloads wait for quota with Kueue's reason."""
    from benchmarks import fleetkueue
    from podwhy.analysis.kueue import kueue_pending
    from podwhy.cluster.kueue.jobframework import JOB_GVK, workload_name
    from podwhy.snapshot.source import FileSource

    snapshot = FileSource([str(_fleet_dump(tmp_path, kueue=True))], complete=True).load()
    assert len(snapshot.resource_flavors) == 3
    assert set(snapshot.cluster_queues) == {"llm", "research-0"}
    jobs = list(snapshot.jobs.values())
    assert len(jobs) == 4 + fleetkueue.SUSPENDED  # the gang's, three fine-tuning Jobs, the suspended ones
    for job in jobs:
        name = workload_name(job.metadata.name, job.metadata.uid, JOB_GVK)
        assert f"{job.metadata.namespace}/{name}" in snapshot.kueue_workloads
    admitted = [w for w in snapshot.kueue_workloads.values() if w.status.admission is not None]
    assert len(admitted) == 4
    held = kueue_pending(snapshot, None)
    assert len(held) == fleetkueue.SUSPENDED
    assert {facts.reason for facts in held} == {"WaitingForQuota"}
    assert all("insufficient unused quota" in facts.message for facts in held)


def test_fleet_default_dump_has_no_kueue(tmp_path: Path) -> None:
    """Without `--kueue` the dump holds no Kueue object and no queue-name label."""
    text = _fleet_dump(tmp_path, kueue=False).read_text()
    assert "kueue.x-k8s.io" not in text


def test_fleet_pods_differ_as_a_real_clusters_do(tmp_path: Path) -> None:
    """Running pods carry their own start times and restart counts, and report their containers'
    resources, as kubelets write them: what differs from pod to pod in a real dump differs here
    (a fleet whose pods were all alike hid a cache that every real dump missed). The framework
    still computes the requests once per pod template."""
    from podwhy.framework import types
    from podwhy.framework.handle import Handle
    from podwhy.snapshot.source import FileSource

    snapshot = FileSource([str(_fleet_dump(tmp_path, kueue=False))]).load()
    running = [p for p in snapshot.pods if p.status.phase == "Running"]
    statuses = [p.status.container_statuses[0] for p in running]
    started = {s.state.running.started_at for s in statuses if s.state is not None and s.state.running is not None}
    assert len(started) == len(running)
    assert len({s.restart_count for s in statuses}) > 1
    assert all(s.resources is not None and s.allocated_resources for s in statuses)
    types._RESOURCE_CACHE.clear()
    Handle(snapshot)
    templates = {(p.metadata.namespace, p.spec.containers[0].image) for p in running}
    assert len(types._RESOURCE_CACHE) <= len(templates)


def test_fleet_nodes_post_their_own_heartbeats(tmp_path: Path) -> None:
    """Each kubelet posts its node's status on its own: the nodes' heartbeat times differ, and a
    node's conditions share one (it posts them together)."""
    items = json.loads(_fleet_dump(tmp_path, kueue=False).read_text())["items"]
    nodes = [item for item in items if item["kind"] == "Node"]
    beats = [{c["lastHeartbeatTime"] for c in n["status"]["conditions"]} for n in nodes]
    assert all(len(beat) == 1 for beat in beats)
    assert len(set().union(*beats)) > len(nodes) // 2
