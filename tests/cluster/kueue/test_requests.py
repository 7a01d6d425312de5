"""A Workload's requests as Kueue counts them, after Kueue's pkg/workload/workload_test.go TestNewInfo
(pending and admitted Workloads, reclaimable pods, excluded resources, transformations) and
resources_test.go TestAdjustResources (RuntimeClass overhead, LimitRange defaults, limits as
requests)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from podwhy.cluster.kueue import names
from podwhy.cluster.kueue.requests import (
    REPLACE,
    RETAIN,
    PodSetRequests,
    RequestOptions,
    ResourceTransformation,
    adjusted_pod_spec,
    admitted_requests,
    pod_set_requests,
)
from podwhy.cluster.kueue.resources import MAX_INT64
from podwhy.model import objects as o
from tests.cluster.kueue.builders import pod_set, workload

KI, MI = 1024, 2**20


def _status(assignments: list[dict[str, Any]], reclaimable: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "conditions": [{"type": "QuotaReserved", "status": "True"}],
        "admission": {"clusterQueue": "foo", "podSetAssignments": assignments},
        "reclaimablePods": reclaimable or [],
    }


def _assignment(count: int, cpu: str, memory: str) -> dict[str, Any]:
    return {
        "name": "main",
        "count": count,
        "flavors": {"cpu": "f1", "memory": "f1"},
        "resourceUsage": {"cpu": cpu, "memory": memory},
    }


F1 = {"cpu": "f1", "memory": "f1"}

# Upstream TestNewInfo, pending Workloads: (pod sets, reclaimable pods, options, want).
PENDING: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]], RequestOptions, list[PodSetRequests]]] = {
    "pending": (
        [pod_set(requests={"cpu": "10m", "memory": "512Ki"})],
        [],
        RequestOptions(),
        [PodSetRequests("main", 1, {"cpu": 10, "memory": 512 * KI})],
    ),
    "negative request floored to zero in total requests": (
        [pod_set(count=2, requests={"cpu": "-10m", "memory": "512Ki"})],
        [],
        RequestOptions(),
        [PodSetRequests("main", 2, {"cpu": 0, "memory": 2 * 512 * KI})],
    ),
    "pending with reclaim; reclaimablePods on": (
        [pod_set(count=5, requests={"cpu": "10m", "memory": "512Ki"})],
        [{"name": "main", "count": 2}],
        RequestOptions(),
        [PodSetRequests("main", 3, {"cpu": 3 * 10, "memory": 3 * 512 * KI})],
    ),
    "pending with reclaim; reclaimablePods off": (
        [pod_set(count=5, requests={"cpu": "10m", "memory": "512Ki"})],
        [{"name": "main", "count": 2}],
        RequestOptions(gates={names.RECLAIMABLE_PODS: False}),
        [PodSetRequests("main", 5, {"cpu": 5 * 10, "memory": 5 * 512 * KI})],
    ),
    "prevent int overflow in total requests": (
        [pod_set(count=2147483647, requests={"cpu": "4300000"})],
        [],
        RequestOptions(),
        [PodSetRequests("main", 2147483647, {"cpu": MAX_INT64})],
    ),
    "filterResources": (
        [pod_set(requests={"cpu": "10m", "memory": "512Ki", "networking.example.com/vpc1": "1"})],
        [],
        RequestOptions(excluded_resource_prefixes=("dummyPrefix", "networking.example.com/")),
        [PodSetRequests("main", 1, {"cpu": 10, "memory": 512 * KI})],
    ),
    "transformResources": (
        [
            pod_set("a", 1, {"nvidia.com/mig-1g.5gb": "2", "nvidia.com/mig-2g.10gb": "1", "cpu": "1"}),
            pod_set("b", 2, {"nvidia.com/gpu": "1", "cpu": "2"}),
            pod_set("c", 1, {"nvidia.com/vgpu": "2", "nvidia.com/vgpucores": "20", "nvidia.com/vgpumem": "1024"}),
            pod_set("d", 2, {"nvidia.com/vgpu": "2", "nvidia.com/vgpucores": "30", "nvidia.com/vgpumem": "2048"}),
        ],
        [],
        RequestOptions(
            transformations=(
                ResourceTransformation(
                    "nvidia.com/mig-1g.5gb",
                    {"example.com/accelerator-memory": "5Ki", "example.com/credits": "10"},
                    REPLACE,
                ),
                ResourceTransformation(
                    "nvidia.com/mig-2g.10gb",
                    {"example.com/accelerator-memory": "10Ki", "example.com/credits": "15"},
                    REPLACE,
                ),
                ResourceTransformation(
                    "nvidia.com/gpu", {"example.com/accelerator-memory": "40Ki", "example.com/credits": "100"}, RETAIN
                ),
                ResourceTransformation(
                    "nvidia.com/vgpucores", {"nvidia.com/total-vgpucores": "1"}, REPLACE, "nvidia.com/vgpu"
                ),
                ResourceTransformation(
                    "nvidia.com/vgpumem", {"nvidia.com/total-vgpumem": "1"}, REPLACE, "nvidia.com/vgpu"
                ),
            )
        ),
        [
            PodSetRequests("a", 1, {"cpu": 1000, "example.com/accelerator-memory": 20 * KI, "example.com/credits": 35}),
            PodSetRequests(
                "b",
                2,
                {
                    "cpu": 4000,
                    "example.com/accelerator-memory": 80 * KI,
                    "example.com/credits": 200,
                    "nvidia.com/gpu": 2,
                },
            ),
            PodSetRequests(
                "c", 1, {"nvidia.com/vgpu": 2, "nvidia.com/total-vgpucores": 40, "nvidia.com/total-vgpumem": 2048}
            ),
            PodSetRequests(
                "d", 2, {"nvidia.com/vgpu": 4, "nvidia.com/total-vgpucores": 120, "nvidia.com/total-vgpumem": 8192}
            ),
        ],
    ),
    "transformRetainWithMultiplyBy": (
        [pod_set("a", 1, {"example.com/gpumem": "1024", "example.com/gpu": "2"})],
        [],
        RequestOptions(
            transformations=(
                ResourceTransformation(
                    "example.com/gpumem", {"example.com/gpumem-quota": "1"}, RETAIN, "example.com/gpu"
                ),
            )
        ),
        [PodSetRequests("a", 1, {"example.com/gpumem": 1024, "example.com/gpumem-quota": 2048, "example.com/gpu": 2})],
    ),
    "transformRetainWithMultiplyByUnderOne": (
        [pod_set("a", 1, {"example.com/gpumem": "1024", "cpu": "500m"})],
        [],
        RequestOptions(
            transformations=(
                ResourceTransformation("example.com/gpumem", {"example.com/gpumem-quota": "1"}, multiply_by="cpu"),
            )
        ),
        [PodSetRequests("a", 1, {"example.com/gpumem": 1024, "example.com/gpumem-quota": 512, "cpu": 500})],
    ),
    "transformAllowanceDoesNotReachADirectRequest": (
        [pod_set("a", 1, {"example.com/gpu": "8", "example.com/credit": "3"})],
        [],
        RequestOptions(
            transformations=(ResourceTransformation("example.com/credit", {"example.com/gpu": "-1"}, REPLACE),)
        ),
        [PodSetRequests("a", 1, {"example.com/gpu": 8})],
    ),
    "transformOutputSharingANameWithARequestIsAdded": (
        [pod_set("a", 1, {"example.com/gpu": "1", "example.com/credit": "1"})],
        [],
        RequestOptions(
            transformations=(ResourceTransformation("example.com/credit", {"example.com/gpu": "1"}, REPLACE),)
        ),
        [PodSetRequests("a", 1, {"example.com/gpu": 2})],
    ),
    "transformOutputSharingANameWithItsRetainedInputIsAdded": (
        [pod_set("a", 1, {"example.com/gpu": "1"})],
        [],
        RequestOptions(transformations=(ResourceTransformation("example.com/gpu", {"example.com/gpu": "5"}, RETAIN),)),
        [PodSetRequests("a", 1, {"example.com/gpu": 6})],
    ),
    "transformOutputSharingANameWithItsRetainedInputIsAddedToTheAmountRequested": (
        [pod_set("a", 1, {"example.com/gpu": "1", "example.com/node": "2"})],
        [],
        RequestOptions(
            transformations=(
                ResourceTransformation("example.com/gpu", {"example.com/gpu": "1"}, RETAIN, "example.com/node"),
            )
        ),
        [PodSetRequests("a", 1, {"example.com/gpu": 3, "example.com/node": 2})],
    ),
    "transformProductPastTheRangeIsNotFlooredAway": (
        [pod_set("a", 1, {"example.com/credit": "10000000000"})],
        [],
        RequestOptions(
            transformations=(ResourceTransformation("example.com/credit", {"example.com/gpu": "10000000000"}, REPLACE),)
        ),
        [PodSetRequests("a", 1, {"example.com/gpu": MAX_INT64})],
    ),
    "transformMilliValues": (
        [pod_set("main", 1, {"cpu": "100m", "memory": "100M"})],
        [],
        RequestOptions(
            transformations=(
                ResourceTransformation("cpu", {"example.com/cpu-credits": "3000"}, REPLACE),
                ResourceTransformation("memory", {"example.com/memory-credits": "3m"}, REPLACE),
            )
        ),
        [PodSetRequests("main", 1, {"example.com/cpu-credits": 300, "example.com/memory-credits": 300_000})],
    ),
}
_ALLOWANCE = (
    ResourceTransformation(
        "nvidia.com/gpumem", {"quota.example.com/gpu-memory-overage": "1"}, REPLACE, "nvidia.com/gpu"
    ),
    ResourceTransformation("nvidia.com/gpu", {"quota.example.com/gpu-memory-overage": "-1024"}, RETAIN),
)
for _name, _mem, _overage in (
    ("transformAllowanceAboveIt", "2048", 2048),
    ("transformAllowanceExactlyAtIt", "1024", 0),
    ("transformAllowanceUnderIt", "512", 0),
):
    PENDING[_name] = (
        [pod_set("a", 1, {"nvidia.com/gpumem": _mem, "nvidia.com/gpu": "2"})],
        [],
        RequestOptions(transformations=_ALLOWANCE),
        [PodSetRequests("a", 1, {"quota.example.com/gpu-memory-overage": _overage, "nvidia.com/gpu": 2})],
    )


@pytest.mark.parametrize("name", list(PENDING))
def test_new_info_pending(name: str) -> None:
    """Upstream TestNewInfo: a pending Workload's totalRequestsFromPodSets."""
    pod_sets, reclaimable, options, want = PENDING[name]
    wl = workload("wl", *pod_sets, status={"reclaimablePods": reclaimable})
    assert pod_set_requests(wl, options) == want


