"""Compare podwhy's report with kube-scheduler recordings in fixtures/golden*/.

fixtures/golden holds v1.35.4's recordings; fixtures/golden-vX.Y those of another release, each
case.json naming its `kubeVersion` (and, for a cluster recorded before, the `cluster` and
`config` files of fixtures/golden it reuses). Every case runs with --kube-version set from it.

Run as a script for a readable list of mismatches:
    python -m tests.conformance [--plugin NAME] [--scores] [CASE ...]
(--scores compares scores, totals and best nodes instead of filter verdicts; CASE is g0003 for
fixtures/golden or golden-v1.36/g0003.)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
GOLDEN = FIXTURES / "golden"
# The release fixtures/golden was recorded with (its case.json files name none).
GOLDEN_KUBE_VERSION = "1.35.4"


def golden_dirs() -> list[Path]:
    """fixtures/golden, then every fixtures/golden-vX.Y."""
    return [GOLDEN, *sorted(p for p in FIXTURES.glob("golden-v*") if p.is_dir())]


def case_dirs(golden: Path = GOLDEN) -> list[Path]:
    return sorted(p for p in golden.iterdir() if (p / "expected.json").is_file())


def all_case_dirs() -> list[Path]:
    return [case for golden in golden_dirs() for case in case_dirs(golden)]


def case_meta(case: Path) -> dict[str, Any]:
    meta: dict[str, Any] = json.loads((case / "case.json").read_text())
    return meta


def with_gz(path: Path) -> Path:
    return path if path.exists() else path.with_name(path.name + ".gz")


def cluster_file(case: Path) -> Path:
    """The case's cluster: its own, or the one its case.json points to (compressed or not)."""
    pointer = case_meta(case).get("cluster")
    if pointer is not None:
        return with_gz((case / pointer).resolve())
    return with_gz(case / "cluster.yaml")


def kube_version(case: Path) -> str:
    return str(case_meta(case).get("kubeVersion", GOLDEN_KUBE_VERSION))


def run_case(case: Path, cluster: Path | None = None) -> dict[str, Any]:
    """podwhy's JSON report for a case, through the same path as the CLI (CLUSTER: another file
    holding its cluster)."""
    from podwhy.engine import ExplainRequest, explain
    from podwhy.report.model import to_builtins
    from podwhy.snapshot.source import FileSource

    meta = case_meta(case)
    config = (case / meta["config"]).resolve() if "config" in meta else None
    report = explain(
        ExplainRequest(
            pod_ref=meta["pod"],
            namespace="default",
            source=FileSource([str(cluster or cluster_file(case))], complete=True),
            scheduler_config=config,
            kube_version=kube_version(case),
            # The recordings handed kube-scheduler its pods with no API server between: some
            # hold pods none would store (an extended resource without a limit, say).
        )
    )
    return to_builtins(report)


def compare_scores(case: Path, report: dict[str, Any], plugin: str | None = None) -> list[str]:
    """Differences in scores, totals, best nodes and scoringSkipped."""
    exp = json.loads((case / "expected.json").read_text())
    if exp.get("bound"):
        return []
    diffs: list[str] = []
    nodes = {n["name"]: n for n in report["nodes"]}
    for node, plugins in exp["scores"].items():
        got_node = nodes.get(node)
        got = {s["plugin"]: s for s in got_node["scores"]} if got_node else {}
        for name, want in plugins.items():
            if plugin and name != plugin:
                continue
            have = got.get(name)
            if have is None:
                diffs.append(f"{node} score {name}: missing")
                continue
            have_cmp = {k: have.get(k) for k in ("raw", "normalized", "weight", "weighted")}
            want_cmp = {k: want.get(k) for k in ("raw", "normalized", "weight", "weighted")}
            if have_cmp != want_cmp or bool(have.get("skipped")) != bool(want.get("skipped")):
                diffs.append(f"{node} score {name}: {have_cmp} skipped={have.get('skipped')} != {want}")
        if plugin is None and set(got) - set(plugins):
            diffs.append(f"{node}: extra score plugins {sorted(set(got) - set(plugins))}")
    if plugin is None:
        totals = {n["name"]: n["totalScore"] for n in report["nodes"] if n["name"] in exp["totalScores"]}
        if totals != exp["totalScores"]:
            diffs.append(f"totalScores: {totals} != {exp['totalScores']}")
        if sorted(report["bestNodes"]) != sorted(exp["bestNodes"]):
            diffs.append(f"bestNodes: {sorted(report['bestNodes'])} != {sorted(exp['bestNodes'])}")
        if report.get("scoringSkipped", False) != exp["scoringSkipped"]:
            diffs.append(f"scoringSkipped: {report.get('scoringSkipped')} != {exp['scoringSkipped']}")
    return diffs


