"""Verified suggestions: small changes to an unschedulable pod or its cluster that make it fit.

Each candidate is applied to copies (the shared snapshot and pod are never mutated) and the
scheduling cycle runs again; only candidates whose re-run verdict is Schedulable are kept.
Patches are RFC 7386 JSON merge patches against objects of the snapshot (a `null` patch
removes the object, as RFC 7386 replaces the target with any non-object patch); commands are
what a user would run, against the pod's owning workload rather than the pod.

Work is bounded so that large clusters stay fast: a few candidate nodes per kind, a cap on
re-runs, and changes to the cluster (which re-index the snapshot) only below a size limit.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from podwhy.framework.profile import Profile
from podwhy.framework.status import Status
from podwhy.model import objects as o
from podwhy.model.quantity import quantity_milli_value, quantity_value
from podwhy.plugins.helper.taints import do_not_schedule_taints, tolerations_tolerate_taint
from podwhy.plugins.interpodaffinity.plugin import InterPodAffinity
from podwhy.plugins.nodeaffinity import NodeAffinity
from podwhy.plugins.nodeports import NodePorts
from podwhy.plugins.noderesources.fit import Fit
from podwhy.plugins.nodevolumelimits import NodeVolumeLimits
from podwhy.plugins.podtopologyspread.plugin import PodTopologySpread
from podwhy.plugins.tainttoleration import TaintToleration
from podwhy.runtime.cycle import CycleOutcome, Verdict, make_framework, run_cycle
from podwhy.runtime.framework import Framework, NodeVerdict
from podwhy.snapshot.cluster import Snapshot

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

RESOURCE_FIT = Fit.NAME
TAINT_TOLERATION = TaintToleration.NAME
NODE_AFFINITY = NodeAffinity.NAME
TOPOLOGY_SPREAD = PodTopologySpread.NAME
INTER_POD_AFFINITY = InterPodAffinity.NAME
# Plugins whose rejection an empty copy of the node can cure (nothing runs there yet).
CURED_BY_EMPTY_NODE = frozenset(
    {RESOURCE_FIT, NodePorts.NAME, INTER_POD_AFFINITY, TOPOLOGY_SPREAD, NodeVolumeLimits.NAME}
)
HOSTNAME_LABEL = "kubernetes.io/hostname"
MI = 1024 * 1024
# Tolerations admission adds to every pod: a workload's template does not hold them.
ADMISSION_TOLERATION_KEYS = frozenset({"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"})
# Workload kinds whose pod template is at /spec/template.
TEMPLATE_OWNERS = frozenset({"Deployment", "StatefulSet", "DaemonSet", "Job", "ReplicaSet", "ReplicationController"})


@dataclass
class Suggestion:
    kind: str
    summary: str
    # The nodes the pod fits on once the change is made.
    nodes: list[str]
    patches: list[dict[str, Any]]
    command: str


@dataclass
class _Verifier:
    """Re-runs the cycle on changed copies, within the bounds above."""

    snapshot: Snapshot
    pod: o.Pod
    profile: Profile
    scheduler_names: frozenset[str] | None
    framework: Framework | None = None
    reruns: int = 0
    started: float = field(default_factory=time.monotonic)

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
        if cycle.verdict != Verdict.SCHEDULABLE or cycle.outcome is None:
            return None
        return list(cycle.outcome.feasible)

    def with_pod(self, pod: o.Pod) -> list[str] | None:
        """The feasible nodes for a changed pod, None when it still does not fit."""
        if self.exhausted:
            return None
        self.reruns += 1
        if self.framework is None:
            self.framework = make_framework(self.snapshot, self.profile, self.scheduler_names)
        return self._feasible(run_cycle(self.snapshot, pod, framework=self.framework))

    def with_snapshot(self, snapshot: Snapshot) -> list[str] | None:
        """The feasible nodes for the pod in a changed cluster."""
        if self.exhausted or not self.cluster_changes_allowed:
            return None
        self.reruns += 1
        return self._feasible(run_cycle(snapshot, self.pod, self.profile, scheduler_names=self.scheduler_names))


# ---------------------------------------------------------------- helpers


def _builtins(obj: Any) -> Any:
    return msgspec.to_builtins(obj)


def _failing(verdict: NodeVerdict) -> dict[str, Status]:
    return {name: st for name, st in verdict.filters.items() if st.is_rejected()}


def _only_failing(verdict: NodeVerdict, plugin: str) -> Status | None:
    failing = _failing(verdict)
    return failing.get(plugin) if set(failing) == {plugin} else None


def _pod_ref(pod: o.Pod) -> dict[str, Any]:
    return {"kind": "Pod", "namespace": pod.metadata.namespace, "name": pod.metadata.name}


def _pod_patch(pod: o.Pod, spec_patch: dict[str, Any]) -> dict[str, Any]:
    return {**_pod_ref(pod), "patch": {"spec": spec_patch}}


def owner_of(pod: o.Pod, snapshot: Snapshot) -> tuple[str, str, str] | None:
    """(kind, namespace, name) of the workload whose template makes the pod, None for a bare pod.
    A ReplicaSet's own controller (a Deployment) is looked up among the snapshot's ReplicaSets."""
    ref = next((r for r in pod.metadata.owner_references if r.controller), None)
    if ref is None or ref.kind not in TEMPLATE_OWNERS:
        return None
    namespace = pod.metadata.namespace
    if ref.kind == "ReplicaSet":
        rs = next(
            (r for r in snapshot.replica_sets if r.metadata.namespace == namespace and r.metadata.name == ref.name),
            None,
        )
        parent = next((r for r in rs.metadata.owner_references if r.controller), None) if rs is not None else None
        if parent is not None and parent.kind == "Deployment":
            return "Deployment", namespace, parent.name
    return ref.kind, namespace, ref.name


def patch_command(pod: o.Pod, snapshot: Snapshot, ops: list[dict[str, Any]]) -> str:
    """`kubectl patch --type json` with `ops` (paths relative to the pod) on the owner's template;
    a bare pod is replaced with a patched copy, since most of a pod's spec is immutable."""
    owner = owner_of(pod, snapshot)
    if owner is not None:
        kind, namespace, name = owner
        template_ops = [{**op, "path": "/spec/template" + op["path"]} for op in ops]
        return (
            f"kubectl patch {kind.lower()} {shlex.quote(name)} -n {shlex.quote(namespace)} --type json "
            f"-p {shlex.quote(json.dumps(template_ops, separators=(',', ':')))}"
        )
    ns, name = shlex.quote(pod.metadata.namespace), shlex.quote(pod.metadata.name)
    return (
        f"kubectl get pod {name} -n {ns} -o json | kubectl patch --local -f - --type json "
        f"-p {shlex.quote(json.dumps(ops, separators=(',', ':')))} -o json | kubectl replace --force -f -"
    )


