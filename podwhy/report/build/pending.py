"""The PendingReport of `podwhy pending`: every Pending pod's cause, grouped by cause and owner,
with the groups' suggestions and sizing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from msgspec import UNSET

from podwhy.analysis.autoscaling.facts import AutoscalingAnalysis
from podwhy.analysis.kueuefacts import KueueFacts
from podwhy.analysis.pending import CauseKey, GroupKey, PendingPod, is_pending
from podwhy.analysis.remedies import remedy
from podwhy.analysis.sizing import SizingOutcome
from podwhy.analysis.suggest.causesizing import CauseSizing
from podwhy.analysis.suggest.notes import GroupSizing, Sized
from podwhy.analysis.workloadfacts import WorkloadFacts
from podwhy.report.build.autoscaling import autoscaling_report
from podwhy.report.build.common import scheduler_version, snapshot_summary, suggestion
from podwhy.report.build.inputs import input_warnings
from podwhy.report.build.release import version_warnings
from podwhy.report.model import (
    CauseNodes,
    GroupSizingNote,
    KueuePendingGroup,
    NotCreatedWorkload,
    PendingCauseSummary,
    PendingGroup,
    PendingReport,
    PendingScope,
)
from podwhy.report.words.blocking import blocking_text
from podwhy.report.words.lacking import lacking_kinds_warning
from podwhy.report.words.pending import cause_text, details_text, remedy_text
from podwhy.report.words.sizing import estimate_text, sizing_text
from podwhy.scheduler.release import ChosenVersion
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict

# Pending pods that are not stuck: they start as things stand, or podwhy cannot tell.
NOT_STUCK = (Verdict.SCHEDULABLE, Verdict.INCONCLUSIVE, Verdict.WAITING_FOR_NODE)


def _no_autoscaler_view(autoscaling: Mapping[GroupKey, AutoscalingAnalysis] | None) -> str | None:
    """Said once for the report when no group got an autoscaler's view: there is none, or the
    snapshot cannot tell."""
    if not autoscaling or any(a.views for a in autoscaling.values()):
        return None
    return autoscaling_report(next(iter(autoscaling.values()))).summary


def _cause_nodes(sizing: GroupSizing, pods: int) -> CauseNodes:
    sized = sizing.note if sizing.outcome == SizingOutcome.SIZED and isinstance(sizing.note, Sized) else None
    return CauseNodes(
        outcome=sizing.outcome,
        count=sized.count if sized is not None else None,
        like=sized.like if sized is not None else None,
        note=estimate_text(sizing.note, pods),
    )


def _summary(
    pending: list[PendingPod], causes: Mapping[CauseKey, CauseSizing], groups: Mapping[GroupKey, GroupSizing]
) -> list[PendingCauseSummary]:
    """Pods by verdict and cause, every owner together, most pods first, each with its next step."""
    members: dict[CauseKey, list[PendingPod]] = {}
    for item in pending:
        members.setdefault(item.cause_key, []).append(item)
    out: list[PendingCauseSummary] = []
    for key, items in members.items():
        owners: dict[str, int] = {}
        for item in items:
            if item.owner is not None:
                owners[str(item.owner)] = owners.get(str(item.owner), 0) + 1
        found = causes.get(key)
        keys = {item.group_key for item in items}
        sized = found.sizing if found is not None else groups.get(next(iter(keys))) if len(keys) == 1 else None
        step, commands = remedy_text(remedy(items, sized))
        out.append(
            PendingCauseSummary(
                verdict=items[0].verdict,
                cause=cause_text(items[0].cause),
                blocking=[blocking_text(c) for c in found.blocking] if found is not None else [],
                count=len(items),
                owners=sorted(owners, key=lambda owner: (-owners[owner], owner)),
                bare=sum(1 for item in items if item.owner is None),
                groups=len({item.group_key for item in items}),
                nodes=_cause_nodes(found.sizing, len(items))
                if found is not None and found.sizing is not None
                else None,
                remedy=step,
                commands=commands,
            )
        )
    return sorted(out, key=lambda c: (-c.count, c.cause))


def build_pending_report(
    pending: list[PendingPod],
    snapshot: Snapshot,
    sizing: Mapping[GroupKey, GroupSizing] | None = None,
    namespace: str | None = None,
    version: ChosenVersion | None = None,
    autoscaling: Mapping[GroupKey, AutoscalingAnalysis] | None = None,
    causes: Mapping[CauseKey, CauseSizing] | None = None,
    elsewhere: Sequence[PendingPod] = (),
    all_namespaces: str | None = None,
    kueue: Sequence[KueueFacts] | None = None,
    not_created: Sequence[WorkloadFacts] = (),
) -> PendingReport:
    """Group pending pods by verdict, cause and owner; largest group first. `sizing`: per
    Unschedulable group, how many nodes it needs or why that is not known. `namespace`: the one
    namespace covered (None: every namespace). `causes`: per Unschedulable cause, what blocks its
    pods and the nodes that hold them all (the summary's). `elsewhere`: for a namespace without
    Pending pods, those of the other namespaces, classified; `all_namespaces`: the command that
    shows them. `kueue`: what Kueue holds, when the snapshot holds Kueue's objects (None: it holds
    none). `not_created`: the workloads whose controller reports FailedCreate now."""
    groups: dict[GroupKey, PendingGroup] = {}
    for item in pending:
        key = item.group_key
        group = groups.get(key)
        if group is None:
            sized = (sizing or {}).get(key)
            group = groups[key] = PendingGroup(
                verdict=item.verdict,
                cause=cause_text(item.cause),
                owner=key[2],
                count=0,
                pods=[],
                details=[],
                suggestions=[suggestion(s) for s in ([sized.suggestion] if sized.suggestion else []) + sized.levers]
                if sized is not None
                else [],
                sizing=GroupSizingNote(outcome=sized.outcome, note=sizing_text(sized.note))
                if sized is not None
                else None,
                autoscaling=autoscaling_report(autoscaling[key])
                if autoscaling and key in autoscaling and autoscaling[key].views
                else None,
            )
        group.count += 1
        group.pods.append(item.key)
        group.details.extend(d for d in details_text(item.details) if d not in group.details)
    ordered = sorted(groups.values(), key=lambda g: (-g.count, g.cause, g.owner or ""))
    waiting = sum(1 for item in pending if item.verdict == Verdict.WAITING_FOR_NODE)
    stuck = sum(1 for item in pending if item.verdict not in NOT_STUCK)
    every = snapshot.namespace_names() if namespace is None else []
    scope = PendingScope(
        namespace=namespace,
        namespaces=1 if namespace is not None else len(every),
        only=next(iter(every)) if len(every) == 1 else None,
        elsewhere=0
        if namespace is None
        else sum(1 for p in snapshot.pods if is_pending(p) and p.metadata.namespace != namespace),
        elsewhereStuck=sum(1 for item in elsewhere if item.verdict not in NOT_STUCK),
        elsewhereVerdicts=sorted({item.verdict for item in elsewhere}),
        allNamespaces=all_namespaces if elsewhere else None,
    )
    lacking = sorted({kind for item in pending if item.cycle is not None for kind in item.cycle.lacking_kinds})
    return PendingReport(
        total=len(pending),
        stuck=stuck,
        waiting=waiting,
        autoscalers=_no_autoscaler_view(autoscaling),
        summary=_summary(pending, causes or {}, sizing or {}),
        groups=ordered,
        snapshot=snapshot_summary(snapshot),
        scope=scope,
        scheduler=scheduler_version(version),
        warnings=[
            *input_warnings(snapshot),
            *version_warnings(version),
            *([lacking_kinds_warning(lacking)] if lacking else []),
        ],
        kueue=UNSET if kueue is None else _kueue_groups(kueue),
        notCreated=_not_created(not_created) if not_created else UNSET,
    )


def _not_created(facts: Sequence[WorkloadFacts]) -> list[NotCreatedWorkload]:
    """The workloads whose pods are not being created (report/build/notcreated.py, loaded only then)."""
    from podwhy.report.build.notcreated import not_created

    return not_created(facts)


def _kueue_groups(held: Sequence[KueueFacts]) -> list[KueuePendingGroup]:
    """What Kueue holds, by ClusterQueue and cause (report/build/kueue.py, loaded only then)."""
    from podwhy.report.build.kueue import kueue_pending_groups

    return kueue_pending_groups(list(held))
