"""`podwhy check`'s report in words: a replica's message and podwhy's note on it (where it fits once
the pods being deleted are gone, that its preemption was not evaluated), where replicas were
placed, what the check left out, the rollouts of workloads the cluster runs, the pods the
replicas' preemption evicted."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from msgspec import UNSET

from podwhy.cluster.placementreasons import OnceDeleted
from podwhy.report.model import CheckReport, KueueCheck, PendingReplicas, ReplicaReport, RolloutReport, WorkloadReport
from podwhy.verdict import Verdict


def once_deleted_text(once: OnceDeleted) -> str:
    """A Pending replica that fits once the pods being deleted (still holding their room) are gone."""
    more = f" and {once.count - len(once.pods)} more" if once.count > len(once.pods) else ""
    named = ", ".join(once.pods) + more
    if once.count == 1:
        return f"fits on {once.node} once the pod being deleted ({named}) is gone"
    return f"fits on {once.node} once the {once.count} pods being deleted ({named}) are gone"


# Nodes named where a workload's replicas were placed before "… (N more)" (-o wide and the JSON
# give every replica's node).
MAX_PLACED_NODES_NAMED = 3


def placed_nodes_text(nodes: Sequence[str]) -> str:
    """Where replicas were placed (`nodes`: each one's node), most replicas first, then by name:
    "worker-1 (2), worker-2"; on more nodes than a few, "149 nodes: a (7), b (7), c (7), … (146
    more)"."""
    counts = Counter(nodes)
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    named = [node + (f" ({count})" if count > 1 else "") for node, count in ordered]
    if len(named) <= MAX_PLACED_NODES_NAMED:
        return ", ".join(named)
    more = len(named) - MAX_PLACED_NODES_NAMED
    return f"{len(named):,} nodes: {', '.join(named[:MAX_PLACED_NODES_NAMED])}, … ({more:,} more)"


def preemption_not_evaluated_text(why: str) -> str:
    """A Pending replica whose preemption dry run could not be evaluated (WHY: "the snapshot has no
    PriorityClasses"): the scheduler's message then lacks its preemption part."""
    return f"preemption not evaluated ({why}): it might make room by evicting lower-priority pods"


def pending_note(once: str, preemption: str) -> str:
    """podwhy's own words beside a Pending replica's message (each may be "")."""
    return "; ".join(part for part in (once, preemption) if part)


def with_note(message: str, note: str) -> str:
    """A message, then podwhy's note on it."""
    return f"{message}; {note}" if message and note else message or note


def displaced_lines(report: CheckReport) -> list[str]:
    """The cluster's pods the replicas' preemption evicted, and where their replacements went."""
    lines = []
    for d in report.displaced:
        owner = f" ({d.owner})" if d.owner else ""
        where = (
            f"its replacement {d.replacement} goes to {d.node}"
            if d.node
            else (f"its replacement {d.replacement} stays Pending: {d.message}")
        )
        lines.append(f"Evicted by {d.evictedBy}'s preemption: {d.pod}{owner}; {where}")
    return lines


def replica_note(replica: ReplicaReport) -> str:
    """podwhy's own words beside a Pending replica's message: where it fits once the pods being
    deleted are gone, that its preemption was not evaluated."""
    once = replica.fitsOnceDeleted
    return pending_note(
        once_deleted_text(OnceDeleted(once.node, tuple(once.pods), once.count)) if once is not UNSET else "",
        preemption_not_evaluated_text(replica.preemptionNotEvaluated)
        if replica.preemptionNotEvaluated is not UNSET
        else "",
    )


def replica_text(replica: ReplicaReport) -> str:
    """A replica's message, then podwhy's note on it (what the table, markdown and JUnit say)."""
    return with_note(replica.message, replica_note(replica)) if replica.node is None else replica.message


def group_text(group: PendingReplicas) -> str:
    """Alike Pending replicas' message, then podwhy's note on them."""
    return with_note(group.message, group.note)


# A rollout that does not complete (exit 1, a JUnit failure): it stalls, cannot be applied, or
# does not start (a paused Deployment).
FAILING_ROLLOUTS = frozenset({"Stalls", "Immutable", "Paused"})  # cluster.rollout.RolloutStatus values


