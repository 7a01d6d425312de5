"""`check` of manifests that update workloads the cluster runs (cluster/controllers/, issue 24):
the Deployment controller's rolling update and recreate, scaling, the StatefulSet controller's
ordinal-by-ordinal update, DaemonSets, and a Job's immutable template."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.cluster.controllers.deployment import fenceposts
from podwhy.cluster.controllers.replicaset import deletion_order
from podwhy.cluster.controllers.revisions import same_template
from podwhy.cluster.controllers.rollout import scaled
from podwhy.features.emulation import V1_34, V1_35, V1_36
from podwhy.model import objects as o
from tests.builders import from_raw

Json = dict[str, Any]


@pytest.mark.parametrize(
    ("surge", "unavailable", "replicas", "expected"),
    [
        # util.ResolveFenceposts (deployment/util/deployment_util_test.go TestResolveFenceposts)
        ("0", "0", 0, (0, 1)),
        ("39%", "39%", 10, (4, 3)),
        ("oops", "0", 10, (0, 1)),
        ("55%", "urg", 10, (6, 0)),
        ("5", "1", 10, (5, 1)),
        (None, None, 3, (1, 0)),  # the defaults, 25% each: surge rounds up, unavailable down
        (None, None, 4, (1, 1)),
        (None, None, 10, (3, 2)),
    ],
)
def test_fenceposts(surge: str | None, unavailable: str | None, replicas: int, expected: tuple[int, int]) -> None:
    rolling = {k: v for k, v in (("maxSurge", surge), ("maxUnavailable", unavailable)) if v is not None}
    strategy = from_raw(o.DeploymentStrategy, {"rollingUpdate": rolling})
    assert fenceposts(strategy, replicas) == expected


def test_scaled_accepts_integers_and_percentages() -> None:
    assert scaled(2, 10, "25%", round_up=True) == 2
    assert scaled("25%", 3, "25%", round_up=True) == 1
    assert scaled("25%", 3, "25%", round_up=False) == 0


def test_the_replicaset_controller_removes_unscheduled_then_pending_then_newest() -> None:
    def pod(name: str, node: str, phase: str, created: str) -> o.Pod:
        raw = {"metadata": {"name": name, "creationTimestamp": created}, "spec": {"nodeName": node}}
        return from_raw(o.Pod, {**raw, "status": {"phase": phase}})

    pods = [
        pod("old", "n1", "Running", "2026-01-01T00:00:00Z"),
        pod("new", "n1", "Running", "2026-02-01T00:00:00Z"),
        pod("starting", "n1", "Pending", "2026-01-15T00:00:00Z"),
        pod("unscheduled", "", "Pending", "2026-01-01T00:00:00Z"),
    ]
    assert [p.metadata.name for p in deletion_order(pods)] == ["unscheduled", "starting", "new", "old"]


def test_the_replicaset_controller_ranks_ready_cost_colocated_ready_time_and_restarts() -> None:
    """ActivePodsWithRanks past the phase: not Ready first, then the lower pod-deletion-cost, then
    the pods on nodes running more of the workload's pods, the most recently Ready, the most
    restarted, the newest."""

    def pod(name: str, node: str, ready: str | None, cost: str | None = None, restarts: int = 0) -> o.Pod:
        meta: Json = {"name": name, "creationTimestamp": "2026-01-01T00:00:00Z"}
        if cost is not None:
            meta["annotations"] = {"controller.kubernetes.io/pod-deletion-cost": cost}
        conditions = [] if ready is None else [{"type": "Ready", "status": "True", "lastTransitionTime": ready}]
        status = {"phase": "Running", "conditions": conditions, "containerStatuses": [{"restartCount": restarts}]}
        return from_raw(o.Pod, {"metadata": meta, "spec": {"nodeName": node}, "status": status})

    pods = [
        pod("costly", "n1", "2026-01-09T00:00:00Z", cost="10"),
        pod("cheap", "n2", "2026-01-01T00:00:00Z", cost="-5"),
        pod("invalid-cost", "n2", "2026-01-01T00:00:00Z", cost="+7"),  # not accepted: 0
        pod("alone", "n3", "2026-01-09T00:00:00Z"),
        pod("crowded-old", "n1", "2026-01-02T00:00:00Z"),
        pod("crowded-new", "n1", "2026-01-03T00:00:00Z"),
        pod("crowded-restarted", "n1", "2026-01-02T00:00:00Z", restarts=3),
        pod("not-ready", "n3", None),
    ]
    order = [p.metadata.name for p in deletion_order(pods)]
    assert order == [
        "not-ready",
        "cheap",
        "crowded-new",
        "crowded-restarted",
        "crowded-old",
        "alone",  # as crowded as invalid-cost's node (2 pods), Ready more recently
        "invalid-cost",
        "costly",
    ]


def _node(name: str, cpu: str) -> Json:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": cpu, "memory": "16Gi", "pods": "110"}},
    }


def _running(name: str, node: str, owner_kind: str, owner: str, labels: Json, image: str = "x:1") -> Json:
    """A pod as the API server stores it, owned by its controller."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "default",
            "labels": labels,
            "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": owner_kind, "name": owner, "uid": "u", "controller": True}
            ],
        },
        "spec": {
            "nodeName": node,
            "containers": [{"name": "c", "image": image, "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
        },
        "status": {"phase": "Running"},
    }


REQUESTS: Json = {"requests": {"cpu": "1", "memory": "1Gi"}}


def deployment_pods(count: int, node: str = "n1") -> list[Json]:
    labels = {"app": "web", "pod-template-hash": "6d4cf56db6"}
    return [_running(f"web-6d4cf56db6-{i}", node, "ReplicaSet", "web-6d4cf56db6", labels) for i in range(count)]


def deployment(replicas: int | None = 3, image: str = "x:1", strategy: Json | None = None) -> Json:
    spec: Json = {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "containers": [{"name": "c", "image": image, "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]
            },
        },
    }
    if replicas is not None:
        spec["replicas"] = replicas
    if strategy is not None:
        spec["strategy"] = strategy
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": spec}


def _check(tmp_path: Path, objects: list[Json], manifest: Json) -> tuple[int, str, Json]:
    (tmp_path / "cluster.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    (tmp_path / "m.yaml").write_text(yaml.safe_dump(manifest))
    base = ["check", "-f", str(tmp_path / "m.yaml"), "--from", str(tmp_path / "cluster.json"), "--complete"]
    env = {"COLUMNS": "250", "NO_COLOR": "1"}
    text = CliRunner().invoke(app, base, env=env)
    report = json.loads(CliRunner().invoke(app, [*base, "-o", "json"], env=env).stdout)
    return text.exit_code, text.stdout, report


def test_an_unchanged_deployment_creates_nothing(tmp_path: Path) -> None:
    """The reported case: 3 one-cpu pods on a 4-cpu node, the same manifest applied again."""
    code, out, report = _check(tmp_path, [_node("n1", "4"), *deployment_pods(3)], deployment())
    assert code == 0
    assert out.splitlines()[0] == "nothing to place: 1 workload unchanged (3 replicas running)"
    assert report["workloads"][0]["rollout"]["status"] == "Unchanged"


def test_a_changed_deployment_rolls_out_within_its_surge(tmp_path: Path) -> None:
    code, out, report = _check(tmp_path, [_node("n1", "4"), *deployment_pods(3)], deployment(image="x:2"))
    assert code == 0
    rollout = report["workloads"][0]["rollout"]
    assert (rollout["status"], rollout["maxSurge"], rollout["maxUnavailable"]) == ("Completes", 1, 0)
    assert len(rollout["removed"]) == 3
    assert "rollout completes: 3 new replicas (3 old removed)" in out
    # Never more than replicas + maxSurge pods, never fewer than replicas - maxUnavailable available.
    for step in rollout["steps"]:
        assert step["old"] + step["new"] <= 3 + 1
        assert step["old"] + step["newPlaced"] >= 3 - 0


def test_a_rollout_without_room_to_surge_stalls(tmp_path: Path) -> None:
    code, out, report = _check(tmp_path, [_node("n1", "3"), *deployment_pods(3)], deployment(image="x:2"))
    assert code == 1
    assert "rollout stalls at 0 of 3 new replicas placed (1 created, 3 old still run)" in out
    assert "ProgressDeadlineExceeded after 600s" in out
    assert report["workloads"][0]["rollout"]["status"] == "Stalls"


def test_max_unavailable_lets_it_through(tmp_path: Path) -> None:
    strategy = {"rollingUpdate": {"maxUnavailable": 1}}
    code, _, report = _check(
        tmp_path, [_node("n1", "3"), *deployment_pods(3)], deployment(image="x:2", strategy=strategy)
    )
    assert (code, report["workloads"][0]["rollout"]["status"]) == (0, "Completes")


def test_recreate_removes_every_old_pod_first(tmp_path: Path) -> None:
    strategy = {"type": "Recreate"}
    code, _, report = _check(
        tmp_path, [_node("n1", "3"), *deployment_pods(3)], deployment(image="x:2", strategy=strategy)
    )
    rollout = report["workloads"][0]["rollout"]
    assert (code, rollout["status"], rollout["newReplicas"]) == (0, "Completes", 3)


@pytest.mark.parametrize(("replicas", "placed", "removed"), [(5, 2, 0), (1, 0, 2)])
def test_scaling_an_unchanged_deployment(tmp_path: Path, replicas: int, placed: int, removed: int) -> None:
    code, _, report = _check(tmp_path, [_node("n1", "8"), *deployment_pods(3)], deployment(replicas=replicas))
    workload = report["workloads"][0]
    assert (code, workload["placed"], len(workload["rollout"]["removed"])) == (0, placed, removed)


def test_without_replicas_the_running_count_is_kept(tmp_path: Path) -> None:
    """An HPA-managed Deployment is written without replicas: `kubectl apply` keeps the count."""
    code, _, report = _check(tmp_path, [_node("n1", "8"), *deployment_pods(3)], deployment(replicas=None, image="x:2"))
    rollout = report["workloads"][0]["rollout"]
    assert (code, rollout["replicas"], rollout["newReplicas"]) == (0, 3, 3)


def _statefulset(replicas: int, image: str, strategy: Json | None = None) -> Json:
    spec: Json = {
        "replicas": replicas,
        "serviceName": "db",
        "selector": {"matchLabels": {"app": "db"}},
        "template": {
            "metadata": {"labels": {"app": "db"}},
            "spec": {
                "containers": [{"name": "c", "image": image, "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]
            },
        },
    }
    if strategy is not None:
        spec["updateStrategy"] = strategy
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"}, "spec": spec}


def _db_pods(count: int) -> list[Json]:
    return [
        _running(f"db-{i}", "n1", "StatefulSet", "db", {"app": "db", "statefulset.kubernetes.io/pod-name": f"db-{i}"})
        for i in range(count)
    ]


@pytest.mark.parametrize(
    ("strategy", "status", "removed"),
    [
        (None, "Completes", ["db-2", "db-1", "db-0"]),
        ({"rollingUpdate": {"partition": 1}}, "Completes", ["db-2", "db-1"]),
        ({"type": "OnDelete"}, "WaitsForDeletion", []),
    ],
)
def test_a_statefulset_updates_from_its_highest_ordinal(
    tmp_path: Path, strategy: Json | None, status: str, removed: list[str]
) -> None:
    code, _, report = _check(tmp_path, [_node("n1", "3"), *_db_pods(3)], _statefulset(3, "x:2", strategy))
    rollout = report["workloads"][0]["rollout"]
    assert (code, rollout["status"], rollout["removed"]) == (0, status, removed)


def test_a_changed_job_cannot_be_applied(tmp_path: Path) -> None:
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "migrate"},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "x:2"}]}}},
    }
    pod = _running("migrate-abcde", "n1", "Job", "migrate", {"job-name": "migrate"})
    code, out, report = _check(tmp_path, [_node("n1", "4"), pod], job)
    assert code == 1
    assert report["workloads"][0]["rollout"]["status"] == "Immutable"
    assert 'The Job "migrate" is invalid: spec.template: field is immutable' in out


