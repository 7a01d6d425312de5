"""Suggestions that are safe to paste: well-known node labels are never changed, reserved nodes are
the last resort and a node's condition is never tolerated, evictions go through the Eviction API
and say what becomes of the evicted pods, and a manifest's changes are made to the manifest."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml
from typer.testing import CliRunner

from podwhy.analysis.keymeanings import condition_taint, reserving_taint, well_known_label
from podwhy.analysis.suggest import Suggestion, suggest
from podwhy.analysis.suggest.notes import Note
from podwhy.cli import app
from podwhy.model import objects as o
from podwhy.report.words.meanings import condition_text
from podwhy.report.words.suggest import command_text, note_text, suggestion_text
from podwhy.scheduler.config import default_profile
from podwhy.scheduler.cycle import run_cycle
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict
from tests.analysis.test_commands import kubectl_patch
from tests.builders import from_raw, make_node, make_pod, make_snapshot, quotas_listed

Json = dict[str, Any]


def _suggestions(snapshot: Snapshot, pod: o.Pod) -> list[Suggestion]:
    cycle = run_cycle(snapshot, pod)
    assert cycle.verdict == Verdict.UNSCHEDULABLE
    return suggest(snapshot, cycle, default_profile())


def _node(name: str, cpu: str = "4", **labels: str) -> o.Node:
    return make_node(name).alloc(cpu=cpu, memory="8Gi", pods=110).labels(labels).obj()


def _labels_touched(suggestions: list[Suggestion]) -> set[str]:
    """Node label keys the suggestions' patches or commands change."""
    keys: set[str] = set()
    for s in suggestions:
        for p in s.patches:
            if p.get("kind") == "Node" and "patch" in p:
                keys |= set((p["patch"] or {}).get("metadata", {}).get("labels", {}))
        command = command_text(s.command)
        if command.startswith("kubectl label"):
            keys |= {w.partition("=")[0] for w in shlex.split(command, comments=True)[3:] if "=" in w}
    return keys


# ---------------------------------------------------------------- the data


@pytest.mark.parametrize(
    ("key", "well_known"),
    [
        ("kubernetes.io/hostname", True),
        ("kubernetes.io/arch", True),
        ("kubernetes.io/os", True),
        ("beta.kubernetes.io/instance-type", True),
        ("topology.kubernetes.io/zone", True),
        ("topology.kubernetes.io/region", True),
        ("failure-domain.beta.kubernetes.io/zone", True),
        ("node.kubernetes.io/instance-type", True),
        ("node-role.kubernetes.io/worker", True),
        ("node-restriction.kubernetes.io/team", True),
        ("feature.node.kubernetes.io/cpu-cpuid.AVX512F", True),
        ("eks.amazonaws.com/nodegroup", True),
        ("alpha.eksctl.io/nodegroup-name", True),
        ("karpenter.sh/nodepool", True),
        ("karpenter.k8s.aws/instance-family", True),
        ("cloud.google.com/gke-nodepool", True),
        ("topology.gke.io/zone", True),
        ("kubernetes.azure.com/agentpool", True),
        ("agentpool", True),
        ("cluster.x-k8s.io/deployment-name", True),
        ("disktype", False),
        ("pool", False),
        ("example.com/kubernetes.io", False),
        ("team.example.com/gpu", False),
    ],
)
def test_well_known_labels(key: str, well_known: bool) -> None:
    assert (well_known_label(key) is not None) == well_known


