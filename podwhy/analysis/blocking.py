"""What blocks a pod no node fits, cause by cause, as typed facts gathered from the evidence the
Filter plugins recorded on each node (framework/evidence.py): nothing is scheduled again here,
and every number is the one a plugin computed. report/words/blocking.py says them.

Causes come by how many nodes they reject, most first, then in the order of the profile's Filter
plugins.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from podwhy.analysis.blockingfacts import (
    BlockingCause as BlockingCause,
)
from podwhy.analysis.blockingfacts import (
    MissingTopologyKey as MissingTopologyKey,
)
from podwhy.analysis.blockingfacts import (
    NoAffinityMatch as NoAffinityMatch,
)
from podwhy.analysis.blockingfacts import (
    NotAdvertised as NotAdvertised,
)
from podwhy.analysis.blockingfacts import (
    SelectorMismatch as SelectorMismatch,
)
from podwhy.analysis.blockingfacts import (
    TooSmall as TooSmall,
)
from podwhy.analysis.blockingfacts import (
    UntoleratedTaint as UntoleratedTaint,
)
from podwhy.framework.evidence import (
    NodeAffinityTermEvidence,
    NodeSelectorEvidence,
    PodAffinityTermEvidence,
    ResourceEvidence,
    TaintEvidence,
    TopologySpreadEvidence,
)
from podwhy.framework.outcome import NodeVerdict
from podwhy.framework.status import Status
from podwhy.framework.types import calculate_pod_resource
from podwhy.helpers.labelselectors import NOTHING
from podwhy.helpers.resourcenames import is_extended_resource_name
from podwhy.model import objects as o
from podwhy.plugins.nodeaffinity import OBJECT_NAME_FIELD
from podwhy.plugins.podtopologyspread.common import DO_NOT_SCHEDULE
from podwhy.scheduler.cycle import CycleOutcome

# How the evidence writes a selector that selects nothing.
SELECTS_NOTHING = str(NOTHING)

# Node label keys named as resembling a topology key no node has.
MAX_SIMILAR_LABELS = 3


def _rejections(cycle: CycleOutcome) -> Iterable[tuple[str, str, Status]]:
    """(node, plugin, status) of every Filter status that rejects a node, in node order."""
    outcome = cycle.outcome
    if outcome is None:
        return
    for verdict in outcome.nodes:
        for plugin, status in verdict.filters.items():
            if status.is_rejected() and status.not_evaluated is None:
                yield verdict.name, plugin, status


def _spec_constraint(pod: o.Pod, topology_key: str) -> int | None:
    """The index of the pod's first DoNotSchedule constraint on `topology_key`."""
    for index, c in enumerate(pod.spec.topology_spread_constraints):
        if c.topology_key == topology_key and c.when_unsatisfiable == DO_NOT_SCHEDULE:
            return index
    return None


def similar_labels(key: str, node_keys: Iterable[str]) -> tuple[str, ...]:
    """Label keys of the nodes that resemble `key`: the same name under a prefix, or a close spelling."""
    keys = sorted(set(node_keys) - {key})
    name = key.rpartition("/")[2]
    same_name = [k for k in keys if k.rpartition("/")[2] == name]
    close = difflib.get_close_matches(key, keys, n=MAX_SIMILAR_LABELS, cutoff=0.6)
    return tuple(dict.fromkeys([*same_name, *close]))[:MAX_SIMILAR_LABELS]


# Pods named as holding the room on the closest node.
MAX_CONSUMERS = 3
_TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})


def _request_of(pod: o.Pod, resource: str) -> int:
    """What POD requests of RESOURCE, in the scheduler's units (millicores for cpu)."""
    requested = calculate_pod_resource(pod).resource
    match resource:
        case "cpu":
            return requested.milli_cpu
        case "memory":
            return requested.memory
        case "ephemeral-storage":
            return requested.ephemeral_storage
        case _:
            return requested.scalar_resources.get(resource, 0)


def top_consumers(pods: Iterable[o.Pod], node: str, resource: str) -> tuple[tuple[str, int], ...]:
    """The pods bound to NODE (not finished) requesting the most of RESOURCE, most first."""
    held = [
        (f"{pod.metadata.namespace}/{pod.metadata.name}", _request_of(pod, resource))
        for pod in pods
        if pod.spec.node_name == node and pod.status.phase not in _TERMINAL_PHASES
    ]
    held = [(name, amount) for name, amount in held if amount > 0]
    return tuple(sorted(held, key=lambda item: -item[1])[:MAX_CONSUMERS])


def _pins(unmatched: list[str]) -> bool:
    """A term that fails only on the node's name: the pod is pinned to other nodes (the DaemonSet
    controller's matchFields on metadata.name), which is its design, not what blocks it."""
    return all(requirement.startswith(f"{OBJECT_NAME_FIELD} ") for requirement in unmatched)


