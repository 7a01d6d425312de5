"""`podwhy check` as a cluster would run it: scenario folders under tests/scenarios-check/, each a
cluster (small YAML files, or fixtures named in its case.json) and manifests.yaml. Each renders a
JSON report (validated against the committed CheckReport schema), the table and `-o wide` at a
fixed width without colour, and `-o markdown`, snapshotted; the key facts of each are asserted
explicitly too, so that a change fails for its reason and not only as a snapshot diff."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from typer.testing import CliRunner

from podwhy.cli import app
from tests.paths import TESTS

# Every output here is produced with the clock years ahead, in a time zone far from UTC
# (tests/cli/test_clock.py): none of it may depend on either.
pytestmark = pytest.mark.usefixtures("moved_clock")

CASES = TESTS / "scenarios-check"
NAMES = sorted(p.name for p in CASES.iterdir() if (p / "manifests.yaml").is_file())
Json = dict[str, Any]


def _argv(name: str) -> list[str]:
    """`check -f manifests.yaml --from ... --complete`, with the case's sources (default: its
    cluster/ folder) and extra arguments, relative to its folder; without --complete when its
    case.json says `"complete": false` (a dump that cannot vouch for every kind)."""
    case = CASES / name / "case.json"
    spec: Json = json.loads(case.read_text()) if case.is_file() else {}
    sources = [a for source in spec.get("from", ["cluster"]) for a in ("--from", source)]
    complete = ["--complete"] if spec.get("complete", True) else []
    return ["check", "-f", "manifests.yaml", *sources, *complete, *spec.get("args", [])]


def _invoke(name: str, monkeypatch: pytest.MonkeyPatch, *extra: str) -> tuple[int, str, str]:
    # Run from the case's folder: every path in the report is then the one its case.json names.
    monkeypatch.chdir(CASES / name)
    result = CliRunner().invoke(app, [*_argv(name), *extra], env={"COLUMNS": "120", "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


def _report(name: str, monkeypatch: pytest.MonkeyPatch, validator: Any) -> tuple[int, Json]:
    code, out, err = _invoke(name, monkeypatch, "-o", "json")
    assert code in (0, 1, 3), err
    report: Json = json.loads(out)
    validator.validate(report)
    return code, report


def test_every_folder_is_a_case() -> None:
    folders = sorted(p.name for p in CASES.iterdir() if p.is_dir())
    assert folders == NAMES
    assert set(NAMES) == set(FACTS)


@pytest.mark.parametrize("name", NAMES)
def test_json(
    name: str, snapshot: SnapshotAssertion, monkeypatch: pytest.MonkeyPatch, check_schema_validator: Any
) -> None:
    _code, report = _report(name, monkeypatch, check_schema_validator)
    assert report == snapshot


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("output", ["table", "wide", "markdown"])
def test_text(name: str, output: str, snapshot: SnapshotAssertion, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = _invoke(name, monkeypatch, "-o", output)
    assert code in (0, 1, 3), err
    assert out == snapshot


@pytest.mark.parametrize("name", NAMES)
def test_junit(name: str, snapshot: SnapshotAssertion, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    code, _out, err = _invoke(name, monkeypatch, "--junit", str(tmp_path / "report.xml"))
    assert code in (0, 1, 3), err
    assert (tmp_path / "report.xml").read_text() == snapshot


# ------------------------------------------------------------------ key facts, case by case
@dataclass(frozen=True)
class Facts:
    exit_code: int
    # Per workload ("namespace/name (Kind)", in the manifests' order): each replica's node, None
    # while it stays Pending.
    nodes: dict[str, list[str | None]]
    # Per workload with evictions: the pods each replica's preemption evicted, and the budgets broken.
    evicted: dict[str, list[list[str]]] = field(default_factory=dict)
    violated_pdbs: dict[str, list[list[str]]] = field(default_factory=dict)
    # Per workload: a phrase of the message of each Pending replica.
    pending_says: dict[str, str] = field(default_factory=dict)
    not_checked: list[Json] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Per workload the cluster already runs: fields of its rollout (status, removed, steps...).
    rollout: dict[str, Json] = field(default_factory=dict)
    # Replicas placed without every input evaluated (exit 3).
    inconclusive: int = 0
    # Per workload with suggestions (a policy refuses its pods): their kinds.
    suggested: dict[str, list[str]] = field(default_factory=dict)


DRA_NODE = "dra-example-driver-cluster-worker"
OLD_KUBELET = (
    "some kubelets (v1.25) are more than 3 minor releases older than the control plane's v1.35: outside the supported "
    "version skew, their nodes may not report what the scheduler reads"
)
NO_VICTIMS = "No preemption victims found for incoming pod"


def _reports_pod(suffix: str) -> str:
    return f"shop/reports-5d8f7c9b4-{suffix} (shop/reports (Deployment))"


WEB, DB, AGENT = "shop/web (Deployment)", "shop/db (StatefulSet)", "shop/agent (DaemonSet)"


def _web(suffix: str) -> str:
    return f"web-7c9d8f6b5-{suffix}"


def _step(old: int, new: int, placed: int) -> Json:
    return {"old": old, "new": new, "newPlaced": placed}


FACTS: dict[str, Facts] = {
    # RuntimeClass admission (issue 35): kata's node selector keeps web on node-1, where its host
    # port fits once; gvisor does not exist, so the Pod is refused. The API server's warnings on
    # creating web are printed as kubectl prints them.
    "admission": Facts(
        1,
        {"shop/web (Deployment)": ["node-1", None], "shop/probe (Pod)": [None]},
        pending_says={
            "shop/web (Deployment)": "1 node(s) didn't have free ports for the requested pod ports",
            "shop/probe (Pod)": 'pods "probe" is forbidden: pod rejected: RuntimeClass "gvisor" not found',
        },
        warnings=[
            "Warning: spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "
            '"kubernetes.io/os" instead (the API server, creating Deployment shop/web)',
            'Warning: would violate PodSecurity "baseline:latest": hostPort (container "web" uses hostPort 8080) '
            "(the API server, creating Deployment shop/web)",
        ],
    ),
    # A ValidatingAdmissionPolicy (Deny) bound to production namespaces refuses shop/web's pods
    # (no memory limit); sandbox's are not selected; shop/api has its limit.
    "policy-deny": Facts(
        1,
        {
            "shop/web (Deployment)": [None, None],
            "sandbox/web (Deployment)": ["node-1"],
            "shop/api (Deployment)": ["node-2"],
        },
        pending_says={
            "shop/web (Deployment)": "ValidatingAdmissionPolicy 'require-resource-limits' with binding "
            "'require-resource-limits-binding' denied request: memory limits are required: container web has none",
        },
        suggested={"shop/web (Deployment)": ["satisfyPolicy"]},
    ),
    # The same policy bound with Warn: the Pod is created, kubectl's warning said.
    "policy-warn": Facts(
        0,
        {"shop/debug (Pod)": ["node-1"]},
        warnings=[
            "Warning: Validation failed for ValidatingAdmissionPolicy 'require-resource-limits' with binding "
            "'require-resource-limits-warn': memory limits are required: container shell has none (the API server, "
            "creating Pod shop/debug)"
        ],
    ),
    # A MutatingAdmissionPolicy (v1beta1: the cluster turned its gate on) labels the Job's pods and
    # adds the spot toleration: both replicas fit on the tainted spot node only.
    "policy-mutate": Facts(
        0,
        {"batch/render (Job)": ["spot-1", "spot-1"]},
        warnings=[
            "the cluster serves MutatingAdmissionPolicies (admissionregistration.k8s.io/v1beta1): it has "
            "MutatingAdmissionPolicy on, which is off by default in v1.35; podwhy emulates v1.35 with it on"
        ],
    ),
    # A policy whose params are a ConfigMap of the pod's namespace (paramRef without namespace):
    # shop's allows 512Mi, so cache's pod (1Gi) is refused in words built from the params; web
    # (256Mi) is placed, and ml's ConfigMap (4Gi) admits trainer (2Gi).
    "policy-params": Facts(
        1,
        {
            "shop/cache (Deployment)": [None],
            "shop/web (Deployment)": ["node-1"],
            "ml/trainer (Deployment)": ["node-2"],
        },
        pending_says={
            "shop/cache (Deployment)": "ValidatingAdmissionPolicy 'max-memory-limit' with binding "
            "'max-memory-limit-binding' denied request: memory limits in namespace shop are at most 512Mi "
            "(ConfigMap memory-limits): container redis asks for more",
        },
    ),
    # Gatekeeper's webhook meets every pod: never called, so the placed Pod is Inconclusive.
    "webhook-inconclusive": Facts(3, {"shop/debug (Pod)": ["node-1"]}, inconclusive=1),
    # A validation that does not compile refuses every pod under failurePolicy Fail.
    "policy-compile-error": Facts(
        1,
        {"shop/debug (Pod)": [None]},
        pending_says={"shop/debug (Pod)": "compilation error: compilation failed: ERROR: <input>:1:68:"},
    ),
    # One GPU for the shared claim of pod0 and pod1: 7 left for the Job's 8 template claims.
    "shared-claim": Facts(
        1,
        {
            "gpu-test4/pod0 (Pod)": [DRA_NODE],
            "gpu-test4/pod1 (Pod)": [DRA_NODE],
            "gpu-test4/others (Job)": [DRA_NODE] * 7 + [None],
        },
        pending_says={"gpu-test4/others (Job)": "0/1 nodes are available: 1 cannot allocate all claims."},
        warnings=[OLD_KUBELET],
    ),
    # A claim per pod from the template: 2 for the pods, 6 of the 7 replicas get the other GPUs.
    "template-claim": Facts(
        1,
        {
            "gpu-test1/pod0 (Pod)": [DRA_NODE],
            "gpu-test1/pod1 (Pod)": [DRA_NODE],
            "gpu-test1/trainer (Deployment)": [DRA_NODE] * 6 + [None],
        },
        pending_says={"gpu-test1/trainer (Deployment)": "1 cannot allocate all claims. still not schedulable"},
        warnings=[OLD_KUBELET],
    ),
    # Each replica evicts one reports pod: on node-2 the newest first (the older one is reprieved,
    # the budget allowing no disruption either way), then node-1's newer once node-2 is full.
    "preempt-deployment": Facts(
        0,
        {"shop/checkout (Deployment)": ["node-2", "node-2", "node-1"]},
        evicted={"shop/checkout (Deployment)": [[_reports_pod(s)] for s in ("x5rwd", "x7bzc", "x9vqt")]},
        violated_pdbs={"shop/checkout (Deployment)": [["shop/reports-pdb"]] * 3},
    ),
    "pinned-missing-node": Facts(
        1,
        {
            "default/on-missing-node (Pod)": [None],
            "default/pinned-ok (Pod)": ["node-1"],
            "default/pinned-too-big (Pod)": [None],
            "default/scheduled (Pod)": ["node-1"],
        },
        pending_says={
            "default/on-missing-node (Pod)": "spec.nodeName names node node-9, which does not exist",
            "default/pinned-too-big (Pod)": (
                "the kubelet of node-1 rejects it (spec.nodeName): OutOfcpu: Node didn't have enough resource: cpu, "
                "requested: 1000, used: 1500, capacity: 2000"
            ),
        },
    ),
    "replication-controller": Facts(
        1,
        {"default/nginx (ReplicationController)": ["node-1", "node-1", None]},
        pending_says={"default/nginx (ReplicationController)": "0/1 nodes are available: 1 Insufficient cpu."},
    ),
    # The Rollout is listed, not placed; the Job's pods are placed, its podFailurePolicy listed.
    "crd-not-checked": Facts(
        0,
        {"default/train (Job)": ["node-1", "node-1"]},
        not_checked=[
            {"kind": "Rollout", "count": 1, "field": ""},
            {"kind": "Job", "count": 1, "field": "spec.podFailurePolicy"},
        ],
    ),
    # Placed urgent (1000), medium (500), then low (0), whatever the manifests' order; low preempts nothing.
    "priority-order": Facts(
        1,
        {
            "default/low (Deployment)": [None, None],
            "default/medium (Pod)": ["node-1"],
            "default/urgent (StatefulSet)": ["node-1"],
        },
        pending_says={"default/low (Deployment)": NO_VICTIMS},
    ),
    # maxSurge 1, maxUnavailable 0 of 3: the surge pod takes node-2, then each old pod removed from
    # node-1 makes room for the next new one there.
    "rollout-completes": Facts(
        0,
        {WEB: ["node-2", "node-1", "node-1"]},
        rollout={
            WEB: {
                "status": "Completes",
                "removed": [_web(s) for s in ("a1b2c", "d3e4f", "g5h6j")],
                "steps": [_step(2, 1, 1), _step(1, 2, 2), _step(0, 3, 3)],
                "maxSurge": 1,
                "maxUnavailable": 0,
            }
        },
    ),
    # 2 CPUs a new pod: the surge pod takes node-2 and one old pod goes; the second new pod fits in
    # no node's 1 CPU left, and no other old pod may go (maxUnavailable 0): 2 old, 2 new (1 Pending).
    "rollout-stalls": Facts(
        1,
        {WEB: ["node-2", None]},
        pending_says={WEB: "0/2 nodes are available: 2 Insufficient cpu."},
        rollout={
            WEB: {
                "status": "Stalls",
                "removed": [_web("a1b2c")],
                "steps": [_step(2, 1, 1), _step(2, 2, 1)],
                "progressDeadlineSeconds": 300,
            }
        },
    ),
    # No room for a surge pod: Recreate removes all three first; no fenceposts to report.
    "recreate": Facts(
        0,
        {WEB: ["node-1"] * 3},
        rollout={WEB: {"status": "Completes", "newReplicas": 3, "maxSurge": None, "maxUnavailable": None}},
    ),
    # Unscheduled, then Pending, then the Ready pods with the lower deletion cost on node-1 (running
    # 3 of web's pods against node-2's 2), the most recently Ready first.
    "scale-down": Facts(
        0,
        {WEB: []},
        rollout={
            WEB: {
                "status": "Unchanged",
                "replicas": 2,
                "removed": [_web(s) for s in ("qz4tn", "m7xkd", "b8rwp", "c2vlh")],
            }
        },
    ),
    # No replicas in the manifest: the 4 the HPA set are kept (maxSurge 1, maxUnavailable 1 of 4).
    "hpa-no-replicas": Facts(
        0,
        {WEB: ["node-1", "node-2", "node-1", "node-2"]},
        rollout={WEB: {"status": "Completes", "replicas": 4, "maxSurge": 1, "maxUnavailable": 1}},
    ),
    "unchanged": Facts(0, {WEB: []}, rollout={WEB: {"status": "Unchanged", "removed": [], "oldReplicas": 3}}),
    # Partition 1: db-2 then db-1 replaced, each placed before the next goes; db-0 stays.
    "statefulset-partition": Facts(
        0,
        {DB: ["node-2", "node-1"]},
        rollout={DB: {"status": "Completes", "removed": ["db-2", "db-1"], "newReplicas": 2}},
    ),
    # maxSurge 1: node by node, the new pod beside the old one; node-3 has no room for both: its new
    # pod stays Pending, its old one keeps running, and the update stops there.
    "daemonset-surge": Facts(
        1,
        {AGENT: ["node-1", "node-2", None]},
        pending_says={AGENT: "1 Insufficient cpu"},
        rollout={
            AGENT: {
                "status": "Stalls",
                "removed": ["agent-x4k2p", "agent-r8m5t"],
                "steps": [_step(3, 1, 1), _step(2, 2, 2), _step(1, 3, 2)],
                "maxSurge": 1,
                "maxUnavailable": 0,
            }
        },
    ),
    # maxUnavailable 2: two nodes lose their old pod first, then node-3, whose new pod takes its room.
    "daemonset-unavailable": Facts(
        0,
        {AGENT: ["node-1", "node-2", "node-3"]},
        rollout={
            AGENT: {
                "status": "Completes",
                "removed": ["agent-x4k2p", "agent-r8m5t", "agent-w2n7c"],
                "steps": [_step(1, 0, 0), _step(0, 2, 2), _step(0, 3, 3)],
                "maxSurge": 0,
                "maxUnavailable": 2,
            }
        },
    ),
    "statefulset-ondelete": Facts(0, {DB: []}, rollout={DB: {"status": "WaitsForDeletion", "removed": []}}),
    # A full node: no room for a surge pod, but maxSurge 0 and maxUnavailable 1 let an old pod go
    # first, and each new one takes the room its old one left.
    "rollout-max-unavailable": Facts(
        0,
        {WEB: ["node-1", "node-1", "node-1"]},
        rollout={
            WEB: {
                "status": "Completes",
                "removed": [_web(s) for s in ("a1b2c", "d3e4f", "g5h6j")],
                "steps": [_step(2, 0, 0), _step(1, 1, 1), _step(0, 2, 2), _step(0, 3, 3)],
                "maxSurge": 0,
                "maxUnavailable": 1,
            }
        },
    ),
    # The same template scaled from 3 to 5: node-2's one free CPU takes the first pod added, the
    # second stays Pending; nothing is rolled out.
    "scale-up": Facts(
        1,
        {WEB: ["node-2", None]},
        pending_says={WEB: "0/2 nodes are available: 2 Insufficient cpu."},
        rollout={WEB: {"status": "Unchanged", "removed": [], "oldReplicas": 3, "newReplicas": 1}},
    ),
    # A rollback: the manifest's template is revision 1's (ReplicaSet web-6b7f9c8d4, scaled to 0): the
    # controller scales that ReplicaSet up again (FindNewReplicaSet, EqualIgnoreHash), creating none.
    "rollout-rollback": Facts(
        0,
        {WEB: ["node-2", "node-1", "node-1"]},
        rollout={WEB: {"status": "Completes", "existingReplicaSet": "web-6b7f9c8d4", "newReplicas": 3}},
    ),
    # A paused Deployment given a new image: no new ReplicaSet (DeploymentPaused), the old pods keep
    # running; the rollout does not complete: exit 1, a JUnit failure.
    "rollout-paused": Facts(1, {WEB: []}, rollout={WEB: {"status": "Paused", "removed": [], "oldReplicas": 3}}),
    # A Job's changed template cannot be applied: nothing is placed, its 2 pods keep running.
    "job-immutable": Facts(
        1, {"shop/train (Job)": []}, rollout={"shop/train (Job)": {"status": "Immutable", "oldReplicas": 2}}
    ),
    # parallelism 2 -> 4 of a Job running 2 of 6 completions: parallelism is mutable, the Job
    # controller creates 2 more pods (manageJob: min(parallelism, completions - succeeded)).
    "job-parallelism": Facts(
        0,
        {"shop/train (Job)": ["node-1", "node-1"]},
        rollout={"shop/train (Job)": {"status": "Unchanged", "oldReplicas": 2, "newReplicas": 2, "job": "Runs"}},
    ),
    # The same template scaled from 2 to 6 (OrderedReady): db-2 and db-3 take node-2, db-4 stays
    # Pending, and the controller never creates db-5 while db-4 is not Running and Ready.
    "statefulset-scale-up": Facts(
        1,
        {DB: ["node-2", "node-2", None, None]},
        # db-4: the scheduler's message; db-5: "not created: ... once db-4 is Running and Ready"
        # (the snapshot and tests/cluster/controllers/test_rollout.py say each).
        pending_says={DB: ""},
        rollout={DB: {"status": "Unchanged", "oldReplicas": 2, "newReplicas": 2}},
    ),
    # A DaemonSet and two Jobs applied as they run, their pods carrying the zone and region labels
    # PodTopologyLabels admission copied from the nodes: nothing changes, exit 0.
    "topology-labels-unchanged": Facts(
        0,
        {AGENT: [], "shop/train (Job)": [], "shop/etl (Job)": []},
        rollout={
            AGENT: {"status": "Unchanged", "removed": []},
            "shop/train (Job)": {"status": "Unchanged", "removed": [], "comparedPodsOnly": None},
            "shop/etl (Job)": {"status": "Unchanged", "removed": [], "comparedPodsOnly": True},
        },
    ),
    # `kubectl get nodes` alone: every replica "fits" on nodes that look empty, but the room the
    # cluster's pods take is unknown: inconclusive, exit 3.
    "nodes-only": Facts(
        3,
        {"default/heavy (Deployment)": ["node-1", "node-1", "node-1", "node-2"]},
        warnings=[
            "the snapshot holds no Namespaces, Pods, ReplicaSets, ResourceQuotas, Services, so it cannot tell whether"
            " the cluster has none: add them with --from a dump, or pass --complete if the files hold every object"
            " of the cluster: `kubectl get pods,namespaces,services,resourcequotas,replicasets.apps -A -o yaml`;"
            " or take the whole cluster: `podwhy snapshot -o cluster.json.gz`"
        ],
        inconclusive=4,
    ),
    # Five replicas onto the same dump: four "fit", the fifth fits nowhere, but its preemption cannot
    # be evaluated (no PriorityClasses, no Pods to evict): Pending only perhaps, so inconclusive, exit 3.
    "nodes-only-pending": Facts(
        3,
        {"default/heavy (Deployment)": ["node-1", "node-1", "node-1", "node-2", None]},
        pending_says={"default/heavy (Deployment)": "0/2 nodes are available: 2 Insufficient cpu."},
        warnings=[
            "the snapshot holds no Namespaces, Pods, PriorityClasses, ReplicaSets, ResourceQuotas, Services, so it"
            " cannot tell whether the cluster has none: add them with --from a dump, or pass --complete if the files"
            " hold every object of the cluster: `kubectl get"
            " pods,namespaces,services,resourcequotas,priorityclasses.scheduling.k8s.io,replicasets.apps -A -o yaml`;"
            " or take the whole cluster: `podwhy snapshot -o cluster.json.gz`"
        ],
        inconclusive=4,
    ),
    # GPU claims from a template onto a dump without ResourceClaims: which of the 8 GPUs are taken is
    # unknown, so DynamicResources is not evaluated: both placements inconclusive, exit 3.
    "dra-inconclusive": Facts(
        3,
        {"gpu-test5/trainer (Deployment)": [DRA_NODE, DRA_NODE]},
        warnings=[
            OLD_KUBELET,
            "the snapshot holds no ReplicaSets, ResourceClaims, Services, so it cannot tell whether the cluster has"
            " none: add them with --from a dump, or pass --complete if the files hold every object of the cluster:"
            " `kubectl get services,replicasets.apps,resourceclaims.resource.k8s.io -A -o yaml`; or take the whole"
            " cluster: `podwhy snapshot -o cluster.json.gz`",
        ],
        inconclusive=2,
    ),
    # Two pods of web's previous ReplicaSet are being deleted and still hold 2 of node-1's 4 CPUs:
    # the surge pod stays Pending, and fits once they are gone.
    "rollout-waits-for-deletion": Facts(
        1,
        {WEB: [None]},
        # The message is the scheduler's alone; where it fits once they are gone is fitsOnceDeleted
        # (and the group's note, which the table says).
        pending_says={WEB: "Insufficient cpu"},
        rollout={WEB: {"status": "Stalls", "removed": [], "steps": [_step(2, 1, 0)]}},
    ),
    # Three replicas of 2 CPUs no node holds: one group, with explain's causes (8 nodes too small,
    # the most free 1400m on worker-a1; gpu-1's taint); six replicas placed on six edge nodes.
    "pending-causes": Facts(
        1,
        {
            "shop/batch (Deployment)": [None, None, None],
            "shop/edge (Deployment)": [f"edge-{i}" for i in range(1, 7)],
        },
        pending_says={"shop/batch (Deployment)": "8 Insufficient cpu"},
    ),
}


def _key(workload: Json) -> str:
    return f"{workload['namespace']}/{workload['name']} ({workload['kind']})"


@pytest.mark.parametrize("name", NAMES)
def test_key_facts(name: str, monkeypatch: pytest.MonkeyPatch, check_schema_validator: Any) -> None:
    want = FACTS[name]
    code, report = _report(name, monkeypatch, check_schema_validator)
    workloads = {_key(w): w["replicas"] for w in report["workloads"]}
    assert code == want.exit_code
    assert {k: [r["node"] for r in replicas] for k, replicas in workloads.items()} == want.nodes
    assert list(workloads) == list(want.nodes)  # reported in the manifests' order
    evicted = {k: [r["evicted"] for r in rs] for k, rs in workloads.items() if any(r["evicted"] for r in rs)}
    assert evicted == want.evicted
    violated = {k: [r["violatedPdbs"] for r in rs] for k, rs in workloads.items() if any(r["violatedPdbs"] for r in rs)}
    assert violated == want.violated_pdbs
    for key, phrase in want.pending_says.items():
        pending = [r["message"] for r in workloads[key] if r["node"] is None]
        assert pending and all(phrase in message for message in pending), pending
    assert not [k for k, rs in workloads.items() if k not in want.pending_says and any(r["node"] is None for r in rs)]
    assert report["notChecked"] == want.not_checked
    assert report["warnings"] == want.warnings
    rollouts = {_key(w): w["rollout"] for w in report["workloads"] if "rollout" in w}
    assert {k: {f: rollouts[k].get(f) for f in fields} for k, fields in want.rollout.items()} == want.rollout
    summary = report["summary"]
    placed = sum(node is not None for nodes in want.nodes.values() for node in nodes)
    assert (summary["placed"], summary["pending"]) == (placed, sum(map(len, want.nodes.values())) - placed)
    assert summary["inconclusive"] == want.inconclusive
    suggested = {_key(w): [s["kind"] for s in w["suggestions"]] for w in report["workloads"] if w.get("suggestions")}
    assert suggested == want.suggested


def _merged(target: Any, patch: Any) -> Any:
    """RFC 7386."""
    if not isinstance(patch, dict) or not isinstance(target, dict):
        return patch
    out = dict(target)
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = _merged(out.get(key), value)
    return out


def test_the_suggestion_for_a_policy_refusal_makes_the_manifest_pass(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, check_schema_validator: Any
) -> None:
    """policy-deny's suggestion (satisfyPolicy), its merge patch applied to the manifest: checked
    again, shop/web's replicas are created and placed, where the suggestion said they fit."""
    import yaml

    _, report = _report("policy-deny", monkeypatch, check_schema_validator)
    (web,) = [w for w in report["workloads"] if _key(w) == "shop/web (Deployment)"]
    (suggestion,) = web["suggestions"]
    assert suggestion["command"].startswith("kubectl patch deployment web -n shop --type strategic -p ")
    (patch,) = suggestion["patches"]
    documents = list(yaml.safe_load_all((CASES / "policy-deny" / "manifests.yaml").read_text()))
    changed = [
        _merged(d, patch["patch"])
        if (d["kind"], d["metadata"]["namespace"], d["metadata"]["name"]) == ("Deployment", "shop", "web")
        else d
        for d in documents
    ]
    (tmp_path / "manifests.yaml").write_text(yaml.safe_dump_all(changed))
    cluster = str(CASES / "policy-deny" / "cluster")
    result = CliRunner().invoke(
        app,
        ["check", "-f", str(tmp_path / "manifests.yaml"), "--from", cluster, "--complete", "--kube-version", "1.35"],
        env={"COLUMNS": "120", "NO_COLOR": "1"},
    )
    assert result.exit_code == 0, result.stdout
    assert result.stdout.startswith("4/4 replicas placed")
    assert set(suggestion["nodes"]) == {"node-1", "node-2"}


@pytest.mark.parametrize("name", [name for name in NAMES if FACTS[name].exit_code == 3])
def test_inconclusive_is_said_everywhere(name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Exit 3: the first line, the markdown heading and the JUnit <error> all say why; never "everything fits"."""
    code, out, _ = _invoke(name, monkeypatch, "--junit", str(tmp_path / "report.xml"))
    first = out.split("\n┏")[0]
    assert code == 3 and first.startswith("inconclusive: ") and "not evaluated: " in first
    assert "everything fits" not in out
    _, markdown, _ = _invoke(name, monkeypatch, "-o", "markdown")
    assert " ".join(markdown.splitlines()[0].split()) == "### podwhy check: " + " ".join(first.split())
    junit = (tmp_path / "report.xml").read_text()
    assert 'failures="0" errors="1"' in junit and '<error type="Inconclusive" message=' in junit


def test_preemption_is_said_in_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    _code, out, _err = _invoke("preempt-deployment", monkeypatch, "-o", "wide")
    assert out.startswith("3/3 replicas placed in 1 workload: everything fits; preemption evicts 3 pods\n")
    assert out.count("placed by preempting 1 pod(s) on node-") == 3
