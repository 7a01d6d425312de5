"""What explain is pointed at, when Kueue holds it: `job/NAME`, `workload/NAME` (kubectl's
spellings), or `KIND/NAME` of any owner Kueue manages (a JobSet, a RayJob...: through its
Workload's owner reference), resolved to the facts of its Workload; unknown names fail with the
closest ones."""

from __future__ import annotations

import difflib

from podwhy.analysis.kueue import facts_for, facts_for_job, workload_owner
from podwhy.analysis.kueuefacts import (
    JOB_RESOURCE_NAMES,
    QUEUE_NAME_LABEL,
    WORKLOAD,
    WORKLOAD_RESOURCE_NAMES,
    KueueFacts,
    has_kueue,
)
from podwhy.cluster.kueue.admission import VerdictOptions
from podwhy.errors import PodwhyError
from podwhy.model import objects as o
from podwhy.snapshot.cluster import Snapshot


class NotQueuedError(PodwhyError):
    """A Job of the snapshot Kueue does not queue (no queue-name label, no Workload)."""


def _closest(name: str, candidates: list[str]) -> list[str]:
    return difflib.get_close_matches(name, candidates, n=3, cutoff=0.5)


def _owner_kind_matches(kind: str, typed: str) -> bool:
    """kubectl's TYPE for KIND: its name, plural or short of its group (`jobset`, `jobsets`,
    `jobsets.jobset.x-k8s.io`)."""
    base = typed.lower().split(".", 1)[0]
    lowered = kind.lower()
    return base in (lowered, lowered + "s")


def _owned_workloads(snapshot: Snapshot, typed: str, namespace: str) -> list[tuple[str, o.KueueWorkload]]:
    """(owner name, Workload) for the Workloads whose controller is of kubectl's TYPE."""
    out = []
    for wl in snapshot.kueue_workloads.values():
        if wl.metadata.namespace != namespace:
            continue
        kind, name = workload_owner(wl)
        if kind != WORKLOAD and _owner_kind_matches(kind, typed):
            out.append((name, wl))
    return out


def kueue_target(
    snapshot: Snapshot, ref: str, namespace: str, options: VerdictOptions | None = None
) -> KueueFacts | None:
    """The Kueue facts for REF (TYPE/NAME, the namespace from -n), or None when REF is not one
    (a pod reference, or a snapshot without Kueue objects: nothing changes then). A known TYPE
    with an unknown NAME fails naming the closest ones."""
    kind, slash, name = ref.partition("/")
    if not slash or not name or "/" in name or not has_kueue(snapshot):
        return None
    typed = kind.lower()
    if typed in JOB_RESOURCE_NAMES:
        return _job(snapshot, namespace, name, options)
    if typed in WORKLOAD_RESOURCE_NAMES:
        return _workload(snapshot, namespace, name, options)
    owned = _owned_workloads(snapshot, typed, namespace)
    match = next((wl for owner, wl in owned if owner == name), None)
    if match is not None:
        owner_kind, _ = workload_owner(match)
        return facts_for(owner_kind, namespace, name, match, snapshot, options)
    if owned:
        close = _closest(name, [owner for owner, _ in owned])
        hint = f"closest: {', '.join(f'{kind}/{c}' for c in close)}" if close else ""
        raise PodwhyError(f"{kind} {namespace}/{name} has no Workload in the snapshot", hint=hint or None)
    return None


def _job(snapshot: Snapshot, namespace: str, name: str, options: VerdictOptions | None) -> KueueFacts:
    job = snapshot.jobs.get(f"{namespace}/{name}")
    if job is None:
        keys = [k for k in snapshot.jobs if k.startswith(namespace + "/")] or list(snapshot.jobs)
        close = _closest(f"{namespace}/{name}", keys)
        hint = (
            f"closest: {', '.join(close)}"
            if close
            else (f"the snapshot has {len(snapshot.jobs)} Jobs" if snapshot.jobs else "the snapshot holds no Jobs")
        )
        raise PodwhyError(f"Job {namespace}/{name} not found in the snapshot", hint=hint)
    facts = facts_for_job(snapshot, job, options)
    if facts.workload is None and not job.metadata.labels.get(QUEUE_NAME_LABEL):
        raise NotQueuedError(
            f"Job {namespace}/{name} is not queued by Kueue: it has no {QUEUE_NAME_LABEL} label and no Workload",
            hint="explain its pods: podwhy explain -n NAMESPACE POD",
        )
    return facts


def _workload(snapshot: Snapshot, namespace: str, name: str, options: VerdictOptions | None) -> KueueFacts:
    wl = snapshot.kueue_workloads.get(f"{namespace}/{name}")
    if wl is None:
        keys = [k for k in snapshot.kueue_workloads if k.startswith(namespace + "/")] or list(snapshot.kueue_workloads)
        close = _closest(f"{namespace}/{name}", keys)
        count = len(snapshot.kueue_workloads)
        hint = f"closest: {', '.join(close)}" if close else f"the snapshot has {count} Workloads"
        raise PodwhyError(f"Workload {namespace}/{name} not found in the snapshot", hint=hint)
    return facts_for(WORKLOAD, namespace, name, wl, snapshot, options)
