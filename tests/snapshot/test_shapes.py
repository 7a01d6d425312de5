"""Shapes real inputs come in: overlapping inputs, documents without a kind, gzip anywhere,
YAML with a mapping key twice, mirror pods (docs/shapes.md)."""

from __future__ import annotations

import gzip
import io
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from podwhy.analysis.owners import owner_of
from podwhy.cli import app
from podwhy.cluster.manifests import ManifestSource
from podwhy.engine import ExplainRequest, explain
from podwhy.errors import PodwhyError, UsageError
from podwhy.model import objects as o
from podwhy.report.build.inputs import input_warnings
from podwhy.scheduler.config import load_scheduler_config
from podwhy.snapshot import fastyaml
from podwhy.snapshot.cluster import Snapshot, second_is_newer
from podwhy.snapshot.source import FileSource
from tests.builders import quotas_listed
from tests.paths import REPO
from tests.strategies import Cluster, clusters

REAL = REPO / "fixtures" / "realworld"
OVERLAPPING = REAL / "overlapping"
POD = "flux-operator/flux-sample-8-new"

Json = dict[str, Any]


def node(name: str, version: str = "", cpu: str = "4", **meta: str) -> Json:
    metadata = {"name": name, **meta} | ({"resourceVersion": version} if version else {})
    return {"apiVersion": "v1", "kind": "Node", "metadata": metadata, "status": {"allocatable": {"cpu": cpu}}}


