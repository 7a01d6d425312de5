"""relaxTopologySpread and dropAntiAffinity: loosen the pod's own spread or anti-affinity rules."""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET

from podwhy.analysis.suggest.base import INTER_POD_AFFINITY, MAX_TRIES_PER_KIND, TOPOLOGY_SPREAD, _Verifier
from podwhy.analysis.suggest.facts import DropAntiAffinity, RelaxTopologySpread, Suggestion
from podwhy.analysis.suggest.patches import _pod_command, _pod_patch
from podwhy.framework.evidence import TopologySpreadEvidence
from podwhy.model import objects as o
from podwhy.scheduler.cycle import CycleOutcome


def _suggest_relax_spread(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    keys = {
        ev.topology_key
        for group in v.groups_of(cycle).groups
        if (st := group.verdict.filters.get(TOPOLOGY_SPREAD)) is not None and st.is_rejected()
        for ev in st.evidence
        if isinstance(ev, TopologySpreadEvidence) and ev.skew is not UNSET
    }
    constraints = v.pod.spec.topology_spread_constraints
    for index, c in enumerate(constraints):
        if c.topology_key not in keys or c.when_unsatisfiable != "DoNotSchedule":
            continue
        # (the constraint relaxed, the field, its new value, the new maxSkew: None for whenUnsatisfiable)
        changes: list[tuple[o.TopologySpreadConstraint, str, Any, int | None]] = [
            (msgspec.structs.replace(c, max_skew=c.max_skew + 1), "maxSkew", c.max_skew + 1, c.max_skew + 1),
            (
                msgspec.structs.replace(c, when_unsatisfiable="ScheduleAnyway"),
                "whenUnsatisfiable",
                "ScheduleAnyway",
                None,
            ),
        ]
        for relaxed, field_name, value, max_skew in changes:
            new_list = [relaxed if i == index else x for i, x in enumerate(constraints)]
            pod = msgspec.structs.replace(
                v.pod, spec=msgspec.structs.replace(v.pod.spec, topology_spread_constraints=new_list)
            )
            feasible = v.with_pod(pod)
            if feasible is None:
                continue
            ops = [{"op": "replace", "path": f"/spec/topologySpreadConstraints/{index}/{field_name}", "value": value}]
            command = _pod_command(v, ops)
            if command is None:  # does not apply to the pod's source
                continue
            return [
                Suggestion(
                    RelaxTopologySpread(c.topology_key, max_skew),
                    nodes=feasible,
                    patches=[_pod_patch(v, ops)],
                    command=command,
                )
            ]
    return []


def _suggest_drop_anti_affinity(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    assert cycle.outcome is not None
    affinity = v.pod.spec.affinity
    anti = affinity.pod_anti_affinity if affinity is not None else None
    if anti is None or not anti.required_during_scheduling_ignored_during_execution:
        return []
    if not any(INTER_POD_AFFINITY in group.failing for group in v.groups_of(cycle).groups):
        return []
    assert affinity is not None
    terms = anti.required_during_scheduling_ignored_during_execution
    for index, term in enumerate(terms[:MAX_TRIES_PER_KIND]):
        rest = [t for i, t in enumerate(terms) if i != index]
        new_anti = msgspec.structs.replace(anti, required_during_scheduling_ignored_during_execution=rest)
        pod = msgspec.structs.replace(
            v.pod,
            spec=msgspec.structs.replace(
                v.pod.spec, affinity=msgspec.structs.replace(affinity, pod_anti_affinity=new_anti)
            ),
        )
        feasible = v.with_pod(pod)
        if feasible is None:
            continue
        ops = [
            {
                "op": "remove",
                "path": f"/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/{index}",
            }
        ]
        command = _pod_command(v, ops)
        if command is None:  # does not apply to the pod's source
            continue
        return [
            Suggestion(
                DropAntiAffinity(index, term.topology_key),
                nodes=feasible,
                patches=[_pod_patch(v, ops)],
                command=command,
            )
        ]
    return []
