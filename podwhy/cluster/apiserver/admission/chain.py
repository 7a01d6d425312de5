"""Manifests from -f, with what admission would have set before the scheduler saw them."""

from __future__ import annotations

from podwhy.cluster.apiserver.admission import podsecurity as pod_security
from podwhy.cluster.apiserver.admission import runtimeclass as runtime_class
from podwhy.cluster.apiserver.admission.limitranger import aggregate, namespace_limit_ranges
from podwhy.cluster.apiserver.admission.limitranger import mutate as limit_range_mutate
from podwhy.cluster.apiserver.admission.limitranger import validate as limit_range_validate
from podwhy.cluster.apiserver.admission.podtopologylabels import copy_topology_labels
from podwhy.cluster.apiserver.admission.resourcequota import admit as quota_admit
from podwhy.cluster.apiserver.admission.resourcequota import controller_usage
from podwhy.cluster.apiserver.defaults import default_pod, drop_disabled_pod_fields
from podwhy.cluster.apiserver.validation import validate_pod
from podwhy.cluster.apiserver.warnings import warn_on_create
from podwhy.errors import PodwhyError
from podwhy.framework.resources import CPU, MEMORY
from podwhy.framework.versions import Emulation
from podwhy.model import objects as o
from podwhy.model.wellknown import (
    ANN_BETA_IS_DEFAULT_STORAGE_CLASS,
    ANN_BETA_STORAGE_CLASS,
    ANN_IS_DEFAULT_STORAGE_CLASS,
    TAINT_NODE_NOT_READY,
    TAINT_NODE_UNREACHABLE,
)
from podwhy.snapshot.cluster import Snapshot

DEFAULT_TOLERATION_SECONDS = 300


def _tolerates(pod: o.Pod, key: str) -> bool:
    """DefaultTolerationSeconds skips a taint the pod already tolerates for NoExecute."""
    for tol in pod.spec.tolerations:
        if tol.effect not in ("", "NoExecute"):
            continue
        if (tol.operator == "Exists" and not tol.key) or tol.key == key:
            return True
    return False


# The PriorityClasses every API server creates at bootstrap (scheduling/v1 helpers.go): a
# snapshot that lists PriorityClasses but not these still has them.
SYSTEM_PRIORITY_CLASSES = {"system-cluster-critical": 2000000000, "system-node-critical": 2000001000}
DEFAULT_PREEMPTION_POLICY = "PreemptLowerPriority"


def forbidden(pod: o.Pod, why: str) -> PodwhyError:
    """An admission plugin's refusal, in the words `kubectl create|apply` prints after "Error from
    server (Forbidden)" (admission.NewForbidden: `pods "NAME" is forbidden: ...`)."""
    return PodwhyError(
        f'pods "{pod.metadata.name}" is forbidden: {why}',
        hint="the API server's Priority admission refuses this pod",
    )


class AdmissionRefusalError(PodwhyError):
    """A validating admission plugin (PLUGIN: PodSecurity, ResourceQuota) refused to create a
    pod: its controller's create fails (FailedCreate, with these WORDS) and is retried; `kubectl
    apply` of a Pod fails. WHY is the plugin's part, after `pods "NAME" is forbidden: `."""

    def __init__(self, pod: o.Pod, plugin: str, why: str, cause: str) -> None:
        self.plugin = plugin
        self.why = why
        self.words = f'pods "{pod.metadata.name}" is forbidden: {why}'
        super().__init__(self.words, hint=f"the API server's {plugin} admission refuses it: {cause}")


def _admitted_without(pod: o.Pod, snapshot: Snapshot, kind: str) -> None:
    """Admission needed an object of KIND the snapshot cannot vouch for not having."""
    key = f"{pod.metadata.namespace}/{pod.metadata.name}"
    snapshot.admitted_without[key] = snapshot.admitted_without.get(key, frozenset()) | {kind}


