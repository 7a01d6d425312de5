"""NodeResourcesFit PreFilter + Filter, after the edge cases of upstream's fit_test.go."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from podwhy.errors import PodwhyError
from podwhy.framework.evidence import ResourceEvidence
from podwhy.framework.interface import CycleState
from podwhy.framework.plugin_args import NodeResourcesFitArgs, decode_plugin_args
from podwhy.framework.status import Code, Status
from podwhy.framework.types import PodInfo, calculate_pod_resource
from podwhy.helpers.podresources import pod_requests
from podwhy.model import objects as o
from podwhy.plugins.noderesources.fit import (
    PRE_FILTER_STATE_KEY,
    Fit,
    compute_pod_resource_request,
)
from tests.builders import make_handle, make_node, make_pod, node_info
from tests.plugin_args import with_args

EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
K8S_IO_A = "kubernetes.io/something"
K8S_IO_B = "subdomain.kubernetes.io/something"
HUGEPAGES = "hugepages-2Mi"

Res = dict[str, Any]


def res(cpu: int = 0, mem: int = 0, **scalars: int) -> Res:
    """A requests list: cpu in millicores, memory in bytes, others by name (`**{EXT_A: 1}`)."""
    out: Res = {}
    if cpu:
        out["cpu"] = f"{cpu}m"
    if mem:
        out["memory"] = str(mem)
    for key, amount in scalars.items():
        out[key] = str(amount)
    return out


def pod_of(
    *containers: Res,
    init: list[Res] | None = None,
    sidecars: set[int] | None = None,
    overhead: Res | None = None,
    pod_level: Res | None = None,
    status: dict[str, Any] | None = None,
) -> o.Pod:
    """Containers c0, c1, ... with these requests; init containers (sidecars by index) likewise."""
    builder = make_pod()
    for requests in containers:
        builder.req(requests)
    for i, requests in enumerate(init or []):
        builder.init_req(requests, sidecar=i in (sidecars or set()))
    if overhead:
        builder.overhead(**overhead)
    if pod_level is not None:
        builder.pod_requests(**pod_level)
    if status:
        builder.status(**status)
    return builder.obj()


# Upstream's test node: cpu 10m, memory 20, 32 pods, 5 of example.com/aaa, 20 of
# ephemeral storage, 5 hugepages-2Mi.
def fit_node(
    cpu: int = 10, mem: int = 20, pods: int = 32, ext_a: int = 5, storage: int = 20, hugepages: int = 5
) -> o.Node:
    allocatable = {
        "cpu": f"{cpu}m",
        "memory": str(mem),
        "pods": str(pods),
        EXT_A: str(ext_a),
        "ephemeral-storage": str(storage),
        HUGEPAGES: str(hugepages),
    }
    return make_node("node").alloc(allocatable).obj()


def run(pod: o.Pod, existing: list[o.Pod], node: o.Node | None = None, args: dict[str, Any] | None = None) -> Status:
    node = node or fit_node()
    bound = [msgspec.structs.replace(p, spec=msgspec.structs.replace(p.spec, node_name="node")) for p in existing]
    bound = [
        msgspec.structs.replace(p, metadata=msgspec.structs.replace(p.metadata, name=f"e{i}", uid=f"e{i}"))
        for i, p in enumerate(bound)
    ]
    handle = make_handle(node, *bound)
    plugin = with_args(Fit, handle, args)
    state = CycleState()
    pi = PodInfo(pod)
    result, pre = plugin.pre_filter(state, pi, handle.node_infos)
    assert result is None
    assert pre.code == Code.Success
    return plugin.filter(state, pi, node_info(handle, "node"))


def reasons_of(status: Status) -> tuple[Code, list[str]]:
    return status.code, status.reasons


U, UAU, OK = Code.Unschedulable, Code.UnschedulableAndUnresolvable, Code.Success


@pytest.mark.parametrize(
    ("pod", "existing", "want"),
    [
        pytest.param(pod_of(), [pod_of(res(10, 20))], (OK, []), id="no resources requested always fits"),
        pytest.param(
            pod_of(res(1, 1)),
            [pod_of(res(10, 20))],
            (U, ["Insufficient cpu", "Insufficient memory"]),
            id="too many resources fails",
        ),
        pytest.param(
            pod_of(res(1, 1), init=[res(3, 1), res(2, 1)]),
            [pod_of(res(8, 19))],
            (U, ["Insufficient cpu"]),
            id="highest init container cpu",
        ),
        pytest.param(
            pod_of(res(1, 1), init=[res(1, 3), res(1, 2)]),
            [pod_of(res(9, 19))],
            (U, ["Insufficient memory"]),
            id="highest init container memory",
        ),
        pytest.param(
            pod_of(res(1, 1), init=[res(1, 1), res(1, 1)]),
            [pod_of(res(9, 19))],
            (OK, []),
            id="init containers count as max not sum",
        ),
        pytest.param(pod_of(res(5, 1)), [pod_of(res(5, 19))], (OK, []), id="equal edge case"),
        pytest.param(pod_of(res(4, 1), init=[res(5, 1)]), [pod_of(res(5, 19))], (OK, []), id="equal edge case init"),
        pytest.param(
            pod_of(res(1, 1, **{EXT_A: 10})),
            [pod_of()],
            (UAU, ["Insufficient example.com/aaa"]),
            id="extended resource capacity enforced",
        ),
        pytest.param(
            pod_of(res(1, 1, **{EXT_A: 1})),
            [pod_of(res(**{EXT_A: 5}))],
            (U, ["Insufficient example.com/aaa"]),
            id="extended resource allocatable enforced",
        ),
        pytest.param(
            pod_of(res(1, 1, **{EXT_A: 3}), res(1, 1, **{EXT_A: 3})),
            [pod_of(res(**{EXT_A: 2}))],
            (UAU, ["Insufficient example.com/aaa"]),
            id="extended resource summed over containers",
        ),
        pytest.param(
            pod_of(res(), init=[res(1, 1, **{EXT_A: 3}), res(1, 1, **{EXT_A: 3})]),
            [pod_of(res(**{EXT_A: 2}))],
            (OK, []),
            id="extended resource admits multiple init containers",
        ),
        pytest.param(
            pod_of(res(1, 1, **{EXT_B: 1})),
            [pod_of()],
            (UAU, ["Insufficient example.com/bbb"]),
            id="unknown extended resource",
        ),
        pytest.param(
            pod_of(res(1, 1, **{K8S_IO_A: 1})),
            [pod_of()],
            (UAU, ["Insufficient kubernetes.io/something"]),
            id="kubernetes.io resource capacity enforced",
        ),
        pytest.param(
            pod_of(res(1, 1, **{HUGEPAGES: 10})),
            [pod_of()],
            (UAU, ["Insufficient hugepages-2Mi"]),
            id="hugepages capacity enforced",
        ),
        pytest.param(
            pod_of(res(1, 1, **{HUGEPAGES: 3})),
            [pod_of(res(**{HUGEPAGES: 3}))],
            (U, ["Insufficient hugepages-2Mi"]),
            id="hugepages allocatable enforced",
        ),
        pytest.param(
            pod_of(res(11, 1, **{"example.com/zzz": 1, EXT_B: 1, HUGEPAGES: 1})),
            [pod_of(res(**{HUGEPAGES: 5}))],
            (
                UAU,
                [
                    "Insufficient cpu",
                    "Insufficient example.com/bbb",
                    "Insufficient example.com/zzz",
                    "Insufficient hugepages-2Mi",
                ],
            ),
            id="scalar reasons sorted by name after cpu",
        ),
        pytest.param(
            pod_of(res(2, 1), overhead={"cpu": "4m"}),
            [pod_of(res(5, 1))],
            (U, ["Insufficient cpu"]),
            id="overhead counts",
        ),
        pytest.param(
            pod_of(res(1, 1), pod_level={"cpu": "6m"}),
            [pod_of(res(5, 1))],
            (U, ["Insufficient cpu"]),
            id="pod-level requests override the container sum",
        ),
        pytest.param(
            pod_of(res(1, 1), init=[res(3, 1), res(2, 1)], sidecars={1}),
            [pod_of(res(7, 1))],
            (OK, []),
            id="sidecar after regular init: peak max(3, 2+1)",
        ),
        pytest.param(
            pod_of(res(1, 1), init=[res(2, 1), res(3, 1)], sidecars={0}),
            [pod_of(res(6, 1))],
            (U, ["Insufficient cpu"]),
            id="regular init after sidecar: peak 2+3",
        ),
        pytest.param(
            pod_of(res(1, 1, **{"ephemeral-storage": 25})),
            [pod_of()],
            (UAU, ["Insufficient ephemeral-storage"]),
            id="ephemeral storage exceeds allocatable",
        ),
        pytest.param(
            pod_of(res(1, 1), init=[res(**{"ephemeral-storage": 10})]),
            [pod_of(res(**{"ephemeral-storage": 10}))],
            (OK, []),
            id="ephemeral storage of an init container counts as its max",
        ),
    ],
)
def test_filter(pod: o.Pod, existing: list[o.Pod], want: tuple[Code, list[str]]) -> None:
    assert reasons_of(run(pod, existing)) == want


@pytest.mark.parametrize(
    ("pod", "existing", "want"),
    [
        pytest.param(pod_of(), [pod_of()], (U, ["Too many pods"]), id="no space for an additional pod"),
        pytest.param(
            pod_of(res(1, 1)),
            [pod_of(res(10, 20))],
            (U, ["Too many pods", "Insufficient cpu", "Insufficient memory"]),
            id="too many pods comes first",
        ),
        pytest.param(
            pod_of(res(1, 1, **{EXT_A: 10})),
            [pod_of()],
            (UAU, ["Too many pods", "Insufficient example.com/aaa"]),
            id="too many pods with an unresolvable shortage",
        ),
    ],
)
def test_too_many_pods(pod: o.Pod, existing: list[o.Pod], want: tuple[Code, list[str]]) -> None:
    assert reasons_of(run(pod, existing, fit_node(pods=1))) == want


@pytest.mark.parametrize(
    ("args", "want"),
    [
        pytest.param({}, (UAU, ["Insufficient example.com/bbb"]), id="no ignores"),
        pytest.param({"ignoredResources": [EXT_B]}, (OK, []), id="ignored resource"),
        pytest.param({"ignoredResourceGroups": ["example.com"]}, (OK, []), id="ignored group"),
        pytest.param({"ignoredResourceGroups": ["other.com"]}, (UAU, ["Insufficient example.com/bbb"]), id="other"),
    ],
)
def test_ignored_extended_resources(args: dict[str, Any], want: tuple[Code, list[str]]) -> None:
    pod = pod_of(res(1, 1, **{EXT_B: 1}))
    assert reasons_of(run(pod, [pod_of()], args=args)) == want


@pytest.mark.parametrize(
    "args",
    [{"ignoredResources": [HUGEPAGES]}, {"ignoredResources": [K8S_IO_A]}, {"ignoredResourceGroups": ["kubernetes.io"]}],
)
def test_ignores_apply_only_to_extended_resources(args: dict[str, Any]) -> None:
    pod = pod_of(res(1, 1, **{HUGEPAGES: 10, K8S_IO_A: 1}))
    got = run(pod, [pod_of()], args=args)
    assert reasons_of(got) == (UAU, ["Insufficient hugepages-2Mi", "Insufficient kubernetes.io/something"])


def test_subdomain_kubernetes_io_is_native_not_ignorable() -> None:
    pod = pod_of(res(1, 1, **{K8S_IO_B: 2}))
    got = run(pod, [pod_of()], args={"ignoredResourceGroups": ["subdomain.kubernetes.io"]})
    assert reasons_of(got) == (UAU, [f"Insufficient {K8S_IO_B}"])


def test_zero_request_pod_is_not_skipped_and_fits() -> None:
    handle = make_handle(fit_node())
    plugin = Fit(handle)
    state = CycleState()
    _, status = plugin.pre_filter(state, PodInfo(pod_of()), handle.node_infos)
    assert status.code == Code.Success
    assert state.get(PRE_FILTER_STATE_KEY) is not None
    assert plugin.filter(state, PodInfo(pod_of()), node_info(handle, "node")).code == Code.Success


def test_filter_without_pre_filter_is_an_error() -> None:
    handle = make_handle(fit_node())
    status = Fit(handle).filter(CycleState(), PodInfo(pod_of()), node_info(handle, "node"))
    assert status.code == Code.Error
    assert status.reasons == ['error reading "PreFilterNodeResourcesFit" from cycleState: not found']


def test_evidence_shows_the_arithmetic() -> None:
    status = run(pod_of(res(3, 1)), [pod_of(res(8, 1))])
    assert status.evidence == [
        ResourceEvidence(
            resource="cpu", unit="millicores", requested=3, used=8, allocatable=10, free=2, exceeds_allocatable=False
        )
    ]


RESIZED_STATUS = {
    "conditions": [],
    "containerStatuses": [
        {"name": "c0", "resources": {"requests": {"cpu": "6m"}}, "allocatedResources": {"cpu": "4m"}},
    ],
}


def test_incoming_pod_ignores_status_resources() -> None:
    pod = pod_of(res(2, 1), status=RESIZED_STATUS)
    assert compute_pod_resource_request(pod).milli_cpu == 2


@pytest.mark.parametrize(
    ("conditions", "want_cpu"),
    [
        pytest.param([], 6, id="max of spec, actuated, allocated"),
        pytest.param(
            [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}], 6, id="infeasible resize"
        ),
    ],
)
def test_bound_pod_uses_status_resources(conditions: list[dict[str, str]], want_cpu: int) -> None:
    status = dict(RESIZED_STATUS, conditions=conditions)
    bound = pod_of(res(2, 1), status=status)
    assert calculate_pod_resource(bound).resource.milli_cpu == want_cpu
    # Spec 2m + actuated 6m on the node leaves 4m; the incoming pod asks 5m.
    assert reasons_of(run(pod_of(res(5, 1)), [bound])) == (U, ["Insufficient cpu"])


def test_infeasible_resize_drops_the_spec() -> None:
    status = {
        "conditions": [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}],
        "containerStatuses": [
            {"name": "c0", "resources": {"requests": {"cpu": "2m"}}, "allocatedResources": {"cpu": "3m"}},
        ],
    }
    bound = pod_of(res(9, 1), status=status)
    assert pod_requests(bound)["cpu"] * 1000 == 3
    assert pod_requests(bound, use_status_resources=False)["cpu"] * 1000 == 9


def test_pod_level_hugepages_and_overhead() -> None:
    pod = pod_of(res(1, 1), pod_level={"cpu": "4m", HUGEPAGES: "2"}, overhead={"cpu": "1m", "memory": "2"})
    request = compute_pod_resource_request(pod)
    assert (request.milli_cpu, request.memory, request.scalar_resources) == (5, 3, {HUGEPAGES: 2})


def test_args_defaults() -> None:
    args = decode_plugin_args(NodeResourcesFitArgs, {})
    assert args.ignored_resources == []
    assert args.scoring_strategy.type == "LeastAllocated"
    assert [(r.name, r.weight) for r in args.scoring_strategy.resources] == [("cpu", 1), ("memory", 1)]
    custom = decode_plugin_args(
        NodeResourcesFitArgs,
        {"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "nvidia.com/gpu", "weight": 0}]}},
    )
    assert [(r.name, r.weight) for r in custom.scoring_strategy.resources] == [("nvidia.com/gpu", 1)]
    with pytest.raises(PodwhyError):
        decode_plugin_args(NodeResourcesFitArgs, {"scoringStrategy": {"type": "Nope"}})
