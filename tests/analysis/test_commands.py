"""Suggestions' commands per owner kind: each one, run against the cluster's objects by a small
kubectl stand-in, changes the template the owner makes its next pods from (or the pod itself) so
that a pod made from it fits, and replaces the Pending pods the owner would not replace itself."""

from __future__ import annotations

import copy
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec
import pytest

from podwhy.analysis.commands import created_patch_command
from podwhy.analysis.owners import owner_of
from podwhy.analysis.pending import pending_group
from podwhy.analysis.suggest import Suggestion, suggest, template_owner
from podwhy.model import objects as o
from podwhy.report.words.suggest import command_text
from podwhy.scheduler.config import default_profile
from podwhy.scheduler.cycle import run_cycle
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict
from tests.analysis.test_suggest import merge_patch
from tests.builders import make_node, make_pod, make_snapshot

Json = dict[str, Any]
NS = "shop"
JOB_UID = "0f1e2d3c-aaaa-bbbb-cccc-000000000001"
KINDS = {
    "pod": "Pod",
    "job": "Job",
    "cronjob": "CronJob",
    "deployment": "Deployment",
    "replicaset": "ReplicaSet",
    "replicationcontroller": "ReplicationController",
    "statefulset": "StatefulSet",
    "daemonset": "DaemonSet",
}


# ---------------------------------------------------------------- RFC 6902, written for the tests


def _pointer(path: str) -> list[str]:
    return [part.replace("~1", "/").replace("~0", "~") for part in path.split("/")[1:]]


def json_patch(doc: Any, ops: list[Json]) -> Any:
    """RFC 6902 add / replace / remove (what kubectl's --type json applies); KeyError or
    IndexError where a path the op needs is not there."""
    out = copy.deepcopy(doc)
    for op in ops:
        *parents, last = _pointer(op["path"])
        target = out
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        if isinstance(target, list):
            index = len(target) if last == "-" else int(last)
            if op["op"] == "add":
                assert 0 <= index <= len(target)
                target.insert(index, copy.deepcopy(op["value"]))
            elif op["op"] == "replace":
                target[index] = copy.deepcopy(op["value"])
            else:
                del target[index]
        else:
            if op["op"] == "add":
                target[last] = copy.deepcopy(op["value"])
            elif op["op"] == "replace":
                if last not in target:
                    raise KeyError(last)
                target[last] = copy.deepcopy(op["value"])
            else:
                del target[last]
    return out


@pytest.mark.parametrize(
    ("doc", "ops", "expected"),
    [
        ({"a": {"b": 1}}, [{"op": "add", "path": "/a/c", "value": 2}], {"a": {"b": 1, "c": 2}}),
        ({"a": [1, 2]}, [{"op": "add", "path": "/a/-", "value": 3}], {"a": [1, 2, 3]}),
        ({"a": [1, 2]}, [{"op": "remove", "path": "/a/0"}], {"a": [2]}),
        ({"a/b": {"~": 1}}, [{"op": "replace", "path": "/a~1b/~0", "value": 2}], {"a/b": {"~": 2}}),
    ],
)
def test_json_patch_follows_rfc_6902(doc: Json, ops: list[Json], expected: Json) -> None:
    assert json_patch(doc, ops) == expected


def test_json_patch_fails_on_a_missing_path() -> None:
    with pytest.raises(KeyError):
        json_patch({"a": {}}, [{"op": "replace", "path": "/a/b", "value": 1}])
    with pytest.raises(KeyError):
        json_patch({"a": {}}, [{"op": "remove", "path": "/a/b"}])


# ---------------------------------------------------------------- a kubectl stand-in


