"""NodeResourcesFit scoring strategies and NodeResourcesBalancedAllocation, after upstream's
least_allocated_test.go, most_allocated_test.go, requested_to_capacity_ratio_test.go and
balanced_allocation_test.go."""

from __future__ import annotations

import re
from typing import Any

import pytest
from msgspec import UNSET

from podwhy.errors import PodwhyError
from podwhy.framework.evidence import NodeScoreEvidence, ResourceScoreEvidence, ShapePoint
from podwhy.framework.interface import CycleState, Plugin
from podwhy.framework.plugin_args import NodeResourcesFitArgs, decode_plugin_args
from podwhy.framework.status import Code
from podwhy.framework.types import PodInfo
from podwhy.model import objects as o
from podwhy.plugins.helper.shape_score import (
    FunctionShapePoint,
    build_broken_linear_function,
    evaluate_broken_linear,
    trunc_div,
)
from podwhy.plugins.noderesources.balanced_allocation import BalancedAllocation
from podwhy.plugins.noderesources.fit import Fit
from podwhy.plugins.noderesources.requested_to_capacity_ratio import go_round
from podwhy.plugins.noderesources.resource_allocation import wrap_int64
from tests.builders import make_handle, make_node, make_pod
from tests.plugin_args import with_args

GPU = "nvidia.com/gpu"
FOO = "intel.com/foo"
MI = 1024 * 1024
GI = 1024 * MI

Res = dict[str, Any]


def res(cpu: int | None = None, mem: int | None = None, **scalars: int) -> Res:
    """A requests list: cpu in millicores, memory in bytes; None leaves the key out, 0 sets it to zero."""
    out: Res = {}
    if cpu is not None:
        out["cpu"] = f"{cpu}m"
    if mem is not None:
        out["memory"] = str(mem)
    for key, amount in scalars.items():
        out[key.replace("__", "/").replace("_", ".")] = str(amount)
    return out


def pod_of(
    *containers: Res,
    name: str = "pod",
    node_name: str = "",
    overhead: Res | None = None,
    pod_level: Res | None = None,
) -> o.Pod:
    """Containers c0, c1, ... with these requests; with none given the pod has no containers at all
    (no non-zero stand-ins), unlike the builder's default container."""
    builder = make_pod(name)
    for requests in containers:
        builder.req(requests)
    if node_name:
        builder.node(node_name)
    if overhead:
        builder.overhead(**overhead)
    if pod_level:
        builder.pod_requests(**pod_level)
    pod = builder.obj()
    if not containers:
        pod.spec.containers = []
    return pod


def sized_node(name: str, milli_cpu: int, memory: int, **scalars: int) -> o.Node:
    return make_node(name).alloc({"cpu": f"{milli_cpu}m", "memory": str(memory), **res(**scalars)}).obj()


def run_scores(
    plugin_cls: type[Plugin],
    args: dict[str, Any],
    pod: o.Pod,
    nodes: list[o.Node],
    pods: list[o.Pod] | None = None,
    pre_score: bool = True,
) -> tuple[Code, list[int]]:
    """PreScore (optionally) then Score on every node; the PreScore code and the scores in node order."""
    handle = make_handle(*nodes, *(pods or []))
    plugin = with_args(plugin_cls, handle, args)
    state = CycleState()
    pod_info = PodInfo(pod)
    code = Code.Success
    if pre_score:
        status = plugin.pre_score(state, pod_info, handle.node_infos)
        code = status.code
        if status.is_skip():
            return code, []
    scores: list[int] = []
    for node_info in handle.node_infos:
        score, status = plugin.score(state, pod_info, node_info)
        assert status.is_success(), status
        scores.append(score)
    return code, scores


def fit_args(
    strategy: str, resources: list[tuple[str, int]] | None = None, shape: list[tuple[int, int]] | None = None
) -> dict[str, Any]:
    scoring: dict[str, Any] = {"type": strategy}
    if resources is not None:
        scoring["resources"] = [{"name": n, "weight": w} for n, w in resources]
    if shape is not None:
        scoring["requestedToCapacityRatio"] = {"shape": [{"utilization": u, "score": s} for u, s in shape]}
    return {"scoringStrategy": scoring}


# Upstream's test nodes are sized in whole cores; millicores keep the same ratios.
CORES = 1000
TWO_CONTAINERS = (res(1000 * CORES, 2000), res(2000 * CORES, 3000))