@pytest.mark.parametrize(
    ("key", "condition", "reserving"),
    [
        ("node.kubernetes.io/not-ready", True, False),
        ("node.kubernetes.io/unreachable", True, False),
        ("node.kubernetes.io/disk-pressure", True, False),
        ("node.kubernetes.io/memory-pressure", True, False),
        ("node.kubernetes.io/pid-pressure", True, False),
        ("node.kubernetes.io/network-unavailable", True, False),
        ("node.kubernetes.io/unschedulable", True, False),
        ("node.kubernetes.io/out-of-service", True, False),
        ("node-role.kubernetes.io/control-plane", True, False),
        ("node-role.kubernetes.io/master", True, False),
        ("ToBeDeletedByClusterAutoscaler", True, False),
        ("node.kubernetes.io/sla", False, False),
        ("nvidia.com/gpu", False, True),
        ("amd.com/gpu", False, True),
        ("dedicated", False, True),
        ("cloud.google.com/gke-spot", False, True),
        ("kubernetes.azure.com/scalesetpriority", False, True),
        ("kubernetes.io/arch", False, True),
        ("maintenance", False, False),
    ],
)
def test_taint_kinds(key: str, condition: bool, reserving: bool) -> None:
    assert (condition_taint(key) is not None) == condition
    assert (reserving_taint(key) is not None) == reserving


# ---------------------------------------------------------------- well-known labels


ZONE = "topology.kubernetes.io/zone"


def _pinned_nodes() -> list[o.Node]:
    return [_node("a1", **{ZONE: "a"}), _node("b1", **{ZONE: "b"})]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("kubernetes.io/hostname", "gone-node"),
        (ZONE, "c"),
        ("node.kubernetes.io/instance-type", "m5.large"),
        ("eks.amazonaws.com/nodegroup", "gpu"),
        ("cloud.google.com/gke-nodepool", "pool-2"),
        ("agentpool", "user2"),
        ("node-role.kubernetes.io/worker", ""),
    ],
)
@pytest.mark.parametrize("how", ["nodeSelector", "affinity"])
def test_a_selector_on_a_well_known_label_no_node_has_changes_the_pod(key: str, value: str, how: str) -> None:
    pod = make_pod("p").req(cpu="1")
    pod = pod.node_selector({key: value}) if how == "nodeSelector" else pod.node_affinity_in(key, value)
    snapshot = make_snapshot(*_pinned_nodes())
    suggestions = _suggestions(snapshot, pod.obj())
    assert key not in _labels_touched(suggestions)
    assert not any(s.kind == "labelNode" for s in suggestions)
    dropped = next(s for s in suggestions if s.kind == "dropNodeSelection")
    assert f"asks for {key}" in suggestion_text(dropped) and "which no node has" in suggestion_text(dropped)
    assert sorted(dropped.nodes) == ["a1", "b1"]
    # The change is to the pod, and its merge patch makes the pod fit.
    (patch,) = dropped.patches
    assert patch["kind"] == "Pod" and patch["name"] == "p"
    pod_doc = {"apiVersion": "v1", "kind": "Pod", **msgspec.to_builtins(pod.obj())}
    from tests.analysis.test_suggest import merge_patch

    fixed = msgspec.convert(merge_patch(pod_doc, patch["patch"]), o.Pod)
    assert run_cycle(snapshot, fixed).verdict == Verdict.SCHEDULABLE


@pytest.mark.parametrize(("key", "value"), [("kubernetes.io/os", "windows"), ("kubernetes.io/arch", "arm64")])
def test_a_platform_no_node_has_is_never_dropped(key: str, value: str) -> None:
    # The images are built for that platform: the scheduler would place the pod, the kubelet could not run it.
    snapshot = make_snapshot(*_pinned_nodes())
    pod = make_pod("p").req(cpu="1").node_selector({key: value}).obj()
    notes: list[Note] = []
    suggestions = suggest(snapshot, run_cycle(snapshot, pod), default_profile(), notes=notes)
    assert suggestions == []
    assert [note_text(n) for n in notes] == [
        f"the pod's nodeSelector asks for {key}={value}, which no node has (nodes have {key} none): it needs a node "
        "of that platform; dropping the requirement is not suggested, as its images are built for it"
    ]


