"""The kube-scheduler release podwhy emulates: how it is chosen, and what differs between v1.33, v1.34, v1.35 and v1.36.

The plugin tables follow upstream's own v1.36.3 unit tests (balanced_allocation_test.go,
nodedeclaredfeatures_test.go, image_locality_test.go), with upstream's expected values.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from msgspec import structs
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.errors import UsageError
from podwhy.features.emulation import V1_33, V1_34, V1_35, V1_36, Emulation, KubeVersion, parse_version
from podwhy.framework.evidence import ResourceEvidence
from podwhy.framework.handle import Handle
from podwhy.framework.interface import CycleState
from podwhy.framework.status import Code
from podwhy.framework.types import PodInfo
from podwhy.model import objects as o
from podwhy.model.records import replace
from podwhy.plugins import names
from podwhy.plugins.imagelocality import ImageLocality
from podwhy.plugins.nodedeclaredfeatures import (
    ERR_REASON_UNSATISFIED_REQUIREMENTS,
    RESTART_ALL_CONTAINERS,
    USER_NAMESPACES_HOST_NETWORK,
    NodeDeclaredFeatures,
    required_features,
)
from podwhy.plugins.noderesources.balanced_allocation import BalancedAllocation
from podwhy.report.build.explain import build_report
from podwhy.report.build.release import version_warnings
from podwhy.report.model import Preemption, Report, StatusName
from podwhy.scheduler.config import default_profile, parse_scheduler_config
from podwhy.scheduler.cycle import run_cycle
from podwhy.scheduler.release import VersionSource, choose_version
from podwhy.snapshot.source import FileSource
from tests.apiserver import FakeApiServer, load_objects
from tests.builders import make_node, make_pod, make_snapshot
from tests.paths import REPO
from tests.strategies import Cluster, clusters

EXAMPLE = REPO / "fixtures" / "examples" / "shop-cluster.yaml"
POD = "shop/checkout-7c9d8b6f5-m4x2q"


# ------------------------------------------------------------------ versions


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("1.36", KubeVersion(1, 36)),
        ("v1.36.3", KubeVersion(1, 36, 3)),
        ("v1.35.4-eks-1a2b3c", KubeVersion(1, 35, 4, "-eks-1a2b3c")),
        ("v1.34.2+k3s1", KubeVersion(1, 34, 2, "+k3s1")),
        ("v1.33.5-gke.1080000", KubeVersion(1, 33, 5, "-gke.1080000")),
        ("latest", None),
        ("1", None),
        ("", None),
    ],
)
def test_parse_version(text: str, want: KubeVersion | None) -> None:
    assert parse_version(text) == want


def _scheduler_pod(image: str) -> o.Pod:
    return (
        make_pod("kube-scheduler-cp1", "kube-system")
        .labels(component="kube-scheduler")
        .node("cp1")
        .container(name="kube-scheduler", image=image, command=["kube-scheduler", "--leader-elect=true"])
        .obj()
    )


@pytest.mark.parametrize(
    ("flag", "server", "image", "kubelets", "want", "source", "warned"),
    [
        ("v1.36.3", "v1.35.4", None, [], V1_36, VersionSource.FLAG, []),
        ("1.35", None, None, ["v1.36.1"], V1_35, VersionSource.FLAG, []),
        (None, "v1.36.3", "registry.k8s.io/kube-scheduler:v1.35.4", [], V1_36, VersionSource.API_SERVER, []),
        (None, None, "registry.k8s.io/kube-scheduler:v1.36.3", ["v1.35.2"], V1_36, VersionSource.SCHEDULER_IMAGE, []),
        # A scheduler-plugins image's tag is not a Kubernetes release.
        (None, None, "registry.k8s.io/scheduler-plugins/kube-scheduler:v0.34.7", [], V1_35, VersionSource.DEFAULT, []),
        (None, None, None, ["v1.35.2", "v1.36.1-eks-1"], V1_36, VersionSource.KUBELET, ["a lower bound"]),
        (None, None, None, [], V1_35, VersionSource.DEFAULT, []),
        ("1.32", None, None, [], V1_33, VersionSource.FLAG, ["does not emulate kube-scheduler v1.32", "before v1.33"]),
        ("1.33", None, None, [], V1_33, VersionSource.FLAG, []),
        ("1.34", None, None, [], V1_34, VersionSource.FLAG, []),
        (None, "v1.34.7-eks-3", None, ["v1.34.2"], V1_34, VersionSource.API_SERVER, []),
        (None, "v1.37.0", None, [], V1_36, VersionSource.API_SERVER, ["does not emulate", "after v1.36"]),
        (None, "v1.36.0", None, ["v1.32.9", "v1.36.0"], V1_36, VersionSource.API_SERVER, ["(v1.32) are more than 3"]),
        (None, "v1.36.0", None, ["v1.33.0"], V1_36, VersionSource.API_SERVER, []),
    ],
)
def test_choose_version(
    flag: str | None,
    server: str | None,
    image: str | None,
    kubelets: list[str],
    want: Emulation,
    source: VersionSource,
    warned: list[str],
) -> None:
    nodes = [make_node(f"n{i}").kubelet(v).obj() for i, v in enumerate(kubelets)]
    snapshot = make_snapshot(*nodes, *([_scheduler_pod(image)] if image else []))
    snapshot.server_version = server or ""
    chosen = choose_version(flag, snapshot)
    assert (chosen.emulation, chosen.source) == (want, source)
    said = version_warnings(chosen)
    text = " ".join(said)
    assert all(w in text for w in warned), said
    assert bool(said) == bool(warned)


@pytest.mark.parametrize(
    ("server", "kubelets", "said"),
    [
        # Kubelets within the skew of the cluster's own v1.30 control plane: only the release is said.
        (
            "v1.30.4",
            ["v1.27.9", "v1.30.4"],
            "podwhy does not emulate kube-scheduler v1.30.4 (the API server's /version): it emulates v1.33, the "
            "oldest release it has; what may differ: ",
        ),
        # Read off a kubelet, older than any release emulated: one line says both.
        (
            None,
            ["v1.27.3"],
            "the cluster runs v1.27.3 or newer (its newest kubelet, a lower bound: pass --kube-version to say which "
            "release its kube-scheduler runs); podwhy emulates v1.33, the oldest release it has; what may differ: ",
        ),
        # Beyond the skew of the cluster's own control plane.
        (
            "v1.34.1",
            ["v1.30.2", "v1.34.1"],
            "some kubelets (v1.30) are more than 3 minor releases older than the control plane's v1.34: outside the "
            "supported version skew",
        ),
    ],
)
def test_version_caveats_are_one_line_held_to_the_clusters_own_release(
    server: str | None, kubelets: list[str], said: str
) -> None:
    snapshot = make_snapshot(*(make_node(f"n{i}").kubelet(v).obj() for i, v in enumerate(kubelets)))
    snapshot.server_version = server or ""
    (line,) = version_warnings(choose_version(None, snapshot))
    assert line.startswith(said) or said in line, line
    assert ("skew" in line) == ("skew" in said)


def test_a_bad_kube_version_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="not a Kubernetes version"):
        choose_version("one-thirty-six", make_snapshot())
    result = CliRunner().invoke(app, ["explain", POD, "--from", str(EXAMPLE), "--kube-version", "latest"])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "--kube-version 'latest'" in result.stderr


# ------------------------------------------------------------------ the default profile of each release


def test_default_profiles_differ_by_node_declared_features() -> None:
    old, new = default_profile(V1_35), default_profile(V1_36)
    assert names.NODE_DECLARED_FEATURES not in old.pre_filter + old.filter
    assert new.pre_filter == [*old.pre_filter, names.NODE_DECLARED_FEATURES]
    assert new.filter == [*old.filter, names.NODE_DECLARED_FEATURES]
    assert (new.score, new.post_filter, new.pre_score) == (old.score, old.post_filter, old.pre_score)


def test_placement_extension_points_are_read_from_v1_36_on() -> None:
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"plugins": {"placementScore": {"enabled": [{"name": "PodGroupPodsCount", "weight": 2}]}}}],
    }
    assert parse_scheduler_config(config, "c.yaml", V1_36).profiles[0].filter == default_profile(V1_36).filter
    with pytest.raises(UsageError, match="unknown extension point"):
        parse_scheduler_config(config, "c.yaml", V1_35)
    config["profiles"][0]["plugins"]["placementScore"]["enabled"][0]["name"] = "NoSuchPlugin"  # type: ignore[index]
    with pytest.raises(UsageError, match='plugin "NoSuchPlugin" does not exist'):
        parse_scheduler_config(config, "c.yaml", V1_36)


# ------------------------------------------------------------------ NodeResourcesBalancedAllocation


def _cpu_mem(cpu: str, memory: str | None = None) -> dict[str, str]:
    return {"cpu": cpu, **({"memory": memory} if memory is not None else {})}


def _balanced_scores(emulation: Emulation, pod: o.Pod, nodes: list[o.Node], pods: list[o.Pod]) -> dict[str, int]:
    handle = Handle(make_snapshot(*nodes, *pods), emulation=emulation)
    plugin = BalancedAllocation(handle)
    state = CycleState()
    pod_info = _info(pod)
    assert plugin.pre_score(state, pod_info, handle.node_infos).code == Code.Success
    return {ni.name: plugin.score(state, pod_info, ni)[0] for ni in handle.node_infos}


def _info(pod: o.Pod) -> PodInfo:
    return PodInfo(pod)


def _node(name: str, milli_cpu: int, memory: int) -> o.Node:
    return make_node(name).alloc(cpu=f"{milli_cpu}m", memory=str(memory)).obj()


def _two_containers(first: dict[str, str], second: dict[str, str], node: str | None = None) -> o.Pod:
    builder = make_pod(f"p-{node or 'new'}-{len(first)}")
    if node:
        builder = builder.node(node)
    return builder.req(first).req(second).obj()


# upstream's table (balanced_allocation_test.go, v1.36.3): (pod, nodes, existing pods, v1.36 scores,
# and the v1.35 scores, which its comments give as the balance with the pod: "(100 -> 87)").
BALANCED_CASES: dict[str, tuple[o.Pod, list[o.Node], list[o.Pod], dict[str, int], dict[str, int]]] = {
    "nothing scheduled, resources requested, differently sized nodes": (
        _two_containers(_cpu_mem("1000m", "2000"), _cpu_mem("2000m", "3000")),
        [_node("node1", 4000, 10000), _node("node2", 6000, 10000)],
        [],
        {"node1": 68, "node2": 75},
        {"node1": 87, "node2": 100},
    ),
    "resources requested, pods scheduled with resources": (
        _two_containers(_cpu_mem("1000m", "2000"), _cpu_mem("2000m", "3000")),
        [_node("node1", 10000, 20000), _node("node2", 10000, 20000)],
        [
            _two_containers(_cpu_mem("1000m"), _cpu_mem("2000m"), "node1"),
            _two_containers(_cpu_mem("1000m", "2000"), _cpu_mem("2000m", "3000"), "node2"),
        ],
        {"node1": 73, "node2": 74},
        {"node1": 82, "node2": 95},
    ),
    "resources requested, pods scheduled with resources, differently sized nodes": (
        _two_containers(_cpu_mem("1000m", "2000"), _cpu_mem("2000m", "3000")),
        [_node("node1", 10000, 20000), _node("node2", 10000, 50000)],
        [
            _two_containers(_cpu_mem("1000m"), _cpu_mem("2000m"), "node1"),
            _two_containers(_cpu_mem("1000m", "2000"), _cpu_mem("2000m", "3000"), "node2"),
        ],
        {"node1": 73, "node2": 70},
        {"node1": 82, "node2": 80},
    ),
    "resources requested, pods scheduled with resources, nodes to reach min/max score": (
        _two_containers({"memory": "2000"}, {"memory": "3000"}),
        [_node("node1", 3000, 5000), _node("node2", 3000, 5000)],
        [_two_containers(_cpu_mem("1000m"), _cpu_mem("2000m"), "node1")],
        {"node1": 100, "node2": 50},
        {"node1": 100, "node2": 50},
    ),
    "requested resources at node capacity": (
        _two_containers(_cpu_mem("1000m"), _cpu_mem("2000m")),
        [_node("node1", 6000, 10000), _node("node2", 6000, 10000)],
        [
            _two_containers(_cpu_mem("1000m"), _cpu_mem("2000m"), "node1"),
            _two_containers(_cpu_mem("1000m", "2000"), _cpu_mem("2000m", "3000"), "node2"),
        ],
        {"node1": 62, "node2": 62},
        {"node1": 50, "node2": 75},
    ),
}


@pytest.mark.parametrize("name", list(BALANCED_CASES))
def test_balanced_allocation_scores_the_improvement_from_v1_36(name: str) -> None:
    pod, nodes, pods, v136, v135 = BALANCED_CASES[name]
    assert _balanced_scores(V1_36, pod, nodes, pods) == v136
    assert _balanced_scores(V1_35, pod, nodes, pods) == v135


# ------------------------------------------------------------------ NodeDeclaredFeatures


def _restart_all(builder: Any) -> Any:
    return builder.container(
        name="trainer", restartPolicyRules=[{"action": "RestartAllContainers", "exitCodes": {"operator": "In"}}]
    )


@pytest.mark.parametrize(
    ("pod", "want"),
    [
        (make_pod().obj(), []),
        (_restart_all(make_pod()).obj(), [RESTART_ALL_CONTAINERS]),
        (make_pod().spec(hostNetwork=True, hostUsers=False).obj(), [USER_NAMESPACES_HOST_NETWORK]),
        (make_pod().spec(hostNetwork=True).obj(), []),
        (make_pod().spec(hostUsers=False).obj(), []),
        (
            _restart_all(make_pod()).spec(hostNetwork=True, hostUsers=False).obj(),
            [RESTART_ALL_CONTAINERS, USER_NAMESPACES_HOST_NETWORK],
        ),
    ],
)
def test_required_features(pod: o.Pod, want: list[str]) -> None:
    assert required_features(pod.spec) == want


# nodedeclaredfeatures_test.go TestFilter, with the registered features in place of its mocks.
@pytest.mark.parametrize(
    ("emulation", "pod", "declared", "pre_filter", "want"),
    [
        ("plugin disabled", make_pod().obj(), None, Code.Skip, None),
        ("Pod with no requirements", make_pod().obj(), [RESTART_ALL_CONTAINERS], Code.Skip, None),
        (
            "Node matches requirements",
            _restart_all(make_pod()).obj(),
            [RESTART_ALL_CONTAINERS],
            Code.Success,
            Code.Success,
        ),
        (
            "Node does not match requirements",
            _restart_all(make_pod()).obj(),
            [USER_NAMESPACES_HOST_NETWORK],
            Code.Success,
            Code.UnschedulableAndUnresolvable,
        ),
        (
            "Node with multiple features, pod requires subset",
            _restart_all(make_pod()).obj(),
            ["ExtendWebSocketsToKubelet", RESTART_ALL_CONTAINERS, USER_NAMESPACES_HOST_NETWORK],
            Code.Success,
            Code.Success,
        ),
        (
            "Node has no declared features",
            _restart_all(make_pod()).obj(),
            [],
            Code.Success,
            Code.UnschedulableAndUnresolvable,
        ),
        (
            "Node with some but not all required features",
            _restart_all(make_pod()).spec(hostNetwork=True, hostUsers=False).obj(),
            [RESTART_ALL_CONTAINERS],
            Code.Success,
            Code.UnschedulableAndUnresolvable,
        ),
    ],
)
def test_node_declared_features(
    emulation: str, pod: o.Pod, declared: list[str] | None, pre_filter: Code, want: Code | None
) -> None:
    node = (
        make_node("node-1").declared_features(*(declared if declared is not None else [RESTART_ALL_CONTAINERS])).obj()
    )
    handle = Handle(make_snapshot(node), emulation=V1_35 if emulation == "plugin disabled" else V1_36)
    plugin = NodeDeclaredFeatures(handle)
    state = CycleState()
    result, status = plugin.pre_filter(state, _info(pod), handle.node_infos)
    assert (result, status.code) == (None, pre_filter)
    if want is None:
        return
    status = plugin.filter(state, _info(pod), handle.node_infos[0])
    assert status.code == want
    assert status.reasons == ([] if want == Code.Success else [ERR_REASON_UNSATISFIED_REQUIREMENTS])


def test_node_declared_features_filter_without_its_pre_filter_is_an_error() -> None:
    handle = Handle(make_snapshot(make_node("node-1").obj()), emulation=V1_36)
    status = NodeDeclaredFeatures(handle).filter(CycleState(), _info(make_pod().obj()), handle.node_infos[0])
    assert status.code == Code.Error
    assert status.reasons == ['error reading "PreFilterNodeDeclaredFeatures" from cycle-state: not found']


# ------------------------------------------------------------------ ImageLocality


def test_image_locality_counts_image_volumes_from_v1_36() -> None:
    """image_locality_test.go (v1.36.3) "pod with ImageVolume": the volume's image counts, the
    thresholds scale with the containers only."""
    mb = 1024 * 1024
    pod = make_pod().container(image="gcr.io/30").volume({"name": "imageVolume", "image": {"reference": "gcr.io/300"}})
    nodes = [
        make_node("node1")
        .image(300 * mb, "gcr.io/300:latest")
        .image(600 * mb, "gcr.io/600:latest")
        .image(900 * mb, "gcr.io/900:latest")
        .obj(),
        make_node("node2").image(4000 * mb, "gcr.io/4000:latest").image(30 * mb, "gcr.io/30:latest").obj(),
    ]
    scores = {}
    for emulation in (V1_35, V1_36):
        handle = Handle(make_snapshot(*nodes), emulation=emulation)
        plugin = ImageLocality(handle)
        scores[emulation.name] = {
            ni.name: plugin.score(CycleState(), _info(pod.obj()), ni)[0] for ni in handle.node_infos
        }
    # node1: 100 * (300M * 1/2 - 23M) / (1000M - 23M) = 12; node2: 30M * 1/2 is under 23M.
    assert scores["1.36"] == {"node1": 12, "node2": 0}
    assert scores["1.35"] == {"node1": 0, "node2": 0}


# ------------------------------------------------------------------ the command line


def test_explain_names_the_release_in_its_first_line_and_report() -> None:
    runner = CliRunner()
    table = runner.invoke(app, ["explain", POD, "--from", str(EXAMPLE), "--kube-version", "v1.36.3"])
    first, second = table.stdout.splitlines()[:2]
    assert first == f"Pod {POD} · Unschedulable"
    assert second == "priority 0 · kube-scheduler v1.36 (--kube-version v1.36.3)"
    out = runner.invoke(app, ["explain", POD, "--from", str(EXAMPLE), "--kube-version", "1.31", "-o", "json"])
    report = json.loads(out.stdout)
    assert report["scheduler"]["version"] == "1.33" and report["scheduler"]["versionSource"] == "flag"
    assert any("does not emulate kube-scheduler v1.31" in w for w in report["warnings"])
    assert "podwhy: warning: podwhy does not emulate kube-scheduler v1.31" in out.stderr


@pytest.mark.parametrize(
    ("served", "minor"), [("v1.36.3", "1.36"), ("v1.34.7-eks-4f2a8c1", "1.34"), ("v1.33.3", "1.33")]
)
def test_live_mode_takes_the_api_servers_version(served: str, minor: str, tmp_path: Path) -> None:
    with FakeApiServer(load_objects(EXAMPLE), git_version=served) as server:
        config = str(server.kubeconfig(tmp_path / "config"))
        result = CliRunner().invoke(app, ["explain", POD, "--kubeconfig", config, "-o", "json"])
        dump = tmp_path / "snap.json"
        assert CliRunner().invoke(app, ["snapshot", "-o", str(dump), "--kubeconfig", config]).exit_code == 0
    scheduler = json.loads(result.stdout)["scheduler"]
    assert (scheduler["version"], scheduler["versionSource"], scheduler["clusterVersion"]) == (
        minor,
        "apiServer",
        served,
    )
    # podwhy snapshot records it: the dump says the same offline.
    offline = CliRunner().invoke(app, ["explain", POD, "--from", str(dump), "-o", "json"])
    assert json.loads(offline.stdout)["scheduler"] == scheduler
    pending = CliRunner().invoke(app, ["pending", "--from", str(dump), "-A", "-o", "json"])
    assert json.loads(pending.stdout)["scheduler"] == {
        "version": minor,
        "versionSource": "apiServer",
        "clusterVersion": served,
    }


# ------------------------------------------------------------------ v1.35 and v1.36 on what neither changed


def _explain_as(cluster: Cluster, emulation: Emulation) -> Report:
    snapshot = cluster.snapshot()
    return build_report(run_cycle(snapshot, cluster.pod, default_profile(emulation)), snapshot)


@given(clusters())
def test_v1_35_and_v1_36_differ_only_in_balanced_allocation(cluster: Cluster) -> None:
    """Generated pods use no image volume, no restart rule, no user namespace and no DeviceClass:
    the verdicts agree, NodeDeclaredFeatures skips, and only BalancedAllocation's scores (and the
    totals and best nodes they make) may differ."""
    old, new = _explain_as(cluster, V1_35), _explain_as(cluster, V1_36)
    assert (new.verdict, new.message, new.feasibleNodes) == (old.verdict, old.message, old.feasibleNodes)
    assert new.preemption == old.preemption
    features = [p for p in new.preFilter if p.plugin == names.NODE_DECLARED_FEATURES]
    assert [p.status for p in features] == [StatusName.SKIP]
    assert [p for p in new.preFilter if p.plugin != names.NODE_DECLARED_FEATURES] == old.preFilter
    for before, after in zip(old.nodes, new.nodes, strict=True):
        assert after.firstFailure == before.firstFailure
        rows = {f.plugin: f for f in after.filters}
        assert rows.pop(names.NODE_DECLARED_FEATURES).status == StatusName.SKIP
        assert list(rows.values()) == before.filters
        balanced = names.NODE_RESOURCES_BALANCED_ALLOCATION
        assert [s for s in after.scores if s.plugin != balanced] == [s for s in before.scores if s.plugin != balanced]
        if before.totalScore is not None and after.totalScore is not None:
            delta = {s.plugin: s.weighted for s in after.scores}.get(balanced, 0) - {
                s.plugin: s.weighted for s in before.scores
            }.get(balanced, 0)
            assert after.totalScore - before.totalScore == delta


def test_a_pod_of_a_pod_group_says_gang_scheduling_is_not_simulated() -> None:
    node = make_node("n").obj()
    pod = make_pod("worker-0").req(cpu="1").spec(schedulingGroup={"podGroupName": "training"}).obj()
    snapshot = make_snapshot(node, pod)
    report = build_report(run_cycle(snapshot, pod, default_profile(V1_36)), snapshot)
    assert report.verdict == "Schedulable"
    assert any(w.startswith("the pod belongs to pod group training: gang scheduling") for w in report.warnings)
    plain = make_pod("solo").req(cpu="1").obj()
    assert not any("pod group" in w for w in build_report(run_cycle(snapshot, plain), snapshot).warnings)


POD_GROUP_DUMP = {
    "apiVersion": "v1",
    "kind": "List",
    "items": [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "4"}}},
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "worker-0", "namespace": "ml"},
            "spec": {"containers": [{"name": "c"}], "schedulingGroup": {"podGroupName": "training"}},
        },
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "Workload",
            "metadata": {"name": "job", "namespace": "ml"},
            "spec": {"podGroupTemplates": [{"name": "workers", "schedulingPolicy": {"gang": {"minCount": 4}}}]},
        },
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "metadata": {"name": "training", "namespace": "ml"},
            "spec": {
                "podGroupTemplateRef": {"workload": {"workloadName": "job", "podGroupTemplateName": "workers"}},
                "schedulingPolicy": {"gang": {"minCount": 4}},
            },
        },
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "metadata": {"name": "solo", "namespace": "ml"},
            "spec": {"schedulingPolicy": {"basic": {}}},
        },
    ],
}


@pytest.mark.parametrize(
    ("group", "policy"),
    [("training", " (policy gang, minCount 4)"), ("solo", " (policy basic)"), ("absent", "")],
)
def test_workloads_and_pod_groups_are_read_and_name_the_policy(tmp_path: Path, group: str, policy: str) -> None:
    """scheduling.k8s.io/v1alpha2 Workload and PodGroup (v1.36) are read, not ignored; the
    warning about a pod of a pod group names its group's scheduling policy when the dump holds it."""
    dump = json.loads(json.dumps(POD_GROUP_DUMP))
    dump["items"][1]["spec"]["schedulingGroup"]["podGroupName"] = group
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps(dump))
    snapshot = FileSource([str(path)]).load()
    assert not snapshot.ignored_kinds
    assert snapshot.workloads["ml/job"].spec.pod_group_templates[0].scheduling_policy.gang == o.GangSchedulingPolicy(
        min_count=4
    )
    assert set(snapshot.pod_groups) == {"ml/training", "ml/solo"}
    assert "PodGroup" not in snapshot.missing and "Workload" not in snapshot.missing
    pod = snapshot.pods[0]
    report = build_report(run_cycle(snapshot, pod, default_profile(V1_36)), snapshot)
    want = f"the pod belongs to pod group {group}{policy}: gang scheduling"
    assert next(w for w in report.warnings if "pod group" in w).startswith(want)


