"""explain's first screen says what blocks the pod, one line per cause, with the numbers the Filter
plugins computed (analysis/blocking.py, report/words/blocking.py): one small cluster per kind."""

from __future__ import annotations

import io
from dataclasses import dataclass

import msgspec
import pytest
from rich.console import Console

from podwhy.model import objects as o
from podwhy.report.build.explain import build_report
from podwhy.report.model import Report
from podwhy.report.render.explain import render_table
from podwhy.report.render.markdown import cell, render_explain
from podwhy.scheduler.cycle import run_cycle
from tests.builders import make_node, make_pod, make_snapshot


@dataclass(frozen=True)
class Case:
    name: str
    objects: tuple[msgspec.Struct, ...]
    pod: o.Pod
    lines: tuple[str, ...]


def _used(node: str, cpu: str, name: str | None = None) -> o.Pod:
    return make_pod(name or f"used-{node}").node(node).req(cpu=cpu).phase("Running").obj()


CACHE_AFFINITY = {
    "podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "kubernetes.io/hostname"}
        ]
    }
}

CASES = [
    Case(
        "cpu: every node too small",
        (
            make_node("worker-a1").alloc(cpu="4").obj(),
            make_node("worker-a2").alloc(cpu="4").obj(),
            make_node("worker-a3").alloc(cpu="2").obj(),
            _used("worker-a1", "2600m"),
            _used("worker-a2", "3"),
            _used("worker-a3", "1500m"),
        ),
        make_pod("web", "shop").req(cpu="2").obj(),
        ("needs cpu 2; the most free on any node is 1400m (worker-a1); 3 nodes are too small",),
    ),
    Case(
        "memory: some nodes too small, another tainted",
        (
            make_node("small-1").alloc(cpu="4", memory="2Gi").obj(),
            make_node("small-2").alloc(cpu="4", memory="1Gi").obj(),
            make_node("gpu-a1").alloc(cpu="4", memory="64Gi").taint("dedicated", "gpu").obj(),
        ),
        make_pod("web", "shop").req(memory="4Gi").obj(),
        (
            "needs memory 4Gi; 2 nodes (small-1, small-2) are too small: the most free of them is 2Gi (small-1)",
            "taint `dedicated=gpu:NoSchedule` on gpu-a1 is not tolerated",
        ),
    ),
    Case(
        "taint on several nodes",
        tuple(make_node(f"gpu-a{i}").taint("dedicated", "gpu").obj() for i in range(1, 6)),
        make_pod("web", "shop").obj(),
        ("taint `dedicated=gpu:NoSchedule` on 5 nodes (gpu-a1, gpu-a2, gpu-a3 and 2 more) is not tolerated",),
    ),
    Case(
        "topology key no node has",
        (make_node("n1").zone("a").obj(), make_node("n2").zone("b").obj()),
        make_pod("web", "shop")
        .labels(app="web")
        .spread(1, "kubernetes.io/hostname", when="ScheduleAnyway", selector={"matchLabels": {"app": "web"}})
        .spread(1, "zone", selector={"matchLabels": {"app": "web"}})
        .obj(),
        (
            "no node has the label `zone` that topologySpreadConstraints[1].topologyKey names "
            "(nodes have topology.kubernetes.io/zone)",
        ),
    ),
    Case(
        "extended resource no node advertises",
        (make_node("n1").obj(), make_node("n2").obj()),
        make_pod("web", "shop").req({"example.com/dongle": "1"}).obj(),
        ("no node advertises `example.com/dongle` (is its device plugin running?)",),
    ),
    Case(
        "pod affinity nothing matches",
        (make_node("n1").obj(), make_node("n2").obj(), make_pod("db", "shop").labels(app="db").node("n1").obj()),
        make_pod("web", "shop").labels(app="web").affinity(CACHE_AFFINITY).obj(),
        ("no pod matches the required pod affinity `app=cache` in namespace shop",),
    ),
    Case(
        "topology keys some nodes lack",
        (make_node("n1").zone("a").obj(), make_node("n2").obj()),
        make_pod("web", "shop")
        .labels(app="web")
        .spread(1, "topology.kubernetes.io/zone", selector={"matchLabels": {"app": "web"}})
        .spread(1, "rack", selector={"matchLabels": {"app": "web"}})
        .obj(),
        (
            "n1 lacks the label `rack` that topologySpreadConstraints[1].topologyKey names",
            "n2 lacks the label `topology.kubernetes.io/zone` that topologySpreadConstraints[0].topologyKey names",
        ),
    ),
    Case(
        "extended resource some nodes advertise, too little",
        (
            make_node("n1").alloc(cpu="4", **{"example.com/dongle": "1"}).obj(),
            make_node("n2").obj(),
            make_node("n3").obj(),
        ),
        make_pod("web", "shop").req({"example.com/dongle": "2"}).obj(),
        (
            "2 nodes (n2, n3) do not advertise `example.com/dongle`",
            "needs example.com/dongle 2; n1 has 1 free",
        ),
    ),
    Case(
        "pod affinity in any namespace",
        (make_node("n1").obj(),),
        make_pod("web", "shop")
        .labels(app="web")
        .affinity(
            {
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "labelSelector": {"matchLabels": {"app": "cache"}},
                            "namespaceSelector": {},
                            "topologyKey": "kubernetes.io/hostname",
                        }
                    ]
                }
            }
        )
        .obj(),
        ("no pod matches the required pod affinity `app=cache` in any namespace",),
    ),
    # The scheduler's message names the selector ("3 node(s) didn't match Pod's node
    # affinity/selector"): a line says so too, and whether fixing it alone would do (issue 34).
    Case(
        "nodeSelector on nodes too small anyway",
        tuple(make_node(f"m5-{i}").alloc(cpu="2").labels(size="m5").obj() for i in range(1, 4)),
        make_pod("web", "shop").req(cpu="3").node_selector(size="c5").obj(),
        (
            "3 nodes (m5-1, m5-2, m5-3) are not `size=c5` (nodeSelector) and are too small anyway",
            "needs cpu 3; the most free on any node is 2 (m5-1); 3 nodes are too small",
        ),
    ),
    Case(
        "required node affinity on one node, the other tainted",
        (make_node("n1").zone("a").obj(), make_node("n2").zone("b").taint("dedicated", "gpu").obj()),
        make_pod("web", "shop")
        .affinity(
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["b"]}
                                ]
                            }
                        ]
                    }
                }
            }
        )
        .obj(),
        (
            "taint `dedicated=gpu:NoSchedule` on n2 is not tolerated",
            "n1 fails the required node affinity (`topology.kubernetes.io/zone In [b]`)",
        ),
    ),
    Case(
        "nodeSelector on nodes each rejected for another reason",
        (
            make_node("small").alloc(cpu="1").obj(),
            make_node("gpu").taint("dedicated", "gpu").obj(),
        ),
        make_pod("web", "shop").req(cpu="2").node_selector(disk="ssd").obj(),
        (
            "2 nodes (small, gpu) are not `disk=ssd` (nodeSelector), and each is rejected for another reason too",
            "taint `dedicated=gpu:NoSchedule` on gpu is not tolerated",
            "needs cpu 2; small has 1 free",
        ),
    ),
    Case(
        "a node fits: nothing blocks",
        (make_node("n1").alloc(cpu="1").obj(), make_node("n2").obj()),
        make_pod("web", "shop").req(cpu="2").obj(),
        (),
    ),
]


