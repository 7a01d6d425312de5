"""The resource pools a node can reach, gathered from ResourceSlices (upstream's pools_*.go)."""

from __future__ import annotations

import msgspec

from podwhy.helpers.nodeselectors import LazyNodeSelector
from podwhy.model import objects as o


class Pool(msgspec.Struct):
    driver: str
    name: str
    incomplete: bool = False
    invalid: bool = False
    invalid_reason: str = ""
    slices: list[o.ResourceSlice] = msgspec.field(default_factory=list)

    @property
    def pool_id(self) -> str:
        return f"{self.driver}/{self.name}"


def node_matches(node: o.Node, node_name: str, all_nodes: bool, selector: o.NodeSelector | None) -> bool:
    if node_name:
        return node.metadata.name == node_name
    if all_nodes:
        return True
    if selector is not None:
        return LazyNodeSelector.parse(selector).matches(node)
    return False


def gather_pools(slices: list[o.ResourceSlice], node: o.Node) -> list[Pool]:
    """The resource pools with devices reachable from the node (complete, incomplete or invalid)."""
    by_pool: dict[tuple[str, str], list[o.ResourceSlice]] = {}
    for rs in slices:
        spec = rs.spec
        # Partitionable devices are off: such slices are ignored entirely.
        if spec.per_device_node_selection is not None or spec.shared_counters:
            continue
        node_name, all_nodes = spec.node_name or "", bool(spec.all_nodes)
        if not (node_name or all_nodes or spec.node_selector is not None):
            continue  # some future way of node selection
        if not node_matches(node, node_name, all_nodes, spec.node_selector):
            continue
        pool_id = (spec.driver, spec.pool.name)
        current = by_pool.get(pool_id)
        if current is None or spec.pool.generation > current[0].spec.pool.generation:
            by_pool[pool_id] = [rs]
        elif spec.pool.generation == current[0].spec.pool.generation:
            current.append(rs)

    pools: list[Pool] = []
    for (driver, name), pool_slices in by_pool.items():
        want = pool_slices[0].spec.pool.resource_slice_count
        if len(pool_slices) != want:
            obsolete, all_slices = _slices_in_pool(slices, driver, name, pool_slices[0].spec.pool.generation)
            if obsolete:
                continue
            if len(all_slices) != want:
                pools.append(Pool(driver, name, incomplete=True))
                continue
        pools.append(_build_pool(driver, name, pool_slices))
    return pools


def _slices_in_pool(
    slices: list[o.ResourceSlice], driver: str, name: str, generation: int
) -> tuple[bool, list[o.ResourceSlice]]:
    found: list[o.ResourceSlice] = []
    for rs in slices:
        if rs.spec.driver != driver or rs.spec.pool.name != name:
            continue
        if rs.spec.pool.generation == generation:
            found.append(rs)
        elif rs.spec.pool.generation > generation:
            return True, []
    return False, found


def _build_pool(driver: str, name: str, pool_slices: list[o.ResourceSlice]) -> Pool:
    seen: set[str] = set()
    for rs in pool_slices:
        for device in rs.spec.devices:
            if device.name in seen:
                return Pool(driver, name, invalid=True, invalid_reason=f"duplicate device name {device.name}")
            seen.add(device.name)
    return Pool(driver, name, slices=pool_slices)
