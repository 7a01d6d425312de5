"""The API server's validation of pods and pod templates (cluster/apiserver/validation/), after upstream's
pkg/apis/core/validation/validation_test.go (TestValidateContainers, TestValidateResourceRequirements,
TestValidateTopologySpreadConstraints, TestValidatePodResourceConsistency, TestValidateOverhead,
...): each case's field and error type are upstream's, the words field.Error's; and what
`explain -f` and `check -f` say of a manifest the API server would refuse."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.cluster.apiserver.validation.invalid import InvalidObjectError
from podwhy.cluster.apiserver.validation.podspec import pod_spec_errors
from podwhy.features.emulation import DEFAULT, EMULATED, V1_33
from podwhy.model import objects as o

Json = dict[str, Any]


def spec(*containers: Json, **fields: Any) -> o.PodSpec:
    """A PodSpec of CONTAINERS (named c0, c1, ... unless they name themselves) and FIELDS."""
    named = [{"name": f"c{i}", "image": "img", **c} for i, c in enumerate(containers)]
    return msgspec.convert({"containers": named, **fields}, o.PodSpec)


def res(requests: Json | None = None, limits: Json | None = None) -> Json:
    return {"resources": {"requests": requests or {}, "limits": limits or {}}}


C0 = "spec.containers[0]"
BAD_SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)

# (test, the pod spec, the errors)
CASES: list[tuple[str, o.PodSpec, list[str]]] = [
    # ---- TestValidateContainers: resources
    ("resources-test", spec(res(limits={"cpu": "10", "memory": "10G", "my.org/resource": "10"})), []),
    ("resources-request-limit-simple", spec(res({"cpu": "8"}, {"cpu": "10"})), []),
    (
        "resources-request-limit-partials",
        spec(res({"cpu": "9.5", "memory": "10G"}, {"cpu": "10", "my.org/resource": "10"})),
        [],
    ),
    (
        "Resource CPU invalid",
        spec(res(limits={"cpu": "-10", "memory": "0"})),
        [f'{C0}.resources.limits[cpu]: Invalid value: "-10": must be greater than or equal to 0'],
    ),
    (
        "Resource Requests CPU invalid",
        spec(res({"cpu": "-10", "memory": "0"})),
        [f'{C0}.resources.requests[cpu]: Invalid value: "-10": must be greater than or equal to 0'],
    ),
    (
        "Resource Memory invalid (shown in its canonical form)",
        spec(res(limits={"cpu": "0", "memory": "-10240Ki"})),
        [f'{C0}.resources.limits[memory]: Invalid value: "-10Mi": must be greater than or equal to 0'],
    ),
    (
        "Request limit simple invalid",
        spec(res({"cpu": "6", "memory": "3"}, {"cpu": "5", "memory": "3"})),
        [f'{C0}.resources.requests: Invalid value: "6": must be less than or equal to cpu limit of 5'],
    ),
    (
        "Memory request limit multiple invalid",
        spec(res({"cpu": "5", "memory": "4"}, {"cpu": "5", "memory": "3"})),
        [f'{C0}.resources.requests: Invalid value: "4": must be less than or equal to memory limit of 3'],
    ),
    (
        "a fractional request over a limit, both canonical",
        spec(res({"cpu": "0.5"}, {"cpu": "250m"})),
        [f'{C0}.resources.requests: Invalid value: "500m": must be less than or equal to cpu limit of 250m'],
    ),
    (
        "invalid compute resource",
        spec(res(limits={"disk": "10G"})),
        [
            f'{C0}.resources.limits[disk]: Invalid value: "disk": must be a standard resource type or fully qualified',
            f'{C0}.resources.limits[disk]: Invalid value: "disk": must be a standard resource for containers',
        ],
    ),
    (
        "Invalid storage limit request",
        spec(res(limits={"attachable-volumes-aws-ebs": 10})),
        [
            f'{C0}.resources.limits[attachable-volumes-aws-ebs]: Invalid value: "attachable-volumes-aws-ebs": '
            "must be a standard resource type or fully qualified",
            f'{C0}.resources.limits[attachable-volumes-aws-ebs]: Invalid value: "attachable-volumes-aws-ebs": '
            "must be a standard resource for containers",
        ],
    ),
    (
        "a quota resource is no container resource",
        spec(res({"pods": "1"})),
        [f'{C0}.resources.requests[pods]: Invalid value: "pods": must be a standard resource for containers'],
    ),
    (
        "extended resources: whole numbers, requests equal to limits",
        spec(res({"example.com/gpu": "500m"}, {"example.com/gpu": "2"})),
        [
            f'{C0}.resources.requests[example.com/gpu]: Invalid value: "500m": must be an integer',
            f'{C0}.resources.requests: Invalid value: "500m": must be equal to example.com/gpu limit of 2',
        ],
    ),
    (
        "an extended resource request needs its limit",
        spec(res({"example.com/gpu": "1"})),
        [f"{C0}.resources.limits: Required value: Limit must be set for non overcommitable resources"],
    ),
    (
        "requests.* is no extended resource name",
        spec(res(limits={"requests.example.com/gpu": "1"})),
        [
            f'{C0}.resources.limits[requests.example.com/gpu]: Invalid value: "requests.example.com/gpu": '
            "doesn't follow extended resource name standard"
        ],
    ),
    # ---- TestValidateResourceRequirements: hugepages
    ("limits and requests of hugepage resource are equal", spec(res(*[{"cpu": "10", "hugepages-2Mi": "2Mi"}] * 2)), []),
    (
        "container resource hugepage with cpu or memory",
        spec(res({"hugepages-2Mi": "2Mi"}, {"hugepages-2Mi": "2Mi", "cpu": "10"})),
        [],
    ),
    (
        "container resource hugepage without cpu or memory",
        spec(res({"hugepages-2Mi": "2Mi"}, {"hugepages-2Mi": "2Mi"})),
        [f"{C0}.resources: Forbidden: HugePages require cpu or memory"],
    ),
    (
        "container resource hugepage without limit",
        spec(res({"memory": "2Mi", "hugepages-2Mi": "2Mi"})),
        [f"{C0}.resources.limits: Required value: Limit must be set for non overcommitable resources"],
    ),
    (
        "hugepages not a multiple of the page size (TestHugePagesIsolation)",
        spec(res({"cpu": "1", "hugepages-2Mi": "3Mi"}, {"cpu": "1", "hugepages-2Mi": "3Mi"})),
        [
            f'{C0}.resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of '
            "hugepages-2Mi",
            f'{C0}.resources.requests[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple '
            "of hugepages-2Mi",
        ],
    ),
    # ---- TestValidateContainers / TestValidatePorts: names and ports
    (
        "duplicate container names",
        spec({"name": "abc"}, {"name": "abc"}),
        ['spec.containers[1].name: Duplicate value: "abc"'],
    ),
    (
        "a container name that is no DNS label",
        spec({"name": "Web"}),
        [
            f'{C0}.name: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric '
            "characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
            "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
        ],
    ),
    (
        "an init container named as a container",
        spec({"name": "app"}, initContainers=[{"name": "app", "image": "img"}]),
        ['spec.initContainers[0].name: Duplicate value: "app"'],
    ),
    (
        "same host port, same protocol (defaulted TCP)",
        spec(
            {"ports": [{"containerPort": 80, "hostPort": 8080}]}, {"ports": [{"containerPort": 81, "hostPort": 8080}]}
        ),
        ['spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"'],
    ),
    (
        "same host port, different protocols",
        spec(
            {"ports": [{"containerPort": 80, "hostPort": 80, "protocol": "TCP"}]},
            {"ports": [{"containerPort": 80, "hostPort": 80, "protocol": "UDP"}]},
        ),
        [],
    ),
    ("a pod without containers", spec(), ["spec.containers: Required value"]),
    (
        "a container without an image",
        spec({"image": ""}, {"name": "", "image": ""}),
        [
            f"{C0}.image: Required value",
            "spec.containers[1].name: Required value",
            "spec.containers[1].image: Required value",
        ],
    ),
    (
        "an init container's own host ports",
        spec(
            {},
            initContainers=[
                {"name": "i", "image": "img", "ports": [{"containerPort": 1, "hostPort": 8080}] * 2},
            ],
        ),
        ['spec.initContainers[0].ports[1].hostPort: Duplicate value: "TCP//8080"'],
    ),
    (
        "port numbers and protocol",
        spec({"ports": [{"containerPort": 0}, {"containerPort": 65536, "hostPort": 70000, "protocol": "HTTP"}]}),
        [
            f"{C0}.ports[0].containerPort: Required value",
            f"{C0}.ports[1].containerPort: Invalid value: 65536: must be between 1 and 65535, inclusive",
            f"{C0}.ports[1].hostPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
            f'{C0}.ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
        ],
    ),
    (
        "port names",
        spec({"ports": [{"containerPort": 1, "name": "http"}, {"containerPort": 2, "name": "http"}]}),
        [f'{C0}.ports[1].name: Duplicate value: "http"'],
    ),
    # ---- TestValidateVolumes
    (
        "duplicate volume names",
        spec({}, volumes=[{"name": "data"}, {"name": "data"}]),
        ['spec.volumes[1].name: Duplicate value: "data"'],
    ),
    # ---- TestValidateTopologySpreadConstraints
    (
        "all required fields ok",
        spec(
            {},
            topologySpreadConstraints=[
                {"maxSkew": 1, "topologyKey": "k8s.io/zone", "whenUnsatisfiable": "DoNotSchedule", "minDomains": 3}
            ],
        ),
        [],
    ),
    (
        "negative MaxSkew, missing TopologyKey, missing scheduling mode",
        spec({}, topologySpreadConstraints=[{"maxSkew": -1}]),
        [
            "spec.topologySpreadConstraints[0].maxSkew: Invalid value: -1: must be greater than zero",
            "spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty",
            'spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "": supported values: '
            '"DoNotSchedule", "ScheduleAnyway"',
        ],
    ),
    (
        "use negative MinDomains with ScheduleAnyway(invalid)",
        spec(
            {},
            topologySpreadConstraints=[
                {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway", "minDomains": -1}
            ],
        ),
        [
            "spec.topologySpreadConstraints[0].minDomains: Invalid value: -1: must be greater than zero",
            "spec.topologySpreadConstraints[0].minDomains: Invalid value: -1: can only use minDomains if "
            "whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway",
        ],
    ),
    (
        "duplicate constraints",
        spec(
            {},
            topologySpreadConstraints=[
                {"maxSkew": 1, "topologyKey": "k8s.io/zone", "whenUnsatisfiable": "DoNotSchedule"},
                {"maxSkew": 2, "topologyKey": "k8s.io/zone", "whenUnsatisfiable": "DoNotSchedule"},
            ],
        ),
        [
            "spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "
            '"{k8s.io/zone, DoNotSchedule}"'
        ],
    ),
    (
        "unsupported policy name set on NodeAffinityPolicy",
        spec(
            {},
            topologySpreadConstraints=[
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "whenUnsatisfiable": "DoNotSchedule",
                    "nodeAffinityPolicy": "Unknown",
                }
            ],
        ),
        [
            "spec.topologySpreadConstraints[0].nodeAffinityPolicy: Unsupported value: "
            '"Unknown": supported values: "Honor", "Ignore"'
        ],
    ),
    # ---- tolerations (ValidateTolerations)
    (
        "toleration operator and effect",
        spec(
            {},
            tolerations=[
                {"operator": "Equal", "effect": "NoRun"},
                {"key": "a", "operator": "In"},
                {"key": "b", "operator": "Exists", "value": "x"},
            ],
        ),
        [
            'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, '
            'which means "match all values and all keys"',
            'spec.tolerations[0].effect: Unsupported value: "NoRun": supported values: "NoSchedule", '
            '"PreferNoSchedule", "NoExecute"',
            'spec.tolerations[1].operator: Unsupported value: "In": supported values: "Equal", "Exists"',
            "spec.tolerations[2].operator: Invalid value: \"x\": value must be empty when `operator` is 'Exists'",
        ],
    ),
    (
        "tolerationSeconds needs NoExecute; Lt needs its feature gate",
        spec(
            {},
            tolerations=[{"key": "a", "operator": "Lt", "value": "5", "effect": "NoSchedule", "tolerationSeconds": 5}],
        ),
        [
            "spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when "
            "`tolerationSeconds` is set",
            'spec.tolerations[0].operator: Unsupported value: "Lt": supported values: "Equal", "Exists", "Lt", "Gt"',
        ],
    ),
    # ---- node selectors and affinity
    (
        "required node affinity operators (ValidateNodeSelectorRequirement)",
        spec(
            {},
            affinity={
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": "zone", "operator": "In"},
                                    {"key": "zone", "operator": "Exists", "values": ["a"]},
                                    {"key": "zone", "operator": "Between", "values": ["a"]},
                                ],
                                "matchFields": [{"key": "metadata.namespace", "operator": "In", "values": ["a"]}],
                            }
                        ]
                    },
                    "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 0, "preference": {}}],
                }
            },
        ),
        [
            (p := "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]")
            + ".matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
            f"{p}.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or "
            "'DoesNotExist'",
            f'{p}.matchExpressions[2].operator: Invalid value: "Between": not a valid selector operator',
            f'{p}.matchFields[0].key: Invalid value: "metadata.namespace": not a valid field selector key',
            "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: "
            "must be in the range 1-100",
        ],
    ),
    (
        "pod anti-affinity term without a topology key",
        spec(
            {},
            affinity={
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": {"app": "web"}}}
                    ]
                }
            },
        ),
        [
            "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: "
            "Required value: can not be empty",
            "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: "
            'Invalid value: "": name part must be non-empty',
            "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: "
            "Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must "
            "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
            "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ],
    ),
    # ---- priority and overhead (TestValidateOverhead)
    (
        "priority class name and preemption policy",
        spec({}, priorityClassName="High", preemptionPolicy="Sometimes"),
        [
            f'spec.priorityClassName: Invalid value: "High": {BAD_SUBDOMAIN}',
            'spec.preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"',
        ],
    ),
    ("overhead ok", spec({}, overhead={"cpu": "10", "memory": "10G"}), []),
    (
        "overhead: a negative quantity, an invalid name",
        spec({}, overhead={"cpu": "-1", "my.org": "10m"}),
        [
            'spec.overhead.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0',
            'spec.overhead.limits[my.org]: Invalid value: "my.org": must be a standard resource type or fully '
            "qualified",
            'spec.overhead.limits[my.org]: Invalid value: "my.org": must be a standard resource for containers',
        ],
    ),
    # ---- TestValidatePodResourceConsistency (pod-level resources)
    (
        "aggregate container requests less than pod requests",
        spec(
            res({"cpu": "5", "memory": "5Mi"}),
            res({"cpu": "4", "memory": "3Mi"}),
            resources={"requests": {"cpu": "10", "memory": "10Mi"}},
        ),
        [],
    ),
    (
        "aggregate container requests greater than pod requests",
        spec(
            res({"cpu": "6", "memory": "5Mi"}),
            res({"cpu": "8", "memory": "7Mi"}),
            resources={"requests": {"cpu": "10", "memory": "10Mi"}},
        ),
        [
            'spec.resources.requests[cpu]: Invalid value: "10": must be greater than or equal to aggregate container '
            "requests of 14",
            'spec.resources.requests[memory]: Invalid value: "10Mi": must be greater than or equal to aggregate '
            "container requests of 12Mi",
        ],
    ),
    (
        "aggregate container limits greater than pod limits",
        spec(res(limits={"cpu": "5"}), res(limits={"cpu": "6"}), resources={"limits": {"cpu": "5500m"}}),
        [
            'spec.resources.containers[1][cpu].limits: Invalid value: "6": must be less than or equal to pod limits '
            "of 5500m"
        ],
    ),
    (
        "pod-level resources: cpu, memory and hugepages only",
        spec({}, resources={"requests": {"example.com/gpu": "1"}}),
        [
            'spec.resources.requests[example.com/gpu]: Unsupported value: "example.com/gpu": supported values: '
            '"cpu", "hugepages-", "memory"',
            "spec.resources.limits: Required value: Limit must be set for non overcommitable resources",
        ],
    ),
]


@pytest.mark.parametrize(("test", "pod_spec", "errors"), CASES, ids=[c[0] for c in CASES])
def test_pod_spec(test: str, pod_spec: o.PodSpec, errors: list[str]) -> None:
    assert pod_spec_errors(pod_spec, "spec", DEFAULT) == errors


# validatePodHostNetworkDeps and validateHostUsers (TestValidatePodSpec's "with hostNetwork hostPort
# unspecified" and "... not equal to containerPort", TestValidateHostUsers): (test, spec, is a Pod,
# the errors), each detail of validateHostUsers as v1.34 and later word it.
HOST_PORT = "must match `containerPort` when `hostNetwork` is true"
HOST_CASES: list[tuple[str, o.PodSpec, bool, list[str]]] = [
    (
        "populate HostNetwork",
        spec({"ports": [{"hostPort": 8080, "containerPort": 8080}]}, hostNetwork=True),
        True,
        [],
    ),
    (
        "with hostNetwork hostPort unspecified",
        spec({"ports": [{"containerPort": 2600}]}, hostNetwork=True),
        True,
        [f"{C0}.ports[0].hostPort: Invalid value: 0: {HOST_PORT}"],
    ),
    (
        "with hostNetwork hostPort not equal to containerPort",
        spec({"ports": [{"hostPort": 8080, "containerPort": 2600}]}, hostNetwork=True),
        True,
        [f"{C0}.ports[0].hostPort: Invalid value: 8080: {HOST_PORT}"],
    ),
    (
        "a template may leave hostPort to the Pod's defaulting",
        spec({"ports": [{"containerPort": 2600}]}, hostNetwork=True),
        False,
        [],
    ),
    (
        "a template's hostPort must match too",
        spec({"ports": [{"hostPort": 9090, "containerPort": 8080}]}, hostNetwork=True),
        False,
        [f"{C0}.ports[0].hostPort: Invalid value: 9090: {HOST_PORT}"],
    ),
    (
        "init containers' ports are not checked",
        spec(
            {},
            hostNetwork=True,
            initContainers=[{"name": "i", "image": "img", "ports": [{"hostPort": 1, "containerPort": 2}]}],
        ),
        True,
        [],
    ),
    ("hostUsers=false", spec({}, hostUsers=False), True, []),
    ("hostUsers=true & HostNetwork", spec({}, hostUsers=True, hostNetwork=True), True, []),
    (
        "hostUsers=false & HostNetwork",
        spec({}, hostUsers=False, hostNetwork=True),
        True,
        ["spec.hostNetwork: Forbidden: when `hostUsers` is false"],
    ),
    (
        "hostUsers=false & HostPID",
        spec({}, hostUsers=False, hostPID=True),
        True,
        ["spec.HostPID: Forbidden: when `hostUsers` is false"],
    ),
    (
        "hostUsers=false & HostIPC",
        spec({}, hostUsers=False, hostIPC=True),
        True,
        ["spec.HostIPC: Forbidden: when `hostUsers` is false"],
    ),
]


@pytest.mark.parametrize(("test", "pod_spec", "is_pod", "errors"), HOST_CASES, ids=[c[0] for c in HOST_CASES])
def test_host_namespaces(test: str, pod_spec: o.PodSpec, is_pod: bool, errors: list[str]) -> None:
    assert pod_spec_errors(pod_spec, "spec", DEFAULT, is_pod=is_pod) == errors


@pytest.mark.parametrize("minor", sorted(EMULATED))
def test_host_users_words_per_release(minor: int) -> None:
    """v1.33 words validateHostUsers' refusal after the Go field (`pod.Spec.HostUsers`)."""
    words = "when `pod.Spec.HostUsers` is false" if minor == 33 else "when `hostUsers` is false"
    pod_spec = spec({"ports": [{"hostPort": 9090, "containerPort": 9090}]}, hostUsers=False, hostNetwork=True)
    assert pod_spec_errors(pod_spec, "spec", EMULATED[minor]) == [f"spec.hostNetwork: Forbidden: {words}"]


