"""NodeResourcesFit: the node must have room for the pod's requests (PreFilter + Filter).

PreFilter computes the pod's request vector once; Filter compares it with what the
node has left (allocatable minus the requests of the pods already counted on it).
PreScore/Score rate each feasible node with the configured scoring strategy
(LeastAllocated by default, MostAllocated or RequestedToCapacityRatio).
"""

from __future__ import annotations

from collections.abc import Container, Hashable
from functools import lru_cache
from operator import attrgetter
from typing import TYPE_CHECKING

import msgspec

from podwhy.features.kubefeatures import DRA_EXTENDED_RESOURCE
from podwhy.framework.equivalence import NodeReader, reads_nothing
from podwhy.framework.evidence import ResourceEvidence
from podwhy.framework.interface import CycleState, Plugin, PreFilterResult
from podwhy.framework.plugin_args import (
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    NodeResourcesFitArgs,
    PluginArgs,
    ScoringStrategy,
    args_of,
)
from podwhy.framework.signature import PodPart
from podwhy.framework.status import Status, error, success, unresolvable, unschedulable
from podwhy.framework.types import NodeInfo, PodInfo, Resource
from podwhy.helpers.podresources import pod_requests
from podwhy.helpers.resourcenames import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    PODS,
    is_extended_resource_name,
    is_scalar_resource_name,
)
from podwhy.model import objects as o
from podwhy.model.quantity import milli_value, value
from podwhy.plugins import names
from podwhy.plugins.dynamicresources.extended import extended_resource_classes
from podwhy.plugins.noderesources.dra_extended import DraScoringState, dra_scoring_kinds, dra_scoring_state
from podwhy.plugins.noderesources.least_allocated import least_allocated_scorer
from podwhy.plugins.noderesources.most_allocated import most_allocated_scorer
from podwhy.plugins.noderesources.requested_to_capacity_ratio import requested_to_capacity_ratio_scorer
from podwhy.plugins.noderesources.resource_allocation import (
    ResourceAllocationScorer,
    ResourceWeight,
    Scorer,
    room_key,
)

if TYPE_CHECKING:
    from podwhy.framework.handle import Handle

PRE_FILTER_STATE_KEY = "PreFilterNodeResourcesFit"
PRE_SCORE_STATE_KEY = "PreScoreNodeResourcesFit"

REASON_TOO_MANY_PODS = "Too many pods"
REASON_SIDECARS_DISABLED = "Pod has a restartable init container and the SidecarContainers feature is disabled"


def insufficient_reason(resource_name: str) -> str:
    return f"Insufficient {resource_name}"


# ------------------------------------------------------------------ pod request


class PreFilterState(msgspec.Struct, frozen=True):
    """The pod's request vector, computed once per scheduling cycle."""

    request: Resource

    def clone(self) -> PreFilterState:
        # Never mutated after PreFilter, so sharing is safe (as upstream does).
        return self


def compute_pod_resource_request(pod: o.Pod) -> Resource:
    """The pod's requests as NodeResourcesFit sees them (computePodResourceRequest).

    The incoming pod is unscheduled, so in-place resize status is not consulted; the
    request vector is built with SetMaxResource semantics (never below zero, and the
    pod count is not part of it).
    """
    request = Resource()
    for name, amount in pod_requests(pod, use_status_resources=False).items():
        if name == CPU:
            request.milli_cpu = max(request.milli_cpu, milli_value(amount))
        elif name == MEMORY:
            request.memory = max(request.memory, value(amount))
        elif name == EPHEMERAL_STORAGE:
            request.ephemeral_storage = max(request.ephemeral_storage, value(amount))
        elif is_scalar_resource_name(name):
            request.scalar_resources[name] = max(request.scalar_resources.get(name, 0), value(amount))
    return request


def has_restartable_init_container(pod: o.Pod) -> bool:
    return any(c.restart_policy == "Always" for c in pod.spec.init_containers)


# ------------------------------------------------------------------------ fitting


UNITS = {CPU: "millicores", MEMORY: "bytes", EPHEMERAL_STORAGE: "bytes", PODS: "pods"}


class InsufficientResource(msgspec.Struct, frozen=True):
    """One resource the node lacks for the pod, with the numbers behind it."""

    resource_name: str
    reason: str
    requested: int
    used: int
    capacity: int
    # The request exceeds the node's whole allocatable: evicting pods cannot help.
    unresolvable: bool = False

    def evidence(self) -> ResourceEvidence:
        return ResourceEvidence(
            resource=self.resource_name,
            unit=UNITS.get(self.resource_name, "units"),
            requested=self.requested,
            used=self.used,
            allocatable=self.capacity,
            free=self.capacity - self.used,
            exceeds_allocatable=self.unresolvable,
        )


def _is_ignored(resource_name: str, ignored_resources: frozenset[str], ignored_groups: frozenset[str]) -> bool:
    """ignoredResources / ignoredResourceGroups apply to extended resources only."""
    if not is_extended_resource_name(resource_name):
        return False
    group = resource_name.split("/")[0] if ignored_groups else ""
    return resource_name in ignored_resources or group in ignored_groups


