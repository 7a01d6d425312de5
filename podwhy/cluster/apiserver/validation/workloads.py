"""The API server's validation of the workloads that hold pod templates (pkg/apis/apps/validation,
pkg/apis/batch/validation and pkg/apis/core/validation's ValidatePodTemplateSpec), limited to
their metadata (a StatefulSet's name a DNS label, a CronJob's at most 52 characters) and their
pod template: its labels, annotations and spec (podspec.py). The workloads' own fields (replicas,
selectors, strategies) are not checked."""

from __future__ import annotations

from typing import Any

from podwhy.cluster.apiserver.validation.invalid import InvalidObjectError
from podwhy.cluster.apiserver.validation.objectmeta import (
    annotations_errors,
    in_release_words,
    labels_errors,
    name_is_dns_label,
    name_is_dns_subdomain,
    object_meta_errors,
)
from podwhy.cluster.apiserver.validation.podspec import pod_spec_errors
from podwhy.features.emulation import Emulation
from podwhy.helpers.fielderrors import child, invalid

# A CronJob's Jobs are named `<cronjob>-<11 characters>` within a DNS label's 63 (ValidateCronJobCreate).
CRON_JOB_NAME_MAX_LENGTH = 63 - 11


def validate_workload(kind: str, obj: Any, emulation: Emulation, source: str) -> None:
    """The pod template checks of a workload as `kubectl apply` creates it (ValidatePodTemplateSpec
    under the kind's template path); InvalidObjectError naming SOURCE if the API server would
    refuse it. The template is not defaulted as a Pod is (no requests copied from limits)."""
    if kind == "CronJob":
        template, path = obj.spec.job_template.spec.template, "spec.jobTemplate.spec.template"
    else:
        template, path = obj.spec.template, "spec.template"
    name_fn = name_is_dns_label if kind == "StatefulSet" else name_is_dns_subdomain
    errors = object_meta_errors(obj.metadata, name_fn, "metadata")
    if kind == "CronJob" and len(obj.metadata.name) > CRON_JOB_NAME_MAX_LENGTH:
        detail = f"must be no more than {CRON_JOB_NAME_MAX_LENGTH} characters"
        errors.append(invalid("metadata.name", obj.metadata.name, detail))
    # ValidatePodTemplateSpec: the template's labels and annotations (upstream's paths lack
    # `metadata`), then its spec.
    errors += labels_errors(template.metadata.labels, child(path, "labels"))
    errors += annotations_errors(template.metadata.annotations, child(path, "annotations"))
    errors = in_release_words(errors, emulation)
    errors += pod_spec_errors(template.spec, child(path, "spec"), emulation, is_pod=False)
    if errors:
        raise InvalidObjectError(kind, obj.metadata.name, errors, source)