# ---------------------------------------------------------------- pods being deleted


def _deleting(pod: Json) -> Json:
    """POD being deleted: its kubelet still runs it, so it holds its room."""
    pod["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return pod


def _other(name: str, node: str = "n1") -> Json:
    return _running(name, node, "ReplicaSet", "batch-1", {"app": "batch"})


def test_pods_being_deleted_hold_their_room_and_are_named(tmp_path: Path) -> None:
    """A 4-cpu node with 2 running web pods and 2 other pods being deleted: the surge pod waits for them."""
    objects = [_node("n1", "4"), *deployment_pods(2), _deleting(_other("old-a")), _deleting(_other("old-b"))]
    code, out, report = _check(tmp_path, objects, deployment(replicas=2, image="x:2"))
    assert code == 1
    (replica,) = report["workloads"][0]["replicas"]
    assert replica["node"] is None
    assert replica["fitsOnceDeleted"] == {"node": "n1", "pods": ["default/old-a", "default/old-b"], "count": 2}
    # The JSON message is the scheduler's alone; podwhy's hint is fitsOnceDeleted, said in the table.
    assert replica["message"].startswith("0/1 nodes are available") and "fits on" not in replica["message"]
    (group,) = report["workloads"][0]["pendingGroups"]
    assert group["note"] == "fits on n1 once the 2 pods being deleted (default/old-a, default/old-b) are gone"
    assert "; fits on n1 once the 2 pods" in out  # the table says it after the message
    said = " ".join(out.split())
    assert (
        "1 of its Pending replicas fits once pods being deleted are gone: the rollout depends on them leaving" in said
    )


def test_each_pending_replica_takes_what_the_deleted_pods_free(tmp_path: Path) -> None:
    """Three new replicas, one cpu free once the only pod being deleted is gone: the first fits, not the others."""
    objects = [_node("n1", "2"), _running("busy", "n1", "ReplicaSet", "x-1", {"app": "x"}), _deleting(_other("old"))]
    manifest = deployment(replicas=3)
    manifest["metadata"]["name"] = "fresh"
    code, _, report = _check(tmp_path, objects, manifest)
    assert code == 1
    once = [r.get("fitsOnceDeleted") for r in report["workloads"][0]["replicas"]]
    assert once == [{"node": "n1", "pods": ["default/old"], "count": 1}, None, None]
    assert "once the pod being deleted" not in report["workloads"][0]["replicas"][0]["message"]
    (group,) = [g for g in report["workloads"][0]["pendingGroups"] if g["note"]]
    assert group["note"] == "fits on n1 once the pod being deleted (default/old) is gone"


def test_without_pods_being_deleted_nothing_is_said(tmp_path: Path) -> None:
    code, _, report = _check(tmp_path, [_node("n1", "3"), *deployment_pods(3)], deployment(image="x:2"))
    assert code == 1
    assert all("fitsOnceDeleted" not in r for r in report["workloads"][0]["replicas"])


# ---------------------------------------------------------------- a paused Deployment


def _paused(replicas: int, image: str) -> Json:
    manifest = deployment(replicas=replicas, image=image)
    manifest["spec"]["paused"] = True
    return manifest


@pytest.mark.parametrize(
    ("replicas", "image", "status", "placed", "removed", "code"),
    [
        # deployment_controller.go syncDeployment: `if d.Spec.Paused { return dc.sync(...) }`, and
        # sync() calls getAllReplicaSetsAndSyncRevision with createIfNotExisted false: no new
        # ReplicaSet, nothing rolled out; its scale() still sizes the old one (sync.go; upstream
        # has no unit test of a paused Deployment given a new template).
        (3, "x:2", "Paused", 0, 0, 1),
        (5, "x:2", "Paused", 2, 0, 1),  # scaled up: the old ReplicaSet adds pods of the old template
        (2, "x:2", "Paused", 0, 1, 1),
        (3, "x:1", "Unchanged", 0, 0, 0),  # nothing to roll out: paused changes nothing
    ],
)
def test_a_paused_deployment_rolls_nothing_out(
    tmp_path: Path, replicas: int, image: str, status: str, placed: int, removed: int, code: int
) -> None:
    got, out, report = _check(tmp_path, [_node("n1", "8"), *deployment_pods(3)], _paused(replicas, image))
    workload = report["workloads"][0]
    rollout = workload["rollout"]
    assert (got, rollout["status"], workload["placed"], len(rollout["removed"])) == (code, status, placed, removed)
    if status == "Paused":
        assert "the Deployment is paused (spec.paused)" in " ".join(out.split())
        assert "kubectl rollout resume deployment/web -n default" in out
        # The pods it adds are the old ReplicaSet's, of the old template.
        assert all(r["name"].startswith("web-6d4cf56db6-") for r in workload["replicas"])


# ---------------------------------------------------------------- revisions (FindNewReplicaSet)


def _replica_set(hashed: str, image: str, created: str, annotations: Json | None = None) -> Json:
    template: Json = {
        "metadata": {"labels": {"app": "web", "pod-template-hash": hashed}},
        "spec": {"containers": [{"name": "c", "image": image, "resources": REQUESTS}]},
    }
    if annotations:
        template["metadata"]["annotations"] = annotations
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": f"web-{hashed}",
            "namespace": "default",
            "creationTimestamp": created,
            "labels": {"app": "web", "pod-template-hash": hashed},
            "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "d", "controller": True}
            ],
        },
        "spec": {"selector": {"matchLabels": {"app": "web", "pod-template-hash": hashed}}, "template": template},
    }


