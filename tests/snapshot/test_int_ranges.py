"""Integer fields hold what Go's int32 / int64 hold: a value outside that range is an input error
naming the field, as the API server would reject it, from JSON and from either YAML reader."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.errors import PodwhyError
from podwhy.model import objects as o
from podwhy.snapshot import fastyaml
from podwhy.snapshot.apiversions import read_versions
from podwhy.snapshot.decode import decode

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)

# (kind, path of the field in the object, its Go type's range) for every integer field podwhy reads.
FIELDS: list[tuple[str, str, tuple[int, int]]] = [
    ("Pod", "spec.priority", INT32),
    ("Pod", "spec.terminationGracePeriodSeconds", INT64),
    ("Pod", "spec.tolerations.0.tolerationSeconds", INT64),
    ("Pod", "spec.containers.0.ports.0.containerPort", INT32),
    ("Pod", "spec.containers.0.ports.0.hostPort", INT32),
    ("Pod", "spec.topologySpreadConstraints.0.maxSkew", INT32),
    ("Pod", "spec.topologySpreadConstraints.0.minDomains", INT32),
    ("Pod", "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution.0.weight", INT32),
    ("Pod", "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution.0.weight", INT32),
    ("Pod", "spec.volumes.0.iscsi.lun", INT32),
    ("Pod", "status.containerStatuses.0.state.terminated.exitCode", INT32),
    ("Node", "status.images.0.sizeBytes", INT64),
    ("PriorityClass", "value", INT32),
    ("CSINode", "spec.drivers.0.allocatable.count", INT32),
    ("PodDisruptionBudget", "spec.minAvailable", INT32),
    ("PodDisruptionBudget", "spec.maxUnavailable", INT32),
    ("PodDisruptionBudget", "status.disruptionsAllowed", INT32),
    ("PodDisruptionBudget", "status.expectedPods", INT32),
    ("Event", "count", INT32),
    ("Event", "series.count", INT32),
    ("ResourceSlice", "spec.pool.generation", INT64),
    ("ResourceSlice", "spec.pool.resourceSliceCount", INT64),
    ("ResourceSlice", "spec.devices.0.attributes.{a}.int", INT64),
    ("ResourceClaim", "spec.devices.requests.0.exactly.count", INT64),
    ("ResourceClaim", "spec.devices.requests.0.firstAvailable.0.count", INT64),
]


def _object(kind: str, path: str, value: int) -> dict[str, Any]:
    """A KIND object named "x" with VALUE at PATH (numeric parts are list indexes, {key} a map key)."""
    obj: dict[str, Any] = {"apiVersion": read_versions(kind)[0], "kind": kind, "metadata": {"name": "x"}}
    node: Any = obj
    parts = path.replace("{", "").replace("}", "").split(".")
    for part, following in itertools.pairwise(parts):
        child: Any = [] if following.isdigit() else {}
        if part.isdigit():
            node.append(child)
        else:
            node[part] = child
        node = child
    node[parts[-1]] = value
    return obj


def _wire_path(path: str) -> str:
    """PATH as msgspec writes it in errors: `$.spec.containers[0].ports`, map keys as [...]."""
    out = "$"
    for part in path.split("."):
        out += f"[{part}]" if part.isdigit() else "[...]" if part.startswith("{") else f".{part}"
    return out


def _outcomes(document: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What JSON, the fast YAML reader and the reference YAML reader make of DOCUMENT: "ok" or the error."""
    out: list[str] = []
    text = yaml.safe_dump(document).encode()
    for data, fast in ((json.dumps(document).encode(), True), (text, True), (text, False)):
        with monkeypatch.context() as patch:
            if not fast:
                patch.setattr(fastyaml, "ryml", None)
            try:
                decode(data, "in")
                out.append("ok")
            except PodwhyError as exc:
                out.append(exc.message)
    return out


@pytest.mark.parametrize(("kind", "path", "bounds"), FIELDS, ids=[f"{k}.{p}" for k, p, _ in FIELDS])
def test_out_of_range_integers_are_rejected_naming_the_field(
    kind: str, path: str, bounds: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    low, high = bounds
    for value in (low, high):
        assert _outcomes(_object(kind, path, value), monkeypatch) == ["ok"] * 3
    for value, bound in ((low - 1, f">= {low}"), (high + 1, f"<= {high}")):
        json_error, fast_error, reference_error = _outcomes(_object(kind, path, value), monkeypatch)
        assert fast_error == reference_error
        for error in (json_error, reference_error):
            assert error.startswith("in: ") and "is invalid" in error, error
            assert bound in error and "\n" not in error
            assert f"at `{_wire_path(path)}`" in error, error


def _int_fields(tp: Any, where: str, seen: set[type]) -> list[tuple[str, mi.IntType]]:
    out: list[tuple[str, mi.IntType]] = []

    def walk(t: mi.Type, at: str) -> None:
        if isinstance(t, mi.IntType):
            out.append((at, t))
        elif isinstance(t, mi.StructType):
            if t.cls in seen:
                return
            seen.add(t.cls)
            for f in t.fields:
                walk(f.type, f"{at}.{f.encode_name}")
        elif isinstance(t, mi.ListType | mi.DictType):
            walk(t.item_type if isinstance(t, mi.ListType) else t.value_type, f"{at}[]")
        elif isinstance(t, mi.UnionType):
            if any(isinstance(member, mi.FloatType) for member in t.types):
                return  # a quantity (str | int | float): parsed and checked as one
            for member in t.types:
                walk(member, at)

    walk(mi.type_info(tp), where)
    return out


def test_every_integer_field_has_its_go_range() -> None:
    """A new integer field cannot slip in unbounded: each is an int32 or an int64."""
    seen: set[type] = set()
    fields = [f for kind, tp in o.KIND_TYPES.items() for f in _int_fields(tp, kind, seen)]
    fields += _int_fields(o.Workload, "Workload", seen) + _int_fields(o.CronJobManifest, "CronJob", seen)
    assert len(fields) >= len(FIELDS)
    for where, t in fields:
        assert (t.ge, t.le) in (INT32, INT64), where


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.integers(min_value=-(2**70), max_value=2**70), st.integers(min_value=-(2**33), max_value=2**33)))
def test_priority_is_accepted_exactly_within_int32(value: int) -> None:
    document = _object("Pod", "spec.priority", value)
    fits = INT32[0] <= value <= INT32[1]
    for data in (json.dumps(document).encode(), yaml.safe_dump(document).encode()):
        try:
            decoded = decode(data, "in")
        except PodwhyError as exc:
            assert not fits, exc.message
            assert "spec.priority" in exc.message
            continue
        assert fits
        assert decoded.objects["Pod"][0].spec.priority == value


def test_an_out_of_range_manifest_is_an_input_error_on_the_command_line(tmp_path: Path) -> None:
    pod = _object("Pod", "spec.priority", 2**31)
    cluster = tmp_path / "cluster.json"
    cluster.write_text('{"kind": "Node", "metadata": {"name": "n1"}}')
    result = CliRunner().invoke(app, ["explain", "-f", "-", "--from", str(cluster)], input=json.dumps(pod))
    assert result.exit_code == 3
    assert result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert "spec.priority" in line and "<= 2147483647" in line


def test_msgspec_reports_the_range() -> None:
    # The wording the tests above rely on.
    with pytest.raises(msgspec.ValidationError, match=r"Expected `int` <= 2147483647 - at `\$.spec.priority`"):
        msgspec.json.decode(b'{"spec": {"priority": 2147483648}}', type=o.Pod)
