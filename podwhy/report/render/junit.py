"""`podwhy check --junit`: one testcase per workload, a failure when a replica stays Pending."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from podwhy.errors import PodwhyError
from podwhy.report.model import CheckReport, ReplicaReport, WorkloadReport
from podwhy.report.safe import made_safe
from podwhy.report.words.check import (
    FAILING_ROLLOUTS,
    group_text,
    kueue_line,
    kueue_refused,
    replica_note,
    replica_text,
    rollout_line,
    stuck,
)
from podwhy.verdict import Verdict


def junit_xml(report: CheckReport) -> bytes:
    """One testcase per workload; a failure (with every Pending replica's message) when any stays Pending.
    Every string is made safe first (report/safe.py): what is left is text XML 1.0 allows."""
    report = made_safe(report)
    suite = ET.Element(
        "testsuite",
        {
            "name": "podwhy check",
            "tests": str(report.summary.workloads),
            "failures": str(report.summary.failingWorkloads),
            "errors": str(sum(1 for w in report.workloads if _inconclusive(w))),
        },
    )
    for workload in report.workloads:
        case = ET.SubElement(
            suite, "testcase", {"classname": f"{workload.namespace}.{workload.kind}", "name": workload.name}
        )
        pending = stuck(workload)
        failed_rollout = workload.update is not None and workload.update.status in FAILING_ROLLOUTS
        refused = kueue_refused(workload)
        if failed_rollout and not pending:
            ET.SubElement(case, "failure", {"type": "Rollout", "message": rollout_line(workload)})
        elif refused is not None and not pending:  # a Job Kueue holds with no replica to name
            ET.SubElement(case, "failure", {"type": "Kueue", "message": kueue_line(refused)})
        elif pending:
            summary = f"{len(pending)} of {len(workload.replicas)} replicas stay Pending"
            failure = ET.SubElement(
                case,
                "failure",
                {
                    "type": "Pending",
                    "message": f"{summary}: {replica_text(pending[0])}",
                },
            )
            failure.text = "\n".join(_pending_lines(workload))
        elif _inconclusive(workload):
            # Not a pass: an <error> (GitHub's, GitLab's and Jenkins' reports all show it as a
            # failed test, where <skipped> would read as green), with what was not evaluated.
            doubtful = _inconclusive(workload)
            placed_doubts = [r for r in doubtful if r.node is not None]
            unsure = [r for r in doubtful if r.node is None]
            said = []
            if placed_doubts:
                said.append(
                    f"{len(placed_doubts)} of {len(workload.replicas)} replicas placed, but "
                    f"{placed_doubts[0].message.removeprefix('placed, but ')}"
                )
            if unsure:
                said.append(f"{len(unsure)} Pending, but {replica_note(unsure[0])}")
            error = ET.SubElement(case, "error", {"type": "Inconclusive", "message": "; ".join(said)})
            error.text = "\n".join(f"{r.name}: {replica_text(r)}" for r in doubtful)
        placed = [f"{r.name} -> {r.node}" for r in workload.replicas if r.node is not None]
        if placed:
            ET.SubElement(case, "system-out").text = "\n".join(placed)
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data


def _pending_lines(workload: WorkloadReport) -> list[str]:
    """Each Pending replica and its message, group by group, each group's causes (as explain says
    them) under its last replica."""
    message = {r.name: replica_text(r) for r in workload.replicas if r.node is None}
    lines: list[str] = []
    for group in workload.pendingGroups:
        lines += [f"{name}: {message.get(name, group_text(group))}" for name in group.replicas]
        lines += [f"  · {cause.text}" for cause in group.causes]
    return lines


def _inconclusive(workload: WorkloadReport) -> list[ReplicaReport]:
    """The workload's replicas placed without every input evaluated, or left Pending without their
    preemption evaluated (exit 3)."""
    return [r for r in workload.replicas if r.verdict == Verdict.INCONCLUSIVE]


def write_junit(report: CheckReport, path: Path) -> None:
    try:
        path.write_bytes(junit_xml(report) + b"\n")
    except OSError as exc:
        raise PodwhyError(f"{path}: cannot write: {exc.strerror}") from None
