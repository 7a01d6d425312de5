"""One registry: each plugin's upstream name is written once, its extension points follow from its class."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from typing import Any

import msgspec
import pytest

from podwhy.errors import UsageError
from podwhy.features.emulation import V1_36
from podwhy.framework.interface import EXTENSION_POINTS, Plugin, QueuedPodInfo
from podwhy.framework.signature import FRAMEWORK_PARTS, PLUGIN_PARTS, PodPart, pod_signature
from podwhy.model import objects as o
from podwhy.model.fields import STRUCTS
from podwhy.plugins import names, registry
from podwhy.plugins.queuesort import PrioritySort
from podwhy.plugins.registry import PLUGINS, plugin_class
from podwhy.plugins.schedulinggates import SchedulingGates
from podwhy.scheduler.config import DEFAULT_MULTI_POINT, default_multi_point, parse_scheduler_config
from tests.builders import make_handle, make_pod
from tests.paths import REPO

PODWHY = REPO / "podwhy"

# The extension points of each in-tree plugin of kube-scheduler v1.35, read off the methods of
# upstream's plugin types (pkg/scheduler/framework/plugins/...): PreEnqueue, Less (queueSort),
# PreFilter, Filter, PostFilter, PreScore, Score, Reserve, Permit, PreBind, Bind.
UPSTREAM_EXTENSION_POINTS = {
    "SchedulingGates": {"preEnqueue"},
    "PrioritySort": {"queueSort"},
    "NodeUnschedulable": {"filter"},
    "NodeName": {"filter"},
    "TaintToleration": {"filter", "preScore", "score"},
    "NodeAffinity": {"preFilter", "filter", "preScore", "score"},
    "NodePorts": {"preFilter", "filter"},
    "NodeResourcesFit": {"preFilter", "filter", "preScore", "score"},
    "VolumeRestrictions": {"preFilter", "filter"},
    "NodeVolumeLimits": {"preFilter", "filter"},
    "VolumeBinding": {"preFilter", "filter", "preScore", "score", "reserve", "preBind"},
    "VolumeZone": {"preFilter", "filter"},
    "PodTopologySpread": {"preFilter", "filter", "preScore", "score"},
    "InterPodAffinity": {"preFilter", "filter", "preScore", "score"},
    "DynamicResources": {"preEnqueue", "preFilter", "filter", "postFilter", "score", "reserve", "preBind"},
    "DefaultPreemption": {"preEnqueue", "postFilter"},
    "NodeResourcesBalancedAllocation": {"preScore", "score"},
    "ImageLocality": {"score"},
    "DefaultBinder": {"bind"},
    # v1.36's default profile appends it (its feature gate is on by default from v1.36).
    "NodeDeclaredFeatures": {"preFilter", "filter"},
}


def test_registry_holds_every_in_tree_plugin() -> None:
    assert set(PLUGINS) == set(UPSTREAM_EXTENSION_POINTS)
    assert [name for name, _ in DEFAULT_MULTI_POINT] == list(UPSTREAM_EXTENSION_POINTS)[:-1]
    assert [name for name, _ in default_multi_point(V1_36)] == list(UPSTREAM_EXTENSION_POINTS)
    for name, cls in PLUGINS.items():
        assert cls.NAME == name
        assert plugin_class(name) is cls
    assert plugin_class("Coscheduling") is None


@pytest.mark.parametrize("name", sorted(UPSTREAM_EXTENSION_POINTS))
def test_extension_points_follow_from_the_class(name: str) -> None:
    cls = PLUGINS[name]
    assert cls.extension_points() == UPSTREAM_EXTENSION_POINTS[name]
    # Points podwhy never runs are declared, not faked with methods that do nothing.
    simulated = cls.extension_points() - cls.UNSIMULATED_POINTS
    assert not cls.UNSIMULATED_POINTS & simulated
    assert cls.UNSIMULATED_POINTS <= set(EXTENSION_POINTS)


def test_every_name_has_a_class() -> None:
    for key, name in vars(names).items():
        if key.isupper() and isinstance(name, str):
            cls = plugin_class(name)
            assert cls is not None and issubclass(cls, Plugin) and cls.NAME == name, key


@pytest.mark.parametrize("name", sorted(UPSTREAM_EXTENSION_POINTS))
def test_traits_follow_from_the_methods(name: str) -> None:
    """A trait names a point the plugin has: a node-local filter filters, a node-local score
    scores, a rejection a new node cures is a Filter's; and a plugin that runs reads the pod."""
    cls = PLUGINS[name]
    if cls.NODE_LOCAL_FILTER or cls.CURED_BY_EMPTY_NODE:
        assert cls.implements("filter")
    if cls.NODE_LOCAL_SCORE:
        assert cls.implements("score")
    assert cls.POD_PARTS <= PLUGIN_PARTS
    simulated = cls.extension_points() - cls.UNSIMULATED_POINTS
    assert bool(cls.POD_PARTS) == bool(simulated)
    # A plugin that counts pods across nodes reads their labels and is not node-local.
    if PodPart.LABELS in cls.POD_PARTS:
        assert not (cls.NODE_LOCAL_FILTER or cls.NODE_LOCAL_SCORE)


