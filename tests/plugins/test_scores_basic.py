"""Scores of TaintToleration, NodeAffinity and ImageLocality, and DefaultNormalizeScore, after the
cases of upstream's taint_toleration_test.go, node_affinity_test.go, image_locality_test.go and
normalize_score_test.go."""

from __future__ import annotations

from typing import Any

import pytest

from podwhy.errors import PodwhyError
from podwhy.framework.evidence import ImageLocalityEvidence, IntolerableTaintsEvidence
from podwhy.framework.handle import normalized_image_name
from podwhy.framework.interface import CycleState, Plugin
from podwhy.framework.status import Code
from podwhy.framework.types import PodInfo
from podwhy.model import objects as o
from podwhy.plugins.helper.normalize_score import default_normalize_score
from podwhy.plugins.imagelocality import ImageLocality
from podwhy.plugins.nodeaffinity import NodeAffinity
from podwhy.plugins.tainttoleration import TaintToleration
from tests.builders import make_handle, make_node, make_pod, node_info
from tests.plugin_args import with_args

Json = dict[str, Any]
MB = 1024 * 1024


def scored_node(
    name: str, taints: list[Json] | None = None, images: list[tuple[list[str], int]] | None = None
) -> o.Node:
    """A node with these taints (as `taint()` gives them) and images (names, size in bytes)."""
    builder = make_node(name)
    for t in taints or []:
        builder.taint(**t)
    for names, size in images or []:
        builder.image(size, *names)
    return builder.obj()


def run_scores(
    plugin_cls: type[Plugin], pod: PodInfo, nodes: list[o.Node], args: Json | None = None, pre_score: bool = True
) -> tuple[Code, dict[str, int], dict[str, int]]:
    """PreScore (optional), Score on every node, NormalizeScore: (PreScore code, raw, normalized)."""
    handle = make_handle(*nodes)
    plugin = with_args(plugin_cls, handle, args)
    state = CycleState()
    code = Code.Success
    if pre_score and plugin.implements("pre_score"):
        code = plugin.pre_score(state, pod, handle.node_infos).code
        if code != Code.Success:
            return code, {}, {}
    raw: dict[str, int] = {}
    for ni in handle.node_infos:
        value, status = plugin.score(state, pod, ni)
        assert status.is_success(), status
        raw[ni.name] = value
    normalized = dict(raw)
    if plugin.implements("normalize_score"):
        assert plugin.normalize_score(state, pod, normalized).is_success()
    return code, raw, normalized


# ------------------------------------------------------------------ DefaultNormalizeScore


@pytest.mark.parametrize(
    ("reverse", "scores", "expected"),
    [
        (False, [1, 2, 3, 4], [25, 50, 75, 100]),
        (True, [1, 2, 3, 4], [75, 50, 25, 0]),
        (False, [1000, 10, 20, 30], [100, 1, 2, 3]),
        (True, [1000, 10, 20, 30], [0, 99, 98, 97]),
        (False, [1, 1, 1, 1], [100, 100, 100, 100]),
        (False, [0, 0, 0, 0], [0, 0, 0, 0]),
        (True, [0, 0, 0, 0], [100, 100, 100, 100]),
        (False, [0, 1, 2, 3], [0, 33, 66, 100]),
        (True, [], []),
    ],
)
def test_default_normalize_score(reverse: bool, scores: list[int], expected: list[int]) -> None:
    by_node = {f"n{i}": s for i, s in enumerate(scores)}
    default_normalize_score(100, reverse, by_node)
    assert list(by_node.values()) == expected


# ------------------------------------------------------------------ TaintToleration


def taint(key: str, value: str, effect: str) -> Json:
    return {"key": key, "value": value, "effect": effect}


def toleration(key: str, value: str, effect: str, operator: str = "Equal") -> Json:
    return {"key": key, "operator": operator, "value": value, "effect": effect}


PREFER = "PreferNoSchedule"