def test_pod_level_resources_are_not_validated_where_the_release_drops_them() -> None:
    """v1.33: PodLevelResources is off; the API server drops spec.resources before validating."""
    pod_spec = spec({}, resources={"requests": {"example.com/gpu": "-1"}})
    assert pod_spec_errors(pod_spec, "spec", V1_33) == []
    assert pod_spec_errors(pod_spec, "spec", DEFAULT) != []


def test_the_refusal_reads_as_kubectl_and_the_api_server_word_it() -> None:
    one = InvalidObjectError("Pod", "web", ["a: Required value"])
    assert one.message == 'The Pod "web" is invalid: a: Required value'
    assert one.words == 'Pod "web" is invalid: a: Required value'
    several = InvalidObjectError("Deployment", "web", ["a: Required value", "b: Required value", "a: Required value"])
    assert (
        several.in_file("d.yaml").message
        == 'd.yaml: The Deployment "web" is invalid: [a: Required value, b: Required value]'
    )
    assert several.words == 'Deployment.apps "web" is invalid: [a: Required value, b: Required value]'


# ------------------------------------------------------------------ explain -f and check -f
CLUSTER = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
  status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Namespace
  metadata: {name: shop}
"""
LIMIT_RANGE = """- apiVersion: v1
  kind: LimitRange
  metadata: {name: defaults, namespace: shop}
  spec:
    limits:
    - type: Container
      default: {cpu: "1"}
      min: {cpu: 100m}
