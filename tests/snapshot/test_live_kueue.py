"""Live mode and `podwhy snapshot` read Kueue's objects (issue 37, docs/kueue.md) through the real
kubernetes client against a local API server (tests/apiserver.py): listed where the server serves
kueue.x-k8s.io, absent without a word where it does not, missing with the server's words where
podwhy may not list them; `podwhy snapshot` writes them and reads back the same, `--redact` keeping
what the decision reads."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.model import objects as o
from podwhy.snapshot.live.source import LiveSource
from podwhy.snapshot.redact import REDACTED
from podwhy.snapshot.source import FileSource
from tests.apiserver import FakeApiServer, load_objects
from tests.paths import REPO
from tests.snapshot.test_kueue_read import FIXTURE, KUEUE_FIELDS, PENDING

KUEUE_VERSIONS = {"kueue.x-k8s.io/v1beta2", "kueue.x-k8s.io/v1beta1"}
KUEUE_PLURALS = (
    "resourceflavors",
    "clusterqueues",
    "cohorts",
    "localqueues",
    "workloads",
    "workloadpriorityclasses",
    "admissionchecks",
    "topologies",
)


def _load(server: FakeApiServer, tmp_path: Path) -> Any:
    return LiveSource(kubeconfig=str(server.kubeconfig(tmp_path / "config"))).load()


def _kueue(snapshot: Any) -> dict[str, Any]:
    return {name: getattr(snapshot, name) for name in KUEUE_FIELDS}


def _dumped(tmp_path: Path, objects: list[dict[str, Any]] | None = None) -> Any:
    """What `kubectl get -o json` of a server holding OBJECTS (the fixture's) writes, read back."""
    server = FakeApiServer(load_objects(FIXTURE) if objects is None else objects)
    tmp_path.mkdir(exist_ok=True)
    return FileSource([str(server.dump(tmp_path / "kubectl-get.json"))]).load()


def _kueue_paths(server: FakeApiServer) -> set[str]:
    return {r.path for r in server.requests if r.path.startswith("/apis/kueue.x-k8s.io/")}


def test_live_mode_lists_every_kueue_kind_and_reads_what_the_dump_holds(tmp_path: Path) -> None:
    with FakeApiServer(load_objects(FIXTURE), page_size_cap=1) as server:
        snapshot = _load(server, tmp_path)
        assert server.methods == {"GET"}
        paths = _kueue_paths(server)
    assert paths == {f"/apis/kueue.x-k8s.io/v1beta2/{plural}" for plural in KUEUE_PLURALS}
    assert _kueue(snapshot) == _kueue(_dumped(tmp_path))
    assert o.KUEUE_KINDS.keys() <= snapshot.kinds_seen and not snapshot.missing.keys() & o.KUEUE_KINDS.keys()
    assert snapshot.api_versions[o.KUEUE_WORKLOAD] == {"kueue.x-k8s.io/v1beta2"}
    assert not snapshot.workloads


@pytest.mark.parametrize("discovery", [True, False])
def test_a_cluster_without_kueue_changes_nothing(tmp_path: Path, discovery: bool) -> None:
    objects = [obj for obj in load_objects(FIXTURE) if not obj["apiVersion"].startswith("kueue.x-k8s.io/")]
    with FakeApiServer(objects, unserved_groups={"kueue.x-k8s.io/v1beta2"}, discovery=discovery) as server:
        snapshot = _load(server, tmp_path)
        paths = _kueue_paths(server)
    # Discovery says Kueue is not installed: nothing of it is asked for; without discovery, each
    # list's 404 (in both versions podwhy reads) says the same. No warning, nothing missing.
    assert bool(paths) is not discovery
    assert not snapshot.missing
    assert all(not value for value in _kueue(snapshot).values())
    # As a cluster of which Kueue is known to hold nothing (kinds_seen: vouched for).
    assert o.KUEUE_KINDS.keys() <= snapshot.kinds_seen


def test_forbidden_kueue_kinds_are_missing_with_the_servers_words(tmp_path: Path) -> None:
    with FakeApiServer(load_objects(FIXTURE), forbidden={"clusterqueues", "workloads"}) as server:
        snapshot = _load(server, tmp_path)
    assert snapshot.missing == {
        "ClusterQueue": "cannot list clusterqueues.kueue.x-k8s.io: forbidden",
        o.KUEUE_WORKLOAD: "cannot list workloads.kueue.x-k8s.io: forbidden",
    }
    assert not snapshot.cluster_queues and not snapshot.kueue_workloads
    assert list(snapshot.local_queues) == ["team-a/user-queue"]  # the others are read


def test_a_failing_kueue_list_leaves_it_missing_and_the_rest_is_read(tmp_path: Path) -> None:
    """Kueue's conversion webhook down answers 500: Kueue's kinds are an add-on's, not an error."""
    with FakeApiServer(load_objects(FIXTURE), fail_once={"workloads"}) as server:
        server.fail_always = True
        snapshot = _load(server, tmp_path)
    assert snapshot.missing == {o.KUEUE_WORKLOAD: "cannot list workloads.kueue.x-k8s.io: etcdserver: leader changed"}
    assert snapshot.pods and snapshot.cluster_queues


def _v1beta1(obj: dict[str, Any]) -> dict[str, Any]:
    """OBJ as Kueue serves it in kueue.x-k8s.io/v1beta1 (apis/kueue/v1beta1 conversion)."""
    out = copy.deepcopy(obj)
    out["apiVersion"] = "kueue.x-k8s.io/v1beta1"
    spec = out.get("spec", {})
    if out["kind"] == "ClusterQueue":
        spec["cohort"] = spec.pop("cohortName", "")
    if out["kind"] == "LocalQueue":
        out["status"]["flavorUsage"] = out["status"].pop("flavorsUsage")
    return out


def test_a_kueue_serving_v1beta1_only_is_read_in_it(tmp_path: Path) -> None:
    """Kueue before 0.15 serves kueue.x-k8s.io/v1beta1 only: listed in it, converted."""
    objects = [
        _v1beta1(obj) if obj["apiVersion"].startswith("kueue.x-k8s.io/") else obj for obj in load_objects(FIXTURE)
    ]
    versions = {kind: "kueue.x-k8s.io/v1beta1" for kind in o.KUEUE_KINDS}
    with FakeApiServer(objects, versions=versions) as server:
        snapshot = _load(server, tmp_path)
        paths = _kueue_paths(server)
    assert paths == {f"/apis/kueue.x-k8s.io/v1beta1/{plural}" for plural in KUEUE_PLURALS}
    # The same objects as Kueue serves them in v1beta2, and as a dump of them in v1beta1 reads.
    assert _kueue(snapshot) == _kueue(_dumped(tmp_path))
    assert _kueue(snapshot) == _kueue(_dumped(tmp_path / "v1", objects))
    assert snapshot.api_versions["ClusterQueue"] == {"kueue.x-k8s.io/v1beta1"}


def test_cohorts_served_only_in_v1alpha1_are_missing_with_why(tmp_path: Path) -> None:
    """Kueue before 0.13 serves Cohorts in kueue.x-k8s.io/v1alpha1 only, which podwhy does not read."""
    with FakeApiServer(load_objects(FIXTURE), versions={"Cohort": "kueue.x-k8s.io/v1alpha1"}) as server:
        snapshot = _load(server, tmp_path)
    assert snapshot.missing == {
        "Cohort": "cannot read cohorts.kueue.x-k8s.io: the server serves kueue.x-k8s.io/v1alpha1: "
        "kueue.x-k8s.io/v1alpha1 is the alpha API of Kueue before 0.13 (Cohorts) and 0.14 (Topologies): "
        "podwhy reads kueue.x-k8s.io/v1beta2 and v1beta1"
    }
    assert snapshot.cluster_queues


# ---------------------------------------------------------------------- podwhy snapshot


def _snapshot_cli(tmp_path: Path, server: FakeApiServer, *flags: str) -> dict[str, Any]:
    dump = tmp_path / f"snap-{len(list(tmp_path.glob('snap-*')))}.json.gz"
    config = str(server.kubeconfig(tmp_path / "config"))
    result = CliRunner().invoke(app, ["snapshot", "-o", str(dump), "-A", "-q", "--kubeconfig", config, *flags])
    assert result.exit_code == 0, result.stderr
    written: dict[str, Any] = json.loads(gzip.decompress(dump.read_bytes()), object_pairs_hook=_unique)
    written["path"] = str(dump)
    return written


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are each written once (a custom resource's item carries its kind
    and apiVersion: the dump must not write them again)."""
    keys = [key for key, _ in pairs]
    assert len(keys) == len(set(keys)), keys
    return dict(pairs)


def test_snapshot_writes_kueue_objects_and_reads_them_back(tmp_path: Path) -> None:
    with FakeApiServer(load_objects(FIXTURE), page_size_cap=2) as server:
        live = _load(server, tmp_path)
        written = _snapshot_cli(tmp_path, server)
    fetched = json.loads(written["metadata"]["annotations"]["podwhy.dev/fetched-kinds"])
    assert o.KUEUE_KINDS.keys() <= set(fetched)
    kinds = {(i["kind"], i["apiVersion"]) for i in written["items"]}
    assert {("Workload", "kueue.x-k8s.io/v1beta2"), ("ClusterQueue", "kueue.x-k8s.io/v1beta2")} <= kinds
    assert not any(kind.startswith("Workload.") for kind, _ in kinds)
    assert all(list(item)[:2] in (["apiVersion", "kind"], ["kind", "apiVersion"]) for item in written["items"])
    back = FileSource([written["path"]]).load()
    assert _kueue(back) == _kueue(live)
    assert not back.missing.keys() & o.KUEUE_KINDS.keys()


def test_snapshot_of_a_forbidden_kind_records_why(tmp_path: Path) -> None:
    with FakeApiServer(load_objects(FIXTURE), forbidden={"cohorts"}) as server:
        written = _snapshot_cli(tmp_path, server)
    missing = json.loads(written["metadata"]["annotations"]["podwhy.dev/missing-kinds"])
    assert missing == {"Cohort": "cannot list cohorts.kueue.x-k8s.io: forbidden"}
    assert FileSource([written["path"]]).load().missing == {"Cohort": "cannot list cohorts.kueue.x-k8s.io: forbidden"}


def _with_secrets() -> list[dict[str, Any]]:
    """The fixture with what podwhy must not carry out of the cluster in its Kueue objects."""
    objects = load_objects(FIXTURE)
    for obj in objects:
        if not obj["apiVersion"].startswith("kueue.x-k8s.io/"):
            continue
        obj["metadata"]["annotations"] = {"team.example.com/owner": "alice@example.com", "kueue.x-k8s.io/x": "kept"}
        obj["metadata"]["managedFields"] = [{"manager": "secret-manager"}]
        if obj["kind"] == "Workload":
            pod_spec = obj["spec"]["podSets"][0]["template"]["spec"]
            pod_spec["containers"][0]["env"] = [{"name": "TOKEN", "value": "s3cr3t"}]
            pod_spec["tolerations"] = [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]
            pod_spec["affinity"] = {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["zone-a"]}]}
                        ]
                    }
                }
            }
            pod_spec["nodeSelector"] = {"instance-type": "on-demand"}
            obj["spec"]["priorityClassRef"] = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "hi"}
        if obj["kind"] == "ResourceFlavor":
            obj["spec"]["nodeTaints"] = [{"key": "spot", "value": "true", "effect": "NoSchedule"}]
            obj["spec"]["tolerations"] = [{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}]
    return objects


def test_redact_keeps_what_the_decision_reads_and_drops_the_rest(tmp_path: Path) -> None:
    with FakeApiServer(_with_secrets()) as server:
        live = _load(server, tmp_path)
        written = _snapshot_cli(tmp_path, server, "--redact")
    text = json.dumps(written)
    for secret in ("alice@example.com", "s3cr3t", "TOKEN", "secret-manager", "managedFields", "--epochs"):
        assert secret not in text
    back = FileSource([written["path"]]).load()
    assert back.redacted
    # Kueue's annotations keep their values, others only their keys.
    flavor = back.resource_flavors["default-flavor"]
    assert flavor.metadata.annotations == {"team.example.com/owner": REDACTED, "kueue.x-k8s.io/x": "kept"}
    # Everything the model reads is there as it was but the containers' command lines (whose words
    # podwhy replaces) and other annotations.
    for snapshot in (live, back):
        for field in KUEUE_FIELDS:
            for obj in getattr(snapshot, field).values():
                obj.metadata.annotations = {}
                for pod_set in getattr(getattr(obj, "spec", None), "pod_sets", []):
                    for container in pod_set.template.spec.containers:
                        container.args = []
    assert _kueue(back) == _kueue(live)
    pending = back.kueue_workloads[PENDING]
    assert pending.status.conditions[0].message.startswith("couldn't assign flavors to pod set main")
    pod_spec = pending.spec.pod_sets[0].template.spec
    assert pod_spec.node_selector == {"instance-type": "on-demand"} and pod_spec.tolerations
    assert pod_spec.affinity is not None and pod_spec.containers[0].resources.requests == {
        "cpu": "2500m",
        "memory": "4Gi",
    }
    assert pending.spec.priority_class_ref == o.PriorityClassRef(
        group="kueue.x-k8s.io", kind="WorkloadPriorityClass", name="hi"
    )
    assert back.resource_flavors["default-flavor"].spec.node_taints[0].key == "spot"
    assert back.cluster_queues["cluster-queue"].spec.resource_groups[0].flavors[0].resources[0].nominal_quota == "9"


def test_the_rbac_role_grants_listing_kueue(tmp_path: Path) -> None:
    import yaml

    docs = list(yaml.safe_load_all((REPO / "deploy" / "rbac.yaml").read_text()))
    (role,) = [d for d in docs if d["kind"] == "ClusterRole"]
    (rule,) = [r for r in role["rules"] if r["apiGroups"] == ["kueue.x-k8s.io"]]
    assert rule["verbs"] == ["get", "list"] and sorted(rule["resources"]) == sorted(KUEUE_PLURALS)
