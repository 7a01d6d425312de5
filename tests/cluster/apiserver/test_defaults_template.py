"""The API server's defaulting of a whole pod template (cluster/apiserver/defaults.py), after the cases of
upstream's pkg/apis/core/v1/defaults_test.go, and `check`'s use of it: a manifest that changes a
field podwhy does not model still rolls the workload out (cluster/controllers/revisions.py, same_stored_template)."""

from __future__ import annotations

import copy
import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.cluster.apiserver.defaults import (
    default_pod_spec,
    default_template,
    image_tag,
    rounded_quantity,
    stored_form,
)
from podwhy.cluster.controllers.revisions import same_stored_template
from podwhy.features.emulation import V1_33, V1_36
from podwhy.snapshot import fastyaml
from tests.shared import SHARED, needs_shared

Json = dict[str, Any]


def _spec(**fields: Any) -> Json:
    return {"containers": [{"name": "c", "image": "x:1"}], **fields}


def _defaulted(spec: Json, pod: bool = False) -> Json:
    out = copy.deepcopy(spec)
    default_pod_spec(out, pod=pod)
    return out


# ------------------------------------------------------------------ upstream's cases, as data
@pytest.mark.parametrize(
    ("image", "policy"),
    [
        # TestSetDefaultImagePullPolicy: no tag and :latest pull always; a tag or a digest does not.
        ("nginx", "Always"),
        ("nginx:latest", "Always"),
        ("docker.io/library/nginx:latest", "Always"),
        ("nginx:1.27", "IfNotPresent"),
        ("registry.example.com:5000/team/app", "Always"),
        ("registry.example.com:5000/team/app:v2", "IfNotPresent"),
        ("nginx@sha256:" + "a" * 64, "IfNotPresent"),
        ("nginx:latest@sha256:" + "a" * 64, "Always"),
        ("", "IfNotPresent"),  # does not parse
        ("Nginx/App", "IfNotPresent"),  # upper case in a repository path does not parse
        ("Registry/app", "Always"),  # ... but a registry's name may have it
    ],
)
def test_image_pull_policy_follows_the_tag(image: str, policy: str) -> None:
    container = _defaulted({"containers": [{"name": "c", "image": image}]})["containers"][0]
    assert container["imagePullPolicy"] == policy


def test_an_explicit_pull_policy_is_kept() -> None:
    spec = _defaulted({"containers": [{"name": "c", "image": "nginx", "imagePullPolicy": "Never"}]})
    assert spec["containers"][0]["imagePullPolicy"] == "Never"


def test_image_tags() -> None:
    assert image_tag("a/b:c") == "c"
    assert image_tag("localhost/app") == "latest"
    assert image_tag("a" * 64) == ""  # a bare 64-hex identifier is refused


def test_pod_spec_defaults() -> None:
    """TestSetDefaultPodSpec / SetDefaults_PodSpec and SetDefaults_Container."""
    assert _defaulted(_spec()) == {
        "containers": [
            {
                "name": "c",
                "image": "x:1",
                "imagePullPolicy": "IfNotPresent",
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
            }
        ],
        "dnsPolicy": "ClusterFirst",
        "restartPolicy": "Always",
        "securityContext": {},
        "terminationGracePeriodSeconds": 30,
        "schedulerName": "default-scheduler",
    }


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({}, {"timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3}),
        (
            {"periodSeconds": 5, "timeoutSeconds": 0, "httpGet": {"port": 80}},
            {
                "periodSeconds": 5,
                "timeoutSeconds": 1,
                "successThreshold": 1,
                "failureThreshold": 3,
                "httpGet": {"port": 80, "path": "/", "scheme": "HTTP"},
            },
        ),
        (
            {"grpc": {"port": 9000}, "failureThreshold": 7},
            {"grpc": {"port": 9000, "service": ""}, "failureThreshold": 7, "timeoutSeconds": 1, "periodSeconds": 10}
            | {"successThreshold": 1},
        ),
    ],
)
def test_probe_defaults(given: Json, expected: Json) -> None:
    """TestSetDefaultProbe and SetDefaults_HTTPGetAction, for every probe of every container kind."""
    for kind in ("containers", "initContainers", "ephemeralContainers"):
        for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
            spec = _defaulted({kind: [{"name": "c", "image": "x:1", probe: copy.deepcopy(given)}]})
            assert spec[kind][0][probe] == expected


