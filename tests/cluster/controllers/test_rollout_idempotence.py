"""Applying the same manifest twice does what applying it once does (issue 24), through the CLI:
`check` a Deployment manifest against a cluster that runs an older (or the same) version of it,
build the cluster its rollout leaves (each new pod on the node the report gives it, as the API
server stores pods: defaulted, owned by the new ReplicaSet), and `check` the same manifest again:
nothing is to be placed, the workload is unchanged, and it runs the replicas the manifest asks
for (or, without `replicas`, as many as ran before)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from podwhy.cli import app

Json = dict[str, Any]
OLD_HASH, NEW_HASH = "5f6d7c8b9", "7b8c9d6f5"


def _node(index: int, cpu: int) -> Json:
    name = f"node-{index}"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": str(cpu), "memory": "64Gi", "pods": "110"}},
    }


def _template(image: str) -> Json:
    return {
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "web", "image": image, "resources": {"requests": {"cpu": "1"}}}]},
    }


def _manifest(image: str, replicas: int | None, strategy: Json) -> Json:
    spec: Json = {"selector": {"matchLabels": {"app": "web"}}, "strategy": strategy, "template": _template(image)}
    if replicas is not None:
        spec["replicas"] = replicas
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": spec,
    }


def _pod(name: str, node: str, image: str, hashed: str) -> Json:
    """A pod of the template as the API server stores it: the defaults it fills in, the
    ReplicaSet's label and controller reference, bound and running."""
    template = _template(image)
    spec = {
        **template["spec"],
        "nodeName": node,
        "restartPolicy": "Always",
        "dnsPolicy": "ClusterFirst",
        "schedulerName": "default-scheduler",
        "terminationGracePeriodSeconds": 30,
        "priority": 0,
        "enableServiceLinks": True,
        "preemptionPolicy": "PreemptLowerPriority",
        "serviceAccountName": "default",
        "tolerations": [
            {"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
            for key in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")
        ],
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": f"uid-{name}",
            "labels": {"app": "web", "pod-template-hash": hashed},
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": f"web-{hashed}",
                    "uid": f"rs-{hashed}",
                    "controller": True,
                }
            ],
        },
        "spec": spec,
        "status": {"phase": "Running"},
    }


def _check(folder: Path, objects: list[Json], manifest: Json) -> tuple[int, str, Json]:
    (folder / "cluster.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    (folder / "m.yaml").write_text(yaml.safe_dump(manifest))
    argv = ["check", "-f", str(folder / "m.yaml"), "--from", str(folder / "cluster.json"), "--complete"]
    env = {"COLUMNS": "200", "NO_COLOR": "1"}
    result = CliRunner().invoke(app, [*argv, "-o", "json"], env=env)
    text = CliRunner().invoke(app, argv, env=env)
    assert result.exit_code == text.exit_code, (result.stderr, text.stderr)
    return result.exit_code, text.stdout, json.loads(result.stdout)


amounts = st.one_of(st.integers(0, 3), st.sampled_from(["0%", "25%", "50%", "100%"]))
strategies = st.one_of(
    st.just({"type": "Recreate"}),
    st.builds(
        lambda surge, unavailable: {
            "type": "RollingUpdate",
            "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable},
        },
        amounts,
        amounts,
    ),
)


@given(
    old_nodes=st.lists(st.integers(0, 3), min_size=1, max_size=6),
    free=st.lists(st.integers(0, 3), min_size=4, max_size=4),
    replicas=st.one_of(st.none(), st.integers(1, 6)),
    changed=st.booleans(),
    strategy=strategies,
)
def test_applying_twice_is_applying_once(
    old_nodes: list[int], free: list[int], replicas: int | None, changed: bool, strategy: Json
) -> None:
    # The old pods (1 CPU each) on their nodes, and some CPUs free on each of 4 nodes.
    nodes = [_node(i, old_nodes.count(i) + free[i]) for i in range(4)]
    old = [_pod(f"web-{OLD_HASH}-{i:05d}", f"node-{n}", "web:1", OLD_HASH) for i, n in enumerate(old_nodes)]
    manifest = _manifest("web:2" if changed else "web:1", replicas, strategy)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        code, _out, report = _check(folder, [*nodes, *old], manifest)
        workload = report["workloads"][0]
        rollout = workload["rollout"]
        want = len(old_nodes) if replicas is None else replicas
        if rollout["status"] not in ("Completes", "Unchanged") or workload["pending"]:
            # A stall leaves the cluster between two versions; never with room for every new pod
            # beside the old ones.
            assert sum(free) < want, rollout
            return
        assert code == 0
        # The cluster the rollout leaves: the old pods it did not remove, the new ones where placed.
        if rollout["status"] == "Unchanged":
            gone = set(rollout["removed"])
            after = [p for p in old if p["metadata"]["name"] not in gone]
            after += [_pod(r["name"], r["node"], "web:1", OLD_HASH) for r in workload["replicas"]]
        else:
            after = [_pod(r["name"], r["node"], "web:2", NEW_HASH) for r in workload["replicas"]]
        assert len(after) == want
        again_code, again_out, again = _check(folder, [*nodes, *after], manifest)
    assert again_code == 0
    assert (
        again_out.splitlines()[0]
        == f"nothing to place: 1 workload unchanged ({want} replica{'s' if want != 1 else ''} running)"
    )
    again_workload = again["workloads"][0]
    assert again_workload["replicas"] == []
    assert (again_workload["rollout"]["status"], again_workload["rollout"]["removed"]) == ("Unchanged", [])
