"""The largest clusters and the first answer, in one run (issue 39).

    python -m benchmarks.scale [--nodes 65000] [--pool-size 1000] [--gang 512] [--pending 1000]
                               [--owners 20] [--cloud gke|eks] [--kueue] [--keep PATH] [--runs 10]

Writes an AI fleet as `kubectl get -o json` does (`benchmarks/fleet.py`: pools of identical
8-GPU nodes, 5 DaemonSets with a pod per node, one training pod per node, a gang of GANG pods
with one Pending, PENDING Pending pods of OWNERS owners; with `--kueue`, Kueue's objects too,
`benchmarks/fleetkueue.py`: a ResourceFlavor per pool, ClusterQueues whose quota the training
Jobs' admitted Workloads use up, and suspended Jobs whose Workloads wait for it), then times, each in its own child
process (so that its peak RSS is its own):

- the bare parse of the file: `orjson.loads` when orjson is installed, else `msgspec.json.decode`
  (podwhy's own JSON decoder, as fast; orjson is not among podwhy's requirements), the file read
  included, the garbage collector off;
- `podwhy explain` of the gang's Pending pod from the file (the table, then `-o json` and its
  size, by default and with `--nodes all`), and `podwhy pending -A`: wall, peak RSS, and the
  ratio to the bare parse;
- with `--kueue`, `podwhy explain job/NAME -n research` of a suspended Job whose Workload waits
  for quota (its first line printed);
- after one load of the file in one process, `explain` of the gang's Pending pod and then of
  another Pending pod, each with its table, then both again: what an answer costs once the
  snapshot is loaded (the first builds the scheduler's index of the snapshot, which every later
  one keeps: framework/handle.py, `indexed`);
- `podwhy explain` of the bundled example's pod and `podwhy --help`: the median of RUNS;
- how many of podwhy's modules drawing explain's table loads, and the whole explain command.

Beside the figures, the exactness check: the gang pod is Unschedulable with kube-scheduler's
message for this many nodes (its condition, written when the fleet had one node more, disagrees),
and `pending -A` finds every Pending pod; with `--kueue`, the gang pod's verdict is the same (its
Job's Workload is admitted), the pending Workload's Kueue reason is WaitingForQuota with Kueue's
"insufficient unused quota" message (its recorded condition agrees), and `pending -A` finds every
pending Workload.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import fleetkueue
from benchmarks.fleet import Fleet, gang_condition_message, pending_pod, write

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ("shop/checkout-7c9d8b6f5-m4x2q", ROOT / "fixtures" / "examples" / "shop-cluster.yaml")

# The collector is off while parsing, as podwhy has it off while it builds a snapshot
# (podwhy.heap): with it on, collections over the growing tree make a 4 GB parse three times slower.
PARSE = """
import gc, sys, time
from pathlib import Path
from typing import Any
try:
    import orjson
    loads, parser = orjson.loads, "orjson.loads"
except ImportError:
    import msgspec
    loads, parser = msgspec.json.decode, "msgspec.json.decode (orjson is not installed)"
gc.disable()
t = time.perf_counter()
doc = loads(Path(sys.argv[1]).read_bytes())
print(parser, time.perf_counter() - t, len(doc["items"]))
"""

# Runs podwhy's command line as the console script does, and writes how many of podwhy's modules
# the command loaded to the file named by PODWHY_BENCH_MODULES.
COMMAND = """
import atexit, os, sys
def _count():
    loaded = [m for m in sys.modules if m == "podwhy" or m.startswith("podwhy.")]
    with open(os.environ["PODWHY_BENCH_MODULES"], "w") as out:
        out.write(str(len(loaded)))
if os.environ.get("PODWHY_BENCH_MODULES"):
    atexit.register(_count)
from podwhy.cli import app
sys.argv[0] = "podwhy"
app()
"""

# Loads the snapshot once, then explains each pod named (NAMESPACE/NAME) as `podwhy explain` does
# (the report, then its table, written to /dev/null): what each answer costs after the load.
AFTER_LOAD = """
import contextlib, json, os, sys, time
from podwhy.engine import ExplainRequest, explain
from podwhy.report.render.explain import render_table
from podwhy.snapshot.source import FileSource
t, c = time.perf_counter(), time.process_time()
snapshot = FileSource([sys.argv[1]]).load()
times = [["load", time.perf_counter() - t, time.process_time() - c, ""]]
class Held:
    def load(self):
        return snapshot
with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
    for ref in sys.argv[2:]:
        t, c = time.perf_counter(), time.process_time()
        report = explain(ExplainRequest(pod_ref=ref, namespace="default", source=Held()))
        render_table(report)
        times.append([ref, time.perf_counter() - t, time.process_time() - c, report.verdict.value])
