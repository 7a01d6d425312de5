"""NodeAffinity PreFilter + Filter, after the cases of upstream's node_affinity_test.go."""

from __future__ import annotations

from typing import Any

import pytest

from podwhy.errors import PodwhyError
from podwhy.framework.evidence import NodeAffinityTermEvidence, NodeSelectorEvidence
from podwhy.framework.interface import CycleState
from podwhy.framework.status import Code
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.model import objects as o
from podwhy.plugins.nodeaffinity import (
    ERR_REASON_CONFLICT,
    ERR_REASON_ENFORCED,
    ERR_REASON_POD,
    NodeAffinity,
)
from tests.builders import make_handle, make_node, make_pod, node_info
from tests.plugin_args import with_args

Json = dict[str, Any]
NAME = "metadata.name"


def expr(key: str, op: str, *values: str) -> Json:
    out: Json = {"key": key, "operator": op}
    if values:
        out["values"] = list(values)
    return out


def term(expressions: list[Json] | None = None, fields: list[Json] | None = None) -> Json:
    out: Json = {}
    if expressions is not None:
        out["matchExpressions"] = expressions
    if fields is not None:
        out["matchFields"] = fields
    return out


def required(*terms: Json) -> Json:
    return {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}


def pod_info(node_selector: dict[str, str] | None = None, node_affinity: Json | None = None) -> PodInfo:
    builder = make_pod("p")
    if node_selector is not None:
        builder.node_selector(node_selector)
    if node_affinity is not None:
        builder.affinity({"nodeAffinity": node_affinity})
    return builder.info()


def make_plugin(node: o.Node, args: Json | None = None) -> tuple[NodeAffinity, NodeInfo]:
    handle = make_handle(node)
    return with_args(NodeAffinity, handle, args), node_info(handle, node.metadata.name)


