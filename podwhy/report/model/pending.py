"""`podwhy pending`'s report (kind PendingReport): every Pending pod grouped by cause and owner,
and its exit code."""

from __future__ import annotations

from typing import Literal

import msgspec
from msgspec import UNSET, UnsetType

from podwhy.analysis.sizing import SizingOutcome
from podwhy.report.model.autoscaling import AutoscalingReport
from podwhy.report.model.common import (
    SchedulerVersion,
    SnapshotSummary,
    Suggestion,
    _Struct,
)
from podwhy.report.model.kueue import KUEUE_INCONCLUSIVE, KueuePendingGroup
from podwhy.report.model.notcreated import NotCreatedWorkload
from podwhy.verdict import ExitCode, Verdict


class GroupSizingNote(_Struct):
    """How the cluster-autoscaler question went for an Unschedulable group: `sized` (its suggestion
    says how many nodes), `noNodeShape` (no node of the cluster, even emptied, holds one of its
    pods), `noCount` (no number of added nodes holds them all), `stopped` (a bound stopped the
    search) or `skipped` (not tried: only the largest groups are sized, within one bound per run)."""

    outcome: SizingOutcome
    note: str


class PendingGroup(_Struct):
    """Pending pods with one cause and one owner."""

    verdict: Verdict
    cause: str
    # The controller (Deployment, StatefulSet, Job, ...), as "namespace/name (Kind)"; null for bare pods.
    owner: str | None
    count: int
    pods: list[str]
    details: list[str] = []
    # For Unschedulable groups: how many more nodes shaped like an existing one every pod of the
    # group needs, verified by placing them one after another as the scheduler would.
    suggestions: list[Suggestion] = []
    # For Unschedulable groups: how sizing went, and why there is no count when there is none.
    sizing: GroupSizingNote | None = None
    # For Unschedulable and WaitingForNode groups (the largest): the autoscalers' view of its first pod.
    autoscaling: AutoscalingReport | None = None


class CauseNodes(_Struct, kw_only=True):
    """The nodes that would hold every pod of one Unschedulable cause, found by placing them all
    together one after another (not per group figures added up)."""

    # As for a group (GroupSizingNote): `sized` when `count` more nodes shaped like `like` hold them all.
    outcome: SizingOutcome
    count: int | None = None
    like: str | None = None
    note: str


class PendingCauseSummary(_Struct, kw_only=True):
    """Pending pods of one verdict and cause, whatever their owner: `podwhy pending`'s summary."""

    verdict: Verdict
    # The one-line cause their groups share.
    cause: str
    # For Unschedulable causes (the largest): what keeps them off every node, one line per
    # blocking cause in plain words, as explain says them.
    blocking: list[str] = []
    count: int
    # Their controllers ("namespace/name (Kind)"), most pods first; `bare`: pods without one.
    owners: list[str]
    bare: int = 0
    # How many groups (one per owner) the cause spans.
    groups: int
    # For Unschedulable causes (the largest): the nodes that would hold them all.
    nodes: CauseNodes | None = None
    # The next step, in one line; `commands`: what to run for it, each whole.
    remedy: str = ""
    commands: list[str] = []


class PendingScope(_Struct):
    """The namespaces `podwhy pending` covered."""

    # The one namespace (-n, or the context's); null for every namespace (-A, or a dump without -n).
    namespace: str | None
    # How many namespaces that is (every namespace the snapshot shows, for all of them).
    namespaces: int
    # For every namespace when there is only one: its name.
    only: str | None = None
    # For one namespace: how many Pending pods other namespaces hold (-A shows them).
    elsewhere: int = 0
    # For one namespace without Pending pods: how many of those elsewhere are stuck, their verdicts
    # (the exit code is -A's), and the command that shows them.
    elsewhereStuck: int = 0  # noqa: N815
    elsewhereVerdicts: list[Verdict] = []  # noqa: N815
    allNamespaces: str | None = None  # noqa: N815


