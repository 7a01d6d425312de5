"""What blocks a pod no node fits, as typed facts (types only: analysis/blocking.py finds them,
report/words/blocking.py says them)."""

from __future__ import annotations

import msgspec


class TooSmall(msgspec.Struct, frozen=True):
    """The pod requests more of `resource` than `nodes` have free; `most_free` is the most any of
    them has (on `most_free_node`, the first such node); `every_node`: no node of the cycle has room."""

    plugin: str
    resource: str
    unit: str
    requested: int
    most_free: int
    most_free_node: str
    nodes: tuple[str, ...]
    every_node: bool
    # The pods bound to `most_free_node` that request the most of `resource`, most first, with
    # what each requests (in `unit`): who holds the room on the closest node.
    consumers: tuple[tuple[str, int], ...] = ()


class NotAdvertised(msgspec.Struct, frozen=True):
    """An extended resource `nodes` have no allocatable of; `every_node`: no node of the cycle has."""

    plugin: str
    resource: str
    requested: int
    nodes: tuple[str, ...]
    every_node: bool


class UntoleratedTaint(msgspec.Struct, frozen=True):
    """A taint (`key=value:effect`) of `nodes` the pod does not tolerate."""

    plugin: str
    taint: str
    nodes: tuple[str, ...]


class MissingTopologyKey(msgspec.Struct, frozen=True):
    """A DoNotSchedule spread constraint's topologyKey `nodes` lack; `constraint`: its index in the
    pod's topologySpreadConstraints (None: a default constraint of the scheduler's configuration);
    `similar`: label keys the cluster's nodes have that resemble it."""

    plugin: str
    topology_key: str
    constraint: int | None
    nodes: tuple[str, ...]
    every_node: bool
    similar: tuple[str, ...]


class NoAffinityMatch(msgspec.Struct, frozen=True):
    """A required pod affinity term no pod of the cluster matches (and the pod does not match its
    own terms, which would let it in as the first). `namespace_selector`: the namespaces the term
    selects besides `namespaces` ("": every namespace; None: none)."""

    plugin: str
    selector: str
    namespaces: tuple[str, ...]
    namespace_selector: str | None
    topology_key: str
    nodes: tuple[str, ...]


class SelectorMismatch(msgspec.Struct, frozen=True):
    """`nodes` whose labels the pod's nodeSelector entry (`source` "nodeSelector", `wanted`
    "key=value") or required node affinity (`source` "nodeAffinity", `wanted` the requirements
    of a term that the node fails, "; " between them) rejects. `also`: the other plugins that
    reject every one of these nodes too; `each_otherwise`: every one of them is rejected by some
    other plugin as well (a selector fixed alone would not let the pod in)."""

    plugin: str
    source: str
    wanted: str
    nodes: tuple[str, ...]
    also: tuple[str, ...]
    each_otherwise: bool


BlockingCause = TooSmall | NotAdvertised | UntoleratedTaint | MissingTopologyKey | NoAffinityMatch | SelectorMismatch
