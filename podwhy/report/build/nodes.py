"""The report's nodes: each node's entry (`nodes`) and the nodes grouped by identical verdicts
(`nodeGroups`).

With node equivalence classes (framework/equivalence.py) every node of a class holds the very
Status objects of the class's first node: each is turned into the report's PluginStatus once and
shared by the entries of the whole class (nothing changes a report's structs once built), and
the groups are found by comparing small numbers, one per distinct status, rather than every
node's strings. At 65,000 nodes of a few classes that is a few hundred structs, not a million.
"""

from __future__ import annotations

from collections.abc import Iterable

from msgspec import UNSET

from podwhy.analysis.verdictgroups import VerdictGroups
from podwhy.framework.outcome import NodeVerdict
from podwhy.framework.scoring import PluginScore, ScoreOutcome
from podwhy.framework.status import Code, Status
from podwhy.framework.types import PodInfo
from podwhy.model.quantity import milli_value, value
from podwhy.report.model import NodeGroup, NodeReport, NominatedPod, PluginStatus, ScoreEntry, StatusName
from podwhy.report.words.notevaluated import not_evaluated_text


def status_name(status: Status) -> StatusName:
    return StatusName.NOT_EVALUATED if status.not_evaluated is not None else StatusName(Code(status.code).name)


def plugin_status(plugin: str, status: Status, with_evidence: bool = True) -> PluginStatus:
    unevaluated = status.not_evaluated
    return PluginStatus(
        plugin=plugin,
        status=status_name(status),
        reasons=[not_evaluated_text(unevaluated)] if unevaluated is not None else list(status.reasons),
        evidence=list(status.evidence) if with_evidence and status.evidence else UNSET,
    )


def requests_text(pod: PodInfo) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, amount in sorted(pod.resource.requests.items()):
        out[name] = f"{milli_value(amount)}m" if name == "cpu" else str(value(amount))
    return out


def _score_entry(ps: PluginScore) -> ScoreEntry:
    return ScoreEntry(
        plugin=ps.plugin,
        raw=ps.raw,
        normalized=ps.normalized,
        weight=ps.weight,
        weighted=ps.weighted,
        skipped=True if ps.skipped else UNSET,
        notEvaluated=not_evaluated_text(ps.not_evaluated) if ps.not_evaluated is not None else UNSET,
        evidence=list(ps.evidence) if ps.evidence else UNSET,
    )


class _Statuses:
    """The PluginStatus of each Status object met, made once, and a small number for its content
    (plugin, status, reasons): equal numbers, equal verdicts. The Status objects stay alive (the
    cycle's verdicts hold them) while this lives, so their ids name them."""

    __slots__ = ("_contents", "_made")

    def __init__(self) -> None:
        self._made: dict[tuple[int, str, bool], tuple[PluginStatus, int]] = {}
        self._contents: dict[tuple[str, str, tuple[str, ...]], int] = {}

    def of(self, plugin: str, status: Status, with_evidence: bool = True) -> tuple[PluginStatus, int]:
        key = (id(status), plugin, with_evidence)
        made = self._made.get(key)
        if made is None:
            entry = plugin_status(plugin, status, with_evidence)
            content = (entry.plugin, entry.status.value, tuple(entry.reasons))
            made = self._made[key] = (entry, self._contents.setdefault(content, len(self._contents)))
        return made


def _nominated(verdict: NodeVerdict) -> list[NominatedPod]:
    return [NominatedPod(pod=pi.key, priority=pi.priority, requests=requests_text(pi)) for pi in verdict.nominated_pods]


def nodes_and_groups(
    verdicts: Iterable[NodeVerdict], scores: ScoreOutcome | None, grouped: VerdictGroups | None = None
) -> tuple[list[NodeReport], list[NodeGroup]]:
    """Each node's entry, in the order of VERDICTS (the scheduler's walk), and the nodes grouped by
    identical verdicts: feasibility, where the scheduler stops, and each filter's plugin, status
    and reasons, in order. Most nodes first; among groups of as many nodes, the one whose first
    node comes first. A group's nodes keep the entries' order. The statuses are read once per
    group of nodes sharing them (analysis/verdictgroups.py; GROUPED: those of VERDICTS when the
    caller has them), and each node gets its own entry, whose filters are its group's list."""
    verdicts = verdicts if isinstance(verdicts, list) else list(verdicts)
    grouped = VerdictGroups.of(verdicts, grouped)
    statuses = _Statuses()
    groups: dict[tuple[bool, int, tuple[int, ...]], list[NodeReport]] = {}
    made: list[tuple[list[PluginStatus], PluginStatus | None, list[NodeReport]]] = []
    for group in grouped.groups:
        verdict = group.verdict
        filters, tokens = [], []
        for name, st in verdict.filters.items():
            entry, token = statuses.of(name, st)
            filters.append(entry)
            tokens.append(token)
        ff = verdict.first_failure
        first, stop = statuses.of(ff.plugin, ff, with_evidence=False) if ff is not None else (None, -1)
        # Groups come in the order of their first nodes: so do the report's groups.
        made.append((filters, first, groups.setdefault((verdict.feasible, stop, tuple(tokens)), [])))
    entries: list[NodeReport] = []
    for verdict, index in zip(verdicts, grouped.of_node, strict=True):
        filters, first, members = made[index]
        name = verdict.name
        node = NodeReport(
            name=name,
            feasible=verdict.feasible,
            filters=filters,
            firstFailure=first,
            nominatedPods=_nominated(verdict) if verdict.nominated_pods else [],
            feasibleWithoutNominated=verdict.feasible_without_nominated,
            scores=[_score_entry(ps) for ps in scores.scores.get(name, [])] if scores is not None else [],
            totalScore=scores.totals.get(name) if scores is not None else None,
        )
        entries.append(node)
        members.append(node)
    # sorted() is stable: groups of as many nodes keep the order their first nodes came in.
    ordered = sorted(groups.values(), key=lambda members: -len(members))
    return entries, [_group(members) for members in ordered]


def _without_evidence(status: PluginStatus) -> PluginStatus:
    return PluginStatus(plugin=status.plugin, status=status.status, reasons=list(status.reasons))


def _group(members: list[NodeReport]) -> NodeGroup:
    first = members[0]
    ff = first.firstFailure
    return NodeGroup(
        count=len(members),
        nodes=[m.name for m in members],
        feasible=first.feasible,
        firstFailure=_without_evidence(ff) if ff is not None else None,
        filters=[_without_evidence(st) for st in first.filters],
    )
