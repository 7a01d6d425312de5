"""What keeps a pod off the nodes, from the Filter plugins' evidence: explain's `causes` and
check's Pending replicas'."""

from __future__ import annotations

from podwhy.report.model.common import _Struct


class _BlockingCause(_Struct, tag_field="kind"):
    """What keeps the pod off nodes, from the Filter plugins' evidence (when no node fits): "kind"
    names the cause, `text` says it, `nodes` are the nodes it rejects."""

    plugin: str
    text: str
    nodes: list[str]


class Consumer(_Struct):
    """A pod and what it requests of a resource."""

    pod: str
    requested: int


class TooSmallCause(_BlockingCause, tag="tooSmall"):
    """The pod requests more of a resource than the nodes have free (`unit`: millicores, bytes,
    pods or units); `mostFree`: the most any of them has, on `mostFreeNode`."""

    resource: str
    unit: str
    requested: int
    mostFree: int  # noqa: N815
    mostFreeNode: str  # noqa: N815
    # No node of the cycle has room for it.
    everyNode: bool  # noqa: N815
    # The pods on `mostFreeNode` that request the most of the resource, most first (`requested`
    # in `unit`).
    topConsumers: list[Consumer] = []  # noqa: N815


class NotAdvertisedCause(_BlockingCause, tag="notAdvertised"):
    """An extended resource the nodes have no allocatable of."""

    resource: str
    requested: int
    everyNode: bool  # noqa: N815


class UntoleratedTaintCause(_BlockingCause, tag="untoleratedTaint"):
    """A taint of the nodes the pod does not tolerate."""

    taint: str


class MissingTopologyKeyCause(_BlockingCause, tag="missingTopologyKey"):
    """A DoNotSchedule spread constraint's topologyKey the nodes lack; `constraint`: its index in
    the pod's topologySpreadConstraints (null: a default constraint); `similarLabels`: the nodes'
    label keys that resemble it."""

    topologyKey: str  # noqa: N815
    constraint: int | None
    everyNode: bool  # noqa: N815
    similarLabels: list[str]  # noqa: N815


class NoAffinityMatchCause(_BlockingCause, tag="noAffinityMatch"):
    """A required pod affinity term no pod of the cluster matches; `namespaceSelector`: the
    namespaces it selects besides `namespaces` ("": every namespace; null: none)."""

    selector: str
    namespaces: list[str]
    namespaceSelector: str | None  # noqa: N815
    topologyKey: str  # noqa: N815


class SelectorMismatchCause(_BlockingCause, tag="selectorMismatch"):
    """The pod's nodeSelector entry (`source` nodeSelector, `wanted` "key=value") or required node
    affinity (`source` nodeAffinity, `wanted` the term's requirements the nodes fail) rejects the
    nodes; `alsoRejectedBy`: the other plugins that reject every one of them too;
    `eachRejectedOtherwise`: every one of them is rejected by some other plugin as well."""

    source: str
    wanted: str
    alsoRejectedBy: list[str]  # noqa: N815
    eachRejectedOtherwise: bool  # noqa: N815


BlockingCause = (
    TooSmallCause
    | NotAdvertisedCause
    | UntoleratedTaintCause
    | MissingTopologyKeyCause
    | NoAffinityMatchCause
    | SelectorMismatchCause
)