def _report(case: Case) -> Report:
    snapshot = make_snapshot(*case.objects)
    return build_report(run_cycle(snapshot, case.pod), snapshot)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_cause_is_one_line_with_the_plugins_numbers(case: Case) -> None:
    assert tuple(c.text for c in _report(case).causes) == case.lines


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_lines_follow_the_schedulers_message_on_the_first_screen(case: Case) -> None:
    report = _report(case)
    out = io.StringIO()
    render_table(report, console=Console(file=out, width=300, no_color=True, highlight=False))
    printed = out.getvalue().splitlines()
    assert printed[3 : 3 + len(case.lines)] == [f"  · {line}" for line in case.lines]
    assert [line for line in render_explain(report).splitlines() if line.startswith("- ")] == [
        f"- {cell(line)}" for line in case.lines
    ]


def test_the_causes_are_typed_in_json() -> None:
    report = _report(CASES[0])
    data = msgspec.to_builtins(report)
    assert data["causes"] == [
        {
            "kind": "tooSmall",
            "plugin": "NodeResourcesFit",
            "text": report.causes[0].text,
            "nodes": ["worker-a1", "worker-a2", "worker-a3"],
            "resource": "cpu",
            "unit": "millicores",
            "requested": 2000,
            "mostFree": 1400,
            "mostFreeNode": "worker-a1",
            "everyNode": True,
            "topConsumers": [{"pod": "default/used-worker-a1", "requested": 2600}],
        }
    ]
