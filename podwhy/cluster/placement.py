"""Place the replicas of manifests onto a snapshot, one after another, as the scheduler would.

Each replica runs one scheduling cycle; a replica that fits is bound to the best-scoring node
(kube-scheduler picks one of the tied top nodes at random: podwhy takes the first by name, so
the outcome is deterministic) and counted on that node, so the next replica sees its
resources, host ports, labels for spreading and affinity terms. The snapshot is indexed once
per profile; bound replicas are added to those indexes incrementally.

A DaemonSet gets one pod per node its controller would run it on (the template's required
node affinity and node selector match, and no NoSchedule/NoExecute taint goes untolerated),
each pinned to its node with the controller's `metadata.name` node affinity.

Claims go through what the PV controller and VolumeBinding's Reserve/PreBind do
(controllers/persistentvolume.py):
a replica's claims are created with it (StatefulSet claim templates, generic ephemeral
volumes), and once it is placed the PVs chosen for them are bound, so the next replica cannot
take them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import msgspec

from podwhy.cluster.apiserver.admission.attributes import AdmissionRefusalError
from podwhy.cluster.apiserver.admission.podtopologylabels import copy_topology_labels
from podwhy.cluster.apiserver.admission.resourcequota import admit_quota
from podwhy.cluster.controllers.daemonset import daemon_rolling_update
from podwhy.cluster.controllers.deployment import recreate, rolling_update
from podwhy.cluster.controllers.job import JobOutcome, JobShape, LiveJob, job_shape, job_sync
from podwhy.cluster.controllers.persistentvolume import ClaimBinder
from podwhy.cluster.controllers.replicaset import deletion_order, scale
from podwhy.cluster.controllers.resourceclaim import create_template_claims, release_claims, reserve_claims
from podwhy.cluster.controllers.revisions import same_template
from podwhy.cluster.controllers.rollout import ON_DELETE, RECREATE, Rollout, RolloutStatus, owned_by
from podwhy.cluster.controllers.statefulset import highest_ordinal_first, ordinal, running_and_ready
from podwhy.cluster.kubelet import admit
from podwhy.cluster.manifests import ManifestWorkload, daemon_pod_for_node
from podwhy.cluster.placementreasons import (
    BoundByNodeName,
    Gated,
    KubeletRejects,
    MissingNode,
    NoProfileNamed,
    NotCreated,
    OnceDeleted,
    OrderedWait,
    PlacedBut,
    PlacementReason,
    Preempted,
    SchedulerSays,
)
from podwhy.framework.preemption import Budget
from podwhy.framework.resources import is_extended_resource_name
from podwhy.framework.runtime import FilterOutcome, Framework, NodeVerdict, Reuse
from podwhy.framework.scoring import ScoreMemo
from podwhy.framework.signature import pod_signature
from podwhy.framework.status import Status
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.model import objects as o
from podwhy.plugins import names
from podwhy.plugins.registry import NODE_LOCAL_FILTERS, NODE_LOCAL_PARTS, NODE_LOCAL_SCORES
from podwhy.scheduler.config import SchedulerConfig, profile_for_pod
from podwhy.scheduler.cycle import CycleOptions, CycleOutcome, make_framework, no_profile, run_cycle
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.names import suffix
from podwhy.verdict import Verdict

TERMINAL_PHASES = ("Succeeded", "Failed")
# Filters whose verdict decides whether the DaemonSet controller creates a pod for a node.
DAEMON_PREDICATES = (names.NODE_AFFINITY, names.TAINT_TOLERATION)
# Tied nodes named per placed replica (thousands of equal nodes may tie; their count is kept).
MAX_TIED_NAMES = 10
# Pods being deleted named per replica that fits once they are gone (their count is kept).
MAX_DELETING_NAMES = 10


def _uses_devices(pod: o.Pod) -> bool:
    """Whether DynamicResources has anything to score for the pod: resource claims, or extended
    resources (which a DeviceClass may back, DRAExtendedResource)."""
    if pod.spec.resource_claims:
        return True
    containers = [*pod.spec.containers, *pod.spec.init_containers]
    return any(is_extended_resource_name(name) for c in containers for name in c.resources.requests)


def replica_signature(pod: o.Pod) -> bytes:
    """What a scheduling cycle's node-local plugins and the framework read of a pod: two replicas
    with the same signature get the same verdict and raw score from every plugin of
    NODE_LOCAL_FILTERS and NODE_LOCAL_SCORES on a node to which nothing was bound between their
    cycles. (Labels only matter to the plugins that count pods across nodes, whose verdicts are
    never reused.)"""
    return pod_signature(pod, NODE_LOCAL_PARTS)


@dataclass
class _Memo:
    """The Reuse of the last pod scheduled, for the next one if it is identical (see Reuse)."""

    profile: str
    signature: bytes
    reuse: Reuse


class KnownRejections:
    """Nodes known to reject pods of one spec, remembered while placing such pods one after another.

    A node that a filter of `static` rejects (one whose verdict reads only the pod and that node,
    as NODE_LOCAL_FILTERS do) rejects every pod of the same spec until a pod is bound to it, so it
    need not be filtered again until then (kube-scheduler once kept an equivalence cache for the
    same reason). Nodes where nominated pods were counted are not remembered. Only for pods with
    identical specs and labels, scheduled by one profile, of which the caller is sure.
    """

    def __init__(self, static: frozenset[str]) -> None:
        self.static = static
        self.verdicts: dict[str, NodeVerdict] = {}

    def learn(self, outcome: FilterOutcome) -> None:
        if outcome.pre_filter_failure is not None or outcome.error is not None:
            return
        known = self.verdicts
        for verdict in outcome.nodes:
            if verdict.name in known or verdict.feasible or verdict.nominated_pods:
                continue
            if any(name in self.static and st.is_rejected() for name, st in verdict.filters.items()):
                known[verdict.name] = verdict

    def forget(self, node: str) -> None:
        """A pod was bound to the node: its verdicts may change."""
        self.verdicts.pop(node, None)

    def copy(self) -> KnownRejections:
        out = KnownRejections(self.static)
        out.verdicts = dict(self.verdicts)
        return out


@dataclass
class ReplicaPlacement:
    pod: o.Pod
    verdict: Verdict
    # The node it was bound to; "" while it stays Pending.
    node: str = ""
    # Why it stays Pending (the scheduler's message), why it is not even created, or what its
    # placement carries; None: nothing to say.
    reason: PlacementReason | None = None
    # The nodes sharing the top score when more than one did (the tie was broken by name): the
    # first MAX_TIED_NAMES by name, and how many there were.
    tied: list[str] = field(default_factory=list)
    tied_count: int = 0
    # A StatefulSet (OrderedReady) ordinal that waits for an earlier one: never created.
    created: bool = True
    # The cycle of a replica left Pending (a placed one keeps only what the report needs of it:
    # a thousand cycles over thousands of nodes would hold every node's verdict and score).
    cycle: CycleOutcome | None = None
    # Kinds the snapshot holds none of that its cycle needed (see cycle.lacking_kinds).
    lacking_kinds: list[str] = field(default_factory=list)
    # A DaemonSet pod: the node its controller made it for.
    target_node: str = ""
    # The pods its preemption evicted from `node` (it was placed once they were gone), and the
    # PodDisruptionBudgets that broke.
    victims: list[o.Pod] = field(default_factory=list)
    violated_pdbs: list[str] = field(default_factory=list)
    # Set on a replica that was placed and then evicted by a later replica's preemption.
    preempted_by: str = ""
    # A replica left Pending that fits once the pods being deleted are gone (fits_once_deleted).
    once_deleted: OnceDeleted | None = None

    def __post_init__(self) -> None:
        if self.cycle is not None and not self.lacking_kinds:
            self.lacking_kinds = self.cycle.lacking_kinds

    @property
    def placed(self) -> bool:
        return bool(self.node)


@dataclass
class Displaced:
    """A pod of the cluster that preemption evicted during the check: its controller creates it
    again, and the replacement is scheduled after the check's own replicas (created later, it
    comes later in the queue)."""

    victim: o.Pod
    # The check's replica whose preemption evicted it ("namespace/name").
    preemptor: str
    replacement: ReplicaPlacement | None = None


@dataclass
class WorkloadPlacement:
    workload: ManifestWorkload
    replicas: list[ReplicaPlacement] = field(default_factory=list)
    # DaemonSet: nodes its controller would not run it on, with why.
    ineligible_nodes: dict[str, str] = field(default_factory=dict)
    # A workload the cluster already runs: what its controller's update does.
    rollout: Rollout | None = None


class Placer:
    """Schedules pods in turn over one snapshot, binding each one that fits."""

    def __init__(
        self,
        snapshot: Snapshot,
        config: SchedulerConfig,
        placement_only: bool = False,
        first_fit: bool = False,
        reuse: bool = True,
        preempt: bool = False,
    ) -> None:
        """`placement_only`: where each pod goes and nothing more. On each node the filters stop
        at the first rejection, as the scheduler's do, and no preemption dry run runs for a pod
        that stays Pending (the same placements; messages lack every plugin's verdict and the
        PostFilter part). `first_fit` (with `placement_only`): nothing is scored, a pod goes to the
        first node in the snapshot's order that fits, which is not where the scheduler puts it:
        only for counts that do not depend on which feasible node a pod takes. `reuse`: a pod
        identical to the one scheduled before it takes that cycle's verdicts and node-local scores
        of the nodes nothing was bound to since (see Reuse); off, every cycle starts afresh (the
        same placements, slower: tests compare the two). `preempt`: a pod that fits nowhere evicts
        the victims of its preemption dry run and is placed once they are gone (`check`)."""
        self.snapshot = snapshot
        self.config = config
        self.placement_only = placement_only or first_fit
        self.first_fit = first_fit
        # Where the pod goes is all a placement keeps of the scores: no per-plugin rows.
        self._cycle_options = CycleOptions(
            scoring=not first_fit,
            every_plugin=not self.placement_only,
            feasible_to_find=1 if first_fit else None,
            post_filter=not self.placement_only,
            score_rows=False,
        )
        self.names = frozenset(p.scheduler_name for p in config.profiles)
        self.frameworks: dict[str, Framework] = {}
        self.claims = ClaimBinder(snapshot)
        self._memo: _Memo | None = None
        self._reuse = reuse
        self._preempt_victims = preempt and not self.placement_only
        # The placement of every pod bound so far, by id (a victim of preemption may be one).
        self._placements: dict[int, ReplicaPlacement] = {}
        # The cluster's own pods preemption evicted, whose controllers create them again.
        self.displaced: list[Displaced] = []
        # Pods unbound but still in snapshot.pods (by id): dropped from it in one pass once they
        # are as many as the pods kept, or before anything reads it (see pods()).
        self._gone: set[int] = set()

    def pods(self) -> list[o.Pod]:
        """The snapshot's pods, without those unbound: what reads snapshot.pods while placing
        calls this first."""
        if self._gone:
            gone = self._gone
            self.snapshot.pods = [p for p in self.snapshot.pods if id(p) not in gone]
            self._gone = set()
        return self.snapshot.pods

    def _framework(self, pod: o.Pod) -> Framework | None:
        profile = profile_for_pod(self.config, pod)
        if profile is None:
            return None
        framework = self.frameworks.get(profile.scheduler_name)
        if framework is None:
            self.pods()
            framework = make_framework(self.snapshot, profile, self.names)
            self.frameworks[profile.scheduler_name] = framework
        return framework

    def schedule(self, pod: o.Pod, known: KnownRejections | None = None) -> ReplicaPlacement:
        """One scheduling cycle; when a node fits, bind the pod to the best one. `known`: nodes
        known to reject pods of this one's spec, which it learns from this cycle and where the pod
        goes (the caller keeps it for pods of one spec only)."""
        framework = self._framework(pod)
        if framework is None:
            cycle = no_profile(pod, self.config)
            wanted = cycle.scheduler_name
            return ReplicaPlacement(pod, cycle.verdict, reason=NoProfileNamed(wanted), cycle=cycle)
        reuse = self._reuse_for(pod, framework) if self._reuse else None
        cycle = run_cycle(
            self.snapshot,
            pod,
            framework=framework,
            extenders=self.config.extenders,
            options=self._cycle_options,
            settled=known.verdicts if known is not None else None,
            reuse=reuse,
        )
        if known is not None and cycle.outcome is not None:
            known.learn(cycle.outcome)
        if reuse is not None:
            self._learn(reuse, framework, cycle)
        if cycle.verdict == Verdict.GATED:
            return ReplicaPlacement(pod, cycle.verdict, reason=Gated(tuple(cycle.gates)), cycle=cycle)
        if cycle.verdict not in (Verdict.SCHEDULABLE, Verdict.INCONCLUSIVE) or cycle.outcome is None:
            preempted = self._preempt(pod, cycle, known)
            if preempted is not None:
                return preempted
            return ReplicaPlacement(pod, cycle.verdict, reason=SchedulerSays(cycle.message), cycle=cycle)
        best = sorted(cycle.scores.best_nodes if cycle.scores is not None else cycle.outcome.feasible)
        node = best[0]
        self.claims.assume_pod_volumes(framework, pod, node)
        reserve_claims(pod, node, cycle, self.snapshot)
        self.bind(pod, node)
        if known is not None:
            known.forget(node)
        unevaluated = cycle.not_evaluated if cycle.verdict != Verdict.SCHEDULABLE else None
        placed_but = PlacedBut(unevaluated) if unevaluated is not None else None
        tied = best[:MAX_TIED_NAMES] if len(best) > 1 else []
        tied_count = len(best) if tied else 0
        placed = ReplicaPlacement(
            pod, cycle.verdict, node, placed_but, tied, tied_count=tied_count, lacking_kinds=cycle.lacking_kinds
        )
        if self._preempt_victims:
            self._placements[id(pod)] = placed
        return placed

    def _reuse_for(self, pod: o.Pod, framework: Framework) -> Reuse:
        """The last pod's Reuse when this pod is identical to it, else a new, empty one."""
        signature = replica_signature(pod)
        memo = self._memo
        if memo is None or memo.profile != framework.profile.scheduler_name or memo.signature != signature:
            memo = self._memo = _Memo(framework.profile.scheduler_name, signature, Reuse())
            # DynamicResources scores a pod without devices 0 on every node.
            devices = () if _uses_devices(pod) else (names.DYNAMIC_RESOURCES,)
            memo.reuse.raw_scores = ScoreMemo([*sorted(NODE_LOCAL_SCORES), *devices])
        return memo.reuse

    @staticmethod
    def _learn(reuse: Reuse, framework: Framework, cycle: CycleOutcome) -> None:
        """Keep the verdicts of this cycle for the next identical pod when every filter read only
        the pod and the node (or was skipped, or could not be evaluated), as NODE_LOCAL_FILTERS do;
        nodes where nominated pods were counted are left out."""
        outcome = cycle.outcome
        if outcome is None or outcome.pre_filter_failure is not None or outcome.error is not None:
            reuse.verdicts.clear()
            return
        skips = frozenset(rec.plugin for rec in outcome.pre_filter if rec.status.is_skip())
        local = all(
            name in NODE_LOCAL_FILTERS or name in skips or name in outcome.not_evaluated
            for name in framework.profile.filter
            if name in framework.plugins and framework.plugins[name].implements("filter")
        )
        restricted = outcome.pre_filter_result is not None and outcome.pre_filter_result.node_names is not None
        if not local or restricted or not outcome.complete:
            reuse.verdicts.clear()
            return
        if skips != reuse.pre_filter_skips or frozenset(outcome.not_evaluated) != reuse.not_evaluated:
            reuse.verdicts.clear()
            reuse.pre_filter_skips, reuse.not_evaluated = skips, frozenset(outcome.not_evaluated)
        for verdict in outcome.nodes:
            if not verdict.nominated_pods:
                reuse.verdicts[verdict.name] = verdict

    def bind(self, pod: o.Pod, node: str) -> None:
        """spec.nodeName set and counted on the node by every profile's view of the cluster."""
        if self._memo is not None:
            self._memo.reuse.forget(node)
        pod.spec.node_name = node
        handle = next(iter(self.frameworks.values())).handle if self.frameworks else None
        if handle is not None:  # the Binding's admission: PodTopologyLabels
            info = handle.node_info_by_name.get(node)
            copy_topology_labels(pod, info.node if info is not None else None, handle.emulation)
        if id(pod) in self._gone:  # bound again: after the pods kept, as if unbound at once
            self.pods()
        self.snapshot.pods.append(pod)
        for framework in self.frameworks.values():
            framework.handle.add_bound_pod(pod)

    def _preempt(self, pod: o.Pod, cycle: CycleOutcome, known: KnownRejections | None) -> ReplicaPlacement | None:
        """DefaultPreemption as the scheduler carries it out (only when placing, not when sizing):
        the victims its PostFilter chose are evicted, the pod is nominated to that node and, once
        they are gone, scheduled again; None when there is nothing to preempt."""
        post = cycle.post_filter
        preemption = post.preemption if post is not None else None
        if not self._preempt_victims or preemption is None or not preemption.nominated_node or not preemption.victims:
            return None
        victims = [pi.pod for pi in preemption.victims]
        preemptor = f"{pod.metadata.namespace}/{pod.metadata.name}"
        for victim in victims:
            earlier = self._placements.pop(id(victim), None)
            if earlier is not None:  # a replica of this check, placed before
                earlier.reason = Preempted(earlier.node, preemptor, pod.spec.priority or 0)
                earlier.verdict, earlier.node, earlier.preempted_by = Verdict.UNSCHEDULABLE, "", preemptor
            elif any(ref.controller for ref in victim.metadata.owner_references):
                self.displaced.append(Displaced(victim, preemptor))
            self.unbind(victim)
            self._disrupted(victim)
        self._memo = None
        pod.status.nominated_node_name = preemption.nominated_node
        placed = self.schedule(pod, known)
        placed.victims = victims
        placed.violated_pdbs = list(preemption.violated_pdbs)
        return placed

    def _disrupted(self, victim: o.Pod) -> None:
        """The disruption controller's part once a victim is gone: every PodDisruptionBudget
        selecting it has one healthy pod fewer, so it allows one disruption fewer (never below
        0); the victim's replacement is Pending, not healthy. A later preemption sees that."""
        for pdb in self.snapshot.pod_disruption_budgets:
            budget = Budget.of(pdb)
            if budget.namespace != victim.metadata.namespace or budget.selector is None:
                continue
            if budget.selector.matches(victim.metadata.labels) and pdb.status.disruptions_allowed > 0:
                pdb.status.disruptions_allowed -= 1

    def unbind(self, pod: o.Pod) -> None:
        """The pod is gone from its node (evicted): no profile's view counts it any more, and
        its resource claims are released."""
        self._gone.add(id(pod))
        if 2 * len(self._gone) > len(self.snapshot.pods):
            self.pods()
        release_claims(pod, self.snapshot)
        for framework in self.frameworks.values():
            framework.handle.remove_bound_pod(pod)
        if self._memo is not None:
            self._memo.reuse.forget(pod.spec.node_name)

    def pin(self, pod: o.Pod) -> ReplicaPlacement:
        """A pod whose manifest names its node (spec.nodeName): the scheduler never sees it; that
        node's kubelet admits it (and it is counted there) or rejects it (the pod fails)."""
        node = pod.spec.node_name
        node_info = self._node_info(node)
        if node_info is None:
            return ReplicaPlacement(pod, Verdict.UNSCHEDULABLE, reason=MissingNode(node))
        rejection = admit(pod, node_info)
        if rejection is not None:
            reason = KubeletRejects(node, rejection.reason, rejection.message)
            return ReplicaPlacement(pod, Verdict.UNSCHEDULABLE, reason=reason)
        self.bind(pod, node)
        placed = ReplicaPlacement(pod, Verdict.SCHEDULABLE, node, BoundByNodeName())
        if self._preempt_victims:
            self._placements[id(pod)] = placed
        return placed

    def _node_info(self, name: str) -> NodeInfo | None:
        """The node as every profile sees it (with the pods placed so far), None if it does not exist."""
        if not any(n.metadata.name == name for n in self.snapshot.nodes):
            return None
        framework = next(iter(self.frameworks.values()), None)
        if framework is None:
            self.pods()
            framework = make_framework(self.snapshot, self.config.profiles[0], self.names)
            self.frameworks[self.config.profiles[0].scheduler_name] = framework
        return framework.handle.node_info_by_name.get(name)

    def daemon_nodes(self, template: o.Pod) -> tuple[list[str], dict[str, str]]:
        """The nodes the DaemonSet controller would create a pod for, and the others with why not."""
        framework = self._framework(template)
        names = sorted(n.metadata.name for n in self.snapshot.nodes)
        if framework is None:
            return names, {}
        outcome = framework.run_filters(PodInfo(template))
        eligible: list[str] = []
        ineligible: dict[str, str] = {}
        for verdict in sorted(outcome.nodes, key=lambda v: v.name):
            failed = [
                st for name in DAEMON_PREDICATES if (st := verdict.filters.get(name)) is not None and st.is_rejected()
            ]
            if failed:
                ineligible[verdict.name] = "; ".join(_reason(st) for st in failed)
            else:
                eligible.append(verdict.name)
        return eligible, ineligible


