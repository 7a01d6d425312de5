"""The documented benchmark commands run and print their figures (tiny clusters: what is timed
is the code path, never the machine; the figures themselves are the benchmarks' business)."""

from __future__ import annotations

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
                "exactness:",
                "example explain:",
                "--help:",
                "modules:",
            ],
        ),
    ],
    ids=["run", "run-compare", "pending", "pending-autoscaled", "live", "check", "kueue", "scale"],
)
def test_benchmark_command_runs(module: str, args: list[str], lines: list[str]) -> None:
    out = subprocess.run(
        [sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
    for line in lines:
        assert line in out.stdout, out.stdout
