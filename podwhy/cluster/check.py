"""`podwhy check`'s run of the cluster once the manifests are applied, above the controllers and
the scheduler's side alike: the workloads in the order the scheduling queue takes pods created at
once, each handed to its controller (controllers/manager.py), whose pods the scheduler places as
they are created (placement.py's Placer, which the controllers reach as podcontrol.Scheduler);
then the cluster's pods preemption evicted, created again by their controllers and placed last,
and, for the replicas left Pending, where they fit once the pods being deleted are gone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from podwhy.cluster.controllers.manager import sync_workload
from podwhy.cluster.controllers.podcontrol import replacement_pod
from podwhy.cluster.controllers.types import Displaced, ManifestWorkload, ReplicaPlacement, WorkloadPlacement
from podwhy.cluster.kueue.admission import VerdictOptions
from podwhy.cluster.kueuecheck import KueueDecision, decide, inject
from podwhy.cluster.placement import Placer, fits_once_deleted
from podwhy.cluster.placementreasons import AdmissionOpen, KueueHeld, PlaceProgress, SchedulerSays
from podwhy.model import objects as o
from podwhy.model.records import replace
from podwhy.scheduler.config import SchedulerConfig
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict


def place(
    snapshot: Snapshot,
    workloads: list[ManifestWorkload],
    config: SchedulerConfig,
    applied_claims: Sequence[o.PersistentVolumeClaim] = (),
    progress: Callable[[PlaceProgress], None] | None = None,
    displaced_out: list[Displaced] | None = None,
    kueue_options: VerdictOptions | None = None,
    assume_webhooks_allow: bool = False,
) -> list[WorkloadPlacement]:
    """Every workload's replicas in turn, each seeing those placed before it, in the order the
    scheduling queue takes pods created at once (PrioritySort): higher priority first, then creation
    order, the manifests' order (the placements come back in input order). APPLIED_CLAIMS: the
    manifests' own PVCs (already in the snapshot), bound first as the PV controller would bind them.
    DISPLACED_OUT gets the cluster's pods preemption evicted, each with its replacement's placement.
    KUEUE_OPTIONS: Kueue's gates (None: v0.20's defaults). A replica placed that admission leaves
    open (a webhook never called, a policy not evaluated) is Inconclusive; ASSUME_WEBHOOKS_ALLOW
    takes every webhook to admit it."""
    placer = Placer(snapshot, config, preempt=True)
    for claim in applied_claims:
        placer.claims.bind_if_immediate(claim)
    done: dict[int, WorkloadPlacement] = {}
    total = sum(len(w.pods) for w in workloads if w.daemon_template is None)
    placed = 0
    # Kueue first: a Job it holds has no pod to place
    kueue = decide(snapshot, workloads, verdict_options=kueue_options)
    for index in sorted(range(len(workloads)), key=lambda i: -_priority(workloads[i])):
        workload = workloads[index]
        if progress is not None:
            progress(PlaceProgress(placed, total, workload.key))
        decision = kueue.get(index)
        if decision is not None and not decision.admitted:
            done[index] = _held(workload, decision)
            placed += len(workload.pods)
            continue
        if decision is not None:
            for pod in workload.pods:
                inject(pod, decision)
        done[index] = sync_workload(placer, workload, snapshot)
        done[index].kueue = decision
        _leave_open(done[index], workload, assume_webhooks_allow)
        fits_once_deleted(placer, done[index].replicas)
        placed += len(workload.pods)
    for displaced in placer.displaced:
        displaced.replacement = placer.schedule(replacement_pod(displaced.victim))
    placer.pods()  # the snapshot as placing left it, for the report
    if displaced_out is not None:
        displaced_out.extend(placer.displaced)
    if progress is not None:
        progress(PlaceProgress(total, total, ""))
    return [done[i] for i in range(len(workloads))]


def _leave_open(placement: WorkloadPlacement, workload: ManifestWorkload, assume_webhooks_allow: bool) -> None:
    """A placed replica whose creation admission leaves open is placed only if the webhooks admit
    it and the policies podwhy could not evaluate do: Inconclusive, the fact its reason. A Pending
    one is Inconclusive too when what is left open may change the pod (a mutating webhook, a
    MutatingAdmissionPolicy not evaluated): the scheduler's words are then of the pod as podwhy
    admitted it."""
    for replica in placement.replicas:
        fact = workload.admission_open.get(replica.pod.metadata.name) or workload.daemon_open
        if workload.object_open:
            fact = workload.object_open.joined(fact)
        if fact is not None and assume_webhooks_allow:
            fact = AdmissionOpen(policies=fact.policies)
        if not fact:
            continue
        if replica.node and replica.verdict == Verdict.SCHEDULABLE:
            replica.verdict, replica.reason = Verdict.INCONCLUSIVE, fact
        elif replica.verdict == Verdict.UNSCHEDULABLE and replica.created and fact.mutates:
            # A mutation podwhy did not make may change what the scheduler says.
            said = replica.reason.message if isinstance(replica.reason, SchedulerSays) else ""
            replica.verdict, replica.reason = Verdict.INCONCLUSIVE, replace(fact, scheduler_says=said)


def _priority(workload: ManifestWorkload) -> int:
    """The priority admission gave the workload's pods (they share their template's class)."""
    pod = workload.daemon_template if workload.daemon_template is not None else next(iter(workload.pods), None)
    return pod.spec.priority or 0 if pod is not None else 0


def _held(workload: ManifestWorkload, decision: KueueDecision) -> WorkloadPlacement:
    """A Job Kueue keeps suspended: none of its pods is created (Inconclusive when podwhy cannot
    tell Kueue's decision)."""
    wl = decision.workload
    name = f"{wl.metadata.namespace}/{wl.metadata.name}" if wl is not None else ""
    verdict = decision.verdict
    why = decision.unsure or decision.problem or (verdict.message if verdict is not None else "")
    if not why and verdict is not None:
        why = verdict.reason or verdict.stage.value
    reason = KueueHeld(name, decision.local_queue, why)
    outcome = Verdict.INCONCLUSIVE if decision.unsure else Verdict.UNSCHEDULABLE
    replicas = [ReplicaPlacement(pod, outcome, reason=reason, created=False) for pod in workload.pods]
    return WorkloadPlacement(workload, replicas, kueue=decision)