def _reason(status: Status) -> str:
    return f"{status.plugin}: {status.message()}"


@dataclass(frozen=True)
class PlaceProgress:
    """How far `check` is: replicas placed (or left Pending) of all, and the workload at hand
    ("" once every replica is done)."""

    done: int
    total: int
    workload: str


def place(
    snapshot: Snapshot,
    workloads: list[ManifestWorkload],
    config: SchedulerConfig,
    applied_claims: Sequence[o.PersistentVolumeClaim] = (),
    progress: Callable[[PlaceProgress], None] | None = None,
    displaced_out: list[Displaced] | None = None,
) -> list[WorkloadPlacement]:
    """Every workload's replicas in turn, each seeing those placed before it, in the order the
    scheduling queue takes pods created at once (PrioritySort): higher priority first, then creation
    order, the manifests' order (the placements come back in input order). APPLIED_CLAIMS: the
    manifests' own PVCs (already in the snapshot), bound first as the PV controller would bind them.
    DISPLACED_OUT gets the cluster's pods preemption evicted, each with its replacement's placement."""
    placer = Placer(snapshot, config, preempt=True)
    for claim in applied_claims:
        placer.claims.bind_if_immediate(claim)
    done: dict[int, WorkloadPlacement] = {}
    total = sum(len(w.pods) for w in workloads if w.daemon_template is None)
    placed = 0
    for index in sorted(range(len(workloads)), key=lambda i: -_priority(workloads[i])):
        workload = workloads[index]
        if progress is not None:
            progress(PlaceProgress(placed, total, workload.key))
        done[index] = _place_workload(placer, workload, snapshot)
        fits_once_deleted(placer, done[index].replicas)
        placed += len(workload.pods)
    for displaced in placer.displaced:
        displaced.replacement = placer.schedule(replacement_pod(displaced.victim))
    placer.pods()  # the snapshot as placing left it, for the report
    if displaced_out is not None:
        displaced_out.extend(placer.displaced)
    if progress is not None:
        progress(PlaceProgress(total, total, ""))
    return [done[i] for i in range(len(workloads))]


