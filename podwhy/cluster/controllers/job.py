"""The Job controller (pkg/controller/job) and what the API server's validation lets a Job's
update change (pkg/registry/batch/job/strategy.go, ValidateJobUpdate): the shape of a Job as the
API server defaults it (its types, JobShape and LiveJob, are controllers/types.py's), the
refusal of an update, the controller's sync of its active pods, and `kubectl apply` of a Job the
cluster runs (update_job: refused, or synced with the new spec; pastActiveDeadline)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from enum import StrEnum

import msgspec

from podwhy.cluster.apiserver.defaults import Json, stored_form
from podwhy.cluster.controllers.replicaset import deletion_order
from podwhy.cluster.controllers.revisions import applied_template, same_stored_template, without_hash
from podwhy.cluster.controllers.rollout import PlaceFn, RemoveFn, Rollout, RolloutStatus, owned_by
from podwhy.cluster.controllers.types import JobShape, LiveJob, ManifestWorkload
from podwhy.features.emulation import DEFAULT, Emulation
from podwhy.features.kubefeatures import (
    MUTABLE_POD_RESOURCES_FOR_SUSPENDED_JOBS,
    MUTABLE_SCHEDULING_DIRECTIVES_FOR_SUSPENDED_JOBS,
)
from podwhy.model import objects as o
from podwhy.snapshot.cluster import Snapshot


def job_shape(spec: o.WorkloadSpec | o.JobSpec) -> JobShape:
    """A Job spec as the API server defaults it (parallelism 1, NonIndexed, not suspended)."""
    return JobShape(
        parallelism=1 if spec.parallelism is None else spec.parallelism,
        completions=spec.completions,
        completion_mode=spec.completion_mode or "NonIndexed",
        suspend=bool(spec.suspend),
        active_deadline_seconds=spec.active_deadline_seconds,
    )


def live_job(job: o.Job, template: Json | None) -> LiveJob:
    conditions = {c.type: c.status for c in job.status.conditions}
    finished = next((t for t in ("Complete", "Failed") if conditions.get(t) == "True"), "")
    return LiveJob(
        shape=job_shape(job.spec),
        template=template,
        start_time=job.status.start_time,
        succeeded=job.status.succeeded or 0,
        finished=finished,
        suspended_condition=conditions.get("Suspended") == "True",
        uid=job.metadata.uid,
    )


def _go_value(value: int | str | None) -> str:
    """A field's value as field.Invalid prints it."""
    if value is None:
        return "null"
    return f'"{value}"' if isinstance(value, str) else str(value)


def job_update_refusal(
    name: str,
    manifest: Json,
    new: JobShape,
    live: LiveJob,
    active: int,
    emulation: Emulation = DEFAULT,
) -> str | None:
    """The API server's words refusing `kubectl apply` of a Job whose update its validation
    forbids (ValidateJobSpecUpdate, in its order), or None: `completions` is immutable but for an
    Indexed Job, whose completions change only with parallelism equal to them (elastic Indexed
    Jobs); the template is immutable unless the Job is suspended — then (jobStrategy's options)
    its scheduling directives (nodeSelector, node affinity, tolerations, labels, annotations,
    scheduling gates) may change if it never started (v1.35; from v1.36, the
    MutableSchedulingDirectivesForSuspendedJobs gate: if its Suspended condition is True and no pod
    is active), and with MutablePodResourcesForSuspendedJobs its containers' resources too;
    `completionMode` is immutable. `parallelism`, `suspend` and `activeDeadlineSeconds` may
    change. MANIFEST is the manifest's pod template; LIVE's template None: not compared."""
    old = live.shape
    errors: list[str] = []
    if not new.indexed:
        if new.completions != old.completions:
            errors.append(f"spec.completions: Invalid value: {_go_value(new.completions)}: field is immutable")
    elif new.completions != old.completions and new.completions is not None and new.completions != new.parallelism:
        errors.append(
            f"spec.completions: Invalid value: {new.completions}: can only be modified in tandem with spec.parallelism"
        )
    if live.template is not None and not same_stored_template(manifest, live.template, emulation):
        if not _suspended_template_change_allowed(manifest, live, active, emulation):
            errors.append("spec.template: field is immutable")
    if new.completion_mode != old.completion_mode:
        errors.append(f"spec.completionMode: Invalid value: {_go_value(new.completion_mode)}: field is immutable")
    if not errors:
        return None
    said = errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]"
    return f'The Job "{name}" is invalid: {said}'