def test_check_takes_the_release_too(tmp_path: Path) -> None:
    manifest = tmp_path / "web.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\n"
        "spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]}\n"
    )
    result = CliRunner().invoke(
        app, ["check", "-f", str(manifest), "--from", str(EXAMPLE), "--kube-version", "1.36", "-o", "json"]
    )
    scheduler = json.loads(result.stdout)["scheduler"]
    assert scheduler == {"version": "1.36", "versionSource": "flag", "clusterVersion": "v1.36"}


@pytest.mark.parametrize(
    ("features", "error"),
    [
        (
            ["UserNamespacesHostNetworkSupport", "RestartAllContainersOnContainerExits"],
            "list must be sorted alphabetically",
        ),
        (["RestartAllContainersOnContainerExits", "RestartAllContainersOnContainerExits"], "Duplicate value"),
    ],
)
def test_declared_features_the_api_server_would_refuse(tmp_path: Path, features: list[str], error: str) -> None:
    """validateNodeDeclaredFeatures: sorted and unique, as the scheduler's matching assumes."""
    dump = tmp_path / "nodes.json"
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {"declaredFeatures": features}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [node, pod]}))
    result = CliRunner().invoke(app, ["explain", "p", "--from", str(dump)])
    assert result.exit_code == 3
    assert result.stderr.count("\n") == 1 and "items[0] (Node" in result.stderr and error in result.stderr