@dataclass
class Cluster:
    """One namespace's objects by (kind, name), changed as the API server would change them."""

    objects: dict[tuple[str, str], Json]
    # What happened, in order: "patch Deployment web", "delete Pod web-0", "recreate Job j", ...
    log: list[str] = field(default_factory=list)

    def run(self, command: str) -> None:
        """Run `a | b && c ...` (the shell comment dropped), each stage a kubectl command."""
        words = shlex.split(command, comments=True)
        for sequence in _split(words, "&&"):
            piped: Json | None = None
            for stage in _split(sequence, "|"):
                assert stage[0] == "kubectl", stage
                piped = self._kubectl(stage[1:], piped)

    def _kubectl(self, args: list[str], stdin: Json | None) -> Json | None:
        verb, rest = args[0], args[1:]
        opts: dict[str, str] = {}
        flags: set[str] = set()
        positional: list[str] = []
        i = 0
        while i < len(rest):
            word = rest[i]
            if word in ("-n", "--type", "-p", "-o", "-f"):
                opts[word] = rest[i + 1]
                i += 2
                continue
            if word.startswith("--from="):
                opts["--from"] = word.removeprefix("--from=")
            elif word.startswith("-"):
                flags.add(word)
            else:
                positional.append(word)
            i += 1
        assert opts.get("-n", NS) == NS
        if verb == "get":
            assert opts["-o"] == "json"
            return copy.deepcopy(self.objects[(KINDS[positional[0]], positional[1])])
        if verb == "patch":
            if "--local" in flags:
                assert opts["-f"] == "-" and stdin is not None and opts["-o"] == "json"
                return _patched(stdin, opts)
            key = (KINDS[positional[0]], positional[1])
            self.objects[key] = _patched(self.objects[key], opts)
            self.log.append(f"patch {key[0]} {key[1]}")
            return None
        if verb == "replace":
            assert flags == {"--force"} and opts["-f"] == "-" and stdin is not None
            key = (stdin["kind"], stdin["metadata"]["name"])
            assert key in self.objects, key
            _admit(stdin)
            self.objects[key] = stdin
            self.log.append(f"recreate {key[0]} {key[1]}")
            return None
        if verb == "delete":
            kind = KINDS[positional[0]]
            for name in positional[1:]:
                del self.objects[(kind, name)]
                self.log.append(f"delete {kind} {name}")
            return None
        if verb == "create":
            assert positional[0] == "job"
            source_kind, _, source = opts["--from"].partition("/")
            assert source_kind == "cronjob"
            template = self.objects[("CronJob", source)]["spec"]["jobTemplate"]
            job = {"kind": "Job", "metadata": {"name": positional[1]}, "spec": copy.deepcopy(template["spec"])}
            _admit(job)
            self.objects[("Job", positional[1])] = job
            self.log.append(f"create Job {positional[1]}")
            return None
        raise AssertionError(f"unexpected kubectl {verb}")


def _split(words: list[str], separator: str) -> list[list[str]]:
    parts: list[list[str]] = [[]]
    for word in words:
        if word == separator:
            parts.append([])
        else:
            parts[-1].append(word)
    return parts


def _patched(doc: Json, opts: dict[str, str]) -> Json:
    return kubectl_patch(doc, opts["--type"], opts["-p"])


def kubectl_patch(doc: Json, patch_type: str, patch_text: str) -> Json:
    """`kubectl patch --type PATCH_TYPE -p PATCH_TEXT` of DOC."""
    import json

    patch = json.loads(patch_text)
    if patch_type == "json":
        return json_patch(doc, patch)  # type: ignore[no-any-return]
    if patch_type == "strategic":
        return strategic_merge_patch(doc, patch)  # type: ignore[no-any-return]
    assert patch_type == "merge"
    return merge_patch(doc, patch)  # type: ignore[no-any-return]


# The lists of a Pod's spec that a strategic merge patch merges by a key (patchMergeKey in
# k8s.io/api/core/v1); every other list is replaced whole, as in RFC 7386.
MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "volumes": "name",
    "env": "name",
    "ports": "containerPort",
    "volumeMounts": "mountPath",
    "imagePullSecrets": "name",
    "resourceClaims": "name",
}


def strategic_merge_patch(target: Any, patch: Any) -> Any:
    """kubectl's strategic merge patch of a Pod or a workload, as far as podwhy's commands use it:
    objects merge member by member (null removes one), the lists of MERGE_KEYS merge their entries
    by that key, every other value is replaced."""
    return merge_patch(target, patch, MERGE_KEYS)


