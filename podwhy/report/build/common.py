"""What every command's report holds alike, built from facts: the snapshot's summary, the emulated
scheduler's release, the causes that block a pod, a suggested change."""

from __future__ import annotations

from msgspec import UNSET

from podwhy.analysis import blocking
from podwhy.analysis.suggest.facts import Suggestion as SuggestedChange
from podwhy.features.emulation import DEFAULT as DEFAULT_EMULATION
from podwhy.model import objects as o
from podwhy.report.model import (
    BlockingCause,
    Consumer,
    MissingTopologyKeyCause,
    NoAffinityMatchCause,
    NotAdvertisedCause,
    SchedulerVersion,
    SelectorMismatchCause,
    SnapshotSummary,
    Suggestion,
    TooSmallCause,
    UntoleratedTaintCause,
)
from podwhy.report.words.blocking import blocking_text
from podwhy.report.words.suggest import command_text, suggestion_text
from podwhy.scheduler.release import ChosenVersion, VersionSource
from podwhy.snapshot.cluster import Snapshot


def blocking_cause(cause: blocking.BlockingCause) -> BlockingCause:
    """A cause of analysis/blocking.py as the report says it, its facts and its line."""
    text, plugin, nodes = blocking_text(cause), cause.plugin, list(cause.nodes)
    match cause:
        case blocking.TooSmall():
            return TooSmallCause(
                plugin=plugin,
                text=text,
                nodes=nodes,
                resource=cause.resource,
                unit=cause.unit,
                requested=cause.requested,
                mostFree=cause.most_free,
                mostFreeNode=cause.most_free_node,
                everyNode=cause.every_node,
                topConsumers=[Consumer(pod=pod, requested=amount) for pod, amount in cause.consumers],
            )
        case blocking.NotAdvertised():
            return NotAdvertisedCause(
                plugin=plugin,
                text=text,
                nodes=nodes,
                resource=cause.resource,
                requested=cause.requested,
                everyNode=cause.every_node,
            )
        case blocking.UntoleratedTaint():
            return UntoleratedTaintCause(plugin=plugin, text=text, nodes=nodes, taint=cause.taint)
        case blocking.MissingTopologyKey():
            return MissingTopologyKeyCause(
                plugin=plugin,
                text=text,
                nodes=nodes,
                topologyKey=cause.topology_key,
                constraint=cause.constraint,
                everyNode=cause.every_node,
                similarLabels=list(cause.similar),
            )
        case blocking.NoAffinityMatch():
            return NoAffinityMatchCause(
                plugin=plugin,
                text=text,
                nodes=nodes,
                selector=cause.selector,
                namespaces=list(cause.namespaces),
                namespaceSelector=cause.namespace_selector,
                topologyKey=cause.topology_key,
            )
        case blocking.SelectorMismatch():
            return SelectorMismatchCause(
                plugin=plugin,
                text=text,
                nodes=nodes,
                source=cause.source,
                wanted=cause.wanted,
                alsoRejectedBy=list(cause.also),
                eachRejectedOtherwise=cause.each_otherwise,
            )


def scheduler_version(version: ChosenVersion | None) -> SchedulerVersion:
    """The emulated release and how it was chosen (the v1.35 default when nobody chose)."""
    version = version or ChosenVersion(DEFAULT_EMULATION, VersionSource.DEFAULT)
    return SchedulerVersion(
        version=version.emulation.name,
        versionSource=version.source.value,
        clusterVersion=str(version.found) if version.found is not None else None,
    )


def snapshot_summary(snapshot: Snapshot) -> SnapshotSummary:
    return SnapshotSummary(
        sources=list(snapshot.sources),
        nodes=len(snapshot.nodes),
        pods=len(snapshot.pods),
        # The autoscalers' kinds are the autoscaling analysis's to report, not every report's.
        missingKinds=sorted(snapshot.missing_kinds - o.AUTOSCALER_KINDS),
        ignoredKinds=dict(sorted(snapshot.ignored_kinds.items())),
        takenAt=snapshot.taken_at or UNSET,
    )


def suggestion(s: SuggestedChange) -> Suggestion:
    return Suggestion(
        kind=s.kind,
        summary=suggestion_text(s),
        nodes=list(s.nodes),
        patches=list(s.patches),
        command=command_text(s.command),
    )
