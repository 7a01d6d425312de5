"""The ResourceClaims a pod uses (resourceclaim.Name and the plugin's claim lookup)."""

from __future__ import annotations

from collections.abc import Mapping

from podwhy.model import objects as o


class ClaimLookupError(Exception):
    """The pod cannot be scheduled yet; the message is the scheduler's reason."""

    @property
    def message(self) -> str:
        return str(self.args[0])


def claim_name(pod: o.Pod, pod_claim: o.PodResourceClaim) -> tuple[str | None, bool]:
    """The claim's name (None: none generated, skip it) and whether the pod must own it."""
    if pod_claim.resource_claim_name is not None:
        return pod_claim.resource_claim_name, False
    if pod_claim.resource_claim_template_name is not None:
        for status in pod.status.resource_claim_statuses:
            if status.name == pod_claim.name:
                return status.resource_claim_name, True
        raise ClaimLookupError(f'pod "{pod.metadata.namespace}/{pod.metadata.name}": ResourceClaim not created yet')
    raise ClaimLookupError(
        f'pod "{pod.metadata.namespace}/{pod.metadata.name}", spec.resourceClaim "{pod_claim.name}": '
        "none of the supported fields are set"
    )


def is_controlled_by(claim: o.ResourceClaim, pod: o.Pod) -> bool:
    for ref in claim.metadata.owner_references:
        if ref.controller:
            return ref.uid == pod.metadata.uid
    return False


def pod_resource_claims(pod: o.Pod, claims: Mapping[str, o.ResourceClaim]) -> list[o.ResourceClaim]:
    """The pod's claims in spec order; raises ClaimLookupError with the scheduler's reason."""
    out: list[o.ResourceClaim] = []
    namespace = pod.metadata.namespace
    for pod_claim in pod.spec.resource_claims:
        name, must_check_owner = claim_name(pod, pod_claim)
        if name is None:
            continue
        claim = claims.get(f"{namespace}/{name}")
        if claim is None:
            raise ClaimLookupError(f'could not find ResourceClaim "{namespace}/{name}"')
        if claim.metadata.deletion_timestamp is not None:
            raise ClaimLookupError(f'resourceclaim "{claim.metadata.name}" is being deleted')
        if must_check_owner and (claim.metadata.namespace != namespace or not is_controlled_by(claim, pod)):
            raise ClaimLookupError(
                f"ResourceClaim {claim.metadata.namespace}/{claim.metadata.name} was not created for pod "
                f"{namespace}/{pod.metadata.name} (pod is not owner)"
            )
        out.append(claim)
    return out