# ------------------------------------------------------------------ LeastAllocated

LEAST_CASES = [
    pytest.param(
        pod_of(),
        [sized_node("n1", 4000 * CORES, 10000), sized_node("n2", 4000 * CORES, 10000)],
        [],
        None,
        [100, 100],
        id="nothing scheduled, nothing requested (no containers: no non-zero stand-ins)",
    ),
    pytest.param(
        pod_of(*TWO_CONTAINERS),
        [sized_node("n1", 4000 * CORES, 10000), sized_node("n2", 6000 * CORES, 10000)],
        [],
        None,
        [37, 50],
        id="resources requested, differently sized nodes",
    ),
    pytest.param(
        pod_of(),
        [sized_node("n1", 10000 * CORES, 20000), sized_node("n2", 10000 * CORES, 20000)],
        [
            pod_of(res(3000 * CORES, 0), name="a", node_name="n1"),
            pod_of(res(3000 * CORES, 0), name="b", node_name="n1"),
            pod_of(res(3000 * CORES, 0), name="c", node_name="n2"),
            pod_of(res(3000 * CORES, 5000), name="d", node_name="n2"),
        ],
        None,
        [70, 57],
        id="no resources requested, pods scheduled with resources (explicit zero memory stays zero)",
    ),
    pytest.param(
        pod_of(*TWO_CONTAINERS),
        [sized_node("n1", 10000 * CORES, 20000), sized_node("n2", 10000 * CORES, 50000)],
        [
            pod_of(res(3000 * CORES, 0), name="a", node_name="n1"),
            pod_of(res(3000 * CORES, 5000), name="b", node_name="n2"),
        ],
        None,
        [57, 60],
        id="resources requested, pods scheduled, differently sized nodes",
    ),
    pytest.param(
        pod_of(res(3000 * CORES, 0)),
        [sized_node("n1", 4000 * CORES, 10000), sized_node("n2", 4000 * CORES, 10000)],
        [
            pod_of(res(3000 * CORES, 0), name="a", node_name="n1"),
            pod_of(res(3000 * CORES, 5000), name="b", node_name="n2"),
        ],
        None,
        [50, 25],
        id="requested resources exceed node capacity",
    ),
    pytest.param(
        pod_of(),
        [sized_node("n1", 0, 0), sized_node("n2", 0, 0)],
        [pod_of(res(3000 * CORES, 5000), name="a", node_name="n1")],
        None,
        [0, 0],
        id="zero node resources",
    ),
    pytest.param(
        pod_of(*TWO_CONTAINERS),
        [sized_node("n1", 4000 * CORES, 10000), sized_node("n2", 6000 * CORES, 10000)],
        [],
        [("memory", 2), ("cpu", 1)],
        [41, 50],
        id="different weights on cpu and memory",
    ),
    pytest.param(
        pod_of(*TWO_CONTAINERS),
        [sized_node("n1", 6000 * CORES, 10000), sized_node("n2", 6000 * CORES, 10000, intel_com__foo=4)],
        [],
        [("cpu", 1), ("memory", 1), (FOO, 1)],
        [50, 50],
        id="extended resource bypassed when the pod does not request it",
    ),
    pytest.param(
        pod_of(res(1000 * CORES, 2000), res(2000 * CORES, 3000, intel_com__foo=2)),
        [
            sized_node("n1", 6000 * CORES, 10000, intel_com__foo=4),
            sized_node("n2", 6000 * CORES, 10000, intel_com__foo=10),
        ],
        [],
        [("cpu", 1), ("memory", 1), (FOO, 1)],
        [50, 60],
        id="extended resource honoured when the pod requests it",
    ),
    pytest.param(
        pod_of(res(1000 * CORES, 2000), res(2000 * CORES, 3000, intel_com__foo=2)),
        [sized_node("n1", 6000 * CORES, 10000), sized_node("n2", 6000 * CORES, 10000, intel_com__foo=10)],
        [],
        [("cpu", 1), ("memory", 1), (FOO, 1)],
        [50, 60],
        id="extended resource omitted on a node that does not have it",
    ),
    pytest.param(
        pod_of(res()),
        [sized_node("n1", 4000, 16 * GI), sized_node("n2", 4000, 16 * GI)],
        [pod_of(res(), name="a", node_name="n1")],
        None,
        # n1: cpu (4000-200)*100/4000 = 95, memory (16Gi-400Mi)*100/16Gi = 97 -> 96
        # n2: cpu 97, memory 98 -> 97
        [96, 97],
        id="non-zero stand-ins for missing requests, on the pod and on the node",
    ),
    pytest.param(
        pod_of(res(), pod_level={"cpu": "2"}),
        [sized_node("n1", 4000, 16 * GI)],
        [],
        None,
        # Pod-level requests are not used by the scoring strategies: cpu 97, memory 98.
        [97],
        id="pod-level resources ignored by the Fit scorer",
    ),
    pytest.param(
        pod_of(res(), overhead={"cpu": "1"}),
        [sized_node("n1", 4000, 16 * GI)],
        [],
        None,
        # cpu (4000-1100)*100/4000 = 72, memory 98 -> 85
        [85],
        id="overhead counts toward the pod's request",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "pods", "resources", "want"), LEAST_CASES)
