"""The fast YAML reader's parts, and the invariant they serve: it reads what the reference reader reads."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podwhy.errors import PodwhyError
from podwhy.model import objects as o
from podwhy.snapshot import fastyaml
from podwhy.snapshot.decode import decode
from podwhy.snapshot.fastyaml import doubtful, list_layout, quote_exponent_strings, split_documents


@pytest.mark.parametrize(
    ("js", "repaired"),
    [
        (b'{\n  "a": 5678e76978,\n  "b": 1\n}', b'{\n  "a": "5678e76978",\n  "b": 1\n}'),
        (b'{\n  "a": 1e3\n}', b'{\n  "a": "1e3"\n}'),
        (b"[\n  -1.5E3,\n  2\n]", b'[\n  "-1.5E3",\n  2\n]'),
        # Floats to YAML 1.1 too: a dot and a signed exponent.
        (b'{\n  "a": 1.5e+3,\n  "b": -2.0E-1\n}', b'{\n  "a": 1.5e+3,\n  "b": -2.0E-1\n}'),
        # Strings, flow collections and numbers rapidyaml may have rewritten are left alone.
        (b'{\n  "a": "x 1e3",\n  "b": "1e3"\n}', b'{\n  "a": "x 1e3",\n  "b": "1e3"\n}'),
        (b'{\n  "a": [1e3, 2],\n  "b": {"c": 1e3}\n}', b'{\n  "a": [1e3, 2],\n  "b": {"c": 1e3}\n}'),
        (b'{\n  "a": 0.5e3\n}', b'{\n  "a": 0.5e3\n}'),
        (b'{\n  "sha": "sha256:9e7f0e1",\n  "n": 90e1', b'{\n  "sha": "sha256:9e7f0e1",\n  "n": "90e1"'),
    ],
)
def test_quote_exponent_strings(js: bytes, repaired: bytes) -> None:
    assert quote_exponent_strings(js) == repaired


@pytest.mark.parametrize(
    ("data", "spans"),
    [
        (b"a: 1\n", [(0, 5)]),
        (b"", [(0, 0)]),
        (b"a: 1\n---\nb: 2\n", [(0, 5), (5, 14)]),
        (b"---\na: 1\n---\nb: 2\n", [(0, 9), (9, 18)]),
        (b"# head\n---\na: 1\n", [(7, 16)]),
        (b"a: |\n  ---\n  x\n---  \nb", [(0, 15), (15, 22)]),
        (b"a: ---x\n----\n", [(0, 13)]),
        (b"%YAML 1.1\n---\na: 1\n", None),
        (b"a: 1\n# c\n%TAG ! tag:x:\n---\nb: 2\n", None),
    ],
)
def test_split_documents(data: bytes, spans: list[tuple[int, int]] | None) -> None:
    assert split_documents(data) == spans


def _at(text: bytes, *marks: bytes) -> list[int]:
    """Where each mark starts in TEXT (a mark may repeat: each is looked for after the previous)."""
    found, at = [], -1
    for mark in marks:
        at = text.index(mark, at + 1)
        found.append(at)
    return found


@pytest.mark.parametrize(
    ("text", "items", "end"),
    [
        (b"kind: List\nitems:\n- a: 1\n- b: 2\nkind: x\n", [b"- a", b"- b"], b"kind: x"),
        (b"items:\n- a: 1\n  c: |\n    - x\n- b\n", [b"- a", b"- b"], None),
        (b"items:\n  - a: 1\n\n  # c\n  - b\nkind: List\n", [b"  - a", b"  - b"], b"kind"),
        (b"items:\n-\n  a: 1\n- b\n", [b"-\n", b"- b"], None),
    ],
)
def test_list_layout(text: bytes, items: list[bytes], end: bytes | None) -> None:
    assert list_layout(text) == (
        text.index(b"items:"),
        len(text) if end is None else text.index(end),
        _at(text, *items),
    )


@pytest.mark.parametrize(
    "text",
    [b"items: []\nkind: List\n", b"items: [a, b]\n", b"kind: Node\nspec: {}\n", b"metadata:\n  items:\n  - a\n"],
)
def test_only_block_lists_are_cut(text: bytes) -> None:
    assert list_layout(text) is None


def test_rapidyaml_errors_stay_off_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(PodwhyError, match="malformed YAML"):
        decode(b"kind: Node\nmetadata: {name: [a\n", "bad.yaml")
    assert capfd.readouterr().err == ""


def test_the_cut_is_checked(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # A continuation line at column 0 that starts like an item: rapidyaml rejects the cut.
    monkeypatch.setattr(fastyaml, "BATCH_BYTES", 1)
    text = b'kind: NodeList\nitems:\n- metadata: {name: a}\n  x: "long\n- text"\n- metadata: {name: b}\n'
    decoded = decode(text, "dump.yaml")
    assert [n.metadata.name for n in decoded.objects["Node"]] == ["a", "b"]


@pytest.mark.parametrize(
    ("requests", "doubt"),
    [
        ({"cpu": "100m", "memory": "1Gi", "pods": "110"}, False),
        ({"cpu": 2}, False),
        ({"cpu": "0755"}, True),  # 493 if it was written plain
        ({"cpu": "yes"}, True),
        ({"cpu": 0.5}, True),  # a YAML 1.1 string if it was written -.5 or 5.e1
        ({"cpu": ".inf"}, True),
    ],
)
def test_doubtful_quantities(requests: dict[str, o.QuantityInput], doubt: bool) -> None:
    pod = o.Pod(spec=o.PodSpec(containers=[o.Container(resources=o.ResourceRequirements(requests=requests))]))
    assert doubtful(o.Pod)(pod) is doubt
    assert doubtful(o.Node)(o.Node()) is False


def test_fields_of_any_type_are_doubtful_when_set() -> None:
    check = doubtful(o.DeviceClass)
    assert check(o.DeviceClass()) is False
    assert check(o.DeviceClass(spec=o.DeviceClassSpec(config=[{"opaque": {"parameters": {"mode": "0755"}}}]))) is True


# ------------------------------------------------------------------ the invariant

_TOKENS = [
    "5678e76978", "1e3", "1.5e3", "1.5e+3", "-1E5", "0755", "08", "0x1F", "0b11", "1_000", "1:20", "12", "-0",
    "1.5", "-.5", ".5", "5.", "true", "True", "FALSE", "yes", "No", "on", "OFF", "y", "~", "null", "Null", "NULL",
    ".inf", "-.Inf", "inf", "-infinity", "nan", ".NaN", "100m", "1Gi", "v1.2.3", "10.0.0.1", "abc", "",
]  # fmt: skip
_PLAIN = st.one_of(
    st.sampled_from(_TOKENS),
    st.from_regex(r"[0-9a-fA-F](?:[0-9a-fA-FxXnN._:+-]{0,7}[0-9a-fA-FxXnN._+-])?", fullmatch=True),
)
_STYLE = st.sampled_from(["{}", "'{}'", '"{}"'])


@st.composite
def _scalar(draw: st.DrawFn) -> str:
    token = draw(_PLAIN)
    style = draw(_STYLE) if token else "{}"
    return style.format(token)


@given(
    st.lists(st.tuples(_scalar(), _scalar(), _scalar(), _scalar(), _scalar()), min_size=1, max_size=4),
    st.sampled_from([1, 150, 1 << 20]),
)
@settings(max_examples=150, deadline=None)
def test_the_fast_reader_reads_what_the_reference_reader_reads(
    items: list[tuple[str, str, str, str, str]], batch_bytes: int
) -> None:
    text = "apiVersion: v1\nkind: List\nitems:\n"
    for index, (label, annotation, unschedulable, cpu, node_name) in enumerate(items):
        text += (
            f"- kind: Node\n  metadata:\n    name: n{index}\n    labels:\n      a: {label}\n"
            f"    annotations:\n      b: {annotation}\n  spec:\n    unschedulable: {unschedulable}\n"
            f"  status:\n    allocatable:\n      cpu: {cpu}\n"
            f"- kind: Pod\n  metadata:\n    name: p{index}\n  spec:\n    nodeName: {node_name}\n"
        )
    data = text.encode()
    fast, reference = _outcome(data, batch_bytes, fast=True), _outcome(data, batch_bytes, fast=False)
    assert fast == reference


def _outcome(data: bytes, batch_bytes: int, fast: bool) -> object:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fastyaml, "BATCH_BYTES", batch_bytes)
        if not fast:
            patch.setattr(fastyaml, "ryml", None)
        try:
            decoded = decode(data, "dump.yaml")
        except PodwhyError as exc:
            return exc.message
        return decoded.objects, decoded.list_kinds, decoded.ignored
