"""kube-scheduler's side of `check`'s placement: pods scheduled in turn over one snapshot, as the
scheduler would, each bound where it fits (the Placer: schedule, bind, unbind, pin, preempt).

Each pod runs one scheduling cycle; a pod that fits is bound to the best-scoring node
(kube-scheduler picks one of the tied top nodes at random: podwhy takes the first by name, so
the outcome is deterministic) and counted on that node, so the next pod sees its resources, host
ports, labels for spreading and affinity terms. The snapshot is indexed once per profile; bound
pods are added to those indexes incrementally. A pod identical to the one before it reuses what
its cycle learnt of the nodes nothing was bound to since (Reuse, KnownRejections).

The controllers that create the pods (cluster/controllers/) reach the Placer as
podcontrol.Scheduler and are driven from above (cluster/check.py); the DaemonSet controller's node
selection reads the filters it runs (run_filters). Claims go through what VolumeBinding's
Reserve/PreBind and DynamicResources' do once a pod is placed (controllers/persistentvolume.py,
controllers/resourceclaim.py), so the next pod cannot take them. What a Pending pod fits once the
cluster's pods being deleted are gone is asked here too (fits_once_deleted).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from operator import attrgetter, not_

import msgspec

from podwhy.cluster.apiserver.admission.podtopologylabels import copy_topology_labels
from podwhy.cluster.controllers.persistentvolume import ClaimBinder, bind
from podwhy.cluster.controllers.resourceclaim import release_claims, reserve_claims
from podwhy.cluster.controllers.types import Displaced, ReplicaPlacement
from podwhy.cluster.kubelet import admit
from podwhy.cluster.placementreasons import (
    BoundByNodeName,
    Gated,
    KubeletRejects,
    MissingNode,
    NoProfileNamed,
    OnceDeleted,
    PlacedBut,
    Preempted,
    SchedulerSays,
)
from podwhy.framework.outcome import FilterOutcome, NodeVerdict, Reuse
from podwhy.framework.preemption import Budget
from podwhy.framework.runtime import Framework
from podwhy.framework.scoring import ScoreMemo
from podwhy.framework.settled import Settled
from podwhy.framework.signature import pod_signature
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.helpers.persistentvolumes import BinderError
from podwhy.helpers.resourcenames import is_extended_resource_name
from podwhy.model import objects as o
from podwhy.model import records
from podwhy.model.wellknownnames import ANN_SELECTED_NODE
from podwhy.plugins import names
from podwhy.plugins.registry import NODE_LOCAL_FILTERS, NODE_LOCAL_PARTS, NODE_LOCAL_SCORES
from podwhy.plugins.volumebinding.plugin import VolumeBinding
from podwhy.scheduler.config import SchedulerConfig, profile_for_pod
from podwhy.scheduler.cycle import CycleOptions, CycleOutcome, make_framework, no_profile, run_cycle
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict

TERMINAL_PHASES = ("Succeeded", "Failed")
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


class _Memo(msgspec.Struct):
    """The Reuse of the last pod scheduled, for the next one if it is identical (see Reuse)."""

    profile: str
    signature: bytes
    reuse: Reuse


_NAME = attrgetter("name")
_NOMINATED = attrgetter("nominated_pods")


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
        self.verdicts = Settled()
        # Verdicts looked at that no filter of `static` rejects, by id (kept, so that the id stays
        # theirs): an identical pod's cycle hands the same verdict objects on (Reuse), and a
        # verdict does not change once its node was filtered.
        self._passed: dict[int, NodeVerdict] = {}

    def learn(self, outcome: FilterOutcome, own: bool = False) -> None:
        """Remember the outcome's nodes that a filter of `static` rejects. `own`: the outcome's
        cycle was given these known rejections as `settled` (the verdicts it begins with are these)."""
        if outcome.pre_filter_failure is not None or outcome.error is not None:
            return
        known, passed = self.verdicts, self._passed
        nodes = outcome.nodes[outcome.settled_first :] if own else outcome.nodes
        # The nodes not known yet (in C: the known ones are most of every outcome while placing).
        for verdict in compress(nodes, map(not_, map(known.keys().__contains__, map(_NAME, nodes)))):
            if verdict.feasible or verdict.nominated_pods or passed.get(id(verdict)) is verdict:
                continue
            if any(name in self.static and st.is_rejected() for name, st in verdict.filters.items()):
                known.set(verdict.name, verdict)
            else:
                passed[id(verdict)] = verdict

    def forget(self, node: str) -> None:
        """A pod was bound to the node: its verdicts may change."""
        self.verdicts.discard(node)

    def copy(self) -> KnownRejections:
        out = KnownRejections(self.static)
        out.verdicts = self.verdicts.copy()
        out._passed = dict(self._passed)
        return out


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
            known.learn(cycle.outcome, own=True)
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
        assume_pod_volumes(framework, pod, node)
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
        # Not the known rejections the cycle began with (settled_first): it walks only other nodes,
        # so their verdicts are read again only once a bind forgets them, which drops them here too.
        nodes = outcome.nodes[outcome.settled_first :]
        if any(map(_NOMINATED, nodes)):
            reuse.verdicts.update((verdict.name, verdict) for verdict in nodes if not verdict.nominated_pods)
        else:
            reuse.verdicts.update(zip(map(_NAME, nodes), nodes, strict=True))

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

    def run_filters(self, pod: o.Pod) -> FilterOutcome | None:
        """The filters of the profile serving POD over every node, as they stand (what the
        DaemonSet controller's node predicates read); None when no profile serves it."""
        framework = self._framework(pod)
        if framework is None:
            return None
        return framework.run_filters(PodInfo(pod))


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
    without = records.replace(placer.snapshot, pods=[p for p in pods if id(p) not in gone])
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


def assume_pod_volumes(framework: Framework, pod: o.Pod, node_name: str) -> None:
    """VolumeBinding's Reserve and PreBind for POD placed on NODE_NAME: the PVs found for its
    WaitForFirstConsumer claims bound to them, the claims to provision annotated with the node."""
    plugin = framework.plugins.get(names.VOLUME_BINDING)
    if not isinstance(plugin, VolumeBinding):
        return  # the profile does not bind volumes
    binder = plugin.binder
    try:
        claims = binder.get_pod_volume_claims(pod)
        if not claims.unbound_delay_binding:
            return
        node = framework.handle.node_info_by_name[node_name].node
        check = binder.find_pod_volumes(pod, claims, node)
    except BinderError:
        return  # the cycle reported it as an Error; nothing was placed by it
    if check.reasons:
        return
    for binding in check.pod_volumes.static_bindings:
        bind(binding.pvc, binding.pv)
    for provision in check.pod_volumes.dynamic_provisions:
        provision.pvc.metadata.annotations[ANN_SELECTED_NODE] = node_name
