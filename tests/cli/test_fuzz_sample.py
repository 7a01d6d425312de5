"""Malformed input through the command line: a fixed sample of the fuzzer, and what it found.

The full run is `python -m tests.fuzz --count 10000` (CONTRIBUTING.md, "Deeper checks").
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from podwhy.cli import app
from tests import fuzz
from tests.paths import REPO

SAMPLE_SEED = 20260101
SAMPLE_SIZE = 200
EXAMPLE = REPO / "fixtures" / "examples" / "shop-cluster.yaml"
POD = "shop/checkout-7c9d8b6f5-m4x2q"


def test_fixed_sample_of_malformed_dumps(tmp_path: Path) -> None:
    summary = fuzz.fuzz(SAMPLE_SIZE, SAMPLE_SEED, out=tmp_path)
    problems = [f"case {case.index} {case.mutations}: {outcome.problems}" for case, outcome in summary.violations]
    assert not problems, "\n".join([*problems, f"replay one with: python -m tests.fuzz --seed {SAMPLE_SEED} --case N"])
    # The sample reaches every outcome and every kind of mutation.
    assert {0, 1, 3} <= set(summary.by_code)
    assert set(fuzz.MUTATIONS) | set(fuzz.BYTE_MUTATIONS) <= set(summary.by_mutation)


@pytest.mark.parametrize(
    ("code", "stdout", "stderr", "problem"),
    [
        (3, "", "podwhy: error: x\n", None),
        (2, "", "podwhy: error: x (hint)\n", None),
        (3, "", "podwhy: error: x\nmore\n", "exactly one error line"),
        (3, "", "podwhy: internal error: KeyError: 'a' (rerun with --debug)\n", "internal error"),
        (3, "", 'Traceback (most recent call last):\n  File "x"\n', "traceback"),
        (1, "not json", "", "without a JSON report"),
        (0, '{"verdict": "Unschedulable"}', "", "report does not match the schema"),
        (5, "", "", "unexpected exit code"),
    ],
)
def test_the_fuzzer_checks_what_it_claims(code: int, stdout: str, stderr: str, problem: str | None) -> None:
    problems = fuzz.check(code, stdout, stderr)
    if problem is None:
        assert problems == []
    else:
        assert any(problem in p for p in problems), problems


# ---------------------------------------------------------------------- what the fuzzer found


def _example() -> dict[str, object]:
    doc: dict[str, object] = yaml.safe_load(EXAMPLE.read_text())
    return doc


def _items(doc: dict[str, object]) -> list[dict[str, object]]:
    items = doc["items"]
    assert isinstance(items, list)
    return items


def _with_node_cpu(value: object) -> dict[str, object]:
    doc = _example()
    node = next(i for i in _items(doc) if i["kind"] == "Node")
    node["status"]["allocatable"]["cpu"] = value  # type: ignore[index]
    return doc


def _with_kind(value: object) -> dict[str, object]:
    doc = _example()
    _items(doc)[0]["kind"] = value
    return doc


def _with_pod_name(name: str) -> dict[str, object]:
    doc = _example()
    pod = next(i for i in _items(doc) if i["kind"] == "Pod")
    pod["metadata"]["name"] = name  # type: ignore[index]
    return doc


def _as(doc: object, fmt: str) -> bytes:
    return json.dumps(doc).encode() if fmt == "json" else yaml.safe_dump(doc).encode()


def _bad_utf8(fmt: str) -> bytes:
    data = _as(_example(), fmt)
    at = data.index(b"worker-b1")
    return data[:at] + b"\xc3(" + data[at + 2 :]


REGRESSIONS: list[tuple[str, bytes, str, str]] = [
    # rapidyaml printed its own parse error on file descriptor 2 before podwhy's line.
    ("unclosed quote", EXAMPLE.read_bytes()[:3000] + b'\n  bad: "unclosed\n', "yaml", "malformed YAML"),
    ("truncated YAML", EXAMPLE.read_bytes()[:1234], "yaml", ""),
    # A kind that is not a string was an internal error in the JSON reader.
    ("kind is a number (JSON)", _as(_with_kind(5), "json"), "json", "not a Kubernetes object"),
    ("kind is a list (YAML)", _as(_with_kind([]), "yaml"), "yaml", "its kind is list, not a string"),
    ("kind is null (YAML)", _as(_with_kind(None), "yaml"), "yaml", "its kind is null, not a string"),
    # Bytes that are not UTF-8: msgspec's UnicodeDecodeError (a DecodeError from msgspec 0.23 on),
    # and rapidyaml's output that could not be encoded again, were internal errors.
    ("invalid UTF-8 (JSON)", _bad_utf8("json"), "json", "the JSON is invalid: not UTF-8 text (byte 0xc3 at offset"),
    ("invalid UTF-8 (YAML)", _bad_utf8("yaml"), "yaml", "malformed YAML: not UTF-8 text (byte 0xc3 at offset"),
    # Quantities beyond int64 overflowed float arithmetic in NodeResourcesBalancedAllocation.
    ("huge quantity", _as(_with_node_cpu("1e999"), "yaml"), "yaml", "quantity '1e999' is out of range"),
    ("huge YAML number", _as(_with_node_cpu(10**30), "yaml"), "yaml", "is out of range"),
    ("huge float", _as(_with_node_cpu(1e308), "yaml"), "yaml", "quantity '1e+308' is out of range"),
    ("huge exponent", _as(_with_node_cpu("1e999999999999"), "json"), "json", "is out of range"),
    # A name with a line break split the error line (here: the "closest pods" hint).
    ("newline in a name", _as(_with_pod_name("checkout-7c9d8b6f5-m4x2q\nevil"), "yaml"), "yaml", "q\\nevil"),
]


@pytest.mark.parametrize(("data", "fmt", "needle"), [r[1:] for r in REGRESSIONS], ids=[r[0] for r in REGRESSIONS])
def test_malformed_input_is_one_error_line(
    data: bytes, fmt: str, needle: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"cluster.{fmt}"
    path.write_bytes(data)
    pod = POD[:-1] if needle == "q\\nevil" else POD  # not found: the hint lists the closest pods
    result = CliRunner().invoke(app, ["explain", pod, "--from", str(path), "-o", "json"])
    native = capfd.readouterr().err  # what native code wrote to file descriptor 2 itself
    assert native == ""
    assert result.exit_code == 3
    assert fuzz.check(result.exit_code, result.stdout, result.stderr) == []
    assert needle in result.stderr


def test_gzipped_garbage_is_one_error_line(tmp_path: Path) -> None:
    path = tmp_path / "cluster.yaml.gz"
    path.write_bytes(gzip.compress(b"\xff\xfe\x00garbage")[:-3])
    result = CliRunner().invoke(app, ["explain", POD, "--from", str(path), "-o", "json"])
    assert result.exit_code == 3
    assert fuzz.check(result.exit_code, result.stdout, result.stderr) == []
