"""What blocks a pod no node fits, in words: analysis/blocking.py's causes, one line each, with
the numbers the plugins computed (under the scheduler's message on explain's first screen)."""

from __future__ import annotations

from collections.abc import Sequence

from podwhy.analysis.blockingfacts import (
    BlockingCause,
    MissingTopologyKey,
    NoAffinityMatch,
    NotAdvertised,
    SelectorMismatch,
    TooSmall,
    UntoleratedTaint,
)
from podwhy.plugins import names
from podwhy.report.words.cells import short_amount

# Nodes named in a cause before "and N more".
MAX_NODES_NAMED = 3


def nodes_text(nodes: Sequence[str]) -> str:
    """ "gpu-a1"; "3 nodes (a, b, c)"; "12 nodes (a, b, c and 9 more)"."""
    if len(nodes) == 1:
        return nodes[0]
    shown = ", ".join(nodes[:MAX_NODES_NAMED])
    more = len(nodes) - MAX_NODES_NAMED
    return f"{len(nodes)} nodes ({shown}{f' and {more} more' if more > 0 else ''})"


def _are(nodes: Sequence[str], plural: str, singular: str) -> str:
    return f"{nodes_text(nodes)} {singular if len(nodes) == 1 else plural}"


def _be(count: int) -> str:
    return "is" if count == 1 else "are"


def _count(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' if count != 1 else ''}"


def _namespaces(namespaces: Sequence[str], namespace_selector: str | None) -> str:
    """Where a pod affinity term looks: "namespace shop", "any namespace", ..."""
    if namespace_selector == "":
        return "any namespace"
    named = f"namespace{'s' if len(namespaces) != 1 else ''} {', '.join(namespaces)}" if namespaces else ""
    if namespace_selector is None:
        return named or "no namespace"
    selected = f"namespaces selected by `{namespace_selector}`"
    return f"{named} or {selected}" if named else selected


# What another plugin that rejects the same nodes says of them ("and are too small anyway").
_ANYWAY = {
    names.NODE_RESOURCES_FIT: "are too small",
    names.TAINT_TOLERATION: "have a taint the pod does not tolerate",
    names.NODE_UNSCHEDULABLE: "are cordoned",
}
_ANYWAY_ONE = {
    names.NODE_RESOURCES_FIT: "is too small",
    names.TAINT_TOLERATION: "has a taint the pod does not tolerate",
    names.NODE_UNSCHEDULABLE: "is cordoned",
}


def blocking_text(cause: BlockingCause) -> str:
    """One line of what blocks the pod."""
    match cause:
        case TooSmall(resource="pods"):
            return f"{_are(cause.nodes, 'hold', 'holds')} as many pods as allowed"
        case TooSmall():
            needs = f"needs {cause.resource} {short_amount(cause.resource, cause.requested, up=True)}"
            most = f"{short_amount(cause.resource, cause.most_free)} ({cause.most_free_node})"
            if cause.every_node:
                count = len(cause.nodes)
                return f"{needs}; the most free on any node is {most}; {_count(count, 'node')} {_be(count)} too small"
            if len(cause.nodes) == 1:
                return f"{needs}; {cause.most_free_node} has {short_amount(cause.resource, cause.most_free)} free"
            return f"{needs}; {nodes_text(cause.nodes)} are too small: the most free of them is {most}"
        case NotAdvertised():
            if cause.every_node:
                return f"no node advertises `{cause.resource}` (is its device plugin running?)"
            return f"{_are(cause.nodes, 'do', 'does')} not advertise `{cause.resource}`"
        case UntoleratedTaint():
            return f"taint `{cause.taint}` on {nodes_text(cause.nodes)} is not tolerated"
        case MissingTopologyKey():
            which = (
                f"topologySpreadConstraints[{cause.constraint}].topologyKey"
                if cause.constraint is not None
                else "a default spread constraint of the scheduler's configuration"
            )
            if not cause.every_node:
                return f"{_are(cause.nodes, 'lack', 'lacks')} the label `{cause.topology_key}` that {which} names"
            similar = f" (nodes have {', '.join(cause.similar)})" if cause.similar else ""
            return f"no node has the label `{cause.topology_key}` that {which} names{similar}"
        case SelectorMismatch():
            one = len(cause.nodes) == 1
            if cause.source == "nodeSelector":
                what = f"{_are(cause.nodes, 'are', 'is')} not `{cause.wanted}` (nodeSelector)"
            else:
                what = f"{_are(cause.nodes, 'fail', 'fails')} the required node affinity (`{cause.wanted}`)"
            if cause.also:
                words = _ANYWAY_ONE if one else _ANYWAY
                verb = "is" if one else "are"
                return f"{what} and {words.get(cause.also[0], f'{verb} rejected by {cause.also[0]}')} anyway"
            if cause.each_otherwise:
                return f"{what}, and {'it is' if one else 'each is'} rejected for another reason too"
            return what
        case NoAffinityMatch():
            where = _namespaces(cause.namespaces, cause.namespace_selector)
            return f"no pod matches the required pod affinity `{cause.selector}` in {where}"
