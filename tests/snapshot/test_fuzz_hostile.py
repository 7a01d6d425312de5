"""Hostile input, generated: podwhy's typed decoder over hostile documents, and every renderer of
`explain`, `pending` and `check` (table, wide, json, yaml, markdown, JUnit) over clusters whose
strings are hostile (issue 26, "Proof"). Whatever the input: no traceback and no internal error,
an error is one line, no control character or bidi override from the input reaches any output
raw, JUnit is strict XML, and memory stays bounded.

The default test command runs a few dozen examples. The long run (CONTRIBUTING.md, "Deeper
checks"):

    HYPOTHESIS_PROFILE=fuzz python -m pytest -p no:cacheprovider tests/snapshot/test_fuzz_hostile.py
"""

from __future__ import annotations

import json
import tracemalloc
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import msgspec
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.errors import PodwhyError
from podwhy.model.errors import ModelError
from podwhy.snapshot.decode import decode
from tests.report.test_hostile_output import RAW

# The most one example may allocate at once (tracemalloc's peak): the inputs are a few kilobytes,
# a cluster of a few nodes; explaining a real 150,000-pod cluster takes 2 GiB.
MEMORY_BOUND = 128 << 20

# What a terminal, a markdown renderer or an XML parser acts on, and some that look like it.
NASTY = (
    "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07",
    "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\",
    "\x1b[31m",
    "\x1b[2J",
    "\x9b2J",
    "\x9d0;title\x9c",
    "\x85",
    "\u202e",
    "\u2066",
    "\u2069",
    "\u2028",
    "\x00",
    "\x07",
    "\x7f",
    "\r",
    "\n",
    "\t",
    "\x0b",
    "\ufffe",
    "\\|",
    "|",
    "@org/team",
    "[t](https://evil.example)",
    "![i](https://evil.example/i.png)",
    "<script>",
    "&amp;",
    "]]>",
    '"',
    "'",
    "`",
    "*",
    "{{",
    "%s",
    "\\",
    "*alias",
    "&anchor",
    "!!python/object",
    "---",
    ": ",
    "# ",
)
hostile_text = st.lists(st.one_of(st.sampled_from(NASTY), st.text(max_size=6)), max_size=6).map("".join)


def mostly(good: st.SearchStrategy[Any], bad: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """GOOD nine times in ten, else BAD: most clusters must reach scheduling, so that the renderers
    have something to show, and a few test the errors."""
    return st.sampled_from([False] * 9 + [True]).flatmap(lambda hostile: bad if hostile else good)


name = mostly(st.from_regex(r"[a-z][a-z0-9-]{0,10}[a-z0-9]", fullmatch=True), hostile_text)
labels = st.dictionaries(name, mostly(name, hostile_text), max_size=3)
json_scalar = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), hostile_text)
json_value = st.recursive(
    json_scalar, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(hostile_text, inner, max_size=3))
)
quantity = mostly(
    st.sampled_from(["1", "100m", "4", "8Gi", "110", "0"]),
    st.one_of(st.sampled_from(["-5", "1e999", "x", "9" * 40]), hostile_text),
)


@st.composite
def node(draw: st.DrawFn, index: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": f"n{index}", "labels": draw(labels), "annotations": draw(labels)},
        "spec": {
            "taints": draw(
                st.lists(
                    st.fixed_dictionaries(
                        {
                            "key": name,
                            "value": hostile_text,
                            "effect": st.sampled_from(["NoSchedule", "PreferNoSchedule", "NoExecute", "Bad"]),
                        }
                    ),
                    max_size=2,
                )
            )
        },
        "status": {
            "allocatable": {"cpu": draw(quantity), "memory": "8Gi", "pods": "110"},
            "conditions": [
                {"type": "Ready", "status": draw(st.sampled_from(["True", "False"])), "message": draw(hostile_text)}
            ],
            "images": [{"names": [draw(hostile_text)], "sizeBytes": draw(st.integers(0, 2**40))}],
        },
    }