def pod(name: str, version: str = "", node_name: str = "", cpu: str = "1") -> Json:
    metadata = {"name": name, "namespace": "shop"} | ({"resourceVersion": version} if version else {})
    spec: Json = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}
    if node_name:
        spec["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def listed(*items: Json) -> bytes:
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": list(items)}).encode()


def write(folder: Path, name: str, data: bytes | str) -> str:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(path)


def load(*paths: str, stdin: bytes | None = None) -> Snapshot:
    return FileSource(list(paths), stdin=io.BytesIO(stdin) if stdin is not None else None).load()


def names(objs: list[Any]) -> list[str]:
    return [obj.metadata.name for obj in objs]


# ---------------------------------------------------------------------- overlapping inputs


@pytest.mark.parametrize(
    ("args", "warning"),
    [
        (["a.json", "a.json"], "{t}/a.json was given twice: read once"),
        (["d", "d/a.json"], "{t}/d/a.json given in {t}/d and again as {t}/d/a.json: read once"),
        (["d/a.json", "d"], "{t}/d/a.json given as {t}/d/a.json and again in {t}/d: read once"),
        (["d", "d"], "{t}/d was given twice: read once"),
        (["d/a.json", "d/../d/a.json"], "{t}/d/../d/a.json given as {t}/d/a.json and again as {t}/d/../d/a.json"),
    ],
)
def test_a_file_given_again_is_read_once(tmp_path: Path, args: list[str], warning: str) -> None:
    data = listed(node("n1"), pod("p", node_name="n1"))
    write(tmp_path, "a.json", data)
    write(tmp_path / "d", "a.json", data)
    snap = load(*(str(tmp_path / a) for a in args))
    assert names(snap.nodes) == ["n1"] and names(snap.pods) == ["p"]
    assert not snap.repeats and not snap.duplicates
    assert any(w.startswith(warning.format(t=tmp_path)) for w in input_warnings(snap)), input_warnings(snap)


def test_an_object_in_two_files_of_a_folder_is_taken_once(tmp_path: Path) -> None:
    write(tmp_path / "d", "nodes.json", listed(node("n1"), node("n2")))
    write(
        tmp_path / "d",
        "more.yaml",
        "kind: Node\napiVersion: v1\nmetadata: {name: n2}\nstatus: {allocatable: {cpu: '4'}}\n",
    )
    snap = load(str(tmp_path / "d"))
    assert names(snap.nodes) == ["n2", "n1"]  # the folder's files are read in name order
    assert input_warnings(snap) == [
        f"n2 (Node) was given in {tmp_path}/d/more.yaml and {tmp_path}/d/nodes.json: taken once"
    ]


@pytest.mark.parametrize(
    ("first", "second", "kept", "why"),
    [
        ("7", "9", "9", "the newer, of {b},"),
        ("9", "7", "9", "the newer, of {a},"),
        ("10", "9", "10", "the newer, of {a},"),  # compared as integers, not as text
        ("", "9", "9", "the one given later, of {b},"),
        ("9", "", "", "the one given later, of {b},"),
        ("abc", "abd", "abd", "the one given later, of {b},"),
        ("9", "9", "9", "the one given later, of {b},"),
    ],
)
def test_two_versions_of_an_object_keep_the_newer(tmp_path: Path, first: str, second: str, kept: str, why: str) -> None:
    a = write(tmp_path, "a.json", listed(node("n1", first, cpu="2")))
    b = write(tmp_path, "b.json", listed(node("n1", second, cpu="8")))
    snap = load(a, b)
    assert len(snap.nodes) == 1
    assert snap.nodes[0].metadata.resource_version == kept
    assert snap.nodes[0].status.allocatable["cpu"] == ("2" if kept == first and first != second else "8")
    (warning,) = input_warnings(snap)
    assert warning.startswith(f"n1 (Node) differs between {a} (")
    assert warning.endswith(f": {why.format(a=a, b=b)} is taken")


def test_second_is_newer_compares_resource_versions_as_integers() -> None:
    assert second_is_newer("9", "10") and not second_is_newer("10", "9")
    assert second_is_newer("", "1") and second_is_newer("1", "") and second_is_newer("x", "1")
    assert second_is_newer("٣", "1")  # not ASCII digits: the later wins


def test_two_versions_in_one_file_are_named_once(tmp_path: Path) -> None:
    a = write(tmp_path, "a.json", listed(pod("p", "5", "n1"), pod("p", "3", cpu="2")))
    snap = load(a)
    assert [p.metadata.resource_version for p in snap.pods] == ["5"]
    assert input_warnings(snap) == [
        f"shop/p (Pod) is given twice in {a}, in two versions (resourceVersions 5 and 3): the newer (5) is taken"
    ]


@pytest.mark.parametrize("bound_first", [True, False])
def test_the_kept_pods_own_json_is_kept(tmp_path: Path, bound_first: bool) -> None:
    bound, unbound = pod("p", "7", node_name="n1"), pod("p", "5")
    unbound["spec"]["containers"][0]["command"] = ["sleep"]
    a = write(tmp_path, "a.json", listed(bound if bound_first else unbound))
    b = write(tmp_path, "b.json", listed(unbound if bound_first else bound))
    snap = load(a, b)
    assert snap.pods[0].spec.node_name == "n1"
    assert snap.raw_pods == {}
    newer_unbound = pod("p", "9")
    newer_unbound["spec"]["containers"][0]["command"] = ["true"]
    c = write(tmp_path, "c.json", listed(newer_unbound))
    snap = load(a, b, c)
    assert json.loads(snap.raw_pods["shop/p"])["spec"]["containers"][0]["command"] == ["true"]


def test_a_cluster_scoped_object_is_known_by_kind_and_name(tmp_path: Path) -> None:
    a = write(tmp_path, "a.json", listed(node("n1"), {"kind": "PriorityClass", "metadata": {"name": "hi"}, "value": 5}))
    b = write(tmp_path, "b.json", listed(node("n1", namespace="oops"), pod("n1", node_name="n1")))
    snap = load(a, b)
    assert names(snap.nodes) == ["n1"] and names(snap.pods) == ["n1"]


@pytest.mark.parametrize("fast", [True, False])
def test_stdin_and_a_file_holding_the_same_objects(tmp_path: Path, fast: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not fast:
        monkeypatch.setattr(fastyaml, "ryml", None)
    text = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n2}\n"
    a = write(tmp_path, "a.yaml", text)
    snap = load("-", a, stdin=gzip.compress(text.encode()))
    assert names(snap.nodes) == ["n1", "n2"]
    assert input_warnings(snap) == [f"n1 (Node) and n2 (Node) were given in <stdin> and {a}: each taken once"]


def test_thousands_of_repeated_objects_are_one_line(tmp_path: Path) -> None:
    data = listed(*(pod(f"p{i}", str(i), node_name="n1") for i in range(1024)))
    a, b = write(tmp_path, "a.json", data), write(tmp_path, "b.json", data)
    snap = load(a, b, a)
    assert len(snap.pods) == 1024
    assert input_warnings(snap) == [
        f"{a} was given twice: read once",
        f"1,024 objects were given in {a} and {b}: each taken once",
    ]


def test_many_differing_objects_are_named_up_to_a_bound(tmp_path: Path) -> None:
    a = write(tmp_path, "a.json", listed(*(node(f"n{i}", "1") for i in range(12))))
    b = write(tmp_path, "b.json", listed(*(node(f"n{i}", "2", cpu="8") for i in range(12))))
    warnings = input_warnings(load(a, b))
    assert len(warnings) == 11
    assert (
        warnings[-1]
        == "2 more objects differ between the inputs: of each, the newer (else the one given later) is taken"
    )


def _without_inputs(report: Any) -> Any:
    out = msgspec.to_builtins(report)
    out.pop("warnings")
    out["snapshot"].pop("sources")
    return out


def _explain(*paths: str, stdin: bytes | None = None) -> Any:
    source = FileSource(list(paths), stdin=io.BytesIO(stdin) if stdin is not None else None)
    return explain(ExplainRequest(pod_ref=POD, namespace="default", source=source))


def test_a_real_dump_given_twice_reads_as_given_once(tmp_path: Path) -> None:
    nodes, pods, ninth = (str(OVERLAPPING / f) for f in ("nodes.json", "pods-efa.json", "derived-ninth-pod.json"))
    once = _explain(nodes, pods, ninth)
    assert once.verdict == "Unschedulable" and once.snapshot.nodes == 8 and once.snapshot.pods == 9
    copy = shutil.copy(nodes, tmp_path / "nodes-copy.json")
    runs = {
        "twice": _explain(nodes, nodes, pods, ninth, pods),
        "folder and file": _explain(str(OVERLAPPING), nodes, ninth),
        "copy": _explain(nodes, str(copy), pods, ninth),
        "stdin gz": _explain("-", str(OVERLAPPING), stdin=gzip.compress(Path(nodes).read_bytes())),
    }
    for how, report in runs.items():
        assert _without_inputs(report) == _without_inputs(once), how
    assert runs["twice"].warnings[:2] == [f"{nodes} was given twice: read once", f"{pods} was given twice: read once"]
    assert runs["copy"].warnings[0] == f"8 objects were given in {nodes} and {copy}: each taken once"
    assert runs["stdin gz"].warnings[0] == f"8 objects were given in <stdin> and {nodes}: each taken once"


def test_a_real_object_twice_in_one_file() -> None:
    snap = load(str(REAL / "duplicate-objects" / "kubeval-duplicates.yaml"))
    assert names(snap.replication_controllers) == ["bob"]
    assert input_warnings(snap) == [
        f"bob (ReplicationController) was given twice in {REAL}/duplicate-objects/kubeval-duplicates.yaml: taken once"
    ]


def _split(data: list[Json], cuts: list[int]) -> list[list[Json]]:
    """Consecutive pieces of DATA that overlap: piece i runs from cut 2i to cut 2i+1 (sorted)."""
    cuts = sorted(cuts)
    starts = [0, *cuts[0::2]]
    ends = [*cuts[1::2], len(data)]
    return [data[s:e] for s, e in zip(starts, ends, strict=False) if s < e] or [data]


def _documents(cluster: Cluster) -> list[Json]:
    objs = [("Node", n) for n in cluster.nodes] + [("Namespace", n) for n in cluster.namespaces]
    objs += [("Pod", p) for p in [*cluster.pods, cluster.pod]]
    return [{"apiVersion": "v1", "kind": kind, **msgspec.to_builtins(obj)} for kind, obj in objs]


@settings(max_examples=25, deadline=None)
@given(clusters(max_nodes=4, max_pods=6), st.lists(st.integers(0, 20), max_size=4))
def test_a_cluster_given_twice_or_in_overlapping_pieces_reads_as_given_once(cluster: Cluster, cuts: list[int]) -> None:
    docs = _documents(cluster)
    pod_ref = f"{cluster.pod.metadata.namespace}/{cluster.pod.metadata.name}"
    with tempfile.TemporaryDirectory() as tmp:
        whole = write(Path(tmp), "whole.json", listed(*docs))
        copy = write(Path(tmp), "copy.json", listed(*docs))
        # Overlapping pieces, in order: each object is first met where the whole file has it.
        pieces = [write(Path(tmp), f"piece{i}.json", listed(*piece)) for i, piece in enumerate(_split(docs, cuts))]
        if any(d for d in _split(docs, cuts)):
            pieces.append(whole)

        def run(*paths: str) -> Any:
            source = FileSource(list(paths))
            # Golden clusters: their recordings had no API server to refuse a pod.
            return explain(ExplainRequest(pod_ref=pod_ref, namespace="default", source=source))

        once = _without_inputs(run(whole))
        assert _without_inputs(run(whole, whole)) == once
        assert _without_inputs(run(whole, copy)) == once
        assert _without_inputs(run(*pieces)) == once


# ---------------------------------------------------------------------- documents without a kind


KINDLESS = [
    ("yaml object", "a.yaml", "metadata: {name: x}\n", "document 1"),
    ("second document", "a.yaml", "kind: Node\nmetadata: {name: n1}\n---\nmetadata: {name: x}\n", "document 2"),
    ("empty kind", "a.yaml", "kind: ''\nmetadata: {name: x}\n", "document 1"),
    ("json object", "a.json", '{"metadata": {"name": "x"}}', "the object"),
    (
        "json list item",
        "a.json",
        '{"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "n1"}}, {}]}',
        "items[1]",
    ),
    (
        "yaml list item",
        "a.yaml",
        "kind: List\nitems:\n- kind: Node\n  metadata: {name: n1}\n- metadata: {name: x}\n",
        "items[1]",
    ),
]


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize(("name", "file", "text", "where"), KINDLESS, ids=[k[0] for k in KINDLESS])
def test_a_document_without_kind_is_refused_in_a_file_and_skipped_in_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast: bool, name: str, file: str, text: str, where: str
) -> None:
    if not fast:
        monkeypatch.setattr(fastyaml, "ryml", None)
    path = write(tmp_path / "d", file, text)
    with pytest.raises(PodwhyError) as err:
        load(path)
    assert err.value.message == f"{path}: {where} is not a Kubernetes object: it has no kind"
    with pytest.raises(PodwhyError) as err:
        load("-", stdin=text.encode())
    assert err.value.message == f"<stdin>: {where} is not a Kubernetes object: it has no kind"
    snap = load(str(tmp_path / "d"))
    assert snap.kindless == [(path, where)]
    assert not snap.ignored_kinds
    assert input_warnings(snap) == [f"a document without a kind skipped (not Kubernetes objects): {path}: {where}"]


