"""The autoscalers' levers: raise a node group's max size (Cluster Autoscaler), add the pod's zone
to a NodePool's requirements or raise a NodePool's limit (Karpenter). Each is verified: the group
is checked again as changed, and must then be able to add a node the pod fits on.

A Cluster Autoscaler node group's max size is cloud configuration: the suggestion names the field
to change (a command only for Cluster API, whose limits are annotations of a Kubernetes object);
a NodePool is an API object: its change is a merge patch."""

from __future__ import annotations

import json
import math
import shlex
from typing import Any

import msgspec

from podwhy.analysis.autoscaling.clusterautoscaler import group_nodes
from podwhy.analysis.autoscaling.facts import (
    CAPI_MAX_SIZE_ANNOTATION,
    AnyGroupFinding,
    AutoscalingAnalysis,
    GroupAtMaxSize,
    GroupOutcome,
    LimitsReached,
    RequirementsExcludePod,
)
from podwhy.analysis.autoscaling.karpenter import Karpenter, pod_requirement_sets
from podwhy.analysis.suggest.base import _Verifier
from podwhy.analysis.suggest.facts import (
    AddNodePoolZone,
    AddNodesForGroup,
    Command,
    GroupNeeds,
    RaiseGroupMaxSize,
    RaiseNodePoolLimit,
    SetGroupMaxSize,
    Suggestion,
)
from podwhy.cluster.nodecopy import copied_from
from podwhy.model import objects as o
from podwhy.model.quantity import QuantityError, quantity_milli_value, quantity_value
from podwhy.model.wellknownnames import LABEL_TOPOLOGY_ZONE
from podwhy.scheduler.cycle import CycleOutcome
from podwhy.snapshot.cluster import Snapshot


def _needed_nodes(v: _Verifier, finding: AnyGroupFinding) -> GroupNeeds | None:
    """How many more nodes of the group the pod's pending group needs (sized earlier by group
    sizing, when it sized them with copies of a node of this group), else 1 for the pod."""
    if not isinstance(finding, GroupAtMaxSize):
        return None
    example = finding.example
    for earlier in v.earlier:
        if earlier.kind != "addNodesForGroup" or not earlier.patches:
            continue
        copy = earlier.patches[0]["object"]["metadata"]["name"]
        original = copied_from(v.snapshot, copy)
        if original is not None and original.metadata.name == example:
            return GroupNeeds(len(v.group), v.group_owner, len(earlier.patches))
    return None


def _raise_max_size(v: _Verifier, finding: AnyGroupFinding) -> Suggestion | None:
    return raise_max_size(finding, _needed_nodes(v, finding))


def raise_max_size(finding: AnyGroupFinding, needs: GroupNeeds | None) -> Suggestion | None:
    """A node group at its max size whose new node fits the pod: raised by what `needs` says (the
    pod's pending group sized with nodes of it), else by 1."""
    if not isinstance(finding, GroupAtMaxSize) or finding.fits_new_node is not True:
        return None
    current, target = finding.max_size, finding.target
    if current is None:
        return None
    wanted = max(current, target if target is not None else current) + (needs.count if needs else 1)
    group = finding.group
    change = RaiseGroupMaxSize(group, current, wanted, needs, str(finding.example), target)
    kind, _, rest = group.partition("/")
    if kind in ("MachineDeployment", "MachineSet") and "/" in rest:
        namespace, _, name = rest.partition("/")
        patch = {"metadata": {"annotations": {CAPI_MAX_SIZE_ANNOTATION: str(wanted)}}}
        command = Command(
            f"kubectl patch {kind.lower()}.cluster.x-k8s.io {shlex.quote(name)} -n {shlex.quote(namespace)} "
            f"--type merge -p {shlex.quote(json.dumps(patch, separators=(',', ':')))}"
        )
        patches = [{"kind": kind, "name": name, "namespace": namespace, "patch": patch}]
    else:
        command = Command(note=SetGroupMaxSize(group, wanted))
        patches = []
    return Suggestion(change, [], patches, command)


def _pool_patch_command(name: str, patch: dict[str, Any]) -> Command:
    body = json.dumps(patch, separators=(",", ":"))
    return Command(f"kubectl patch nodepool.karpenter.sh {shlex.quote(name)} --type merge -p {shlex.quote(body)}")


def _verified(v: _Verifier, pool: o.NodePool) -> bool:
    """Whether the changed pool can add a node for the pod, as far as podwhy can tell."""
    finding = Karpenter(v.snapshot).finding(v.pod, pool, pod_requirement_sets(v.pod, v.snapshot))
    return finding.outcome is GroupOutcome.CAN_ADD