def _admit_priority(pod: o.Pod, snapshot: Snapshot) -> None:
    """Priority admission (plugin/pkg/admission/priority): the named class (a name no class has
    is refused), or the global default; a priority or preemptionPolicy the manifest sets must
    equal the computed one. Without any PriorityClass in the snapshot a named class cannot be
    resolved: the manifest's own priority, else 0, and the pod is recorded as admitted without
    PriorityClasses (DefaultPreemption, which reads its priority, is then not evaluated)."""
    name = pod.spec.priority_class_name
    given = pod.spec.priority
    # Whether the snapshot vouches for its PriorityClasses (it holds some, or is complete).
    known = "PriorityClass" not in snapshot.missing
    policy = DEFAULT_PREEMPTION_POLICY
    if name:
        pclass = snapshot.priority_classes.get(name)
        if pclass is not None:
            value, policy = pclass.value, pclass.preemption_policy or DEFAULT_PREEMPTION_POLICY
        elif name in SYSTEM_PRIORITY_CLASSES:
            value = SYSTEM_PRIORITY_CLASSES[name]
        elif known:
            raise forbidden(pod, f"no PriorityClass with name {name} was found")
        else:
            if given is None:
                pod.spec.priority = 0
                _admitted_without(pod, snapshot, "PriorityClass")
            # Else the priority the manifest states (as a pod exported from the cluster does).
            if pod.spec.preemption_policy is None:
                pod.spec.preemption_policy = DEFAULT_PREEMPTION_POLICY
            return
    else:
        defaults = [pc for pc in snapshot.priority_classes.values() if pc.global_default]
        # Several defaults (a race): the lowest value wins, as upstream picks it.
        pclass = min(defaults, key=lambda pc: pc.value) if defaults else None
        value = pclass.value if pclass is not None else 0
        if pclass is not None:
            policy = pclass.preemption_policy or DEFAULT_PREEMPTION_POLICY
        if given is not None and not known:
            value = given  # no PriorityClasses to compute a default from: the manifest's own
        elif pclass is None and not known:
            _admitted_without(pod, snapshot, "PriorityClass")  # a global default may well exist
    if given is not None and given != value:
        raise forbidden(
            pod,
            f"the integer value of priority ({given}) must not be provided in pod spec; priority admission "
            f"controller computed {value} from the given PriorityClass name",
        )
    if pod.spec.preemption_policy is not None and pod.spec.preemption_policy != policy and known:
        raise forbidden(
            pod,
            f"the string value of PreemptionPolicy ({pod.spec.preemption_policy}) must not be provided in pod "
            f"spec; priority admission controller computed {policy} from the given PriorityClass name",
        )
    pod.spec.priority = value
    pod.spec.preemption_policy = pod.spec.preemption_policy or policy


def _admit_limit_ranges(pod: o.Pod, snapshot: Snapshot) -> list[tuple[str, str, str]]:
    """LimitRanger's mutating half: the namespace's LimitRanges default the containers' requests
    and limits (its bounds are checked after the pod is validated: _validate_limit_ranges).
    Without LimitRanges the snapshot can vouch for, a pod whose containers lack a cpu or memory
    request is admitted without them: its requests are unknown."""
    namespace = pod.metadata.namespace
    if "LimitRange" in snapshot.missing:
        lacking = any(
            CPU not in c.resources.requests or MEMORY not in c.resources.requests
            for c in (*pod.spec.containers, *pod.spec.init_containers)
        )
        if lacking:
            _admitted_without(pod, snapshot, "LimitRange")
        return []
    ranges = namespace_limit_ranges(snapshot.limit_ranges, namespace)
    return [
        (d.field, d.value, f"LimitRange {d.limit_range} default") for lr in ranges for d in limit_range_mutate(pod, lr)
    ]


def _validate_limit_ranges(pod: o.Pod, snapshot: Snapshot) -> None:
    """LimitRanger's validating half, after the pod itself was validated: a pod outside the
    bounds of its namespace's LimitRanges is refused (the first one it breaks)."""
    if "LimitRange" in snapshot.missing:
        return
    namespace = pod.metadata.namespace
    for lr in namespace_limit_ranges(snapshot.limit_ranges, namespace):
        errors = limit_range_validate(pod, lr, pod_level=pod.spec.resources is not None)
        if errors:
            raise PodwhyError(
                f'pods "{pod.metadata.name}" is forbidden: {aggregate(errors)}',
                hint=f"the API server's LimitRanger admission refuses this pod (LimitRange {lr.metadata.name} "
                f"in namespace {namespace})",
            )


