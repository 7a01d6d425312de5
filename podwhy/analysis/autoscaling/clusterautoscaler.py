"""Cluster Autoscaler: its status ConfigMap (node groups: health, sizes, scale-up and backoff),
its events on the pod, which nodes belong to which group, and each group's template node.

The order a group is ruled out in follows CA's scale-up orchestrator: a group that is not
healthy, in backoff after a failed scale-up, or at its max size is skipped before the scheduler's
filters run on its template node (core/scaleup/orchestrator, skippedreasons.go)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypedDict

from podwhy.analysis.autoscaling.base import nominated, start_view
from podwhy.analysis.autoscaling.events import PodEvents, event_time, parse_time
from podwhy.analysis.autoscaling.facts import (
    CLUSTER_AUTOSCALER,
    EXPENDABLE_PRIORITY_CUTOFF,
    NOT_TRIGGER_SCALE_UP,
    SCALE_UP_DELAY_ANNOTATION,
    TRIGGERED_SCALE_UP,
    AnyGroupFinding,
    AutoscalerView,
    ComingNode,
    GroupAtMaxSize,
    GroupBackoff,
    GroupUnhealthy,
    NoTemplateNode,
    PodDoesNotFitNewNode,
    PodExclusion,
    ScaleUpTriggered,
    StatusUnknown,
    TemplateFits,
)
from podwhy.analysis.events import events_of
from podwhy.cluster.template import TemplateView, example_node, template_node
from podwhy.errors import PodwhyError
from podwhy.framework.runtime import Framework
from podwhy.model import autoscalerstatus as cs
from podwhy.model import objects as o
from podwhy.scheduler.cycle import CycleOutcome
from podwhy.snapshot.autoscalerconfigmap import read_configmap
from podwhy.snapshot.cluster import Snapshot

COMPONENT = "cluster-autoscaler"
# CA's default (flag; the priority cutoff is facts.py's): a node must register within the provision time.
MAX_NODE_PROVISION_SECONDS = 15 * 60
# Its events on pods (processors/status/eventing_scale_up_processor.go; their reasons are facts.py's).
NOT_TRIGGER_PREFIX = "pod didn't trigger scale-up:"
# Its reasons that name a cluster-wide limit (--max-nodes-total; --cores-total and --memory-total:
# "max cluster cpu limit reached" up to CA 1.34, 'exceeded quota: "cluster-wide", ...' since 1.35).
MAX_TOTAL_NODES = "max total nodes in cluster reached"
_CLUSTER_LIMIT = re.compile(r'^(max cluster .+ limit reached|exceeded quota: "cluster-wide", resources: .+)$')
# Its reasons, counted per node group and joined by ", " in no set order; a reason may itself hold
# ", " ("max cluster cpu, memory limit reached"), so items start where a count does.
_COUNTED = re.compile(r"(?:^|, )(\d+) (.+?)(?=, \d+ |$)")
# A pod younger than SCALE_UP_DELAY_ANNOTATION's Go duration is left alone (static_autoscaler.go).
_GO_DURATION = re.compile(r"(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)")
_UNIT_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
# "pod triggered scale-up: [{ng-a 3->4 (max: 10)} {ng-b 1->2 (max: 5)}]"
_SCALE_UP_INFO = re.compile(r"\{(\S+) (\d+)->(\d+) \(max: (\d+)\)\}")

# Its events on its status ConfigMap when a scale-up fails (core/scaleup/orchestrator/executor.go,
# clusterstate.go): the cloud's error class and code, and its messages.
_SCALE_UP_FAILED = re.compile(r"^Failed adding \d+ nodes to group (\S+) due to (\S+); source errors: (.*)$", re.S)
_FAILED_TO_SCALE_UP = re.compile(r"^Scale-up failed for group (\S+): (.*)$", re.S)
_SCALE_UP_TIMED_OUT = re.compile(r"^Nodes added to group (\S+) failed to register within (.*)$", re.S)


def scale_up_failure(event: o.Event) -> tuple[str, str, str] | None:
    """(group, error code, message) of one of CA's scale-up failure events, else None."""
    if event.reason == "ScaleUpFailed" and (m := _SCALE_UP_FAILED.match(event.message)):
        return m.group(1), m.group(2), m.group(3)
    if event.reason == "FailedToScaleUpGroup" and (m := _FAILED_TO_SCALE_UP.match(event.message)):
        return m.group(1), "", m.group(2)
    if event.reason == "ScaleUpTimedOut" and (m := _SCALE_UP_TIMED_OUT.match(event.message)):
        return m.group(1), "timeout", event.message
    return None


