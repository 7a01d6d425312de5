"""batch: the Jobs and CronJobs of a snapshot, and a CronJob read from a manifest."""

from __future__ import annotations

import msgspec

from podwhy.model.objects.apps import WorkloadSpec
from podwhy.model.objects.meta import Int32, Int64, ObjectMeta, _Base


class JobSpec(_Base):
    # True: the user wrote the selector and the template's labels; none of them were generated.
    manual_selector: bool | None = None
    # What an update of the Job may change, and what its controller then does (cluster/controllers/job.py).
    parallelism: Int32 | None = None
    completions: Int32 | None = None
    completion_mode: str = ""
    suspend: bool | None = None
    active_deadline_seconds: Int64 | None = None


class JobCondition(_Base):
    type: str = ""
    status: str = ""


class JobStatus(_Base):
    # When the controller started it (reset when a suspended Job is resumed); None: never started.
    start_time: str | None = None
    succeeded: Int32 | None = None
    conditions: list[JobCondition] = []


class Job(_Base):
    """A Job of the snapshot: what names a pod's owner (its CronJob), how to recreate it, and what
    an update of it may change."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: JobSpec = msgspec.field(default_factory=JobSpec)
    status: JobStatus = msgspec.field(default_factory=JobStatus)


class CronJob(_Base):
    """A CronJob of the snapshot: only its name (the owner its Jobs' pods are grouped under)."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)


class JobTemplateSpec(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: WorkloadSpec = msgspec.field(default_factory=WorkloadSpec)


class CronJobSpec(_Base):
    job_template: JobTemplateSpec = msgspec.field(default_factory=JobTemplateSpec)


class CronJobManifest(_Base):
    """A CronJob read from a manifest, with its Job template (not part of snapshots)."""

    api_version: str = ""
    kind: str = ""
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: CronJobSpec = msgspec.field(default_factory=CronJobSpec)
