"""The API server's warnings on a created Pod or workload (cluster/apiserver/warnings.py), after upstream's
pkg/api/pod/warnings_test.go (TestWarnings: "fractional resources", "node labels in nodeSelector",
"node labels in affinity requiredDuringSchedulingIgnoredDuringExecution", "... preferred...",
"node labels in topologySpreadConstraints", "annotations", "seccomp fields"), compared as upstream
compares them (as sets); PodSecurity's warn level (pod-security-admission's PolicyToEvaluate and
EvaluatePod); and `check` and `explain -f` printing them as kubectl does (`Warning: ...`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.cluster.apiserver.admission.podsecurity.levels import Policy, warn_policy
from podwhy.cluster.apiserver.warnings import pod_security_warnings, pod_warnings
from podwhy.model import objects as o

Json = dict[str, Any]
KEYS = [
    "beta.kubernetes.io/arch",
    "beta.kubernetes.io/os",
    "failure-domain.beta.kubernetes.io/region",
    "failure-domain.beta.kubernetes.io/zone",
    "beta.kubernetes.io/instance-type",
]
MSG = {
    "beta.kubernetes.io/arch": 'deprecated since v1.14; use "kubernetes.io/arch" instead',
    "beta.kubernetes.io/os": 'deprecated since v1.14; use "kubernetes.io/os" instead',
    "failure-domain.beta.kubernetes.io/region": 'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
    "failure-domain.beta.kubernetes.io/zone": 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
    "beta.kubernetes.io/instance-type": 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
}
FRACTIONAL = {"memory": "4m", "ephemeral-storage": "4m"}
REQUIRED = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
PREFERRED = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference"
EXPRESSIONS = [{"key": "foo", "operator": "Exists"}] + [{"key": k, "operator": "Exists"} for k in KEYS]
RES = {"requests": FRACTIONAL, "limits": FRACTIONAL}


def frac(path: str) -> str:
    return f'{path}: fractional byte value "4m" is invalid, must be an integer'


# (name, template metadata, template spec, the warnings)
CASES: list[tuple[str, Json, Json, list[str]]] = [
    (
        "fractional resources",
        {},
        {
            "initContainers": [{"name": "i", "resources": RES}],
            "containers": [{"name": "c", "resources": RES}],
            "overhead": FRACTIONAL,
        },
        [
            frac(f"spec.{where}[0].resources.{which}[{name}]")
            for where in ("initContainers", "containers")
            for which in ("requests", "limits")
            for name in ("ephemeral-storage", "memory")
        ]
        + [frac("spec.overhead[ephemeral-storage]"), frac("spec.overhead[memory]")],
    ),
    (
        "node labels in nodeSelector",
        {},
        {"nodeSelector": dict.fromkeys(KEYS, "true")},
        [f"spec.nodeSelector[{k}]: {MSG[k]}" for k in KEYS],
    ),
    (
        "node labels in affinity requiredDuringSchedulingIgnoredDuringExecution",
        {},
        {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchExpressions": EXPRESSIONS}]
                    }
                }
            }
        },
        [f"{REQUIRED}.matchExpressions[{i}].key: {k} is {MSG[k]}" for i, k in enumerate(KEYS, 1)],
    ),
    (
        "node labels in affinity preferredDuringSchedulingIgnoredDuringExecution",
        {},
        {
            "affinity": {
                "nodeAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 1, "preference": {"matchExpressions": EXPRESSIONS}}
                    ]
                }
            }
        },
        [f"{PREFERRED}.matchExpressions[{i}].key: {k} is {MSG[k]}" for i, k in enumerate(KEYS, 1)],
    ),
    (
        "node labels in topologySpreadConstraints",
        {},
        {"topologySpreadConstraints": [{"topologyKey": k, "labelSelector": {}} for k in ["foo", *KEYS]]},
        [f"spec.topologySpreadConstraints[{i}].topologyKey: {k} is {MSG[k]}" for i, k in enumerate(KEYS, 1)],
    ),
    (
        "a null labelSelector",
        {},
        {"topologySpreadConstraints": [{"topologyKey": "zone", "maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule"}]},
        ["spec.topologySpreadConstraints[0].labelSelector: a null labelSelector results in matching no pod"],
    ),
    (
        "annotations",
        {
            "annotations": {
                "foo": "bar",
                "scheduler.alpha.kubernetes.io/critical-pod": "true",
                "seccomp.security.alpha.kubernetes.io/pod": "default",
                "container.seccomp.security.alpha.kubernetes.io/foo": "default",
                "security.alpha.kubernetes.io/sysctls": "a,b,c",
                "security.alpha.kubernetes.io/unsafe-sysctls": "d,e,f",
            }
        },
        {"containers": [{"name": "foo"}]},
        [
            "metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in v1.16+; use the "
            '"priorityClassName" field instead',
            "metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: non-functional in v1.27+; use the "
            '"seccompProfile" field instead',
            "metadata.annotations[container.seccomp.security.alpha.kubernetes.io/foo]: non-functional in v1.27+; use "
            'the "seccompProfile" field instead',
            "metadata.annotations[security.alpha.kubernetes.io/sysctls]: non-functional in v1.11+; use the "
            '"sysctls" field instead',
            "metadata.annotations[security.alpha.kubernetes.io/unsafe-sysctls]: non-functional in v1.11+; use the "
            '"sysctls" field instead',
        ],
    ),
    (
        "seccomp fields",
        {
            "annotations": {
                "seccomp.security.alpha.kubernetes.io/pod": "default",
                "container.seccomp.security.alpha.kubernetes.io/foo": "default",
            }
        },
        {
            "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
            "containers": [{"name": "foo", "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}}}],
        },
        [],
    ),
]


@pytest.mark.parametrize(("name", "meta", "spec", "expected"), CASES, ids=[c[0] for c in CASES])
def test_warnings(name: str, meta: Json, spec: Json, expected: list[str]) -> None:
    got = pod_warnings(msgspec.convert(meta, o.ObjectMeta), msgspec.convert(spec, o.PodSpec))
    assert sorted(got) == sorted(expected)


def test_a_templates_warnings_name_its_path() -> None:
    spec = msgspec.convert({"nodeSelector": {"beta.kubernetes.io/os": "linux"}}, o.PodSpec)
    assert pod_warnings(o.ObjectMeta(), spec, "spec.template") == [
        f"spec.template.spec.nodeSelector[beta.kubernetes.io/os]: {MSG['beta.kubernetes.io/os']}"
    ]


# PolicyToEvaluate's warn policy: (namespace labels, the policy)
WARN_POLICIES = [
    ({}, Policy("privileged")),
    ({"pod-security.kubernetes.io/warn": "restricted"}, Policy("restricted")),
    ({"pod-security.kubernetes.io/warn": "bogus"}, Policy("privileged")),  # fails open
    ({"pod-security.kubernetes.io/enforce": "baseline"}, Policy("baseline")),  # defaults to enforce
    (
        {"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/enforce-version": "v1.30"},
        Policy("baseline", 30),
    ),
    (
        {"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/warn": "baseline"},
        Policy("baseline"),
    ),
    ({"pod-security.kubernetes.io/enforce": "bogus"}, Policy("privileged")),  # an invalid enforce is no default
]


@pytest.mark.parametrize(("labels", "policy"), WARN_POLICIES)
def test_warn_policy(labels: dict[str, str], policy: Policy) -> None:
    assert warn_policy(labels) == policy


def test_pod_security_warns_in_its_words() -> None:
    spec = msgspec.convert({"hostNetwork": True, "containers": [{"name": "c", "image": "x"}]}, o.PodSpec)
    labels = {"pod-security.kubernetes.io/warn": "baseline"}
    assert pod_security_warnings(o.ObjectMeta(), spec, labels, 35) == [
        'would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)'
    ]


CLUSTER = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {kubernetes.io/hostname: n1, beta.kubernetes.io/arch: amd64}}
  status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Namespace
  metadata: {name: shop, labels: {pod-security.kubernetes.io/warn: baseline}}
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      hostNetwork: true
      nodeSelector: {beta.kubernetes.io/arch: amd64}
      containers: [{name: c, image: x}]
"""
ARCH = 'nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead'
BASELINE = 'would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)'


