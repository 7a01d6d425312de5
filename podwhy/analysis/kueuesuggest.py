"""The knobs that would admit a Workload Kueue holds, each verified by recomputing Kueue's decision
(cluster/kueue's explain_workload) on copies of the objects with the change applied: raise the
ClusterQueue's nominalQuota, or its borrowingLimit, of the short resource in its flavor; raise a
cohort member's lendingLimit (quota taken from that member's guarantee); submit to an existing
LocalQueue when the named one is missing; tolerate a flavor's taint. A change is offered only when
the Workload is then admitted in Kueue's next cycle (it fits and nothing ahead of it fits first,
analysis/kueue.py's rule), with the smallest amount that does it. Nothing is ever lowered.
kueuecommands.py writes the kubectl commands."""

from __future__ import annotations

import copy
import difflib
from collections.abc import Callable, Iterator

import msgspec

from podwhy.analysis.kueuecommands import (
    local_queue_command,
    quota_commands,
    toleration_command,
)
from podwhy.analysis.kueuefacts import (
    KueueFacts,
    KueueKnob,
    KueueSuggestion,
    QueueSwitch,
    QuotaRaise,
    TaintToleration,
)
from podwhy.cluster.kueue.admission import KueueContext, KueueObjects, Stage, Verdict, VerdictOptions, explain_workload
from podwhy.cluster.kueue.assignment import PreemptionMode, QuotaCheck
from podwhy.cluster.kueue.flavormatch import untolerated_taint
from podwhy.cluster.kueue.resourcenode import build_tree
from podwhy.cluster.kueue.resources import DEFAULT_FORMATTER, UNLIMITED, FlavorResource, amount_from_quantity
from podwhy.model import objects as o
from podwhy.model.quantity import QuantityInput
from podwhy.model.records import replace

# How many short resources one quota suggestion raises, one after the other (each recomputed).
MAX_SHORT_RESOURCES = 4
# How many times the search doubles a raise that does not yet make the resource fit.
MAX_DOUBLINGS = 20
# The quota fields each knob sets (a ClusterQueue's resourceGroups[].flavors[].resources[]).
QUOTA_FIELDS = {
    KueueKnob.NOMINAL_QUOTA: "nominal_quota",
    KueueKnob.BORROWING_LIMIT: "borrowing_limit",
    KueueKnob.LENDING_LIMIT: "lending_limit",
}
_TAINT_EFFECTS = ("NoSchedule", "NoExecute")


def admits_next(workload: o.KueueWorkload, objs: KueueObjects, options: VerdictOptions) -> bool:
    """Kueue admits WORKLOAD in its next cycle over OBJS (KueueContext.admits_next)."""
    context = KueueContext(objs, options)
    return context.admits_next(context.explain(workload))


def suggestions_for(facts: KueueFacts, objs: KueueObjects, options: VerdictOptions) -> tuple[KueueSuggestion, ...]:
    """Every verified knob for a Workload not admitted (() for anything else), in the order a
    person would turn them: its own ClusterQueue's quota first, then the queue, then taints."""
    wl = facts.workload
    if wl is None or facts.admitted or facts.inconclusive:
        return ()
    found = [
        _quota_suggestion(KueueKnob.NOMINAL_QUOTA, wl, facts.cluster_queue, objs, options),
        _quota_suggestion(KueueKnob.BORROWING_LIMIT, wl, facts.cluster_queue, objs, options),
        _quota_suggestion(KueueKnob.LENDING_LIMIT, wl, facts.cluster_queue, objs, options),
        _local_queue_suggestion(wl, objs, options),
        _toleration_suggestion(wl, facts.cluster_queue, objs, options),
    ]
    return tuple(s for s in found if s is not None)


# ---------------------------------------------------------------- quota knobs


class _Handle(msgspec.Struct, frozen=True):
    """A quota field that may be raised: KNOB of CLUSTER_QUEUE's RESOURCE in FLAVOR, now OLD, at
    most CAP (Kueue's amounts)."""

    knob: KueueKnob
    cluster_queue: str
    flavor: str
    resource: str
    old: int
    cap: int


def _first_short(verdict: Verdict) -> QuotaCheck | None:
    if verdict.assignment is None or verdict.stage in (Stage.FITS, Stage.BLOCKED):
        return None
    return next((c for c in verdict.assignment.checks if c.mode < PreemptionMode.FIT), None)


def _quota_entry(cq: o.ClusterQueue, flavor: str, resource: str) -> o.KueueResourceQuota | None:
    for group in cq.spec.resource_groups:
        for fq in group.flavors:
            if fq.name == flavor:
                return next((q for q in fq.resources if q.name == resource), None)
    return None


def _amount(resource: str, raw: QuantityInput | None) -> int | None:
    return None if raw is None else amount_from_quantity(resource, raw)


