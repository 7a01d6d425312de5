"""A workload's answer in words, from the report alone (explain TYPE/NAME, pending's workloads
whose pods are not being created): the cause, an event's heading (words/workloadfate.py says the
first line and the findings from the facts)."""

from __future__ import annotations

from collections.abc import Sequence

# How the suggestions for a policy's refusal (satisfyPolicy) are verified, after their heading.
VERIFIED_BY_ADMISSION = "each verified by running the API server's admission again, then the scheduler's plugins"


def target_text(kind: str, namespace: str, name: str) -> str:
    """ "Deployment shop/web"."""
    return f"{kind} {namespace}/{name}"


def _count(number: int, thing: str) -> str:
    return f"{number} {thing}{'s' if number != 1 else ''}"


def phases_text(phases: Sequence[tuple[str, int]]) -> str:
    """ "2 Running, 1 Succeeded"."""
    return ", ".join(f"{count} {phase}" for phase, count in phases)


def not_created_cause(count: int) -> str:
    """`pending`'s cause of the workloads whose pods are not being created."""
    return f"{_count(count, 'workload')} cannot create pods"


def events_heading(obj: str, count: int, when: str) -> str:
    """ "ReplicaSet web-6c9f8b7d5: FailedCreate, 12 times (last 2026-03-04T10:22:15Z, 3m before the
    snapshot)"."""
    return f"{obj}: FailedCreate, {_count(count, 'time')}" + (f" ({when})" if when else "")


def more_events_text(count: int) -> str:
    """Said under the events shown when more are not."""
    return f"… {count} more FailedCreate {'events' if count != 1 else 'event'} (-o wide shows all)"