def fits_once_deleted(placer: Placer, replicas: Sequence[ReplicaPlacement]) -> None:
    """Which of REPLICAS the scheduler left Pending fit once the cluster's pods being deleted are
    gone. Such a pod (deletionTimestamp set) holds its room until its kubelet has stopped it and
    it is removed, as the scheduler sees it: the Pending replicas are scheduled again, in turn,
    each bound where it fits, on the cluster as placing left it without them (the placer's own
    view is not changed). Each that fits is told where, and which of them must leave."""
    stuck = [r for r in replicas if not r.placed and r.cycle is not None and r.cycle.verdict == Verdict.UNSCHEDULABLE]
    if not stuck:
        return
    pods = placer.pods()
    deleting = [
        p
        for p in pods
        if p.metadata.deletion_timestamp is not None and p.spec.node_name and p.status.phase not in TERMINAL_PHASES
    ]
    if not deleting:
        return
    gone = {id(p) for p in deleting}
    without = dataclasses.replace(placer.snapshot, pods=[p for p in pods if id(p) not in gone])
    frameworks: dict[str, Framework] = {}
    options = CycleOptions(every_plugin=False, post_filter=False, score_rows=False)
    for replica in stuck:
        profile = profile_for_pod(placer.config, replica.pod)
        if profile is None:
            continue
        framework = frameworks.get(profile.scheduler_name)
        if framework is None:
            framework = frameworks[profile.scheduler_name] = make_framework(without, profile, placer.names)
        pod = msgspec.structs.replace(replica.pod, spec=msgspec.structs.replace(replica.pod.spec))
        cycle = run_cycle(without, pod, framework=framework, extenders=placer.config.extenders, options=options)
        if cycle.verdict not in (Verdict.SCHEDULABLE, Verdict.INCONCLUSIVE) or cycle.outcome is None:
            continue
        node = sorted(cycle.scores.best_nodes if cycle.scores is not None else cycle.outcome.feasible)[0]
        freed = [p for p in deleting if p.spec.node_name == node] or deleting
        named = tuple(f"{p.metadata.namespace}/{p.metadata.name}" for p in freed[:MAX_DELETING_NAMES])
        replica.once_deleted = OnceDeleted(node, named, len(freed))
        pod.spec.node_name = node
        without.pods.append(pod)
        for each in frameworks.values():
            each.handle.add_bound_pod(pod)


