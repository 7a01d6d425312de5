"""Offline loading: both YAML readers agree, JSON and YAML agree, batches are all-or-nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from podwhy.errors import PodwhyError
from podwhy.snapshot import fastyaml
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.source import FileSource
from tests.conformance import case_dirs, cluster_file

CLUSTERS = [cluster_file(case) for case in case_dirs()]


def load(paths: list[str]) -> Snapshot:
    return FileSource(paths).load()


@pytest.mark.parametrize("path", CLUSTERS, ids=[p.parent.name for p in CLUSTERS])
def test_rapidyaml_and_pyyaml_read_the_same_snapshot(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast_source = FileSource([str(path)])
    fast = fast_source.load()
    monkeypatch.setattr(fastyaml, "ryml", None)
    slow = FileSource([str(path)]).load()
    assert fast == slow
    assert fast_source.reference_reads == 0


def test_json_and_yaml_dumps_are_the_same_snapshot(tmp_path: Path) -> None:
    source = CLUSTERS[0]
    doc = yaml.safe_load(source.read_text())
    as_json = tmp_path / "dump.json"
    as_json.write_text(json.dumps(doc, default=str))
    a, b = load([str(source)]), load([str(as_json)])
    a.sources = b.sources = []
    assert a == b


def test_multi_document_yaml_and_typed_lists(tmp_path: Path) -> None:
    path = tmp_path / "multi.yaml"
    path.write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\n"
        "apiVersion: v1\nkind: PersistentVolumeClaimList\nitems: []\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n---\n"
    )
    snap = load([str(path)])
    assert [n.metadata.name for n in snap.nodes] == ["a"]
    assert snap.pods[0].metadata.namespace == "default"
    assert "PersistentVolumeClaim" in snap.kinds_seen


def test_yaml_that_rapidyaml_reads_differently_falls_back_to_pyyaml(tmp_path: Path) -> None:
    # YAML 1.1 "yes" is a boolean for PyYAML (and for go-yaml); rapidyaml reads a string.
    path = tmp_path / "n.yaml"
    path.write_text("kind: Node\nmetadata: {name: a}\nspec: {unschedulable: yes}\n")
    assert load([str(path)]).nodes[0].spec.unschedulable is True


def test_anchors_are_resolved(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text(
        "kind: List\nitems:\n- kind: Node\n  metadata: {name: a, labels: &l {zone: z1}}\n"
        "- kind: Node\n  metadata: {name: b, labels: *l}\n"
    )
    assert [n.metadata.labels for n in load([str(path)]).nodes] == [{"zone": "z1"}] * 2


def test_fallback_after_a_partial_fast_read_adds_each_object_once(tmp_path: Path) -> None:
    # rapidyaml decodes node a, then fails on b's "yes": the file is re-read by PyYAML from scratch.
    path = tmp_path / "n.yaml"
    path.write_text(
        "kind: List\nitems:\n- kind: Node\n  metadata: {name: a}\n"
        "- kind: Node\n  metadata: {name: b}\n  spec: {unschedulable: yes}\n"
    )
    assert [n.metadata.name for n in load([str(path)]).nodes] == ["a", "b"]


def test_a_bad_file_names_itself(tmp_path: Path) -> None:
    (tmp_path / "a-good.yaml").write_text("kind: Node\nmetadata: {name: a}\n")
    (tmp_path / "b-bad.yaml").write_text("kind: List\nitems:\n- kind: Node\n  metadata: {}\n")
    with pytest.raises(PodwhyError, match=r"b-bad\.yaml: items\[0\] \(Node\) has no metadata\.name"):
        load([str(tmp_path)])


def test_folder_skips_other_files(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not yaml: [")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "nodes.yml").write_text("kind: Node\nmetadata: {name: a}\n")
    assert len(load([str(tmp_path)]).nodes) == 1


def test_ignored_kinds_are_counted(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(
        "kind: List\nitems:\n- {kind: ConfigMap, metadata: {name: c}}\n- {kind: Node, metadata: {name: a}}\n"
    )
    assert load([str(path)]).ignored_kinds == {"ConfigMap": 1}
