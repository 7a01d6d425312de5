"""podwhy pending over kubectl-shaped dumps of every Pending cause, and the scheduler-pod rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml
from typer.testing import CliRunner

from podwhy.analysis.pending import PendingPod, classify_pending
from podwhy.cli import app
from podwhy.model import objects as o
from podwhy.report.words.pending import cause_text, detail_text
from podwhy.scheduler.config import default_config, parse_scheduler_config
from podwhy.scheduler.schedulers import SchedulerPods, Serving, _mentioning_scheduler, scheduler_pod
from podwhy.snapshot import fastyaml
from podwhy.snapshot.decode import decode
from podwhy.snapshot.redact import REDACTED, redact_command
from podwhy.verdict import Verdict
from tests.builders import PodBuilder, make_node, make_pod, make_snapshot
from tests.paths import REPO

FIXTURES = REPO / "fixtures" / "pending"
CAUSES = FIXTURES / "causes"
SCHEDULER_DOWN = FIXTURES / "scheduler-down"
ENV = {"COLUMNS": "140", "NO_COLOR": "1"}

KUBE_SCHEDULER_DOWN = (
    "no running scheduler serves 'default-scheduler': kube-system/kube-scheduler-cp1 is CrashLoopBackOff"
    " (17 restarts; last exit code 1: Error)"
)
SEARCH_MESSAGE = (
    "0/4 nodes are available: 2 Insufficient cpu, 2 node(s) had untolerated taint(s). no new claims to deallocate,"
    " preemption: 0/4 nodes are available: 2 No preemption victims found for incoming pod, 2 Preemption is not"
    " helpful for scheduling."
)


def _pending(*sources: Path, args: tuple[str, ...] = ()) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(
        app,
        ["pending", *(a for s in sources for a in ("--from", str(s))), "--complete", "-A", "-o", "json", *args],
        env=ENV,
    )
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads(result.stdout)


def _by_pod(report: dict[str, Any]) -> dict[str, tuple[str, str, list[str]]]:
    return {pod: (g["verdict"], g["cause"], g["details"]) for g in report["groups"] for pod in g["pods"]}


# Every Pending pod of fixtures/pending/causes: (pod, verdict, cause, a detail the group must hold).
CAUSE_CASES = [
    (
        "shop/web-7c9d8b6f5-k8v2n",
        "BoundNotRunning",
        "bound, not running: cannot pull image ghcr.io/acme/shop-web:2.5.0 (ErrImagePull, ImagePullBackOff)",
        'container web: ErrImagePull: rpc error: code = NotFound desc = failed to pull and unpack image "ghcr.io/acme/'
        'shop-web:2.5.0": failed to resolve reference "ghcr.io/acme/shop-web:2.5.0": ghcr.io/acme/shop-web:2.5.0: not'
        " found",
    ),
    (
        "shop/web-7c9d8b6f5-q9w5c",
        "BoundNotRunning",
        "bound, not running: cannot pull image ghcr.io/acme/shop-web:2.5.0 (ErrImagePull, ImagePullBackOff)",
        'container web: ImagePullBackOff: Back-off pulling image "ghcr.io/acme/shop-web:2.5.0": ErrImagePull: rpc',
    ),
    (
        "shop/api-6b7f9c4d8-x2kpl",
        "BoundNotRunning",
        "bound, not running: CreateContainerConfigError: couldn't find key LOG_LEVEL in ConfigMap shop/api-config",
        None,
    ),
    (
        "shop/payments-7f9b8c6d5-t6r2m",
        "BoundNotRunning",
        'bound, not running: CreateContainerConfigError: secret "payments-api-key" not found',
        None,
    ),
    (
        "shop/cache-5d8f6c9b7-p4nqz",
        "BoundNotRunning",
        "bound, not running: FailedMount",
        'event FailedMount: MountVolume.SetUp failed for volume "config" : configmap "cache-config" not found',
    ),
    (
        "shop/db-0",
        "BoundNotRunning",
        "bound, not running: FailedAttachVolume, FailedMount",
        'event FailedAttachVolume: Multi-Attach error for volume "pvc-3f6c2d1e-8a4b-4c7d-9e2f-5b1a0c9d8e7f" Volume is'
        " already exclusively attached to one node and can't be attached to another",
    ),
    (
        "shop/db-migrate-4kx9t",
        "BoundNotRunning",
        "bound, not running: init container wait-for-db still running (Init:0/1)",
        None,
    ),
    (
        "shop/search-indexer-5c7d9f8b6-m3jv8",
        "BoundNotRunning",
        "bound, not running: init container migrate-schema: CrashLoopBackOff (Init:0/1)",
        "init container migrate-schema: CrashLoopBackOff (10 restarts; last exit code 1: Error): back-off 5m0s",
    ),
    (
        "monitoring/node-exporter-z4p8x",
        "BoundNotRunning",
        "bound to node worker-3, which is NotReady",
        "node worker-3 Ready=Unknown (NodeStatusUnknown: Kubelet stopped posting node status.)",
    ),
    ("batch/cleanup-29541630-q8z7n", "BoundNotRunning", "bound to node worker-5, which no longer exists", None),
    (
        "ml/train-resnet-4mz8d",
        "Gated",
        "scheduling gates [example.com/gpu-quota]",
        "gated since 2026-03-04T10:22:15Z",
    ),
    (
        "batch/critical-etl-7hx2k",
        "Nominated",
        "nominated to node worker-2, waiting for 2 victim(s) to terminate; it fits there once they are gone",
        "victim batch/nightly-report-29541600-x7k4p (preempted by the scheduler), priority 0: terminating,"
        " grace period 120s, gone by 2026-03-04T10:31:12Z",
    ),
    (
        "batch/critical-etl-p9m4d",
        "Nominated",
        "nominated to node worker-5, which no longer exists (stale nomination); on its next attempt the scheduler"
        " will preempt 1 pod on worker-1 (shop/cache-5d8f6c9b7-p4nqz)",
        None,
    ),
    (
        "ml/feature-backfill-zx8q2",
        "Nominated",
        "nominated to node worker-1, where it no longer fits (stale nomination); on its next attempt the scheduler"
        " will preempt 4 pods on worker-1 (shop/checkout-6f8b9d7c5-r5t2w, shop/web-7c9d8b6f5-k8v2n,"
        " shop/api-6b7f9c4d8-x2kpl, shop/cache-5d8f6c9b7-p4nqz)",
        None,
    ),
    ("shop/search-7d8f9c6b5-hw7kq", "Unschedulable", SEARCH_MESSAGE, None),
    (
        "ml/train-bert-9vq4c",
        "Unschedulable",
        "0/4 nodes are available: 2 Insufficient cpu, 2 Insufficient nvidia.com/gpu, 2 node(s) had untolerated"
        " taint(s). no new claims to deallocate, preemption: 0/4 nodes are available: 4 Preemption is not helpful for"
        " scheduling.",
        None,
    ),
    (
        "shop/mailer-8b7c6d5f4-j6n2v",
        "NoProfile",
        "no scheduler profile named 'my-scheduler'; it appears to be served by kube-system/my-scheduler-6d9f7c8b5-q7wzt"
        " (Running; --config=/etc/kubernetes/my-scheduler/my-scheduler-config.yaml, which podwhy cannot read): pass"
        " that scheduler's configuration with --scheduler-config",
        None,
    ),
    (
        "batch/report-gen",
        "NoProfile",
        "no scheduler profile named 'bin-packing-scheduler'; no pod in the snapshot appears to serve it"
        " (a misspelt name, or a scheduler not installed?)",
        None,
    ),
    (
        "ml/vc-train-worker-0",
        "NoScheduler",
        "no running scheduler serves 'volcano': volcano-system/volcano-scheduler-6c8f7b9d4-k2mzx is CrashLoopBackOff"
        " (211 restarts; last exit code 255: Error)",
        "why it stops: kubectl logs -n volcano-system volcano-scheduler-6c8f7b9d4-k2mzx --previous",
    ),
]


@pytest.fixture(scope="module")
def causes_report() -> tuple[int, dict[str, Any]]:
    return _pending(CAUSES)


@pytest.mark.parametrize(("pod", "verdict", "cause", "detail"), CAUSE_CASES, ids=[c[0] for c in CAUSE_CASES])
def test_every_cause_from_kubectl_dumps(
    causes_report: tuple[int, dict[str, Any]], pod: str, verdict: str, cause: str, detail: str | None
) -> None:
    got = _by_pod(causes_report[1])[pod]
    assert got[:2] == (verdict, cause)
    if detail is not None:
        assert any(d.startswith(detail) for d in got[2]), got[2]


def test_only_pending_pods_are_listed(causes_report: tuple[int, dict[str, Any]]) -> None:
    """Running pods, the crash-looping schedulers (phase Running) and terminating victims are not Pending."""
    code, report = causes_report
    listed = set(_by_pod(report))
    expected = {case[0] for case in CAUSE_CASES}
    expected |= {"shop/search-7d8f9c6b5-s4tzn", "ml/train-resnet-w2c7k", "ml/vc-train-worker-1"}
    assert (code, listed, report["total"], report["stuck"]) == (1, expected, len(expected), len(expected))


def test_owners_are_named_as_the_dump_shows_them(causes_report: tuple[int, dict[str, Any]]) -> None:
    """A Job the dump holds with a CronJob controller is lifted to the CronJob; a Job without one,
    or one the dump lacks, is the owner itself; a ReplicaSet is lifted to its Deployment."""
    owners = {pod: g["owner"] for g in causes_report[1]["groups"] for pod in g["pods"]}
    assert owners["batch/cleanup-29541630-q8z7n"] == "batch/cleanup (CronJob)"
    assert owners["shop/db-migrate-4kx9t"] == "shop/db-migrate (Job)"
    assert owners["ml/train-bert-9vq4c"] == "ml/train-bert (Job)"
    assert owners["shop/search-7d8f9c6b5-hw7kq"] == "shop/search (Deployment)"
    assert owners["shop/db-0"] == "shop/db (StatefulSet)"


# fixtures/pending/scheduler-down: kube-scheduler-cp1 crash-loops (its --config file is missing).
DOWN_CASES = [
    ("shop/web-5b8c9d7f6-d4fzq", "NoScheduler", KUBE_SCHEDULER_DOWN, "once one runs: Schedulable (it fits now)"),
    (
        "shop/quota-check",
        "NoScheduler",
        KUBE_SCHEDULER_DOWN,
        "once one runs: Gated: scheduling gates",
    ),
    (
        "shop/search-7d8f9c6b5-hw7kq",
        "NoScheduler",
        KUBE_SCHEDULER_DOWN,
        "once one runs: Unschedulable: 0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient",
    ),
    (
        "shop/api-6b7f9c4d8-x2kpl",
        "BoundNotRunning",
        "bound, not running: cannot pull image registry.internal.acme.io/shop/api:1.9.0"
        " (ErrImagePull, ImagePullBackOff)",
        "container api: ImagePullBackOff: Back-off pulling image",
    ),
    (
        "shop/mailer-8b7c6d5f4-j6n2v",
        "NoProfile",
        "no scheduler profile named 'my-scheduler'; it appears to be served by kube-system/my-scheduler-6d9f7c8b5-b8d4l"
        " (Running; --config=/etc/kubernetes/my-scheduler/my-scheduler-config.yaml, which podwhy cannot read): pass"
        " that scheduler's configuration with --scheduler-config",
        None,
    ),
]


@pytest.mark.parametrize(("pod", "verdict", "cause", "detail"), DOWN_CASES, ids=[c[0] for c in DOWN_CASES])
def test_scheduler_down(pod: str, verdict: str, cause: str, detail: str | None) -> None:
    _, report = _pending(SCHEDULER_DOWN)
    got = _by_pod(report)[pod]
    assert got[:2] == (verdict, cause)
    if detail is not None:
        assert any(d.startswith(detail) for d in got[2]), got[2]
    if verdict == "NoScheduler":
        assert "why it stops: kubectl logs -n kube-system kube-scheduler-cp1 --previous" in got[2]


def test_explain_says_no_scheduler_runs_and_names_the_second_scheduler() -> None:
    runner = CliRunner()
    web = runner.invoke(
        app, ["explain", "shop/web-5b8c9d7f6-d4fzq", "--from", str(SCHEDULER_DOWN), "--complete", "-o", "json"]
    )
    report = json.loads(web.stdout)
    assert (web.exit_code, report["verdict"]) == (0, "Schedulable")
    assert report["warnings"][0].startswith(KUBE_SCHEDULER_DOWN + ": nothing schedules the pod until one runs")
    mailer = runner.invoke(
        app, ["explain", "shop/mailer-8b7c6d5f4-j6n2v", "--from", str(SCHEDULER_DOWN), "--complete"], env=ENV
    )
    assert mailer.exit_code == 1
    assert "it appears to be served by kube-system/my-scheduler-6d9f7c8b5-b8d4l" in " ".join(mailer.stdout.split())


def test_events_k8s_io_read_like_core_events() -> None:
    """`kubectl get events.events.k8s.io` (regarding, note, deprecatedCount, ...) gives the same report."""
    objects = sorted(p for p in CAUSES.iterdir() if p.name != "events.yaml")
    core = _pending(*objects, CAUSES / "events.yaml")[1]
    newer = _pending(*objects, FIXTURES / "events-k8s-io" / "events.yaml")[1]
    assert core["groups"] == newer["groups"]
    explain = []
    for events in (CAUSES / "events.yaml", FIXTURES / "events-k8s-io" / "events.yaml"):
        sources = [a for p in (*objects, events) for a in ("--from", str(p))]
        result = CliRunner().invoke(
            app, ["explain", "shop/search-7d8f9c6b5-hw7kq", *sources, "--complete", "-o", "json"]
        )
        explain.append(json.loads(result.stdout)["scheduler"])
    assert explain[0] == explain[1]
    assert explain[0]["event"]["count"] == 9 and explain[0]["agrees"] is True


@pytest.mark.parametrize("source", [CAUSES, SCHEDULER_DOWN], ids=["causes", "scheduler-down"])
def test_grouped_output_of_recorded_causes(source: Path, snapshot: Any, pending_schema_validator: Any) -> None:
    """The grouped table and JSON of `podwhy pending -A` over the kubectl-shaped dumps (the JSON
    holds to the committed PendingReport schema)."""
    table = CliRunner().invoke(app, ["pending", "--from", str(source), "--complete", "-A"], env=ENV)
    code, doc = _pending(source)
    pending_schema_validator.validate(doc)
    doc["snapshot"]["sources"] = [Path(s).name for s in doc["snapshot"]["sources"]]
    assert (table.exit_code, code) == (1, 1)
    assert (table.stdout, doc) == snapshot


@pytest.mark.parametrize("columns", ["80", "120"])
def test_each_cause_says_its_next_step_first(columns: str, snapshot: Any) -> None:
    """Issue 34, item 1: in the summary, each cause's next step right under its heading ("→ ..."),
    derived from its facts; a command to copy on a line of its own, whole at any width; the
    autoscaling caveat once, at the end."""
    result = CliRunner().invoke(
        app, ["pending", "--from", str(CAUSES), "--complete", "-A"], env={"COLUMNS": columns, "NO_COLOR": "1"}
    )
    lines = result.stdout.splitlines()
    code, doc = _pending(CAUSES)
    assert result.exit_code == code == 1
    steps = [c["remedy"] for c in doc["summary"]]
    assert all(steps), steps
    assert "add 2 nodes like worker-1" in steps
    assert any(s.startswith("fix the image tag of shop/web") for s in steps)
    assert any(s.startswith("delete pod batch/cleanup-29541630-q8z7n (its node worker-5 is gone)") for s in steps)
    assert any(s.startswith("the nomination is stale") for s in steps)
    assert any(s.startswith("who removes gate example.com/gpu-quota") for s in steps)
    # Right under each numbered heading.
    headings = [i for i, line in enumerate(lines) if line.lstrip()[:1].isdigit() and ". " in line[:4]]
    assert len(headings) == len(doc["summary"])
    assert all(lines[i + 1].lstrip().startswith("→ ") for i in headings)
    # Commands whole, on their own line.
    for command in (c for cause in doc["summary"] for c in cause["commands"]):
        assert any(line.strip() == command for line in lines), command
    assert "kubectl delete pod -n batch cleanup-29541630-q8z7n" in lines[headings[0] :].__str__()
    # The caveat of every "add nodes": once, after the groups.
    caveat = [i for i, line in enumerate(lines) if line.startswith("Autoscaling:")]
    assert len(caveat) == 1 and caveat[0] > headings[-1]
    assert (result.exit_code, result.stdout) == snapshot


# ------------------------------------------------------------------ which pods serve which schedulerName


def _static_scheduler(name: str, *flags: str, ready: bool = True, phase: str = "Running") -> PodBuilder:
    builder = (
        make_pod(name, "kube-system")
        .labels(component="kube-scheduler", tier="control-plane")
        .owner("Node", name.removeprefix("kube-scheduler-"), api_version="v1")
        .node(name.removeprefix("kube-scheduler-"))
        .container("kube-scheduler", "registry.k8s.io/kube-scheduler:v1.35.4", command=["kube-scheduler", *flags])
        .phase(phase)
    )
    crash = {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container"}}
    return builder.status(
        conditions=[{"type": "Ready", "status": "True" if ready else "False"}],
        containerStatuses=[
            {
                "name": "kube-scheduler",
                "ready": ready,
                "restartCount": 0 if ready else 4,
                "state": {"running": {}} if ready else crash,
                "lastState": {} if ready else {"terminated": {"exitCode": 1, "reason": "Error"}},
            }
        ],
    )


def _deployment_scheduler(
    name: str, container: dict[str, Any], namespace: str = "kube-system", ready: bool = True
) -> PodBuilder:
    return (
        make_pod(f"{name}-6d9f7c8b5-q7wzt", namespace)
        .owner("ReplicaSet", f"{name}-6d9f7c8b5")
        .labels(app=name)
        .node("cp1")
        .container(**container)
        .phase("Running")
        .status(conditions=[{"type": "Ready", "status": "True" if ready else "False"}])
    )


COREDNS = make_pod("coredns-668d6bf9bc-4kq7m", "kube-system").node("cp1").phase("Running")
KUBE_SCHEDULER_CMD = {"name": "s", "image": "registry.k8s.io/kube-scheduler:v1.35.4", "command": ["kube-scheduler"]}


@pytest.mark.parametrize(
    ("scheduler_pods", "scheduler_name", "verdict", "cause"),
    [
        # kubeadm, one control-plane node, crash-looping: nothing schedules default-scheduler pods.
        (
            [_static_scheduler("kube-scheduler-cp1", ready=False)],
            "default-scheduler",
            Verdict.NO_SCHEDULER,
            "no running scheduler serves 'default-scheduler': kube-system/kube-scheduler-cp1 is CrashLoopBackOff"
            " (4 restarts; last exit code 1: Error)",
        ),
        # High availability: one of three down is no outage.
        (
            [_static_scheduler("kube-scheduler-cp1", ready=False), _static_scheduler("kube-scheduler-cp2")],
            "default-scheduler",
            Verdict.SCHEDULABLE,
            "fits now",
        ),
        # Managed control plane (EKS, GKE, AKS): kube-system pods but no scheduler pod: say nothing.
        ([COREDNS], "default-scheduler", Verdict.SCHEDULABLE, "fits now"),
        # Not even kube-system in the snapshot (kubectl get pods -n shop): say nothing.
        ([], "default-scheduler", Verdict.SCHEDULABLE, "fits now"),
        # Running but not Ready (mirror pod of a node gone silent) is not running.
        (
            [_static_scheduler("kube-scheduler-cp1", ready=False).status(containerStatuses=[])],
            "default-scheduler",
            Verdict.NO_SCHEDULER,
            "no running scheduler serves 'default-scheduler': kube-system/kube-scheduler-cp1 is Running, not Ready",
        ),
        # A control-plane scheduler renamed by --scheduler-name serves that name only.
        (
            [_static_scheduler("kube-scheduler-cp1", "--scheduler-name=other", ready=False)],
            "default-scheduler",
            Verdict.SCHEDULABLE,
            "fits now",
        ),
        # Evicted scheduler pods (phase Failed) are not instances any more.
        (
            [_static_scheduler("kube-scheduler-cp1", ready=False, phase="Failed")],
            "default-scheduler",
            Verdict.SCHEDULABLE,
            "fits now",
        ),
        # A second scheduler whose own pod cannot be scheduled.
        (
            [COREDNS, make_pod("my-scheduler-6d9f7c8b5-q7wzt", "kube-system").owner("ReplicaSet", "my-scheduler")],
            "my-scheduler",
            Verdict.NO_SCHEDULER,
            "no running scheduler serves 'my-scheduler': kube-system/my-scheduler-6d9f7c8b5-q7wzt is Pending",
        ),
        # Named by its flags (any binary).
        (
            [
                _deployment_scheduler(
                    "batch-scheduler",
                    {"name": "s", "image": "example.com/binpack:1", "args": ["--scheduler-name=batch"]},
                    "batch",
                )
            ],
            "batch",
            Verdict.NO_PROFILE,
            "no scheduler profile named 'batch'; it appears to be served by"
            " batch/batch-scheduler-6d9f7c8b5-q7wzt (Running; --scheduler-name=batch): pass that scheduler's"
            " configuration with --scheduler-config",
        ),
        # A kube-scheduler with --config named after the schedulerName.
        (
            [_deployment_scheduler("my-scheduler", KUBE_SCHEDULER_CMD | {"args": ["--config=/etc/s/config.yaml"]})],
            "my-scheduler",
            Verdict.NO_PROFILE,
            "no scheduler profile named 'my-scheduler'; it appears to be served by"
            " kube-system/my-scheduler-6d9f7c8b5-q7wzt (Running; --config=/etc/s/config.yaml, which podwhy cannot"
            " read): pass that scheduler's configuration with --scheduler-config",
        ),
        # Cluster-wide snapshot, nothing named after it.
        (
            [COREDNS, _static_scheduler("kube-scheduler-cp1")],
            "my-scheduler",
            Verdict.NO_PROFILE,
            "no scheduler profile named 'my-scheduler'; no pod in the snapshot appears to serve it"
            " (a misspelt name, or a scheduler not installed?)",
        ),
        # A second scheduler down, in a dump of a few namespaces: others may run out of sight.
        (
            [_deployment_scheduler("my-scheduler", KUBE_SCHEDULER_CMD | {"args": ["--config=/c"]}, "sched", False)],
            "my-scheduler",
            Verdict.NO_PROFILE,
            "no scheduler profile named 'my-scheduler'; it appears to be served by"
            " sched/my-scheduler-6d9f7c8b5-q7wzt (Running, not Ready), not running; the snapshot holds no kube-system"
            " pods, so one running elsewhere may be missing from it",
        ),
        (
            [],
            "my-scheduler",
            Verdict.NO_PROFILE,
            "no scheduler profile named 'my-scheduler'; the snapshot holds no kube-system pods: podwhy cannot tell"
            " whether a scheduler serving it runs",
        ),
    ],
    ids=[
        "crashloop",
        "ha-one-down",
        "managed",
        "no-kube-system",
        "not-ready",
        "renamed",
        "evicted",
        "second-scheduler-pending",
        "flag",
        "named-config",
        "none-serves",
        "partial-dump",
        "cannot-tell",
    ],
)
def test_scheduler_pods(scheduler_pods: list[PodBuilder], scheduler_name: str, verdict: Verdict, cause: str) -> None:
    node = make_node("n1").alloc(cpu="4", memory="8Gi", pods="110").obj()
    pod = make_pod("web", "shop").scheduler(scheduler_name).req(cpu="1").obj()
    snapshot = make_snapshot(node, pod, *(b.obj() for b in scheduler_pods))
    item = next(p for p in classify_pending(snapshot, default_config()) if p.key == "shop/web")
    assert (item.verdict, cause_text(item.cause)[: len(cause)]) == (verdict, cause)


def test_a_profile_for_a_second_scheduler_that_does_not_run() -> None:
    """With --scheduler-config naming my-scheduler, its crash-looping pod still leaves the pod with nobody."""
    config = parse_scheduler_config(
        yaml.safe_load(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
            "profiles:\n- schedulerName: default-scheduler\n- schedulerName: my-scheduler\n"
        ),
        "config.yaml",
    )
    down = _deployment_scheduler("my-scheduler", KUBE_SCHEDULER_CMD | {"args": ["--config=/c.yaml"]}, ready=False)
    snapshot = make_snapshot(
        make_node("n1").alloc(cpu="4", memory="8Gi").obj(),
        make_pod("web", "shop").scheduler("my-scheduler").req(cpu="8").obj(),
        down.obj(),
    )
    [item] = [p for p in classify_pending(snapshot, config) if p.key == "shop/web"]
    assert item.verdict == Verdict.NO_SCHEDULER
    assert detail_text(item.details[-1]).startswith(
        "once one runs: Unschedulable: 0/1 nodes are available: 1 Insufficient cpu."
    )


@pytest.mark.parametrize(
    ("container", "names", "config"),
    [
        ({"command": ["kube-scheduler", "--leader-elect=true"]}, {"default-scheduler"}, ""),
        ({"command": ["/usr/local/bin/kube-scheduler", "--scheduler-name", "a,b"]}, {"a", "b"}, ""),
        ({"command": ["/bin/sh", "-c", "exec kube-scheduler --config=/etc/c.yaml"]}, None, "/etc/c.yaml"),
        (
            {"image": "registry.k8s.io/scheduler-plugins/kube-scheduler:v0.34.7", "args": ["--config", "/c.yaml"]},
            None,
            "/c.yaml",
        ),
        ({"image": "docker.io/volcanosh/vc-scheduler:v1.12.2", "args": ["-scheduler-name=volcano"]}, {"volcano"}, ""),
    ],
)
def test_scheduler_names_from_command_lines(container: dict[str, Any], names: set[str] | None, config: str) -> None:
    pod = make_pod("s").container("s", **{"image": "example.com/x:1", **container}).obj()
    found = scheduler_pod(pod)
    assert found is not None
    assert (found.names, found.config) == (frozenset(names) if names is not None else None, config)


def test_pods_that_are_no_scheduler() -> None:
    plain = make_pod("web-5b8c9d7f6-2xkqp").container("web", "nginx:1.27", command=["nginx", "-g", "daemon off;"])
    leader = make_pod("kube-scheduler-exporter").container("x", "example.com/exporter:1")
    assert scheduler_pod(plain.obj()) is None
    found = scheduler_pod(leader.obj())  # named like one: serves only names it is named after
    assert found is not None and found.serves("default-scheduler") is Serving.NO
    assert SchedulerPods.of([leader.obj()]).for_name("my-scheduler").serving == ()


@pytest.mark.parametrize(
    "mentioning",
    [
        make_pod("my-sched-0"),
        make_pod("x-0").owner("ReplicaSet", "batch-scheduler-6c8f"),
        make_pod("x-0").owner("ReplicaSet", "web-6c8f").labels(app="web", role="scheduling"),
        # A command line is kept only where a word names a scheduler (model/objects/core/pod.py).
        make_pod("x-0").container("c", "example.com/x:1", command=["/usr/local/bin/kube-scheduler"]),
        make_pod("x-0").container("c", "example.com/x:1", args=["--scheduler-name=batch"]),
        make_pod("x-0").container("c", "example.com/x:1").container("d", "example.com/vc-scheduler:1"),
    ],
    ids=["name", "owner", "label", "command", "args", "image"],
)
def test_the_first_look_finds_each_pod_that_names_a_scheduler(mentioning: PodBuilder) -> None:
    def plain(name: str) -> o.Pod:
        return make_pod(name).owner("ReplicaSet", "web-6c8f").labels(app="web").container("c", "nginx:1.27").obj()

    pods = [plain("web-1"), mentioning.obj(), plain("web-2")]
    assert _mentioning_scheduler(pods) == [pods[1]]
    assert _mentioning_scheduler([pods[0], pods[2]]) == []


def test_redacted_dumps_keep_what_names_a_scheduler() -> None:
    command = ["/usr/local/bin/kube-scheduler", "--config=/etc/c.yaml", "--kube-api-qps=50"]
    args = ["--scheduler-name", "batch", "--token=hunter2", "--config", "Bearer x"]
    shell = ["sh", "-c", "exec kube-scheduler --config=/etc/c.yaml --scheduler-name=a,b --token=t"]
    assert redact_command(command) == ["/usr/local/bin/kube-scheduler", f"--config={REDACTED}", REDACTED]
    assert redact_command(args) == ["--scheduler-name", "batch", REDACTED, "--config", REDACTED]
    assert redact_command(shell) == [
        REDACTED,
        REDACTED,
        f"{REDACTED} kube-scheduler --config={REDACTED} --scheduler-name=a,b {REDACTED}",
    ]
    for line in (command, args, shell):  # what podwhy pending reads of them is unchanged
        pod = make_pod("s").container("c", "x/kube-scheduler:v1.35").obj()
        pod.spec.containers[0].command, pod.spec.containers[0].args = line, []
        redacted = make_pod("s").container("c", "x/kube-scheduler:v1.35").obj()
        redacted.spec.containers[0].command, redacted.spec.containers[0].args = redact_command(line), []
        a, b = scheduler_pod(pod), scheduler_pod(redacted)
        assert a is not None and b is not None
        assert (a.names, bool(a.config), a.control_plane) == (b.names, bool(b.config), b.control_plane)


# ------------------------------------------------------------------ bound but not running: shapes


def _bound(builder: PodBuilder, *events: dict[str, Any]) -> PendingPod:
    node = make_node("n1").alloc(cpu="4", memory="8Gi").obj()
    pod = builder.node("n1").phase("Pending").obj()
    decoded = [msgspec.convert(e, o.Event) for e in events]
    [item] = classify_pending(make_snapshot(node, pod, *decoded), default_config())
    return item


def _event(reason: str, message: str, uid: str = "uid-default-p", **more: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "p.1898", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default", "uid": uid},
        "reason": reason,
        "message": message,
        **more,
    }


CALICO_SANDBOX = (
    'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "4f1c":'
    ' plugin type="calico" failed (add): error getting ClusterInformation: connection is unauthorized: Unauthorized'
)
CREATING = {"name": "c", "state": {"waiting": {"reason": "ContainerCreating"}}}


@pytest.mark.parametrize(
    ("builder", "events", "cause"),
    [
        # A sidecar (restartable init container) that runs counts as started.
        (
            make_pod("p")
            .spec(initContainers=[{"name": "proxy", "image": "envoy:1", "restartPolicy": "Always"}])
            .status(
                initContainerStatuses=[{"name": "proxy", "started": True, "state": {"running": {}}}],
                containerStatuses=[CREATING],
            ),
            [],
            "bound to node n1, ContainerCreating (no event says why yet)",
        ),
        # The CNI cannot set the sandbox up.
        (
            make_pod("p").status(containerStatuses=[CREATING]),
            [
                _event(
                    "FailedCreatePodSandBox",
                    CALICO_SANDBOX,
                )
            ],
            "bound, not running: FailedCreatePodSandBox",
        ),
        # The events of an earlier pod of the same name (StatefulSet) are not this pod's.
        (
            make_pod("p").status(containerStatuses=[CREATING]),
            [_event("FailedMount", "MountVolume.SetUp failed", uid="uid-of-the-previous-p")],
            "bound to node n1, ContainerCreating (no event says why yet)",
        ),
        # events.k8s.io/v1 shape: regarding and note.
        (
            make_pod("p").status(containerStatuses=[CREATING]),
            [
                {
                    "metadata": {"name": "p.1899", "namespace": "default"},
                    "regarding": {"kind": "Pod", "name": "p", "namespace": "default"},
                    "reason": "FailedMount",
                    "note": 'MountVolume.SetUp failed for volume "cfg" : configmap "cfg" not found',
                    "reportingController": "kubelet",
                    "deprecatedCount": 3,
                }
            ],
            "bound, not running: FailedMount",
        ),
        # An init container that failed with restartPolicy OnFailure waits in its back-off.
        (
            make_pod("p")
            .spec(initContainers=[{"name": "a", "image": "x:1"}, {"name": "b", "image": "x:1"}])
            .status(
                initContainerStatuses=[
                    {"name": "a", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}},
                    {"name": "b", "state": {"waiting": {"reason": "ErrImagePull"}}, "image": "x:1"},
                ],
                containerStatuses=[{"name": "c", "state": {"waiting": {"reason": "PodInitializing"}}}],
            ),
            [],
            "bound, not running: init container b: cannot pull image x:1 (ErrImagePull, ImagePullBackOff) (Init:1/2)",
        ),
        # Volumes are mounted before the first init container starts.
        (
            make_pod("p")
            .spec(initContainers=[{"name": "a", "image": "x:1"}])
            .status(
                initContainerStatuses=[{"name": "a", "state": {"waiting": {"reason": "PodInitializing"}}}],
                containerStatuses=[{"name": "c", "state": {"waiting": {"reason": "PodInitializing"}}}],
            ),
            [_event("FailedMount", 'MountVolume.SetUp failed for volume "certs" : secret "certs" not found')],
            "bound, not running: FailedMount",
        ),
    ],
    ids=["sidecar", "sandbox", "old-events", "events-k8s-io", "init-image", "init-behind-a-volume"],
)
def test_bound_not_running_shapes(builder: PodBuilder, events: list[dict[str, Any]], cause: str) -> None:
    item = _bound(builder, *events)
    assert (item.verdict, cause_text(item.cause)) == (Verdict.BOUND_NOT_RUNNING, cause)


@pytest.mark.parametrize("path", sorted(FIXTURES.rglob("*.yaml")), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_both_yaml_readers_read_the_fixtures_alike(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """kubectl's YAML (folded long messages, quoted timestamps, `null`s) reads the same either way."""
    data = path.read_bytes()
    fast = decode(data, path.name)
    monkeypatch.setattr(fastyaml, "ryml", None)
    reference = decode(data, path.name)
    assert fast.reference_reads == 0
    assert (fast.objects, fast.ignored) == (reference.objects, reference.ignored)
