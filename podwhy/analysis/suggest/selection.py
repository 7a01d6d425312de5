"""dropNodeSelection: the pod selects on a well-known label (a hostname, a zone, an instance type) a
value no node has; the requirement is dropped from the pod, the node is never relabelled."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import repeat
from typing import Any, cast

import msgspec

from podwhy.analysis.keymeanings import PLATFORM_LABELS, well_known_label
from podwhy.analysis.suggest.base import MAX_TRIES_PER_KIND, _Verifier
from podwhy.analysis.suggest.facts import AffinityAsks, Asks, DropNodeSelection, SelectorAsks, Suggestion
from podwhy.analysis.suggest.notes import PlatformSelection
from podwhy.analysis.suggest.patches import _pod_command, _pod_patch
from podwhy.model import objects as o
from podwhy.plugins.nodeaffinity import required_node_selector
from podwhy.scheduler.cycle import CycleOutcome


def _unknown_selections(pod: o.Pod, present: Mapping[str, set[str]]) -> list[tuple[Asks, list[dict[str, Any]], o.Pod]]:
    """The pod's requirements on a well-known label that name only values no node has, as
    (what the pod asks for, the RFC 6902 ops that drop the requirement, the pod without it)."""
    out: list[tuple[Asks, list[dict[str, Any]], o.Pod]] = []
    for key, want in sorted(pod.spec.node_selector.items()):
        if well_known_label(key) is None or want in present.get(key, set()):
            continue
        selector = {k: val for k, val in pod.spec.node_selector.items() if k != key}
        changed = msgspec.structs.replace(pod, spec=msgspec.structs.replace(pod.spec, node_selector=selector))
        escaped = key.replace("~", "~0").replace("/", "~1")
        out.append((SelectorAsks(key, want), [{"op": "remove", "path": f"/spec/nodeSelector/{escaped}"}], changed))
    required = required_node_selector(pod)
    affinity = pod.spec.affinity
    if required is None or affinity is None or affinity.node_affinity is None:
        return out
    base = "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution"
    for t, term in enumerate(required.node_selector_terms):
        for e, req in enumerate(term.match_expressions):
            if req.operator != "In" or well_known_label(req.key) is None:
                continue
            if any(val in present.get(req.key, set()) for val in req.values):
                continue
            rest = [x for i, x in enumerate(term.match_expressions) if i != e]
            terms = list(required.node_selector_terms)
            if rest or term.match_fields:
                terms[t] = msgspec.structs.replace(term, match_expressions=rest)
                ops = [{"op": "remove", "path": f"{base}/nodeSelectorTerms/{t}/matchExpressions/{e}"}]
            else:
                # An empty term matches no node: the term goes, and with the last term the requirement.
                del terms[t]
                ops = [{"op": "remove", "path": f"{base}/nodeSelectorTerms/{t}" if terms else base}]
            node_affinity = msgspec.structs.replace(
                affinity.node_affinity,
                required_during_scheduling_ignored_during_execution=(
                    msgspec.structs.replace(required, node_selector_terms=terms) if terms else None
                ),
            )
            changed = msgspec.structs.replace(
                pod,
                spec=msgspec.structs.replace(
                    pod.spec, affinity=msgspec.structs.replace(affinity, node_affinity=node_affinity)
                ),
            )
            which = t if len(required.node_selector_terms) > 1 else None
            out.append((AffinityAsks(req.key, tuple(req.values), which), ops, changed))
    return out


def _suggest_unknown_selection(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    """A pod selecting on a well-known label (a hostname, a zone, an instance type) a value no node
    has: the pod names a node or zone that does not exist. The node is never relabelled (see
    analysis/wellknown.py); the verified change drops the requirement from the pod."""
    required = required_node_selector(v.pod)
    keys = {
        key
        for key in [
            *v.pod.spec.node_selector,
            *(r.key for t in (required.node_selector_terms if required else ()) for r in t.match_expressions),
        ]
        if well_known_label(key) is not None
    }
    if not keys:
        return []
    # Each key's values among the nodes' labels (a label's value is a string, never None).
    labels = [node.metadata.labels for node in v.snapshot.nodes]
    present: dict[str, set[str]] = {}
    for key in keys:
        values: set[str | None] = set(map(dict.get, labels, repeat(key)))
        values.discard(None)
        present[key] = cast(set[str], values)
    selections = _unknown_selections(v.pod, present)
    for asks, _, _ in selections:
        if asks.key in PLATFORM_LABELS:
            v.notes.append(PlatformSelection(asks, tuple(sorted(present[asks.key]))))
    tries = [sel for sel in selections if sel[0].key not in PLATFORM_LABELS]
    for asks, ops, pod in tries[:MAX_TRIES_PER_KIND]:
        feasible = v.with_pod(pod)
        if feasible is None:
            continue
        key = asks.key
        have = tuple(sorted(present.get(key, set())))
        well_known = well_known_label(key)
        assert well_known is not None
        command = _pod_command(v, ops)
        if command is None:  # does not apply to the pod's source
            continue
        return [
            Suggestion(
                DropNodeSelection(asks, have, well_known),
                nodes=feasible,
                patches=[_pod_patch(v, ops)],
                command=command,
            )
        ]
    return []