# (name, pod, node labels, node name, want PreFilter code, want PreFilter names, want Filter code, reason, args)
CASES: list[tuple[str, PodInfo, dict[str, str], str, Code, set[str] | None, Code, str, Json | None]] = [
    (
        "missing labels",
        pod_info({"foo": "bar"}),
        {},
        "node1",
        Code.Success,
        None,
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_POD,
        None,
    ),
    ("same labels", pod_info({"foo": "bar"}), {"foo": "bar"}, "node1", Code.Success, None, Code.Success, "", None),
    (
        "node labels are superset",
        pod_info({"foo": "bar"}),
        {"foo": "bar", "baz": "blah"},
        "node1",
        Code.Success,
        None,
        Code.Success,
        "",
        None,
    ),
    (
        "node labels are subset",
        pod_info({"foo": "bar", "baz": "blah"}),
        {"foo": "bar"},
        "node1",
        Code.Success,
        None,
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_POD,
        None,
    ),
    (
        "In matches",
        pod_info(node_affinity=required(term([expr("foo", "In", "bar", "value2")]))),
        {"foo": "bar"},
        "node1",
        Code.Success,
        None,
        Code.Success,
        "",
        None,
    ),
    (
        "Gt matches",
        pod_info(node_affinity=required(term([expr("kernel-version", "Gt", "0204")]))),
        {"kernel-version": "0206"},
        "node1",
        Code.Success,
        None,
        Code.Success,
        "",
        None,
    ),
    (
        "NotIn matches",
        pod_info(node_affinity=required(term([expr("mem-type", "NotIn", "DDR", "DDR2")]))),
        {"mem-type": "DDR3"},
        "node1",
        Code.Success,
        None,
        Code.Success,
        "",
        None,
    ),
    (
        "Exists matches",
        pod_info(node_affinity=required(term([expr("GPU", "Exists")]))),
        {"GPU": "NVIDIA-GRID-K1"},
        "node1",
        Code.Success,
        None,
        Code.Success,
        "",
        None,
    ),
    (
        "In does not match",
        pod_info(node_affinity=required(term([expr("foo", "In", "value1", "value2")]))),
        {"foo": "bar"},
        "node1",
        Code.Success,
        None,
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_POD,
        None,
    ),
    (
        "empty matchExpressions matches nothing",
        pod_info(node_affinity=required(term([]))),
        {"foo": "bar"},
        "node1",
        Code.Success,
        None,
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_POD,
        None,
    ),
    ("no affinity skips", pod_info(), {"foo": "bar"}, "node1", Code.Skip, None, Code.Success, "", None),
    (
        "nodeAffinity without required skips",
        pod_info(node_affinity={}),
        {"foo": "bar"},
        "node1",
        Code.Skip,
        None,
        Code.Success,
        "",
        None,
    ),
    (
        "ANDed expressions match",
        pod_info(node_affinity=required(term([expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER")]))),
        {"GPU": "NVIDIA-GRID-K1"},
        "node1",
        Code.Success,
        None,
        Code.Success,
        "",
        None,
    ),
    (
        "ANDed expressions do not match",
        pod_info(node_affinity=required(term([expr("GPU", "Exists"), expr("GPU", "In", "AMD", "INTER")]))),
        {"GPU": "NVIDIA-GRID-K1"},
        "node1",
        Code.Success,
        None,
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_POD,
        None,
    ),
    (
        "ORed terms, one matches",
        pod_info(
            node_affinity=required(
                term([expr("foo", "In", "bar", "value2")]), term([expr("diffkey", "In", "wrong", "value2")])
            )
        ),
        {"foo": "bar"},
        "node1",
        Code.Success,
        None,
        Code.Success,
        "",
        None,
    ),
    (
        "nodeSelector and affinity both satisfied",
        pod_info({"foo": "bar"}, required(term([expr("foo", "Exists")]))),
        {"foo": "bar"},
        "node1",
        Code.Success,
        None,
        Code.Success,
        "",
        None,
    ),
    (
        "affinity satisfied, nodeSelector not",
        pod_info({"foo": "bar"}, required(term([expr("foo", "Exists")]))),
        {"foo": "barrrrrr"},
        "node1",
        Code.Success,
        None,
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_POD,
        None,
    ),
    (
        "invalid value matches nothing",
        pod_info(node_affinity=required(term([expr("foo", "NotIn", "invalid value: ___@#$%^")]))),
        {"foo": "bar"},
        "node1",
        Code.Success,
        None,
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_POD,
        None,
    ),
    (
        "matchFields In matches",
        pod_info(node_affinity=required(term(fields=[expr(NAME, "In", "node1")]))),
        {},
        "node1",
        Code.Success,
        {"node1"},
        Code.Success,
        "",
        None,
    ),
    (
        "matchFields In does not match",
        pod_info(node_affinity=required(term(fields=[expr(NAME, "In", "node1")]))),
        {},
        "node2",
        Code.Success,
        {"node1"},
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_POD,
        None,
    ),
    (
        "two terms: fields miss, expressions match",
        pod_info(
            node_affinity=required(
                term(fields=[expr(NAME, "In", "node1"), expr(NAME, "In", "node2")]), term([expr("foo", "In", "bar")])
            )
        ),
        {"foo": "bar"},
        "node2",
        Code.Success,
        None,
        Code.Success,
        "",
        None,
    ),
    (
        "one term: fields miss, expressions match",
        pod_info(node_affinity=required(term([expr("foo", "In", "bar")], [expr(NAME, "In", "node1")]))),
        {"foo": "bar"},
        "node2",
        Code.Success,
        {"node1"},
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_POD,
        None,
    ),
    (
        "one term: both match",
        pod_info(node_affinity=required(term([expr("foo", "In", "bar")], [expr(NAME, "In", "node1")]))),
        {"foo": "bar"},
        "node1",
        Code.Success,
        {"node1"},
        Code.Success,
        "",
        None,
    ),
    (
        "two terms: neither matches",
        pod_info(
            node_affinity=required(
                term(fields=[expr(NAME, "In", "node1")]), term([expr("foo", "In", "not-match-to-bar")])
            )
        ),
        {"foo": "bar"},
        "node2",
        Code.Success,
        None,
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_POD,
        None,
    ),
    (
        "two terms of node name affinity",
        pod_info(
            node_affinity=required(term(fields=[expr(NAME, "In", "node1")]), term(fields=[expr(NAME, "In", "node2")]))
        ),
        {},
        "node2",
        Code.Success,
        {"node1", "node2"},
        Code.Success,
        "",
        None,
    ),
    (
        "two conflicting match field requirements",
        pod_info(node_affinity=required(term(fields=[expr(NAME, "In", "node1"), expr(NAME, "In", "node2")]))),
        {"foo": "bar"},
        "node2",
        Code.UnschedulableAndUnresolvable,
        None,
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_POD,
        None,
    ),
    (
        "matches added affinity and pod's",
        pod_info(node_affinity=required(term([expr("zone", "In", "foo")]))),
        {"zone": "foo"},
        "node2",
        Code.Success,
        None,
        Code.Success,
        "",
        {"addedAffinity": required(term(fields=[expr(NAME, "In", "node2")]))},
    ),
    (
        "matches added affinity but not pod's",
        pod_info(node_affinity=required(term([expr("zone", "In", "bar")]))),
        {"zone": "foo"},
        "node2",
        Code.Success,
        None,
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_POD,
        {"addedAffinity": required(term(fields=[expr(NAME, "In", "node2")]))},
    ),
    (
        "doesn't match added affinity",
        pod_info(),
        {"zone": "foo"},
        "node2",
        Code.Success,
        None,
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_ENFORCED,
        {"addedAffinity": required(term([expr("zone", "In", "bar")]))},
    ),
    (
        "added preferred affinity alone still skips",
        pod_info(),
        {},
        "node1",
        Code.Skip,
        None,
        Code.Success,
        "",
        {
            "addedAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 2, "preference": term([expr("foo", "In", "bar")])}
                ]
            }
        },
    ),
    # Edge cases beyond upstream's table.
    (
        "Lt with a non-integer value matches nothing",
        pod_info(node_affinity=required(term([expr("num", "Lt", "abc")]))),
        {"num": "1"},
        "node1",
        Code.Success,
        None,
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_POD,
        None,
    ),
    (
        "Gt with an int64 overflow node label does not match",
        pod_info(node_affinity=required(term([expr("num", "Gt", "1")]))),
        {"num": "99999999999999999999"},
        "node1",
        Code.Success,
        None,
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_POD,
        None,
    ),
    (
        "matchFields NotIn with two values is invalid",
        pod_info(node_affinity=required(term(fields=[expr(NAME, "NotIn", "a", "b")]))),
        {},
        "node1",
        Code.Success,
        None,
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_POD,
        None,
    ),
    (
        "matchFields NotIn other node matches",
        pod_info(node_affinity=required(term(fields=[expr(NAME, "NotIn", "node2")]))),
        {},
        "node1",
        Code.Success,
        None,
        Code.Success,
        "",
        None,
    ),
    (
        "matchFields names a node that does not exist",
        pod_info(node_affinity=required(term(fields=[expr(NAME, "In", "ghost")]))),
        {},
        "node1",
        Code.Success,
        {"ghost"},
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_POD,
        None,
    ),
    (
        "a term without matchFields lifts the node-name restriction",
        pod_info(node_affinity=required(term(fields=[expr(NAME, "In", "node1")]), term([]))),
        {},
        "node2",
        Code.Success,
        None,
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_POD,
        None,
    ),
    (
        "an unknown matchExpressions operator matches nothing",
        pod_info(node_affinity=required(term([expr("foo", "Equals", "bar")]))),
        {"foo": "bar"},
        "node1",
        Code.Success,
        None,
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_POD,
        None,
    ),
    (
        "required with no terms matches nothing",
        pod_info(node_affinity=required()),
        {},
        "node1",
        Code.Success,
        None,
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_POD,
        None,
    ),
]


@pytest.mark.parametrize(
    ("pod", "labels", "node_name", "want_pre", "want_names", "want_code", "want_reason", "args"),
    [pytest.param(*case[1:], id=case[0]) for case in CASES],
)
def test_node_affinity(
    pod: PodInfo,
    labels: dict[str, str],
    node_name: str,
    want_pre: Code,
    want_names: set[str] | None,
    want_code: Code,
    want_reason: str,
    args: Json | None,
) -> None:
    plugin, node_info = make_plugin(make_node(node_name).labels(labels).obj(), args)
    state = CycleState()
    result, status = plugin.pre_filter(state, pod, [node_info])
    assert status.code == want_pre
    assert (None if result is None else result.node_names) == want_names
    if want_pre == Code.UnschedulableAndUnresolvable:
        assert status.reasons == [ERR_REASON_CONFLICT]
    got = plugin.filter(state, pod, node_info)
    assert got.code == want_code
    assert got.reasons == ([want_reason] if want_reason else [])
    if got.is_rejected():
        assert got.evidence


@pytest.mark.parametrize(
    ("pod", "labels", "want_code"),
    [
        pytest.param(pod_info({"foo": "bar"}), {"foo": "bar", "baz": "blah"}, Code.Success, id="node selector"),
        pytest.param(
            pod_info(node_affinity=required(term([expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER")]))),
            {"GPU": "NVIDIA-GRID-K1"},
            Code.Success,
            id="node affinity",
        ),
        pytest.param(pod_info({"foo": "bar"}), {"foo": "baz"}, Code.UnschedulableAndUnresolvable, id="mismatch"),
    ],
)
def test_filter_without_pre_filter(pod: PodInfo, labels: dict[str, str], want_code: Code) -> None:
    plugin, node_info = make_plugin(make_node("node1").labels(labels).obj())
    assert plugin.filter(CycleState(), pod, node_info).code == want_code


def test_evidence_names_failing_selector_and_term() -> None:
    pod = pod_info({"disk": "ssd"}, required(term([expr("zone", "In", "a", "b"), expr("gpu", "Exists")])))
    plugin, node_info = make_plugin(make_node("node1").labels(disk="hdd", gpu="x", zone="c").obj())
    state = CycleState()
    plugin.pre_filter(state, pod, [node_info])
    got = plugin.filter(state, pod, node_info)
    assert got.evidence == [
        NodeSelectorEvidence(key="disk", required="ssd", node_value="hdd"),
        NodeAffinityTermEvidence(
            source="pod", term=0, unmatched=["zone In [a, b]"], node_labels={"gpu": "x", "zone": "c"}
        ),
    ]


def test_enforced_evidence_names_added_affinity() -> None:
    args = {"addedAffinity": required(term(fields=[expr(NAME, "In", "node2")]))}
    plugin, node_info = make_plugin(make_node("node1").obj(), args)
    got = plugin.filter(CycleState(), pod_info(), node_info)
    assert got.reasons == [ERR_REASON_ENFORCED]
    assert got.evidence == [
        NodeAffinityTermEvidence(
            source="addedAffinity", term=0, unmatched=["metadata.name In [node2]"], node_labels={}, node_name="node1"
        )
    ]


def test_pre_filter_state_survives_clone() -> None:
    plugin, node_info = make_plugin(make_node("node1").labels(foo="bar").obj())
    pod = pod_info({"foo": "bar"})
    state = CycleState()
    plugin.pre_filter(state, pod, [node_info])
    assert plugin.filter(state.clone(), pod, node_info).code == Code.Success


@pytest.mark.parametrize(
    "args",
    [
        pytest.param({"addedAffinity": required(term([expr("foo", "Bogus", "bar")]))}, id="bad operator"),
        pytest.param({"addedAffinity": required(term(fields=[expr(NAME, "In", "a", "b")]))}, id="two field values"),
        pytest.param(
            {
                "addedAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 1, "preference": term([expr("foo", "In")])}
                    ]
                }
            },
            id="preferred term without values",
        ),
        pytest.param({"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": 5}}, id="wrong shape"),
    ],
)
def test_invalid_added_affinity_is_refused(args: Json) -> None:
    with pytest.raises(PodwhyError):
        make_plugin(make_node().obj(), args)
