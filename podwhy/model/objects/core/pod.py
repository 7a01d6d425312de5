"""The core API group (v1), pods: their specs and statuses, containers, the scheduling
constraints they carry (affinity, tolerations, topology spread) and pod templates."""

from __future__ import annotations

from typing import Any

import msgspec

from podwhy.model.objects.core.node import NodeSelector, NodeSelectorTerm
from podwhy.model.objects.core.volume import Volume
from podwhy.model.objects.meta import Int32, Int64, LabelSelector, ObjectMeta, ResourceList, _Base
from podwhy.model.shared import EMPTY_LIST

# ---------------------------------------------------------------- affinity


class PreferredSchedulingTerm(_Base):
    weight: Int32 = 0
    preference: NodeSelectorTerm = msgspec.field(default_factory=NodeSelectorTerm)


class NodeAffinity(_Base):
    required_during_scheduling_ignored_during_execution: NodeSelector | None = None
    preferred_during_scheduling_ignored_during_execution: list[PreferredSchedulingTerm] = []


class PodAffinityTerm(_Base):
    label_selector: LabelSelector | None = None
    namespaces: list[str] = []
    topology_key: str = ""
    namespace_selector: LabelSelector | None = None
    match_label_keys: list[str] = []
    mismatch_label_keys: list[str] = []


class WeightedPodAffinityTerm(_Base):
    weight: Int32 = 0
    pod_affinity_term: PodAffinityTerm = msgspec.field(default_factory=PodAffinityTerm)


class PodAffinity(_Base):
    required_during_scheduling_ignored_during_execution: list[PodAffinityTerm] = []
    preferred_during_scheduling_ignored_during_execution: list[WeightedPodAffinityTerm] = []


class Affinity(_Base):
    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAffinity | None = None


# ---------------------------------------------------------------- pods


class Toleration(_Base):
    key: str = ""
    operator: str = ""
    value: str = ""
    effect: str = ""
    toleration_seconds: Int64 | None = None


class ContainerPort(_Base):
    container_port: Int32 = 0
    host_port: Int32 = 0
    protocol: str = ""
    host_ip: str = msgspec.field(default="", name="hostIP")
    name: str = ""


class ResourceClaimRef(_Base):
    name: str = ""
    request: str = ""


class ResourceRequirements(_Base):
    requests: ResourceList = {}
    limits: ResourceList = {}
    claims: list[ResourceClaimRef] = []


# One empty list shared by every container whose command line is dropped (never mutated).
_NO_WORDS: list[str] = EMPTY_LIST  # shared: model/shared.py


# What PodSecurity admission reads of security contexts (pod-security-admission's checks).
class SELinuxOptions(_Base):
    user: str = ""
    role: str = ""
    type: str = ""


class SeccompProfile(_Base):
    type: str = ""


class AppArmorProfile(_Base):
    type: str = ""


class WindowsSecurityContextOptions(_Base):
    host_process: bool | None = None


class Capabilities(_Base):
    add: list[str] = []
    drop: list[str] = []


class Sysctl(_Base):
    name: str = ""


class SecurityContext(_Base):
    privileged: bool | None = None
    allow_privilege_escalation: bool | None = None
    run_as_non_root: bool | None = None
    run_as_user: Int64 | None = None
    capabilities: Capabilities | None = None
    proc_mount: str | None = None
    se_linux_options: SELinuxOptions | None = msgspec.field(default=None, name="seLinuxOptions")
    seccomp_profile: SeccompProfile | None = None
    app_armor_profile: AppArmorProfile | None = None
    windows_options: WindowsSecurityContextOptions | None = None


class PodSecurityContext(_Base):
    run_as_non_root: bool | None = None
    run_as_user: Int64 | None = None
    se_linux_options: SELinuxOptions | None = msgspec.field(default=None, name="seLinuxOptions")
    seccomp_profile: SeccompProfile | None = None
    app_armor_profile: AppArmorProfile | None = None
    windows_options: WindowsSecurityContextOptions | None = None
    sysctls: list[Sysctl] = []


class HostAddress(_Base):
    """An httpGet or tcpSocket action: the host it calls (empty: the pod's own IP)."""

    host: str = ""


class Handler(_Base):
    """A probe or a lifecycle hook: of its actions, those that may call another host."""

    http_get: HostAddress | None = None
    tcp_socket: HostAddress | None = None


def _calls_host(handler: Handler | None) -> bool:
    if handler is None:
        return False
    return bool(
        (handler.http_get is not None and handler.http_get.host)
        or (handler.tcp_socket is not None and handler.tcp_socket.host)
    )


class Lifecycle(_Base):
    post_start: Handler | None = None
    pre_stop: Handler | None = None


class ContainerRestartRule(_Base):
    # "Restart", "RestartAllContainers" (NodeDeclaredFeatures reads it, v1.36).
    action: str = ""