"""
POD = (
    "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\nspec:\n"
    "  containers:\n  - name: app\n    image: nginx\n"
)
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx
"""


def _run(tmp_path: Path, command: str, cluster: str, manifest: str, *extra: str) -> tuple[int, str, str]:
    (tmp_path / "cluster.yaml").write_text(cluster)
    (tmp_path / "m.yaml").write_text(manifest)
    args = [command, "-f", str(tmp_path / "m.yaml"), "--from", str(tmp_path / "cluster.yaml"), "--complete", *extra]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200", "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("command", ["explain", "check"])
def test_a_negative_request_is_refused_not_scheduled(tmp_path: Path, command: str) -> None:
    code, out, err = _run(tmp_path, command, CLUSTER, POD + '    resources: {requests: {cpu: "-5"}}\n')
    assert (code, out) == (3, "")
    first = err.splitlines()[0]
    assert first.startswith(
        f'podwhy: error: {tmp_path / "m.yaml"}: The Pod "web" is invalid: spec.containers[0].resources.requests[cpu]: '
        'Invalid value: "-5": must be greater than or equal to 0 ('
    )
    assert len(err.strip().splitlines()) == 1


def test_a_request_copied_from_its_limit_cannot_exceed_it(tmp_path: Path) -> None:
    """Validation runs on the defaulted pod: a limit alone is also the request, and valid."""
    code, _, err = _run(tmp_path, "explain", CLUSTER, POD + "    resources: {limits: {cpu: 500m, memory: 1Gi}}\n")
    assert code == 0, err


