"""podwhy check: manifests turned into replicas and placed one after another onto a snapshot."""

from __future__ import annotations

import functools
import io
import json
import re
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from podwhy.analysis.owners import owner_of as pending_owner_of
from podwhy.analysis.suggest import template_owner
from podwhy.cli import app
from podwhy.cluster.check import place
from podwhy.cluster.controllers.types import Displaced
from podwhy.cluster.manifests import ManifestSource
from podwhy.errors import PodwhyError
from podwhy.model import objects as o
from podwhy.report.build.check import build_check_report
from podwhy.report.model import CheckReport, WorkloadReport, encode_json
from podwhy.report.render.junit import junit_xml
from podwhy.scheduler.config import default_config
from podwhy.scheduler.cycle import run_cycle
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict
from tests.builders import make_node, make_pod, make_snapshot
from tests.conftest import CHECK_SCHEMA

Json = dict[str, Any]
# Five characters of the API's alphabet for generated names (podwhy derives them from hashes).
GENERATED = re.compile(r"[bcdfghjklmnpqrstvwxz2456789]{5}")


def deployment(name: str, replicas: int, spec: Json, kind: str = "Deployment", **extra: Any) -> Json:
    labels = {"app": name}
    # A DaemonSet or Job has no replicas field (the API server refuses one: unknown field).
    count = {} if kind in ("DaemonSet", "Job") else {"replicas": replicas}
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": name},
        "spec": {
            **count,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": spec},
            **extra,
        },
    }


# The least a template holds that the API server accepts: one container, with an image.
BARE: tuple[Json, ...] = ({"name": "c", "image": "img"},)


def container(cpu: str = "100m", host_port: int | None = None) -> Json:
    out: Json = {"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}
    if host_port is not None:
        out["ports"] = [{"containerPort": host_port, "hostPort": host_port}]
    return out


def stream(*docs: Json) -> bytes:
    return yaml.safe_dump_all(docs).encode()


@functools.cache
def _check_schema() -> Any:
    schema = json.loads(CHECK_SCHEMA.read_text())
    return jsonschema.validators.validator_for(schema)(schema)


def valid(report: CheckReport) -> CheckReport:
    """REPORT, once its JSON (`check -o json`) validated against the committed CheckReport schema."""
    _check_schema().validate(json.loads(encode_json(report)))
    return report


def check(objects: list[msgspec.Struct], *docs: Json) -> CheckReport:
    snapshot = make_snapshot(*objects)
    workloads = ManifestSource(["-"], stdin=io.BytesIO(stream(*docs))).load_into(snapshot)
    displaced: list[Displaced] = []
    placements = place(snapshot, workloads, default_config(), displaced_out=displaced)
    return valid(build_check_report(placements, snapshot, displaced=displaced))


def nodes_of(workload: WorkloadReport) -> list[str | None]:
    return [r.node for r in workload.replicas]


ANTI_AFFINITY = {
    "podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}
        ]
    }
}
ZONE_SPREAD = [
    {
        "maxSkew": 1,
        "topologyKey": "topology.kubernetes.io/zone",
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "web"}},
    }
]