# Node-group membership, per provider: the group's id in CA's status, and what its nodes carry.
EKS_NODEGROUP_LABEL = "eks.amazonaws.com/nodegroup"
GKE_NODEPOOL_LABEL = "cloud.google.com/gke-nodepool"
AKS_LABELS = ("kubernetes.azure.com/agentpool", "agentpool")
# Labels whose value is the group's own name on some providers' nodes.
GROUP_NAME_LABELS = (
    EKS_NODEGROUP_LABEL,
    "alpha.eksctl.io/nodegroup-name",
    "kops.k8s.io/instancegroup",
    GKE_NODEPOOL_LABEL,
    *AKS_LABELS,
)
CAPI_OWNER_KIND = "cluster.x-k8s.io/owner-kind"
CAPI_OWNER_NAME = "cluster.x-k8s.io/owner-name"
CAPI_CLUSTER_NAMESPACE = "cluster.x-k8s.io/cluster-namespace"


def status_configmap(snapshot: Snapshot) -> o.ConfigMap | None:
    """CA's status ConfigMap: kube-system's, else the one other namespace holds."""
    found = sorted(snapshot.autoscaler_status.items(), key=lambda kv: (not kv[0].startswith("kube-system/"), kv[0]))
    return found[0][1] if found else None


def group_nodes(group: str, nodes: Sequence[o.Node]) -> list[o.Node]:
    """The nodes of the node group CA names GROUP (an ASG or VMSS name, a MIG URL,
    MachineDeployment/<ns>/<name>), found from what each provider puts on its nodes."""
    kind, _, rest = group.partition("/")
    if kind in ("MachineDeployment", "MachineSet", "MachinePool") and "/" in rest:
        namespace, _, name = rest.partition("/")
        return [n for n in nodes if _capi_member(n, kind, namespace, name)]
    base = group.rstrip("/").rsplit("/", 1)[-1]  # a MIG URL ends in the MIG's name
    out = []
    for node in nodes:
        labels = node.metadata.labels
        name = node.metadata.name
        eks = labels.get(EKS_NODEGROUP_LABEL)
        gke = labels.get(GKE_NODEPOOL_LABEL)
        if any(labels.get(key) == base for key in GROUP_NAME_LABELS):
            out.append(node)  # a label naming the group itself (eksctl, kops, or a group named as its pool)
        elif eks and base.startswith(f"eks-{eks}-"):
            out.append(node)  # EKS names a managed group's ASG eks-<nodegroup>-<uuid>
        elif gke and base.startswith("gke-") and name.startswith(base.removesuffix("-grp") + "-"):
            out.append(node)  # GKE: gke-<cluster>-<pool>-<hash>-grp makes nodes gke-<cluster>-<pool>-<hash>-<id>
        elif base and name.startswith(base) and (base.endswith("-vmss") or any(k in labels for k in AKS_LABELS)):
            out.append(node)  # AKS: VMSS aks-<pool>-<n>-vmss makes nodes aks-<pool>-<n>-vmss000000
    return out


def _capi_member(node: o.Node, kind: str, namespace: str, name: str) -> bool:
    annotations = node.metadata.annotations
    if annotations.get(CAPI_CLUSTER_NAMESPACE, namespace) != namespace:
        return False
    owner_kind, owner = annotations.get(CAPI_OWNER_KIND, ""), annotations.get(CAPI_OWNER_NAME, "")
    if kind == "MachineDeployment":  # its MachineSets are named <deployment>-<hash>
        return owner_kind == "MachineSet" and owner.startswith(name + "-")
    return owner_kind == kind and owner == name