def test_an_affinity_term_keeps_its_other_requirements() -> None:
    pod = (
        make_pod("p")
        .req(cpu="1")
        .affinity(
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": ZONE, "operator": "In", "values": ["c"]},
                                    {"key": "disk", "operator": "In", "values": ["ssd"]},
                                ]
                            }
                        ]
                    }
                }
            }
        )
        .obj()
    )
    snapshot = make_snapshot(_node("a1", disk="ssd", **{ZONE: "a"}), _node("b1", **{ZONE: "b"}))
    dropped = next(s for s in _suggestions(snapshot, pod) if s.kind == "dropNodeSelection")
    assert dropped.nodes == ["a1"]
    assert (
        '"path":"/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchExpressions/0"'
        in command_text(dropped.command)
    )


def test_a_full_zone_gets_capacity_in_that_zone_not_a_relabel() -> None:
    # Zone a exists but is full; b has room. A copy of a1 (in zone a) fits; zone b is never relabelled.
    snapshot = make_snapshot(
        _node("a1", **{ZONE: "a"}),
        _node("b1", **{ZONE: "b"}),
        make_pod("busy").node("a1").req(cpu="4").obj(),
    )
    pod = make_pod("p").req(cpu="4").node_selector({ZONE: "a"}).obj()
    suggestions = _suggestions(snapshot, pod)
    assert ZONE not in _labels_touched(suggestions)
    kinds = [s.kind for s in suggestions]
    assert "addNode" in kinds and "labelNode" not in kinds, kinds
    added = next(s for s in suggestions if s.kind == "addNode")
    assert "shaped like a1" in suggestion_text(added)
    assert added.patches[0]["object"]["metadata"]["labels"][ZONE] == "a"


def test_a_pod_pinned_to_an_existing_full_host_is_not_relabelled() -> None:
    snapshot = make_snapshot(_node("a1"), _node("b1"), make_pod("busy").node("a1").req(cpu="4").obj())
    pod = make_pod("p").req(cpu="2").node_selector({"kubernetes.io/hostname": "a1"}).obj()
    suggestions = _suggestions(snapshot, pod)
    assert "kubernetes.io/hostname" not in _labels_touched(suggestions)
    assert "dropNodeSelection" not in [s.kind for s in suggestions]


@pytest.mark.parametrize(
    ("labels", "overwrite"),
    [({}, False), ({"disk": "hdd"}, True)],
)
def test_overwrite_only_over_another_value_saying_who_selects_on_it(labels: dict[str, str], overwrite: bool) -> None:
    nodes = [_node("n1", **labels)]
    others = [
        # A DaemonSet whose pod on n1 selects disk=hdd: relabelling removes it from n1.
        make_pod("agent-x1", "kube-system").owner("DaemonSet", "agent").node("n1").node_selector(disk="hdd").obj(),
        # A Deployment's pod elsewhere selecting disk=hdd: n1 is no longer a node for it.
        make_pod("db-5f7c9-abcde", "prod")
        .owner("ReplicaSet", "db-5f7c9")
        .labels({"pod-template-hash": "5f7c9"})
        .node_selector(disk="hdd")
        .obj(),
    ]
    snapshot = make_snapshot(*nodes, *others)
    pod = make_pod("p").req(cpu="1").node_selector(disk="ssd").obj()
    (label,) = [s for s in _suggestions(snapshot, pod) if s.kind == "labelNode"]
    assert command_text(label.command).endswith("--overwrite") == overwrite
    if overwrite:
        assert "it replaces disk=hdd, on which these select" in suggestion_text(label)
        assert "kube-system/agent (DaemonSet): its pod on n1 would be removed" in suggestion_text(label)
        assert "prod/db (Deployment)" in suggestion_text(label)
    else:
        assert "replaces" not in suggestion_text(label)


# ---------------------------------------------------------------- taints