def replacement_pod(victim: o.Pod) -> o.Pod:
    """The pod the victim's controller creates in its place: the same spec, not bound, a name of
    its own (its generateName, or its controller's name, with podwhy's deterministic suffix; a
    StatefulSet's ordinal keeps its name)."""
    meta = victim.metadata
    owner = next((ref for ref in meta.owner_references if ref.controller), None)
    if owner is not None and owner.kind == "StatefulSet":
        name = meta.name  # a StatefulSet creates the same ordinal again
    else:
        base = meta.generate_name or (f"{owner.name}-" if owner is not None else f"{meta.name}-")
        name = base + suffix(f"replacement/{meta.namespace}/{meta.name}")
    spec = msgspec.structs.replace(victim.spec, node_name="")
    return msgspec.structs.replace(
        victim,
        metadata=msgspec.structs.replace(meta, name=name, uid=f"uid-replacement-{meta.namespace}-{meta.name}"),
        spec=spec,
        status=o.PodStatus(phase="Pending"),
    )


def _priority(workload: ManifestWorkload) -> int:
    """The priority admission gave the workload's pods (they share their template's class)."""
    pod = workload.daemon_template if workload.daemon_template is not None else next(iter(workload.pods), None)
    return pod.spec.priority or 0 if pod is not None else 0


