"""Every Pending pod of a snapshot, classified by why it is Pending.

A Pending pod is not always unscheduled: it may be gated, ignored by every profile, nominated
and waiting for its victims, or bound with containers that do not start. Unscheduled pods run
the scheduling cycle; the snapshot is indexed once for all of them, and pods of one owner with
identical specs are evaluated once.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from podwhy.analysis.autoscaling.analysis import analyse, autoscalers
from podwhy.analysis.autoscaling.base import Autoscaler
from podwhy.analysis.autoscaling.events import newest_record
from podwhy.analysis.autoscaling.facts import AutoscalingAnalysis, ComingNode
from podwhy.analysis.bound import CREATING_EVENT_REASONS, bound_not_running
from podwhy.analysis.causes import (
    Cause,
    Detail,
    FitsNow,
    GatedSince,
    NominatedNodeGone,
    NominatedStale,
    NoProfile,
    NoScheduler,
    OnceOneRuns,
    PartlyEvaluated,
    SchedulerMessageDetail,
    SchedulerPodDown,
    WaitingForNode,
    WillPreempt,
)
from podwhy.analysis.events import events_of
from podwhy.analysis.nominations import (
    ReservedRoom,
    fits_without,
    lower_priority_victims,
    nominated_cause,
    reserved_cause,
    reserved_room,
    will_preempt,
)
from podwhy.analysis.owners import Owner, owner_of, replica_set_index, spec_signature
from podwhy.cluster.placementreasons import Gated, SchedulerSays
from podwhy.framework.profile import Profile
from podwhy.framework.runtime import Framework
from podwhy.framework.types import PodInfo
from podwhy.heap import gc_deferred
from podwhy.model import objects as o
from podwhy.model import records
from podwhy.model.wellknownnames import DEFAULT_SCHEDULER_NAME
from podwhy.scheduler.config import SchedulerConfig, profile_for_pod
from podwhy.scheduler.cycle import FIRST_FIT, FITS, CycleOutcome, make_framework, run_cycle
from podwhy.scheduler.schedulers import SchedulerFinding, SchedulerPods
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict

# Pending pods are grouped by verdict, cause and owner ("namespace/name (Kind)"); `pending`'s
# summary takes them by verdict and cause, every owner together.
GroupKey = tuple[str, Cause, str | None]


CauseKey = tuple[str, Cause]


# How the report orders groups of one size: by the words of their cause (report/words/pending.py's
# cause_text), so that the largest groups analysed first are the first the report shows.
CauseOrder = Callable[[Cause], str]


class PendingPod(msgspec.Struct):
    pod: o.Pod
    verdict: Verdict
    # What pods are grouped by (for unscheduled pods: the scheduler's message).
    cause: Cause
    owner: Owner | None
    details: list[Detail] = msgspec.field(default_factory=list)
    # The scheduling cycle, when one ran (shared by identical pods of one owner).
    cycle: CycleOutcome | None = None

    @property
    def key(self) -> str:
        return f"{self.pod.metadata.namespace}/{self.pod.metadata.name}"

    @property
    def group_key(self) -> GroupKey:
        """Pods are reported in groups of one verdict, cause and owner."""
        return str(self.verdict), self.cause, str(self.owner) if self.owner is not None else None

    @property
    def cause_key(self) -> CauseKey:
        """`pending`'s summary: pods of one verdict and cause, whatever their owner."""
        return str(self.verdict), self.cause


def is_pending(pod: o.Pod) -> bool:
    return pod.status.phase in ("Pending", "") and pod.metadata.deletion_timestamp is None


def pending_group(snapshot: Snapshot, pod: o.Pod) -> tuple[Owner | None, list[o.Pod]]:
    """The pod's pending group: the unscheduled Pending pods of its owner with identical specs,
    itself included ([] for a pod that is not one of the snapshot's, or has no owner)."""
    if pod.spec.node_name or not any(p is pod for p in snapshot.pods):
        return None, []
    replica_sets = replica_set_index(snapshot)
    owner = owner_of(pod, snapshot, replica_sets)
    if owner is None:
        return None, []
    signature = spec_signature(pod)
    members = [
        p
        for p in snapshot.pods
        if p.metadata.namespace == pod.metadata.namespace
        and not p.spec.node_name
        and is_pending(p)
        and owner_of(p, snapshot, replica_sets) == owner
        and spec_signature(p) == signature
    ]
    return owner, members


