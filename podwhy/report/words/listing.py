"""What -o json|yaml says when it leaves out the per-node entries of a large cluster."""

from __future__ import annotations

# The flag of `podwhy explain` that lists every node's entry.
EVERY_NODE_FLAG = "--nodes all"


def nodes_omitted_warning(nodes: int, listed: int) -> str:
    """-o json|yaml of NODES nodes, more than LISTED: what it gives instead of each node's entry."""
    return (
        f"{nodes:,} nodes: -o json|yaml gives their verdicts grouped (nodeGroups) without each node's entry (nodes),"
        f" and every other per-node list cut to its first {listed:,} (omitted says which); pass {EVERY_NODE_FLAG}"
        " for every node's entry, evidence and scores"
    )
