"""addToleration: tolerate the taints of the nodes that reject the pod only for them (nodes reserved
for someone last; taints of a node's condition never)."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from podwhy.analysis.commands import template_owner
from podwhy.analysis.keymeanings import condition_taint, reserving_taint
from podwhy.analysis.owners import replica_set_index
from podwhy.analysis.suggest.base import MAX_TRIES_PER_KIND, TAINT_TOLERATION, _Verifier, _workload
from podwhy.analysis.suggest.facts import (
    AddToleration,
    ReservedFor,
    Reserver,
    ReservingTaint,
    Suggestion,
    TaintRef,
    ToleratedThere,
)
from podwhy.analysis.suggest.notes import ConditionTaints
from podwhy.analysis.suggest.patches import _builtins, _pod_command, _pod_patch
from podwhy.cluster.nodecopy import is_daemon_pod, is_mirror_pod
from podwhy.helpers.nodetaints import do_not_schedule_taints, tolerations_tolerate_taint
from podwhy.model import objects as o
from podwhy.model.wellknownnames import TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE
from podwhy.scheduler.cycle import CycleOutcome

# Tolerations admission adds to every pod: a workload's template does not hold them.
ADMISSION_TOLERATION_KEYS = frozenset({TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE})


def _toleration_for(taint: o.Taint) -> o.Toleration:
    if taint.value:
        return o.Toleration(key=taint.key, operator="Equal", value=taint.value, effect=taint.effect)
    return o.Toleration(key=taint.key, operator="Exists", effect=taint.effect)


def _tolerated_by_all(pods: Sequence[o.Pod], taint: o.Taint) -> bool:
    """Whether the pods (at least one) all tolerate the taint."""
    return bool(pods) and all(tolerations_tolerate_taint(p.spec.tolerations, taint) for p in pods)


def _reserved_for(v: _Verifier, taints: Sequence[o.Taint], node_names: Sequence[str]) -> ReservedFor | None:
    """For whom the taints set their nodes aside, None when none of them reserves: a well-known
    reserving taint (accelerators, dedicated=..., spot, ...), or one that the workloads already on
    those nodes (DaemonSet and static pods aside) all tolerate."""
    if v.pods_by_node is None:
        v.pods_by_node = {}
        for pod in v.snapshot.pods:
            if pod.spec.node_name:
                v.pods_by_node.setdefault(pod.spec.node_name, []).append(pod)
    there = [
        p
        for name in node_names
        for p in v.pods_by_node.get(name, ())
        if not is_daemon_pod(p)
        and not is_mirror_pod(p)
        and p.status.phase not in ("Succeeded", "Failed")
        and p.metadata.uid != v.pod.metadata.uid
    ]
    whom: list[Reserver] = []
    for taint in taints:
        known = reserving_taint(taint.key, taint.value)
        if known is not None:
            whom.append(ReservingTaint(known))
        elif _tolerated_by_all(there, taint):
            whom.append(ToleratedThere(taint.key))
    if not whom:
        return None
    replica_sets = replica_set_index(v.snapshot)
    tolerating = sorted(
        {
            _workload(p, v.snapshot, replica_sets)
            for p in there
            if all(tolerations_tolerate_taint(p.spec.tolerations, t) for t in taints)
        }
    )
    return ReservedFor(tuple(whom), tuple(tolerating))


def _condition_note(taints: Sequence[tuple[str, str, str]], names: Sequence[str]) -> ConditionTaints:
    """Why no toleration is suggested for nodes whose untolerated taints say their condition."""
    said = tuple((key, why) for key, _, _ in taints if (why := condition_taint(key)) is not None)
    return ConditionTaints(said, tuple(names))


def _untolerated(pod: o.Pod, taints: Sequence[o.Taint]) -> tuple[tuple[str, str, str], ...]:
    """The node's NoSchedule and NoExecute taints the pod does not tolerate, sorted."""
    return tuple(
        sorted(
            {
                (t.key, t.value, t.effect)
                for t in taints
                if do_not_schedule_taints(t) and not tolerations_tolerate_taint(pod.spec.tolerations, t)
            }
        )
    )