def not_trigger_counts(message: str) -> dict[str, int]:
    """The per-reason counts of a NotTriggerScaleUp message (empty when it has none)."""
    if not message.startswith(NOT_TRIGGER_PREFIX):
        return {}
    body = message[len(NOT_TRIGGER_PREFIX) :].strip()
    return {m.group(2): int(m.group(1)) for m in _COUNTED.finditer(body)}


def cluster_limit(message: str) -> str:
    """The cluster-wide limit a NotTriggerScaleUp message names, else ""."""
    if not message.startswith(NOT_TRIGGER_PREFIX):
        return ""
    body = message[len(NOT_TRIGGER_PREFIX) :].strip()
    if body == MAX_TOTAL_NODES:
        return body
    return next((reason for reason in not_trigger_counts(message) if _CLUSTER_LIMIT.match(reason)), "")


def go_duration_seconds(text: str) -> float | None:
    """Seconds of a Go duration ("90s", "1h30m"); None when it is not one."""
    text = text.strip()
    if not text or _GO_DURATION.sub("", text):
        return None
    return sum(float(n) * _UNIT_SECONDS[u] for n, u in _GO_DURATION.findall(text))


def excluded(pod: o.Pod, now: float | None = None) -> tuple[PodExclusion, str | int] | None:
    delay = pod.metadata.annotations.get(SCALE_UP_DELAY_ANNOTATION)
    created = parse_time(pod.metadata.creation_timestamp or "")
    seconds = go_duration_seconds(delay) if delay else None
    if delay and seconds is not None and created is not None and now is not None and now - created < seconds:
        return PodExclusion.SCALE_UP_DELAYED, delay
    priority = pod.spec.priority
    if priority is not None and priority < EXPENDABLE_PRIORITY_CUTOFF:
        return PodExclusion.EXPENDABLE, priority
    return nominated(pod)


class _Named(TypedDict):
    autoscaler: str
    group: str


class _Sizes(TypedDict):
    """A group's sizes, from its status."""

    target: int | None
    ready: int | None
    min_size: int | None
    max_size: int | None


class _Template(TypedDict):
    """The pod on a copy of the group's example node: the plugin that rejects it, and its reasons."""

    example: str
    plugin: str
    reasons: tuple[str, ...]


