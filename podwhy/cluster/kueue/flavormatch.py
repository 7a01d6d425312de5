"""flavorassigner's checkFlavorForPodSets: whether a ResourceFlavor suits a pod set at all, before
any quota (the flavor exists; tas_flavorassigner.go's topology match; the flavor's taints
tolerated by the pod's and the flavor's tolerations; the pod's node selector and required node
affinity, restricted to the flavor's label keys, matching the flavor's labels)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

import msgspec

from podwhy.cluster.kueue import names
from podwhy.helpers.nodeselectors import RequiredNodeAffinity
from podwhy.helpers.nodetaints import tolerates_taint
from podwhy.model import objects as o

_RFC3339_UTC = re.compile(r"^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})Z$")


class Status(msgspec.Struct):
    """flavorassigner.Status: the reasons a flavor (or a pod set) does not fit, an error, and the
    QuotaReserved reason the attempt stands for (UnadmittedWorkloadsObservability)."""

    reasons: list[str] = msgspec.field(default_factory=list)
    err: str = ""
    no_fit_reason: str = ""

    def is_fit(self) -> bool:
        return not self.err and not self.reasons

    def is_error(self) -> bool:
        return bool(self.err)

    def message(self) -> str:
        """Status.Message: the error, else the reasons sorted and joined by ", "."""
        if self.err:
            return self.err
        return ", ".join(sorted(self.reasons))


# ---------------------------------------------------------------- taints


def untolerated_taint(taints: Iterable[o.Taint], tolerations: Sequence[o.Toleration]) -> o.Taint | None:
    """FindMatchingUntoleratedTaint over the NoSchedule and NoExecute taints."""
    for taint in taints:
        if taint.effect not in ("NoSchedule", "NoExecute"):
            continue
        if not any(tolerates_taint(t, taint, comparison_operators=True) for t in tolerations):
            return taint
    return None


def go_taint(taint: o.Taint) -> str:
    """A corev1.Taint as Go's %s prints the struct: {key value effect timeAdded}."""
    added = "<nil>"
    if taint.time_added is not None:
        match = _RFC3339_UTC.match(taint.time_added)
        added = f"{match[1]} {match[2]} +0000 UTC" if match else taint.time_added
    return f"{{{taint.key} {taint.value} {taint.effect} {added}}}"


# ---------------------------------------------------------------- node affinity


def flavor_selector(spec: o.PodSpec, allowed_keys: Iterable[str]) -> RequiredNodeAffinity:
    """flavorSelector: the node selector and the required node affinity's match expressions
    whose keys the flavor labels; a term left empty drops the whole required affinity (terms
    are ORed). Match fields are dropped."""
    keys = set(allowed_keys)
    node_selector = {k: v for k, v in spec.node_selector.items() if k in keys}
    affinity = spec.affinity
    terms: list[o.NodeSelectorTerm] | None = None
    if (
        affinity
        and affinity.node_affinity
        and affinity.node_affinity.required_during_scheduling_ignored_during_execution
    ):
        terms = []
        for term in affinity.node_affinity.required_during_scheduling_ignored_during_execution.node_selector_terms:
            kept = [e for e in term.match_expressions if e.key in keys]
            if not kept:
                terms = None
                break
            terms.append(o.NodeSelectorTerm(match_expressions=kept))
    copy = o.PodSpec(node_selector=node_selector)
    if terms:
        copy.affinity = o.Affinity(
            node_affinity=o.NodeAffinity(
                required_during_scheduling_ignored_during_execution=o.NodeSelector(node_selector_terms=terms)
            )
        )
    return RequiredNodeAffinity.of_pod(o.Pod(spec=copy))


def matches_flavor_labels(spec: o.PodSpec, flavor: o.ResourceFlavor) -> bool:
    labels = flavor.spec.node_labels
    node = o.Node(metadata=o.ObjectMeta(labels=dict(labels)))
    return flavor_selector(spec, labels).matches(node)


# ---------------------------------------------------------------- topology-aware scheduling


def explicitly_requests_tas(pod_set: o.PodSet) -> bool:
    """IsExplicitlyRequestingTAS."""
    tr = pod_set.topology_request
    return tr is not None and (
        tr.unconstrained is not None
        or tr.required is not None
        or tr.preferred is not None
        or tr.pod_set_slice_required_topology is not None
        or tr.pod_set_slice_size is not None
    )


