"""Scoring shared by NodeResourcesFit and NodeResourcesBalancedAllocation (resourceAllocationScorer).

For every configured resource it pairs what the node would have requested with this
pod on it against the node's allocatable, then hands the pairs to a strategy's scorer
(least/most allocated, requested-to-capacity ratio, balanced). All arithmetic follows
upstream's int64/float64 steps so scores match kube-scheduler exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from operator import attrgetter
from typing import Required, TypedDict

import msgspec
from msgspec import UNSET

from podwhy.framework.evidence import NodeScoreEvidence, ResourceScoreEvidence, ShapePoint
from podwhy.framework.status import Status, error
from podwhy.framework.types import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, NodeInfo
from podwhy.helpers.podresources import Quantities, aggregate_container_requests, pod_requests, to_quantities
from podwhy.helpers.resourcenames import CPU, EPHEMERAL_STORAGE, MEMORY, is_scalar_resource_name
from podwhy.model import objects as o
from podwhy.model.quantity import milli_value, value
from podwhy.plugins.noderesources.dra_extended import DraScoringState

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1


def wrap_int64(number: int) -> int:
    """Two's-complement wrap-around, as an int64 overflow does in Go."""
    return (number - INT64_MIN) % (1 << 64) + INT64_MIN


class ResourceWeight(msgspec.Struct, frozen=True):
    """One entry of a scoring `resources` list (config.ResourceSpec)."""

    name: str
    weight: int


# ----------------------------------------------------------------- pod requests

# Stand-ins for missing container requests when scoring with non-zero requests.
NON_ZERO_DEFAULTS: Quantities = {
    CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000),
    MEMORY: Fraction(DEFAULT_MEMORY_REQUEST),
}


def scoring_pod_requests(
    pod: o.Pod, *, use_requested: bool, use_status_resources: bool, use_pod_level_resources: bool
) -> Quantities:
    """The pod's requests as a scorer sees them (PodRequests with the scorer's options), overhead included."""
    non_missing = None if use_requested else NON_ZERO_DEFAULTS
    if use_pod_level_resources:
        return pod_requests(pod, non_missing, use_status_resources=use_status_resources)
    requests = aggregate_container_requests(pod, non_missing, use_status_resources=use_status_resources)
    if pod.spec.overhead:
        for name, amount in to_quantities(pod.spec.overhead).items():
            requests[name] = requests.get(name, Fraction(0)) + amount
    return requests


def request_amount(requests: Quantities, resource_name: str) -> int:
    """One resource's integer request: millicores for cpu, Value() (rounded up) otherwise; 0 if absent."""
    amount = requests.get(resource_name, Fraction(0))
    return milli_value(amount) if resource_name == CPU else value(amount)


# ---------------------------------------------------------------- node figures


class LineDetail(TypedDict, total=False):
    """What a scorer found for one resource: the optional fields of its ResourceScoreEvidence."""

    fraction: float
    fraction_without_pod: float
    utilization: int
    resource_score: int
    between: list[ShapePoint]
    counted_in_mean: bool
    formula: str


class ScoreSummary(TypedDict, total=False):
    """How a scorer turned the per-resource scores into the node score: NodeScoreEvidence's fields."""

    shape: list[ShapePoint]
    std: float
    std_without_pod: float
    score_with_pod: int
    score_without_pod: int
    weighted_sum: int
    weight_sum: int
    formula: Required[str]


class ResourceLine(msgspec.Struct):
    """One configured resource on one node: the figures a scorer works with."""

    resource: str
    weight: int
    pod_request: int
    # Requests on the node including this pod's; both 0 when the resource is not scored.
    requested: int = 0
    allocatable: int = 0
    # Why the resource is left out of the score, when it is.
    omitted: str = ""
    # Filled in by the scorer: the resource's own score, fraction, utilization...
    detail: LineDetail = msgspec.field(default_factory=LineDetail)

    @property
    def scored(self) -> bool:
        return self.allocatable != 0

    def evidence(self) -> ResourceScoreEvidence:
        return ResourceScoreEvidence(
            resource=self.resource,
            weight=self.weight,
            pod_request=self.pod_request,
            requested=self.requested,
            allocatable=self.allocatable,
            omitted=self.omitted or UNSET,
            **self.detail,
        )


class ScorerResult(msgspec.Struct):
    score: int
    # How the per-resource scores became the node score, for the evidence.
    summary: ScoreSummary