def _add_zone(v: _Verifier, finding: AnyGroupFinding) -> Suggestion | None:
    if not isinstance(finding, RequirementsExcludePod) or finding.key != LABEL_TOPOLOGY_ZONE:
        return None
    pool = v.snapshot.node_pools.get(finding.group)
    if pool is None:
        return None
    wanted = sorted(
        {
            value
            for alternative in pod_requirement_sets(v.pod, v.snapshot)
            if (allowed := alternative.get(LABEL_TOPOLOGY_ZONE)) is not None and not allowed.complement
            for value in allowed.values
        }
    )
    requirements = [msgspec.to_builtins(r) for r in pool.spec.template.spec.requirements]
    zone = next((r for r in requirements if r.get("key") == LABEL_TOPOLOGY_ZONE and r.get("operator") == "In"), None)
    if not wanted or zone is None:
        return None
    added = [z for z in wanted if z not in zone.get("values", [])][:1]
    if not added:
        return None
    zone["values"] = [*zone.get("values", []), *added]
    typed = [msgspec.convert(r, o.KarpenterRequirement) for r in requirements]
    template = pool.spec.template
    changed = msgspec.structs.replace(
        pool,
        spec=msgspec.structs.replace(
            pool.spec,
            template=msgspec.structs.replace(template, spec=msgspec.structs.replace(template.spec, requirements=typed)),
        ),
    )
    if not _verified(v, changed):
        return None
    patch = {"spec": {"template": {"spec": {"requirements": requirements}}}}
    return Suggestion(
        AddNodePoolZone(pool.metadata.name, added[0]),
        [],
        [{"kind": "NodePool", "name": pool.metadata.name, "patch": patch}],
        _pool_patch_command(pool.metadata.name, patch),
    )


def _raise_limit(v: _Verifier, finding: AnyGroupFinding) -> Suggestion | None:
    if not isinstance(finding, LimitsReached):
        return None
    pool = v.snapshot.node_pools.get(finding.group)
    if pool is None:
        return None
    resource, used, request = finding.resource, finding.used, finding.pod_request
    try:
        used_amount = quantity_milli_value(used) if resource == "cpu" else quantity_value(used)
    except QuantityError:
        return None
    needed = used_amount + request
    if resource == "cpu":
        value = str(math.ceil(needed / 1000))
    elif resource == "memory":
        value = f"{math.ceil(needed / 2**30)}Gi"
    else:
        value = str(needed)
    limits = {**{k: str(q) for k, q in pool.spec.limits.items()}, resource: value}
    changed = msgspec.structs.replace(pool, spec=msgspec.structs.replace(pool.spec, limits=limits))
    if not _verified(v, changed):
        return None
    patch = {"spec": {"limits": {resource: value}}}
    return Suggestion(
        RaiseNodePoolLimit(pool.metadata.name, resource, finding.limit, value, used),
        [],
        [{"kind": "NodePool", "name": pool.metadata.name, "patch": patch}],
        _pool_patch_command(pool.metadata.name, patch),
    )


def _suggest_autoscaler_levers(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    if v.autoscaling is None:
        return []
    out: list[Suggestion] = []
    for view in v.autoscaling.views:
        if view.excluded is not None:
            continue
        for finding in view.groups:
            for lever in (_raise_max_size, _add_zone, _raise_limit):
                made = lever(v, finding)
                if made is not None:
                    out.append(made)
                    break
    return out


def group_levers(
    snapshot: Snapshot, analysis: AutoscalingAnalysis, sized: Suggestion | None, pods: int, owner: str | None
) -> list[Suggestion]:
    """`podwhy pending`: a group's lever, from the autoscalers' view of its first pod: the max size
    of a node group at its max size raised — the group of the nodes `sized` (the group's sizing)
    adds, by as many, else the first such group, by 1. One lever: raising one group is enough, and
    a group listing every node group at its max size would bury its cause."""
    change = sized.change if sized is not None else None
    first: Suggestion | None = None
    for view in analysis.views:
        if view.excluded is not None:
            continue
        for finding in view.groups:
            needs = None
            if isinstance(change, AddNodesForGroup):
                like = next((n for n in snapshot.nodes if n.metadata.name == change.like), None)
                if like is not None and group_nodes(finding.group, [like]):
                    needs = GroupNeeds(pods, owner, change.count)
            made = raise_max_size(finding, needs)
            if made is not None and needs is not None:
                return [made]
            first = first or made
    return [first] if first is not None else []
