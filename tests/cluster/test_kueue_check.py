"""`check -f job.yaml` with Kueue in front (cluster/kueuecheck.py): a Job with a queue-name label
is created suspended, its Workload built as Kueue's Job controller builds it and nominated over
the snapshot's Kueue objects; held, none of its pods is created (exit 1), unknown (no Kueue
objects) it is inconclusive (exit 3), admitted its pods carry the flavor's node labels."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.cluster.kueuecheck import KueueDecision, inject
from podwhy.model import objects as o
from tests.builders import quotas_listed
from tests.paths import REPO

CLUSTER = REPO / "fixtures" / "kueue" / "cluster.yaml"


def _job(name: str, cpu: str, queue: str | None = "user-queue", suspend: bool | None = None) -> dict[str, Any]:
    labels = {"kueue.x-k8s.io/queue-name": queue} if queue else {}
    spec: dict[str, Any] = {
        "parallelism": 1,
        "template": {
            "spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "c", "image": "x:1", "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}],
            }
        },
    }
    if suspend is not None:
        spec["suspend"] = suspend
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "team-a", "labels": labels},
        "spec": spec,
    }


def _check(
    tmp_path: Path, *jobs: dict[str, Any], cluster: Path = CLUSTER, out: str = "json", flags: tuple[str, ...] = ()
) -> tuple[int, Any]:
    manifest = tmp_path / "jobs.yaml"
    manifest.write_text(yaml.safe_dump_all(list(jobs)))
    args = ["check", "-f", str(manifest), "--from", str(cluster), "--from", quotas_listed(tmp_path), "-o", out, *flags]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400", "NO_COLOR": "1"})
    return result.exit_code, json.loads(result.stdout) if out == "json" else result.stdout


def test_a_job_that_fits_is_admitted_and_placed_in_its_flavor(tmp_path: Path) -> None:
    code, report = _check(tmp_path, _job("small", "1"))
    assert code == 0
    (workload,) = report["workloads"]
    kueue = workload["kueue"]
    assert kueue["admitted"] is True and kueue["clusterQueue"] == "cluster-queue"
    assert kueue["workload"].startswith("team-a/job-small-")
    assert kueue["podSets"] == [{"name": "main", "flavors": {"cpu": "default-flavor", "memory": "default-flavor"}}]
    assert kueue["nodeSelector"] == {"instance-type": "on-demand"}
    assert workload["placed"] == 1


def test_a_job_short_of_quota_is_held_with_kueues_message(tmp_path: Path) -> None:
    code, report = _check(tmp_path, _job("big", "6"))
    assert code == 1
    (workload,) = report["workloads"]
    kueue = workload["kueue"]
    message = (
        "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default-flavor, 3 more"
        " needed"
    )
    assert (kueue["admitted"], kueue["message"]) == (False, message)
    assert workload["placed"] == 0
    (replica,) = workload["replicas"]
    assert replica["created"] is False and message in replica["message"]
    assert report["summary"]["failingWorkloads"] == 1


def test_the_legacy_reason_with_unadmitted_workloads_observability_off(tmp_path: Path) -> None:
    """--kueue-feature-gates reaches check's Kueue: the same message, the reason Kueue gives with
    the gate off (Pending)."""
    _code, granular = _check(tmp_path, _job("big", "6"))
    flags = ("--kueue-feature-gates", "UnadmittedWorkloadsObservability=false")
    _code, legacy = _check(tmp_path, _job("big", "6"), flags=flags)
    (before,), (after,) = granular["workloads"], legacy["workloads"]
    assert (before["kueue"]["reason"], after["kueue"]["reason"]) == ("WaitingForQuota", "Pending")
    assert after["kueue"]["message"] == before["kueue"]["message"]


def test_an_admitted_job_takes_quota_from_the_next(tmp_path: Path) -> None:
    """3 cpus are free: alone, a 3-cpu Job fits; after a 1-cpu Job is admitted, 1 more is needed."""
    assert _check(tmp_path, _job("three", "3"))[0] == 0
    code, report = _check(tmp_path, _job("small", "1"), _job("three", "3"))
    assert code == 1
    first, second = report["workloads"]
    assert first["kueue"]["admitted"] is True
    assert second["kueue"]["message"].endswith(
        "insufficient unused quota for cpu in flavor default-flavor, 1 more needed"
    )


def test_a_missing_local_queue_is_kueues_words(tmp_path: Path) -> None:
    code, report = _check(tmp_path, _job("lost", "1", queue="nope-queue"))
    assert code == 1
    assert report["workloads"][0]["kueue"]["message"] == "LocalQueue nope-queue doesn't exist"


def test_without_kueue_objects_it_is_inconclusive(tmp_path: Path) -> None:
    document = yaml.safe_load(CLUSTER.read_text())
    document["items"] = [i for i in document["items"] if "kueue" not in i["apiVersion"]]
    bare = tmp_path / "bare.yaml"
    bare.write_text(yaml.safe_dump(document))
    code, report = _check(tmp_path, _job("small", "1"), cluster=bare)
    assert code == 3
    kueue = report["workloads"][0]["kueue"]
    assert kueue["admitted"] is False and "none of Kueue's objects" in kueue["inconclusive"]
    code, text = _check(tmp_path, _job("small", "1"), cluster=bare, out="table")
    assert text.splitlines()[0].startswith("inconclusive: ") and "whether Kueue admits 1 Job" in text.splitlines()[0]


def test_a_job_without_the_label_is_not_kueues(tmp_path: Path) -> None:
    code, report = _check(tmp_path, _job("plain", "6", queue=None))
    assert code == 0
    assert "kueue" not in report["workloads"][0]


def test_the_verdict_in_every_output(tmp_path: Path) -> None:
    _, table = _check(tmp_path, _job("big", "6"), out="table")
    assert "team-a/big (Job): Kueue: not admitted (LocalQueue user-queue, ClusterQueue cluster-queue)" in table
    _, markdown = _check(tmp_path, _job("big", "6"), out="markdown")
    assert "Kueue: not admitted" in markdown
    junit = tmp_path / "junit.xml"
    manifest = tmp_path / "jobs.yaml"
    manifest.write_text(yaml.safe_dump(_job("big", "6")))
    args = ["check", "-f", str(manifest), "--from", str(CLUSTER), "--from", quotas_listed(tmp_path)]
    CliRunner().invoke(app, [*args, "--junit", str(junit)])
    failure = ET.parse(junit).getroot().find(".//failure")
    assert failure is not None and "insufficient unused quota for cpu" in failure.get("message", "")


def test_inject_merges_node_labels_and_appends_tolerations() -> None:
    """PodSetInfo.Merge (pkg/podset): the flavor's labels join the nodeSelector (the pod's own
    value kept), its tolerations are appended once."""
    toleration = o.Toleration(key="gpu", operator="Exists", effect="NoSchedule")
    pod = o.Pod(spec=o.PodSpec(node_selector={"zone": "a", "instance-type": "mine"}, tolerations=[toleration]))
    decision = KueueDecision(
        "q", node_selector={"instance-type": "spot", "pool": "p"}, tolerations=[toleration, o.Toleration(key="spot")]
    )
    inject(pod, decision)
    assert pod.spec.node_selector == {"instance-type": "mine", "pool": "p", "zone": "a"}
    assert [t.key for t in pod.spec.tolerations or []] == ["gpu", "spot"]


def _pending_ahead(tmp_path: Path, cpu: str) -> Path:
    """The cluster with one more pending Workload (2 pods of CPU each), queued before any new Job."""
    cluster = yaml.safe_load(CLUSTER.read_text())
    template = next(
        i for i in cluster["items"] if i["kind"] == "Workload" and i["metadata"]["name"].startswith("job-training-b")
    )
    ahead = json.loads(json.dumps(template))
    ahead["metadata"].update(name="job-early-1a2b3", uid="uid-job-early", creationTimestamp="2026-03-02T08:00:00Z")
    ahead["metadata"]["labels"] = {"kueue.x-k8s.io/job-uid": "uid-job-early"}
    ahead["metadata"]["ownerReferences"][0].update(name="early", uid="uid-job-early")
    ahead["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = cpu
    ahead["status"] = {}
    cluster["items"].append(ahead)
    path = tmp_path / "cluster-ahead.yaml"
    path.write_text(yaml.safe_dump(cluster))
    return path


def test_a_fitting_workload_ahead_is_admitted_first(tmp_path: Path) -> None:
    """BestEffortFIFO: a pending Workload ahead that fits (2 cpus of the 3 free) is admitted in an
    earlier cycle and charged, so a 3-cpu Job that fits alone is then 2 cpus short; the one ahead
    that does not fit (training-b, 5 cpus) is set aside and takes nothing."""
    code, report = _check(tmp_path, _job("three", "3"), cluster=_pending_ahead(tmp_path, "1"))
    assert code == 1
    assert report["workloads"][0]["kueue"]["message"].endswith(
        "insufficient unused quota for cpu in flavor default-flavor, 2 more needed"
    )
    code, report = _check(tmp_path, _job("one", "1"), cluster=_pending_ahead(tmp_path, "1"))
    assert code == 0 and report["workloads"][0]["kueue"]["admitted"] is True


def _cron_job(name: str, cpu: str) -> dict[str, Any]:
    job = _job(name, cpu)
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": name, "namespace": "team-a"},
        "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"metadata": job["metadata"], "spec": job["spec"]}},
    }


def test_a_cron_jobs_next_job_is_kueues_when_its_template_has_the_label(tmp_path: Path) -> None:
    """The CronJob controller copies the Job template's labels to the Job (getJobFromTemplate2):
    with Kueue's queue-name label, Kueue holds the Job it creates as it holds any Job."""
    code, report = _check(tmp_path, _cron_job("nightly", "6"))
    assert code == 1
    (workload,) = report["workloads"]
    assert workload["kind"] == "CronJob"
    assert workload["kueue"]["workload"].startswith("team-a/job-nightly-")
    assert workload["kueue"]["message"].endswith(
        "insufficient unused quota for cpu in flavor default-flavor, 3 more needed"
    )
    code, report = _check(tmp_path, _cron_job("hourly", "1"))
    assert code == 0 and report["workloads"][0]["kueue"]["admitted"] is True