def compare(case: Path, report: dict[str, Any], plugin: str | None = None) -> list[str]:
    """Every difference between podwhy's report and the recording (empty when equal)."""
    exp = json.loads((case / "expected.json").read_text())
    diffs: list[str] = []
    if exp.get("bound"):
        if report["verdict"] != "AlreadyBound":
            diffs.append(f"verdict {report['verdict']} != AlreadyBound")
        return diffs
    if exp.get("gated") and report["verdict"] != "Gated":
        diffs.append(f"verdict {report['verdict']} != Gated")
    got_pre = {p["plugin"]: p for p in report["preFilter"]}
    for name, want in exp["preFilter"].items():
        if plugin and name != plugin:
            continue
        got = got_pre.get(name)
        if got is None:
            diffs.append(f"preFilter {name}: missing")
            continue
        for key in ("status", "reasons", "nodeNames"):
            if got[key] != want[key]:
                diffs.append(f"preFilter {name}.{key}: {got[key]!r} != {want[key]!r}")
    if plugin is None and set(got_pre) - set(exp["preFilter"]):
        diffs.append(f"preFilter: extra plugins {sorted(set(got_pre) - set(exp['preFilter']))}")
    nodes = {n["name"]: n for n in report["nodes"]}
    if set(nodes) != set(exp["filters"]):
        diffs.append(f"nodes differ: {sorted(set(nodes) ^ set(exp['filters']))}")
    for node, plugins in exp["filters"].items():
        got_node = nodes.get(node)
        if got_node is None:
            continue
        got_filters = {f["plugin"]: f for f in got_node["filters"]}
        for name, want in plugins.items():
            if plugin and name != plugin:
                continue
            got = got_filters.get(name)
            if got is None:
                diffs.append(f"{node} {name}: missing")
                continue
            if got["status"] != want["status"] or got["reasons"] != want["reasons"]:
                diffs.append(f"{node} {name}: {got['status']} {got['reasons']} != {want['status']} {want['reasons']}")
        if plugin is None and set(got_filters) - set(plugins):
            diffs.append(f"{node}: extra filter plugins {sorted(set(got_filters) - set(plugins))}")
    if plugin is None:
        for node in exp["filters"]:
            got_node = nodes.get(node)
            if got_node is None:
                continue
            want_ff = exp["firstFailure"].get(node)
            got_ff = got_node["firstFailure"]
            if want_ff != got_ff:
                diffs.append(f"{node} firstFailure: {got_ff} != {want_ff}")
        if sorted(report["feasibleNodes"]) != sorted(exp["feasibleNodes"]):
            diffs.append(f"feasibleNodes: {sorted(report['feasibleNodes'])} != {sorted(exp['feasibleNodes'])}")
        msg, want_msg = report["message"], exp["message"]
        if report.get("messageComplete", True):
            if msg != want_msg:
                diffs.append(f"message: {msg!r} != {want_msg!r}")
        elif not (want_msg.startswith(msg) and (len(want_msg) == len(msg) or want_msg[len(msg)] == " ")):
            diffs.append(f"message (filter part): {msg!r} is not the start of {want_msg!r}")
    if plugin in (None, "DefaultPreemption"):
        diffs.extend(compare_preemption(exp, report))
    return diffs


def compare_preemption(exp: dict[str, Any], report: dict[str, Any]) -> list[str]:
    """The PostFilter outcome: nominated node, victims (in order) and DefaultPreemption's message."""
    want = exp.get("preemption")
    if want is None:
        return []
    got = report.get("preemption") or {"nominatedNode": None, "victims": [], "message": ""}
    diffs = []
    keys = ["nominatedNode", "victims", "message"]
    if "PodDisruptionBudget" in report["snapshot"]["missingKinds"]:
        # Budgets decide which victims are reprieved first; podwhy warns it assumed none.
        keys = ["message"]
    for key in keys:
        if got.get(key) != want.get(key):
            diffs.append(f"preemption.{key}: {got.get(key)!r} != {want.get(key)!r}")
    return diffs


def main(argv: list[str]) -> int:
    plugin = None
    with_scores = "--scores" in argv
    if with_scores:
        argv.remove("--scores")
    if "--plugin" in argv:
        i = argv.index("--plugin")
        plugin = argv[i + 1]
        del argv[i : i + 2]
    cases = [FIXTURES / a if "/" in a else GOLDEN / a for a in argv] if argv else all_case_dirs()
    failed = 0
    for case in cases:
        try:
            report = run_case(case)
            diffs = compare_scores(case, report, plugin) if with_scores else compare(case, report, plugin)
        except Exception as exc:  # report and go on
            diffs = [f"crashed: {type(exc).__name__}: {exc}"]
        if diffs:
            failed += 1
            desc = json.loads((case / "case.json").read_text()).get("description", "")
            print(f"--- {case.parent.name}/{case.name}: {desc}")
            for d in diffs[:12]:
                print("   ", d)
            if len(diffs) > 12:
                print(f"    ... {len(diffs) - 12} more")
    print(f"{len(cases) - failed}/{len(cases)} cases match")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
