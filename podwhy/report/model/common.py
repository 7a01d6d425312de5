"""What every report shares: the structs' base, the snapshot's summary, the emulated release,
the API server's defaults and a suggestion with its patches."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

API_VERSION = "podwhy/v1"


class _Struct(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    pass


class SnapshotSummary(_Struct):
    sources: list[str]
    nodes: int
    pods: int
    missingKinds: list[str]  # noqa: N815
    ignoredKinds: dict[str, int]  # noqa: N815
    # When the snapshot was taken (RFC 3339): live, or as `podwhy snapshot` recorded it; absent
    # for other dumps. Ages in the report are measured to it, never to the reader's clock.
    takenAt: str | UnsetType = UNSET  # noqa: N815


class DefaultedField(_Struct):
    """A field of a manifest's pod the API server's defaulting fills in, which the scheduler reads."""

    field: str  # as a JSON path of the pod: spec.containers[0].resources.requests.nvidia.com/gpu
    value: str
    why: str  # "copied from limits", "host network: the container port", ...


# How the emulated release was chosen: flag (--kube-version), apiServer (/version, live or
# recorded by podwhy snapshot), schedulerImage (the kube-scheduler pod's image tag),
# kubeletLowerBound (the newest kubelet: the control plane may be newer), default (nothing told it).
VersionSourceName = Literal["flag", "apiServer", "schedulerImage", "kubeletLowerBound", "default"]


class SchedulerVersion(_Struct):
    """The kube-scheduler release podwhy emulates, and how it was chosen."""

    # The emulated release, "1.35" or "1.36".
    version: str
    versionSource: VersionSourceName  # noqa: N815
    # The cluster's version as found ("v1.36.3-eks-1a2b"); null for the default.
    clusterVersion: str | None = None  # noqa: N815


# A change as an RFC 7386 JSON merge patch against an object of the snapshot
# ({kind, namespace, name, patch}; a null patch removes the object), or a new object ({kind, object}).
ObjectPatch = Annotated[
    dict[str, Any],
    msgspec.Meta(
        description="An RFC 7386 JSON merge patch {kind, namespace, name, patch} against an object of the "
        "snapshot (a null patch removes it), or {kind, object} for a new object",
        extra_json_schema={"required": ["kind"], "properties": {"kind": {"type": "string"}}},
    ),
]


class Suggestion(_Struct):
    """A change verified to make the pod fit: the plugins ran again on the changed pod or cluster;
    or (satisfyPolicy) to make the ValidatingAdmissionPolicy refusing a workload's pods admit them:
    the API server's admission ran again on the changed pod, then the plugins."""

    # releaseNomination, lowerRequest, addToleration, dropNodeSelection, renameTopologyKey, renameResource,
    # fixPodAffinity, labelNode, addNode, addNodesForGroup, awaitPreemption (no action: the scheduler
    # preempts for it; no command), evictPods, relaxTopologySpread, dropAntiAffinity,
    # raiseGroupMaxSize, addNodePoolZone, raiseNodePoolLimit; satisfyPolicy (fields of the pod
    # template a ValidatingAdmissionPolicy refusing its pods requires: verified by the API server's
    # admission run again, then the scheduler's plugins; `nodes` may be empty: the pods are then
    # created but stay Pending, the summary says why)
    kind: str
    summary: str
    # The nodes the pod fits on once the change is made.
    nodes: list[str]
    # Applied together, they make podwhy's verdict Schedulable.
    patches: list[ObjectPatch]
    # What a user would run (on the owning workload's template rather than the pod).
    command: str
