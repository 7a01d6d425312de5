"""-o json|yaml of `explain` written a few entries at a time: the report's `nodes` (an entry per
node, 220 MB of JSON at 65,000 nodes) is never encoded whole.

The rest of the report is encoded with `nodes` empty and its place found: in JSON the line
`  "nodes": []` (only top-level keys are indented by two spaces and followed by a quote), in YAML
the line `nodes: []` (only top-level keys start a line with a letter). The entries are written
there, in JSON ENTRIES_PER_CHUNK at a time (encoded as a list of their own, each line indented
two spaces more), in YAML one at a time (a list of one, which YAML indents as the report's list
of them). The bytes are those of the whole report encoded at once (tests/report/test_node_groups.py
compares them). Each JSON chunk is escaped for a terminal as the whole would be (`json_escaped`:
an escape never spans two chunks, which split between entries); YAML's emitter escapes as it
writes.
"""

from __future__ import annotations

from collections.abc import Iterator

import msgspec

from podwhy.report.model import Report, encode_json, to_builtins
from podwhy.report.safe import json_escaped, yaml_text

_JSON_PLACE = b'\n  "nodes": []'
# Entries encoded at a time: about 0.7 MB of JSON for the gang pod of benchmarks/fleet.py.
ENTRIES_PER_CHUNK = 256
_YAML_PLACE = "\nnodes: []\n"

_encode = msgspec.json.Encoder().encode


def json_chunks(report: Report) -> Iterator[bytes]:
    """REPORT's -o json (`encode_json`, escaped), in chunks, the last ending with a newline."""
    if not report.nodes:
        yield json_escaped(encode_json(report)) + b"\n"
        return
    rest = encode_json(msgspec.structs.replace(report, nodes=[]))
    at = rest.index(_JSON_PLACE)
    yield json_escaped(rest[:at]) + b'\n  "nodes": ['
    nodes = report.nodes
    for start in range(0, len(nodes), ENTRIES_PER_CHUNK):
        # A list of entries formatted on its own: "[\n  {...},\n  {...}\n]", each line two
        # spaces short of where it goes.
        batch = msgspec.json.format(_encode(nodes[start : start + ENTRIES_PER_CHUNK]), indent=2)
        entries = b"  " + batch[2:-2].replace(b"\n", b"\n  ")
        yield (b"\n" if start == 0 else b",\n") + json_escaped(entries)
    yield b"\n  ]" + json_escaped(rest[at + len(_JSON_PLACE) :]) + b"\n"


def yaml_chunks(report: Report) -> Iterator[str]:
    """REPORT's -o yaml (`yaml_text` of its builtins), in chunks."""
    data = to_builtins(msgspec.structs.replace(report, nodes=[]))
    rest = yaml_text(data)
    at = rest.find(_YAML_PLACE) if report.nodes else -1
    if at < 0:
        yield yaml_text(to_builtins(report)) if report.nodes else rest
        return
    yield rest[:at] + "\nnodes:\n"
    for node in report.nodes:
        yield yaml_text([msgspec.to_builtins(node)])
    yield rest[at + len(_YAML_PLACE) :]