def sync_manifest_quotas(snapshot: Snapshot) -> None:
    """The quota controller's first count of a quota that has none yet (one read from a
    manifest): its hard limits published, and what the namespace's pods use of them."""
    for quota in snapshot.resource_quotas:
        if not quota.status.hard:
            quota.status.hard = dict(quota.spec.hard)
            quota.status.used = controller_usage(quota, snapshot.pods)


def admit_quota(pod: o.Pod, snapshot: Snapshot) -> None:
    """ResourceQuota admission, the last step of a pod's creation: refused (AdmissionRefusalError), or
    admitted and charged to the matching quotas. Without ResourceQuotas the snapshot can vouch
    for, the pod is admitted without them (a quota may refuse it)."""
    if "ResourceQuota" in snapshot.missing:
        _admitted_without(pod, snapshot, "ResourceQuota")
        return
    refusal = quota_admit(pod, snapshot.resource_quotas)
    if refusal is not None:
        cause = f"ResourceQuota {refusal.quota} in namespace {pod.metadata.namespace}"
        raise AdmissionRefusalError(pod, "ResourceQuota", refusal.message, cause)


def admit_pod_security(pod: o.Pod, snapshot: Snapshot, emulation: Emulation) -> None:
    """PodSecurity admission: the policy the pod's namespace enforces (its labels; none:
    privileged), refused (AdmissionRefusalError) with every check it fails. Without the Namespace
    object and Namespaces the snapshot can vouch for, a pod some policy would refuse is admitted
    without it (its namespace's labels are unknown)."""
    namespace = pod.metadata.namespace
    ns = snapshot.namespaces.get(namespace)
    if ns is None and "Namespace" in snapshot.missing:
        if pod_security.refused_by_some_policy(pod, emulation.minor):
            _admitted_without(pod, snapshot, "Namespace")
        return
    labels = ns.metadata.labels if ns is not None else {}
    policy = pod_security.enforced_policy(labels)
    violations = pod_security.evaluate(pod, policy.level, policy.version, newest=emulation.minor)
    if violations:
        set_labels = ", ".join(
            f"{key}={labels[key]}"
            for key in (pod_security.ENFORCE_LEVEL_LABEL, pod_security.ENFORCE_VERSION_LABEL)
            if key in labels
        )
        cause = f"namespace {namespace} is labelled {set_labels}"
        raise AdmissionRefusalError(pod, "PodSecurity", pod_security.refusal(policy, violations), cause)


def _runtime_class_cause(pod: o.Pod) -> str:
    name = pod.spec.runtime_class_name
    return f"RuntimeClass {name}" if name else "the pod sets spec.overhead without a RuntimeClass"


def _admit_runtime_class(pod: o.Pod, snapshot: Snapshot) -> tuple[o.RuntimeClass | None, bool]:
    """RuntimeClass admission's mutating half: the class the pod names (a name no class has is
    refused) adds its overhead, node selector and tolerations. Returns the class and whether its
    Validate can run: without RuntimeClasses the snapshot can vouch for, a pod naming one it
    lacks is admitted without it."""
    name = pod.spec.runtime_class_name
    if not name:
        return None, True
    rclass = snapshot.runtime_classes.get(name)
    if rclass is None:
        if "RuntimeClass" in snapshot.missing:
            _admitted_without(pod, snapshot, "RuntimeClass")
            return None, False
        raise AdmissionRefusalError(pod, "RuntimeClass", runtime_class.not_found(name), f"RuntimeClass {name}")
    refusal = runtime_class.set_overhead(pod, rclass) or runtime_class.set_scheduling(pod, rclass)
    if refusal is not None:
        raise AdmissionRefusalError(pod, "RuntimeClass", refusal, f"RuntimeClass {name}")
    return rclass, True