def _rs_pods(hashed: str, count: int, image: str, node: str = "n1") -> list[Json]:
    labels = {"app": "web", "pod-template-hash": hashed}
    return [_running(f"web-{hashed}-{i}", node, "ReplicaSet", f"web-{hashed}", labels, image) for i in range(count)]


RESTARTED = "kubectl.kubernetes.io/restartedAt"


@pytest.mark.parametrize(
    ("objects", "image", "status", "revision", "created"),
    [
        # deployment_util_test.go TestFindNewReplicaSet "Get new ReplicaSet with the same template as
        # Deployment spec but different pod-template-hash value": a rollback to revision 1, scaled to 0.
        (
            [
                _replica_set("5b6c7d8f9", "x:1", "2025-01-01T00:00:00Z"),
                _replica_set("6d4cf56db6", "x:2", "2026-01-01T00:00:00Z"),
                *_rs_pods("6d4cf56db6", 3, "x:2"),
            ],
            "x:1",
            "Completes",
            "web-5b6c7d8f9",
            3,
        ),
        # "Get the oldest new ReplicaSet when there are more than one ReplicaSet with the same template".
        (
            [
                _replica_set("5b6c7d8f9", "x:1", "2025-01-01T00:00:00Z"),
                _replica_set("7f8g9h2j4", "x:1", "2025-06-01T00:00:00Z"),
                _replica_set("6d4cf56db6", "x:2", "2026-01-01T00:00:00Z"),
                *_rs_pods("6d4cf56db6", 3, "x:2"),
            ],
            "x:1",
            "Completes",
            "web-5b6c7d8f9",
            3,
        ),
        # "Get nil new ReplicaSet": no revision has x:3, a new ReplicaSet is created.
        (
            [
                _replica_set("5b6c7d8f9", "x:1", "2025-01-01T00:00:00Z"),
                _replica_set("6d4cf56db6", "x:2", "2026-01-01T00:00:00Z"),
                *_rs_pods("6d4cf56db6", 3, "x:2"),
            ],
            "x:3",
            "Completes",
            None,
            3,
        ),
        # A rollout under way (revision 2 runs 1 pod of 3): that ReplicaSet is scaled up; 2 pods created.
        (
            [
                _replica_set("5b6c7d8f9", "x:1", "2025-01-01T00:00:00Z"),
                _replica_set("6d4cf56db6", "x:2", "2026-01-01T00:00:00Z"),
                *_rs_pods("5b6c7d8f9", 2, "x:1"),
                *_rs_pods("6d4cf56db6", 1, "x:2"),
            ],
            "x:2",
            "Completes",
            "web-6d4cf56db6",
            2,
        ),
        # Revision 1 differs from revision 2 only by an older `kubectl rollout restart`: `kubectl apply`
        # keeps the live restartedAt (revision 2's), so the manifest is revision 2: unchanged.
        (
            [
                _replica_set("5b6c7d8f9", "x:1", "2025-01-01T00:00:00Z", {RESTARTED: "2025-01-01T00:00:00Z"}),
                _replica_set("6d4cf56db6", "x:1", "2026-01-01T00:00:00Z", {RESTARTED: "2026-01-01T00:00:00Z"}),
                *_rs_pods("6d4cf56db6", 3, "x:1"),
            ],
            "x:1",
            "Unchanged",
            None,
            0,
        ),
    ],
)
def test_the_new_replica_set_is_found_by_its_template(
    tmp_path: Path, objects: list[Json], image: str, status: str, revision: str | None, created: int
) -> None:
    code, _, report = _check(tmp_path, [_node("n1", "8"), *objects], deployment(image=image))
    workload = report["workloads"][0]
    rollout = workload["rollout"]
    assert (code, rollout["status"], rollout.get("existingReplicaSet"), len(workload["replicas"])) == (
        0,
        status,
        revision,
        created,
    )
    if revision is not None:  # its pods are the existing ReplicaSet's
        assert all(r["name"].startswith(f"{revision}-") for r in workload["replicas"])