def _update(placer: Placer, workload: ManifestWorkload, snapshot: Snapshot) -> WorkloadPlacement:
    """A manifest that updates a workload the cluster runs: its controller's rollout (or scale),
    with each pod it creates scheduled as it is created and each pod it removes gone at once."""
    result = WorkloadPlacement(workload)
    old = workload.existing
    # Each new pod's latest placement (a Pending one is tried again as old pods go).
    latest: dict[int, ReplicaPlacement] = {}

    def place_one(pod: o.Pod) -> bool:
        refused = workload.refused.get(pod.metadata.name)
        if refused is not None:
            reason = NotCreated(refused)
            latest[id(pod)] = ReplicaPlacement(pod, Verdict.UNSCHEDULABLE, reason=reason, created=False)
            return False
        if id(pod) not in latest:
            for claim in workload.claims_for(pod, snapshot):
                placer.claims.create(claim)
            create_template_claims(pod, snapshot)
        replica = placer.schedule(pod)
        latest[id(pod)] = replica
        return replica.placed

    kind = workload.kind
    if kind == "DaemonSet":
        return _update_daemon(placer, workload, snapshot, result)
    place: Callable[[o.Pod], bool] = place_one
    if kind == "StatefulSet" and workload.ordered:
        place = _one_at_a_time(place_one, workload.existing, latest, snapshot)
    new = workload.pods
    # The stored template compared in full, or else the old pods as far as podwhy reads them.
    from_pods = workload.template_unchanged is None
    emulation = workload.emulation
    unchanged = bool(new) and same_template(old, new[0], emulation) if from_pods else bool(workload.template_unchanged)
    result.rollout = _update_pods(workload, old, new, unchanged, place, placer.unbind, snapshot)
    result.rollout.pods_compared = from_pods and unchanged
    # The new pods in the controller's order, then those a paused Deployment's old ReplicaSet adds.
    ours = {id(pod) for pod in new}
    result.replicas = [latest[id(pod)] for pod in new if id(pod) in latest]
    result.replicas += [replica for key, replica in latest.items() if key not in ours]
    return result