def test_least_allocated(
    pod: o.Pod, nodes: list[o.Node], pods: list[o.Pod], resources: list[tuple[str, int]] | None, want: list[int]
) -> None:
    code, scores = run_scores(Fit, fit_args("LeastAllocated", resources), pod, nodes, pods)
    assert code == Code.Success
    assert scores == want


def test_default_strategy_is_least_allocated() -> None:
    pod = pod_of(*TWO_CONTAINERS)
    nodes = [sized_node("n1", 4000 * CORES, 10000), sized_node("n2", 6000 * CORES, 10000)]
    assert run_scores(Fit, {}, pod, nodes) == (Code.Success, [37, 50])


def test_fit_score_without_pre_score_recomputes_the_request() -> None:
    pod = pod_of(*TWO_CONTAINERS)
    nodes = [sized_node("n1", 4000 * CORES, 10000), sized_node("n2", 6000 * CORES, 10000)]
    assert run_scores(Fit, {}, pod, nodes, pre_score=False)[1] == [37, 50]


# ------------------------------------------------------------------ MostAllocated

MOST_CASES = [
    pytest.param(
        pod_of(),
        [sized_node("n1", 4000 * CORES, 10000), sized_node("n2", 4000 * CORES, 10000)],
        [],
        None,
        [0, 0],
        id="nothing scheduled, nothing requested",
    ),
    pytest.param(
        pod_of(*TWO_CONTAINERS),
        [sized_node("n1", 4000 * CORES, 10000), sized_node("n2", 6000 * CORES, 10000)],
        [],
        None,
        # n1: cpu 75, memory 50 -> 62; n2: 50, 50 -> 50
        [62, 50],
        id="resources requested, differently sized nodes",
    ),
    pytest.param(
        pod_of(res(3000 * CORES, 0)),
        [sized_node("n1", 4000 * CORES, 10000), sized_node("n2", 4000 * CORES, 10000)],
        [
            pod_of(res(3000 * CORES, 0), name="a", node_name="n1"),
            pod_of(res(3000 * CORES, 5000), name="b", node_name="n2"),
        ],
        None,
        # requested cpu 6000 > 4000 counts as full: n1 (100 + 0) / 2, n2 (100 + 50) / 2
        [50, 75],
        id="requested resources exceed node capacity",
    ),
    pytest.param(
        pod_of(*TWO_CONTAINERS),
        [sized_node("n1", 4000 * CORES, 10000), sized_node("n2", 6000 * CORES, 10000)],
        [],
        [("memory", 2), ("cpu", 1)],
        # n1: (50*2 + 75) / 3 = 58; n2: 50
        [58, 50],
        id="different weights on cpu and memory",
    ),
    pytest.param(
        pod_of(res(1000 * CORES, 2000), res(2000 * CORES, 3000, intel_com__foo=2)),
        [
            sized_node("n1", 6000 * CORES, 10000, intel_com__foo=4),
            sized_node("n2", 6000 * CORES, 10000, intel_com__foo=10),
        ],
        [],
        [("cpu", 1), ("memory", 1), (FOO, 1)],
        # n1: (50 + 50 + 50) / 3 = 50; n2: (50 + 50 + 20) / 3 = 40
        [50, 40],
        id="extended resource honoured when the pod requests it",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "pods", "resources", "want"), MOST_CASES)
def test_most_allocated(
    pod: o.Pod, nodes: list[o.Node], pods: list[o.Pod], resources: list[tuple[str, int]] | None, want: list[int]
) -> None:
    assert run_scores(Fit, fit_args("MostAllocated", resources), pod, nodes, pods) == (Code.Success, want)