def test_a_request_above_the_limitrange_default_limit_is_invalid(tmp_path: Path) -> None:
    """LimitRanger (mutating) gives the container a limit below its request: the pod is invalid,
    which is said before LimitRanger's own bounds are checked."""
    code, out, err = _run(tmp_path, "explain", CLUSTER + LIMIT_RANGE, POD + "    resources: {requests: {cpu: 2}}\n")
    assert (code, out) == (3, "")
    assert (
        ': The Pod "web" is invalid: spec.containers[0].resources.requests: Invalid value: "2": must be less than '
        "or equal to cpu limit of 1" in err
    )
    # A negative request with a LimitRange minimum: the API server says it is invalid, not forbidden.
    code, _, err = _run(tmp_path, "explain", CLUSTER + LIMIT_RANGE, POD + '    resources: {requests: {cpu: "-1"}}\n')
    assert code == 3 and 'is invalid: spec.containers[0].resources.requests[cpu]: Invalid value: "-1"' in err


def test_an_invalid_template_refuses_the_workload(tmp_path: Path) -> None:
    bad = (
        DEPLOYMENT + "        ports: [{containerPort: 8080, hostPort: 70000}]\n      tolerations: [{operator: Equal}]\n"
    )
    code, out, err = _run(tmp_path, "check", CLUSTER, bad)
    assert (code, out) == (3, "")
    assert err.startswith(
        f'podwhy: error: {tmp_path / "m.yaml"}: The Deployment "web" is invalid: '
        "[spec.template.spec.containers[0].ports[0].hostPort: Invalid value: 70000: must be between 1 and 65535, "
        'inclusive, spec.template.spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists '
        'when `key` is empty, which means "match all values and all keys"] ('
    )
    cron = (
        "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly, namespace: shop}\nspec:\n"
        '  schedule: "0 0 * * *"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n'
        "          containers: [{name: a, image: x, resources: {requests: {memory: -1Gi}}}]\n"
    )
    code, _, err = _run(tmp_path, "check", CLUSTER, cron)
    assert code == 3
    assert (
        'The CronJob "nightly" is invalid: spec.jobTemplate.spec.template.spec.containers[0].resources.requests[memory]'
        ': Invalid value: "-1Gi": must be greater than or equal to 0' in err
    )


