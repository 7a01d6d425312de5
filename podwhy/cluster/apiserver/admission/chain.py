"""The API server's handling of a pod it creates: defaulting, the mutating admission plugins,
the registry's validation, the validating admission plugins, each chain as data in upstream's
order (AllOrderedPlugins, pkg/kubeapiserver/options/plugins.go, of the plugins podwhy emulates;
PodSecurity and ResourceQuota only validate, DefaultTolerationSeconds, Priority,
PodTopologyLabels and MutatingAdmissionPolicy only mutate, LimitRanger and RuntimeClass do both;
a MutatingAdmissionPolicy's change runs the mutating plugins once more, as the reinvoker does).
DefaultStorageClass, which admits claims, not pods, is admit_claim."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from podwhy.cluster.admissionopen import MUTATING_POLICY, VALIDATING_POLICY, AdmissionOpen
from podwhy.cluster.apiserver.admission import (
    defaulttolerationseconds,
    limitranger,
    podtopologylabels,
    priority,
    resourcequota,
    runtimeclass,
)
from podwhy.cluster.apiserver.admission.attributes import Attributes
from podwhy.cluster.apiserver.admission.podsecurity import admission as podsecurity
from podwhy.cluster.apiserver.admission.policy import admission as policies
from podwhy.cluster.apiserver.defaults import default_pod, drop_disabled_pod_fields
from podwhy.cluster.apiserver.validation.pod import validate_pod
from podwhy.cluster.apiserver.warnings import warn_on_create
from podwhy.features.emulation import Emulation
from podwhy.model import objects as o
from podwhy.snapshot.cluster import Snapshot

PluginFn = Callable[[o.Pod, Attributes], None]

# The mutating plugins' Admit, in AllOrderedPlugins' order.
MUTATING: tuple[tuple[str, PluginFn], ...] = (
    (limitranger.NAME, limitranger.admit_pod),
    (priority.NAME, priority.admit_pod),
    (defaulttolerationseconds.NAME, defaulttolerationseconds.admit_pod),
    (runtimeclass.NAME, runtimeclass.admit_pod),
    (podtopologylabels.NAME, podtopologylabels.admit_pod),
    # The last before the webhooks (MutatingAdmissionWebhook's, never called): its result is
    # what validation, ValidatingAdmissionPolicy and the scheduler see.
    (MUTATING_POLICY, policies.admit_pod),
)

# The validating plugins' Validate, in AllOrderedPlugins' order (ResourceQuota last, as upstream
# keeps it).
VALIDATING: tuple[tuple[str, PluginFn], ...] = (
    (limitranger.NAME, limitranger.validate_pod),
    (podsecurity.NAME, podsecurity.validate_pod),
    (runtimeclass.NAME, runtimeclass.validate_pod),
    # MutatingAdmissionWebhook's webhooks, never called, are named with ValidatingAdmissionPolicy
    # and ValidatingAdmissionWebhook's (a pod they meet is left open, not refused).
    (VALIDATING_POLICY, policies.validate_pod),
    (resourcequota.NAME, resourcequota.validate_pod),
)


def admit(
    pod: o.Pod,
    snapshot: Snapshot,
    namespace: str,
    emulation: Emulation,
    *,
    quota: bool = True,
    raw_spec: dict[str, Any] | None = None,
    admission_open: list[AdmissionOpen] | None = None,
) -> o.Pod:
    """What the API server does to a pod it creates, in its order: defaulting
    (cluster.apiserver.defaults); the fields of disabled features dropped (PrepareForCreate: none
    of the mutating plugins reads or sets them); the MUTATING plugins; the pod's validation
    (cluster.apiserver.validation.pod: InvalidObjectError); then the VALIDATING plugins, ResourceQuota
    unless QUOTA is False (a DaemonSet's template, whose pods are charged one by one as they are
    created). A refusal by an admission plugin (RuntimeClass, PodSecurity, ResourceQuota) raises
    AdmissionRefusalError. The fields defaulting and LimitRanger filled are recorded in the
    snapshot as soon as they are known (a later plugin's refusal keeps them). RAW_SPEC is the
    pod's spec as the manifest wrote it (what admission policies read); what admission leaves
    open (webhooks, policies not evaluated) is appended to ADMISSION_OPEN."""
    if not pod.metadata.namespace:
        pod.metadata.namespace = namespace
    key = f"{pod.metadata.namespace}/{pod.metadata.name}"
    filled = [(d.field, d.value, d.why) for d in default_pod(pod, emulation)]
    drop_disabled_pod_fields(pod, emulation)
    attributes = Attributes(snapshot, emulation, defaulted=filled, raw_spec=raw_spec)
    for _, admit_pod in MUTATING:
        admit_pod(pod, attributes)
        if filled:
            snapshot.defaulted[key] = filled
    if attributes.reinvoke:  # a MutatingAdmissionPolicy changed it: the mutating chain once more
        for _, admit_pod in MUTATING:
            admit_pod(pod, attributes)
        if filled:
            snapshot.defaulted[key] = filled
    if not pod.status.phase:
        pod.status.phase = "Pending"
    validate_pod(pod, emulation)  # the registry's Validate, between mutating and validating admission
    for name, validate in VALIDATING:
        if quota or name != resourcequota.NAME:
            validate(pod, attributes)
    if admission_open is not None and attributes.open:
        admission_open.append(attributes.open)
    if not any(ref.controller for ref in pod.metadata.owner_references):  # `kubectl apply` of a Pod
        warn_on_create(snapshot, "Pod", pod, emulation.minor)
    return pod


def add_manifest_pod(
    pod: o.Pod,
    snapshot: Snapshot,
    namespace: str,
    emulation: Emulation,
    raw_spec: dict[str, Any] | None = None,
    admission_open: list[AdmissionOpen] | None = None,
) -> o.Pod:
    """Admit a pod read from a manifest and put it in the snapshot, in place of a pod of its name
    (RAW_SPEC and ADMISSION_OPEN as for admit)."""
    resourcequota.sync_manifest_quotas(snapshot)
    pod = admit(pod, snapshot, namespace, emulation, raw_spec=raw_spec, admission_open=admission_open)
    key = (pod.metadata.namespace, pod.metadata.name)
    snapshot.pods = [p for p in snapshot.pods if (p.metadata.namespace, p.metadata.name) != key]
    snapshot.pods.append(pod)
    return pod
