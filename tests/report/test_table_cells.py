"""explain's verdict table in a user's words: plain column headers (plugin names with -o wide),
and a short "why not" cell per group of nodes with the group's numbers (report/words/cells.py).
One small cluster per kind of rejection."""

from __future__ import annotations

import io
from dataclasses import dataclass

import msgspec
import pytest
from rich.console import Console
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.model import objects as o
from podwhy.plugins import names
from podwhy.report.build.explain import build_report
from podwhy.report.model import Report
from podwhy.report.render.explain import render_table
from podwhy.report.words.cells import COLUMN_WORDS, short_amount
from podwhy.scheduler.cycle import run_cycle
from tests.builders import make_node, make_pod, make_snapshot
from tests.paths import REPO


@dataclass(frozen=True)
class Case:
    name: str
    objects: tuple[msgspec.Struct, ...]
    pod: o.Pod
    # The short cell of each row, in the table's order (groups of identical verdicts).
    cells: tuple[str, ...]


def _used(node: str, name: str, **requests: str) -> o.Pod:
    return make_pod(name).node(node).req(**requests).phase("Running").obj()


CASES = [
    Case(
        "cpu: a group's free room as a range",
        (
            make_node("a1").alloc(cpu="4").obj(),
            make_node("a2").alloc(cpu="4").obj(),
            _used("a1", "u1", cpu="2600m"),
            _used("a2", "u2", cpu="3100m"),
        ),
        make_pod("web").req(cpu="2").obj(),
        ("cpu: needs 2, free 900m–1400m",),
    ),
    Case(
        "memory beyond a node's allocatable, in its largest unit",
        (make_node("small").alloc(cpu="4", memory="3892564Ki").obj(),),
        make_pod("web").req(memory="4Gi").obj(),
        ("memory: needs 4Gi, has 3.7Gi in all",),
    ),
    Case(
        "an extended resource no node advertises",
        (make_node("n1").alloc(cpu="4").obj(),),
        make_pod("web").req({"example.com/dongle": "1"}).obj(),
        ("example.com/dongle: needs 1, not advertised",),
    ),
    Case(
        "taints of a group, each named",
        (
            make_node("gpu-1").alloc(cpu="4").taint("nvidia.com/gpu", "present").obj(),
            make_node("gpu-2").alloc(cpu="4").taint("nvidia.com/gpu", "present").obj(),
            make_node("cordoned").alloc(cpu="4").unschedulable().obj(),
        ),
        make_pod("web").req(cpu="1").obj(),
        (
            "taint nvidia.com/gpu=present:NoSchedule not tolerated",
            "cordoned",
        ),
    ),
    Case(
        "a nodeSelector label the node lacks or has otherwise",
        (
            make_node("n1").alloc(cpu="4").labels(disk="hdd").obj(),
            make_node("n2").alloc(cpu="4").obj(),
        ),
        make_pod("web").node_selector(disk="ssd").obj(),
        # One group (the same reason on both), each node's fact said.
        ("label disk=hdd, nodeSelector wants ssd\nno label disk (nodeSelector wants ssd)",),
    ),
]


def _report(case: Case) -> Report:
    snapshot = make_snapshot(*case.objects)
    return build_report(run_cycle(snapshot, case.pod), snapshot)


def _table(report: Report, wide: bool = False) -> str:
    out = io.StringIO()
    render_table(report, wide=wide, console=Console(file=out, width=200, no_color=True, highlight=False))
    return out.getvalue()


def _cells(table: str) -> list[str]:
    """The last column of each body row of the table, its wrapped lines joined by newlines."""
    rows: list[list[str]] = []
    body = False
    for line in table.splitlines():
        if line.startswith("┡"):
            body = True
        elif body and line.startswith("│"):
            text = line.rstrip().rstrip("│").rsplit("│", 1)[1].strip()
            if line.split("│")[1].strip() and not line.split("│")[1].startswith(" ("):
                rows.append([text])
            elif text:
                rows[-1].append(text)
        elif body and line.startswith("└"):
            break
    return ["\n".join(row) for row in rows]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_group_says_why_in_short_with_its_numbers(case: Case) -> None:
    assert tuple(_cells(_table(_report(case)))) == case.cells


def test_headers_are_plain_words_and_wide_keeps_the_plugin_names() -> None:
    report = _report(CASES[3])
    plain, wide = _table(report), _table(report, wide=True)
    header = next(line for line in plain.splitlines() if "Nodes" in line)
    assert "Taints" in header and "Room" in header and "NodeResourcesFit" not in plain
    assert "TaintToleration: node(s) had untolerated taint(s)" in wide
    wide_header = next(line for line in wide.splitlines() if "Nodes" in line)
    assert "NodeResourcesFit" in wide_header and "TaintToleration" in wide_header


def test_every_filter_and_score_plugin_has_plain_words() -> None:
    plugins = {
        value for key, value in vars(names).items() if key.isupper() and isinstance(value, str) and value[:1].isupper()
    }
    for plugin in COLUMN_WORDS:
        assert plugin in plugins
    assert all(len(line) <= len("conflict") for words in COLUMN_WORDS.values() for line in words.split("\n"))


@pytest.mark.parametrize(
    ("resource", "amount", "said"),
    [
        ("cpu", 1400, "1400m"),
        ("cpu", 2000, "2"),
        ("memory", 4 * 1024**3, "4Gi"),
        ("memory", 3892564 * 1024, "3.7Gi"),
        ("memory", 3659092 * 1024, "3.4Gi"),
        ("memory", 1536 * 1024**2 + 1, "1.5Gi"),
        ("memory", 512 * 1024**2, "512Mi"),
        ("memory", 1000, "1000"),
        ("example.com/dongle", 3, "3"),
    ],
)
def test_amounts_in_a_cell(resource: str, amount: int, said: str) -> None:
    assert short_amount(resource, amount) == said


def test_a_request_rounds_up_what_is_free_rounds_down() -> None:
    assert short_amount("memory", 1536 * 1024**2 + 1, up=True) == "1.6Gi"
    assert short_amount("memory", 1536 * 1024**2 + 1) == "1.5Gi"
    assert short_amount("memory", 2 * 1024**3, up=True) == "2Gi"


def test_what_the_autoscaling_section_cannot_vouch_for_is_said_once() -> None:
    example = REPO / "fixtures" / "examples" / "shop-cluster.yaml"
    args = ["explain", "shop/checkout-7c9d8b6f5-m4x2q", "--from", str(example)]
    out = CliRunner().invoke(app, args, env={"COLUMNS": "300", "NO_COLOR": "1"}).stdout
    assert out.count("cluster-autoscaler-status") == 1, out
    assert "Autoscaling: not evaluated: the snapshot holds no Cluster Autoscaler status" in out
    command = "kubectl get configmap -n kube-system cluster-autoscaler-status -o yaml"
    assert f"  ? add them to the dump:\n    {command}\n" in out