def test_a_template_limit_alone_is_valid(tmp_path: Path) -> None:
    """A template is not defaulted as a pod: an extended resource's limit alone is valid there, and
    its pods get the request."""
    gpu = DEPLOYMENT + "        resources: {limits: {example.com/gpu: 1}}\n"
    code, out, err = _run(tmp_path, "check", CLUSTER, gpu)
    assert code != 3, err
    assert "example.com/gpu" in out


def test_replicas_invalid_after_limitrange_defaults_are_not_created(tmp_path: Path) -> None:
    """The Deployment is valid; its pods, with LimitRanger's default limit below their request,
    are not: the ReplicaSet controller's creates fail (FailedCreate), in the event's words."""
    manifest = DEPLOYMENT + "        resources: {requests: {cpu: 2}}\n"
    code, out, err = _run(tmp_path, "check", CLUSTER + LIMIT_RANGE, manifest, "-o", "json")
    assert code == 1, err
    messages = [r["message"] for w in json.loads(out)["workloads"] for r in w["replicas"]]
    assert len(messages) == 2
    for message in messages:
        assert re.fullmatch(
            r'not created: Error creating: Pod "web-[0-9a-z]+-[0-9a-z]{5}" is invalid: spec\.containers\[0\]\.resources'
            r'\.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
            message,
        ), message


