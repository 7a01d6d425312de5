"""Offline loading: both YAML readers agree, JSON and YAML agree, batches are all-or-nothing."""

from __future__ import annotations

import dataclasses
import gc
import io
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml

from podwhy.errors import PodwhyError
from podwhy.model.objects import AUTOSCALER_STATUS_CONFIGMAP, KINDS, Indexing, plural
from podwhy.snapshot import fastyaml
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.decode import decode, peek_kind
from podwhy.snapshot.decoded import ListMeta
from podwhy.snapshot.source import VOUCHED_KINDS, FileSource
from tests.conformance import case_dirs, cluster_file
from tests.paths import REPO

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
    assert _raw_pods(fast) == _raw_pods(slow)
    assert fast_source.reference_reads == 0


def test_json_and_yaml_dumps_are_the_same_snapshot(tmp_path: Path) -> None:
    source = CLUSTERS[0]
    doc = yaml.safe_load(source.read_text())
    as_json = tmp_path / "dump.json"
    as_json.write_text(json.dumps(doc, default=str))
    a, b = load([str(source)]), load([str(as_json)])
    a.sources = b.sources = []
    assert a == b
    assert _raw_pods(a) == _raw_pods(b) != {}


def _raw_pods(snapshot: Snapshot) -> dict[str, Any]:
    """The unbound pods' JSON as documents (their bytes' layout differs between readers)."""
    return {key: json.loads(data) for key, data in snapshot.raw_pods.items()}


def test_only_unbound_pods_are_kept_as_their_source_held_them(tmp_path: Path) -> None:
    path = tmp_path / "pods.json"
    pods = [
        {"kind": "Pod", "metadata": {"name": "bound"}, "spec": {"nodeName": "n1", "containers": [{"name": "c"}]}},
        {"kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "command": ["x"]}]}},
    ]
    path.write_text(json.dumps({"kind": "List", "items": pods}))
    assert _raw_pods(load([str(path)])) == {"default/p": pods[1]}


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


# ------------------------------------------------------------------ both YAML readers, tricky scalars


def read_both(tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Snapshot, Snapshot, int]:
    """TEXT read by the fast reader and by the reference reader, and the fast one's reference reads."""
    path = tmp_path / "dump.yaml"
    path.write_text(text)
    fast_source = FileSource([str(path)])
    fast = fast_source.load()
    with monkeypatch.context() as patch:
        patch.setattr(fastyaml, "ryml", None)
        reference = FileSource([str(path)]).load()
    return fast, reference, fast_source.reference_reads


# Plain scalars YAML 1.1 and rapidyaml's YAML 1.2 read differently, with how a string field
# reads each (as written; a null leaves the field unset) and whether the fast path keeps it.
TRICKY = [
    ("5678e76978", "5678e76978", True),
    ("1e3", "1e3", True),
    ("1.5e3", "1.5e3", True),
    ("-1E5", "-1E5", True),
    ("1.5e+3", "1.5e+3", False),
    ("0755", "0755", True),
    ("0x1F", "0x1F", True),
    ("1_000", "1_000", True),
    ("1:20", "1:20", True),
    ("true", "true", False),
    ("True", "True", True),
    ("yes", "yes", True),
    ("off", "off", True),
    ("12", "12", False),
    ("-.5", "-.5", False),
    (".inf", ".inf", False),
    ("inf", "inf", False),
    ("nan", "nan", False),
    ("~", "", False),
    ("null", "", True),  # a JSON null: read as Go reads it (typed.decode_typed)
    ("Null", "", False),
    ("NULL", "", False),
]


@pytest.mark.parametrize(("scalar", "as_string", "fast"), TRICKY, ids=[t[0] for t in TRICKY])
def test_tricky_scalars_in_string_fields_read_as_written_by_both_readers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scalar: str, as_string: str, fast: bool
) -> None:
    text = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "- kind: Node\n  metadata:\n    name: n1\n"
        f"    labels:\n      pod-template-hash: {scalar}\n    annotations:\n      note: {scalar}\n"
        "- kind: Pod\n  metadata:\n    name: p1\n"
        f"  spec:\n    nodeName: {scalar}\n    schedulerName: {scalar}\n    containers:\n    - name: c\n"
        "- kind: Node\n  metadata:\n    name: n2\n"
    )
    fast_snapshot, reference, reference_reads = read_both(tmp_path, text, monkeypatch)
    assert fast_snapshot == reference
    node = fast_snapshot.nodes[0]
    assert node.metadata.labels == {"pod-template-hash": as_string}
    assert node.metadata.annotations == {"note": as_string}
    assert fast_snapshot.pods[0].spec.node_name == as_string
    assert [n.metadata.name for n in fast_snapshot.nodes] == ["n1", "n2"]
    # Only the items that need it are read again: never the whole List.
    assert reference_reads == (0 if fast else 2)


