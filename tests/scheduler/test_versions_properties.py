"""A cluster whose DRA objects (and PodDisruptionBudgets) are written in an older API version gives
the report of the same cluster in v1: generated clusters, and every recorded DRA case."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from podwhy.engine import ExplainRequest, explain
from podwhy.report.model import to_builtins
from podwhy.snapshot.source import FileSource
from tests.apiserver import load_objects
from tests.conformance import case_dirs, cluster_file, compare
from tests.oldversions import to_old

Json = dict[str, Any]
DRIVER = "gpu.example.com"
NS = "default"
POD = "target"


def _families(case: Path) -> list[str]:
    families: list[str] = json.loads((case / "case.json").read_text())["family"]
    return families


DRA_CASES = [c for c in case_dirs() if "dra" in _families(c)]


def _report(path: Path, pod: str) -> Json:
    report: Json = to_builtins(explain(ExplainRequest(pod, NS, FileSource([str(path)]))))
    report["snapshot"].pop("sources")
    return report


def _write(path: Path, objects: list[Json]) -> Path:
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objects}))
    return path


@pytest.mark.parametrize("version", ["v1beta1", "v1alpha3"])
@pytest.mark.parametrize("case", DRA_CASES, ids=lambda c: c.name)
def test_recorded_dra_cases_in_older_versions_match_the_recording(case: Path, version: str, tmp_path: Path) -> None:
    objects = [to_old(obj, version) for obj in load_objects(cluster_file(case))]
    assert any(obj.get("apiVersion") == f"resource.k8s.io/{version}" for obj in objects)
    meta = json.loads((case / "case.json").read_text())
    cluster = _write(tmp_path / "cluster.yaml", objects)
    report = to_builtins(explain(ExplainRequest(meta["pod"], NS, FileSource([str(cluster)]))))
    assert compare(case, report) == []


# ---------------------------------------------------------------------- generated clusters


def _node(name: str) -> Json:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}},
    }


@st.composite
def _device(draw: st.DrawFn, index: int) -> Json:
    device: Json = {
        "name": f"gpu-{index}",
        "attributes": {
            "model": {"string": draw(st.sampled_from(["A100", "H100"]))},
            "index": {"int": index},
            "fast": {"bool": draw(st.booleans())},
            "driverVersion": {"version": draw(st.sampled_from(["1.0.0", "2.1.0"]))},
        },
        "capacity": {"memory": {"value": draw(st.sampled_from(["40Gi", "80Gi"]))}},
    }
    if draw(st.integers(0, 4)) == 4:
        device["taints"] = [{"key": "unhealthy", "value": "true", "effect": "NoSchedule"}]
    return device


SELECTORS = [
    f"device.attributes['{DRIVER}'].model == 'H100'",
    f"device.capacity['{DRIVER}'].memory.compareTo(quantity('64Gi')) >= 0",
    f"device.attributes['{DRIVER}'].fast",
    f"device.attributes['{DRIVER}'].driverVersion.isGreaterThan(semver('2.0.0'))",
]


@st.composite
def _exact(draw: st.DrawFn) -> Json:
    exact: Json = {"deviceClassName": draw(st.sampled_from([DRIVER, "h100"]))}
    mode = draw(st.sampled_from([None, "ExactCount", "All"]))
    if mode is not None:
        exact["allocationMode"] = mode
    if mode != "All" and draw(st.booleans()):
        exact["count"] = draw(st.integers(1, 3))
    chosen = draw(st.lists(st.sampled_from(SELECTORS), max_size=2, unique=True))
    if chosen:
        exact["selectors"] = [{"cel": {"expression": e}} for e in chosen]
    if draw(st.booleans()):
        exact["tolerations"] = [{"key": "unhealthy", "operator": "Exists", "effect": "NoSchedule"}]
    return exact


@st.composite
def _request(draw: st.DrawFn, name: str) -> Json:
    if draw(st.integers(0, 3)) == 3:
        subs = []
        for i in range(draw(st.integers(1, 2))):
            sub = draw(_exact())
            sub.pop("tolerations", None)
            subs.append({"name": f"alt{i}", **sub})
        return {"name": name, "firstAvailable": subs}
    return {"name": name, "exactly": draw(_exact())}


def _claim(name: str, requests: list[Json], status: Json | None = None) -> Json:
    claim: Json = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": NS, "uid": f"uid-{name}"},
        "spec": {"devices": {"requests": requests}},
    }
    if status is not None:
        claim["status"] = status
    return claim


def _pod(name: str, claims: list[str], node: str = "", template: str = "") -> Json:
    refs = [{"name": c, "resourceClaimName": c} for c in claims]
    if template:
        refs.append({"name": "from-template", "resourceClaimTemplateName": template})
    pod: Json = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": NS, "uid": f"uid-{name}"},
        "spec": {
            "containers": [
                {
                    "name": "c",
                    "image": "x",
                    "resources": {"requests": {"cpu": "100m"}, "claims": [{"name": r["name"]} for r in refs]},
                }
            ],
            "resourceClaims": refs,
        },
    }
    if node:
        pod["spec"]["nodeName"] = node
        pod["status"] = {"phase": "Running"}
    return pod


@st.composite
def dra_clusters(draw: st.DrawFn) -> list[Json]:
    """A few nodes with GPU slices, two device classes, claims (some allocated to running pods),
    a template, and a Pending pod using some of them."""
    nodes = [f"node-{i}" for i in range(draw(st.integers(1, 3)))]
    objects: list[Json] = [_node(n) for n in nodes]
    objects.append(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": DRIVER},
            "spec": {"selectors": [{"cel": {"expression": f"device.driver == '{DRIVER}'"}}]},
        }
    )
    objects.append(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": "h100"},
            "spec": {"selectors": [{"cel": {"expression": SELECTORS[0]}}]},
        }
    )
    devices_of: dict[str, list[str]] = {}
    for node in nodes:
        devices = [draw(_device(i)) for i in range(draw(st.integers(0, 4)))]
        devices_of[node] = [d["name"] for d in devices]
        spec: Json = {"driver": DRIVER, "pool": {"name": node, "generation": 1, "resourceSliceCount": 1}}
        spec.update({"nodeName": node, "devices": devices})
        objects.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": {"name": f"{node}-gpus"},
                "spec": spec,
            }
        )
    claims: list[str] = []
    for i in range(draw(st.integers(1, 3))):
        name = f"claim-{i}"
        requests = [draw(_request(f"req-{j}")) for j in range(draw(st.integers(1, 2)))]
        status = None
        node = draw(st.sampled_from(nodes))
        free = devices_of[node]
        if free and draw(st.booleans()):  # allocated earlier to a running pod, one device per request
            results = [
                {
                    "request": r["name"] if "exactly" in r else f"{r['name']}/alt0",
                    "driver": DRIVER,
                    "pool": node,
                    "device": free[j % len(free)],
                }
                for j, r in enumerate(requests)
            ]
            selector = {
                "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]
            }
            user = f"user-{i}"
            status = {
                "allocation": {"devices": {"results": results}, "nodeSelector": selector},
                "reservedFor": [{"resource": "pods", "name": user, "uid": f"uid-{user}"}],
            }
            objects.append(_pod(user, [name], node=node))
        objects.append(_claim(name, requests, status))
        claims.append(name)
    template = ""
    if draw(st.integers(0, 4)) == 4:  # rarely: a template's claim not created yet stops the pod first
        template = "tmpl"
        objects.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceClaimTemplate",
                "metadata": {"name": template, "namespace": NS},
                "spec": {"spec": {"devices": {"requests": [draw(_request("gpu"))]}}},
            }
        )
    used = draw(st.lists(st.sampled_from(claims), min_size=1, max_size=2, unique=True))
    objects.append(_pod(POD, used, template=template))
    return objects


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cluster=dra_clusters(), version=st.sampled_from(["v1beta1", "v1alpha3"]))
def test_a_cluster_in_an_older_dra_version_gives_the_v1_report(
    cluster: list[Json], version: str, tmp_path: Path
) -> None:
    original = _report(_write(tmp_path / "v1.yaml", cluster), f"{NS}/{POD}")
    old = _report(_write(tmp_path / "old.yaml", [to_old(obj, version) for obj in cluster]), f"{NS}/{POD}")
    assert old == original