@pytest.mark.parametrize(
    ("tolerations", "node_taints", "expected"),
    [
        pytest.param(
            [toleration("foo", "bar", PREFER)],
            [[taint("foo", "bar", PREFER)], [taint("foo", "blah", PREFER)]],
            [100, 0],
            id="tolerated taints score higher",
        ),
        pytest.param(
            [toleration("cpu-type", "arm64", PREFER), toleration("disk-type", "ssd", PREFER)],
            [
                [],
                [taint("cpu-type", "arm64", PREFER)],
                [taint("cpu-type", "arm64", PREFER), taint("disk-type", "ssd", PREFER)],
            ],
            [100, 100, 100],
            id="number of tolerated taints does not matter",
        ),
        pytest.param(
            [toleration("foo", "bar", PREFER)],
            [
                [],
                [taint("cpu-type", "arm64", PREFER)],
                [taint("cpu-type", "arm64", PREFER), taint("disk-type", "ssd", PREFER)],
            ],
            [100, 50, 0],
            id="more intolerable taints, lower score",
        ),
        pytest.param(
            [toleration("cpu-type", "arm64", "NoSchedule"), toleration("disk-type", "ssd", "NoSchedule")],
            [
                [],
                [taint("cpu-type", "arm64", "NoSchedule")],
                [taint("cpu-type", "arm64", PREFER), taint("disk-type", "ssd", PREFER)],
            ],
            [100, 100, 0],
            id="only PreferNoSchedule taints and tolerations count",
        ),
        pytest.param(
            [],
            [[], [taint("cpu-type", "arm64", PREFER)]],
            [100, 0],
            id="no tolerations lands on untainted node",
        ),
        pytest.param(
            [{"key": "cpu-type", "operator": "Exists"}],
            [[taint("cpu-type", "arm64", PREFER)], [taint("other", "x", PREFER)]],
            [100, 0],
            id="toleration without effect tolerates PreferNoSchedule",
        ),
        pytest.param(
            [toleration("sla", "800", PREFER, operator="Lt")],
            [[taint("sla", "950", PREFER)], [taint("sla", "700", PREFER)]],
            [0, 0],
            id="Lt toleration tolerates nothing with the feature gate off",
        ),
    ],
)
def test_taint_toleration_score(tolerations: list[Json], node_taints: list[list[Json]], expected: list[int]) -> None:
    nodes = [scored_node(f"node{i}", taints=t) for i, t in enumerate(node_taints)]
    pod = make_pod("p")
    for t in tolerations:
        pod.toleration(**t)
    code, _, normalized = run_scores(TaintToleration, pod.info(), nodes)
    assert code == Code.Success
    assert list(normalized.values()) == expected


def test_taint_toleration_score_counts_and_evidence() -> None:
    nodes = [scored_node("a", taints=[taint("x", "1", PREFER), taint("y", "", PREFER), taint("z", "1", "NoSchedule")])]
    handle = make_handle(*nodes)
    plugin = TaintToleration(handle)
    state = CycleState()
    pod = make_pod("p").toleration("x", "Equal", "1", PREFER).info()
    assert plugin.pre_score(state, pod, handle.node_infos).is_success()
    value, status = plugin.score(state, pod, node_info(handle, "a"))
    assert value == 1
    assert status.evidence == [
        IntolerableTaintsEvidence(effect=PREFER, count=1, taints=["y:PreferNoSchedule"], normalization="reverse")
    ]


def test_taint_toleration_score_without_pre_score_fails() -> None:
    handle = make_handle(make_node("a").obj())
    _, status = TaintToleration(handle).score(CycleState(), make_pod("p").info(), node_info(handle, "a"))
    assert status.code == Code.Error
    assert status.message() == 'failed to read "PreScoreTaintToleration" from cycleState: not found'


# ------------------------------------------------------------------ NodeAffinity


def pref(weight: int, *expressions: Json, fields: list[Json] | None = None) -> Json:
    preference: Json = {}
    if expressions:
        preference["matchExpressions"] = list(expressions)
    if fields:
        preference["matchFields"] = fields
    return {"weight": weight, "preference": preference}


def expr(key: str, op: str, *values: str) -> Json:
    out: Json = {"key": key, "operator": op}
    if values:
        out["values"] = list(values)
    return out


def preferred(*terms: Json) -> Json:
    return {"preferredDuringSchedulingIgnoredDuringExecution": list(terms)}


LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}
AFFINITY1 = preferred(pref(2, expr("foo", "In", "bar")))
AFFINITY2 = preferred(
    pref(2, expr("foo", "In", "bar")),
    pref(4, expr("key", "In", "value")),
    pref(5, expr("foo", "In", "bar"), expr("key", "In", "value"), expr("az", "In", "az1")),
)


