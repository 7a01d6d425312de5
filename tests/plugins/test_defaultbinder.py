"""DefaultBinder, after the cases of upstream's default_binder_test.go.

Upstream: pkg/scheduler/framework/plugins/defaultbinder/default_binder_test.go, TestDefaultBinder
(the same cases at v1.33.13, v1.35.6 and v1.36.3): binding pod ns/foo to node
"foohost.kubernetes.mydomain.com" creates the Binding {ObjectMeta: ns/foo, Target: {Kind: Node,
Name: foohost.kubernetes.mydomain.com}}. podwhy never writes to a cluster: its plugin is known to
configurations (the bind extension point, unsimulated) and the Binding is modelled by the placer's
bind (podwhy/cluster/placement.py: `Placer.bind`), which sets the pod's spec.nodeName to the
target and counts it on that node, as the API server's binding subresource and the scheduler's
cache would. "successful" is ported against that model, under every release podwhy emulates.

Skipped: "binding error" injects an error into the fake client's create of the binding
subresource; podwhy sends no request, so no API error can happen to model. Upstream runs each case
with and without asynchronous API calls (the API dispatcher and cache); that is how the Go
scheduler sends the request, with the same Binding either way, so it is one case here.
"""

from __future__ import annotations

import pytest

from podwhy.cluster.placement import Placer
from podwhy.features.emulation import EMULATED, Emulation
from podwhy.model import objects as o
from podwhy.plugins.defaultbinder import DefaultBinder
from podwhy.plugins.registry import PLUGINS
from podwhy.report.words.placement import placement_text
from podwhy.scheduler.config import default_config, default_multi_point
from podwhy.snapshot.cluster import Snapshot
from tests.builders import make_node, make_pod

TEST_NODE = "foohost.kubernetes.mydomain.com"
EMULATIONS = [pytest.param(e, id=e.name) for e in EMULATED.values()]


def the_test_pod() -> o.Pod:
    """st.MakePod().Name("foo").Namespace("ns")."""
    return make_pod("foo", namespace="ns").obj()


def placer(emulation: Emulation) -> Placer:
    """A placer over the one node, room for one pod on it."""
    node = make_node(TEST_NODE).alloc(cpu="4", memory="16Gi", pods="1").obj()
    return Placer(Snapshot(nodes=[node]), default_config(emulation))


def assert_bound(placer: Placer, pod: o.Pod) -> None:
    """The Binding's effect: ns/foo (its uid unchanged) on the target node, counted there: the
    next pod finds the node's one pod slot taken."""
    assert (pod.metadata.namespace, pod.metadata.name, pod.metadata.uid) == ("ns", "foo", "uid-ns-foo")
    assert pod.spec.node_name == TEST_NODE
    assert any(p is pod for p in placer.snapshot.pods)
    after = placer.schedule(make_pod("next", namespace="ns").obj())
    assert after.node == ""
    assert "Too many pods" in placement_text(after.reason)


@pytest.mark.parametrize("emulation", EMULATIONS)
def test_successful(emulation: Emulation) -> None:
    """ "successful": Bind(ctx, nil, testPod, testNode) binds ns/foo to the node it is given."""
    p = placer(emulation)
    pod = the_test_pod()
    p.bind(pod, TEST_NODE)
    assert_bound(p, pod)


@pytest.mark.parametrize("emulation", EMULATIONS)
def test_successful_after_a_scheduling_cycle(emulation: Emulation) -> None:
    """The same Binding when the scheduler chose the node: the cycle ends in Bind to it."""
    p = placer(emulation)
    pod = the_test_pod()
    assert p.schedule(pod).node == TEST_NODE
    assert_bound(p, pod)


@pytest.mark.parametrize("emulation", EMULATIONS)
def test_default_binder_is_the_default_profiles_binder(emulation: Emulation) -> None:
    """DefaultBinder extends only bind, which podwhy never runs, and is in every default profile."""
    assert PLUGINS[DefaultBinder.NAME] is DefaultBinder
    assert DefaultBinder.extension_points() == frozenset({"bind"})
    assert DefaultBinder.UNSIMULATED_POINTS == frozenset({"bind"})
    assert (DefaultBinder.NAME, None) in default_multi_point(emulation)