@pytest.mark.parametrize(
    ("case", "nodes", "replicas", "spec", "placed", "reason"),
    [
        (
            "anti-affinity on hostname: 3 replicas, 2 nodes",
            [make_node("n1"), make_node("n2")],
            3,
            {"affinity": ANTI_AFFINITY, "containers": [container()]},
            2,
            "2 node(s) didn't match pod anti-affinity rules",
        ),
        (
            "host ports: one replica per node",
            [make_node("n1"), make_node("n2")],
            3,
            {"containers": [container(host_port=8080)]},
            2,
            "2 node(s) didn't have free ports for the requested pod ports",
        ),
        (
            "resources: 3 CPUs each on two 4-CPU nodes",
            [make_node("n1"), make_node("n2")],
            3,
            {"containers": [container(cpu="3")]},
            2,
            "2 Insufficient cpu",
        ),
        (
            # Zone a holds one pod at most: once zone b has two, a fourth replica would skew b by 2.
            "topology spread DoNotSchedule maxSkew 1 over zones",
            [make_node("a1").zone("a").alloc(cpu="1"), make_node("b1").zone("b"), make_node("b2").zone("b")],
            4,
            {"topologySpreadConstraints": ZONE_SPREAD, "containers": [container(cpu="1")]},
            3,
            "didn't match pod topology spread constraints",
        ),
        (
            "everything fits",
            [make_node("n1"), make_node("n2")],
            4,
            {"containers": [container(cpu="1")]},
            4,
            "",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_later_replicas_see_the_earlier_ones(
    case: str, nodes: list[Any], replicas: int, spec: Json, placed: int, reason: str
) -> None:
    report = check([n.obj() for n in nodes], deployment("web", replicas, spec))
    (workload,) = report.workloads
    assert workload.placed == placed, case
    assert [r.node is not None for r in workload.replicas] == [True] * placed + [False] * (replicas - placed)
    for replica in workload.replicas[placed:]:
        assert replica.message.startswith(f"0/{len(nodes)} nodes are available:")
        assert reason in replica.message
    assert report.summary.pending == replicas - placed
    assert report.exit_code == (0 if placed == replicas else 1)


def test_anti_affinity_replicas_land_on_distinct_nodes() -> None:
    report = check(
        [make_node("n1").obj(), make_node("n2").obj()],
        deployment("web", 2, {"affinity": ANTI_AFFINITY, "containers": list(BARE)}),
    )
    assert sorted(n for n in nodes_of(report.workloads[0]) if n) == ["n1", "n2"]


def test_pods_already_in_the_cluster_count() -> None:
    busy = make_pod("old").labels(app="web").node("n1").req(cpu="3").obj()
    report = check(
        [make_node("n1").obj(), make_node("n2").obj(), busy],
        deployment("web", 2, {"containers": [container(cpu="3")]}),
    )
    assert nodes_of(report.workloads[0]) == ["n2", None]


def test_ties_are_broken_by_node_name_and_said() -> None:
    report = check(
        [make_node("zeta").obj(), make_node("alpha").obj()], deployment("web", 1, {"containers": list(BARE)})
    )
    (replica,) = report.workloads[0].replicas
    assert replica.node == "alpha"
    assert replica.tiedNodes == ["alpha", "zeta"]
    assert replica.tiedCount == 2
    assert "first by name" in report.tieBreak


def test_many_tied_nodes_are_counted_and_the_first_ten_named() -> None:
    nodes = [make_node(f"n{i:02}").obj() for i in range(12)]
    (replica,) = check(nodes, deployment("web", 1, {"containers": list(BARE)})).workloads[0].replicas
    assert (replica.node, replica.tiedCount) == ("n00", 12)
    assert replica.tiedNodes == [f"n{i:02}" for i in range(10)]


def test_workloads_see_each_other_in_input_order() -> None:
    report = check(
        [make_node("n1").obj()],
        deployment("first", 1, {"containers": [container(host_port=80)]}),
        deployment("second", 1, {"containers": [container(host_port=80)]}),
    )
    assert [w.placed for w in report.workloads] == [1, 0]
    assert report.summary.failingWorkloads == 1


DAEMON_SPEC: Json = {"containers": [container()]}


@pytest.mark.parametrize(
    ("tolerations", "expected_nodes", "ineligible"),
    [
        ([], ["n1", "n3"], ["n2"]),
        ([{"key": "dedicated", "operator": "Exists"}], ["n1", "n2", "n3"], []),
    ],
)
def test_daemon_set_runs_on_eligible_nodes(
    tolerations: list[Json], expected_nodes: list[str], ineligible: list[str]
) -> None:
    nodes = [make_node("n1").obj(), make_node("n2").taint("dedicated", "gpu").obj(), make_node("n3").obj()]
    ds = deployment("agent", 0, {**DAEMON_SPEC, "tolerations": tolerations}, kind="DaemonSet")
    report = check(nodes, ds)
    (workload,) = report.workloads
    assert nodes_of(workload) == expected_nodes
    assert all(GENERATED.fullmatch(r.name.removeprefix("agent-")) for r in workload.replicas)
    assert [r.targetNode for r in workload.replicas] == expected_nodes
    assert sorted(workload.ineligibleNodes) == ineligible
    for node in ineligible:
        assert "TaintToleration" in workload.ineligibleNodes[node]


def test_daemon_pods_get_the_controllers_node_affinity_and_tolerations() -> None:
    snapshot = make_snapshot(make_node("n1").obj(), make_node("n2").unschedulable().obj())
    ds = deployment("agent", 0, DAEMON_SPEC, kind="DaemonSet")
    workloads = ManifestSource(["-"], stdin=io.BytesIO(stream(ds))).load_into(snapshot)
    placements = place(snapshot, workloads, default_config())
    # The DaemonSet controller tolerates node.kubernetes.io/unschedulable: both nodes run it.
    assert [r.node for r in placements[0].replicas] == ["n1", "n2"]
    pod = placements[0].replicas[1].pod
    assert pod.spec.affinity is not None and pod.spec.affinity.node_affinity is not None
    required = pod.spec.affinity.node_affinity.required_during_scheduling_ignored_during_execution
    assert required is not None
    assert required.node_selector_terms == [
        o.NodeSelectorTerm(match_fields=[o.NodeSelectorRequirement(key="metadata.name", operator="In", values=["n2"])])
    ]


def test_daemon_pods_that_do_not_fit_stay_pending() -> None:
    busy = make_pod("big").node("n1").req(cpu="4").obj()
    report = check(
        [make_node("n1").obj(), make_node("n2").obj(), busy], deployment("agent", 0, DAEMON_SPEC, kind="DaemonSet")
    )
    (workload,) = report.workloads
    assert nodes_of(workload) == [None, "n2"]
    assert "Insufficient cpu" in workload.replicas[0].message


def test_stateful_set_ordered_ready_stops_at_the_first_pending_ordinal() -> None:
    spec = {"containers": [container(cpu="3")]}
    report = check([make_node("n1").obj()], deployment("db", 3, spec, kind="StatefulSet"))
    replicas = report.workloads[0].replicas
    assert [r.name for r in replicas] == ["db-0", "db-1", "db-2"]
    assert [(r.node, r.created) for r in replicas] == [("n1", True), (None, True), (None, False)]
    assert "once db-1 is Running and Ready" in replicas[2].message


def test_stateful_set_parallel_tries_every_ordinal() -> None:
    spec = {"containers": [container(cpu="3")]}
    report = check(
        [make_node("n1").obj()], deployment("db", 3, spec, kind="StatefulSet", podManagementPolicy="Parallel")
    )
    assert [r.created for r in report.workloads[0].replicas] == [True, True, True]
    assert all("Insufficient cpu" in r.message for r in report.workloads[0].replicas[1:])


@pytest.mark.parametrize(
    ("doc", "count"),
    [
        ({"kind": "Job", "spec": {"parallelism": 3, "completions": 2}}, 2),
        ({"kind": "Job", "spec": {"parallelism": 3}}, 3),
        ({"kind": "Job", "spec": {}}, 1),
        ({"kind": "ReplicaSet", "spec": {"replicas": 2}}, 2),
        ({"kind": "Deployment", "spec": {"replicas": 0}}, 0),
        ({"kind": "Deployment", "spec": {}}, 1),
        ({"kind": "CronJob", "spec": {"jobTemplate": {"spec": {"parallelism": 2, "template": None}}}}, 2),
        ({"kind": "Pod", "spec": {"containers": list(BARE)}}, 1),
    ],
)
def test_replica_counts(doc: Json, count: int) -> None:
    versions = {"Job": "batch/v1", "CronJob": "batch/v1", "Pod": "v1"}
    raw: Json = {"apiVersion": versions.get(doc["kind"], "apps/v1"), "metadata": {"name": "w"}, **doc}
    spec = raw["spec"]
    if raw["kind"] == "CronJob":
        spec["jobTemplate"]["spec"]["template"] = {"spec": {"containers": list(BARE)}}
    elif raw["kind"] != "Pod":
        spec["template"] = {"metadata": {"labels": {"app": "w"}}, "spec": {"containers": list(BARE)}}
    snapshot = make_snapshot(make_node("n1").obj())
    (workload,) = ManifestSource(["-"], stdin=io.BytesIO(stream(raw))).load_into(snapshot)
    assert len(workload.pods) == count
    for pod in workload.pods:
        # Admission ran: default tolerations and scheduler name are set.
        assert pod.spec.scheduler_name == "default-scheduler"
        assert any(t.key == "node.kubernetes.io/not-ready" for t in pod.spec.tolerations)


def test_deployment_pods_belong_to_a_replica_set_in_the_snapshot() -> None:
    snapshot = make_snapshot(make_node("n1").obj())
    doc = deployment("web", 2, {"containers": list(BARE)})
    (workload,) = ManifestSource(["-"], namespace="shop", stdin=io.BytesIO(stream(doc))).load_into(snapshot)
    (rs,) = snapshot.replica_sets
    assert rs.metadata.namespace == "shop" and rs.metadata.owner_references[0].kind == "Deployment"
    for pod in workload.pods:
        assert pod.metadata.name.startswith(rs.metadata.name + "-")
        assert pod.metadata.owner_references[0].kind == "ReplicaSet"
        assert pod.metadata.owner_references[0].name == rs.metadata.name
        assert pod.metadata.labels["app"] == "web"


def test_chart_services_and_priority_classes_are_applied() -> None:
    pclass = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "high"},
        "value": 1000,
    }
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}, "spec": {"selector": {"app": "web"}}}
    doc = deployment("web", 1, {"priorityClassName": "high", "containers": list(BARE)})
    snapshot = make_snapshot(make_node("n1").obj())
    (workload,) = ManifestSource(["-"], stdin=io.BytesIO(stream(pclass, svc, doc))).load_into(snapshot)
    assert workload.pods[0].spec.priority == 1000
    assert [s.metadata.namespace for s in snapshot.services] == ["default"]


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=1, max_value=6), st.integers(min_value=1, max_value=8))
def test_host_port_replicas_fill_each_node_once(node_count: int, replicas: int) -> None:
    nodes = [make_node(f"n{i}").obj() for i in range(node_count)]
    report = check(nodes, deployment("web", replicas, {"containers": [container(host_port=9000)]}))
    placed = [n for n in nodes_of(report.workloads[0]) if n is not None]
    assert len(placed) == min(node_count, replicas)
    assert len(set(placed)) == len(placed)


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b"kind: Deployment\nmetadata: {name: [\n", "malformed YAML"),
        (b"kind: ConfigMap\nmetadata: {name: x}\n", "no Pods or workloads"),
        (b"kind: Deployment\nmetadata: {}\nspec: {}\n", "has no metadata.name"),
        (b"kind: Deployment\nmetadata: {name: x}\nspec: {replicas: many}\n", "is invalid"),
        (b"- 1\n", "is not a Kubernetes object"),
        (
            b"kind: Deployment\nmetadata: {name: x}\nspec: {replicas: 3000000000}\n",
            "(Deployment 'x') is invalid: Expected `int` <= 2147483647 - at `$.spec.replicas`",
        ),
        (b'{"kind": "Job", "metadata": {"name": "x"}, "spec": {"parallelism": -2147483649}}', ">= -2147483648"),
    ],
)
def test_bad_manifests_are_input_errors(data: bytes, error: str) -> None:
    with pytest.raises(PodwhyError) as info:
        ManifestSource(["-"], stdin=io.BytesIO(data)).load_into(make_snapshot(make_node("n1").obj()))
    assert error in info.value.message
    assert info.value.exit_code == 3