@pytest.mark.parametrize(
    ("affinity", "labels", "args", "expected"),
    [
        pytest.param(AFFINITY1, [LABEL4, LABEL2, LABEL3], None, [0, 0, 0], id="no node matches"),
        pytest.param(AFFINITY1, [LABEL1, LABEL2, LABEL3], None, [100, 0, 0], id="only node1 matches"),
        pytest.param(AFFINITY2, [LABEL1, LABEL5, LABEL2], None, [18, 100, 36], id="different priorities"),
        pytest.param(None, [LABEL1, LABEL2], {"addedAffinity": AFFINITY1}, [100, 0], id="added affinity"),
        pytest.param(
            AFFINITY1,
            [LABEL1, LABEL2, LABEL5],
            {"addedAffinity": preferred(pref(3, expr("key", "In", "value")))},
            [40, 60, 100],
            id="added affinity and pod affinity",
        ),
        pytest.param(
            preferred(pref(0, expr("foo", "In", "bar")), pref(1, expr("key", "In", "value")), pref(7)),
            [LABEL1, LABEL2],
            None,
            [0, 100],
            id="zero weight and empty terms are ignored",
        ),
        pytest.param(
            preferred(pref(3, fields=[{"key": "metadata.name", "operator": "In", "values": ["node1"]}])),
            [LABEL1, LABEL2],
            None,
            [0, 100],
            id="matchFields on the node name",
        ),
        pytest.param(
            preferred(pref(3, expr("num", "Gt", "5"))),
            [{"num": "7"}, {"num": "3"}, {"num": "x"}],
            None,
            [100, 0, 0],
            id="Gt on an integer label",
        ),
    ],
)
def test_node_affinity_score(
    affinity: Json | None, labels: list[dict[str, str]], args: Json | None, expected: list[int]
) -> None:
    nodes = [make_node(f"node{i}").labels(lab).obj() for i, lab in enumerate(labels)]
    pod = make_pod("p")
    if affinity is not None:
        pod.affinity({"nodeAffinity": affinity})
    for run_pre_score in (True, False):
        code, _, normalized = run_scores(NodeAffinity, pod.info(), nodes, args, pre_score=run_pre_score)
        assert code == Code.Success
        assert list(normalized.values()) == expected


@pytest.mark.parametrize(
    "affinity",
    [
        pytest.param(None, id="no affinity"),
        pytest.param(
            {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{}]}}, id="required only"
        ),
        pytest.param(preferred(), id="empty preferred list"),
    ],
)
def test_node_affinity_pre_score_skips_without_preferred_terms(affinity: Json | None) -> None:
    pod = make_pod("p")
    if affinity is not None:
        pod.affinity({"nodeAffinity": affinity})
    code, _, _ = run_scores(NodeAffinity, pod.info(), [make_node("n1").obj()])
    assert code == Code.Skip


def test_node_affinity_pre_score_runs_for_added_preferred_terms() -> None:
    code, raw, _ = run_scores(
        NodeAffinity, make_pod("p").info(), [make_node("n1").labels(LABEL1).obj()], {"addedAffinity": AFFINITY1}
    )
    assert code == Code.Success
    assert raw == {"n1": 2}


@pytest.mark.parametrize(
    ("term", "message"),
    [
        pytest.param(
            pref(1, expr("foo", "Bogus", "bar")),
            '[0].matchExpressions[0].operator: Unsupported value: "Bogus": supported values: '
            '"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"',
            id="unsupported operator",
        ),
        pytest.param(
            pref(1, expr("foo", "In", "a b")),
            '[0].matchExpressions[0].values[0][foo]: Invalid value: "a b": a valid label must be an empty string or '
            "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
            "character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            id="invalid label value",
        ),
        pytest.param(
            pref(1, fields=[{"key": "metadata.name", "operator": "In", "values": ["a", "b"]}]),
            '[0].matchFields[0].values: Invalid value: ["a","b"]: must have one element',
            id="matchFields with two values",
        ),
    ],
)
def test_node_affinity_pre_score_error_for_unparsable_pod_terms(term: Json, message: str) -> None:
    handle = make_handle(make_node("n1").obj())
    plugin = NodeAffinity(handle)
    pod = make_pod("p").affinity({"nodeAffinity": preferred(term)}).info()
    status = plugin.pre_score(CycleState(), pod, handle.node_infos)
    assert status.code == Code.Error
    assert status.message() == message


def test_node_affinity_rejects_unparsable_added_preferred_terms() -> None:
    with pytest.raises(PodwhyError):
        with_args(NodeAffinity, make_handle(), {"addedAffinity": preferred(pref(1, expr("foo", "Bogus")))})


