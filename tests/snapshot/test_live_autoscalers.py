"""Live mode and `podwhy snapshot` read the autoscalers: Cluster Autoscaler's status ConfigMap by
name (one GET, never a list of ConfigMaps) and Karpenter's NodePools and NodeClaims where the
server serves karpenter.sh/v1. None of it changes what explain, pending or check say."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.snapshot.autoscalerconfigmap import LAST_UPDATED_ANNOTATION, read_configmap
from podwhy.snapshot.live.source import (
    CA_STATUS,
    SNAPSHOT_DOCS,
    LiveSource,
    autoscaler_dump_commands,
    dump_hint,
    kubectl_dump_command,
)
from podwhy.snapshot.source import FileSource
from tests.apiserver import FakeApiServer, load_objects
from tests.paths import REPO
from tests.snapshot.test_redact import comparable

ROOT = REPO
EXAMPLE = ROOT / "fixtures" / "examples" / "shop-cluster.yaml"
AUTOSCALING = ROOT / "fixtures" / "autoscaling"
POD = "shop/checkout-7c9d8b6f5-m4x2q"
CA_STATUS_PATH = "/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-status"
KARPENTER_PATHS = {"/apis/karpenter.sh/v1/nodepools", "/apis/karpenter.sh/v1/nodeclaims"}
STATUS_KEY = "kube-system/cluster-autoscaler-status"

# A ConfigMap podwhy must never read, next to CA's status.
OTHER_CONFIGMAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "coredns", "namespace": "kube-system"},
    "data": {"Corefile": ".:53 {}"},
}


def _with_autoscalers(*, ca_status: bool = True, karpenter: bool = True) -> list[dict[str, Any]]:
    objects = [*load_objects(EXAMPLE), OTHER_CONFIGMAP]
    if ca_status:
        objects += load_objects(AUTOSCALING / "ca-status-yaml.yaml")
    if karpenter:
        objects += load_objects(AUTOSCALING / "karpenter.yaml")
    return objects


def _load(server: FakeApiServer, tmp_path: Path) -> Any:
    return LiveSource(kubeconfig=str(server.kubeconfig(tmp_path / "config"))).load()


def _explain(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["explain", POD, "-o", "json", *args])
    assert result.exit_code == 1, result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    report["snapshot"].pop("sources")
    report["snapshot"].pop("takenAt", None)  # when a live snapshot was taken
    return report


def test_live_mode_reads_the_status_configmap_nodepools_and_nodeclaims(tmp_path: Path) -> None:
    with FakeApiServer(_with_autoscalers(), page_size_cap=1, list_forbidden={"configmaps"}) as server:
        snapshot = _load(server, tmp_path)
        paths = [r.path for r in server.requests]
        assert server.methods == {"GET"}
    # One GET of the status by name (listing ConfigMaps is forbidden here, and never tried).
    assert [p for p in paths if "configmaps" in p] == [CA_STATUS_PATH]
    assert KARPENTER_PATHS <= set(paths)
    assert not {"ConfigMap", "NodePool", "NodeClaim"} & set(snapshot.missing)
    assert {"ConfigMap", "NodePool", "NodeClaim"} <= snapshot.kinds_seen
    # The same objects as the files hold.
    files = FileSource([str(AUTOSCALING / "ca-status-yaml.yaml"), str(AUTOSCALING / "karpenter.yaml")]).load()
    assert list(snapshot.autoscaler_status) == [STATUS_KEY]
    assert snapshot.autoscaler_status == files.autoscaler_status
    assert snapshot.node_pools == files.node_pools and list(snapshot.node_pools) == ["default"]
    assert snapshot.node_claims == files.node_claims and list(snapshot.node_claims) == ["default-9k4qz"]
    status = read_configmap(snapshot.autoscaler_status[STATUS_KEY])
    assert [g.name for g in status.node_groups] == ["ng-general", "ng-gpu"]


def _who_adds(report: dict[str, Any]) -> list[tuple[str, str]]:
    """Takes out of REPORT what its suggestions to add nodes say of who adds them (their group's
    verdict, which the autoscalers' data decides as it decides the autoscaling section)."""
    said = []
    for suggestion in report["suggestions"]:
        if suggestion["kind"] in ("addNode", "addNodesForGroup"):
            summary, _, adder = suggestion.pop("summary").partition(": the pod fits on it; ")
            suggestion["summary"] = summary
            said.append((adder, suggestion.pop("command")))
    return said


def test_a_forbidden_status_configmap_is_missing_with_why_and_changes_no_report(tmp_path: Path) -> None:
    objects = _with_autoscalers()
    with FakeApiServer(objects) as allowed, FakeApiServer(objects, forbidden={"configmaps"}) as denied:
        snapshot = _load(denied, tmp_path)
        reports = [
            _explain("--kubeconfig", str(server.kubeconfig(tmp_path / f"c{i}")))
            for i, server in enumerate((allowed, denied))
        ]
    assert snapshot.missing == {"ConfigMap": "cannot get configmaps kube-system/cluster-autoscaler-status: forbidden"}
    assert not snapshot.autoscaler_status and snapshot.node_pools
    # Only the autoscaling section differs, and it says why Cluster Autoscaler could not be read.
    allowed_view, denied_view = reports[0].pop("autoscaling"), reports[1].pop("autoscaling")
    assert [g["autoscaler"] for g in allowed_view["groups"]].count("ClusterAutoscaler") >= 1
    assert all(g["autoscaler"] == "Karpenter" for g in denied_view["groups"])
    # What fixes it live is the permission (deploy/rbac.yaml's Role, bound), not a dump.
    assert denied_view["notEvaluated"] == [
        "Cluster Autoscaler's status ConfigMap could not be read (cannot get configmaps "
        "kube-system/cluster-autoscaler-status: forbidden): bind the Role podwhy-autoscaler-status of podwhy's "
        "deploy/rbac.yaml: kubectl create rolebinding podwhy -n kube-system --role podwhy-autoscaler-status "
        "--user <you>"
    ]
    # And who would add a node: the one verdict of its group, whichever autoscalers were read.
    for report in reports:
        assert all("would add" not in command for _, command in _who_adds(report))
    assert reports[0] == reports[1]
    assert reports[1]["snapshot"]["missingKinds"] == [] and not reports[1]["warnings"]


@pytest.mark.parametrize("discovery", [True, False])
def test_a_cluster_without_autoscalers_vouches_for_their_absence(tmp_path: Path, discovery: bool) -> None:
    objects = _with_autoscalers(ca_status=False, karpenter=False)
    with FakeApiServer(objects, unserved_groups={"karpenter.sh/v1"}, discovery=discovery) as server:
        snapshot = _load(server, tmp_path)
        paths = {r.path for r in server.requests}
    assert not {"ConfigMap", "NodePool", "NodeClaim"} & set(snapshot.missing)
    assert {"ConfigMap", "NodePool", "NodeClaim"} <= snapshot.kinds_seen
    assert not snapshot.autoscaler_status and not snapshot.node_pools and not snapshot.node_claims
    assert CA_STATUS_PATH in paths  # a 404: no Cluster Autoscaler writes its status
    # Discovery says Karpenter is not installed: its kinds are not asked for. Without discovery,
    # the 404 of the list says the same.
    assert bool(KARPENTER_PATHS & paths) is not discovery


def test_karpenter_before_v1_is_missing_not_absent(tmp_path: Path) -> None:
    """Karpenter < 1.0 serves karpenter.sh/v1beta1 only: podwhy reads v1, so it cannot tell."""
    served = {"NodePool": "karpenter.sh/v1beta1", "NodeClaim": "karpenter.sh/v1beta1"}
    with FakeApiServer(_with_autoscalers(karpenter=False), versions=served) as server:
        snapshot = _load(server, tmp_path)
        assert not any("karpenter" in r.path for r in server.requests if r.path != "/apis")
    why = "the server serves karpenter.sh in karpenter.sh/v1beta1, not karpenter.sh/v1"
    assert snapshot.missing == {"NodePool": why, "NodeClaim": why}


def test_a_failing_status_get_leaves_it_missing_and_explains_the_pod(tmp_path: Path) -> None:
    with FakeApiServer(_with_autoscalers(), fail_once={"configmaps", "nodeclaims"}) as server:
        server.fail_always = True
        snapshot = _load(server, tmp_path)
        assert _explain("--kubeconfig", str(server.kubeconfig(tmp_path / "c")))["verdict"] == "Unschedulable"
    assert snapshot.missing == {
        "ConfigMap": "cannot get configmaps kube-system/cluster-autoscaler-status: etcdserver: leader changed",
        "NodeClaim": "cannot list nodeclaims.karpenter.sh: etcdserver: leader changed",
    }


def test_forbidden_karpenter_kinds_are_missing(tmp_path: Path) -> None:
    with FakeApiServer(_with_autoscalers(), forbidden={"nodepools", "nodeclaims"}) as server:
        snapshot = _load(server, tmp_path)
    assert snapshot.missing == {
        "NodePool": "cannot list nodepools.karpenter.sh: forbidden",
        "NodeClaim": "cannot list nodeclaims.karpenter.sh: forbidden",
    }


def _snapshot_cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["snapshot", *args])
    assert result.exit_code == 0, result.stderr
    return result.exit_code, result.stderr


