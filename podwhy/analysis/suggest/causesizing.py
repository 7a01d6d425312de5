"""`podwhy pending`'s summary: per Unschedulable cause, every owner together, what keeps its pods
off every node and one estimate of the nodes that hold them all."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

# The bounds are groups.py's, read from that module when used (a test that changes one patches it).
import podwhy.analysis.suggest.groups as group_sizing
from podwhy.analysis.blocking import BlockingCause, blocking_causes
from podwhy.analysis.causes import WillPreempt
from podwhy.analysis.owners import spec_signature
from podwhy.analysis.pending import CauseKey, CauseOrder, GroupKey, PendingPod
from podwhy.analysis.sizing import SizingOutcome
from podwhy.analysis.suggest.groups import GroupBudget, _framework_of, size_group
from podwhy.analysis.suggest.notes import GroupSizing, RunAgain, WorkBound
from podwhy.analysis.suggest.shapes import allocatable_shapes, beyond_every_node
from podwhy.analysis.suggest.shared import SizingShared
from podwhy.framework.runtime import Framework
from podwhy.heap import gc_deferred
from podwhy.scheduler.config import SchedulerConfig
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict

# `podwhy pending`'s summary: Unschedulable causes whose pods are placed together (and whose
# blocking causes are found), largest first; the nodes their estimates may spend in all.
MAX_CAUSES_SIZED = 5


class CauseSizing(msgspec.Struct):
    """The pods of one Unschedulable cause, every owner together: what keeps them off every node
    (analysis/blocking.py, from one full Filter cycle of the first pod) and one estimate of the
    nodes that hold them all, found by placing them all one after another (not per group
    figures added up); None when it was not looked for."""

    blocking: list[BlockingCause]
    sizing: GroupSizing | None


def size_causes(
    snapshot: Snapshot,
    pending: Sequence[PendingPod],
    config: SchedulerConfig,
    groups: Mapping[GroupKey, GroupSizing],
    frameworks: Mapping[str, Framework] | None = None,
    *,
    cause_order: CauseOrder,
    shared: SizingShared | None = None,
) -> dict[CauseKey, CauseSizing]:
    """For `podwhy pending`'s summary: per Unschedulable cause (PendingPod.cause_key), the largest
    MAX_CAUSES_SIZED, what blocks its pods and the nodes that hold them all. A cause of one group
    takes that group's sizing (`groups`, size_groups'); the pods of a cause of several groups are
    placed together, within MAX_GROUPS_PLACEMENT_WORK (groups.py's) node evaluations for all causes.
    `shared`: what size_groups found of the snapshot (the first pods' cycles among them)."""
    causes: dict[CauseKey, list[PendingPod]] = {}
    for item in pending:
        if item.verdict == Verdict.UNSCHEDULABLE and not isinstance(item.cause, WillPreempt):
            causes.setdefault(item.cause_key, []).append(item)
    ordered = sorted(causes.items(), key=lambda kv: (-len(kv[1]), cause_order(kv[0][1])))[:MAX_CAUSES_SIZED]
    names = frozenset(p.scheduler_name for p in config.profiles)
    found = shared or SizingShared(snapshot, frameworks)
    bases = found.frameworks
    bases.update({name: f for name, f in (frameworks or {}).items() if name not in bases})
    in_all = GroupBudget(
        work=group_sizing.MAX_GROUPS_PLACEMENT_WORK, bound=WorkBound(group_sizing.MAX_GROUPS_PLACEMENT_WORK, run=True)
    )
    out: dict[CauseKey, CauseSizing] = {}
    for key, items in ordered:
        pods = [item.pod for item in items]
        framework = _framework_of(pods[0], config, bases, snapshot, names)
        if framework is None:
            continue
        with gc_deferred():
            cycle = found.filter_cycle(pods[0], framework, config)
        blocking = blocking_causes(cycle, snapshot.nodes)
        keys = list(dict.fromkeys(item.group_key for item in items))
        if len(keys) == 1:
            out[key] = CauseSizing(blocking, groups.get(keys[0]))
            continue
        shapes = allocatable_shapes(snapshot, found)
        distinct = {spec_signature(p): p for p in pods}.values()
        too_big = next((why for p in distinct if (why := beyond_every_node(p, shapes, framework))), None)
        if too_big is not None:
            out[key] = CauseSizing(blocking, GroupSizing(SizingOutcome.NO_NODE_SHAPE, too_big))
            continue
        if cycle.verdict != Verdict.UNSCHEDULABLE:
            out[key] = CauseSizing(blocking, GroupSizing(SizingOutcome.SKIPPED, RunAgain(cycle.verdict)))
            continue
        budget = GroupBudget(
            work=min(group_sizing.MAX_GROUP_PLACEMENT_WORK, in_all.work),
            deadline=in_all.deadline,
            bound=in_all.bound,
        )
        before = budget.work
        out[key] = CauseSizing(blocking, size_group(snapshot, cycle, pods, config, None, budget, bases, shared=found))
        in_all.work -= before - budget.work
    return out
