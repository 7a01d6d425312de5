"""SchedulingGates PreEnqueue, after the cases of upstream's scheduling_gates_test.go.

Upstream: pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates_test.go, TestPreEnqueue;
its two cases and their expected statuses are the same at v1.33.13, v1.35.6 and v1.36.3, so each
runs under every release podwhy emulates, on the plugin alone and through the framework's
RunPreEnqueuePlugins with the release's default profile.

Skipped: Test_isSchedulableAfterPodChange (4 cases) tests the queueing hint that decides when the
scheduling queue retries a gated pod after an update; podwhy answers one scheduling cycle over a
snapshot and has no queue or hints.
"""

from __future__ import annotations

import pytest

from podwhy.features.emulation import EMULATED, Emulation
from podwhy.framework.handle import Handle
from podwhy.framework.runtime import Framework
from podwhy.framework.status import Code
from podwhy.framework.types import PodInfo
from podwhy.model import objects as o
from podwhy.plugins.registry import PLUGINS
from podwhy.plugins.schedulinggates import SchedulingGates
from podwhy.scheduler.config import default_config
from tests.builders import make_node, make_pod, make_snapshot


def pod(*gates: str) -> o.Pod:
    builder = make_pod("p")
    for gate in gates:
        builder.gate(gate)
    return builder.obj()


# (upstream name, pod, want code, want reasons)
CASES: list[tuple[str, o.Pod, Code, list[str]]] = [
    ("pod does not carry scheduling gates", pod(), Code.Success, []),
    (
        "pod carries scheduling gates",
        pod("foo", "bar"),
        Code.UnschedulableAndUnresolvable,
        ["waiting for scheduling gates: [foo bar]"],
    ),
]

EMULATIONS = [pytest.param(e, id=e.name) for e in EMULATED.values()]
PARAMS = [pytest.param(*c[1:], id=c[0]) for c in CASES]


@pytest.mark.parametrize("emulation", EMULATIONS)
@pytest.mark.parametrize(("pod", "code", "reasons"), PARAMS)
def test_pre_enqueue(emulation: Emulation, pod: o.Pod, code: Code, reasons: list[str]) -> None:
    handle = Handle(make_snapshot(make_node().obj()), emulation=emulation)
    status = SchedulingGates(handle).pre_enqueue(PodInfo(pod))
    assert (status.code, status.reasons) == (code, reasons)


@pytest.mark.parametrize("emulation", EMULATIONS)
@pytest.mark.parametrize(("pod", "code", "reasons"), PARAMS)
def test_pre_enqueue_through_the_framework(emulation: Emulation, pod: o.Pod, code: Code, reasons: list[str]) -> None:
    profile = default_config(emulation).profiles[0]
    assert SchedulingGates.NAME in profile.pre_enqueue
    framework = Framework(Handle(make_snapshot(make_node().obj()), emulation=emulation), profile, PLUGINS)
    status = framework.run_pre_enqueue_plugins(PodInfo(pod))
    assert (status.code, status.reasons) == (code, reasons)
    if code != Code.Success:
        assert status.plugin == SchedulingGates.NAME
