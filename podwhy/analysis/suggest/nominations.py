"""releaseNomination: release the room nominated pods reserve on a node (stale nominations first)."""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from typing import Any

import msgspec

from podwhy.analysis.suggest.base import MAX_TRIES_PER_KIND, _Verifier
from podwhy.analysis.suggest.facts import Command, Released, ReleaseNomination, StatusPatch, Suggestion
from podwhy.analysis.suggest.patches import _pod_ref
from podwhy.framework.types import PodInfo
from podwhy.model.wellknownnames import DEFAULT_SCHEDULER_NAME
from podwhy.scheduler.cycle import CycleOutcome
from podwhy.snapshot.cluster import Snapshot

RELEASE_NOMINATION_PATCH: dict[str, Any] = {"status": {"nominatedNodeName": None}}


# Nominated pods whose own cycle is run to tell a stale nomination, per suggestion.
MAX_NOMINATIONS_CHECKED = 6


class _Nomination(msgspec.Struct):
    pod: PodInfo
    node: str
    # Its nominated node no longer fits it and nothing it preempted is still leaving: the room
    # stays reserved for a pod that will not come.
    stale: bool = False
    # Lower-priority pods still terminating on its node (the victims it waits for).
    terminating: int = 0


def _terminating_victims(snapshot: Snapshot, node: str, priority: int) -> int:
    return sum(
        1
        for p in snapshot.pods
        if p.spec.node_name == node and p.metadata.deletion_timestamp is not None and (p.spec.priority or 0) < priority
    )


def _nomination(v: _Verifier, pi: PodInfo, node: str, check: bool) -> _Nomination:
    """The nomination, stale when its pod's own cycle (under this profile) no longer fits the node."""
    out = _Nomination(pi, node, terminating=_terminating_victims(v.snapshot, node, pi.priority))
    same_profile = (pi.pod.spec.scheduler_name or DEFAULT_SCHEDULER_NAME) == v.profile.scheduler_name
    if check and same_profile and not out.terminating:
        cycle = v.cycle_of(pi.pod)
        out.stale = cycle is not None and cycle.outcome is not None and not cycle.nominated_node_fits
    return out


def _release_command(released: Sequence[_Nomination]) -> Command:
    patch = shlex.quote(json.dumps(RELEASE_NOMINATION_PATCH, separators=(",", ":")))
    return Command(
        " && ".join(
            f"kubectl patch pod {shlex.quote(n.pod.pod.metadata.name)} -n {shlex.quote(n.pod.pod.metadata.namespace)}"
            f" --subresource=status --type merge -p {patch}"
            for n in released
        ),
        StatusPatch(),
    )


def _release_options(v: _Verifier, cycle: CycleOutcome) -> list[tuple[bool, int, str, list[_Nomination]]]:
    """Per node that rejects the pod only for the room nominated pods of its priority or higher
    reserve there (fewest such pods first): its stale nominations alone, and all of them; each
    as (includes a valid nomination, how many, node, nominations). Worked out once per pod."""
    if v.release_options is not None:
        return v.release_options
    assert cycle.outcome is not None
    reserved = sorted(
        (verdict for verdict in cycle.outcome.nodes if not verdict.feasible and verdict.feasible_without_nominated),
        key=lambda verdict: (len(verdict.nominated_pods), verdict.name),
    )[:MAX_TRIES_PER_KIND]
    options: list[tuple[bool, int, str, list[_Nomination]]] = []
    checked = 0
    for verdict in reserved:
        nominations: list[_Nomination] = []
        for pi in verdict.nominated_pods:
            nominations.append(_nomination(v, pi, verdict.name, check=checked < MAX_NOMINATIONS_CHECKED))
            checked += 1
        stale = [n for n in nominations if n.stale]
        if stale and len(stale) < len(nominations):
            options.append((False, len(stale), verdict.name, stale))
        options.append((len(stale) < len(nominations), len(nominations), verdict.name, nominations))
    v.release_options = sorted(options, key=lambda opt: opt[:3])
    return v.release_options


def _suggest_release(v: _Verifier, cycle: CycleOutcome, stale_only: bool) -> list[Suggestion]:
    if v.released:
        return []
    for includes_valid, _, node, released in _release_options(v, cycle):
        if includes_valid == stale_only:
            continue
        feasible = v.without_nominations(frozenset(n.pod.uid for n in released))
        if feasible is None:
            continue
        v.released = True
        return [
            Suggestion(
                ReleaseNomination(
                    node, tuple(Released(n.pod.key, n.pod.priority, n.stale, n.terminating) for n in released)
                ),
                nodes=feasible,
                patches=[{**_pod_ref(n.pod.pod), "patch": RELEASE_NOMINATION_PATCH} for n in released],
                command=_release_command(released),
            )
        ]
    return []


def _suggest_release_stale_nominations(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    """Stale nominations holding the room the pod needs: the likely root cause, offered first."""
    return _suggest_release(v, cycle, stale_only=True)


def _suggest_release_nominations(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    """Valid nominations holding the room: releasing them takes room from higher-priority pods,
    so they come with the other changes that do (evictions), when no stale release was found."""
    return _suggest_release(v, cycle, stale_only=False)
