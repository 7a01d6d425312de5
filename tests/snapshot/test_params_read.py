"""Reading the ValidatingAdmissionPolicies' params from dumps (snapshot/params.py, docs/policies.md
"Params"): ConfigMaps and custom resources held as their JSON text while the inputs are read, then
only those of the kinds a policy's paramKind names (whatever file, before or after, holds the
policy), by every reader (JSON, YAML's fast and reference readers, stdin, folders); Secrets and
other built-in kinds never; kept ones no longer counted among the ignored kinds; bounded."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from podwhy.snapshot import fastyaml
from podwhy.snapshot import params as store_module
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.source import FileSource
from tests.paths import REPO

_ADM = "admissionregistration.k8s.io/v1"


def _policy(api_version: str = "v1", kind: str = "ConfigMap") -> dict[str, Any]:
    return {
        "apiVersion": _ADM,
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "p"},
        "spec": {"paramKind": {"apiVersion": api_version, "kind": kind}},
    }


def _binding(ref: dict[str, Any] | None = None, name: str = "b") -> dict[str, Any]:
    """A binding of _policy's policy; its paramRef selects every object by default."""
    ref = {"selector": {}, "parameterNotFoundAction": "Allow"} if ref is None else ref
    return {
        "apiVersion": _ADM,
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": name},
        "spec": {"policyName": "p", "validationActions": ["Deny"], "paramRef": ref},
    }


def _config_map(name: str, namespace: str = "shop", **data: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "labels": {"team": "a"}},
        "data": data,
    }


CUSTOM = {"apiVersion": "example.com/v1", "kind": "ParamsConfig", "metadata": {"name": "c", "namespace": "shop"}}
SECRET = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "shop"}, "data": {"k": "djE="}}
STATUS = _config_map("cluster-autoscaler-status", "kube-system", status="...")
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}


def _list(*items: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "items": list(items)}


def _load(*paths: Path, stdin: bytes | None = None) -> Snapshot:
    names = [str(p) for p in paths] + (["-"] if stdin is not None else [])
    return FileSource(names, stdin=io.BytesIO(stdin) if stdin is not None else None).load()


def _held(snapshot: Snapshot) -> dict[tuple[str, str], list[str]]:
    return {
        key: sorted(f"{ns}/{name}" if ns else name for ns, name in objects)
        for key, objects in snapshot.params.objects.items()
    }


def _write(tmp_path: Path, name: str, doc: dict[str, Any], as_json: bool) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc) if as_json else yaml.safe_dump(doc, sort_keys=False))
    return path


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "yaml"])
def test_the_config_maps_a_policy_names_are_kept_and_no_other_kind(tmp_path: Path, as_json: bool) -> None:
    dump = _list(
        NODE, _policy(), _binding(), _config_map("limits", max="3"), _config_map("other"), STATUS, CUSTOM, SECRET
    )
    snapshot = _load(_write(tmp_path, "dump", dump, as_json))
    assert _held(snapshot) == {
        ("", "ConfigMap"): ["kube-system/cluster-autoscaler-status", "shop/limits", "shop/other"]
    }
    # Kept ConfigMaps are read: no longer counted as ignored; the others are, as before.
    assert snapshot.ignored_kinds == {"ParamsConfig": 1, "Secret": 1}
    assert snapshot.autoscaler_status  # Cluster Autoscaler's status is read as it was
    param = snapshot.params.objects[("", "ConfigMap")][("shop", "limits")]
    assert param.labels == {"team": "a"}
    assert param.json == {**_config_map("limits", max="3")}
    assert snapshot.params.seen[("", "ConfigMap")] == {"shop", "kube-system"}


def test_without_a_policy_naming_them_nothing_is_kept(tmp_path: Path) -> None:
    snapshot = _load(_write(tmp_path, "dump", _list(NODE, _config_map("limits"), CUSTOM), True))
    assert not snapshot.params.objects and snapshot.params.held_bytes == 0
    assert snapshot.ignored_kinds == {"ConfigMap": 1, "ParamsConfig": 1}
    # What the dump held is still known: where a policy's lookup would look.
    assert snapshot.params.seen == {("", "ConfigMap"): {"shop"}, ("example.com", "ParamsConfig"): {"shop"}}


def test_a_custom_kind_a_policy_names_is_kept_with_its_version(tmp_path: Path) -> None:
    custom = {**CUSTOM, "spec": {"maxReplicas": 3}}
    dump = _list(_policy("example.com/v1", "ParamsConfig"), _binding(), custom)
    snapshot = _load(_write(tmp_path, "dump", dump, False))
    assert _held(snapshot) == {("example.com", "ParamsConfig"): ["shop/c"]}
    assert snapshot.params.versions[("example.com", "ParamsConfig")] == {"example.com/v1"}
    assert snapshot.params.objects[("example.com", "ParamsConfig")][("shop", "c")].json["spec"] == {"maxReplicas": 3}