def test_v1_34_dynamic_resources_has_no_score() -> None:
    """v1.34.7's DynamicResources has no Score method: not in the default profile's scores, and a
    configuration enabling it there is refused as that scheduler refuses it."""
    assert "DynamicResources" not in default_profile(V1_34).score
    assert default_profile(V1_35).score["DynamicResources"] == 2
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"plugins": {"score": {"enabled": [{"name": "DynamicResources", "weight": 1}]}}}],
    }
    with pytest.raises(UsageError, match='plugin "DynamicResources" does not extend score plugin'):
        parse_scheduler_config(config, emulation=V1_34)
    assert parse_scheduler_config(config, emulation=V1_35).profiles[0].score["DynamicResources"] == 1


@given(clusters())
def test_v1_34_and_v1_35_differ_only_in_dynamic_resources_scoring(cluster: Cluster) -> None:
    """v1.34's DynamicResources has no Score: without it, every verdict, message, filter row,
    score and total of v1.35 (generated pods use no claims: DynamicResources scores 0)."""
    old, new = _explain_as(cluster, V1_34), _explain_as(cluster, V1_35)
    assert (old.verdict, old.message, old.feasibleNodes, old.preemption, old.preFilter) == (
        new.verdict,
        new.message,
        new.feasibleNodes,
        new.preemption,
        new.preFilter,
    )
    for before, after in zip(old.nodes, new.nodes, strict=True):
        assert before.filters == after.filters and before.firstFailure == after.firstFailure
        assert before.scores == [s for s in after.scores if s.plugin != names.DYNAMIC_RESOURCES]
        assert before.totalScore == after.totalScore


