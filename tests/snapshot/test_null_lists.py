"""`null` where a list or map is empty: every JSON input reads it as Go does (issue 28).

A real API server serves an empty slice or map whose Go field is not omitempty as `null` (a
CSINode's `spec.drivers` until a CSI driver registers, an untagged image's `names`, a claim's
`spec.devices.requests`). The property: every recorded cluster, with every empty list and every
empty map (Go maps: the model's dict fields) turned into `null`, and every list or map field it
lacks written as `null`, explains exactly as before, from a JSON file and from YAML.
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest
import yaml

from podwhy.snapshot import fastyaml
from podwhy.snapshot.decode import decode
from podwhy.snapshot.typed import SNAPSHOT_KINDS, Reading
from tests.apiserver import load_objects
from tests.conformance import case_dirs, cluster_file, run_case


def _unwrap(t: mi.Type) -> list[mi.Type]:
    return [m for m in t.types if not isinstance(m, mi.NoneType)] if isinstance(t, mi.UnionType) else [t]


def nulled(value: Any, t: mi.Type | None) -> Any:
    """VALUE with every empty list, every empty map where the model's type T says it is a Go map,
    and every list or map field of the model that VALUE lacks, as `null` (T None: a part the model
    does not read, where only lists are known)."""
    options = _unwrap(t) if t is not None else []
    if isinstance(value, list):
        if not value:
            return None
        item = next((o.item_type for o in options if isinstance(o, mi.ListType)), None)
        return [nulled(v, item) for v in value]
    if not isinstance(value, dict):
        return value
    struct = next((o for o in options if isinstance(o, mi.StructType)), None)
    mapping = next((o for o in options if isinstance(o, mi.DictType)), None)
    if mapping is not None:
        return None if not value else {k: nulled(v, mapping.value_type) for k, v in value.items()}
    fields = {f.encode_name: f.type for f in struct.fields} if struct is not None else {}
    out = {k: nulled(v, fields.get(k)) for k, v in value.items()}
    for name, t in fields.items():  # a nil slice or map Go writes as null
        if name not in out and any(isinstance(o, mi.ListType | mi.DictType) for o in _unwrap(t)):
            out[name] = None
    return out


@cache
def _type_info(wire: type[msgspec.Struct]) -> mi.Type:
    return mi.type_info(wire)


def nulled_object(obj: dict[str, Any]) -> dict[str, Any]:
    how = SNAPSHOT_KINDS.reading(obj.get("kind", ""), obj.get("apiVersion", ""))
    t = _type_info(how.wire) if isinstance(how, Reading) else None
    out: dict[str, Any] = nulled(obj, t)
    return out


def _objects(path: Path) -> list[dict[str, Any]]:
    """The cluster's objects: through the fast YAML reader where it can take the file whole."""
    data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    js = fastyaml.whole_document_json(data)
    if js is None:
        return load_objects(path)
    doc = msgspec.json.decode(js)
    items: list[dict[str, Any]] = doc["items"] if doc.get("kind") == "List" else [doc]
    return items


def _report(case: Path, path: Path) -> dict[str, Any]:
    doc = run_case(case, path)
    doc["snapshot"].pop("sources")
    return doc


def test_nulls_are_read_where_go_writes_them() -> None:
    """The ones seen on real clusters, each into its empty value."""
    data = json.dumps(
        {
            "kind": "List",
            "apiVersion": "v1",
            "items": [
                {
                    "kind": "CSINode",
                    "apiVersion": "storage.k8s.io/v1",
                    "metadata": {"name": "n"},
                    "spec": {"drivers": None},
                },
                {
                    "kind": "Node",
                    "apiVersion": "v1",
                    "metadata": {"name": "n", "labels": None},
                    "status": {"images": [{"names": None, "sizeBytes": 5}], "allocatable": None},
                },
            ],
        }
    ).encode()
    out = decode(data, "dump.json")
    assert out.objects["CSINode"][0].spec.drivers == []
    node = out.objects["Node"][0]
    assert node.metadata.labels == {} and node.status.allocatable == {} and node.status.images[0].names == []


def test_a_wrong_type_is_still_an_error_naming_the_field() -> None:
    data = b'{"kind":"CSINode","apiVersion":"storage.k8s.io/v1","metadata":{"name":"n"},"spec":{"drivers":5}}'
    with pytest.raises(Exception, match=r"Expected `array`, got `int` - at `\$.spec.drivers`"):
        decode(data, "dump.json")


CASES = case_dirs()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_recorded_cluster_with_nulls_explains_the_same(case: Path, tmp_path: Path) -> None:
    objects = _objects(cluster_file(case))
    with_nulls = [nulled_object(obj) for obj in objects]
    as_json = tmp_path / "cluster.json"
    as_json.write_bytes(msgspec.json.encode({"apiVersion": "v1", "kind": "List", "items": with_nulls}))
    original = _report(case, cluster_file(case))
    assert _report(case, as_json) == original
    if case.name.endswith(("3", "6")):  # YAML reads nulls too (a sample: its reader is slower)
        as_yaml = tmp_path / "cluster.yaml"
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        as_yaml.write_text(yaml.dump({"apiVersion": "v1", "kind": "List", "items": with_nulls}, Dumper=dumper))
        assert _report(case, as_yaml) == original
