"""The pod's fate, said beside the verdict on the first line: what `pending` classifies it as when
that differs from the verdict ("nominated to node n3, waiting for 2 victim(s) to terminate"), or
whom the preemption dry run would preempt ("will preempt shop/web-a, shop/web-b on node-1")."""

from __future__ import annotations

from podwhy.report.model import Report
from podwhy.report.words.pending import preempt_text

# Victims named on the first line before it says only how many.
MAX_VICTIMS_NAMED = 3


def fate_text(report: Report) -> str:
    """What becomes of the pod, beyond its verdict; "" when the verdict says it all."""
    pending = report.pending
    if pending is not None and pending.verdict != report.verdict:
        return pending.cause
    pre = report.preemption
    if pre is None or pre.nominatedNode is None or not pre.victims:
        return ""
    return preempt_text(pre.nominatedNode, pre.victims, MAX_VICTIMS_NAMED)