def _admit(doc: Json) -> None:
    """What the API server checks when a Job is created: unless its selector is manual, the
    selector and the template's controller-uid labels are generated (none may be given)."""
    if doc["kind"] != "Job" or doc["spec"].get("manualSelector"):
        return
    labels = doc["spec"]["template"].get("metadata", {}).get("labels", {})
    assert "selector" not in doc["spec"], "spec.selector: Invalid value: `selector` not auto-generated"
    assert not {"controller-uid", "batch.kubernetes.io/controller-uid"} & set(labels), labels


# ---------------------------------------------------------------- the cases


def _cluster_nodes() -> list[o.Node]:
    # n1 has 1 CPU left (lower the request to fit there); n2 is empty but tainted (tolerate it).
    return [
        make_node("n1").alloc(cpu="4", memory="8Gi", pods=110).obj(),
        make_node("n2").alloc(cpu="4", memory="8Gi", pods=110).taint("dedicated", "db").obj(),
    ]


def _template(pod: o.Pod) -> Json:
    return {"metadata": {"labels": dict(pod.metadata.labels)}, "spec": msgspec.to_builtins(pod.spec)}


def _workload(kind: str, name: str, spec: Json) -> Json:
    return {"kind": kind, "metadata": {"name": name, "namespace": NS}, "spec": spec}


@dataclass
class Case:
    """The pod's owners in the snapshot and as documents, and what the command must do."""

    # The pod's own controller reference (kind, name); None for a bare pod.
    controller: tuple[str, str] | None
    # Typed objects the snapshot holds besides nodes and pods (ReplicaSets, StatefulSets, Jobs).
    typed: list[tuple[str, Json]]
    # The owners as the API server holds them (the pod's template inside).
    documents: Callable[[o.Pod], list[Json]]
    # The owner template_owner names.
    owner: tuple[str, str] | None
    # Where the next pod's template is once the command ran: (kind, name, JSON pointer).
    template_at: tuple[str, str, str]
    # The log the command leaves (patches, deletions, recreations), in order.
    log: list[str]
    # Words the command's trailing comment must hold.
    says: tuple[str, ...] = ()
    pod_name: str = "p"


def _sts(policy: str = "", strategy: Json | None = None) -> Json:
    spec: Json = {"selector": {"matchLabels": {"app": "db"}}}
    if policy:
        spec["podManagementPolicy"] = policy
    if strategy is not None:
        spec["updateStrategy"] = strategy
    return {"metadata": {"name": "db", "namespace": NS}, "spec": spec}