@pytest.mark.parametrize("scalar", [t[0] for t in TRICKY])
def test_quoted_tricky_scalars_stay_on_the_fast_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scalar: str
) -> None:
    # What a YAML 1.1 writer (PyYAML, kubectl) quotes is a string to both readers.
    text = f"kind: Node\nmetadata:\n  name: n1\n  labels:\n    a: '{scalar}'\n    b: \"{scalar}\"\n"
    fast_snapshot, reference, reference_reads = read_both(tmp_path, text, monkeypatch)
    assert fast_snapshot == reference
    assert fast_snapshot.nodes[0].metadata.labels == {"a": scalar, "b": scalar}
    assert reference_reads == 0


@pytest.mark.parametrize(
    ("field", "scalar", "value"),
    [
        ("unschedulable", "yes", True),
        ("unschedulable", "True", True),
        ("unschedulable", "off", False),
        ("unschedulable", "~", False),
    ],
)
def test_booleans_and_nulls_in_typed_fields_read_as_yaml_1_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, field: str, scalar: str, value: object
) -> None:
    fast_snapshot, reference, _ = read_both(
        tmp_path, f"kind: Node\nmetadata: {{name: n}}\nspec:\n  {field}: {scalar}\n", monkeypatch
    )
    assert fast_snapshot == reference
    assert getattr(fast_snapshot.nodes[0].spec, field) == value


@pytest.mark.parametrize(
    ("scalar", "value"),
    [("0755", 493), ("0x10", 16), ("1_000", 1000), ("1:20", 80), ("'0755'", "0755"), ("100m", "100m"), ("2", 2)],
)
def test_quantities_read_as_yaml_1_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scalar: str, value: object
) -> None:
    # A quantity takes a string or a number: "0755" written plain is 493, quoted it is "0755".
    text = f"kind: Node\nmetadata: {{name: n}}\nstatus:\n  allocatable:\n    cpu: {scalar}\n"
    fast_snapshot, reference, _ = read_both(tmp_path, text, monkeypatch)
    assert fast_snapshot == reference
    assert fast_snapshot.nodes[0].status.allocatable == {"cpu": value}


# ------------------------------------------------------------------ per-document and per-item fallback


def test_a_document_the_fast_path_cannot_take_falls_back_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (
        "kind: Node\nmetadata: {name: a}\n---\n"
        "kind: Node\nmetadata: {name: b}\nspec: {unschedulable: yes}\n---\n"
        "kind: Node\nmetadata:\n  name: c\n  labels:\n    hash: 5678e76978\n"
    )
    fast_snapshot, reference, reference_reads = read_both(tmp_path, text, monkeypatch)
    assert fast_snapshot == reference
    assert [(n.metadata.name, n.spec.unschedulable) for n in fast_snapshot.nodes] == [
        ("a", False),
        ("b", True),
        ("c", False),
    ]
    assert reference_reads == 1


