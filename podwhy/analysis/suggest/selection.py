"""dropNodeSelection: the pod selects on a well-known label (a hostname, a zone, an instance type) a
value no node has; the requirement is dropped from the pod, the node is never relabelled."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from podwhy.analysis.suggest.base import MAX_TRIES_PER_KIND, Suggestion, _nodes_text, _Verifier
from podwhy.analysis.suggest.patches import _pod_command, _pod_patch
from podwhy.analysis.wellknown import PLATFORM_LABELS, well_known_label
from podwhy.model import objects as o
from podwhy.plugins.nodeaffinity import required_node_selector
from podwhy.scheduler.cycle import CycleOutcome


def _values_text(values: Sequence[str], limit: int = 3) -> str:
    return _nodes_text(sorted(values), limit) if values else "none"


def _unknown_selections(
    pod: o.Pod, present: Mapping[str, set[str]]
) -> list[tuple[str, str, list[dict[str, Any]], o.Pod]]:
    """The pod's requirements on a well-known label that name only values no node has, as
    (what the pod asks for, the key, the RFC 6902 ops that drop the requirement, the pod without it)."""
    out: list[tuple[str, str, list[dict[str, Any]], o.Pod]] = []
    for key, want in sorted(pod.spec.node_selector.items()):
        if well_known_label(key) is None or want in present.get(key, set()):
            continue
        selector = {k: val for k, val in pod.spec.node_selector.items() if k != key}
        changed = msgspec.structs.replace(pod, spec=msgspec.structs.replace(pod.spec, node_selector=selector))
        escaped = key.replace("~", "~0").replace("/", "~1")
        out.append(
            (
                f"nodeSelector asks for {key}={want}",
                key,
                [{"op": "remove", "path": f"/spec/nodeSelector/{escaped}"}],
                changed,
            )
        )
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
            which = f" (term {t})" if len(required.node_selector_terms) > 1 else ""
            asks = f"required node affinity{which} asks for {req.key} in [{', '.join(req.values)}]"
            out.append((asks, req.key, ops, changed))
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
    present: dict[str, set[str]] = {key: set() for key in keys}
    for node in v.snapshot.nodes:
        labels = node.metadata.labels
        for key in keys:
            if key in labels:
                present[key].add(labels[key])
    selections = _unknown_selections(v.pod, present)
    for asks, key, _, _ in selections:
        if key in PLATFORM_LABELS:
            v.notes.append(
                f"the pod's {asks}, which no node has (nodes have {key} {_values_text(sorted(present[key]))}): it "
                "needs a node of that platform; dropping the requirement is not suggested, as its images are "
                "built for it"
            )
    tries = [sel for sel in selections if sel[1] not in PLATFORM_LABELS]
    for asks, key, ops, pod in tries[:MAX_TRIES_PER_KIND]:
        feasible = v.with_pod(pod)
        if feasible is None:
            continue
        have = sorted(present.get(key, set()))
        return [
            Suggestion(
                kind="dropNodeSelection",
                summary=f"the pod's {asks}, which no node has (nodes have {key} {_values_text(have)}): drop the "
                f"requirement from the pod, or change it to a value a node has; without it the pod fits on "
                f"{_nodes_text(feasible)} (no node is relabelled with {key}: {well_known_label(key)})",
                nodes=feasible,
                patches=[_pod_patch(v, ops)],
                command=_pod_command(v, ops),
            )
        ]
    return []
