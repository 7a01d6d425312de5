"""podwhy pending: every Pending pod classified, grouped by cause and owner."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

from podwhy.analysis import pending as pending_module
from podwhy.analysis.owners import owner_of
from podwhy.analysis.pending import classify_pending
from podwhy.cli import app
from podwhy.model import objects as o
from podwhy.report.build.pending import build_pending_report
from podwhy.report.words.pending import cause_text
from podwhy.scheduler.config import default_config, load_scheduler_config, profile_for_pod
from podwhy.scheduler.cycle import FIRST_FIT, CycleOptions, run_cycle
from podwhy.snapshot.source import FileSource
from podwhy.verdict import Verdict
from tests.builders import make_node, make_pod, make_snapshot
from tests.conformance import GOLDEN, case_dirs, cluster_file
from tests.paths import REPO
from tests.shared import SHARED, needs_shared


def _replica(i: int, cpu: str = "8") -> o.Pod:
    return make_pod(f"web-abc-{i}", "shop").owner("ReplicaSet", "web-abc").labels(app="web").req(cpu=cpu).obj()


def _classify(*objects: Any) -> list[pending_module.PendingPod]:
    return classify_pending(make_snapshot(*objects), default_config())


def test_identical_replicas_are_evaluated_once_and_grouped(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = pending_module.run_cycle

    def counting(snapshot: Any, pod: o.Pod, **kwargs: Any) -> Any:
        calls.append(pod.metadata.name)
        return real(snapshot, pod, **kwargs)

    monkeypatch.setattr(pending_module, "run_cycle", counting)
    node = make_node("n1").alloc(cpu="4", memory="8Gi").obj()
    snapshot = make_snapshot(node, *(_replica(i) for i in range(3)), make_pod("other", "shop").req(cpu="8").obj())
    report = build_pending_report(classify_pending(snapshot, default_config()), snapshot)
    assert calls == ["web-abc-0", "other"]
    assert [(g.count, g.owner, g.verdict) for g in report.groups] == [
        (3, "shop/web-abc (ReplicaSet)", Verdict.UNSCHEDULABLE),
        (1, None, Verdict.UNSCHEDULABLE),
    ]
    assert report.groups[0].cause.startswith("0/1 nodes are available: 1 Insufficient cpu.")
    assert report.stuck == 4 and report.exit_code == 1


def test_every_cause_of_pending() -> None:
    node = make_node("n1").alloc(cpu="4", memory="8Gi").obj()
    image = (
        make_pod("img")
        .node("n1")
        .phase("Pending")
        .status(
            containerStatuses=[
                {"name": "c", "image": "reg/app:v9", "state": {"waiting": {"reason": "ImagePullBackOff"}}}
            ]
        )
        .obj()
    )
    config_error = (
        make_pod("cfg")
        .node("n1")
        .phase("Pending")
        .status(
            containerStatuses=[
                {
                    "name": "c",
                    "state": {
                        "waiting": {
                            "reason": "CreateContainerConfigError",
                            "message": "couldn't find key token in Secret default/api",
                        }
                    },
                }
            ]
        )
        .obj()
    )
    gone = make_pod("orphan").node("lost-node").phase("Pending").obj()
    gated = make_pod("gated").gate("example.com/quota").obj()
    stale = make_pod("stale").nominated("lost-node").phase("Pending").obj()
    other = make_pod("mine").scheduler("my-scheduler").obj()
    fits = make_pod("fits").req(cpu="1").obj()
    running = make_pod("running").node("n1").phase("Running").obj()
    pending = {p.key: p for p in _classify(node, image, config_error, gone, gated, stale, other, fits, running)}
    assert "default/running" not in pending
    assert pending["default/img"].verdict == Verdict.BOUND_NOT_RUNNING
    assert (
        cause_text(pending["default/img"].cause)
        == "bound, not running: cannot pull image reg/app:v9 (ErrImagePull, ImagePullBackOff)"
    )
    assert cause_text(pending["default/cfg"].cause) == (
        "bound, not running: CreateContainerConfigError: couldn't find key token in Secret default/api"
    )
    assert cause_text(pending["default/orphan"].cause) == "bound to node lost-node, which no longer exists"
    assert (pending["default/gated"].verdict, cause_text(pending["default/gated"].cause)) == (
        Verdict.GATED,
        "scheduling gates [example.com/quota]",
    )
    assert pending["default/stale"].verdict == Verdict.NOMINATED
    assert "stale nomination" in cause_text(pending["default/stale"].cause)
    assert pending["default/mine"].verdict == Verdict.NO_PROFILE
    assert pending["default/fits"].verdict == Verdict.SCHEDULABLE


def test_pending_cli_exit_codes(tmp_path: Path) -> None:
    dump = tmp_path / "c.yaml"
    dump.write_text(
        "apiVersion: v1\nkind: List\nitems:\n"
        "- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: '4', pods: '10'}}}\n"
        "- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: default},"
        " spec: {nodeName: n1, containers: [{name: c, image: x}]}, status: {phase: Running}}\n"
    )
    result = CliRunner().invoke(app, ["pending", "--complete", "--from", str(dump), "-o", "json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["total"] == 0
    example = REPO / "fixtures" / "examples" / "shop-cluster.yaml"
    result = CliRunner().invoke(app, ["pending", "--complete", "--from", str(example), "-A"], env={"COLUMNS": "160"})
    assert result.exit_code == 1
    assert "shop/checkout-7c9d8b6f5-m4x2q" in result.stdout


@pytest.mark.parametrize("case", ["g0489", "g0492", "g0495", "g0498"])
def test_one_framework_for_all_pods_gives_each_pods_own_verdict(case: str) -> None:
    """Reusing the snapshot's indexes across pods changes no verdict or message."""
    snapshot = FileSource([str(cluster_file(GOLDEN / case))], complete=True).load()
    for item in classify_pending(snapshot, default_config()):
        if item.cycle is None or item.pod.status.nominated_node_name or item.pod.spec.scheduling_gates:
            continue
        alone = run_cycle(snapshot, item.pod)
        assert (alone.verdict, alone.message) == (item.cycle.verdict, item.cycle.message), item.key