def _update_pods(
    workload: ManifestWorkload,
    old: list[o.Pod],
    new: list[o.Pod],
    unchanged: bool,
    place_one: Callable[[o.Pod], bool],
    remove: Callable[[o.Pod], None],
    snapshot: Snapshot,
) -> Rollout:
    """The rollout (or scale) of a workload that runs pods, by kind and strategy (UNCHANGED: the
    manifest leaves its template as it is)."""
    kind = workload.kind
    if kind == "Job":
        return _update_job(workload, old, new, unchanged, place_one, remove, snapshot)
    if unchanged or kind in ("ReplicaSet", "ReplicationController"):
        # Scaling only (a ReplicaSet's changed template applies only to the pods it adds).
        names = {p.metadata.name for p in old}
        fresh = [p for p in new if p.metadata.name not in names]
        order = highest_ordinal_first if kind == "StatefulSet" else deletion_order
        return scale(old, len(new), fresh, place_one, remove, order)
    if kind == "StatefulSet":
        return _statefulset_update(workload, old, new, place_one, remove)
    current = workload.current  # the new ReplicaSet's own pods (a rollback to a revision that kept some)
    if current:
        running = {id(p) for p in current}
        old = [p for p in old if id(p) not in running]
        new = new[: max(len(new) - len(current), 0)]
    if workload.paused:
        # sync(): no new ReplicaSet is created while paused; scale() sizes the old one, whose pods
        # are of the old template.
        fresh = [_old_template_pod(old, index) for index in range(max(len(new) - len(old), 0))]
        rollout = scale(old, len(new), fresh, place_one, remove)
        rollout.status = RolloutStatus.PAUSED
        return rollout
    if workload.strategy is not None and workload.strategy.type == RECREATE:
        rollout = recreate(old, new, place_one, remove)
    else:
        rollout = rolling_update(old, new, workload.strategy, place_one, remove, current)
    if workload.progress_deadline_seconds is not None:
        rollout.progress_deadline_seconds = workload.progress_deadline_seconds
    rollout.revision = workload.new_replica_set
    return rollout


def _update_job(
    workload: ManifestWorkload,
    old: list[o.Pod],
    new: list[o.Pod],
    unchanged: bool,
    place_one: Callable[[o.Pod], bool],
    remove: Callable[[o.Pod], None],
    snapshot: Snapshot,
) -> Rollout:
    """`kubectl apply` of a Job the cluster runs: refused as its validation refuses an update
    (job.job_update_refusal; without the stored template, a template that differs from its
    pods'), else the Job controller's sync with the new spec (job.job_sync)."""
    live = workload.live_job
    refusal = workload.job_refusal
    if not refusal and live is None and not unchanged:
        refusal = f'The Job "{workload.name}" is invalid: spec.template: field is immutable'
    if refusal:
        rollout = Rollout(RolloutStatus.IMMUTABLE, len(old))
        rollout.refusal = refusal
        return rollout
    shape = workload.job_shape or job_shape(o.WorkloadSpec())
    outcome = JobOutcome.RUNS
    if live is not None and live.finished:
        outcome = JobOutcome.FINISHED
    elif shape.suspend:
        outcome = JobOutcome.SUSPENDED
    elif live is not None and _past_deadline(shape, live, snapshot):
        outcome = JobOutcome.DEADLINE_EXCEEDED
    succeeded = live.succeeded if live is not None else 0
    if live is None:  # what the snapshot holds of it: its pods that ended
        succeeded = sum(
            1
            for p in snapshot.pods
            if p.metadata.namespace == workload.namespace
            and p.status.phase == "Succeeded"
            and owned_by(p, "Job", workload.name)
        )
    rollout = job_sync(shape, old, succeeded, new, place_one, remove, outcome)
    rollout.status = RolloutStatus.UNCHANGED if unchanged else RolloutStatus.COMPLETES
    if outcome == JobOutcome.DEADLINE_EXCEEDED:
        rollout.status = RolloutStatus.STALLS
    return rollout