@pytest.mark.parametrize("redact", [False, True])
def test_snapshot_writes_them_and_reads_back_the_same_objects(tmp_path: Path, redact: bool) -> None:
    with FakeApiServer(_with_autoscalers(), page_size_cap=2) as server:
        config = str(server.kubeconfig(tmp_path / "config"))
        live = LiveSource(kubeconfig=config).load()
        dump = tmp_path / "snap.json.gz"
        _snapshot_cli("-o", str(dump), "-A", "--kubeconfig", config, *(["--redact"] if redact else []))
        live_report = _explain("--kubeconfig", config)
    written = json.loads(gzip.decompress(dump.read_bytes()))
    fetched = json.loads(written["metadata"]["annotations"]["podwhy.dev/fetched-kinds"])
    assert {"ConfigMap", "NodePool", "NodeClaim"} <= set(fetched)
    kinds = [(i["kind"], i["apiVersion"], i["metadata"]["name"]) for i in written["items"]]
    assert ("ConfigMap", "v1", "cluster-autoscaler-status") in kinds and ("ConfigMap", "v1", "coredns") not in kinds
    assert ("NodePool", "karpenter.sh/v1", "default") in kinds
    (cm,) = [i for i in written["items"] if i["kind"] == "ConfigMap"]
    assert list(cm)[:2] == ["kind", "apiVersion"] and len(json.dumps(cm).split('"kind"')) == 2  # not twice
    back = FileSource([str(dump)]).load()
    assert back.autoscaler_status == live.autoscaler_status
    if redact:  # --redact replaces annotations the analysis does not read (Karpenter's hashes)
        assert back.node_pools["default"].metadata.annotations["karpenter.sh/nodepool-hash"] == "<redacted>"
        for pools in (back.node_pools, live.node_pools):
            pools["default"].metadata.annotations = {}
        # ... and Karpenter's condition messages (free text) and the cloud's instance ID.
        for obj in (*live.node_pools.values(), *live.node_claims.values()):
            for condition in obj.status.conditions:
                condition.message = "<redacted>" if condition.message else ""
        for claim in live.node_claims.values():
            claim.status.provider_id = ""
    assert back.node_pools == live.node_pools and back.node_claims == live.node_claims
    assert not {"ConfigMap", "NodePool", "NodeClaim"} & set(back.missing)
    # --redact keeps the status and when CA wrote it (no secret: the analysis reads both).
    annotations = back.autoscaler_status[STATUS_KEY].metadata.annotations
    assert annotations[LAST_UPDATED_ANNOTATION] == "2025-03-10 12:00:05.123456789 +0000 UTC"
    assert read_configmap(back.autoscaler_status[STATUS_KEY]).node_groups
    if redact:  # merge patches are made from the pod's JSON, which --redact trims
        a, b = comparable(_explain("--from", str(dump)), live_report)
        assert a == b
    else:
        assert _explain("--from", str(dump)) == live_report