def _taint_cluster(key: str, value: str, effect: str, tolerated_there: bool) -> tuple[Snapshot, o.Pod]:
    """n1 has 1 CPU left (a lowered request fits, a copy of it fits); n2 is empty but tainted,
    with a pod of another workload that tolerates the taint when TOLERATED_THERE."""
    nodes = [_node("n1"), make_node("n2").alloc(cpu="4", memory="8Gi", pods=110).taint(key, value, effect).obj()]
    pods = [make_pod("busy").node("n1").req(cpu="3").obj()]
    if tolerated_there:
        pods.append(
            make_pod("owner-0", "team")
            .owner("StatefulSet", "owner")
            .node("n2")
            .toleration(key, "Equal" if value else "Exists", value, effect)
            .req(cpu="1")
            .obj()
        )
    return make_snapshot(*nodes, *pods), make_pod("p").req(cpu="2").obj()


@pytest.mark.parametrize(
    ("key", "value", "effect", "tolerated_there", "expected"),
    [
        ("node.kubernetes.io/not-ready", "", "NoSchedule", False, "never"),
        ("node.kubernetes.io/unreachable", "", "NoSchedule", False, "never"),
        ("node.kubernetes.io/disk-pressure", "", "NoSchedule", False, "never"),
        ("node.kubernetes.io/memory-pressure", "", "NoSchedule", False, "never"),
        ("node.kubernetes.io/unschedulable", "", "NoSchedule", False, "never"),
        ("node.kubernetes.io/network-unavailable", "", "NoSchedule", False, "never"),
        ("node-role.kubernetes.io/control-plane", "", "NoSchedule", True, "never"),
        ("ToBeDeletedByClusterAutoscaler", "1700000000", "NoSchedule", False, "never"),
        ("nvidia.com/gpu", "present", "NoSchedule", False, "reserved"),
        ("amd.com/gpu", "", "NoSchedule", False, "reserved"),
        ("dedicated", "db", "NoSchedule", False, "reserved"),
        ("kubernetes.azure.com/scalesetpriority", "spot", "NoSchedule", False, "reserved"),
        ("team", "ml", "NoExecute", True, "reserved"),
        ("team", "ml", "NoSchedule", True, "reserved"),
        ("maintenance", "true", "NoSchedule", False, "plain"),
    ],
)
def test_reserved_nodes_are_the_last_resort_and_a_condition_is_never_tolerated(
    key: str, value: str, effect: str, tolerated_there: bool, expected: str
) -> None:
    snapshot, pod = _taint_cluster(key, value, effect, tolerated_there)
    notes: list[Note] = []
    suggestions = suggest(snapshot, run_cycle(snapshot, pod), default_profile(), notes=notes)
    kinds = [s.kind for s in suggestions]
    tolerations = [i for i, s in enumerate(suggestions) if s.kind == "addToleration"]
    if expected == "never":
        assert not tolerations, [suggestion_text(s) for s in suggestions]
        # The report says why: the node's condition, not the pod.
        condition = condition_taint(key)
        assert condition is not None
        assert [note_text(n) for n in notes] == [
            f"node n2 would take the pod but for its taint {key} ({condition_text(condition)}): the node's condition "
            "is the cause, not the pod; tolerating such a taint is never suggested"
        ]
        return
    assert notes == []
    assert len(tolerations) == 1, kinds
    index = tolerations[0]
    summary = suggestion_text(suggestions[index])
    if expected == "reserved":
        # After lowering the request and adding capacity, saying for whom the nodes are kept.
        assert index > kinds.index("lowerRequest") and index > kinds.index("addNode"), kinds
        assert index == len(suggestions) - 1
        assert "which puts this workload on nodes reserved for" in summary
        if tolerated_there:
            assert "already there: team/owner (StatefulSet)" in summary
    else:
        assert index < kinds.index("addNode"), kinds
        assert "reserved" not in summary


# ---------------------------------------------------------------- evictions


def _pdb(name: str, app_label: str, allowed: int) -> o.PodDisruptionBudget:
    return from_raw(
        o.PodDisruptionBudget,
        {
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": app_label}}},
            "status": {"disruptionsAllowed": allowed},
        },
    )