def blocking_causes(cycle: CycleOutcome, nodes: Iterable[o.Node], pods: Iterable[o.Pod] = ()) -> list[BlockingCause]:
    """What keeps the pod off every node, from the Filter plugins' evidence; empty when a node
    fits or no plugin recorded evidence of a kind said here. `nodes`: the cluster's nodes (for
    label keys resembling a missing topology key); `pods`: the cluster's pods (for who holds the
    room on the closest node, TooSmall.consumers)."""
    pods = list(pods)
    outcome = cycle.outcome
    if outcome is None or outcome.feasible or not outcome.nodes:
        return []
    total = len(outcome.nodes)
    plugin_order = {plugin: i for i, plugin in enumerate(outcome.nodes[0].filters)}
    resources: dict[tuple[str, str], list[tuple[str, ResourceEvidence]]] = {}
    taints: dict[tuple[str, str], list[str]] = {}
    missing_keys: dict[tuple[str, str], list[str]] = {}
    affinity: dict[tuple[str, str, tuple[str, ...], str | None, str], list[str]] = {}
    selectors: dict[tuple[str, str, str], list[str]] = {}
    rejecting: dict[str, set[str]] = {}  # node -> the plugins that reject it
    for node, plugin, status in _rejections(cycle):
        rejecting.setdefault(node, set()).add(plugin)
        for e in status.evidence:
            match e:
                case NodeSelectorEvidence():
                    selectors.setdefault((plugin, "nodeSelector", f"{e.key}={e.required}"), []).append(node)
                case NodeAffinityTermEvidence(source="pod", unmatched=list(unmatched)) if not _pins(unmatched):
                    selectors.setdefault((plugin, "nodeAffinity", "; ".join(unmatched)), []).append(node)
                case ResourceEvidence():
                    resources.setdefault((plugin, e.resource), []).append((node, e))
                case TaintEvidence():
                    taints.setdefault((plugin, e.taint), []).append(node)
                case TopologySpreadEvidence(missing_label=str(label)):
                    missing_keys.setdefault((plugin, label), []).append(node)
                case PodAffinityTermEvidence(rule="affinity", any_matching_pod=False):
                    selected = None if e.namespace_selector == SELECTS_NOTHING else e.namespace_selector
                    key = (plugin, e.selector, tuple(e.namespaces), selected, e.topology_key)
                    affinity.setdefault(key, []).append(node)
    causes: list[BlockingCause] = []
    for (plugin, resource), seen in resources.items():
        # An extended resource a node has no allocatable of is one it does not advertise.
        unadvertised = is_extended_resource_name(resource)
        absent = [(node, e) for node, e in seen if unadvertised and e.allocatable == 0]
        short = [(node, e) for node, e in seen if not (unadvertised and e.allocatable == 0)]
        if absent:
            names = tuple(node for node, _ in absent)
            causes.append(NotAdvertised(plugin, resource, absent[0][1].requested, names, len(names) == total))
        if short:
            node, most = max(short, key=lambda item: item[1].free)  # the first of the largest
            names = tuple(n for n, _ in short)
            consumers = top_consumers(pods, node, resource) if resource != "pods" else ()
            causes.append(
                TooSmall(
                    plugin, resource, most.unit, most.requested, most.free, node, names, len(names) == total, consumers
                )
            )
    causes.extend(UntoleratedTaint(plugin, taint, tuple(names)) for (plugin, taint), names in taints.items())
    # Read only for a missing topology key: `check` asks this of every Pending replica.
    node_keys = [key for node in nodes for key in node.metadata.labels] if missing_keys else []
    pod = cycle.pod.pod
    causes.extend(
        MissingTopologyKey(
            plugin, key, _spec_constraint(pod, key), tuple(names), len(names) == total, similar_labels(key, node_keys)
        )
        for (plugin, key), names in missing_keys.items()
    )
    causes.extend(
        NoAffinityMatch(plugin, selector, namespaces, namespace_selector, topology_key, tuple(names))
        for (plugin, selector, namespaces, namespace_selector, topology_key), names in affinity.items()
    )
    last = len(plugin_order)
    for (plugin, source, wanted), rejected in selectors.items():
        also = set.intersection(*(rejecting[node] - {plugin} for node in rejected))
        ordered = tuple(sorted(also, key=lambda name: plugin_order.get(name, last)))
        otherwise = all(rejecting[node] - {plugin} for node in rejected)
        causes.append(SelectorMismatch(plugin, source, wanted, tuple(rejected), ordered, otherwise))
    # The most nodes first, then by plugin (a stable sort keeps the order found among equals).
    return sorted(causes, key=lambda c: (-len(c.nodes), plugin_order.get(c.plugin, len(plugin_order))))


class BlockingCauses:
    """blocking_causes of many cycles over one snapshot's nodes, as `check` asks it of each Pending
    replica: cycles holding the very same node verdicts (a replica that reused the verdicts of an
    identical one before it, cluster/placement.py) and spread constraints get the one answer,
    found once. The verdicts are known by identity: each answer keeps those it was found from."""

    def __init__(self, nodes: Iterable[o.Node]) -> None:
        self.nodes = list(nodes)
        self._found: dict[tuple[object, ...], tuple[list[BlockingCause], list[NodeVerdict]]] = {}

    def __call__(self, cycle: CycleOutcome) -> list[BlockingCause]:
        outcome = cycle.outcome
        if outcome is None or outcome.feasible:
            return []
        spread = tuple((c.topology_key, c.when_unsatisfiable) for c in cycle.pod.pod.spec.topology_spread_constraints)
        key = (spread, *map(id, outcome.nodes))
        found = self._found.get(key)
        if found is None:
            # No pods: the replicas placed before move the room, so its holders are not named here.
            found = self._found[key] = (blocking_causes(cycle, self.nodes), outcome.nodes)
        return found[0]