def test_the_trait_sets_the_analysis_reads() -> None:
    assert registry.NODE_LOCAL_FILTERS == {
        names.NODE_UNSCHEDULABLE,
        names.NODE_NAME,
        names.TAINT_TOLERATION,
        names.NODE_AFFINITY,
        names.NODE_PORTS,
        names.NODE_RESOURCES_FIT,
    }
    assert registry.NODE_LOCAL_SCORES == {
        names.NODE_RESOURCES_FIT,
        names.NODE_RESOURCES_BALANCED_ALLOCATION,
        names.IMAGE_LOCALITY,
        names.TAINT_TOLERATION,
        names.NODE_AFFINITY,
    }
    assert registry.CURED_BY_EMPTY_NODE == {
        names.NODE_RESOURCES_FIT,
        names.NODE_PORTS,
        names.INTER_POD_AFFINITY,
        names.POD_TOPOLOGY_SPREAD,
        names.NODE_VOLUME_LIMITS,
    }
    # Node-local plugins read neither labels nor objects named after the pod; some plugin reads each.
    assert registry.NODE_LOCAL_PARTS == {PodPart.NAMESPACE, PodPart.SPEC, PodPart.NOMINATED_NODE}
    assert registry.SCHEDULER_PARTS == PLUGIN_PARTS | FRAMEWORK_PARTS


def test_pod_signatures() -> None:
    base = make_pod("a").labels(app="x").obj()
    relabelled = msgspec.structs.replace(
        base, metadata=msgspec.structs.replace(base.metadata, name="b", labels={"app": "y"})
    )
    token = o.Volume(name="kube-api-access-abcde")
    with_token = msgspec.structs.replace(base, spec=msgspec.structs.replace(base.spec, volumes=[token]))
    other_token = msgspec.structs.replace(
        base, spec=msgspec.structs.replace(base.spec, volumes=[o.Volume(name="kube-api-access-fghij")])
    )
    ephemeral = o.Volume(name="scratch", ephemeral=o.EphemeralVolumeSource())
    own = msgspec.structs.replace(base, spec=msgspec.structs.replace(base.spec, volumes=[ephemeral]))
    own_b = msgspec.structs.replace(own, metadata=msgspec.structs.replace(own.metadata, name="b"))

    def local(pod: o.Pod) -> bytes:
        return pod_signature(pod, registry.NODE_LOCAL_PARTS)

    def scheduler(pod: o.Pod) -> bytes:
        return pod_signature(pod, registry.SCHEDULER_PARTS)

    # Labels (and names) only matter to plugins that count pods across nodes.
    assert local(base) == local(relabelled) and scheduler(base) != scheduler(relabelled)
    # No plugin reads a source-less volume's name.
    assert scheduler(with_token) == scheduler(other_token) != scheduler(base)
    # A pod whose PVC is named after it is like no other to the scheduler.
    assert local(own) == local(own_b) and scheduler(own) != scheduler(own_b)
    assert scheduler(own) == scheduler(msgspec.structs.replace(own))


def _string_constants(path: Path) -> set[str]:
    """The string literals of a module, but those of `__all__` (names of classes, not of plugins)."""
    tree = ast.parse(path.read_text(), str(path))
    exported = {
        id(const)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
        for const in ast.walk(node.value)
    }
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in exported
    }