def test_v1_33_words_and_codes() -> None:
    """v1.33's TaintToleration names the taint, NodeResourcesFit never says a node is too small for
    good (preemption tries it), and DynamicResources is not in the profile."""
    small = make_node("small").alloc(cpu="1").taint("team", "ml", "NoSchedule").obj()
    big = make_node("big").alloc(cpu="1").obj()
    pod = make_pod("p").req(cpu="2").obj()
    snapshot = make_snapshot(small, big, pod)
    old, new = (build_report(run_cycle(snapshot, pod, default_profile(e)), snapshot) for e in (V1_33, V1_35))
    assert old.message.startswith(
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {team: ml}."
    )
    assert new.message.startswith("0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s).")
    fit = {n.name: next(f for f in n.filters if f.plugin == names.NODE_RESOURCES_FIT) for n in old.nodes}
    assert fit["big"].status == StatusName.UNSCHEDULABLE
    assert names.DYNAMIC_RESOURCES not in {p.plugin for p in old.preFilter}
    assert "no new claims to deallocate" not in old.message and "no new claims to deallocate" in new.message


@pytest.mark.parametrize(
    ("served", "dra_on"),
    [
        ({"resource.k8s.io/v1beta1"}, True),
        ({"resource.k8s.io/v1beta2", "resource.k8s.io/v1"}, True),
        ({"resource.k8s.io/v1"}, False),
        (set(), False),
    ],
)
def test_a_v1_33_cluster_serving_dra_has_turned_it_on(served: set[str], dra_on: bool) -> None:
    """DynamicResourceAllocation is off by default in v1.33 and its API group is served only when
    it is on: DRA objects in a beta or alpha version mean the cluster enabled it. resource.k8s.io/v1
    exists only from v1.34 (the recordings hold such objects, and v1.33 ignores them)."""
    snapshot = make_snapshot(make_node("n").obj())
    if served:
        snapshot.api_versions["ResourceSlice"] = served
    chosen = choose_version("1.33", snapshot)
    assert chosen.emulation.minor == 33
    assert chosen.emulation.enabled("DynamicResourceAllocation") is dra_on
    assert any("it has DynamicResourceAllocation on" in w for w in version_warnings(chosen)) is dra_on
    assert names.DYNAMIC_RESOURCES in default_profile(chosen.emulation).filter if dra_on else True