# Upstream TestNewInfo, admitted Workloads: (pod sets, status, gates, want).
ADMITTED: dict[str, tuple[list[dict[str, Any]], dict[str, Any], dict[str, bool], list[PodSetRequests]]] = {
    "admitted": (
        [
            pod_set("driver", 1, {"cpu": "10m", "memory": "512Ki"}),
            pod_set("workers", 3, {"cpu": "5m", "memory": "1Mi", "ex.com/gpu": "1"}),
        ],
        _status(
            [
                {
                    "name": "driver",
                    "flavors": {"cpu": "on-demand"},
                    "resourceUsage": {"cpu": "10m", "memory": "512Ki"},
                    "count": 1,
                },
                {"name": "workers", "resourceUsage": {"cpu": "15m", "memory": "3Mi", "ex.com/gpu": "3"}, "count": 3},
            ]
        ),
        {},
        [
            PodSetRequests("driver", 1, {"cpu": 10, "memory": 512 * KI}, {"cpu": "on-demand"}),
            PodSetRequests("workers", 3, {"cpu": 15, "memory": 3 * MI, "ex.com/gpu": 3}),
        ],
    ),
    "admitted with reclaim; reclaimablePods on": (
        [pod_set(count=5, requests={"cpu": "10m", "memory": "10Ki"})],
        _status([_assignment(3, "30m", "30Ki")], [{"name": "main", "count": 2}]),
        {},
        [PodSetRequests("main", 3, {"cpu": 30, "memory": 30 * KI}, F1)],
    ),
    "admitted with reclaim; reclaimablePods off": (
        [pod_set(count=5, requests={"cpu": "10m", "memory": "10Ki"})],
        _status([_assignment(3, "30m", "30Ki")], [{"name": "main", "count": 2}]),
        {names.RECLAIMABLE_PODS: False},
        [PodSetRequests("main", 3, {"cpu": 30, "memory": 30 * KI}, F1)],
    ),
    "admitted with reclaim and increased reclaim": (
        [pod_set(count=5, requests={"cpu": "10m", "memory": "10Ki"})],
        _status([_assignment(3, "30m", "30Ki")], [{"name": "main", "count": 3}]),
        {},
        [PodSetRequests("main", 2, {"cpu": 20, "memory": 20 * KI}, F1)],
    ),
    "admitted with stale reclaim exceeding scaled-down podSet count": (
        [pod_set(count=2, requests={"cpu": "10m", "memory": "10Ki"})],
        _status([_assignment(5, "50m", "50Ki")], [{"name": "main", "count": 5}]),
        {},
        [PodSetRequests("main", 0, {"cpu": 0, "memory": 0}, F1)],
    ),
    "partially admitted": (
        [pod_set(count=5, requests={"cpu": "10m", "memory": "10Ki"})],
        _status([_assignment(3, "30m", "30Ki")]),
        {},
        [PodSetRequests("main", 3, {"cpu": 30, "memory": 30 * KI}, F1)],
    ),
}


