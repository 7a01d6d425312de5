"""DRA-backed extended resources in the node-resource scorers (DRAExtendedResource, on from v1.36).

When a scored resource is an extended resource a DeviceClass serves (its `extendedResourceName`,
or `deviceclass.resource.kubernetes.io/<class>`) and the node does not advertise it, the scorers
of NodeResourcesFit and NodeResourcesBalancedAllocation take the node's capacity of it from the
ResourceSlices and its use from the allocated claims, as upstream's resource_allocation.go counts
them (calculateDRAResourceTotals): every device the node can reach that matches the class is one
unit of capacity, and one in use when a claim's allocation holds it.

Unlike the allocator, this count reads every slice as it is (no pool generations, no complete
pools, no counters) and a device in use by any claim (shared or not) counts as used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from podwhy.cel.errors import CelError
from podwhy.features.kubefeatures import DRA_EXTENDED_RESOURCE
from podwhy.helpers.nodeselectors import LazyNodeSelector
from podwhy.model import objects as o
from podwhy.plugins.dynamicresources.cel.compile import SelectorCache, cel_device, evaluate_selector
from podwhy.plugins.dynamicresources.extended import extended_resource_classes, is_dra_extended_resource_name
from podwhy.plugins.dynamicresources.structured.types import DeviceID

if TYPE_CHECKING:
    from podwhy.framework.handle import Handle


class _CountError(Exception):
    """What makes upstream give up counting a resource on a node (it logs it and scores without)."""


def devices_in_use(claims: Mapping[str, o.ResourceClaim]) -> frozenset[DeviceID]:
    """The devices allocated claims hold (IsDeviceAllocated over GatherAllocatedState): every
    result but an admin-access one, a shared device's as much as a dedicated one's."""
    in_use: set[DeviceID] = set()
    for claim in claims.values():
        allocation = claim.status.allocation
        if allocation is None:
            continue
        for result in allocation.devices.results:
            if not result.admin_access:
                in_use.add((result.driver, result.pool, result.device))
    return frozenset(in_use)


class DraScoringState(msgspec.Struct):
    """draPreScoreState: what PreScore gathers once for every node's count."""

    classes: Mapping[str, o.DeviceClass]
    slices: Sequence[o.ResourceSlice]
    in_use: frozenset[DeviceID]
    selector_cache: SelectorCache = msgspec.field(default_factory=SelectorCache)

    def totals(self, node: o.Node, resource: str) -> tuple[int, int]:
        """(devices of the resource's class the node can reach, how many of them are in use);
        (0, 0) when no class serves it, or when a node selector or a class selector fails."""
        device_class = self.classes.get(resource)
        if device_class is None:
            return 0, 0
        try:
            return self._count(node, device_class)
        except _CountError:
            return 0, 0

    def _count(self, node: o.Node, device_class: o.DeviceClass) -> tuple[int, int]:
        capacity = in_use = 0
        for rs in self.slices:
            spec = rs.spec
            for device in _reachable_devices(node, spec):
                if device_class.spec.selectors and not self._matches_class(device, spec.driver, device_class):
                    continue
                capacity += 1
                if (spec.driver, spec.pool.name, device.name) in self.in_use:
                    in_use += 1
        return capacity, in_use

    def _matches_class(self, device: o.Device, driver: str, device_class: o.DeviceClass) -> bool:
        binding: dict[str, Any] | None = None
        for selector in device_class.spec.selectors:
            if selector.cel is None:
                continue
            compiled = self.selector_cache.get(selector.cel.expression)
            if compiled.program is None:
                raise _CountError(compiled.error)
            try:
                if binding is None:
                    # The scorer's device carries the driver, attributes and capacity only.
                    binding = {**cel_device(device, driver), "allowMultipleAllocations": False}
                if not evaluate_selector(compiled.program, binding):
                    return False
            except CelError as exc:
                raise _CountError(exc.message) from None
        return True


def _selector_matches(node: o.Node, node_name: str, all_nodes: bool, selector: o.NodeSelector | None) -> bool:
    """structured.NodeMatches; a selector that does not parse is an error."""
    if node_name:
        return node.metadata.name == node_name
    if all_nodes:
        return True
    if selector is None:
        return False
    parsed = LazyNodeSelector.parse(selector)
    problems = [p for term in parsed.terms for p in term.parse_errors]
    if problems:
        raise _CountError("; ".join(problems))
    return parsed.matches(node)


def _reachable_devices(node: o.Node, spec: o.ResourceSliceSpec) -> list[o.Device]:
    """The slice's devices the node can reach, with upstream's shortcuts: a slice naming no node,
    not for all nodes and without a selector counts everywhere; a device with per-device node
    selection that names none of them counts nowhere."""
    name = node.metadata.name
    if spec.per_device_node_selection:
        reachable: list[o.Device] = []
        for device in spec.devices:
            device_node = device.node_name or ""
            if device.all_nodes or (device_node and device_node == name):
                reachable.append(device)
            elif device.node_selector is not None and _selector_matches(
                node, device_node, bool(device.all_nodes), device.node_selector
            ):
                reachable.append(device)
        return reachable
    slice_node = spec.node_name or ""
    if not spec.all_nodes and slice_node != name and spec.node_selector is not None:
        if not _selector_matches(node, slice_node, False, spec.node_selector):
            return []
    elif not spec.all_nodes and slice_node and slice_node != name:
        return []
    return spec.devices


def dra_scoring_state(handle: Handle, resources: Sequence[str]) -> DraScoringState | None:
    """getDRAPreScoredParams: with DRAExtendedResource on, the state when a DeviceClass serves one
    of the scored resources; None otherwise (nothing to count)."""
    if not handle.emulation.enabled(DRA_EXTENDED_RESOURCE):
        return None
    snapshot = handle.snapshot
    classes = extended_resource_classes(snapshot.device_classes)
    if not any(is_dra_extended_resource_name(name) and name in classes for name in resources):
        return None
    return DraScoringState(classes, snapshot.resource_slices, devices_in_use(snapshot.resource_claims))


def dra_scoring_kinds(handle: Handle, resources: Sequence[str], pod_requests: Sequence[int]) -> set[str]:
    """What the count reads, when the pod requests a scored resource a DeviceClass may serve."""
    if not handle.emulation.enabled(DRA_EXTENDED_RESOURCE):
        return set()
    requested = [name for name, request in zip(resources, pod_requests, strict=True) if request]
    if any(is_dra_extended_resource_name(name) for name in requested):
        return {"DeviceClass", "ResourceSlice", "ResourceClaim"}
    return set()
