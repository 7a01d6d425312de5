"""What every kind of suggestion shares: the verified change, the verifier that re-runs the
scheduling cycle on changed copies, its bounds, and small helpers on node verdicts."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from podwhy.analysis.autoscaling.facts import AutoscalingAnalysis
from podwhy.analysis.owners import ReplicaSetIndex, owner_of
from podwhy.analysis.suggest.facts import Suggestion
from podwhy.analysis.suggest.notes import Note
from podwhy.analysis.suggest.patches import _source_document, typed_document
from podwhy.analysis.verdictgroups import VerdictGroups
from podwhy.framework.profile import Profile
from podwhy.framework.runtime import Framework
from podwhy.model import objects as o
from podwhy.plugins import names
from podwhy.scheduler.config import SchedulerConfig
from podwhy.scheduler.cycle import CycleOutcome, make_framework, run_cycle
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict

if TYPE_CHECKING:
    from podwhy.analysis.suggest.nominations import _Nomination


MAX_SUGGESTIONS = 5
# Candidates tried per kind, and re-runs in all: each re-run filters every node.
MAX_TRIES_PER_KIND = 3
MAX_RERUNS = 16
# Changes to nodes or pods re-index the snapshot (seconds at thousands of nodes): above these
# sizes only changes to the pod are tried.
MAX_PODS_FOR_CLUSTER_CHANGES = 20_000
MAX_NODES_FOR_CLUSTER_CHANGES = 1_000
# No re-run starts after this long: one re-run filters every node (about 1 s at 5,000 nodes).
# Small clusters never reach it, so their suggestions do not depend on the machine's speed.
TIME_BUDGET_SECONDS = 5.0

RESOURCE_FIT = names.NODE_RESOURCES_FIT
TAINT_TOLERATION = names.TAINT_TOLERATION
NODE_AFFINITY = names.NODE_AFFINITY
TOPOLOGY_SPREAD = names.POD_TOPOLOGY_SPREAD
INTER_POD_AFFINITY = names.INTER_POD_AFFINITY
MI = 1024 * 1024


class _Verifier(msgspec.Struct):
    """Re-runs the cycle on changed copies, within the bounds above."""

    snapshot: Snapshot
    pod: o.Pod
    profile: Profile
    scheduler_names: frozenset[str] | None
    framework: Framework | None = None
    reruns: int = 0
    started: float = msgspec.field(default_factory=time.monotonic)
    document: dict[str, Any] | None = None
    # The pod's pending group (pods of its owner with identical specs, itself included) and the
    # configuration to place them with.
    group: Sequence[o.Pod] = ()
    group_owner: str | None = None
    config: SchedulerConfig | None = None
    release_options: list[tuple[bool, int, str, list[_Nomination]]] | None = None
    released: bool = False
    # Changes not looked for because a bound stopped the search, said in the report.
    notes: list[Note] = msgspec.field(default_factory=list)
    # The path of the manifest the pod was given in (`explain -f`; '-': stdin): not in the cluster.
    manifest: str | None = None
    # The snapshot's bound pods by node, built when first needed.
    pods_by_node: dict[str, list[o.Pod]] | None = None
    # The autoscalers' view of the pod (its levers are suggested too), and the suggestions made so
    # far (a group sizing's node count says how far to raise a node group's max size).
    autoscaling: AutoscalingAnalysis | None = None
    earlier: list[Suggestion] = msgspec.field(default_factory=list)
    # The cycle's node verdicts grouped by their shared statuses, and the snapshot's nodes by
    # name, built when first needed (groups_of, nodes_by_name).
    grouped: VerdictGroups | None = None
    named: dict[str, o.Node] | None = None

    @property
    def exhausted(self) -> bool:
        return self.reruns >= MAX_RERUNS or time.monotonic() - self.started > TIME_BUDGET_SECONDS

    @property
    def cluster_changes_allowed(self) -> bool:
        return (
            len(self.snapshot.pods) <= MAX_PODS_FOR_CLUSTER_CHANGES
            and len(self.snapshot.nodes) <= MAX_NODES_FOR_CLUSTER_CHANGES
        )

    def _feasible(self, cycle: CycleOutcome) -> list[str] | None:
        """The nodes the plugins accept the changed pod on. A fit left Inconclusive only by what
        admission might do (the snapshot lacks LimitRanges or ResourceQuotas) counts: the pod
        itself carries the same doubt, and the report says it once."""
        if cycle.outcome is None:
            return None
        doubt_only = cycle.fit_unknown and not cycle.outcome.not_evaluated
        if cycle.verdict != Verdict.SCHEDULABLE and not (cycle.verdict == Verdict.INCONCLUSIVE and doubt_only):
            return None
        return list(cycle.outcome.feasible)

    def with_pod(self, pod: o.Pod) -> list[str] | None:
        """The feasible nodes for a changed pod, None when it still does not fit."""
        if self.exhausted:
            return None
        self.reruns += 1
        return self._feasible(run_cycle(self.snapshot, pod, framework=self._framework()))

    def with_snapshot(self, snapshot: Snapshot) -> list[str] | None:
        """The feasible nodes for the pod in a changed cluster."""
        if self.exhausted or not self.cluster_changes_allowed:
            return None
        self.reruns += 1
        return self._feasible(run_cycle(snapshot, self.pod, self.profile, scheduler_names=self.scheduler_names))

    def _framework(self) -> Framework:
        if self.framework is None:
            self.framework = make_framework(self.snapshot, self.profile, self.scheduler_names)
        return self.framework

    def without_nominations(self, uids: frozenset[str]) -> list[str] | None:
        """The feasible nodes once those pods' nominations are released. Only the nominated pods
        differ, so the snapshot's indexes are shared: no re-index, at any cluster size."""
        if self.exhausted:
            return None
        self.reruns += 1
        framework = self._framework().on(self._framework().handle.without_nominations(uids))
        return self._feasible(run_cycle(self.snapshot, self.pod, framework=framework))

    def cycle_of(self, pod: o.Pod) -> CycleOutcome | None:
        """Another pod's own scheduling cycle under this profile (None past the bounds)."""
        if self.exhausted:
            return None
        self.reruns += 1
        return run_cycle(self.snapshot, pod, framework=self._framework())

    def groups_of(self, cycle: CycleOutcome) -> VerdictGroups:
        """The node verdicts of CYCLE grouped by the Status objects they share (found once per cycle)."""
        assert cycle.outcome is not None
        self.grouped = VerdictGroups.of(cycle.outcome.nodes, self.grouped)
        return self.grouped

    def nodes_by_name(self) -> dict[str, o.Node]:
        """The snapshot's nodes by name (the last of a name, as a dict built in node order keeps)."""
        if self.named is None:
            self.named = {n.metadata.name: n for n in self.snapshot.nodes}
        return self.named

    def pod_document(self) -> dict[str, Any]:
        """The pod as its source held it (fields the typed model skips included) when the snapshot
        kept it, else its typed encoding."""
        if self.document is None:
            self.document = _source_document(self.snapshot, self.pod) or typed_document(self.pod)
        return self.document


def _workload(pod: o.Pod, snapshot: Snapshot, replica_sets: ReplicaSetIndex | None = None) -> str:
    """`namespace/name (Kind)` of the pod's owning workload, or `namespace/name (bare pod)`."""
    owner = owner_of(pod, snapshot, replica_sets)
    return str(owner) if owner is not None else f"{pod.metadata.namespace}/{pod.metadata.name} (bare pod)"