def fits_request(
    request: Resource,
    node_info: NodeInfo,
    ignored_resources: frozenset[str] = frozenset(),
    ignored_groups: frozenset[str] = frozenset(),
    dra_backed: Container[str] = frozenset(),
) -> list[InsufficientResource]:
    """Every resource the node is short of, in upstream's order (fitsRequest). `dra_backed`: the
    extended resources a DeviceClass serves (DRAExtendedResource): a node that does not advertise
    one leaves it to DynamicResources.

    Pods, cpu, memory, ephemeral-storage, then scalar resources. Upstream visits the
    scalar resources in random map order; they are sorted by name here, as the
    recordings are.
    """
    insufficient: list[InsufficientResource] = []
    allocatable = node_info.allocatable
    requested = node_info.requested

    pod_count = len(node_info.pods)
    if pod_count + 1 > allocatable.allowed_pod_number:
        insufficient.append(
            InsufficientResource(PODS, REASON_TOO_MANY_PODS, 1, pod_count, allocatable.allowed_pod_number)
        )

    if (
        request.milli_cpu == 0
        and request.memory == 0
        and request.ephemeral_storage == 0
        and not request.scalar_resources
    ):
        return insufficient

    for resource_name, wanted, used, capacity in (
        (CPU, request.milli_cpu, requested.milli_cpu, allocatable.milli_cpu),
        (MEMORY, request.memory, requested.memory, allocatable.memory),
        (EPHEMERAL_STORAGE, request.ephemeral_storage, requested.ephemeral_storage, allocatable.ephemeral_storage),
    ):
        if wanted > 0 and wanted > capacity - used:
            insufficient.append(
                InsufficientResource(
                    resource_name, insufficient_reason(resource_name), wanted, used, capacity, wanted > capacity
                )
            )

    for resource_name in sorted(request.scalar_resources):
        wanted = request.scalar_resources[resource_name]
        if wanted == 0:
            continue
        if _is_ignored(resource_name, ignored_resources, ignored_groups):
            continue
        capacity = allocatable.scalar_resources.get(resource_name, 0)
        if capacity <= 0 and resource_name in dra_backed:
            continue  # shouldDelegateResourceToDRA
        used = requested.scalar_resources.get(resource_name, 0)
        if wanted > capacity - used:
            insufficient.append(
                InsufficientResource(
                    resource_name, insufficient_reason(resource_name), wanted, used, capacity, wanted > capacity
                )
            )
    return insufficient


def fits(pod: o.Pod, node_info: NodeInfo) -> list[InsufficientResource]:
    """What the node lacks for the pod, with nothing ignored (upstream Fits); empty when it fits."""
    return fits_request(compute_pod_resource_request(pod), node_info)


def room_reader(request: Resource) -> NodeReader:
    """What fits_request reads of a node for REQUEST: its pod count and pod capacity, and the
    requested and allocatable amounts of each resource the pod asks for (the evidence shows them).
    The same reader for requests of the same resources (see equivalence.NodeClasses.key)."""
    fields = tuple(
        field
        for field, amount in (
            ("milli_cpu", request.milli_cpu),
            ("memory", request.memory),
            ("ephemeral_storage", request.ephemeral_storage),
        )
        if amount
    )
    return _room_reader(fields, tuple(name for name, amount in request.scalar_resources.items() if amount))


@lru_cache(maxsize=256)
def _room_reader(fields: tuple[str, ...], scalars: tuple[str, ...]) -> NodeReader:
    amounts = attrgetter(*fields, "allowed_pod_number")

    def read(node_info: NodeInfo) -> Hashable:
        return (len(node_info.pods), amounts(node_info.requested), amounts(node_info.allocatable))

    # Read for every node a pod is filtered against: one scalar (a GPU) without a loop.
    def read_scalar(node_info: NodeInfo) -> Hashable:
        requested, allocatable = node_info.requested, node_info.allocatable
        name = scalars[0]
        return (
            len(node_info.pods),
            amounts(requested),
            amounts(allocatable),
            requested.scalar_resources.get(name, 0),
            allocatable.scalar_resources.get(name, 0),
        )

    def read_scalars(node_info: NodeInfo) -> Hashable:
        requested = node_info.requested.scalar_resources
        allocatable = node_info.allocatable.scalar_resources
        return (
            read(node_info),
            tuple([requested.get(name, 0) for name in scalars]),
            tuple([allocatable.get(name, 0) for name in scalars]),
        )

    if not scalars:
        return read
    return read_scalar if len(scalars) == 1 else read_scalars


# ------------------------------------------------------------------------ scoring