def test_lifecycle_http_hooks_and_ports_and_env() -> None:
    container = {
        "name": "c",
        "image": "x:1",
        "ports": [{"containerPort": 80}, {"containerPort": 53, "protocol": "UDP"}],
        "env": [{"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
        "lifecycle": {"preStop": {"httpGet": {"port": 8080}}},
    }
    out = _defaulted({"containers": [container]})["containers"][0]
    assert [p["protocol"] for p in out["ports"]] == ["TCP", "UDP"]
    assert out["env"][0]["valueFrom"]["fieldRef"]["apiVersion"] == "v1"  # TestSetDefaultObjectFieldSelectorAPIVersion
    assert out["lifecycle"]["preStop"]["httpGet"] == {"port": 8080, "path": "/", "scheme": "HTTP"}


@pytest.mark.parametrize(("emulation", "optional"), [(V1_33, None), (V1_36, False)])
def test_env_file_key_ref_optional_defaults_from_v1_34(emulation: Any, optional: bool | None) -> None:
    env = [{"name": "A", "valueFrom": {"fileKeyRef": {"volumeName": "v", "path": "p", "key": "k"}}}]
    spec = {"containers": [{"name": "c", "image": "x:1", "env": env}]}
    default_pod_spec(spec, emulation)
    assert spec["containers"][0]["env"][0]["valueFrom"]["fileKeyRef"].get("optional") == optional


@pytest.mark.parametrize(
    ("volume", "expected"),
    [
        # SetDefaults_Volume: a volume without a source is an emptyDir.
        ({"name": "v"}, {"name": "v", "emptyDir": {}}),
        (
            {"name": "v", "secret": {"secretName": "s"}},
            {"name": "v", "secret": {"secretName": "s", "defaultMode": 420}},
        ),
        (
            {"name": "v", "configMap": {"name": "m", "defaultMode": 256}},
            {"name": "v", "configMap": {"name": "m"} | {"defaultMode": 256}},
        ),
        (
            {"name": "v", "downwardAPI": {"items": [{"path": "l", "fieldRef": {"fieldPath": "metadata.labels"}}]}},
            {
                "name": "v",
                "downwardAPI": {
                    "defaultMode": 420,
                    "items": [{"path": "l", "fieldRef": {"fieldPath": "metadata.labels", "apiVersion": "v1"}}],
                },
            },
        ),
        (
            {"name": "v", "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}},
            {
                "name": "v",
                "projected": {
                    "defaultMode": 420,
                    "sources": [{"serviceAccountToken": {"path": "t"} | {"expirationSeconds": 3600}}],
                },
            },
        ),
        ({"name": "v", "hostPath": {"path": "/x"}}, {"name": "v", "hostPath": {"path": "/x", "type": ""}}),
        (
            {"name": "v", "iscsi": {"targetPortal": "t", "iqn": "i", "lun": 0}},
            {"name": "v", "iscsi": {"targetPortal": "t", "iqn": "i", "lun": 0, "iscsiInterface": "default"}},
        ),
        (
            {"name": "v", "rbd": {"monitors": ["m"], "image": "i"}},
            {
                "name": "v",
                "rbd": {"monitors": ["m"], "image": "i", "pool": "rbd", "user": "admin"}
                | {"keyring": "/etc/ceph/keyring"},
            },
        ),
        (
            {"name": "v", "azureDisk": {"diskName": "d", "diskURI": "u"}},
            {
                "name": "v",
                "azureDisk": {"diskName": "d", "diskURI": "u", "cachingMode": "ReadWrite", "fsType": "ext4"}
                | {"readOnly": False, "kind": "Shared"},
            },
        ),
        (
            {"name": "v", "scaleIO": {"gateway": "g", "system": "s", "secretRef": {"name": "r"}}},
            {
                "name": "v",
                "scaleIO": {"gateway": "g", "system": "s", "secretRef": {"name": "r"}}
                | {"storageMode": "ThinProvisioned", "fsType": "xfs"},
            },
        ),
        (
            {
                "name": "v",
                "ephemeral": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "0.0001"}}}}},
            },
            {
                "name": "v",
                "ephemeral": {
                    "volumeClaimTemplate": {
                        "spec": {"resources": {"requests": {"storage": "1m"}}, "volumeMode": "Filesystem"}
                    }
                },
            },
        ),
        (
            {"name": "v", "image": {"reference": "tools:latest"}},
            {"name": "v", "image": {"reference": "tools:latest", "pullPolicy": "Always"}},
        ),
    ],
)
def test_volume_defaults(volume: Json, expected: Json) -> None:
    assert _defaulted(_spec(volumes=[volume]))["volumes"] == [expected]