def test_each_plugin_name_is_written_once_in_names() -> None:
    """plugins/names.py is upstream's names.go: every registered plugin's name is one of its
    constants, every constant names a registered plugin, and no other file writes a name."""
    constants = {path: _string_constants(path) for path in PODWHY.rglob("*.py")}
    declared = {value for key, value in vars(names).items() if key.isupper() and isinstance(value, str)}
    assert declared == set(PLUGINS)
    # A feature gate may share its plugin's name (NodeDeclaredFeatures): the gate table is not a plugin name;
    # nor is the API's table of structs (model/fields.py), whose NodeAffinity is the type of spec.affinity.nodeAffinity.
    gates = PODWHY / "features" / "kubefeatures.py"
    api_structs = PODWHY / "model" / "fields.py"
    for name in PLUGINS:
        gate = name in V1_36.gates
        struct = name in STRUCTS
        files = sorted(
            path
            for path, strings in constants.items()
            if name in strings and not (gate and path == gates) and not (struct and path == api_structs)
        )
        assert files == [Path(inspect.getfile(names))], name


def _configuration(profile: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [profile],
    }


@pytest.mark.parametrize(
    ("profile", "path"),
    [
        ({"plugins": {"multiPoint": {"enabled": [{"name": "Coscheduling"}]}}}, "profiles[0].plugins.multiPoint"),
        ({"plugins": {"filter": {"enabled": [{"name": "Coscheduling"}]}}}, "profiles[0].plugins.filter"),
        ({"plugins": {"bind": {"enabled": [{"name": "Coscheduling"}]}}}, "profiles[0].plugins.bind"),
        ({"pluginConfig": [{"name": "Coscheduling", "args": {}}]}, "profiles[0].pluginConfig[0].name"),
    ],
)
def test_unknown_plugin_names_list_the_known_ones(profile: dict[str, Any], path: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_scheduler_config(_configuration(profile), "test.yaml")
    assert info.value.message == f'invalid scheduler configuration: {path}: plugin "Coscheduling" does not exist'
    assert info.value.hint == "known plugins: " + ", ".join(sorted(UPSTREAM_EXTENSION_POINTS))
    assert info.value.exit_code == 2


@pytest.mark.parametrize(
    ("point", "plugin", "ok"),
    [
        ("bind", "DefaultBinder", True),
        ("reserve", "VolumeBinding", True),
        ("preEnqueue", "DefaultPreemption", True),
        ("preEnqueue", "SchedulingGates", True),
        ("queueSort", "PrioritySort", True),
        ("filter", "ImageLocality", False),
        ("postFilter", "NodeResourcesFit", False),
        ("bind", "VolumeBinding", False),
    ],
)
def test_a_plugin_is_enabled_only_at_its_points(point: str, plugin: str, ok: bool) -> None:
    config = _configuration({"plugins": {point: {"enabled": [{"name": plugin}]}}})
    if ok:
        parse_scheduler_config(config, "test.yaml")
        return
    with pytest.raises(UsageError, match=f'plugin "{plugin}" does not extend {point} plugin'):
        parse_scheduler_config(config, "test.yaml")


@pytest.mark.parametrize(
    ("gates", "want"),
    [
        ([], (0, [])),
        (["example.com/a"], (3, ["waiting for scheduling gates: [example.com/a]"])),
        (["a", "b"], (3, ["waiting for scheduling gates: [a b]"])),
    ],
)
def test_scheduling_gates_pre_enqueue(gates: list[str], want: tuple[int, list[str]]) -> None:
    pod = make_pod("p").spec(schedulingGates=[{"name": g} for g in gates]).info()
    status = SchedulingGates(make_handle()).pre_enqueue(pod)
    assert (status.code, status.reasons) == want


@pytest.mark.parametrize(
    ("first", "second", "want"),
    [
        ((10, 5.0), (5, 1.0), True),  # higher priority first, whenever it came
        ((5, 1.0), (10, 5.0), False),
        ((5, 1.0), (5, 2.0), True),  # same priority: earlier first
        ((5, 2.0), (5, 1.0), False),
        ((5, 1.0), (5, 1.0), False),
        ((None, 1.0), (-1, 2.0), True),  # no priority counts as 0
    ],
)
def test_priority_sort_less(first: tuple[int | None, float], second: tuple[int | None, float], want: bool) -> None:
    def queued(priority: int | None, timestamp: float) -> QueuedPodInfo:
        builder = make_pod(f"p{priority}-{timestamp}")
        if priority is not None:
            builder.spec(priority=priority)
        return QueuedPodInfo(builder.info(), timestamp)

    plugin: Plugin = PrioritySort(make_handle())
    assert plugin.less(queued(*first), queued(*second)) is want