# ---------------------------------------------------------------------- command line
CLUSTER = textwrap.dedent(
    """
    apiVersion: v1
    kind: List
    items:
    - kind: Node
      metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
      status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
    - kind: Node
      metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
      status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
    """
)


def invoke(*args: str, input: bytes | None = None) -> tuple[int, str, str]:
    # The clusters of these tests are whole clusters: what they hold none of, they have none of.
    complete = ["--complete"] if "--from" in args else []
    result = CliRunner().invoke(app, ["check", *args, *complete], input=input)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def cluster(tmp_path: Path) -> Path:
    path = tmp_path / "cluster.yaml"
    path.write_text(CLUSTER)
    return path


def test_cli_multi_document_stdin_json_and_junit(cluster: Path, tmp_path: Path, check_schema_validator: Any) -> None:
    helm = b"---\n# Source: chart/templates/cm.yaml\nkind: ConfigMap\nmetadata: {name: cfg}\n---\n" + stream(
        deployment("web", 3, {"affinity": ANTI_AFFINITY, "containers": [container()]}),
        deployment("api", 2, {"containers": [container()]}),
    )
    junit = tmp_path / "report.xml"
    code, out, _ = invoke("-f", "-", "--from", str(cluster), "-o", "json", "--junit", str(junit), input=helm)
    assert code == 1
    report = json.loads(out)
    check_schema_validator.validate(report)
    assert report["kind"] == "CheckReport"
    assert report["summary"] == {
        "workloads": 2,
        "replicas": 5,
        "placed": 4,
        "pending": 1,
        "failingWorkloads": 1,
        "inconclusive": 0,
        "pendingInconclusive": 0,
    }
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == "2" and suite.get("failures") == "1"
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    failure = cases["web"].find("failure")
    assert failure is not None and "didn't match pod anti-affinity rules" in (failure.get("message") or "")
    assert failure.text is not None
    assert re.match(r"web-[4-9bcdf]{1,10}-[bcdfghjklmnpqrstvwxz2456789]{5}: 0/2 nodes are available", failure.text)
    assert cases["api"].find("failure") is None


