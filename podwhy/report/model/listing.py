"""How much of a large cluster `explain -o json|yaml` lists (`--nodes`): a leaf, read by the command
line's help too."""

from __future__ import annotations

from typing import Literal

# -o json|yaml lists every node's entry (`nodes`) up to this many nodes; above it (--nodes auto,
# the default) `nodeGroups` says the verdicts and every other per-node list is cut to this many.
NODES_LISTED = 1000

# --nodes: auto (every entry up to NODES_LISTED nodes, else as grouped), all (every entry, streamed),
# grouped (no node's entry; the other per-node lists cut to NODES_LISTED).
NodesListing = Literal["auto", "all", "grouped"]
NODES_LISTINGS: tuple[NodesListing, ...] = ("auto", "all", "grouped")
