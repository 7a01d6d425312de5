"""A pod's QoS class as the API server computes it when it creates the pod (PrepareForCreate's
status.qosClass): pkg/apis/core/helper/qos's ComputePodQOS, over cpu and memory only."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction

from podwhy.helpers.resourcenames import CPU, MEMORY
from podwhy.model import objects as o
from podwhy.model.quantity import QuantityInput, parse_quantity

GUARANTEED = "Guaranteed"
BURSTABLE = "Burstable"
BEST_EFFORT = "BestEffort"

# supportedQoSComputeResources.
QOS_RESOURCES = frozenset({CPU, MEMORY})


def _positive(resources: Mapping[str, QuantityInput]) -> dict[str, Fraction]:
    """The cpu and memory of RESOURCES above zero."""
    out = {}
    for name, raw in resources.items():
        if name in QOS_RESOURCES:
            value = parse_quantity(raw)
            if value > 0:
                out[name] = value
    return out


def _add(total: dict[str, Fraction], more: Mapping[str, Fraction]) -> None:
    for name, value in more.items():
        total[name] = total.get(name, Fraction(0)) + value


def compute_pod_qos(pod: o.Pod, pod_level_resources: bool = True) -> str:
    """ComputePodQOS: BestEffort without cpu or memory requests and limits; Guaranteed when every
    container (or, with POD_LEVEL_RESOURCES and spec.resources set, the pod) limits both cpu and
    memory and the summed requests equal the summed limits; else Burstable."""
    requests: dict[str, Fraction] = {}
    limits: dict[str, Fraction] = {}
    guaranteed = True
    if pod_level_resources and pod.spec.resources is not None:
        _add(requests, _positive(pod.spec.resources.requests))
        pod_limits = _positive(pod.spec.resources.limits)
        _add(limits, pod_limits)
        if pod.spec.resources.limits and not QOS_RESOURCES <= pod_limits.keys():
            guaranteed = False
    else:
        containers: Iterable[o.Container] = [*pod.spec.containers, *pod.spec.init_containers]
        for c in containers:
            _add(requests, _positive(c.resources.requests))
            found = _positive(c.resources.limits)
            _add(limits, found)
            if not QOS_RESOURCES <= found.keys():
                guaranteed = False
    if not requests and not limits:
        return BEST_EFFORT
    if guaranteed and all(limits.get(name) == value for name, value in requests.items()):
        if len(requests) == len(limits):
            return GUARANTEED
    return BURSTABLE
