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

import copy
import dataclasses
import json
import math
import shlex
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import msgspec

from podwhy.framework.profile import DEFAULT_SCHEDULER_NAME, Profile
from podwhy.framework.status import Status
from podwhy.framework.types import NodeInfo, PodInfo, host_ports
from podwhy.heap import gc_deferred
from podwhy.model import objects as o
from podwhy.model.labels import RequiredNodeAffinity
from podwhy.model.quantity import quantity_milli_value, quantity_value
from podwhy.plugins.helper.taints import do_not_schedule_taints, tolerations_tolerate_taint
from podwhy.plugins.interpodaffinity.plugin import InterPodAffinity
from podwhy.plugins.nodeaffinity import NodeAffinity, required_node_selector
from podwhy.plugins.nodeports import NodePorts, fits_ports
from podwhy.plugins.noderesources.fit import Fit, InsufficientResource, compute_pod_resource_request, fits_request
from podwhy.plugins.nodevolumelimits import NodeVolumeLimits
from podwhy.plugins.podtopologyspread.plugin import PodTopologySpread
from podwhy.plugins.tainttoleration import TaintToleration
from podwhy.runtime.commands import manifest_command, patch_command, template_owner
from podwhy.runtime.config import SchedulerConfig, profile_for_pod
from podwhy.runtime.cycle import CycleOutcome, Verdict, make_framework, run_cycle
from podwhy.runtime.framework import Framework, NodeVerdict
from podwhy.runtime.nodecopy import (
    HOSTNAME_LABEL,
    copy_names,
    is_daemon_pod,
    is_mirror_pod,
    node_copy,
    startup_pods,
    startup_pods_by_node,
    startup_text,
    with_copies,
)
from podwhy.runtime.pending import (
    PendingPod,
    ReplicaSetIndex,
    owner_of,
    replica_set_index,
    spec_signature,
)
from podwhy.runtime.placement import NODE_LOCAL_FILTERS, KnownRejections, Placer
from podwhy.runtime.wellknown import PLATFORM_LABELS, condition_taint, reserving_taint, well_known_label
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.writer import REDACTED

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
# Plugins whose rejection a new copy of the node can cure (only its DaemonSet and static pods run
# there; _kept_off_copies checks that those leave room).
CURED_BY_EMPTY_NODE = frozenset(
    {RESOURCE_FIT, NodePorts.NAME, INTER_POD_AFFINITY, TOPOLOGY_SPREAD, NodeVolumeLimits.NAME}
)
MI = 1024 * 1024
# Workloads named in a summary (who selects on a label, who is on reserved nodes).
MAX_NAMES_SELECTING = 3
# Tolerations admission adds to every pod: a workload's template does not hold them.
ADMISSION_TOLERATION_KEYS = frozenset({"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"})


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
    document: dict[str, Any] | None = None
    # The pod's pending group (pods of its owner with identical specs, itself included) and the
    # configuration to place them with.
    group: Sequence[o.Pod] = ()
    group_owner: str | None = None
    config: SchedulerConfig | None = None
    release_options: list[tuple[bool, int, str, list[_Nomination]]] | None = None
    released: bool = False
    # Changes not looked for because a bound stopped the search, said in the report.
    notes: list[str] = field(default_factory=list)
    # The path of the manifest the pod was given in (`explain -f`; '-': stdin): not in the cluster.
    manifest: str | None = None
    # The snapshot's bound pods by node, built when first needed.
    pods_by_node: dict[str, list[o.Pod]] | None = None

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
        framework = Framework(self._framework().handle.without_nominations(uids), self.profile)
        return self._feasible(run_cycle(self.snapshot, self.pod, framework=framework))

    def cycle_of(self, pod: o.Pod) -> CycleOutcome | None:
        """Another pod's own scheduling cycle under this profile (None past the bounds)."""
        if self.exhausted:
            return None
        self.reruns += 1
        return run_cycle(self.snapshot, pod, framework=self._framework())

    def pod_document(self) -> dict[str, Any]:
        """The pod as its source held it (fields the typed model skips included) when the snapshot
        kept it, else its typed encoding."""
        if self.document is None:
            self.document = _source_document(self.snapshot, self.pod) or typed_document(self.pod)
        return self.document


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


def typed_document(pod: o.Pod) -> dict[str, Any]:
    """The pod as podwhy's typed model encodes it (only the fields the scheduler reads)."""
    return {"apiVersion": "v1", "kind": "Pod", **_builtins(pod)}


def _source_document(snapshot: Snapshot, pod: o.Pod) -> dict[str, Any] | None:
    """The pod as its source held it, when the snapshot kept it and it is this very pod (not a
    manifest given with -f that happens to share its name)."""
    data = snapshot.raw_pods.get(f"{pod.metadata.namespace}/{pod.metadata.name}")
    if data is None or not any(p is pod for p in snapshot.pods):
        return None
    try:
        doc = msgspec.json.decode(data)
    except msgspec.DecodeError:
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("spec"), dict) else None


def _pointer(path: str) -> list[str]:
    return [part.replace("~1", "/").replace("~0", "~") for part in path.split("/")[1:]]


def apply_json_patch(doc: Any, ops: list[dict[str, Any]]) -> Any:
    """RFC 6902 add / replace / remove applied to a copy of DOC (KeyError, IndexError, TypeError or
    ValueError when a path is not there)."""
    out = copy.deepcopy(doc)
    for op in ops:
        *parents, last = _pointer(op["path"])
        target = out
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        value = copy.deepcopy(op.get("value"))
        if isinstance(target, list):
            if op["op"] == "remove":
                del target[int(last)]
            elif op["op"] == "add":
                target.insert(len(target) if last == "-" else int(last), value)
            else:
                target[int(last)] = value
        elif isinstance(target, dict):
            if op["op"] == "remove":
                del target[last]
            else:
                target[last] = value
        else:
            raise TypeError(f"{op['path']}: not an object or array")
    return out