def stuck(workload: WorkloadReport) -> list[ReplicaReport]:
    """The workload's replicas known to stay Pending (or not created): not those whose preemption
    was not evaluated."""
    return [r for r in workload.replicas if r.node is None and r.verdict != Verdict.INCONCLUSIVE]


def not_checked_lines(report: CheckReport) -> list[str]:
    """What the check left out, in words: kinds whose controllers podwhy does not simulate, and
    fields of the workloads it read whose effect it does not simulate."""
    lines: list[str] = []
    kinds = [f"{n.count} {n.kind}" for n in report.notChecked if not n.field]
    if kinds:
        what = "podwhy does not simulate their controllers; pods they create are not placed"
        lines.append(f"Not checked: {', '.join(kinds)}: {what}")
    fields = [f"{n.field} of {n.count} {n.kind}" for n in report.notChecked if n.field]
    if fields:
        lines.append(
            f"Not simulated: {', '.join(fields)}: what the controller does once pods fail; the pods it starts with are"
            " placed"
        )
    return lines


# Said once when a check updates workloads the cluster runs.
ROLLOUT_NOTE = (
    "Rollouts: each pod the controllers create is scheduled as it is created and counts as available once"
    " placed (readiness, probes and minReadySeconds are not simulated)"
)


def rollout_line(workload: WorkloadReport) -> str:
    """What updating the workload the cluster runs does, in words ("" when it runs nothing yet)."""
    rollout = workload.update
    if rollout is None:
        return ""
    line = _rollout_words(workload, rollout)
    if rollout.existingReplicaSet is not UNSET:
        line += (
            f"; its ReplicaSet {rollout.existingReplicaSet} already has the manifest's template (a rollback, or a"
            " rollout under way): the controller scales it up rather than creating one"
        )
    return f"{line}; {PODS_ONLY_NOTE}" if rollout.comparedPodsOnly is True else line


# Said of an "unchanged" template decided from the running pods alone.
PODS_ONLY_NOTE = (
    "compared with its running pods only (the snapshot holds no stored template of it): fields podwhy"
    " does not read, such as env, command, probes or annotations, were not compared"
)


def _rollout_words(workload: WorkloadReport, rollout: RolloutReport) -> str:
    old, new, removed = rollout.oldReplicas, rollout.newReplicas, rollout.removed
    if rollout.job is not UNSET and rollout.job != "Runs":
        return _job_words(workload, rollout)
    if rollout.job is not UNSET and rollout.status in ("Unchanged", "Completes"):
        what = "unchanged template" if rollout.status == "Unchanged" else "scheduling directives changed"
        if removed:
            kept = old - len(removed)
            return f"{what}: the Job controller deletes {', '.join(removed)} ({kept} keep running)"
        if workload.replicas:
            created = len(workload.replicas)
            return (
                f"{what}: the Job controller creates {created} more pod{'s' if created != 1 else ''}, {new} placed"
                f" ({old} running)"
            )
        return f"{what}: {old} pod{'s' if old != 1 else ''} running, none to add"
    if rollout.status == "Unchanged":
        if removed:
            return f"unchanged template: scaled down from {old} to {old - len(removed)} (removes {', '.join(removed)})"
        if workload.replicas:
            return f"unchanged template: scaled up from {old}, {new} of {len(workload.replicas)} new replicas placed"
        return f"unchanged: {old} replica{'s' if old != 1 else ''} running"
    if rollout.status == "Completes":
        return f"rollout completes: {new} new replica{'s' if new != 1 else ''} ({len(removed)} old removed)"
    if rollout.status == "Immutable":
        refusal = rollout.refusal if rollout.refusal is not UNSET else ""
        if refusal.endswith(": spec.template: field is immutable"):
            return (
                f"template changed, but a Job's template is immutable: `kubectl apply` fails ({refusal}); its pods"
                " keep running"
            )
        return f"`kubectl apply` fails ({refusal}); its pods keep running"
    if rollout.status == "Paused":
        running = old - len(removed) + new
        scaled = f", scaled to {rollout.replicas} with the old template" if rollout.replicas != old else ""
        return (
            "template changed, but the Deployment is paused (spec.paused): its controller does not start the"
            f" rollout (condition Progressing: Unknown, DeploymentPaused); {running} old replica"
            f"{'s' if running != 1 else ''} keep{'s' if running == 1 else ''} running{scaled}; it rolls out once"
            f" resumed: `kubectl rollout resume deployment/{workload.name} -n {workload.namespace}`"
        )
    if rollout.status == "WaitsForDeletion":
        return f"updateStrategy OnDelete: nothing changes until its pods are deleted ({old} old keep running)"
    still = rollout.steps[-1].old if rollout.steps else old - len(removed)
    created = len(workload.replicas)
    line = (
        f"rollout stalls at {new} of {rollout.replicas} new replicas placed ({created} created, {still} old still run)"
    )
    if rollout.progressDeadlineSeconds is not None:
        line += f"; the Deployment reports ProgressDeadlineExceeded after {rollout.progressDeadlineSeconds}s"
    waiting = sum(1 for r in workload.replicas if r.fitsOnceDeleted is not UNSET)
    if waiting:
        line += (
            f"; {waiting} of its Pending replicas fit{'s' if waiting == 1 else ''} once pods being deleted are gone:"
            " the rollout depends on them leaving"
        )
    return line


