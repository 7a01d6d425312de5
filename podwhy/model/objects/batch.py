"""batch: the Jobs and CronJobs of a snapshot, and a CronJob read from a manifest."""

from __future__ import annotations

import msgspec

from podwhy.model.objects.apps import WorkloadSpec
from podwhy.model.objects.meta import ObjectMeta, _Base


class JobSpec(_Base):
    # True: the user wrote the selector and the template's labels; none of them were generated.
    manual_selector: bool | None = None


class Job(_Base):
    """A Job of the snapshot: only what names a pod's owner (its CronJob) and how to recreate it."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: JobSpec = msgspec.field(default_factory=JobSpec)


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