def test_cli_everything_fits_exits_0_with_table_and_yaml(
    cluster: Path, tmp_path: Path, check_schema_validator: Any
) -> None:
    manifest = tmp_path / "manifests"
    manifest.mkdir()
    (manifest / "web.yaml").write_bytes(stream(deployment("web", 2, {"containers": [container()]})))
    code, out, _ = invoke("-f", str(manifest), "--from", str(cluster))
    assert code == 0
    assert "2/2 replicas placed" in out and "podwhy takes the first" in out
    code, out, _ = invoke("-f", str(manifest), "--from", str(cluster), "-o", "yaml")
    assert code == 0
    document = yaml.safe_load(out)
    check_schema_validator.validate(document)
    assert document["summary"]["pending"] == 0


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        ((), 2, "Missing option"),
        (("-f", "-", "--from", "-"), 2, "cannot both read stdin"),
        (("-f", "x.yaml", "--from", "c.yaml", "--context", "prod"), 2, "live mode"),
        (("-f", "does-not-exist.yaml", "--from", "CLUSTER"), 3, "no such file or directory"),
        (("-f", "-", "--from", "CLUSTER", "-o", "xml"), 2, "Invalid value"),
    ],
)
def test_cli_usage_and_input_errors(args: tuple[str, ...], code: int, message: str, cluster: Path) -> None:
    argv = [str(cluster) if a == "CLUSTER" else a for a in args]
    exit_code, out, err = invoke(*argv, input=b"")
    assert exit_code == code
    assert message in err
    assert out == ""
    if code == 3:
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_junit_escapes_and_counts() -> None:
    """The XML parses and names the workload (a name with `<` the API server refuses: metadata.name
    is a DNS subdomain; hostile strings elsewhere are test_fuzz_hostile's)."""
    report = check([make_node("n1").obj()], deployment("a.b", 2, {"containers": [container(host_port=1)]}))
    root = ET.fromstring(junit_xml(report))
    (case,) = root.iter("testcase")
    assert case.get("name") == "a.b"
    assert case.find("failure") is not None


