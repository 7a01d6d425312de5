"""Every change podwhy suggests applies to the user's own object and yields the pod it verified
(issue 23, "suggestions that work when pasted").

The commands of every suggestion of every recorded case (fixtures/golden, the scenario folders)
and of manifests written as people write them are run, as kubectl would run them, against the
objects they name: a bare pod as the cluster holds it, a manifest as the file holds it, and a
workload's template. The recorded clusters hold pods, not their workloads, so a workload's
template is the pod as its controller would have written it at its least: no `resources` at all
(a LimitRange default gave the pod its requests), none of the tolerations, volumes and fields
admission and the controller add. A change must apply to that template too, and give the
template the pod the suggestion verified: the same requests, tolerations, selectors and terms.
"""

from __future__ import annotations

import copy
import json
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from podwhy.analysis.commands import TEMPLATE_PATHS
from podwhy.analysis.suggest.tolerations import ADMISSION_TOLERATION_KEYS
from podwhy.cli import app
from podwhy.snapshot.source import _read_bytes
from tests.analysis.test_commands import _split, kubectl_patch
from tests.analysis.test_suggest import merge_patch
from tests.conformance import case_dirs, cluster_file, run_case
from tests.paths import TESTS

Json = dict[str, Any]
SCENARIOS = TESTS / "scenarios"
KINDS = {
    "pod": "Pod",
    "deployment": "Deployment",
    "statefulset": "StatefulSet",
    "daemonset": "DaemonSet",
    "replicaset": "ReplicaSet",
    "replicationcontroller": "ReplicationController",
    "job": "Job",
    "cronjob": "CronJob",
}
# Fields of a pod that its controller or admission writes, never its template.
POD_ONLY = ("nodeName", "priority", "serviceAccount", "enableServiceLinks", "preemptionPolicy")


