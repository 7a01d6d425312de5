"""`podwhy snapshot --redact` (docs/redact.md): a marker planted in every string field, map key
and value of every kind a snapshot fetches, and in fields podwhy does not read, survives only where
docs/redact.md says the field is kept; and explain and pending read a redacted snapshot to the
same verdicts and scheduler messages."""

from __future__ import annotations

import json
import re
from itertools import count
from pathlib import Path
from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.model.objects.kinds import ALPHA_KINDS, AUTOSCALER_STATUS_CONFIGMAP, AUTOSCALER_STATUS_NAMESPACE, KIND_TYPES
from podwhy.snapshot.redact import KEPT_ANNOTATION_PREFIXES, KEPT_ANNOTATIONS, REDACTED, kept_table
from tests.apiserver import SERVED, FakeApiServer, load_objects
from tests.conformance import GOLDEN, case_dirs, cluster_file
from tests.paths import REPO

ROOT = REPO
DOC = ROOT / "docs" / "redact.md"
EXAMPLE = ROOT / "fixtures" / "examples" / "shop-cluster.yaml"
MARKER = re.compile(r"mkr\d{5}")

# What podwhy does not read, planted where clusters hold it (the leaks --redact once let through).
UNREAD: dict[str, list[tuple[str, Any]]] = {
    "Pod": [
        ("spec.imagePullSecrets", [{"name": "{m}"}]),
        ("spec.containers.0.env", [{"name": "{m}", "value": "{m}"}]),
        ("spec.containers.0.livenessProbe.httpGet.httpHeaders", [{"name": "Authorization", "value": "Bearer {m}"}]),
        ("spec.volumes.0.flexVolume.options", {"{m}": "{m}"}),
        ("metadata.managedFields", [{"manager": "{m}", "fieldsV1": {"f:{m}": {}}}]),
        ("status.podIP", "{m}"),
        ("status.message", "{m}"),
    ],
    "Node": [
        ("spec.providerID", "aws:///{m}"),
        ("spec.podCIDR", "{m}"),
        ("status.addresses", [{"type": "InternalIP", "address": "{m}"}]),
        ("status.nodeInfo.machineID", "{m}"),
    ],
    "StorageClass": [("parameters", {"{m}": "{m}"})],
    "PersistentVolume": [("spec.mountOptions", ["{m}"])],
    "ConfigMap": [("binaryData", {"{m}": "{m}"})],
}


class _Plant:
    """Builds an object of a kind with a fresh marker in every string, map key and map value the
    model reads, and one in an unknown field of every struct; records where each marker went."""

    def __init__(self) -> None:
        self.numbers = count(1)
        self.where: dict[str, tuple[str, str, str]] = {}  # marker -> (struct, field, "key"|"value")

    def marker(self, struct: str, field: str, role: str) -> str:
        m = f"mkr{next(self.numbers):05d}"
        self.where[m] = (struct, field, role)
        return m

    def struct(self, cls: type[msgspec.Struct], depth: int = 0) -> dict[str, Any]:
        info = mi.type_info(cls)
        assert isinstance(info, mi.StructType)
        out: dict[str, Any] = {"zzUnknown": self.marker(cls.__name__, "zzUnknown", "value")}
        for f in info.fields:
            value = self.value(f.type, cls.__name__, f.encode_name, depth)
            if value is not None:
                out[f.encode_name] = value
        return out

    def value(self, t: mi.Type, struct: str, field: str, depth: int) -> Any:
        if isinstance(t, mi.Metadata):
            return self.value(t.type, struct, field, depth)
        if isinstance(t, mi.UnionType):
            members = [m for m in t.types if not isinstance(m, mi.NoneType)]
            return self.value(members[0], struct, field, depth) if len(members) == 1 else "1"  # a quantity: no text
        if isinstance(t, mi.StructType):
            return self.struct(t.cls, depth + 1) if depth < 12 else None
        if isinstance(t, mi.ListType):
            item = self.value(t.item_type, struct, field, depth)
            return None if item is None else [item]
        if isinstance(t, mi.DictType):
            item = self.value(t.value_type, struct, field, depth)
            return None if item is None else {self.marker(struct, field, "key"): item}
        if isinstance(t, mi.StrType):
            return self.marker(struct, field, "value")
        if isinstance(t, mi.BoolType):
            return True
        if isinstance(t, mi.IntType):
            return 1
        if isinstance(t, mi.FloatType):
            return 1.0
        if isinstance(t, mi.AnyType):
            return {self.marker(struct, field, "key"): self.marker(struct, field, "value")}
        raise AssertionError(t)

    def unread(self, obj: dict[str, Any], kind: str) -> None:
        for path, shape in UNREAD.get(kind, []):
            m = self.marker(kind, path, "unread")
            value = json.loads(json.dumps(shape).replace("{m}", m))
            *parents, last = path.split(".")
            node: Any = obj
            for part in parents:
                node = node[int(part)] if part.isdigit() else node.setdefault(part, {})
            node[last] = value