def test_incremental_binding_matches_a_rebuilt_framework() -> None:
    """Adding each bound replica to the indexes gives what indexing the grown snapshot afresh gives."""
    nodes = [make_node(f"n{i}").zone("ab"[i % 2]).alloc(cpu="2") for i in range(4)]
    preferred = {
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 100,
                    "podAffinityTerm": {
                        "labelSelector": {"matchLabels": {"app": "web"}},
                        "topologyKey": "kubernetes.io/hostname",
                    },
                }
            ]
        }
    }
    spec = {"affinity": preferred, "topologySpreadConstraints": ZONE_SPREAD, "containers": [container(cpu="700m")]}
    docs = stream(deployment("web", 9, spec))
    snapshot = make_snapshot(*(n.obj() for n in nodes))
    workloads = ManifestSource(["-"], stdin=io.BytesIO(docs)).load_into(snapshot)
    incremental = [r.node for r in place(snapshot, workloads, default_config())[0].replicas]

    fresh = make_snapshot(*(n.obj() for n in nodes))
    (workload,) = ManifestSource(["-"], stdin=io.BytesIO(docs)).load_into(fresh)
    rebuilt: list[str] = []
    for pod in workload.pods:
        cycle = run_cycle(fresh, pod)  # indexes the snapshot again every time
        best = sorted(cycle.scores.best_nodes) if cycle.scores is not None else []
        if cycle.verdict != Verdict.SCHEDULABLE:
            rebuilt.append("")
            continue
        pod.spec.node_name = best[0]
        fresh.pods.append(pod)
        rebuilt.append(best[0])
    assert [n or "" for n in incremental] == rebuilt
    assert "" in rebuilt and rebuilt.count("") < len(rebuilt)


# ---------------------------------------------------------------------- names as controllers make them
def load(objects: list[msgspec.Struct], *docs: Json, namespace: str = "default") -> tuple[Snapshot, list[Any]]:
    snapshot = make_snapshot(*objects)
    source = ManifestSource(["-"], namespace=namespace, stdin=io.BytesIO(stream(*docs)))
    return snapshot, source.load_into(snapshot)


HASH = r"[4-9bcdf]{1,10}"  # a decimal FNV-32a written in the API's alphabet
SUFFIX = r"[bcdfghjklmnpqrstvwxz2456789]{5}"
TEMPLATE: Json = {"template": {"metadata": {"labels": {"app": "w"}}, "spec": {"containers": list(BARE)}}}


def job(name: str, **spec: Any) -> Json:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name}, "spec": {**spec, **TEMPLATE}}


CRON_JOB: Json = {
    "apiVersion": "batch/v1",
    "kind": "CronJob",
    "metadata": {"name": "nightly"},
    "spec": {"jobTemplate": {"spec": {"parallelism": 2, **TEMPLATE}}},
}


def _long_named(doc: Json) -> Json:
    """DOC labelled `app: long`: a label value of its 70-character name the API server refuses."""
    labels = {"app": "long"}
    doc["spec"]["selector"] = {"matchLabels": labels}
    doc["spec"]["template"]["metadata"]["labels"] = labels
    return doc


@pytest.mark.parametrize(
    ("doc", "pattern"),
    [
        (deployment("web", 2, {"containers": list(BARE)}), rf"web-{HASH}-{SUFFIX}"),
        (deployment("rs", 2, {"containers": list(BARE)}, kind="ReplicaSet"), rf"rs-{SUFFIX}"),
        (deployment("db", 2, {"containers": list(BARE)}, kind="StatefulSet"), r"db-[01]"),
        (job("job", parallelism=2), rf"job-{SUFFIX}"),
        (job("ix", parallelism=2, completionMode="Indexed"), rf"ix-[01]-{SUFFIX}"),
        (CRON_JOB, rf"nightly-28928160-{SUFFIX}"),
        (
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"generateName": "probe-"},
                "spec": {"containers": list(BARE)},
            },
            rf"probe-{SUFFIX}",
        ),
        (_long_named(deployment("x" * 70, 2, {"containers": list(BARE)}, kind="ReplicaSet")), rf"x{{58}}{SUFFIX}"),
    ],
    ids=["Deployment", "ReplicaSet", "StatefulSet", "Job", "IndexedJob", "CronJob", "generateName", "long"],
)
def test_replicas_are_named_as_their_controllers_name_them(doc: Json, pattern: str) -> None:
    _, (workload,) = load([make_node("n1").obj()], doc)
    names = [p.metadata.name for p in workload.pods]
    assert names and all(re.fullmatch(pattern, n) for n in names), names
    assert len(set(names)) == len(names)
    # Deterministic: the same manifests give the same names.
    _, (again,) = load([make_node("n1").obj()], doc)
    assert [p.metadata.name for p in again.pods] == names