def test_a_snapshot_without_autoscalers_vouches_and_one_forbidden_records_why(tmp_path: Path) -> None:
    objects = _with_autoscalers(ca_status=False, karpenter=False)
    with (
        FakeApiServer(objects, unserved_groups={"karpenter.sh/v1"}) as absent,
        FakeApiServer(_with_autoscalers(), forbidden={"configmaps"}) as denied,
    ):
        dumps = []
        for server in (absent, denied):
            dump = tmp_path / f"snap-{len(dumps)}.json"
            _, err = _snapshot_cli("-o", str(dump), "--kubeconfig", str(server.kubeconfig(tmp_path / "c")))
            dumps.append((FileSource([str(dump)]).load(), err))
    (empty, quiet), (forbidden, warned) = dumps
    assert not {"ConfigMap", "NodePool", "NodeClaim"} & set(empty.missing) and "not fetched" not in quiet
    assert forbidden.missing["ConfigMap"] == "cannot get configmaps kube-system/cluster-autoscaler-status: forbidden"
    assert "cannot get configmaps kube-system/cluster-autoscaler-status: forbidden" in warned


# ---------------------------------------------------------------------- dumps


def test_a_dump_without_them_leaves_them_missing_but_no_report_says_so(tmp_path: Path) -> None:
    plain = FileSource([str(EXAMPLE)]).load()
    assert {"ConfigMap", "NodePool", "NodeClaim"} <= set(plain.missing)
    # --complete vouches for them too (the user's word that the files hold every object).
    complete = FileSource([str(EXAMPLE)], complete=True).load()
    assert complete.missing == {}
    with_them = FileSource(
        [str(EXAMPLE), str(AUTOSCALING / "ca-status-text.yaml"), str(AUTOSCALING / "karpenter.yaml")]
    )
    assert not {"ConfigMap", "NodePool", "NodeClaim"} & set(with_them.load().missing)
    reports = [
        _explain("--from", str(EXAMPLE), "--complete"),
        _explain("--from", str(EXAMPLE), "--from", str(AUTOSCALING / "ca-status-yaml.yaml"), "--complete"),
    ]
    # Only the autoscaling section differs: none in the cluster, or Cluster Autoscaler's groups.
    assert reports[0].pop("autoscaling")["status"] == "NoAutoscaler"
    assert reports[1].pop("autoscaling")["groups"]
    # And who would add a node like worker-a1: nobody known, or not Cluster Autoscaler's groups.
    assert _who_adds(reports[0]) == [
        (
            "the cluster runs no autoscaler: add it by hand",
            "# scale the node group of worker-a1 up by 1 (by hand: no autoscaler is known to add a node like it)",
        )
    ]
    assert _who_adds(reports[1]) == [
        (
            "it is in no node group of ClusterAutoscaler: add it by hand",
            "# add a node like worker-a1 (by hand: it is in no node group of ClusterAutoscaler)",
        )
    ]
    assert reports[0] == reports[1] and reports[0]["snapshot"]["missingKinds"] == []
    pending = CliRunner().invoke(app, ["pending", "-A", "-o", "json", "--from", str(EXAMPLE), "--complete"])
    assert json.loads(pending.stdout)["snapshot"]["missingKinds"] == [] and "vouch" not in pending.stderr


