"""Evidence: the typed facts behind a plugin's verdict or score, one struct per kind.

Plugins build them; the report carries them as they are and renders them in sentences. In JSON
each is an object whose "kind" names what was compared, followed by its fields in the order
declared here (camelCase); a field left UNSET is absent.
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType


class Evidence(msgspec.Struct, frozen=True, kw_only=True, rename="camel", tag_field="kind", forbid_unknown_fields=True):
    """What a plugin compared; each subclass is one kind, tagged by "kind"."""


class Fact(msgspec.Struct, frozen=True, kw_only=True, rename="camel", forbid_unknown_fields=True):
    """One item of a list inside a piece of evidence."""


# ------------------------------------------------------------------ nested items


class ShapePoint(Fact, kw_only=True, frozen=True):
    """One point of a RequestedToCapacityRatio shape: utilization (percent) -> score (0-100)."""

    utilization: int
    score: int


class MatchedTerm(Fact, kw_only=True, frozen=True):
    """A preferred node affinity term that matches the node, with its weight."""

    source: str
    term: int
    weight: int


class ImageOnNode(Fact, kw_only=True, frozen=True):
    """An image of the pod that the node already has: its container's or volume's name, size and spread."""

    container: str | UnsetType = UNSET
    volume: str | UnsetType = UNSET
    image: str
    size_bytes: int
    num_nodes: int
    scaled_score: int


class MatchingDomain(Fact, kw_only=True, frozen=True):
    """A topology domain holding pods that match every affinity term of the pod."""

    value: str
    count: int
    pods: list[str]


class AffinityContribution(Fact, kw_only=True, frozen=True):
    """Matches of one (anti-)affinity rule and term, with one weight, in one topology domain."""

    rule: str
    selector: str
    namespaces: list[str]
    namespace_selector: str
    weight: int
    matches: int
    subtotal: int
    pod_count: int
    pods: list[str]


class SubRequestPoints(Fact, kw_only=True, frozen=True):
    """Points one allocated subrequest of a prioritized list earned."""

    claim: str
    request: str
    sub_request: str
    index: int
    points: int


class PortHolder(Fact, kw_only=True, frozen=True):
    """A pod on the node holding a colliding host port."""

    pod: str
    host_ip: str = msgspec.field(name="hostIP")


# ------------------------------------------------------------------ node and pod fields


class NodeNameEvidence(Evidence, tag="nodeName", kw_only=True, frozen=True):
    """The pod's spec.nodeName against the node's name."""

    requested: str
    node: str


class UnschedulableEvidence(Evidence, tag="unschedulable", kw_only=True, frozen=True):
    """The node's spec.unschedulable, which the pod does not tolerate."""

    node: str
    spec_unschedulable: bool = msgspec.field(name="spec.unschedulable")


class TaintEvidence(Evidence, tag="taint", kw_only=True, frozen=True):
    """A NoSchedule or NoExecute taint of the node against the pod's tolerations."""

    taint: str
    key: str
    value: str
    effect: str


class IntolerableTaintsEvidence(Evidence, tag="intolerableTaints", kw_only=True, frozen=True):
    """The node's PreferNoSchedule taints the pod does not tolerate (fewer score higher)."""

    effect: str
    count: int
    taints: list[str]
    normalization: str


class HostPortEvidence(Evidence, tag="hostPort", kw_only=True, frozen=True):
    """A host port the pod asks for against the ports pods on the node hold."""

    host_ip: str = msgspec.field(name="hostIP")
    protocol: str
    host_port: int
    used_by: list[PortHolder]


class DeclaredFeaturesEvidence(Evidence, tag="declaredFeatures", kw_only=True, frozen=True):
    """The node features the pod requires against those the node declares."""

    required: list[str]
    declared: list[str]
    missing: list[str]


class ImageLocalityEvidence(Evidence, tag="imageLocality", kw_only=True, frozen=True):
    """The pod's images already on the node, and the thresholds their summed score is scaled between."""

    images_on_node: list[ImageOnNode]
    sum_scores: int
    total_num_nodes: int
    num_containers: int
    min_threshold_bytes: int
    max_threshold_bytes: int


# ------------------------------------------------------------------ resources


class ResourceEvidence(Evidence, tag="resource", kw_only=True, frozen=True):
    """The pod's request for one resource against what the node has left of its allocatable."""

    resource: str
    unit: str
    requested: int
    used: int
    allocatable: int
    free: int
    exceeds_allocatable: bool


class ResourceScoreEvidence(Evidence, tag="resourceScore", kw_only=True, frozen=True):
    """One scored resource on the node: requests with the pod against allocatable, and its own score."""

    resource: str
    weight: int
    pod_request: int
    requested: int
    allocatable: int
    omitted: str | UnsetType = UNSET
    # BalancedAllocation: requested / allocatable, with the pod (and, from v1.36, without it).
    fraction: float | UnsetType = UNSET
    fraction_without_pod: float | UnsetType = UNSET
    # RequestedToCapacityRatio: the utilization, and the shape's points it lies between.
    utilization: int | UnsetType = UNSET
    resource_score: int | UnsetType = UNSET
    between: list[ShapePoint] | UnsetType = UNSET
    counted_in_mean: bool | UnsetType = UNSET
    formula: str | UnsetType = UNSET