def _with_quota(objs: KueueObjects, handle: _Handle, value: int) -> KueueObjects:
    """OBJS with a copy of the handle's ClusterQueue whose field is VALUE."""
    cq = copy.deepcopy(objs.cluster_queues[handle.cluster_queue])
    entry = _quota_entry(cq, handle.flavor, handle.resource)
    assert entry is not None
    setattr(entry, QUOTA_FIELDS[handle.knob], DEFAULT_FORMATTER.quantity_string(handle.resource, value))
    return replace(objs, cluster_queues={**objs.cluster_queues, handle.cluster_queue: cq})


def _handles(
    knob: KueueKnob, cq_name: str, check: QuotaCheck, objs: KueueObjects, options: VerdictOptions
) -> Iterator[_Handle]:
    """The fields KNOB may raise for CHECK's resource: the ClusterQueue's own nominal quota or
    borrowing limit (when it has one: none is no limit), or a lending limit of another
    ClusterQueue of its quota tree (when that one keeps quota back beyond what it uses)."""
    fl, res = check.flavor, check.resource
    cq = objs.cluster_queues[cq_name]
    own = _quota_entry(cq, fl, res)
    if knob is KueueKnob.NOMINAL_QUOTA and own is not None:
        nominal = amount_from_quantity(res, own.nominal_quota)
        if nominal < UNLIMITED:
            yield _Handle(knob, cq_name, fl, res, nominal, UNLIMITED - 1)
    elif knob is KueueKnob.BORROWING_LIMIT and own is not None and cq.spec.cohort_name:
        limit = _amount(res, own.borrowing_limit)
        if limit is not None and limit < UNLIMITED:
            yield _Handle(knob, cq_name, fl, res, limit, UNLIMITED - 1)
    elif knob is KueueKnob.LENDING_LIMIT and cq.spec.cohort_name:
        yield from _lenders(cq_name, fl, res, objs, options)


def _lenders(
    cq_name: str, flavor: str, resource: str, objs: KueueObjects, options: VerdictOptions
) -> Iterator[_Handle]:
    tree = build_tree(objs.cluster_queues.values(), objs.cohorts.values(), objs.workloads, options.gates)
    node = tree.cluster_queues.get(cq_name)
    if node is None or node.parent is None:
        return
    root = node.parent.root()
    fr = FlavorResource(flavor, resource)
    for name in sorted(objs.cluster_queues):
        other = tree.cluster_queues.get(name)
        if name == cq_name or other is None or other.parent is None or other.parent.root() is not root:
            continue
        entry = _quota_entry(objs.cluster_queues[name], flavor, resource)
        if entry is None:
            continue
        lending = _amount(resource, entry.lending_limit)
        nominal = amount_from_quantity(resource, entry.nominal_quota)
        # The member keeps what it uses: its admitted Workloads stay within its own quota.
        cap = nominal - other.usage.get(fr, 0)
        if lending is not None and nominal < UNLIMITED and lending < cap:
            yield _Handle(KueueKnob.LENDING_LIMIT, name, flavor, resource, lending, cap)


def _resource_fits(verdict: Verdict, flavor: str, resource: str) -> bool:
    """The recomputed assignment no longer finds RESOURCE short in FLAVOR."""
    if verdict.stage is Stage.BLOCKED:
        return False
    checks = verdict.assignment.checks if verdict.assignment is not None else []
    return not any(c.flavor == flavor and c.resource == resource and c.mode < PreemptionMode.FIT for c in checks)


def smallest(low: int, cap: int, ok: Callable[[int], bool]) -> int | None:
    """The smallest value from LOW up to CAP for which OK holds (OK true from some value on):
    LOW itself, else doubling the step until it holds, then halving back; None when it never
    does within CAP (or MAX_DOUBLINGS steps)."""
    if low > cap:
        return None
    if ok(low):
        return low
    failed, step = low, 1
    for _ in range(MAX_DOUBLINGS):
        step = max(step * 2, low)
        high = min(failed + step, cap)
        if ok(high):
            break
        if high >= cap:
            return None
        failed = high
    else:
        return None
    while high - failed > 1:
        mid = (failed + high) // 2
        if ok(mid):
            high = mid
        else:
            failed = mid
    return high


def _raise_one(
    knob: KueueKnob, wl: o.KueueWorkload, cq_name: str, check: QuotaCheck, objs: KueueObjects, options: VerdictOptions
) -> tuple[_Handle, int] | None:
    """The first field KNOB may raise that makes CHECK's resource fit, and its smallest value."""
    short = max(1, check.needed - check.available)
    for handle in _handles(knob, cq_name, check, objs, options):

        def fits(value: int, handle: _Handle = handle) -> bool:
            verdict = explain_workload(wl, _with_quota(objs, handle, value), options)
            return _resource_fits(verdict, handle.flavor, handle.resource)

        value = smallest(min(handle.old + short, handle.cap), handle.cap, fits)
        if value is not None and value > handle.old:
            return handle, value
    return None