@pytest.mark.parametrize(
    ("release", "served", "gate_on", "said_on", "not_served"),
    [
        # v1.35: v1beta1 (and v1alpha1) behind the gate, off by default.
        ("1.35", {"admissionregistration.k8s.io/v1beta1"}, True, True, []),
        ("1.35", {"admissionregistration.k8s.io/v1"}, True, False, ["admissionregistration.k8s.io/v1"]),
        ("1.35", set(), False, False, []),
        # v1.33: v1alpha1 only.
        ("1.33", {"admissionregistration.k8s.io/v1alpha1"}, True, True, []),
        ("1.33", {"admissionregistration.k8s.io/v1beta1"}, True, False, ["admissionregistration.k8s.io/v1beta1"]),
        # v1.36: GA and on by default; its older versions are still served.
        ("1.36", {"admissionregistration.k8s.io/v1"}, True, False, []),
        ("1.36", {"admissionregistration.k8s.io/v1alpha1"}, True, False, []),
    ],
)
def test_a_cluster_serving_mutating_admission_policies(
    release: str, served: set[str], gate_on: bool, said_on: bool, not_served: list[str]
) -> None:
    """MutatingAdmissionPolicy is served only where its gate is on (storage_apiserver.go: v1alpha1
    from v1.32, v1beta1 from v1.34, v1 from v1.36): a snapshot holding some has it on; a version the
    release cannot serve is said (the snapshot is of another release)."""
    snapshot = make_snapshot(make_node("n").obj())
    if served:
        snapshot.api_versions["MutatingAdmissionPolicyBinding"] = served
    chosen = choose_version(release, snapshot)
    assert chosen.emulation.enabled("MutatingAdmissionPolicy") is gate_on
    warnings = " ".join(version_warnings(chosen))
    assert ("it has MutatingAdmissionPolicy on" in warnings) is said_on
    assert chosen.map_not_served == not_served
    assert ("which Kubernetes v" + release + " does not serve" in warnings) is bool(not_served)


