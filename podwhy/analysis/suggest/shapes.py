"""The node shapes a group could be sized with: one new node per distinct allocatable (less its
DaemonSet and static pods), whether any holds one pod, and why no node qualifies for copying."""

from __future__ import annotations

import json
from collections.abc import Sequence

from podwhy.analysis.suggest.base import (
    MAX_TRIES_PER_KIND,
    RESOURCE_FIT,
)
from podwhy.analysis.suggest.nodes import (
    _kept_off_copies,
)
from podwhy.analysis.suggest.notes import (
    BeyondEveryNode,
    CopyKeeps,
    KeptOff,
    NoCopy,
    PluginMessage,
    ShapeLacks,
    ShortEverywhere,
)
from podwhy.analysis.suggest.shared import SizingShared
from podwhy.analysis.verdictgroups import VerdictGroups
from podwhy.framework.evidence import ResourceEvidence
from podwhy.framework.outcome import NodeVerdict
from podwhy.framework.runtime import Framework
from podwhy.framework.status import Status
from podwhy.framework.types import NodeInfo
from podwhy.model import objects as o
from podwhy.plugins.noderesources.fit import Fit, InsufficientResource, compute_pod_resource_request, fits_request
from podwhy.plugins.registry import CURED_BY_EMPTY_NODE
from podwhy.scheduler.cycle import CycleOutcome
from podwhy.snapshot.cluster import Snapshot


def allocatable_shapes(snapshot: Snapshot, shared: SizingShared | None = None) -> list[NodeInfo]:
    """One new node per distinct allocatable and room its DaemonSet and static pods take: each
    node's index with only those pods counted. Found once per SHARED (of this snapshot)."""
    return (shared or SizingShared(snapshot)).allocatable_shapes(_allocatable_shapes)


def _allocatable_shapes(shared: SizingShared) -> list[NodeInfo]:
    startup = shared.startup()
    shapes: dict[str, NodeInfo] = {}
    for node in shared.snapshot.nodes:
        info = NodeInfo.for_node(node)
        for pod in startup.get(node.metadata.name, []):
            info.add_pod_info(shared.pod_info(pod))
        key = json.dumps(node.status.allocatable, sort_keys=True) + repr((info.requested, len(info.pods)))
        shapes.setdefault(key, info)
    return list(shapes.values())


def beyond_every_node(pod: o.Pod, shapes: Sequence[NodeInfo], framework: Framework) -> BeyondEveryNode | None:
    """Why no new node shaped like one of the snapshot has room for one such pod (its requests
    against each distinct allocatable, less what the node's DaemonSet and static pods take,
    `shapes`, as NodeResourcesFit counts them); None when one has."""
    fit = framework.plugins.get(RESOURCE_FIT)
    if not isinstance(fit, Fit) or not shapes:
        return None
    request = compute_pod_resource_request(pod)
    lacking: list[tuple[NodeInfo, list[InsufficientResource]]] = []
    for info in shapes:
        insufficient = fits_request(request, info, fit.ignored_resources, fit.ignored_resource_groups, fit.dra_backed())
        if not insufficient:
            return None
        lacking.append((info, insufficient))
    # Resources no node has enough of, with the most any new node has free (allocatable less what
    # its DaemonSet and static pods take) and that node's allocatable.
    everywhere = set.intersection(*({r.resource_name for r in short} for _, short in lacking))
    most: dict[str, tuple[int, int, int]] = {}
    for _, short in lacking:
        for r in short:
            if r.resource_name in everywhere:
                best = most.get(r.resource_name, (r.requested, -1, 0))
                if r.capacity - r.used > best[1]:
                    most[r.resource_name] = (r.requested, r.capacity - r.used, r.capacity)
    started = any(room < capacity for _, room, capacity in most.values()) if most else any(i.pods for i, _ in lacking)
    if most:
        return BeyondEveryNode(
            started,
            short=tuple(
                ShortEverywhere(resource, requested, room, capacity)
                for resource, (requested, room, capacity) in sorted(most.items())
            ),
        )
    return BeyondEveryNode(
        started,
        lacking=tuple(
            ShapeLacks(info.name, tuple(r.resource_name for r in short)) for info, short in lacking[:MAX_TRIES_PER_KIND]
        ),
        more=max(len(lacking) - MAX_TRIES_PER_KIND, 0),
    )


def _verdicts(cycle: CycleOutcome) -> list[NodeVerdict]:
    assert cycle.outcome is not None
    return cycle.outcome.nodes


def _not_cured(failing: dict[str, Status]) -> list[tuple[str, KeptOff]]:
    """The rejections a new copy of the node would not cure: its plugins' messages."""
    kept: list[tuple[str, KeptOff]] = []
    for name, status in failing.items():
        exceeds = name == RESOURCE_FIT and any(
            isinstance(ev, ResourceEvidence) and ev.exceeds_allocatable for ev in status.evidence
        )
        if name not in CURED_BY_EMPTY_NODE or exceeds:
            kept.append((name, PluginMessage(status.message())))
    return kept


def _why_no_copy(
    snapshot: Snapshot, cycle: CycleOutcome, fit: Fit | None, shared: SizingShared | None = None
) -> NoCopy:
    """Why no node qualifies for copying: what rejects the pod on each node that a new copy of it
    would not cure (a copy runs the node's DaemonSet and static pods from the start)."""
    same = shared is not None and shared.snapshot is snapshot
    grouped = shared.verdict_groups(cycle) if shared is not None and same else VerdictGroups.of(_verdicts(cycle))
    nodes = shared.nodes_by_name() if shared is not None and same else {n.metadata.name: n for n in snapshot.nodes}
    counts: dict[tuple[str, KeptOff], int] = {}
    startup: dict[str, list[o.Pod]] | None = None
    # What the plugins' statuses say, once per group of nodes sharing them.
    said = [_not_cured(group.failing) for group in grouped.groups]
    for verdict, index in zip(grouped.verdicts, grouped.of_node, strict=True):
        kept = said[index]
        failing = grouped.groups[index].failing
        node = nodes.get(verdict.name)
        if not kept and failing and node is not None:
            startup = startup if startup is not None else (shared or SizingShared(snapshot)).startup()
            kept = _kept_off_copies(cycle.pod.pod, node, startup.get(verdict.name, []), fit)
        for key in kept:
            counts[key] = counts.get(key, 0) + 1
    return NoCopy(tuple(CopyKeeps(plugin, why, n) for (plugin, why), n in counts.items()))