def _run(tmp_path: Path, command: str, manifest: str) -> tuple[int, str, str]:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "m.yaml").write_text(manifest)
    args = [command, "-f", str(tmp_path / "m.yaml"), "--from", str(tmp_path / "cluster.yaml"), "--complete"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200", "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


def test_check_prints_a_workloads_warnings_once(tmp_path: Path) -> None:
    _, _, err = _run(tmp_path, "check", DEPLOYMENT)
    assert err.splitlines()[:2] == [
        f"podwhy: warning: Warning: spec.template.spec.{ARCH} (the API server, creating Deployment shop/web)",
        f"podwhy: warning: Warning: {BASELINE} (the API server, creating Deployment shop/web)",
    ]


def test_explain_prints_a_pods_warnings(tmp_path: Path) -> None:
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nspec:\n  hostNetwork: true\n"
        "  nodeSelector: {beta.kubernetes.io/arch: amd64}\n  containers: [{name: c, image: x}]\n"
    )
    _, _, err = _run(tmp_path, "explain", pod)
    assert f"podwhy: warning: Warning: spec.{ARCH} (the API server, creating Pod shop/p)" in err.splitlines()
    assert f"podwhy: warning: Warning: {BASELINE} (the API server, creating Pod shop/p)" in err.splitlines()