class Container(_Base):
    name: str = ""
    image: str = ""
    resources: ResourceRequirements = msgspec.field(default_factory=ResourceRequirements)
    ports: list[ContainerPort] = []
    restart_policy: str | None = None
    restart_policy_rules: list[ContainerRestartRule] = []
    # What a scheduler pod runs, and with which flags (podwhy pending: which schedulerName it serves).
    # Kept only where the image or a word mentions a scheduler: the command lines of every other
    # container would cost a large dump a third more memory, and nothing reads them.
    command: list[str] = []
    args: list[str] = []
    security_context: SecurityContext | None = None
    # Kept only where they call a host other than the pod (what PodSecurity's baseline forbids):
    # nothing else reads probes and hooks, which most containers of a dump have.
    liveness_probe: Handler | None = None
    readiness_probe: Handler | None = None
    startup_probe: Handler | None = None
    lifecycle: Lifecycle | None = None

    def __post_init__(self) -> None:
        if (self.command or self.args) and "sched" not in self.image:
            if not any("sched" in word for word in (*self.command, *self.args)):
                self.command = self.args = _NO_WORDS
        if self.liveness_probe is not None and not _calls_host(self.liveness_probe):
            self.liveness_probe = None
        if self.readiness_probe is not None and not _calls_host(self.readiness_probe):
            self.readiness_probe = None
        if self.startup_probe is not None and not _calls_host(self.startup_probe):
            self.startup_probe = None
        lifecycle = self.lifecycle
        if lifecycle is not None and not (_calls_host(lifecycle.post_start) or _calls_host(lifecycle.pre_stop)):
            self.lifecycle = None


class TopologySpreadConstraint(_Base):
    max_skew: Int32 = 0
    topology_key: str = ""
    when_unsatisfiable: str = ""
    label_selector: LabelSelector | None = None
    min_domains: Int32 | None = None
    node_affinity_policy: str | None = None
    node_taints_policy: str | None = None
    match_label_keys: list[str] = []


class PodSchedulingGate(_Base):
    name: str = ""


class PodResourceClaim(_Base):
    name: str = ""
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None
    # Kubernetes 1.26-1.30 named the claim here (classic DRA); read only to refuse such a pod.
    source: dict[str, Any] | None = None


class PodSchedulingGroup(_Base):
    pod_group_name: str | None = None


class PodOS(_Base):
    name: str = ""


class PodSpec(_Base):
    node_name: str = ""
    node_selector: dict[str, str] = {}
    affinity: Affinity | None = None
    tolerations: list[Toleration] = []
    containers: list[Container] = []
    init_containers: list[Container] = []
    overhead: ResourceList = {}
    resources: ResourceRequirements | None = None
    priority: Int32 | None = None
    # How long victims of preemption may take to go.
    termination_grace_period_seconds: Int64 | None = None
    # Set, the pod is in a quota's Terminating scope (ResourceQuota admission).
    active_deadline_seconds: Int64 | None = None
    priority_class_name: str = ""
    preemption_policy: str | None = None
    scheduler_name: str = ""
    volumes: list[Volume] = []
    topology_spread_constraints: list[TopologySpreadConstraint] = []
    scheduling_gates: list[PodSchedulingGate] = []
    runtime_class_name: str | None = None
    host_network: bool = False
    host_pid: bool = msgspec.field(default=False, name="hostPID")
    host_ipc: bool = msgspec.field(default=False, name="hostIPC")
    security_context: PodSecurityContext | None = None
    # The OS the pod's containers need: the kubelet of another OS refuses it.
    os: PodOS | None = None
    # False: a user namespace (with hostNetwork, NodeDeclaredFeatures asks for node support, v1.36).
    host_users: bool | None = None
    # The pod group it belongs to (v1.36, GenericWorkload): gang scheduling is not simulated.
    scheduling_group: PodSchedulingGroup | None = None
    resource_claims: list[PodResourceClaim] = []


class ContainerStatusResources(_Base):
    requests: ResourceList = {}
    limits: ResourceList = {}


class ContainerStateWaiting(_Base):
    reason: str = ""
    message: str = ""


class ContainerStateRunning(_Base):
    started_at: str | None = None


class ContainerStateTerminated(_Base):
    reason: str = ""
    message: str = ""
    exit_code: Int32 = 0


class ContainerState(_Base):
    waiting: ContainerStateWaiting | None = None
    running: ContainerStateRunning | None = None
    terminated: ContainerStateTerminated | None = None


class ContainerStatus(_Base):
    name: str = ""
    resources: ContainerStatusResources | None = None
    allocated_resources: ResourceList = {}
    # Why a bound pod is not running yet.
    image: str = ""
    ready: bool = False
    state: ContainerState | None = None
    # The previous run (a crash-looping container's exit code and reason).
    last_state: ContainerState | None = None
    restart_count: Int32 = 0


class PodCondition(_Base):
    type: str = ""
    status: str = ""
    reason: str = ""
    message: str = ""
    last_transition_time: str | None = None


class PodResourceClaimStatus(_Base):
    name: str = ""
    resource_claim_name: str | None = None


class PodStatus(_Base):
    phase: str = ""
    nominated_node_name: str = ""
    # Preemption orders victims by it (util.GetPodStartTime).
    start_time: str | None = None
    conditions: list[PodCondition] = []
    container_statuses: list[ContainerStatus] = []
    init_container_statuses: list[ContainerStatus] = []
    resource_claim_statuses: list[PodResourceClaimStatus] = []
    resources: ContainerStatusResources | None = None


class Pod(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PodSpec = msgspec.field(default_factory=PodSpec)
    status: PodStatus = msgspec.field(default_factory=PodStatus)


# ---------------------------------------------------------------- pod templates


class PodTemplateSpec(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PodSpec = msgspec.field(default_factory=PodSpec)