# ------------------------------------------------------------------ v1.33 and v1.34 on what neither changed

# v1.34 becomes v1.33 one per-release difference at a time: TaintToleration's words, then
# NodeResourcesFit's code for a request beyond the node's allocatable, then the feature gates
# (DynamicResourceAllocation off: no DynamicResources). Generated clusters use no PVC and no
# pod-level resources, so the other v1.33 data (its ReadWriteOncePod words, PodLevelResources
# off) changes nothing on them.
TAINT_WORDS = replace(V1_34, taint_toleration_names_taint=True)
FIT_CODES = replace(TAINT_WORDS, fit_unresolvable_over_allocatable=False)
V1_33_GATES = replace(
    FIT_CODES,
    gates=V1_33.gates,
    read_write_once_pod_older_words=True,
    # The API server's defaulting of a template's fileKeyRef.optional: nothing the scheduler reads.
    file_key_ref_optional_default=False,
    # validateHostUsers' words: the API server's, nothing the scheduler reads.
    host_users_forbidden="when `pod.Spec.HostUsers` is false",
    # The versions MutatingAdmissionPolicy is served in: the API server's, nothing the scheduler reads.
    mutating_admission_policy_versions=("v1alpha1",),
)
UNTOLERATED = "node(s) had untolerated taint(s)"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
DRA_POST_FILTER = "no new claims to deallocate, "