def _documents(path: Path) -> list[Json]:
    out: list[Json] = []
    for doc in yaml.load_all(_read_bytes(path), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        if isinstance(doc, dict):
            out.extend(doc.get("items") or [] if doc.get("kind", "").endswith("List") else [doc])
    return out


def _pod_spec_at(doc: Json, kind: str) -> Json:
    """The pod spec of DOC: the pod's own, or its template's."""
    if kind == "Pod":
        return doc["spec"]  # type: ignore[no-any-return]
    at: Any = doc
    for part in TEMPLATE_PATHS[kind].split("/")[1:]:
        at = at[part]
    return at["spec"]  # type: ignore[no-any-return]


def _least_template(kind: str, pod: Json) -> Json:
    """The workload of KIND whose controller made POD, its template as little as it could hold."""
    spec = copy.deepcopy(pod["spec"])
    for name in POD_ONLY:
        spec.pop(name, None)
    for container in [*spec.get("containers", []), *spec.get("initContainers", [])]:
        container.pop("resources", None)
        container.pop("volumeMounts", None)
    spec.pop("volumes", None)
    kept = [t for t in spec.pop("tolerations", None) or [] if t.get("key") not in ADMISSION_TOLERATION_KEYS]
    if kept:
        spec["tolerations"] = kept
    template: Json = {"metadata": {"labels": dict(pod["metadata"].get("labels") or {})}, "spec": spec}
    doc: Json = {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": "owner"}, "spec": {}}
    at = doc
    *parents, last = TEMPLATE_PATHS[kind].split("/")[1:]
    for part in parents:
        at = at.setdefault(part, {})
    at[last] = template
    return doc


def _run(command: str, objects: dict[tuple[str, str], Json], manifest: Json | None) -> tuple[str, Json]:
    """Run the patching stages of COMMAND (`a | b && c`, the comment dropped) against OBJECTS (by
    kind and name) or the MANIFEST; (kind, the object the last patch gave)."""
    patched: tuple[str, Json] | None = None
    for sequence in _split(shlex.split(command, comments=True), "&&"):
        piped: Json | None = None
        for stage in _split(sequence, "|"):
            words = stage
            assert words[0] == "kubectl", stage
            verb, rest = words[1], words[2:]
            if verb == "get":
                piped = copy.deepcopy(objects[(KINDS[rest[0]], rest[1])])
            elif verb == "patch" and "--local" in rest:
                source = rest[rest.index("-f") + 1]
                target = piped if source == "-" and piped is not None else manifest
                assert target is not None, stage
                piped = kubectl_patch(target, rest[rest.index("--type") + 1], rest[rest.index("-p") + 1])
                patched = (piped["kind"], piped)
            elif verb == "patch":
                kind = KINDS[rest[0]]
                objects[(kind, rest[1])] = kubectl_patch(
                    objects[(kind, rest[1])], rest[rest.index("--type") + 1], rest[rest.index("-p") + 1]
                )
                patched = (kind, objects[(kind, rest[1])])
    assert patched is not None, command
    return patched


def _admitted(tolerations: list[Json] | None) -> list[Json]:
    return [t for t in tolerations or [] if t.get("key") not in ADMISSION_TOLERATION_KEYS]


def _assert_yields(spec: Json, verified: Json, changed: Json) -> None:
    """SPEC (the patched object's pod spec) holds what VERIFIED (the pod the suggestion verified)
    holds in every field the suggestion CHANGED (its merge patch of the pod's spec)."""
    for field in changed:
        if field in ("containers", "initContainers"):
            for container in verified[field]:
                (mine,) = [c for c in spec[field] if c["name"] == container["name"]]
                want = (container.get("resources") or {}).get("requests")
                assert (mine.get("resources") or {}).get("requests") == want, (field, container["name"])
        elif field == "tolerations":
            assert _admitted(spec.get(field)) == _admitted(verified.get(field))
        else:
            assert spec.get(field) == verified.get(field), field


def _check_report(report: Json, documents: list[Json], manifest: Json | None = None) -> int:
    """Run every suggestion's change of REPORT; how many were run."""
    pods = {
        (d["metadata"].get("namespace", "default"), d["metadata"]["name"]): d
        for d in documents
        if d.get("kind") == "Pod"
    }
    ran = 0
    for suggestion in report.get("suggestions") or []:
        pod_patches = [p for p in suggestion["patches"] if p.get("kind") == "Pod"]
        if not pod_patches or "kubectl patch" not in suggestion["command"]:
            continue
        (pod_patch,) = pod_patches
        if "spec" not in pod_patch["patch"]:
            continue  # a nomination released: the pod's status, not what it asks for
        pod = manifest if manifest is not None else pods[(pod_patch["namespace"], pod_patch["name"])]
        objects: dict[tuple[str, str], Json] = {("Pod", pod["metadata"]["name"]): pod}
        words = shlex.split(suggestion["command"], comments=True)
        if words[1] == "patch" and words[2] != "--local":
            kind = KINDS[words[2]]
            objects[(kind, words[3])] = _least_template(kind, pod)
        kind, patched = _run(suggestion["command"], objects, manifest)
        verified = merge_patch(pod, pod_patch["patch"])
        _assert_yields(_pod_spec_at(patched, kind), verified["spec"], pod_patch["patch"]["spec"])
        ran += 1
    return ran


def _recorded_cases() -> list[Path]:
    return [case for case in case_dirs() if json.loads((case / "expected.json").read_text()).get("message")]


def test_every_recorded_suggestion_applies_to_its_source() -> None:
    """Every change of every recorded Unschedulable case: 80 or so, of every kind of owner."""
    ran = 0
    for case in _recorded_cases():
        ran += _check_report(run_case(case), _documents(cluster_file(case)))
    assert ran >= 60, ran


@pytest.mark.parametrize("scenario", sorted(p.name for p in SCENARIOS.iterdir() if (p / "args.json").is_file()))
def test_every_scenario_suggestion_applies_to_its_source(scenario: str) -> None:
    folder = SCENARIOS / scenario
    args = json.loads((folder / "args.json").read_text())
    source = (folder / args["from"]).resolve() if "from" in args else folder / "cluster.yaml"
    if not source.is_file():
        pytest.skip("a cluster-info dump folder: its pods are checked by the recorded cases")
    result = CliRunner().invoke(app, ["explain", *args["argv"], "--from", str(source), "-o", "json"])
    _check_report(json.loads(result.stdout), _documents(source))


NODE = (
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\n"
    "status: {allocatable: {cpu: '2', memory: 8Gi, pods: '110'}}\n"
)
LIMIT_RANGE = (
    "apiVersion: v1\nkind: LimitRange\nmetadata: {name: defaults, namespace: default}\n"
    "spec: {limits: [{type: Container, defaultRequest: {cpu: '3'}, default: {cpu: '3'}}]}\n"
)
MANIFESTS = {
    "limits only": "containers:\n- {name: app, image: nginx, resources: {limits: {cpu: '3', memory: 1Gi}}}\n",
    "a LimitRange's default": "containers:\n- {name: app, image: nginx}\n",
    "the second container": (
        "containers:\n- {name: log, image: log:1}\n- {name: app, image: nginx, resources: {requests: {cpu: '3'}}}\n"
    ),
    "the pod's own": "resources: {requests: {cpu: '3'}}\ncontainers:\n- {name: app, image: nginx}\n",
}


@pytest.mark.parametrize("name", list(MANIFESTS))
def test_a_manifest_s_change_applies_to_the_file_and_the_pod_then_fits(tmp_path: Path, name: str) -> None:
    """`explain -f`: the change, applied to the file as written, gives a pod that fits."""
    cluster = tmp_path / "cluster.yaml"
    # The Namespace, its LimitRanges and a cluster-wide list of quotas: admission is fully known.
    limits = LIMIT_RANGE if "LimitRange" in name else "apiVersion: v1\nkind: LimitRangeList\nitems: []\n"
    cluster.write_text(
        f"{NODE}---\n{limits}---\napiVersion: v1\nkind: Namespace\nmetadata: {{name: default}}\n"
        "---\napiVersion: v1\nkind: ResourceQuotaList\nitems: []\n---\napiVersion: v1\nkind: PodList\nitems: []\n"
    )
    spec = "".join(f"  {line}\n" for line in MANIFESTS[name].splitlines())
    manifest = tmp_path / "web.yaml"
    manifest.write_text(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: web}}\nspec:\n{spec}")
    result = CliRunner().invoke(app, ["explain", "-f", str(manifest), "--from", str(cluster), "-o", "json"])
    report = json.loads(result.stdout)
    assert report["verdict"] == "Unschedulable", result.stdout
    (lower,) = [s for s in report["suggestions"] if s["kind"] == "lowerRequest"]
    written = yaml.safe_load(manifest.read_text())
    assert _check_report(report, [], manifest=written) == 1
    _, patched = _run(lower["command"], {}, written)
    again = tmp_path / "web.patched.yaml"
    again.write_text(yaml.safe_dump(patched))
    result = CliRunner().invoke(app, ["explain", "-f", str(again), "--from", str(cluster), "-o", "json"])
    assert json.loads(result.stdout)["verdict"] == "Schedulable", result.stdout