Scorer = Callable[[Sequence[ResourceLine]], ScorerResult]


def allocatable_and_requested(
    node_info: NodeInfo,
    resource_name: str,
    pod_request: int,
    use_requested: bool,
    dra: DraScoringState | None = None,
) -> tuple[int, int, str]:
    """(allocatable, requested including the pod, why omitted) for one resource.

    Mirrors calculateResourceAllocatableRequest: allocatable 0 means the resource is not scored.
    `dra` (DRAExtendedResource): an extended resource the node does not advertise counts the
    devices of the DeviceClass serving it (dra_extended).
    """
    requested = node_info.requested if use_requested else node_info.non_zero_requested
    if pod_request == 0 and is_scalar_resource_name(resource_name):
        return 0, 0, "pod does not request it"
    allocatable = node_info.allocatable
    if resource_name == CPU:
        return allocatable.milli_cpu, requested.milli_cpu + pod_request, ""
    if resource_name == MEMORY:
        return allocatable.memory, requested.memory + pod_request, ""
    if resource_name == EPHEMERAL_STORAGE:
        return allocatable.ephemeral_storage, node_info.requested.ephemeral_storage + pod_request, ""
    if dra is not None and allocatable.scalar_resources.get(resource_name, 0) == 0:
        capacity, in_use = dra.totals(node_info.node, resource_name)
        if capacity > 0:
            return capacity, in_use + pod_request, ""
    if resource_name in allocatable.scalar_resources:
        return (
            allocatable.scalar_resources[resource_name],
            node_info.requested.scalar_resources.get(resource_name, 0) + pod_request,
            "",
        )
    return 0, 0, "node does not have it"


_AMOUNTS = attrgetter("milli_cpu", "memory", "ephemeral_storage", "allowed_pod_number")


def room_key(node_info: NodeInfo) -> Hashable:
    """Everything allocatable_and_requested may read of a node without DRA: its requests (actual
    and non-zero) and its allocatable, every resource of them."""
    amounts: list[Hashable] = []
    for resource in (node_info.requested, node_info.non_zero_requested, node_info.allocatable):
        amounts.append(_AMOUNTS(resource))
        if resource.scalar_resources:
            amounts.append(tuple(resource.scalar_resources.items()))
    return tuple(amounts)


class ResourceAllocationScorer(msgspec.Struct, frozen=True):
    """Scores a node for a pod over the configured resources with one strategy's scorer."""

    strategy: str
    resources: tuple[ResourceWeight, ...]
    scorer: Scorer
    # Score with the pod's and node's actual requests (True) or with the non-zero
    # stand-ins for missing cpu/memory requests (False).
    use_requested: bool
    use_status_resources: bool = False
    use_pod_level_resources: bool = False

    def pod_requests(self, pod: o.Pod) -> list[int]:
        """The pod's request per configured resource, in `resources` order (calculatePodResourceRequestList)."""
        requests = scoring_pod_requests(
            pod,
            use_requested=self.use_requested,
            use_status_resources=self.use_status_resources,
            use_pod_level_resources=self.use_pod_level_resources,
        )
        return [request_amount(requests, r.name) for r in self.resources]

    def lines(
        self, node_info: NodeInfo, pod_requests: Sequence[int], dra: DraScoringState | None = None
    ) -> list[ResourceLine]:
        out: list[ResourceLine] = []
        for spec, pod_request in zip(self.resources, pod_requests, strict=True):
            line = ResourceLine(spec.name, spec.weight, pod_request)
            allocatable, requested, omitted = allocatable_and_requested(
                node_info, spec.name, pod_request, self.use_requested, dra
            )
            if allocatable == 0:
                line.omitted = omitted or "node allocatable is 0"
            else:
                line.allocatable = allocatable
                line.requested = requested
            out.append(line)
        return out

    def score(
        self, node_info: NodeInfo, pod_requests: Sequence[int], dra: DraScoringState | None = None
    ) -> tuple[int, Status]:
        if not self.resources:
            return 0, error("resources not found")
        lines = self.lines(node_info, pod_requests, dra)
        result = self.scorer(lines)
        summary = NodeScoreEvidence(strategy=self.strategy, score=result.score, **result.summary)
        return result.score, Status(evidence=[*(line.evidence() for line in lines), summary])


def is_best_effort(pod_requests: Sequence[int]) -> bool:
    return all(request == 0 for request in pod_requests)
