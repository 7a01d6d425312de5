"""ResourceClaims through what the cluster does to them while `check` places replicas.

- The resource-claim controller creates a pod's claim from its ResourceClaimTemplate when the pod
  is created (pkg/controller/resourceclaim): named from `generateName: <pod>-<claim>-` (past 57
  characters both names are cut in proportion to their length and joined by one dash, as the
  controller does; the five characters are podwhy's own, as for every generated name), annotated
  `resource.kubernetes.io/pod-claim-name`, owned by the pod, and recorded in the pod's `status.resourceClaimStatuses`.
- When a replica is placed, DynamicResources' Reserve/PreBind take effect: each claim it allocated
  on that node gets the allocation (its devices, and the node selector of the slices they come
  from), and every claim of the pod names it in `reservedFor`. The next replica then sees those
  devices in use, and a claim shared by several pods keeps them on the node it was allocated for.
- When preemption evicts a pod, the controller drops it from its claims' `reservedFor`; a claim no
  pod uses any more is deallocated (its devices are free again), and a claim made for that pod
  from a template is deleted (syncClaim).
"""

from __future__ import annotations

from podwhy.model import objects as o
from podwhy.plugins import names
from podwhy.plugins.dynamicresources import DynamicResourcesState
from podwhy.scheduler.cycle import CycleOutcome
from podwhy.snapshot.cluster import Snapshot, ns_name
from podwhy.snapshot.names import suffix

POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
# The generateName the controller gives a claim stays within 57 characters (63 less the suffix).
MAX_BASE_LENGTH = 57


def claim_generate_name(pod_name: str, claim_name: str) -> str:
    """The controller's generateName: both names cut in proportion to their length when too long."""
    base = f"{pod_name}-{claim_name}-"
    if len(base) > MAX_BASE_LENGTH:
        full = len(base)
        base = (
            pod_name[: len(pod_name) * MAX_BASE_LENGTH // full]
            + "-"
            + claim_name[: len(claim_name) * MAX_BASE_LENGTH // full]
        )
    return base


def create_template_claims(pod: o.Pod, snapshot: Snapshot) -> None:
    """The claims the resource-claim controller makes for POD from its templates (a template the
    snapshot lacks makes none: the pod then waits, "ResourceClaim not created yet")."""
    namespace = pod.metadata.namespace
    for pod_claim in pod.spec.resource_claims:
        if pod_claim.resource_claim_template_name is None:
            continue
        template = snapshot.resource_claim_templates.get(ns_name(namespace, pod_claim.resource_claim_template_name))
        if template is None:
            continue
        base = claim_generate_name(pod.metadata.name, pod_claim.name)
        name = base + suffix(f"ResourceClaim/{namespace}/{pod.metadata.name}/{pod_claim.name}")
        owner = o.OwnerReference(api_version="v1", kind="Pod", name=pod.metadata.name, uid=pod.metadata.uid)
        owner.controller = True
        claim = o.ResourceClaim(
            metadata=o.ObjectMeta(
                name=name,
                namespace=namespace,
                uid=f"uid-claim-{namespace}-{name}",
                labels=dict(template.spec.metadata.labels),
                annotations={**template.spec.metadata.annotations, POD_CLAIM_NAME_ANNOTATION: pod_claim.name},
                owner_references=[owner],
            ),
            spec=template.spec.spec,
        )
        snapshot.resource_claims[ns_name(namespace, name)] = claim
        snapshot.kinds_seen.add("ResourceClaim")
        pod.status.resource_claim_statuses.append(
            o.PodResourceClaimStatus(name=pod_claim.name, resource_claim_name=name)
        )


def _node_selector(node: str) -> o.NodeSelector:
    field = o.NodeSelectorRequirement(key="metadata.name", operator="In", values=[node])
    return o.NodeSelector(node_selector_terms=[o.NodeSelectorTerm(match_fields=[field])])


def reserve_claims(pod: o.Pod, node: str, cycle: CycleOutcome, snapshot: Snapshot) -> None:
    """Reserve/PreBind of DynamicResources for POD placed on NODE: the allocations its Filter found
    there written into the claims, and the pod in every claim's reservedFor."""
    outcome = cycle.outcome
    if outcome is None or not pod.spec.resource_claims:
        return
    data = outcome.state.get(names.DYNAMIC_RESOURCES)
    if not isinstance(data, DynamicResourcesState):
        return
    slices = {(s.spec.driver, s.spec.pool.name): s for s in snapshot.resource_slices}
    to_allocate = data.claims_to_allocate()
    allocations = data.node_allocations.get(node, [])
    for claim, devices in zip(to_allocate, allocations, strict=False):
        selector: o.NodeSelector | None = None
        for device in devices:
            found = slices.get((device.driver, device.pool))
            if found is not None and found.spec.node_name:
                selector = _node_selector(node)
            elif found is not None and found.spec.node_selector is not None and selector is None:
                selector = found.spec.node_selector
        results = [
            o.DeviceRequestAllocationResult(
                request=d.request, driver=d.driver, pool=d.pool, device=d.device, admin_access=d.admin_access or None
            )
            for d in devices
        ]
        claim.status.allocation = o.AllocationResult(
            devices=o.DeviceAllocationResult(results=results), node_selector=selector
        )
    reference = o.ResourceClaimConsumerReference(resource="pods", name=pod.metadata.name, uid=pod.metadata.uid)
    for claim in data.claims[: data.num_user_claims]:
        if all(ref.uid != reference.uid for ref in claim.status.reserved_for):
            claim.status.reserved_for.append(reference)


def release_claims(pod: o.Pod, snapshot: Snapshot) -> None:
    """What the resource-claim controller does to POD's claims once the pod is gone (evicted)."""
    namespace = pod.metadata.namespace
    generated = {status.resource_claim_name for status in pod.status.resource_claim_statuses}
    names = {c.resource_claim_name for c in pod.spec.resource_claims if c.resource_claim_name} | generated
    for name in sorted(n for n in names if n):
        key = ns_name(namespace, name)
        claim = snapshot.resource_claims.get(key)
        if claim is None:
            continue
        remaining = [ref for ref in claim.status.reserved_for if ref.uid != pod.metadata.uid]
        if len(remaining) == len(claim.status.reserved_for):
            continue
        claim.status.reserved_for = remaining
        if remaining:
            continue
        # The last consumer stopped using it: deallocated (structured parameters: the allocation is cleared).
        claim.status.allocation = None
        owner = next((ref for ref in claim.metadata.owner_references if ref.controller and ref.kind == "Pod"), None)
        if owner is not None and owner.uid == pod.metadata.uid:
            del snapshot.resource_claims[key]  # made for the pod, which will not run