def test_the_steps_from_v1_34_reach_v1_33() -> None:
    """Every per-release difference between v1.34 and v1.33 is one of the property test's steps."""
    assert replace(V1_33_GATES, minor=33, release=V1_33.release) == V1_33


def _tolerates(toleration: o.Toleration, taint: o.Taint) -> bool:
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.operator == "Exists":
        return not toleration.key or toleration.key == taint.key
    return toleration.key == taint.key and (toleration.value or "") == (taint.value or "")


def _first_untolerated(node: o.Node, pod: o.Pod) -> o.Taint:
    return next(
        taint
        for taint in node.spec.taints
        if taint.effect in ("NoSchedule", "NoExecute") and not any(_tolerates(t, taint) for t in pod.spec.tolerations)
    )


def _histogram(part: str) -> tuple[Counter[str], str]:
    """ "0/N nodes are available: 2 a, 1 b. rest" -> ({a: 2, b: 1}, "rest")."""
    head, _, rest = part.removesuffix(".").partition(". ")
    _, _, items = head.partition(" nodes are available: ")
    counts: Counter[str] = Counter()
    for item in items.split(", "):
        count, _, reason = item.partition(" ")
        counts[reason] += int(count)
    return counts, rest


def _untolerated_words(counts: Counter[str]) -> Counter[str]:
    """v1.33's reasons with its taint words in v1.34's: one reason for every taint."""
    out: Counter[str] = Counter()
    for reason, count in counts.items():
        out[UNTOLERATED if re.fullmatch(r"node\(s\) had untolerated taint \{.*\}", reason) else reason] += count
    return out


def _rows_but(rows: list[Any], plugin: str) -> list[Any]:
    return [row for row in rows if row.plugin != plugin]


def _only_taint_words(old: Report, new: Report, cluster: Cluster) -> None:
    """TaintToleration names the first untolerated taint; codes, other rows and preemption agree."""
    assert (new.verdict, new.feasibleNodes, new.preFilter, new.preemption) == (
        old.verdict,
        old.feasibleNodes,
        old.preFilter,
        old.preemption,
    )
    taint = names.TAINT_TOLERATION
    nodes = {n.metadata.name: n for n in cluster.nodes}
    for before, after in zip(old.nodes, new.nodes, strict=True):
        assert _rows_but(after.filters, taint) == _rows_but(before.filters, taint)
        assert (after.scores, after.totalScore) == (before.scores, before.totalScore)
        was, now = before.filter(taint), after.filter(taint)
        assert was is not None and now is not None and now.status == was.status
        if was.reasons == [UNTOLERATED]:
            first = _first_untolerated(nodes[after.name], cluster.pod)
            assert now.reasons == [f"node(s) had untolerated taint {{{first.key}: {first.value or ''}}}"]
        else:
            assert now.reasons == was.reasons
        if before.firstFailure is not None and before.firstFailure.plugin == taint:
            assert after.firstFailure == structs.replace(before.firstFailure, reasons=now.reasons)
        else:
            assert after.firstFailure == before.firstFailure
    if old.message.startswith("0/"):
        (was_counts, was_rest), (now_counts, now_rest) = _histogram(old.message), _histogram(new.message)
        assert (_untolerated_words(now_counts), now_rest) == (was_counts, was_rest)
    else:
        assert new.message == old.message


def _only_fit_codes(old: Report, new: Report) -> None:
    """A node whose first failure is NodeResourcesFit's UnschedulableAndUnresolvable (a request beyond
    its allocatable) gets Unschedulable instead, and preemption tries it rather than passing it by."""
    assert (new.verdict, new.feasibleNodes, new.preFilter) == (old.verdict, old.feasibleNodes, old.preFilter)
    fit = names.NODE_RESOURCES_FIT
    changed: set[str] = set()
    for before, after in zip(old.nodes, new.nodes, strict=True):
        assert _rows_but(after.filters, fit) == _rows_but(before.filters, fit)
        assert (after.scores, after.totalScore) == (before.scores, before.totalScore)
        was, now = before.filter(fit), after.filter(fit)
        assert was is not None and now is not None
        assert (now.reasons, now.evidence) == (was.reasons, was.evidence)
        unresolvable = was.status == StatusName.UNSCHEDULABLE_AND_UNRESOLVABLE
        assert now.status == (StatusName.UNSCHEDULABLE if unresolvable else was.status)
        # v1.34 says UnschedulableAndUnresolvable exactly when a request exceeds the allocatable.
        evidence = [e for e in was.evidence or [] if isinstance(e, ResourceEvidence)]
        assert unresolvable == any(e.requested > e.allocatable for e in evidence if e.resource != "pods")
        if before.firstFailure is not None and before.firstFailure.plugin == fit:
            assert after.firstFailure == structs.replace(before.firstFailure, status=now.status)
            if unresolvable:
                changed.add(after.name)
        else:
            assert after.firstFailure == before.firstFailure
    if not changed or old.preemption is None:
        # The dry runs' own rows may differ in NodeResourcesFit's code; what preemption decides may not.
        assert new.message == old.message
        assert _decision(new.preemption) == _decision(old.preemption)
        return
    filters_then, _, preemption_then = old.message.partition(" preemption: ")
    filters_now, _, preemption_now = new.message.partition(" preemption: ")
    assert filters_now == filters_then
    assert new.preemption is not None
    if new.preemption.nominatedNode is not None and new.preemption.nominatedNode != old.preemption.nominatedNode:
        assert new.preemption.nominatedNode in changed
    elif preemption_then.startswith("0/") and preemption_now.startswith("0/"):
        # Each node passed by is one "not helpful"; the nodes tried instead say why they failed.
        then, now_ = _histogram(preemption_then)[0], _histogram(preemption_now)[0]
        assert now_[NOT_HELPFUL] == then[NOT_HELPFUL] - len(changed)


