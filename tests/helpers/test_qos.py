"""ComputePodQOS, ported from pkg/apis/core/v1/helper/qos/qos_test.go (TestComputePodQOS, v1.35)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from podwhy.helpers.qos import BEST_EFFORT, BURSTABLE, GUARANTEED, compute_pod_qos
from podwhy.model import objects as o


def _rl(cpu: str, memory: str, **more: str) -> dict[str, str]:
    """getResourceList (and addResource): empty strings leave the resource out."""
    out = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
    out.update({k.replace("_", "-"): v for k, v in more.items()})
    return out


def _c(requests: dict[str, str], limits: dict[str, str]) -> dict[str, Any]:
    return {"name": "c", "resources": {"requests": requests, "limits": limits}}


def _pod(containers: list[dict[str, Any]], init: list[dict[str, Any]] | None = None, pod: Any = None) -> o.Pod:
    spec: dict[str, Any] = {"containers": containers, "initContainers": init or []}
    if pod is not None:
        spec["resources"] = {"requests": pod[0], "limits": pod[1]}
    return msgspec.convert({"metadata": {"name": "p"}, "spec": spec}, o.Pod)


G, B, E = GUARANTEED, BURSTABLE, BEST_EFFORT
CASES = [
    ("guaranteed", _pod([_c(_rl("100m", "100Mi"), _rl("100m", "100Mi"))]), G),
    ("guaranteed-guaranteed", _pod([_c(_rl("100m", "100Mi"), _rl("100m", "100Mi"))] * 2), G),
    ("best-effort-best-effort", _pod([_c({}, {})] * 2), E),
    ("best-effort", _pod([_c({}, {})]), E),
    ("best-effort-burstable", _pod([_c({}, {}), _c(_rl("1", ""), _rl("2", ""))]), B),
    ("best-effort-guaranteed", _pod([_c({}, {}), _c(_rl("10m", "100Mi"), _rl("10m", "100Mi"))]), B),
    ("burstable-cpu-guaranteed-memory", _pod([_c(_rl("", "100Mi"), _rl("", "100Mi"))]), B),
    ("burstable-no-limits", _pod([_c(_rl("100m", "100Mi"), {})]), B),
    (
        "burstable-guaranteed",
        _pod([_c(_rl("1", "100Mi"), _rl("2", "100Mi")), _c(_rl("100m", "100Mi"), _rl("100m", "100Mi"))]),
        B,
    ),
    (
        "burstable-unbounded-but-requests-match-limits",
        _pod([_c(_rl("100m", "100Mi"), _rl("200m", "200Mi")), _c(_rl("100m", "100Mi"), {})]),
        B,
    ),
    ("burstable-1", _pod([_c(_rl("10m", "100Mi"), _rl("100m", "200Mi"))]), B),
    ("burstable-2", _pod([_c(_rl("0", "0"), _rl("100m", "200Mi"))]), B),
    (
        "best-effort-hugepages",
        _pod([_c(_rl("0", "0", hugepages_2Mi="1Gi"), _rl("0", "0", hugepages_2Mi="1Gi"))]),
        E,
    ),
    ("init-container", _pod([_c({}, {})], init=[_c(_rl("10m", "100Mi"), _rl("100m", "200Mi"))]), B),
    (
        "pod-level guaranteed, best-effort container",
        _pod([_c({}, {})], pod=(_rl("10m", "100Mi"), _rl("10m", "100Mi"))),
        G,
    ),
    (
        "pod-level guaranteed, burstable container",
        _pod([_c(_rl("3m", "10Mi"), _rl("5m", "20Mi"))], pod=(_rl("10m", "100Mi"), _rl("10m", "100Mi"))),
        G,
    ),
    ("pod-level burstable", _pod([_c({}, {})], pod=(_rl("10m", "10Mi"), _rl("20m", "50Mi"))), B),
    (
        "pod-level burstable, guaranteed container",
        _pod([_c(_rl("5m", "10Mi"), _rl("5m", "10Mi"))], pod=(_rl("10m", "10Mi"), _rl("20m", "50Mi"))),
        B,
    ),
    ("pod-level requests only", _pod([_c(_rl("5m", "10Mi"), {})], pod=(_rl("10m", "10Mi"), {})), B),
    (
        "pod-level cpu limit only",
        _pod(
            [_c(_rl("5m", "10Mi"), {}), _c(_rl("5m", "10Mi"), _rl("5m", "10Mi"))],
            pod=(_rl("10m", "10Mi"), _rl("5m", "")),
        ),
        B,
    ),
]


@pytest.mark.parametrize(("name", "pod", "want"), CASES, ids=[c[0] for c in CASES])
def test_compute_pod_qos(name: str, pod: o.Pod, want: str) -> None:
    assert compute_pod_qos(pod) == want


def test_pod_level_resources_ignored_when_the_gate_is_off() -> None:
    """Without PodLevelResources the containers decide: a best-effort container is BestEffort."""
    pod = _pod([_c({}, {})], pod=(_rl("10m", "100Mi"), _rl("10m", "100Mi")))
    assert compute_pod_qos(pod, pod_level_resources=False) == BEST_EFFORT
