"""analysis/kueue.py and kueuetarget.py: what explain is pointed at resolved to its Kueue Workload,
the headline shortfall, the recorded condition against the recomputation, and who is ahead."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from podwhy.analysis.kueue import facts_for, facts_for_pod, kueue_pending, parse_kueue_ref
from podwhy.analysis.kueuefacts import JOB, WORKLOAD, Fate, Staleness, has_kueue
from podwhy.analysis.kueuetarget import kueue_target
from podwhy.errors import PodwhyError
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.source import FileSource
from tests.paths import REPO, TESTS

SCENARIOS = TESTS / "scenarios-kueue"


def _load(name: str) -> Snapshot:
    return FileSource([str(SCENARIOS / name / "cluster.yaml")]).load()


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("job/train", (JOB, "ml", "train")),
        ("jobs/train", (JOB, "ml", "train")),
        ("job.batch/train", (JOB, "ml", "train")),
        ("Jobs.batch/train", (JOB, "ml", "train")),
        ("workload/wl-1", (WORKLOAD, "ml", "wl-1")),
        ("workloads.kueue.x-k8s.io/wl-1", (WORKLOAD, "ml", "wl-1")),
        ("pod/web", None),
        ("ml/web", None),
        ("web", None),
        ("job/", None),
        ("job/a/b", None),
    ],
)
def test_parse_kueue_ref(ref: str, expected: tuple[str, str, str] | None) -> None:
    assert parse_kueue_ref(ref, "ml") == expected


def test_a_job_resolves_to_its_workload_with_the_shortfall() -> None:
    snapshot = _load("short-quota")
    facts = kueue_target(snapshot, "job/train-7", "ml")
    assert facts is not None and facts.workload is not None
    assert facts.workload.metadata.name == "job-train-7-8d3e2"
    assert facts.fate is Fate.SHORT_OF_QUOTA and not facts.admitted
    short = facts.shortfall
    assert short is not None
    assert (short.cluster_queue, short.flavor, short.resource) == ("team-a", "a100", "nvidia.com/gpu")
    assert (short.available, short.nominal, short.borrowable, short.needed) == (4, 16, 0, 8)
    assert facts.staleness is Staleness.AGREES  # the recorded message is Kueue's, recomputed


def test_borrowing_from_the_cohort_admits_it() -> None:
    facts = kueue_target(_load("borrowing"), "job/train-7", "ml")
    assert facts is not None
    assert facts.fate is Fate.ADMITS_NEXT and facts.admitted
    assert facts.staleness is Staleness.NONE_RECORDED


def test_a_stale_recorded_condition_is_told() -> None:
    facts = kueue_target(_load("stale-condition"), "job/train-7", "ml")
    assert facts is not None
    assert facts.admitted and facts.staleness is Staleness.RECORDED_STALE
    assert facts.recorded.reason == "WaitingForQuota"


def test_strict_fifo_head_blocks_a_fitting_workload() -> None:
    facts = kueue_target(_load("strict-fifo-head"), "job/small-2", "ml")
    assert facts is not None
    assert facts.fate is Fate.BEHIND_STRICT_HEAD and not facts.admitted
    assert facts.strict_fifo_head == "ml/job-big-1-0e7d4"
    assert [(a.key, a.priority, a.position, a.fits) for a in facts.ahead] == [("ml/job-big-1-0e7d4", 100, 1, False)]


def test_a_suspended_job_without_workload_is_not_evaluated() -> None:
    facts = kueue_target(_load("no-workload"), "job/train-8", "ml")
    assert facts is not None
    assert facts.workload is None and facts.fate is Fate.NO_WORKLOAD and facts.inconclusive
    assert facts.local_queue == "team-a"


def test_a_gated_pod_of_a_group_resolves_to_the_group_workload() -> None:
    snapshot = _load("gated-pod-group")
    pod = next(p for p in snapshot.pods if p.metadata.name == "infer-group-1")
    facts = facts_for_pod(snapshot, pod)
    assert facts is not None and facts.workload is not None
    assert facts.workload.metadata.name == "infer-group"
    assert facts.gates == ("kueue.x-k8s.io/admission",)


def test_a_running_pod_of_an_admitted_job_has_no_kueue_answer() -> None:
    snapshot = FileSource([str(REPO / "fixtures" / "kueue" / "cluster.yaml")]).load()
    pod = next(p for p in snapshot.pods if p.metadata.name == "training-a-xz9wr")
    assert facts_for_pod(snapshot, pod) is None


def test_unknown_names_fail_with_the_closest() -> None:
    snapshot = _load("short-quota")
    with pytest.raises(PodwhyError) as err:
        kueue_target(snapshot, "job/train-77", "ml")
    assert "Job ml/train-77 not found" in str(err.value)
    assert "ml/train-7" in (err.value.hint or "")
    with pytest.raises(PodwhyError) as err:
        kueue_target(snapshot, "workload/job-train-7", "ml")
    assert "ml/job-train-7-8d3e2" in (err.value.hint or "")


def test_a_job_kueue_does_not_queue_is_refused() -> None:
    snapshot = _load("short-quota")
    job = snapshot.jobs["ml/train-6"]
    job.metadata.labels.clear()
    for wl in snapshot.kueue_workloads.values():
        if wl.metadata.name.startswith("job-train-6"):
            wl.metadata.labels.clear()
            wl.metadata.owner_references.clear()
    with pytest.raises(PodwhyError, match="is not queued by Kueue"):
        kueue_target(snapshot, "job/train-6", "ml")


def test_an_owner_kueue_manages_is_found_through_the_workload() -> None:
    snapshot = _load("short-quota")
    wl = snapshot.kueue_workloads["ml/job-train-7-8d3e2"]
    wl.metadata.owner_references[0].kind = "JobSet"
    wl.metadata.labels.clear()
    facts = kueue_target(snapshot, "jobsets.jobset.x-k8s.io/train-7", "ml")
    assert facts is not None and facts.kind == "JobSet" and facts.workload is wl


def test_without_kueue_objects_nothing_is_a_kueue_target() -> None:
    snapshot = FileSource([str(TESTS / "scenarios" / "gated" / "cluster.yaml")]).load()
    assert not has_kueue(snapshot)
    assert kueue_target(snapshot, "jobs/batch-job-x7k2p", "default") is None
    assert kueue_pending(snapshot, None) == []


def test_pending_lists_what_kueue_holds() -> None:
    held = kueue_pending(_load("strict-fifo-head"), None)
    assert sorted((f.kind, f.key, f.fate) for f in held) == [
        (JOB, "ml/big-1", Fate.SHORT_OF_QUOTA),
        (JOB, "ml/small-2", Fate.BEHIND_STRICT_HEAD),
    ]
    assert kueue_pending(_load("strict-fifo-head"), "other") == []


def _cohort_snapshot(tmp_path: Path, b_cpu: str, a_policy: str = "Never") -> Snapshot:
    """ClusterQueues a and b (4 cpu each) in cohort co; a's pending wa (6 cpu, higher priority,
    older) and b's pending wb (B_CPU); A_POLICY: a's withinClusterQueue preemption (not Never: a
    may not borrow, a lower priority Workload holds its 4 cpu, and wa needs 2)."""
    kueue = "kueue.x-k8s.io/v1beta2"

    def cq(name: str, policy: str) -> dict[str, Any]:
        quota = {"name": "cpu", "nominalQuota": "4"}
        if policy != "Never":
            quota["borrowingLimit"] = "0"
        return {
            "apiVersion": kueue,
            "kind": "ClusterQueue",
            "metadata": {"name": name},
            "spec": {
                "cohortName": "co",
                "namespaceSelector": {},
                "preemption": {"withinClusterQueue": policy},
                "resourceGroups": [
                    {
                        "coveredResources": ["cpu"],
                        "flavors": [{"name": "default", "resources": [quota]}],
                    }
                ],
            },
        }

    def wl(name: str, queue: str, cpu: str, priority: int, created: str) -> dict[str, Any]:
        spec = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}
        return {
            "apiVersion": kueue,
            "kind": "Workload",
            "metadata": {"name": name, "namespace": "ns", "uid": name, "creationTimestamp": created},
            "spec": {
                "queueName": queue,
                "priority": priority,
                "podSets": [{"name": "main", "count": 1, "template": {"spec": spec}}],
            },
        }

    def lq(name: str, cq_name: str) -> dict[str, Any]:
        return {
            "apiVersion": kueue,
            "kind": "LocalQueue",
            "metadata": {"name": name, "namespace": "ns"},
            "spec": {"clusterQueue": cq_name},
        }

    items = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}},
        {"apiVersion": kueue, "kind": "ResourceFlavor", "metadata": {"name": "default"}, "spec": {}},
        cq("a", a_policy),
        cq("b", "Never"),
        lq("qa", "a"),
        lq("qb", "b"),
        wl("wa", "qa", "6", 5, "2026-03-02T08:00:00Z"),
        wl("wb", "qb", b_cpu, 0, "2026-03-02T09:00:00Z"),
    ]
    if a_policy != "Never":  # a's quota held by a lower priority Workload: wa needs preemption
        held = wl("low", "qa", "4", 0, "2026-03-02T07:00:00Z")
        held["status"] = {
            "conditions": [{"type": "QuotaReserved", "status": "True"}, {"type": "Admitted", "status": "True"}],
            "admission": {
                "clusterQueue": "a",
                "podSetAssignments": [
                    {"name": "main", "count": 1, "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": "4"}}
                ],
            },
        }
        items[-2]["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "2"
        items.append(held)
    path = tmp_path / "cohort.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    return FileSource([str(path)], complete=True).load()


def test_another_cluster_queues_head_takes_its_quota_first(tmp_path: Path) -> None:
    """Both heads borrow (6 and 5 of the cohort's 8); a's, older, goes first in Kueue's next cycle
    and leaves wb 2 of its 5: BehindCohort, in Kueue's words, naming the head that took it."""
    snapshot = _cohort_snapshot(tmp_path, "5")
    wb = snapshot.kueue_workloads["ns/wb"]
    facts = facts_for(WORKLOAD, "ns", "wb", wb, snapshot)
    assert (facts.admitted, facts.fate, facts.cohort_ahead) == (False, Fate.BEHIND_COHORT, ("ns/wa",))
    assert (facts.reason, facts.message) == (
        "WaitingForQuota",
        "Workload no longer fits after processing another workload",
    )
    assert not facts.inconclusive
    assert facts_for(WORKLOAD, "ns", "wa", snapshot.kueue_workloads["ns/wa"], snapshot).fate is Fate.ADMITS_NEXT


def test_a_preempting_head_before_it_is_not_evaluated(tmp_path: Path) -> None:
    """a's head needs preemption (withinClusterQueue LowerPriority, candidates not searched): wb's
    4 fit only if it takes nothing, so wb's fate is not evaluated (inconclusive)."""
    snapshot = _cohort_snapshot(tmp_path, "4", a_policy="LowerPriority")
    facts = facts_for(WORKLOAD, "ns", "wb", snapshot.kueue_workloads["ns/wb"], snapshot)
    assert (facts.admitted, facts.fate, facts.cohort_ahead) == (False, Fate.COHORT_NOT_EVALUATED, ("ns/wa",))
    assert facts.inconclusive and "preemption" in facts.not_evaluated


def test_behind_a_cohort_head_is_said_with_the_head(tmp_path: Path) -> None:
    """The first line names the head of another ClusterQueue that takes the quota; blockedBy is it."""
    from podwhy.report.build.kueue import build_kueue_report
    from podwhy.report.model import KueueReport

    snapshot = _cohort_snapshot(tmp_path, "5")
    facts = facts_for(WORKLOAD, "ns", "wb", snapshot.kueue_workloads["ns/wb"], snapshot)
    report = build_kueue_report(facts, snapshot, None)
    kueue = report.kueue
    assert isinstance(kueue, KueueReport)
    assert "Kueue's next cycle first admits Workload ns/wa of other ClusterQueues of its cohort" in kueue.summary
    assert kueue.blockedBy == "ns/wa"