def merge_diff(old: Any, new: Any) -> Any:
    """The RFC 7386 merge patch that turns OLD into NEW: objects member by member (null removes a
    member), anything else, lists included, whole."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return copy.deepcopy(new)
    patch: dict[str, Any] = {key: None for key in old if key not in new}
    for key, value in new.items():
        if key not in old:
            patch[key] = copy.deepcopy(value)
        elif old[key] != value:
            patch[key] = merge_diff(old[key], value)
    return patch


def _pod_command(v: _Verifier, ops: list[dict[str, Any]]) -> str:
    """The command that makes the change OPS (RFC 6902, paths relative to the pod): to the manifest
    the pod was given in, else to the template of the workload that owns it."""
    if v.manifest is not None:
        return manifest_command(v.manifest, v.pod, ops)
    return patch_command(v.pod, v.snapshot, ops, v.group)


def _pod_patch(v: _Verifier, ops: list[dict[str, Any]]) -> dict[str, Any]:
    """The merge patch against the pod that RFC 6902 OPS (paths relative to the pod) make. A list it
    changes is written whole (RFC 7386 has no list merge) with its entries as the source held them."""
    doc = v.pod_document()
    try:
        new = apply_json_patch(doc, ops)
    except (KeyError, IndexError, TypeError, ValueError):
        # The source's pod lacks a path the typed model has (a value defaulted on decoding).
        doc = typed_document(v.pod)
        new = apply_json_patch(doc, ops)
    return {**_pod_ref(v.pod), "patch": merge_diff(doc, new)}


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
        out.append(
            Suggestion(
                kind="lowerRequest",
                summary=f"lower the {', '.join(said)}: it then fits on {_nodes_text(feasible)}",
                nodes=feasible,
                patches=[_pod_patch(v, ops)],
                command=_pod_command(v, ops),
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


def _tolerated_by_all(pods: Sequence[o.Pod], taint: o.Taint) -> bool:
    """Whether the pods (at least one) all tolerate the taint."""
    return bool(pods) and all(tolerations_tolerate_taint(p.spec.tolerations, taint) for p in pods)


def _reserved_for(v: _Verifier, taints: Sequence[o.Taint], node_names: Sequence[str]) -> str | None:
    """For whom the taints set their nodes aside, None when none of them reserves: a well-known
    reserving taint (accelerators, dedicated=..., spot, ...), or one that the workloads already on
    those nodes (DaemonSet and static pods aside) all tolerate."""
    if v.pods_by_node is None:
        v.pods_by_node = {}
        for pod in v.snapshot.pods:
            if pod.spec.node_name:
                v.pods_by_node.setdefault(pod.spec.node_name, []).append(pod)
    there = [
        p
        for name in node_names
        for p in v.pods_by_node.get(name, ())
        if not is_daemon_pod(p)
        and not is_mirror_pod(p)
        and p.status.phase not in ("Succeeded", "Failed")
        and p.metadata.uid != v.pod.metadata.uid
    ]
    whom: list[str] = []
    for taint in taints:
        known = reserving_taint(taint.key, taint.value)
        if known is not None:
            whom.append(known)
        elif _tolerated_by_all(there, taint):
            whom.append(f"the workloads that tolerate {taint.key}")
    if not whom:
        return None
    replica_sets = replica_set_index(v.snapshot)
    tolerating = sorted(
        {
            _workload(p, v.snapshot, replica_sets)
            for p in there
            if all(tolerations_tolerate_taint(p.spec.tolerations, t) for t in taints)
        }
    )
    already = (
        f" (already there: {', '.join(tolerating[:MAX_NAMES_SELECTING])}"
        + (f" and {len(tolerating) - MAX_NAMES_SELECTING} more" if len(tolerating) > MAX_NAMES_SELECTING else "")
        + ")"
        if tolerating
        else ""
    )
    return " and ".join(whom) + already


def _condition_note(taints: Sequence[tuple[str, str, str]], names: Sequence[str]) -> str:
    """Why no toleration is suggested for nodes whose untolerated taints say their condition."""
    said = ", ".join(f"{key} ({why})" for key, _, _ in taints if (why := condition_taint(key)) is not None)
    nodes, their = (
        (f"{len(names)} nodes ({_nodes_text(names)})", "their") if len(names) > 1 else (f"node {names[0]}", "its")
    )
    return (
        f"{nodes} would take the pod but for {their} taint {said}: the node's condition is the cause, not the pod; "
        "tolerating such a taint is never suggested"
    )


def _toleration_suggestion(v: _Verifier, cycle: CycleOutcome, reserved: bool) -> list[Suggestion]:
    """Tolerate the taints of the nodes that reject the pod only for them: ordinary taints
    (RESERVED false), or those reserving their nodes for someone (RESERVED true, the last resort).
    Taints of a node's condition or lifecycle are never tolerated."""
    assert cycle.outcome is not None
    nodes = {n.metadata.name: n for n in v.snapshot.nodes}
    groups: dict[tuple[tuple[str, str, str], ...], list[str]] = {}
    # Nodes kept off only by taints that include one of the node's condition: never tolerated.
    conditions: dict[tuple[tuple[str, str, str], ...], list[str]] = {}
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
        if untolerated and not any(condition_taint(key) is not None for key, _, _ in untolerated):
            groups.setdefault(untolerated, []).append(verdict.name)
        elif untolerated:
            conditions.setdefault(untolerated, []).append(verdict.name)
    if not reserved:
        v.notes.extend(_condition_note(taints, names) for taints, names in sorted(conditions.items()))
    ranked = sorted(groups.items(), key=lambda kv: (len(kv[0]), -len(kv[1]), kv[0]))
    tried = 0
    for taints, group_nodes in ranked:
        if tried >= MAX_TRIES_PER_KIND:
            break
        whom = _reserved_for(v, [o.Taint(key=k, value=val, effect=e) for k, val, e in taints], group_nodes)
        if (whom is not None) != reserved:
            continue
        tried += 1
        added = [_toleration_for(o.Taint(key=k, value=val, effect=e)) for k, val, e in taints]
        tolerations = [*v.pod.spec.tolerations, *added]
        pod = msgspec.structs.replace(v.pod, spec=msgspec.structs.replace(v.pod.spec, tolerations=tolerations))
        feasible = v.with_pod(pod)
        if feasible is None:
            continue
        # RFC 6902 "add" sets the whole list: the pod's own entries as its source held them, then
        # the new ones. The template (or manifest) lacks the tolerations admission adds.
        current = v.pod_document()["spec"].get("tolerations")
        if not isinstance(current, list) or len(current) != len(v.pod.spec.tolerations):
            current = _builtins(v.pod.spec.tolerations)
        new_entries = [*current, *_builtins(added)]
        owned = v.manifest is not None or template_owner(v.pod, v.snapshot) is not None
        kept = [
            t for t in new_entries if not (owned and isinstance(t, dict) and t.get("key") in ADMISSION_TOLERATION_KEYS)
        ]
        ops = [{"op": "add", "path": "/spec/tolerations", "value": kept}]
        names = ", ".join(f"{k}={val}:{e}" if val else f"{k}:{e}" for k, val, e in taints)
        fits = f"the pod then fits on {_nodes_text(feasible)}"
        summary = (
            f"tolerate the taint {names}: {fits}"
            if not reserved
            else f"last resort: tolerate the taint {names}, which puts this workload on nodes reserved for "
            f"{whom}; {fits}"
        )
        return [
            Suggestion(
                kind="addToleration",
                summary=summary,
                nodes=feasible,
                patches=[_pod_patch(v, [{"op": "add", "path": "/spec/tolerations", "value": new_entries}])],
                command=_pod_command(v, ops),
            )
        ]
    return []