@pytest.mark.parametrize("command", ["explain", "check"])
def test_a_host_network_pod_whose_host_port_differs_is_refused(tmp_path: Path, command: str) -> None:
    manifest = POD.replace("spec:\n", "spec:\n  hostNetwork: true\n") + (
        "    ports: [{containerPort: 8080, hostPort: 9090}]\n"
    )
    code, out, err = _run(tmp_path, command, CLUSTER, manifest)
    assert (code, out) == (3, "")
    assert err.startswith(
        f'podwhy: error: {tmp_path / "m.yaml"}: The Pod "web" is invalid: spec.containers[0].ports[0].hostPort: '
        "Invalid value: 9090: must match `containerPort` when `hostNetwork` is true ("
    )


def test_a_host_network_template_whose_host_port_differs_is_refused(tmp_path: Path) -> None:
    manifest = DEPLOYMENT.replace("    spec:\n", "    spec:\n      hostNetwork: true\n") + (
        "        ports: [{containerPort: 8080, hostPort: 9090}]\n"
    )
    code, out, err = _run(tmp_path, "check", CLUSTER, manifest)
    assert (code, out) == (3, "")
    assert "spec.template.spec.containers[0].ports[0].hostPort: Invalid value: 9090: must match" in err


@pytest.mark.parametrize("command", ["explain", "check"])
def test_host_network_in_a_user_namespace_is_refused(tmp_path: Path, command: str) -> None:
    manifest = POD.replace("spec:\n", "spec:\n  hostNetwork: true\n  hostUsers: false\n")
    code, out, err = _run(tmp_path, command, CLUSTER, manifest)
    assert (code, out) == (3, "")
    assert 'The Pod "web" is invalid: spec.hostNetwork: Forbidden: when `hostUsers` is false (' in err