@pytest.mark.parametrize("batch_bytes", [1, 200, 1 << 20])
def test_a_list_falls_back_item_by_item(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch_bytes: int) -> None:
    monkeypatch.setattr(fastyaml, "BATCH_BYTES", batch_bytes)
    items = "".join(
        f"- kind: Node\n  metadata:\n    name: n{i}\n    labels:\n      hash: 5678e7697{i}\n"
        + ("  spec:\n    unschedulable: yes\n" if i in (3, 7) else "")
        for i in range(10)
    )
    text = f"apiVersion: v1\nitems:\n{items}kind: List\nmetadata:\n  resourceVersion: '42'\n"
    fast_snapshot, reference, reference_reads = read_both(tmp_path, text, monkeypatch)
    assert fast_snapshot == reference
    assert [n.metadata.name for n in fast_snapshot.nodes] == [f"n{i}" for i in range(10)]
    assert [n.spec.unschedulable for n in fast_snapshot.nodes] == [i in (3, 7) for i in range(10)]
    assert reference_reads == 2


def test_aliases_across_batches_read_the_list_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastyaml, "BATCH_BYTES", 1)
    text = (
        "kind: List\nitems:\n- kind: Node\n  metadata: {name: a, labels: &l {zone: z1}}\n"
        "- kind: Node\n  metadata: {name: b, labels: *l}\n"
    )
    fast_snapshot, reference, reference_reads = read_both(tmp_path, text, monkeypatch)
    assert fast_snapshot == reference
    assert [n.metadata.labels for n in fast_snapshot.nodes] == [{"zone": "z1"}] * 2
    assert reference_reads == 0


def test_an_item_read_again_may_use_an_anchor_of_another(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (
        "kind: List\nitems:\n- kind: Node\n  metadata:\n    name: a\n    labels: &l\n      zone: z1\n"
        "- kind: Node\n  metadata:\n    name: b\n    labels: *l\n  spec:\n    unschedulable: yes\n"
    )
    fast_snapshot, reference, reference_reads = read_both(tmp_path, text, monkeypatch)
    assert fast_snapshot == reference
    assert [(n.metadata.labels, n.spec.unschedulable) for n in fast_snapshot.nodes] == [
        ({"zone": "z1"}, False),
        ({"zone": "z1"}, True),
    ]
    assert reference_reads == 1  # the document, whole


def test_indented_items_are_cut_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastyaml, "BATCH_BYTES", 1)
    text = (
        "kind: NodeList\nitems:\n  - metadata:\n      name: a\n  # a comment\n"
        "  - metadata:\n      name: b\n    spec: {unschedulable: yes}\n"
    )
    fast_snapshot, reference, reference_reads = read_both(tmp_path, text, monkeypatch)
    assert fast_snapshot == reference
    assert [n.metadata.name for n in fast_snapshot.nodes] == ["a", "b"]
    assert "Node" in fast_snapshot.kinds_seen
    assert reference_reads == 1


def test_malformed_yaml_names_the_line_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("kind: Node\nmetadata: {name: a}\n---\nkind: Node\nmetadata: {name: [b}\n")
    with pytest.raises(PodwhyError, match=r"bad\.yaml: malformed YAML \(line 5, column \d+\)"):
        load([str(path)])


# ------------------------------------------------------------------ the kind table


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_is_filed_as_its_table_entry_says(kind: str) -> None:
    info = KINDS[kind]
    # Of the ConfigMaps only Cluster Autoscaler's status is kept.
    name = AUTOSCALER_STATUS_CONFIGMAP if kind == "ConfigMap" else "x"
    obj = msgspec.convert({"metadata": {"name": name, "namespace": "ns"}}, info.type)
    snapshot = Snapshot()
    snapshot.add(kind, obj)
    store = getattr(snapshot, info.snapshot_field)
    expected = {
        Indexing.LIST: [obj],
        Indexing.BY_NAME: {name: obj},
        Indexing.BY_NAMESPACED_NAME: {f"ns/{name}": obj},
    }[info.indexing]
    assert store == expected
    assert snapshot.kinds_seen == {kind}
    assert plural(kind) == info.plural


