"""Kueue's answers a command gives first: only for a snapshot that holds Kueue's objects, whose
code is loaded only then."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from podwhy.analysis.kueuefacts import KueueFacts, has_kueue
from podwhy.errors import PodwhyError
from podwhy.model import objects as o
from podwhy.report.model import Report
from podwhy.snapshot.cluster import Snapshot

if TYPE_CHECKING:
    from podwhy.cluster.kueue.admission import VerdictOptions


def verdict_options(gates: Mapping[str, bool] | None) -> VerdictOptions | None:
    """Kueue's options with GATES (None: v0.20's defaults)."""
    from podwhy.cluster.kueue.admission import VerdictOptions

    return None if gates is None else VerdictOptions(gates=gates)


def kueue_report(snapshot: Snapshot, ref: str, namespace: str, gates: Mapping[str, bool] | None) -> Report | None:
    """The report of a Job, Workload or owner Kueue manages (TYPE/NAME); None for a pod reference
    or a snapshot without Kueue objects. kubectl's reading wins, unless only the NAMESPACE/NAME
    reading names something: a pod of that name in a namespace so called."""
    if not has_kueue(snapshot):
        return None  # as kueue_target says, without loading Kueue's code
    from podwhy.analysis.kueuetarget import NotQueuedError, kueue_target
    from podwhy.report.build.kueue import build_kueue_report

    try:
        facts = kueue_target(snapshot, ref, namespace, verdict_options(gates))
    except NotQueuedError:
        return None  # a Job Kueue does not queue: explained as any workload
    except PodwhyError:
        ns, _, name = ref.partition("/")
        if any(p.metadata.namespace == ns and p.metadata.name == name for p in snapshot.pods):
            return None
        raise
    return None if facts is None else build_kueue_report(facts, snapshot, gates)


def kueue_for_pod(snapshot: Snapshot, pod: o.Pod, gates: Mapping[str, bool] | None) -> KueueFacts | None:
    """Kueue's answer for a pod it gates, or whose Job's Workload it has not admitted."""
    if not has_kueue(snapshot):
        return None
    from podwhy.analysis.kueue import facts_for_pod

    return facts_for_pod(snapshot, pod, verdict_options(gates))


def kueue_held(snapshot: Snapshot, namespace: str | None, gates: Mapping[str, bool] | None) -> list[KueueFacts] | None:
    """What Kueue holds: only when the snapshot holds Kueue's objects (None: it holds none)."""
    if not has_kueue(snapshot):
        return None
    from podwhy.analysis.kueue import kueue_pending

    return kueue_pending(snapshot, namespace, verdict_options(gates))
