"""What -o json|yaml of `explain` lists of a large cluster (`--nodes auto|all|grouped`).

The report keeps every node's entry (the table and --node read them); its JSON and YAML list
them only up to NODES_LISTED nodes, or with --nodes all. Above that (or with --nodes grouped)
`nodeGroups` says every node's verdict, `nodes` is left empty, and every other list with an
entry per node (the feasible and best nodes, each cause's and suggestion's nodes, PreFilter's
node names, preemption's dry run and candidates) keeps its first NODES_LISTED entries; `omitted`
says how many each lost. Then -o json of 65,000 nodes is a few MB rather than 220.
"""

from __future__ import annotations

from typing import TypeVar

from msgspec import structs

from podwhy.report.model import NODES_LISTED, NodesListing, Report
from podwhy.report.words.listing import nodes_omitted_warning

T = TypeVar("T")


def _cut(omitted: dict[str, int], path: str, items: list[T]) -> list[T]:
    """ITEMS' first NODES_LISTED, with how many were left out at PATH in OMITTED."""
    if len(items) <= NODES_LISTED:
        return items
    omitted[path] = len(items) - NODES_LISTED
    return items[:NODES_LISTED]


def lists_every_node(report: Report, listing: NodesListing) -> bool:
    return listing == "all" or (listing == "auto" and len(report.nodes) <= NODES_LISTED)


def listed(report: Report, listing: NodesListing = "auto") -> Report:
    """REPORT as -o json|yaml gives it with --nodes LISTING (REPORT itself when whole); with
    --nodes auto, a warning says what was left out and which flag gives it."""
    if lists_every_node(report, listing):
        return report
    omitted: dict[str, int] = {}
    if report.nodes:
        omitted["nodes"] = len(report.nodes)

    changes: dict[str, object] = {
        "nodes": [],
        "feasibleNodes": _cut(omitted, "feasibleNodes", report.feasibleNodes),
        "bestNodes": _cut(omitted, "bestNodes", report.bestNodes),
        "causes": [
            structs.replace(c, nodes=_cut(omitted, f"causes[{i}].nodes", c.nodes)) for i, c in enumerate(report.causes)
        ],
        "suggestions": [
            structs.replace(s, nodes=_cut(omitted, f"suggestions[{i}].nodes", s.nodes))
            for i, s in enumerate(report.suggestions)
        ],
        "preFilter": [
            structs.replace(p, nodeNames=_cut(omitted, f"preFilter[{i}].nodeNames", p.nodeNames))
            if p.nodeNames is not None
            else p
            for i, p in enumerate(report.preFilter)
        ],
    }
    pre = report.preemption
    if pre is not None:
        changes["preemption"] = structs.replace(
            pre,
            dryRun=_cut(omitted, "preemption.dryRun", pre.dryRun),
            candidates=_cut(omitted, "preemption.candidates", pre.candidates),
        )
    if omitted:
        changes["omitted"] = omitted
    if listing == "auto":
        changes["warnings"] = [*report.warnings, nodes_omitted_warning(len(report.nodes), NODES_LISTED)]
    return structs.replace(report, **changes)
