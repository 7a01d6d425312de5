"""The framework runner's own rules (RunPreFilterPlugins), with fake plugins as upstream's
framework_test.go uses them."""

from __future__ import annotations

import pytest

from podwhy.framework.handle import Handle
from podwhy.framework.interface import CycleState, Plugin, PreFilterResult
from podwhy.framework.profile import Profile
from podwhy.framework.runtime import Framework
from podwhy.framework.status import Code, Status
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.plugins.registry import PLUGINS
from tests.builders import make_node, make_pod, make_snapshot


def fake_pre_filter(name: str, code: Code, reason: str) -> Plugin:
    """A plugin whose PreFilter returns `code` with `reason`."""

    class FakePreFilter(Plugin):
        NAME = name

        def pre_filter(
            self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
        ) -> tuple[PreFilterResult | None, Status]:
            return None, Status(code, [reason] if reason else [])

    return FakePreFilter(Handle(make_snapshot()))


S, U, UR, E = Code.Success, Code.Unschedulable, Code.UnschedulableAndUnresolvable, Code.Error


@pytest.mark.parametrize(
    ("codes", "expected"),
    [
        # Unschedulable does not stop PreFilter (preemption may still help): the last one is returned.
        ([U, U], (U, "p1", "reason p1")),
        ([U, S, U], (U, "p2", "reason p2")),
        ([U, S], (U, "p0", "reason p0")),
        # UnschedulableAndUnresolvable stops at once, whatever came before.
        ([U, UR, U], (UR, "p1", "reason p1")),
        ([UR, U], (UR, "p0", "reason p0")),
        ([S, S], None),
    ],
)
def test_pre_filter_keeps_the_last_unschedulable(codes: list[Code], expected: tuple[Code, str, str] | None) -> None:
    snapshot = make_snapshot(make_node("n1").obj(), make_node("n2").obj())
    profile = Profile(pre_filter=[], filter=[], post_filter=[], pre_score=[], score={}, plugin_args={})
    framework = Framework(Handle(snapshot), profile, PLUGINS)
    for i, code in enumerate(codes):
        plugin = fake_pre_filter(f"p{i}", code, f"reason p{i}" if code != S else "")
        plugin.framework = framework
        framework.plugins[plugin.NAME] = plugin
        profile.pre_filter.append(plugin.NAME)
    outcome = framework.run_filters(PodInfo(make_pod("p").obj()))
    failure = outcome.pre_filter_failure
    if expected is None:
        assert failure is None
        assert outcome.feasible == ["n1", "n2"]
        return
    assert failure is not None
    assert (failure.code, failure.plugin, failure.message()) == expected
    assert outcome.feasible == []
    for node in outcome.nodes:
        assert node.first_failure is not None and node.first_failure.message() == expected[2]
