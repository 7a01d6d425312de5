"""Per request: the devices on a node that match it and how many are free, for the report."""

from __future__ import annotations

from msgspec import UNSET, UnsetType

from podwhy.cel.errors import CelError, CelNotEvaluatedError
from podwhy.framework.evidence import DeviceRequestEvidence
from podwhy.model import objects as o
from podwhy.plugins.dynamicresources.cel.compile import cel_device, evaluate_selector
from podwhy.plugins.dynamicresources.structured.allocator import Allocator
from podwhy.plugins.dynamicresources.structured.consumable_capacity import request_over_capacity
from podwhy.plugins.dynamicresources.structured.pools import gather_pools
from podwhy.plugins.dynamicresources.structured.requests import MODE_EXACT_COUNT, RequestView
from podwhy.plugins.dynamicresources.structured.types import AllocationError, DeviceID, claim_key


def describe_requests(allocator: Allocator, node: o.Node, claims: list[o.ResourceClaim]) -> list[DeviceRequestEvidence]:
    """Per request (or subrequest): devices on the node that match it and how many are free.

    Only for the report; the verdict comes from `Allocator.allocate`. A device whose selectors
    podwhy cannot evaluate counts as matching: the allocator rejects a node for want of devices
    only when it would even with every such device matching.
    """
    pools = [p for p in gather_pools(allocator.slices, node) if not p.incomplete and not p.invalid]
    devices = [
        ((rs.spec.driver, rs.spec.pool.name, device.name), device)
        for pool in pools
        for rs in pool.slices
        for device in rs.spec.devices
    ]
    out: list[DeviceRequestEvidence] = []
    for claim in claims:
        for request in claim.spec.devices.requests:
            views = (
                [(f"{request.name}/{sub.name}", RequestView.of_sub(sub)) for sub in request.first_available]
                if request.first_available
                else [(request.name, RequestView.of_exact(request.name, request.exactly or o.ExactDeviceRequest()))]
            )
            for name, view in views:
                failure: str | UnsetType = UNSET
                device_class = allocator.device_classes.get(view.device_class_name)
                selectors = (device_class.spec.selectors if device_class else []) + view.selectors
                matching = free = 0
                try:
                    for device_id, device in devices:
                        unselectable = device.binding_conditions and not allocator.binding_conditions
                        if unselectable or not _all_match(allocator, selectors, device, device_id):
                            continue
                        matching += 1
                        partitioned = bool(device.consumes_counters) and not allocator.partitionable_devices
                        if allocator.consumable_capacity and device.allow_multiple_allocations:
                            # A shared device is free while its capacity takes this request too.
                            left = request_over_capacity(
                                allocator.allocated_capacity.get(device_id, {}),
                                view.capacity_requests,
                                device.capacity,
                                {},
                            )
                            free += left is True and not partitioned
                        else:
                            free += device_id not in allocator.allocated_devices and not partitioned
                except (CelError, AllocationError) as exc:
                    failure = str(exc)
                out.append(
                    DeviceRequestEvidence(
                        claim=claim_key(claim),
                        request=name,
                        device_class=view.device_class_name,
                        allocation_mode=view.allocation_mode,
                        count=view.count if view.allocation_mode == MODE_EXACT_COUNT else UNSET,
                        error=failure,
                        matching_devices=matching,
                        free_matching_devices=free,
                    )
                )
    return out


def _all_match(allocator: Allocator, selectors: list[o.DeviceSelector], device: o.Device, device_id: DeviceID) -> bool:
    binding = cel_device(device, device_id[0])
    for selector in selectors:
        compiled = allocator.selector_cache.get(selector.cel.expression if selector.cel else "")
        if compiled.program is None:
            raise AllocationError(compiled.error)
        try:
            if not evaluate_selector(compiled.program, binding):
                return False
        except CelNotEvaluatedError:
            continue
    return True