def test_other_configmaps_of_a_dump_are_ignored_unread(tmp_path: Path) -> None:
    dump = tmp_path / "cms.json"
    status = load_objects(AUTOSCALING / "ca-status-yaml.yaml")[0]
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [OTHER_CONFIGMAP, status]}))
    snapshot = FileSource([str(dump)]).load()
    assert list(snapshot.autoscaler_status) == [STATUS_KEY]
    assert snapshot.ignored_kinds == {"ConfigMap": 1}
    only_other = tmp_path / "other.json"
    only_other.write_text(json.dumps(OTHER_CONFIGMAP))
    snapshot = FileSource([str(only_other)]).load()
    assert not snapshot.autoscaler_status and snapshot.missing["ConfigMap"] == ""
    # Not even decoded: one no API server would hold (data not strings) is no error.
    odd = "kind: ConfigMap\napiVersion: v1\nmetadata: {name: odd}\ndata: {a: [1, 2], b: {c: d}}\n"
    # A merge key: only the reference YAML reader takes it.
    merged = odd.replace("{name: odd}", "{name: odd, labels: {<<: {a: b}}}")
    for name, text, reference in (
        ("odd.yaml", odd, 0),
        ("merged.yaml", merged, 1),
        ("odd.json", json.dumps(yaml.safe_load(odd)), 0),
    ):
        (tmp_path / name).write_text(text)
        source = FileSource([str(tmp_path / name)])
        snapshot = source.load()
        assert snapshot.ignored_kinds == {"ConfigMap": 1} and not snapshot.autoscaler_status
        assert source.reference_reads == reference


def test_the_hint_adds_the_autoscalers_by_their_own_commands() -> None:
    assert autoscaler_dump_commands() == [
        "kubectl get configmap -n kube-system cluster-autoscaler-status -o yaml",
        "kubectl get nodepools.karpenter.sh,nodeclaims.karpenter.sh -o yaml",
    ]
    assert autoscaler_dump_commands(["NodeClaim"]) == ["kubectl get nodeclaims.karpenter.sh -o yaml"]
    assert autoscaler_dump_commands(["Pod"]) == []
    # The main dump stays one command that works on any cluster: no Karpenter type, no ConfigMaps.
    assert "karpenter" not in kubectl_dump_command() and "configmap" not in kubectl_dump_command()
    # The hint on an empty snapshot names one command and where the others are told.
    docs = (REPO / "docs" / "complete.md").read_text()
    assert all(c in docs for c in autoscaler_dump_commands()) and SNAPSHOT_DOCS in dump_hint()
    assert CA_STATUS.path() == CA_STATUS_PATH
