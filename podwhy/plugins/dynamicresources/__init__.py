"""DynamicResources: a pod's ResourceClaims must exist and be allocatable on the node.

PreFilter looks the claims up (missing, not yet generated, being deleted, not owned by
the pod) and checks the device classes of the claims still to be allocated. Filter
rejects a node outside an allocated claim's node selector and runs the structured
allocator for the unallocated claims against the node's ResourceSlices.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from podwhy.features.kubefeatures import (
    DRA_CONSUMABLE_CAPACITY,
    DRA_DEVICE_BINDING_CONDITIONS,
    DRA_DEVICE_TAINTS,
    DRA_EXTENDED_RESOURCE,
    DRA_PARTITIONABLE_DEVICES,
)
from podwhy.framework.evidence import (
    AllocatedClaimEvidence,
    DeviceClassEvidence,
    ExtendedResourceEvidence,
    ResourceClaimEvidence,
)
from podwhy.framework.interface import MAX_NODE_SCORE, CycleState, Plugin, PostFilterResult, PreFilterResult
from podwhy.framework.notevaluated import NotEvaluated
from podwhy.framework.plugin_args import DynamicResourcesArgs, PluginArgs
from podwhy.framework.signature import PodPart
from podwhy.framework.status import Code, Status, error, skip, success, unresolvable, unschedulable
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.helpers.nodeselectors import LazyNodeSelector
from podwhy.model import objects as o
from podwhy.model.quantity import parse_quantity
from podwhy.plugins import names
from podwhy.plugins.dynamicresources.cel.compile import SelectorCache
from podwhy.plugins.dynamicresources.claims import ClaimLookupError, pod_resource_claims
from podwhy.plugins.dynamicresources.extended import (
    EXTENDED_RESOURCE_CLAIM_ANNOTATION,
    extended_resource_classes,
    pod_extended_requests,
    special_claim_requests,
)
from podwhy.plugins.dynamicresources.postfilter import post_filter as claims_post_filter
from podwhy.plugins.dynamicresources.scoring import ScoreError, prioritized_list_score
from podwhy.plugins.dynamicresources.structured.allocator import Allocator, ClaimAllocation
from podwhy.plugins.dynamicresources.structured.consumable_capacity import add_capacity
from podwhy.plugins.dynamicresources.structured.describe import describe_requests
from podwhy.plugins.dynamicresources.structured.types import (
    AllocationError,
    Capacity,
    DeviceID,
    NodeAllocationError,
    NotSimulatedError,
    SelectorsNotEvaluatedError,
    claim_key,
)
from podwhy.plugins.helper.normalize_score import default_normalize_score

if TYPE_CHECKING:
    from podwhy.framework.handle import Handle

__all__ = ["DynamicResources", "DynamicResourcesState"]

ERR_CANNOT_ALLOCATE = "cannot allocate all claims"
ERR_NOT_AVAILABLE = "resourceclaim not available on the node"
# DRAExtendedResource (v1.36).
ERR_CANNOT_FIT_RESOURCE = "cannot fit resource"
ERR_EXTENDED_CLAIM_FROM_EARLIER_ATTEMPT = "cannot schedule extended resource claim"
# The scheduler's claim for the pod's extended resources before it is created.
SPECIAL_CLAIM_IN_MEMORY_NAME = "<extended-resources>"

DRA_KINDS = frozenset({"ResourceClaim", "DeviceClass", "ResourceSlice", "ResourceClaimTemplate"})


class DynamicResourcesState(msgspec.Struct):
    """What PreFilter learned; Filter adds to it, PostFilter and Score read it."""

    # The pod's claims in spec order; empty until PreFilter got through all its checks.
    claims: list[o.ResourceClaim] = msgspec.field(default_factory=list)
    # Per claim: the allocation's node selector (None: unallocated, or allocated for every node).
    available_on_nodes: list[LazyNodeSelector | None] = msgspec.field(default_factory=list)
    allocator: Allocator | None = None
    # Indices of allocated claims that some node could not use (for PostFilter's deallocation).
    unavailable_claims: set[int] = msgspec.field(default_factory=set)
    # Node name -> one allocation per unallocated claim (for Score).
    node_allocations: dict[str, list[ClaimAllocation]] = msgspec.field(default_factory=dict)
    # DRAExtendedResource: how many of `claims` are the pod's own (the scheduler's claim for its
    # DRA-backed extended resources, when it has one, comes last) and the pod's requests of them.
    num_user_claims: int = 0
    extended_requests: dict[str, int] = msgspec.field(default_factory=dict)

    @property
    def extended_claim(self) -> o.ResourceClaim | None:
        return self.claims[self.num_user_claims] if len(self.claims) > self.num_user_claims else None

    def clone(self) -> DynamicResourcesState:
        # Shared between the nominated-pods passes, as upstream's Clone returns the same pointer.
        return self

    def claims_to_allocate(self) -> list[o.ResourceClaim]:
        return [claim for claim in self.claims if claim.status.allocation is None]


class DynamicResources(Plugin):
    NAME = names.DYNAMIC_RESOURCES
    POD_PARTS = frozenset({PodPart.NAMESPACE, PodPart.OWN_OBJECTS, PodPart.SPEC})
    # Its args (filterTimeout, bindingTimeout) bound the scheduler's own work; the verdicts do not depend on them.
    ARGS = DynamicResourcesArgs
    UNSIMULATED_POINTS = frozenset({"preEnqueue", "reserve", "preBind"})
    # Device selectors podwhy's CEL does not evaluate (timestamp(), ...) leave a node not evaluated.
    NODE_NOT_EVALUATED = True

    def __init__(self, handle: Handle, args: PluginArgs | None = None) -> None:
        super().__init__(handle, args)
        self._selector_cache = SelectorCache()
        self.extended_resources = handle.emulation.enabled(DRA_EXTENDED_RESOURCE)
        self._extended_classes: dict[str, o.DeviceClass] | None = None

    def required_kinds(self, pod: PodInfo) -> set[str]:
        """ResourceClaims when one of the pod's is not found; with a claim to allocate, also what
        allocation searches: every device class, slice, and allocated claim (the devices in use)."""
        if self.extended_resources and pod_extended_requests(pod.pod):
            return set(DRA_KINDS)  # DRA-backed extended resources: device classes and slices decide
        if not pod.pod.spec.resource_claims:
            return set()
        try:
            claims = pod_resource_claims(pod.pod, self.handle.snapshot.resource_claims)
        except ClaimLookupError:
            return {"ResourceClaim"}
        if all(claim.status.allocation is not None for claim in claims):
            return set()
        return set(DRA_KINDS - {"ResourceClaimTemplate"})

    def extended_classes(self) -> dict[str, o.DeviceClass]:
        """The DeviceClass serving each extended resource name (built once)."""
        if self._extended_classes is None:
            self._extended_classes = extended_resource_classes(self.device_classes())
        return self._extended_classes

    def _extended_claim(self, pod: o.Pod, data: DynamicResourcesState) -> o.ResourceClaim | None:
        """preFilterExtendedResources: the scheduler's claim for the pod's DRA-backed extended
        resources (made by an earlier attempt, else a new one without requests), or None."""
        if not self.extended_resources:
            return None
        requests = pod_extended_requests(pod)
        classes = self.extended_classes()
        if not any(name in classes for name in requests):
            return None
        data.extended_requests = requests
        for claim in self.handle.snapshot.resource_claims.values():
            if claim.metadata.annotations.get(EXTENDED_RESOURCE_CLAIM_ANNOTATION) != "true":
                continue
            if any(
                ref.name == pod.metadata.name and ref.controller and ref.uid == pod.metadata.uid
                for ref in claim.metadata.owner_references
            ):
                return claim
        return o.ResourceClaim(
            metadata=o.ObjectMeta(
                name=SPECIAL_CLAIM_IN_MEMORY_NAME,
                namespace=pod.metadata.namespace,
                annotations={EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"},
            )
        )

    def _node_extended_claim(
        self, data: DynamicResourcesState, pod: o.Pod, node_info: NodeInfo
    ) -> tuple[o.ResourceClaim | None, Status | None]:
        """filterExtendedResources: the scheduler's claim as this node needs it (requests for the
        resources the node does not advertise), None when the node needs none."""
        claim = data.extended_claim
        if claim is None:
            return None, None
        if claim.spec.devices.requests:
            # Made by an earlier attempt: upstream deletes it in PostFilter and tries anew.
            return None, unschedulable(ERR_EXTENDED_CLAIM_FROM_EARLIER_ATTEMPT)
        classes = self.extended_classes()
        scalar = node_info.allocatable.scalar_resources
        on_dra: dict[str, int] = {}
        for name, count in data.extended_requests.items():
            if name in classes and scalar.get(name, 0) == 0:
                on_dra[name] = count
            elif name not in scalar:
                return None, unschedulable(ERR_CANNOT_FIT_RESOURCE, evidence=[ExtendedResourceEvidence(resource=name)])
        if (data.num_user_claims == 0 and not on_dra) or claim.status.allocation is not None:
            return None, None
        requests = special_claim_requests(pod, on_dra, classes)
        spec = o.ResourceClaimSpec(devices=o.DeviceClaim(requests=requests))
        return o.ResourceClaim(metadata=claim.metadata, spec=spec, status=claim.status), None

    # ------------------------------------------------------------------ cluster objects
    def device_classes(self) -> dict[str, o.DeviceClass]:
        return self.handle.snapshot.device_classes

    def _allocated_state(self, consumable_capacity: bool) -> tuple[set[DeviceID], dict[DeviceID, Capacity]]:
        """GatherAllocatedState: devices of every allocated claim (admin-access results do not hold
        a device) and, with DRAConsumableCapacity, the capacity that shares (results with a
        shareID) consume of their device instead; without it a shared device is simply allocated."""
        devices: set[DeviceID] = set()
        capacity: dict[DeviceID, Capacity] = {}
        for claim in self.handle.snapshot.resource_claims.values():
            allocation = claim.status.allocation
            if allocation is None:
                continue
            for result in allocation.devices.results:
                if result.admin_access:
                    continue
                device_id = (result.driver, result.pool, result.device)
                if consumable_capacity and result.share_id is not None:
                    if result.consumed_capacity is not None:
                        consumed = {name: parse_quantity(raw) for name, raw in result.consumed_capacity.items()}
                        add_capacity(capacity, device_id, consumed)
                    continue
                devices.add(device_id)
        return devices, capacity

    # ------------------------------------------------------------------ PreFilter
    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        data = DynamicResourcesState()
        state.write(self.NAME, data)
        try:
            claims = pod_resource_claims(pod.pod, self.handle.snapshot.resource_claims)
        except ClaimLookupError as exc:
            return None, unresolvable(exc.message, evidence=[ResourceClaimEvidence(problem=exc.message)])
        data.num_user_claims = len(claims)
        extended_claim = self._extended_claim(pod.pod, data)
        if extended_claim is not None:
            claims = [*claims, extended_claim]
        if not claims:
            return None, skip()

        available_on_nodes: list[LazyNodeSelector | None] = []
        to_allocate = 0
        for claim in claims:
            allocation = claim.status.allocation
            if allocation is not None:
                selector = None
                if allocation.node_selector is not None:
                    selector = LazyNodeSelector.parse(allocation.node_selector)
                    problems = [p for term in selector.terms for p in term.parse_errors]
                    if problems:
                        return None, error("; ".join(problems))
                available_on_nodes.append(selector)
                continue
            available_on_nodes.append(None)
            to_allocate += 1
            if claim is extended_claim:
                continue  # its requests depend on the node (Filter)
            for request in claim.spec.devices.requests:
                if request.exactly is not None:
                    status = self._check_device_class(claim, request.exactly.device_class_name, request.name)
                    if status is not None:
                        return None, status
                elif request.first_available:
                    for sub in request.first_available:
                        status = self._check_device_class(claim, sub.device_class_name, f"{request.name}/{sub.name}")
                        if status is not None:
                            return None, status
                else:
                    return None, unresolvable(
                        f"resource claim {claim_key(claim)}, request {request.name}: unknown request type"
                    )

        data.available_on_nodes = available_on_nodes
        if to_allocate > 0:
            emulation = self.handle.emulation
            allocated, allocated_capacity = self._allocated_state(emulation.enabled(DRA_CONSUMABLE_CAPACITY))
            data.allocator = Allocator(
                allocated,
                self.device_classes(),
                self.handle.snapshot.resource_slices,
                self._selector_cache,
                device_taints=emulation.enabled(DRA_DEVICE_TAINTS),
                partitionable_devices=emulation.enabled(DRA_PARTITIONABLE_DEVICES),
                consumable_capacity=emulation.enabled(DRA_CONSUMABLE_CAPACITY),
                binding_conditions=emulation.enabled(DRA_DEVICE_BINDING_CONDITIONS),
                allocated_capacity=allocated_capacity,
            )
        data.claims = claims
        return None, success()

    def _check_device_class(self, claim: o.ResourceClaim, class_name: str, request_name: str) -> Status | None:
        if not class_name:
            return error(f"request {request_name}: unsupported request type")
        if class_name not in self.device_classes():
            return unresolvable(
                f"request {request_name}: device class {class_name} does not exist",
                evidence=[DeviceClassEvidence(claim=claim_key(claim), request=request_name, device_class=class_name)],
            )
        return None

    # ------------------------------------------------------------------ Filter
    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status:
        data = state.get(self.NAME)
        if not isinstance(data, DynamicResourcesState):
            return error("not found")
        if not data.claims:
            return success()
        node = node_info.node
        node_claim, status = self._node_extended_claim(data, pod.pod, node_info)
        if status is not None:
            return status
        if node_claim is None and data.num_user_claims == 0:
            return success()

        unavailable = [
            index
            for index, selector in enumerate(data.available_on_nodes)
            if selector is not None and not selector.matches(node)
        ]

        allocations: list[ClaimAllocation] | None = None
        if data.allocator is not None:
            to_allocate = data.claims_to_allocate()
            if node_claim is not None:
                extended = data.extended_claim
                to_allocate = [node_claim if claim is extended else claim for claim in to_allocate]
            try:
                allocations = data.allocator.allocate(node, to_allocate)
            except NodeAllocationError as exc:
                return unresolvable(exc.message)
            except SelectorsNotEvaluatedError as exc:
                # The node may pass or fail: podwhy's own verdict, never a rejection nor a pass.
                return Status(Code.Success, not_evaluated=NotEvaluated(selectors=exc.selectors))
            except NotSimulatedError as exc:
                return Status(Code.Error, [exc.message])
            except AllocationError as exc:
                return Status(Code.Error, [exc.message])
            if allocations is None or len(allocations) != len(to_allocate):
                return unresolvable(
                    ERR_CANNOT_ALLOCATE,
                    evidence=list(describe_requests(data.allocator, node, to_allocate)),
                )

        if unavailable:
            data.unavailable_claims.update(unavailable)
            return unresolvable(
                ERR_NOT_AVAILABLE,
                evidence=[
                    AllocatedClaimEvidence(claim=claim_key(data.claims[index]), node=node_info.name)
                    for index in unavailable
                ],
            )

        if allocations is not None:
            data.node_allocations[node_info.name] = allocations
        return success()

    # ------------------------------------------------------------------ PostFilter
    # The deallocation decision lives in postfilter.py; the plugin only delegates to it.
    def post_filter(
        self, state: CycleState, pod: PodInfo, node_statuses: dict[str, Status]
    ) -> tuple[PostFilterResult | None, Status]:
        return claims_post_filter(self.handle, state, pod, node_statuses, self.NAME)

    # ------------------------------------------------------------------ Score
    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> tuple[int, Status]:
        data = state.get(self.NAME)
        if not isinstance(data, DynamicResourcesState):
            return 0, error("not found")
        if not data.claims:
            return 0, success()
        allocations = data.node_allocations.get(node_info.name)
        if allocations is None:
            # Every claim was allocated already: nothing was chosen for this node.
            return 0, success()
        try:
            value, evidence = prioritized_list_score(data.claims, allocations)
        except ScoreError as exc:
            return 0, error(str(exc))
        return value, Status(Code.Success, evidence=[evidence])

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status:
        default_normalize_score(MAX_NODE_SCORE, False, scores)
        return success()
