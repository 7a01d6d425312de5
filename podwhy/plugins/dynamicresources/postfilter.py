"""DynamicResources PostFilter: may deallocating one of the pod's claims help the next attempt?

Kept apart from the plugin's PreFilter/Filter: the DynamicResources class delegates its
`post_filter` here, with its name (which is also the key of its cycle state).

Upstream's Filter remembers the allocated claims a node could not use; kube-scheduler stops
at a node's first failing filter, so only nodes whose recorded first failure is this plugin's
"resourceclaim not available on the node" count (podwhy runs every filter on every node).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from podwhy.framework.evidence import AnyEvidence, ResourceClaimEvidence
from podwhy.framework.handle import Handle
from podwhy.framework.interface import PRE_FILTER_REACHED_KEY, CycleState, PostFilterResult, PreFilterReached
from podwhy.framework.status import Code, Status
from podwhy.framework.types import PodInfo
from podwhy.helpers.nodeselectors import LazyNodeSelector
from podwhy.model import objects as o

ERR_NOT_AVAILABLE = "resourceclaim not available on the node"
MSG_NO_CLAIMS = "no new claims to deallocate"
MSG_DEALLOCATED = "deallocation of ResourceClaim completed"
MSG_STILL_NOT_SCHEDULABLE = "still not schedulable"
ERR_STATE_NOT_FOUND = "not found"

# resourceclaim.ResourceClaimReservedForMaxSize: a claim with this many consumers cannot take another.
RESERVED_FOR_MAX_SIZE = 256


class ClaimView(msgspec.Struct, frozen=True):
    """The parts of a ResourceClaim the PostFilter reads."""

    key: str
    allocated: bool
    node_selector: LazyNodeSelector | None
    reserved_for: tuple[str, ...]

    @classmethod
    def of(cls, claim: o.ResourceClaim) -> ClaimView:
        allocation = claim.status.allocation
        selector: LazyNodeSelector | None = None
        if allocation is not None and allocation.node_selector is not None:
            selector = LazyNodeSelector.parse(allocation.node_selector)
        reserved = tuple(ref.uid for ref in claim.status.reserved_for)
        key = f"{claim.metadata.namespace}/{claim.metadata.name}"
        return cls(key, allocation is not None, selector, reserved)


def _reached(state: CycleState, plugin: str) -> bool:
    """False when kube-scheduler stopped its PreFilter run before reaching this plugin."""
    reached = state.get(PRE_FILTER_REACHED_KEY)
    return not isinstance(reached, PreFilterReached) or plugin in reached.plugins


def unavailable_claims(
    claims: Sequence[ClaimView], handle: Handle, node_statuses: Mapping[str, Status], plugin: str
) -> list[int]:
    """Indices of allocated claims that a node where the scheduler reached this Filter could not use."""
    out: set[int] = set()
    for node_name, status in node_statuses.items():
        if status.plugin != plugin or ERR_NOT_AVAILABLE not in status.reasons:
            continue
        node_info = handle.node_info_by_name.get(node_name)
        if node_info is None:
            continue
        for index, claim in enumerate(claims):
            if claim.node_selector is not None and not claim.node_selector.matches(node_info.node):
                out.add(index)
    return sorted(out)


def decide(
    pod: PodInfo, claims: Sequence[ClaimView], handle: Handle, node_statuses: Mapping[str, Status], plugin: str
) -> tuple[PostFilterResult | None, Status]:
    """The PostFilter verdict for the claims the PreFilter recorded (none: it did not get that far)."""
    if not claims:
        return None, Status(Code.Unschedulable, [MSG_NO_CLAIMS], plugin)
    for index in unavailable_claims(claims, handle, node_statuses, plugin):
        claim = claims[index]
        # Only a claim no other pod uses may be deallocated (upstream picks one at random).
        if not claim.reserved_for or claim.reserved_for == (pod.uid,):
            evidence: list[AnyEvidence] = [ResourceClaimEvidence(claim=claim.key, action="deallocate")]
            return None, Status(Code.Unschedulable, [MSG_DEALLOCATED], plugin, evidence)
    return None, Status(Code.Unschedulable, [MSG_STILL_NOT_SCHEDULABLE], plugin)


def post_filter(
    handle: Handle, state: CycleState, pod: PodInfo, node_statuses: Mapping[str, Status], plugin: str
) -> tuple[PostFilterResult | None, Status]:
    """PostFilter from the cycle state `plugin` (DynamicResources) left under its name."""
    data = state.get(plugin)
    if not _reached(state, plugin) or data is None:
        return None, Status(Code.Error, [ERR_STATE_NOT_FOUND], plugin)
    claims = [ClaimView.of(claim) for claim in getattr(data, "claims", None) or []]
    return decide(pod, claims, handle, node_statuses, plugin)
