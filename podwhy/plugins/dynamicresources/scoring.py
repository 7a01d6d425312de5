"""DynamicResources Score: prefer nodes where prioritized lists got an earlier subrequest.

Each `firstAvailable` request whose subrequest at index i was allocated on the node adds
FIRST_AVAILABLE_MAX_SIZE - i points; the sums are then scaled to [0, 100] over the nodes.
"""

from __future__ import annotations

from podwhy.framework.evidence import PrioritizedListEvidence, SubRequestPoints
from podwhy.model import objects as o
from podwhy.plugins.dynamicresources.structured.allocator import ClaimAllocation
from podwhy.plugins.dynamicresources.structured.types import claim_key

# resourceapi.FirstAvailableDeviceRequestMaxSize: the longest prioritized list allowed.
FIRST_AVAILABLE_MAX_SIZE = 8


class ScoreError(Exception):
    """The node's allocation results do not line up with the pod's claims."""


def sub_request_ref(request: str, sub_request: str) -> str:
    return f"{request}/{sub_request}"


def is_sub_request_ref(ref: str) -> bool:
    return len(ref.split("/")) == 2


def prioritized_list_points(
    claims: list[o.ResourceClaim], allocations: list[ClaimAllocation]
) -> list[SubRequestPoints]:
    """The points the node earns, one entry per allocated subrequest.

    Upstream pairs the i-th claim of the pod with the i-th allocation result, although the
    results only cover the claims that were still unallocated; mirrored, including the error
    when the pod has more claims than results.
    """
    earned: list[SubRequestPoints] = []
    for claim_index, claim in enumerate(claims):
        if claim_index >= len(allocations):
            raise ScoreError(f"number of allocations {len(allocations)} is smaller than number of claims")
        allocated = {result.request for result in allocations[claim_index] if is_sub_request_ref(result.request)}
        for request in claim.spec.devices.requests:
            if request.exactly is not None:
                continue
            for index, sub in enumerate(request.first_available):
                if sub_request_ref(request.name, sub.name) in allocated:
                    earned.append(
                        SubRequestPoints(
                            claim=claim_key(claim),
                            request=request.name,
                            sub_request=sub.name,
                            index=index,
                            points=FIRST_AVAILABLE_MAX_SIZE - index,
                        )
                    )
    return earned


def prioritized_list_score(
    claims: list[o.ResourceClaim], allocations: list[ClaimAllocation]
) -> tuple[int, PrioritizedListEvidence]:
    """The node's raw score with the subrequests behind it; ScoreError as upstream fails."""
    earned = prioritized_list_points(claims, allocations)
    total = sum(entry.points for entry in earned)
    evidence = PrioritizedListEvidence(
        allocated_sub_requests=earned, score=total, max_list_size=FIRST_AVAILABLE_MAX_SIZE
    )
    return total, evidence