# ------------------------------------------------------------------ ImageLocality

NODE_40_300_2000 = [
    (["gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"], 40 * MB),
    (["gcr.io/300:latest", "gcr.io/300:v1"], 300 * MB),
    (["gcr.io/2000:latest"], 2000 * MB),
]
NODE_250_10 = [(["gcr.io/250:latest"], 250 * MB), (["gcr.io/10:latest", "gcr.io/10:v1"], 10 * MB)]


def pod_with_images(*images: str, init: tuple[str, ...] = ()) -> PodInfo:
    """Containers c0, c1, ... running these images; init containers running `init`."""
    builder = make_pod("p")
    for image in images:
        builder.container(image=image)
    if init:
        builder.spec(initContainers=[{"name": f"init{i}", "image": image} for i, image in enumerate(init)])
    return builder.info()


@pytest.mark.parametrize(
    ("pod", "node_images", "expected"),
    [
        pytest.param(
            pod_with_images("gcr.io/40", "gcr.io/250"),
            [NODE_40_300_2000, NODE_250_10],
            [0, 5],
            id="two images spread on two nodes, prefer the larger image one",
        ),
        pytest.param(
            pod_with_images("gcr.io/40", "gcr.io/300"),
            [NODE_40_300_2000, NODE_250_10],
            [7, 0],
            id="two images on one node, prefer this node",
        ),
        pytest.param(
            pod_with_images("gcr.io/10", "gcr.io/2000"),
            [NODE_40_300_2000, NODE_250_10],
            [49, 0],
            id="if exceed limit, use limit",
        ),
        pytest.param(
            pod_with_images("gcr.io/10", "gcr.io/2000"),
            [NODE_40_300_2000, NODE_250_10, []],
            [32, 0, 0],
            id="node without images lowers the spread",
        ),
        pytest.param(
            pod_with_images("gcr.io/300:v1", init=("gcr.io/2000",)),
            [NODE_40_300_2000, NODE_250_10],
            [57, 0],
            id="init container images count",
        ),
        pytest.param(
            pod_with_images("gcr.io/300", "gcr.io/300"),
            [NODE_40_300_2000, NODE_250_10],
            [14, 0],
            id="the same image in two containers counts twice",
        ),
        pytest.param(
            pod_with_images("gcr.io/300"),
            [[(["gcr.io/300"], 300 * MB)], [(["gcr.io/300:latest"], 300 * MB)]],
            [0, 12],
            id="node image names are not normalized",
        ),
        pytest.param(
            pod_with_images("gcr.io/300:latest"),
            [[(["gcr.io/300:latest"], 300 * MB)], [(["gcr.io/300:latest"], 600 * MB)]],
            [28, 59],
            id="each node keeps its own image size",
        ),
    ],
)
def test_image_locality_score(
    pod: PodInfo, node_images: list[list[tuple[list[str], int]]], expected: list[int]
) -> None:
    nodes = [scored_node(f"node{i}", images=images) for i, images in enumerate(node_images)]
    code, raw, normalized = run_scores(ImageLocality, pod, nodes)
    assert code == Code.Success
    assert list(raw.values()) == expected
    assert normalized == raw


@pytest.mark.parametrize(
    ("image", "expected"),
    [
        ("nginx", "nginx:latest"),
        ("nginx:1.27", "nginx:1.27"),
        ("gcr.io/project/img", "gcr.io/project/img:latest"),
        ("localhost:5000/img", "localhost:5000/img:latest"),
        ("localhost:5000/img:v2", "localhost:5000/img:v2"),
        ("img@sha256:abcd", "img@sha256:abcd"),
    ],
)
def test_normalized_image_name(image: str, expected: str) -> None:
    assert normalized_image_name(image) == expected


def test_image_locality_evidence() -> None:
    nodes = [scored_node("a", images=NODE_40_300_2000), make_node("b").obj()]
    handle = make_handle(*nodes)
    pod = pod_with_images("gcr.io/300", "gcr.io/missing")
    value, status = ImageLocality(handle).score(CycleState(), pod, node_info(handle, "a"))
    (evidence,) = status.evidence
    assert isinstance(evidence, ImageLocalityEvidence)
    assert evidence.sum_scores == 150 * MB
    assert evidence.total_num_nodes == 2
    assert [i.image for i in evidence.images_on_node] == ["gcr.io/300:latest"]
    assert value == 6