class TASView(msgspec.Struct, frozen=True):
    """What the TAS match reads: the ClusterQueue's TAS flavors (flavor -> its Topology's levels,
    None when the Topology is missing) and whether every flavor of the ClusterQueue is one."""

    flavors: Mapping[str, tuple[str, ...] | None] = msgspec.field(default_factory=dict)
    tas_only: bool = False


def tas_view(
    cq: o.ClusterQueue, flavors: Mapping[str, o.ResourceFlavor], topologies: Mapping[str, o.Topology]
) -> TASView:
    tas: dict[str, tuple[str, ...] | None] = {}
    all_tas = True
    for group in cq.spec.resource_groups:
        for fq in group.flavors:
            flavor = flavors.get(fq.name)
            if flavor is None or flavor.spec.topology_name is None:
                all_tas = False
                continue
            topology = topologies.get(flavor.spec.topology_name)
            tas[fq.name] = None if topology is None else tuple(lv.node_label for lv in topology.spec.levels)
    return TASView(tas, all_tas)


def has_level(request: o.PodSetTopologyRequest | None, levels: Sequence[str]) -> bool:
    """TASFlavorSnapshot.HasLevel: the level the request names (required, preferred; the highest
    for a slice-only request, the lowest for an unconstrained one) and its slice level are levels
    of the flavor's Topology."""
    if request is None or not levels:
        return False
    if request.required is not None:
        key = request.required
    elif request.preferred is not None:
        key = request.preferred
    elif request.pod_set_slice_required_topology is not None:
        key = levels[0]
    elif request.unconstrained:
        key = levels[-1]
    else:
        return False
    slice_key = request.pod_set_slice_required_topology or levels[-1]
    return key in levels and slice_key in levels


def tas_mismatch(
    pod_set: o.PodSet, flavor: o.ResourceFlavor, covered: Iterable[str], view: TASView, requested: Iterable[str]
) -> str | None:
    """checkPodSetAndFlavorMatchForTAS (REQUESTED: the pod's requested resources)."""
    explicit = explicitly_requests_tas(pod_set)
    implied = not explicit and view.tas_only
    name = flavor.metadata.name
    if explicit or implied:
        if implied:
            return None
        if flavor.spec.topology_name is None:
            if not set(requested) & set(covered):
                return None
            return names.MSG_TAS_FLAVOR_UNSUPPORTED.format(name)
        levels = view.flavors.get(name)
        if levels is None:
            return names.MSG_TAS_FLAVOR_MISSING.format(name)
        if not has_level(pod_set.topology_request, levels):
            return names.MSG_TAS_LEVEL_MISSING.format(name)
        return None
    if flavor.spec.topology_name is not None:
        return names.MSG_TAS_ONLY.format(name)
    return None


# ---------------------------------------------------------------- the check


def check_flavor(
    flavor_name: str,
    flavor: o.ResourceFlavor | None,
    pod_sets: Sequence[o.PodSet],
    covered: Iterable[str],
    view: TASView,
    requested: Sequence[Iterable[str]],
    gates: Mapping[str, bool] | None = None,
) -> Status:
    """checkFlavorForPodSets: the first reason FLAVOR does not suit one of POD_SETS, or a fit."""
    status = Status()
    if flavor is None:
        status.reasons.append(names.MSG_FLAVOR_NOT_FOUND.format(flavor_name))
        return status
    for pod_set, pod_requested in zip(pod_sets, requested, strict=True):
        if names.enabled(names.TOPOLOGY_AWARE_SCHEDULING, dict(gates) if gates is not None else None):
            message = tas_mismatch(pod_set, flavor, covered, view, pod_requested)
            if message is not None:
                status.reasons.append(message)
                return status
        spec = pod_set.template.spec
        taint = untolerated_taint(flavor.spec.node_taints, [*spec.tolerations, *flavor.spec.tolerations])
        if taint is not None:
            status.reasons.append(names.MSG_UNTOLERATED_TAINT.format(go_taint(taint), flavor_name))
            return status
        if not matches_flavor_labels(spec, flavor):
            status.reasons.append(names.MSG_NO_AFFINITY_MATCH.format(flavor_name))
            return status
    return status
