"""The causes `pending` and `check` share, worded once: a pod no profile serves, a pod held by
scheduling gates, and kube-scheduler's own message (its facts: cluster/placementreasons.py)."""

from __future__ import annotations

from podwhy.cluster.placementreasons import Gated, SchedulerSays


def no_profile_text(scheduler_name: str) -> str:
    return f"no scheduler profile named {scheduler_name!r}"


def answer_text(answer: Gated | SchedulerSays) -> str:
    """The scheduler's answer as both commands say it: the gates it waits for, or its message
    verbatim."""
    match answer:
        case Gated(gates):
            return f"scheduling gates [{' '.join(gates)}]"
        case SchedulerSays(message):
            return message
