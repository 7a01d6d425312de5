"""Live mode and `podwhy snapshot` read the ValidatingAdmissionPolicies' params (snapshot/live/params.py,
docs/policies.md "Params") through the real kubernetes client against the local API server
(tests/apiserver.py): GET requests only, for only what a binding's paramRef can select; a 403
leaves them not evaluated with the server's words (never a guess); a custom kind found by
discovery; `podwhy snapshot` writes them (once, beside Cluster Autoscaler's status) with what it
learnt of each paramKind, and reads back the same; `--redact` keeps a param's data."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.cluster.apiserver.admission.policy import params as p
from podwhy.cluster.apiserver.admission.policy.admission import validate_policies
from podwhy.cluster.apiserver.admission.policy.request import request_for
from podwhy.model import objects as o
from podwhy.report.build.inputs import input_warnings
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.live.params import label_selector_query
from podwhy.snapshot.live.source import LiveSource
from podwhy.snapshot.params import PARAMS_ANNOTATION, FetchedKind
from podwhy.snapshot.source import FileSource
from tests.apiserver import FakeApiServer
from tests.paths import REPO

_ADM = "admissionregistration.k8s.io/v1"
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
CUSTOM = {"ParamsConfig": ("example.com/v1", "paramsconfigs", True)}


PODS = {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}


def _policy(name: str, api_version: str = "v1", kind: str = "ConfigMap") -> dict[str, Any]:
    return {
        "apiVersion": _ADM,
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name},
        "spec": {
            "paramKind": {"apiVersion": api_version, "kind": kind},
            "matchConstraints": {
                "resourceRules": [
                    {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}
                ]
            },
            "validations": [{"expression": "false", "messageExpression": "'max ' + params.data.max"}],
        },
    }


def _binding(name: str, policy: str, ref: dict[str, Any]) -> dict[str, Any]:
    spec = {"policyName": policy, "validationActions": ["Warn"], "paramRef": {**ref, "parameterNotFoundAction": "Deny"}}
    return {"apiVersion": _ADM, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name}, "spec": spec}


def _config_map(name: str, namespace: str, labels: dict[str, str] | None = None, **data: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "annotations": {"owner": "alice@example.com"}}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}


STATUS = _config_map("cluster-autoscaler-status", "kube-system", status="Cluster-autoscaler status")
OBJECTS = [
    NODE,
    _policy("max"),
    _binding("by-name", "max", {"name": "limits", "namespace": "shop"}),
    _binding("by-name-any-namespace", "max", {"name": "limits"}),
    _binding("by-selector", "max", {"selector": {"matchLabels": {"policy": "max"}}, "namespace": "ml"}),
    _config_map("limits", "shop", max="3"),
    _config_map("limits", "prod", max="5"),
    _config_map("a", "ml", {"policy": "max"}, max="7"),
    _config_map("b", "ml", max="9"),
    _config_map("unrelated", "shop", password="hunter2"),
    _config_map("kube-root-ca.crt", "shop", **{"ca.crt": "---"}),
    STATUS,
]


def _load(server: FakeApiServer, tmp_path: Path) -> Snapshot:
    return LiveSource(kubeconfig=str(server.kubeconfig(tmp_path / "config"))).load()


def _held(snapshot: Snapshot) -> dict[tuple[str, str], list[str]]:
    return {key: sorted(f"{ns}/{name}" for ns, name in objs) for key, objs in snapshot.params.objects.items()}


def _config_map_requests(server: FakeApiServer) -> list[tuple[str, dict[str, list[str]]]]:
    return [
        (r.path, {k: v for k, v in r.query.items() if k != "limit"}) for r in server.requests if "configmaps" in r.path
    ]


def test_only_what_a_param_ref_can_select_is_fetched(tmp_path: Path) -> None:
    with FakeApiServer(OBJECTS, page_size_cap=1) as server:
        snapshot = _load(server, tmp_path)
        assert server.methods == {"GET"}
        asked = _config_map_requests(server)
    paths = {path for path, _ in asked}
    assert paths == {
        "/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-status",
        "/api/v1/namespaces/shop/configmaps/limits",
        "/api/v1/configmaps",
        "/api/v1/namespaces/ml/configmaps",
    }
    queries = {path: q for path, q in asked if "continue" not in q}
    assert queries["/api/v1/namespaces/ml/configmaps"] == {"labelSelector": ["policy=max"]}
    assert queries["/api/v1/configmaps"] == {"fieldSelector": ["metadata.name=limits"]}
    assert _held(snapshot) == {("", "ConfigMap"): ["ml/a", "prod/limits", "shop/limits"]}
    assert snapshot.params.fetched == {"v1/ConfigMap": FetchedKind(served=True, namespaced=True)}
    # Evaluated: shop's, the request's namespace's, and ml's selected one.
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x", "namespace": "prod"}, "spec": {}}
    verdict, gaps = validate_policies(snapshot, request_for(pod, {"metadata": {"name": "prod"}}))
    assert not gaps and [w.rpartition(": ")[2] for w in verdict.warnings] == ["max 3", "max 5", "max 7"]


def test_a_forbidden_list_leaves_the_params_not_evaluated_with_the_servers_words(tmp_path: Path) -> None:
    with FakeApiServer(OBJECTS, forbidden={"configmaps"}) as server:
        snapshot = _load(server, tmp_path)
    (kind,) = snapshot.params.fetched.values()
    assert kind.missing.startswith("cannot ") and kind.missing.endswith(": forbidden")
    assert not snapshot.params.objects
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x", "namespace": "shop"}, "spec": {}}
    verdict, gaps = validate_policies(snapshot, request_for(pod, {"metadata": {"name": "shop"}}))
    assert verdict.denial is None
    assert [(g.binding, g.why, g.detail) for g in gaps] == [(None, p.NOT_FETCHED, kind.missing)]
    assert (
        f"the ValidatingAdmissionPolicies' params (v1/ConfigMap) could not be read ({kind.missing}): the bindings"
        " that read them are not evaluated"
    ) in input_warnings(snapshot)


def test_a_custom_kind_is_found_by_discovery(tmp_path: Path) -> None:
    custom = {"apiVersion": "example.com/v1", "kind": "ParamsConfig", "metadata": {"name": "c", "namespace": "shop"}}
    objects = [
        NODE,
        _policy("custom", "example.com/v1", "ParamsConfig"),
        _binding("b", "custom", {"name": "c", "namespace": "shop"}),
        _policy("typo", "example.com/v1", "ParamsConfg"),
        _binding("t", "typo", {"name": "c", "namespace": "shop"}),
        _policy("unserved", "example.org/v1", "Params"),
        _binding("u", "unserved", {"name": "c", "namespace": "shop"}),
        {**custom, "spec": {"max": 3}},
        {**custom, "metadata": {"name": "other", "namespace": "shop"}},
    ]
    with FakeApiServer(objects, extra_served=CUSTOM) as server:
        snapshot = _load(server, tmp_path)
        paths = [r.path for r in server.requests if "example" in r.path]
    assert "/apis/example.com/v1/namespaces/shop/paramsconfigs/c" in paths
    assert _held(snapshot) == {("example.com", "ParamsConfig"): ["shop/c"]}
    assert snapshot.params.fetched == {
        "example.com/v1/ParamsConfig": FetchedKind(served=True, namespaced=True),
        "example.com/v1/ParamsConfg": FetchedKind(served=False),
        "example.org/v1/Params": FetchedKind(served=False),
    }
    param = snapshot.params.objects[("example.com", "ParamsConfig")][("shop", "c")]
    assert param.json["spec"] == {"max": 3} and param.json["kind"] == "ParamsConfig"


def _snapshot_cli(tmp_path: Path, server: FakeApiServer, *flags: str) -> dict[str, Any]:
    dump = tmp_path / f"snap-{len(list(tmp_path.glob('snap-*')))}.json.gz"
    config = str(server.kubeconfig(tmp_path / "config"))
    result = CliRunner().invoke(app, ["snapshot", "-o", str(dump), "-A", "-q", "--kubeconfig", config, *flags])
    assert result.exit_code == 0, result.stderr
    written: dict[str, Any] = json.loads(gzip.decompress(dump.read_bytes()))
    written["path"] = str(dump)
    written["stderr"] = result.stderr
    return written


def _params_json(snapshot: Snapshot) -> dict[Any, Any]:
    """The params fetched (a dump holds Cluster Autoscaler's status among its ConfigMaps too:
    live, it is read by name, not as a param; no paramRef of these selects it)."""
    return {
        (key, name): {k: v for k, v in param.json.items() if k != "metadata"}
        for key, objs in snapshot.params.objects.items()
        for name, param in objs.items()
        if name != ("kube-system", "cluster-autoscaler-status")
    }


def test_snapshot_writes_the_params_and_reads_them_back(tmp_path: Path) -> None:
    with FakeApiServer(OBJECTS) as server:
        live = _load(server, tmp_path)
        written = _snapshot_cli(tmp_path, server)
    maps = [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in written["items"] if i["kind"] == "ConfigMap"]
    assert sorted(maps) == [
        ("kube-system", "cluster-autoscaler-status"),
        ("ml", "a"),
        ("prod", "limits"),
        ("shop", "limits"),
    ]
    annotations = written["metadata"]["annotations"]
    assert json.loads(annotations[PARAMS_ANNOTATION]) == {"v1/ConfigMap": {"served": True, "namespaced": True}}
    back = FileSource([written["path"]]).load()
    assert _params_json(back) == _params_json(live) and len(_params_json(live)) == 3
    assert back.params.fetched == live.params.fetched
    assert not back.repeats and not back.duplicates  # the autoscaler's status written once


def test_snapshot_of_forbidden_params_records_why(tmp_path: Path) -> None:
    with FakeApiServer(OBJECTS, forbidden={"configmaps"}) as server:
        written = _snapshot_cli(tmp_path, server)
    recorded = json.loads(written["metadata"]["annotations"][PARAMS_ANNOTATION])["v1/ConfigMap"]
    assert recorded["missing"].endswith(": forbidden")
    assert f"{recorded['missing']} (policies' params)" in " ".join(written["stderr"].split())
    back = FileSource([written["path"]]).load()
    assert back.params.fetched["v1/ConfigMap"].missing == recorded["missing"]


def test_redact_keeps_the_data_of_params_only(tmp_path: Path) -> None:
    with FakeApiServer(OBJECTS) as server:
        live = _load(server, tmp_path)
        written = _snapshot_cli(tmp_path, server, "--redact")
    text = json.dumps(written)
    assert "hunter2" not in text and "alice@example.com" not in text  # never fetched; annotations redacted
    back = FileSource([written["path"]]).load()
    assert back.redacted
    assert _params_json(back) == _params_json(live)
    limits = back.params.objects[("", "ConfigMap")][("shop", "limits")].json
    assert limits["data"] == {"max": "3"} and limits["metadata"]["annotations"] == {"owner": "<redacted>"}


@pytest.mark.parametrize(
    ("selector", "query"),
    [
        ({}, ""),
        ({"matchLabels": {"a": "b", "c": "d"}}, "a=b,c=d"),
        (
            {
                "matchExpressions": [
                    {"key": "a", "operator": "In", "values": ["x", "y"]},
                    {"key": "b", "operator": "NotIn", "values": ["z"]},
                    {"key": "c", "operator": "Exists"},
                    {"key": "d", "operator": "DoesNotExist"},
                ]
            },
            "a in (x,y),b notin (z),c,!d",
        ),
        ({"matchExpressions": [{"key": "a", "operator": "Foo"}]}, None),  # the binding's configuration error
        ({"matchExpressions": [{"key": "a", "operator": "In"}]}, None),
    ],
)
def test_a_selector_is_asked_for_as_a_label_selector(selector: dict[str, Any], query: str | None) -> None:
    import msgspec

    assert label_selector_query(msgspec.convert(selector, o.LabelSelector)) == query


def test_the_rbac_role_grants_reading_config_maps() -> None:
    import yaml

    docs = list(yaml.safe_load_all((REPO / "deploy" / "rbac.yaml").read_text()))
    (role,) = [d for d in docs if d["kind"] == "ClusterRole"]
    (rule,) = [r for r in role["rules"] if r["apiGroups"] == [""]]
    assert "configmaps" in rule["resources"] and "secrets" not in rule["resources"]
    assert rule["verbs"] == ["get", "list"]
