"""NodeUnschedulable Filter, after the cases of upstream's node_unschedulable_test.go.

Upstream: pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable_test.go,
TestNodeUnschedulable; its three cases and their expected statuses are the same at v1.33.13,
v1.35.6 and v1.36.3 (and the plugin's reason in v1.34), so each runs under every release podwhy
emulates. Upstream's nodes have no name; here they are "node", which the Filter does not read.

Skipped: TestIsSchedulableAfterNodeChange (7 cases) and TestIsSchedulableAfterPodTolerationChange
(5 cases) test the queueing hints that decide when the scheduling queue retries a pod after a node
or pod update; podwhy answers one scheduling cycle over a snapshot and has no queue or hints.
"""

from __future__ import annotations

import pytest

from podwhy.features.emulation import EMULATED, Emulation
from podwhy.framework.handle import Handle
from podwhy.framework.interface import CycleState
from podwhy.framework.status import Code
from podwhy.framework.types import PodInfo
from podwhy.model import objects as o
from podwhy.model.wellknownnames import TAINT_NODE_UNSCHEDULABLE
from podwhy.plugins.nodeunschedulable import ERR_REASON_UNSCHEDULABLE, NodeUnschedulable
from tests.builders import make_node, make_pod, make_snapshot


def node(unschedulable: bool) -> o.Node:
    builder = make_node("node")
    if unschedulable:
        builder.unschedulable()
    return builder.obj()


# (upstream name, pod, node, fits)
CASES: list[tuple[str, o.Pod, o.Node, bool]] = [
    (
        "Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)",
        make_pod().obj(),
        node(unschedulable=True),
        False,
    ),
    ("Schedule pod to normal node", make_pod().obj(), node(unschedulable=False), True),
    (
        "Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)",
        # {Key: v1.TaintNodeUnschedulable, Effect: NoSchedule}: no operator, so Equal with an empty value.
        make_pod().spec(tolerations=[{"key": TAINT_NODE_UNSCHEDULABLE, "effect": "NoSchedule"}]).obj(),
        node(unschedulable=True),
        True,
    ),
]


@pytest.mark.parametrize("emulation", [pytest.param(e, id=e.name) for e in EMULATED.values()])
@pytest.mark.parametrize(("pod", "node", "fits"), [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_node_unschedulable(emulation: Emulation, pod: o.Pod, node: o.Node, fits: bool) -> None:
    handle = Handle(make_snapshot(node), emulation=emulation)
    status = NodeUnschedulable(handle).filter(CycleState(), PodInfo(pod), handle.node_info_by_name["node"])
    want = (Code.Success, []) if fits else (Code.UnschedulableAndUnresolvable, [ERR_REASON_UNSCHEDULABLE])
    assert (status.code, status.reasons) == want


def test_reason_is_upstreams() -> None:
    assert ERR_REASON_UNSCHEDULABLE == "node(s) were unschedulable"
