"""What a workload controller's rollout of an updated manifest comes to (`check`), the callbacks
it places and removes pods with, and what every workload controller shares: which pods a
workload owns (its controller reference), intstr's scaled values, and which pods count as
available.

The pods of the workload the snapshot holds are its old pods. Pods podwhy places count as
available at once: readiness, minReadySeconds and probes are not simulated (the report says so).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from enum import StrEnum

import msgspec

from podwhy.model import objects as o
from podwhy.model.wellknownnames import POD_TEMPLATE_HASH
from podwhy.snapshot.cluster import Snapshot

DEFAULT_PROGRESS_DEADLINE_SECONDS = 600
ROLLING_UPDATE, RECREATE, ON_DELETE = "RollingUpdate", "Recreate", "OnDelete"


class RolloutStatus(StrEnum):
    """What applying the manifest does to a workload the cluster runs."""

    UNCHANGED = "Unchanged"
    COMPLETES = "Completes"
    STALLS = "Stalls"
    # The template cannot change (a Job's): `kubectl apply` fails.
    IMMUTABLE = "Immutable"
    # OnDelete: nothing changes until pods are deleted.
    WAITS_FOR_DELETION = "WaitsForDeletion"
    # A paused Deployment (spec.paused): the controller's sync() creates no new ReplicaSet, so the
    # new template is not rolled out until it is resumed (Progressing Unknown, DeploymentPaused);
    # it still scales the ReplicaSets it has.
    PAUSED = "Paused"


class RolloutStep(msgspec.Struct):
    """One round of the controllers: how many old and new pods there are, and how many new ones
    run."""

    old: int
    new: int
    new_placed: int


class Rollout(msgspec.Struct):
    status: RolloutStatus
    old_replicas: int
    new_replicas: int = 0
    # The old pods the controllers removed ("name"), in order.
    removed: list[str] = msgspec.field(default_factory=list)
    steps: list[RolloutStep] = msgspec.field(default_factory=list)
    progress_deadline_seconds: int = DEFAULT_PROGRESS_DEADLINE_SECONDS
    # How many pods it is to run when the manifest does not say (a DaemonSet: its nodes).
    replicas: int | None = None
    # A rolling update's fenceposts (None for any other update).
    max_surge: int | None = None
    max_unavailable: int | None = None
    # Whether the template was compared with the old pods only (the snapshot holds no stored
    # template): the fields podwhy does not read were not compared.
    pods_compared: bool = False
    # A Deployment's: the cluster's ReplicaSet whose template the manifest's is (FindNewReplicaSet),
    # scaled up instead of a new one ("" when the controller creates one).
    revision: str = ""
    # A Job's update: the API server's words refusing it (status Immutable), and what its
    # controller does once it applies.
    refusal: str = ""
    job: str = ""


# Places one new pod and says whether it runs; removes one old pod.
PlaceFn = Callable[[o.Pod], bool]
RemoveFn = Callable[[o.Pod], None]


def owned_by(pod: o.Pod, kind: str, name: str) -> bool:
    """POD belongs to the workload: its controller reference names it, or for a Deployment its
    ReplicaSet, which the Deployment controller names `<deployment>-<pod-template-hash>`."""
    ref = next((r for r in pod.metadata.owner_references if r.controller), None)
    if ref is None:
        return False
    if kind == "Deployment":
        hashed = pod.metadata.labels.get(POD_TEMPLATE_HASH)
        return ref.kind == "ReplicaSet" and hashed is not None and ref.name == f"{name}-{hashed}"
    return ref.kind == kind and ref.name == name


def existing_pods(snapshot: Snapshot, kind: str, namespace: str, name: str) -> list[o.Pod]:
    """The pods the snapshot holds of the workload (KIND NAMESPACE/NAME): not ended, not deleted."""
    return [
        p
        for p in snapshot.pods
        if p.metadata.namespace == namespace
        and p.status.phase not in ("Succeeded", "Failed")
        and p.metadata.deletion_timestamp is None
        and owned_by(p, kind, name)
    ]


def scaled(value: int | str | None, total: int, default: str, round_up: bool) -> int:
    """intstr.GetScaledValueFromIntOrPercent: an integer, or a percentage of TOTAL rounded up
    (maxSurge) or down (maxUnavailable)."""
    raw = default if value is None else value
    if isinstance(raw, int):
        return raw
    if raw.endswith("%") and raw[:-1].isdigit():
        exact = int(raw[:-1]) * total / 100
        return math.ceil(exact) if round_up else math.floor(exact)
    return int(raw) if raw.isdigit() else 0


def is_available(pod: o.Pod) -> bool:
    """Whether a pod the cluster runs counts as available (podwhy reads no readiness)."""
    return bool(pod.spec.node_name) and pod.status.phase == "Running"