def _live_job(name: str) -> dict[str, Any]:
    """A Job of the cluster as `kubectl get -o yaml` shows it, its status dropped (as applied)."""
    cluster = yaml.safe_load(CLUSTER.read_text())
    job: dict[str, Any] = next(i for i in cluster["items"] if i["kind"] == "Job" and i["metadata"]["name"] == name)
    job.pop("status", None)
    return job


def test_a_suspended_job_the_cluster_has_gets_its_workloads_verdict(tmp_path: Path) -> None:
    """A Job Kueue keeps suspended in the cluster, applied again: not 'suspended until resumed'
    (spec.suspend is Kueue's to lift) but its existing Workload's verdict, recomputed: training-b's
    two pods of 2500m are 2 cpus short, as its recorded condition says; none is created."""
    code, report = _check(tmp_path, _live_job("training-b"))
    assert code == 1
    (workload,) = report["workloads"]
    kueue = workload["kueue"]
    assert kueue["workload"] == "team-a/job-training-b-9c2a7"
    assert kueue["message"].endswith("insufficient unused quota for cpu in flavor default-flavor, 2 more needed")
    assert [r["created"] for r in workload["replicas"]] == [False, False]


def _cohort_rival(tmp_path: Path) -> Path:
    """The cluster with cluster-queue in cohort "co" beside ClusterQueue "other" (2 cpus of its
    own), whose pending Workload (2 pods of 1500m, created first) borrows 1 cpu from the cohort;
    cluster-queue's own pending training-b is left out (it would now fit by borrowing)."""
    path = _pending_ahead(tmp_path, "1500m")
    cluster = yaml.safe_load(path.read_text())
    cluster["items"] = [i for i in cluster["items"] if not i["metadata"]["name"].startswith("job-training-b")]
    cq = next(i for i in cluster["items"] if i["kind"] == "ClusterQueue")
    cq["spec"]["cohortName"] = "co"
    other = json.loads(json.dumps(cq))
    other["metadata"]["name"] = "other"
    other["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = "2"
    other.pop("status", None)
    lq = next(i for i in cluster["items"] if i["kind"] == "LocalQueue")
    other_lq = json.loads(json.dumps(lq))
    other_lq["metadata"]["name"] = "other-queue"
    other_lq["spec"]["clusterQueue"] = "other"
    other_lq.pop("status", None)
    early = next(i for i in cluster["items"] if i["metadata"]["name"] == "job-early-1a2b3")
    early["spec"]["queueName"] = "other-queue"
    cluster["items"] += [other, other_lq]
    path.write_text(yaml.safe_dump(cluster))
    return path


def test_another_cluster_queues_head_takes_the_cohorts_quota_first(tmp_path: Path) -> None:
    """Kueue's next cycle: both heads borrow (height 1), the other ClusterQueue's is older and goes
    first, and the 4-cpu Job that fits alone no longer fits (Kueue's own words); a 2-cpu one, not
    borrowing, goes before it and is admitted."""
    cluster = _cohort_rival(tmp_path)
    code, report = _check(tmp_path, _job("four", "4"), cluster=cluster)
    kueue = report["workloads"][0]["kueue"]
    assert (code, kueue["admitted"]) == (1, False)
    assert (kueue["reason"], kueue["message"]) == (
        "WaitingForQuota",
        "Workload no longer fits after processing another workload",
    )
    code, report = _check(tmp_path, _job("two", "2"), cluster=cluster)
    assert code == 0 and report["workloads"][0]["kueue"]["admitted"] is True