def _documented() -> dict[str, dict[str, str]]:
    """docs/redact.md's table: struct -> {field: its rule ("" when kept as it is)}."""
    out: dict[str, dict[str, str]] = {}
    for line in DOC.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[1].startswith("`"):
            continue
        fields = {}
        for name, rest in re.findall(r"`([^`]+)`(.*?)(?=, `|$)", cells[1]):
            rule = re.search(r"\((.*)\)\s*$", rest)
            fields[name] = rule.group(1) if rule else ""
        out[cells[0].split(" ")[0]] = fields
    return out


def _survives(documented: dict[str, dict[str, str]], struct: str, field: str, role: str) -> bool:
    rule = documented.get(struct, {}).get(field)
    if rule is None or role == "unread":
        return False
    if rule == "":
        return True
    return role == "key" and rule.startswith("keys")


def _snapshot(objects: list[dict[str, Any]], tmp_path: Path, *flags: str) -> Path:
    dump = tmp_path / f"snap{len(list(tmp_path.glob('snap*')))}.json"
    with FakeApiServer(objects, stored=False) as server:
        config = str(server.kubeconfig(tmp_path / "config"))
        result = CliRunner().invoke(app, ["snapshot", "-o", str(dump), "-A", "--kubeconfig", config, *flags])
    assert result.exit_code == 0, result.stderr
    return dump


def test_docs_carry_the_allowlist_as_the_code_keeps_it() -> None:
    assert kept_table() in DOC.read_text(), "regenerate: python -m podwhy.snapshot.redact"


def test_every_annotation_podwhy_reads_is_kept() -> None:
    from podwhy.analysis.autoscaling import clusterautoscaler as ca
    from podwhy.analysis.suggest.autoscaling import CAPI_MAX_SIZE_ANNOTATION
    from podwhy.cluster.apiserver.admission.podsecurity.policy import profiles as podsecurity
    from podwhy.cluster.controllers.replicaset import POD_DELETION_COST
    from podwhy.plugins.dynamicresources.extended import EXTENDED_RESOURCE_CLAIM_ANNOTATION

    read = {
        ca.SCALE_UP_DELAY_ANNOTATION,
        ca.CAPI_OWNER_KIND,
        ca.CAPI_OWNER_NAME,
        ca.CAPI_CLUSTER_NAMESPACE,
        CAPI_MAX_SIZE_ANNOTATION,
        POD_DELETION_COST,
        EXTENDED_RESOURCE_CLAIM_ANNOTATION,
        podsecurity.SECCOMP_POD_ANNOTATION,
    }
    assert read <= KEPT_ANNOTATIONS
    prefixes = {podsecurity.APPARMOR_ANNOTATION_PREFIX, podsecurity.SECCOMP_CONTAINER_ANNOTATION_PREFIX}
    assert prefixes <= set(KEPT_ANNOTATION_PREFIXES)