def _decision(preemption: Preemption | None) -> tuple[Any, ...] | None:
    if preemption is None:
        return None
    p = preemption
    return (p.nominatedNode, p.victims, p.pdbViolations, p.candidates, p.message)


def _only_dra(old: Report, new: Report) -> None:
    """No DynamicResources: its PreFilter and Filter rows are gone, and with them its PostFilter's
    part of the message (and its "not found" when an earlier PreFilter kept it from running)."""
    dra = names.DYNAMIC_RESOURCES
    assert new.verdict == old.verdict and new.feasibleNodes == old.feasibleNodes
    assert [p.plugin for p in old.preFilter if p.plugin == dra] == [dra]
    assert new.preFilter == _rows_but(old.preFilter, dra)
    for before, after in zip(old.nodes, new.nodes, strict=True):
        assert dra not in {f.plugin for f in after.filters}
        assert after.filters == _rows_but(before.filters, dra)
        assert (after.firstFailure, after.scores, after.totalScore) == (
            before.firstFailure,
            before.scores,
            before.totalScore,
        )
    if old.message.endswith(". not found"):
        assert new.message.startswith(old.message.removesuffix("not found") + "preemption: ")
        return
    if old.preemption is None:
        assert new.preemption is None
    else:
        assert new.preemption == structs.replace(old.preemption, postFilter=_rows_but(old.preemption.postFilter, dra))
    if " preemption: " in old.message:
        assert DRA_POST_FILTER in old.message
        assert new.message == old.message.replace(DRA_POST_FILTER, "")
    else:
        assert new.message == old.message


@given(clusters())
def test_v1_33_and_v1_34_differ_only_in_taint_words_fit_codes_and_dynamic_resources(cluster: Cluster) -> None:
    """Generated pods use no claims, no PVC and no pod-level resources: v1.34 and v1.33 differ
    only where the per-release data says, one step of it at a time."""
    v134, words, codes, v133 = (_explain_as(cluster, e) for e in (V1_34, TAINT_WORDS, FIT_CODES, V1_33))
    _only_taint_words(v134, words, cluster)
    _only_fit_codes(words, codes)
    _only_dra(codes, v133)


V1_33_MESSAGE = (
    "0/4 nodes are available: 1 node(s) had untolerated taint {nvidia.com/gpu: present}, 1 node(s) were "
    "unschedulable, 2 Insufficient cpu. preemption: 0/4 nodes are available: 2 No preemption victims found for "
    "incoming pod, 2 Preemption is not helpful for scheduling."
)


def _with_event(tmp_path: Path, message: str) -> Path:
    """The example with a FailedScheduling event of its Pending pod saying MESSAGE."""
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "checkout.1", "namespace": "shop"},
        "involvedObject": {"kind": "Pod", "namespace": "shop", "name": POD.split("/")[1]},
        "reason": "FailedScheduling",
        "type": "Warning",
        "message": message,
        "count": 3,
    }
    dump = tmp_path / "cluster.yaml"
    dump.write_text(EXAMPLE.read_text() + "\n---\n" + json.dumps(event) + "\n")
    return dump


@pytest.mark.parametrize(("flag", "likely"), [(None, "1.33"), ("1.35", None)])
def test_a_message_in_another_releases_words_names_that_release_first(
    tmp_path: Path, flag: str | None, likely: str | None
) -> None:
    """The cluster's own FailedScheduling event is v1.33's wording; podwhy emulates v1.35 by
    default: the likely cause is the release, said first (not when --kube-version chose it)."""
    dump = _with_event(tmp_path, V1_33_MESSAGE)
    args = ["explain", POD, "--from", str(dump), *(["--kube-version", flag] if flag else [])]
    report = json.loads(CliRunner().invoke(app, [*args, "-o", "json"]).stdout)
    word = report["scheduler"]
    assert word["agrees"] is False
    assert word.get("likelyRelease") == likely
    if likely is not None:
        assert word["causes"][0].startswith("the cluster's kube-scheduler is v1.33, whose words these are exactly")
        table = CliRunner().invoke(app, args, env={"COLUMNS": "200", "NO_COLOR": "1"}).stdout
        said = [line for line in table.splitlines() if "kube-scheduler's own" in line]
        assert said[0].startswith("kube-scheduler's own last message is v1.33's wording: the cluster likely runs v1.33")


def test_a_message_counting_other_nodes_is_no_release_s(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """v1.33's words, but counting one node more than the snapshot holds (a node gone since): no
    release's scheduler says that over this snapshot, so none is looked for (no cycle of another
    release is run) and none is named."""
    import podwhy.engine.explainpod

    def not_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("the other releases' cycles were run")

    monkeypatch.setattr(podwhy.engine.explainpod, "_likely_release", not_run)
    message = V1_33_MESSAGE.replace("0/4 nodes", "0/5 nodes")
    assert message != V1_33_MESSAGE
    dump = _with_event(tmp_path, message)
    result = CliRunner().invoke(app, ["explain", POD, "--from", str(dump), "-o", "json"])
    word = json.loads(result.stdout)["scheduler"]
    assert word["agrees"] is False
    assert "likelyRelease" not in word or word["likelyRelease"] is None
