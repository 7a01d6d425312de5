"""What every admission plugin is handed with the pod it admits (k8s.io/apiserver's
admission.Attributes: the object, and here the cluster the plugins read), and the refusal a
plugin's Forbidden error becomes."""

from __future__ import annotations

from typing import Any

import msgspec

from podwhy.cluster.admissionopen import AdmissionOpen
from podwhy.errors import PodwhyError
from podwhy.features.emulation import Emulation
from podwhy.model import objects as o
from podwhy.snapshot.cluster import Snapshot


class Attributes(msgspec.Struct):
    """One pod's admission: the SNAPSHOT the plugins read (and charge), the EMULATION of the
    release, the fields the API server filled in (DEFAULTED: (field, value, why), defaulting's
    and LimitRanger's), and what RuntimeClass's Admit found for its Validate (RUNTIME_CLASS, and
    whether its Validate can run: RUNTIME_CLASS_KNOWN)."""

    snapshot: Snapshot
    emulation: Emulation
    defaulted: list[tuple[str, str, str]] = msgspec.field(default_factory=list)
    runtime_class: o.RuntimeClass | None = None
    runtime_class_known: bool = True
    # The pod's spec as the manifest wrote it (every field, for admission policies' CEL); None:
    # the typed pod's.
    raw_spec: dict[str, Any] | None = None
    # What admission leaves open: webhooks never called, policies not evaluated (the
    # MutatingAdmissionPolicy and ValidatingAdmissionPolicy plugins set it).
    open: AdmissionOpen = msgspec.field(default_factory=AdmissionOpen)
    # The MutatingAdmissionPolicy plugin's reinvocation context over this pod's admission, and
    # whether the mutating plugins are to be run again (ShouldReinvoke).
    reinvocation: Any = None
    reinvoke: bool = False


class PolicyDenied(msgspec.Struct, frozen=True):
    """The ValidatingAdmissionPolicy denial behind a refusal: the policy, its binding and the index
    in the policy's validations of the one that evaluated false (None: an error's, a
    configuration's)."""

    policy: str
    binding: str | None
    validation: int | None


class AdmissionRefusalError(PodwhyError):
    """A validating admission plugin (PLUGIN: PodSecurity, ResourceQuota) refused to create a
    pod: its controller's create fails (FailedCreate, with these WORDS) and is retried; `kubectl
    apply` of a Pod fails. WHY is the plugin's part, after `pods "NAME" is forbidden: `; DENIED:
    a ValidatingAdmissionPolicy's denial, what a suggestion reads of it."""

    def __init__(
        self,
        pod: o.Pod,
        plugin: str,
        why: str,
        cause: str,
        words: str | None = None,
        denied: PolicyDenied | None = None,
    ) -> None:
        self.plugin = plugin
        self.why = why
        self.denied = denied
        # WORDS: the whole refusal where the plugin words it all (a MutatingAdmissionPolicy's).
        self.words = words if words is not None else f'pods "{pod.metadata.name}" is forbidden: {why}'
        super().__init__(self.words, hint=f"the API server's {plugin} admission refuses it: {cause}")


def admitted_without(pod: o.Pod, snapshot: Snapshot, kind: str) -> None:
    """Admission needed an object of KIND the snapshot cannot vouch for not having."""
    key = f"{pod.metadata.namespace}/{pod.metadata.name}"
    snapshot.admitted_without[key] = snapshot.admitted_without.get(key, frozenset()) | {kind}
