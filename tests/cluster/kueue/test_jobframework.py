"""The Workload Kueue's job controllers create (cluster/kueue/jobframework.py), against Kueue's
own tests: pkg/controller/jobframework/workload_names_test.go (TestGenerateWorkloadNameWithExtra,
TestGenerateWorkloadNameWithGeneration) and pkg/controller/jobs/job/job_controller_test.go
(TestPodSets), with the framework's defaults (defaults.go, utils.go, reconciler.go)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from podwhy.cluster.kueue import jobframework as jf
from podwhy.model import objects as o

LONG = (
    "marketing-campaign-autumn-2024-region-north-america-department-digital-strategy-sub-department-social-media-"
    "engagement-tracker-and-analytics-dashboard-v2-final-revision-by-engineering-team-lead-senior-architect-"
    "validation-checked-approved-by-legal-and-ops-dept"
)


# TestGenerateWorkloadNameWithExtra (workload_names_test.go): the cases with a `want`.
@pytest.mark.parametrize(
    ("owner", "uid", "extra", "short", "want"),
    [
        ("name", "uid", "", False, "job-name-ef3a1"),  # short name, no extra
        ("name", "uid", "1", False, "job-name-2514c"),  # short name, with extra
        (
            LONG,
            "uid",
            "",
            False,
            "job-marketing-campaign-autumn-2024-region-north-america-department-digital-strategy-sub-department-"
            "social-media-engagement-tracker-and-analytics-dashboard-v2-final-revision-by-engineering-team-lead-"
            "senior-architect-validation-checked-approved-by-l-218b8",
        ),
        (LONG, "uid", "", True, "job-marketing-campaign-autumn-2024-region-north-america-d-218b8"),
    ],
)
def test_workload_name_as_upstream(owner: str, uid: str, extra: str, short: bool, want: str) -> None:
    got = jf.workload_name(owner, uid, jf.JOB_GVK, extra, short=short)
    assert got == want
    assert len(got) <= (63 if short else 253)


@pytest.mark.parametrize("extra", ["", "1", "100", "custom-part"])
def test_workload_name_prefix_and_length(extra: str) -> None:
    """The prefix cases: `job-my-job-` and five hash digits."""
    got = jf.workload_name("my-job", "uid-123", jf.JOB_GVK, extra)
    prefix = jf.workload_name_prefix("my-job", jf.JOB_GVK)
    assert got.startswith("job-my-job-") and len(got) == len(prefix) + 1 + jf.HASH_LENGTH


def test_workload_name_extra_changes_hash() -> None:
    """The equality cases: different extras, different names; the same, the same."""
    name = jf.workload_name
    assert name("my-job", "uid-123", jf.JOB_GVK, "1") != name("my-job", "uid-123", jf.JOB_GVK, "2")
    assert name("my-job", "uid-123", jf.JOB_GVK, "100") == name("my-job", "uid-123", jf.JOB_GVK, "100")
    assert name("my-job", "uid-123", jf.JOB_GVK) != name("my-job", "uid-123", jf.JOB_GVK, "1")
    # The group is hashed: a Pod and a Job of one name and uid differ beyond their prefixes.
    assert name("x", "u", jf.POD_GVK)[-5:] != name("x", "u", jf.JOB_GVK)[-5:]


# Job.podsCount (job_controller.go): parallelism (default 1), at most completions.
@pytest.mark.parametrize(
    ("parallelism", "completions", "want"),
    [(None, None, 1), (3, None, 3), (3, 2, 2), (2, 5, 2), (0, 4, 0), (None, 0, 0)],
)
def test_pods_count(parallelism: int | None, completions: int | None, want: int) -> None:
    assert jf.pods_count(parallelism, completions) == want


@pytest.mark.parametrize(
    ("text", "want"), [("2", 2), ("+3", 3), ("-1", -1), ("007", 7), ("x", None), (" 2", None), ("4294967298", 2)]
)
def test_min_pods_count_parses_as_go(text: str, want: int | None) -> None:
    assert jf.min_pods_count({jf.JOB_MIN_PARALLELISM_ANNOTATION: text}) == want


def _job(**spec: Any) -> o.Workload:
    meta = spec.pop("metadata", {})
    body = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "job", "namespace": "ns", "uid": "job-uid", **meta},
        "spec": {
            "template": {
                "metadata": spec.pop("template_metadata", {}),
                "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
            },
            **spec,
        },
    }
    return msgspec.convert(body, o.Workload)


NO_TAS = jf.FrameworkOptions(gates={"TopologyAwareScheduling": False})


# TestPodSets (job_controller_test.go).
def test_pod_sets_no_partial_admission() -> None:
    (ps,) = jf.job_pod_sets(_job(parallelism=3), NO_TAS)
    assert (ps.name, ps.count, ps.min_count, ps.topology_request) == ("main", 3, None, None)


def test_pod_sets_partial_admission() -> None:
    job = _job(parallelism=3, metadata={"annotations": {jf.JOB_MIN_PARALLELISM_ANNOTATION: "2"}})
    (ps,) = jf.job_pod_sets(job, NO_TAS)
    assert (ps.count, ps.min_count) == (3, 2)
    off = jf.FrameworkOptions(gates={"TopologyAwareScheduling": False, "PartialAdmission": False})
    assert jf.job_pod_sets(job, off)[0].min_count is None  # clearMinCountsIfFeatureDisabled


@pytest.mark.parametrize(
    ("annotations", "tas", "want"),
    [
        ({jf.TOPOLOGY_REQUIRED: "cloud.com/block"}, True, {"required": "cloud.com/block"}),
        ({jf.TOPOLOGY_PREFERRED: "cloud.com/block"}, True, {"preferred": "cloud.com/block"}),
        (
            {jf.TOPOLOGY_SLICE_REQUIRED: "cloud.com/block", jf.TOPOLOGY_SLICE_SIZE: "1"},
            True,
            {"podSetSliceRequiredTopology": "cloud.com/block", "podSetSliceSize": 1},
        ),
        ({jf.TOPOLOGY_SLICE_REQUIRED: "cloud.com/block"}, True, {}),  # only the slice topology
        ({jf.TOPOLOGY_SLICE_SIZE: "1"}, True, {}),  # only the slice size
        ({jf.TOPOLOGY_SLICE_REQUIRED: "cloud.com/block", jf.TOPOLOGY_SLICE_SIZE: "1"}, False, None),
        ({jf.TOPOLOGY_REQUIRED: "cloud.com/block"}, False, None),
    ],
)
def test_pod_sets_topology(annotations: dict[str, str], tas: bool, want: dict[str, Any] | None) -> None:
    options = jf.FrameworkOptions(gates={"TopologyAwareScheduling": tas})
    (ps,) = jf.job_pod_sets(_job(parallelism=3, template_metadata={"annotations": annotations}), options)
    got = msgspec.to_builtins(ps.topology_request) if ps.topology_request is not None else None
    assert got == want


def test_pod_sets_clean_labels() -> None:
    """cleanLabels: the controller-uid labels go, the job-name labels stay (TestCleanLabels)."""
    labels = {
        "controller-uid": "u",
        "batch.kubernetes.io/controller-uid": "u",
        "job-name": "job",
        "batch.kubernetes.io/job-name": "job",
        "app": "x",
    }
    (ps,) = jf.job_pod_sets(_job(template_metadata={"labels": labels}), NO_TAS)
    assert ps.template.metadata.labels == {"job-name": "job", "batch.kubernetes.io/job-name": "job", "app": "x"}


def _reads(**kw: Any) -> jf.KueueReads:
    return jf.KueueReads(**kw)


def test_job_workload_fields() -> None:
    job = _job(parallelism=2, metadata={"labels": {jf.QUEUE_LABEL: "team-a", jf.MAX_EXEC_TIME_LABEL: "60"}})
    built = jf.job_workload(job, _reads(), NO_TAS)
    wl = built.workload
    assert built.problem == "" and wl is not None
    assert wl.metadata.name == jf.workload_name("job", "job-uid", jf.JOB_GVK)
    assert wl.metadata.namespace == "ns"
    assert wl.metadata.labels == {jf.JOB_UID_LABEL: "job-uid"}
    (ref,) = wl.metadata.owner_references
    assert (ref.api_version, ref.kind, ref.name, ref.uid, ref.controller) == ("batch/v1", "Job", "job", "job-uid", True)
    assert (wl.spec.queue_name, wl.spec.priority, wl.spec.priority_class_ref) == ("team-a", 0, None)
    assert wl.spec.maximum_execution_time_seconds == 60
    assert wl.spec.pod_sets[0].count == 2


def test_job_uid_not_a_label_value() -> None:
    job = _job(metadata={"uid": "not/a label"})
    wl = jf.job_workload(job, _reads(), NO_TAS).workload
    assert wl is not None and jf.JOB_UID_LABEL not in wl.metadata.labels


def _wpc(name: str, value: int) -> o.WorkloadPriorityClass:
    return o.WorkloadPriorityClass(metadata=o.ObjectMeta(name=name), value=value)


def _pc(name: str, value: int, default: bool = False) -> o.PriorityClass:
    return o.PriorityClass(metadata=o.ObjectMeta(name=name), value=value, global_default=default)


@pytest.mark.parametrize(
    ("labels", "pc_name", "reads", "want"),
    [
        ({jf.PRIORITY_CLASS_LABEL: "high"}, "", {"workload_priority_classes": {"high": _wpc("high", 100)}}, 100),
        ({jf.PRIORITY_CLASS_LABEL: "gone"}, "", {}, 'WorkloadPriorityClass "gone" not found'),
        ({}, "pc", {"priority_classes": {"pc": _pc("pc", 7)}}, 7),
        ({}, "nope", {}, 'priorityclasses.scheduling.k8s.io "nope" not found'),
        ({}, "", {"priority_classes": {"a": _pc("a", 9, True), "b": _pc("b", 3, True), "c": _pc("c", 1)}}, 3),
        ({}, "", {}, 0),
    ],
)
def test_extract_priority(labels: dict[str, str], pc_name: str, reads: dict[str, Any], want: int | str) -> None:
    template = o.PodTemplateSpec(spec=o.PodSpec(priority_class_name=pc_name or None))
    got = jf.extract_priority(labels, [o.PodSet(template=template)], _reads(**reads))
    assert (got if isinstance(got, str) else got[1]) == want


def test_workload_priority_class_ref() -> None:
    job = _job(metadata={"labels": {jf.PRIORITY_CLASS_LABEL: "high"}})
    wl = jf.job_workload(job, _reads(workload_priority_classes={"high": _wpc("high", 5)}), NO_TAS).workload
    assert wl is not None and wl.spec.priority_class_ref is not None
    assert (wl.spec.priority_class_ref.group, wl.spec.priority_class_ref.kind) == (
        "kueue.x-k8s.io",
        "WorkloadPriorityClass",
    )
    missing = jf.job_workload(job, _reads(), NO_TAS)
    assert missing.workload is None and missing.problem == 'WorkloadPriorityClass "high" not found'


def _ns(name: str) -> o.Namespace:
    return o.Namespace(metadata=o.ObjectMeta(name=name, labels={jf.METADATA_NAME_LABEL: name}))


def _meta(labels: dict[str, str] | None = None, namespace: str = "ns") -> o.ObjectMeta:
    return o.ObjectMeta(name="j", namespace=namespace, labels=labels or {})


@pytest.mark.parametrize(
    ("kind", "labels", "options", "namespace", "want"),
    [
        ("Job", {jf.QUEUE_LABEL: "q"}, jf.FrameworkOptions(), "ns", True),
        ("Job", {}, jf.FrameworkOptions(), "ns", False),  # manageJobsWithoutQueueName defaults to false
        ("Job", {}, jf.FrameworkOptions(manage_jobs_without_queue_name=True), "ns", True),
        ("Job", {}, jf.FrameworkOptions(manage_jobs_without_queue_name=True), "kube-system", False),
        ("Pod", {jf.QUEUE_LABEL: "q"}, jf.FrameworkOptions(), "ns", False),  # the pod integration is off
        ("Pod", {jf.QUEUE_LABEL: "q"}, jf.FrameworkOptions(frameworks=("batch/job", "pod")), "ns", True),
        ("Deployment", {jf.QUEUE_LABEL: "q"}, jf.FrameworkOptions(), "ns", False),
    ],
)
def test_is_managed(
    kind: str, labels: dict[str, str], options: jf.FrameworkOptions, namespace: str, want: bool
) -> None:
    reads = _reads(namespaces={n: _ns(n) for n in ("ns", "kube-system")})
    assert jf.is_managed(kind, _meta(labels, namespace), reads, options) is want


def test_defaults_local_queue_and_priority_class() -> None:
    """ApplyDefaultLocalQueue and ApplyDefaultWorkloadPriorityClass (defaults.go)."""
    lq = o.LocalQueue(metadata=o.ObjectMeta(name="default", namespace="ns"))
    reads = _reads(
        namespaces={"ns": _ns("ns")},
        local_queues={("ns", "default"): lq},
        workload_priority_classes={"default": _wpc("default", 1)},
    )
    meta = jf.apply_defaults(_meta(), reads, jf.FrameworkOptions())
    assert meta.labels == {jf.QUEUE_LABEL: "default", jf.PRIORITY_CLASS_LABEL: "default"}
    kept = jf.apply_defaults(_meta({jf.QUEUE_LABEL: "q"}), reads, jf.FrameworkOptions())
    assert kept.labels[jf.QUEUE_LABEL] == "q"
    assert jf.is_managed("Job", _meta(), reads, jf.FrameworkOptions())  # defaulted into the queue
    off = jf.FrameworkOptions(gates={jf.WORKLOAD_PRIORITY_CLASS_DEFAULTING: False})
    assert jf.PRIORITY_CLASS_LABEL not in jf.apply_defaults(_meta(), reads, off).labels


def _pod(name: str, cpu: str = "1", **annotations: str) -> o.Pod:
    labels = {jf.POD_GROUP_NAME_LABEL: "grp", jf.QUEUE_LABEL: "q"}
    return msgspec.convert(
        {
            "metadata": {
                "name": name,
                "namespace": "ns",
                "uid": f"uid-{name}",
                "labels": labels,
                "annotations": annotations,
            },
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]},
        },
        o.Pod,
    )


def test_plain_pod_workload() -> None:
    pod = _pod("p")
    wl = jf.pod_workload(pod, _reads(), NO_TAS).workload
    assert wl is not None
    assert wl.metadata.name == jf.workload_name("p", "uid-p", jf.POD_GVK)
    assert wl.metadata.name.startswith("pod-p-")
    assert [(ps.name, ps.count) for ps in wl.spec.pod_sets] == [("main", 1)]


def test_pod_group_workload() -> None:
    total = {jf.POD_GROUP_TOTAL_COUNT_ANNOTATION: "3"}
    pods = [_pod("a", **total), _pod("b", **total), _pod("c", "2", **total)]
    wl = jf.pod_group_workload(pods, _reads(), NO_TAS).workload
    assert wl is not None and wl.metadata.name == "grp"
    assert sorted(ps.count for ps in wl.spec.pod_sets) == [1, 2]
    assert [ps.name for ps in wl.spec.pod_sets] == sorted(ps.name for ps in wl.spec.pod_sets)
    assert len(wl.metadata.owner_references) == 3
    short = jf.pod_group_workload(pods[:2], _reads(), NO_TAS)
    assert short.workload is None and short.problem == "'grp' group has fewer runnable pods than expected"
    named = [_pod("a", **total, **{jf.ROLE_HASH_ANNOTATION: "r1"}) for _ in range(3)]
    wl = jf.pod_group_workload(named, _reads(), NO_TAS).workload
    assert wl is not None and [(ps.name, ps.count) for ps in wl.spec.pod_sets] == [("r1", 3)]