def _job_words(workload: WorkloadReport, rollout: RolloutReport) -> str:
    """What the Job controller does with a Job it will not run more pods of."""
    old, removed = rollout.oldReplicas, rollout.removed
    deleted = f"deletes its {len(removed)} active pod{'s' if len(removed) != 1 else ''}" if removed else "runs no pod"
    if rollout.job == "Suspended":
        return f"suspended (spec.suspend): the Job controller {deleted} and creates none until it is resumed"
    if rollout.job == "Finished":
        return f"the Job has finished: its controller creates no more pods ({old} running)"
    return f"past its activeDeadlineSeconds: the Job controller fails it (DeadlineExceeded) and {deleted}"


def rollout_lines(report: CheckReport) -> list[str]:
    """Each updated workload's rollout, then what is not simulated of them."""
    lines = [f"{w.key}: {rollout_line(w)}" for w in report.workloads if w.update is not None]
    return [*lines, ROLLOUT_NOTE] if lines else []


def kueue_unsure(report: CheckReport) -> str:
    """The first line's words for Jobs whose Kueue decision is not known ("" for none)."""
    unsure = [w for w in report.workloads if isinstance(w.kueue, KueueCheck) and w.kueue.inconclusive]
    if not unsure:
        return ""
    first = unsure[0].kueue
    assert isinstance(first, KueueCheck)
    jobs = f"{len(unsure)} Job{'s' if len(unsure) != 1 else ''}"
    return f"whether Kueue admits {jobs} (LocalQueue {first.localQueue}) is not known: {first.inconclusive}"


def kueue_line(check: KueueCheck) -> str:
    """A Kueue-managed Job's line: admitted into which flavors, or why not (Kueue's words)."""
    if check.inconclusive:
        return f"Kueue: not known whether it is admitted: {check.inconclusive}"
    if check.admitted:
        flavors = sorted({f for ps in check.podSets for f in ps.flavors.values()})
        into = f" in flavor {', '.join(flavors)}" if flavors else ""
        return f"Kueue: admitted by ClusterQueue {check.clusterQueue}{into} (Workload {check.workload})"
    where = f"LocalQueue {check.localQueue}" + (f", ClusterQueue {check.clusterQueue}" if check.clusterQueue else "")
    reason = f"{check.reason}: " if check.reason else ""
    return f"Kueue: not admitted ({where}): {reason}{check.message}"


def kueue_lines(report: CheckReport) -> list[str]:
    """One line per Job Kueue manages: admitted into which flavors, or why not."""
    return [f"{w.key}: {kueue_line(w.kueue)}" for w in report.workloads if isinstance(w.kueue, KueueCheck)]


def kueue_refused(workload: WorkloadReport) -> KueueCheck | None:
    """The workload's Kueue decision when Kueue is known not to admit it (None otherwise)."""
    check = workload.kueue
    if isinstance(check, KueueCheck) and not check.admitted and not check.inconclusive:
        return check
    return None