def _victim(name: str, node: str, owner: tuple[str, str] | None, app_label: str = "low") -> o.Pod:
    pod = make_pod(name).node(node).priority(0).labels(app=app_label).req(cpu="3").toleration("batch", "Exists")
    if owner is not None:
        kind, owner_name = owner
        pod = pod.owner(kind, owner_name)
        if kind == "ReplicaSet":
            pod = pod.labels({"pod-template-hash": owner_name.rpartition("-")[2]})
    return pod.obj()


@pytest.mark.parametrize(
    ("owner", "spare", "recreated", "fits"),
    [
        (("ReplicaSet", "web-5f7c9"), True, "its Deployment default/web creates a new pod", "it fits on 1 node"),
        (("ReplicaSet", "web-5f7c9"), False, "its Deployment default/web creates a new pod", "no node fits it then"),
        (("Job", "nightly"), True, "its Job default/nightly creates a new pod", "it fits on 1 node"),
        (None, True, "a bare pod, nothing recreates it: gone for good", ""),
    ],
)
def test_an_eviction_uses_the_eviction_api_and_says_what_becomes_of_the_pod(
    owner: tuple[str, str] | None, spare: bool, recreated: str, fits: str
) -> None:
    # n1 holds a low-priority pod; n3 (when SPARE) is tainted "batch", which only the victim tolerates.
    nodes = [_node("n1")]
    if spare:
        nodes.append(make_node("n3").alloc(cpu="4", memory="8Gi", pods=110).taint("batch").obj())
    snapshot = make_snapshot(*nodes, _victim("low-1", "n1", owner))
    pod = make_pod("p").priority(100).preemption_policy("Never").req(cpu="2").obj()
    (evict,) = [s for s in _suggestions(snapshot, pod) if s.kind == "evictPods"]
    assert "delete" not in shlex.split(command_text(evict.command), comments=True)
    assert command_text(evict.command).startswith(
        """echo '{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"low-1","namespace":"default"}}'"""
        " | kubectl create --raw /api/v1/namespaces/default/pods/low-1/eviction -f -"
    )
    assert recreated in suggestion_text(evict)
    assert fits in suggestion_text(evict)


@pytest.mark.parametrize(
    ("budgets_known", "said"),
    [
        (True, "no PodDisruptionBudget is broken"),
        (False, "the snapshot has no PodDisruptionBudgets: the Eviction API refuses an eviction one forbids"),
    ],
)
def test_an_eviction_says_whether_budgets_were_known(budgets_known: bool, said: str) -> None:
    snapshot = make_snapshot(_node("n1"), _victim("low-1", "n1", ("ReplicaSet", "web-5f7c9")))
    if not budgets_known:
        snapshot.missing["PodDisruptionBudget"] = ""  # a cluster-info dump holds none
    pod = make_pod("p").priority(100).preemption_policy("Never").req(cpu="2").obj()
    (evict,) = [s for s in _suggestions(snapshot, pod) if s.kind == "evictPods"]
    assert said in suggestion_text(evict)


def test_an_eviction_never_takes_a_pod_its_budget_protects() -> None:
    # Evicting from n1 would break web's budget (no disruption allowed); n2's pod has none.
    snapshot = make_snapshot(
        _node("n1"),
        _node("n2"),
        _victim("web-1", "n1", ("ReplicaSet", "web-5f7c9"), app_label="web"),
        _victim("batch-1", "n2", ("ReplicaSet", "batch-7d8e9"), app_label="batch"),
        _pdb("web", "web", allowed=0),
    )
    pod = make_pod("p").priority(100).preemption_policy("Never").req(cpu="2").obj()
    (evict,) = [s for s in _suggestions(snapshot, pod) if s.kind == "evictPods"]
    assert "web-1" not in command_text(evict.command) and "batch-1" in command_text(evict.command)
    assert [p["name"] for p in evict.patches] == ["batch-1"]
    # With both protected, nothing is evicted.
    protected = make_snapshot(
        _node("n1"), _victim("web-1", "n1", ("ReplicaSet", "web-5f7c9"), app_label="web"), _pdb("web", "web", 0)
    )
    assert not [s for s in _suggestions(protected, pod) if s.kind == "evictPods"]