def build_scorer(strategy: ScoringStrategy) -> ResourceAllocationScorer:
    """The scorer for a validated scoring strategy (nodeResourceStrategyTypeMap).

    Upstream builds these scorers without the plugin's feature flags, so the pod's
    request for scoring is taken from its containers only: no in-place resize status
    and no pod-level resources (overhead still counts). Missing cpu/memory requests
    are replaced by the non-zero defaults, on the pod and on the node alike.
    """
    resources = tuple(ResourceWeight(r.name, r.weight) for r in strategy.resources)
    scorer: Scorer
    if strategy.type == MOST_ALLOCATED:
        scorer = most_allocated_scorer
    elif strategy.type == REQUESTED_TO_CAPACITY_RATIO:
        ratio = strategy.requested_to_capacity_ratio
        shape = [(p.utilization, p.score) for p in ratio.shape] if ratio is not None else []
        scorer = requested_to_capacity_ratio_scorer(shape)
    else:
        scorer = least_allocated_scorer
    return ResourceAllocationScorer(
        strategy=strategy.type,
        resources=resources,
        scorer=scorer,
        use_requested=False,
        use_status_resources=False,
        use_pod_level_resources=False,
    )


class PreScoreState(msgspec.Struct, frozen=True):
    """The pod's scoring request per configured resource, in `resources` order, and what counting
    DRA-backed extended resources needs (DRAExtendedResource; None when none is configured)."""

    pod_requests: tuple[int, ...]
    dra: DraScoringState | None = None

    def clone(self) -> PreScoreState:
        return self


# ------------------------------------------------------------------------- plugin


class Fit(Plugin):
    NAME = names.NODE_RESOURCES_FIT
    NODE_LOCAL_FILTER = NODE_LOCAL_SCORE = True
    CURED_BY_EMPTY_NODE = True
    POD_PARTS = frozenset({PodPart.SPEC})
    # A RuntimeClass adds its overhead and scheduling constraints to the pod at admission.
    ADMISSION_KINDS = frozenset({"RuntimeClass"})
    ARGS = NodeResourcesFitArgs

    # Feature gates as kube-scheduler v1.35 sets them by default.
    enable_sidecar_containers = True

    def __init__(self, handle: Handle, args: PluginArgs | None = None) -> None:
        super().__init__(handle, args)
        fit_args = args_of(NodeResourcesFitArgs, args)
        self.ignored_resources = frozenset(fit_args.ignored_resources)
        self.ignored_resource_groups = frozenset(fit_args.ignored_resource_groups)
        self.scorer = build_scorer(fit_args.scoring_strategy)
        self._dra_backed_resources: frozenset[str] | None = None

    def dra_backed(self) -> frozenset[str]:
        """Extended resources a DeviceClass serves, when DRAExtendedResource is on (built once)."""
        if self._dra_backed_resources is None:
            on = self.handle.emulation.enabled(DRA_EXTENDED_RESOURCE)
            classes = extended_resource_classes(self.handle.snapshot.device_classes) if on else {}
            self._dra_backed_resources = frozenset(classes)
        return self._dra_backed_resources

    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        if not self.enable_sidecar_containers and has_restartable_init_container(pod.pod):
            return None, unresolvable(REASON_SIDECARS_DISABLED)
        # Never Skip: even a pod requesting nothing is checked against the node's pod count.
        state.write(PRE_FILTER_STATE_KEY, PreFilterState(compute_pod_resource_request(pod.pod)))
        return None, success()

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status:
        pre = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(pre, PreFilterState):
            return error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        insufficient = fits_request(
            pre.request,
            node_info,
            self.ignored_resources,
            self.ignored_resource_groups,
            self.dra_backed(),
        )
        if not insufficient:
            return success()
        reasons = [r.reason for r in insufficient]
        evidence = [r.evidence() for r in insufficient]
        if any(r.unresolvable for r in insufficient) and self.handle.emulation.fit_unresolvable_over_allocatable:
            return unresolvable(*reasons, evidence=evidence)
        return unschedulable(*reasons, evidence=evidence)

    def filter_key(self, state: CycleState, pod: PodInfo) -> NodeReader | None:
        pre = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(pre, PreFilterState):
            return reads_nothing  # the same error on every node
        return room_reader(pre.request)

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
        # Never Skip: a pod requesting nothing still scores with the non-zero defaults.
        state.write(PRE_SCORE_STATE_KEY, PreScoreState(tuple(self.scorer.pod_requests(pod.pod)), self._dra_state()))
        return success()

    def _dra_state(self) -> DraScoringState | None:
        return dra_scoring_state(self.handle, [r.name for r in self.scorer.resources])

    def required_kinds_for_score(self, pod: PodInfo) -> set[str]:
        resources = [r.name for r in self.scorer.resources]
        return dra_scoring_kinds(self.handle, resources, self.scorer.pod_requests(pod.pod))

    def score_key(self, state: CycleState, pod: PodInfo) -> NodeReader | None:
        pre = state.get(PRE_SCORE_STATE_KEY)
        dra = pre.dra if isinstance(pre, PreScoreState) else self._dra_state()
        # DRA-backed resources are counted from each node's slices: not keyed.
        return room_key if dra is None else None

    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> tuple[int, Status]:
        pre = state.get(PRE_SCORE_STATE_KEY)
        if not isinstance(pre, PreScoreState):
            pre = PreScoreState(tuple(self.scorer.pod_requests(pod.pod)), self._dra_state())
        return self.scorer.score(node_info, pre.pod_requests, pre.dra)
