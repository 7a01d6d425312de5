"""PodSecurity admission (cluster/apiserver/admission/podsecurity/), after upstream's k8s.io/pod-security-admission:
each check's cases from policy/check_*_test.go, the registry's per-version order and overrides
(policy/registry.go), the namespace's labels (api/helpers.go's PolicyToEvaluate), the refusal in
the API server's words (admission.go); and what it changes in `explain -f` and `check`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.cluster.apiserver.admission.podsecurity.levels import (
    BASELINE,
    PRIVILEGED,
    RESTRICTED,
    Policy,
    enforced_policy,
)
from podwhy.cluster.apiserver.admission.podsecurity.messages import refusal
from podwhy.cluster.apiserver.admission.podsecurity.policy.registry import (
    CHECKS,
    NEWEST_CHECKS,
    check_ids,
    evaluate,
    refused_by_some_policy,
)
from podwhy.model import objects as o
from tests.builders import POD_ELSEWHERE, QUOTA_ELSEWHERE

Json = dict[str, Any]


def pod(spec: Json | None = None, annotations: Json | None = None) -> o.Pod:
    meta = {"name": "p", "namespace": "test", "annotations": annotations or {}}
    return msgspec.convert({"metadata": meta, "spec": spec or {}}, o.Pod)


def containers(*named: tuple[str, Json | None], key: str = "containers", **spec: Any) -> Json:
    """A spec with containers NAME, each with its securityContext (None: unset)."""
    items = [{"name": name, **({"securityContext": sc} if sc is not None else {})} for name, sc in named]
    return {key: items, **spec}


def run(check_id: str, minor: int, p: o.Pod) -> tuple[str, str] | None:
    """One check, in its version for policy version v1.MINOR (as upstream's tests call it)."""
    check = next(c for c in CHECKS if c.id == check_id)
    versioned = check.at(minor)
    assert versioned is not None
    return versioned.check(p.metadata, p.spec)


UNCONFINED = {"appArmorProfile": {"type": "Unconfined"}}
RUNTIME_DEFAULT_APPARMOR = {"appArmorProfile": {"type": "RuntimeDefault"}}
PORTS = "ports"

# (test, check ID, policy minor, pod, the (reason, detail), or None: allowed)
CASES: list[tuple[str, str, int, o.Pod, tuple[str, str] | None]] = [
    # check_appArmorProfile_test.go
    (
        "AppArmor: default annotation and others",
        "appArmorProfile",
        0,
        pod(annotations={"container.apparmor.security.beta.kubernetes.io/test": "runtime/default", "env": "prod"}),
        None,
    ),
    (
        "AppArmor: pod RuntimeDefault",
        "appArmorProfile",
        0,
        pod({"securityContext": RUNTIME_DEFAULT_APPARMOR}),
        None,
    ),
    (
        "AppArmor: unconfined pod",
        "appArmorProfile",
        0,
        pod({"securityContext": UNCONFINED}),
        ("forbidden AppArmor profile", 'pod must not set AppArmor profile type to "Unconfined"'),
    ),
    (
        "AppArmor: unconfined container",
        "appArmorProfile",
        0,
        pod({"securityContext": RUNTIME_DEFAULT_APPARMOR, **containers(("foo", UNCONFINED))}),
        ("forbidden AppArmor profile", 'container "foo" must not set AppArmor profile type to "Unconfined"'),
    ),
    (
        "AppArmor: unconfined init container",
        "appArmorProfile",
        0,
        pod({**containers(("foo", None)), **containers(("bar", UNCONFINED), key="initContainers")}),
        ("forbidden AppArmor profile", 'container "bar" must not set AppArmor profile type to "Unconfined"'),
    ),
    (
        "AppArmor: annotations",
        "appArmorProfile",
        0,
        pod(
            annotations={
                "container.apparmor.security.beta.kubernetes.io/": "bogus",
                "container.apparmor.security.beta.kubernetes.io/a": "",
                "container.apparmor.security.beta.kubernetes.io/b": "runtime/default",
                "container.apparmor.security.beta.kubernetes.io/c": "localhost/",
                "container.apparmor.security.beta.kubernetes.io/d": "localhost/foo",
                "container.apparmor.security.beta.kubernetes.io/e": "unconfined",
                "container.apparmor.security.beta.kubernetes.io/f": "unknown",
            }
        ),
        (
            "forbidden AppArmor profiles",
            "annotations must not set AppArmor profile type to "
            '"container.apparmor.security.beta.kubernetes.io/="bogus"", '
            '"container.apparmor.security.beta.kubernetes.io/e="unconfined"", '
            '"container.apparmor.security.beta.kubernetes.io/f="unknown""',
        ),
    ),
    # check_capabilities_baseline_test.go
    (
        "capabilities: beyond the default set",
        "capabilities_baseline",
        0,
        pod(
            containers(
                ("a", {"capabilities": {"add": ["FOO", "BAR"]}}),
                ("b", {"capabilities": {"add": ["BAR", "BAZ"]}}),
                ("c", {"capabilities": {"add": ["CHOWN"]}}),
            )
        ),
        (
            "non-default capabilities",
            'containers "a", "b" must not include "BAR", "BAZ", "FOO" in securityContext.capabilities.add',
        ),
    ),
    # check_hostNamespaces_test.go
    (
        "host namespaces",
        "hostNamespaces",
        0,
        pod({"hostNetwork": True, "hostPID": True, "hostIPC": True}),
        ("host namespaces", "hostNetwork=true, hostPID=true, hostIPC=true"),
    ),
    # check_hostPathVolumes_test.go
    (
        "hostPath volumes",
        "hostPathVolumes",
        0,
        pod({"volumes": [{"name": "a", "hostPath": {"path": "/a"}}, {"name": "b", "hostPath": {"path": "/b"}}]}),
        ("hostPath volumes", 'volumes "a", "b"'),
    ),
    # check_hostPorts_test.go
    (
        "one container, one host port",
        "hostPorts",
        0,
        pod(
            {
                "containers": [
                    {"name": "a", PORTS: [{"hostPort": 0}]},
                    {"name": "b", PORTS: [{"hostPort": 0}, {"hostPort": 20}]},
                ]
            }
        ),
        ("hostPort", 'container "b" uses hostPort 20'),
    ),
    (
        "multiple containers, multiple host ports",
        "hostPorts",
        0,
        pod(
            {
                "containers": [
                    {"name": "a", PORTS: [{"hostPort": 0}]},
                    {"name": "b", PORTS: [{"hostPort": 0}, {"hostPort": 10}, {"hostPort": 20}]},
                    {"name": "c", PORTS: [{"hostPort": 0}, {"hostPort": 10}, {"hostPort": 30}]},
                ]
            }
        ),
        ("hostPort", 'containers "b", "c" use hostPorts 10, 20, 30'),
    ),
    # check_hostProbesAndhostLifecycle_test.go
    (
        "probes and hooks without a host",
        "hostProbesAndHostLifecycle",
        34,
        pod(
            {
                "containers": [
                    {
                        "name": "a",
                        "livenessProbe": {"httpGet": {"port": 80}},
                        "readinessProbe": {"tcpSocket": {"port": 80}},
                        "lifecycle": {"postStart": {"httpGet": {"port": 80}}},
                    }
                ]
            }
        ),
        None,
    ),
    (
        "local hosts in probes",
        "hostProbesAndHostLifecycle",
        34,
        pod(
            {
                "containers": [
                    {
                        "name": "a",
                        "livenessProbe": {"httpGet": {"host": "127.0.0.1", "port": 80}},
                        "readinessProbe": {"tcpSocket": {"host": "::1", "port": 80}},
                        "startupProbe": {"httpGet": {"host": "localhost", "port": 80}},
                    }
                ]
            }
        ),
        ("probe or lifecycle host", 'container "a" uses probe or lifecycle hosts "127.0.0.1", "::1", "localhost"'),
    ),
    (
        "a preStop hook's host",
        "hostProbesAndHostLifecycle",
        34,
        pod({"containers": [{"name": "e", "lifecycle": {"preStop": {"httpGet": {"host": "another.invalid.host"}}}}]}),
        ("probe or lifecycle host", 'container "e" uses probe or lifecycle host "another.invalid.host"'),
    ),
    (
        "multiple containers with multiple invalid hosts",
        "hostProbesAndHostLifecycle",
        34,
        pod(
            {
                "containers": [
                    {"name": "valid"},
                    {"name": "invalid1", "livenessProbe": {"httpGet": {"host": "a.com"}}},
                    {
                        "name": "invalid2",
                        "lifecycle": {"preStop": {"tcpSocket": {"host": "b.com"}}},
                        "startupProbe": {"httpGet": {"host": "a.com"}},
                    },
                ]
            }
        ),
        ("probe or lifecycle host", 'containers "invalid1", "invalid2" use probe or lifecycle hosts "a.com", "b.com"'),
    ),
    # check_privileged_test.go
    (
        "privileged",
        "privileged",
        0,
        pod(
            containers(
                ("a", None),
                ("b", {}),
                ("c", {"privileged": False}),
                ("d", {"privileged": True}),
                ("e", {"privileged": True}),
            )
        ),
        ("privileged", 'containers "d", "e" must not set securityContext.privileged=true'),
    ),
    # check_procMount_baseline_test.go
    (
        "procMount",
        "procMount",
        35,
        pod(
            containers(
                ("a", None),
                ("b", {}),
                ("c", {"procMount": "Default"}),
                ("d", {"procMount": "Unmasked"}),
                ("e", {"procMount": "other"}),
                hostUsers=True,
            )
        ),
        ("procMount", 'containers "d", "e" must not set securityContext.procMount to "Unmasked", "other"'),
    ),
    (
        "procMount with a user namespace (v1.35)",
        "procMount",
        35,
        pod(containers(("d", {"procMount": "Unmasked"}), hostUsers=False)),
        None,
    ),
    (
        "procMount with a user namespace (v1.34)",
        "procMount",
        34,
        pod(containers(("d", {"procMount": "Unmasked"}), hostUsers=False)),
        ("procMount", 'container "d" must not set securityContext.procMount to "Unmasked"'),
    ),
    # check_seLinuxOptions_test.go
    (
        "SELinux: invalid pod and containers",
        "seLinuxOptions",
        31,
        pod(
            {
                "securityContext": {"seLinuxOptions": {"type": "foo", "user": "bar", "role": "baz"}},
                **containers(
                    ("a", {"seLinuxOptions": {"type": "container_t"}}),
                    ("b", {"seLinuxOptions": {"type": "container_init_t"}}),
                    ("c", {"seLinuxOptions": {"type": "container_kvm_t"}}),
                    ("d", {"seLinuxOptions": {"type": "container_engine_t"}}),
                    ("e", {"seLinuxOptions": {"type": "bar"}}),
                    ("f", {"seLinuxOptions": {"user": "bar"}}),
                    ("g", {"seLinuxOptions": {"role": "baz"}}),
                ),
            }
        ),
        (
            "seLinuxOptions",
            'pod and containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: types "bar", "foo"; '
            "user may not be set; role may not be set",
        ),
    ),
    (
        "SELinux: container_engine_t before v1.31",
        "seLinuxOptions",
        30,
        pod(containers(("d", {"seLinuxOptions": {"type": "container_engine_t"}}))),
        ("seLinuxOptions", 'container "d" set forbidden securityContext.seLinuxOptions: type "container_engine_t"'),
    ),
    (
        "SELinux: bad role",
        "seLinuxOptions",
        31,
        pod({"securityContext": {"seLinuxOptions": {"role": "bad"}}}),
        ("seLinuxOptions", "pod set forbidden securityContext.seLinuxOptions: role may not be set"),
    ),
    # check_seccompProfile_baseline_test.go
    (
        "seccomp annotations (v1.0)",
        "seccompProfile_baseline",
        0,
        pod(
            containers(("a", None), ("b", None), ("c", None)),
            annotations={
                "seccomp.security.alpha.kubernetes.io/pod": "unconfined",
                "container.seccomp.security.alpha.kubernetes.io/a": "unconfined",
                "container.seccomp.security.alpha.kubernetes.io/b": "unknown",
                "container.seccomp.security.alpha.kubernetes.io/c": "runtime/default",
            },
        ),
        (
            "seccompProfile",
            'forbidden annotations container.seccomp.security.alpha.kubernetes.io/a="unconfined", '
            'container.seccomp.security.alpha.kubernetes.io/b="unknown", '
            'seccomp.security.alpha.kubernetes.io/pod="unconfined"',
        ),
    ),
    (
        "seccomp: Unconfined pod and containers (v1.19)",
        "seccompProfile_baseline",
        19,
        pod(
            {
                "securityContext": {"seccompProfile": {"type": "Unconfined"}},
                **containers(
                    ("a", None),
                    ("b", {"seccompProfile": {"type": "RuntimeDefault"}}),
                    ("c", {"seccompProfile": {"type": "Unconfined"}}),
                    ("d", {"seccompProfile": {"type": "Unconfined"}}),
                ),
            }
        ),
        (
            "seccompProfile",
            'pod and containers "c", "d" must not set securityContext.seccompProfile.type to "Unconfined"',
        ),
    ),
    (
        "seccomp: baseline does not demand a profile",
        "seccompProfile_baseline",
        19,
        pod(containers(("a", None))),
        None,
    ),
    # check_sysctls_test.go
    (
        "sysctls",
        "sysctls",
        0,
        pod({"securityContext": {"sysctls": [{"name": "a"}, {"name": "b"}]}}),
        ("forbidden sysctls", "a, b"),
    ),
    (
        "sysctls: ip_local_reserved_ports before v1.27",
        "sysctls",
        26,
        pod({"securityContext": {"sysctls": [{"name": "net.ipv4.ip_local_reserved_ports", "value": "1024-4999"}]}}),
        ("forbidden sysctls", "net.ipv4.ip_local_reserved_ports"),
    ),
    (
        "sysctls: ip_local_reserved_ports since v1.27",
        "sysctls",
        27,
        pod({"securityContext": {"sysctls": [{"name": "net.ipv4.ip_local_reserved_ports", "value": "1024-4999"}]}}),
        None,
    ),
    (
        "sysctls: tcp_rmem before v1.32",
        "sysctls",
        31,
        pod({"securityContext": {"sysctls": [{"name": "net.ipv4.tcp_rmem", "value": "4096 87380 16777216"}]}}),
        ("forbidden sysctls", "net.ipv4.tcp_rmem"),
    ),
    # check_windowsHostProcess_test.go
    (
        "hostProcess",
        "windowsHostProcess",
        0,
        pod(
            {
                "securityContext": {"windowsOptions": {"hostProcess": True}},
                **containers(
                    ("a", None),
                    ("b", {}),
                    ("c", {"windowsOptions": {}}),
                    ("d", {"windowsOptions": {"hostProcess": False}}),
                    ("e", {"windowsOptions": {"hostProcess": True}}),
                    ("f", {"windowsOptions": {"hostProcess": True}}),
                ),
            }
        ),
        ("hostProcess", 'pod and containers "e", "f" must not set securityContext.windowsOptions.hostProcess=true'),
    ),
    # check_allowPrivilegeEscalation_test.go
    (
        "allowPrivilegeEscalation",
        "allowPrivilegeEscalation",
        8,
        pod(
            containers(
                ("a", None),
                ("b", {}),
                ("c", {"allowPrivilegeEscalation": True}),
                ("d", {"allowPrivilegeEscalation": False}),
            )
        ),
        (
            "allowPrivilegeEscalation != false",
            'containers "a", "b", "c" must set securityContext.allowPrivilegeEscalation=false',
        ),
    ),
    (
        "allowPrivilegeEscalation: a windows pod (v1.25)",
        "allowPrivilegeEscalation",
        25,
        pod(containers(("a", None), os={"name": "windows"})),
        None,
    ),
    (
        "allowPrivilegeEscalation: a windows pod (v1.24)",
        "allowPrivilegeEscalation",
        24,
        pod(containers(("a", None), os={"name": "windows"})),
        ("allowPrivilegeEscalation != false", 'container "a" must set securityContext.allowPrivilegeEscalation=false'),
    ),
    # check_capabilities_restricted_test.go
    (
        "unrestricted capabilities",
        "capabilities_restricted",
        25,
        pod(
            containers(
                ("a", {"capabilities": {"add": ["FOO", "BAR"]}}),
                ("b", {"capabilities": {"add": ["BAR", "BAZ"]}}),
                ("c", {"capabilities": {"add": ["NET_BIND_SERVICE", "CHOWN"], "drop": ["ALL", "FOO"]}}),
            )
        ),
        (
            "unrestricted capabilities",
            'containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; containers "a", "b", "c" must '
            'not include "BAR", "BAZ", "CHOWN", "FOO" in securityContext.capabilities.add',
        ),
    ),
    (
        "capabilities: a windows pod",
        "capabilities_restricted",
        25,
        pod(containers(("a", None), os={"name": "windows"})),
        None,
    ),
    (
        "capabilities: a linux pod without a security context",
        "capabilities_restricted",
        25,
        pod(containers(("a", None), os={"name": "linux"})),
        ("unrestricted capabilities", 'container "a" must set securityContext.capabilities.drop=["ALL"]'),
    ),
    # check_restrictedVolumes_test.go
    (
        "restricted volume types",
        "restrictedVolumes",
        0,
        pod(
            {
                "volumes": [
                    *(
                        {"name": f"a{i}", source: {}}
                        for i, source in enumerate(
                            (
                                "emptyDir",
                                "secret",
                                "persistentVolumeClaim",
                                "downwardAPI",
                                "configMap",
                                "projected",
                                "csi",
                                "ephemeral",
                                "image",
                            ),
                            1,
                        )
                    ),
                    *(
                        {"name": f"b{i}", source: {}}
                        for i, source in enumerate(
                            (
                                "hostPath",
                                "gcePersistentDisk",
                                "awsElasticBlockStore",
                                "gitRepo",
                                "nfs",
                                "iscsi",
                                "glusterfs",
                                "rbd",
                                "flexVolume",
                                "cinder",
                                "cephfs",
                                "flocker",
                                "fc",
                                "azureFile",
                                "vsphereVolume",
                                "quobyte",
                                "azureDisk",
                                "photonPersistentDisk",
                                "portworxVolume",
                                "scaleIO",
                                "storageos",
                            ),
                            1,
                        )
                    ),
                    {"name": "c1"},
                ]
            }
        ),
        (
            "restricted volume types",
            "volumes "
            + ", ".join(f'"b{i}"' for i in range(1, 22))
            + ', "c1" use restricted volume types "awsElasticBlockStore", "azureDisk", "azureFile", "cephfs", '
            '"cinder", "fc", "flexVolume", "flocker", "gcePersistentDisk", "gitRepo", "glusterfs", "hostPath", '
            '"iscsi", "nfs", "photonPersistentDisk", "portworxVolume", "quobyte", "rbd", "scaleIO", "storageos", '
            '"unknown", "vsphereVolume"',
        ),
    ),
    # check_runAsNonRoot_test.go
    (
        "no explicit runAsNonRoot",
        "runAsNonRoot",
        35,
        pod(containers(("a", None))),
        ("runAsNonRoot != true", 'pod or container "a" must set securityContext.runAsNonRoot=true'),
    ),
    (
        "pod runAsNonRoot=false",
        "runAsNonRoot",
        35,
        pod({"securityContext": {"runAsNonRoot": False}, **containers(("a", None))}),
        ("runAsNonRoot != true", "pod must not set securityContext.runAsNonRoot=false"),
    ),
    (
        "containers runAsNonRoot=false",
        "runAsNonRoot",
        35,
        pod(
            {
                "securityContext": {"runAsNonRoot": True},
                **containers(
                    ("a", None),
                    ("b", {}),
                    ("c", {"runAsNonRoot": False}),
                    ("d", {"runAsNonRoot": False}),
                    ("e", {"runAsNonRoot": True}),
                ),
            }
        ),
        ("runAsNonRoot != true", 'containers "c", "d" must not set securityContext.runAsNonRoot=false'),
    ),
    (
        "pod nil, container fallthrough",
        "runAsNonRoot",
        35,
        pod(containers(("a", None), ("b", {}), ("d", {"runAsNonRoot": True}))),
        ("runAsNonRoot != true", 'pod or containers "a", "b" must set securityContext.runAsNonRoot=true'),
    ),
    ("host users false (v1.35)", "runAsNonRoot", 35, pod(containers(("a", None), hostUsers=False)), None),
    (
        "host users false (v1.34)",
        "runAsNonRoot",
        34,
        pod(containers(("a", None), hostUsers=False)),
        ("runAsNonRoot != true", 'pod or container "a" must set securityContext.runAsNonRoot=true'),
    ),
    # check_runAsUser_test.go
    (
        "runAsUser=0",
        "runAsUser",
        23,
        pod(
            {
                "securityContext": {"runAsUser": 0},
                **containers(
                    ("a", None), ("b", {}), ("c", {"runAsUser": 0}), ("d", {"runAsUser": 0}), ("e", {"runAsUser": 1})
                ),
            }
        ),
        ("runAsUser=0", 'pod and containers "c", "d" must not set runAsUser=0'),
    ),
    ("runAsUser unset", "runAsUser", 23, pod({"securityContext": {"runAsUser": 1}, **containers(("a", {}))}), None),
    # check_seccompProfile_restricted_test.go
    (
        "seccomp: no explicit profile",
        "seccompProfile_restricted",
        19,
        pod(containers(("a", None), ("b", {}))),
        (
            "seccompProfile",
            'pod or containers "a", "b" must set securityContext.seccompProfile.type to '
            '"RuntimeDefault" or "Localhost"',
        ),
    ),
    (
        "seccomp: pod Unconfined",
        "seccompProfile_restricted",
        19,
        pod({"securityContext": {"seccompProfile": {"type": "Unconfined"}}, **containers(("a", None))}),
        ("seccompProfile", 'pod must not set securityContext.seccompProfile.type to "Unconfined"'),
    ),
    (
        "seccomp: pod RuntimeDefault, containers fall through",
        "seccompProfile_restricted",
        25,
        pod({"securityContext": {"seccompProfile": {"type": "RuntimeDefault"}}, **containers(("a", None), ("b", {}))}),
        None,
    ),
    (
        "seccomp: a windows pod",
        "seccompProfile_restricted",
        25,
        pod(containers(("a", None), os={"name": "windows"})),
        None,
    ),
]


@pytest.mark.parametrize(("check_id", "minor", "p", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_check(check_id: str, minor: int, p: o.Pod, expected: tuple[str, str] | None) -> None:
    assert run(check_id, minor, p) == expected


def test_a_probe_without_a_host_is_not_kept() -> None:
    """Only a probe or hook that calls another host is read (most containers of a dump have some)."""
    p = pod({"containers": [{"name": "a", "livenessProbe": {"httpGet": {"port": 80}}, "lifecycle": {"preStop": {}}}]})
    assert p.spec.containers[0].liveness_probe is None and p.spec.containers[0].lifecycle is None


def test_the_registry_orders_baseline_then_restricted_and_applies_overrides() -> None:
    """registry.go's populate: baseline IDs sorted, then restricted ones; a restricted check
    replaces the baseline ones it overrides from its own first version on."""
    assert check_ids(BASELINE, 35) == [
        "appArmorProfile",
        "capabilities_baseline",
        "hostNamespaces",
        "hostPathVolumes",
        "hostPorts",
        "hostProbesAndHostLifecycle",
        "privileged",
        "procMount",
        "seLinuxOptions",
        "seccompProfile_baseline",
        "sysctls",
        "windowsHostProcess",
    ]
    assert check_ids(RESTRICTED, 35) == [
        "appArmorProfile",
        "hostNamespaces",
        "hostPorts",
        "hostProbesAndHostLifecycle",
        "privileged",
        "seLinuxOptions",
        "sysctls",
        "windowsHostProcess",
        "allowPrivilegeEscalation",
        "capabilities_restricted",
        "procMount_restricted",
        "restrictedVolumes",
        "runAsNonRoot",
        "runAsUser",
        "seccompProfile_restricted",
    ]
    # v1.21: no restricted capabilities check yet, so the baseline one runs; no runAsUser before v1.23.
    assert "capabilities_baseline" in check_ids(RESTRICTED, 21) and "runAsUser" not in check_ids(RESTRICTED, 22)
    # v1.33 has no probe-host check; procMount is baseline's own until v1.35.
    assert "hostProbesAndHostLifecycle" not in check_ids(BASELINE, 33)
    assert "procMount" in check_ids(RESTRICTED, 34) and "procMount_restricted" not in check_ids(RESTRICTED, 34)
    assert NEWEST_CHECKS == 35


ROOT = pod(
    {
        "hostNetwork": True,
        "containers": [{"name": "app", "image": "nginx", PORTS: [{"containerPort": 80, "hostPort": 80}]}],
        "volumes": [{"name": "data", "hostPath": {"path": "/data"}}],
    }
)


def test_the_refusal_names_every_violation_in_the_api_servers_words() -> None:
    restricted = evaluate(ROOT, RESTRICTED)
    assert refusal(Policy(RESTRICTED), restricted) == (
        'violates PodSecurity "restricted:latest": host namespaces (hostNetwork=true), hostPort (container "app" '
        'uses hostPort 80), allowPrivilegeEscalation != false (container "app" must set '
        'securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "app" must set '
        'securityContext.capabilities.drop=["ALL"]), restricted volume types (volume "data" uses restricted volume '
        'type "hostPath"), runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true), '
        'seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or '
        '"Localhost")'
    )
    baseline = evaluate(ROOT, BASELINE, 30)
    assert refusal(Policy(BASELINE, 30), baseline) == (
        'violates PodSecurity "baseline:v1.30": host namespaces (hostNetwork=true), hostPath volumes (volume "data"), '
        'hostPort (container "app" uses hostPort 80)'
    )
    assert evaluate(ROOT, PRIVILEGED) == []


@pytest.mark.parametrize(
    ("labels", "policy"),
    [
        ({}, "privileged:latest"),
        ({"pod-security.kubernetes.io/enforce": "baseline"}, "baseline:latest"),
        (
            {"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/enforce-version": "v1.24"},
            "restricted:v1.24",
        ),
        ({"pod-security.kubernetes.io/enforce-version": "v1.24"}, "privileged:v1.24"),
        # Invalid values: a level fails closed, a version is latest.
        ({"pod-security.kubernetes.io/enforce": "Restricted"}, "restricted:latest"),
        ({"pod-security.kubernetes.io/enforce": ""}, "restricted:latest"),
        (
            {"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/enforce-version": "v1.024"},
            "baseline:latest",
        ),
        (
            {"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/enforce-version": "1.25"},
            "baseline:latest",
        ),
        (
            {"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/enforce-version": "v2.0"},
            "baseline:latest",
        ),
        (
            {"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/enforce-version": "v1.0"},
            "baseline:v1.0",
        ),
        # Audit and warn labels do not refuse.
        (
            {"pod-security.kubernetes.io/warn": "restricted", "pod-security.kubernetes.io/audit": "restricted"},
            "privileged:latest",
        ),
    ],
)
def test_the_namespace_labels(labels: dict[str, str], policy: str) -> None:
    assert str(enforced_policy(labels)) == policy


def test_a_policy_version_newer_than_the_api_server_is_its_own() -> None:
    """A pod in a user namespace may run as root from policy v1.35 on: an API server of v1.33
    reading `latest` or v1.35 checks v1.33's policy."""
    userns = pod(
        {
            "hostUsers": False,
            "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
            **containers(("a", {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}})),
        }
    )
    assert evaluate(userns, RESTRICTED) == []
    assert evaluate(userns, RESTRICTED, 35, newest=33) == [
        ("runAsNonRoot != true", 'pod or container "a" must set securityContext.runAsNonRoot=true')
    ]
    assert evaluate(userns, RESTRICTED, None, newest=33) == evaluate(userns, RESTRICTED, 34)
    assert refused_by_some_policy(userns)  # a namespace enforcing restricted:v1.34 refuses it


HARDENED = {
    "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
    "containers": [
        {
            "name": "app",
            "image": "nginx",
            "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}},
            "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
        }
    ],
}


def test_only_a_pod_some_policy_refuses_needs_its_namespace() -> None:
    assert refused_by_some_policy(pod(containers(("a", None))))
    assert not refused_by_some_policy(pod(HARDENED))
    # A Windows pod passes restricted:latest, not restricted:v1.24 (before its exemptions).
    windows = pod({**HARDENED, "os": {"name": "windows"}, "containers": [{"name": "app"}]})
    assert evaluate(windows, RESTRICTED) == [] and refused_by_some_policy(windows)


# ------------------------------------------------------------------ explain -f and check

CLUSTER = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
  status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
  status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
- apiVersion: v1
  kind: Namespace
  metadata:
    name: shop
    labels: {pod-security.kubernetes.io/enforce: restricted}
- apiVersion: v1
  kind: Namespace
  metadata: {name: lab}
"""
POD = """apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec:
  containers:
  - name: app
    image: nginx:1.27
    resources: {requests: {cpu: 100m, memory: 64Mi}}
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        resources: {requests: {cpu: 100m, memory: 64Mi}}
"""
REFUSAL = (
    'is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "app" '
    'must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "app" must set '
    'securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "app" must set '
    'securityContext.runAsNonRoot=true), seccompProfile (pod or container "app" must set '
    'securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'
)


def _run(
    tmp_path: Path, *args: str, manifest: str, cluster: str = CLUSTER, complete: bool = True
) -> tuple[int, str, str]:
    (tmp_path / "cluster.yaml").write_text(cluster)
    (tmp_path / "m.yaml").write_text(manifest)
    argv = [*args, "-f", str(tmp_path / "m.yaml"), "--from", str(tmp_path / "cluster.yaml")]
    argv += ["--complete"] if complete else []
    result = CliRunner().invoke(app, argv, env={"COLUMNS": "200", "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


def _replicas(out: str) -> list[Json]:
    replicas: list[Json] = msgspec.json.decode(out)["workloads"][0]["replicas"]
    return replicas


def test_explain_refuses_a_pod_its_namespace_forbids_in_the_api_servers_words(tmp_path: Path) -> None:
    code, out, err = _run(tmp_path, "explain", manifest=POD)
    assert code == 3 and out == ""
    assert err.startswith(f'podwhy: error: pods "web" {REFUSAL} (the API server\'s PodSecurity admission refuses it: ')
    assert "namespace shop is labelled pod-security.kubernetes.io/enforce=restricted" in err
    assert len(err.strip().splitlines()) == 1
    # The privileged namespace (no labels) admits it.
    code, _, _ = _run(tmp_path, "explain", manifest=POD.replace("namespace: shop", "namespace: lab"))
    assert code == 0


def test_check_reports_every_replica_of_a_root_deployment_not_created(tmp_path: Path) -> None:
    code, out, err = _run(tmp_path, "check", "-o", "json", manifest=DEPLOYMENT)
    replicas = _replicas(out)
    assert [r["created"] for r in replicas] == [False, False, False]
    assert all(r["node"] is None for r in replicas)
    for r in replicas:
        assert r["message"].startswith('not created: Error creating: pods "web-')
        assert r["message"].endswith(REFUSAL)
    assert code == 1, err
    hardened = DEPLOYMENT.replace(
        "      containers:\n",
        "      securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}\n      containers:\n",
    ).replace(
        "        resources:",
        "        securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}\n        resources:",
    )
    code, out, _ = _run(tmp_path, "check", "-o", "json", manifest=hardened)
    assert [r["created"] for r in _replicas(out)] == [True, True, True] and code == 0


def test_a_namespace_in_the_manifests_is_applied_before_its_pods(tmp_path: Path) -> None:
    namespace = """apiVersion: v1
kind: Namespace
metadata:
  name: edge
  labels: {pod-security.kubernetes.io/enforce: baseline, pod-security.kubernetes.io/enforce-version: v1.30}
---
"""
    pod_in_edge = POD.replace("namespace: shop", "namespace: edge").replace(
        "  containers:", "  hostPID: true\n  containers:"
    )
    code, out, _ = _run(tmp_path, "check", "-o", "json", manifest=namespace + pod_in_edge)
    (replica,) = _replicas(out)
    assert not replica["created"]
    assert replica["message"] == (
        'not created: Error creating: pods "web" is forbidden: violates PodSecurity "baseline:v1.30": '
        "host namespaces (hostPID=true)"
    )
    assert code == 1


def test_a_daemonset_and_an_ordered_statefulset_are_refused_as_their_controllers_create_pods(tmp_path: Path) -> None:
    daemonset = DEPLOYMENT.replace("kind: Deployment", "kind: DaemonSet").replace("  replicas: 3\n", "")
    code, out, _ = _run(tmp_path, "check", "-o", "json", manifest=daemonset)
    replicas = _replicas(out)
    assert len(replicas) == 2 and not any(r["created"] for r in replicas)
    assert all(r["message"].startswith('not created: Error creating: pods "web-') for r in replicas)
    assert all(r["message"].endswith(REFUSAL) for r in replicas)
    assert code == 1
    sts = DEPLOYMENT.replace("kind: Deployment", "kind: StatefulSet").replace(
        "  replicas: 3\n", "  replicas: 3\n  serviceName: web\n"
    )
    code, out, _ = _run(tmp_path, "check", "-o", "json", manifest=sts)
    replicas = _replicas(out)
    assert [r["created"] for r in replicas] == [False, False, False]
    assert replicas[0]["message"] == f'not created: Error creating: pods "web-0" {REFUSAL}'
    assert "once web-0 is Running" in replicas[1]["message"]
    parallel = sts.replace("  serviceName: web\n", "  serviceName: web\n  podManagementPolicy: Parallel\n")
    code, out, _ = _run(tmp_path, "check", "-o", "json", manifest=parallel)
    assert [r["message"] for r in _replicas(out)] == [
        f'not created: Error creating: pods "web-{i}" {REFUSAL}' for i in range(3)
    ]


def test_without_namespaces_only_a_pod_some_policy_refuses_is_inconclusive(tmp_path: Path) -> None:
    """A dump without Namespaces cannot tell the pod's namespace's labels: a pod that fits but
    fails the restricted level is Inconclusive; a pod every policy admits is Schedulable."""
    nodes = CLUSTER.split("- apiVersion: v1\n  kind: Namespace")[0]
    (tmp_path / "cluster.yaml").write_text(nodes)
    quotas = str(tmp_path / "quotas.json")  # ResourceQuotas listed, Namespaces not
    Path(quotas).write_text(json.dumps({"kind": "List", "items": [QUOTA_ELSEWHERE, POD_ELSEWHERE]}))

    def run(command: str, manifest: str) -> tuple[int, Json]:
        (tmp_path / "m.yaml").write_text(manifest)
        argv = [command, "-f", str(tmp_path / "m.yaml"), "--from", str(tmp_path / "cluster.yaml"), "--from", quotas]
        result = CliRunner().invoke(app, [*argv, "-o", "json"], env={"COLUMNS": "200", "NO_COLOR": "1"})
        return result.exit_code, msgspec.json.decode(result.stdout)

    root = POD.replace(", namespace: shop", "")
    code, report = run("explain", root)
    assert (code, report["verdict"]) == (3, "Inconclusive")
    assert "Namespace" in report["snapshot"]["missingKinds"]
    code, report = run("check", root)
    assert code == 3
    assert report["workloads"][0]["replicas"][0]["message"] == (
        "placed, but not evaluated: whether its namespace's PodSecurity level admits it "
        "(the snapshot has no Namespaces)"
    )
    hardened = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "spec": HARDENED}
    code, report = run("explain", json.dumps(hardened))
    assert (code, report["verdict"]) == (0, "Schedulable")