def test_real_documents_without_kind() -> None:
    folder = REAL / "no-kind"
    snap = load(str(folder))
    assert names(snap.nodes) == ["minikube"]
    assert [w for _, w in snap.kindless] == ["document 1"] * 3
    assert input_warnings(snap) == [
        f"3 documents without a kind skipped (not Kubernetes objects): {folder}/node.yaml: document 1; "
        f"{folder}/pod.yaml: document 1; {folder}/priorityclass.yaml: document 1"
    ]
    with pytest.raises(PodwhyError, match=r"pod\.yaml: document 1 is not a Kubernetes object: it has no kind"):
        load(str(folder / "pod.yaml"))


def test_manifests_without_kind(tmp_path: Path) -> None:
    write(tmp_path / "m", "pod.yaml", "kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: img}]}\n")
    write(tmp_path / "m", "values.yaml", "replicas: 3\n")
    source = ManifestSource([str(tmp_path / "m")])
    assert [e.kind for e in source.read()] == ["Pod"]
    assert source.kindless == [(f"{tmp_path}/m/values.yaml", "document 1")]
    with pytest.raises(PodwhyError, match=r"values\.yaml: document 1 is not a Kubernetes object: it has no kind"):
        ManifestSource([str(tmp_path / "m" / "values.yaml")]).read()