def test_deployment_owner_chain_and_pod_template_hash() -> None:
    doc = deployment("web", 3, {"containers": [container()]})
    snapshot, (workload,) = load([make_node("n1").obj()], doc, namespace="shop")
    (rs,) = snapshot.replica_sets
    hashed = rs.metadata.name.removeprefix("web-")
    assert re.fullmatch(HASH, hashed)
    assert rs.spec.selector is not None and rs.spec.selector.match_labels == {"app": "web", "pod-template-hash": hashed}
    assert rs.metadata.owner_references[0].kind == "Deployment"
    for pod in workload.pods:
        assert pod.metadata.labels["pod-template-hash"] == hashed
        assert pod.metadata.name.startswith(f"web-{hashed}-")
        (ref,) = pod.metadata.owner_references
        assert (ref.kind, ref.name, ref.uid) == ("ReplicaSet", rs.metadata.name, rs.metadata.uid)
        # `pending` and suggestions lift the pod to its Deployment through the ReplicaSet.
        owner = pending_owner_of(pod, snapshot, {(rs.metadata.namespace, rs.metadata.name): rs})
        assert owner is not None and (owner.kind, owner.namespace, owner.name) == ("Deployment", "shop", "web")
        assert template_owner(pod, snapshot) == ("Deployment", "shop", "web")
    # Another template is another ReplicaSet hash; the same template the same one.
    changed = deployment("web", 3, {"containers": [container(cpu="200m")]})
    other, _ = load([make_node("n1").obj()], changed, namespace="shop")
    same, _ = load([make_node("n1").obj()], doc, namespace="shop")
    assert other.replica_sets[0].metadata.name != rs.metadata.name
    assert same.replica_sets[0].metadata.name == rs.metadata.name


def test_job_and_cron_job_pods_are_owned_by_their_job() -> None:
    snapshot, (plain, indexed, cron) = load(
        [make_node("n1").obj()],
        job("batch", parallelism=2),
        job("ix", parallelism=2, completionMode="Indexed"),
        CRON_JOB,
    )
    for pod in plain.pods:
        (ref,) = pod.metadata.owner_references
        assert (ref.kind, ref.name) == ("Job", "batch")
        assert pod.metadata.labels["batch.kubernetes.io/job-name"] == "batch"
        assert pod.metadata.labels["batch.kubernetes.io/controller-uid"] == ref.uid
    assert [p.metadata.annotations["batch.kubernetes.io/job-completion-index"] for p in indexed.pods] == ["0", "1"]
    assert cron.kind == "CronJob" and cron.name == "nightly"
    assert {p.metadata.owner_references[0].name for p in cron.pods} == {"nightly-28928160"}
    # The Jobs are in the snapshot, as the API server would hold them: the CronJob's names its owner.
    assert sorted(snapshot.jobs) == ["default/batch", "default/ix", "default/nightly-28928160"]
    assert {str(pending_owner_of(p, snapshot)) for p in cron.pods} == {"default/nightly (CronJob)"}
    assert {str(pending_owner_of(p, snapshot)) for p in plain.pods} == {"default/batch (Job)"}
    assert {template_owner(p, snapshot) for p in cron.pods} == {("CronJob", "default", "nightly")}


def test_generated_names_do_not_take_a_name_already_in_use() -> None:
    doc = deployment("rs", 1, {"containers": list(BARE)}, kind="ReplicaSet")
    _, (workload,) = load([make_node("n1").obj()], doc)
    taken = workload.pods[0].metadata.name
    _, (again,) = load([make_node("n1").obj(), make_pod(taken).obj()], doc)
    assert again.pods[0].metadata.name != taken
    assert re.fullmatch(rf"rs-{SUFFIX}", again.pods[0].metadata.name)


# ---------------------------------------------------------------------- claims carried over to the next replica
def storage_class(name: str, binding: str, provisioner: str = "kubernetes.io/no-provisioner", **meta: Any) -> Json:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": name, **meta},
        "provisioner": provisioner,
        "volumeBindingMode": binding,
    }


def local_pv(name: str, node: str, size: str = "10Gi", modes: tuple[str, ...] = ("ReadWriteOnce",)) -> Json:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name},
        "spec": {
            "capacity": {"storage": size},
            "accessModes": list(modes),
            "storageClassName": "local",
            "local": {"path": f"/mnt/{name}"},
            "nodeAffinity": {
                "required": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}
                    ]
                }
            },
        },
    }


def claim(name: str, class_name: str | None, modes: tuple[str, ...] = ("ReadWriteOnce",)) -> Json:
    spec: Json = {"accessModes": list(modes), "resources": {"requests": {"storage": "5Gi"}}}
    if class_name is not None:
        spec["storageClassName"] = class_name
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name}, "spec": spec}