def test_an_eviction_evicts_the_pods_preemption_would_take() -> None:
    # n1: one victim of priority 50; n2: two of priority 0. Fewest victims is n1, but preemption
    # picks the node whose highest-priority victim is lowest: n2, and the suggestion follows it.
    def low(name: str, node: str, priority: int, cpu: str) -> o.Pod:
        return make_pod(name).node(node).priority(priority).labels(app=name).req(cpu=cpu).owner("Job", name).obj()

    snapshot = make_snapshot(
        _node("n1"),
        _node("n2"),
        low("mid-1", "n1", 50, "3"),
        low("low-1", "n2", 0, "1500m"),
        low("low-2", "n2", 0, "1500m"),
    )
    pod = make_pod("p").priority(100).preemption_policy("Never").req(cpu="2").obj()
    # A pod that may not preempt: evicting what the dry run would take, as if it might.
    might = make_pod("p").priority(100).req(cpu="2").obj()
    dry = run_cycle(snapshot, might)
    preemption = dry.post_filter.preemption if dry.post_filter is not None else None
    assert preemption is not None and preemption.nominated_node == "n2"
    cycle = run_cycle(snapshot, pod)
    (evict,) = [s for s in suggest(snapshot, cycle, default_profile()) if s.kind == "evictPods"]
    assert [p["name"] for p in evict.patches] == sorted(pi.pod.metadata.name for pi in preemption.victims)


# ---------------------------------------------------------------- a manifest given with -f


def _write_cluster(path: Path, objects: list[msgspec.Struct]) -> Path:
    kinds = {tp: kind for kind, tp in o.KIND_TYPES.items()}
    items = [{"apiVersion": "v1", "kind": kinds[type(obj)], **msgspec.to_builtins(obj)} for obj in objects]
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