# ---------------------------------------------------------------------- gzip


@pytest.mark.parametrize("name", ["dump.json", "dump.json.gz", "dump.yaml", "dump"])
def test_gzip_is_told_by_its_bytes_not_its_name(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, name, gzip.compress(listed(node("n1"))))
    assert names(load(path).nodes) == ["n1"]
    assert names(load("-", stdin=gzip.compress(listed(node("n1")))).nodes) == ["n1"]


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (gzip.compress(b'{"kind": "List", "items": []}')[:-6], "corrupt gzip data: Compressed file ended"),
        (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage", "corrupt gzip data: "),
        (b"\x1f\x8b", "corrupt gzip data: "),
    ],
)
def test_corrupt_gzip_is_one_line(tmp_path: Path, data: bytes, error: str) -> None:
    path = write(tmp_path, "dump.json.gz", data)
    with pytest.raises(PodwhyError, match=f"^{path}: {error}"):
        load(path)
    with pytest.raises(PodwhyError, match=f"^<stdin>: {error}"):
        load("-", stdin=data)


def test_an_empty_gz_file_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, "dump.json.gz", b"")
    with pytest.raises(PodwhyError, match="empty file: no gzip data"):
        load(path)


def test_gzipped_manifests_on_stdin() -> None:
    text = b"kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: img}]}\n"
    entries = ManifestSource(["-"], stdin=io.BytesIO(gzip.compress(text))).read()
    assert [(e.kind, e.obj.metadata.name) for e in entries] == [("Pod", "p")]