class PendingReport(_Struct, kw_only=True):
    """podwhy pending: every Pending pod, grouped by cause and owner, largest group first."""

    apiVersion: Literal["podwhy/v1"] = "podwhy/v1"  # noqa: N815
    kind: Literal["PendingReport"] = "PendingReport"
    total: int
    # Pending pods that will not start as things stand (all but those that fit now, those an
    # autoscaler is adding a node for, and Inconclusive ones).
    stuck: int
    # Pending pods waiting for a node an autoscaler is adding.
    waiting: int = 0
    # When no group has an autoscaler's view: that the snapshot shows none, or cannot tell.
    autoscalers: str | None = None
    # By verdict and cause, most pods first: said before the groups.
    summary: list[PendingCauseSummary] = []
    groups: list[PendingGroup]
    snapshot: SnapshotSummary
    scope: PendingScope
    # The emulated kube-scheduler release.
    scheduler: SchedulerVersion | None = None
    warnings: list[str] = []
    # What Kueue holds (Jobs and Workloads not admitted), by ClusterQueue and cause; only when the
    # snapshot holds Kueue's objects.
    kueue: list[KueuePendingGroup] | UnsetType = UNSET
    # The workloads whose controller cannot create pods now (its FailedCreate events, newest
    # first): said in the summary as a cause of their own; only when there is one.
    notCreated: list[NotCreatedWorkload] | UnsetType = UNSET  # noqa: N815

    def shown_groups(self) -> list[list[PendingGroup]]:
        """The groups as the table and markdown show them: groups alike but for their owner and
        pods (one verdict, cause, details, sizing and autoscaling, and no suggestion of their own)
        together, at the place of the first of them. A group whose cause the summary sizes is
        sized there, once: its own sizing is not what tells it apart."""
        shown: dict[str, list[PendingGroup]] = {}
        for i, group in enumerate(self.groups):
            covered = self.sized_by_cause(group)
            alike = (
                str(i)
                if self.own_suggestions(group)
                else msgspec.json.encode(
                    [group.verdict, group.cause, group.details, None if covered else group.sizing, group.autoscaling]
                ).decode()
            )
            shown.setdefault(alike, []).append(group)
        return list(shown.values())

    def sized_by_cause(self, group: PendingGroup) -> bool:
        """Whether the summary sizes the group's cause (one sizing for every group of it)."""
        index = self.cause_of(group)
        return index is not None and self.summary[index].nodes is not None

    def own_suggestions(self, group: PendingGroup) -> list[Suggestion]:
        """A group's suggestions but its sizing when the summary sizes its cause (a lever of its
        node group stays its own)."""
        if not self.sized_by_cause(group):
            return group.suggestions
        return [s for s in group.suggestions if s.kind != "addNodesForGroup"]

    def cause_of(self, group: PendingGroup) -> int | None:
        """The index of the group's cause in the summary."""
        return next(
            (i for i, c in enumerate(self.summary) if c.verdict == group.verdict and c.cause == group.cause), None
        )

    @property
    def exit_code(self) -> int:
        """1 when a pod is known to be stuck, else 3 when a pod's verdict is Inconclusive, else 4
        when a pod waits for a node an autoscaler is adding, else 0. One namespace without Pending
        pods exits as -A would (its first line leads with the others). A workload whose pods
        are not being created is stuck (1)."""
        if self.notCreated is not UNSET and self.notCreated:
            return int(ExitCode.NOT_SCHEDULED)
        held = [] if self.kueue is UNSET else [g for g in self.kueue if not g.admitted]
        if held:  # Kueue holds a Job: stuck (1), unless only what was not evaluated holds them
            kueue = {Verdict.INCONCLUSIVE if g.cause in KUEUE_INCONCLUSIVE else Verdict.GATED for g in held}
            return pending_exit_code({group.verdict for group in self.groups} | kueue)
        if not self.groups and self.scope.elsewhereVerdicts:
            return pending_exit_code(set(self.scope.elsewhereVerdicts))
        return pending_exit_code({group.verdict for group in self.groups})


def pending_exit_code(verdicts: set[Verdict]) -> int:
    """`pending`'s exit code for Pending pods of these verdicts."""
    if verdicts - {Verdict.SCHEDULABLE, Verdict.INCONCLUSIVE, Verdict.WAITING_FOR_NODE}:
        return int(ExitCode.NOT_SCHEDULED)
    if Verdict.INCONCLUSIVE in verdicts:
        return int(ExitCode.INCONCLUSIVE)
    return int(ExitCode.WAITING_FOR_NODE if Verdict.WAITING_FOR_NODE in verdicts else ExitCode.OK)