def stateful_set(name: str, replicas: int, class_name: str, **extra: Any) -> Json:
    template = {"metadata": {"name": "data"}, "spec": claim("data", class_name)["spec"]}
    return deployment(
        name, replicas, {"containers": [container()]}, kind="StatefulSet", volumeClaimTemplates=[template], **extra
    )


THREE_NODES = [make_node("n1"), make_node("n2"), make_node("n3")]


def placed(*docs: Json, nodes: list[Any] = THREE_NODES) -> tuple[Snapshot, CheckReport]:
    snapshot = make_snapshot(*(n.obj() for n in nodes))
    source = ManifestSource(["-"], stdin=io.BytesIO(stream(*docs)))
    workloads = source.load_into(snapshot)
    placements = place(snapshot, workloads, default_config(), applied_claims=source.applied_claims)
    return snapshot, valid(build_check_report(placements, snapshot))


def test_stateful_set_ordinals_take_the_local_volumes_one_by_one() -> None:
    snapshot, report = placed(
        storage_class("local", "WaitForFirstConsumer"),
        local_pv("pv-a", "n1"),
        local_pv("pv-b", "n2"),
        stateful_set("db", 3, "local"),
    )
    (workload,) = report.workloads
    assert [r.name for r in workload.replicas] == ["db-0", "db-1", "db-2"]
    assert sorted(n for n in nodes_of(workload) if n) == ["n1", "n2"]
    pending = workload.replicas[2]
    assert pending.node is None and pending.created
    assert pending.message.startswith(
        "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind."
    )
    claims = snapshot.persistent_volume_claims
    for ordinal, replica in enumerate(workload.replicas[:2]):
        pvc = claims[f"default/data-db-{ordinal}"]
        pv = snapshot.persistent_volumes[pvc.spec.volume_name]
        assert pvc.status.phase == "Bound" and "pv.kubernetes.io/bind-completed" in pvc.metadata.annotations
        assert pv.spec.claim_ref is not None and pv.spec.claim_ref.name == pvc.metadata.name
        assert pv.spec.claim_ref.uid == pvc.metadata.uid and pv.status.phase == "Bound"
        # The volume is on the node its replica went to.
        assert pv.metadata.name == {"n1": "pv-a", "n2": "pv-b"}[replica.node or ""]
    third = claims["default/data-db-2"]
    assert third.spec.volume_name == "" and third.status.phase == "Pending"


def test_stateful_set_claims_are_mounted_under_the_templates_names() -> None:
    _, (workload,) = load(
        [make_node("n1").obj()], storage_class("local", "WaitForFirstConsumer"), stateful_set("db", 2, "local")
    )
    for ordinal, pod in enumerate(workload.pods):
        (volume,) = pod.spec.volumes
        assert volume.name == "data"
        assert volume.persistent_volume_claim is not None
        assert volume.persistent_volume_claim.claim_name == f"data-db-{ordinal}"
        assert pod.metadata.labels["statefulset.kubernetes.io/pod-name"] == f"db-{ordinal}"


def test_provisioned_claims_get_the_selected_node() -> None:
    csi = storage_class("fast", "WaitForFirstConsumer", provisioner="csi.example.com")
    snapshot, report = placed(csi, stateful_set("db", 2, "fast", podManagementPolicy="Parallel"))
    (workload,) = report.workloads
    assert workload.placed == 2
    for ordinal, replica in enumerate(workload.replicas):
        pvc = snapshot.persistent_volume_claims[f"default/data-db-{ordinal}"]
        assert pvc.metadata.annotations["volume.kubernetes.io/selected-node"] == replica.node
        assert pvc.spec.volume_name == ""


