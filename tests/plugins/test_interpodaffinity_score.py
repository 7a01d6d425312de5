"""InterPodAffinity PreScore, Score and NormalizeScore, after upstream's scoring_test.go."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import pytest

from podwhy.framework.evidence import AffinityContribution, AnyEvidence, PodAffinityScoreEvidence
from podwhy.framework.interface import MAX_NODE_SCORE, CycleState
from podwhy.framework.status import Code, Status
from podwhy.framework.types import PodInfo
from podwhy.model import objects as o
from podwhy.plugins.interpodaffinity import InterPodAffinity
from tests.builders import from_raw, make_handle, make_node, make_pod
from tests.plugin_args import with_args

Term = dict[str, Any]
MAX = MAX_NODE_SCORE

_names = itertools.count()


def expr(key: str, op: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": op, "values": list(values)}


def term(
    topology_key: str,
    *exprs: dict[str, Any],
    namespaces: list[str] | None = None,
    namespace_selector: dict[str, Any] | None = None,
) -> Term:
    out: Term = {"labelSelector": {"matchExpressions": list(exprs)}, "topologyKey": topology_key}
    if namespaces:
        out["namespaces"] = namespaces
    if namespace_selector is not None:
        out["namespaceSelector"] = namespace_selector
    return out


def weighted(weight: int, t: Term) -> dict[str, Any]:
    return {"weight": weight, "podAffinityTerm": t}


@dataclass
class Aff:
    """A pod's inter-pod (anti-)affinity, field by field."""

    required: list[Term] = field(default_factory=list)
    preferred: list[dict[str, Any]] = field(default_factory=list)
    preferred_anti: list[dict[str, Any]] = field(default_factory=list)

    def __add__(self, other: Aff) -> Aff:
        return Aff(
            self.required + other.required,
            self.preferred + other.preferred,
            self.preferred_anti + other.preferred_anti,
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.required or self.preferred:
            out["podAffinity"] = {
                "requiredDuringSchedulingIgnoredDuringExecution": self.required,
                "preferredDuringSchedulingIgnoredDuringExecution": self.preferred,
            }
        if self.preferred_anti:
            out["podAntiAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": self.preferred_anti}
        return out


def new_pod(
    labels: dict[str, str] | None = None,
    *,
    affinity: Aff | None = None,
    node: str = "",
    namespace: str = "default",
) -> o.Pod:
    """make_pod() named p0, p1, ..., with this inter-pod (anti-)affinity."""
    builder = make_pod(f"p{next(_names)}", namespace).labels(labels or {})
    if affinity is not None:
        builder.affinity(affinity.to_dict())
    if node:
        builder.node(node)
    return builder.obj()


def make_namespace(name: str, labels: dict[str, str]) -> o.Namespace:
    return from_raw(o.Namespace, {"metadata": {"name": name, "labels": labels}})


# Upstream's test namespaces.
NAMESPACES = [
    make_namespace("subteam1.team1", {"team": "team1"}),
    make_namespace("subteam2.team1", {"team": "team1"}),
    make_namespace("subteam1.team2", {"team": "team2"}),
    make_namespace("subteam2.team2", {"team": "team2"}),
]


@dataclass
class Result:
    pre_score: Status
    # Normalized scores in node order; empty when PreScore did not succeed.
    scores: list[int]
    raw: list[int]
    evidence: dict[str, list[AnyEvidence]]


def run(
    pod: o.Pod,
    pods: list[o.Pod],
    nodes: list[o.Node],
    args: dict[str, Any] | None = None,
    feasible: list[str] | None = None,
) -> Result:
    handle = make_handle(*nodes, *pods, *NAMESPACES)
    plugin = with_args(InterPodAffinity, handle, args if args is not None else {})
    state = CycleState()
    pi = PodInfo(pod)
    node_infos = [ni for ni in handle.node_infos if feasible is None or ni.name in feasible]
    status = plugin.pre_score(state, pi, node_infos)
    if not status.is_success():
        return Result(status, [], [], {})
    scores: dict[str, int] = {}
    evidence: dict[str, list[AnyEvidence]] = {}
    for ni in node_infos:
        value, st = plugin.score(state, pi, ni)
        assert st.is_success()
        scores[ni.name] = value
        evidence[ni.name] = st.evidence
    raw = list(scores.values())
    assert plugin.normalize_score(state, pi, scores).is_success()
    return Result(status, list(scores.values()), raw, evidence)


# ---------------------------------------------------------------------- upstream fixtures

RG_CHINA = {"region": "China"}
RG_INDIA = {"region": "India"}
AZ1 = {"az": "az1"}
AZ2 = {"az": "az2"}
RG_CHINA_AZ1 = {"region": "China", "az": "az1"}
S1 = {"security": "S1"}
S2 = {"security": "S2"}

STAY_WITH_S1_IN_REGION = Aff(preferred=[weighted(5, term("region", expr("security", "In", "S1")))])
STAY_WITH_S2_IN_REGION = Aff(preferred=[weighted(6, term("region", expr("security", "In", "S2")))])
AFFINITY3 = Aff(
    preferred=[
        weighted(8, term("region", expr("security", "NotIn", "S1"), expr("security", "In", "S2"))),
        weighted(2, term("region", expr("security", "Exists"), expr("wrongkey", "DoesNotExist"))),
    ]
)
HARD_AFFINITY = Aff(
    required=[
        term("region", expr("security", "In", "S1", "value2")),
        term("region", expr("security", "Exists"), expr("wrongkey", "DoesNotExist")),
    ]
)
AWAY_FROM_S1_IN_AZ = Aff(preferred_anti=[weighted(5, term("az", expr("security", "In", "S1")))])
AWAY_FROM_S2_IN_AZ = Aff(preferred_anti=[weighted(5, term("az", expr("security", "In", "S2")))])
STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ = Aff(
    preferred=[weighted(8, term("region", expr("security", "In", "S1")))],
    preferred_anti=[weighted(5, term("az", expr("security", "In", "S2")))],
)
TEAM1 = {"matchExpressions": [expr("team", "In", "team1")]}
AFFINITY_NS_SELECTOR = Aff(
    preferred=[
        weighted(
            5,
            term("region", expr("security", "In", "S1"), namespaces=["subteam2.team2"], namespace_selector=TEAM1),
        )
    ]
)
ANTI_AFFINITY_NS_SELECTOR = Aff(preferred_anti=AFFINITY_NS_SELECTOR.preferred)


def nodes3(a: dict[str, str], b: dict[str, str], c: dict[str, str]) -> list[o.Node]:
    return [make_node("node1").labels(a).obj(), make_node("node2").labels(b).obj(), make_node("node3").labels(c).obj()]


@dataclass
class Case:
    name: str
    pod: o.Pod
    pods: list[o.Pod]
    nodes: list[o.Node]
    want: list[int] | None
    args: dict[str, Any] = field(default_factory=dict)


PREFERRED_CASES = [
    Case(
        "affinity matches topology key and pods",
        new_pod(S1, affinity=STAY_WITH_S1_IN_REGION),
        [new_pod(S1, node="node1"), new_pod(S2, node="node2"), new_pod(S1, node="node3")],
        nodes3(RG_CHINA, RG_INDIA, AZ1),
        [MAX, 0, 0],
    ),
    Case(
        "nodes sharing a topology value share the score",
        new_pod(affinity=STAY_WITH_S1_IN_REGION),
        [new_pod(S1, node="node1")],
        nodes3(RG_CHINA, RG_CHINA_AZ1, RG_INDIA),
        [MAX, MAX, 0],
    ),
    Case(
        "region with more matching pods scores higher",
        new_pod(S1, affinity=STAY_WITH_S2_IN_REGION),
        [new_pod(S2, node=n) for n in ("node1", "node1", "node2", "node3", "node4", "node5")],
        [
            make_node("node1").labels(RG_CHINA).obj(),
            make_node("node2").labels(RG_INDIA).obj(),
            make_node("node3").labels(RG_CHINA).obj(),
            make_node("node4").labels(RG_CHINA).obj(),
            make_node("node5").labels(RG_INDIA).obj(),
        ],
        [MAX, 0, MAX, MAX, 0],
    ),
    Case(
        "label operators with some match failures",
        new_pod(S1, affinity=AFFINITY3),
        [new_pod(S1, node="node1"), new_pod(S2, node="node2"), new_pod(S1, node="node3")],
        nodes3(RG_CHINA, RG_INDIA, AZ1),
        [20, MAX, 0],
    ),
    Case(
        "symmetry: existing pods' preferred affinity",
        new_pod(S2),
        [
            new_pod(S1, affinity=STAY_WITH_S1_IN_REGION, node="node1"),
            new_pod(S2, affinity=STAY_WITH_S2_IN_REGION, node="node2"),
        ],
        nodes3(RG_CHINA, RG_INDIA, AZ1),
        [0, MAX, 0],
    ),
    Case(
        "symmetry with namespace selector",
        new_pod(S1, namespace="subteam1.team1"),
        [
            new_pod(S1, affinity=AFFINITY_NS_SELECTOR, node="node1"),
            new_pod(S2, affinity=STAY_WITH_S2_IN_REGION, node="node2"),
        ],
        nodes3(RG_CHINA, RG_INDIA, AZ1),
        [MAX, 0, 0],
    ),
    Case(
        "anti-affinity symmetry with namespace selector",
        new_pod(S1, namespace="subteam1.team1"),
        [
            new_pod(S1, affinity=ANTI_AFFINITY_NS_SELECTOR, node="node1"),
            new_pod(S2, affinity=STAY_WITH_S2_IN_REGION, node="node2"),
        ],
        nodes3(RG_CHINA, RG_INDIA, AZ1),
        [0, MAX, MAX],
    ),
    Case(
        "symmetry: existing pods' required affinity",
        new_pod(S1),
        [new_pod(S1, affinity=HARD_AFFINITY, node="node1"), new_pod(S2, affinity=HARD_AFFINITY, node="node2")],
        nodes3(RG_CHINA, RG_INDIA, AZ1),
        [MAX, MAX, 0],
    ),
    Case(
        "anti-affinity: node with matching pod scores low",
        new_pod(S1, affinity=AWAY_FROM_S1_IN_AZ),
        [new_pod(S1, node="node1"), new_pod(S2, node="node2")],
        [make_node("node1").labels(AZ1).obj(), make_node("node2").labels(RG_CHINA).obj()],
        [0, MAX],
    ),
    Case(
        "anti-affinity: node without the topology key scores high",
        new_pod(S1, affinity=AWAY_FROM_S1_IN_AZ),
        [new_pod(S1, node="node1"), new_pod(S1, node="node2")],
        [make_node("node1").labels(AZ1).obj(), make_node("node2").labels(RG_CHINA).obj()],
        [0, MAX],
    ),
    Case(
        "anti-affinity: more matching pods, lower score",
        new_pod(S1, affinity=AWAY_FROM_S1_IN_AZ),
        [new_pod(S1, node="node1"), new_pod(S1, node="node1"), new_pod(S2, node="node2")],
        [make_node("node1").labels(AZ1).obj(), make_node("node2").labels(RG_INDIA).obj()],
        [0, MAX],
    ),
    Case(
        "anti-affinity symmetry",
        new_pod(S2),
        [
            new_pod(S1, affinity=AWAY_FROM_S2_IN_AZ, node="node1"),
            new_pod(S2, affinity=AWAY_FROM_S1_IN_AZ, node="node2"),
        ],
        [make_node("node1").labels(AZ1).obj(), make_node("node2").labels(AZ2).obj()],
        [0, MAX],
    ),
    Case(
        "affinity and anti-affinity",
        new_pod(S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
        [new_pod(S1, node="node1"), new_pod(S1, node="node2")],
        [make_node("node1").labels(RG_CHINA).obj(), make_node("node2").labels(AZ1).obj()],
        [MAX, 0],
    ),
    Case(
        "affinity and anti-affinity with same-labelled pods",
        new_pod(S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
        [new_pod(S1, node=n) for n in ("node1", "node1", "node2", "node3", "node3", "node4", "node5")],
        [
            make_node("node1").labels(RG_CHINA_AZ1).obj(),
            make_node("node2").labels(RG_INDIA).obj(),
            make_node("node3").labels(RG_CHINA).obj(),
            make_node("node4").labels(RG_CHINA).obj(),
            make_node("node5").labels(RG_INDIA).obj(),
        ],
        [MAX, 0, MAX, MAX, 0],
    ),
    Case(
        "affinity, anti-affinity and symmetry together",
        new_pod(S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
        [
            new_pod(S1, node="node1"),
            new_pod(S2, node="node2"),
            new_pod(affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ, node="node3"),
            new_pod(affinity=AWAY_FROM_S1_IN_AZ, node="node4"),
        ],
        [
            make_node("node1").labels(RG_CHINA).obj(),
            make_node("node2").labels(AZ1).obj(),
            make_node("node3").labels(RG_INDIA).obj(),
            make_node("node4").labels(AZ2).obj(),
        ],
        [MAX, 0, MAX, 0],
    ),
    Case(
        "partial nodes in a topology without pods with affinity",
        new_pod(S1),
        [new_pod(S1, node="node1"), new_pod(affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ, node="node2")],
        [make_node("node1").labels(RG_CHINA).obj(), make_node("node2").labels(RG_CHINA).obj()],
        [0, 0],
    ),
    Case(
        "affinity with pods matching the namespaceSelector",
        new_pod(S1, affinity=AFFINITY_NS_SELECTOR, namespace="subteam1.team1"),
        [
            new_pod(S1, node="node1", namespace="subteam1.team1"),
            new_pod(S1, node="node1", namespace="subteam1.team1"),
            new_pod(S1, node="node1", namespace="subteam1.team2"),
            new_pod(S1, node="node2", namespace="subteam2.team1"),
        ],
        [make_node("node1").labels(RG_CHINA).obj(), make_node("node2").labels(RG_INDIA).obj()],
        [MAX, 0],
    ),
    Case(
        "affinity with pods matching namespaceSelector and namespaces",
        new_pod(S1, affinity=AFFINITY_NS_SELECTOR, namespace="subteam1.team1"),
        [
            new_pod(S1, node="node1", namespace="subteam1.team1"),
            new_pod(S1, node="node1", namespace="subteam1.team1"),
            new_pod(S1, node="node1", namespace="subteam2.team2"),
            new_pod(S1, node="node2", namespace="subteam2.team1"),
        ],
        [make_node("node1").labels(RG_CHINA).obj(), make_node("node2").labels(RG_INDIA).obj()],
        [MAX, 0],
    ),
    Case(
        "anti-affinity with pods matching the namespaceSelector",
        new_pod(S1, affinity=ANTI_AFFINITY_NS_SELECTOR, namespace="subteam1.team1"),
        [
            new_pod(S1, node="node1", namespace="subteam1.team1"),
            new_pod(S1, node="node1", namespace="subteam1.team1"),
            new_pod(S1, node="node1", namespace="subteam1.team2"),
            new_pod(S1, node="node2", namespace="subteam2.team1"),
        ],
        [make_node("node1").labels(RG_CHINA).obj(), make_node("node2").labels(RG_INDIA).obj()],
        [0, MAX],
    ),
    Case(
        "preferred terms of existing pods ignored: skip",
        new_pod(S2),
        [
            new_pod(S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ, node="node1"),
            new_pod(S2, affinity=STAY_WITH_S2_IN_REGION, node="node2"),
        ],
        [make_node("node1").labels(RG_CHINA).obj(), make_node("node2").labels(RG_INDIA).obj()],
        None,
        {"ignorePreferredTermsOfExistingPods": True},
    ),
    Case(
        "preferred terms of existing pods not ignored",
        new_pod(S2),
        [
            new_pod(S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ, node="node1"),
            new_pod(S2, affinity=STAY_WITH_S2_IN_REGION, node="node2"),
        ],
        [make_node("node1").labels(RG_CHINA).obj(), make_node("node2").labels(RG_INDIA).obj()],
        [0, MAX],
        {"ignorePreferredTermsOfExistingPods": False},
    ),
    Case("no affinity anywhere: skip", new_pod(S1), [], nodes3(RG_CHINA, RG_INDIA, AZ1), None),
    Case("no nodes: skip", new_pod(S2), [], [], None),
]


@pytest.mark.parametrize("case", PREFERRED_CASES, ids=lambda c: c.name)
def test_preferred_affinity(case: Case) -> None:
    result = run(case.pod, case.pods, case.nodes, case.args)
    if case.want is None:
        assert result.pre_score.code == Code.Skip
    else:
        assert result.pre_score.is_success()
        assert result.scores == case.want


SERVICE_S1 = {"service": "S1"}
HARD_POD_AFFINITY = Aff(
    required=[
        term(
            "region",
            expr("service", "In", "S1"),
            namespaces=["", "subteam2.team2"],
            namespace_selector=TEAM1,
        )
    ]
)


@pytest.mark.parametrize(
    ("namespace", "weight", "want"),
    [
        pytest.param("", 1, [MAX, MAX, 0], id="default weight"),
        pytest.param("", 0, None, id="zero weight skips"),
        pytest.param("subteam1.team2", 1, None, id="no matching namespace skips"),
        pytest.param("subteam1.team1", 1, [MAX, MAX, 0], id="matching namespaceSelector"),
        pytest.param("subteam2.team2", 1, [MAX, MAX, 0], id="matching namespaces"),
    ],
)
def test_hard_pod_affinity_weight(namespace: str, weight: int, want: list[int] | None) -> None:
    # As upstream, the existing pods and the first rows' incoming pod have no namespace ("").
    pods = [new_pod(affinity=HARD_POD_AFFINITY, node=n, namespace="") for n in ("node1", "node2")]
    pod = new_pod(SERVICE_S1, namespace=namespace)
    result = run(pod, pods, nodes3(RG_CHINA, RG_INDIA, AZ1), {"hardPodAffinityWeight": weight})
    if want is None:
        assert result.pre_score.code == Code.Skip
    else:
        assert result.pre_score.is_success()
        assert result.scores == want


def test_hard_pod_affinity_weight_scales_raw_score() -> None:
    existing = new_pod(affinity=Aff(required=[term("region", expr("service", "In", "S1"))]), node="node1")
    result = run(new_pod(SERVICE_S1), [existing], nodes3(RG_CHINA, RG_INDIA, AZ1), {"hardPodAffinityWeight": 7})
    assert result.raw == [7, 0, 0]
    assert result.scores == [MAX, 0, 0]


def test_hard_pod_affinity_weight_defaults_to_one_when_null() -> None:
    existing = new_pod(affinity=Aff(required=[term("region", expr("service", "In", "S1"))]), node="node1")
    result = run(new_pod(SERVICE_S1), [existing], nodes3(RG_CHINA, RG_INDIA, AZ1), {"hardPodAffinityWeight": None})
    assert result.raw == [1, 0, 0]


# ---------------------------------------------------------------------- edges of the upstream code

HOST = "kubernetes.io/hostname"


def host_nodes(*names: str) -> list[o.Node]:
    """Nodes labelled only with their kubernetes.io/hostname, as make_node() labels them."""
    return [make_node(n).obj() for n in names]


def test_normalize_divides_before_scaling() -> None:
    # 100 * (29 / 100) is 28.999999999999996 in float64: upstream truncates it to 28, not 29.
    pod = new_pod(affinity=Aff(preferred=[weighted(1, term(HOST, expr("app", "In", "x")))]))
    pods = [new_pod({"app": "x"}, node="n1") for _ in range(100)]
    pods += [new_pod({"app": "x"}, node="n2") for _ in range(29)]
    result = run(pod, pods, host_nodes("n1", "n2", "n3"))
    assert result.raw == [100, 29, 0]
    assert result.scores == [MAX, 28, 0]


def test_normalize_negative_scores() -> None:
    pod = new_pod(affinity=Aff(preferred_anti=[weighted(10, term(HOST, expr("app", "In", "x")))]))
    pods = [new_pod({"app": "x"}, node="n1"), new_pod({"app": "x"}, node="n1"), new_pod({"app": "x"}, node="n2")]
    result = run(pod, pods, host_nodes("n1", "n2", "n3"))
    assert result.raw == [-20, -10, 0]
    assert result.scores == [0, 50, MAX]


def test_cancelling_weights_still_score_all_zero() -> None:
    # The pair entry exists (so no Skip) but sums to 0: every node gets 0 after normalizing.
    t = term(HOST, expr("app", "In", "x"))
    pod = new_pod(affinity=Aff(preferred=[weighted(5, t)], preferred_anti=[weighted(5, t)]))
    result = run(pod, [new_pod({"app": "x"}, node="n1")], host_nodes("n1", "n2"))
    assert result.pre_score.is_success()
    assert result.raw == [0, 0]
    assert result.scores == [0, 0]


def test_all_equal_scores_normalize_to_zero() -> None:
    pod = new_pod(affinity=Aff(preferred=[weighted(3, term("zone", expr("app", "In", "x")))]))
    nodes = [make_node("n1").labels(zone="a").obj(), make_node("n2").labels(zone="a").obj()]
    result = run(pod, [new_pod({"app": "x"}, node="n1")], nodes)
    assert result.raw == [3, 3]
    assert result.scores == [0, 0]


def test_pods_on_infeasible_nodes_count() -> None:
    # PreScore lists every node of the snapshot, not just the feasible ones it is handed.
    pod = new_pod(affinity=Aff(preferred=[weighted(4, term("zone", expr("app", "In", "x")))]))
    nodes = [
        make_node("n1").labels(zone="a").obj(),
        make_node("n2").labels(zone="a").obj(),
        make_node("n3").labels(zone="b").obj(),
    ]
    result = run(pod, [new_pod({"app": "x"}, node="n1")], nodes, feasible=["n2", "n3"])
    assert result.raw == [4, 0]
    assert result.scores == [MAX, 0]


def test_existing_pod_on_node_without_labels_is_ignored() -> None:
    pod = new_pod(S1, affinity=STAY_WITH_S1_IN_REGION)
    nodes = [make_node("n1").obj(), make_node("n2").labels(RG_CHINA).obj()]
    result = run(pod, [new_pod(S1, node="n1")], nodes)
    assert result.pre_score.code == Code.Skip


def test_ignore_existing_preferred_terms_only_when_pod_has_none() -> None:
    # With preferred terms of its own, the pod still sees existing pods' preferred terms.
    existing = new_pod(affinity=Aff(preferred=[weighted(7, term("region", expr("security", "In", "S2")))]), node="n1")
    pod = new_pod(S2, affinity=AWAY_FROM_S1_IN_AZ)
    nodes = [make_node("n1").labels(RG_CHINA).obj(), make_node("n2").labels(RG_INDIA).obj()]
    result = run(pod, [existing], nodes, {"ignorePreferredTermsOfExistingPods": True})
    assert result.raw == [7, 0]


def test_ignore_existing_preferred_terms_skips_required_too() -> None:
    existing = new_pod(affinity=Aff(required=[term("region", expr("security", "In", "S2"))]), node="n1")
    nodes = [make_node("n1").labels(RG_CHINA).obj(), make_node("n2").labels(RG_INDIA).obj()]
    result = run(new_pod(S2), [existing], nodes, {"ignorePreferredTermsOfExistingPods": True})
    assert result.pre_score.code == Code.Skip


def test_incoming_namespace_selector_kept_against_empty_labels() -> None:
    # Upstream merges matched namespaces but keeps the selector, then matches it against no labels:
    # a NotIn selector therefore matches pods of every namespace, even unknown ones.
    not_team1 = {"matchExpressions": [expr("team", "NotIn", "team1")]}
    t = term("region", expr("security", "In", "S1"), namespace_selector=not_team1)
    pod = new_pod(affinity=Aff(preferred=[weighted(2, t)]), namespace="subteam1.team1")
    pods = [new_pod(S1, node="n1", namespace="subteam1.team1"), new_pod(S1, node="n1", namespace="ghost")]
    result = run(pod, pods, [make_node("n1").labels(RG_CHINA).obj(), make_node("n2").labels(RG_INDIA).obj()])
    assert result.raw == [4, 0]


def test_existing_pod_namespace_selector_uses_incoming_namespace_labels() -> None:
    t = term("region", expr("security", "In", "S1"), namespace_selector=TEAM1)
    existing = new_pod(affinity=Aff(preferred=[weighted(9, t)]), node="n1", namespace="subteam1.team2")
    nodes = [make_node("n1").labels(RG_CHINA).obj(), make_node("n2").labels(RG_INDIA).obj()]
    assert run(new_pod(S1, namespace="subteam2.team1"), [existing], nodes).raw == [9, 0]
    assert run(new_pod(S1, namespace="subteam2.team2"), [existing], nodes).pre_score.code == Code.Skip


@pytest.mark.parametrize("kind", ["preferred", "preferred_anti"])
def test_invalid_preferred_selector_fails_pre_score(kind: str) -> None:
    bad = weighted(8, term("region", expr("security", "In", "{{.bad-value.}}")))
    aff = Aff(preferred=[bad]) if kind == "preferred" else Aff(preferred_anti=[bad])
    result = run(
        new_pod(affinity=aff), [], [make_node("n1").labels(RG_CHINA).obj(), make_node("n2").labels(RG_CHINA).obj()]
    )
    assert result.pre_score.code == Code.Error
    assert result.pre_score.message().startswith("failed to parse pod: ")
    assert 'Invalid value: "{{.bad-value.}}"' in result.pre_score.message()


def test_score_without_pre_score_state_is_an_error() -> None:
    handle = make_handle(*host_nodes("n1"))
    plugin = InterPodAffinity(handle)
    value, status = plugin.score(CycleState(), PodInfo(new_pod()), handle.node_infos[0])
    assert value == 0
    assert status.code == Code.Error
    assert status.message() == 'failed to read "PreScoreInterPodAffinity" from cycleState: not found'


def test_evidence_names_terms_and_pods() -> None:
    pod = new_pod(
        S1,
        affinity=Aff(
            preferred=[weighted(5, term("region", expr("security", "In", "S1")))],
            preferred_anti=[weighted(3, term("region", expr("security", "In", "S1")))],
        ),
    )
    holder = new_pod(S1, node="n1", affinity=HARD_AFFINITY)
    result = run(pod, [holder], [make_node("n1").labels(RG_CHINA).obj(), make_node("n2").labels(RG_INDIA).obj()])
    assert result.raw == [5 - 3 + 2, 0]
    (ev,) = result.evidence["n1"]
    assert isinstance(ev, PodAffinityScoreEvidence)
    assert (ev.topology_key, ev.topology_value, ev.score) == ("region", "China", 4)
    by_rule: dict[str, list[AffinityContribution]] = {}
    for c in ev.contributions:
        by_rule.setdefault(c.rule, []).append(c)
    assert [c.subtotal for c in by_rule["preferredAffinity"]] == [5]
    assert [c.subtotal for c in by_rule["preferredAntiAffinity"]] == [-3]
    # One entry per required term of the existing pod, each weighted by hardPodAffinityWeight.
    required = by_rule["existingRequiredAffinity"]
    assert [c.subtotal for c in required] == [1, 1]
    assert all(c.pods == [f"default/{holder.metadata.name}"] for c in required)
    assert result.evidence["n2"] == []