def admit(pod: o.Pod, snapshot: Snapshot, namespace: str, emulation: Emulation, *, quota: bool = True) -> o.Pod:
    """What the API server does to a pod it creates, in its order: defaulting (cluster.apiserver.defaults);
    the mutating admission plugins (LimitRanger's defaults, Priority, DefaultTolerationSeconds,
    RuntimeClass, PodTopologyLabels for a pod created bound); the fields of disabled features
    dropped (PrepareForCreate); the pod's validation (cluster.apiserver.validation: InvalidObjectError);
    then the validating plugins (LimitRanger's bounds, PodSecurity, RuntimeClass's overhead,
    ResourceQuota unless QUOTA is False: a DaemonSet's template, whose pods are charged one by
    one as they are created). A refusal by an admission plugin (RuntimeClass, PodSecurity,
    ResourceQuota) raises AdmissionRefusalError."""
    if not pod.metadata.namespace:
        pod.metadata.namespace = namespace
    key = f"{pod.metadata.namespace}/{pod.metadata.name}"
    filled = [(d.field, d.value, d.why) for d in default_pod(pod, emulation)]
    filled += _admit_limit_ranges(pod, snapshot)
    drop_disabled_pod_fields(pod, emulation)
    if filled:
        snapshot.defaulted[key] = filled
    _admit_priority(pod, snapshot)
    if pod.spec.preemption_policy is None:
        pod.spec.preemption_policy = "PreemptLowerPriority"
    for key in (TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE):
        if not _tolerates(pod, key):
            pod.spec.tolerations.append(
                o.Toleration(
                    key=key,
                    operator="Exists",
                    effect="NoExecute",
                    toleration_seconds=DEFAULT_TOLERATION_SECONDS,
                )
            )
    rclass, known = _admit_runtime_class(pod, snapshot)
    if pod.spec.node_name:  # PodTopologyLabels: a pod created bound gets its node's zone and region
        node = next((n for n in snapshot.nodes if n.metadata.name == pod.spec.node_name), None)
        copy_topology_labels(pod, node, emulation)
    if not pod.status.phase:
        pod.status.phase = "Pending"
    validate_pod(pod, emulation)  # the registry's Validate, between mutating and validating admission
    _validate_limit_ranges(pod, snapshot)
    admit_pod_security(pod, snapshot, emulation)
    if known:
        refusal = runtime_class.validate_overhead(pod, rclass)
        if refusal is not None:
            raise AdmissionRefusalError(pod, "RuntimeClass", refusal, _runtime_class_cause(pod))
    if quota:
        admit_quota(pod, snapshot)
    if not any(ref.controller for ref in pod.metadata.owner_references):  # `kubectl apply` of a Pod
        warn_on_create(snapshot, "Pod", pod, emulation.minor)
    return pod


def add_manifest_pod(pod: o.Pod, snapshot: Snapshot, namespace: str, emulation: Emulation) -> o.Pod:
    """Admit a pod read from a manifest and put it in the snapshot, in place of a pod of its name."""
    sync_manifest_quotas(snapshot)
    pod = admit(pod, snapshot, namespace, emulation)
    key = (pod.metadata.namespace, pod.metadata.name)
    snapshot.pods = [p for p in snapshot.pods if (p.metadata.namespace, p.metadata.name) != key]
    snapshot.pods.append(pod)
    return pod


# The annotations that make a StorageClass the default one (the beta one is still honoured).
DEFAULT_CLASS_ANNOTATIONS = (
    ANN_IS_DEFAULT_STORAGE_CLASS,
    ANN_BETA_IS_DEFAULT_STORAGE_CLASS,
)


def default_storage_class(snapshot: Snapshot) -> o.StorageClass | None:
    """The cluster's default StorageClass: of those annotated as default, the newest, then the
    first by name (storageutil.GetDefaultClass)."""
    defaults = [
        sc
        for sc in snapshot.storage_classes.values()
        if any(sc.metadata.annotations.get(key) == "true" for key in DEFAULT_CLASS_ANNOTATIONS)
    ]
    if not defaults:
        return None
    defaults.sort(key=lambda sc: sc.metadata.name)
    defaults.sort(key=lambda sc: sc.metadata.creation_timestamp or "", reverse=True)
    return defaults[0]


def admit_claim(pvc: o.PersistentVolumeClaim, snapshot: Snapshot) -> o.PersistentVolumeClaim:
    """DefaultStorageClass admission: a claim created without a class gets the default one."""
    if pvc.spec.storage_class_name is None and ANN_BETA_STORAGE_CLASS not in pvc.metadata.annotations:
        default = default_storage_class(snapshot)
        if default is not None:
            pvc.spec.storage_class_name = default.metadata.name
    if not pvc.status.phase:
        pvc.status.phase = "Pending"
    return pvc