def _suspended_template_change_allowed(manifest: Json, live: LiveJob, active: int, emulation: Emulation) -> bool:
    """validatePodTemplateUpdate for a Job that was suspended: the changes its options allow."""
    if not live.shape.suspend or live.template is None:
        return False
    scheduling = live.start_time is None
    resources = False
    if emulation.enabled(MUTABLE_SCHEDULING_DIRECTIVES_FOR_SUSPENDED_JOBS):
        scheduling = live.suspended_condition and active == 0
    if emulation.enabled(MUTABLE_POD_RESOURCES_FOR_SUSPENDED_JOBS):
        resources = live.suspended_condition and active == 0
    if not scheduling and not resources:
        return False
    old = without_hash(live.template, emulation)
    new = applied_template(manifest, old, emulation)
    relaxed = msgspec.json.decode(msgspec.json.encode(old))
    if scheduling:
        _take_scheduling_directives(relaxed, new)
    if resources:
        _take_resources(relaxed, new)
    return bool(stored_form(relaxed) == new)


def _take_scheduling_directives(old: Json, new: Json) -> None:
    """What AllowMutableSchedulingDirectives lets change: the old template takes the new one's
    node affinity (an affinity of nothing else may be dropped), nodeSelector, tolerations,
    annotations, labels and schedulingGates."""
    old_spec, new_spec = old.setdefault("spec", {}), new.get("spec", {})
    old_meta, new_meta = old.setdefault("metadata", {}), new.get("metadata", {})
    old_affinity, new_affinity = old_spec.get("affinity"), new_spec.get("affinity")
    if new_affinity is None and isinstance(old_affinity, dict):
        old_affinity.pop("nodeAffinity", None)
        if not old_affinity:
            old_spec.pop("affinity")
    elif isinstance(new_affinity, dict):
        kept = dict(old_affinity) if isinstance(old_affinity, dict) else {}
        kept.pop("nodeAffinity", None)
        if "nodeAffinity" in new_affinity:
            kept["nodeAffinity"] = new_affinity["nodeAffinity"]
        old_spec["affinity"] = kept
    for part, source, target in (
        ("nodeSelector", new_spec, old_spec),
        ("tolerations", new_spec, old_spec),
        ("schedulingGates", new_spec, old_spec),
        ("annotations", new_meta, old_meta),
        ("labels", new_meta, old_meta),
    ):
        if part in source:
            target[part] = source[part]
        else:
            target.pop(part, None)


def _take_resources(old: Json, new: Json) -> None:
    """What AllowMutablePodResources lets change: each container's resources."""
    for kind in ("containers", "initContainers"):
        old_list, new_list = old.get("spec", {}).get(kind), new.get("spec", {}).get(kind)
        if not isinstance(old_list, list) or not isinstance(new_list, list) or len(old_list) != len(new_list):
            continue
        for before, after in zip(old_list, new_list, strict=True):
            if isinstance(before, dict) and isinstance(after, dict):
                if "resources" in after:
                    before["resources"] = after["resources"]
                else:
                    before.pop("resources", None)


def _completion_index(pod: o.Pod) -> int | None:
    value = pod.metadata.labels.get("batch.kubernetes.io/job-completion-index") or pod.metadata.annotations.get(
        "batch.kubernetes.io/job-completion-index"
    )
    return int(value) if value is not None and value.isdigit() else None


def want_active(shape: JobShape, active: int, succeeded: int) -> int:
    """manageJob: how many pods the Job controller keeps running."""
    if shape.completions is None:
        # A work queue: once one pod succeeded, what runs is left running.
        return active if succeeded > 0 else shape.parallelism
    return max(min(shape.completions - succeeded, shape.parallelism), 0)


def job_removal_order(shape: JobShape, pods: Sequence[o.Pod]) -> list[o.Pod]:
    """activePodsForRemoval: an Indexed Job's pods of an index out of range (>= completions) or
    repeated first, then controller.ActivePods' order."""
    first: list[o.Pod] = []
    left: list[o.Pod] = []
    if shape.indexed:
        seen: set[int] = set()
        for pod in sorted(pods, key=lambda p: (_completion_index(p) or 0, p.metadata.name)):
            index = _completion_index(pod)
            if index is None or index >= (shape.completions or 0) or index in seen:
                first.append(pod)
            else:
                seen.add(index)
                left.append(pod)
    else:
        left = list(pods)
    return first + deletion_order(left, related=())