SAMPLE_DUMP = REPO / "fixtures" / "samples" / "cluster-info-dump"
EXAMPLE = REPO / "fixtures" / "examples" / "shop-cluster.yaml"


@pytest.mark.parametrize("source", [EXAMPLE, SAMPLE_DUMP], ids=["example", "cluster-info-dump"])
def test_grouped_output(source: Path, snapshot: Any, pending_schema_validator: Any) -> None:
    """The grouped table and JSON of `podwhy pending -A`, fixed width and colourless; the JSON
    holds to the committed PendingReport schema."""
    env = {"COLUMNS": "140", "NO_COLOR": "1"}
    # The example is a whole cluster; a cluster-info dump lacks kinds, which the report names.
    complete = ["--complete"] if source == EXAMPLE else []
    table = CliRunner().invoke(app, ["pending", "--from", str(source), "-A", *complete], env=env)
    report = CliRunner().invoke(app, ["pending", "--from", str(source), "-A", "-o", "json", *complete], env=env)
    doc = json.loads(report.stdout)
    pending_schema_validator.validate(doc)
    doc["snapshot"]["sources"] = [Path(s).name for s in doc["snapshot"]["sources"]]
    assert (table.exit_code, table.stdout, doc) == snapshot


@pytest.mark.parametrize("case", [c.name for c in case_dirs()])
def test_pending_shortcuts_keep_the_verdict_and_message(case: str) -> None:
    """`pending` runs the scheduler's short-circuit, stops at the first feasible node (nominated
    node first) and skips nodes PreFilter settled: verdict, message and whether the nominated node
    fits are those of the full cycle with every plugin on every node."""
    meta = json.loads((GOLDEN / case / "case.json").read_text())
    config = load_scheduler_config(GOLDEN / case / meta["config"]) if "config" in meta else default_config()
    snapshot = FileSource([str(cluster_file(GOLDEN / case))], complete=True).load()
    namespace, name = meta["pod"].split("/")
    pod = next(p for p in snapshot.pods if (p.metadata.namespace, p.metadata.name) == (namespace, name))
    profile = profile_for_pod(config, pod)
    if profile is None:
        pytest.skip("no profile serves the pod")
    names = frozenset(p.scheduler_name for p in config.profiles)
    full = run_cycle(snapshot, pod, profile, config.extenders, names, options=CycleOptions(scoring=False))
    quick = run_cycle(snapshot, pod, profile, config.extenders, names, options=FIRST_FIT)
    assert (quick.verdict, quick.message, quick.nominated_node_fits) == (
        full.verdict,
        full.message,
        full.nominated_node_fits,
    )
    if pod.spec.node_name:
        return  # already bound: no cycle runs
    assert quick.outcome is not None and full.outcome is not None
    assert set(quick.outcome.feasible) <= set(full.outcome.feasible)
    assert len(quick.outcome.feasible) == min(1, len(full.outcome.feasible))
    assert quick.outcome.complete or quick.outcome.feasible


