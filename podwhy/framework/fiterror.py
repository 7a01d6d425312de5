"""FitError's words (upstream's framework/types.go: FitError.Error()): "0/N nodes are available:",
then each reason with the number of nodes that gave it, sorted as strings."""

from __future__ import annotations

from collections.abc import Mapping

NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"


def nodes_available_message(num_all_nodes: int, counts: Mapping[str, int]) -> str:
    """ "0/N nodes are available: 2 reason-a, 1 reason-b." for reason -> number of nodes."""
    msg = NO_NODE_AVAILABLE_MSG.format(num_all_nodes) + ":"
    histogram = sorted(f"{count} {reason}" for reason, count in counts.items())
    if histogram:
        msg += f" {', '.join(histogram)}."
    return msg