print(json.dumps(times))
"""

LOADED = "import sys, {0}; print(sum(1 for m in sys.modules if m == 'podwhy' or m.startswith('podwhy.')))"


@dataclass(frozen=True)
class Run:
    """One child process: its wall time, peak RSS, exit code and what it wrote."""

    wall_s: float
    peak_mib: float
    code: int
    stdout: bytes
    stderr: str


def child(args: list[str], env: dict[str, str] | None = None) -> Run:
    """Run ARGS in a child process; its wall time and its own peak RSS (os.wait4's rusage)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        proc = subprocess.Popen(args, stdout=out, stderr=err, env=env, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Run(wall, usage.ru_maxrss / 1024, proc.returncode, out.read(), err.read().decode(errors="replace"))


def podwhy(*args: str, env: dict[str, str] | None = None) -> Run:
    return child([sys.executable, "-c", COMMAND, *args], env=env)


def _median(runs: int, *args: str) -> tuple[float, float, float]:
    walls = []
    for _ in range(runs):
        run = podwhy(*args)
        if run.code not in (0, 1, 2, 3):  # explain's exit codes are its verdicts
            raise SystemExit(run.stderr)
        walls.append(run.wall_s)
    return statistics.median(walls), min(walls), max(walls)


def _modules_total() -> int:
    return sum(1 for _ in (ROOT / "podwhy").rglob("*.py"))


def _loaded(module: str) -> int:
    out = subprocess.run([sys.executable, "-c", LOADED.format(module)], capture_output=True, text=True, check=True)
    return int(out.stdout)


def _checked(run: Run, what: str) -> Run:
    if run.code not in (0, 1, 2, 3):
        print(run.stderr[-3000:], file=sys.stderr)
        raise SystemExit(f"{what} failed (exit {run.code})")
    return run


def _fleet_line(fleet: Fleet, items: int) -> str:
    pods = fleet.nodes * 6 + 1 + fleet.pending
    line = (
        f"fleet:           {fleet.nodes:,} nodes in {fleet.pools} pools of 8-GPU nodes ({fleet.cloud}), 5 DaemonSets,"
        f" {pods:,} pods ({fleet.pending + 1:,} Pending: 1 of a {fleet.gang}-pod gang, {fleet.pending:,} of"
        f" {fleet.owners} owners); {items:,} items"
    )
    if fleet.kueue:
        queues = 1 + -(-fleet.pools // fleetkueue.POOLS_PER_TEAM)  # llm's, and research's by 16 pools
        line += (
            f"\nkueue:           {fleet.pools} ResourceFlavors, {queues} ClusterQueues in a cohort, a Workload per"
            f" training Job (admitted), {fleetkueue.SUSPENDED} pending Workloads of suspended Jobs"
        )
    return line


def kueue_checks(source: list[str], bare: float, pending: dict[str, Any]) -> dict[str, bool]:
    """`explain` of a suspended Job whose Workload waits for quota: its figures, and the checks."""
    job, namespace = f"job/{fleetkueue.SUSPENDED_JOB}", fleetkueue.SUSPENDED_NAMESPACE
    target = ["explain", job, "-n", namespace, *source]
    table = _checked(podwhy(*target, env={**os.environ, "COLUMNS": "1000"}), "explain job")  # its first line whole
    first = table.stdout.decode().splitlines()[0] if table.stdout else ""
    print(
        f"explain job:     {table.wall_s:.2f} s = {table.wall_s / bare:.1f}x the bare parse,"
        f" peak {table.peak_mib:,.0f} MiB (the table, {job} -n {namespace})"
    )
    print(f"  first line:    {first}")
    kueue = json.loads(_checked(podwhy(*target, "-o", "json"), "explain job -o json").stdout)["kueue"]
    held = sum(g["count"] for g in pending.get("kueue") or [] if not g["admitted"])
    return {
        "the pending Workload waits for quota (WaitingForQuota)": kueue["reason"] == "WaitingForQuota"
        and not kueue["admitted"],
        "with Kueue's insufficient unused quota": "insufficient unused quota" in kueue["message"],
        "as its condition records": kueue["stale"] is False,
        f"pending -A finds the {fleetkueue.SUSPENDED} pending Workloads": held == fleetkueue.SUSPENDED,
    }


def after_load(fleet: Fleet, path: Path) -> None:
    """Each answer after one load: the gang's Pending pod, then one of the other Pending pods,
    then both again."""
    other = pending_pod(fleet, 0, 0)["metadata"]
    refs = [fleet.gang_pending, f"{other['namespace']}/{other['name']}"]
    run = child([sys.executable, "-c", AFTER_LOAD, str(path), *refs, *refs])
    if run.code != 0:
        print(run.stderr[-3000:], file=sys.stderr)
        raise SystemExit(f"after load failed (exit {run.code})")
    (_, wall, cpu, _), *answers = json.loads(run.stdout)
    print(f"after one load:  the load {wall:.2f} s ({cpu:.2f} s CPU), peak {run.peak_mib:,.0f} MiB; then")
    for i, (ref, wall, cpu, verdict) in enumerate(answers):
        when = " (builds the index kept for the rest)" if i == 0 else " again" if i >= len(refs) else ""
        print(f"  explain        {wall:.2f} s ({cpu:.2f} s CPU), the table of {ref} ({verdict}){when}")


def large(fleet: Fleet, path: Path) -> bool:
    """The fleet's figures; whether the exactness checks hold."""
    parse = child([sys.executable, "-c", PARSE, str(path)])
    parser, parse_s, items = parse.stdout.decode().rsplit(" ", 2)
    bare = float(parse_s)
    print(_fleet_line(fleet, int(items)))
    print(f"dump:            {path.stat().st_size / 2**20:,.0f} MiB JSON")
    print(f"bare parse:      {bare:.2f} s, peak {parse.peak_mib:,.0f} MiB ({parser}, the file read included)")
    source = ["--from", str(path), "--complete", "-q"]
    table = _checked(podwhy("explain", fleet.gang_pending, *source), "explain")
    print(
        f"explain:         {table.wall_s:.2f} s = {table.wall_s / bare:.1f}x the bare parse,"
        f" peak {table.peak_mib:,.0f} MiB (the table, {fleet.gang_pending})"
    )
    as_json = _checked(podwhy("explain", fleet.gang_pending, *source, "-o", "json"), "explain -o json")
    report = json.loads(as_json.stdout)
    print(
        f"explain -o json: {as_json.wall_s:.2f} s = {as_json.wall_s / bare:.1f}x, peak {as_json.peak_mib:,.0f} MiB,"
        f" {len(as_json.stdout) / 1e6:,.2f} MB written ({len(report['nodeGroups'])} node groups)"
    )
    every = _checked(podwhy("explain", fleet.gang_pending, *source, "-o", "json", "--nodes", "all"), "--nodes all")
    print(
        f"  --nodes all:   {every.wall_s:.2f} s = {every.wall_s / bare:.1f}x, peak {every.peak_mib:,.0f} MiB,"
        f" {len(every.stdout) / 1e6:,.1f} MB written (every node's entry, streamed)"
    )
    listed = _checked(podwhy("pending", "-A", *source, "-o", "json"), "pending -A")
    pending = json.loads(listed.stdout)
    print(
        f"pending -A:      {listed.wall_s:.2f} s = {listed.wall_s / bare:.1f}x the bare parse,"
        f" peak {listed.peak_mib:,.0f} MiB ({pending['total']:,} Pending pods in {len(pending['groups'])} groups)"
    )
    after_load(fleet, path)
    extra = kueue_checks(source, bare, pending) if fleet.kueue else {}
    expected = gang_condition_message(fleet.nodes)
    checks = {
        "the gang pod is Unschedulable": report["verdict"] == "Unschedulable",
        f"with kube-scheduler's message for {fleet.nodes:,} nodes": report["message"] == expected,
        "its condition (one node more) disagrees": report["scheduler"]["agrees"] is False,
        f"pending -A finds all {fleet.pending + 1:,}": pending["total"] == fleet.pending + 1,
        **extra,
    }
    print("exactness:       " + "; ".join(f"{what}: {'yes' if ok else 'NO'}" for what, ok in checks.items()))
    return all(checks.values())


def first_answer(runs: int) -> None:
    pod, example = EXAMPLE
    median, low, high = _median(runs, "explain", pod, "--from", str(example))
    print(f"example explain: {median:.2f} s median of {runs} runs ({low:.2f}-{high:.2f})")
    median, low, high = _median(runs, "--help")
    print(f"podwhy --help:   {median:.3f} s median of {runs} runs ({low:.3f}-{high:.3f})")
    with tempfile.NamedTemporaryFile() as counted:
        podwhy("explain", pod, "--from", str(example), env={**os.environ, "PODWHY_BENCH_MODULES": counted.name})
        command = int(Path(counted.name).read_text() or 0)
    table = _loaded("podwhy.report.render.explain")
    print(
        f"modules:         drawing explain's table loads {table} of podwhy's {_modules_total()} modules;"
        f" the whole explain command on the example {command}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pool-size", type=int, default=1000, help="nodes per node pool")
    parser.add_argument("--gang", type=int, default=512, help="pods of the gang (its last one Pending)")
    parser.add_argument("--job-size", type=int, default=256, help="pods of each other training Job")
    parser.add_argument("--pending", type=int, default=1000, help="Pending pods besides the gang's")
    parser.add_argument("--owners", type=int, default=20, help="owners of those Pending pods")
    parser.add_argument("--cloud", choices=("gke", "eks"), default="gke")
    parser.add_argument("--kueue", action="store_true", help="Kueue's objects too (benchmarks/fleetkueue.py)")
    parser.add_argument("--runs", type=int, default=10, help="runs of the example's explain and of --help")
    parser.add_argument("--keep", type=Path, help="write the dump here and keep it (an existing one is reused)")
    args = parser.parse_args()
    fleet = Fleet(
        args.nodes, args.pool_size, args.gang, args.job_size, args.pending, args.owners, args.cloud, args.kueue
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "fleet.json"
        if not path.exists():
            t = time.perf_counter()
            count = write(fleet, path)
            print(f"generated {count:,} items in {time.perf_counter() - t:.1f}s", file=sys.stderr)
        exact = large(fleet, path)
    first_answer(args.runs)
    return 0 if exact else 1


if __name__ == "__main__":
    sys.exit(main())
