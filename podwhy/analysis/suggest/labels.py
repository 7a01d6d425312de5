"""labelNode: label a node with what the pod's node selection requires (never a well-known label)."""

from __future__ import annotations

import shlex

import msgspec

from podwhy.analysis.keymeanings import well_known_label
from podwhy.analysis.owners import replica_set_index
from podwhy.analysis.suggest.base import MAX_TRIES_PER_KIND, NODE_AFFINITY, _Verifier, _workload
from podwhy.analysis.suggest.facts import Command, LabelNode, LabelReplaced, Selecting, Suggestion
from podwhy.cluster.nodecopy import is_daemon_pod
from podwhy.helpers.nodeselectors import RequiredNodeAffinity
from podwhy.model import objects as o
from podwhy.model import records
from podwhy.plugins.nodeaffinity import required_node_selector
from podwhy.scheduler.cycle import CycleOutcome
from podwhy.snapshot.cluster import Snapshot


def _term_needs(term: o.NodeSelectorTerm, labels: dict[str, str]) -> dict[str, str] | None:
    """Labels the node needs for the term to match it; None when adding labels cannot make it match."""
    if term.match_fields or not term.match_expressions:
        return None
    needs: dict[str, str] = {}
    for req in term.match_expressions:
        value = labels.get(req.key)
        if req.operator == "In":
            if value not in req.values:
                if not req.values:
                    return None
                needs[req.key] = req.values[0]
        elif req.operator == "Exists":
            if value is None:
                needs[req.key] = "true"
        elif req.operator == "NotIn":
            if value is not None and value in req.values:
                return None
        elif req.operator == "DoesNotExist":
            if value is not None:
                return None
        else:
            return None
    return needs


def _label_needs(pod: o.Pod, node: o.Node) -> dict[str, str] | None:
    labels = node.metadata.labels
    needs = {key: want for key, want in pod.spec.node_selector.items() if labels.get(key) != want}
    affinity = pod.spec.affinity
    required = (
        affinity.node_affinity.required_during_scheduling_ignored_during_execution
        if affinity is not None and affinity.node_affinity is not None
        else None
    )
    if required is not None:
        per_term: list[dict[str, str]] = []
        for term in required.node_selector_terms:
            term_needs = _term_needs(term, labels)
            # A term needing a label the nodeSelector sets differently cannot be met together with it.
            if term_needs is not None and all(needs.get(k, val) == val for k, val in term_needs.items()):
                per_term.append(term_needs)
        if not per_term:
            return None
        fewest: dict[str, str] = min(per_term, key=len)
        needs.update(fewest)
    return needs


def _replace_node(snapshot: Snapshot, node: o.Node) -> Snapshot:
    nodes = [node if n.metadata.name == node.metadata.name else n for n in snapshot.nodes]
    return records.replace(snapshot, nodes=nodes)


def _selecting(snapshot: Snapshot, node: o.Node, relabeled: o.Node) -> tuple[Selecting, ...]:
    """The workloads whose pods' nodeSelector / required node affinity matches NODE and no longer
    matches it RELABELED (once per workload; a DaemonSet's pod there would be removed)."""
    replica_sets = replica_set_index(snapshot)
    # Per workload: whether its DaemonSet pod on the node would be removed.
    removed: dict[str, bool] = {}
    for pod in snapshot.pods:
        if pod.status.phase in ("Succeeded", "Failed") or pod.metadata.deletion_timestamp is not None:
            continue
        if not pod.spec.node_selector and required_node_selector(pod) is None:
            continue
        required = RequiredNodeAffinity.of_pod(pod)
        if not required.matches(node) or required.matches(relabeled):
            continue
        name = _workload(pod, snapshot, replica_sets)
        daemon_here = is_daemon_pod(pod) and pod.spec.node_name == node.metadata.name
        removed[name] = removed.get(name, False) or daemon_here
    return tuple(Selecting(name, gone) for name, gone in sorted(removed.items()))


def _suggest_label(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    assert cycle.outcome is not None
    if not v.cluster_changes_allowed:
        return []  # with_snapshot would verify none: no node looked at
    nodes = v.nodes_by_name()
    grouped = v.groups_of(cycle)
    groups: dict[tuple[str, str], list[str]] = {}
    for name in grouped.names_of(g for g in grouped.groups if g.only_failing(NODE_AFFINITY) is not None):
        node = nodes.get(name)
        if node is None:
            continue
        needs = _label_needs(v.pod, node)
        # Well-known labels are never changed: the pod gets _suggest_unknown_selection instead.
        if needs is not None and len(needs) == 1 and well_known_label(next(iter(needs))) is None:
            groups.setdefault(next(iter(needs.items())), []).append(name)
    for (key, value), names in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:MAX_TRIES_PER_KIND]:
        target = nodes[names[0]]
        labeled = msgspec.structs.replace(
            target,
            metadata=msgspec.structs.replace(target.metadata, labels={**target.metadata.labels, key: value}),
        )
        feasible = v.with_snapshot(_replace_node(v.snapshot, labeled))
        if feasible is None:
            continue
        old = target.metadata.labels.get(key)
        # --overwrite only where the node has the label with another value, saying what that takes
        # away: who selects on the old value.
        overwrite = "" if old is None else " --overwrite"
        replaced = None if old is None else LabelReplaced(old, _selecting(v.snapshot, target, labeled))
        return [
            Suggestion(
                LabelNode(names[0], key, value, tuple(names), replaced),
                nodes=feasible,
                patches=[
                    {"kind": "Node", "namespace": "", "name": names[0], "patch": {"metadata": {"labels": {key: value}}}}
                ],
                command=Command(
                    f"kubectl label node {shlex.quote(names[0])} {shlex.quote(f'{key}={value}')}{overwrite}"
                ),
            )
        ]
    return []