def _job_document(pod: o.Pod, name: str, manual: bool = False, cron: str | None = None) -> Json:
    template = _template(pod)
    meta: Json = {"name": name, "namespace": NS, "uid": JOB_UID}
    if cron is not None:
        meta["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "CronJob", "name": cron, "controller": True}]
    if manual:
        return {"kind": "Job", "metadata": meta, "spec": {"manualSelector": True, "template": template}}
    template["metadata"]["labels"].update(
        {
            "controller-uid": JOB_UID,
            "batch.kubernetes.io/controller-uid": JOB_UID,
            "job-name": name,
            "batch.kubernetes.io/job-name": name,
        }
    )
    selector = {"matchLabels": {"batch.kubernetes.io/controller-uid": JOB_UID}}
    return {"kind": "Job", "metadata": meta, "spec": {"selector": selector, "template": template}}


def _cron_job_document(pod: o.Pod) -> Json:
    return _workload("CronJob", "nightly", {"jobTemplate": {"spec": {"template": _template(pod)}}})


DEPLOYMENT_RS = ("ReplicaSet", {"metadata": {"name": "web-5d8f", "namespace": NS, "ownerReferences": [
    {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "controller": True}]}})  # fmt: skip
ORPHAN_RS = ("ReplicaSet", {"metadata": {"name": "web-5d8f", "namespace": NS}})
CRON_JOB_JOB = ("Job", {"metadata": {"name": "nightly-29541630", "namespace": NS, "ownerReferences": [
    {"apiVersion": "batch/v1", "kind": "CronJob", "name": "nightly", "controller": True}]}})  # fmt: skip

CASES = {
    "Deployment": Case(
        ("ReplicaSet", "web-5d8f"),
        [DEPLOYMENT_RS],
        lambda pod: [_workload("Deployment", "web", {"template": _template(pod)})],
        ("Deployment", "web"),
        ("Deployment", "web", "/spec/template"),
        ["patch Deployment web"],
    ),
    # The ReplicaSet is not in the snapshot: its name and the pod-template-hash label show the Deployment.
    "Deployment-without-ReplicaSet": Case(
        ("ReplicaSet", "web-5d8f"),
        [],
        lambda pod: [_workload("Deployment", "web", {"template": _template(pod)})],
        ("Deployment", "web"),
        ("Deployment", "web", "/spec/template"),
        ["patch Deployment web"],
    ),
    "orphan-ReplicaSet": Case(
        ("ReplicaSet", "web-5d8f"),
        [ORPHAN_RS],
        lambda pod: [_workload("ReplicaSet", "web-5d8f", {"template": _template(pod)})],
        ("ReplicaSet", "web-5d8f"),
        ("ReplicaSet", "web-5d8f", "/spec/template"),
        ["patch ReplicaSet web-5d8f", "delete Pod p"],
        ("does not replace its pods",),
    ),
    "ReplicationController": Case(
        ("ReplicationController", "legacy"),
        [],
        lambda pod: [_workload("ReplicationController", "legacy", {"template": _template(pod)})],
        ("ReplicationController", "legacy"),
        ("ReplicationController", "legacy", "/spec/template"),
        ["patch ReplicationController legacy", "delete Pod p"],
    ),
    "StatefulSet-OrderedReady": Case(
        ("StatefulSet", "db"),
        [("StatefulSet", _sts("OrderedReady"))],
        lambda pod: [_workload("StatefulSet", "db", {"template": _template(pod)})],
        ("StatefulSet", "db"),
        ("StatefulSet", "db", "/spec/template"),
        ["patch StatefulSet db", "delete Pod db-2"],
        ("podManagementPolicy OrderedReady", "only once it is deleted (after the patch)"),
        pod_name="db-2",
    ),
    "StatefulSet-default-policy": Case(
        ("StatefulSet", "db"),
        [("StatefulSet", _sts())],
        lambda pod: [_workload("StatefulSet", "db", {"template": _template(pod)})],
        ("StatefulSet", "db"),
        ("StatefulSet", "db", "/spec/template"),
        ["patch StatefulSet db", "delete Pod db-2"],
        ("podManagementPolicy OrderedReady",),
        pod_name="db-2",
    ),
    "StatefulSet-Parallel": Case(
        ("StatefulSet", "db"),
        [("StatefulSet", _sts("Parallel"))],
        lambda pod: [_workload("StatefulSet", "db", {"template": _template(pod)})],
        ("StatefulSet", "db"),
        ("StatefulSet", "db", "/spec/template"),
        ["patch StatefulSet db"],
        pod_name="db-2",
    ),
    "StatefulSet-Parallel-OnDelete": Case(
        ("StatefulSet", "db"),
        [("StatefulSet", _sts("Parallel", {"type": "OnDelete"}))],
        lambda pod: [_workload("StatefulSet", "db", {"template": _template(pod)})],
        ("StatefulSet", "db"),
        ("StatefulSet", "db", "/spec/template"),
        ["patch StatefulSet db", "delete Pod db-2"],
        ("updateStrategy OnDelete",),
        pod_name="db-2",
    ),
    # Ordinal 2 is below the partition: recreated from the old template unless it is lowered.
    "StatefulSet-Parallel-partition": Case(
        ("StatefulSet", "db"),
        [("StatefulSet", _sts("Parallel", {"type": "RollingUpdate", "rollingUpdate": {"partition": 3}}))],
        lambda pod: [
            _workload(
                "StatefulSet",
                "db",
                {
                    "template": _template(pod),
                    "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 3}},
                },
            )
        ],
        ("StatefulSet", "db"),
        ("StatefulSet", "db", "/spec/template"),
        ["patch StatefulSet db"],
        ("the partition (3) is lowered to 2",),
        pod_name="db-2",
    ),
    # The snapshot lacks the StatefulSet (a cluster-info dump): deleting a Pending pod is safe either way.
    "StatefulSet-absent": Case(
        ("StatefulSet", "db"),
        [],
        lambda pod: [_workload("StatefulSet", "db", {"template": _template(pod)})],
        ("StatefulSet", "db"),
        ("StatefulSet", "db", "/spec/template"),
        ["patch StatefulSet db", "delete Pod db-2"],
        ("the snapshot lacks the StatefulSet",),
        pod_name="db-2",
    ),
    "DaemonSet": Case(
        ("DaemonSet", "agent"),
        [],
        lambda pod: [_workload("DaemonSet", "agent", {"template": _template(pod)})],
        ("DaemonSet", "agent"),
        ("DaemonSet", "agent", "/spec/template"),
        ["patch DaemonSet agent"],
    ),
    "Job": Case(
        ("Job", "migrate"),
        [("Job", {"metadata": {"name": "migrate", "namespace": NS}})],
        lambda pod: [_job_document(pod, "migrate")],
        ("Job", "migrate"),
        ("Job", "migrate", "/spec/template"),
        ["recreate Job migrate"],
        ("pod template cannot change", "start over"),
    ),
    # The Job is not in the snapshot: podwhy does not know its selector is generated, as it nearly always is.
    "Job-absent": Case(
        ("Job", "migrate"),
        [],
        lambda pod: [_job_document(pod, "migrate")],
        ("Job", "migrate"),
        ("Job", "migrate", "/spec/template"),
        ["recreate Job migrate"],
    ),
    "Job-manualSelector": Case(
        ("Job", "migrate"),
        [("Job", {"metadata": {"name": "migrate", "namespace": NS}, "spec": {"manualSelector": True}})],
        lambda pod: [_job_document(pod, "migrate", manual=True)],
        ("Job", "migrate"),
        ("Job", "migrate", "/spec/template"),
        ["recreate Job migrate"],
    ),
    "CronJob": Case(
        ("Job", "nightly-29541630"),
        [CRON_JOB_JOB],
        lambda pod: [_cron_job_document(pod), _job_document(pod, "nightly-29541630", cron="nightly")],
        ("CronJob", "nightly"),
        ("Job", "nightly-29541630", "/spec/template"),
        ["patch CronJob nightly", "delete Job nightly-29541630", "create Job nightly-29541630"],
        ("next Jobs get the change",),
    ),
    # A Job named like a CronJob's that the snapshot does not hold: no guess from its name.
    "CronJob-Job-absent": Case(
        ("Job", "nightly-29541630"),
        [],
        lambda pod: [_cron_job_document(pod), _job_document(pod, "nightly-29541630", cron="nightly")],
        ("Job", "nightly-29541630"),
        ("Job", "nightly-29541630", "/spec/template"),
        ["recreate Job nightly-29541630"],
    ),
    "bare-pod": Case(
        None,
        [],
        lambda pod: [],
        None,
        ("Pod", "p", ""),
        ["recreate Pod p"],
    ),
}


def _pod(case: Case) -> o.Pod:
    builder = make_pod(case.pod_name, NS).labels(app="db" if case.pod_name.startswith("db-") else "web")
    if case.controller is not None:
        kind, name = case.controller
        api = {"Job": "batch/v1", "ReplicationController": "v1"}.get(kind, "apps/v1")
        builder = builder.owner(kind, name, api_version=api)
        if kind == "ReplicaSet":
            builder = builder.labels({"pod-template-hash": "5d8f"})
    # Two containers (the change is at index 1) and a toleration of its own: the template keeps them.
    builder = builder.container(name="log", image="log:1", requests={"cpu": "100m"})
    builder = builder.container(name="app", image="app:1", requests={"cpu": "2", "memory": "1Gi"})
    return builder.toleration("example.com/spot", "Exists", effect="NoSchedule").obj()


def _snapshot(case: Case, pod: o.Pod) -> Snapshot:
    busy = make_pod("busy", NS).node("n1").req(cpu="3").obj()
    snapshot = make_snapshot(*_cluster_nodes(), busy, pod)
    for kind, raw in case.typed:
        snapshot.add(kind, msgspec.convert(raw, o.KIND_TYPES[kind]))
    return snapshot


def _pod_document(pod: o.Pod) -> Json:
    return {"apiVersion": "v1", "kind": "Pod", **msgspec.to_builtins(pod)}


def _at(doc: Json, pointer: str) -> Json:
    for part in _pointer(pointer) if pointer else []:
        doc = doc[part]
    return doc


@pytest.mark.parametrize("kind", ["lowerRequest", "addToleration"])
@pytest.mark.parametrize("name", list(CASES))
def test_each_owner_kind_gets_a_command_that_makes_the_change(name: str, kind: str) -> None:
    case = CASES[name]
    pod = _pod(case)
    snapshot = _snapshot(case, pod)
    assert template_owner(pod, snapshot) == (None if case.owner is None else (case.owner[0], NS, case.owner[1]))
    cycle = run_cycle(snapshot, pod)
    assert cycle.verdict == Verdict.UNSCHEDULABLE
    found = [s for s in suggest(snapshot, cycle, default_profile()) if s.kind == kind]
    assert found, kind
    suggestion = found[0]
    # Run the command against the objects as the API server holds them.
    documents = [*case.documents(pod), _pod_document(pod)]
    cluster = Cluster({(d["kind"], d["metadata"]["name"]): d for d in documents})
    command = command_text(suggestion.command)
    cluster.run(command)
    assert cluster.log == case.log, command
    comment = command.partition("  # ")[2]
    assert all(words in comment for words in case.says), comment
    # The next pod the owner makes comes from the changed template: it fits where the suggestion said.
    target_kind, target_name, pointer = case.template_at
    template = _at(cluster.objects[(target_kind, target_name)], pointer)
    changed = msgspec.structs.replace(pod, spec=msgspec.convert(template["spec"], o.PodSpec))
    again = run_cycle(snapshot, changed)
    assert again.verdict == Verdict.SCHEDULABLE
    assert again.outcome is not None and list(again.outcome.feasible) == suggestion.nodes
    # Everything else the template held is kept.
    assert [c["image"] for c in template["spec"]["containers"]] == ["log:1", "app:1"]
    assert {"key": "example.com/spot", "operator": "Exists", "effect": "NoSchedule"} in template["spec"]["tolerations"]
    assert template["metadata"]["labels"]["app"] == pod.metadata.labels["app"]
    if target_kind == "Job":
        labels = template["metadata"]["labels"]
        assert labels.get("job-name", target_name) == target_name


def _suggestion(snapshot: Snapshot, pod: o.Pod, group: list[o.Pod]) -> Suggestion:
    cycle = run_cycle(snapshot, pod)
    return next(s for s in suggest(snapshot, cycle, default_profile(), group=group) if s.kind == "lowerRequest")


def test_a_replica_set_s_whole_pending_group_is_replaced() -> None:
    """The identical Pending pods of an orphan ReplicaSet all keep the old spec: all are deleted."""
    pods = [
        make_pod(f"web-5d8f-{i}", NS).owner("ReplicaSet", "web-5d8f").labels(app="web").req(cpu="2").obj()
        for i in range(3)
    ]
    snapshot = make_snapshot(*_cluster_nodes(), make_pod("busy", NS).node("n1").req(cpu="3").obj(), *pods)
    snapshot.add("ReplicaSet", msgspec.convert(ORPHAN_RS[1], o.ReplicaSet))
    owner, group = pending_group(snapshot, pods[1])
    assert str(owner) == "shop/web-5d8f (ReplicaSet)" and group == pods
    command = command_text(_suggestion(snapshot, pods[1], group).command)
    assert " && kubectl delete pod -n shop web-5d8f-0 web-5d8f-1 web-5d8f-2  # " in command


def test_names_in_commands_are_shell_quoted() -> None:
    """Names come from the cluster: each is one shell word, whatever it holds."""
    pod = make_pod("p", "team a").owner("ReplicaSet", "rs;rm -rf").req(cpu="2").obj()
    snapshot = make_snapshot(*_cluster_nodes(), make_pod("busy", "team a").node("n1").req(cpu="3").obj(), pod)
    snapshot.add(
        "ReplicaSet", msgspec.convert({"metadata": {"name": "rs;rm -rf", "namespace": "team a"}}, o.ReplicaSet)
    )
    command = command_text(_suggestion(snapshot, pod, []).command)
    words = shlex.split(command, comments=True)
    assert words[:6] == ["kubectl", "patch", "replicaset", "rs;rm -rf", "-n", "team a"]
    assert words[-6:] == ["kubectl", "delete", "pod", "-n", "team a", "p"]


def test_owner_of_lifts_a_job_to_its_cron_job_only_from_the_snapshot() -> None:
    pod = make_pod("nightly-29541630-x7k2p", NS).owner("Job", "nightly-29541630", api_version="batch/v1").obj()
    without = make_snapshot(make_node("n1").obj(), pod)
    assert str(owner_of(pod, without)) == "shop/nightly-29541630 (Job)"
    with_job = make_snapshot(make_node("n1").obj(), pod)
    with_job.add("Job", msgspec.convert(CRON_JOB_JOB[1], o.Job))
    assert str(owner_of(pod, with_job)) == "shop/nightly (CronJob)"
    # A Job of another controller (a JobSet, say) stays the owner.
    other = copy.deepcopy(CRON_JOB_JOB[1])
    other["metadata"]["ownerReferences"][0]["kind"] = "JobSet"
    elsewhere = make_snapshot(make_node("n1").obj(), pod)
    elsewhere.add("Job", msgspec.convert(other, o.Job))
    assert str(owner_of(pod, elsewhere)) == "shop/nightly-29541630 (Job)"


@pytest.mark.parametrize("name", [n for n in CASES if n != "bare-pod"])
def test_a_workload_whose_pods_are_not_created_gets_its_template_patched(name: str) -> None:
    """satisfyPolicy's command (created_patch_command): the pod was never created, so none is
    deleted; the owner's template gets a container's limit and a label, all else kept."""
    case = CASES[name]
    pod = _pod(case)
    snapshot = _snapshot(case, pod)
    ops = [
        {"op": "add", "path": "/spec/containers/1/resources/limits/memory", "value": "1Gi"},
        {"op": "add", "path": "/metadata/labels/team", "value": "payments"},
    ]
    command = created_patch_command(pod, snapshot, ops)
    assert command is not None
    documents = case.documents(pod)
    cluster = Cluster({(d["kind"], d["metadata"]["name"]): d for d in documents})
    cluster.run(command_text(command))
    assert cluster.log == [entry for entry in case.log if not entry.startswith("delete Pod")]
    target_kind, target_name, pointer = case.template_at
    template = _at(cluster.objects[(target_kind, target_name)], pointer)
    app = template["spec"]["containers"][1]
    assert app["resources"] == {"requests": {"cpu": "2", "memory": "1Gi"}, "limits": {"memory": "1Gi"}}
    assert template["metadata"]["labels"]["team"] == "payments"
    assert template["metadata"]["labels"]["app"] == pod.metadata.labels["app"]
    assert [c["image"] for c in template["spec"]["containers"]] == ["log:1", "app:1"]


def test_a_bare_pod_not_created_has_no_workload_to_patch() -> None:
    case = CASES["bare-pod"]
    pod = _pod(case)
    ops = [{"op": "add", "path": "/metadata/labels/team", "value": "payments"}]
    assert created_patch_command(pod, _snapshot(case, pod), ops) is None