@pytest.mark.parametrize("name", list(ADMITTED))
def test_new_info_admitted(name: str) -> None:
    """Upstream TestNewInfo: an admitted Workload's totalRequestsFromAdmission."""
    pod_sets, status, gates, want = ADMITTED[name]
    assert admitted_requests(workload("wl", *pod_sets, status=status), gates) == want


def _spec(body: dict[str, Any]) -> o.PodSpec:
    return msgspec.convert(body, o.PodSpec)


def _requests(spec: o.PodSpec) -> list[dict[str, Any]]:
    return [dict(c.resources.requests) for c in (*spec.init_containers, *spec.containers)]


def test_adjust_resources_runtime_class() -> None:
    """Upstream TestAdjustResources "Handle runtimeClass with podOverHead": the RuntimeClass's
    overhead where the spec names it and has none; a missing class or a set overhead stays."""
    rc = msgspec.convert(
        {"metadata": {"name": "runtime-a"}, "overhead": {"podFixed": {"cpu": "1", "memory": "1Ki"}}}, o.RuntimeClass
    )
    options = RequestOptions(runtime_classes={"runtime-a": rc})
    own = {"cpu": "2", "memory": "2Ki"}
    cases = [
        ({"runtimeClassName": "runtime-a"}, {"cpu": "1", "memory": "1Ki"}),
        ({}, {}),
        ({"runtimeClassName": "runtime-a", "overhead": own}, own),
        ({"runtimeClassName": "runtime-d"}, {}),
        ({"runtimeClassName": "runtime-e", "overhead": own}, own),
    ]
    for body, want in cases:
        assert adjusted_pod_spec(_spec({"containers": [{"name": "c"}], **body}), options).overhead == want