def _explain_json(*args: str) -> Json:
    result = CliRunner().invoke(app, ["explain", *args, "-o", "json"], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert result.exit_code == 1, result.output
    report: Json = json.loads(result.stdout)
    return report


@pytest.mark.parametrize(("named", "create"), [(True, "kubectl apply -f"), (False, "kubectl create -f")])
def test_a_manifest_is_patched_as_a_file_never_as_a_made_up_pod(tmp_path: Path, named: bool, create: str) -> None:
    cluster = _write_cluster(tmp_path / "cluster.json", [_node("n1"), make_pod("busy").node("n1").req(cpu="3").obj()])
    metadata: Json = {"name": "web"} if named else {"generateName": "web-"}
    manifest = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        # Requests given in full: no LimitRange could add any (the dump holds none).
        "spec": {
            "containers": [{"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}]
        },
    }
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(manifest))
    report = _explain_json("-f", str(path), "--from", str(cluster))
    made_up = report["pod"]["name"]
    lowered = next(s for s in report["suggestions"] if s["kind"] == "lowerRequest")
    command = lowered["command"]
    assert "kubectl get pod" not in command and (named or made_up not in command)
    words = shlex.split(command, comments=True)
    assert words[:3] == ["kubectl", "patch", "--local"]
    assert words[words.index("-f") + 1] == str(path)
    patched_path = words[words.index(">") + 1]
    assert patched_path == str(tmp_path / "pod.patched.yaml")
    assert command.endswith(f"{create} {shlex.quote(patched_path)}")
    # The patch, applied to the manifest as written, gives a pod that fits.
    patched = kubectl_patch(manifest, words[words.index("--type") + 1], words[words.index("-p") + 1])
    patched_file = tmp_path / "patched.yaml"
    patched_file.write_text(yaml.safe_dump(patched))
    quotas = quotas_listed(tmp_path)
    result = CliRunner().invoke(
        app, ["explain", "-f", str(patched_file), "--from", str(cluster), "--from", quotas, "-o", "json"]
    )
    assert json.loads(result.stdout)["verdict"] == "Schedulable"


# ---------------------------------------------------------------- what a person reads


WIDTHS = [80, 100, 200]


def _explain_text(tmp_path: Path, pod: o.Pod, width: int = 200) -> str:
    """The printed report, its whitespace (line ends where the terminal wraps) made single spaces."""
    cluster = _write_cluster(tmp_path / "cluster.json", [*_pinned_nodes(), pod])
    result = CliRunner().invoke(
        app,
        ["explain", f"default/{pod.metadata.name}", "--from", str(cluster)],
        env={"COLUMNS": str(width), "NO_COLOR": "1"},
    )
    assert result.exit_code == 1, result.output
    return " ".join(result.stdout.split())


@pytest.mark.parametrize("width", WIDTHS)
def test_cli_a_hostname_pinned_pod(tmp_path: Path, width: int) -> None:
    pod = make_pod("pinned").req(cpu="1").node_selector({"kubernetes.io/hostname": "b2"}).obj()
    out = _explain_text(tmp_path, pod, width)
    assert "kubectl label" not in out
    assert (
        "the pod's nodeSelector asks for kubernetes.io/hostname=b2, which no node has (nodes have "
        "kubernetes.io/hostname a1, b1): drop the requirement from the pod, or change it to a value a node has; "
        "without it the pod fits on a1, b1 (no node is relabelled with kubernetes.io/hostname: the kubelet sets it"
    ) in out
    assert (
        """kubectl get pod pinned -n default -o json | kubectl patch --local -f - --type json """
        """-p '[{"op":"remove","path":"/spec/nodeSelector/kubernetes.io~1hostname"}]' -o json """
        "| kubectl replace --force -f -"
    ) in out


@pytest.mark.parametrize("width", WIDTHS)
def test_cli_a_zone_pinned_pod(tmp_path: Path, width: int) -> None:
    pod = make_pod("zonal").req(cpu="1").owner("ReplicaSet", "zonal-5f7c9").labels({"pod-template-hash": "5f7c9"})
    out = _explain_text(tmp_path, pod.node_affinity_in(ZONE, "c", "d").obj(), width)
    assert "kubectl label" not in out
    assert (
        f"the pod's required node affinity asks for {ZONE} in [c, d], which no node has (nodes have {ZONE} a, b): "
        "drop the requirement from the pod, or change it to a value a node has; without it the pod fits on a1, b1 "
        f"(no node is relabelled with {ZONE}: the cloud provider sets the node's zone"
    ) in out
    assert (
        """kubectl patch deployment zonal -n default --type json -p '[{"op":"remove","path":"""
        """"/spec/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution"}]'"""
    ) in out


@pytest.mark.parametrize(
    ("path", "generate_name", "expected"),
    [
        (
            "pod.yaml",
            "",
            "kubectl patch --local --type json -p '[]' -o yaml -f pod.yaml > pod.patched.yaml"
            " && kubectl apply -f pod.patched.yaml",
        ),
        (
            "my dir/pod",
            "web-",
            "kubectl patch --local --type json -p '[]' -o yaml -f 'my dir/pod' > 'my dir/pod.patched.yaml'"
            " && kubectl create -f 'my dir/pod.patched.yaml'",
        ),
        (
            "-",
            "",
            "kubectl patch --local --type json -p '[]' -o yaml -f - | kubectl apply -f -"
            "  # the manifest on stdin, as podwhy read it",
        ),
    ],
)
def test_manifest_commands(path: str, generate_name: str, expected: str) -> None:
    from podwhy.analysis.commands import manifest_command

    pod = make_pod("web-x1").obj()
    pod.metadata.generate_name = generate_name
    assert command_text(manifest_command(path, pod, [])) == expected


def test_every_well_known_meaning_has_its_words() -> None:
    from podwhy.analysis.keymeanings import LabelMeaning, NodeCondition, Reservation
    from podwhy.report.words.meanings import CONDITIONS, LABELS, RESERVATIONS

    assert set(LABELS) == set(LabelMeaning)
    assert set(CONDITIONS) == set(NodeCondition)
    assert set(RESERVATIONS) == set(Reservation)
