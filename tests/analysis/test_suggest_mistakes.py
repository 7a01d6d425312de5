"""Three common mistakes get a verified fix, or the reason there is none (analysis/suggest/mistakes.py):
a topology key no node has, an extended resource no node advertises, a required pod affinity term
nothing matches. One small cluster per case."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import msgspec
import pytest
import yaml
from typer.testing import CliRunner

from podwhy.analysis.suggest import suggest
from podwhy.analysis.suggest.notes import Note
from podwhy.cli import app
from podwhy.model import objects as o
from podwhy.report.words.suggest import command_text, note_text, suggestion_text
from podwhy.scheduler.config import default_profile
from podwhy.scheduler.cycle import run_cycle
from podwhy.verdict import Verdict
from tests.analysis.test_suggested_patches import _check_report, _run
from tests.builders import make_node, make_pod, make_snapshot


def _affinity(app: str, namespaces: list[str] | None = None) -> dict[str, object]:
    term: dict[str, object] = {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}
    if namespaces is not None:
        term["namespaces"] = namespaces
    return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


def _running(name: str, node: str, namespace: str = "shop", **labels: str) -> o.Pod:
    return make_pod(name, namespace).node(node).labels(labels).phase("Running").obj()


ZONED = (
    make_node("n1").alloc(cpu="4").zone("a").obj(),
    make_node("n2").alloc(cpu="4").zone("b").obj(),
)


@dataclass(frozen=True)
class Case:
    name: str
    objects: tuple[msgspec.Struct, ...]
    pod: o.Pod
    # The suggestion's kind and words (None: no suggestion of these kinds, and the note's words).
    kind: str | None
    said: str
    # A fragment of the command (the change it makes).
    command: str = ""


KINDS = ("renameTopologyKey", "renameResource", "fixPodAffinity")

CASES = [
    Case(
        "a topology key spelled without its prefix",
        ZONED,
        make_pod("web", "shop").labels(app="web").spread(1, "zone", selector={"matchLabels": {"app": "web"}}).obj(),
        "renameTopologyKey",
        "use the node label topology.kubernetes.io/zone as topologySpreadConstraints[0].topologyKey: no node has "
        "the label zone it names",
        '"value":"topology.kubernetes.io/zone"',
    ),
    Case(
        "a topology key like none of the nodes' labels",
        ZONED,
        make_pod("web", "shop").labels(app="web").spread(1, "rack", selector={"matchLabels": {"app": "web"}}).obj(),
        None,
        "no node has the label rack that topologySpreadConstraints[0].topologyKey names: label the nodes with it "
        "or name a key they have; nothing to suggest",
    ),
    Case(
        "an extended resource misspelt",
        (make_node("gpu-1").alloc({"cpu": "4", "nvidia.com/gpu": "2"}).obj(),),
        make_pod("train", "ml").req({"nvidia.com/gpus": "1"}).obj(),
        "renameResource",
        "request nvidia.com/gpu instead of nvidia.com/gpus: nodes advertise nvidia.com/gpu, no node advertises "
        "nvidia.com/gpus",
        '"nvidia.com/gpus":null',
    ),
    Case(
        "an extended resource nothing advertises",
        (make_node("n1").alloc(cpu="4").obj(),),
        make_pod("web", "shop").req({"example.com/dongle": "1"}).obj(),
        None,
        "no node advertises example.com/dongle: a node with the device must run its device plugin, which "
        "advertises it; nothing to suggest",
    ),
    Case(
        "a pod affinity value misspelt",
        (make_node("n1").alloc(cpu="4").obj(), _running("cache-0", "n1", app="cache")),
        make_pod("web", "shop").affinity(_affinity("cahce")).obj(),
        "fixPodAffinity",
        "select app=cache in required pod affinity term #0: no pod has app=cahce, pods in its namespace have app=cache",
        '"value":"cache"',
    ),
    Case(
        "pods the affinity selects run in another namespace",
        (make_node("n1").alloc(cpu="4").obj(), _running("cache-0", "n1", "data", app="cache")),
        make_pod("web", "shop").affinity(_affinity("cache")).obj(),
        "fixPodAffinity",
        "look for the pods of required pod affinity term #0 in namespace data too: the pods it selects run there",
        '"value":["shop","data"]',
    ),
    Case(
        "a pod affinity nothing resembles",
        (make_node("n1").alloc(cpu="4").obj(), _running("db-0", "n1", app="postgres")),
        make_pod("web", "shop").affinity(_affinity("cache")).obj(),
        None,
        "no pod in namespace shop matches app=cache, which required pod affinity term #0 selects, and no other "
        "namespace or label value like it makes the pod fit: start the pod it must run beside first, or make the "
        "term preferred; nothing to suggest",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_common_mistake_gets_a_fix_or_the_reason_there_is_none(case: Case) -> None:
    snapshot = make_snapshot(*case.objects)
    cycle = run_cycle(snapshot, case.pod)
    assert cycle.verdict == Verdict.UNSCHEDULABLE
    notes: list[Note] = []
    found = [s for s in suggest(snapshot, cycle, default_profile(), notes=notes) if s.kind in KINDS]
    if case.kind is None:
        assert not found
        assert case.said in [note_text(n) for n in notes]
        return
    (fix,) = found
    assert fix.kind == case.kind
    assert suggestion_text(fix).startswith(case.said)
    assert case.command in command_text(fix.command).replace(" ", "")
    assert fix.nodes


GPU_NODE = (
    "apiVersion: v1\nkind: Node\nmetadata: {name: gpu-1, labels: {kubernetes.io/hostname: gpu-1}}\n"
    "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110', nvidia.com/gpu: '2'}}\n"
)


@pytest.mark.parametrize(
    "resources",
    ["{limits: {nvidia.com/gpus: 1}}", "{requests: {nvidia.com/gpus: 1}, limits: {nvidia.com/gpus: 1}}"],
    ids=["limits only", "requests and limits"],
)
def test_a_renamed_resource_applies_to_the_manifest_as_written_and_then_fits(tmp_path: Path, resources: str) -> None:
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(
        f"{GPU_NODE}---\napiVersion: v1\nkind: LimitRangeList\nitems: []\n---\napiVersion: v1\nkind: Namespace\n"
        "metadata: {name: default}\n---\napiVersion: v1\nkind: ResourceQuotaList\nitems: []\n---\n"
        "apiVersion: v1\nkind: PodList\nitems: []\n"
    )
    manifest = tmp_path / "train.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: train}\nspec:\n"
        f"  containers:\n  - {{name: app, image: trainer, resources: {resources}}}\n"
    )
    result = CliRunner().invoke(app, ["explain", "-f", str(manifest), "--from", str(cluster), "-o", "json"])
    report = json.loads(result.stdout)
    assert report["verdict"] == "Unschedulable", result.stdout
    (rename,) = [s for s in report["suggestions"] if s["kind"] == "renameResource"]
    written = yaml.safe_load(manifest.read_text())
    assert _check_report(report, [], manifest=written) >= 1
    _, patched = _run(rename["command"], {}, written)
    (container,) = patched["spec"]["containers"]
    assert "nvidia.com/gpus" not in json.dumps(container)
    again = tmp_path / "train.patched.yaml"
    again.write_text(yaml.safe_dump(patched))
    result = CliRunner().invoke(app, ["explain", "-f", str(again), "--from", str(cluster), "-o", "json"])
    assert json.loads(result.stdout)["verdict"] == "Schedulable", result.stdout