def _past_deadline(shape: JobShape, live: LiveJob, snapshot: Snapshot) -> bool:
    """pastActiveDeadline, at the time the snapshot was taken: the Job (not resumed now: a resumed
    Job's start time is reset) has run activeDeadlineSeconds or longer. An offline dump carries no
    time: not evaluated (False)."""
    deadline = shape.active_deadline_seconds
    if deadline is None or live.start_time is None or live.shape.suspend or not snapshot.taken_at:
        return False
    try:
        started = datetime.fromisoformat(live.start_time.replace("Z", "+00:00"))
        taken = datetime.fromisoformat(snapshot.taken_at.replace("Z", "+00:00"))
    except ValueError:
        return False
    return (taken - started).total_seconds() >= deadline


def _old_template_pod(old: Sequence[o.Pod], index: int) -> o.Pod:
    """A pod the old ReplicaSet adds when a paused Deployment is scaled up: the newest old pod's
    template, unbound, named `<replicaset>-<podwhy's 5 characters>`."""
    model = max(old, key=lambda p: (p.metadata.creation_timestamp or "", p.metadata.name))
    owner = next((ref for ref in model.metadata.owner_references if ref.controller), None)
    base = f"{owner.name}-" if owner is not None else model.metadata.generate_name
    name = base + suffix(f"scale/{model.metadata.namespace}/{base}/{index}")
    meta = model.metadata
    return msgspec.structs.replace(
        model,
        metadata=msgspec.structs.replace(meta, name=name, uid=f"uid-scale-{meta.namespace}-{name}"),
        spec=msgspec.structs.replace(model.spec, node_name=""),
        status=o.PodStatus(phase="Pending"),
    )


def _one_at_a_time(
    place_one: Callable[[o.Pod], bool],
    old: Sequence[o.Pod],
    latest: dict[int, ReplicaPlacement],
    snapshot: Snapshot,
) -> Callable[[o.Pod], bool]:
    """An OrderedReady StatefulSet's controller (processReplica, monotonic): it creates an ordinal
    only once every pod before it is Running and Ready, so once one it runs is not (the lowest
    ordinal) or one it creates stays Pending (or ResourceQuota refuses it), every later ordinal
    waits, not created. Each ordinal added is charged to quotas when it is created."""
    unready = [p for p in old if not running_and_ready(p)]
    blocked = [min(unready, key=lambda p: ordinal(p.metadata.name)).metadata.name] if unready else [""]
    running = {p.metadata.name for p in old}

    def place(pod: o.Pod) -> bool:
        if blocked[0] and blocked[0] != pod.metadata.name:
            waits = OrderedWait(pod.metadata.name, blocked[0])
            latest[id(pod)] = ReplicaPlacement(pod, Verdict.UNSCHEDULABLE, reason=waits, created=False)
            return False
        if id(pod) not in latest and pod.metadata.name not in running:  # an ordinal added (not replaced)
            try:
                admit_quota(pod, snapshot)
            except AdmissionRefusalError as refusal:
                reason = NotCreated(refusal.words)
                latest[id(pod)] = ReplicaPlacement(pod, Verdict.UNSCHEDULABLE, reason=reason, created=False)
                blocked[0] = pod.metadata.name
                return False
        if place_one(pod):
            return True
        blocked[0] = pod.metadata.name
        return False

    return place


def _statefulset_update(
    workload: ManifestWorkload,
    old: list[o.Pod],
    new: list[o.Pod],
    place_one: Callable[[o.Pod], bool],
    remove: Callable[[o.Pod], None],
) -> Rollout:
    """The StatefulSet controller: missing ordinals created first (in order), then, with
    RollingUpdate, from the highest ordinal down to the partition, one at a time: the old pod goes
    and the new one of its name must run before the next. OnDelete changes nothing until pods are
    deleted."""
    strategy = workload.update_strategy
    by_name = {p.metadata.name: p for p in old}
    out = Rollout(RolloutStatus.COMPLETES, len(old))
    missing = [pod for pod in new if pod.metadata.name not in by_name]
    # OrderedReady: place_one lets later ordinals wait once one stays Pending; Parallel creates all.
    created = [place_one(pod) for pod in missing]
    out.new_replicas += sum(created)
    if not all(created):
        out.status = RolloutStatus.STALLS
        return out
    extra = [p for p in old if p.metadata.name not in {n.metadata.name for n in new}]
    for pod in highest_ordinal_first(extra):
        remove(pod)
        out.removed.append(pod.metadata.name)
    if strategy is not None and strategy.type == ON_DELETE:
        out.status = RolloutStatus.WAITS_FOR_DELETION
        return out
    partition = strategy.rolling_update.partition if strategy and strategy.rolling_update else None
    for index in range(len(new) - 1, (partition or 0) - 1, -1):
        pod = new[index]
        previous = by_name.get(pod.metadata.name)
        if previous is None:
            continue
        remove(previous)
        out.removed.append(previous.metadata.name)
        if not place_one(pod):
            out.status = RolloutStatus.STALLS
            return out
        out.new_replicas += 1
    return out


def _daemon_refusal(workload: ManifestWorkload, pod: o.Pod, snapshot: Snapshot) -> str | None:
    """The API server's words refusing a DaemonSet's pod for one node (PodSecurity refused its
    template, or a quota has no room left), or None once it is created and charged."""
    if workload.daemon_refusal:
        return f'pods "{pod.metadata.name}" is forbidden: {workload.daemon_refusal}'
    try:
        admit_quota(pod, snapshot)
    except AdmissionRefusalError as refusal:
        return refusal.words
    return None