# ---------------------------------------------------------------- StatefulSet scale-up


@pytest.mark.parametrize(
    ("policy", "unready", "nodes", "created"),
    [
        # stateful_set_control.go processReplica: monotonic (OrderedReady) creates one ordinal and
        # returns; a pod not Running and Ready blocks every later one (stateful_set_control_test.go
        # TestStatefulSetControl ScalesUp/Monotonic). 4 CPUs: db-2 and db-3 fit, db-4 stays Pending.
        ("OrderedReady", None, ["n1", "n1", None, None], [True, True, True, False]),
        # Burst (Parallel): every missing ordinal is created at once (ScalesUp/Burst).
        ("Parallel", None, ["n1", "n1", None, None], [True, True, True, True]),
        # An existing ordinal not Ready: nothing is created until it is.
        ("OrderedReady", 1, [None, None, None, None], [False, False, False, False]),
    ],
)
def test_an_ordered_statefulset_scales_up_one_ordinal_at_a_time(
    tmp_path: Path, policy: str, unready: int | None, nodes: list[str | None], created: list[bool]
) -> None:
    pods = _db_pods(2)
    if unready is not None:
        pods[unready]["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
    manifest = _statefulset(6, "x:1")
    manifest["spec"]["podManagementPolicy"] = policy
    code, _, report = _check(tmp_path, [_node("n1", "4"), *pods], manifest)
    replicas = report["workloads"][0]["replicas"]
    assert code == 1
    assert [r["name"] for r in replicas] == ["db-2", "db-3", "db-4", "db-5"]
    assert ([r["node"] for r in replicas], [r["created"] for r in replicas]) == (nodes, created)
    if policy == "OrderedReady":
        waiting = [r["message"] for r in replicas if not r["created"]]
        assert waiting and all(f"db-{1 if unready else 4}" in m for m in waiting), waiting


# ---------------------------------------------------------------- labels admission adds


@pytest.mark.parametrize(
    ("emulation", "template_labels", "same"),
    [
        # plugin/pkg/admission/podtopologylabels: at binding the node's topology.kubernetes.io/zone
        # and region are copied onto the pod (PodTopologyLabelsAdmission, on by default from v1.35):
        # not the template's.
        ("1.35", {}, True),
        ("1.36", {}, True),
        # v1.34: the gate is off by default, so such labels came from the template: a change.
        ("1.34", {}, False),
        # The new template sets the label itself: compared.
        ("1.35", {"topology.kubernetes.io/zone": "eu-1b"}, False),
    ],
)
def test_the_topology_labels_admission_adds_are_not_the_templates(
    emulation: str, template_labels: dict[str, str], same: bool
) -> None:
    release = {"1.34": V1_34, "1.35": V1_35, "1.36": V1_36}[emulation]
    labels = {"app": "web", "topology.kubernetes.io/zone": "eu-1a", "topology.kubernetes.io/region": "eu-1"}
    old = from_raw(o.Pod, _running("web-1", "n1", "ReplicaSet", "web-1", labels))
    new = from_raw(o.Pod, _running("web-2", "", "ReplicaSet", "web-1", {"app": "web", **template_labels}))
    assert same_template([old], new, release) is same


def test_an_ordered_scale_up_stops_at_the_ordinal_a_quota_refuses(tmp_path: Path) -> None:
    """Each ordinal added is charged to quotas when the controller creates it: the first one refused
    (FailedCreate) holds every later one back, as a Pending one does."""
    quota = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "pods", "namespace": "default"},
        "spec": {"hard": {"pods": "4"}},
        "status": {"hard": {"pods": "4"}, "used": {"pods": "2"}},
    }
    code, _, report = _check(tmp_path, [_node("n1", "8"), *_db_pods(2), quota], _statefulset(6, "x:1"))
    replicas = report["workloads"][0]["replicas"]
    assert code == 1
    assert [(r["name"], r["node"], r["created"]) for r in replicas] == [
        ("db-2", "n1", True),
        ("db-3", "n1", True),
        ("db-4", None, False),
        ("db-5", None, False),
    ]
    assert "exceeded quota: pods" in replicas[2]["message"] and "once db-4 is Running" in replicas[3]["message"]