def _toleration_suggestion(v: _Verifier, cycle: CycleOutcome, reserved: bool) -> list[Suggestion]:
    """Tolerate the taints of the nodes that reject the pod only for them: ordinary taints
    (RESERVED false), or those reserving their nodes for someone (RESERVED true, the last resort).
    Taints of a node's condition or lifecycle are never tolerated."""
    nodes = v.nodes_by_name()
    grouped = v.groups_of(cycle)
    taints_only = [g for g in grouped.groups if g.only_failing(TAINT_TOLERATION) is not None]
    groups: dict[tuple[tuple[str, str, str], ...], list[str]] = {}
    # Nodes kept off only by taints that include one of the node's condition: never tolerated.
    conditions: dict[tuple[tuple[str, str, str], ...], list[str]] = {}
    # The untolerated taints of each set of taints met (nodes of a class have the same).
    untolerated_of: dict[tuple[tuple[str, str, str], ...], tuple[tuple[str, str, str], ...]] = {}
    for name in grouped.names_of(taints_only):
        node = nodes.get(name)
        if node is None:
            continue
        held = tuple([(t.key, t.value, t.effect) for t in node.spec.taints])
        untolerated = untolerated_of.get(held)
        if untolerated is None:
            untolerated = untolerated_of[held] = _untolerated(v.pod, node.spec.taints)
        if untolerated and not any(condition_taint(key) is not None for key, _, _ in untolerated):
            groups.setdefault(untolerated, []).append(name)
        elif untolerated:
            conditions.setdefault(untolerated, []).append(name)
    if not reserved:
        v.notes.extend(_condition_note(taints, names) for taints, names in sorted(conditions.items()))
    ranked = sorted(groups.items(), key=lambda kv: (len(kv[0]), -len(kv[1]), kv[0]))
    tried = 0
    for taints, group_nodes in ranked:
        if tried >= MAX_TRIES_PER_KIND:
            break
        whom = _reserved_for(v, [o.Taint(key=k, value=val, effect=e) for k, val, e in taints], group_nodes)
        if (whom is not None) != reserved:
            continue
        tried += 1
        added = [_toleration_for(o.Taint(key=k, value=val, effect=e)) for k, val, e in taints]
        tolerations = [*v.pod.spec.tolerations, *added]
        pod = msgspec.structs.replace(v.pod, spec=msgspec.structs.replace(v.pod.spec, tolerations=tolerations))
        feasible = v.with_pod(pod)
        if feasible is None:
            continue
        # RFC 6902 "add" sets the whole list: the pod's own entries as its source held them, then
        # the new ones. The template (or manifest) lacks the tolerations admission adds.
        current = v.pod_document()["spec"].get("tolerations")
        if not isinstance(current, list) or len(current) != len(v.pod.spec.tolerations):
            current = _builtins(v.pod.spec.tolerations)
        new_entries = [*current, *_builtins(added)]
        owned = v.manifest is not None or template_owner(v.pod, v.snapshot) is not None
        kept = [
            t for t in new_entries if not (owned and isinstance(t, dict) and t.get("key") in ADMISSION_TOLERATION_KEYS)
        ]
        ops = [{"op": "add", "path": "/spec/tolerations", "value": kept}]
        command = _pod_command(v, ops)
        if command is None:  # does not apply to the pod's source
            continue
        return [
            Suggestion(
                AddToleration(tuple(TaintRef(k, val, e) for k, val, e in taints), whom),
                nodes=feasible,
                patches=[_pod_patch(v, [{"op": "add", "path": "/spec/tolerations", "value": new_entries}])],
                command=command,
            )
        ]
    return []


def _suggest_toleration(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    return _toleration_suggestion(v, cycle, reserved=False)


def _suggest_reserved_toleration(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    """Nodes reserved for someone: offered last, after lowering requests and adding capacity."""
    return _toleration_suggestion(v, cycle, reserved=True)
