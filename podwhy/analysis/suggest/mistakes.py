"""Three common mistakes, each with a verified fix or the reason there is none (a note):

- renameTopologyKey: a DoNotSchedule spread constraint names a topologyKey no node has; a node
  label key like it (the same name under a prefix, a close spelling) is put in its place.
- renameResource: the pod requests an extended resource no node advertises; an advertised one of
  a like name is requested instead (in requests and limits alike).
- fixPodAffinity: a required pod affinity term selects pods nothing matches; where pods matching
  it run in another namespace, that namespace is added, and where a pod label's value is a close
  spelling of the one asked for, it is put in its place.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from podwhy.analysis.blocking import similar_labels
from podwhy.analysis.suggest.base import MAX_TRIES_PER_KIND, _Verifier
from podwhy.analysis.suggest.facts import (
    PodAffinityNamespace,
    PodAffinityValue,
    RenameResource,
    RenameTopologyKey,
    Suggestion,
)
from podwhy.analysis.suggest.notes import NoAffinityFix, NoResourceFix, NoTopologyKeyFix
from podwhy.analysis.suggest.patches import _pod_command, _pod_patch
from podwhy.helpers.labelselectors import label_selector_as_selector
from podwhy.helpers.resourcenames import is_extended_resource_name
from podwhy.model import objects as o
from podwhy.model.quantity import quantity_value
from podwhy.plugins.podtopologyspread.common import DO_NOT_SCHEDULE
from podwhy.scheduler.cycle import CycleOutcome

# Resource names and label values offered in place of one that resembles them.
MAX_CANDIDATES = 3
CUTOFF = 0.6

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"


def _pointer(key: str) -> str:
    """A map key as one token of an RFC 6901 JSON pointer."""
    return key.replace("~", "~0").replace("/", "~1")


def _close(word: str, words: Iterable[str]) -> list[str]:
    """Words like WORD: the same name under another prefix first, then close spellings."""
    pool = sorted(set(words) - {word})
    name = word.rpartition("/")[2]
    same = [w for w in pool if w.rpartition("/")[2] == name]
    close = difflib.get_close_matches(word, pool, n=MAX_CANDIDATES, cutoff=CUTOFF)
    return list(dict.fromkeys([*same, *close]))[:MAX_CANDIDATES]


def _first_fix(v: _Verifier, tries: Sequence[tuple[Any, o.Pod, list[dict[str, Any]]]]) -> list[Suggestion]:
    """The first (change, pod, ops) that makes the pod fit and applies to its source, as a suggestion."""
    for change, pod, ops in tries[:MAX_TRIES_PER_KIND]:
        feasible = v.with_pod(pod)
        if feasible is None:
            continue
        command = _pod_command(v, ops)
        if command is None:  # does not apply to the pod's source
            continue
        return [Suggestion(change, nodes=feasible, patches=[_pod_patch(v, ops)], command=command)]
    return []


# ---------------------------------------------------------------- topology keys


def _suggest_topology_key(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    if not v.snapshot.nodes:
        return []
    constraints = v.pod.spec.topology_spread_constraints
    if not any(c.when_unsatisfiable == DO_NOT_SCHEDULE for c in constraints):
        return []
    node_keys: set[str] = set().union(*[node.metadata.labels for node in v.snapshot.nodes])
    out: list[Suggestion] = []
    for index, c in enumerate(constraints):
        if c.when_unsatisfiable != DO_NOT_SCHEDULE or c.topology_key in node_keys:
            continue
        similar = similar_labels(c.topology_key, node_keys)
        tries = []
        for key in similar:
            renamed = [
                msgspec.structs.replace(x, topology_key=key) if i == index else x for i, x in enumerate(constraints)
            ]
            pod = msgspec.structs.replace(
                v.pod, spec=msgspec.structs.replace(v.pod.spec, topology_spread_constraints=renamed)
            )
            ops = [{"op": "replace", "path": f"/spec/topologySpreadConstraints/{index}/topologyKey", "value": key}]
            tries.append((RenameTopologyKey(index, c.topology_key, key), pod, ops))
        found = _first_fix(v, tries)
        if not found:
            v.notes.append(NoTopologyKeyFix(index, c.topology_key, tuple(similar)))
        out.extend(found)
    return out[:1]


# ---------------------------------------------------------------- extended resources


def _containers(pod: o.Pod) -> list[tuple[str, int, o.Container]]:
    return [
        *(("containers", i, c) for i, c in enumerate(pod.spec.containers)),
        *(("initContainers", i, c) for i, c in enumerate(pod.spec.init_containers)),
    ]


def _renamed(pod: o.Pod, resource: str, to: str) -> tuple[o.Pod, list[dict[str, Any]]]:
    """The pod requesting TO wherever it requests RESOURCE (requests and limits), and the ops."""
    ops: list[dict[str, Any]] = []
    spec = pod.spec
    lists: dict[str, list[o.Container]] = {
        "containers": list(spec.containers),
        "initContainers": list(spec.init_containers),
    }
    for field, index, container in _containers(pod):
        res = container.resources
        changed: dict[str, dict[str, Any]] = {}
        for part in ("requests", "limits"):
            values = getattr(res, part)
            if resource not in values:
                continue
            amount = values[resource]
            changed[part] = {(to if k == resource else k): val for k, val in values.items()}
            base = f"/spec/{field}/{index}/resources/{part}"
            ops += [
                {"op": "remove", "path": f"{base}/{_pointer(resource)}"},
                {"op": "add", "path": f"{base}/{_pointer(to)}", "value": amount},
            ]
        if changed:
            lists[field][index] = msgspec.structs.replace(container, resources=msgspec.structs.replace(res, **changed))
    new_spec = msgspec.structs.replace(spec, containers=lists["containers"], init_containers=lists["initContainers"])
    return msgspec.structs.replace(pod, spec=new_spec), ops


def _advertised(nodes: Sequence[o.Node]) -> set[str]:
    """The resources some node has allocatable of: each name the nodes list is looked for, node
    by node, until one has some (each amount written alike read once)."""
    allocatable = [node.status.allocatable for node in nodes]
    positive: dict[object, bool] = {}
    advertised: set[str] = set()
    for name in set().union(*allocatable):
        for amounts in allocatable:
            amount = amounts.get(name)
            if amount is None:
                continue
            some = positive.get(amount)
            if some is None:
                some = positive[amount] = quantity_value(amount) > 0
            if some:
                advertised.add(name)
                break
    return advertised


def _suggest_resource_name(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    if not v.snapshot.nodes:
        return []
    requested = dict.fromkeys(
        name for _, _, c in _containers(v.pod) for name in (*c.resources.requests, *c.resources.limits)
    )
    extended = [name for name in requested if is_extended_resource_name(name)]
    if not extended:
        return []
    advertised = _advertised(v.snapshot.nodes)
    out: list[Suggestion] = []
    for resource in extended:
        if resource in advertised:
            continue
        like = _close(resource, (name for name in advertised if is_extended_resource_name(name)))
        tries = []
        for name in like:
            pod, ops = _renamed(v.pod, resource, name)
            tries.append((RenameResource(resource, name), pod, ops))
        found = _first_fix(v, tries)
        if not found:
            v.notes.append(NoResourceFix(resource, tuple(like)))
        out.extend(found)
    return out[:1]


# ---------------------------------------------------------------- pod affinity


def _term_namespaces(pod: o.Pod, term: o.PodAffinityTerm) -> set[str]:
    return set(term.namespaces) or {pod.metadata.namespace}


def _suggest_pod_affinity(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    affinity = v.pod.spec.affinity
    pod_affinity = affinity.pod_affinity if affinity is not None else None
    if affinity is None or pod_affinity is None:
        return []
    terms = pod_affinity.required_during_scheduling_ignored_during_execution
    others = [p for p in v.snapshot.pods if p.metadata.uid != v.pod.metadata.uid and p.spec.node_name]
    out: list[Suggestion] = []
    for index, term in enumerate(terms):
        if term.namespace_selector is not None or term.label_selector is None:
            continue
        selector = label_selector_as_selector(term.label_selector)
        namespaces = _term_namespaces(v.pod, term)
        if any(p.metadata.namespace in namespaces and selector.matches(p.metadata.labels) for p in others):
            continue
        if selector.matches(v.pod.metadata.labels):
            continue  # the first pod of its kind goes anywhere its other terms allow
        path = f"/spec/affinity/podAffinity/{REQUIRED}/{index}"
        tries: list[tuple[Any, o.Pod, list[dict[str, Any]]]] = []
        elsewhere = sorted({p.metadata.namespace for p in others if selector.matches(p.metadata.labels)} - namespaces)
        if elsewhere:
            wanted = [*(term.namespaces or [v.pod.metadata.namespace]), *elsewhere]
            changed = msgspec.structs.replace(term, namespaces=wanted)
            ops = [{"op": "add", "path": f"{path}/namespaces", "value": wanted}]
            tries.append((PodAffinityNamespace(index, tuple(elsewhere)), _with_term(v.pod, index, changed), ops))
        in_scope = [p for p in others if p.metadata.namespace in namespaces]
        for key, want in sorted(term.label_selector.match_labels.items()):
            values = {p.metadata.labels[key] for p in in_scope if key in p.metadata.labels}
            for value in difflib.get_close_matches(want, sorted(values), n=MAX_CANDIDATES, cutoff=CUTOFF):
                labels = {**term.label_selector.match_labels, key: value}
                changed = msgspec.structs.replace(
                    term, label_selector=msgspec.structs.replace(term.label_selector, match_labels=labels)
                )
                ops = [{"op": "replace", "path": f"{path}/labelSelector/matchLabels/{_pointer(key)}", "value": value}]
                tries.append((PodAffinityValue(index, key, want, value), _with_term(v.pod, index, changed), ops))
        found = _first_fix(v, tries)
        if not found:
            v.notes.append(NoAffinityFix(index, str(selector), tuple(sorted(namespaces))))
        out.extend(found)
    return out[:1]


def _with_term(pod: o.Pod, index: int, term: o.PodAffinityTerm) -> o.Pod:
    affinity = pod.spec.affinity
    assert affinity is not None and affinity.pod_affinity is not None
    terms = list(affinity.pod_affinity.required_during_scheduling_ignored_during_execution)
    terms[index] = term
    pod_affinity = msgspec.structs.replace(
        affinity.pod_affinity, required_during_scheduling_ignored_during_execution=terms
    )
    return msgspec.structs.replace(
        pod,
        spec=msgspec.structs.replace(pod.spec, affinity=msgspec.structs.replace(affinity, pod_affinity=pod_affinity)),
    )
