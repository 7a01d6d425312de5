"""ValidateAdmissibility's LimitRange bounds: pkg/util/limitrange (Summarize, ValidatePodSpec) and
pkg/workload/resources.go's ValidateLimitRange, ported from limitrange_test.go (TestSummarize,
TestValidatePodSpec) and resources_test.go (TestValidateLimitRange) of Kueue v0.20."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import msgspec
import pytest

from podwhy.cluster.kueue.blockers import limit_range_blocker, limit_range_bounds
from podwhy.cluster.kueue.names import MSG_LIMIT_RANGE_ABOVE_MAX, MSG_LIMIT_RANGE_BELOW_MIN
from podwhy.model import objects as o

PATH = "spec.podSets[0].template.spec"


def _lr(kind: str, **values: dict[str, str]) -> o.LimitRange:
    return msgspec.convert({"metadata": {"name": "lr"}, "spec": {"limits": [{"type": kind, **values}]}}, o.LimitRange)


def _container(**requests: str) -> dict[str, Any]:
    return {"name": "c", "resources": {"requests": requests}}


def _spec(data: dict[str, Any]) -> o.PodSpec:
    return msgspec.convert(data, o.PodSpec)


# TestValidatePodSpec's podSpec.
POD_SPEC = _spec(
    {
        "containers": [
            {
                "name": "a",
                "resources": {"requests": {"cpu": "1", "memory": "2Gi", "example.com/mainContainerGpu": "2"}},
            },
            {"name": "b", "resources": {"requests": {"cpu": "1.5", "example.com/gpu": "2"}}},
        ],
        "initContainers": [
            {"name": "i", "resources": {"requests": {"cpu": "4", "memory": "2Gi"}}},
            {
                "name": "j",
                "resources": {"requests": {"cpu": "1.5", "example.com/gpu": "2", "example.com/initContainerGpu": "2"}},
            },
        ],
        "overhead": {"cpu": "1", "memory": "1Gi", "example.com/gpu": "1"},
    }
)


def _err(where: str, names: str, message: str) -> str:
    return f"{where}: Invalid value: {names}: {message}"


@pytest.mark.parametrize(
    ("ranges", "spec", "want"),
    [
        pytest.param([], POD_SPEC, [], id="empty"),
        pytest.param(
            [_lr("Container", max={"example.com/initContainerGpu": "1"})],
            POD_SPEC,
            [_err(f"{PATH}.initContainers[1]", '["example.com/initContainerGpu"]', MSG_LIMIT_RANGE_ABOVE_MAX)],
            id="init container over",
        ),
        pytest.param(
            [_lr("Container", min={"example.com/initContainerGpu": "3"})],
            POD_SPEC,
            [_err(f"{PATH}.initContainers[1]", '["example.com/initContainerGpu"]', MSG_LIMIT_RANGE_BELOW_MIN)],
            id="init container under",
        ),
        pytest.param(
            [_lr("Container", max={"example.com/mainContainerGpu": "1"})],
            POD_SPEC,
            [_err(f"{PATH}.containers[0]", '["example.com/mainContainerGpu"]', MSG_LIMIT_RANGE_ABOVE_MAX)],
            id="container over",
        ),
        pytest.param(
            [_lr("Container", min={"example.com/mainContainerGpu": "3"})],
            POD_SPEC,
            [_err(f"{PATH}.containers[0]", '["example.com/mainContainerGpu"]', MSG_LIMIT_RANGE_BELOW_MIN)],
            id="container under",
        ),
        pytest.param(
            [_lr("Pod", max={"cpu": "4"})], POD_SPEC, [_err(PATH, '["cpu"]', MSG_LIMIT_RANGE_ABOVE_MAX)], id="pod over"
        ),
        pytest.param(
            [_lr("Pod", min={"cpu": "6"})], POD_SPEC, [_err(PATH, '["cpu"]', MSG_LIMIT_RANGE_BELOW_MIN)], id="pod under"
        ),
        pytest.param(
            [
                _lr("Pod", max={"cpu": "4"}),
                _lr("Container", min={"example.com/mainContainerGpu": "3"}),
                _lr("Container", max={"example.com/initContainerGpu": "1"}),
            ],
            POD_SPEC,
            [
                _err(f"{PATH}.initContainers[1]", '["example.com/initContainerGpu"]', MSG_LIMIT_RANGE_ABOVE_MAX),
                _err(f"{PATH}.containers[0]", '["example.com/mainContainerGpu"]', MSG_LIMIT_RANGE_BELOW_MIN),
                _err(PATH, '["cpu"]', MSG_LIMIT_RANGE_ABOVE_MAX),
            ],
            id="multiple",
        ),
        pytest.param(
            [
                _lr("Pod", max={"cpu": "5"}),
                _lr("Container", min={"example.com/mainContainerGpu": "1"}),
                _lr("Container", max={"example.com/initContainerGpu": "2"}),
            ],
            POD_SPEC,
            [],
            id="multiple valid",
        ),
        pytest.param(
            [_lr("Container", min={"example.com/mainContainerGpu": "3"})],
            _spec({"containers": [_container(**{"example.com/mainContainerGpu": "0"})]}),
            [_err(f"{PATH}.containers[0]", '["example.com/mainContainerGpu"]', MSG_LIMIT_RANGE_BELOW_MIN)],
            id="container under with explicit zero",
        ),
        pytest.param(
            [_lr("Pod", min={"cpu": "6"})],
            _spec({"containers": [_container(cpu="0")]}),
            [_err(PATH, '["cpu"]', MSG_LIMIT_RANGE_BELOW_MIN)],
            id="pod under with explicit zero",
        ),
    ],
)
def test_validate_pod_spec(ranges: list[o.LimitRange], spec: o.PodSpec, want: list[str]) -> None:
    """TestValidatePodSpec: init containers, then containers, then the pod; several aggregated."""
    got = limit_range_blocker([spec], ranges)
    if not want:
        assert got is None
        return
    joined = want[0] if len(want) == 1 else "[" + ", ".join(want) + "]"
    assert got == f"resources didn't satisfy LimitRange constraints: {joined}"


def test_summarize_keeps_the_lowest_max_and_the_highest_min() -> None:
    """TestSummarize 'limits': Max the lowest of each resource, Min the highest, by limit type."""
    summary = limit_range_bounds(
        [
            _lr("Pod", max={"cpu": "2"}, min={"cpu": "500m", "memory": "1Gi"}, maxLimitRequestRatio={"cpu": "2"}),
            _lr("Pod", max={"memory": "2Gi"}, min={"cpu": "1"}, maxLimitRequestRatio={"cpu": "500m"}),
        ]
    )
    high, low = summary["Pod"]
    assert high == {"cpu": Fraction(2), "memory": Fraction(2 * 2**30)}
    assert low == {"cpu": Fraction(1), "memory": Fraction(2**30)}
    assert limit_range_bounds([]) == {}


@pytest.mark.parametrize(
    ("ranges", "want"),
    [
        pytest.param([_lr("Pod", max={"cpu": "1000m"})], None, id="valid case with LimitRange"),
        pytest.param([], None, id="valid case without LimitRange"),
    ],
)
def test_validate_limit_range_two_pod_sets(ranges: list[o.LimitRange], want: str | None) -> None:
    """TestValidateLimitRange: each pod set checked on its own (300m and 200m under a 1 CPU max)."""
    specs = [_spec({"containers": [_container(cpu="300m")]}), _spec({"containers": [_container(cpu="200m")]})]
    assert limit_range_blocker(specs, ranges) is want


def test_validate_limit_range_counts_a_sidecar() -> None:
    """TestValidateLimitRange "pod doesn't satisfy LimitRange constraints": a sidecar's 300m with
    the container's 300m is 600m of the pod, over a 500m Pod max."""
    spec = _spec(
        {
            "containers": [_container(cpu="300m")],
            "initContainers": [{"name": "s", "restartPolicy": "Always", "resources": {"requests": {"cpu": "300m"}}}],
        }
    )
    assert limit_range_blocker([spec], [_lr("Pod", max={"cpu": "500m"})]) == (
        f'resources didn\'t satisfy LimitRange constraints: {PATH}: Invalid value: ["cpu"]: {MSG_LIMIT_RANGE_ABOVE_MAX}'
    )


def test_limits_count_against_the_container_max() -> None:
    """validatePodSpecContainers: the larger of request and limit against the max, the smaller
    against the min."""
    spec = _spec({"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "3"}}}]})
    assert limit_range_blocker([spec], [_lr("Container", max={"cpu": "2"})]) is not None
    assert limit_range_blocker([spec], [_lr("Container", min={"cpu": "1"})]) is None
    assert limit_range_blocker([spec], [_lr("Container", min={"cpu": "2"})]) is not None
