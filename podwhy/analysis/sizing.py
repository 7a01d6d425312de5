"""How sizing a pending group of `podwhy pending` ended: a leaf of the report's JSON contract."""

from __future__ import annotations

from enum import StrEnum


class SizingOutcome(StrEnum):
    """How sizing a pending group ended."""

    # A verified count: the suggestion says how many nodes.
    SIZED = "sized"
    # No node of the cluster, even emptied, holds one of the group's pods.
    NO_NODE_SHAPE = "noNodeShape"
    # Nodes shaped like existing ones hold some of its pods, but no number of them holds all.
    NO_COUNT = "noCount"
    # A bound (node evaluations, added nodes, the time safety net) stopped the search.
    STOPPED = "stopped"
    # Not tried: only the largest groups are sized, within one bound for the whole run.
    SKIPPED = "skipped"