@st.composite
def pod_spec(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "schedulerName": draw(st.one_of(st.just("default-scheduler"), hostile_text)),
        "nodeSelector": draw(labels),
        "priorityClassName": draw(st.one_of(st.just(""), name)),
        "tolerations": [{"key": draw(name), "operator": "Equal", "value": draw(mostly(name, hostile_text))}],
        "containers": [
            {
                "name": draw(name),
                "image": draw(mostly(name.map(lambda n: f"registry.example/{n}:1"), hostile_text)),
                "resources": {"requests": {"cpu": draw(quantity), "memory": draw(quantity)}},
            }
        ],
    }


@st.composite
def pod(draw: st.DrawFn) -> dict[str, Any]:
    owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": draw(name), "uid": "o", "controller": True}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "p",
            "namespace": "default",
            "uid": "u",
            "labels": draw(labels),
            "ownerReferences": [owner],
        },
        "spec": draw(pod_spec()),
        "status": {
            "phase": "Pending",
            "conditions": [
                {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": draw(hostile_text)}
            ],
            "containerStatuses": [{"name": "c", "state": {"waiting": {"reason": "X", "message": draw(hostile_text)}}}],
        },
    }


@st.composite
def cluster(draw: st.DrawFn) -> list[dict[str, Any]]:
    items = [draw(node(i)) for i in range(draw(st.integers(1, 3)))]
    items.append(draw(pod()))
    items.append(
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": "e", "namespace": "default"},
            "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default", "uid": "u"},
            "reason": "FailedScheduling",
            "message": draw(hostile_text),
        }
    )
    items.append({"apiVersion": "v1", "kind": "Odd" + draw(hostile_text), "metadata": {"name": draw(name)}})
    # Noise, now and then: a field replaced by any JSON value.
    for _ in range(draw(mostly(st.just(0), st.integers(1, 2)))):
        target: Any = draw(st.sampled_from(items))
        keys = st.sampled_from(["metadata", "spec", "status", "name", "labels", "containers"])
        path = draw(st.lists(keys, min_size=1, max_size=3))
        for key in path[:-1]:
            if not isinstance(target, dict) or not isinstance(target.get(key), dict):
                break
            target = target[key]
        else:
            if isinstance(target, dict):
                target[path[-1]] = draw(json_value)
    return items


@st.composite
def deployment(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": draw(name), "namespace": "default", "labels": draw(labels)},
        "spec": {
            "replicas": draw(st.integers(0, 4)),
            "selector": {"matchLabels": {"app": "a"}},
            "template": {"metadata": {"labels": {"app": "a"}}, "spec": draw(pod_spec())},
        },
    }


def _serialised(items: list[dict[str, Any]], fmt: str) -> bytes:
    doc = {"apiVersion": "v1", "kind": "List", "items": items}
    if fmt == "json":
        return json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogatepass")
    return yaml.safe_dump(doc, allow_unicode=True).encode("utf-8", "surrogatepass")


def _bytes_mutated(data: bytes, at: int, insert: bytes) -> bytes:
    at = at % (len(data) + 1)
    return data[:at] + insert + data[at:]


def _bounded(run: Any) -> Any:
    """RUN's result, its allocations' peak within MEMORY_BOUND."""
    tracemalloc.start()
    try:
        result = run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak <= MEMORY_BOUND, f"allocated {peak:,} bytes at once"
    return result


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    items=cluster(),
    fmt=st.sampled_from(["json", "yaml"]),
    mutation=st.one_of(st.none(), st.tuples(st.integers(0, 1 << 20), st.binary(min_size=1, max_size=8))),
    manifests=st.booleans(),
)
def test_the_decoder_reads_hostile_documents_or_says_why_in_one_line(
    items: list[dict[str, Any]], fmt: str, mutation: tuple[int, bytes] | None, manifests: bool
) -> None:
    data = _serialised(items, fmt)
    if mutation is not None:
        data = _bytes_mutated(data, *mutation)

    def read() -> str | None:
        try:
            decode(data, f"fuzz.{fmt}", manifests=manifests)
        except (PodwhyError, ModelError) as exc:
            return str(exc.message)
        return None

    message = _bounded(read)
    event("decoded" if message is None else "refused")
    if message is not None:
        assert "\n" not in message and not RAW.search(message), repr(message)