def test_no_marker_survives_but_in_the_fields_the_docs_keep(tmp_path: Path) -> None:
    plant = _Plant()
    objects = []
    fetched = [k for k in KIND_TYPES if k in SERVED and k not in ALPHA_KINDS]
    assert set(KIND_TYPES) - set(fetched) == set(ALPHA_KINDS)  # every kind a snapshot fetches
    for kind in fetched:
        obj = plant.struct(KIND_TYPES[kind])
        plant.unread(obj, kind)
        obj["kind"], obj["apiVersion"] = kind.partition(".")[0], SERVED[kind][0]  # Workload.kueue.x-k8s.io
        if kind == "ConfigMap":  # the only ConfigMap fetched
            obj["metadata"].update(name=AUTOSCALER_STATUS_CONFIGMAP, namespace=AUTOSCALER_STATUS_NAMESPACE)
        objects.append(obj)
    planted = set(MARKER.findall(json.dumps(objects)))
    # Without --redact, every marker is in the dump (the objects were served as built).
    assert set(MARKER.findall(_snapshot(objects, tmp_path, "-q").read_text())) == planted
    text = _snapshot(objects, tmp_path, "--redact").read_text()
    documented = _documented()
    found = set(MARKER.findall(text))
    leaked = sorted(f"{plant.where[m]}" for m in found if not _survives(documented, *plant.where[m]))
    assert leaked == []
    # What the docs keep is there, as it was; what they replace is REDACTED or a hash.
    missing = sorted(
        {plant.where[m] for m in planted if _survives(documented, *plant.where[m])} - {plant.where[m] for m in found}
    )
    assert missing == []
    assert REDACTED in text and "h-" in text
    for secret in ("Bearer", "aws:///", "InternalIP", "imagePullSecrets", "managedFields", "parameters"):
        assert secret not in text


def comparable(redacted: dict[str, Any], original: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two reports, of a redacted dump and of the original, without what --redact changes on
    purpose: sources and the time, merge patches (made from the pod's JSON, which --redact trims)
    and the words saying so, and the free text --redact replaces (in the original's report, each
    string that the redacted report holds a placeholder in)."""
    a, b = json.loads(json.dumps(redacted)), json.loads(json.dumps(original))
    for report in (a, b):
        snapshot = report.get("snapshot", {})
        snapshot.pop("sources", None)
        snapshot.pop("takenAt", None)
        for s in report.get("suggestions", []):
            s.pop("patches", None)
            s["summary"] = s["summary"].split(" (the snapshot is redacted:")[0]
    return a, _like(b, a)


def _compare(redacted: dict[str, Any], original: dict[str, Any]) -> None:
    a, b = comparable(redacted, original)
    assert a == b


def _like(original: Any, redacted: Any) -> Any:
    """ORIGINAL with each string that REDACTED holds a placeholder in replaced by that string:
    the free text --redact replaces (kubelet, condition and event messages, a --config path)."""
    if isinstance(original, dict) and isinstance(redacted, dict):
        return {k: _like(v, redacted.get(k)) for k, v in original.items()}
    if isinstance(original, list) and isinstance(redacted, list) and len(original) == len(redacted):
        return [_like(x, y) for x, y in zip(original, redacted, strict=True)]
    if isinstance(original, str) and isinstance(redacted, str) and REDACTED in redacted:
        return redacted
    return original


def _cli(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(app, [*args, "-o", "json", "--kube-version", "1.35"])
    assert result.exit_code in (0, 1), result.stderr
    parsed: dict[str, Any] = json.loads(result.stdout)
    return parsed


CASES = [c for c in case_dirs(GOLDEN)][::97]


@pytest.mark.parametrize("source", [EXAMPLE, *(cluster_file(c) for c in CASES)], ids=lambda p: p.parent.name)
def test_explain_and_pending_read_a_redacted_snapshot_to_the_same_verdicts(source: Path, tmp_path: Path) -> None:
    redacted = _snapshot(load_objects(source), tmp_path, "--redact")
    original = str(source)
    a, b = _cli("pending", "-A", "--from", str(redacted)), _cli("pending", "-A", "--from", original, "--complete")
    _compare(a, b)
    pods = [pod for group in b["groups"] for pod in group["pods"]][:3]
    if source != EXAMPLE:
        pods.append(json.loads((source.parent / "case.json").read_text())["pod"])
    assert pods
    for pod in pods:
        args = []
        meta = source.parent / "case.json"
        if source != EXAMPLE and "config" in json.loads(meta.read_text()):
            args = ["--scheduler-config", str(source.parent / json.loads(meta.read_text())["config"])]
        x = _cli("explain", pod, "--from", str(redacted), *args)
        y = _cli("explain", pod, "--from", original, "--complete", *args)
        assert (x["verdict"], x["message"]) == (y["verdict"], y["message"])
        _compare(x, y)