# ---------------------------------------------------------------- lower a request


def _amount(resource: str, raw: Any) -> int:
    return quantity_milli_value(raw) if resource == "cpu" else quantity_value(raw)


def _format(resource: str, amount: int) -> str:
    if resource == "cpu":
        return f"{amount}m"
    if resource in ("memory", "ephemeral-storage") and amount % MI == 0:
        return f"{amount // MI}Mi"
    return str(amount)


def _lowered(resource: str, current: int, delta: int) -> int | None:
    """The container's request lowered by `delta`, rounded down to whole MiB for byte sizes."""
    new = current - delta
    if new <= 0:
        return None
    if resource in ("memory", "ephemeral-storage") and new >= MI:
        new -= new % MI
    return new


def _lower_requests(pod: o.Pod, cuts: dict[str, int]) -> tuple[o.Pod, list[dict[str, Any]], list[str]] | None:
    """The pod with each resource's total request lowered by its cut (from the largest container,
    or the pod-level request), the json-patch ops and a description; None when it cannot be."""
    spec = pod.spec
    containers = list(spec.containers)
    pod_resources = spec.resources
    ops: list[dict[str, Any]] = []
    said: list[str] = []
    for resource, delta in sorted(cuts.items()):
        if pod_resources is not None and resource in pod_resources.requests:
            new = _lowered(resource, _amount(resource, pod_resources.requests[resource]), delta)
            if new is None:
                return None
            requests = {**pod_resources.requests, resource: _format(resource, new)}
            pod_resources = msgspec.structs.replace(pod_resources, requests=requests)
            ops.append({"op": "add", "path": f"/spec/resources/requests/{resource}", "value": _format(resource, new)})
            said.append(f"pod-level {resource} request to {_format(resource, new)}")
            continue
        holders = [(i, c) for i, c in enumerate(containers) if resource in c.resources.requests]
        if not holders:
            return None
        index, container = max(holders, key=lambda ic: _amount(resource, ic[1].resources.requests[resource]))
        new = _lowered(resource, _amount(resource, container.resources.requests[resource]), delta)
        if new is None:
            return None
        requests = {**container.resources.requests, resource: _format(resource, new)}
        containers[index] = msgspec.structs.replace(
            container, resources=msgspec.structs.replace(container.resources, requests=requests)
        )
        escaped = resource.replace("~", "~0").replace("/", "~1")
        ops.append(
            {
                "op": "add",
                "path": f"/spec/containers/{index}/resources/requests/{escaped}",
                "value": _format(resource, new),
            }
        )
        said.append(f"{resource} request of container {container.name} to {_format(resource, new)}")
    new_spec = msgspec.structs.replace(spec, containers=containers, resources=pod_resources)
    return msgspec.structs.replace(pod, spec=new_spec), ops, said


