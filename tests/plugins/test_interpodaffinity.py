"""InterPodAffinity PreFilter, Filter and AddPod/RemovePod, after upstream's filtering_test.go."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from podwhy.framework.evidence import MatchingDomain, PodAffinityTermEvidence
from podwhy.framework.interface import CycleState
from podwhy.framework.status import Code, Status
from podwhy.framework.types import PodInfo
from podwhy.model import objects as o
from podwhy.plugins.interpodaffinity import InterPodAffinity
from podwhy.plugins.interpodaffinity.filtering import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH as AFFINITY,
)
from podwhy.plugins.interpodaffinity.filtering import (
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH as ANTI,
)
from podwhy.plugins.interpodaffinity.filtering import (
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH as EXISTING,
)
from podwhy.plugins.interpodaffinity.filtering import (
    PRE_FILTER_STATE_KEY,
    PreFilterState,
)
from tests.builders import from_raw, make_handle, make_node, make_pod

OK, U, UAU, SKIP = Code.Success, Code.Unschedulable, Code.UnschedulableAndUnresolvable, Code.Skip
Term = dict[str, Any]
Verdict = tuple[Code, list[str]]

_names = itertools.count()


def expr(key: str, op: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": op, "values": list(values)}


def term(
    topology_key: str,
    *exprs: dict[str, Any],
    match_labels: dict[str, str] | None = None,
    namespaces: list[str] | None = None,
    namespace_selector: dict[str, Any] | None = None,
) -> Term:
    selector: dict[str, Any] = {"matchExpressions": list(exprs)}
    if match_labels:
        selector["matchLabels"] = match_labels
    out: Term = {"labelSelector": selector, "topologyKey": topology_key}
    if namespaces:
        out["namespaces"] = namespaces
    if namespace_selector is not None:
        out["namespaceSelector"] = namespace_selector
    return out


def new_pod(
    labels: dict[str, str] | None = None,
    *,
    affinity: list[Term] | None = None,
    anti: list[Term] | None = None,
    node: str = "",
    namespace: str = "default",
    name: str = "",
    preferred_anti: list[Term] | None = None,
) -> o.Pod:
    """make_pod() named p0, p1, ... unless named, with required pod (anti-)affinity terms."""
    builder = make_pod(name or f"p{next(_names)}", namespace).labels(labels or {})
    if node:
        builder.node(node)
    if affinity is not None:
        builder.affinity({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": affinity}})
    if anti is not None or preferred_anti is not None:
        preferred = [{"weight": 1, "podAffinityTerm": t} for t in preferred_anti or []]
        builder.affinity(
            {
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": anti or [],
                    "preferredDuringSchedulingIgnoredDuringExecution": preferred,
                }
            }
        )
    return builder.obj()


def make_namespace(name: str, labels: dict[str, str]) -> o.Namespace:
    return from_raw(o.Namespace, {"metadata": {"name": name, "labels": labels}})


# Upstream's test namespaces.
NAMESPACES = [
    make_namespace("subteam1.team1", {"team": "team1"}),
    make_namespace("subteam2.team1", {"team": "team1"}),
    make_namespace("subteam1.team2", {"team": "team2"}),
]


class Setup:
    def __init__(self, pods: list[o.Pod], nodes: list[o.Node], namespaces: list[o.Namespace] | None = None) -> None:
        self.handle = make_handle(*nodes, *pods, *(NAMESPACES if namespaces is None else namespaces))
        self.plugin = InterPodAffinity(self.handle)
        self.state = CycleState()

    def pre_filter(self, pod: o.Pod) -> tuple[PodInfo, Status]:
        pi = PodInfo(pod)
        result, status = self.plugin.pre_filter(self.state, pi, self.handle.node_infos)
        assert result is None
        return pi, status

    def run(self, pod: o.Pod) -> tuple[Verdict, list[Verdict]]:
        pi, pre = self.pre_filter(pod)
        if not pre.is_success():
            return (pre.code, pre.reasons), []
        out = []
        for ni in self.handle.node_infos:
            st = self.plugin.filter(self.state, pi, ni)
            if st.is_rejected():
                assert st.evidence, "every rejection carries evidence"
            out.append((st.code, st.reasons))
        return (pre.code, pre.reasons), out


SERVICE = {"service": "securityscan"}
SECURITY = {"security": "S1"}
NODE1 = make_node("node1").labels(region="r1", zone="z11").obj()


def single(pod: o.Pod, existing: list[o.Pod], node: o.Node = NODE1) -> Verdict:
    pre, filters = Setup(existing, [node]).run(pod)
    return pre if pre[0] != OK else filters[0]


ON_NODE1 = new_pod(SERVICE, node="node1")


@pytest.mark.parametrize(
    ("pod", "existing", "want"),
    [
        pytest.param(new_pod(), [], (SKIP, []), id="no required rules and no existing pods: Skip"),
        pytest.param(
            new_pod(SECURITY, affinity=[term("region", expr("service", "In", "securityscan", "value2"))]),
            [ON_NODE1],
            (OK, []),
            id="affinity In matches the existing pod",
        ),
        pytest.param(
            new_pod(SECURITY, affinity=[term("region", expr("service", "NotIn", "securityscan3", "value3"))]),
            [ON_NODE1],
            (OK, []),
            id="affinity NotIn matches the existing pod",
        ),
        pytest.param(
            new_pod(
                SECURITY,
                affinity=[term("", expr("service", "In", "securityscan", "value2"), namespaces=["DiffNameSpace"])],
            ),
            [new_pod(SERVICE, node="node1", namespace="ns")],
            (UAU, [AFFINITY]),
            id="affinity fails: existing pod in another namespace",
        ),
        pytest.param(
            new_pod(SERVICE, affinity=[term("", expr("service", "In", "antivirusscan", "value2"))]),
            [ON_NODE1],
            (UAU, [AFFINITY]),
            id="affinity fails: selector does not match (empty topology key is missing on the node)",
        ),
        pytest.param(
            new_pod(
                SECURITY,
                affinity=[
                    term("region", expr("service", "Exists"), expr("wrongkey", "DoesNotExist")),
                    term("region", expr("service", "In", "securityscan2"), expr("service", "NotIn", "WrongValue")),
                ],
            ),
            [ON_NODE1],
            (UAU, [AFFINITY]),
            id="requirements of a term are ANDed",
        ),
        pytest.param(
            new_pod(
                SECURITY,
                affinity=[term("region", expr("service", "In", "securityscan", "value2"))],
                anti=[term("zone", expr("service", "In", "securityscan", "value2"))],
            ),
            [ON_NODE1],
            (U, [ANTI]),
            id="affinity satisfied, anti-affinity not",
        ),
        pytest.param(
            new_pod(
                SERVICE,
                affinity=[term("region", expr("service", "In", "securityscan", "value2"))],
                anti=[term("node", expr("service", "In", "antivirusscan", "value2"))],
            ),
            [new_pod(SERVICE, node="node1", anti=[term("zone", expr("service", "In", "securityscan", "value2"))])],
            (U, [EXISTING]),
            id="existing pod's anti-affinity (symmetry) rejects",
        ),
        pytest.param(
            new_pod(SERVICE, affinity=[term("region", expr("service", "NotIn", "securityscan", "value2"))]),
            [new_pod(SERVICE, node="node2")],
            (UAU, [AFFINITY]),
            id="pod does not match its own terms: no first-pod exemption",
        ),
        pytest.param(
            new_pod(SERVICE),
            [new_pod(SERVICE, node="node1", anti=[term("zone", expr("service", "In", "securityscan", "value2"))])],
            (U, [EXISTING]),
            id="pod without rules rejected by an existing pod's anti-affinity",
        ),
        pytest.param(
            new_pod(SERVICE),
            [new_pod(SERVICE, node="node1", anti=[term("zone", expr("service", "NotIn", "securityscan", "v2"))])],
            (SKIP, []),
            id="existing anti-affinity that does not match the pod: Skip",
        ),
        pytest.param(
            new_pod(
                SERVICE, anti=[term("region", expr("service", "Exists")), term("region", expr("security", "Exists"))]
            ),
            [new_pod(SECURITY, node="node1", anti=[term("zone", expr("security", "Exists"))])],
            (U, [ANTI]),
            id="incoming anti-affinity is checked before the existing pods' anti-affinity",
        ),
        pytest.param(
            new_pod(SECURITY, anti=[term("zone", expr("security", "Exists"))]),
            [
                new_pod(
                    SERVICE,
                    node="node1",
                    anti=[term("zone", expr("service", "Exists")), term("zone", expr("security", "Exists"))],
                )
            ],
            (U, [EXISTING]),
            id="any existing anti-affinity term that matches rejects",
        ),
        pytest.param(
            new_pod(
                SECURITY,
                affinity=[
                    term(
                        "region",
                        expr("service", "In", "securityscan", "value2"),
                        namespace_selector={"matchExpressions": [expr("team", "In", "team1")]},
                    )
                ],
            ),
            [new_pod(SERVICE, node="node1", namespace="subteam1.team1")],
            (OK, []),
            id="affinity with a matching namespaceSelector",
        ),
        pytest.param(
            new_pod(
                SECURITY,
                affinity=[
                    term(
                        "region",
                        expr("service", "In", "securityscan", "value2"),
                        namespace_selector={"matchExpressions": [expr("team", "In", "team1")]},
                    )
                ],
            ),
            [new_pod(SERVICE, node="node1", namespace="subteam1.team2")],
            (UAU, [AFFINITY]),
            id="affinity with a non-matching namespaceSelector",
        ),
        pytest.param(
            new_pod(
                SECURITY,
                namespace="subteam1.team1",
                anti=[
                    term(
                        "zone",
                        expr("service", "In", "securityscan", "value2"),
                        namespace_selector={"matchExpressions": [expr("team", "In", "team1")]},
                    )
                ],
            ),
            [new_pod(SERVICE, node="node1", namespace="subteam2.team1")],
            (U, [ANTI]),
            id="anti-affinity with a matching namespaceSelector",
        ),
        pytest.param(
            new_pod(
                SECURITY,
                namespace="subteam1.team1",
                anti=[term("zone", expr("service", "In", "securityscan", "value2"), namespace_selector={})],
            ),
            [new_pod(SERVICE, node="node1", namespace="subteam2.team1")],
            (U, [ANTI]),
            id="anti-affinity with an empty namespaceSelector matches all namespaces",
        ),
        pytest.param(
            new_pod(
                SECURITY,
                namespace="subteam1.team1",
                anti=[
                    term(
                        "zone",
                        expr("service", "In", "securityscan", "value2"),
                        namespace_selector={"matchExpressions": [expr("team", "In", "team1")]},
                    )
                ],
            ),
            [new_pod(SERVICE, node="node1", namespace="subteam1.team2")],
            (OK, []),
            id="anti-affinity with a non-matching namespaceSelector",
        ),
        pytest.param(
            new_pod(
                SECURITY,
                affinity=[
                    term(
                        "region",
                        expr("service", "Exists"),
                        namespace_selector={"matchExpressions": [expr("team", "NotIn", "team1", "team2")]},
                    )
                ],
            ),
            [new_pod(SERVICE, node="node1", namespace="subteam1.team2")],
            (OK, []),
            id="quirk: the incoming pod's namespaceSelector is also matched against empty labels",
        ),
        pytest.param(
            new_pod(SECURITY),
            [
                new_pod(
                    SERVICE,
                    node="node1",
                    namespace="subteam1.team1",
                    anti=[
                        term(
                            "zone",
                            expr("security", "Exists"),
                            namespace_selector={"matchExpressions": [expr("team", "DoesNotExist")]},
                        )
                    ],
                )
            ],
            (U, [EXISTING]),
            id="existing pod's namespaceSelector against the labels of an unknown namespace (empty set)",
        ),
        pytest.param(
            new_pod(
                SERVICE,
                affinity=[
                    term("region", expr("service", "In", "{{.bad-value.}}")),
                    term("node", expr("service", "In", "antivirusscan", "value2")),
                ],
            ),
            [],
            (
                UAU,
                [
                    'parsing pod: requiredAffinityTerms: values[0][service]: Invalid value: "{{.bad-value.}}": '
                    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                    "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
                    "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
                ],
            ),
            id="invalid affinity label value fails PreFilter",
        ),
        pytest.param(
            new_pod(SERVICE, preferred_anti=[term("zone", expr("service", "Bogus"))]),
            [],
            (UAU, ['parsing pod: preferredAntiAffinityTerms: "Bogus" is not a valid label selector operator']),
            id="an unparsable preferred term fails PreFilter too",
        ),
    ],
)
def test_required_affinity_single_node(pod: o.Pod, existing: list[o.Pod], want: Verdict) -> None:
    assert single(pod, existing) == want


CHINA = {"region": "China"}
CHINA_AZ1 = {"region": "China", "az": "az1"}
INDIA = {"region": "India"}
FOO_BAR = {"foo": "bar"}


@pytest.mark.parametrize(
    ("pod", "existing", "nodes", "want"),
    [
        pytest.param(
            new_pod(affinity=[term("region", expr("foo", "In", "bar"))]),
            [new_pod(FOO_BAR, node="node1")],
            [
                make_node("node1").labels(CHINA).obj(),
                make_node("node2").labels(CHINA_AZ1).obj(),
                make_node("node3").labels(INDIA).obj(),
            ],
            [(OK, []), (OK, []), (UAU, [AFFINITY])],
            id="same topology value as a matching pod fits",
        ),
        pytest.param(
            new_pod(
                {"foo": "bar", "service": "securityscan"},
                affinity=[term("zone", expr("foo", "In", "bar")), term("zone", expr("service", "In", "securityscan"))],
            ),
            [new_pod(FOO_BAR, node="nodeA")],
            [
                make_node("nodeA").labels(zone="az1", hostname="h1").obj(),
                make_node("nodeB").labels(zone="az2", hostname="h2").obj(),
            ],
            [(OK, []), (OK, [])],
            id="first pod of a self-affine group fits anywhere",
        ),
        pytest.param(
            new_pod(
                {"foo": "bar", "service": "securityscan"},
                affinity=[term("zone", expr("foo", "In", "bar")), term("zone", expr("service", "In", "securityscan"))],
            ),
            [new_pod(FOO_BAR, node="nodeA")],
            [make_node("nodeA").labels(zoneLabel="az1").obj(), make_node("nodeB").labels(zoneLabel="az2").obj()],
            [(UAU, [AFFINITY]), (UAU, [AFFINITY])],
            id="first pod still needs the topology keys on the node",
        ),
        pytest.param(
            new_pod({"foo": "bar"}, affinity=[term("zone", expr("foo", "In", "bar"))]),
            [new_pod(FOO_BAR, node="nodeA")],
            [make_node("nodeA").labels(hostname="h1").obj(), make_node("nodeB").labels(zone="az2").obj()],
            [(UAU, [AFFINITY]), (OK, [])],
            id="a match on a node without the key counts nowhere, so the first-pod rule applies",
        ),
        pytest.param(
            new_pod({"foo": "bar"}, affinity=[term("zone", expr("foo", "In", "bar"))]),
            [new_pod(FOO_BAR, node="nodeA")],
            [make_node("nodeA").labels(zone="az1").obj(), make_node("nodeB").labels(zone="az2").obj()],
            [(OK, []), (UAU, [AFFINITY])],
            id="once a matching pod exists the first-pod rule no longer applies",
        ),
        pytest.param(
            new_pod(
                {"foo": "bar"},
                affinity=[term("zone", expr("foo", "In", "bar"), namespaces=["other"])],
            ),
            [],
            [make_node("nodeA").labels(zone="az1").obj()],
            [(UAU, [AFFINITY])],
            id="self-affine pod outside its own namespace list cannot use the first-pod rule",
        ),
        pytest.param(
            new_pod(anti=[term("region", expr("foo", "In", "abc"))]),
            [new_pod({"foo": "abc"}, node="nodeA")],
            [make_node("nodeA").labels(region="r1").obj(), make_node("nodeB").labels(region="r1").obj()],
            [(U, [ANTI]), (U, [ANTI])],
            id="anti-affinity blocks the whole topology domain",
        ),
        pytest.param(
            new_pod(anti=[term("region", expr("foo", "In", "abc"))]),
            [new_pod({"foo": "abc"}, node="nodeA")],
            [
                make_node("nodeA").labels(CHINA).obj(),
                make_node("nodeB").labels(CHINA_AZ1).obj(),
                make_node("nodeC").labels(INDIA).obj(),
            ],
            [(U, [ANTI]), (U, [ANTI]), (OK, [])],
            id="anti-affinity leaves other domains free",
        ),
        pytest.param(
            new_pod({"foo": "123"}, namespace="NS1", anti=[term("region", expr("foo", "In", "bar"))]),
            [
                new_pod(FOO_BAR, node="nodeA", namespace="NS1"),
                new_pod(node="nodeC", namespace="NS2", anti=[term("region", expr("foo", "In", "123"))]),
            ],
            [
                make_node("nodeA").labels(CHINA).obj(),
                make_node("nodeB").labels(CHINA_AZ1).obj(),
                make_node("nodeC").labels(INDIA).obj(),
            ],
            [(U, [ANTI]), (U, [ANTI]), (OK, [])],
            id="existing anti-affinity only applies to the term's namespaces",
        ),
        pytest.param(
            new_pod({"foo": ""}),
            [new_pod(node="nodeA", anti=[term("invalid-node-label", expr("foo", "Exists"))])],
            [make_node("nodeA").labels(region="r1").obj(), make_node("nodeB").labels(region="r1").obj()],
            (SKIP, []),
            id="existing anti-affinity on a key no node has: Skip",
        ),
        pytest.param(
            new_pod(node="nodeA", anti=[term("invalid-node-label", expr("foo", "Exists"))]),
            [new_pod({"foo": ""}, node="nodeA")],
            [make_node("nodeA").labels(region="r1").obj(), make_node("nodeB").labels(region="r1").obj()],
            [(OK, []), (OK, [])],
            id="incoming anti-affinity on a key no node has never rejects",
        ),
        pytest.param(
            new_pod({"foo": "", "bar": ""}),
            [
                new_pod(node="nodeA", anti=[term("zone", expr("foo", "Exists"))]),
                new_pod(node="nodeA", anti=[term("region", expr("bar", "Exists"))]),
            ],
            [
                make_node("nodeA").labels(region="r1", zone="z1").obj(),
                make_node("nodeB").labels(region="r1", zone="z2").obj(),
            ],
            [(U, [EXISTING]), (U, [EXISTING])],
            id="existing anti-affinity by any of the node's labels",
        ),
    ],
)
def test_required_affinity_multiple_nodes(
    pod: o.Pod, existing: list[o.Pod], nodes: list[o.Node], want: list[Verdict] | Verdict
) -> None:
    pre, filters = Setup(existing, nodes).run(pod)
    assert (pre if pre[0] != OK else filters) == want


def test_affinity_evidence_names_term_and_domains() -> None:
    setup = Setup(
        [new_pod(FOO_BAR, node="nodeA", name="db")],
        [
            make_node("nodeA").labels(zone="az1").obj(),
            make_node("nodeB").labels(zone="az2").obj(),
            make_node("nodeC").obj(),
        ],
    )
    pi, _ = setup.pre_filter(new_pod(affinity=[term("zone", match_labels={"foo": "bar"})]))
    on_b = setup.plugin.filter(setup.state, pi, setup.handle.node_infos[1])
    evidence = on_b.evidence[0]
    assert isinstance(evidence, PodAffinityTermEvidence)
    assert evidence.topology_key == "zone"
    assert evidence.selector == "foo=bar"
    assert evidence.node_topology_value == "az2"
    assert evidence.matching_domains == [MatchingDomain(value="az1", count=1, pods=["default/db"])]
    on_c = setup.plugin.filter(setup.state, pi, setup.handle.node_infos[2])
    evidence = on_c.evidence[0]
    assert isinstance(evidence, PodAffinityTermEvidence) and evidence.node_topology_value is None


def test_anti_affinity_evidence_names_conflicting_pods() -> None:
    setup = Setup(
        [
            new_pod({"app": "web"}, node="nodeA", name="web-1"),
            new_pod(FOO_BAR, node="nodeA", name="guard", anti=[term("zone", expr("app", "Exists"))]),
        ],
        [make_node("nodeA").labels(zone="az1").obj()],
    )
    pi, _ = setup.pre_filter(new_pod({"app": "x"}, anti=[term("zone", match_labels={"app": "web"})]))
    st = setup.plugin.filter(setup.state, pi, setup.handle.node_infos[0])
    assert (st.code, st.reasons) == (U, [ANTI])
    evidence = st.evidence[0]
    assert isinstance(evidence, PodAffinityTermEvidence) and evidence.conflicting_pods == ["default/web-1"]

    pi, _ = setup.pre_filter(new_pod({"app": "x"}))
    st = setup.plugin.filter(setup.state, pi, setup.handle.node_infos[0])
    assert (st.code, st.reasons) == (U, [EXISTING])
    assert [e.pod for e in st.evidence if isinstance(e, PodAffinityTermEvidence)] == ["default/guard"]
    assert [e.node_topology_value for e in st.evidence if isinstance(e, PodAffinityTermEvidence)] == ["az1"]


def _state(setup: Setup) -> PreFilterState:
    s = setup.state.read(PRE_FILTER_STATE_KEY)
    assert isinstance(s, PreFilterState)
    return s


def test_add_and_remove_pod_update_all_three_counters() -> None:
    nodes = [
        make_node("nodeA").labels(zone="z1", region="r1").obj(),
        make_node("nodeB").labels(zone="z2", region="r1").obj(),
    ]
    setup = Setup([], nodes)
    pod = new_pod(
        {"app": "x"},
        affinity=[term("region", expr("app", "In", "db"))],
        anti=[term("zone", expr("app", "In", "web"))],
    )
    pi, pre = setup.pre_filter(pod)
    assert pre.code == OK
    node_a, node_b = setup.handle.node_infos
    assert [setup.plugin.filter(setup.state, pi, n).code for n in (node_a, node_b)] == [UAU, UAU]

    db = PodInfo(new_pod({"app": "db"}, node="nodeA"))
    web = PodInfo(new_pod({"app": "web"}, node="nodeB"))
    guard = PodInfo(new_pod(node="nodeA", anti=[term("zone", expr("app", "In", "x"))]))
    base = setup.state
    cloned = base.clone()
    for added, node in ((db, node_a), (web, node_b), (guard, node_a)):
        assert setup.plugin.add_pod(cloned, pi, added, node).code == OK
    s = cloned.read(PRE_FILTER_STATE_KEY)
    assert s.affinity_counts.counts == {("region", "r1"): 1}
    assert s.anti_affinity_counts.counts == {("zone", "z2"): 1}
    assert s.existing_anti_affinity_counts.counts == {("zone", "z1"): 1}
    assert [(st.code, st.reasons) for st in (setup.plugin.filter(cloned, pi, n) for n in (node_a, node_b))] == [
        (U, [EXISTING]),
        (U, [ANTI]),
    ]
    # The state PreFilter wrote is untouched by the clone's updates.
    assert not _state(setup).affinity_counts and not _state(setup).existing_anti_affinity_counts

    for removed, node in ((web, node_b), (guard, node_a)):
        assert setup.plugin.remove_pod(cloned, pi, removed, node).code == OK
    assert s.anti_affinity_counts.counts == {} and s.existing_anti_affinity_counts.counts == {}
    assert s.anti_affinity_counts.pods == {} and s.existing_anti_affinity_counts.pods == {}
    assert [setup.plugin.filter(cloned, pi, n).code for n in (node_a, node_b)] == [OK, OK]


def test_remove_of_a_bound_pod_drops_its_counts() -> None:
    nodes = [make_node("nodeA").labels(zone="z1").obj()]
    web = new_pod({"app": "web"}, node="nodeA")
    setup = Setup([web], nodes)
    pi, _ = setup.pre_filter(new_pod(anti=[term("zone", expr("app", "In", "web"))]))
    node_a = setup.handle.node_infos[0]
    assert setup.plugin.filter(setup.state, pi, node_a).code == U
    setup.plugin.remove_pod(setup.state, pi, node_a.pods[0], node_a)
    assert setup.plugin.filter(setup.state, pi, node_a).code == OK


def test_filter_without_pre_filter_state_is_an_error() -> None:
    setup = Setup([], [NODE1])
    st = setup.plugin.filter(setup.state, PodInfo(new_pod()), setup.handle.node_infos[0])
    assert st.code == Code.Error
    assert st.reasons == ['error reading "PreFilterInterPodAffinity" from cycleState: not found']


def test_required_kinds_ask_for_namespaces_only_when_a_selector_reads_them() -> None:
    setup = Setup([], [NODE1])
    plain = PodInfo(new_pod(affinity=[term("zone", expr("a", "Exists"), namespace_selector={})]))
    picky = PodInfo(
        new_pod(affinity=[term("zone", expr("a", "Exists"), namespace_selector={"matchLabels": {"t": "1"}})])
    )
    assert setup.plugin.required_kinds(plain) == set()
    assert setup.plugin.required_kinds(picky) == {"Namespace"}
    existing = new_pod(
        node="node1", anti=[term("zone", expr("a", "Exists"), namespace_selector={"matchLabels": {"t": "1"}})]
    )
    assert Setup([existing], [NODE1]).plugin.required_kinds(plain) == {"Namespace"}