def test_resource_lists_round_up_to_thousandths() -> None:
    """SetDefaults_ResourceList (TestSetDefaultResourceListRounding): 0.0001 cpu is 1m; a quantity
    that rounding leaves alone is kept as written, and the stored form is canonical."""
    assert rounded_quantity("0.0001") == "1m"
    assert rounded_quantity("1000m") == "1000m"
    assert rounded_quantity("1000m", canonical=True) == "1"
    assert rounded_quantity("1024Mi", canonical=True) == "1Gi"
    spec = _defaulted({"containers": [{"name": "c", "image": "x:1", "resources": {"limits": {"cpu": "0.0001"}}}]})
    assert spec["containers"][0]["resources"] == {"limits": {"cpu": "1m"}}


def test_pod_only_defaults_are_not_a_templates() -> None:
    """SetDefaults_Pod runs on Pods, not on templates: requests from limits, enableServiceLinks,
    the host network's ports (TestSetDefaultRequestsPod, TestSetDefaultPodSpecHostNetwork)."""
    container = {"name": "c", "image": "x:1", "resources": {"limits": {"cpu": "1"}}, "ports": [{"containerPort": 80}]}
    spec = {"hostNetwork": True, "containers": [container]}
    template = _defaulted(spec)
    pod = _defaulted(spec, pod=True)
    assert template["containers"][0]["resources"] == {"limits": {"cpu": "1"}}
    assert "enableServiceLinks" not in template and "hostPort" not in template["containers"][0]["ports"][0]
    assert pod["containers"][0]["resources"] == {"limits": {"cpu": "1"}, "requests": {"cpu": "1"}}
    assert pod["enableServiceLinks"] is True
    assert pod["containers"][0]["ports"][0]["hostPort"] == 80


@pytest.mark.parametrize(("emulation", "requests"), [(V1_33, None), (V1_36, {"cpu": "2"})])
def test_pod_level_requests_follow_the_release(emulation: Any, requests: Json | None) -> None:
    spec = {"resources": {"limits": {"cpu": "2"}}, "containers": [{"name": "c", "image": "x:1"}]}
    default_pod_spec(spec, emulation, pod=True)
    assert spec["resources"].get("requests") == requests


# ------------------------------------------------------------------ idempotence and stored objects
IDEMPOTENCE_INPUTS = [
    _spec(),
    _spec(volumes=[{"name": "a"}, {"name": "b", "secret": {"secretName": "s"}}]),
    {"hostNetwork": True, "containers": [{"name": "c", "image": "n", "ports": [{"containerPort": 1}]}]},
    {"containers": [{"name": "c", "image": "n", "resources": {"limits": {"cpu": "0.00001", "memory": "1.5Gi"}}}]},
    {"resources": {"limits": {"cpu": "1", "hugepages-2Mi": "2Mi"}}, "containers": [{"name": "c", "image": "n"}]},
]


@pytest.mark.parametrize("spec", IDEMPOTENCE_INPUTS)
@pytest.mark.parametrize("pod", [False, True])
def test_defaulting_twice_is_defaulting_once(spec: Json, pod: bool) -> None:
    once = _defaulted(spec, pod)
    assert _defaulted(once, pod) == once
    assert stored_form({"spec": once}) == stored_form({"spec": _defaulted(once, pod)})


