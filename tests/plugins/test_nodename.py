"""NodeName Filter, after the cases of upstream's node_name_test.go.

Upstream: pkg/scheduler/framework/plugins/nodename/node_name_test.go, TestNodeName; its three
cases and their expected statuses are the same at v1.33.13, v1.35.6 and v1.36.3 (and the plugin's
reason in v1.34), so each runs under every release podwhy emulates. In "no host specified"
upstream's node is &v1.Node{} (no name); here it is "foo", which a pod without spec.nodeName
does not read. Nothing is skipped: the file has no other test.
"""

from __future__ import annotations

import pytest

from podwhy.features.emulation import EMULATED, Emulation
from podwhy.framework.handle import Handle
from podwhy.framework.interface import CycleState
from podwhy.framework.status import Code
from podwhy.framework.types import PodInfo
from podwhy.model import objects as o
from podwhy.plugins.nodename import ERR_REASON, NodeName
from tests.builders import make_node, make_pod, make_snapshot

# (upstream name, pod, node, fits)
CASES: list[tuple[str, o.Pod, o.Node, bool]] = [
    ("no host specified", make_pod().obj(), make_node("foo").obj(), True),
    ("host matches", make_pod().node("foo").obj(), make_node("foo").obj(), True),
    ("host doesn't match", make_pod().node("bar").obj(), make_node("foo").obj(), False),
]


@pytest.mark.parametrize("emulation", [pytest.param(e, id=e.name) for e in EMULATED.values()])
@pytest.mark.parametrize(("pod", "node", "fits"), [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_node_name(emulation: Emulation, pod: o.Pod, node: o.Node, fits: bool) -> None:
    handle = Handle(make_snapshot(node), emulation=emulation)
    status = NodeName(handle).filter(CycleState(), PodInfo(pod), handle.node_info_by_name[node.metadata.name])
    want = (Code.Success, []) if fits else (Code.UnschedulableAndUnresolvable, [ERR_REASON])
    assert (status.code, status.reasons) == want


def test_reason_is_upstreams() -> None:
    assert ERR_REASON == "node(s) didn't match the requested node name"