def _suggest_lower_request(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    assert cycle.outcome is not None
    # Per node whose only rejection is resources: the cut each short resource needs there.
    options: list[tuple[float, str, dict[str, int]]] = []
    for verdict in cycle.outcome.nodes:
        status = _only_failing(verdict, RESOURCE_FIT)
        if status is None:
            continue
        cuts: dict[str, int] = {}
        worst = 0.0
        for ev in status.evidence:
            data = ev.data
            if ev.kind != "resource" or data["resource"] == "pods" or data["free"] <= 0:
                cuts = {}
                break
            cuts[data["resource"]] = data["requested"] - data["free"]
            worst = max(worst, cuts[data["resource"]] / data["requested"])
        if cuts:
            options.append((worst, verdict.name, cuts))
    out: list[Suggestion] = []
    seen: set[tuple[tuple[str, int], ...]] = set()
    for _, _node, cuts in sorted(options)[: MAX_TRIES_PER_KIND * 2]:
        key = tuple(sorted(cuts.items()))
        if key in seen:
            continue
        seen.add(key)
        lowered = _lower_requests(v.pod, cuts)
        if lowered is None:
            continue
        pod, ops, said = lowered
        feasible = v.with_pod(pod)
        if feasible is None:
            continue
        # Command lines are free text (`snapshot --redact` hides them) the scheduler never reads.
        containers = [msgspec.structs.replace(c, command=[], args=[]) for c in pod.spec.containers]
        spec_patch: dict[str, Any] = {"containers": _builtins(containers)}
        if pod.spec.resources is not None and pod.spec.resources != v.pod.spec.resources:
            spec_patch = {"resources": {"requests": dict(pod.spec.resources.requests)}}
        out.append(
            Suggestion(
                kind="lowerRequest",
                summary=f"lower the {', '.join(said)}: it then fits on {_nodes_text(feasible)}",
                nodes=feasible,
                patches=[_pod_patch(v.pod, spec_patch)],
                command=patch_command(v.pod, v.snapshot, ops),
            )
        )
        break
    return out


def _nodes_text(nodes: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(nodes[:limit])
    return shown + (f" and {len(nodes) - limit} more" if len(nodes) > limit else "")


# ---------------------------------------------------------------- tolerate a taint


def _toleration_for(taint: o.Taint) -> o.Toleration:
    if taint.value:
        return o.Toleration(key=taint.key, operator="Equal", value=taint.value, effect=taint.effect)
    return o.Toleration(key=taint.key, operator="Exists", effect=taint.effect)


def _suggest_toleration(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    assert cycle.outcome is not None
    nodes = {n.metadata.name: n for n in v.snapshot.nodes}
    groups: dict[tuple[tuple[str, str, str], ...], list[str]] = {}
    for verdict in cycle.outcome.nodes:
        node = nodes.get(verdict.name)
        if node is None or _only_failing(verdict, TAINT_TOLERATION) is None:
            continue
        untolerated = tuple(
            sorted(
                {
                    (t.key, t.value, t.effect)
                    for t in node.spec.taints
                    if do_not_schedule_taints(t) and not tolerations_tolerate_taint(v.pod.spec.tolerations, t)
                }
            )
        )
        if untolerated:
            groups.setdefault(untolerated, []).append(verdict.name)
    ranked = sorted(groups.items(), key=lambda kv: (len(kv[0]), -len(kv[1]), kv[0]))
    for taints, _ in ranked[:MAX_TRIES_PER_KIND]:
        added = [_toleration_for(o.Taint(key=k, value=val, effect=e)) for k, val, e in taints]
        tolerations = [*v.pod.spec.tolerations, *added]
        pod = msgspec.structs.replace(v.pod, spec=msgspec.structs.replace(v.pod.spec, tolerations=tolerations))
        feasible = v.with_pod(pod)
        if feasible is None:
            continue
        # The template lacks the tolerations admission adds; RFC 6902 "add" sets the whole list.
        owned = owner_of(v.pod, v.snapshot) is not None
        kept = [t for t in tolerations if not (owned and t.key in ADMISSION_TOLERATION_KEYS)]
        ops = [{"op": "add", "path": "/spec/tolerations", "value": _builtins(kept)}]
        names = ", ".join(f"{k}={val}:{e}" if val else f"{k}:{e}" for k, val, e in taints)
        return [
            Suggestion(
                kind="addToleration",
                summary=f"tolerate the taint {names}: the pod then fits on {_nodes_text(feasible)}",
                nodes=feasible,
                patches=[_pod_patch(v.pod, {"tolerations": _builtins(tolerations)})],
                command=patch_command(v.pod, v.snapshot, ops),
            )
        ]
    return []


# ---------------------------------------------------------------- label a node


def _term_needs(term: o.NodeSelectorTerm, labels: dict[str, str]) -> dict[str, str] | None:
    """Labels the node needs for the term to match it; None when adding labels cannot make it match."""
    if term.match_fields or not term.match_expressions:
        return None
    needs: dict[str, str] = {}
    for req in term.match_expressions:
        value = labels.get(req.key)
        if req.operator == "In":
            if value not in req.values:
                if not req.values:
                    return None
                needs[req.key] = req.values[0]
        elif req.operator == "Exists":
            if value is None:
                needs[req.key] = "true"
        elif req.operator == "NotIn":
            if value is not None and value in req.values:
                return None
        elif req.operator == "DoesNotExist":
            if value is not None:
                return None
        else:
            return None
    return needs


def _label_needs(pod: o.Pod, node: o.Node) -> dict[str, str] | None:
    labels = node.metadata.labels
    needs = {key: want for key, want in pod.spec.node_selector.items() if labels.get(key) != want}
    affinity = pod.spec.affinity
    required = (
        affinity.node_affinity.required_during_scheduling_ignored_during_execution
        if affinity is not None and affinity.node_affinity is not None
        else None
    )
    if required is not None:
        per_term: list[dict[str, str]] = []
        for term in required.node_selector_terms:
            term_needs = _term_needs(term, labels)
            # A term needing a label the nodeSelector sets differently cannot be met together with it.
            if term_needs is not None and all(needs.get(k, val) == val for k, val in term_needs.items()):
                per_term.append(term_needs)
        if not per_term:
            return None
        fewest: dict[str, str] = min(per_term, key=len)
        needs.update(fewest)
    return needs


def _replace_node(snapshot: Snapshot, node: o.Node) -> Snapshot:
    nodes = [node if n.metadata.name == node.metadata.name else n for n in snapshot.nodes]
    return dataclasses.replace(snapshot, nodes=nodes)


def _suggest_label(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    assert cycle.outcome is not None
    nodes = {n.metadata.name: n for n in v.snapshot.nodes}
    groups: dict[tuple[str, str], list[str]] = {}
    for verdict in cycle.outcome.nodes:
        node = nodes.get(verdict.name)
        if node is None or _only_failing(verdict, NODE_AFFINITY) is None:
            continue
        needs = _label_needs(v.pod, node)
        if needs is not None and len(needs) == 1:
            groups.setdefault(next(iter(needs.items())), []).append(verdict.name)
    for (key, value), names in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:MAX_TRIES_PER_KIND]:
        target = nodes[names[0]]
        labeled = msgspec.structs.replace(
            target,
            metadata=msgspec.structs.replace(target.metadata, labels={**target.metadata.labels, key: value}),
        )
        feasible = v.with_snapshot(_replace_node(v.snapshot, labeled))
        if feasible is None:
            continue
        others = f" ({len(names)} nodes are one label away: {_nodes_text(names)})" if len(names) > 1 else ""
        return [
            Suggestion(
                kind="labelNode",
                summary=f"label node {names[0]} with {key}={value}, which the pod's node selection requires{others}",
                nodes=feasible,
                patches=[
                    {"kind": "Node", "namespace": "", "name": names[0], "patch": {"metadata": {"labels": {key: value}}}}
                ],
                command=f"kubectl label node {shlex.quote(names[0])} {shlex.quote(f'{key}={value}')} --overwrite",
            )
        ]
    return []


# ---------------------------------------------------------------- add a node


def _copy_name(snapshot: Snapshot, name: str) -> str:
    taken = {n.metadata.name for n in snapshot.nodes}
    candidate, i = f"{name}-copy", 1
    while candidate in taken:
        i += 1
        candidate = f"{name}-copy{i}"
    return candidate


def _empty_copy(node: o.Node, name: str) -> o.Node:
    labels = dict(node.metadata.labels)
    if HOSTNAME_LABEL in labels:
        labels[HOSTNAME_LABEL] = name
    meta = o.ObjectMeta(name=name, labels=labels, annotations={})
    return msgspec.structs.replace(node, metadata=meta, status=msgspec.structs.replace(node.status, images=[]))


def _shape(node: o.Node) -> str:
    labels = {k: val for k, val in node.metadata.labels.items() if k != HOSTNAME_LABEL}
    return json.dumps([labels, _builtins(node.spec), node.status.allocatable], sort_keys=True)


def _suggest_add_node(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    assert cycle.outcome is not None
    nodes = {n.metadata.name: n for n in v.snapshot.nodes}
    shapes: dict[str, str] = {}
    for verdict in cycle.outcome.nodes:
        failing = _failing(verdict)
        node = nodes.get(verdict.name)
        if node is None or not failing or not set(failing) <= CURED_BY_EMPTY_NODE:
            continue
        fit = failing.get(RESOURCE_FIT)
        if fit is not None and any(ev.data.get("exceedsAllocatable") for ev in fit.evidence):
            continue
        shapes.setdefault(_shape(node), verdict.name)
    for name in list(shapes.values())[:MAX_TRIES_PER_KIND]:
        copy_name = _copy_name(v.snapshot, name)
        copy = _empty_copy(nodes[name], copy_name)
        feasible = v.with_snapshot(dataclasses.replace(v.snapshot, nodes=[*v.snapshot.nodes, copy]))
        if feasible is None:
            continue
        return [
            Suggestion(
                kind="addNode",
                summary=f"add 1 node shaped like {name} (same labels, taints and allocatable; no pods yet): "
                f"the pod fits on it",
                nodes=feasible,
                patches=[{"kind": "Node", "object": {"apiVersion": "v1", "kind": "Node", **_builtins(copy)}}],
                command=f"# scale the node group of {name} up by 1 (the cluster autoscaler would add a node like it)",
            )
        ]
    return []


# ---------------------------------------------------------------- evict pods


def _suggest_evict(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    preemption = cycle.post_filter.preemption if cycle.post_filter is not None else None
    if preemption is None:
        return []
    # Only candidates that break no PodDisruptionBudget, fewest victims first.
    candidates = sorted(
        (c for c in preemption.candidates if c.num_pdb_violations == 0 and c.victims),
        key=lambda c: (len(c.victims), c.node),
    )
    for cand in candidates[:MAX_TRIES_PER_KIND]:
        gone = {pi.uid for pi in cand.victims}
        kept = [p for p in v.snapshot.pods if p.metadata.uid not in gone]
        feasible = v.with_snapshot(dataclasses.replace(v.snapshot, pods=kept))
        if feasible is None:
            continue
        victims = [pi.pod for pi in cand.victims]
        by_ns: dict[str, list[str]] = {}
        for p in victims:
            by_ns.setdefault(p.metadata.namespace, []).append(p.metadata.name)
        command = " && ".join(
            f"kubectl delete pod -n {shlex.quote(ns)} {' '.join(shlex.quote(n) for n in names)}"
            for ns, names in sorted(by_ns.items())
        )
        return [
            Suggestion(
                kind="evictPods",
                summary=f"move {len(victims)} lower-priority pod(s) off node {cand.node} "
                f"({', '.join(pi.key for pi in cand.victims)}); no PodDisruptionBudget is broken",
                nodes=feasible,
                patches=[{**_pod_ref(p), "patch": None} for p in victims],
                command=command,
            )
        ]
    return []


# ---------------------------------------------------------------- relax spread / anti-affinity


def _suggest_relax_spread(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    assert cycle.outcome is not None
    keys = {
        ev.data["topologyKey"]
        for verdict in cycle.outcome.nodes
        if (st := verdict.filters.get(TOPOLOGY_SPREAD)) is not None and st.is_rejected()
        for ev in st.evidence
        if ev.kind == "topologySpread" and "skew" in ev.data
    }
    constraints = v.pod.spec.topology_spread_constraints
    for index, c in enumerate(constraints):
        if c.topology_key not in keys or c.when_unsatisfiable != "DoNotSchedule":
            continue
        changes: list[tuple[o.TopologySpreadConstraint, str, Any, str]] = [
            (
                msgspec.structs.replace(c, max_skew=c.max_skew + 1),
                "maxSkew",
                c.max_skew + 1,
                f"maxSkew to {c.max_skew + 1}",
            ),
            (
                msgspec.structs.replace(c, when_unsatisfiable="ScheduleAnyway"),
                "whenUnsatisfiable",
                "ScheduleAnyway",
                "whenUnsatisfiable to ScheduleAnyway (a preference, no longer a rule)",
            ),
        ]
        for relaxed, field_name, value, said in changes:
            new_list = [relaxed if i == index else x for i, x in enumerate(constraints)]
            pod = msgspec.structs.replace(
                v.pod, spec=msgspec.structs.replace(v.pod.spec, topology_spread_constraints=new_list)
            )
            feasible = v.with_pod(pod)
            if feasible is None:
                continue
            ops = [{"op": "replace", "path": f"/spec/topologySpreadConstraints/{index}/{field_name}", "value": value}]
            return [
                Suggestion(
                    kind="relaxTopologySpread",
                    summary=f"relax the topology spread constraint on {c.topology_key}: set {said}",
                    nodes=feasible,
                    patches=[_pod_patch(v.pod, {"topologySpreadConstraints": _builtins(new_list)})],
                    command=patch_command(v.pod, v.snapshot, ops),
                )
            ]
    return []


def _suggest_drop_anti_affinity(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    assert cycle.outcome is not None
    affinity = v.pod.spec.affinity
    anti = affinity.pod_anti_affinity if affinity is not None else None
    if anti is None or not anti.required_during_scheduling_ignored_during_execution:
        return []
    if not any((st := n.filters.get(INTER_POD_AFFINITY)) is not None and st.is_rejected() for n in cycle.outcome.nodes):
        return []
    assert affinity is not None
    terms = anti.required_during_scheduling_ignored_during_execution
    for index, term in enumerate(terms[:MAX_TRIES_PER_KIND]):
        rest = [t for i, t in enumerate(terms) if i != index]
        new_anti = msgspec.structs.replace(anti, required_during_scheduling_ignored_during_execution=rest)
        pod = msgspec.structs.replace(
            v.pod,
            spec=msgspec.structs.replace(
                v.pod.spec, affinity=msgspec.structs.replace(affinity, pod_anti_affinity=new_anti)
            ),
        )
        feasible = v.with_pod(pod)
        if feasible is None:
            continue
        path = f"/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/{index}"
        patch = {
            "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": _builtins(rest) or None}}
        }
        return [
            Suggestion(
                kind="dropAntiAffinity",
                summary=f"drop the required pod anti-affinity term #{index} (topologyKey {term.topology_key}) "
                "or make it preferred",
                nodes=feasible,
                patches=[_pod_patch(v.pod, patch)],
                command=patch_command(v.pod, v.snapshot, [{"op": "remove", "path": path}]),
            )
        ]
    return []


SUGGESTERS: tuple[Callable[[_Verifier, CycleOutcome], list[Suggestion]], ...] = (
    _suggest_lower_request,
    _suggest_toleration,
    _suggest_label,
    _suggest_add_node,
    _suggest_evict,
    _suggest_relax_spread,
    _suggest_drop_anti_affinity,
)


def suggest(
    snapshot: Snapshot,
    cycle: CycleOutcome,
    profile: Profile,
    scheduler_names: frozenset[str] | None = None,
) -> list[Suggestion]:
    """Verified changes that make an Unschedulable pod Schedulable; [] for any other verdict."""
    if cycle.verdict != Verdict.UNSCHEDULABLE or cycle.outcome is None or cycle.outcome.error is not None:
        return []
    verifier = _Verifier(snapshot, cycle.pod.pod, profile, scheduler_names)
    out: list[Suggestion] = []
    for suggester in SUGGESTERS:
        if len(out) >= MAX_SUGGESTIONS or verifier.exhausted:
            break
        out.extend(suggester(verifier, cycle))
    return out[:MAX_SUGGESTIONS]
