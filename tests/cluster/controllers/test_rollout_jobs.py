"""`check` of a Job manifest naming a Job the cluster has (issue 35, item 3): what the API server's
validation lets an update change (pkg/apis/batch/validation ValidateJobSpecUpdate, with
jobStrategy's options), and what the Job controller then does (job_controller.go manageJob)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from podwhy.cluster.controllers.job import JobOutcome, job_sync, job_update_refusal
from podwhy.cluster.controllers.rollout import Rollout
from podwhy.cluster.controllers.types import JobShape, LiveJob
from podwhy.features.emulation import V1_35, V1_36, Emulation
from podwhy.model import objects as o
from tests.cluster.controllers.test_rollout import _check, _node, _running

Json = dict[str, Any]

TEMPLATE: Json = {
    "metadata": {"labels": {"batch.kubernetes.io/controller-uid": "u", "batch.kubernetes.io/job-name": "abc"}},
    "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "x:1"}]},
}


def _shape(
    parallelism: int = 1, completions: int | None = None, mode: str = "NonIndexed", suspend: bool = False
) -> JobShape:
    return JobShape(parallelism, completions, mode, suspend, None)


def _live(
    shape: JobShape, template: Json | None = None, started: str | None = None, suspended_condition: bool = False
) -> LiveJob:
    return LiveJob(shape, template or TEMPLATE, started, 0, "", suspended_condition)


def _changed(**spec: Any) -> Json:
    out = copy.deepcopy(TEMPLATE)
    out["spec"].update(spec)
    return out


AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "foo", "operator": "In", "values": ["bar"]}]}]
        }
    }
}
TOLERATIONS = [{"key": "foo", "operator": "Exists", "effect": "NoSchedule"}]
RESOURCES = {"requests": {"cpu": "1"}}


_IMMUTABLE_TEMPLATE = 'The Job "abc" is invalid: spec.template: field is immutable'
STARTED = "2026-01-01T00:00:00Z"


@pytest.mark.parametrize(
    ("old", "new", "manifest", "started", "emulation", "refusal"),
    [
        # validation_test.go TestValidateJobUpdate, case by case (by its name).
        pytest.param(_shape(5), _shape(2), TEMPLATE, None, V1_35, None, id="mutable fields"),
        pytest.param(
            _shape(1),
            _shape(1, 1),
            TEMPLATE,
            None,
            V1_35,
            'The Job "abc" is invalid: spec.completions: Invalid value: 1: field is immutable',
            id="immutable completions for non-indexed jobs",
        ),
        pytest.param(
            _shape(1),
            _shape(1),
            _changed(containers=[{"name": "c", "image": "x:2"}]),
            None,
            V1_35,
            _IMMUTABLE_TEMPLATE,
            id="immutable pod template",
        ),
        pytest.param(
            _shape(2, 2),
            _shape(2, 2, "Indexed"),
            TEMPLATE,
            None,
            V1_35,
            'The Job "abc" is invalid: spec.completionMode: Invalid value: "Indexed": field is immutable',
            id="immutable completion mode",
        ),
        pytest.param(
            _shape(1),
            _shape(1),
            _changed(affinity=AFFINITY),
            None,
            V1_35,
            _IMMUTABLE_TEMPLATE,
            id="immutable node affinity",
        ),
        pytest.param(
            _shape(1, suspend=True),
            _shape(1, suspend=True),
            _changed(affinity=AFFINITY),
            None,
            V1_35,
            None,
            id="add node affinity",
        ),
        pytest.param(
            _shape(1),
            _shape(1),
            _changed(tolerations=TOLERATIONS),
            None,
            V1_35,
            _IMMUTABLE_TEMPLATE,
            id="immutable tolerations",
        ),
        pytest.param(
            _shape(1, suspend=True),
            _shape(1),
            _changed(tolerations=TOLERATIONS),
            None,
            V1_35,
            None,
            id="mutable tolerations",
        ),
        pytest.param(
            _shape(1),
            _shape(1),
            _changed(nodeSelector={"foo": "bar"}),
            None,
            V1_35,
            _IMMUTABLE_TEMPLATE,
            id="immutable node selector",
        ),
        pytest.param(
            _shape(1, suspend=True),
            _shape(1),
            _changed(nodeSelector={"foo": "bar"}),
            None,
            V1_35,
            None,
            id="mutable node selector",
        ),
        # jobStrategy: a suspended Job that once started may change no template field in v1.35.
        pytest.param(
            _shape(1, suspend=True),
            _shape(1),
            _changed(nodeSelector={"foo": "bar"}),
            STARTED,
            V1_35,
            _IMMUTABLE_TEMPLATE,
            id="mutable node selector, once started",
        ),
        pytest.param(
            _shape(1, 1, "Indexed"),
            _shape(3, 3, "Indexed"),
            TEMPLATE,
            None,
            V1_35,
            None,
            id="update completions and parallelism to same value is valid",
        ),
        pytest.param(
            _shape(1, 1, "Indexed"),
            _shape(2, 3, "Indexed"),
            TEMPLATE,
            None,
            V1_35,
            'The Job "abc" is invalid: spec.completions: Invalid value: 3: can only be modified in tandem with'
            " spec.parallelism",
            id="indexed job updating completions and parallelism to different values is invalid",
        ),
        pytest.param(
            _shape(2, 2, "Indexed"),
            _shape(3, 2, "Indexed"),
            TEMPLATE,
            None,
            V1_35,
            None,
            id="indexed job with completions unchanged, parallelism increased higher than completions",
        ),
        # MutablePodResourcesForSuspendedJobs (on in v1.36): the Suspended condition True, no pod active.
        pytest.param(
            _shape(1, suspend=True),
            _shape(1, suspend=True),
            _changed(containers=[{"name": "c", "image": "x:1", "resources": RESOURCES}]),
            STARTED,
            V1_36,
            None,
            id="allow container resource updates only",
        ),
        pytest.param(
            _shape(1, suspend=True),
            _shape(1, suspend=True),
            _changed(containers=[{"name": "c", "image": "x:1", "resources": RESOURCES}]),
            STARTED,
            V1_35,
            _IMMUTABLE_TEMPLATE,
            id="reject container resource updates only with feature gate off",
        ),
        pytest.param(
            _shape(1, suspend=True),
            _shape(1, suspend=True),
            _changed(containers=[{"name": "c", "image": "x:2", "resources": RESOURCES}]),
            STARTED,
            V1_36,
            _IMMUTABLE_TEMPLATE,
            id="reject container resource update with other field changes",
        ),
    ],
)
def test_what_an_update_may_change(
    old: JobShape, new: JobShape, manifest: Json, started: str | None, emulation: Emulation, refusal: str | None
) -> None:
    live = _live(old, started=started, suspended_condition=old.suspend and started is not None)
    assert job_update_refusal("abc", manifest, new, live, 0, emulation) == refusal


def _pod(name: str, index: int | None = None, created: str = "2026-01-01T00:00:00Z") -> o.Pod:
    labels = {} if index is None else {"batch.kubernetes.io/job-completion-index": str(index)}
    return o.Pod(
        metadata=o.ObjectMeta(name=name, namespace="default", labels=labels, creation_timestamp=created),
        spec=o.PodSpec(node_name="n1"),
        status=o.PodStatus(phase="Running"),
    )


def _sync(
    shape: JobShape, active: list[o.Pod], succeeded: int, outcome: JobOutcome = JobOutcome.RUNS
) -> tuple[Rollout, list[str]]:
    fresh = [_pod(f"new-{i}", i if shape.indexed else None) for i in range(10)]
    placed: list[str] = []

    def place(pod: o.Pod) -> bool:
        placed.append(pod.metadata.name)
        return True

    return job_sync(shape, active, succeeded, fresh, place, lambda pod: None, outcome), placed


@pytest.mark.parametrize(
    ("shape", "active", "succeeded", "outcome", "created", "deleted"),
    [
        # job_controller_test.go TestControllerSyncJob, by its case names.
        pytest.param(_shape(2, 5), 1, 1, JobOutcome.RUNS, 1, 0, id="too few active pods"),
        pytest.param(_shape(2), 2, 0, JobOutcome.RUNS, 0, 0, id="WQ job: correct # of pods"),
        pytest.param(_shape(2, 5), 3, 0, JobOutcome.RUNS, 0, 1, id="too many active pods"),
        pytest.param(_shape(2, 5), 10, 0, JobOutcome.RUNS, 0, 8, id="more active pods than parallelism"),
        pytest.param(_shape(3, 4), 3, 2, JobOutcome.RUNS, 0, 1, id="more active pods than remaining completions"),
        pytest.param(
            _shape(2, 4, suspend=True),
            2,
            0,
            JobOutcome.SUSPENDED,
            0,
            2,
            id="suspending a job with satisfied expectations",
        ),
        pytest.param(_shape(2, 4), 0, 0, JobOutcome.RUNS, 2, 0, id="resuming a suspended job"),
        # A work queue that saw a success leaves what runs running (manageJob).
        pytest.param(_shape(4), 2, 1, JobOutcome.RUNS, 0, 0, id="WQ job with a success: parallelism raised"),
        pytest.param(_shape(2, 5), 2, 0, JobOutcome.DEADLINE_EXCEEDED, 0, 2, id="past activeDeadlineSeconds"),
        pytest.param(_shape(4, 5), 2, 0, JobOutcome.FINISHED, 0, 0, id="a finished Job"),
    ],
)
def test_the_job_controller_sizes_its_pods(
    shape: JobShape, active: int, succeeded: int, outcome: JobOutcome, created: int, deleted: int
) -> None:
    rollout, placed = _sync(shape, [_pod(f"old-{i}") for i in range(active)], succeeded, outcome)
    assert (len(placed), len(rollout.removed)) == (created, deleted)


def test_an_indexed_job_removes_indexes_out_of_range_first() -> None:
    """job_controller_test.go "indexed job with indexes outside of range": activePodsForRemoval takes
    the pods of an index >= completions (or repeated) before any other."""
    shape = _shape(2, 5, "Indexed")
    active = [_pod("a", 0), _pod("b", 7), _pod("c", 1), _pod("d", 1)]
    rollout, placed = _sync(shape, active, 0)
    assert (sorted(rollout.removed), placed) == (["b", "d"], [])


def test_an_elastic_indexed_job_creates_the_indexes_not_running() -> None:
    rollout, placed = _sync(_shape(4, 4, "Indexed"), [_pod("a", 0), _pod("b", 1)], 0)
    assert (placed, rollout.removed) == (["new-2", "new-3"], [])


# ---------------------------------------------------------------- through `podwhy check`


def _job(parallelism: int = 2, completions: int | None = 4, image: str = "x:1", **spec: Any) -> Json:
    body: Json = {
        "parallelism": parallelism,
        "template": {
            "metadata": {"labels": {"app": "train"}},
            "spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "c", "image": image, "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
            },
        },
        **spec,
    }
    if completions is not None:
        body["completions"] = completions
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "train", "namespace": "default"},
        "spec": body,
    }


def _live_job(parallelism: int = 2, completions: int | None = 4, image: str = "x:1", **status: Any) -> Json:
    job = _job(parallelism, completions, image)
    job["metadata"]["uid"] = "j"
    job["spec"]["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid": "j"}}
    job["spec"]["template"]["metadata"]["labels"].update(
        {"batch.kubernetes.io/controller-uid": "j", "batch.kubernetes.io/job-name": "train"}
    )
    job["status"] = {"startTime": STARTED, **status}
    return job


def _job_pods(count: int, image: str = "x:1") -> list[Json]:
    labels = {"app": "train", "batch.kubernetes.io/controller-uid": "j", "batch.kubernetes.io/job-name": "train"}
    pods = [_running(f"train-{i}", "n1", "Job", "train", labels, image) for i in range(count)]
    for pod in pods:
        pod["metadata"]["ownerReferences"][0]["apiVersion"] = "batch/v1"
    return pods


def test_a_running_job_given_more_parallelism_gets_more_pods(tmp_path: Path) -> None:
    """The reported case: parallelism is mutable; the Job controller creates the extra pods."""
    code, out, report = _check(tmp_path, [_node("n1", "8"), _live_job(), *_job_pods(2)], _job(parallelism=4))
    workload = report["workloads"][0]
    assert (code, workload["rollout"]["status"], workload["placed"]) == (0, "Unchanged", 2)
    assert "the Job controller creates 2 more pods, 2 placed (2 running)" in " ".join(out.split())


def test_a_job_with_another_template_and_no_pods_cannot_be_applied(tmp_path: Path) -> None:
    """The Job exists (its pods ended or were never created): its template is still immutable."""
    code, _, report = _check(tmp_path, [_node("n1", "8"), _live_job(image="x:1")], _job(image="x:2"))
    rollout = report["workloads"][0]["rollout"]
    assert (code, rollout["status"], report["workloads"][0]["replicas"]) == (1, "Immutable", [])
    assert rollout["refusal"] == 'The Job "train" is invalid: spec.template: field is immutable'


def test_changed_completions_cannot_be_applied(tmp_path: Path) -> None:
    code, _, report = _check(tmp_path, [_node("n1", "8"), _live_job(), *_job_pods(2)], _job(completions=6))
    rollout = report["workloads"][0]["rollout"]
    assert (code, rollout["status"]) == (1, "Immutable")
    assert rollout["refusal"] == 'The Job "train" is invalid: spec.completions: Invalid value: 6: field is immutable'


def test_suspending_a_running_job_deletes_its_pods(tmp_path: Path) -> None:
    code, out, report = _check(tmp_path, [_node("n1", "8"), _live_job(), *_job_pods(2)], _job(suspend=True))
    rollout = report["workloads"][0]["rollout"]
    assert (code, rollout["job"], sorted(rollout["removed"])) == (0, "Suspended", ["train-0", "train-1"])
    assert "suspended (spec.suspend): the Job controller deletes its 2 active pods" in " ".join(out.split())


def test_a_finished_job_runs_nothing_more(tmp_path: Path) -> None:
    finished = _live_job(conditions=[{"type": "Complete", "status": "True"}], succeeded=4)
    code, _, report = _check(tmp_path, [_node("n1", "8"), finished], _job(parallelism=4))
    assert (code, report["workloads"][0]["rollout"]["job"], report["workloads"][0]["replicas"]) == (0, "Finished", [])