def _suggest_toleration(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    return _toleration_suggestion(v, cycle, reserved=False)


def _suggest_reserved_toleration(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    """Nodes reserved for someone: offered last, after lowering requests and adding capacity."""
    return _toleration_suggestion(v, cycle, reserved=True)


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


def _workload(pod: o.Pod, snapshot: Snapshot, replica_sets: ReplicaSetIndex | None = None) -> str:
    """`namespace/name (Kind)` of the pod's owning workload, or `namespace/name (bare pod)`."""
    owner = owner_of(pod, snapshot, replica_sets)
    return str(owner) if owner is not None else f"{pod.metadata.namespace}/{pod.metadata.name} (bare pod)"


def _selecting(snapshot: Snapshot, node: o.Node, relabeled: o.Node) -> list[str]:
    """The workloads whose pods' nodeSelector / required node affinity matches NODE and no longer
    matches it RELABELED (once per workload; a DaemonSet's pod there would be removed)."""
    replica_sets = replica_set_index(snapshot)
    # Per workload: whether its DaemonSet pod on the node would be removed.
    removed: dict[str, bool] = {}
    for pod in snapshot.pods:
        if pod.status.phase in ("Succeeded", "Failed") or pod.metadata.deletion_timestamp is not None:
            continue
        if not pod.spec.node_selector and required_node_selector(pod) is None:
            continue
        required = RequiredNodeAffinity.of_pod(pod)
        if not required.matches(node) or required.matches(relabeled):
            continue
        name = _workload(pod, snapshot, replica_sets)
        daemon_here = is_daemon_pod(pod) and pod.spec.node_name == node.metadata.name
        removed[name] = removed.get(name, False) or daemon_here
    return [
        name + (f": its pod on {node.metadata.name} would be removed" if gone else "")
        for name, gone in sorted(removed.items())
    ]


def _overwrite_text(snapshot: Snapshot, node: o.Node, relabeled: o.Node, key: str, old: str) -> str:
    """What changing the node's KEY from OLD takes away: who selects on the old value."""
    selecting = _selecting(snapshot, node, relabeled)
    label = f"{key}={old}"
    if not selecting:
        return f"; it replaces {label}, on which no pod of the snapshot selects"
    shown = "; ".join(selecting[:MAX_NAMES_SELECTING])
    more = f" and {len(selecting) - MAX_NAMES_SELECTING} more" if len(selecting) > MAX_NAMES_SELECTING else ""
    return f"; it replaces {label}, on which these select: {shown}{more}"


def _suggest_label(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    assert cycle.outcome is not None
    nodes = {n.metadata.name: n for n in v.snapshot.nodes}
    groups: dict[tuple[str, str], list[str]] = {}
    for verdict in cycle.outcome.nodes:
        node = nodes.get(verdict.name)
        if node is None or _only_failing(verdict, NODE_AFFINITY) is None:
            continue
        needs = _label_needs(v.pod, node)
        # Well-known labels are never changed: the pod gets _suggest_unknown_selection instead.
        if needs is not None and len(needs) == 1 and well_known_label(next(iter(needs))) is None:
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
        old = target.metadata.labels.get(key)
        # --overwrite only where the node has the label with another value, saying what that takes away.
        overwrite = "" if old is None else " --overwrite"
        replaced = "" if old is None else _overwrite_text(v.snapshot, target, labeled, key, old)
        return [
            Suggestion(
                kind="labelNode",
                summary=f"label node {names[0]} with {key}={value}, which the pod's node selection requires"
                f"{others}{replaced}",
                nodes=feasible,
                patches=[
                    {"kind": "Node", "namespace": "", "name": names[0], "patch": {"metadata": {"labels": {key: value}}}}
                ],
                command=f"kubectl label node {shlex.quote(names[0])} {shlex.quote(f'{key}={value}')}{overwrite}",
            )
        ]
    return []


# ---------------------------------------------------------------- a selector on a well-known label


def _values_text(values: Sequence[str], limit: int = 3) -> str:
    return _nodes_text(sorted(values), limit) if values else "none"


def _unknown_selections(
    pod: o.Pod, present: Mapping[str, set[str]]
) -> list[tuple[str, str, list[dict[str, Any]], o.Pod]]:
    """The pod's requirements on a well-known label that name only values no node has, as
    (what the pod asks for, the key, the RFC 6902 ops that drop the requirement, the pod without it)."""
    out: list[tuple[str, str, list[dict[str, Any]], o.Pod]] = []
    for key, want in sorted(pod.spec.node_selector.items()):
        if well_known_label(key) is None or want in present.get(key, set()):
            continue
        selector = {k: val for k, val in pod.spec.node_selector.items() if k != key}
        changed = msgspec.structs.replace(pod, spec=msgspec.structs.replace(pod.spec, node_selector=selector))
        escaped = key.replace("~", "~0").replace("/", "~1")
        out.append(
            (
                f"nodeSelector asks for {key}={want}",
                key,
                [{"op": "remove", "path": f"/spec/nodeSelector/{escaped}"}],
                changed,
            )
        )
    required = required_node_selector(pod)
    affinity = pod.spec.affinity
    if required is None or affinity is None or affinity.node_affinity is None:
        return out
    base = "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution"
    for t, term in enumerate(required.node_selector_terms):
        for e, req in enumerate(term.match_expressions):
            if req.operator != "In" or well_known_label(req.key) is None:
                continue
            if any(val in present.get(req.key, set()) for val in req.values):
                continue
            rest = [x for i, x in enumerate(term.match_expressions) if i != e]
            terms = list(required.node_selector_terms)
            if rest or term.match_fields:
                terms[t] = msgspec.structs.replace(term, match_expressions=rest)
                ops = [{"op": "remove", "path": f"{base}/nodeSelectorTerms/{t}/matchExpressions/{e}"}]
            else:
                # An empty term matches no node: the term goes, and with the last term the requirement.
                del terms[t]
                ops = [{"op": "remove", "path": f"{base}/nodeSelectorTerms/{t}" if terms else base}]
            node_affinity = msgspec.structs.replace(
                affinity.node_affinity,
                required_during_scheduling_ignored_during_execution=(
                    msgspec.structs.replace(required, node_selector_terms=terms) if terms else None
                ),
            )
            changed = msgspec.structs.replace(
                pod,
                spec=msgspec.structs.replace(
                    pod.spec, affinity=msgspec.structs.replace(affinity, node_affinity=node_affinity)
                ),
            )
            which = f" (term {t})" if len(required.node_selector_terms) > 1 else ""
            asks = f"required node affinity{which} asks for {req.key} in [{', '.join(req.values)}]"
            out.append((asks, req.key, ops, changed))
    return out


def _suggest_unknown_selection(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    """A pod selecting on a well-known label (a hostname, a zone, an instance type) a value no node
    has: the pod names a node or zone that does not exist. The node is never relabelled (see
    runtime/wellknown.py); the verified change drops the requirement from the pod."""
    required = required_node_selector(v.pod)
    keys = {
        key
        for key in [
            *v.pod.spec.node_selector,
            *(r.key for t in (required.node_selector_terms if required else ()) for r in t.match_expressions),
        ]
        if well_known_label(key) is not None
    }
    if not keys:
        return []
    present: dict[str, set[str]] = {key: set() for key in keys}
    for node in v.snapshot.nodes:
        labels = node.metadata.labels
        for key in keys:
            if key in labels:
                present[key].add(labels[key])
    selections = _unknown_selections(v.pod, present)
    for asks, key, _, _ in selections:
        if key in PLATFORM_LABELS:
            v.notes.append(
                f"the pod's {asks}, which no node has (nodes have {key} {_values_text(sorted(present[key]))}): it "
                "needs a node of that platform; dropping the requirement is not suggested, as its images are "
                "built for it"
            )
    tries = [sel for sel in selections if sel[1] not in PLATFORM_LABELS]
    for asks, key, ops, pod in tries[:MAX_TRIES_PER_KIND]:
        feasible = v.with_pod(pod)
        if feasible is None:
            continue
        have = sorted(present.get(key, set()))
        return [
            Suggestion(
                kind="dropNodeSelection",
                summary=f"the pod's {asks}, which no node has (nodes have {key} {_values_text(have)}): drop the "
                f"requirement from the pod, or change it to a value a node has; without it the pod fits on "
                f"{_nodes_text(feasible)} (no node is relabelled with {key}: {well_known_label(key)})",
                nodes=feasible,
                patches=[_pod_patch(v, ops)],
                command=_pod_command(v, ops),
            )
        ]
    return []


# ---------------------------------------------------------------- add a node


def _node_object(node: o.Node) -> dict[str, Any]:
    return {"kind": "Node", "object": {"apiVersion": "v1", "kind": "Node", **_builtins(node)}}


def _shape(node: o.Node) -> str:
    labels = {k: val for k, val in node.metadata.labels.items() if k != HOSTNAME_LABEL}
    return json.dumps([labels, _builtins(node.spec), node.status.allocatable], sort_keys=True)


def _kept_off_copies(pod: o.Pod, node: o.Node, startup: Sequence[o.Pod], fit: Fit | None) -> list[tuple[str, str]]:
    """Why the pod fits on no new copy of the node because of the pods every copy runs from the
    start (its DaemonSet and static pods), as (plugin, message); empty when they leave it room."""
    if not startup:
        return []
    info = NodeInfo.for_node(node)
    for started in startup:
        info.add_pod_info(PodInfo(started))
    ignored = (fit.ignored_resources, fit.ignored_resource_groups) if fit is not None else (frozenset(), frozenset())
    out: list[tuple[str, str]] = []
    short = fits_request(compute_pod_resource_request(pod), info, *ignored, fit.dra_backed() if fit else frozenset())
    if short:
        reasons = ", ".join(r.reason for r in short)
        out.append((RESOURCE_FIT, f"{reasons} beside the DaemonSet and static pods a new node runs"))
    if not fits_ports(host_ports(pod), info.used_ports):
        out.append((NodePorts.NAME, "its host ports are taken by the DaemonSet and static pods a new node runs"))
    return out


def _copy_candidates(snapshot: Snapshot, cycle: CycleOutcome, fit: Fit | None) -> list[str]:
    """One node per shape whose rejection a new copy of it would cure, in node order."""
    assert cycle.outcome is not None
    nodes = {n.metadata.name: n for n in snapshot.nodes}
    shapes: dict[str, str] = {}
    startup: dict[str, list[o.Pod]] | None = None
    for verdict in cycle.outcome.nodes:
        failing = _failing(verdict)
        node = nodes.get(verdict.name)
        if node is None or not failing or not set(failing) <= CURED_BY_EMPTY_NODE:
            continue
        fit_status = failing.get(RESOURCE_FIT)
        if fit_status is not None and any(ev.data.get("exceedsAllocatable") for ev in fit_status.evidence):
            continue
        shape = _shape(node)
        if shape in shapes:
            continue
        startup = startup if startup is not None else startup_pods_by_node(snapshot)
        if _kept_off_copies(cycle.pod.pod, node, startup.get(verdict.name, []), fit):
            continue
        shapes[shape] = verdict.name
    return list(shapes.values())[:MAX_TRIES_PER_KIND]


def _fit_plugin(framework: Framework | None) -> Fit | None:
    fit = framework.plugins.get(RESOURCE_FIT) if framework is not None else None
    return fit if isinstance(fit, Fit) else None


def _suggest_add_node(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    nodes = {n.metadata.name: n for n in v.snapshot.nodes}
    for name in _copy_candidates(v.snapshot, cycle, _fit_plugin(v._framework())):
        changed, (added,) = with_copies(v.snapshot, nodes[name], 1)
        feasible = v.with_snapshot(changed)
        if feasible is None:
            continue
        shape = startup_text(startup_pods(v.snapshot, name), name)
        return [
            Suggestion(
                kind="addNode",
                summary=f"add 1 node shaped like {name} ({shape}): the pod fits on it",
                nodes=feasible,
                # Only the Node: the DaemonSet controller and the kubelet create its pods.
                patches=[_node_object(added)],
                command=f"# scale the node group of {name} up by 1 (the cluster autoscaler would add a node like it)",
            )
        ]
    return []


# ---------------------------------------------------------------- nodes for a whole pending group

# Copies of one node a group may be sized with, and the node evaluations one group's sizing may
# spend: per scheduling cycle, FILTER_WEIGHT for each node it filters (every filter plugin runs
# there), plus one for every node of the cluster when it scores or when the group's pods have
# constraints that look across nodes (PreScore and such PreFilters count pods on every node).
# About 1 s for one group at 5,000 nodes on a 2-core machine. Both are counts, so a result does
# not depend on the machine's speed; the time budget is a safety net such work stays well inside.
MAX_ADDED_NODES = 100
MAX_GROUP_PLACEMENT_WORK = 250_000
FILTER_WEIGHT = 4
GROUP_TIME_BUDGET_SECONDS = 10.0


class SizingOutcome(StrEnum):
    """How sizing a pending group ended."""

    # A verified count: the suggestion says how many nodes.
    SIZED = "sized"
    # No node of the cluster, even emptied, holds one of the group's pods.
    NO_NODE_SHAPE = "noNodeShape"
    # Nodes shaped like existing ones hold some of its pods, but no number of them holds all.
    NO_COUNT = "noCount"
    # A bound (node evaluations, added nodes, the time safety net) stopped the search.
    STOPPED = "stopped"
    # Not tried: only the largest groups are sized, within one bound for the whole run.
    SKIPPED = "skipped"


@dataclass
class GroupSizing:
    outcome: SizingOutcome
    # What it takes, when sized; otherwise why there is no count.
    note: str
    suggestion: Suggestion | None = None


@dataclass
class GroupBudget:
    """Node evaluations left, shared by the groups sized in one run, and when to stop anyway."""

    work: int = field(default_factory=lambda: MAX_GROUP_PLACEMENT_WORK)
    deadline: float = field(default_factory=lambda: time.monotonic() + GROUP_TIME_BUDGET_SECONDS)
    # The bound `work` stands for, as the note words it.
    bound: str = ""
    # What stopped the search: "" (nothing yet), "work" or "time".
    stopped_by: str = ""

    def spend(self, evaluations: int) -> bool:
        if time.monotonic() > self.deadline:
            self.stopped_by = "time"
        elif evaluations > self.work:
            self.stopped_by = "work"
        else:
            self.work -= evaluations
            return True
        return False

    def stop_note(self, nodes: int) -> str:
        if self.stopped_by == "time":
            return (
                f"sizing stopped by its safety net of {GROUP_TIME_BUDGET_SECONDS:.0f} s (unlike its other bounds, "
                "this one depends on the machine's speed); no count was verified"
            )
        bound = self.bound or f"the {MAX_GROUP_PLACEMENT_WORK:,} node evaluations one group may spend"
        cluster = "1 node" if nodes == 1 else f"{nodes:,} nodes"
        return (
            f"sizing stopped at {bound} ({cluster}: a scheduling cycle that scores looks at every one); "
            "no count was verified"
        )


class _NoCount(StrEnum):
    """Why one node shape gave no count."""

    NONE_FITS = "noneFits"  # not one pod fits on a new copy
    NO_MORE = "noMore"  # more copies placed no more pods
    TOO_MANY = "tooMany"  # more than MAX_ADDED_NODES copies would be needed
    BOUND = "bound"  # the budget ran out


@dataclass
class _Placed:
    count: int
    nodes: list[str]


def _required_pod_affinity(pod: o.Pod) -> bool:
    affinity = pod.spec.affinity
    if affinity is None:
        return False
    return bool(
        (affinity.pod_affinity and affinity.pod_affinity.required_during_scheduling_ignored_during_execution)
        or (
            affinity.pod_anti_affinity
            and affinity.pod_anti_affinity.required_during_scheduling_ignored_during_execution
        )
    )


def _uses_claims(pod: o.Pod) -> bool:
    return bool(pod.spec.resource_claims) or any(
        v.persistent_volume_claim is not None or v.ephemeral is not None for v in pod.spec.volumes
    )


def static_filters(pods: Sequence[o.Pod]) -> frozenset[str]:
    """Filters whose rejection of a node, while these pods are placed one after another, holds
    until a pod is bound to that node: the node-local ones, and InterPodAffinity when no pod of the
    group has required pod (anti-)affinity terms (it then only applies the anti-affinity of pods
    already running, which placing these pods does not change)."""
    if any(_required_pod_affinity(p) for p in pods):
        return NODE_LOCAL_FILTERS
    return NODE_LOCAL_FILTERS | {INTER_POD_AFFINITY}


def node_local_group(framework: Framework, cycle: CycleOutcome, pods: Sequence[o.Pod], static: frozenset[str]) -> bool:
    """Whether every filter's verdict for the group's pods, on any node, changes only when a pod is
    bound to that node: identical pods, no claims (volume binding and ReadWriteOncePod look across
    nodes), and every filter of the profile static or skipped at PreFilter for them (PodTopologySpread
    skips pods without DoNotSchedule constraints; the volume and DRA plugins, pods without claims).

    Then the count is the same wherever each pod goes: an added node holds the same number c of
    them whichever pods went before it elsewhere, no existing node ever takes one, so k copies hold
    min(pods, k*c) however the pods are spread over them. Sizing may then search without scoring."""
    outcome = cycle.outcome
    if outcome is None or len({spec_signature(p) for p in pods}) != 1 or _uses_claims(pods[0]):
        return False
    passing = {rec.plugin for rec in outcome.pre_filter if rec.status.is_skip() or rec.status.not_evaluated}
    passing |= outcome.not_evaluated.keys()
    return all(
        name in static or name in passing
        for name in framework.profile.filter
        if name in framework.plugins and framework.plugins[name].implements("filter")
    )


@dataclass
class _GroupSizer:
    """Places a group's pods one after another, as the scheduler would, on the snapshot plus
    new copies of one node (each with the node's DaemonSet and static pods)."""

    snapshot: Snapshot
    config: SchedulerConfig
    pods: Sequence[o.Pod]
    budget: GroupBudget
    # Per profile, the unchanged snapshot's indexes: each placement copies them and adds the
    # copies of the node, rather than indexing every pod again.
    frameworks: dict[str, Framework]
    # Nodes of the snapshot known to reject the first pod's spec (from its cycle on the snapshot).
    known: KnownRejections | None = None
    # The filters whose rejections are remembered while placing (static_filters).
    static: frozenset[str] = NODE_LOCAL_FILTERS
    signatures: list[bytes] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.signatures = [spec_signature(p) for p in self.pods]

    def place(
        self, node: o.Node, copies: int, first_fit: bool = False, learned: bool = True
    ) -> tuple[int, list[str]] | None:
        """How many pods got placed before the first that stays Pending, and the nodes they went
        to; None past the bounds. `first_fit`: no scoring, the first node that fits (only for
        node-local groups, whose count does not depend on it). Without `learned`, nothing known
        before is used: the nodes that reject the group are learned from this placement alone."""
        # Fresh lists: binding appends to the snapshot's pods, never to the shared one's.
        changed, added = with_copies(self.snapshot, node, copies)
        nodes = changed.nodes
        if not self.budget.spend(len(nodes)):
            return None
        placer = Placer(changed, self.config, placement_only=True, first_fit=first_fit)
        for name, base in self.frameworks.items():
            placer.frameworks[name] = Framework(base.handle.with_nodes(changed, added), base.profile)
        # Per spec, the nodes known to reject it; a bound pod makes every spec look at its node again.
        known: dict[bytes, KnownRejections] = {}
        if learned and self.known is not None and self.signatures:
            known[self.signatures[0]] = self.known.copy()
        used: list[str] = []
        with gc_deferred():
            for pod, signature in zip(self.pods, self.signatures, strict=True):
                rejecting = known.setdefault(signature, KnownRejections(self.static))
                filtered = FILTER_WEIGHT * (len(nodes) - len(rejecting.verdicts))
                if not self.budget.spend(filtered if first_fit else filtered + len(nodes)):
                    return None
                # Binding sets spec.nodeName on the pod it is given: give it a copy.
                placement = placer.schedule(
                    msgspec.structs.replace(pod, spec=msgspec.structs.replace(pod.spec)), rejecting
                )
                if not placement.placed:
                    break
                used.append(placement.node)
                for other in known.values():
                    other.forget(placement.node)
        return len(used), used

    def nodes_needed(self, node: o.Node, first_fit: bool = False) -> _Placed | _NoCount:
        """The fewest copies of the node on which every pod of the group gets placed, with the nodes
        they go to (from the placement with that many copies); else why there is none."""
        count = len(self.pods)
        fails, fits = 0, 1  # copies known not to do (none: the pods are Pending), copies tried
        result = self.place(node, fits, first_fit)
        if result is None:
            return _NoCount.BOUND
        if result[0] == 0:
            return _NoCount.NONE_FITS
        placed, used = result
        while placed < count:
            if fits >= MAX_ADDED_NODES:
                return _NoCount.TOO_MANY
            fails = fits
            # Pods per added node so far, extrapolated; at least one node more.
            more = min(MAX_ADDED_NODES, max(fits + 1, math.ceil(count * fits / placed)))
            result = self.place(node, more, first_fit)
            if result is None:
                return _NoCount.BOUND
            if result[0] <= placed:
                return _NoCount.NO_MORE  # more copies placed no more pods: they never all fit
            fits, (placed, used) = more, result
        # The fewest: one copy fewer must not do (when the extrapolation overshot, search down).
        probe = fits - 1
        while fits - fails > 1:
            result = self.place(node, probe, first_fit)
            if result is None:
                return _NoCount.BOUND
            if result[0] >= count:
                fits, used = probe, result[1]
            else:
                fails = probe
            probe = (fails + fits) // 2
        return _Placed(fits, used)


def _pods_text(count: int, owner: str | None) -> str:
    return f"{count} pod{'s' if count != 1 else ''}" + (f" of {owner}" if owner else "")


def _amount_text(resource: str, amount: int) -> str:
    if resource == "cpu":
        return str(amount // 1000) if amount % 1000 == 0 else f"{amount}m"
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        for unit, size in (("Gi", 1024 * MI), ("Mi", MI), ("Ki", 1024)):
            if amount >= size and amount % size == 0:
                return f"{amount // size}{unit}"
    return str(amount)


def allocatable_shapes(snapshot: Snapshot) -> list[NodeInfo]:
    """One new node per distinct allocatable and room its DaemonSet and static pods take: each
    node's index with only those pods counted."""
    startup = startup_pods_by_node(snapshot)
    shapes: dict[str, NodeInfo] = {}
    for node in snapshot.nodes:
        info = NodeInfo.for_node(node)
        for pod in startup.get(node.metadata.name, []):
            info.add_pod_info(PodInfo(pod))
        key = json.dumps(node.status.allocatable, sort_keys=True) + repr((info.requested, len(info.pods)))
        shapes.setdefault(key, info)
    return list(shapes.values())


def beyond_every_node(pod: o.Pod, shapes: Sequence[NodeInfo], framework: Framework) -> str | None:
    """Why no new node shaped like one of the snapshot has room for one such pod (its requests
    against each distinct allocatable, less what the node's DaemonSet and static pods take,
    `shapes`, as NodeResourcesFit counts them); None when one has."""
    fit = framework.plugins.get(RESOURCE_FIT)
    if not isinstance(fit, Fit) or not shapes:
        return None
    request = compute_pod_resource_request(pod)
    lacking: list[tuple[NodeInfo, list[InsufficientResource]]] = []
    for info in shapes:
        insufficient = fits_request(request, info, fit.ignored_resources, fit.ignored_resource_groups, fit.dra_backed())
        if not insufficient:
            return None
        lacking.append((info, insufficient))
    # Resources no node has enough of, with the most any new node has free (allocatable less what
    # its DaemonSet and static pods take) and that node's allocatable.
    everywhere = set.intersection(*({r.resource_name for r in short} for _, short in lacking))
    most: dict[str, tuple[int, int, int]] = {}
    for _, short in lacking:
        for r in short:
            if r.resource_name in everywhere:
                best = most.get(r.resource_name, (r.requested, -1, 0))
                if r.capacity - r.used > best[1]:
                    most[r.resource_name] = (r.requested, r.capacity - r.used, r.capacity)
    started = any(room < capacity for _, room, capacity in most.values()) if most else any(i.pods for i, _ in lacking)
    lead = "no node shape of the cluster holds one of these pods, " + (
        "even new (running only its DaemonSet and static pods): " if started else "even empty: "
    )
    if most:
        return lead + ", ".join(
            f"it requests {_amount_text(resource, requested)} {resource}, which no node has allocatable"
            if not capacity
            else f"its {resource} request {_amount_text(resource, requested)} exceeds what any node has "
            + ("free" if room < capacity else "allocatable")
            + f" (at most {_amount_text(resource, max(room, 0))})"
            for resource, (requested, room, capacity) in sorted(most.items())
        )
    said = "; ".join(
        f"nodes like {info.name} lack {', '.join(r.resource_name for r in short)}"
        for info, short in lacking[:MAX_TRIES_PER_KIND]
    )
    more = f"; and {len(lacking) - MAX_TRIES_PER_KIND} more shapes" if len(lacking) > MAX_TRIES_PER_KIND else ""
    return lead + f"each has too little of some of its requests ({said}{more})"


def _why_no_copy(snapshot: Snapshot, cycle: CycleOutcome, fit: Fit | None) -> str:
    """Why no node qualifies for copying: what rejects the pod on each node that a new copy of it
    would not cure (a copy runs the node's DaemonSet and static pods from the start)."""
    assert cycle.outcome is not None
    counts: dict[tuple[str, str], int] = {}
    startup: dict[str, list[o.Pod]] | None = None
    nodes = {n.metadata.name: n for n in snapshot.nodes}
    for verdict in cycle.outcome.nodes:
        kept: list[tuple[str, str]] = []
        failing = _failing(verdict)
        for name, status in failing.items():
            exceeds = name == RESOURCE_FIT and any(ev.data.get("exceedsAllocatable") for ev in status.evidence)
            if name not in CURED_BY_EMPTY_NODE or exceeds:
                kept.append((name, status.message()))
        node = nodes.get(verdict.name)
        if not kept and failing and node is not None:
            startup = startup if startup is not None else startup_pods_by_node(snapshot)
            kept = _kept_off_copies(cycle.pod.pod, node, startup.get(verdict.name, []), fit)
        for key in kept:
            counts[key] = counts.get(key, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    reasons = "; ".join(f"{plugin} on {n} node{'s' if n != 1 else ''}: {msg}" for (plugin, msg), n in ranked[:3])
    more = f"; and {len(ranked) - 3} more" if len(ranked) > 3 else ""
    return (
        "no node shape of the cluster holds one of these pods, even empty: every node also rejects them "
        f"for a reason a new copy of it keeps ({reasons}{more})"
        if ranked
        else "no node shape of the cluster holds one of these pods, even empty"
    )


def size_group(
    snapshot: Snapshot,
    cycle: CycleOutcome,
    pods: Sequence[o.Pod],
    config: SchedulerConfig,
    owner: str | None,
    budget: GroupBudget | None = None,
    frameworks: Mapping[str, Framework] | None = None,
) -> GroupSizing:
    """The cluster-autoscaler question for a whole pending group (pods of one owner): how many more
    nodes shaped like an existing one it takes for every pod to fit, found by placing the pods one
    after another as the scheduler would. `cycle` is the first pod's with every plugin on every
    node (it says which nodes a new copy would cure, and which reject the pod for good).
    `frameworks` (per profile name, over `snapshot`) saves indexing it again.

    The count is the fewest for which every pod gets placed (one fewer does not do), and verified:
    by the placement with that many copies itself, or, when the search ran without scoring (a
    node-local group, see node_local_group), by one more placement as the scheduler would, on the
    whole cluster with that many copies, that uses nothing the search learned."""
    budget = budget or GroupBudget()
    if cycle.outcome is None or not pods:
        return GroupSizing(SizingOutcome.SKIPPED, "not sized: no scheduling cycle to start from")
    if cycle.outcome.not_evaluated:
        # Placements would pass plugins podwhy cannot run: a count from them would claim too much.
        return GroupSizing(SizingOutcome.SKIPPED, f"not sized: {cycle.not_evaluated_text}")
    nodes = {n.metadata.name: n for n in snapshot.nodes}
    bases = dict(frameworks or {})
    names = frozenset(p.scheduler_name for p in config.profiles)
    for pod in pods:
        profile = profile_for_pod(config, pod)
        if profile is not None and profile.scheduler_name not in bases:
            bases[profile.scheduler_name] = make_framework(snapshot, profile, names)
    profile = profile_for_pod(config, pods[0])
    base = bases.get(profile.scheduler_name) if profile is not None else None
    candidates = _copy_candidates(snapshot, cycle, _fit_plugin(base))
    if not candidates:
        return GroupSizing(SizingOutcome.NO_NODE_SHAPE, _why_no_copy(snapshot, cycle, _fit_plugin(base)))
    static = static_filters(pods)
    known = KnownRejections(static)
    known.learn(cycle.outcome)
    fast = base is not None and node_local_group(base, cycle, pods, static)
    sizer = _GroupSizer(snapshot, config, pods, budget, bases, known, static)
    why: list[str] = []
    stopped = ""
    for name in candidates:
        needed = sizer.nodes_needed(nodes[name], first_fit=fast)
        if isinstance(needed, _Placed) and fast:
            # Searched without scoring: place them once more as the scheduler would, learning nothing.
            verified = sizer.place(nodes[name], needed.count, learned=False)
            if verified is None:
                needed = _NoCount.BOUND
            elif verified[0] >= len(pods):
                needed.nodes = verified[1]
            else:
                needed = sizer.nodes_needed(nodes[name])
        if needed == _NoCount.BOUND:
            return GroupSizing(SizingOutcome.STOPPED, budget.stop_note(len(snapshot.nodes)))
        if isinstance(needed, _Placed):
            return _group_suggestion(snapshot, nodes[name], needed, pods, owner)
        if needed == _NoCount.TOO_MANY:
            stopped = f"sizing stopped: more than {MAX_ADDED_NODES} added nodes shaped like {name} would be needed"
        elif needed == _NoCount.NONE_FITS:
            why.append(f"not one fits on a new node shaped like {name}")
        else:
            why.append(f"more nodes shaped like {name} take no more of them")
    if stopped:
        return GroupSizing(SizingOutcome.STOPPED, stopped)
    return GroupSizing(SizingOutcome.NO_COUNT, "no number of added nodes lets all of them fit: " + "; ".join(why))


def _group_suggestion(
    snapshot: Snapshot, node: o.Node, placed: _Placed, pods: Sequence[o.Pod], owner: str | None
) -> GroupSizing:
    name, count = node.metadata.name, placed.count
    added = [node_copy(node, copy_name) for copy_name in copy_names(snapshot, name, count)]
    need = "needs" if len(pods) == 1 else "need"
    nodes_text = "1 more node" if count == 1 else f"{count} more nodes"
    suggestion = Suggestion(
        kind="addNodesForGroup",
        summary=f"{_pods_text(len(pods), owner)} {need} {nodes_text} shaped like {name} "
        f"({startup_text(startup_pods(snapshot, name), name)}): placed one after another as the scheduler would, "
        f"{'it fits' if len(pods) == 1 else 'all of them fit'}",
        nodes=sorted(set(placed.nodes)),
        # Only the Nodes: the DaemonSet controller and the kubelet create their pods.
        patches=[_node_object(n) for n in added],
        command=f"# scale the node group of {name} up by {count} "
        f"(the cluster autoscaler would add {'a node' if count == 1 else 'nodes'} like it)",
    )
    fewer = f"; with {count - 1} not all of them do" if count > 1 else ""
    return GroupSizing(SizingOutcome.SIZED, f"sized: {nodes_text} shaped like {name}{fewer}", suggestion)


def _suggest_group_nodes(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    if v.config is None or len(v.group) < 2:
        return []
    if v.exhausted:
        v.notes.append(
            f"{_pods_text(len(v.group), v.group_owner)}, the pod's pending group: not sized, the suggestions' "
            f"bound ({MAX_RERUNS} re-runs, {TIME_BUDGET_SECONDS:.0f} s) was reached first"
        )
        return []
    sizing = size_group(
        v.snapshot, cycle, v.group, v.config, v.group_owner, frameworks={v.profile.scheduler_name: v._framework()}
    )
    if sizing.suggestion is not None:
        return [sizing.suggestion]
    if sizing.outcome in (SizingOutcome.STOPPED, SizingOutcome.SKIPPED):
        v.notes.append(f"{_pods_text(len(v.group), v.group_owner)}, the pod's pending group: {sizing.note}")
    return []


# ---------------------------------------------------------------- evict pods


# Evicted pods whose replacement is run through the filters, per suggestion.
MAX_VICTIMS_CHECKED = 3
# What recreates a pod evicted from its node, per owner kind (others: "its <Kind>").
RECREATED_BY = {
    "DaemonSet": "its DaemonSet {name} recreates it on the same node",
    "Job": "its Job {name} creates a new pod",
    "CronJob": "its Job (of CronJob {name}) creates a new pod",
}


def _eviction_command(victims: Sequence[o.Pod]) -> str:
    """Evictions through the Eviction API (`kubectl delete pod` would bypass PodDisruptionBudgets
    and `kubectl drain` would cordon the node the pod needs): the API server refuses one a budget
    forbids (429), and `&&` stops there."""
    parts = []
    for pod in victims:
        ns, name = pod.metadata.namespace, pod.metadata.name
        body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": ns}}
        parts.append(
            f"echo {shlex.quote(json.dumps(body, separators=(',', ':')))} | "
            f"kubectl create --raw {shlex.quote(f'/api/v1/namespaces/{ns}/pods/{name}/eviction')} -f -"
        )
    return (
        " && ".join(parts)
        + "  # the Eviction API, which refuses what a PodDisruptionBudget forbids (kubectl delete pod would not)"
    )


def _recreated(pod: o.Pod, snapshot: Snapshot) -> str | None:
    """What recreates the pod once it is evicted; None when nothing does (a bare pod)."""
    owner = owner_of(pod, snapshot)
    if owner is None:
        return None
    name = f"{owner.namespace}/{owner.name}"
    return RECREATED_BY.get(owner.kind, "its {kind} {name} creates a new pod").format(kind=owner.kind, name=name)


def _afterwards(v: _Verifier, node: str, victims: Sequence[o.Pod]) -> str:
    """What becomes of each evicted pod: what recreates it, and where its replacement fits once the
    pod is on NODE (the filters run against the cluster without the victims, the pod placed)."""
    placed = msgspec.structs.replace(v.pod, spec=msgspec.structs.replace(v.pod.spec, node_name=node))
    gone = {p.metadata.uid for p in victims}
    pods = [
        p
        for p in v.snapshot.pods
        if p.metadata.uid not in gone and p is not v.pod and (p.metadata.uid or None) != v.pod.metadata.uid
    ]
    changed = dataclasses.replace(v.snapshot, pods=[*pods, placed])
    framework: Framework | None = None
    checked: dict[bytes, str] = {}
    said: list[str] = []
    for victim in victims:
        key = f"{victim.metadata.namespace}/{victim.metadata.name}"
        recreated = _recreated(victim, v.snapshot)
        if recreated is None:
            said.append(f"{key} is a bare pod: nothing recreates it, it is gone for good")
            continue
        signature = spec_signature(victim)
        if signature not in checked:
            if len(checked) >= MAX_VICTIMS_CHECKED or v.exhausted:
                checked[signature] = "where it fits then was not checked (the suggestions' bound)"
            else:
                framework = framework or make_framework(changed, v.profile, v.scheduler_names)
                again = msgspec.structs.replace(
                    victim,
                    spec=msgspec.structs.replace(victim.spec, node_name=""),
                    status=msgspec.structs.replace(victim.status, nominated_node_name=""),
                )
                v.reruns += 1
                outcome = run_cycle(changed, again, framework=framework, scoring=False, post_filter=False)
                if outcome.verdict == Verdict.SCHEDULABLE and outcome.outcome is not None:
                    fits = list(outcome.outcome.feasible)
                    back = f" ({node} again)" if node in fits else ""
                    checked[signature] = f"it then fits on {_nodes_text(fits)}{back}"
                elif outcome.verdict == Verdict.UNSCHEDULABLE:
                    checked[signature] = "no node fits it then: it stays Pending"
                else:
                    checked[signature] = f"it is then {outcome.verdict}"
        said.append(f"{key}: {recreated}; {checked[signature]}")
    return "; ".join(said)


def _suggest_evict(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    post_filter = cycle.post_filter
    preemption = post_filter.preemption if post_filter is not None else None
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
        budgets_unknown = "PodDisruptionBudget" in v.snapshot.missing or (
            post_filter is not None and post_filter.pdbs_assumed_none
        )
        budgets = (
            "the snapshot has no PodDisruptionBudgets: the Eviction API refuses an eviction one forbids"
            if budgets_unknown
            else "no PodDisruptionBudget is broken"
        )
        return [
            Suggestion(
                kind="evictPods",
                summary=f"evict {len(victims)} lower-priority pod(s) from node {cand.node} "
                f"({', '.join(pi.key for pi in cand.victims)}); {budgets}; afterwards "
                f"{_afterwards(v, cand.node, victims)}",
                nodes=feasible,
                patches=[{**_pod_ref(p), "patch": None} for p in victims],
                command=_eviction_command(victims),
            )
        ]
    return []


# ---------------------------------------------------------------- release reservations

RELEASE_NOMINATION_PATCH: dict[str, Any] = {"status": {"nominatedNodeName": None}}


# Nominated pods whose own cycle is run to tell a stale nomination, per suggestion.
MAX_NOMINATIONS_CHECKED = 6


@dataclass
class _Nomination:
    pod: PodInfo
    node: str
    # Its nominated node no longer fits it and nothing it preempted is still leaving: the room
    # stays reserved for a pod that will not come.
    stale: bool = False
    # Lower-priority pods still terminating on its node (the victims it waits for).
    terminating: int = 0


def _terminating_victims(snapshot: Snapshot, node: str, priority: int) -> int:
    return sum(
        1
        for p in snapshot.pods
        if p.spec.node_name == node and p.metadata.deletion_timestamp is not None and (p.spec.priority or 0) < priority
    )


def _nomination(v: _Verifier, pi: PodInfo, node: str, check: bool) -> _Nomination:
    """The nomination, stale when its pod's own cycle (under this profile) no longer fits the node."""
    out = _Nomination(pi, node, terminating=_terminating_victims(v.snapshot, node, pi.priority))
    same_profile = (pi.pod.spec.scheduler_name or DEFAULT_SCHEDULER_NAME) == v.profile.scheduler_name
    if check and same_profile and not out.terminating:
        cycle = v.cycle_of(pi.pod)
        out.stale = cycle is not None and cycle.outcome is not None and not cycle.nominated_node_fits
    return out


def _release_command(released: Sequence[_Nomination]) -> str:
    patch = shlex.quote(json.dumps(RELEASE_NOMINATION_PATCH, separators=(",", ":")))
    return (
        " && ".join(
            f"kubectl patch pod {shlex.quote(n.pod.pod.metadata.name)} -n {shlex.quote(n.pod.pod.metadata.namespace)}"
            f" --subresource=status --type merge -p {patch}"
            for n in released
        )
        + "  # kubectl 1.24+; needs patch on pods/status"
    )


def _release_summary(node: str, released: Sequence[_Nomination], feasible: Sequence[str]) -> str:
    pods = ", ".join(f"{n.pod.key} (priority {n.pod.priority})" for n in released)
    fits = f"the pod then fits on {_nodes_text(feasible)}"
    if all(n.stale for n in released):
        return (
            f"release the stale nomination of {pods} to node {node}, the likely root cause: {node} no longer "
            f"fits {'it' if len(released) == 1 else 'them'} and nothing {'it' if len(released) == 1 else 'they'} "
            f"preempted is still leaving, yet the room stays reserved; {fits} (kube-scheduler also clears or "
            "moves a nomination when it next retries that pod)"
        )
    waiting = [
        f"{n.pod.key} waits for {n.terminating} preempted pod(s) to terminate" for n in released if n.terminating
    ]
    return (
        f"release the room reserved on node {node} by nominated pod(s) {pods}"
        + (f" ({'; '.join(waiting)})" if waiting else "")
        + f": {fits}, but a pod that loses its nomination must preempt again to get room back"
    )


def _release_options(v: _Verifier, cycle: CycleOutcome) -> list[tuple[bool, int, str, list[_Nomination]]]:
    """Per node that rejects the pod only for the room nominated pods of its priority or higher
    reserve there (fewest such pods first): its stale nominations alone, and all of them; each
    as (includes a valid nomination, how many, node, nominations). Worked out once per pod."""
    if v.release_options is not None:
        return v.release_options
    assert cycle.outcome is not None
    reserved = sorted(
        (verdict for verdict in cycle.outcome.nodes if not verdict.feasible and verdict.feasible_without_nominated),
        key=lambda verdict: (len(verdict.nominated_pods), verdict.name),
    )[:MAX_TRIES_PER_KIND]
    options: list[tuple[bool, int, str, list[_Nomination]]] = []
    checked = 0
    for verdict in reserved:
        nominations: list[_Nomination] = []
        for pi in verdict.nominated_pods:
            nominations.append(_nomination(v, pi, verdict.name, check=checked < MAX_NOMINATIONS_CHECKED))
            checked += 1
        stale = [n for n in nominations if n.stale]
        if stale and len(stale) < len(nominations):
            options.append((False, len(stale), verdict.name, stale))
        options.append((len(stale) < len(nominations), len(nominations), verdict.name, nominations))
    v.release_options = sorted(options, key=lambda opt: opt[:3])
    return v.release_options


def _suggest_release(v: _Verifier, cycle: CycleOutcome, stale_only: bool) -> list[Suggestion]:
    if v.released:
        return []
    for includes_valid, _, node, released in _release_options(v, cycle):
        if includes_valid == stale_only:
            continue
        feasible = v.without_nominations(frozenset(n.pod.uid for n in released))
        if feasible is None:
            continue
        v.released = True
        return [
            Suggestion(
                kind="releaseNomination",
                summary=_release_summary(node, released, feasible),
                nodes=feasible,
                patches=[{**_pod_ref(n.pod.pod), "patch": RELEASE_NOMINATION_PATCH} for n in released],
                command=_release_command(released),
            )
        ]
    return []


def _suggest_release_stale_nominations(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    """Stale nominations holding the room the pod needs: the likely root cause, offered first."""
    return _suggest_release(v, cycle, stale_only=True)


def _suggest_release_nominations(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    """Valid nominations holding the room: releasing them takes room from higher-priority pods,
    so they come with the other changes that do (evictions), when no stale release was found."""
    return _suggest_release(v, cycle, stale_only=False)


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
                    patches=[_pod_patch(v, ops)],
                    command=_pod_command(v, ops),
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
        ops = [
            {
                "op": "remove",
                "path": f"/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/{index}",
            }
        ]
        return [
            Suggestion(
                kind="dropAntiAffinity",
                summary=f"drop the required pod anti-affinity term #{index} (topologyKey {term.topology_key}) "
                "or make it preferred",
                nodes=feasible,
                patches=[_pod_patch(v, ops)],
                command=_pod_command(v, ops),
            )
        ]
    return []


SUGGESTERS: tuple[Callable[[_Verifier, CycleOutcome], list[Suggestion]], ...] = (
    _suggest_release_stale_nominations,
    _suggest_lower_request,
    _suggest_toleration,
    _suggest_unknown_selection,
    _suggest_label,
    _suggest_add_node,
    _suggest_group_nodes,
    _suggest_evict,
    _suggest_release_nominations,
    _suggest_relax_spread,
    _suggest_drop_anti_affinity,
    _suggest_reserved_toleration,
)


def suggest(
    snapshot: Snapshot,
    cycle: CycleOutcome,
    profile: Profile,
    scheduler_names: frozenset[str] | None = None,
    config: SchedulerConfig | None = None,
    group: Sequence[o.Pod] = (),
    group_owner: str | None = None,
    framework: Framework | None = None,
    notes: list[str] | None = None,
    manifest: str | None = None,
) -> list[Suggestion]:
    """Verified changes that make an Unschedulable pod Schedulable; [] for any other verdict. With
    the pod's pending `group` and the `config`, also how many nodes the whole group needs.
    `framework`: the profile's over `snapshot` (make_framework), when the caller has one. `notes`
    gets what a bound kept from being looked for. `manifest`: the path of the manifest the pod
    was given in ('-': stdin), whose changes are commands on that file."""
    if cycle.verdict != Verdict.UNSCHEDULABLE or cycle.outcome is None or cycle.outcome.error is not None:
        return []
    verifier = _Verifier(
        snapshot,
        cycle.pod.pod,
        profile,
        scheduler_names,
        framework=framework,
        group=group,
        group_owner=group_owner,
        config=config,
        manifest=manifest,
    )
    out: list[Suggestion] = []
    for suggester in SUGGESTERS:
        if len(out) >= MAX_SUGGESTIONS or verifier.exhausted:
            break
        out.extend(suggester(verifier, cycle))
    out = out[:MAX_SUGGESTIONS]
    for suggestion in out:
        if any(p.get("kind") == "Pod" and REDACTED in json.dumps(p.get("patch")) for p in suggestion.patches):
            # A merge patch writes lists whole: from a redacted dump it would write "<redacted>" back.
            suggestion.summary += (
                f" (the snapshot is redacted: the pod's merge patch carries {REDACTED} values; run the command instead)"
            )
    if notes is not None:
        notes.extend(verifier.notes)
    return out


# `podwhy pending`: groups sized, largest first, and the node evaluations all of them may spend.
MAX_GROUPS_SIZED = 5
MAX_GROUPS_PLACEMENT_WORK = 4 * MAX_GROUP_PLACEMENT_WORK
GroupKey = tuple[str, str, str | None]


def size_groups(
    snapshot: Snapshot,
    pending: Sequence[PendingPod],
    config: SchedulerConfig,
    frameworks: Mapping[str, Framework] | None = None,
) -> dict[GroupKey, GroupSizing]:
    """For `podwhy pending`: per group of Unschedulable pods (PendingPod.group_key), how many more
    nodes shaped like an existing one every pod of it needs, or why that was not found. Groups
    whose pods no node shape has room for are told so at once; of the others, the largest
    MAX_GROUPS_SIZED are sized, within MAX_GROUPS_PLACEMENT_WORK node evaluations in all.
    `frameworks` (per profile name, over `snapshot`, e.g. the classifier's) are reused."""
    groups: dict[GroupKey, list[o.Pod]] = {}
    for item in pending:
        if item.verdict == Verdict.UNSCHEDULABLE:
            groups.setdefault(item.group_key, []).append(item.pod)
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0][1], kv[0][2] or ""))
    names = frozenset(p.scheduler_name for p in config.profiles)
    bases: dict[str, Framework] = dict(frameworks or {})
    shared = GroupBudget(
        work=MAX_GROUPS_PLACEMENT_WORK,
        bound=f"the {MAX_GROUPS_PLACEMENT_WORK:,} node evaluations all groups of one run may spend",
    )
    shapes = allocatable_shapes(snapshot)
    sized = 0
    out: dict[GroupKey, GroupSizing] = {}
    for key, pods in ordered:
        profile = profile_for_pod(config, pods[0])
        if profile is None:
            continue
        if profile.scheduler_name not in bases:
            bases[profile.scheduler_name] = make_framework(snapshot, profile, names)
        framework = bases[profile.scheduler_name]
        distinct = {spec_signature(p): p for p in pods}.values()
        too_big = next((why for p in distinct if (why := beyond_every_node(p, shapes, framework))), None)
        if too_big is not None:
            out[key] = GroupSizing(SizingOutcome.NO_NODE_SHAPE, too_big)
            continue
        if sized >= MAX_GROUPS_SIZED:
            out[key] = GroupSizing(
                SizingOutcome.SKIPPED,
                f"not sized: only the {MAX_GROUPS_SIZED} largest Unschedulable groups an added node could hold are",
            )
            continue
        # Every plugin's verdict on every node: which nodes a new copy would cure.
        if not shared.spend(FILTER_WEIGHT * len(snapshot.nodes)):
            out[key] = GroupSizing(
                SizingOutcome.SKIPPED,
                f"not sized: too little is left of {shared.bound}"
                if shared.stopped_by == "work"
                else shared.stop_note(len(snapshot.nodes)),
            )
            continue
        sized += 1
        with gc_deferred():
            cycle = run_cycle(
                snapshot, pods[0], framework=framework, extenders=config.extenders, scoring=False, post_filter=False
            )
        if cycle.verdict != Verdict.UNSCHEDULABLE:
            out[key] = GroupSizing(SizingOutcome.SKIPPED, f"not sized: run again, its first pod is {cycle.verdict}")
            continue
        # Each group gets at most its own share of what the run has left.
        allowed = min(MAX_GROUP_PLACEMENT_WORK, shared.work)
        budget = GroupBudget(
            work=allowed, deadline=shared.deadline, bound=shared.bound if allowed < MAX_GROUP_PLACEMENT_WORK else ""
        )
        out[key] = size_group(snapshot, cycle, pods, config, key[2], budget, bases)
        shared.work -= allowed - budget.work
    return out