def test_every_snapshot_collection_has_a_kind() -> None:
    collections = {
        f.name
        for f in dataclasses.fields(Snapshot)
        if f.name not in ("kinds_seen", "api_versions", "ignored_kinds", "sources")
    } - {
        "missing",
        "raw_pods",
        "raw_templates",
        "admitted_without",
        "defaulted",
        "repeats",
        "duplicates",
        "rereads",
        "kindless",
        "_loaded",
        "server_version",
        "server_version_from",
        "taken_at",
        "redacted",
        "api_warnings",
        "unstorable",
        "params",  # the possible params of policies, of any kind (snapshot/params.py)
        "indexes",  # what higher layers index of the objects (framework/handle.py)
    }
    assert collections == {info.snapshot_field for info in KINDS.values()}


def test_a_kind_podwhy_does_not_read_is_counted() -> None:
    snapshot = Snapshot()
    snapshot.add("Secret", object())
    assert snapshot.ignored_kinds == {"Secret": 1}
    assert not snapshot.kinds_seen


# ------------------------------------------------------------------ missing kinds


def test_a_cluster_info_dump_lacks_kinds_it_does_not_write(tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    (dump / "default").mkdir(parents=True)
    (dump / "nodes.json").write_text(json.dumps({"kind": "NodeList", "items": [{"metadata": {"name": "n"}}]}))
    (dump / "default" / "pods.json").write_text(json.dumps({"kind": "PodList", "items": []}))
    (dump / "default" / "services.json").write_text(json.dumps({"kind": "ServiceList", "items": []}))
    # As `kubectl cluster-info dump` writes them, kube-system's pods too (without them the
    # snapshot could not vouch for the pods either: source.some_namespaces_pods).
    (dump / "kube-system").mkdir()
    dns = {"metadata": {"name": "coredns-1", "namespace": "kube-system"}, "spec": {"nodeName": "n"}}
    (dump / "kube-system" / "pods.json").write_text(json.dumps({"kind": "PodList", "items": [dns]}))
    snapshot = load([str(dump)])
    assert snapshot.missing == dict.fromkeys(VOUCHED_KINDS - {"Service"}, "")
    assert snapshot.missing_kinds == VOUCHED_KINDS - {"Service"}

    pvcs = tmp_path / "pvcs.yaml"
    pvcs.write_text("kind: PersistentVolumeClaimList\nitems: []\n")
    with_pvcs = load([str(dump), str(pvcs)])
    assert "PersistentVolumeClaim" not in with_pvcs.missing
    assert with_pvcs.missing_kinds == VOUCHED_KINDS - {"Service", "PersistentVolumeClaim"}


def test_jobs_a_cluster_info_dump_lacks_change_no_verdict() -> None:
    """Jobs and CronJobs only name pods' owners: a dump without them (every cluster-info dump)
    says so, and every pod's cycle is what it is when they are vouched for."""
    from podwhy.scheduler.cycle import run_cycle

    sample = REPO / "fixtures" / "samples" / "cluster-info-dump"
    lacking = load([str(sample)])
    assert {"Job", "CronJob"} <= lacking.missing_kinds
    vouched = load([str(sample)])
    del vouched.missing["Job"], vouched.missing["CronJob"]
    unbound = [(a, b) for a, b in zip(lacking.pods, vouched.pods, strict=True) if not a.spec.node_name]
    assert unbound
    for pod, same in unbound:
        with_missing, without = run_cycle(lacking, pod), run_cycle(vouched, same)
        assert (with_missing.verdict, with_missing.message) == (without.verdict, without.message)
        assert with_missing.outcome is not None and without.outcome is not None
        assert [n.filters for n in with_missing.outcome.nodes] == [n.filters for n in without.outcome.nodes]


def test_plain_dumps_vouch_only_for_what_they_hold(tmp_path: Path) -> None:
    path = tmp_path / "n.yaml"
    path.write_text("kind: Node\nmetadata: {name: a}\n---\nkind: StorageClass\nmetadata: {name: s}\n")
    # Nor for Pods: without any, free room is not vouched for.
    assert load([str(path)]).missing == dict.fromkeys((VOUCHED_KINDS - {"StorageClass"}) | {"Pod"}, "")
    # --complete vouches for every kind, the autoscalers' too.
    assert FileSource([str(path)], complete=True).load().missing == {}


# ------------------------------------------------------------------ the decoder and the file source


def test_a_list_page_gives_its_continue_token() -> None:
    page = {
        "kind": "PodList",
        "apiVersion": "v1",
        "metadata": {"resourceVersion": "1234", "continue": "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ", "remainingItemCount": 7},
        "items": [{"metadata": {"name": "p", "namespace": "ns"}, "spec": {"nodeName": "n"}}],
    }
    decoded = decode(json.dumps(page).encode(), "page 1")
    assert decoded.list_meta == ListMeta(resource_version="1234", continue_="eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ")
    assert [p.spec.node_name for p in decoded.objects["Pod"]] == ["n"]
    assert decoded.list_kinds == {"Pod"}
    assert decoded.reference_reads == 0


@pytest.mark.parametrize("fast", [True, False])
def test_a_yaml_list_page_gives_its_continue_token(monkeypatch: pytest.MonkeyPatch, fast: bool) -> None:
    if not fast:
        monkeypatch.setattr(fastyaml, "ryml", None)
    text = b"kind: NodeList\nmetadata:\n  continue: abc\n  resourceVersion: '9'\nitems:\n- metadata: {name: a}\n"
    decoded = decode(text, "page")
    assert decoded.list_meta == ListMeta(resource_version="9", continue_="abc")
    assert [n.metadata.name for n in decoded.objects["Node"]] == ["a"]


def test_the_last_page_has_no_continue_token() -> None:
    decoded = decode(b'{"kind": "NodeList", "metadata": {"resourceVersion": "5"}, "items": []}', "page")
    assert decoded.list_meta == ListMeta(resource_version="5")
    assert decoded.objects == {}
    assert decoded.list_kinds == {"Node"}


def test_a_single_object_has_no_list_metadata() -> None:
    decoded = decode(b'{"kind": "Node", "metadata": {"name": "a", "resourceVersion": "5"}}', "node")
    assert decoded.list_meta is None
    assert [n.metadata.name for n in decoded.objects["Node"]] == ["a"]


@pytest.mark.parametrize("data", [b"kind: Node\nmetadata: {name: a}\n", b'{"kind": "Node", "metadata": {"name": "a"}}'])
def test_file_source_reads_stdin(data: bytes) -> None:
    snapshot = FileSource(["-"], stdin=io.BytesIO(data)).load()
    assert [n.metadata.name for n in snapshot.nodes] == ["a"]
    assert snapshot.sources == ["-"]


def test_loading_leaves_the_garbage_collector_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "n.yaml"
    path.write_text("kind: Node\nmetadata: {name: a}\n")
    assert gc.isenabled()
    load([str(path)])
    assert gc.isenabled()
    gc.disable()
    try:
        load([str(path)])
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_quantity_errors_name_the_object(tmp_path: Path) -> None:
    path = tmp_path / "n.yaml"
    path.write_text("kind: List\nitems:\n- kind: Node\n  metadata: {name: a}\n  status: {allocatable: {cpu: 1x}}\n")
    with pytest.raises(PodwhyError, match=r"n\.yaml: items\[0\] \(Node 'a'\): unparsable quantity '1x'$"):
        load([str(path)])


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        (b'{"kind": "Pod"}', "Pod"),
        (b'{\n  "apiVersion": "v1",\n  "kind": "Node",\n  "metadata": {}\n}', "Node"),
        # Anywhere else, or written with escapes, the kind is found by decoding the object.
        (b'{"metadata": {"ownerReferences": [{"kind": "ReplicaSet"}]}, "kind": "Pod"}', "Pod"),
        (b'{"apiVersion": "a\\"b", "kind": "Pod"}', "Pod"),
        (b'{"kind": "Po\\u0064"}', "Pod"),
        (b'{"spec": {}}', ""),
    ],
)
def test_peek_kind(raw: bytes, kind: str) -> None:
    assert peek_kind(raw) == kind