def test_adjust_resources_container_limit_range() -> None:
    """Upstream TestAdjustResources "Handle container limit range": default limits and requests
    for every container, a container's own values kept."""
    lr = msgspec.convert(
        {
            "spec": {
                "limits": [
                    {
                        "type": "Container",
                        "default": {"cpu": "4"},
                        "defaultRequest": {"cpu": "3"},
                        "max": {"cpu": "5"},
                        "min": {"cpu": "2"},
                    }
                ]
            }
        },
        o.LimitRange,
    )
    options = RequestOptions(limit_ranges=[lr])
    init = [{"name": "init"}]
    a = adjusted_pod_spec(_spec({"initContainers": init, "containers": [{"name": "c"}]}), options)
    assert [dict(c.resources.limits) for c in (*a.init_containers, *a.containers)] == [{"cpu": "4"}, {"cpu": "4"}]
    assert _requests(a) == [{"cpu": "3"}, {"cpu": "3"}]
    b = adjusted_pod_spec(
        _spec({"initContainers": init, "containers": [{"name": "c", "resources": {"limits": {"cpu": "6"}}}]}), options
    )
    assert dict(b.containers[0].resources.limits) == {"cpu": "6"} and _requests(b)[1] == {"cpu": "3"}
    c = adjusted_pod_spec(
        _spec({"initContainers": init, "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}), options
    )
    assert dict(c.containers[0].resources.limits) == {"cpu": "4"} and _requests(c)[1] == {"cpu": "1"}


def test_adjust_resources_pod_limit_range() -> None:
    """Upstream TestAdjustResources "Handle pod limit range" and "... pod-level resources with pod
    limit range": pod defaults apply to pod-level resources only, where set."""
    lr = msgspec.convert(
        {
            "spec": {
                "limits": [
                    {
                        "type": "Pod",
                        "default": {"cpu": "4", "memory": "1Gi"},
                        "defaultRequest": {"cpu": "3", "memory": "512Mi"},
                    }
                ]
            }
        },
        o.LimitRange,
    )
    options = RequestOptions(limit_ranges=[lr])
    plain = adjusted_pod_spec(_spec({"containers": [{"name": "c"}]}), options)
    assert plain.resources is None
    a = adjusted_pod_spec(_spec({"containers": [{"name": "c"}], "resources": {"limits": {"memory": "2Gi"}}}), options)
    assert a.resources is not None
    assert dict(a.resources.limits) == {"memory": "2Gi", "cpu": "4"}
    assert dict(a.resources.requests) == {"cpu": "3", "memory": "512Mi"}
    b = adjusted_pod_spec(
        _spec({"containers": [{"name": "c"}], "resources": {"limits": {"cpu": "6"}, "requests": {"cpu": "1"}}}), options
    )
    assert b.resources is not None
    assert dict(b.resources.limits) == {"cpu": "6", "memory": "1Gi"}
    assert dict(b.resources.requests) == {"cpu": "1", "memory": "512Mi"}


def test_adjust_resources_limits_to_requests() -> None:
    """Upstream TestAdjustResources "Apply limits to requests" and "Apply pod-level limits to
    requests": a limit without a request is the request, in containers and at the pod level."""
    spec = adjusted_pod_spec(
        _spec(
            {
                "initContainers": [{"name": "i", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}],
                "containers": [
                    {"name": "c", "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "3", "memory": "1Gi"}}}
                ],
                "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "3", "memory": "1Gi"}},
            }
        )
    )
    assert _requests(spec) == [{"cpu": "1", "memory": "1Gi"}, {"cpu": "2", "memory": "1Gi"}]
    assert spec.resources is not None and dict(spec.resources.requests) == {"cpu": "2", "memory": "1Gi"}
    wl = workload(
        "wl", pod_set(requests={}, spec={"containers": [{"name": "c", "resources": {"limits": {"cpu": "1"}}}]})
    )
    assert pod_set_requests(wl) == [PodSetRequests("main", 1, {"cpu": 1000})]
