"""Constraint handling shared by PodTopologySpread's filtering and scoring (common.go, helper/spread.go)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeVar

import msgspec

from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.helpers.labelselectors import Requirement, Selector, SelectorError, label_selector_as_selector
from podwhy.helpers.nodeselectors import RequiredNodeAffinity
from podwhy.helpers.nodetaints import do_not_schedule_taints, find_matching_untolerated_taint
from podwhy.model import objects as o
from podwhy.model.wellknownnames import LABEL_HOSTNAME, LABEL_TOPOLOGY_ZONE
from podwhy.snapshot.cluster import Snapshot

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"

POLICY_HONOR = "Honor"
POLICY_IGNORE = "Ignore"


# Used when the plugin args say defaultingType System (the default).
SYSTEM_DEFAULT_CONSTRAINTS: tuple[o.TopologySpreadConstraint, ...] = (
    o.TopologySpreadConstraint(topology_key=LABEL_HOSTNAME, when_unsatisfiable=SCHEDULE_ANYWAY, max_skew=3),
    o.TopologySpreadConstraint(topology_key=LABEL_TOPOLOGY_ZONE, when_unsatisfiable=SCHEDULE_ANYWAY, max_skew=5),
)

# Both feature gates are on (NodeInclusionPolicyInPodTopologySpread is GA and locked) in v1.35.
ENABLE_NODE_INCLUSION_POLICY = True
ENABLE_MATCH_LABEL_KEYS = True


class SpreadConstraint(msgspec.Struct, frozen=True):
    """A topology spread constraint with its selector parsed and its defaults applied."""

    max_skew: int
    topology_key: str
    selector: Selector
    min_domains: int
    node_affinity_policy: str
    node_taints_policy: str

    def with_selector(self, selector: Selector) -> SpreadConstraint:
        return SpreadConstraint(
            self.max_skew,
            self.topology_key,
            selector,
            self.min_domains,
            self.node_affinity_policy,
            self.node_taints_policy,
        )

    def match_node_inclusion_policies(self, pod: o.Pod, node: o.Node, required: RequiredNodeAffinity) -> bool:
        """Whether the node counts as a domain member under nodeAffinityPolicy/nodeTaintsPolicy."""
        if self.node_affinity_policy == POLICY_HONOR and not required.matches(node):
            return False
        if self.node_taints_policy == POLICY_HONOR:
            untolerated = find_matching_untolerated_taint(
                node.spec.taints, pod.spec.tolerations, do_not_schedule_taints
            )
            if untolerated is not None:
                return False
        return True


def selector_from_label_set(label_set: Mapping[str, str]) -> Selector:
    """labels.SelectorFromSet: Equals requirements, not validated, sorted by key."""
    return Selector(tuple(Requirement(key, "Equals", (label_set[key],)) for key in sorted(label_set)))


def add_requirements(selector: Selector, requirements: Iterable[Requirement]) -> Selector:
    """Selector.Add: Nothing stays Nothing; otherwise append and re-sort by key."""
    if selector.nothing:
        return selector
    merged = [*selector.requirements, *requirements]
    return Selector(tuple(sorted(merged, key=lambda r: r.key)))


def merge_label_set_with_selector(match_labels: Mapping[str, str], selector: Selector) -> Selector:
    """The matchLabelKeys label set ANDed with the constraint's selector (a Nothing selector is kept)."""
    if selector.nothing:
        return selector
    return add_requirements(selector_from_label_set(match_labels), selector.requirements)


def filter_topology_spread_constraints(
    constraints: Iterable[o.TopologySpreadConstraint], pod_labels: Mapping[str, str], action: str
) -> list[SpreadConstraint]:
    """The constraints whose whenUnsatisfiable is `action`, parsed. Raises SelectorError."""
    result: list[SpreadConstraint] = []
    for c in constraints:
        if c.when_unsatisfiable != action:
            continue
        selector = label_selector_as_selector(c.label_selector)
        if ENABLE_MATCH_LABEL_KEYS and c.match_label_keys:
            # The scheduler merges matchLabelKeys itself too, even though the API server
            # (MatchLabelKeysInPodTopologySpreadSelectorMerge) may already have done it.
            match_labels = {key: pod_labels[key] for key in c.match_label_keys if key in pod_labels}
            if match_labels:
                selector = merge_label_set_with_selector(match_labels, selector)
        affinity_policy, taints_policy = POLICY_HONOR, POLICY_IGNORE
        if ENABLE_NODE_INCLUSION_POLICY:
            affinity_policy = c.node_affinity_policy if c.node_affinity_policy is not None else affinity_policy
            taints_policy = c.node_taints_policy if c.node_taints_policy is not None else taints_policy
        result.append(
            SpreadConstraint(
                max_skew=c.max_skew,
                topology_key=c.topology_key,
                selector=selector,
                min_domains=c.min_domains if c.min_domains is not None else 1,
                node_affinity_policy=affinity_policy,
                node_taints_policy=taints_policy,
            )
        )
    return result


def node_labels_match_spread_constraints(
    node_labels: Mapping[str, str], constraints: Iterable[SpreadConstraint]
) -> bool:
    """Whether the node carries every constraint's topology key."""
    return all(c.topology_key in node_labels for c in constraints)


