"""A JSON List read an item at a time (snapshot/liststream.py, source._decode_file): the same
objects, errors and List metadata as reading the whole input, in every layout, whatever the chunks."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import threading
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from podwhy.errors import PodwhyError
from podwhy.snapshot import source
from podwhy.snapshot.decode import decode, decode_list_stream
from podwhy.snapshot.decoded import Decoded
from podwhy.snapshot.liststream import ItemSplitter, NotStreamable


def _node(name: str, **labels: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **labels}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }


def _pod(name: str, node: str = "") -> dict[str, Any]:
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "shop", "annotations": {"note": 'a } "items": [ ] {'}},
        "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}]},
    }
    if node:
        pod["spec"]["nodeName"] = node
    return pod


ITEMS = [
    _node("n1", zone="a"),
    _pod("web-1", "n1"),
    _pod("web-2"),
    {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "shop"}, "data": {"k": "dg=="}},
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "shop"}, "data": {"a": "b"}},
    {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"items": [1, {"x": []}]}},
]
META = {"resourceVersion": "", "annotations": {"podwhy.io/taken-at": "2026-01-01T00:00:00Z"}}


def _kubectl(items: list[Any], indent: int = 4) -> bytes:
    """As `kubectl get -o json` writes a List (keys sorted, indented)."""
    doc = {"apiVersion": "v1", "items": items, "kind": "List", "metadata": META}
    return (json.dumps(doc, indent=indent) + "\n").encode()


def _per_line(items: list[Any]) -> bytes:
    """As `podwhy snapshot` writes a List: the List's fields first, then one item per line."""
    head = json.dumps({"apiVersion": "v1", "kind": "List", "metadata": META})[:-1]
    body = ",\n".join(json.dumps(item, separators=(",", ":")) for item in items)
    return f'{head},"items":[\n{body}\n]}}\n'.encode()


def _streamed(text: bytes, cuts: list[int] | None = None, name: str = "dump.json") -> Decoded:
    splitter = ItemSplitter()
    bounds = [0, *sorted(cuts or []), len(text)]
    around: list[bytes] = []

    def batches() -> Any:
        for start, end in itertools.pairwise(bounds):
            yield splitter.feed(text[start:end])
        last, rest = splitter.end()
        around.append(rest)
        yield last

    return decode_list_stream(batches(), lambda: around[0], name, skip_kindless=False)


def _same(a: Decoded, b: Decoded) -> bool:
    enc = msgspec.json.encode
    return (
        a.objects.keys() == b.objects.keys()
        and all(enc(a.objects[k]) == enc(b.objects[k]) for k in a.objects)
        and a.ignored == b.ignored
        and a.list_meta == b.list_meta
        and a.raw_pods == b.raw_pods
        and a.api_versions == b.api_versions
        and enc(a.params) == enc(b.params)
        and a.list_kinds == b.list_kinds
    )


LAYOUTS = {
    "kubectl, 4 spaces": _kubectl(ITEMS),
    "2 spaces": _kubectl(ITEMS, indent=2),
    "tabs": _kubectl(ITEMS, indent="\t"),  # type: ignore[arg-type]
    "one item per line": _per_line(ITEMS),
    "empty items, kubectl": _kubectl([]),
    "empty items, per line": b'{"apiVersion":"v1","kind":"List","items":[\n]}',
    "one item": _kubectl(ITEMS[:1]),
}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_layouts_read_as_the_whole_input(layout: str) -> None:
    text = LAYOUTS[layout]
    assert _same(_streamed(text), decode(text, "dump.json"))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_cut_reads_the_same(layout: str) -> None:
    text = LAYOUTS[layout]
    whole = decode(text, "dump.json")
    for cut in range(1, len(text), 7):
        assert _same(_streamed(text, [cut]), whole), cut


NOT_STREAMED = {
    "compact, one line": json.dumps({"apiVersion": "v1", "kind": "List", "items": ITEMS}).encode(),
    "a typed List (items without kind)": _kubectl([{"metadata": {"name": "n"}}]).replace(b'"List"', b'"NodeList"'),
    "a typed List whose items have a kind": _kubectl(ITEMS[:1]).replace(b'"List"', b'"NodeList"'),
    "not a List": json.dumps(_node("n1"), indent=4).encode(),
    "YAML": b"apiVersion: v1\nkind: List\nitems: []\n",
    "items nested, not at the top": json.dumps({"kind": "List", "spec": {"items": ITEMS}}, indent=4).encode(),
    # A nested `items` before the List's own (empty) one: what the splitter cuts must be the List's.
    "items nested before the List's own": json.dumps(
        {"spec": {"items": ITEMS[:2]}, "apiVersion": "v1", "items": [], "kind": "List"}, indent=4
    ).encode(),
    "two items on one line": _per_line(ITEMS[:2]).replace(b",\n{", b", {"),
    "a trailing comma": _per_line(ITEMS[:2]).replace(b"\n]}", b",\n]}"),
    "items closed on the last item's line": _per_line(ITEMS[:2]).replace(b"\n]}", b"]}"),
    "malformed item": _per_line(ITEMS[:2]).replace(b'"kind":"Pod"', b'"kind":"Pod",,'),
    "invalid object (no name)": _kubectl([{"apiVersion": "v1", "kind": "Node", "metadata": {}}]),
    "a second items key after the items": _kubectl(ITEMS[:1])[:-3] + b',\n    "items": [1]\n}\n',
    "cut inside the items": _kubectl(ITEMS)[:-200],
    "an item indented less than the others": _kubectl(ITEMS[:2]).replace(b'\n            "kind": "Pod"', b"\n  }"),
}