# ---------------------------------------------------------------------- duplicate mapping keys

DUPLICATE_KEYS = [
    ("top level", "kind: Node\nmetadata: {name: a}\nkind: Node\n", "line 3", "kind", 1),
    ("nested", "kind: Node\nmetadata:\n  name: a\n  labels:\n    x: '1'\n    x: '2'\n", "line 6", "x", 5),
    ("flow mapping", "kind: Node\nmetadata: {name: a, name: b}\n", "line 2", "name", 2),
    ("quoted and plain", "kind: Node\nmetadata:\n  name: a\n  'name': b\n", "line 4", "name", 3),
    (
        "second document",
        "kind: Node\nmetadata: {name: a}\n---\nkind: Node\nmetadata:\n  name: b\n  name: c\n",
        "line 7",
        "name",
        6,
    ),
    (
        "list item",
        "kind: List\nitems:\n- kind: Node\n  metadata: {name: a}\n"
        "- kind: Node\n  metadata:\n    name: b\n    uid: u\n    name: c\n",
        "line 9",
        "name",
        7,
    ),
]


@pytest.mark.parametrize("batch_bytes", [1, 1 << 20])
@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize(("name", "text", "line", "key", "first"), DUPLICATE_KEYS, ids=[d[0] for d in DUPLICATE_KEYS])
def test_a_mapping_key_twice_is_refused_by_both_readers(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fast: bool,
    batch_bytes: int,
    name: str,
    text: str,
    line: str,
    key: str,
    first: int,
) -> None:
    monkeypatch.setattr(fastyaml, "BATCH_BYTES", batch_bytes)
    if not fast:
        monkeypatch.setattr(fastyaml, "ryml", None)
    path = write(tmp_path, "a.yaml", text)
    with pytest.raises(PodwhyError) as err:
        load(path)
    assert err.value.message == f'{path}: {line}: mapping key "{key}" already defined at line {first}'


@pytest.mark.parametrize("fast", [True, False])
def test_one_key_in_several_mappings_is_no_duplicate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast: bool
) -> None:
    if not fast:
        monkeypatch.setattr(fastyaml, "ryml", None)
    text = (
        "kind: Pod\nmetadata: {name: p, labels: {name: x}}\n"
        "spec:\n  containers:\n  - name: a\n    image: i\n  - name: b\n    image: i\n"
    )
    source = FileSource([write(tmp_path, "a.yaml", text)])
    assert names(source.load().pods) == ["p"]
    if fast:
        assert source.reference_reads == 0  # nothing doubtful: the fast reader took it


def test_real_yaml_with_a_key_twice() -> None:
    folder = REAL / "duplicate-keys"
    with pytest.raises(PodwhyError) as err:
        ManifestSource([str(folder / "duplicate_property.yaml")]).read()
    assert (
        err.value.message
        == f'{folder}/duplicate_property.yaml: line 16: mapping key "containers" already defined at line 13'
    )
    with pytest.raises(PodwhyError) as err:
        ManifestSource([str(folder / "invalid-deployment-unknown-and-duplicate-fields.yaml")]).read()
    assert err.value.message.endswith(': line 9: mapping key "replicas" already defined at line 8')


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('{"kind": "Pod", "metadata": {"name": "p", "name": "q"}}', "metadata.name"),
        (
            '{"kind": "List", "items": [{"kind": "Pod", "spec": {"containers": [{"name": "c", "name": "d"}]}}]}',
            "items[0].spec.containers[0].name",
        ),
        ('{"kind": "Pod", "kind": "Pod", "metadata": {"name": "p"}}', "kind"),
    ],
)
def test_a_json_manifest_with_a_key_twice_names_the_field(tmp_path: Path, text: str, field: str) -> None:
    path = write(tmp_path, "m.json", text)
    with pytest.raises(PodwhyError) as err:
        ManifestSource([path]).read()
    assert err.value.message == f'{path}: duplicate field "{field}" (a JSON object holds a key twice)'