def _daemon_replica(placer: Placer, workload: ManifestWorkload, snapshot: Snapshot, node: str) -> ReplicaPlacement:
    """The DaemonSet controller's pod for NODE, created (or refused) and scheduled."""
    template = workload.daemon_template
    assert template is not None
    admitted_without = snapshot.admitted_without.get(f"{template.metadata.namespace}/{template.metadata.name}")
    pod = daemon_pod_for_node(template, node)
    if admitted_without:
        snapshot.admitted_without[f"{pod.metadata.namespace}/{pod.metadata.name}"] = admitted_without
    refused = _daemon_refusal(workload, pod, snapshot)
    if refused is not None:
        replica = ReplicaPlacement(pod, Verdict.UNSCHEDULABLE, reason=NotCreated(refused), created=False)
    else:
        for claim in workload.claims_for(pod, snapshot):
            placer.claims.create(claim)
        create_template_claims(pod, snapshot)
        replica = placer.schedule(pod)
    replica.target_node = node
    return replica


def _place_daemon(placer: Placer, workload: ManifestWorkload, snapshot: Snapshot) -> WorkloadPlacement:
    """A DaemonSet's pod on each node its controller runs it on."""
    result = WorkloadPlacement(workload)
    assert workload.daemon_template is not None
    eligible, result.ineligible_nodes = placer.daemon_nodes(workload.daemon_template)
    result.replicas = [_daemon_replica(placer, workload, snapshot, node) for node in eligible]
    return result


def _update_daemon(
    placer: Placer, workload: ManifestWorkload, snapshot: Snapshot, result: WorkloadPlacement
) -> WorkloadPlacement:
    """A DaemonSet the cluster runs: unchanged, OnDelete, or its controller's rolling update node
    by node (a node's pod already of the new template counts as updated)."""
    template = workload.daemon_template
    assert template is not None
    old = workload.existing
    if workload.template_unchanged is None:  # no stored template: its pods are compared
        emulation = workload.emulation
        current = [p for p in old if same_template([p], daemon_pod_for_node(template, p.spec.node_name), emulation)]
    else:  # the stored template, as the controller compares it with its ControllerRevision's
        current = list(old) if workload.template_unchanged else []
    if len(current) == len(old):
        pods_only = workload.template_unchanged is None
        result.rollout = Rollout(RolloutStatus.UNCHANGED, len(old), pods_compared=pods_only)
        return result
    if workload.update_strategy is not None and workload.update_strategy.type == ON_DELETE:
        result.rollout = Rollout(RolloutStatus.WAITS_FOR_DELETION, len(old))
        return result
    eligible, result.ineligible_nodes = placer.daemon_nodes(template)
    updated = {p.spec.node_name for p in current}
    outdated = [p for p in old if p.spec.node_name not in updated]
    by_node: dict[str, o.Pod] = {}
    extra: list[str] = []
    for pod in sorted(outdated, key=lambda p: (p.metadata.creation_timestamp or "", p.metadata.name)):
        if pod.spec.node_name and pod.spec.node_name not in by_node:
            by_node[pod.spec.node_name] = pod
        else:  # not on a node, or a second one on its node: the manage loop deletes it
            placer.unbind(pod)
            extra.append(pod.metadata.name)
    latest: dict[str, ReplicaPlacement] = {}

    def place_on(node: str) -> bool:
        replica = latest.get(node)
        if replica is None:
            replica = latest[node] = _daemon_replica(placer, workload, snapshot, node)
        elif replica.created and not replica.placed:
            replica = latest[node] = placer.schedule(replica.pod)
            replica.target_node = node
        return replica.placed

    result.rollout = daemon_rolling_update(
        eligible, by_node, updated, workload.update_strategy, place_on, placer.unbind
    )
    result.rollout.old_replicas = len(old)
    result.rollout.removed[:0] = extra
    result.replicas = [latest[node] for node in eligible if node in latest]
    return result


def _place_workload(placer: Placer, workload: ManifestWorkload, snapshot: Snapshot) -> WorkloadPlacement:
    """One workload's replicas, one after another (or, for a workload the cluster runs, its update)."""
    if workload.existing or workload.live_job is not None:
        return _update(placer, workload, snapshot)
    result = WorkloadPlacement(workload)
    if workload.daemon_template is not None:
        return _place_daemon(placer, workload, snapshot)
    waiting_for = ""
    for pod in workload.pods:
        refused = workload.refused.get(pod.metadata.name)
        if refused is not None and not waiting_for:
            reason = NotCreated(refused)
            result.replicas.append(ReplicaPlacement(pod, Verdict.UNSCHEDULABLE, reason=reason, created=False))
            if workload.ordered:  # OrderedReady: no later ordinal until this one runs
                waiting_for = pod.metadata.name
            continue
        if not waiting_for and workload.ordered:
            try:
                admit_quota(pod, snapshot)
            except AdmissionRefusalError as refusal:
                reason = NotCreated(refusal.words)
                result.replicas.append(ReplicaPlacement(pod, Verdict.UNSCHEDULABLE, reason=reason, created=False))
                waiting_for = pod.metadata.name
                continue
        if waiting_for:
            waits = OrderedWait(pod.metadata.name, waiting_for)
            result.replicas.append(ReplicaPlacement(pod, Verdict.UNSCHEDULABLE, reason=waits, created=False))
            continue
        for claim in workload.claims_for(pod, snapshot):
            placer.claims.create(claim)
        create_template_claims(pod, snapshot)
        replica = placer.pin(pod) if pod.spec.node_name else placer.schedule(pod)
        result.replicas.append(replica)
        if workload.ordered and not replica.placed:
            waiting_for = pod.metadata.name
    return result