def count_pods_match_selector(pod_infos: Iterable[PodInfo], selector: Selector, namespace: str) -> int:
    """Matching pods of the namespace, skipping terminating ones; an empty selector counts nothing."""
    if selector.is_empty():
        return 0
    count = 0
    for pi in pod_infos:
        meta = pi.pod.metadata
        if meta.deletion_timestamp is not None or meta.namespace != namespace:
            continue
        if selector.matches(meta.labels):
            count += 1
    return count


# Selector counts remembered per node, at most (a cap on memory when many workloads are placed).
MAX_COUNTS_PER_NODE = 64


def count_key(selector: Selector, namespace: str) -> str:
    """What count_matching remembers a count under: the selector's value and the namespace."""
    return f"{namespace}\x00{selector!r}"


def count_matching(node_info: NodeInfo, selector: Selector, namespace: str, key: str) -> int:
    """count_pods_match_selector over the node's pods, remembered on the node until they change
    (`key` is count_key(selector, namespace), made once per constraint)."""
    counts = node_info.match_counts
    count = counts.get(key)
    if count is None:
        if len(counts) >= MAX_COUNTS_PER_NODE:
            counts.clear()
        count = counts[key] = count_pods_match_selector(node_info.pods, selector, namespace)
    return count


def pod_labels_match_spread_constraints(constraints: Iterable[SpreadConstraint], pod_labels: Mapping[str, str]) -> bool:
    return any(c.selector.matches(pod_labels) for c in constraints)


# ------------------------------------------------------------------ default selector (helper/spread.go)

_Owner = TypeVar("_Owner", o.ReplicationController, o.ReplicaSet, o.StatefulSet)

_RC_KIND = ("", "v1", "ReplicationController")
_RS_KIND = ("apps", "v1", "ReplicaSet")
_SS_KIND = ("apps", "v1", "StatefulSet")


def _parse_group_version(api_version: str) -> tuple[str, str] | None:
    """schema.ParseGroupVersion; None when it does not parse."""
    if api_version in ("", "/"):
        return "", ""
    slashes = api_version.count("/")
    if slashes == 0:
        return "", api_version
    if slashes == 1:
        group, _, version = api_version.partition("/")
        return group, version
    return None


def controller_of(pod: o.Pod) -> o.OwnerReference | None:
    """metav1.GetControllerOf: the first owner reference marked controller."""
    return next((ref for ref in pod.metadata.owner_references if ref.controller), None)


def pod_services(snapshot: Snapshot, pod: o.Pod) -> list[o.Service]:
    """Services of the pod's namespace whose (non-empty) selector matches the pod's labels."""
    labels = pod.metadata.labels
    return [
        svc
        for svc in snapshot.services
        if svc.metadata.namespace == pod.metadata.namespace
        and all(labels.get(k) == v for k, v in svc.spec.selector.items())
    ]


def _find_named(objects: Iterable[_Owner], namespace: str, name: str) -> _Owner | None:
    """A lister's Get(namespace, name)."""
    return next((obj for obj in objects if obj.metadata.namespace == namespace and obj.metadata.name == name), None)


def _requirements_of(selector: o.LabelSelector | None) -> tuple[Requirement, ...]:
    try:
        parsed = label_selector_as_selector(selector)
    except SelectorError:
        return ()
    return () if parsed.nothing else parsed.requirements


def default_selector(pod: o.Pod, snapshot: Snapshot) -> Selector:
    """A selector built from the Services, RC, ReplicaSet or StatefulSet that match or own the pod."""
    label_set: dict[str, str] = {}
    for svc in pod_services(snapshot, pod):
        label_set.update(svc.spec.selector)
    selector = selector_from_label_set(label_set)
    owner = controller_of(pod)
    if owner is None:
        return selector
    gv = _parse_group_version(owner.api_version)
    if gv is None:
        return selector
    gvk = (gv[0], gv[1], owner.kind)
    namespace = pod.metadata.namespace
    if gvk == _RC_KIND:
        rc = _find_named(snapshot.replication_controllers, namespace, owner.name)
        if rc is not None:
            label_set.update(rc.spec.selector)
            selector = selector_from_label_set(label_set)
    elif gvk == _RS_KIND:
        rs = _find_named(snapshot.replica_sets, namespace, owner.name)
        if rs is not None:
            selector = add_requirements(selector, _requirements_of(rs.spec.selector))
    elif gvk == _SS_KIND:
        ss = _find_named(snapshot.stateful_sets, namespace, owner.name)
        if ss is not None:
            selector = add_requirements(selector, _requirements_of(ss.spec.selector))
    return selector


def build_default_constraints(
    pod: o.Pod, defaults: Iterable[o.TopologySpreadConstraint], snapshot: Snapshot, action: str
) -> list[SpreadConstraint]:
    """The default constraints for `action`, all selecting with the pod's default selector."""
    constraints = filter_topology_spread_constraints(defaults, pod.metadata.labels, action)
    if not constraints:
        return []
    selector = default_selector(pod, snapshot)
    if selector.is_empty():
        return []
    return [c.with_selector(selector) for c in constraints]


def owner_kinds_needed(pod: o.Pod) -> set[str]:
    """Object kinds default_selector reads for this pod."""
    kinds = {"Service"}
    owner = controller_of(pod)
    if owner is not None and owner.kind in ("ReplicationController", "ReplicaSet", "StatefulSet"):
        kinds.add(owner.kind)
    return kinds