# ------------------------------------------------------- RequestedToCapacityRatio

DESCENDING = [(0, 10), (100, 0)]

RATIO_CASES = [
    pytest.param(
        pod_of(),
        [sized_node("n1", 4000 * CORES, 10000), sized_node("n2", 4000 * CORES, 10000)],
        [pod_of(name="a", node_name="n1"), pod_of(name="b", node_name="n1")],
        None,
        DESCENDING,
        [100, 100],
        id="nothing requested: least requested nodes first",
    ),
    pytest.param(
        pod_of(*TWO_CONTAINERS),
        [sized_node("n1", 4000 * CORES, 10000), sized_node("n2", 6000 * CORES, 10000)],
        [],
        None,
        DESCENDING,
        # n1: cpu 75% -> 25, memory 50% -> 50, round(37.5) = 38 (half away from zero)
        [38, 50],
        id="differently sized nodes, mean rounded half away from zero",
    ),
    pytest.param(
        pod_of(),
        [sized_node("n1", 4000, 10 * GI, intel_com__foo=8), sized_node("n2", 4000, 10 * GI, intel_com__foo=4)],
        [],
        [(FOO, 1)],
        [(0, 0), (100, 1)],
        [0, 0],
        id="single extended resource, nothing requested",
    ),
    pytest.param(
        pod_of(res(intel_com__foo=2)),
        [sized_node("n1", 4000, 10 * GI, intel_com__foo=8), sized_node("n2", 4000, 10 * GI, intel_com__foo=4)],
        [],
        [(FOO, 1)],
        [(0, 0), (100, 1)],
        # 25% -> 10*25/100 = 2; 50% -> 5
        [2, 5],
        id="single extended resource requested",
    ),
    pytest.param(
        pod_of(res(intel_com__foo=2)),
        [sized_node("n1", 4000, 10 * GI, intel_com__foo=8), sized_node("n2", 4000, 10 * GI, intel_com__foo=4)],
        [pod_of(res(intel_com__foo=4), name="a", node_name="n2")],
        [(FOO, 1)],
        [(0, 0), (100, 1)],
        # n2: 6 of 4 is over capacity -> utilization 100 -> 10
        [2, 10],
        id="single extended resource over capacity",
    ),
    pytest.param(
        pod_of(res(intel_com__foo=2, intel_com__bar=2)),
        [
            sized_node("n1", 4000, 10 * GI, intel_com__foo=8, intel_com__bar=4),
            sized_node("n2", 4000, 10 * GI, intel_com__foo=4, intel_com__bar=8),
        ],
        [],
        [(FOO, 3), ("intel.com/bar", 5)],
        [(0, 0), (100, 1)],
        # n1: foo 25% -> 2, bar 50% -> 5: round((6 + 25) / 8) = 4; n2: round((15 + 10) / 8) = 3
        [4, 3],
        id="two extended resources with weights",
    ),
    pytest.param(
        pod_of(res(0, 5000)),
        [sized_node("n1", 4000, 10000)],
        [],
        None,
        [(0, 0), (100, 10)],
        # cpu scores 0 and is left out of the mean: 50, not 25
        [50],
        id="zero resource score not counted in the mean",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "pods", "resources", "shape", "want"), RATIO_CASES)
def test_requested_to_capacity_ratio(
    pod: o.Pod,
    nodes: list[o.Node],
    pods: list[o.Pod],
    resources: list[tuple[str, int]] | None,
    shape: list[tuple[int, int]],
    want: list[int],
) -> None:
    args = fit_args("RequestedToCapacityRatio", resources, shape)
    assert run_scores(Fit, args, pod, nodes, pods) == (Code.Success, want)


# ---------------------------------------------------------------- shape function


