"""Will a node come for an Unschedulable pod? Every autoscaler the snapshot shows, side by side."""

from __future__ import annotations

from podwhy.analysis.autoscaling.base import Autoscaler
from podwhy.analysis.autoscaling.clusterautoscaler import ClusterAutoscaler
from podwhy.analysis.autoscaling.events import newest_record
from podwhy.analysis.autoscaling.facts import AutoscalingAnalysis
from podwhy.analysis.autoscaling.karpenter import Karpenter
from podwhy.framework.runtime import Framework
from podwhy.model import objects as o
from podwhy.scheduler.cycle import CycleOutcome
from podwhy.snapshot.cluster import Snapshot

# The kinds autoscalers are read from: a snapshot that cannot vouch for them cannot say "none".
AUTOSCALER_KINDS = ("ConfigMap", "NodePool", "NodeClaim")


def autoscalers(snapshot: Snapshot) -> list[Autoscaler]:
    """The autoscalers the snapshot shows signs of (Cluster Autoscaler first)."""
    found: list[Autoscaler] = []
    if ClusterAutoscaler.present(snapshot):
        found.append(ClusterAutoscaler(snapshot))
    if Karpenter.present(snapshot):
        found.append(Karpenter(snapshot))
    return found


def analyse(
    snapshot: Snapshot,
    pod: o.Pod,
    cycle: CycleOutcome,
    framework: Framework,
    found: list[Autoscaler] | None = None,
) -> AutoscalingAnalysis:
    """Each autoscaler's view of POD (whose cycle left it Unschedulable). `found`: autoscalers()
    of the snapshot, made once for many pods."""
    scalers = found if found is not None else autoscalers(snapshot)
    now, as_of = newest_record(snapshot)
    missing = {kind: snapshot.missing[kind] for kind in AUTOSCALER_KINDS if kind in snapshot.missing}
    analysis = AutoscalingAnalysis(missing_kinds=missing, as_of=as_of)
    analysis.views = [scaler.view(pod, cycle, framework, now) for scaler in scalers]
    analysis.none_found = not scalers and not missing
    return analysis