def test_a_shared_provisioned_claim_keeps_later_replicas_on_its_node() -> None:
    csi = storage_class("fast", "WaitForFirstConsumer", provisioner="csi.example.com")
    spec = {"containers": [container()], "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "shared"}}]}
    _, report = placed(csi, claim("shared", "fast"), deployment("web", 3, spec))
    nodes = nodes_of(report.workloads[0])
    assert None not in nodes and len(set(nodes)) == 1


def test_a_read_write_once_pod_claim_serves_one_replica() -> None:
    spec = {"containers": [container()], "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "solo"}}]}
    _, report = placed(
        storage_class("local", "WaitForFirstConsumer"),
        local_pv("pv-a", "n1", modes=("ReadWriteOncePod",)),
        claim("solo", "local", modes=("ReadWriteOncePod",)),
        deployment("web", 2, spec),
    )
    first, second = report.workloads[0].replicas
    assert first.node == "n1"
    assert second.node is None
    assert "ReadWriteOncePod access mode already in-use by another pod" in second.message


@pytest.mark.parametrize(
    ("objects", "fits", "volume"),
    [
        # An Immediate claim the chart ships is provisioned at once by its class's provisioner.
        ([storage_class("std", "Immediate", provisioner="csi.example.com")], True, "pvc-"),
        # ... or bound to a matching PV, whatever its node (the scheduler then follows the PV).
        (
            [
                storage_class("std", "Immediate"),
                {**local_pv("pv-a", "n2"), "spec": {**local_pv("pv-a", "n2")["spec"], "storageClassName": "std"}},
            ],
            True,
            "pv-a",
        ),
        # Neither: it stays Pending, and so does the pod.
        ([storage_class("std", "Immediate")], False, ""),
    ],
    ids=["provisioned", "static", "unbound"],
)
def test_immediate_claims_are_bound_when_applied(objects: list[Json], fits: bool, volume: str) -> None:
    spec = {"containers": [container()], "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}
    snapshot, report = placed(*objects, claim("data", "std"), deployment("web", 1, spec))
    (replica,) = report.workloads[0].replicas
    pvc = snapshot.persistent_volume_claims["default/data"]
    assert pvc.spec.volume_name.startswith(volume) if volume else pvc.spec.volume_name == ""
    if fits:
        assert replica.node == ("n2" if volume == "pv-a" else "n1")
    else:
        assert replica.node is None and "pod has unbound immediate PersistentVolumeClaims" in replica.message


def test_claims_without_a_class_get_the_default_one() -> None:
    default = storage_class(
        "std",
        "WaitForFirstConsumer",
        provisioner="csi.example.com",
        annotations={"storageclass.kubernetes.io/is-default-class": "true"},
    )
    spec = {"containers": [container()], "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}
    snapshot, report = placed(default, claim("data", None), deployment("web", 1, spec))
    assert snapshot.persistent_volume_claims["default/data"].spec.storage_class_name == "std"
    assert report.workloads[0].placed == 1


def test_generic_ephemeral_volumes_get_their_claims() -> None:
    csi = storage_class("fast", "WaitForFirstConsumer", provisioner="csi.example.com")
    template = {"spec": claim("x", "fast")["spec"]}
    spec = {
        "containers": [container()],
        "volumes": [{"name": "scratch", "ephemeral": {"volumeClaimTemplate": template}}],
    }
    snapshot, report = placed(csi, deployment("web", 2, spec))
    (workload,) = report.workloads
    assert workload.placed == 2
    for replica in workload.replicas:
        pvc = snapshot.persistent_volume_claims[f"default/{replica.name}-scratch"]
        assert pvc.metadata.owner_references[0].name == replica.name
        assert pvc.metadata.annotations["volume.kubernetes.io/selected-node"] == replica.node


# ---------------------------------------------------------------------- the CheckReport schema
def test_every_kind_of_replica_validates_and_the_schema_is_strict(
    cluster: Path, tmp_path: Path, check_schema_validator: Any
) -> None:
    busy = (
        "- kind: Pod\n  metadata: {name: busy}\n"
        "  spec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: '4'}}}]}\n"
    )
    (tmp_path / "busy.yaml").write_text(CLUSTER + busy)
    manifests = stream(
        deployment("agent", 0, DAEMON_SPEC, kind="DaemonSet"),
        deployment("db", 3, {"containers": [container(cpu="3")]}, kind="StatefulSet"),
        job("batch", parallelism=2),
        CRON_JOB,
    )
    code, out, _ = invoke("-f", "-", "--from", str(tmp_path / "busy.yaml"), "-o", "json", input=manifests)
    assert code == 1
    report = json.loads(out)
    check_schema_validator.validate(report)
    agent, db, _, _ = report["workloads"]
    assert {r["targetNode"] for r in agent["replicas"]} == {"n1", "n2"}
    assert [r["created"] for r in db["replicas"]] == [True, True, False]
    for broken in (
        {**report, "kind": "Explanation"},
        {**report, "summary": {**report["summary"], "pending": "one"}},
        {**report, "workloads": [{**agent, "replicas": [{**agent["replicas"][0], "node": 5}]}]},
    ):
        with pytest.raises(jsonschema.ValidationError):
            check_schema_validator.validate(broken)


def test_a_chart_storage_class_binds_immediate_unless_it_says_otherwise() -> None:
    sc = storage_class("std", "Immediate", provisioner="csi.example.com")
    del sc["volumeBindingMode"]
    spec = {"containers": [container()], "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}
    snapshot, report = placed(sc, claim("data", "std"), deployment("web", 1, spec))
    assert snapshot.storage_classes["std"].volume_binding_mode == "Immediate"
    assert snapshot.persistent_volume_claims["default/data"].spec.volume_name.startswith("pvc-")
    assert report.workloads[0].placed == 1


def test_the_table_names_the_node_a_pending_daemon_pod_is_for(tmp_path: Path) -> None:
    cluster = tmp_path / "busy.yaml"
    cluster.write_text(
        CLUSTER + "- kind: Pod\n  metadata: {name: busy}\n"
        "  spec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: '4'}}}]}\n"
    )
    agent = stream(deployment("agent", 0, DAEMON_SPEC, kind="DaemonSet"))
    code, out, _ = invoke("-f", "-", "--from", str(cluster), input=agent)
    assert code == 1
    assert "Pending (for n1)" in out and "Insufficient cpu" in out
