"""What blocks a pod no node fits, cause by cause, as typed facts gathered from the evidence the
Filter plugins recorded on each node (framework/evidence.py): nothing is scheduled again here,
and every number is the one a plugin computed. report/words/blocking.py says them.

Causes come by how many nodes they reject, most first, then in the order of the profile's Filter
plugins.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import cast

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
from podwhy.analysis.verdictgroups import VerdictGroup, VerdictGroups
from podwhy.framework.evidence import (
    NodeAffinityTermEvidence,
    NodeSelectorEvidence,
    PodAffinityTermEvidence,
    ResourceEvidence,
    TaintEvidence,
    TopologySpreadEvidence,
)
from podwhy.framework.outcome import NodeVerdict
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


# A cause's key (its kind's own) and what each node it holds adds: the node's name, or with
# the evidence (ResourceEvidence) the name and the evidence.
_Bucket = dict[tuple[object, ...], list[tuple[VerdictGroup, object]]]
_AffinityKey = tuple[str, str, tuple[str, ...], str | None, str]


def _gather(groups: VerdictGroups) -> tuple[dict[str, _Bucket], dict[int, set[str]]]:
    """Each kind's causes, by key, with the groups of nodes whose evidence names them (in the
    order a walk over the nodes meets them, node by node), and the plugins that reject each
    group's nodes (by the group's id)."""
    kinds: dict[str, _Bucket] = {k: {} for k in ("resources", "taints", "missing", "affinity", "selectors")}
    rejecting: dict[int, set[str]] = {}
    for group in groups.groups:
        plugins = rejecting[id(group)] = set()
        for plugin, status in group.verdict.filters.items():
            if not status.is_rejected() or status.not_evaluated is not None:
                continue
            plugins.add(plugin)
            for e in status.evidence:
                found = _cause_key(plugin, e)
                if found is not None:
                    kind, key, with_evidence = found
                    kinds[kind].setdefault(key, []).append((group, e if with_evidence else None))
    return kinds, rejecting


def _cause_key(plugin: str, e: object) -> tuple[str, tuple[object, ...], bool] | None:
    """The kind and key of the cause a rejecting status's evidence says, and whether the cause
    keeps the evidence; None for evidence of a kind said otherwise."""
    match e:
        case NodeSelectorEvidence():
            return "selectors", (plugin, "nodeSelector", f"{e.key}={e.required}"), False
        case NodeAffinityTermEvidence(source="pod", unmatched=list(unmatched)) if not _pins(unmatched):
            return "selectors", (plugin, "nodeAffinity", "; ".join(unmatched)), False
        case ResourceEvidence():
            return "resources", (plugin, e.resource), True
        case TaintEvidence():
            return "taints", (plugin, e.taint), False
        case TopologySpreadEvidence(missing_label=str(label)):
            return "missing", (plugin, label), False
        case PodAffinityTermEvidence(rule="affinity", any_matching_pod=False):
            selected = None if e.namespace_selector == SELECTS_NOTHING else e.namespace_selector
            return "affinity", (plugin, e.selector, tuple(e.namespaces), selected, e.topology_key), False
    return None


def _names(groups: VerdictGroups, found: Sequence[tuple[VerdictGroup, object]]) -> list[str]:
    """The names of the nodes the groups FOUND hold, in node order, a node as often as it is found."""
    if len(found) == 1:
        return found[0][0].names
    verdicts = groups.verdicts
    return [verdicts[p].name for p, _ in sorted((p, i) for i, (group, _) in enumerate(found) for p in group.positions)]


def _first(found: list[tuple[VerdictGroup, ResourceEvidence]]) -> tuple[VerdictGroup, ResourceEvidence]:
    """Of FOUND, what the first node met says (a node's own entries in the order found)."""
    return min(enumerate(found), key=lambda entry: (entry[1][0].positions[0], entry[0]))[1]


def _resource_causes(
    groups: VerdictGroups, resources: _Bucket, pods: list[o.Pod], total: int
) -> Iterable[BlockingCause]:
    held: dict[str, list[o.Pod]] = {}  # the pods bound to a node named as the closest
    for (plugin, resource), found in resources.items():
        assert isinstance(plugin, str) and isinstance(resource, str)
        seen = [(group, e) for group, e in found if isinstance(e, ResourceEvidence)]
        # An extended resource a node has no allocatable of is one it does not advertise.
        unadvertised = is_extended_resource_name(resource)
        absent = [(group, e) for group, e in seen if unadvertised and e.allocatable == 0]
        short = [(group, e) for group, e in seen if not (unadvertised and e.allocatable == 0)]
        if absent:
            names = tuple(_names(groups, absent))
            yield NotAdvertised(plugin, resource, _first(absent)[1].requested, names, len(names) == total)
        if short:
            # The first node of the largest room.
            free = max(e.free for _, e in short)
            group, most = _first([(group, e) for group, e in short if e.free == free])
            node = group.names[0]
            names = tuple(_names(groups, short))
            consumers: tuple[tuple[str, int], ...] = ()
            if resource != "pods":
                there = held.get(node)
                if there is None:
                    there = held[node] = [pod for pod in pods if pod.spec.node_name == node]
                consumers = top_consumers(there, node, resource)
            yield TooSmall(
                plugin, resource, most.unit, most.requested, most.free, node, names, len(names) == total, consumers
            )


def _selector_causes(
    groups: VerdictGroups, selectors: _Bucket, rejecting: dict[int, set[str]], plugin_order: dict[str, int]
) -> Iterable[BlockingCause]:
    last = len(plugin_order)
    for (plugin, source, wanted), found in selectors.items():
        assert isinstance(plugin, str) and isinstance(source, str) and isinstance(wanted, str)
        others = [rejecting[id(group)] - {plugin} for group, _ in found]
        also = set.intersection(*others)
        ordered = tuple(sorted(also, key=lambda name: plugin_order.get(name, last)))
        otherwise = all(others)
        rejected = tuple(_names(groups, found))
        yield SelectorMismatch(plugin, source, wanted, rejected, ordered, otherwise)


def blocking_causes(
    cycle: CycleOutcome, nodes: Iterable[o.Node], pods: Iterable[o.Pod] = (), groups: VerdictGroups | None = None
) -> list[BlockingCause]:
    """What keeps the pod off every node, from the Filter plugins' evidence; empty when a node
    fits or no plugin recorded evidence of a kind said here. `nodes`: the cluster's nodes (for
    label keys resembling a missing topology key); `pods`: the cluster's pods (for who holds the
    room on the closest node, TooSmall.consumers). The evidence is read once per group of nodes
    sharing their statuses (analysis/verdictgroups.py): GROUPS, those of the cycle's verdicts when
    the caller has them."""
    outcome = cycle.outcome
    if outcome is None or outcome.feasible or not outcome.nodes:
        return []
    pods = pods if isinstance(pods, list) else list(pods)
    groups = VerdictGroups.of(outcome.nodes, groups)
    total = len(outcome.nodes)
    plugin_order = {plugin: i for i, plugin in enumerate(outcome.nodes[0].filters)}
    kinds, rejecting = _gather(groups)
    causes: list[BlockingCause] = list(_resource_causes(groups, kinds["resources"], pods, total))
    causes.extend(
        UntoleratedTaint(str(plugin), str(taint), tuple(_names(groups, found)))
        for (plugin, taint), found in kinds["taints"].items()
    )
    missing_keys = kinds["missing"]
    # Read only for a missing topology key: `check` asks this of every Pending replica.
    node_keys = [key for node in nodes for key in node.metadata.labels] if missing_keys else []
    pod = cycle.pod.pod
    for (plugin, key), found in missing_keys.items():
        assert isinstance(plugin, str) and isinstance(key, str)
        names = tuple(_names(groups, found))
        causes.append(
            MissingTopologyKey(
                plugin, key, _spec_constraint(pod, key), names, len(names) == total, similar_labels(key, node_keys)
            )
        )
    for key, found in kinds["affinity"].items():
        plugin, selector, namespaces, namespace_selector, topology_key = cast(_AffinityKey, key)
        names = tuple(_names(groups, found))
        causes.append(NoAffinityMatch(plugin, selector, namespaces, namespace_selector, topology_key, names))
    causes.extend(_selector_causes(groups, kinds["selectors"], rejecting, plugin_order))
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
