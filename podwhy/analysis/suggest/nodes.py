"""addNode: add one node shaped like one that rejects the pod only for what a new copy of it cures."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from podwhy.analysis.autoscaling.clusterautoscaler import group_nodes
from podwhy.analysis.autoscaling.facts import KARPENTER, AutoscalingAnalysis, GroupAtMaxSize
from podwhy.analysis.autoscaling.karpenter import NODEPOOL_LABEL
from podwhy.analysis.suggest.base import MAX_TRIES_PER_KIND, RESOURCE_FIT, _Verifier
from podwhy.analysis.suggest.facts import (
    AddNode,
    Command,
    InAutoscalerGroup,
    InNoGroup,
    NoAutoscalerKnown,
    NodeAdder,
    ScaleNodeGroup,
    StartupPods,
    Suggestion,
)
from podwhy.analysis.suggest.notes import KeptOff, PortsTakenByStartup, ShortBesideStartup
from podwhy.analysis.suggest.patches import _builtins
from podwhy.analysis.suggest.shared import SizingShared
from podwhy.analysis.verdictgroups import VerdictGroup
from podwhy.cluster.nodecopy import is_daemon_pod, startup_pods, with_copies
from podwhy.framework.evidence import ResourceEvidence
from podwhy.framework.runtime import Framework
from podwhy.framework.types import NodeInfo, PodInfo, host_ports
from podwhy.model import objects as o
from podwhy.model.wellknownnames import LABEL_HOSTNAME
from podwhy.plugins import names
from podwhy.plugins.nodeports import fits_ports
from podwhy.plugins.noderesources.fit import Fit, compute_pod_resource_request, fits_request
from podwhy.plugins.registry import CURED_BY_EMPTY_NODE
from podwhy.scheduler.cycle import CycleOutcome
from podwhy.snapshot.cluster import Snapshot


def startup_counts(pods: Sequence[o.Pod]) -> StartupPods:
    """What a new copy of a node runs from the start (PODS: its startup pods), counted."""
    daemons = sum(1 for p in pods if is_daemon_pod(p))
    return StartupPods(daemons, len(pods) - daemons)


def _node_object(node: o.Node) -> dict[str, Any]:
    return {"kind": "Node", "object": {"apiVersion": "v1", "kind": "Node", **_builtins(node)}}


def _shape(node: o.Node) -> str:
    labels = {k: val for k, val in node.metadata.labels.items() if k != LABEL_HOSTNAME}
    return json.dumps([labels, _builtins(node.spec), node.status.allocatable], sort_keys=True)


def _kept_off_copies(pod: o.Pod, node: o.Node, startup: Sequence[o.Pod], fit: Fit | None) -> list[tuple[str, KeptOff]]:
    """Why the pod fits on no new copy of the node because of the pods every copy runs from the
    start (its DaemonSet and static pods), as (plugin, why); empty when they leave it room."""
    if not startup:
        return []
    info = NodeInfo.for_node(node)
    for started in startup:
        info.add_pod_info(PodInfo(started))
    ignored = (fit.ignored_resources, fit.ignored_resource_groups) if fit is not None else (frozenset(), frozenset())
    out: list[tuple[str, KeptOff]] = []
    short = fits_request(compute_pod_resource_request(pod), info, *ignored, fit.dra_backed() if fit else frozenset())
    if short:
        out.append((RESOURCE_FIT, ShortBesideStartup(", ".join(r.reason for r in short))))
    if not fits_ports(host_ports(pod), info.used_ports):
        out.append((names.NODE_PORTS, PortsTakenByStartup()))
    return out


def cured_by_copy(group: VerdictGroup) -> bool:
    """Whether a new copy of the group's nodes would cure every rejection of the pod there, its
    plugins' say (a request beyond the node's allocatable is not cured by a copy)."""
    failing = group.failing
    if not failing or not set(failing) <= CURED_BY_EMPTY_NODE:
        return False
    fit_status = failing.get(RESOURCE_FIT)
    return fit_status is None or not any(
        isinstance(ev, ResourceEvidence) and ev.exceeds_allocatable for ev in fit_status.evidence
    )


def _copy_candidates(
    snapshot: Snapshot, cycle: CycleOutcome, fit: Fit | None, shared: SizingShared | None = None
) -> list[str]:
    """One node per shape whose rejection a new copy of it would cure, in node order (the first
    MAX_TRIES_PER_KIND: the nodes after them are not looked at)."""
    shared = shared if shared is not None and shared.snapshot is snapshot else SizingShared(snapshot)
    nodes = shared.nodes_by_name()
    grouped = shared.verdict_groups(cycle)
    shapes: dict[str, str] = {}
    for name in grouped.names_of(g for g in grouped.groups if cured_by_copy(g)):
        if len(shapes) >= MAX_TRIES_PER_KIND:
            break
        node = nodes.get(name)
        if node is None:
            continue
        shape = shared.node_shape(node, _shape)
        if shape in shapes:
            continue
        if _kept_off_copies(cycle.pod.pod, node, shared.startup().get(name, []), fit):
            continue
        shapes[shape] = name
    return list(shapes.values())[:MAX_TRIES_PER_KIND]


def _fit_plugin(framework: Framework | None) -> Fit | None:
    fit = framework.plugins.get(RESOURCE_FIT) if framework is not None else None
    return fit if isinstance(fit, Fit) else None


def node_adder(analysis: AutoscalingAnalysis | None, node: o.Node) -> NodeAdder | None:
    """Who would add a node like NODE, by the autoscalers' view of the pod: the one verdict of the
    group it belongs to, no autoscaler known, or none of their groups; None without a view."""
    if analysis is None:
        return None
    if not analysis.views:
        return NoAutoscalerKnown(analysis.none_found)
    for view in analysis.views:
        for finding in view.groups:
            member = (
                node.metadata.labels.get(NODEPOOL_LABEL) == finding.group
                if view.autoscaler == KARPENTER
                else bool(group_nodes(finding.group, [node]))
            )
            if member:
                size = finding.max_size if isinstance(finding, GroupAtMaxSize) else None
                return InAutoscalerGroup(view.autoscaler, finding.group, finding.outcome, finding.reason, size)
    return InNoGroup(tuple(view.autoscaler for view in analysis.views))


def _suggest_add_node(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    if not v.cluster_changes_allowed:
        return []  # with_snapshot would verify none: no candidate looked for, no copy made
    nodes = {n.metadata.name: n for n in v.snapshot.nodes}
    for name in _copy_candidates(v.snapshot, cycle, _fit_plugin(v._framework())):
        changed, (added,) = with_copies(v.snapshot, nodes[name], 1)
        feasible = v.with_snapshot(changed)
        if feasible is None:
            continue
        adder = node_adder(v.autoscaling, nodes[name])
        return [
            Suggestion(
                AddNode(name, startup_counts(startup_pods(v.snapshot, name)), adder),
                nodes=feasible,
                # Only the Node: the DaemonSet controller and the kubelet create its pods.
                patches=[_node_object(added)],
                command=Command(note=ScaleNodeGroup(name, 1, adder)),
            )
        ]
    return []