@pytest.mark.parametrize(
    ("points", "assertions"),
    [
        pytest.param(
            [(10, 1), (90, 9)],
            [
                (-10, 1),
                (0, 1),
                (9, 1),
                (10, 1),
                (15, 1),
                (19, 1),
                (20, 2),
                (89, 8),
                (90, 9),
                (99, 9),
                (100, 9),
                (110, 9),
            ],
            id="rising",
        ),
        pytest.param(
            [(0, 2), (40, 10), (100, 0)],
            [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0), (110, 0)],
            id="rising then falling",
        ),
        pytest.param(
            [(0, 2), (40, 2), (100, 2)],
            [(-10, 2), (0, 2), (20, 2), (40, 2), (70, 2), (100, 2), (110, 2)],
            id="flat",
        ),
        pytest.param(
            # -100*10/30 = -33.3 truncates toward zero to -33, not down to -34.
            [(0, 100), (30, 0)],
            [(10, 67), (20, 34), (30, 0)],
            id="falling segment truncates toward zero",
        ),
    ],
)
def test_broken_linear_function(points: list[tuple[int, int]], assertions: list[tuple[int, int]]) -> None:
    function = build_broken_linear_function([FunctionShapePoint(u, s) for u, s in points])
    assert [(p, function(p)) for p, _ in assertions] == assertions


def test_interpolation_reports_its_segment() -> None:
    shape = [FunctionShapePoint(0, 20), FunctionShapePoint(40, 100), FunctionShapePoint(100, 0)]
    point = evaluate_broken_linear(shape, 70)
    assert (point.score, point.lower, point.upper) == (50, shape[1], shape[2])
    clamped = evaluate_broken_linear(shape, 120)
    assert (clamped.score, clamped.lower, clamped.upper) == (0, shape[2], shape[2])


@pytest.mark.parametrize(
    ("numerator", "denominator", "want"), [(7, 2, 3), (-7, 2, -3), (7, -2, -3), (-7, -2, 3), (0, 5, 0)]
)
def test_trunc_div(numerator: int, denominator: int, want: int) -> None:
    assert trunc_div(numerator, denominator) == want


@pytest.mark.parametrize(
    ("number", "want"), [(0.5, 1), (1.5, 2), (2.5, 3), (2.4999, 2), (37.5, 38), (-0.5, -1), (-2.5, -3), (0.0, 0)]
)
def test_go_round(number: float, want: int) -> None:
    assert go_round(number) == want


def test_wrap_int64() -> None:
    assert wrap_int64((1 << 63) - 1) == (1 << 63) - 1
    assert wrap_int64(1 << 63) == -(1 << 63)


# --------------------------------------------------------------- BalancedAllocation