@pytest.mark.parametrize(
    ("nominated_to", "fits"),
    [("n3", True), ("n1", False), ("gone", False)],
    ids=["nominated-node-fits", "nominated-node-full", "nominated-node-gone"],
)
def test_first_feasible_walk_tries_the_nominated_node_first(nominated_to: str, fits: bool) -> None:
    """The walk stops at one feasible node, but the nominated node is tried before any other."""
    nodes = [make_node("n1").alloc(cpu="1", pods=10).obj()] + [
        make_node(f"n{i}").alloc(cpu="4", pods=10).obj() for i in (2, 3)
    ]
    pod = make_pod("p").req(cpu="2").nominated(nominated_to).obj()
    snapshot = make_snapshot(*nodes, pod)
    quick = run_cycle(snapshot, pod, options=FIRST_FIT)
    assert quick.verdict == Verdict.SCHEDULABLE
    assert quick.nominated_node_fits is fits
    assert quick.outcome is not None
    assert quick.outcome.feasible == (["n3"] if fits else ["n2"])
    assert [n.name for n in quick.outcome.nodes] == (["n3"] if fits else ["n1", "n2"])


def _trainer(i: int) -> o.Pod:
    return (
        make_pod(f"trainer-{i}", "ml")
        .owner("Job", "trainer", api_version="batch/v1")
        .labels(app="trainer")
        .req({"cpu": "1", "nvidia.com/gpu": "1"})
        .obj()
    )


@pytest.mark.parametrize(("size", "needed"), [(4, 1), (12, 3)])
def test_a_group_says_how_many_nodes_all_its_pods_need(size: int, needed: int, tmp_path: Path) -> None:
    """The cluster-autoscaler question for the whole group, verified: the group's pods, placed one
    after another on the cluster with the suggested nodes added, all fit."""
    from podwhy.cluster.placement import Placer
    from podwhy.engine import PendingRequest, pending
    from tests.analysis.test_suggest import apply_patches

    gpu = make_node("gpu-node-1").alloc({"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": "4"}).obj()
    busy = make_pod("busy", "ml").node("gpu-node-1").req({"nvidia.com/gpu": "4"}).obj()
    lone = make_pod("lone", "ml").req(cpu="64").obj()  # fits on no copy: no count for its group
    pods = [busy, lone, *(_trainer(i) for i in range(size))]
    objects = [{"apiVersion": "v1", "kind": "Node", **msgspec.to_builtins(gpu)}]
    objects += [{"apiVersion": "v1", "kind": "Pod", **msgspec.to_builtins(p)} for p in pods]
    dump = tmp_path / "cluster.json"
    dump.write_bytes(msgspec.json.encode({"apiVersion": "v1", "kind": "List", "items": objects}))
    report = pending(PendingRequest(FileSource([str(dump)], complete=True), None))
    groups = {g.owner: g for g in report.groups}
    assert groups[None].suggestions == []
    (suggestion,) = groups["ml/trainer (Job)"].suggestions
    assert suggestion.kind == "addNodesForGroup"
    assert suggestion.summary.startswith(f"{size} pods of ml/trainer (Job) need {needed} more node")
    assert suggestion.command.startswith(f"# scale the node group of gpu-node-1 up by {needed} ")
    patched = tmp_path / "patched.json"
    patched.write_bytes(
        msgspec.json.encode(
            {
                "apiVersion": "v1",
                "kind": "List",
                "items": apply_patches(objects, suggestion.patches, FileSource([str(dump)], complete=True).load()),
            }
        )
    )
    snapshot = FileSource([str(patched)], complete=True).load()
    placer = Placer(snapshot, default_config())
    trainers = [p for p in snapshot.pods if p.metadata.name.startswith("trainer-")]
    assert len(trainers) == size
    assert all(placer.schedule(p).placed for p in trainers)
    # explain of one of them says it too, for its group.
    from podwhy.engine import ExplainRequest, explain

    explained = explain(
        ExplainRequest(pod_ref="ml/trainer-0", namespace="ml", source=FileSource([str(dump)], complete=True))
    )
    assert [s.summary for s in explained.suggestions if s.kind == "addNodesForGroup"] == [suggestion.summary]
    # The table says it once, in the summary (the cause's next step), and the group refers to it.
    table = CliRunner().invoke(
        app, ["pending", "--complete", "--from", str(dump), "-A"], env={"COLUMNS": "200", "NO_COLOR": "1"}
    )
    assert f"→ add {needed} node{'s' if needed != 1 else ''} like gpu-node-1\n" in table.stdout
    assert f"⇒ {size} pods of ml/trainer (Job) need" not in table.stdout