def _quota_suggestion(
    knob: KueueKnob, wl: o.KueueWorkload, cq_name: str, objs: KueueObjects, options: VerdictOptions
) -> KueueSuggestion | None:
    """KNOB raised for each short resource in turn, until Kueue admits the Workload."""
    if cq_name not in objs.cluster_queues:
        return None
    raises: dict[tuple[str, str, str], QuotaRaise] = {}
    current = objs
    for _ in range(MAX_SHORT_RESOURCES):
        context = KueueContext(current, options)
        verdict = context.explain(wl)
        if context.admits_next(verdict):
            break
        check = _first_short(verdict)
        if check is None:
            return None
        found = _raise_one(knob, wl, cq_name, check, current, options)
        if found is None:
            return None
        handle, value = found
        key = (handle.cluster_queue, handle.flavor, handle.resource)
        old = raises[key].old if key in raises else handle.old
        raises[key] = QuotaRaise(knob, handle.cluster_queue, handle.flavor, handle.resource, old, value)
        current = _with_quota(current, handle, value)
    else:
        if not admits_next(wl, current, options):
            return None
    if not raises:
        return None
    changes = tuple(raises.values())
    return KueueSuggestion(
        knob, changes, quota_commands(changes, objs), takes_from_others=knob is KueueKnob.LENDING_LIMIT
    )


# ---------------------------------------------------------------- the LocalQueue


def _local_queue_suggestion(wl: o.KueueWorkload, objs: KueueObjects, options: VerdictOptions) -> KueueSuggestion | None:
    """The LocalQueue the Workload names is missing: the existing LocalQueue of its namespace
    closest in name that admits it."""
    ns, queue = wl.metadata.namespace, wl.spec.queue_name
    if (ns, queue) in objs.local_queues:
        return None
    existing = sorted(name for (lq_ns, name) in objs.local_queues if lq_ns == ns)
    ranked = sorted(existing, key=lambda name: -difflib.SequenceMatcher(None, queue, name).ratio())
    for position, name in enumerate(ranked):
        moved = copy.deepcopy(wl)
        moved.spec.queue_name = name
        if admits_next(moved, _replacing(objs, wl, moved), options):
            change = QueueSwitch(queue, name, closest=position == 0)
            return KueueSuggestion(KueueKnob.LOCAL_QUEUE, (change,), (local_queue_command(wl, name),))
    return None


def _replacing(objs: KueueObjects, old: o.KueueWorkload, new: o.KueueWorkload) -> KueueObjects:
    """OBJS with NEW in place of OLD among the Workloads (the queues' order reads them)."""
    return replace(objs, workloads=[new if wl is old else wl for wl in objs.workloads])


# ---------------------------------------------------------------- flavor taints


def _untolerated(flavor: o.ResourceFlavor, tolerations: list[o.Toleration]) -> list[o.Taint]:
    """Every taint of FLAVOR that keeps a pod set with TOLERATIONS out, in the flavor's order."""
    have = [*tolerations, *flavor.spec.tolerations]
    out = []
    for taint in flavor.spec.node_taints:
        if taint.effect in _TAINT_EFFECTS and untolerated_taint([taint], have) is not None:
            out.append(taint)
    return out


def toleration_of(taint: o.Taint) -> o.Toleration:
    """The toleration of exactly TAINT."""
    return o.Toleration(
        key=taint.key, operator="Equal" if taint.value else "Exists", value=taint.value, effect=taint.effect
    )


def _flavors_of(cq: o.ClusterQueue) -> list[str]:
    seen: list[str] = []
    for group in cq.spec.resource_groups:
        seen += [fq.name for fq in group.flavors if fq.name not in seen]
    return seen


def _toleration_suggestion(
    wl: o.KueueWorkload, cq_name: str, objs: KueueObjects, options: VerdictOptions
) -> KueueSuggestion | None:
    """The first flavor of the ClusterQueue whose taints, once tolerated by every pod set,
    admit the Workload."""
    cq = objs.cluster_queues.get(cq_name)
    if cq is None:
        return None
    for flavor_name in _flavors_of(cq):
        flavor = objs.flavors.get(flavor_name)
        if flavor is None:
            continue
        moved = copy.deepcopy(wl)
        taints: list[o.Taint] = []
        added: list[list[o.Toleration]] = []
        for ps in moved.spec.pod_sets:
            missing = _untolerated(flavor, ps.template.spec.tolerations)
            added.append([toleration_of(t) for t in missing])
            ps.template.spec.tolerations = [*ps.template.spec.tolerations, *added[-1]]
            taints += [t for t in missing if t not in taints]
        if not taints or not admits_next(moved, _replacing(objs, wl, moved), options):
            continue
        changes = tuple(TaintToleration(flavor_name, t.key, t.value, t.effect) for t in taints)
        return KueueSuggestion(KueueKnob.TOLERATION, changes, (toleration_command(wl, added),))
    return None
