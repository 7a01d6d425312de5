"""Cluster Autoscaler's status, as its status ConfigMap tells it (the `status` key): the structured
YAML of CA >= 1.30 (clusterstate/api types) or the text of older releases. Read by
snapshot/autoscalerconfigmap.py; only what podwhy reads is kept."""

from __future__ import annotations

from enum import StrEnum

import msgspec


class StatusFormat(StrEnum):
    YAML = "yaml"  # CA >= 1.30
    TEXT = "text"  # CA < 1.30: "Cluster-autoscaler status at ..."


# Values of the conditions' `status` (clusterstate/api): health, and scale-up.
HEALTHY, UNHEALTHY = "Healthy", "Unhealthy"
SCALE_UP_IN_PROGRESS, SCALE_UP_NO_ACTIVITY, SCALE_UP_BACKOFF = "InProgress", "NoActivity", "Backoff"
# autoscalerStatus
RUNNING, INITIALIZING = "Running", "Initializing"


class NodeGroupStatus(msgspec.Struct, frozen=True):
    """One node group (its cloud provider's id: an ASG or VMSS name, a MIG URL, MachineDeployment/ns/name)."""

    name: str
    health: str = ""
    ready: int | None = None
    registered: int | None = None
    not_started: int | None = None
    unready: int | None = None
    # Nodes the cloud provider has but that have not registered (YAML format only: a node on its
    # way), and those unregistered too long (both formats).
    unregistered: int | None = None
    long_unregistered: int | None = None
    # The size the cloud provider is asked for (cloudProviderTarget), and the group's limits.
    target: int | None = None
    min_size: int | None = None
    max_size: int | None = None
    scale_up: str = ""
    # When scale-up last changed status (lastTransitionTime; RFC 3339 or Go's time text).
    scale_up_since: str = ""
    # Backoff after a failed scale-up: the provider's error code and message (YAML format only).
    backoff_code: str = ""
    backoff_message: str = ""

    @property
    def at_max_size(self) -> bool:
        return self.target is not None and self.max_size is not None and self.target >= self.max_size


class ClusterAutoscalerStatus(msgspec.Struct, frozen=True):
    format: StatusFormat
    # When CA wrote it (its own time text), and Running or Initializing (the text format says
    # Initializing alone, else its status is taken as Running: CA writes it at the end of each loop).
    time: str = ""
    autoscaler_status: str = ""
    message: str = ""
    cluster_health: str = ""
    cluster_scale_up: str = ""
    node_groups: list[NodeGroupStatus] = msgspec.field(default_factory=list)