def test_a_json_dump_with_a_key_twice_reads_the_last_as_encoding_json_does(tmp_path: Path) -> None:
    path = write(tmp_path, "d.json", '{"kind": "Node", "metadata": {"name": "a", "name": "b"}}')
    assert names(load(path).nodes) == ["b"]


def test_json_with_numbers_written_otherwise_has_no_duplicate(tmp_path: Path) -> None:
    path = write(tmp_path, "m.json", '{"kind": "Pod", "metadata": {"name": "p"}, "spec": {"unread": 1.50e0}}')
    assert not fastyaml.unique_keys(Path(path).read_bytes())
    assert [e.kind for e in ManifestSource([path]).read()] == ["Pod"]


# ---------------------------------------------------------------------- mirror pods


def test_a_mirror_pods_owner_is_its_node() -> None:
    folder = REAL / "mirror-pod"
    snap = load(str(folder))
    (mirror,) = snap.pods
    owner = owner_of(mirror, snap)
    assert owner is not None and (owner.kind, owner.namespace, owner.name) == ("Node", "", "minikube")
    assert str(owner) == "minikube (Node)"
    assert input_warnings(snap) == [
        f"kube-system/kube-apiserver-minikube (Pod) was given in {folder}/crlf-pod-1.yaml and "
        f"{folder}/crlf-pod-2.yaml: taken once"
    ]


def test_pending_names_a_mirror_pods_node_without_namespace() -> None:
    result = CliRunner().invoke(app, ["pending", "-A", "--from", str(REAL / "mirror-pod"), "-o", "json"])
    report = json.loads(result.stdout)
    assert [(g["owner"], g["count"]) for g in report["groups"]] == [("minikube (Node)", 1)]
    assert report["warnings"][0].startswith("kube-system/kube-apiserver-minikube (Pod) was given in ")


# ---------------------------------------------------------------------- the command line


def invoke(*args: str, input: bytes | None = None) -> Any:
    return CliRunner().invoke(app, list(args), input=input)


def test_explain_says_on_stderr_what_was_given_twice() -> None:
    nodes = str(OVERLAPPING / "nodes.json")
    args = ["explain", POD, "--from", nodes, "--from", str(OVERLAPPING)]
    table = invoke(*args)
    assert table.exit_code == 1
    assert f"podwhy: warning: {nodes} given as {nodes} and again in {OVERLAPPING}: read once" in table.stderr
    structured = invoke(*args, "-o", "json")
    assert structured.exit_code == 1  # the warnings go to stderr, the report alone to stdout
    assert f"podwhy: warning: {nodes} given as {nodes} and again in {OVERLAPPING}: read once" in structured.stderr
    report = json.loads(structured.stdout)
    assert report["verdict"] == "Unschedulable"
    assert report["warnings"][0] == f"{nodes} given as {nodes} and again in {OVERLAPPING}: read once"


def test_pending_and_check_print_the_input_warnings(tmp_path: Path) -> None:
    nodes = str(OVERLAPPING / "nodes.json")
    pending = invoke("pending", "-A", "--from", nodes, "--from", str(OVERLAPPING))
    assert pending.exit_code == 1
    assert f"podwhy: warning: {nodes} given as {nodes} and again in {OVERLAPPING}: read once\n" in pending.stderr
    # -o json and yaml too: the report alone on stdout, its warnings on stderr, as explain does.
    for output in ("json", "yaml"):
        structured = invoke("pending", "-A", "--from", nodes, "--from", str(OVERLAPPING), "-o", output)
        assert structured.exit_code == 1
        assert f"podwhy: warning: {nodes} given as {nodes} and again in {OVERLAPPING}: read once\n" in structured.stderr
        assert "podwhy: warning" not in structured.stdout
    # Its requests given: no LimitRange of a namespace could add any (the dump holds none).
    manifest = write(
        tmp_path,
        "pod.yaml",
        "kind: Pod\nmetadata: {name: p}\n"
        "spec: {containers: [{name: c, image: img, resources: {requests: {cpu: 10m, memory: 1Mi}}}]}\n",
    )
    # A pod of the cluster (without any, no free room is vouched for) and its ResourceQuotas listed.
    pods = write(tmp_path, "pods.yaml", "kind: Pod\nmetadata: {name: other, namespace: default}\nspec: {}\n")
    check = invoke(
        "check", "-f", manifest, "--from", nodes, "--from", nodes, "--from", pods, "--from", quotas_listed(tmp_path)
    )
    assert check.exit_code == 0
    assert f"podwhy: warning: {nodes} was given twice: read once\n" in check.stderr