def _owned(name: str, owner: str, **requests: Any) -> o.Pod:
    return make_pod(name, "ml").owner("Job", owner, api_version="batch/v1").labels(app=owner).req(requests).obj()


@pytest.mark.parametrize(
    ("bounds", "expected"),
    [
        # (module constant, value) set; per owner: how sizing ended and how its note begins.
        pytest.param(
            {},
            {
                "ml/big (Job)": ("sized", "sized: 2 more nodes shaped like gpu-node-1; with 1 not all"),
                "ml/small (Job)": ("sized", "sized: 1 more node shaped like gpu-node-1"),
                "ml/huge (Job)": ("noNodeShape", "no node shape of the cluster holds one of these pods, even empty"),
            },
            id="all-sized",
        ),
        pytest.param(
            {"MAX_GROUPS_SIZED": 1},
            {
                "ml/big (Job)": ("sized", "sized: 2 more nodes"),
                "ml/small (Job)": ("skipped", "not sized: only the 1 largest Unschedulable groups"),
                # Told at once, without a slot: no node shape has room for one of its pods.
                "ml/huge (Job)": ("noNodeShape", "no node shape of the cluster holds one of these pods"),
            },
            id="groups-skipped",
        ),
        pytest.param(
            {"MAX_GROUP_PLACEMENT_WORK": 20},
            {
                "ml/big (Job)": ("stopped", "sizing stopped at the 20 node evaluations one group may spend"),
                "ml/small (Job)": ("stopped", "sizing stopped at the 20 node evaluations one group may spend"),
                "ml/huge (Job)": ("noNodeShape", "no node shape of the cluster holds one of these pods"),
            },
            id="group-bound",
        ),
        pytest.param(
            {"MAX_GROUPS_PLACEMENT_WORK": 3},
            {
                # Not even the first look at every node fits in what the run may spend.
                "ml/big (Job)": ("skipped", "not sized: too little is left of the 3 node evaluations all groups"),
                "ml/small (Job)": ("skipped", "not sized: too little is left of the 3 node evaluations all groups"),
                "ml/huge (Job)": ("noNodeShape", "no node shape of the cluster holds one of these pods"),
            },
            id="run-bound",
        ),
    ],
)
def test_every_unschedulable_group_says_how_sizing_went(
    bounds: dict[str, Any], expected: dict[str, tuple[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sized, or why not (no node shape holds its pods, only the largest groups are sized, a bound
    stopped it): never silent, in the JSON and under the group in the table."""
    import podwhy.analysis.suggest.groups as groups_module

    for name, value in bounds.items():
        monkeypatch.setattr(groups_module, name, value)
    gpu = make_node("gpu-node-1").alloc({"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": "4"}).obj()
    busy = make_pod("busy", "ml").node("gpu-node-1").req({"nvidia.com/gpu": "4"}).obj()
    pods = [busy]
    pods += [_owned(f"big-{i}", "big", **{"nvidia.com/gpu": "1"}) for i in range(6)]
    pods += [_owned(f"small-{i}", "small", **{"nvidia.com/gpu": "2"}) for i in range(2)]
    pods += [_owned(f"huge-{i}", "huge", cpu="64") for i in range(7)]
    objects = [{"apiVersion": "v1", "kind": "Node", **msgspec.to_builtins(gpu)}]
    objects += [{"apiVersion": "v1", "kind": "Pod", **msgspec.to_builtins(p)} for p in pods]
    dump = tmp_path / "cluster.json"
    dump.write_bytes(msgspec.json.encode({"apiVersion": "v1", "kind": "List", "items": objects}))
    env = {"COLUMNS": "250", "NO_COLOR": "1"}
    report = CliRunner().invoke(app, ["pending", "--complete", "--from", str(dump), "-A", "-o", "json"], env=env)
    groups = {g["owner"]: g for g in json.loads(report.stdout)["groups"] if g["verdict"] == "Unschedulable"}
    assert {
        owner: (g["sizing"]["outcome"], g["sizing"]["note"][: len(expected[owner][1])]) for owner, g in groups.items()
    } == expected
    for owner, (outcome, _) in expected.items():
        assert bool(groups[owner]["suggestions"]) == (outcome == "sized")
    table = CliRunner().invoke(app, ["pending", "--complete", "--from", str(dump), "-A"], env=env).stdout
    assert table.startswith("16 Pending pods in the one namespace, ml, 16 stuck")  # -A of one namespace names it
    summary = json.loads(report.stdout)["summary"]
    words = " ".join(table.split())
    for owner, (outcome, note) in expected.items():
        cause = next(c for c in summary if c["cause"] == groups[owner]["cause"])
        if cause["nodes"] is not None:
            # One sizing per cause (issue 34): the summary's, which the group's row refers to.
            assert f"⇒ nodes to hold them all: {' '.join(cause['nodes']['note'].split())}" in words, owner
            assert f"⇏ {note}" not in table, owner
        else:
            # Never silent: under the group.
            assert (f"⇏ {note}" in table) == (outcome != "sized"), owner


@pytest.mark.parametrize(
    ("labels", "with_replica_set", "expected"),
    [
        # The ReplicaSet is not in the snapshot: its name and the pod's label show the Deployment.
        ({"pod-template-hash": "7c9d8b6f5"}, False, "shop/checkout (Deployment)"),
        # Without the label (or a name that does not end in it) the ReplicaSet stays the owner.
        ({}, False, "shop/checkout-7c9d8b6f5 (ReplicaSet)"),
        ({"pod-template-hash": "abcde"}, False, "shop/checkout-7c9d8b6f5 (ReplicaSet)"),
        # A ReplicaSet the snapshot holds without a controller of its own is the owner.
        ({"pod-template-hash": "7c9d8b6f5"}, True, "shop/checkout-7c9d8b6f5 (ReplicaSet)"),
    ],
)
def test_owner_lifted_to_the_deployment_its_replica_set_is_named_after(
    labels: dict[str, str], with_replica_set: bool, expected: str
) -> None:
    pod = make_pod("checkout-7c9d8b6f5-m4x2q", "shop").owner("ReplicaSet", "checkout-7c9d8b6f5").labels(labels).obj()
    objects: list[Any] = [make_node("n1").obj(), pod]
    if with_replica_set:
        objects.append(msgspec.convert({"metadata": {"name": "checkout-7c9d8b6f5", "namespace": "shop"}}, o.ReplicaSet))
    assert str(owner_of(pod, make_snapshot(*objects))) == expected


def _cron_run(job: str, i: int) -> o.Pod:
    return (
        make_pod(f"{job}-p{i}", "ml")
        .owner("Job", job, api_version="batch/v1")
        .labels(app="nightly")
        .req({"cpu": "1", "nvidia.com/gpu": "1"})
        .obj()
    )


def _job(name: str, controller_kind: str | None = "CronJob") -> o.Job:
    refs = [{"apiVersion": "batch/v1", "kind": controller_kind, "name": "nightly", "controller": True}]
    return msgspec.convert({"metadata": {"name": name, "namespace": "ml", "ownerReferences": refs}}, o.Job)


@pytest.mark.parametrize(
    ("jobs", "groups"),
    [
        # Both runs' Jobs are in the snapshot, owned by the CronJob: one group under the CronJob.
        (["nightly-29541600", "nightly-29541630"], [(4, "ml/nightly (CronJob)")]),
        # One run's Job is not in the snapshot: its pods stay under their Job (no guess from its name).
        (["nightly-29541600"], [(2, "ml/nightly (CronJob)"), (2, "ml/nightly-29541630 (Job)")]),
        ([], [(2, "ml/nightly-29541600 (Job)"), (2, "ml/nightly-29541630 (Job)")]),
    ],
)
def test_pending_groups_name_the_cron_job_of_jobs_the_snapshot_holds(
    jobs: list[str], groups: list[tuple[int, str]]
) -> None:
    node = make_node("gpu-1").alloc({"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": "1"}).obj()
    busy = make_pod("busy", "ml").node("gpu-1").phase("Running").req({"nvidia.com/gpu": "1"}).obj()
    pods = [_cron_run(job, i) for job in ("nightly-29541600", "nightly-29541630") for i in range(2)]
    snapshot = make_snapshot(node, busy, *pods, *(_job(name) for name in jobs))
    report = build_pending_report(classify_pending(snapshot, default_config()), snapshot)
    assert sorted((g.count, g.owner) for g in report.groups) == groups
    assert all(g.verdict == Verdict.UNSCHEDULABLE for g in report.groups)


def test_a_job_of_another_controller_is_not_lifted() -> None:
    pod = _cron_run("nightly-29541600", 0)
    snapshot = make_snapshot(make_node("n1").obj(), pod, _job("nightly-29541600", "JobSet"))
    assert str(owner_of(pod, snapshot)) == "ml/nightly-29541600 (Job)"


# ------------------------------------------------------------------ the summary by cause, on one screen
class _Given:
    """A snapshot source for the engine: the snapshot as built."""

    def __init__(self, snapshot: Any) -> None:
        self.snapshot = snapshot

    def load(self) -> Any:
        return self.snapshot


def _one_cause(cpu: str = "64") -> Any:
    """187 Pending pods of 9 Deployments (8 of 21, 1 of 19) with one cause, on 3 nodes of 4 cpu."""
    nodes = [make_node(f"worker-{i}").alloc(cpu="4", memory="16Gi", pods="110").obj() for i in range(3)]
    pods = [
        make_pod(f"web-{d}-5f7c9-{i:03d}", "shop")
        .owner("ReplicaSet", f"web-{d}-5f7c9")
        .labels({"pod-template-hash": "5f7c9", "app": f"web-{d}"})
        .req(cpu=cpu, memory="1Gi")
        .obj()
        for d in range(9)
        for i in range(21 if d < 8 else 19)
    ]
    return make_snapshot(*nodes, *pods)


def _words(text: str) -> str:
    return " ".join(text.split())


def test_187_pods_of_one_cause_are_summarised_on_one_screen_at_80_columns() -> None:
    from rich.console import Console

    from podwhy.engine import PendingRequest, pending
    from podwhy.report.render.pending import render_pending

    report = pending(PendingRequest(_Given(_one_cause()), "shop"))
    (cause,) = report.summary
    assert (cause.count, cause.groups, len(cause.owners), cause.verdict) == (187, 9, 9, Verdict.UNSCHEDULABLE)
    assert cause.blocking == ["needs cpu 64; the most free on any node is 4 (worker-0); 3 nodes are too small"]
    assert cause.nodes is not None and cause.nodes.outcome == "noNodeShape"
    console = Console(width=80, record=True, force_terminal=False, no_color=True)
    with console.capture() as captured:
        render_pending(report, console=console)
    out = captured.get()
    lines = out.splitlines()
    assert len(lines) <= 24, out
    assert all(len(line) <= 80 for line in lines), out
    # Every sentence whole (wrapped between words, never cut), and each said once.
    text = _words(out)
    message = report.groups[0].cause
    for sentence in (message, cause.blocking[0], cause.nodes.note, "187 pods in 9 groups alike"):
        assert text.count(_words(sentence)) == 1, (sentence, out)
    assert "in namespace shop" in lines[0]
    assert all(f"{g.count} of {(g.owner or '').removesuffix(' (Deployment)')}" in text for g in report.groups)


def test_the_summary_estimates_one_count_for_all_pods_of_a_cause_placed_together() -> None:
    from podwhy.engine import PendingRequest, pending

    small = make_snapshot(
        *(make_node(f"worker-{i}").alloc(cpu="4", memory="16Gi", pods="110").obj() for i in range(2)),
        *(
            make_pod(f"web-{d}-5f7c9-{i}", "shop")
            .owner("ReplicaSet", f"web-{d}-5f7c9")
            .labels({"pod-template-hash": "5f7c9"})
            .req(cpu="1500m")
            .obj()
            for d in range(3)
            for i in range(3)
        ),
        make_pod("busy-0", "shop").node("worker-0").req(cpu="3").phase("Running").obj(),
        make_pod("busy-1", "shop").node("worker-1").req(cpu="3").phase("Running").obj(),
    )
    report = pending(PendingRequest(_Given(small), "shop"))
    (cause,) = report.summary
    # 9 pods of 1.5 cpu: two to a new 4-cpu node, 5 nodes together (each group alone: 2, so 6 added up).
    assert (cause.count, cause.groups) == (9, 3)
    assert cause.nodes is not None and (cause.nodes.outcome, cause.nodes.count) == ("sized", 5)
    assert all("2 more nodes" in s.summary for g in report.groups for s in g.suggestions)


def test_markdown_says_the_same_summary() -> None:
    from podwhy.engine import PendingRequest, pending
    from podwhy.report.render.markdown import render_pending

    report = pending(PendingRequest(_Given(_one_cause()), "shop"))
    out = render_pending(report)
    assert "**187 Pending pods in namespace shop, 187 stuck, in 9 groups**" in out
    assert "| Cause | Pods | Owners | Nodes to hold them all |" in out
    assert (
        "| 1. needs cpu 64; the most free on any node is 4 (worker-0); 3 nodes are too small | 187 Unschedulable |"
        in out
    )
    assert out.count(report.groups[0].cause) == 1
    assert out.count("187 pods in 9 groups alike") == 1


def test_one_namespace_without_pending_pods_says_other_namespaces_hold_some() -> None:
    """Offline, pending covers `default` unless told: no all-clear for a dump whose Pending pods
    are elsewhere. The first line leads with the stuck ones, the -A command follows whole, and the
    exit code is what -A exits (they agree)."""
    example = REPO / "fixtures" / "examples" / "shop-cluster.yaml"
    result = CliRunner().invoke(app, ["pending", "--from", str(example)], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert result.stdout.splitlines() == [
        "1 stuck Pending pod in other namespaces, none in default; -A shows them:",
        f"podwhy pending -A --from {example}",
    ]
    every = CliRunner().invoke(app, ["pending", "--from", str(example), "-A"], env={"COLUMNS": "200"})
    assert result.exit_code == every.exit_code == 1
    report = json.loads(CliRunner().invoke(app, ["pending", "--from", str(example), "-o", "json"]).stdout)
    assert report["scope"]["elsewhere"] == report["scope"]["elsewhereStuck"] == 1
    assert report["scope"]["allNamespaces"] == f"podwhy pending -A --from {example}"
    # With the pods of the namespace asked for, the others are only counted.
    shop = json.loads(CliRunner().invoke(app, ["pending", "--from", str(example), "-n", "shop", "-o", "json"]).stdout)
    assert shop["scope"]["allNamespaces"] is None


@pytest.mark.parametrize("columns", ["80", "120"])
def test_a_namespace_without_pending_pods_leads_with_the_others_stuck(columns: str, snapshot: Any) -> None:
    """fixtures/pending/causes has 22 Pending pods, none in default: without -A the first line
    says 22 stuck, the exact -A command follows on a line of its own, never wrapped, and the
    exit code is -A's."""
    causes = REPO / "fixtures" / "pending" / "causes"
    env = {"COLUMNS": columns, "NO_COLOR": "1"}
    result = CliRunner().invoke(app, ["pending", "--from", str(causes), "--complete"], env=env)
    every = CliRunner().invoke(app, ["pending", "--from", str(causes), "--complete", "-A"], env=env)
    lines = result.stdout.replace(str(causes), "fixtures/pending/causes").splitlines()
    assert lines[0].startswith("22 stuck Pending pods")
    assert lines[-1] == "podwhy pending -A --from fixtures/pending/causes --complete"
    assert result.exit_code == every.exit_code == 1
    assert (result.exit_code, lines) == snapshot


GKE = "03-gke-clogged-default-sched"


@needs_shared("realworld", "cases", GKE)
@pytest.mark.parametrize("columns", ["80", "120"])
def test_one_sizing_per_cause_and_no_number_left_at_a_line_end(columns: str, snapshot: Any) -> None:
    """Issue 34, item 7, on the real GKE dump (187 Pending pods of 48 Indexed Jobs, one cause): the
    summary sizes the cause once, with its number; the groups refer to it rather than repeat a
    sizing and a command of their own; no sentence is cut short; no line ends with a number
    ("6 of" then a break)."""
    folder = SHARED / "realworld" / "cases" / GKE
    result = CliRunner().invoke(
        app, ["pending", "-A", "--from", str(folder)], env={"COLUMNS": columns, "NO_COLOR": "1"}
    )
    assert result.exit_code == 1
    out = result.stdout
    doc = json.loads(CliRunner().invoke(app, ["pending", "-A", "--from", str(folder), "-o", "json"]).stdout)
    (cause,) = doc["summary"]
    assert cause["nodes"]["outcome"] == "stopped" and cause["remedy"].startswith("add more than 100 nodes like ")
    like = cause["remedy"].removeprefix("add more than 100 nodes like ")
    text = " ".join(out.split())
    # One sizing: its node shape and number, and no other count or command of nodes to add.
    assert text.count("more than 100") == 2, out  # the next step, and the sizing it comes from
    assert "scale the node group" not in out and " up by " not in out, out
    assert {n for n in re.findall(r"like (\S+)", text)} == {like}, out
    assert "not sized" not in out
    lines = out.splitlines()
    assert [line for line in lines if re.search(r"(^|\s)\d+( of)?$", line)] == [], out
    assert all(len(line) <= int(columns) for line in lines), out
    assert (result.exit_code, out) == snapshot


def test_a_cut_sentence_is_whole_again() -> None:
    """The note of a group not sized for being past the largest ones ends with what it says."""
    from podwhy.analysis.suggest.notes import NotLargest
    from podwhy.report.words.sizing import sizing_text

    assert sizing_text(NotLargest(5)).endswith("the 5 largest Unschedulable groups an added node could hold are sized")


def test_a_stale_nomination_is_released_unless_preemption_places_the_pod() -> None:
    """The next step of a stale nomination: release it (the command whole), when nothing it may
    preempt would make room; when the scheduler's preemption places the pod on its next attempt,
    the cause says so and nothing is to be done."""
    from podwhy.engine import PendingRequest, pending

    def stale(priority: int) -> Any:
        node = make_node("n1").alloc(cpu="4", memory="8Gi", pods="110").obj()
        busy = make_pod("busy", "shop").node("n1").priority(0).req(cpu="3").phase("Running").obj()
        pod = make_pod("p", "shop").priority(priority).req(cpu="2").nominated("n1").obj()
        return pending(PendingRequest(_Given(make_snapshot(node, busy, pod)), "shop"))

    (cause,) = stale(0).summary
    assert cause.cause == "nominated to node n1, where it no longer fits (stale nomination)"
    assert cause.remedy.startswith("the nomination is stale: it no longer fits on n1; release it")
    assert cause.commands == [
        'kubectl patch pod -n shop p --subresource=status --type merge -p \'{"status":{"nominatedNodeName":null}}\''
    ]
    (cause,) = stale(100).summary
    assert cause.cause == (
        "nominated to node n1, where it no longer fits (stale nomination); on its next attempt the scheduler will"
        " preempt 1 pod on n1 (shop/busy)"
    )
    assert (
        cause.remedy
        == "the nomination is stale: it no longer fits on n1; no action needed: the scheduler preempts 1 pod on n1"
    )
    assert cause.commands == []


def test_a_groups_command_is_pasted_whole_below_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 34, item 1: a command is printed whole on a line of its own. A group's own sizing
    (its cause not sized in the summary) says its command below the table, never folded in a
    column."""
    from rich.console import Console

    import podwhy.analysis.suggest.causesizing as causesizing_module
    from podwhy.engine import PendingRequest, pending
    from podwhy.report.render.pending import render_pending

    monkeypatch.setattr(causesizing_module, "MAX_CAUSES_SIZED", 0)
    gpu = make_node("gpu-node-1").alloc({"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": "4"}).obj()
    busy = make_pod("busy", "ml").node("gpu-node-1").req({"nvidia.com/gpu": "4"}).obj()
    report = pending(PendingRequest(_Given(make_snapshot(gpu, busy, *(_trainer(i) for i in range(12)))), "ml"))
    commands = [s.command for g in report.groups for s in g.suggestions]
    assert commands and report.summary[0].nodes is None
    console = Console(width=120, record=True, force_terminal=False, no_color=True)
    with console.capture() as captured:
        render_pending(report, console=console)
    lines = captured.get().splitlines()
    below = lines.index("Commands (each whole, to paste):")
    assert below > max(i for i, line in enumerate(lines) if line.startswith("└"))
    for command in commands:
        assert f"  {command}" in lines[below:], command
