"""RuntimeClass admission (cluster/apiserver/admission/runtimeclass.py), after upstream's
plugin/pkg/admission/runtimeclass/admission_test.go (TestSetOverhead, TestSetScheduling, TestAdmit,
TestValidateOverhead): each case's pod, class and verdict are upstream's, the refusal the plugin's
words; and how `explain -f` and `check -f` say them (the API server's Forbidden)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.cluster.apiserver.admission import runtimeclass as rc
from podwhy.model import objects as o

Json = dict[str, Any]


def pod(
    overhead: bool = False, node_selector: dict[str, str] | None = None, tolerations: list[Json] | None = None
) -> o.Pod:
    """newOverheadValidPod / newSchedulingValidPod: overhead 100m cpu and 1 byte of memory."""
    spec: Json = {"containers": [{"name": "foo-0", "image": "foo:V0"}]}
    if overhead:
        spec["overhead"] = {"cpu": "100m", "memory": "1"}
    if node_selector is not None:
        spec["nodeSelector"] = node_selector
    if tolerations is not None:
        spec["tolerations"] = tolerations
    return msgspec.convert({"metadata": {"name": "p", "namespace": "test"}, "spec": spec}, o.Pod)


def rclass(overhead: Json | None = None, scheduling: Json | None = None) -> o.RuntimeClass:
    doc: Json = {"metadata": {"name": "foo"}, "handler": "bar"}
    if overhead is not None:
        doc["overhead"] = {"podFixed": overhead}
    if scheduling is not None:
        doc["scheduling"] = scheduling
    return msgspec.convert(doc, o.RuntimeClass)


SAME = {"cpu": "100m", "memory": "1"}
MISMATCH = rc.OVERHEAD_MISMATCH

# TestSetOverhead: (name, class, pod, refusal, the pod's overhead after)
SET_OVERHEAD = [
    ("overhead, no container requirements", rclass(SAME), pod(), None, SAME),
    (
        "overhead, pod with differing overhead already set",
        rclass({"cpu": "10", "memory": "10G"}),
        pod(True),
        MISMATCH,
        None,
    ),
    ("overhead, pod with same overhead already set", rclass(SAME), pod(True), None, SAME),
    ("the same overhead written otherwise", rclass({"cpu": "0.1", "memory": "1"}), pod(True), None, None),
]


@pytest.mark.parametrize(("name", "cls", "p", "refusal", "after"), SET_OVERHEAD, ids=[c[0] for c in SET_OVERHEAD])
def test_set_overhead(name: str, cls: o.RuntimeClass, p: o.Pod, refusal: str | None, after: Json | None) -> None:
    assert rc.set_overhead(p, cls) == refusal
    if after is not None:
        assert p.spec.overhead == after


EQ = {"operator": "Equal", "effect": "NoSchedule"}
# TestSetScheduling: (name, class, pod, refusal, nodeSelector after, tolerations after)
SET_SCHEDULING = [
    ("scheduling, nil scheduling", rclass(), pod(node_selector={"foo": "bar"}), None, {"foo": "bar"}, []),
    (
        "scheduling, conflict node selector",
        rclass(scheduling={"nodeSelector": {"foo": "conflict"}}),
        pod(node_selector={"foo": "bar"}),
        "conflict: runtimeClass.scheduling.nodeSelector[foo] = conflict; pod.spec.nodeSelector[foo] = bar",
        None,
        None,
    ),
    (
        "scheduling, nil node selector",
        rclass(scheduling={"nodeSelector": {"foo": "bar"}}),
        pod(),
        None,
        {"foo": "bar"},
        [],
    ),
    (
        "scheduling, node selector with the same key value",
        rclass(scheduling={"nodeSelector": {"foo": "bar"}}),
        pod(node_selector={"foo": "bar"}),
        None,
        {"foo": "bar"},
        [],
    ),
    (
        "scheduling, node selector with different key value",
        rclass(scheduling={"nodeSelector": {"foo": "bar", "fizz": "buzz"}}),
        pod(node_selector={"foo": "bar"}),
        None,
        {"foo": "bar", "fizz": "buzz"},
        [],
    ),
    (
        "scheduling, multiple tolerations",
        rclass(
            scheduling={"tolerations": [{"key": "foo", "value": "bar", **EQ}, {"key": "fizz", "value": "buzz", **EQ}]}
        ),
        pod(node_selector={"foo": "bar"}, tolerations=[{"key": "foo", "value": "bar", **EQ}]),
        None,
        {"foo": "bar"},
        [{"key": "foo", "value": "bar", **EQ}, {"key": "fizz", "value": "buzz", **EQ}],
    ),
    (
        "a class's toleration the pod's Exists covers is not added (MergeTolerations)",
        rclass(scheduling={"tolerations": [{"key": "sandbox", "value": "x", **EQ}]}),
        pod(tolerations=[{"key": "sandbox", "operator": "Exists"}]),
        None,
        {},
        [{"key": "sandbox", "operator": "Exists"}],
    ),
]


@pytest.mark.parametrize(
    ("name", "cls", "p", "refusal", "selector", "tolerations"), SET_SCHEDULING, ids=[c[0] for c in SET_SCHEDULING]
)
def test_set_scheduling(
    name: str, cls: o.RuntimeClass, p: o.Pod, refusal: str | None, selector: Json | None, tolerations: list[Json] | None
) -> None:
    assert rc.set_scheduling(p, cls) == refusal
    if selector is not None:
        assert p.spec.node_selector == selector
        assert p.spec.tolerations == msgspec.convert(tolerations, list[o.Toleration])


# TestValidateOverhead and TestValidate: (name, class, pod, refusal)
VALIDATE = [
    ("Overhead part of RuntimeClass, no Overhead defined in pod", rclass(SAME), pod(), MISMATCH),
    ("No Overhead in RunntimeClass, Overhead set in pod", rclass(), pod(True), rc.OVERHEAD_WITHOUT_CLASS),
    ("No RunntimeClass, Overhead set in pod", None, pod(True), rc.OVERHEAD_WITHOUT_CLASS),
    ("Non-matching Overheads", rclass({"cpu": "10", "memory": "10G"}), pod(True), MISMATCH),
    ("Matching Overheads", rclass(SAME), pod(True), None),
    ("No RuntimeClass, no Overhead", None, pod(), None),
]


@pytest.mark.parametrize(("name", "cls", "p", "refusal"), VALIDATE, ids=[c[0] for c in VALIDATE])
def test_validate_overhead(name: str, cls: o.RuntimeClass | None, p: o.Pod, refusal: str | None) -> None:
    assert rc.validate_overhead(p, cls) == refusal


def test_words() -> None:
    """TestAdmit's "runtimeClass not found by lister nor client": prepareObjects' words."""
    assert rc.not_found("gvisor") == 'pod rejected: RuntimeClass "gvisor" not found'
    assert MISMATCH == "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"


# ------------------------------------------------------------------ explain -f and check -f
CLUSTER = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {kubernetes.io/hostname: n1, sandbox: "true"}}
  status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Namespace
  metadata: {name: shop}
- apiVersion: node.k8s.io/v1
  kind: RuntimeClass
  metadata: {name: kata}
  handler: kata
  overhead: {podFixed: {cpu: 250m, memory: 120Mi}}
  scheduling: {nodeSelector: {sandbox: "true"}}
- apiVersion: node.k8s.io/v1
  kind: RuntimeClass
  metadata: {name: runc}
  handler: runc
"""
POD = (
    "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\n"
    "spec:\n  containers:\n  - {name: app, image: nginx}\n"
)