@pytest.mark.parametrize(
    ("args", "stdin", "line"),
    [
        (
            ["pending", "-A", "--from", str(REAL / "no-kind" / "pod.yaml")],
            None,
            "pod.yaml: document 1 is not a Kubernetes object: it has no kind",
        ),
        (
            ["pending", "-A", "--from", "-"],
            b"metadata: {name: x}\n",
            "<stdin>: document 1 is not a Kubernetes object: it has no kind",
        ),
        (["pending", "-A", "--from", "-"], b"\x1f\x8bnot gzip", "<stdin>: corrupt gzip data: "),
        (
            [
                "check",
                "-f",
                str(REAL / "duplicate-keys" / "duplicate_property.yaml"),
                "--from",
                str(OVERLAPPING / "nodes.json"),
            ],
            None,
            'duplicate_property.yaml: line 16: mapping key "containers" already defined at line 13',
        ),
        (["pending", "-A", "--from", str(REAL / "no-kind")], None, "the snapshot holds no pods"),
    ],
)
def test_bad_shapes_are_one_line_errors(args: list[str], stdin: bytes | None, line: str) -> None:
    result = invoke(*args, input=stdin)
    assert result.exit_code == 3
    (printed,) = result.stderr.splitlines()
    assert printed.startswith("podwhy: error: ") and line in printed


def test_an_empty_snapshot_names_the_documents_it_skipped() -> None:
    folder = REAL / "no-kind"
    result = invoke("pending", "-A", "--from", str(folder))
    assert result.exit_code == 3
    assert f"; 3 documents without a kind were skipped ({folder}/node.yaml: document 1, ...)" in result.stderr


def test_explain_reads_gzip_on_stdin() -> None:
    dump = gzip.compress((OVERLAPPING / "nodes.json").read_bytes())
    args = ["explain", POD, "--from", "-", "--from", str(OVERLAPPING / "pods-efa.json"), "--from"]
    result = invoke(*args, str(OVERLAPPING / "derived-ninth-pod.json"), "-o", "json", input=dump)
    assert result.exit_code == 1, result.stderr
    assert json.loads(result.stdout)["snapshot"]["nodes"] == 8


def test_the_model_knows_which_kinds_have_no_namespace() -> None:
    assert {"Node", "ResourceSlice", "PersistentVolume", "StorageClass"} <= o.CLUSTER_SCOPED_KINDS
    assert not {"Pod", "PersistentVolumeClaim", "Service", "ResourceClaim"} & o.CLUSTER_SCOPED_KINDS


def test_a_scheduler_configuration_with_a_key_twice_is_refused(tmp_path: Path) -> None:
    text = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
    path = write(tmp_path, "config.yaml", text + "- schedulerName: a\n  schedulerName: b\n")
    with pytest.raises(UsageError) as err:
        load_scheduler_config(Path(path))
    assert err.value.message == f'{path}: line 5: mapping key "schedulerName" already defined at line 4'
    path = write(tmp_path, "config.yaml", text + "- schedulerName: a\n- schedulerName: b\n")
    assert [p.scheduler_name for p in load_scheduler_config(Path(path)).profiles] == ["a", "b"]


def test_check_warns_of_manifests_without_kind_in_a_folder(tmp_path: Path) -> None:
    write(tmp_path / "m", "pod.yaml", "kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: img}]}\n")
    values = write(tmp_path / "m", "values.yaml", "replicas: 3\n")
    node = str(REAL / "mirror-pod" / "minikube-node.json")
    result = invoke("check", "-f", str(tmp_path / "m"), "--from", node, "--complete")
    assert result.exit_code == 0
    assert (
        f"podwhy: warning: a document without a kind skipped (not Kubernetes objects): {values}: document 1\n"
    ) in result.stderr
