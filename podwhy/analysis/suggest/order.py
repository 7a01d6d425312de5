"""The kinds of suggestion in the order they are tried, and suggest(), which tries them."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from podwhy.analysis.autoscaling.facts import AutoscalingAnalysis
from podwhy.analysis.nominations import will_preempt
from podwhy.analysis.suggest.autoscaling import _suggest_autoscaler_levers
from podwhy.analysis.suggest.base import MAX_SUGGESTIONS, _Verifier
from podwhy.analysis.suggest.constraints import _suggest_drop_anti_affinity, _suggest_relax_spread
from podwhy.analysis.suggest.evictions import _suggest_evict
from podwhy.analysis.suggest.facts import EvictPods, Suggestion
from podwhy.analysis.suggest.groups import _suggest_group_nodes
from podwhy.analysis.suggest.labels import _suggest_label
from podwhy.analysis.suggest.mistakes import _suggest_pod_affinity, _suggest_resource_name, _suggest_topology_key
from podwhy.analysis.suggest.nodes import _suggest_add_node
from podwhy.analysis.suggest.nominations import _suggest_release_nominations, _suggest_release_stale_nominations
from podwhy.analysis.suggest.notes import Note
from podwhy.analysis.suggest.requests import _suggest_lower_request
from podwhy.analysis.suggest.selection import _suggest_unknown_selection
from podwhy.analysis.suggest.tolerations import _suggest_reserved_toleration, _suggest_toleration
from podwhy.framework.profile import Profile
from podwhy.framework.runtime import Framework
from podwhy.model import objects as o
from podwhy.scheduler.config import SchedulerConfig
from podwhy.scheduler.cycle import CycleOutcome
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.redact import REDACTED
from podwhy.verdict import Verdict

SUGGESTERS: tuple[Callable[[_Verifier, CycleOutcome], list[Suggestion]], ...] = (
    _suggest_release_stale_nominations,
    _suggest_lower_request,
    _suggest_toleration,
    _suggest_unknown_selection,
    _suggest_topology_key,
    _suggest_resource_name,
    _suggest_pod_affinity,
    _suggest_label,
    _suggest_add_node,
    _suggest_group_nodes,
    _suggest_autoscaler_levers,
    _suggest_evict,
    _suggest_release_nominations,
    _suggest_relax_spread,
    _suggest_drop_anti_affinity,
    _suggest_reserved_toleration,
)

# Not offered for a pod the scheduler's preemption places: it needs no node, and the scheduler
# evicts for it.
PLACED_BY_PREEMPTION = frozenset({_suggest_add_node, _suggest_group_nodes, _suggest_autoscaler_levers, _suggest_evict})


def suggest(
    snapshot: Snapshot,
    cycle: CycleOutcome,
    profile: Profile,
    scheduler_names: frozenset[str] | None = None,
    config: SchedulerConfig | None = None,
    group: Sequence[o.Pod] = (),
    group_owner: str | None = None,
    framework: Framework | None = None,
    notes: list[Note] | None = None,
    manifest: str | None = None,
    autoscaling: AutoscalingAnalysis | None = None,
    document: dict[str, Any] | None = None,
) -> list[Suggestion]:
    """Verified changes that make an Unschedulable pod Schedulable; [] for any other verdict. With
    the pod's pending `group` and the `config`, also how many nodes the whole group needs.
    `framework`: the profile's over `snapshot` (make_framework), when the caller has one. `notes`
    gets what a bound kept from being looked for. `manifest`: the path of the manifest the pod
    was given in ('-': stdin), whose changes are commands on that file, and `document` the pod as
    that file holds it."""
    if cycle.verdict != Verdict.UNSCHEDULABLE or cycle.outcome is None or cycle.outcome.error is not None:
        return []
    verifier = _Verifier(
        snapshot,
        cycle.pod.pod,
        profile,
        scheduler_names,
        framework=framework,
        group=group,
        group_owner=group_owner,
        config=config,
        manifest=manifest,
        autoscaling=autoscaling,
        document=document,
    )
    out: list[Suggestion] = verifier.earlier
    suggesters = SUGGESTERS
    if will_preempt(cycle) is not None:
        # The scheduler's preemption places it: that comes first (no action needed), and no node
        # or manual eviction is offered for it.
        suggesters = (_suggest_evict, *(s for s in SUGGESTERS if s not in PLACED_BY_PREEMPTION))
    for suggester in suggesters:
        if len(out) >= MAX_SUGGESTIONS or verifier.exhausted:
            break
        out.extend(suggester(verifier, cycle))
    # A last resort (an eviction that leaves another workload Pending) comes after every other change.
    out = sorted(out, key=lambda s: isinstance(s.change, EvictPods) and s.change.last_resort)[:MAX_SUGGESTIONS]
    for suggestion in out:
        if any(
            p.get("kind") == "Pod"
            and isinstance(p.get("patch"), dict)
            and ((snapshot.redacted and "spec" in p["patch"]) or REDACTED in json.dumps(p["patch"]))
            for p in suggestion.patches
        ):
            # A merge patch writes lists whole: from a redacted dump it would write "<redacted>" back,
            # and lack what --redact dropped.
            suggestion.redacted = True
    if notes is not None:
        notes.extend(verifier.notes)
    return out
