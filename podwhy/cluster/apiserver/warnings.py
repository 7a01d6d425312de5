"""The warnings the API server returns when it creates a Pod or a workload, which kubectl prints
as `Warning: ...` (pkg/api/pod/warnings.go: GetWarningsForPod, GetWarningsForPodTemplate; the
PodSecurity admission's warn level). Each is the server's own text, verbatim.

Of warnings.go, the warnings on what podwhy reads: deprecated node labels in nodeSelector, node
affinity terms and topology spread keys (pkg/api/node's deprecatedNodeLabels), a spread
constraint without a labelSelector, deprecated annotations (critical-pod, sysctls, seccomp),
fractional byte values of memory and ephemeral storage, host ports set without hostPort, and a
negative terminationGracePeriodSeconds. Not said: volumes' deprecations, overlapping paths,
duplicate env names, port and host alias duplicates, AppArmor annotations, DNS settings.
PodSecurity's audit level goes to the audit log, not to the client: it is not said either."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from podwhy.cluster.apiserver.admission.podsecurity.levels import PRIVILEGED, warn_policy
from podwhy.cluster.apiserver.admission.podsecurity.messages import refusal
from podwhy.cluster.apiserver.admission.podsecurity.policy.registry import evaluate
from podwhy.helpers.fielderrors import child, index, key
from podwhy.helpers.namevalidation import label_value_errors
from podwhy.model import objects as o
from podwhy.model.quantity import QuantityError, go_string, parse_quantity, quantity_format
from podwhy.snapshot.cluster import Snapshot

# pkg/api/node/util.go: deprecatedNodeLabels (the same in v1.33 to v1.36).
DEPRECATED_NODE_LABELS = {
    "beta.kubernetes.io/arch": 'deprecated since v1.14; use "kubernetes.io/arch" instead',
    "beta.kubernetes.io/os": 'deprecated since v1.14; use "kubernetes.io/os" instead',
    "failure-domain.beta.kubernetes.io/region": 'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
    "failure-domain.beta.kubernetes.io/zone": 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
    "beta.kubernetes.io/instance-type": 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
    "app.kubernetes.io/created-by": "deprecated since v1.9",
    "scheduler.alpha.kubernetes.io/preferAvoidPods": "deprecated since v1.22; use Taints and Tolerations instead",
    "node-role.kubernetes.io/master": 'use "node-role.kubernetes.io/control-plane" instead',
}

# warnings.go: deprecatedAnnotations.
DEPRECATED_ANNOTATIONS = (
    (
        "scheduler.alpha.kubernetes.io/critical-pod",
        'non-functional in v1.16+; use the "priorityClassName" field instead',
    ),
    ("security.alpha.kubernetes.io/sysctls", 'non-functional in v1.11+; use the "sysctls" field instead'),
    ("security.alpha.kubernetes.io/unsafe-sysctls", 'non-functional in v1.11+; use the "sysctls" field instead'),
)
SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CONTAINER_ANNOTATION_PREFIX = "container.seccomp.security.alpha.kubernetes.io/"
SECCOMP_MESSAGE = 'non-functional in v1.27+; use the "seccompProfile" field instead'


def _node_term_warnings(term: o.NodeSelectorTerm, check_values: bool, path: str) -> list[str]:
    """GetWarningsForNodeSelectorTerm."""
    out: list[str] = []
    for i, expression in enumerate(term.match_expressions):
        item = index(child(path, "matchExpressions"), i)
        msg = DEPRECATED_NODE_LABELS.get(expression.key)
        if msg is not None:
            out.append(f"{child(item, 'key')}: {expression.key} is {msg}")
        if check_values:
            for j, value in enumerate(expression.values):
                for err in label_value_errors(value):
                    out.append(f"{index(child(item, 'values'), j)}: {value} is invalid, {err}")
    return out


def _fractional_bytes(raw: o.QuantityInput) -> str | None:
    """A byte quantity whose MilliValue is not a whole number of bytes: its String()."""
    try:
        value = parse_quantity(raw)
    except QuantityError:
        return None
    if (value * 1000) % 1000 == 0:
        return None
    return go_string(value, quantity_format(raw))


def _containers_with_paths(spec: o.PodSpec, path: str) -> list[tuple[o.Container, str]]:
    """VisitContainersWithPath: init containers, then containers."""
    inits = [(c, index(child(path, "initContainers"), i)) for i, c in enumerate(spec.init_containers)]
    return inits + [(c, index(child(path, "containers"), i)) for i, c in enumerate(spec.containers)]


def pod_warnings(meta: o.ObjectMeta, spec: o.PodSpec, field_path: str = "") -> list[str]:
    """warningsForPodSpecAndMeta of a Pod (FIELD_PATH empty) or a template (FIELD_PATH its path,
    `spec.template`), in its order."""
    spec_path = child(field_path, "spec")
    annotations_path = child(child(field_path, "metadata"), "annotations")
    out: list[str] = []
    for name in spec.node_selector:
        msg = DEPRECATED_NODE_LABELS.get(name)
        if msg is not None:
            out.append(f"{key(child(spec_path, 'nodeSelector'), name)}: {msg}")
    out += _node_affinity_warnings(spec, spec_path)
    out += _spread_warnings(spec, spec_path)
    for name, msg in DEPRECATED_ANNOTATIONS:
        if name in meta.annotations:
            out.append(f"{key(annotations_path, name)}: {msg}")
    out += _fractional_bytes_warnings(spec.overhead, ("memory", "ephemeral-storage"), child(spec_path, "overhead"))
    pod_seccomp = spec.security_context is not None and spec.security_context.seccomp_profile is not None
    if not pod_seccomp and SECCOMP_POD_ANNOTATION in meta.annotations:
        out.append(f"{key(annotations_path, SECCOMP_POD_ANNOTATION)}: {SECCOMP_MESSAGE}")
    for container, path in _containers_with_paths(spec, spec_path):
        out += _container_warnings(meta, container, path, annotations_path)
    if spec.termination_grace_period_seconds is not None and spec.termination_grace_period_seconds < 0:
        where = child(spec_path, "terminationGracePeriodSeconds")
        out.append(f"{where}: must be >= 0; negative values are invalid and will be treated as 1")
    return out


def _node_affinity_warnings(spec: o.PodSpec, spec_path: str) -> list[str]:
    """The deprecated node labels of the node affinity's terms (required ones' values not checked)."""
    node = spec.affinity.node_affinity if spec.affinity is not None else None
    if node is None:
        return []
    out: list[str] = []
    node_path = child(child(spec_path, "affinity"), "nodeAffinity")
    required = node.required_during_scheduling_ignored_during_execution
    if required is not None:
        terms = child(child(node_path, "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms")
        for i, term in enumerate(required.node_selector_terms):
            out += _node_term_warnings(term, False, index(terms, i))
    preferred = child(node_path, "preferredDuringSchedulingIgnoredDuringExecution")
    for i, weighted in enumerate(node.preferred_during_scheduling_ignored_during_execution):
        out += _node_term_warnings(weighted.preference, True, child(index(preferred, i), "preference"))
    return out


def _spread_warnings(spec: o.PodSpec, spec_path: str) -> list[str]:
    """A spread constraint's deprecated topology key, and one without a labelSelector."""
    out: list[str] = []
    for i, constraint in enumerate(spec.topology_spread_constraints):
        item = index(child(spec_path, "topologySpreadConstraints"), i)
        msg = DEPRECATED_NODE_LABELS.get(constraint.topology_key)
        if msg is not None:
            out.append(f"{child(item, 'topologyKey')}: {constraint.topology_key} is {msg}")
        if constraint.label_selector is None:
            out.append(f"{child(item, 'labelSelector')}: a null labelSelector results in matching no pod")
    return out