class NodeScoreEvidence(Evidence, tag="nodeScore", kw_only=True, frozen=True):
    """How a scoring strategy turned the per-resource scores into the node's score."""

    strategy: str
    score: int
    shape: list[ShapePoint] | UnsetType = UNSET
    std: float | UnsetType = UNSET
    std_without_pod: float | UnsetType = UNSET
    score_with_pod: int | UnsetType = UNSET
    score_without_pod: int | UnsetType = UNSET
    weighted_sum: int | UnsetType = UNSET
    weight_sum: int | UnsetType = UNSET
    formula: str


# ------------------------------------------------------------------ node affinity


class NodeSelectorEvidence(Evidence, tag="nodeSelector", kw_only=True, frozen=True):
    """One nodeSelector entry of the pod against the node's label."""

    key: str
    required: str
    node_value: str | None


class NodeAffinityTermEvidence(Evidence, tag="nodeAffinityTerm", kw_only=True, frozen=True):
    """A required node affinity term (they are ORed) and what in it rejects the node; or the
    node names the terms' matchFields allow, when no node is left."""

    source: str
    term: int | UnsetType | None = UNSET
    unmatched: list[str] | UnsetType = UNSET
    node_labels: dict[str, str | None] | UnsetType = UNSET
    node_name: str | UnsetType = UNSET
    node_names_per_term: list[list[str]] | UnsetType = UNSET


class PreferredNodeAffinityEvidence(Evidence, tag="preferredNodeAffinity", kw_only=True, frozen=True):
    """The preferred node affinity terms matching the node, and their summed weights."""

    matched_terms: list[MatchedTerm]
    sum: int


# ------------------------------------------------------------------ pod topology spread


class TopologySpreadEvidence(Evidence, tag="topologySpread", kw_only=True, frozen=True):
    """A DoNotSchedule spread constraint: the node's domain against the skew it allows, or the
    node lacking its topology label."""

    topology_key: str
    max_skew: int
    selector: str
    missing_label: str | UnsetType = UNSET
    domain: str | UnsetType = UNSET
    matching_pods: int | UnsetType = UNSET
    self_match: int | UnsetType = UNSET
    global_minimum: int | UnsetType = UNSET
    eligible_domains: int | UnsetType = UNSET
    min_domains: int | UnsetType = UNSET
    skew: int | UnsetType = UNSET


class TopologySpreadScoreEvidence(Evidence, tag="topologySpreadScore", kw_only=True, frozen=True):
    """A ScheduleAnyway spread constraint's points for the node's domain; or the node ignored
    for lacking topology labels."""

    ignored: bool | UnsetType = UNSET
    missing_labels: list[str] | UnsetType = UNSET
    topology_key: str | UnsetType = UNSET
    max_skew: int | UnsetType = UNSET
    selector: str | UnsetType = UNSET
    missing_label: str | UnsetType = UNSET
    domain: str | UnsetType = UNSET
    matching_pods: int | UnsetType = UNSET
    domains: int | UnsetType = UNSET
    domain_weight: float | UnsetType = UNSET
    points: float | UnsetType = UNSET


class TopologySpreadScoreTotalEvidence(Evidence, tag="topologySpreadScoreTotal", kw_only=True, frozen=True):
    """The spread constraints' points summed and rounded (fewer score higher)."""

    sum: float
    raw: int
    fewer_is_better: bool


# ------------------------------------------------------------------ inter-pod affinity


class PodAffinityTermEvidence(Evidence, tag="podAffinityTerm", kw_only=True, frozen=True):
    """A required (anti-)affinity term, the pod's own or an existing pod's, against the pods in
    the node's topology domain."""

    rule: str
    # existingAntiAffinity: the existing pod whose term it is.
    pod: str | UnsetType = UNSET
    topology_key: str
    selector: str
    namespaces: list[str]
    namespace_selector: str
    node_topology_value: str | None
    # affinity: why no domain satisfies the term, and the domains that hold matching pods.
    problem: str | UnsetType = UNSET
    matching_domain_count: int | UnsetType = UNSET
    matching_domains: list[MatchingDomain] | UnsetType = UNSET
    any_matching_pod: bool | UnsetType = UNSET
    pod_matches_own_terms: bool | UnsetType = UNSET
    # antiAffinity: the pods in the node's domain the term matches.
    conflicting_pod_count: int | UnsetType = UNSET
    conflicting_pods: list[str] | UnsetType = UNSET


class PodAffinityScoreEvidence(Evidence, tag="podAffinityScore", kw_only=True, frozen=True):
    """The preferred (anti-)affinity weights summed for one topology domain of the node."""

    topology_key: str
    topology_value: str
    score: int
    contributions: list[AffinityContribution]


# ------------------------------------------------------------------ volumes