# ------------------------------------------------------------------ pods read from a dump (explain NAME, pending)
DUMP_POD = """- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: shop}
  spec:
SPEC
  status: {phase: Pending}
"""
APP = "    containers: [{name: app, image: nginx}]\n"
BAD_SPREAD = APP + "    topologySpreadConstraints:\n    - {maxSkew: 0, topologyKey: '', whenUnsatisfiable: Maybe}"
BAD_SPREAD_ERRORS = (
    "[spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero, "
    "spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty, "
    'spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Maybe": supported values: '
    '"DoNotSchedule", "ScheduleAnyway"]'
)


def _run_dump(tmp_path: Path, args: list[str], spec: str) -> tuple[int, str, str]:
    (tmp_path / "cluster.yaml").write_text(CLUSTER + DUMP_POD.replace("SPEC", spec))
    result = CliRunner().invoke(
        app, [*args, "--from", str(tmp_path / "cluster.yaml")], env={"COLUMNS": "200", "NO_COLOR": "1"}
    )
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("args", [["explain", "web", "-n", "shop"], ["pending", "-A"], ["pending", "-n", "shop"]])
def test_a_dumped_pod_the_server_would_not_store_is_said_so(tmp_path: Path, args: list[str]) -> None:
    """explain and pending validate the pods they read as check and explain -f validate theirs. A
    pod the snapshot holds was stored by some API server (an older release's rules ratchet) or
    the dump was written without one, as kube-scheduler's own test cases are: it is scheduled as
    given, and the API server's refusal is said beside, never a silent all-clear."""
    code, out, err = _run_dump(tmp_path, args, BAD_SPREAD)
    words = f'Pod "web" is invalid: {BAD_SPREAD_ERRORS}'
    assert (
        f"podwhy: warning: a pod of the snapshot the emulated release's API server would not store as given ({words})"
        in err
    )
    if args[0] == "explain":
        assert out.splitlines()[2].startswith("The API server would not store this pod as given (Pod")
        assert "the verdict is what kube-scheduler does with it as given" in " ".join(out.split())
    assert code in (0, 1), err


def test_a_dumped_pod_is_validated_as_defaulted(tmp_path: Path) -> None:
    """A hand-written dump's hostNetwork pod without hostPort: defaulting gives it its containerPort."""
    spec = "    hostNetwork: true\n    containers: [{name: app, image: nginx, ports: [{containerPort: 80}]}]"
    code, _, err = _run_dump(tmp_path, ["explain", "web", "-n", "shop"], spec)
    assert code in (0, 1), err