def _stored_objects(root: Path) -> Iterator[tuple[Path, Json]]:
    for path in sorted(root.rglob("*")):
        if not path.name.endswith((".yaml", ".yml", ".json", ".yaml.gz", ".json.gz")):
            continue
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
        if path.name.endswith((".json", ".json.gz")):
            texts = [data]
        else:
            texts = [fastyaml.whole_document_json(doc.text) or b"" for doc in fastyaml.documents(data)]
        for text in texts:
            try:
                doc = msgspec.json.decode(text)
            except msgspec.DecodeError:
                continue
            items = doc.get("items") if isinstance(doc, dict) else None
            for obj in items if isinstance(items, list) else [doc]:
                meta = obj.get("metadata") if isinstance(obj, dict) else None
                if isinstance(meta, dict) and (meta.get("uid") or meta.get("resourceVersion")):
                    yield path, obj  # an object an API server stored


@needs_shared("golden")
def test_every_stored_pod_and_template_is_a_fixed_point() -> None:
    """Defaulting what an API server stored changes nothing: every recorded Pod (as a Pod) and every
    workload's template, but g0012's target, which the recording gave the scheduler directly (see
    test_defaults.py)."""
    changed, seen = [], 0
    roots = [*sorted(SHARED.glob("golden*")), SHARED / "realworld"]
    for root in roots:
        for path, obj in _stored_objects(root):
            spec = obj.get("spec")
            kind = obj.get("kind")
            if not isinstance(spec, dict):
                continue
            if kind == "Pod":
                seen += 1
                if _defaulted(spec, pod=True) != spec:
                    changed.append((path.parent.name, obj["metadata"].get("name")))
            elif isinstance(spec.get("template"), dict):
                seen += 1
                template = spec["template"]
                if default_template(template) != template:
                    changed.append((path.parent.name, obj["metadata"].get("name")))
    assert seen > 10_000
    assert changed == [("g0012", "target")]


# ------------------------------------------------------------------ same_stored_template
STORED: Json = {
    "metadata": {"labels": {"app": "web", "pod-template-hash": "6d4cf56db6"}, "creationTimestamp": None},
    "spec": _defaulted(
        {
            "containers": [
                {
                    "name": "c",
                    "image": "x:1",
                    "env": [{"name": "MODE", "value": "blue"}],
                    "resources": {"requests": {"cpu": "1", "memory": "1Gi"}},
                }
            ]
        }
    ),
}


def _manifest_template(**container: Any) -> Json:
    base = {"name": "c", "image": "x:1", "env": [{"name": "MODE", "value": "blue"}]}
    base["resources"] = {"requests": {"cpu": "1000m", "memory": "1024Mi"}}
    return {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [base | container]}}


@pytest.mark.parametrize(
    ("template", "same"),
    [
        (_manifest_template(), True),  # the defaults and the quantities' spelling aside
        (_manifest_template(env=[{"name": "MODE", "value": "green"}]), False),
        (_manifest_template(command=["serve"]), False),
        (_manifest_template(imagePullPolicy="Always"), False),
        (_manifest_template(readinessProbe={"tcpSocket": {"port": 80}}), False),
        (_manifest_template(stdin=False, ports=[]), True),  # zero values Go does not write
        ({**_manifest_template(), "metadata": {"labels": {"app": "web"}, "annotations": {"a": "b"}}}, False),
    ],
)
def test_same_stored_template(template: Json, same: bool) -> None:
    assert same_stored_template(template, STORED) is same


def test_live_only_annotations_are_kept_by_apply() -> None:
    stored = copy.deepcopy(STORED)
    stored["metadata"]["annotations"] = {"kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z"}
    assert same_stored_template(_manifest_template(), stored)


# ------------------------------------------------------------------ check (issue 23's confident all-clear)
def _node(name: str, cpu: str) -> Json:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": cpu, "memory": "16Gi", "pods": "110"}},
    }


HASH = "6d4cf56db6"