class VolumeClaimEvidence(Evidence, tag="volumeClaim", kw_only=True, frozen=True):
    """A volume's PersistentVolumeClaim that keeps the pod from being scheduled at all."""

    persistent_volume_claim: str
    volume: str


class UnboundImmediateClaimsEvidence(Evidence, tag="unboundImmediateClaims", kw_only=True, frozen=True):
    """The pod's claims of Immediate binding mode that are not bound yet."""

    persistent_volume_claims: list[str]


class VolumeBindingEvidence(Evidence, tag="volumeBinding", kw_only=True, frozen=True):
    """The pod's claims against the node: bound volumes, volumes to match and to provision."""

    missing_persistent_volumes: list[str] | UnsetType = UNSET
    node_affinity_conflicts: list[str] | UnsetType = UNSET
    selected_for_other_node: list[str] | UnsetType = UNSET
    claims_without_matching_volume: list[str] | UnsetType = UNSET
    not_provisionable: list[str] | UnsetType = UNSET
    insufficient_capacity: list[str] | UnsetType = UNSET


class VolumeCapacityScoringEvidence(Evidence, tag="volumeCapacityScoring", kw_only=True, frozen=True):
    """The feature gate that would let VolumeBinding score storage capacity."""

    feature_gate: str
    enabled: bool
    score: int


class VolumeCountEvidence(Evidence, tag="volumeCount", kw_only=True, frozen=True):
    """One CSI driver's volumes attached to the node plus the pod's new ones against its limit."""

    driver: str
    attached: int
    held_by_volume_attachments: int | UnsetType = UNSET
    new: int
    limit: int
    new_volumes: list[str]


class DiskConflictEvidence(Evidence, tag="diskConflict", kw_only=True, frozen=True):
    """A volume of the pod against the same disk mounted by a pod on the node."""

    volume: str
    disk: str
    conflicting_pod: str


class ReadWriteOncePodEvidence(Evidence, tag="readWriteOncePod", kw_only=True, frozen=True):
    """The pod's ReadWriteOncePod claims against the pods already using them."""

    claims: list[str]
    in_use_by: list[str]


class VolumeZoneEvidence(Evidence, tag="volumeZone", kw_only=True, frozen=True):
    """A PersistentVolume's topology label against the node's."""

    persistent_volume: str
    label: str
    volume_values: list[str]
    node_label: str
    node_value: str | None


# ------------------------------------------------------------------ dynamic resources


class ExtendedResourceEvidence(Evidence, tag="extendedResource", kw_only=True, frozen=True):
    """An extended resource the pod requests that no device class can provide."""

    resource: str


class ResourceClaimEvidence(Evidence, tag="resourceClaim", kw_only=True, frozen=True):
    """A resource claim of the pod: why it cannot be used, or what PostFilter does to it."""

    claim: str | UnsetType = UNSET
    action: str | UnsetType = UNSET
    problem: str | UnsetType = UNSET


class DeviceClassEvidence(Evidence, tag="deviceClass", kw_only=True, frozen=True):
    """A claim's request naming a DeviceClass that does not exist."""

    claim: str
    request: str
    device_class: str


class DeviceRequestEvidence(Evidence, tag="deviceRequest", kw_only=True, frozen=True):
    """A claim's request (or subrequest) against the node's devices that match it and are free."""

    claim: str
    request: str
    device_class: str
    allocation_mode: str
    count: int | UnsetType = UNSET
    error: str | UnsetType = UNSET
    matching_devices: int
    free_matching_devices: int


class AllocatedClaimEvidence(Evidence, tag="allocatedClaim", kw_only=True, frozen=True):
    """A claim already allocated to devices the node cannot reach."""

    claim: str
    node: str


class PrioritizedListEvidence(Evidence, tag="prioritizedList", kw_only=True, frozen=True):
    """The points the node's allocated subrequests earned by their rank in their prioritized lists."""

    allocated_sub_requests: list[SubRequestPoints]
    score: int
    max_list_size: int


AnyEvidence = (
    NodeNameEvidence
    | UnschedulableEvidence
    | TaintEvidence
    | IntolerableTaintsEvidence
    | HostPortEvidence
    | DeclaredFeaturesEvidence
    | ImageLocalityEvidence
    | ResourceEvidence
    | ResourceScoreEvidence
    | NodeScoreEvidence
    | NodeSelectorEvidence
    | NodeAffinityTermEvidence
    | PreferredNodeAffinityEvidence
    | TopologySpreadEvidence
    | TopologySpreadScoreEvidence
    | TopologySpreadScoreTotalEvidence
    | PodAffinityTermEvidence
    | PodAffinityScoreEvidence
    | VolumeClaimEvidence
    | UnboundImmediateClaimsEvidence
    | VolumeBindingEvidence
    | VolumeCapacityScoringEvidence
    | VolumeCountEvidence
    | DiskConflictEvidence
    | ReadWriteOncePodEvidence
    | VolumeZoneEvidence
    | ExtendedResourceEvidence
    | ResourceClaimEvidence
    | DeviceClassEvidence
    | DeviceRequestEvidence
    | AllocatedClaimEvidence
    | PrioritizedListEvidence
)