@pytest.mark.parametrize("case", NOT_STREAMED)
def test_what_is_not_streamed_is_read_whole(case: str) -> None:
    """What the fast path cannot vouch for is NotStreamable: the input is then read whole."""
    with pytest.raises(NotStreamable):
        _streamed(NOT_STREAMED[case])


def _whole_error(text: bytes, path: Path) -> str:
    try:
        decode(text, str(path))
    except PodwhyError as exc:
        return str(exc)
    return ""


@pytest.mark.parametrize("case", NOT_STREAMED)
def test_files_read_as_before(case: str, tmp_path: Path) -> None:
    """From a file: the same objects or the same one-line error as reading it whole."""
    path = tmp_path / "dump.json"
    path.write_bytes(NOT_STREAMED[case])
    expected = _whole_error(NOT_STREAMED[case], path)
    if expected:
        with pytest.raises(PodwhyError) as got:
            source._decode_file(path, None, skip_kindless=False)
        assert str(got.value) == expected
    else:
        assert _same(source._decode_file(path, None, skip_kindless=False), decode(NOT_STREAMED[case], str(path)))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_gzipped_files_stream(layout: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source, "READ_CHUNK_BYTES", 64)  # many chunks, items across them
    path = tmp_path / "dump.json.gz"
    path.write_bytes(gzip.compress(LAYOUTS[layout]))
    with path.open("rb") as f:
        streamed = source._stream_list(f, str(path), path.stat().st_size, None, False)
    assert _same(streamed, decode(LAYOUTS[layout], str(path)))


def test_a_bad_byte_after_the_items_read_is_worded_as_before(tmp_path: Path) -> None:
    """A NUL byte late in the file: the read's own check, in the words of reading it whole."""
    text = _kubectl(ITEMS)
    text = text[:-20] + b"\0" + text[-19:]
    path = tmp_path / "dump.json"
    path.write_bytes(text)
    with pytest.raises(PodwhyError) as streamed:
        source._decode_file(path, None, skip_kindless=False)
    with pytest.raises(PodwhyError) as whole:
        decode(source._read_bytes(path), str(path))
    assert str(streamed.value) == str(whole.value)
    assert "a NUL byte at offset" in str(streamed.value)


@pytest.mark.parametrize("layout", ["kubectl, 4 spaces", "one item per line"])
def test_a_list_file_is_never_held_whole(layout: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """FileSource reads a kubectl or podwhy List file without reading it whole (decode() unused),
    a chunk at a time."""
    monkeypatch.setattr(source, "READ_CHUNK_BYTES", 100)

    def whole(*_: object, **__: object) -> None:
        raise AssertionError("read whole")

    monkeypatch.setattr(source, "decode", whole)
    path = tmp_path / "dump.json"
    path.write_bytes(LAYOUTS[layout])
    snapshot = source.FileSource([str(path)]).load()
    assert [n.metadata.name for n in snapshot.nodes] == ["n1"]
    assert sorted(p.metadata.name for p in snapshot.pods) == ["web-1", "web-2"]


_NAMES = st.text(alphabet="abcdefghij-0123", min_size=1, max_size=8).filter(lambda s: s[0].isalpha())
_LABELS = st.dictionaries(st.sampled_from(["a", "b", "}", "{ ]", '"items": [']), _NAMES, max_size=3)


@st.composite
def _lists(draw: st.DrawFn) -> bytes:
    items = []
    for i in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            items.append(_node(f"n{i}", **{k.replace("}", "x"): v for k, v in draw(_LABELS).items()}))
        else:
            pod = _pod(f"p{i}", draw(st.sampled_from(["", "n0"])))
            pod["metadata"]["labels"] = draw(_LABELS)
            items.append(pod)
    layout = draw(st.sampled_from(["kubectl", "per-line", "indent-1"]))
    if layout == "per-line":
        return _per_line(items)
    return _kubectl(items, indent=1 if layout == "indent-1" else 4)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_lists(), data=st.data())
def test_random_lists_random_chunks(text: bytes, data: st.DataObject) -> None:
    cuts = data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=8))
    assert _same(_streamed(text, cuts), decode(text, "dump.json"))


@pytest.mark.parametrize("layout", ["kubectl, 4 spaces", "one item per line"])
def test_a_named_pipe_is_read_once(layout: str, tmp_path: Path) -> None:
    """A named pipe cannot be read again: it is read whole, opened once (a second open would wait
    for a writer that is gone)."""
    fifo = tmp_path / "dump.json"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_bytes, args=(LAYOUTS[layout],))
    writer.start()
    try:
        decoded = source._decode_file(fifo, None, skip_kindless=False)
    finally:
        writer.join(timeout=10)
    assert _same(decoded, decode(LAYOUTS[layout], str(fifo)))