CPU_AND_MEMORY = (res(1000, 2000), res(2000, 3000))
CPU_ONLY = (res(1000, 0), res(2000, 0))
CPU_MEMORY_GPU = (res(1000, 2000), res(2000, 3000, nvidia_com__gpu=3))
WITH_GPU = {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": GPU, "weight": 1}]}

BALANCED_CASES = [
    pytest.param(
        pod_of(*CPU_AND_MEMORY),
        [sized_node("n1", 4000, 10000), sized_node("n2", 6000, 10000)],
        [],
        {},
        [87, 100],
        id="nothing scheduled, resources requested, differently sized nodes",
    ),
    pytest.param(
        pod_of(*CPU_AND_MEMORY),
        [sized_node("n1", 10000, 20000), sized_node("n2", 10000, 20000)],
        [pod_of(*CPU_ONLY, name="a", node_name="n1"), pod_of(*CPU_AND_MEMORY, name="b", node_name="n2")],
        {},
        [82, 95],
        id="resources requested, pods scheduled with resources",
    ),
    pytest.param(
        pod_of(*CPU_AND_MEMORY),
        [sized_node("n1", 10000, 20000), sized_node("n2", 10000, 50000)],
        [pod_of(*CPU_ONLY, name="a", node_name="n1"), pod_of(*CPU_AND_MEMORY, name="b", node_name="n2")],
        {},
        [82, 80],
        id="pods scheduled with resources, differently sized nodes",
    ),
    pytest.param(
        pod_of(*CPU_ONLY),
        [sized_node("n1", 6000, 10000), sized_node("n2", 6000, 10000)],
        [pod_of(*CPU_ONLY, name="a", node_name="n1"), pod_of(*CPU_AND_MEMORY, name="b", node_name="n2")],
        {},
        [50, 75],
        id="requested resources at node capacity",
    ),
    pytest.param(
        pod_of(res(mem=0, nvidia_com__gpu=1)),
        [sized_node("n1", 3500, 40000, nvidia_com__gpu=8), sized_node("n2", 3500, 40000, nvidia_com__gpu=8)],
        [pod_of(*CPU_MEMORY_GPU, name="a", node_name="n1"), pod_of(*CPU_AND_MEMORY, name="b", node_name="n2")],
        WITH_GPU,
        # three fractions: population standard deviation
        [70, 65],
        id="scalar resource included",
    ),
    pytest.param(
        pod_of(*CPU_AND_MEMORY),
        [sized_node("n1", 3500, 40000, nvidia_com__gpu=8), sized_node("n2", 3500, 40000)],
        [],
        WITH_GPU,
        [63, 63],
        id="scalar resource the pod does not request is skipped",
    ),
    pytest.param(
        pod_of(res(2000, 0)),
        [sized_node("n1", 1000, 10000)],
        [],
        {},
        # cpu fraction 2 is capped at 1: std 0.5
        [50],
        id="fraction capped at one",
    ),
    pytest.param(
        pod_of(res(), pod_level={"cpu": "2", "memory": str(4 * GI)}),
        [sized_node("n1", 4000, 8 * GI), sized_node("n2", 8000, 8 * GI)],
        [],
        {},
        # pod-level requests count here (unlike the Fit scorer); n2: fractions 0.25 and 0.5
        [100, 87],
        id="pod-level resources used",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "pods", "args", "want"), BALANCED_CASES)
def test_balanced_allocation(
    pod: o.Pod, nodes: list[o.Node], pods: list[o.Pod], args: dict[str, Any], want: list[int]
) -> None:
    assert run_scores(BalancedAllocation, args, pod, nodes, pods) == (Code.Success, want)


def test_balanced_allocation_without_pre_score() -> None:
    nodes = [sized_node("n1", 10000, 20000), sized_node("n2", 10000, 20000)]
    pods = [pod_of(*CPU_ONLY, name="a", node_name="n1"), pod_of(*CPU_AND_MEMORY, name="b", node_name="n2")]
    assert run_scores(BalancedAllocation, {}, pod_of(*CPU_AND_MEMORY), nodes, pods, pre_score=False)[1] == [82, 95]


@pytest.mark.parametrize(
    ("pod", "want"),
    [
        pytest.param(pod_of(), Code.Skip, id="no containers"),
        pytest.param(pod_of(res()), Code.Skip, id="best-effort container: no non-zero stand-ins here"),
        pytest.param(pod_of(res(mem=0, nvidia_com__gpu=1)), Code.Skip, id="requests only unconfigured resources"),
        pytest.param(pod_of(res(), overhead={"cpu": "250m"}), Code.Success, id="overhead is a request"),
        pytest.param(pod_of(res(cpu=1)), Code.Success, id="any configured request"),
    ],
)
def test_balanced_allocation_pre_score_skip(pod: o.Pod, want: Code) -> None:
    code, _ = run_scores(BalancedAllocation, {}, pod, [sized_node("n1", 4000, 10000)])
    assert code == want


def test_balanced_allocation_without_pre_score_best_effort_scores_zero() -> None:
    _, scores = run_scores(BalancedAllocation, {}, pod_of(res()), [sized_node("n1", 4000, 10000)], pre_score=False)
    assert scores == [0]


def test_fit_pre_score_never_skips() -> None:
    code, scores = run_scores(Fit, {}, pod_of(), [sized_node("n1", 4000, 10000)])
    assert (code, scores) == (Code.Success, [100])


# ------------------------------------------------------------------------- args


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        pytest.param(None, [("cpu", 1), ("memory", 1)], id="unset"),
        pytest.param([], [("cpu", 1), ("memory", 1)], id="empty"),
        pytest.param(
            [{"name": "cpu"}, {"name": GPU, "weight": 0}, {"name": "memory", "weight": 3}],
            [("cpu", 1), (GPU, 1), ("memory", 3)],
            id="zero or missing weight is 1",
        ),
    ],
)
def test_scoring_resources_defaulting(raw: Any, want: list[tuple[str, int]]) -> None:
    args = decode_plugin_args(NodeResourcesFitArgs, {"scoringStrategy": {"type": "LeastAllocated", "resources": raw}})
    assert [(r.name, r.weight) for r in args.scoring_strategy.resources] == want


# --------------------------------------------------------------------- evidence


def _evidence(
    plugin_cls: type[Plugin], args: dict[str, Any], pod: o.Pod, node: o.Node
) -> tuple[list[ResourceScoreEvidence], NodeScoreEvidence]:
    """Per configured resource its evidence, then the node's."""
    handle = make_handle(node)
    plugin = with_args(plugin_cls, handle, args)
    state = CycleState()
    plugin.pre_score(state, PodInfo(pod), handle.node_infos)
    _, status = plugin.score(state, PodInfo(pod), handle.node_infos[0])
    *per_resource, summary = status.evidence
    lines = [e for e in per_resource if isinstance(e, ResourceScoreEvidence)]
    assert len(lines) == len(per_resource) and isinstance(summary, NodeScoreEvidence)
    return lines, summary