class _Evaluated(msgspec.Struct):
    """One scheduling cycle's verdict and message, shared by identical pods of one owner."""

    cycle: CycleOutcome
    # For a pod nominated to a node where terminating victims still hold room: whether it fits
    # there once they are gone (None: no such victims).
    fits_once_victims_gone: bool | None = None
    # Nodes it fits on but for nominated pods' room (only from a cycle that ran every plugin).
    reserved: ReservedRoom | None = None
    # Where the scheduler's preemption places it, and whom it preempts there.
    preempts: WillPreempt | None = None


class _Classifier:
    """Classifies the Pending pods of one snapshot; indexes and scheduler pods are built once."""

    def __init__(
        self,
        snapshot: Snapshot,
        config: SchedulerConfig,
        frameworks: dict[str, Framework] | None = None,
        scalers: list[Autoscaler] | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.config = config
        self.nodes = {n.metadata.name: n for n in snapshot.nodes}
        self.replica_sets = replica_set_index(snapshot)
        self.names = frozenset(p.scheduler_name for p in config.profiles)
        self.frameworks: dict[str, Framework] = frameworks if frameworks is not None else {}
        self.evaluated: dict[tuple[str, bytes], _Evaluated] = {}
        self._scheduler_pods: SchedulerPods | None = None
        self._findings: dict[str, SchedulerFinding] = {}
        self._terminating: dict[str, list[o.Pod]] | None = None
        self._nominated_nodes: dict[str, list[str]] = {}
        # The autoscalers the snapshot shows, and the time ages are measured to.
        self.autoscalers = scalers if scalers is not None else autoscalers(snapshot)
        self.now = newest_record(snapshot)[0] if self.autoscalers else None

    def events(self, pod: o.Pod) -> list[o.Event]:
        """The events that explain a container still being created, naming this pod (indexed once)."""
        return events_of(self.snapshot).of_pod(pod, reasons=CREATING_EVENT_REASONS)

    def terminating(self, node_name: str) -> list[o.Pod]:
        """Pods being deleted from a node that still hold its room (indexed once)."""
        if self._terminating is None:
            self._terminating = {}
            for p in self.snapshot.pods:
                if p.metadata.deletion_timestamp is not None and p.spec.node_name:
                    if p.status.phase not in ("Succeeded", "Failed"):
                        self._terminating.setdefault(p.spec.node_name, []).append(p)
        return self._terminating.get(node_name, [])

    def finding(self, scheduler_name: str) -> SchedulerFinding:
        """What the snapshot's scheduler pods say about one schedulerName (found on first need)."""
        if self._scheduler_pods is None:
            self._scheduler_pods = SchedulerPods.of(self.snapshot.pods)
        found = self._findings.get(scheduler_name)
        if found is None:
            found = self._findings[scheduler_name] = self._scheduler_pods.for_name(scheduler_name)
        return found

    def classify(self, pod: o.Pod) -> PendingPod:
        owner = owner_of(pod, self.snapshot, self.replica_sets)
        if pod.spec.node_name:
            cause, details = bound_not_running(pod, self.events(pod), self.nodes)
            return PendingPod(pod, Verdict.BOUND_NOT_RUNNING, cause, owner, details)
        wanted = pod.spec.scheduler_name or DEFAULT_SCHEDULER_NAME
        finding = self.finding(wanted)
        profile = profile_for_pod(self.config, pod)
        if profile is None:
            note = finding if not finding.none_running else None
            item = PendingPod(pod, Verdict.NO_PROFILE, NoProfile(wanted, note), owner)
        else:
            item = self._scheduled(pod, profile, owner)
        if finding.none_running:
            # Nothing runs that would schedule it: that comes first; what the plugins would
            # decide once a scheduler runs again follows.
            hints: list[Detail] = [SchedulerPodDown(sp) for sp in finding.serving]
            if item.verdict != Verdict.NO_PROFILE:
                hints.append(OnceOneRuns(item.verdict, item.cause))
            return PendingPod(
                pod, Verdict.NO_SCHEDULER, NoScheduler(wanted, finding), owner, hints + item.details, item.cycle
            )
        return item

    def seed(self, pod: o.Pod, cycle: CycleOutcome, framework: Framework) -> None:
        """Take a cycle already run for `pod` (explain's, every plugin on every node) instead of
        running one: the same facts, plus the nodes nominated pods' room alone keeps it off."""
        self.frameworks.setdefault(framework.profile.scheduler_name, framework)
        owner = owner_of(pod, self.snapshot, self.replica_sets)
        self.evaluated[self._key(pod, owner)] = _Evaluated(
            cycle, self._fits_once_gone(pod, framework, cycle), reserved_room(cycle), will_preempt(cycle)
        )

    @staticmethod
    def _key(pod: o.Pod, owner: Owner | None) -> tuple[str, bytes]:
        return (str(owner) if owner is not None else pod.metadata.uid or pod.metadata.name, spec_signature(pod))

    def _fits_once_gone(self, pod: o.Pod, framework: Framework, cycle: CycleOutcome) -> bool | None:
        nominated = pod.status.nominated_node_name
        if nominated in self.nodes and not cycle.nominated_node_fits:
            victims = lower_priority_victims(pod, self.terminating(nominated))
            if victims:
                return fits_without(framework, cycle, nominated, victims)
        return None

    def _reserved_room(self, pod: o.Pod, framework: Framework, cycle: CycleOutcome) -> ReservedRoom | None:
        """Without every plugin's row on every node (the short-circuit cycle), the nodes only
        nominated pods' room keeps the pod off: the pod scheduled again with those nominations
        released (only when some reserve room on a node; the indexes are shared)."""
        priority, uid = cycle.pod.priority, cycle.pod.uid
        holding: dict[str, list[PodInfo]] = {}
        nominated = self._nominated_nodes.get(framework.profile.scheduler_name)
        if nominated is None:
            # Nodes some pod is nominated to, found once per profile.
            nominated = [n for n in self.nodes if framework.handle.nominated_pods_for_node(n)]
            self._nominated_nodes[framework.profile.scheduler_name] = nominated
        for name in nominated:
            counted = [
                pi for pi in framework.handle.nominated_pods_for_node(name) if pi.priority >= priority and pi.uid != uid
            ]
            if counted:
                holding[name] = counted
        if not holding:
            return None
        uids = frozenset(pi.uid for pods in holding.values() for pi in pods)
        released = framework.on(framework.handle.without_nominations(uids))
        again = run_cycle(
            self.snapshot,
            pod,
            framework=released,
            extenders=self.config.extenders,
            options=FITS,
        )
        fits = [name for name in (again.outcome.feasible if again.outcome is not None else []) if name in holding]
        if not fits:
            return None
        return ReservedRoom(fits, {pi.key: pi.priority for name in fits for pi in holding[name]})

    def coming(self, pod: o.Pod) -> ComingNode | None:
        """The node an autoscaler is adding for the pod, still within its timeout."""
        for scaler in self.autoscalers:
            coming = scaler.coming(pod, self.now)
            if coming is not None and not coming.overdue:
                return coming
        return None

    def _scheduled(self, pod: o.Pod, profile: Profile, owner: Owner | None) -> PendingPod:
        if profile.scheduler_name not in self.frameworks:
            self.frameworks[profile.scheduler_name] = make_framework(self.snapshot, profile, self.names)
        framework = self.frameworks[profile.scheduler_name]
        key = self._key(pod, owner)
        evaluated = self.evaluated.get(key)
        if evaluated is None:
            # Why a pod is Pending needs neither scores nor every plugin's row: the scheduler's own
            # short-circuit gives the same verdict and message at a fraction of the cost.
            # For the same reason one feasible node settles it: the scheduler stops there too when
            # nothing scores, and it tries the nominated node first.
            # The cycle's per-node verdicts are dropped before the collector is back on, so it
            # never scans them.
            with gc_deferred():
                full = run_cycle(
                    self.snapshot,
                    pod,
                    framework=framework,
                    extenders=self.config.extenders,
                    options=FIRST_FIT,
                )
                fits_once_gone = self._fits_once_gone(pod, framework, full)
                reserved = None
                if full.verdict == Verdict.UNSCHEDULABLE and not pod.status.nominated_node_name:
                    reserved = self._reserved_room(pod, framework, full)
                preempts = will_preempt(full)
                # Keep the verdict and message only: per-node rows of many pods would not fit in memory.
                cycle = records.replace(full, outcome=None, scores=None, post_filter=None)
                del full
            evaluated = self.evaluated[key] = _Evaluated(cycle, fits_once_gone, reserved, preempts)
        return self._from_cycle(pod, owner, evaluated)

    def _from_cycle(self, pod: o.Pod, owner: Owner | None, evaluated: _Evaluated) -> PendingPod:
        cycle = evaluated.cycle
        gates = [g.name for g in pod.spec.scheduling_gates]
        if gates:
            return PendingPod(pod, Verdict.GATED, Gated(tuple(gates)), owner, _gated_since(pod), cycle)
        nominated = pod.status.nominated_node_name
        if nominated:
            stale: Cause
            details: list[Detail] = []
            if nominated not in self.nodes:
                stale = NominatedNodeGone(nominated)
            else:
                victims = lower_priority_victims(pod, self.terminating(nominated))
                stale, details = nominated_cause(
                    pod, victims, cycle.nominated_node_fits, evaluated.fits_once_victims_gone
                )
            if isinstance(stale, NominatedNodeGone | NominatedStale) and evaluated.preempts is not None:
                # A stale nomination the scheduler replaces on its next attempt by preempting: that
                # is the pod's fate, said with it.
                stale = records.replace(stale, then=evaluated.preempts)
            return PendingPod(pod, Verdict.NOMINATED, stale, owner, details, cycle)
        cause: Cause
        if cycle.verdict == Verdict.SCHEDULABLE:
            cause = FitsNow()
        elif cycle.verdict == Verdict.UNSCHEDULABLE and evaluated.preempts is not None:
            # What the scheduler does next: no node, eviction or autoscaler is needed for it.
            return PendingPod(pod, cycle.verdict, evaluated.preempts, owner, cycle=cycle)
        elif cycle.verdict == Verdict.UNSCHEDULABLE and evaluated.reserved is not None:
            reserved, held = reserved_cause(evaluated.reserved)
            held.append(SchedulerMessageDetail(cycle.message))
            return PendingPod(pod, cycle.verdict, reserved, owner, held, cycle)
        elif cycle.verdict == Verdict.UNSCHEDULABLE:
            coming = self.coming(pod)
            if coming is not None:
                return PendingPod(
                    pod,
                    Verdict.WAITING_FOR_NODE,
                    coming_cause(coming),
                    owner,
                    [SchedulerMessageDetail(cycle.message)],
                    cycle,
                )
            cause = SchedulerSays(cycle.message)
        elif cycle.verdict == Verdict.INCONCLUSIVE and cycle.not_evaluated is not None:
            cause = PartlyEvaluated(cycle.not_evaluated)
        else:
            cause = SchedulerSays(cycle.message or str(cycle.verdict))
        return PendingPod(pod, cycle.verdict, cause, owner, cycle=cycle)


def coming_cause(coming: ComingNode) -> WaitingForNode:
    """The cause of a pod waiting for a node (grouped by it, so without its age)."""
    return WaitingForNode(coming.autoscaler, coming.group, coming.evidence)


def _gated_since(pod: o.Pod) -> list[Detail]:
    """When the gates began to hold the pod: its SchedulingGated condition, else its creation."""
    condition = next(
        (c for c in pod.status.conditions if c.type == "PodScheduled" and c.reason == "SchedulingGated"), None
    )
    since = (condition.last_transition_time if condition is not None else None) or pod.metadata.creation_timestamp
    return [GatedSince(since)] if since else []


def classify_pending(
    snapshot: Snapshot,
    config: SchedulerConfig,
    namespace: str | None = None,
    frameworks: dict[str, Framework] | None = None,
    scalers: list[Autoscaler] | None = None,
) -> list[PendingPod]:
    """Every Pending pod (of `namespace`, or all), each with why it is Pending. `frameworks` (per
    profile name, over `snapshot`) are used and filled with the indexes built, for the caller to
    reuse: classifying leaves them as they were built. `scalers`: autoscalers() of the snapshot,
    when the caller made them."""
    classifier = _Classifier(snapshot, config, frameworks, scalers)
    return [
        classifier.classify(pod)
        for pod in snapshot.pods
        if is_pending(pod) and (namespace is None or pod.metadata.namespace == namespace)
    ]


def classify_pod(
    snapshot: Snapshot,
    config: SchedulerConfig,
    pod: o.Pod,
    cycle: CycleOutcome | None = None,
    framework: Framework | None = None,
    scalers: list[Autoscaler] | None = None,
) -> PendingPod | None:
    """How `podwhy pending` classifies one pod of the snapshot (None when it is not Pending), for
    `explain` to say first. `cycle`: the pod's own full cycle under `framework`, when the caller
    ran one (it is taken as it is; nodes only nominated pods' room keeps it off are found from it)."""
    if not is_pending(pod):
        return None
    classifier = _Classifier(snapshot, config, scalers=scalers)
    if cycle is not None and framework is not None and cycle.outcome is not None:
        classifier.seed(pod, cycle, framework)
    return classifier.classify(pod)


# Groups of Pending pods whose first pod gets the autoscalers' full view (each runs the scheduler's
# filters on every node group's template node): the largest ones.
MAX_GROUPS_AUTOSCALED = 10


def analyse_groups(
    snapshot: Snapshot,
    pending: list[PendingPod],
    config: SchedulerConfig,
    frameworks: dict[str, Framework],
    scalers: list[Autoscaler] | None = None,
    *,
    cause_order: CauseOrder,
) -> dict[GroupKey, AutoscalingAnalysis]:
    """Per group of Unschedulable or WaitingForNode pods (PendingPod.group_key), the largest
    MAX_GROUPS_AUTOSCALED, the autoscalers' view of its first pod (groups of one size in the
    report's order: `cause_order`)."""
    scalers = scalers if scalers is not None else autoscalers(snapshot)
    firsts: dict[GroupKey, PendingPod] = {}
    sizes: dict[GroupKey, int] = {}
    for item in pending:
        if item.verdict not in (Verdict.UNSCHEDULABLE, Verdict.WAITING_FOR_NODE) or item.cycle is None:
            continue
        firsts.setdefault(item.group_key, item)
        sizes[item.group_key] = sizes.get(item.group_key, 0) + 1
    out: dict[GroupKey, AutoscalingAnalysis] = {}
    for key in sorted(firsts, key=lambda k: (-sizes[k], cause_order(k[1]), k[2] or ""))[:MAX_GROUPS_AUTOSCALED]:
        item = firsts[key]
        profile = profile_for_pod(config, item.pod)
        if profile is None or item.cycle is None:
            continue
        framework = frameworks.get(profile.scheduler_name)
        if framework is None:
            names = frozenset(p.scheduler_name for p in config.profiles)
            framework = frameworks[profile.scheduler_name] = make_framework(snapshot, profile, names)
        out[key] = analyse(snapshot, item.pod, item.cycle, framework, scalers)
        if not scalers:
            break  # no autoscaler: every group's view is the same, said once for the report
    return out
