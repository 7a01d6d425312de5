"""addNodesForGroup: how many more nodes shaped like an existing one a whole pending group needs,
found by placing its pods one after another as the scheduler would (explain, and `podwhy pending`)."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from enum import StrEnum

import msgspec

from podwhy.analysis.autoscaling.facts import AutoscalingAnalysis
from podwhy.analysis.causes import WillPreempt
from podwhy.analysis.owners import spec_signature
from podwhy.analysis.pending import CauseOrder, GroupKey, PendingPod
from podwhy.analysis.sizing import SizingOutcome
from podwhy.analysis.suggest.autoscaling import group_levers
from podwhy.analysis.suggest.base import (
    INTER_POD_AFFINITY,
    MAX_RERUNS,
    TIME_BUDGET_SECONDS,
    _Verifier,
)
from podwhy.analysis.suggest.facts import AddNodesForGroup, Command, NodeAdder, ScaleNodeGroup, Suggestion
from podwhy.analysis.suggest.nodes import (
    _copy_candidates,
    _fit_plugin,
    _node_object,
    node_adder,
    startup_counts,
)
from podwhy.analysis.suggest.notes import (
    GroupNotSized,
    GroupSizing,
    NoCount,
    NoCycle,
    NoShapeFits,
    NotLargest,
    PluginsNotEvaluated,
    RunAgain,
    Sized,
    StoppedByTime,
    StoppedByWork,
    SuggestionsBound,
    TooLittleLeft,
    TooManyNodes,
    WorkBound,
)
from podwhy.analysis.suggest.shapes import _why_no_copy, allocatable_shapes, beyond_every_node
from podwhy.analysis.suggest.shared import SizingShared
from podwhy.cluster.nodecopy import (
    copy_names,
    node_copy,
    startup_pods,
    with_copies,
)
from podwhy.cluster.placement import KnownRejections, Placer
from podwhy.framework.runtime import Framework
from podwhy.heap import gc_deferred
from podwhy.model import objects as o
from podwhy.plugins.registry import NODE_LOCAL_FILTERS
from podwhy.scheduler.config import SchedulerConfig, profile_for_pod
from podwhy.scheduler.cycle import CycleOutcome, make_framework
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict

# Copies of one node a group may be sized with, and the node evaluations one group's sizing may
# spend: per scheduling cycle, FILTER_WEIGHT for each node it filters (every filter plugin runs
# there), plus one for every node of the cluster when it scores or when the group's pods have
# constraints that look across nodes (PreScore and such PreFilters count pods on every node).
# About 1 s for one group at 5,000 nodes on a 2-core machine. Both are counts, so a result does
# not depend on the machine's speed; the time budget is a safety net such work stays well inside.
MAX_ADDED_NODES = 100


MAX_GROUP_PLACEMENT_WORK = 250_000


FILTER_WEIGHT = 4


GROUP_TIME_BUDGET_SECONDS = 10.0


class GroupBudget(msgspec.Struct):
    """Node evaluations left, shared by the groups sized in one run, and when to stop anyway."""

    work: int = msgspec.field(default_factory=lambda: MAX_GROUP_PLACEMENT_WORK)
    deadline: float = msgspec.field(default_factory=lambda: time.monotonic() + GROUP_TIME_BUDGET_SECONDS)
    # The bound `work` stands for, as the note says it.
    bound: WorkBound = msgspec.field(default_factory=lambda: WorkBound(MAX_GROUP_PLACEMENT_WORK))
    # What stopped the search: "" (nothing yet), "work" or "time".
    stopped_by: str = ""

    def spend(self, evaluations: int) -> bool:
        if time.monotonic() > self.deadline:
            self.stopped_by = "time"
        elif evaluations > self.work:
            self.stopped_by = "work"
        else:
            self.work -= evaluations
            return True
        return False

    def stop_note(self, nodes: int) -> StoppedByTime | StoppedByWork:
        if self.stopped_by == "time":
            return StoppedByTime(GROUP_TIME_BUDGET_SECONDS)
        return StoppedByWork(self.bound, nodes)


class _NoCount(StrEnum):
    """Why one node shape gave no count."""

    NONE_FITS = "noneFits"  # not one pod fits on a new copy
    NO_MORE = "noMore"  # more copies placed no more pods
    TOO_MANY = "tooMany"  # more than MAX_ADDED_NODES copies would be needed
    BOUND = "bound"  # the budget ran out


class _Placed(msgspec.Struct):
    count: int
    nodes: list[str]


def _required_pod_affinity(pod: o.Pod) -> bool:
    affinity = pod.spec.affinity
    if affinity is None:
        return False
    return bool(
        (affinity.pod_affinity and affinity.pod_affinity.required_during_scheduling_ignored_during_execution)
        or (
            affinity.pod_anti_affinity
            and affinity.pod_anti_affinity.required_during_scheduling_ignored_during_execution
        )
    )


def _uses_claims(pod: o.Pod) -> bool:
    return bool(pod.spec.resource_claims) or any(
        v.persistent_volume_claim is not None or v.ephemeral is not None for v in pod.spec.volumes
    )


def static_filters(pods: Sequence[o.Pod]) -> frozenset[str]:
    """Filters whose rejection of a node, while these pods are placed one after another, holds
    until a pod is bound to that node: the node-local ones, and InterPodAffinity when no pod of the
    group has required pod (anti-)affinity terms (it then only applies the anti-affinity of pods
    already running, which placing these pods does not change)."""
    if any(_required_pod_affinity(p) for p in pods):
        return NODE_LOCAL_FILTERS
    return NODE_LOCAL_FILTERS | {INTER_POD_AFFINITY}


def node_local_group(framework: Framework, cycle: CycleOutcome, pods: Sequence[o.Pod], static: frozenset[str]) -> bool:
    """Whether every filter's verdict for the group's pods, on any node, changes only when a pod is
    bound to that node: identical pods, no claims (volume binding and ReadWriteOncePod look across
    nodes), and every filter of the profile static or skipped at PreFilter for them (PodTopologySpread
    skips pods without DoNotSchedule constraints; the volume and DRA plugins, pods without claims).

    Then the count is the same wherever each pod goes: an added node holds the same number c of
    them whichever pods went before it elsewhere, no existing node ever takes one, so k copies hold
    min(pods, k*c) however the pods are spread over them. Sizing may then search without scoring."""
    outcome = cycle.outcome
    if outcome is None or len({spec_signature(p) for p in pods}) != 1 or _uses_claims(pods[0]):
        return False
    passing = {rec.plugin for rec in outcome.pre_filter if rec.status.is_skip() or rec.status.not_evaluated is not None}
    passing |= outcome.not_evaluated.keys()
    return all(
        name in static or name in passing
        for name in framework.profile.filter
        if name in framework.plugins and framework.plugins[name].implements("filter")
    )


class _GroupSizer(msgspec.Struct):
    """Places a group's pods one after another, as the scheduler would, on the snapshot plus
    new copies of one node (each with the node's DaemonSet and static pods)."""

    snapshot: Snapshot
    config: SchedulerConfig
    pods: Sequence[o.Pod]
    budget: GroupBudget
    # Per profile, the unchanged snapshot's indexes: each placement copies them and adds the
    # copies of the node, rather than indexing every pod again.
    frameworks: dict[str, Framework]
    # Nodes of the snapshot known to reject the first pod's spec (from its cycle on the snapshot).
    known: KnownRejections | None = None
    # The filters whose rejections are remembered while placing (static_filters).
    static: frozenset[str] = NODE_LOCAL_FILTERS
    shared: SizingShared | None = None
    signatures: list[bytes] = msgspec.field(default_factory=list)

    def __post_init__(self) -> None:
        self.signatures = [spec_signature(p) for p in self.pods]

    def place(
        self, node: o.Node, copies: int, first_fit: bool = False, learned: bool = True
    ) -> tuple[int, list[str]] | None:
        """How many pods got placed before the first that stays Pending, and the nodes they went
        to; None past the bounds. `first_fit`: no scoring, the first node that fits (only for
        node-local groups, whose count does not depend on it). Without `learned`, nothing known
        before is used: the nodes that reject the group are learned from this placement alone."""
        # Fresh lists: binding appends to the snapshot's pods, never to the shared one's.
        startup = self.shared.startup().get(node.metadata.name, []) if self.shared is not None else None
        changed, added = with_copies(self.snapshot, node, copies, startup)
        nodes = changed.nodes
        if not self.budget.spend(len(nodes)):
            return None
        placer = Placer(changed, self.config, placement_only=True, first_fit=first_fit)
        for name, base in self.frameworks.items():
            placer.frameworks[name] = base.on(base.handle.with_nodes(changed, added))
        # Per spec, the nodes known to reject it; a bound pod makes every spec look at its node again.
        known: dict[bytes, KnownRejections] = {}
        if learned and self.known is not None and self.signatures:
            known[self.signatures[0]] = self.known.copy()
        used: list[str] = []
        with gc_deferred():
            for pod, signature in zip(self.pods, self.signatures, strict=True):
                rejecting = known.setdefault(signature, KnownRejections(self.static))
                filtered = FILTER_WEIGHT * (len(nodes) - len(rejecting.verdicts))
                if not self.budget.spend(filtered if first_fit else filtered + len(nodes)):
                    return None
                # Binding sets spec.nodeName on the pod it is given: give it a copy.
                placement = placer.schedule(
                    msgspec.structs.replace(pod, spec=msgspec.structs.replace(pod.spec)), rejecting
                )
                if not placement.placed:
                    break
                used.append(placement.node)
                for other in known.values():
                    other.forget(placement.node)
        return len(used), used

    def nodes_needed(self, node: o.Node, first_fit: bool = False) -> _Placed | _NoCount:
        """The fewest copies of the node on which every pod of the group gets placed, with the nodes
        they go to (from the placement with that many copies); else why there is none."""
        count = len(self.pods)
        fails, fits = 0, 1  # copies known not to do (none: the pods are Pending), copies tried
        result = self.place(node, fits, first_fit)
        if result is None:
            return _NoCount.BOUND
        if result[0] == 0:
            return _NoCount.NONE_FITS
        placed, used = result
        while placed < count:
            if fits >= MAX_ADDED_NODES:
                return _NoCount.TOO_MANY
            fails = fits
            # Pods per added node so far, extrapolated; at least one node more.
            more = min(MAX_ADDED_NODES, max(fits + 1, math.ceil(count * fits / placed)))
            result = self.place(node, more, first_fit)
            if result is None:
                return _NoCount.BOUND
            if result[0] <= placed:
                return _NoCount.NO_MORE  # more copies placed no more pods: they never all fit
            fits, (placed, used) = more, result
        # The fewest: one copy fewer must not do (when the extrapolation overshot, search down).
        probe = fits - 1
        while fits - fails > 1:
            result = self.place(node, probe, first_fit)
            if result is None:
                return _NoCount.BOUND
            if result[0] >= count:
                fits, used = probe, result[1]
            else:
                fails = probe
            probe = (fails + fits) // 2
        return _Placed(fits, used)


def _framework_of(
    pod: o.Pod, config: SchedulerConfig, bases: dict[str, Framework], snapshot: Snapshot, names: frozenset[str]
) -> Framework | None:
    """The framework of POD's profile over SNAPSHOT, made once per profile (kept in BASES); None
    when no profile has the pod's schedulerName."""
    profile = profile_for_pod(config, pod)
    if profile is None:
        return None
    if profile.scheduler_name not in bases:
        bases[profile.scheduler_name] = make_framework(snapshot, profile, names)
    return bases[profile.scheduler_name]


def size_group(
    snapshot: Snapshot,
    cycle: CycleOutcome,
    pods: Sequence[o.Pod],
    config: SchedulerConfig,
    owner: str | None,
    budget: GroupBudget | None = None,
    frameworks: Mapping[str, Framework] | None = None,
    autoscaling: AutoscalingAnalysis | None = None,
    shared: SizingShared | None = None,
) -> GroupSizing:
    """The cluster-autoscaler question for a whole pending group (pods of one owner): how many more
    nodes shaped like an existing one it takes for every pod to fit, found by placing the pods one
    after another as the scheduler would. `cycle` is the first pod's with every plugin on every
    node (it says which nodes a new copy would cure, and which reject the pod for good).
    `frameworks` (per profile name, over `snapshot`) saves indexing it again; `shared`, what
    other groups' sizing found of the same snapshot.

    The count is the fewest for which every pod gets placed (one fewer does not do), and verified:
    by the placement with that many copies itself, or, when the search ran without scoring (a
    node-local group, see node_local_group), by one more placement as the scheduler would, on the
    whole cluster with that many copies, that uses nothing the search learned."""
    budget = budget or GroupBudget()
    if cycle.outcome is None or not pods:
        return GroupSizing(SizingOutcome.SKIPPED, NoCycle())
    if cycle.outcome.not_evaluated and cycle.not_evaluated is not None:
        # Placements would pass plugins podwhy cannot run: a count from them would claim too much.
        return GroupSizing(SizingOutcome.SKIPPED, PluginsNotEvaluated(cycle.not_evaluated))
    nodes = {n.metadata.name: n for n in snapshot.nodes}
    shared = shared or SizingShared(snapshot)
    bases = shared.frameworks
    bases.update({name: f for name, f in (frameworks or {}).items() if name not in bases})
    names = frozenset(p.scheduler_name for p in config.profiles)
    for pod in pods[1:]:
        _framework_of(pod, config, bases, snapshot, names)
    base = _framework_of(pods[0], config, bases, snapshot, names)
    candidates = _copy_candidates(snapshot, cycle, _fit_plugin(base), shared)
    if not candidates:
        return GroupSizing(SizingOutcome.NO_NODE_SHAPE, _why_no_copy(snapshot, cycle, _fit_plugin(base), shared))
    static = static_filters(pods)
    known = KnownRejections(static)
    known.learn(cycle.outcome)
    fast = base is not None and node_local_group(base, cycle, pods, static)
    sizer = _GroupSizer(snapshot, config, pods, budget, dict(bases), known, static, shared)
    why: list[NoShapeFits] = []
    stopped: TooManyNodes | None = None
    for name in candidates:
        needed = sizer.nodes_needed(nodes[name], first_fit=fast)
        if isinstance(needed, _Placed) and fast:
            # Searched without scoring: place them once more as the scheduler would, learning nothing.
            verified = sizer.place(nodes[name], needed.count, learned=False)
            if verified is None:
                needed = _NoCount.BOUND
            elif verified[0] >= len(pods):
                needed.nodes = verified[1]
            else:
                needed = sizer.nodes_needed(nodes[name])
        if needed == _NoCount.BOUND:
            return GroupSizing(SizingOutcome.STOPPED, budget.stop_note(len(snapshot.nodes)))
        if isinstance(needed, _Placed):
            return _group_suggestion(snapshot, nodes[name], needed, pods, owner, node_adder(autoscaling, nodes[name]))
        if needed == _NoCount.TOO_MANY:
            stopped = TooManyNodes(MAX_ADDED_NODES, name)
        else:
            why.append(NoShapeFits(name, needed == _NoCount.NONE_FITS))
    if stopped is not None:
        return GroupSizing(SizingOutcome.STOPPED, stopped)
    return GroupSizing(SizingOutcome.NO_COUNT, NoCount(tuple(why)))


def _group_suggestion(
    snapshot: Snapshot,
    node: o.Node,
    placed: _Placed,
    pods: Sequence[o.Pod],
    owner: str | None,
    adder: NodeAdder | None,
) -> GroupSizing:
    name, count = node.metadata.name, placed.count
    added = [node_copy(node, copy_name) for copy_name in copy_names(snapshot, name, count)]
    suggestion = Suggestion(
        AddNodesForGroup(len(pods), owner, count, name, startup_counts(startup_pods(snapshot, name)), adder),
        nodes=sorted(set(placed.nodes)),
        # Only the Nodes: the DaemonSet controller and the kubelet create their pods.
        patches=[_node_object(n) for n in added],
        command=Command(note=ScaleNodeGroup(name, count, adder)),
    )
    return GroupSizing(SizingOutcome.SIZED, Sized(count, name), suggestion)


def _suggest_group_nodes(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    if v.config is None or len(v.group) < 2:
        return []
    if v.exhausted:
        v.notes.append(GroupNotSized(len(v.group), v.group_owner, SuggestionsBound(MAX_RERUNS, TIME_BUDGET_SECONDS)))
        return []
    sizing = size_group(
        v.snapshot,
        cycle,
        v.group,
        v.config,
        v.group_owner,
        frameworks={v.profile.scheduler_name: v._framework()},
        autoscaling=v.autoscaling,
    )
    if sizing.suggestion is not None:
        return [sizing.suggestion]
    if sizing.outcome in (SizingOutcome.STOPPED, SizingOutcome.SKIPPED):
        v.notes.append(GroupNotSized(len(v.group), v.group_owner, sizing.note))
    return []


# `podwhy pending`: groups sized, largest first, and the node evaluations all of them may spend.
MAX_GROUPS_SIZED = 5


MAX_GROUPS_PLACEMENT_WORK = 4 * MAX_GROUP_PLACEMENT_WORK


def size_groups(
    snapshot: Snapshot,
    pending: Sequence[PendingPod],
    config: SchedulerConfig,
    frameworks: Mapping[str, Framework] | None = None,
    *,
    cause_order: CauseOrder,
    autoscaling: Mapping[GroupKey, AutoscalingAnalysis] | None = None,
    shared: SizingShared | None = None,
) -> dict[GroupKey, GroupSizing]:
    """For `podwhy pending`: per group of Unschedulable pods (PendingPod.group_key), how many more
    nodes shaped like an existing one every pod of it needs, or why that was not found. Groups
    whose pods no node shape has room for are told so at once; of the others, the largest
    MAX_GROUPS_SIZED are sized (groups of one size in the report's order: `cause_order`), within
    MAX_GROUPS_PLACEMENT_WORK node evaluations in all. `frameworks` (per profile name, over
    `snapshot`, e.g. the classifier's) are reused. `autoscaling`: the autoscalers' view of a
    group's first pod (analyse_groups'), which says who would add the nodes, and gives a group
    at its node group's max size the lever of raising it (`levers`). `shared`: what is found of
    the snapshot once for every group (size_causes takes it too)."""
    views = autoscaling or {}
    # Without autoscalers every group's view is the same: analyse_groups made one.
    none_known = next((a for a in views.values() if not a.views), None)
    groups: dict[GroupKey, list[o.Pod]] = {}
    for item in pending:
        # Pods preemption places need no node.
        if item.verdict == Verdict.UNSCHEDULABLE and not isinstance(item.cause, WillPreempt):
            groups.setdefault(item.group_key, []).append(item.pod)
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), cause_order(kv[0][1]), kv[0][2] or ""))
    names = frozenset(p.scheduler_name for p in config.profiles)
    found = shared or SizingShared(snapshot, frameworks)
    bases = found.frameworks
    bases.update({name: f for name, f in (frameworks or {}).items() if name not in bases})
    in_all = GroupBudget(
        work=MAX_GROUPS_PLACEMENT_WORK,
        bound=WorkBound(MAX_GROUPS_PLACEMENT_WORK, run=True),
    )
    shapes = allocatable_shapes(snapshot, found)
    sized = 0
    out: dict[GroupKey, GroupSizing] = {}
    for key, pods in ordered:
        framework = _framework_of(pods[0], config, bases, snapshot, names)
        if framework is None:
            continue
        distinct = {spec_signature(p): p for p in pods}.values()
        too_big = next((why for p in distinct if (why := beyond_every_node(p, shapes, framework))), None)
        if too_big is not None:
            out[key] = GroupSizing(SizingOutcome.NO_NODE_SHAPE, too_big)
            continue
        if sized >= MAX_GROUPS_SIZED:
            out[key] = GroupSizing(SizingOutcome.SKIPPED, NotLargest(MAX_GROUPS_SIZED))
            continue
        # Every plugin's verdict on every node: which nodes a new copy would cure.
        if not in_all.spend(FILTER_WEIGHT * len(snapshot.nodes)):
            out[key] = GroupSizing(
                SizingOutcome.SKIPPED,
                TooLittleLeft(in_all.bound) if in_all.stopped_by == "work" else in_all.stop_note(len(snapshot.nodes)),
            )
            continue
        sized += 1
        with gc_deferred():
            cycle = found.filter_cycle(pods[0], framework, config)
        if cycle.verdict != Verdict.UNSCHEDULABLE:
            out[key] = GroupSizing(SizingOutcome.SKIPPED, RunAgain(cycle.verdict))
            continue
        # Each group gets at most its own share of what the run has left.
        allowed = min(MAX_GROUP_PLACEMENT_WORK, in_all.work)
        budget = GroupBudget(
            work=allowed,
            deadline=in_all.deadline,
            bound=in_all.bound if allowed < MAX_GROUP_PLACEMENT_WORK else WorkBound(MAX_GROUP_PLACEMENT_WORK),
        )
        out[key] = size_group(snapshot, cycle, pods, config, key[2], budget, bases, views.get(key, none_known), found)
        in_all.work -= allowed - budget.work
    for key, pods in ordered:
        analysis = views.get(key)
        if analysis is not None and key in out:
            out[key].levers = group_levers(snapshot, analysis, out[key].suggestion, len(pods), key[2])
    return out