def test_least_allocated_evidence() -> None:
    pod = pod_of(res(1000, 2 * GI))
    node = sized_node("n1", 4000, 8 * GI)
    (cpu, memory, gpu), summary = _evidence(
        Fit, fit_args("LeastAllocated", [("cpu", 1), ("memory", 1), (GPU, 2)]), pod, node
    )
    assert cpu == ResourceScoreEvidence(
        resource="cpu",
        weight=1,
        pod_request=1000,
        requested=1000,
        allocatable=4000,
        resource_score=75,
        formula="(allocatable - requested) * 100 / allocatable",
    )
    assert memory.resource_score == 75
    assert gpu.omitted == "pod does not request it"
    assert gpu.resource_score is UNSET
    assert summary == NodeScoreEvidence(
        strategy="LeastAllocated", score=75, weighted_sum=150, weight_sum=2, formula="weightedSum / weightSum"
    )


def test_requested_to_capacity_ratio_evidence() -> None:
    pod = pod_of(res(3000, 0))
    node = sized_node("n1", 4000, 8 * GI)
    (cpu, memory), summary = _evidence(
        Fit, fit_args("RequestedToCapacityRatio", None, [(0, 0), (50, 8), (100, 10)]), pod, node
    )
    # 75% lies between (50, 80) and (100, 100): 80 + 20*25/50 = 90
    assert (cpu.utilization, cpu.resource_score) == (75, 90)
    assert cpu.between == [ShapePoint(utilization=50, score=80), ShapePoint(utilization=100, score=100)]
    assert memory.resource_score == 0 and memory.counted_in_mean is False
    assert summary.shape == [
        ShapePoint(utilization=0, score=0),
        ShapePoint(utilization=50, score=80),
        ShapePoint(utilization=100, score=100),
    ]
    assert summary.score == 90


def test_balanced_allocation_evidence() -> None:
    pod = pod_of(res(1000, 2 * GI))
    node = sized_node("n1", 4000, 4 * GI)
    (cpu, memory), summary = _evidence(BalancedAllocation, {}, pod, node)
    assert (cpu.fraction, memory.fraction) == (0.25, 0.5)
    assert (summary.std, summary.score) == (0.125, 87)


@pytest.mark.parametrize(
    ("plugin_cls", "args", "message"),
    [
        pytest.param(
            Fit,
            fit_args("LeastAllocated", [("memory", -1), ("cpu", 1)]),
            "scoringStrategy.resources[0].weight: Invalid value: -1",
            id="negative weight",
        ),
        pytest.param(
            Fit,
            fit_args("MostAllocated", [("memory", 1), ("cpu", 101)]),
            "resource weight of cpu not in valid range (0, 100]",
            id="weight above 100",
        ),
        pytest.param(
            Fit,
            fit_args("RequestedToCapacityRatio", None, []),
            "at least one point must be specified",
            id="ratio without shape",
        ),
        pytest.param(
            Fit,
            fit_args("RequestedToCapacityRatio", None, [(50, 1), (50, 2)]),
            "values must be sorted in increasing order",
            id="shape not increasing",
        ),
        pytest.param(
            Fit,
            fit_args("RequestedToCapacityRatio", None, [(0, 0), (101, 11)]),
            "scoringStrategy.shape[1].score: Invalid value: 11",
            id="shape out of range",
        ),
        pytest.param(
            BalancedAllocation,
            {"resources": [{"name": "cpu", "weight": 2}]},
            "resources[0].weight: Invalid value: 2: must be 1",
            id="balanced weight not 1",
        ),
        pytest.param(
            BalancedAllocation,
            {"resources": [{"name": "cpu"}, {"name": "cpu"}]},
            "resources[1].name: Duplicate value",
            id="balanced duplicate resource",
        ),
    ],
)
def test_invalid_scoring_args(plugin_cls: type[Plugin], args: dict[str, Any], message: str) -> None:
    with pytest.raises(PodwhyError, match=re.escape(message)):
        with_args(plugin_cls, make_handle(), args)