class JobOutcome(StrEnum):
    """What the Job controller does once the update applies, beyond sizing the pods."""

    RUNS = "Runs"
    SUSPENDED = "Suspended"
    FINISHED = "Finished"
    DEADLINE_EXCEEDED = "DeadlineExceeded"


def job_sync(
    shape: JobShape,
    active: list[o.Pod],
    succeeded: int,
    fresh: list[o.Pod],
    place: PlaceFn,
    remove: RemoveFn,
    outcome: JobOutcome = JobOutcome.RUNS,
) -> Rollout:
    """The Job controller's syncJob once the update applies: a finished Job does nothing; a Job
    past its activeDeadlineSeconds fails (DeadlineExceeded) and a suspended one keeps no pod: every
    active pod is deleted; else manageJob deletes pods beyond the pods it wants active, or creates
    the missing ones (from FRESH, which leaves out the indexes running)."""
    out = Rollout(RolloutStatus.UNCHANGED, len(active))
    out.job = outcome
    if outcome == JobOutcome.FINISHED:
        return out
    if outcome in (JobOutcome.SUSPENDED, JobOutcome.DEADLINE_EXCEEDED):
        wanted = 0
    else:
        wanted = want_active(shape, len(active), succeeded)
    out.replicas = wanted
    if len(active) > wanted:
        for pod in job_removal_order(shape, active)[: len(active) - wanted]:
            remove(pod)
            out.removed.append(pod.metadata.name)
        return out
    if shape.indexed:
        running = {_completion_index(p) for p in active}
        fresh = [p for p in fresh if _completion_index(p) not in running]
    out.new_replicas = sum(1 for pod in fresh[: wanted - len(active)] if place(pod))
    return out


def update_job(
    workload: ManifestWorkload,
    old: list[o.Pod],
    new: list[o.Pod],
    unchanged: bool,
    place_one: PlaceFn,
    remove: RemoveFn,
    snapshot: Snapshot,
) -> Rollout:
    """`kubectl apply` of a Job the cluster runs: refused as its validation refuses an update
    (job_update_refusal; without the stored template, a template that differs from its pods'),
    else the Job controller's sync with the new spec (job_sync)."""
    live = workload.live_job
    refusal = workload.job_refusal
    if not refusal and live is None and not unchanged:
        refusal = f'The Job "{workload.name}" is invalid: spec.template: field is immutable'
    if refusal:
        rollout = Rollout(RolloutStatus.IMMUTABLE, len(old))
        rollout.refusal = refusal
        return rollout
    shape = workload.job_shape or job_shape(o.WorkloadSpec())
    outcome = JobOutcome.RUNS
    if live is not None and live.finished:
        outcome = JobOutcome.FINISHED
    elif shape.suspend and not workload.kueue_managed:  # Kueue's to lift: kueuecheck decides
        outcome = JobOutcome.SUSPENDED
    elif live is not None and _past_deadline(shape, live, snapshot):
        outcome = JobOutcome.DEADLINE_EXCEEDED
    succeeded = live.succeeded if live is not None else 0
    if live is None:  # what the snapshot holds of it: its pods that ended
        succeeded = sum(
            1
            for p in snapshot.pods
            if p.metadata.namespace == workload.namespace
            and p.status.phase == "Succeeded"
            and owned_by(p, "Job", workload.name)
        )
    rollout = job_sync(shape, old, succeeded, new, place_one, remove, outcome)
    rollout.status = RolloutStatus.UNCHANGED if unchanged else RolloutStatus.COMPLETES
    if outcome == JobOutcome.DEADLINE_EXCEEDED:
        rollout.status = RolloutStatus.STALLS
    return rollout


def _past_deadline(shape: JobShape, live: LiveJob, snapshot: Snapshot) -> bool:
    """pastActiveDeadline, at the time the snapshot was taken: the Job (not resumed now: a resumed
    Job's start time is reset) has run activeDeadlineSeconds or longer. An offline dump carries no
    time: not evaluated (False)."""
    deadline = shape.active_deadline_seconds
    if deadline is None or live.start_time is None or live.shape.suspend or not snapshot.taken_at:
        return False
    try:
        started = datetime.fromisoformat(live.start_time.replace("Z", "+00:00"))
        taken = datetime.fromisoformat(snapshot.taken_at.replace("Z", "+00:00"))
    except ValueError:
        return False
    return (taken - started).total_seconds() >= deadline