def test_of_a_kind_whose_param_refs_all_name_their_params_only_those_are_kept(tmp_path: Path) -> None:
    """paramRefs by name keep those names (in their namespace, or in any: the request's decides);
    a selector keeps every object of the kind; a policy without bindings keeps none."""
    maps = [_config_map("limits"), _config_map("limits", "prod"), _config_map("quota", "ml"), _config_map("quota")]
    bindings = [_binding({"name": "limits"}, "any"), _binding({"name": "quota", "namespace": "ml"}, "ml")]
    snapshot = _load(_write(tmp_path, "a.json", _list(_policy(), *bindings, *maps, STATUS), True))
    assert _held(snapshot) == {("", "ConfigMap"): ["ml/quota", "prod/limits", "shop/limits"]}
    assert snapshot.ignored_kinds == {"ConfigMap": 1}  # shop/quota; the autoscaler's status is read
    assert snapshot.params.seen[("", "ConfigMap")] == {"shop", "prod", "ml", "kube-system"}
    snapshot = _load(_write(tmp_path, "b.json", _list(_policy(), *maps), True))
    assert not snapshot.params.objects and snapshot.ignored_kinds == {"ConfigMap": 4}


def test_the_policy_may_come_in_a_later_file_or_stdin(tmp_path: Path) -> None:
    maps = _write(tmp_path, "maps.json", _list(_config_map("limits")), True)
    policies = json.dumps(_list(_policy(), _binding())).encode()
    assert _held(_load(maps, stdin=policies)) == {("", "ConfigMap"): ["shop/limits"]}
    later = _write(tmp_path, "policies.yaml", _list(_policy(), _binding()), False)
    assert _held(_load(maps, later)) == {("", "ConfigMap"): ["shop/limits"]}
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps(_list(_config_map("limits"))))
    (folder / "b.yaml").write_text(yaml.safe_dump(_list(_policy(), _binding())))
    assert _held(_load(folder)) == {("", "ConfigMap"): ["shop/limits"]}


def test_both_yaml_readers_hold_the_same_params(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = yaml.safe_dump(_list(_policy(), _binding(), _config_map("limits", max="3"), STATUS), sort_keys=False)
    text += "---\napiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: anchored, namespace: shop}\ndata: {a: '1'}\n"
    path = tmp_path / "dump.yaml"
    path.write_text(text)
    fast = _load(path)
    with monkeypatch.context() as patch:
        patch.setattr(fastyaml, "ryml", None)
        reference = _load(path)
    assert (
        _held(fast)
        == _held(reference)
        == {("", "ConfigMap"): ["kube-system/cluster-autoscaler-status", "shop/anchored", "shop/limits"]}
    )
    for key, objects in fast.params.objects.items():
        assert {k: p.json for k, p in objects.items()} == {k: p.json for k, p in reference.params.objects[key].items()}


def test_an_object_given_twice_is_held_once_the_newer(tmp_path: Path) -> None:
    old, new = _config_map("limits", max="3"), _config_map("limits", max="5")
    old["metadata"]["resourceVersion"], new["metadata"]["resourceVersion"] = "10", "9"
    snapshot = _load(
        _write(tmp_path, "a.json", _list(_policy(), _binding(), old), True),
        _write(tmp_path, "b.json", _list(new), True),
    )
    assert snapshot.params.objects[("", "ConfigMap")][("shop", "limits")].json["data"] == {"max": "3"}


def test_manifests_hold_no_params(tmp_path: Path) -> None:
    """`-f` manifests' ConfigMaps are not the cluster's (podwhy does not create them)."""
    from podwhy.snapshot.decode import decode

    decoded = decode(json.dumps(_list(_config_map("limits"), CUSTOM)).encode(), "m.json", manifests=True)
    assert not decoded.params


def test_a_cluster_info_dump_holds_no_config_maps() -> None:
    """`kubectl cluster-info dump` writes no ConfigMaps: the params of a policy naming them are
    not vouched for (cluster/apiserver/admission/policy/params.py says so: not evaluated)."""
    snapshot = _load(REPO / "fixtures" / "samples" / "cluster-info-dump")
    assert ("", "ConfigMap") not in snapshot.params.seen


def test_what_is_held_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past limits.MAX_PARAM_BYTES the kind that crossed it is dropped (and said not evaluated)."""
    monkeypatch.setattr(store_module, "MAX_PARAM_BYTES", 2_000)
    maps = [_config_map(f"cm-{i}", v="x" * 300) for i in range(10)]
    snapshot = _load(_write(tmp_path, "dump.json", _list(_policy(), _binding(), *maps, CUSTOM), True))
    assert snapshot.params.dropped == {("", "ConfigMap")}
    assert not snapshot.params.objects and snapshot.params.held_bytes == 0
    assert snapshot.params.seen[("", "ConfigMap")] == {"shop"}
