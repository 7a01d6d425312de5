"""Reading Kueue's objects (issue 37, docs/kueue.md): from `kubectl get -o yaml|json` dumps, single
objects, cluster-info dump folders and stdin; kueue.x-k8s.io/v1beta1 as Kueue converts it to
v1beta2, or refused in one line; Kueue's Workload told apart from scheduling.k8s.io's by its
group; a dump without Kueue objects changes nothing."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from podwhy.errors import PodwhyError
from podwhy.model import objects as o
from podwhy.snapshot import fastyaml
from podwhy.snapshot.apiversions import VERSIONS, read_versions
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.decode import decode
from podwhy.snapshot.resources import KUEUE_RESOURCES, kueue_dump_command
from podwhy.snapshot.source import VOUCHED_KINDS, FileSource
from tests.apiserver import load_objects
from tests.paths import REPO

ROOT = REPO
FIXTURE = ROOT / "fixtures" / "kueue" / "cluster.yaml"
KUEUE_FIELDS = (
    "resource_flavors",
    "cluster_queues",
    "cohorts",
    "local_queues",
    "kueue_workloads",
    "workload_priority_classes",
    "admission_checks",
    "topologies",
)
PENDING = "team-a/job-training-b-9c2a7"
ADMITTED = "team-a/job-training-a-6d4f1"


def _load(*paths: Path | str, stdin: bytes | None = None) -> Snapshot:
    source = FileSource([str(p) for p in paths], stdin=io.BytesIO(stdin) if stdin is not None else None)
    return source.load()


def _kueue(snapshot: Snapshot) -> dict[str, Any]:
    return {name: getattr(snapshot, name) for name in KUEUE_FIELDS}


def _objects(kinds: set[str] | None = None) -> list[dict[str, Any]]:
    return [obj for obj in load_objects(FIXTURE) if kinds is None or obj["kind"] in kinds]


def _write(path: Path, docs: list[dict[str, Any]] | dict[str, Any], as_json: bool = False) -> Path:
    if as_json:
        path.write_text(json.dumps(docs))
    elif isinstance(docs, list):
        path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    else:
        path.write_text(yaml.safe_dump(docs, sort_keys=False))
    return path


def _cluster_queue(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "ClusterQueue",
        "metadata": {"name": "cq"},
        "spec": {
            "namespaceSelector": {},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu"],
                    "flavors": [{"name": "f", "resources": [{"name": "cpu", "nominalQuota": "4"}]}],
                }
            ],
            **spec,
        },
    }


# ------------------------------------------------------------------ the fixture, every way it is written


def test_the_fixture_reads_every_kueue_kind_it_holds() -> None:
    snapshot = _load(FIXTURE)
    assert list(snapshot.resource_flavors) == ["default-flavor"]
    assert snapshot.resource_flavors["default-flavor"].spec.node_labels == {"instance-type": "on-demand"}
    queue = snapshot.cluster_queues["cluster-queue"]
    (group,) = queue.spec.resource_groups
    assert group.covered_resources == ["cpu", "memory"]
    assert [(q.name, q.nominal_quota) for q in group.flavors[0].resources] == [("cpu", "9"), ("memory", "36Gi")]
    assert queue.spec.namespace_selector == o.LabelSelector()
    assert snapshot.local_queues["team-a/user-queue"].spec.cluster_queue == "cluster-queue"
    assert sorted(snapshot.kueue_workloads) == [ADMITTED, PENDING]
    pending = snapshot.kueue_workloads[PENDING]
    assert pending.spec.queue_name == "user-queue" and pending.status.admission is None
    (condition,) = pending.status.conditions
    assert (condition.type, condition.status, condition.reason) == ("QuotaReserved", "False", "WaitingForQuota")
    assert condition.message.endswith("insufficient unused quota for cpu in flavor default-flavor, 2 more needed")
    (pod_set,) = pending.spec.pod_sets
    assert pod_set.count == 2 and pod_set.template.spec.containers[0].resources.requests == {
        "cpu": "2500m",
        "memory": "4Gi",
    }
    admission = snapshot.kueue_workloads[ADMITTED].status.admission
    assert admission is not None and admission.cluster_queue == "cluster-queue"
    assert admission.pod_set_assignments[0].flavors == {"cpu": "default-flavor", "memory": "default-flavor"}
    # The suspended Job the pending Workload stands for, with the queue-name label.
    job = snapshot.jobs["team-a/training-b"]
    assert job.spec.suspend is True and job.metadata.labels["kueue.x-k8s.io/queue-name"] == "user-queue"
    assert {"ResourceFlavor", "ClusterQueue", "LocalQueue", o.KUEUE_WORKLOAD} <= snapshot.kinds_seen
    assert snapshot.api_versions[o.KUEUE_WORKLOAD] == {"kueue.x-k8s.io/v1beta2"}
    assert not snapshot.workloads  # scheduling.k8s.io's Workloads: none
    assert not snapshot.ignored_kinds


@pytest.mark.parametrize("fast", [True, False], ids=["rapidyaml", "pyyaml"])
def test_yaml_json_single_objects_and_stdin_read_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast: bool
) -> None:
    if not fast:
        monkeypatch.setattr(fastyaml, "ryml", None)
    expected = _kueue(_load(FIXTURE))
    objects = _objects()
    as_json = _write(tmp_path / "dump.json", {"apiVersion": "v1", "kind": "List", "items": objects}, as_json=True)
    documents = _write(tmp_path / "docs.yaml", objects)
    singles = tmp_path / "singles"
    singles.mkdir()
    for number, obj in enumerate(objects):
        _write(singles / f"{number:02d}.json", obj, as_json=bool(number % 2))
        if number % 2 == 0:
            (singles / f"{number:02d}.json").rename(singles / f"{number:02d}.yaml")
    for snapshot in (
        _load(as_json),
        _load(documents),
        _load(singles),
        _load("-", stdin=FIXTURE.read_bytes()),
        _load("-", stdin=as_json.read_bytes()),
    ):
        assert _kueue(snapshot) == expected


def test_typed_lists_as_kubectl_writes_one_kind_vouch_for_it(tmp_path: Path) -> None:
    """`kubectl get workloads.kueue.x-k8s.io -A -o json` of a cluster that has none is a typed List."""
    wl = [obj for obj in _objects({"Workload"})]
    for obj in wl:
        del obj["kind"], obj["apiVersion"]
    listed = _write(tmp_path / "wl.json", {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadList", "items": wl})
    empty = _write(
        tmp_path / "cq.yaml", {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueueList", "items": []}
    )
    snapshot = _load(listed, empty)
    assert sorted(snapshot.kueue_workloads) == [ADMITTED, PENDING] and not snapshot.workloads
    assert {o.KUEUE_WORKLOAD, "ClusterQueue"} <= snapshot.kinds_seen
    assert not snapshot.cluster_queues


def test_a_cluster_info_dump_folder_with_kueue_objects(tmp_path: Path) -> None:
    """`kubectl cluster-info dump --output-directory` writes no custom resource: Kueue's are added
    to the folder with `kubectl get ... -o json` (docs/kueue.md), and read with the rest."""
    dump = tmp_path / "dump"
    objects = _objects()
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for obj in objects:
        by_kind.setdefault(obj["kind"], []).append({k: v for k, v in obj.items() if k not in ("kind", "apiVersion")})
    (dump / "team-a").mkdir(parents=True)
    (dump / "kube-system").mkdir()
    _write(dump / "nodes.json", {"kind": "NodeList", "apiVersion": "v1", "items": by_kind["Node"]}, as_json=True)
    _write(dump / "team-a" / "pods.json", {"kind": "PodList", "apiVersion": "v1", "items": by_kind["Pod"]}, True)
    _write(dump / "kube-system" / "pods.json", {"kind": "PodList", "apiVersion": "v1", "items": []}, as_json=True)
    kueue = [obj for obj in objects if obj["apiVersion"].startswith("kueue.x-k8s.io/")]
    _write(dump / "kueue.json", {"apiVersion": "v1", "kind": "List", "items": kueue}, as_json=True)
    (dump / "team-a" / "logs.txt").write_text("not read")
    snapshot = _load(dump)
    assert _kueue(snapshot) == _kueue(_load(FIXTURE))
    assert len(snapshot.nodes) == 3 and len(snapshot.pods) == 3


def test_kueue_and_scheduling_workloads_are_told_apart_by_group(tmp_path: Path) -> None:
    scheduling = {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "Workload",
        "metadata": {"name": "job-training-b-9c2a7", "namespace": "team-a"},
        "spec": {"podGroupTemplates": [{"name": "workers"}]},
    }
    path = _write(tmp_path / "both.yaml", [scheduling, *_objects({"Workload"})])
    snapshot = _load(path)
    assert list(snapshot.workloads) == [PENDING] and isinstance(snapshot.workloads[PENDING], o.SchedulingWorkload)
    assert sorted(snapshot.kueue_workloads) == [ADMITTED, PENDING]
    assert isinstance(snapshot.kueue_workloads[PENDING], o.KueueWorkload)
    assert snapshot.api_versions == {
        "Workload": {"scheduling.k8s.io/v1alpha2"},
        o.KUEUE_WORKLOAD: {"kueue.x-k8s.io/v1beta2"},
    }
    # A Workload without an apiVersion could be either: refused (kubectl refuses it too).
    unversioned = {"kind": "Workload", "metadata": {"name": "w", "namespace": "a"}}
    with pytest.raises(
        PodwhyError, match=r"x.yaml: document 1 \(Workload 'w'\): it has no apiVersion, and Workload is a kind"
    ):
        decode(yaml.safe_dump(unversioned).encode(), "x.yaml")
    # Another group's Workload is none of them (a custom resource podwhy does not read).
    other = {**unversioned, "apiVersion": "example.com/v1"}
    assert decode(json.dumps(other).encode(), "x.json").ignored == {"Workload (example.com/v1)": 1}


def test_a_dump_without_kueue_names_none_of_its_kinds_missing(tmp_path: Path) -> None:
    """No Kueue in the cluster (or a dump that left it out): nothing changes, nothing is missing."""
    assert not VOUCHED_KINDS & o.KUEUE_KINDS.keys()
    plain = _write(tmp_path / "plain.yaml", _objects({"Node", "Pod", "Namespace"}))
    snapshot = _load(plain)
    assert not snapshot.missing.keys() & o.KUEUE_KINDS.keys()
    assert not snapshot.kinds_seen & o.KUEUE_KINDS.keys()
    assert all(not getattr(snapshot, name) for name in KUEUE_FIELDS)


def test_the_dump_command_names_every_kueue_resource_group_qualified() -> None:
    assert {r.kind for r in KUEUE_RESOURCES} == set(o.KUEUE_KINDS)
    assert kueue_dump_command() == (
        "kubectl get resourceflavors.kueue.x-k8s.io,clusterqueues.kueue.x-k8s.io,cohorts.kueue.x-k8s.io,"
        "localqueues.kueue.x-k8s.io,workloads.kueue.x-k8s.io,workloadpriorityclasses.kueue.x-k8s.io,"
        "admissionchecks.kueue.x-k8s.io,topologies.kueue.x-k8s.io -A -o yaml"
    )
    assert kueue_dump_command([o.KUEUE_WORKLOAD]) == "kubectl get workloads.kueue.x-k8s.io -A -o yaml"
    assert all(read_versions(kind) == ["kueue.x-k8s.io/v1beta2", "kueue.x-k8s.io/v1beta1"] for kind in o.KUEUE_KINDS)


# ------------------------------------------------------------------ v1beta1


def test_v1beta1_reads_as_kueue_converts_it(tmp_path: Path) -> None:
    """apis/kueue/v1beta1/*_conversion.go: cohort is cohortName, admissionChecks rules of
    admissionChecksStrategy, Borrow and Preempt MayStopSearch, priorityClassSource and
    priorityClassName a priorityClassRef; the rest is v1beta2's shape."""
    queue = _cluster_queue(
        cohort="research",
        admissionChecks=["prov-req"],
        flavorFungibility={"whenCanBorrow": "Borrow", "whenCanPreempt": "Preempt"},
        queueingStrategy="StrictFIFO",
    )
    plain = _cluster_queue(flavorFungibility={"whenCanBorrow": "TryNextFlavor"})
    plain["metadata"]["name"] = "plain"
    workloads = []
    for name, source in (
        ("wpc", "kueue.x-k8s.io/workloadpriorityclass"),
        ("pc", "scheduling.k8s.io/priorityclass"),
        ("none", ""),
    ):
        v1 = copy.deepcopy(_objects({"Workload"})[1])
        v1["apiVersion"] = "kueue.x-k8s.io/v1beta1"
        v1["metadata"]["name"] = name
        v1["spec"].update(priorityClassName="high", priorityClassSource=source, priority=1000)
        workloads.append(v1)
    local = {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "LocalQueue",
        "metadata": {"name": "lq", "namespace": "team-a"},
        "spec": {"clusterQueue": "cq"},
        "status": {"flavorUsage": [{"name": "f", "resources": [{"name": "cpu", "total": "1"}]}], "pendingWorkloads": 2},
    }
    cohort = {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "Cohort",
        "metadata": {"name": "research"},
        "spec": {"parentName": "org"},
    }
    docs = [queue, plain, *workloads, local, cohort]
    for path in (
        _write(tmp_path / "v1.yaml", docs),
        _write(tmp_path / "v1.json", {"kind": "List", "items": docs}, True),
    ):
        snapshot = _load(path)
        spec = snapshot.cluster_queues["cq"].spec
        assert spec.cohort_name == "research" and spec.queueing_strategy == "StrictFIFO"
        assert spec.admission_checks_strategy == o.AdmissionChecksStrategy(
            admission_checks=[o.AdmissionCheckStrategyRule(name="prov-req")]
        )
        assert (spec.flavor_fungibility.when_can_borrow, spec.flavor_fungibility.when_can_preempt) == (
            "MayStopSearch",
            "MayStopSearch",
        )
        assert snapshot.cluster_queues["plain"].spec.flavor_fungibility == o.FlavorFungibility(
            when_can_borrow="TryNextFlavor", when_can_preempt="TryNextFlavor"
        )
        assert snapshot.cluster_queues["plain"].spec.cohort_name == ""
        assert snapshot.cluster_queues["plain"].spec.admission_checks_strategy is None
        refs = {key.partition("/")[2]: wl.spec.priority_class_ref for key, wl in snapshot.kueue_workloads.items()}
        assert refs == {
            "wpc": o.PriorityClassRef(group="kueue.x-k8s.io", kind="WorkloadPriorityClass", name="high"),
            "pc": o.PriorityClassRef(group="scheduling.k8s.io", kind="PriorityClass", name="high"),
            "none": None,
        }
        assert all(type(wl) is o.KueueWorkload and wl.spec.priority == 1000 for wl in snapshot.kueue_workloads.values())
        assert type(snapshot.cluster_queues["cq"].spec) is o.ClusterQueueSpec
        assert snapshot.local_queues["team-a/lq"].status.pending_workloads == 2
        assert snapshot.cohorts["research"].spec.parent_name == "org"
        assert snapshot.api_versions["ClusterQueue"] == {"kueue.x-k8s.io/v1beta1"}


@pytest.mark.parametrize("fast", [True, False], ids=["rapidyaml", "pyyaml"])
@pytest.mark.parametrize(
    ("doc", "message"),
    [
        (
            _cluster_queue(admissionChecks=["a"], admissionChecksStrategy={"admissionChecks": [{"name": "b"}]}),
            "x.yaml: document 1 (ClusterQueue 'cq'): spec.admissionChecks: set with spec.admissionChecksStrategy, "
            "which Kueue's validation forbids; v1beta2 holds one of them",
        ),
        (
            {
                "apiVersion": "kueue.x-k8s.io/v1beta1",
                "kind": "Workload",
                "metadata": {"name": "w", "namespace": "a"},
                "spec": {"priorityClassName": "high", "priorityClassSource": "example.com/class"},
            },
            "x.yaml: document 1 (Workload.kueue.x-k8s.io 'w'): spec.priorityClassSource: 'example.com/class' is "
            "neither kueue.x-k8s.io/workloadpriorityclass nor scheduling.k8s.io/priorityclass: "
            "v1beta2 has no ref for it",
        ),
        (
            {"apiVersion": "kueue.x-k8s.io/v1alpha1", "kind": "Cohort", "metadata": {"name": "c"}},
            "x.yaml: document 1 (Cohort 'c'): kueue.x-k8s.io/v1alpha1 is the alpha API of Kueue before 0.13 "
            "(Cohorts) and 0.14 (Topologies): podwhy reads kueue.x-k8s.io/v1beta2 and v1beta1",
        ),
        (
            {"apiVersion": "kueue.x-k8s.io/v1", "kind": "ResourceFlavor", "metadata": {"name": "f"}},
            "x.yaml: document 1 (ResourceFlavor 'f'): apiVersion kueue.x-k8s.io/v1 is not one podwhy reads "
            "ResourceFlavor in (it reads kueue.x-k8s.io/v1beta2, kueue.x-k8s.io/v1beta1)",
        ),
    ],
    ids=["both-admission-check-fields", "priority-class-source", "v1alpha1", "unknown-version"],
)
def test_what_v1beta1_cannot_say_one_to_one_is_refused_in_one_line(
    doc: dict[str, Any], message: str, fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not fast:
        monkeypatch.setattr(fastyaml, "ryml", None)
    with pytest.raises(PodwhyError) as yaml_error:
        decode(yaml.safe_dump(doc).encode(), "x.yaml")
    assert str(yaml_error.value) == message
    with pytest.raises(PodwhyError) as json_error:
        decode(json.dumps(doc).encode(), "x.json")
    assert str(json_error.value) == message.replace("x.yaml: document 1", "x.json: the object")


def test_v1beta1_reads_same_only_where_the_model_reads_no_field_that_changed() -> None:
    """A kind whose v1beta1 reads as v1beta2 (SAME) must not have the model read a field v1beta2
    renamed or reshaped (from the diff of apis/kueue/v1beta1 and v1beta2 *_types.go): when the
    model grows one, its v1beta1 reading needs a conversion."""
    changed = {
        o.LocalQueueStatus: {"flavorsUsage", "fairSharing"},
        o.ClusterQueueStatus: {"fairSharing"},
        o.AdmissionCheckSpec: {"retryDelayMinutes"},
        o.PodSetTopologyRequest: {"podsetSliceRequiredTopologyConstraints"},
        o.PodSetAssignment: {"topologyAssignment"},
        o.KueueWorkloadStatus: {"accumulatedPastExecutionTimeSeconds", "preemptionGates"},
    }
    kinds_of = {
        o.LocalQueueStatus: "LocalQueue",
        o.ClusterQueueStatus: "ClusterQueue",
        o.AdmissionCheckSpec: "AdmissionCheck",
        o.PodSetTopologyRequest: o.KUEUE_WORKLOAD,
        o.PodSetAssignment: o.KUEUE_WORKLOAD,
        o.KueueWorkloadStatus: o.KUEUE_WORKLOAD,
    }
    for struct, fields in changed.items():
        read = {f.encode_name for f in msgspec.structs.fields(struct)}
        how = VERSIONS[kinds_of[struct]]["kueue.x-k8s.io/v1beta1"]
        if read & fields:
            assert getattr(how, "convert", None) is not None, (struct.__name__, read & fields)


# ------------------------------------------------------------------ errors: one line, never a traceback


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (
            ("spec", "podSets", 0, "count"),
            2**31,
            r"x.json: items\[0\] \(Workload.kueue.x-k8s.io\) is invalid: Expected `int` <= 2147483647 - at "
            r"`\$.spec.podSets\[0\].count`",
        ),
        (
            ("spec", "podSets", 0, "template", "spec", "containers", 0, "resources", "requests", "cpu"),
            "lots",
            r"x.json: items\[0\] \(Workload.kueue.x-k8s.io 'job-training-a-6d4f1'\): unparsable quantity 'lots'",
        ),
        (("spec", "podSets"), "main", r"x.json: items\[0\] \(Workload.kueue.x-k8s.io\) is invalid: Expected `array`"),
    ],
    ids=["count-beyond-int32", "quantity", "wrong-type"],
)
def test_bad_values_are_one_line_naming_the_object(path: tuple[Any, ...], value: Any, message: str) -> None:
    obj = _objects({"Workload"})[0]
    node: Any = obj
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    with pytest.raises(PodwhyError, match=message):
        decode(json.dumps({"kind": "List", "items": [obj]}).encode(), "x.json")


def test_a_quota_beyond_what_a_quantity_holds_names_the_queue() -> None:
    queue = _cluster_queue()
    queue["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = "1e999999"
    with pytest.raises(PodwhyError, match=r"x.json: the object \(ClusterQueue 'cq'\): "):
        decode(json.dumps(queue).encode(), "x.json")


def test_counts_beyond_any_cluster_read_as_the_api_server_stores_them() -> None:
    """A pod set of 2147483647 pods is legal Kueue (int32): it is read, not refused; nothing is
    built per pod when reading (check's MAX_PODS bounds the pods podwhy creates)."""
    obj = _objects({"Workload"})[0]
    obj["spec"]["podSets"][0]["count"] = 2**31 - 1
    (wl,) = decode(json.dumps(obj).encode(), "x.json").objects[o.KUEUE_WORKLOAD]
    assert wl.spec.pod_sets[0].count == 2**31 - 1


def test_unknown_fields_and_references_to_nothing_are_read_as_they_are() -> None:
    """Fields podwhy does not read (a newer Kueue's) are skipped; a ClusterQueue naming a flavor no
    ResourceFlavor has, or a cohort cycle, is read as is: the decision says so, not the reader."""
    queue = _cluster_queue(cohortName="a", someFutureField={"x": [1, 2]})
    queue["apiVersion"] = "kueue.x-k8s.io/v1beta2"
    queue["status"] = {"newCounter": 3}
    cohorts = [
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": a}, "spec": {"parentName": b}}
        for a, b in (("a", "b"), ("b", "a"))
    ]
    decoded = decode(json.dumps({"kind": "List", "items": [queue, *cohorts]}).encode(), "x.json")
    (cq,) = decoded.objects["ClusterQueue"]
    assert cq.spec.cohort_name == "a" and cq.spec.resource_groups[0].flavors[0].name == "f"
    assert [c.spec.parent_name for c in decoded.objects["Cohort"]] == ["b", "a"]


_PATHS: list[tuple[str, tuple[Any, ...]]] = []


def _leaf_paths(value: Any, at: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [at] + [p for k, v in value.items() for p in _leaf_paths(v, (*at, k))]
    if isinstance(value, list):
        return [at] + [p for i, v in enumerate(value) for p in _leaf_paths(v, (*at, i))]
    return [at]


_KUEUE_DOCS = [obj for obj in load_objects(FIXTURE) if obj["apiVersion"].startswith("kueue.x-k8s.io/")]
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.lists(st.text(max_size=3), max_size=2),
    st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=2),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_value_anywhere_in_a_kueue_object_is_read_or_one_line(data: st.DataObject) -> None:
    doc = copy.deepcopy(data.draw(st.sampled_from(_KUEUE_DOCS)))
    if data.draw(st.booleans()):
        doc["apiVersion"] = "kueue.x-k8s.io/v1beta1"
    path = data.draw(st.sampled_from(_leaf_paths(doc, ())[1:]))
    node: Any = doc
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = data.draw(_VALUES)
    for text, name in ((json.dumps(doc).encode(), "x.json"), (yaml.safe_dump(doc).encode(), "x.yaml")):
        try:
            decode(text, name)
        except PodwhyError as exc:
            assert "\n" not in str(exc) and str(exc).startswith(f"{name}: ")


def _past(path: str, items: list[Any]) -> dict[str, Any]:
    """A fixture object with ITEMS at PATH ("spec.podSets" of the admitted Workload, ...)."""
    kind = {"spec.podSets": "Workload", "spec.levels": "Topology", "spec.nodeTaints": "ResourceFlavor"}.get(
        path, "ClusterQueue"
    )
    if kind == "Topology":
        obj: dict[str, Any] = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Topology", "metadata": {"name": "t"}}
    else:
        obj = _objects({kind})[0]
    node: Any = obj
    *parents, last = path.split(".")
    for step in parents:
        node = node.setdefault(step, {}) if not step.isdigit() else node[int(step)]
    node[last] = items
    return obj


@pytest.mark.parametrize(
    ("path", "item", "bound", "what"),
    [
        ("spec.podSets", {"name": "p", "count": 1}, 18, "spec.podSets"),
        ("spec.resourceGroups", {"coveredResources": []}, 16, "spec.resourceGroups"),
        ("spec.resourceGroups.0.flavors", {"name": "f"}, 64, "spec.resourceGroups[].flavors"),
        ("spec.nodeTaints", {"key": "k", "effect": "NoSchedule"}, 8, "spec.nodeTaints"),
        ("spec.levels", {"nodeLabel": "l"}, 16, "spec.levels"),
    ],
)
def test_lists_past_the_crds_bounds_are_one_line(path: str, item: dict[str, Any], bound: int, what: str) -> None:
    """Kueue's CRDs bound its lists (limits.KUEUE_MAX_ITEMS); at the bound an object reads, past it
    it is refused as an integer past its Go type is, naming the field."""
    decode(json.dumps(_past(path, [item] * bound)).encode(), "x.json")
    obj = _past(path, [item] * (bound + 1))
    name = obj["metadata"]["name"]
    kind = o.KUEUE_WORKLOAD if obj["kind"] == "Workload" else obj["kind"]
    expected = (
        f"x.json: the object ({kind} {name!r}): {what} holds {bound + 1} items, more than the {bound} "
        "Kueue's API stores (its CRD's maxItems)"
    )
    for text, source in ((json.dumps(obj).encode(), "x.json"), (yaml.safe_dump(obj).encode(), "x.yaml")):
        with pytest.raises(PodwhyError) as error:
            decode(text, source)
        assert str(error.value) == expected.replace(
            "x.json: the object", "x.yaml: document 1" if source == "x.yaml" else "x.json: the object"
        )