def _fractional_bytes_warnings(values: o.ResourceList, resources: tuple[str, ...], path: str) -> list[str]:
    """A fractional byte value of each of RESOURCES in VALUES."""
    out: list[str] = []
    for resource in resources:
        if resource in values:
            shown = _fractional_bytes(values[resource])
            if shown is not None:
                out.append(f'{key(path, resource)}: fractional byte value "{shown}" is invalid, must be an integer')
    return out


def _container_warnings(meta: o.ObjectMeta, container: o.Container, path: str, annotations_path: str) -> list[str]:
    """A container's seccomp annotation where its securityContext names no profile, and its
    fractional byte values (memory, then ephemeral storage; limits before requests)."""
    out: list[str] = []
    context = container.security_context
    annotation = SECCOMP_CONTAINER_ANNOTATION_PREFIX + container.name
    if (context is None or context.seccomp_profile is None) and annotation in meta.annotations:
        out.append(f"{key(annotations_path, annotation)}: {SECCOMP_MESSAGE}")
    resources = container.resources
    for resource in ("memory", "ephemeral-storage"):
        for which, values in (("limits", resources.limits), ("requests", resources.requests)):
            out += _fractional_bytes_warnings(values, (resource,), child(child(path, "resources"), which))
    return out


def pod_security_warnings(
    meta: o.ObjectMeta, spec: o.PodSpec, namespace_labels: Mapping[str, str], newest: int
) -> list[str]:
    """PodSecurity's warning for a pod or a workload's template: the namespace's warn level
    (`pod-security.kubernetes.io/warn`, its `-version`) would refuse it."""
    policy = warn_policy(namespace_labels)
    if policy.level == PRIVILEGED:
        return []
    violations = evaluate(o.Pod(metadata=meta, spec=spec), policy.level, policy.version, newest=newest)
    if not violations:
        return []
    return [refusal(policy, violations).replace("violates", "would violate", 1)]


def workload_template(kind: str, obj: Any) -> tuple[o.PodTemplateSpec, str]:
    """A workload's pod template and its path (GetWarningsForPodTemplate's fieldPath)."""
    spec = obj.spec
    if kind == "CronJob":
        return spec.job_template.spec.template, "spec.jobTemplate.spec.template"
    return spec.template, "spec.template"


def record(snapshot: Snapshot, what: str, warnings: list[str]) -> None:
    """The API server's warnings on creating WHAT (`Deployment default/web`), kept for the report,
    each once."""
    for text in warnings:
        if (what, text) not in snapshot.api_warnings:
            snapshot.api_warnings.append((what, text))


def warn_on_create(snapshot: Snapshot, kind: str, obj: Any, newest: int, namespace: str = "") -> None:
    """What `kubectl apply` of a workload (or a Pod, KIND "Pod") prints: the registry's warnings
    on its pod template, then PodSecurity's warn level for its namespace (NAMESPACE when the
    manifest names none)."""
    meta: o.ObjectMeta = obj.metadata
    namespace = meta.namespace or namespace
    if kind == "Pod":
        pod_meta, spec, path = meta, obj.spec, ""
    else:
        template, path = workload_template(kind, obj)
        pod_meta, spec = template.metadata, template.spec
    warnings = pod_warnings(pod_meta, spec, path)
    ns = snapshot.namespaces.get(namespace)
    if ns is not None:
        warnings += pod_security_warnings(pod_meta, spec, ns.metadata.labels, newest)
    record(snapshot, f"{kind} {namespace}/{meta.name}", warnings)
