"""Live mode and `podwhy snapshot` read the admission configuration (issue 38, docs/policies.md)
through the real kubernetes client against a local API server (tests/apiserver.py): listed in the
newest version the server serves, none where it serves the kind in no version (a stock v1.35's
MutatingAdmissionPolicies), missing with the server's words where podwhy may not list it;
`podwhy snapshot` writes them and reads back the same, `--redact` keeping the expressions."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.model import objects as o
from podwhy.snapshot.live.source import LiveSource
from podwhy.snapshot.source import FileSource
from tests.apiserver import FakeApiServer, load_objects
from tests.paths import REPO
from tests.snapshot.test_admission_read import FIXTURE, admission

_ADM = "admissionregistration.k8s.io"
# v1.35 serves MutatingAdmissionPolicies as v1beta1, where their feature gate is on.
V1_35_GATE_ON = {
    "MutatingAdmissionPolicy": f"{_ADM}/v1beta1",
    "MutatingAdmissionPolicyBinding": f"{_ADM}/v1beta1",
}
PLURALS = {
    "ValidatingAdmissionPolicy": "validatingadmissionpolicies",
    "ValidatingAdmissionPolicyBinding": "validatingadmissionpolicybindings",
    "MutatingAdmissionPolicy": "mutatingadmissionpolicies",
    "MutatingAdmissionPolicyBinding": "mutatingadmissionpolicybindings",
    "ValidatingWebhookConfiguration": "validatingwebhookconfigurations",
    "MutatingWebhookConfiguration": "mutatingwebhookconfigurations",
}


def _load(server: FakeApiServer, tmp_path: Path) -> Any:
    return LiveSource(kubeconfig=str(server.kubeconfig(tmp_path / "config"))).load()


def _paths(server: FakeApiServer) -> set[str]:
    return {r.path for r in server.requests if r.path.startswith(f"/apis/{_ADM}/") and r.path.count("/") == 4}


def test_live_mode_lists_every_kind_and_reads_what_the_dump_holds(tmp_path: Path) -> None:
    with FakeApiServer(load_objects(FIXTURE), page_size_cap=1, versions=V1_35_GATE_ON) as server:
        snapshot = _load(server, tmp_path)
        assert server.methods == {"GET"}
        paths = _paths(server)
    # Discovery names group versions, not the resources each serves: a kind is asked for in v1
    # first, and where the server answers 404 (MutatingAdmissionPolicies on v1.35), in v1beta1.
    assert paths == {f"/apis/{_ADM}/v1/{plural}" for plural in PLURALS.values()} | {
        f"/apis/{_ADM}/v1beta1/mutatingadmissionpolicies",
        f"/apis/{_ADM}/v1beta1/mutatingadmissionpolicybindings",
    }
    # As `kubectl get -o json` of the same server writes them (stored: uid, resourceVersion).
    assert admission(snapshot) == admission(FileSource([str(server.dump(tmp_path / "kubectl-get.json"))]).load())
    assert o.ADMISSION_KINDS.keys() <= snapshot.kinds_seen and not snapshot.missing
    assert snapshot.api_versions["MutatingAdmissionPolicy"] == {f"{_ADM}/v1beta1"}
    assert snapshot.api_versions["ValidatingAdmissionPolicy"] == {f"{_ADM}/v1"}


def test_a_v1_36_cluster_serves_mutating_policies_as_v1(tmp_path: Path) -> None:
    with FakeApiServer(load_objects(FIXTURE)) as server:
        snapshot = _load(server, tmp_path)
    assert snapshot.api_versions["MutatingAdmissionPolicy"] == {f"{_ADM}/v1"}
    assert list(snapshot.mutating_admission_policies) == ["add-team-label"]


def test_a_cluster_that_serves_no_mutating_policies_has_none(tmp_path: Path) -> None:
    """A stock v1.35: the MutatingAdmissionPolicy gate off, admissionregistration.k8s.io/v1beta1
    not served; the v1 list answers 404. None, without a word."""
    objects = [x for x in load_objects(FIXTURE) if not x["kind"].startswith("MutatingAdmissionPolicy")]
    with FakeApiServer(objects, versions=V1_35_GATE_ON, unserved_groups={f"{_ADM}/v1beta1"}) as server:
        snapshot = _load(server, tmp_path)
    assert not snapshot.missing
    assert not snapshot.mutating_admission_policies and not snapshot.mutating_admission_policy_bindings
    assert {"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"} <= snapshot.kinds_seen
    assert snapshot.validating_admission_policies


def test_forbidden_kinds_are_missing_with_the_servers_words(tmp_path: Path) -> None:
    forbidden = {"validatingadmissionpolicies", "validatingwebhookconfigurations"}
    with FakeApiServer(load_objects(FIXTURE), forbidden=forbidden, versions=V1_35_GATE_ON) as server:
        snapshot = _load(server, tmp_path)
    assert snapshot.missing == {
        "ValidatingAdmissionPolicy": f"cannot list validatingadmissionpolicies.{_ADM}: forbidden",
        "ValidatingWebhookConfiguration": f"cannot list validatingwebhookconfigurations.{_ADM}: forbidden",
    }
    assert not snapshot.validating_admission_policies and snapshot.validating_admission_policy_bindings


def _snapshot_cli(tmp_path: Path, server: FakeApiServer, *flags: str) -> dict[str, Any]:
    dump = tmp_path / f"snap-{len(list(tmp_path.glob('snap-*')))}.json.gz"
    config = str(server.kubeconfig(tmp_path / "config"))
    result = CliRunner().invoke(app, ["snapshot", "-o", str(dump), "-A", "-q", "--kubeconfig", config, *flags])
    assert result.exit_code == 0, result.stderr
    written: dict[str, Any] = json.loads(gzip.decompress(dump.read_bytes()))
    written["path"] = str(dump)
    return written


def test_snapshot_writes_them_and_reads_them_back(tmp_path: Path) -> None:
    with FakeApiServer(load_objects(FIXTURE), page_size_cap=2, versions=V1_35_GATE_ON) as server:
        live = _load(server, tmp_path)
        written = _snapshot_cli(tmp_path, server)
    fetched = json.loads(written["metadata"]["annotations"]["podwhy.dev/fetched-kinds"])
    assert o.ADMISSION_KINDS.keys() <= set(fetched)
    kinds = {(i["kind"], i["apiVersion"]) for i in written["items"]}
    assert {("MutatingAdmissionPolicy", f"{_ADM}/v1beta1"), ("ValidatingAdmissionPolicy", f"{_ADM}/v1")} <= kinds
    back = FileSource([written["path"]]).load()
    assert admission(back) == admission(live)
    assert not back.missing


def test_snapshot_of_a_forbidden_kind_records_why(tmp_path: Path) -> None:
    with FakeApiServer(load_objects(FIXTURE), forbidden={"mutatingwebhookconfigurations"}) as server:
        written = _snapshot_cli(tmp_path, server)
    why = {"MutatingWebhookConfiguration": f"cannot list mutatingwebhookconfigurations.{_ADM}: forbidden"}
    assert json.loads(written["metadata"]["annotations"]["podwhy.dev/missing-kinds"]) == why
    assert FileSource([written["path"]]).load().missing == why


def test_redact_keeps_the_expressions_and_drops_what_the_decision_does_not_read(tmp_path: Path) -> None:
    objects = load_objects(FIXTURE)
    for obj in objects:
        if obj["apiVersion"].startswith(_ADM):
            obj["metadata"]["annotations"] = {"owner.example.com/email": "alice@example.com"}
            obj["metadata"]["managedFields"] = [{"manager": "secret-manager"}]
    with FakeApiServer(objects, versions=V1_35_GATE_ON) as server:
        live = _load(server, tmp_path)
        written = _snapshot_cli(tmp_path, server, "--redact")
    text = json.dumps(written)
    for secret in ("alice@example.com", "secret-manager", "LS0tLS1CRUdJTi1DRVJUSUZJQ0FURS0tLS0t"):
        assert secret not in text
    back = FileSource([written["path"]]).load()
    assert back.redacted
    for snapshot in (live, back):
        for objs in admission(snapshot).values():
            for obj in objs.values():
                obj.metadata.annotations = {}
    # Everything the model reads is kept as it was: expressions, messages, rules, selectors, services.
    assert admission(back) == admission(live)
    policy = back.validating_admission_policies["require-resource-limits"].spec
    assert policy.validations[0].expression.startswith("object.spec.containers.all(c, has(c.resources)")
    assert policy.validations[0].message == "Memory limits are required for all containers."


def test_the_rbac_role_grants_listing_them() -> None:
    import yaml

    docs = list(yaml.safe_load_all((REPO / "deploy" / "rbac.yaml").read_text()))
    (role,) = [d for d in docs if d["kind"] == "ClusterRole"]
    (rule,) = [r for r in role["rules"] if r["apiGroups"] == [_ADM]]
    assert set(rule["resources"]) == set(PLURALS.values()) and rule["verbs"] == ["get", "list"]