def _cluster(template: Json, replicas: int = 3) -> list[Json]:
    """A Deployment's ReplicaSet storing TEMPLATE and its REPLICAS pods, as the API server holds them."""
    rs_name = f"web-{HASH}"
    owner = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "d", "controller": True}
    rs = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": rs_name, "namespace": "default", "uid": "rs", "ownerReferences": [owner]},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web", "pod-template-hash": HASH}}}
        | {"template": template},
    }
    pods = []
    for i in range(replicas):
        spec = copy.deepcopy(template["spec"])
        default_pod_spec(spec, pod=True)
        pods.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": f"{rs_name}-{i}",
                    "namespace": "default",
                    "uid": f"p{i}",
                    "labels": template["metadata"]["labels"],
                    "ownerReferences": [
                        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs_name}
                        | {"uid": "rs", "controller": True}
                    ],
                },
                "spec": spec | {"nodeName": "n1"},
                "status": {"phase": "Running"},
            }
        )
    return [rs, *pods]


def _deployment(template: Json) -> Json:
    spec = {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": template}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": spec}


def _check(tmp_path: Path, objects: list[Json], manifest: Json) -> tuple[int, str, Json]:
    (tmp_path / "cluster.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    (tmp_path / "m.yaml").write_text(yaml.safe_dump(manifest))
    base = ["check", "-f", str(tmp_path / "m.yaml"), "--from", str(tmp_path / "cluster.json"), "--complete"]
    env = {"COLUMNS": "250", "NO_COLOR": "1"}
    text = CliRunner().invoke(app, base, env=env)
    report = json.loads(CliRunner().invoke(app, [*base, "-o", "json"], env=env).stdout)
    return text.exit_code, text.stdout, report


def test_the_stored_template_without_its_defaults_is_unchanged(tmp_path: Path) -> None:
    """(a) The manifest is the stored Deployment less what the API server filled in."""
    code, out, report = _check(tmp_path, [_node("n1", "4"), *_cluster(STORED)], _deployment(_manifest_template()))
    rollout = report["workloads"][0]["rollout"]
    assert (code, rollout["status"], "comparedPodsOnly" in rollout) == (0, "Unchanged", False)
    assert out.splitlines()[0] == "nothing to place: 1 workload unchanged (3 replicas running)"
    assert "compared with its running pods only" not in out


@pytest.mark.parametrize(("cpu", "code", "status"), [("4", 0, "Completes"), ("3", 1, "Stalls")])
def test_one_env_var_changed_rolls_every_pod(tmp_path: Path, cpu: str, code: int, status: str) -> None:
    """(b) podwhy does not model env, but the Deployment controller hashes it: a rolling update,
    which needs room for maxSurge (one more one-cpu pod)."""
    manifest = _deployment(_manifest_template(env=[{"name": "MODE", "value": "green"}]))
    got, out, report = _check(tmp_path, [_node("n1", cpu), *_cluster(STORED)], manifest)
    rollout = report["workloads"][0]["rollout"]
    assert (got, rollout["status"], rollout["maxSurge"]) == (code, status, 1)
    if status == "Stalls":
        assert "rollout stalls at 0 of 3 new replicas placed (1 created, 3 old still run)" in out


def test_a_live_restarted_at_annotation_is_kept(tmp_path: Path) -> None:
    """(c) `kubectl rollout restart` annotated the live template; `kubectl apply` keeps it."""
    stored = copy.deepcopy(STORED)
    stored["metadata"]["annotations"] = {"kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z"}
    code, _, report = _check(tmp_path, [_node("n1", "3"), *_cluster(stored)], _deployment(_manifest_template()))
    assert (code, report["workloads"][0]["rollout"]["status"]) == (0, "Unchanged")


def test_without_the_stored_template_the_report_says_what_was_not_compared(tmp_path: Path) -> None:
    """Only the pods: an env change podwhy cannot see is called unchanged, and the report says why."""
    pods = _cluster(STORED)[1:]
    manifest = _deployment(_manifest_template(env=[{"name": "MODE", "value": "green"}]))
    code, out, report = _check(tmp_path, [_node("n1", "3"), *pods], manifest)
    rollout = report["workloads"][0]["rollout"]
    assert (code, rollout["status"], rollout["comparedPodsOnly"]) == (0, "Unchanged", True)
    assert "compared with its running pods only (the snapshot holds no stored template of it)" in out