COMMANDS = {
    "explain": [["-v"], ["-o", "wide", "-v"], ["--node", "n0"], ["-o", "json"], ["-o", "yaml"], ["-o", "markdown"]],
    "pending": [["-A"], ["-A", "-o", "wide"], ["-A", "-o", "json"], ["-A", "-o", "yaml"], ["-A", "-o", "markdown"]],
    "check": [[], ["-o", "wide"], ["-o", "json"], ["-o", "yaml"], ["-o", "markdown"]],
}
RUNS = [(command, options) for command, optionses in COMMANDS.items() for options in optionses]


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(items=cluster(), manifest=deployment(), fmt=st.sampled_from(["json", "yaml"]), run=st.sampled_from(RUNS))
def test_every_renderer_shows_hostile_clusters_safely(
    items: list[dict[str, Any]],
    manifest: dict[str, Any],
    fmt: str,
    run: tuple[str, list[str]],
    tmp_path: Path,
) -> None:
    command, options = run
    dump = tmp_path / f"dump.{fmt}"
    dump.write_bytes(_serialised(items, fmt))
    args = [command, "--from", str(dump), *options]
    junit = tmp_path / "junit.xml"
    junit.unlink(missing_ok=True)
    if command == "explain":
        args.insert(1, "p")
    elif command == "check":
        manifests = tmp_path / "deploy.yaml"
        manifests.write_bytes(yaml.safe_dump(manifest, allow_unicode=True).encode("utf-8", "surrogatepass"))
        args += ["-f", str(manifests), "--junit", str(junit)]

    result = _bounded(lambda: CliRunner().invoke(app, args, env={"COLUMNS": "100", "NO_COLOR": "1"}))
    out, err = result.stdout, result.stderr
    event(f"{command}: exit {result.exit_code}")
    assert result.exit_code in (0, 1, 2, 3), (result.exit_code, err, result.exception)
    assert "Traceback" not in out + err and "internal error" not in err, err
    if result.exit_code in (2, 3) and not out:
        assert err.count("\n") == 1 and err.startswith("podwhy: error: "), err
    shown = out.replace("\n", "").replace("\t", "") if "json" in options or "yaml" in options else out
    assert not RAW.search(shown), repr(RAW.search(shown))
    assert not RAW.search(err.replace("\n", "")), repr(err)
    if "json" in options and out:
        json.loads(out)
    if "yaml" in options and out:
        yaml.safe_load(out)
    if junit.exists():
        data = junit.read_bytes()
        assert ET.fromstring(data).tag == "testsuites"  # strict: a character XML 1.0 excludes fails here
        assert not RAW.search(data.decode()[data.index(b"?>") + 2 :].replace("\n", ""))


def test_the_generators_reach_every_outcome() -> None:
    """Examples are worth little if none is explained: the generated clusters reach a report, an
    error, and a decode that succeeds (run once with a fixed example each)."""
    valid = [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0"}, "status": {"allocatable": {"cpu": "4"}}},
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default", "uid": "u"},
            "spec": {"containers": [{"name": "c", "image": "\x1b]52;c;eA==\x07"}]},
        },
    ]
    assert msgspec.json.decode(_serialised(valid, "json"))["items"][1]["metadata"]["name"] == "p"
    decoded = decode(_serialised(valid, "yaml"), "fuzz.yaml")
    assert [p.metadata.name for p in decoded.objects["Pod"]] == ["p"]
