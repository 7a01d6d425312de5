"""pod-security-admission's admission/admission.go: PodSecurity admission of a pod created in a
namespace, the policy its labels enforce (levels.py) evaluated (policy/registry.py) and refused
with every check the pod fails."""

from __future__ import annotations

from podwhy.cluster.apiserver.admission.attributes import AdmissionRefusalError, Attributes, admitted_without
from podwhy.cluster.apiserver.admission.podsecurity.levels import (
    ENFORCE_LEVEL_LABEL,
    ENFORCE_VERSION_LABEL,
    enforced_policy,
)
from podwhy.cluster.apiserver.admission.podsecurity.messages import refusal
from podwhy.cluster.apiserver.admission.podsecurity.policy.registry import evaluate, refused_by_some_policy
from podwhy.model import objects as o

NAME = "PodSecurity"


def validate_pod(pod: o.Pod, attributes: Attributes) -> None:
    """PodSecurity admission: the policy the pod's namespace enforces (its labels; none:
    privileged), refused (AdmissionRefusalError) with every check it fails. Without the Namespace
    object and Namespaces the snapshot can vouch for, a pod some policy would refuse is admitted
    without it (its namespace's labels are unknown)."""
    snapshot, emulation = attributes.snapshot, attributes.emulation
    namespace = pod.metadata.namespace
    ns = snapshot.namespaces.get(namespace)
    if ns is None and "Namespace" in snapshot.missing:
        if refused_by_some_policy(pod, emulation.minor):
            admitted_without(pod, snapshot, "Namespace")
        return
    labels = ns.metadata.labels if ns is not None else {}
    policy = enforced_policy(labels)
    violations = evaluate(pod, policy.level, policy.version, newest=emulation.minor)
    if violations:
        set_labels = ", ".join(
            f"{key}={labels[key]}" for key in (ENFORCE_LEVEL_LABEL, ENFORCE_VERSION_LABEL) if key in labels
        )
        cause = f"namespace {namespace} is labelled {set_labels}"
        raise AdmissionRefusalError(pod, NAME, refusal(policy, violations), cause)
