"""DynamicResources PostFilter: the deallocation decision, after upstream's dynamicresources_test.go
(the "PostFilter" expectations) and the golden README's rules."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from podwhy.framework.interface import PRE_FILTER_REACHED_KEY, CycleState, PreFilterReached
from podwhy.framework.status import Code, Status
from podwhy.framework.types import PodInfo
from podwhy.model import objects as o
from podwhy.plugins import names
from podwhy.plugins.dynamicresources import DynamicResources
from podwhy.plugins.dynamicresources.postfilter import (
    ERR_NOT_AVAILABLE,
    MSG_DEALLOCATED,
    MSG_NO_CLAIMS,
    MSG_STILL_NOT_SCHEDULABLE,
    post_filter,
)
from tests.builders import PodBuilder, from_raw, make_handle, make_node, make_pod

Json = dict[str, Any]
POD_UID = "pod-uid"
NODE1, NODE2 = "node-1", "node-2"


def my_pod() -> PodBuilder:
    return make_pod("my-pod").uid(POD_UID)


def make_claim(name: str = "claim", on_node: str | None = None, reserved_for: tuple[str, ...] = ()) -> o.ResourceClaim:
    status: Json = {}
    if on_node is not None:
        status["allocation"] = {
            "devices": {"results": [{"request": "req-0", "driver": "d", "pool": on_node, "device": "dev"}]},
            "nodeSelector": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [on_node]}]}
                ]
            },
        }
        status["reservedFor"] = [{"resource": "pods", "name": uid, "uid": uid} for uid in reserved_for]
    spec = {"devices": {"requests": [{"name": "req-0", "exactly": {"deviceClassName": "class-a"}}]}}
    return from_raw(
        o.ResourceClaim, {"metadata": {"name": name, "namespace": "default"}, "spec": spec, "status": status}
    )


def nodes(*names: str) -> list[o.Node]:
    return [make_node(name).obj() for name in names]


@dataclass
class FakeState:
    """What the DynamicResources PreFilter records (only `claims` is read)."""

    claims: list[o.ResourceClaim] = field(default_factory=list)

    def clone(self) -> FakeState:
        return self


def not_available() -> Status:
    return Status(Code.UnschedulableAndUnresolvable, [ERR_NOT_AVAILABLE], "DynamicResources")


def other_plugin_failure() -> Status:
    return Status(Code.Unschedulable, ["Insufficient cpu"], "NodeResourcesFit")


CASES = [
    pytest.param([], {NODE1: not_available()}, Code.Unschedulable, MSG_NO_CLAIMS, id="no claims"),
    pytest.param(
        [make_claim(on_node=NODE2)],
        {NODE1: not_available()},
        Code.Unschedulable,
        MSG_DEALLOCATED,
        id="claim allocated for another node, not reserved: deallocate",
    ),
    pytest.param(
        [make_claim(on_node=NODE2, reserved_for=(POD_UID,))],
        {NODE1: not_available()},
        Code.Unschedulable,
        MSG_DEALLOCATED,
        id="claim reserved only for this pod: deallocate",
    ),
    pytest.param(
        [make_claim(on_node=NODE2, reserved_for=("other",))],
        {NODE1: not_available()},
        Code.Unschedulable,
        MSG_STILL_NOT_SCHEDULABLE,
        id="claim in use by another pod",
    ),
    pytest.param(
        [make_claim(on_node=NODE2)],
        {NODE1: other_plugin_failure()},
        Code.Unschedulable,
        MSG_STILL_NOT_SCHEDULABLE,
        id="the scheduler stopped before this Filter on every node",
    ),
    pytest.param(
        [make_claim()],
        {NODE1: Status(Code.UnschedulableAndUnresolvable, ["cannot allocate all claims"], "DynamicResources")},
        Code.Unschedulable,
        MSG_STILL_NOT_SCHEDULABLE,
        id="unallocated claim",
    ),
    pytest.param(
        [make_claim("usable", on_node=NODE1), make_claim("elsewhere", on_node=NODE2, reserved_for=("other",))],
        {NODE1: not_available(), NODE2: not_available()},
        Code.Unschedulable,
        MSG_DEALLOCATED,
        id="one of two claims can go",
    ),
]


@pytest.mark.parametrize(("claims", "statuses", "want_code", "want_reason"), CASES)
def test_post_filter(
    claims: list[o.ResourceClaim], statuses: dict[str, Status], want_code: Code, want_reason: str
) -> None:
    handle = make_handle(*nodes(NODE1, NODE2))
    state = CycleState()
    state.write(names.DYNAMIC_RESOURCES, FakeState(claims))
    result, status = post_filter(handle, state, my_pod().info(), statuses, names.DYNAMIC_RESOURCES)
    assert result is None
    assert (status.code, status.reasons) == (want_code, [want_reason])


def test_no_state_is_not_found() -> None:
    handle = make_handle(*nodes(NODE1))
    _, status = post_filter(handle, CycleState(), my_pod().info(), {}, names.DYNAMIC_RESOURCES)
    assert (status.code, status.reasons) == (Code.Error, ["not found"])


def test_pre_filter_stopped_before_the_plugin_is_not_found() -> None:
    # podwhy ran the PreFilter anyway; kube-scheduler stopped at an earlier unresolvable plugin.
    handle = make_handle(*nodes(NODE1))
    state = CycleState()
    state.write(names.DYNAMIC_RESOURCES, FakeState())
    state.write(PRE_FILTER_REACHED_KEY, PreFilterReached(frozenset({"NodeAffinity", "VolumeBinding"})))
    _, status = post_filter(handle, state, my_pod().info(), {}, names.DYNAMIC_RESOURCES)
    assert (status.code, status.reasons) == (Code.Error, ["not found"])
    _, status = DynamicResources(handle).post_filter(state, my_pod().info(), {})
    assert (status.code, status.reasons) == (Code.Error, ["not found"])


PRE_FILTER_CASES = [
    pytest.param(my_pod().obj(), [], [], MSG_NO_CLAIMS, id="no claims"),
    pytest.param(
        my_pod().resource_claim("gpu", template="tpl").obj(), [], [], MSG_NO_CLAIMS, id="claim not created yet"
    ),
    pytest.param(my_pod().resource_claim("gpu", claim="missing").obj(), [], [], MSG_NO_CLAIMS, id="claim missing"),
    pytest.param(
        my_pod().resource_claim("gpu", claim="claim").obj(),
        [make_claim()],
        [],
        MSG_NO_CLAIMS,
        id="device class missing",
    ),
    pytest.param(
        my_pod().resource_claim("gpu", claim="claim").obj(),
        [make_claim()],
        ["class-a"],
        MSG_STILL_NOT_SCHEDULABLE,
        id="unallocated claim with its class",
    ),
]


@pytest.mark.parametrize(("pod", "claims", "classes", "want"), PRE_FILTER_CASES)
def test_post_filter_after_the_plugins_own_pre_filter(
    pod: o.Pod, claims: list[o.ResourceClaim], classes: list[str], want: str
) -> None:
    """The claims PostFilter weighs are those the plugin's PreFilter recorded: none when it failed."""
    device_classes = [from_raw(o.DeviceClass, {"metadata": {"name": name}}) for name in classes]
    handle = make_handle(*nodes(NODE1), *claims, *device_classes)
    plugin = DynamicResources(handle)
    state = CycleState()
    plugin.pre_filter(state, PodInfo(pod), handle.node_infos)
    state.write(PRE_FILTER_REACHED_KEY, PreFilterReached(frozenset({"DynamicResources"})))
    _, status = plugin.post_filter(state, PodInfo(pod), {})
    assert status.reasons == [want]
