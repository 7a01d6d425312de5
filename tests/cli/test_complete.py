"""Which sources vouch for which kinds, and what a plugin says when the snapshot cannot
(docs/complete.md): a kind the files hold no object of leaves the plugins that need it
NotEvaluated, unless the source proves it (a typed List, a `podwhy snapshot`, live mode) or the
user says so (--complete)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.model import objects as o
from podwhy.model.objects import ADMISSION_KINDS, ALPHA_KINDS, AUTOSCALER_KINDS, KINDS, KUEUE_KINDS
from podwhy.report.words.sizing import sizing_text
from podwhy.report.words.suggest import suggestion_text
from podwhy.snapshot.live.source import LiveSource, kubectl_dump_command
from podwhy.snapshot.source import VOUCHED_KINDS, FileSource
from podwhy.snapshot.writer import DumpTarget, write_dump
from tests.apiserver import FakeApiServer
from tests.builders import make_node, make_pod, make_snapshot, quotas_listed
from tests.paths import REPO

Json = dict[str, Any]

NODE: Json = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
    "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
}


def _pod(name: str = "web", **spec: Any) -> Json:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}], **spec},
        "status": {"phase": "Pending"},
    }


PVC_POD = _pod(volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": "x"}}])
DRA_POD = _pod("trainer", resourceClaims=[{"name": "gpu", "resourceClaimName": "gpu-claim"}])
PVC_NOT_FOUND = 'persistentvolumeclaim "x" not found'


def _dump(path: Path, *items: Json, kind: str = "List") -> Path:
    path.write_text(json.dumps({"apiVersion": "v1", "kind": kind, "items": list(items)}))
    return path


def _explain(*args: str) -> tuple[int, Json, str]:
    result = CliRunner().invoke(app, ["explain", *args, "-o", "json"])
    return result.exit_code, json.loads(result.stdout) if result.stdout else {}, result.stderr


def _status(report: Json, plugin: str) -> Json:
    return next(rec for rec in report["preFilter"] if rec["plugin"] == plugin)


# ------------------------------------------------------------------ a plain dump


def test_a_nodes_and_pods_dump_leaves_a_pvc_pod_inconclusive(tmp_path: Path, report_schema_validator: Any) -> None:
    dump = _dump(tmp_path / "dump.json", NODE, PVC_POD)
    code, report, _ = _explain("default/web", "--from", str(dump))
    report_schema_validator.validate(report)
    assert (code, report["verdict"]) == (3, "Inconclusive")
    binding = _status(report, "VolumeBinding")
    assert binding["status"] == "NotEvaluated"
    assert "the snapshot has no" in binding["reasons"][0] and "PersistentVolumeClaims" in binding["reasons"][0]
    assert PVC_NOT_FOUND not in json.dumps(report)
    # The warning names the kinds and the command that dumps them, and --complete.
    (warning,) = [w for w in report["warnings"] if w.startswith("the snapshot holds no")]
    assert "PersistentVolumeClaims" in warning and "--complete" in warning
    assert "kubectl get persistentvolumes,persistentvolumeclaims," in warning
    assert "podwhy snapshot -o cluster.json.gz" in warning


def test_complete_says_the_cluster_has_no_such_claim(tmp_path: Path) -> None:
    dump = _dump(tmp_path / "dump.json", NODE, PVC_POD)
    code, report, _ = _explain("default/web", "--from", str(dump), "--complete")
    assert (code, report["verdict"]) == (1, "Unschedulable")
    assert report["message"].startswith(f"0/1 nodes are available: {PVC_NOT_FOUND}.")
    assert _status(report, "VolumeBinding")["reasons"] == [PVC_NOT_FOUND]
    assert report["snapshot"]["missingKinds"] == []
    assert not any(w.startswith("the snapshot holds no") for w in report["warnings"])


@pytest.mark.parametrize(
    "extra",
    [
        # kubectl get pvc -A -o yaml in a cluster without any: an empty typed List.
        {"apiVersion": "v1", "kind": "PersistentVolumeClaimList", "items": []},
        # Claims of the cluster, none of them the pod's.
        {
            "apiVersion": "v1",
            "kind": "List",
            "items": [
                {
                    "apiVersion": "v1",
                    "kind": "PersistentVolumeClaim",
                    "metadata": {"name": "other", "namespace": "default"},
                    "spec": {"accessModes": ["ReadWriteOnce"]},
                }
            ],
        },
    ],
    ids=["empty-typed-list", "other-claims"],
)
def test_claims_the_files_hold_are_vouched_for(tmp_path: Path, extra: Json) -> None:
    dump = _dump(tmp_path / "dump.json", NODE, PVC_POD)
    claims = tmp_path / "claims.json"
    claims.write_text(json.dumps(extra))
    code, report, _ = _explain("default/web", "--from", str(dump), "--from", str(claims))
    assert (code, report["verdict"]) == (1, "Unschedulable")
    assert _status(report, "VolumeBinding")["reasons"] == [PVC_NOT_FOUND]
    assert "PersistentVolumeClaim" not in report["snapshot"]["missingKinds"]


def test_a_bound_claim_needs_only_its_volume(tmp_path: Path) -> None:
    """A claim and PV found speak for themselves: no StorageClass, CSIDriver or capacity is read."""
    pvc = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {
            "name": "x",
            "namespace": "default",
            "annotations": {"pv.kubernetes.io/bind-completed": "yes"},
        },
        "spec": {"accessModes": ["ReadWriteOnce"], "volumeName": "pv-x"},
        "status": {"phase": "Bound"},
    }
    pv = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "pv-x"},
        "spec": {
            "capacity": {"storage": "1Gi"},
            "accessModes": ["ReadWriteOnce"],
            "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"},
            "nodeAffinity": {
                "required": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["n2"]}]}
                    ]
                }
            },
        },
    }
    dump = _dump(tmp_path / "dump.json", NODE, PVC_POD, pvc, pv)
    code, report, _ = _explain("default/web", "--from", str(dump))
    assert code == 1 and report["verdict"] == "Unschedulable"
    assert "node(s) didn't match PersistentVolume's node affinity" in report["message"]
    statuses = {rec["plugin"]: rec["status"] for rec in report["preFilter"]}
    assert statuses["VolumeBinding"] == "Success"
    assert statuses["VolumeRestrictions"] == statuses["VolumeZone"] == "Skip"  # no ReadWriteOncePod, no zone labels
    # Volume limits come from CSINodes, which this dump lacks.
    assert statuses["NodeVolumeLimits"] == "NotEvaluated"


# ------------------------------------------------------------------ DRA


def test_a_dra_pod_without_any_claims_in_the_dump_is_not_evaluated(tmp_path: Path) -> None:
    dump = _dump(tmp_path / "dump.json", NODE, DRA_POD)
    code, report, _ = _explain("default/trainer", "--from", str(dump))
    assert (code, report["verdict"]) == (3, "Inconclusive")
    dra = _status(report, "DynamicResources")
    assert dra == {**dra, "status": "NotEvaluated", "reasons": ["not evaluated: the snapshot has no ResourceClaims"]}
    code, report, _ = _explain("default/trainer", "--from", str(dump), "--complete")
    assert (code, report["verdict"]) == (1, "Unschedulable")
    assert _status(report, "DynamicResources")["reasons"] == ['could not find ResourceClaim "default/gpu-claim"']


# ------------------------------------------------------------------ sources that prove completeness


def _write_snapshot(path: Path, items: dict[tuple[str, str], list[Json]], missing: dict[str, str]) -> Path:
    raws = {key: [msgspec.Raw(json.dumps(obj).encode()) for obj in objs] for key, objs in items.items()}
    write_dump(DumpTarget(path), raws, missing)
    return path


def test_a_podwhy_snapshot_is_complete_for_what_it_fetched(tmp_path: Path) -> None:
    fetched = {("Node", "v1"): [NODE], ("Pod", "v1"): [PVC_POD]}
    fetched |= {(kind, "v1"): [] for kind in VOUCHED_KINDS}
    dump = _write_snapshot(tmp_path / "snap.json", fetched, {})
    assert FileSource([str(dump)]).load().missing == {}
    code, report, _ = _explain("default/web", "--from", str(dump))
    assert (code, report["verdict"]) == (1, "Unschedulable")
    assert _status(report, "VolumeBinding")["reasons"] == [PVC_NOT_FOUND]

    # What it could not fetch stays missing, with why; --complete does not unsay it.
    del fetched["PersistentVolumeClaim", "v1"]
    forbidden = {"PersistentVolumeClaim": "cannot list persistentvolumeclaims: forbidden"}
    dump = _write_snapshot(tmp_path / "forbidden.json", fetched, forbidden)
    assert FileSource([str(dump)], complete=True).load().missing == forbidden
    code, report, _ = _explain("default/web", "--from", str(dump))
    assert (code, report["verdict"]) == (3, "Inconclusive"), report["message"]
    assert _status(report, "VolumeBinding")["reasons"] == [f"not evaluated: {forbidden['PersistentVolumeClaim']}"]
    # ... until another file holds them.
    claims = _dump(tmp_path / "pvcs.json", kind="PersistentVolumeClaimList")
    assert FileSource([str(dump), str(claims)]).load().missing == {}


def test_a_list_without_the_snapshot_marker_is_not_complete(tmp_path: Path) -> None:
    """Only the fetched-kinds annotation `podwhy snapshot` writes makes a List complete."""
    data = {
        "apiVersion": "v1",
        "kind": "List",
        "metadata": {"annotations": {"podwhy.dev/missing-kinds": "{}"}},
        "items": [NODE, PVC_POD],
    }
    path = tmp_path / "dump.json"
    path.write_text(json.dumps(data))
    # Its one pod, of namespace default, no pod of kube-system: some namespaces' pods only.
    assert FileSource([str(path)]).load().missing_kinds == VOUCHED_KINDS | {"Pod"}
    data["metadata"]["annotations"]["podwhy.dev/fetched-kinds"] = json.dumps(["PersistentVolumeClaim", "Pod"])
    path.write_text(json.dumps(data))
    assert FileSource([str(path)]).load().missing_kinds == VOUCHED_KINDS - {"PersistentVolumeClaim"}


def test_the_snapshot_command_marks_its_dump_complete(tmp_path: Path) -> None:
    with FakeApiServer([NODE, PVC_POD]) as server:
        config = str(server.kubeconfig(tmp_path / "config"))
        live = LiveSource(kubeconfig=config).load()
        out = tmp_path / "cluster.json.gz"
        result = CliRunner().invoke(app, ["snapshot", "-o", str(out), "--kubeconfig", config, "-q"])
        assert result.exit_code == 0, result.stderr
        code, report, _ = _explain("default/web", "--kubeconfig", config, "-q")
    # Live mode lists every kind: none is missing, the claim is simply not there.
    assert live.missing == {}
    assert (code, report["verdict"]) == (1, "Unschedulable")
    assert _status(report, "VolumeBinding")["reasons"] == [PVC_NOT_FOUND]
    assert FileSource([str(out)]).load().missing == {}
    code, from_file, _ = _explain("default/web", "--from", str(out))
    assert (code, from_file["message"]) == (1, report["message"])


# ------------------------------------------------------------------ manifests (-f) and admission


def test_a_manifest_pod_admitted_without_priority_classes_leaves_preemption_unknown(tmp_path: Path) -> None:
    busy = {**_pod("busy"), "spec": {**_pod("busy")["spec"], "nodeName": "n1", "priority": 0}}
    busy["spec"]["containers"] = [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "4"}}}]
    busy["status"] = {"phase": "Running"}
    dump = _dump(tmp_path / "dump.json", NODE, busy)
    manifest = tmp_path / "pod.yaml"
    pod = _pod("new", priorityClassName="high")
    pod["spec"]["containers"] = [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]
    manifest.write_text(json.dumps(pod))
    code, report, _ = _explain("-f", str(manifest), "--from", str(dump))
    assert (code, report["verdict"]) == (1, "Unschedulable")
    assert not report["messageComplete"]
    assert any(w.startswith("PostFilter DefaultPreemption not evaluated") for w in report["warnings"])
    assert any("PriorityClasses" in w and "--complete" in w for w in report["warnings"])
    # With --complete the API server would refuse the pod: its class does not exist.
    result = CliRunner().invoke(app, ["explain", "-f", str(manifest), "--from", str(dump), "--complete"])
    assert result.exit_code == 3 and "no PriorityClass with name high" in result.stderr


def test_a_manifest_pod_that_fits_needs_no_priority_class(tmp_path: Path) -> None:
    """Only preemption reads the priority: a pod that fits is Schedulable, and nothing is asked for."""
    dump = _dump(tmp_path / "dump.json", NODE)
    manifest = tmp_path / "pod.yaml"
    pod = _pod("new", priorityClassName="high")
    # Its requests given: no LimitRange could add any (the dump holds no LimitRanges).
    pod["spec"]["containers"] = [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]
    manifest.write_text(json.dumps(pod))
    code, report, _ = _explain("-f", str(manifest), "--from", str(dump), "--from", quotas_listed(tmp_path))
    assert (code, report["verdict"]) == (0, "Schedulable")
    assert not any("PriorityClasses" in w for w in report["warnings"])


def test_a_manifest_pod_with_an_unknown_runtime_class_is_not_evaluated_for_its_overhead(tmp_path: Path) -> None:
    dump = _dump(tmp_path / "dump.json", NODE)
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(json.dumps(_pod("sandboxed", runtimeClassName="gvisor")))
    code, report, _ = _explain("-f", str(manifest), "--from", str(dump))
    assert (code, report["verdict"]) == (3, "Inconclusive")
    filters = {st["plugin"]: st["status"] for st in report["nodes"][0]["filters"]}
    assert filters["NodeResourcesFit"] == filters["NodeAffinity"] == filters["TaintToleration"] == "NotEvaluated"


# ------------------------------------------------------------------ pending and check


def test_pending_exits_3_when_its_only_pending_pods_are_inconclusive(
    tmp_path: Path, pending_schema_validator: Any
) -> None:
    dump = _dump(tmp_path / "dump.json", NODE, PVC_POD)
    result = CliRunner().invoke(app, ["pending", "-A", "--from", str(dump), "-o", "json"])
    report = json.loads(result.stdout)
    pending_schema_validator.validate(report)
    assert result.exit_code == 3
    (group,) = report["groups"]
    assert group["verdict"] == "Inconclusive" and "VolumeBinding" in group["cause"]
    assert any("PersistentVolumeClaims" in w for w in report["warnings"])
    result = CliRunner().invoke(app, ["pending", "-A", "--from", str(dump), "--complete", "-o", "json"])
    assert result.exit_code == 1
    assert PVC_NOT_FOUND in json.loads(result.stdout)["groups"][0]["cause"]


def test_pending_in_a_table_warns_on_stderr(tmp_path: Path) -> None:
    dump = _dump(tmp_path / "dump.json", NODE, PVC_POD)
    result = CliRunner().invoke(app, ["pending", "-A", "--from", str(dump)])
    assert result.exit_code == 3
    assert "podwhy: warning: the snapshot holds no" in result.stderr


# ------------------------------------------------------------------ the flag and the hints


def test_complete_is_for_files(tmp_path: Path) -> None:
    for command in (["explain", "web"], ["pending"], ["check", "-f", str(tmp_path)]):
        result = CliRunner().invoke(app, [*command, "--complete"])
        assert result.exit_code == 2
        assert result.stderr.strip().splitlines() == [
            "podwhy: error: --complete is said of --from files: a live cluster is complete by itself"
        ]


@pytest.mark.parametrize("command", [["explain", "default/web"], ["pending", "-A"]])
def test_the_hint_names_a_complete_dump(tmp_path: Path, command: list[str]) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text("apiVersion: v1\nkind: List\nitems: []\n")
    result = CliRunner().invoke(app, [*command, "--from", str(empty)])
    assert result.exit_code == 3
    (line,) = result.stderr.strip().splitlines()
    # One command, and where the kubectl ways are told (tests/cli/test_cli.py checks they are there).
    assert "`podwhy snapshot -o cluster.json.gz`" in line and '"Which snapshot to take" in podwhy\'s README' in line
    assert kubectl_dump_command() not in line and len(line.replace(str(empty), "")) < 200


def test_the_kubectl_dump_lists_every_kind_podwhy_reads() -> None:
    names = kubectl_dump_command().removeprefix("kubectl get ").removesuffix(" -A -o yaml").split(",")
    assert names[:2] == ["nodes", "pods"]
    # Every kind podwhy reads but Events, alpha APIs and the add-ons' (by their own commands,
    # autoscaler_dump_commands and kueue_dump_command), group-qualified outside the core group.
    assert {name.partition(".")[0] for name in names} == {
        info.plural.lower()
        for kind, info in KINDS.items()
        if kind != "Event"
        and kind not in ALPHA_KINDS
        and kind not in AUTOSCALER_KINDS
        and kind not in KUEUE_KINDS
        and kind not in ADMISSION_KINDS
    }
    assert "poddisruptionbudgets.policy" in names and "resourceclaims.resource.k8s.io" in names


def test_the_documented_command_is_the_one_podwhy_prints() -> None:
    doc = (REPO / "docs" / "complete.md").read_text()
    assert kubectl_dump_command() + " > cluster.yaml" in doc


# ------------------------------------------------------------------ the kinds each plugin needs, and suggestions


def _claim(name: str, class_name: str | None = None, volume: str = "", bound: bool = False) -> o.PersistentVolumeClaim:
    annotations = {"pv.kubernetes.io/bind-completed": "yes"} if bound else {}
    return o.PersistentVolumeClaim(
        metadata=o.ObjectMeta(name=name, namespace="default", annotations=annotations),
        spec=o.PersistentVolumeClaimSpec(storage_class_name=class_name, volume_name=volume or None),
    )


def _class(name: str, mode: str, provisioner: str = "ebs.csi.aws.com") -> o.StorageClass:
    return o.StorageClass(metadata=o.ObjectMeta(name=name), provisioner=provisioner, volume_binding_mode=mode)


def _csi_pv(name: str) -> o.PersistentVolume:
    return o.PersistentVolume(
        metadata=o.ObjectMeta(name=name),
        spec=o.PersistentVolumeSpec(csi=o.CSIPersistentVolumeSource(driver="ebs.csi.aws.com", volume_handle="v")),
    )


def _driver(capacity: bool) -> o.CSIDriver:
    return o.CSIDriver(metadata=o.ObjectMeta(name="ebs.csi.aws.com"), spec=o.CSIDriverSpec(storage_capacity=capacity))


@pytest.mark.parametrize(
    ("objects", "needed"),
    [
        ([], {"PersistentVolumeClaim"}),
        ([_claim("x", volume="pv-x", bound=True)], {"PersistentVolume"}),
        ([_claim("x", volume="pv-x", bound=True), _csi_pv("pv-x")], set()),
        ([_claim("x", "fast")], {"StorageClass"}),
        ([_claim("x", "fast"), _class("fast", "Immediate")], set()),
        ([_claim("x", "fast"), _class("fast", "WaitForFirstConsumer")], {"PersistentVolume", "CSIDriver"}),
        ([_claim("x", "fast"), _class("fast", "WaitForFirstConsumer"), _driver(False)], {"PersistentVolume"}),
        (
            [_claim("x", "fast"), _class("fast", "WaitForFirstConsumer"), _driver(True)],
            {"PersistentVolume", "CSIStorageCapacity"},
        ),
    ],
)
def test_volume_binding_needs_what_a_lookup_did_not_find(objects: list[Any], needed: set[str]) -> None:
    from podwhy.framework.handle import Handle
    from podwhy.framework.types import PodInfo
    from podwhy.plugins.volumebinding.plugin import VolumeBinding

    pod = make_pod("web").pvc("x").obj()
    plugin = VolumeBinding(Handle(make_snapshot(pod, *objects)))
    assert plugin.required_kinds(PodInfo(pod)) == needed


def test_an_eviction_from_a_snapshot_without_budgets_does_not_claim_none_is_broken() -> None:
    from podwhy.analysis.suggest import suggest
    from podwhy.scheduler.config import default_profile
    from podwhy.scheduler.cycle import run_cycle

    node = make_node("n1").alloc(cpu="4", memory="8Gi", pods=110).obj()
    low = make_pod("low").node("n1").priority(0).req(cpu="4").obj()
    # A pod that may not preempt: the one podwhy offers evictions to (the scheduler preempts for the others).
    pod = make_pod("p").priority(100).preemption_policy("Never").req(cpu="4").obj()
    summaries = {}
    for missing in ({}, {"PodDisruptionBudget": ""}):
        snapshot = make_snapshot(node, low)
        snapshot.missing = dict(missing)
        cycle = run_cycle(snapshot, pod)
        (evict,) = [s for s in suggest(snapshot, cycle, default_profile()) if s.kind == "evictPods"]
        summaries[bool(missing)] = suggestion_text(evict)
    assert "; no PodDisruptionBudget is broken;" in summaries[False]
    assert (
        "; the snapshot has no PodDisruptionBudgets: the Eviction API refuses an eviction one forbids;"
        in (summaries[True])
    )
    assert "no PodDisruptionBudget is broken" not in summaries[True]


def test_a_group_is_not_sized_from_plugins_not_evaluated() -> None:
    from podwhy.analysis.suggest import SizingOutcome, size_group
    from podwhy.scheduler.config import default_config
    from podwhy.scheduler.cycle import run_cycle

    node = make_node("n1").alloc(cpu="4", memory="8Gi", pods=110).obj()
    busy = make_pod("busy").node("n1").req(cpu="4").obj()
    pods = [make_pod(f"w-{i}").req(cpu="2").pvc(f"data-{i}").obj() for i in range(3)]
    snapshot = make_snapshot(node, busy, *pods)
    snapshot.missing = {"PersistentVolumeClaim": ""}
    cycle = run_cycle(snapshot, pods[0])
    assert cycle.verdict == "Unschedulable" and "VolumeBinding" in cycle.outcome.not_evaluated  # type: ignore[union-attr]
    sizing = size_group(snapshot, cycle, pods, default_config(), "default/w (Job)")
    assert sizing.outcome == SizingOutcome.SKIPPED
    assert sizing_text(sizing.note).startswith("not sized: not evaluated: ")


def test_a_disagreement_with_the_scheduler_names_the_plugins_not_evaluated(tmp_path: Path) -> None:
    pod = _pod(volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": "x"}}])
    pod["spec"]["containers"] = [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "8"}}}]
    said = "0/1 nodes are available: 1 node(s) had volume node affinity conflict."
    pod["status"]["conditions"] = [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": said}
    ]
    dump = _dump(tmp_path / "dump.json", NODE, pod)
    code, report, _ = _explain("default/web", "--from", str(dump))
    assert (code, report["verdict"]) == (1, "Unschedulable")
    assert report["scheduler"]["agrees"] is False
    assert report["scheduler"]["causes"][0].startswith("podwhy could not evaluate NodeVolumeLimits, VolumeBinding")
