"""The API server's validation of a pod it creates (pkg/apis/core/validation: ValidatePodCreate):
its metadata (objectmeta.py, with ValidatePodName), then its spec (podspec.py); and the same
checks of the pods a dump or a cluster holds, whose refusal is said beside them.

An object the API server would refuse is refused in its words: `The Pod "web" is invalid:
spec.containers[0].resources.requests[cpu]: Invalid value: "-5": must be greater than or equal to
0`, several errors as errors.NewInvalid aggregates them (`[a, b]`, one line where kubectl prints a
list)."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from podwhy.cluster.apiserver.defaults import default_pod
from podwhy.cluster.apiserver.validation.invalid import InvalidObjectError
from podwhy.cluster.apiserver.validation.objectmeta import in_release_words, name_is_dns_subdomain, object_meta_errors
from podwhy.cluster.apiserver.validation.podspec import pod_spec_errors
from podwhy.features.emulation import Emulation
from podwhy.model import objects as o
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.names import generated_name


def validate_pod(pod: o.Pod, emulation: Emulation) -> None:
    """ValidatePodCreate's checks of POD (defaulted, through the mutating admission plugins, its
    disabled fields dropped): its metadata (ValidateObjectMeta with ValidatePodName), then its
    spec; InvalidObjectError if the API server would refuse it."""
    meta = pod.metadata
    if meta.name.endswith("-") and any(ref.controller for ref in meta.owner_references):
        # A controller's pod whose name is still its generateName (the DaemonSet's for every
        # node): the API server validates the name it generates from it.
        meta = msgspec.structs.replace(meta, name=generated_name(meta.name, meta.name))
    errors = in_release_words(object_meta_errors(meta, name_is_dns_subdomain, "metadata"), emulation)
    errors += pod_spec_errors(pod.spec, "spec", emulation)
    if errors:
        raise InvalidObjectError("Pod", pod.metadata.name, errors)


def stored_pod_refusal(pod: o.Pod, emulation: Emulation) -> str | None:
    """The API server's words refusing a pod read from a dump or a cluster (explain NAME, pending),
    checked as validate_pod checks a created one, or None when it would store it. A copy is
    defaulted first (a stored pod is already, a hand-written one need not be); the pod itself is
    not changed. A pod the snapshot holds was stored by some API server, perhaps under an older
    release's rules (validation ratchets), or the dump was made without one: it is explained as
    the scheduler would schedule it, and the refusal said beside (Snapshot.unstorable)."""
    copy = msgspec.json.decode(msgspec.json.encode(pod), type=o.Pod)
    default_pod(copy, emulation)
    try:
        validate_pod(copy, emulation)
    except InvalidObjectError as invalid:
        return invalid.words
    return None


def note_unstorable(snapshot: Snapshot, pods: Iterable[o.Pod], emulation: Emulation) -> None:
    """Record in SNAPSHOT.unstorable each of PODS the release's API server would refuse."""
    for pod in pods:
        refusal = stored_pod_refusal(pod, emulation)
        if refusal is not None:
            snapshot.unstorable[f"{pod.metadata.namespace}/{pod.metadata.name}"] = refusal
