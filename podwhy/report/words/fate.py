"""The pod's fate, said beside the verdict on the first line: what `pending` classifies it as when
that differs from the verdict ("nominated to node n3, waiting for 2 victim(s) to terminate"), or
whom the preemption dry run would preempt ("will preempt shop/web-a, shop/web-b on node-1")."""

from __future__ import annotations

from collections.abc import Sequence

from podwhy.report.model import Report

# Victims named on the first line before it says only how many.
MAX_VICTIMS_NAMED = 3


def preempt_text(node: str, victims: Sequence[str], named: int | None = None) -> str:
    """ "will preempt 9 pods on node-1 (a, b, ...)": the fate of a pod preemption places, in every
    command's words; `named`: victims listed at most (more are only counted)."""
    count = len(victims)
    pods = f"{count} pod{'s' if count != 1 else ''}"
    listed = f" ({', '.join(victims)})" if named is None or count <= named else ""
    return f"will preempt {pods} on {node}{listed}"


def fate_text(report: Report) -> str:
    """What becomes of the pod, beyond its verdict; "" when the verdict says it all."""
    pending = report.pending
    if pending is not None and pending.verdict != report.verdict:
        return pending.cause
    pre = report.preemption
    if pre is None or pre.nominatedNode is None or not pre.victims:
        return ""
    return preempt_text(pre.nominatedNode, pre.victims, MAX_VICTIMS_NAMED)