class ClusterAutoscaler:
    name = CLUSTER_AUTOSCALER

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.events = PodEvents(snapshot, COMPONENT)
        # Per group and framework: the cluster with the group's template node, indexed once.
        self._views: dict[tuple[str, int], TemplateView] = {}
        # The latest scale-up failure CA recorded on its status, per group.
        self.failures: dict[str, tuple[str, str, str]] = {}
        for event in events_of(snapshot).about("ConfigMap", o.AUTOSCALER_STATUS_CONFIGMAP, oldest_first=True):
            failure = scale_up_failure(event)
            if failure is not None:
                self.failures[failure[0]] = (failure[1], failure[2], event_time(event))
        self.configmap = status_configmap(snapshot)
        self.status: cs.ClusterAutoscalerStatus | None = None
        self.unreadable = ""
        if self.configmap is not None:
            try:
                self.status = read_configmap(self.configmap)
            except PodwhyError as exc:
                self.unreadable = exc.message

    @staticmethod
    def present(snapshot: Snapshot) -> bool:
        if snapshot.autoscaler_status:
            return True
        return events_of(snapshot).reported_by(COMPONENT)

    def view(self, pod: o.Pod, cycle: CycleOutcome, framework: Framework, now: float | None) -> AutoscalerView:
        events = self.events.of(pod)
        view = start_view(self.name, events, excluded(pod, now), event_time)
        said = view.last_event
        if said is not None and said.reason == NOT_TRIGGER_SCALE_UP:
            said.counts = not_trigger_counts(said.message)
            view.cluster_limit = cluster_limit(said.message)
        if self.unreadable:
            view.not_evaluated.append(StatusUnknown(self.unreadable))
        elif self.status is None:
            view.not_evaluated.append(StatusUnknown())
        groups = self.status.node_groups if self.status is not None else []
        view.coming = self._coming(pod, events, groups, now)
        for group in groups:
            view.groups.append(self._finding(pod, group, framework))
        return view

    def coming(self, pod: o.Pod, now: float | None) -> ComingNode | None:
        groups = self.status.node_groups if self.status is not None else []
        return self._coming(pod, self.events.of(pod), groups, now)

    def _coming(
        self, pod: o.Pod, events: list[o.Event], groups: Sequence[cs.NodeGroupStatus], now: float | None
    ) -> ComingNode | None:
        if not events or events[-1].reason != TRIGGERED_SCALE_UP:
            return None
        event = events[-1]
        since = event_time(event)
        names = [m.group(1) for m in _SCALE_UP_INFO.finditer(event.message)]
        by_name = {g.name: g for g in groups}
        growing = [n for n in names if n in by_name and _growing(by_name[n])]
        if groups and names and not growing:
            return None  # the groups it scaled reached their target: the node came
        if not groups:
            scheduled = events_of(self.snapshot).of_pod(pod, reasons=("FailedScheduling",), oldest_first=True)
            last_failed = parse_time(event_time(scheduled[-1])) if scheduled else None
            started = parse_time(since)
            if last_failed is not None and started is not None and last_failed > started + MAX_NODE_PROVISION_SECONDS:
                return None
        started = parse_time(since)
        age = int(now - started) if now is not None and started is not None else None
        return ComingNode(
            self.name,
            (growing or names or [""])[0],
            ScaleUpTriggered(event.message),
            since,
            age,
            MAX_NODE_PROVISION_SECONDS,
        )

    def _finding(self, pod: o.Pod, group: cs.NodeGroupStatus, framework: Framework) -> AnyGroupFinding:
        named = _Named(autoscaler=self.name, group=group.name)
        sizes = _Sizes(target=group.target, ready=group.ready, min_size=group.min_size, max_size=group.max_size)
        if group.health == cs.UNHEALTHY or group.scale_up == cs.UNHEALTHY:
            return GroupUnhealthy(**named, **sizes)
        if group.scale_up == cs.SCALE_UP_BACKOFF:
            code, message = group.backoff_code, group.backoff_message
            failed = self.failures.get(group.name)
            if not code and failed is not None:  # the text status names none: its last failure event does
                code, message = failed[0], failed[1]
            return GroupBackoff(
                **named,
                error_code=code,
                error_message=message,
                since=group.scale_up_since,
                last_failure_event=failed[2] if failed is not None else None,
                **sizes,
            )
        example = example_node(group_nodes(group.name, self.snapshot.nodes))
        if example is None:
            if group.at_max_size:
                return GroupAtMaxSize(**named, fits_new_node=None, **sizes)
            return NoTemplateNode(**named, **sizes)
        key = (group.name, id(framework))
        view = self._views.get(key)
        if view is None:
            view = self._views[key] = TemplateView(
                self.snapshot, framework, example, template_node(example, group.name)
            )
        verdict = view.verdict(pod)
        template = _Template(example=example.metadata.name, plugin=verdict.plugin, reasons=tuple(verdict.reasons))
        if group.at_max_size:
            return GroupAtMaxSize(**named, fits_new_node=verdict.fits, **sizes, **template)
        if not verdict.fits:
            return PodDoesNotFitNewNode(**named, **template, **sizes)
        return TemplateFits(**named, **sizes, **template)


def _growing(group: cs.NodeGroupStatus) -> bool:
    if group.scale_up == cs.SCALE_UP_IN_PROGRESS:
        return True
    return group.target is not None and group.ready is not None and group.target > group.ready
