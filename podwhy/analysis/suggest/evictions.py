"""awaitPreemption and evictPods. When the scheduler's preemption places the pod, nothing is to be
done: it says so, and whom the scheduler evicts (no manual eviction is offered for what the
scheduler already does). A pod that may not preempt (preemptionPolicy Never) is offered the
eviction of the dry run's victims, when they break no PodDisruptionBudget, through the Eviction
API: a last resort, ranked last, when a replacement then stays Pending."""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence

import msgspec

from podwhy.analysis.owners import owner_of, spec_signature
from podwhy.analysis.suggest.base import _Verifier
from podwhy.analysis.suggest.facts import (
    Afterwards,
    AwaitPreemption,
    Command,
    EvictPods,
    FitsThen,
    NotChecked,
    Recreator,
    ReplacementFate,
    StaysPending,
    Suggestion,
    ThenVerdict,
    ThroughEvictionApi,
)
from podwhy.analysis.suggest.patches import _pod_ref
from podwhy.framework.runtime import Framework
from podwhy.model import objects as o
from podwhy.model import records
from podwhy.plugins.defaultpreemption import PREEMPT_NEVER
from podwhy.scheduler.cycle import FILTER_ONLY, CycleOutcome, make_framework, run_cycle
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict

# Evicted pods whose replacement is run through the filters, per suggestion.
MAX_VICTIMS_CHECKED = 3


def _eviction_command(victims: Sequence[o.Pod]) -> Command:
    """Evictions through the Eviction API (`kubectl delete pod` would bypass PodDisruptionBudgets
    and `kubectl drain` would cordon the node the pod needs): the API server refuses one a budget
    forbids (429), and `&&` stops there."""
    parts = []
    for pod in victims:
        ns, name = pod.metadata.namespace, pod.metadata.name
        body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": ns}}
        parts.append(
            f"echo {shlex.quote(json.dumps(body, separators=(',', ':')))} | "
            f"kubectl create --raw {shlex.quote(f'/api/v1/namespaces/{ns}/pods/{name}/eviction')} -f -"
        )
    return Command(" && ".join(parts), ThroughEvictionApi())


def _recreated(pod: o.Pod, snapshot: Snapshot) -> Recreator | None:
    """What recreates the pod once it is evicted; None when nothing does (a bare pod)."""
    owner = owner_of(pod, snapshot)
    if owner is None:
        return None
    return Recreator(owner.kind, f"{owner.namespace}/{owner.name}")


def _afterwards(v: _Verifier, node: str, victims: Sequence[o.Pod]) -> tuple[Afterwards, ...]:
    """What becomes of each evicted pod: what recreates it, and where its replacement fits once the
    pod is on NODE (the filters run against the cluster without the victims, the pod placed)."""
    placed = msgspec.structs.replace(v.pod, spec=msgspec.structs.replace(v.pod.spec, node_name=node))
    gone = {p.metadata.uid for p in victims}
    pods = [
        p
        for p in v.snapshot.pods
        if p.metadata.uid not in gone and p is not v.pod and (p.metadata.uid or None) != v.pod.metadata.uid
    ]
    changed = records.replace(v.snapshot, pods=[*pods, placed])
    framework: Framework | None = None
    checked: dict[bytes, ReplacementFate] = {}
    said: list[Afterwards] = []
    for victim in victims:
        key = f"{victim.metadata.namespace}/{victim.metadata.name}"
        recreated = _recreated(victim, v.snapshot)
        if recreated is None:
            said.append(Afterwards(key))
            continue
        signature = spec_signature(victim)
        if signature not in checked:
            if len(checked) >= MAX_VICTIMS_CHECKED or v.exhausted:
                checked[signature] = NotChecked()
            else:
                framework = framework or make_framework(changed, v.profile, v.scheduler_names)
                again = msgspec.structs.replace(
                    victim,
                    spec=msgspec.structs.replace(victim.spec, node_name=""),
                    status=msgspec.structs.replace(victim.status, nominated_node_name=""),
                )
                v.reruns += 1
                outcome = run_cycle(changed, again, framework=framework, options=FILTER_ONLY)
                if outcome.verdict == Verdict.SCHEDULABLE and outcome.outcome is not None:
                    fits = tuple(outcome.outcome.feasible)
                    checked[signature] = FitsThen(fits, node in fits)
                elif outcome.verdict == Verdict.UNSCHEDULABLE:
                    checked[signature] = StaysPending()
                else:
                    checked[signature] = ThenVerdict(outcome.verdict)
        said.append(Afterwards(key, recreated, checked[signature]))
    return tuple(said)


def _dry_run_anyway(v: _Verifier, cycle: CycleOutcome) -> CycleOutcome | None:
    """A pod of preemptionPolicy Never preempts nothing: the dry run as if it might, to find the
    pods whose eviction would make room (None past the bounds)."""
    spec = msgspec.structs.replace(v.pod.spec, preemption_policy="PreemptLowerPriority")
    return v.cycle_of(msgspec.structs.replace(v.pod, spec=spec))


def _suggest_evict(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    """When the scheduler's own preemption places the pod: no action (awaitPreemption), and whom
    it evicts. Otherwise (a pod of preemptionPolicy Never), evicting the dry run's victims, when
    they break no PodDisruptionBudget: a last resort when a replacement then stays Pending."""
    post_filter = cycle.post_filter
    preemption = post_filter.preemption if post_filter is not None else None
    if preemption is None:
        return []
    if preemption.nominated_node and preemption.victims:
        node, victims = preemption.nominated_node, [pi.pod for pi in preemption.victims]
        change = AwaitPreemption(node, tuple(pi.key for pi in preemption.victims), _afterwards(v, node, victims))
        return [Suggestion(change, nodes=[node], patches=[], command=Command())]
    if preemption.eligible or v.pod.spec.preemption_policy != PREEMPT_NEVER:
        return []
    again = _dry_run_anyway(v, cycle)
    post_filter = again.post_filter if again is not None else None
    preemption = post_filter.preemption if post_filter is not None else None
    if preemption is None:
        return []
    # The dry run's own victims, when they break no PodDisruptionBudget: the dry run nominates the
    # node with the fewest violations, so when its victims break one, every candidate's do.
    nominated = next((c for c in preemption.candidates if c.node == preemption.nominated_node), None)
    if nominated is None or nominated.num_pdb_violations or not nominated.victims:
        return []
    gone = {pi.uid for pi in nominated.victims}
    kept = [p for p in v.snapshot.pods if p.metadata.uid not in gone]
    feasible = v.with_snapshot(records.replace(v.snapshot, pods=kept))
    if feasible is None:
        return []
    victims = [pi.pod for pi in nominated.victims]
    budgets_unknown = "PodDisruptionBudget" in v.snapshot.missing or (
        post_filter is not None and post_filter.pdbs_assumed_none
    )
    return [
        Suggestion(
            EvictPods(
                nominated.node,
                tuple(pi.key for pi in nominated.victims),
                budgets_unknown,
                _afterwards(v, nominated.node, victims),
            ),
            nodes=feasible,
            patches=[{**_pod_ref(p), "patch": None} for p in victims],
            command=_eviction_command(victims),
        )
    ]