def _run(tmp_path: Path, command: str, spec: str) -> tuple[int, str, str]:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "m.yaml").write_text(POD + spec)
    args = [command, "-f", str(tmp_path / "m.yaml"), "--from", str(tmp_path / "cluster.yaml"), "--complete"]
    if command == "check":
        args += ["-o", "json"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200", "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


REFUSALS = [
    ("  runtimeClassName: gvisor\n", 'pod rejected: RuntimeClass "gvisor" not found'),
    ("  runtimeClassName: kata\n  overhead: {cpu: 100m}\n", MISMATCH),
    ("  runtimeClassName: runc\n  overhead: {cpu: 100m}\n", rc.OVERHEAD_WITHOUT_CLASS),
    (
        "  runtimeClassName: kata\n  nodeSelector: {sandbox: 'false'}\n",
        "conflict: runtimeClass.scheduling.nodeSelector[sandbox] = true; pod.spec.nodeSelector[sandbox] = false",
    ),
]


@pytest.mark.parametrize(("spec", "why"), REFUSALS)
def test_explain_refuses_in_the_servers_words(tmp_path: Path, spec: str, why: str) -> None:
    code, out, err = _run(tmp_path, "explain", spec)
    assert (code, out) == (3, "")
    assert err.startswith(f'podwhy: error: pods "web" is forbidden: {why} (')
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(("spec", "why"), REFUSALS)
def test_check_says_the_pod_is_not_created(tmp_path: Path, spec: str, why: str) -> None:
    code, out, err = _run(tmp_path, "check", spec)
    assert json.dumps(f'pods "web" is forbidden: {why}')[1:-1] in out, (code, out, err)


def test_the_same_overhead_is_admitted(tmp_path: Path) -> None:
    code, _, err = _run(tmp_path, "explain", "  runtimeClassName: kata\n  overhead: {cpu: 250m, memory: 120Mi}\n")
    assert code == 0, err
