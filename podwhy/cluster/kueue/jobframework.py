"""The Workload Kueue's job controllers create for a Job or a pod (group) they manage, as Kueue
v0.20 builds it: pkg/controller/jobframework (whether a job is managed, the webhook's defaults,
the queue name, the Workload's name and hash, its priority, labels and owner), the batch/v1 Job
integration (pkg/controller/jobs/job: one pod set "main" of podsCount pods, the partial-admission
minimum) and the plain pod integration (pkg/controller/jobs/pod: one pod, or a pod group by role).

Facts only: a job Kueue would not turn into a Workload says why in Kueue's words (`problem`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence

import msgspec

from podwhy.cluster.kueue import names
from podwhy.helpers.labelselectors import SelectorError, label_selector_as_selector
from podwhy.model import objects as o

# ---------------------------------------------------------------- labels, annotations, names

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"  # constants.QueueLabel
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"  # constants.JobUIDLabel
PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class"  # constants.WorkloadPriorityClassLabel
PREBUILT_WORKLOAD_LABEL = "kueue.x-k8s.io/prebuilt-workload-name"
MAX_EXEC_TIME_LABEL = "kueue.x-k8s.io/max-exec-time-seconds"
JOB_MIN_PARALLELISM_ANNOTATION = "kueue.x-k8s.io/job-min-parallelism"
POD_GROUP_NAME_LABEL = "kueue.x-k8s.io/pod-group-name"
POD_GROUP_TOTAL_COUNT_ANNOTATION = "kueue.x-k8s.io/pod-group-total-count"
ROLE_HASH_ANNOTATION = "kueue.x-k8s.io/role-hash"
ADMISSION_SCHEDULING_GATE = "kueue.x-k8s.io/admission"  # the pod integration's gate
RESOURCE_IN_USE_FINALIZER = "kueue.x-k8s.io/resource-in-use"
DEFAULT_LOCAL_QUEUE = "default"  # constants.DefaultLocalQueueName
DEFAULT_WORKLOAD_PRIORITY_CLASS = "default"  # constants.DefaultWorkloadPriorityClassName
# The labels the Job controller manages on the template that Kueue drops from the pod set (cleanLabels).
_JOB_CONTROLLER_UID_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")
# The TAS annotations of a pod set's template (apis/kueue/v1beta2/topology_types.go).
TOPOLOGY_REQUIRED = "kueue.x-k8s.io/podset-required-topology"
TOPOLOGY_PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
TOPOLOGY_UNCONSTRAINED = "kueue.x-k8s.io/podset-unconstrained-topology"
TOPOLOGY_SLICE_REQUIRED = "kueue.x-k8s.io/podset-slice-required-topology"
TOPOLOGY_SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
POD_SET_GROUP_NAME = "kueue.x-k8s.io/podset-group-name"

WORKLOAD_PRIORITY_CLASS_GROUP = "kueue.x-k8s.io"
WORKLOAD_PRIORITY_CLASS_KIND = "WorkloadPriorityClass"
POD_PRIORITY_CLASS_GROUP = "scheduling.k8s.io"
POD_PRIORITY_CLASS_KIND = "PriorityClass"

# Integrations (Configuration.integrations.frameworks; v0.20's default enables batch/job only).
FRAMEWORK_JOB = "batch/job"
FRAMEWORK_POD = "pod"
DEFAULT_FRAMEWORKS = (FRAMEWORK_JOB,)
# Configuration.managedJobsNamespaceSelector's default: every namespace but kube-system and Kueue's.
KUEUE_NAMESPACE = "kueue-system"
METADATA_NAME_LABEL = "kubernetes.io/metadata.name"
DEFAULT_MANAGED_NAMESPACES = o.LabelSelector(
    match_expressions=[
        o.LabelSelectorRequirement(key=METADATA_NAME_LABEL, operator="NotIn", values=["kube-system", KUEUE_NAMESPACE])
    ]
)

# Feature gates read here (pkg/features/kube_features.go at v0.20).
SHORT_WORKLOAD_NAMES = "ShortWorkloadNames"  # alpha, off
WORKLOAD_PRIORITY_CLASS_DEFAULTING = "WorkloadPriorityClassDefaulting"  # beta, on since v0.20
_GATE_DEFAULTS = {SHORT_WORKLOAD_NAMES: False, WORKLOAD_PRIORITY_CLASS_DEFAULTING: True}

# workload_names.go
HASH_LENGTH = 5
LONG_MAX_WORKLOAD_NAME_LENGTH = 253
SHORT_MAX_WORKLOAD_NAME_LENGTH = 63

# Kueue's words where it makes no Workload (the events of ExtractPriority and of the pod group check).
MSG_WPC_NOT_FOUND = 'WorkloadPriorityClass "{}" not found'
MSG_PRIORITY_CLASS_NOT_FOUND = 'priorityclasses.scheduling.k8s.io "{}" not found'
MSG_GROUP_INCOMPLETE = "'{}' group has fewer runnable pods than expected"
MSG_GROUP_TOTAL_COUNT = "failed to extract '{}' annotation: {}"


class GVK(msgspec.Struct, frozen=True):
    group: str
    version: str
    kind: str


JOB_GVK = GVK("batch", "v1", "Job")
POD_GVK = GVK("", "v1", "Pod")


class FrameworkOptions(msgspec.Struct, frozen=True):
    """Kueue's Configuration as the job framework reads it, and its feature gates."""

    manage_jobs_without_queue_name: bool = False
    # A shared default (as the dataclass had it), given by a factory: the selector is mutable.
    managed_jobs_namespace_selector: o.LabelSelector | None = msgspec.field(
        default_factory=lambda: DEFAULT_MANAGED_NAMESPACES
    )
    frameworks: tuple[str, ...] = DEFAULT_FRAMEWORKS
    gates: Mapping[str, bool] | None = None

    def enabled(self, gate: str) -> bool:
        if self.gates is not None and gate in self.gates:
            return self.gates[gate]
        if gate in _GATE_DEFAULTS:
            return _GATE_DEFAULTS[gate]
        return names.enabled(gate, dict(self.gates) if self.gates is not None else None)


class KueueReads(msgspec.Struct, frozen=True):
    """The objects the webhook and the job reconciler read beside the job."""

    namespaces: Mapping[str, o.Namespace] = msgspec.field(default_factory=dict)
    local_queues: Mapping[tuple[str, str], o.LocalQueue] = msgspec.field(default_factory=dict)
    workload_priority_classes: Mapping[str, o.WorkloadPriorityClass] = msgspec.field(default_factory=dict)
    priority_classes: Mapping[str, o.PriorityClass] = msgspec.field(default_factory=dict)


class JobWorkload(msgspec.Struct, frozen=True):
    """What Kueue makes of a job: its Workload, or PROBLEM (Kueue's words) when it makes none."""

    workload: o.KueueWorkload | None
    problem: str = ""


# ---------------------------------------------------------------- names (workload_names.go)


def _max_name_length(short: bool) -> int:
    return SHORT_MAX_WORKLOAD_NAME_LENGTH if short else LONG_MAX_WORKLOAD_NAME_LENGTH


def _truncate(text: str, n: int) -> str:
    """truncate: the first N bytes (Go slices strings by byte)."""
    data = text.encode()
    return data[:n].decode(errors="ignore") if len(data) > n else text


def _hash(owner_name: str, owner_uid: str, gvk: GVK, extra: str) -> str:
    """getHash: sha1 of kind, group, name and uid (and EXTRA), newline-separated, in hex."""
    parts = [gvk.kind, gvk.group, owner_name, owner_uid] + ([extra] if extra else [])
    return hashlib.sha1("\n".join(parts).encode(), usedforsecurity=False).hexdigest()


def workload_name_prefix(owner_name: str, gvk: GVK, short: bool = False) -> str:
    """GenerateWorkloadNamePrefix: `<kind>-<name>`, lowercased kind, truncated."""
    return _truncate(gvk.kind.lower() + "-" + owner_name, _max_name_length(short) - 1 - HASH_LENGTH)


def workload_name(owner_name: str, owner_uid: str, gvk: GVK, extra: str = "", short: bool = False) -> str:
    """GenerateWorkloadNameWithExtra (GetWorkloadNameForOwnerWithGVK when EXTRA is ""): the prefix
    and the hash's first five hex digits. SHORT: the ShortWorkloadNames gate (63 characters)."""
    prefix = workload_name_prefix(owner_name, gvk, short)
    return f"{prefix}-{_hash(owner_name, owner_uid, gvk, extra)[:HASH_LENGTH]}"


# ---------------------------------------------------------------- what is managed, the webhook's defaults


def queue_name(meta: o.ObjectMeta) -> str:
    """QueueNameForObject: the queue-name label (v0.20 reads no annotation: the deprecated
    `kueue.x-k8s.io/queue-name` annotation was dropped with v1beta2)."""
    return meta.labels.get(QUEUE_LABEL, "")


def _namespace_matches(namespace: str, reads: KueueReads, selector: o.LabelSelector | None) -> bool:
    """namespaceMatchesSelector: a nil selector matches every namespace; a missing namespace none."""
    if selector is None:
        return True
    ns = reads.namespaces.get(namespace)
    if ns is None:
        return False
    try:
        return label_selector_as_selector(selector).matches(ns.metadata.labels)
    except SelectorError:
        return False


def should_be_suspended(meta: o.ObjectMeta, reads: KueueReads, options: FrameworkOptions) -> bool:
    """WorkloadShouldBeSuspended (for a job no Kueue-managed ancestor owns): one with a queue name,
    or, with manageJobsWithoutQueueName, any in a namespace the managed selector selects."""
    if queue_name(meta):
        return True
    if options.manage_jobs_without_queue_name:
        return _namespace_matches(meta.namespace, reads, options.managed_jobs_namespace_selector)
    return False


def apply_defaults(meta: o.ObjectMeta, reads: KueueReads, options: FrameworkOptions) -> o.ObjectMeta:
    """The job webhook's Default, on labels: ApplyDefaultLocalQueue (the namespace's LocalQueue
    "default" for a job without a queue name, in a managed namespace) and
    ApplyDefaultWorkloadPriorityClass (the WorkloadPriorityClass "default", when it exists and the
    gate is on). A copy; META is left as it is."""
    labels = dict(meta.labels)
    if (
        not labels.get(QUEUE_LABEL)
        and (meta.namespace, DEFAULT_LOCAL_QUEUE) in reads.local_queues
        and _namespace_matches(meta.namespace, reads, options.managed_jobs_namespace_selector)
    ):
        labels[QUEUE_LABEL] = DEFAULT_LOCAL_QUEUE
    if (
        options.enabled(WORKLOAD_PRIORITY_CLASS_DEFAULTING)
        and not labels.get(PRIORITY_CLASS_LABEL)
        and DEFAULT_WORKLOAD_PRIORITY_CLASS in reads.workload_priority_classes
    ):
        labels[PRIORITY_CLASS_LABEL] = DEFAULT_WORKLOAD_PRIORITY_CLASS
    out: o.ObjectMeta = msgspec.structs.replace(meta, labels=labels)
    return out


def is_managed(kind: str, meta: o.ObjectMeta, reads: KueueReads, options: FrameworkOptions) -> bool:
    """Whether Kueue manages the job (its integration is enabled and the webhook suspends it)."""
    framework = {"Job": FRAMEWORK_JOB, "Pod": FRAMEWORK_POD}.get(kind)
    if framework is None or framework not in options.frameworks:
        return False
    return should_be_suspended(apply_defaults(meta, reads, options), reads, options)


# ---------------------------------------------------------------- the batch/v1 Job integration

_GO_INT = re.compile(r"[+-]?[0-9]+")


def _go_atoi_int32(text: str) -> int | None:
    """strconv.Atoi, then Go's int32 conversion (which wraps): None where Atoi fails."""
    if not _GO_INT.fullmatch(text):
        return None
    value = int(text)
    if not -(1 << 63) <= value < (1 << 63):
        return None
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= (1 << 31) else value


def pods_count(parallelism: int | None, completions: int | None) -> int:
    """Job.podsCount: parallelism (the API server defaults it to 1), at most completions."""
    count = 1 if parallelism is None else parallelism
    if completions is not None and completions < count:
        count = completions
    return count


def min_pods_count(annotations: Mapping[str, str]) -> int | None:
    """Job.minPodsCount: the job-min-parallelism annotation, when it parses."""
    text = annotations.get(JOB_MIN_PARALLELISM_ANNOTATION)
    return None if text is None else _go_atoi_int32(text)


def topology_request(annotations: Mapping[str, str], options: FrameworkOptions) -> o.PodSetTopologyRequest | None:
    """NewPodSetTopologyRequest(...).PodIndexLabel(...).Build() with the TopologyAwareScheduling
    gate on: a request whenever a pod index label is given (always, for Jobs and pods), with the
    template's required, preferred, unconstrained or slice annotations; None with the gate off."""
    if not options.enabled(names.TOPOLOGY_AWARE_SCHEDULING):
        return None
    request = o.PodSetTopologyRequest()
    required, preferred = annotations.get(TOPOLOGY_REQUIRED), annotations.get(TOPOLOGY_PREFERRED)
    if required is not None:
        request.required = required
    elif preferred is not None:
        request.preferred = preferred
    elif TOPOLOGY_UNCONSTRAINED in annotations:
        request.unconstrained = annotations[TOPOLOGY_UNCONSTRAINED].lower() in ("1", "t", "true")
    slice_topology, slice_size = annotations.get(TOPOLOGY_SLICE_REQUIRED), annotations.get(TOPOLOGY_SLICE_SIZE)
    if slice_topology is not None and slice_size is not None and _GO_INT.fullmatch(slice_size):
        request.pod_set_slice_required_topology = slice_topology
        request.pod_set_slice_size = int(slice_size)
    if POD_SET_GROUP_NAME in annotations and (required is not None or preferred is not None):
        request.pod_set_group_name = annotations[POD_SET_GROUP_NAME]
    return request


def _copy_template(template: o.PodTemplateSpec) -> o.PodTemplateSpec:
    return msgspec.json.decode(msgspec.json.encode(template), type=o.PodTemplateSpec)


def job_pod_sets(job: o.Workload, options: FrameworkOptions) -> list[o.PodSet]:
    """Job.PodSets: one pod set "main" of podsCount pods, the template without the Job
    controller's uid labels, the minimum count of partial admission (cleared with the gate off:
    clearMinCountsIfFeatureDisabled), and the template's topology request."""
    template = _copy_template(job.spec.template)
    for label in _JOB_CONTROLLER_UID_LABELS:
        template.metadata.labels.pop(label, None)
    min_count = min_pods_count(job.metadata.annotations)
    if not options.enabled(names.PARTIAL_ADMISSION):
        min_count = None
    return [
        o.PodSet(
            name=o.DEFAULT_PODSET_NAME,
            template=template,
            count=pods_count(job.spec.parallelism, job.spec.completions),
            min_count=min_count,
            topology_request=topology_request(template.metadata.annotations, options),
        )
    ]


# ---------------------------------------------------------------- priority (ExtractPriority)


def _pod_priority_class_ref(name: str) -> o.PriorityClassRef:
    return o.PriorityClassRef(group=POD_PRIORITY_CLASS_GROUP, kind=POD_PRIORITY_CLASS_KIND, name=name)


def extract_priority(
    labels: Mapping[str, str], pod_sets: Sequence[o.PodSet], reads: KueueReads
) -> tuple[o.PriorityClassRef | None, int] | str:
    """ExtractPriority: the WorkloadPriorityClass of the priority-class label, else the first pod
    set's PriorityClass, else the global default PriorityClass of the lowest value, else 0; a
    class named and missing is Kueue's error (a string)."""
    wpc_name = labels.get(PRIORITY_CLASS_LABEL, "")
    if wpc_name:
        wpc = reads.workload_priority_classes.get(wpc_name)
        if wpc is None:
            return MSG_WPC_NOT_FOUND.format(wpc_name)
        ref = o.PriorityClassRef(group=WORKLOAD_PRIORITY_CLASS_GROUP, kind=WORKLOAD_PRIORITY_CLASS_KIND, name=wpc_name)
        return ref, wpc.value
    pc_name = next((n for ps in pod_sets if (n := ps.template.spec.priority_class_name)), "")
    if pc_name:
        pc = reads.priority_classes.get(pc_name)
        if pc is None:
            return MSG_PRIORITY_CLASS_NOT_FOUND.format(pc_name)
        return _pod_priority_class_ref(pc_name), pc.value
    default: o.PriorityClass | None = None
    for pc in reads.priority_classes.values():
        if pc.global_default and (default is None or default.value > pc.value):
            default = pc
    if default is not None:
        return _pod_priority_class_ref(default.metadata.name), default.value
    return None, names.DEFAULT_PRIORITY


# ---------------------------------------------------------------- the Workload (ConstructWorkload)


def _max_exec_time(labels: Mapping[str, str]) -> int | None:
    """MaximumExecutionTimeSecondsForObject: the label as a positive int32."""
    text = labels.get(MAX_EXEC_TIME_LABEL)
    if text is None or not _GO_INT.fullmatch(text):
        return None
    value = int(text)
    return value if 0 < value < (1 << 31) else None


_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")


def _workload(
    name: str, meta: o.ObjectMeta, pod_sets: list[o.PodSet], owner: o.OwnerReference, reads: KueueReads
) -> JobWorkload:
    """NewWorkload, the job-uid label (when the uid is a valid label value), the controller
    reference, and prepareWorkload's priority."""
    priority = extract_priority(meta.labels, pod_sets, reads)
    if isinstance(priority, str):
        return JobWorkload(None, priority)
    ref, value = priority
    labels = {JOB_UID_LABEL: meta.uid} if len(meta.uid) <= 63 and _LABEL_VALUE.fullmatch(meta.uid) else {}
    workload = o.KueueWorkload(
        metadata=o.ObjectMeta(
            name=name,
            namespace=meta.namespace,
            labels=labels,
            owner_references=[owner],
            creation_timestamp=meta.creation_timestamp,
        ),
        spec=o.KueueWorkloadSpec(
            pod_sets=pod_sets,
            queue_name=queue_name(meta),
            priority_class_ref=ref,
            priority=value,
            maximum_execution_time_seconds=_max_exec_time(meta.labels),
        ),
    )
    return JobWorkload(workload)


def _owner(gvk: GVK, meta: o.ObjectMeta) -> o.OwnerReference:
    api_version = f"{gvk.group}/{gvk.version}" if gvk.group else gvk.version
    return o.OwnerReference(api_version=api_version, kind=gvk.kind, name=meta.name, uid=meta.uid, controller=True)


def job_workload(job: o.Workload, reads: KueueReads, options: FrameworkOptions | None = None) -> JobWorkload:
    """The Workload Kueue's Job reconciler creates for JOB (its metadata as the webhook defaulted it)."""
    options = options or FrameworkOptions()
    meta = job.metadata
    prebuilt = meta.labels.get(PREBUILT_WORKLOAD_LABEL, "")
    name = prebuilt or workload_name(meta.name, meta.uid, JOB_GVK, short=options.enabled(SHORT_WORKLOAD_NAMES))
    return _workload(name, meta, job_pod_sets(job, options), _owner(JOB_GVK, meta), reads)


# ---------------------------------------------------------------- plain pods and pod groups


def _pod_set(pod: o.Pod, name: str, count: int, options: FrameworkOptions) -> o.PodSet:
    """constructPodSet: the pod's spec as the template (no metadata), COUNT pods."""
    spec = msgspec.json.decode(msgspec.json.encode(pod.spec), type=o.PodSpec)
    return o.PodSet(
        name=name,
        template=o.PodTemplateSpec(spec=spec),
        count=count,
        topology_request=topology_request(pod.metadata.annotations, options),
    )


def role_key(pod: o.Pod) -> str:
    """The pod's role in its group: its role-hash annotation, else podwhy's own digest of the
    fields Kueue's GenerateRoleHash reads (SpecShape). Kueue's hash is over Go's JSON of the API
    types, which podwhy does not reproduce: pods of one shape share a pod set either way, but a
    pod set's name differs from Kueue's unless the annotation sets it."""
    annotated = pod.metadata.annotations.get(ROLE_HASH_ANNOTATION)
    if annotated is not None:
        return annotated
    spec = pod.spec
    shape = {
        "initContainers": [_container_shape(c) for c in spec.init_containers],
        "containers": [_container_shape(c) for c in spec.containers],
        "nodeSelector": spec.node_selector,
        "affinity": spec.affinity,
        "tolerations": spec.tolerations,
        "runtimeClassName": spec.runtime_class_name,
        "priority": spec.priority,
        "topologySpreadConstraints": spec.topology_spread_constraints,
        "overhead": spec.overhead,
    }
    return hashlib.sha256(msgspec.json.encode(shape, order="sorted")).hexdigest()[:8]


def _container_shape(c: o.Container) -> dict[str, object]:
    """ContainersShape: what of a container decides its requests and placement."""
    return {"resources": c.resources, "ports": c.ports}


def pod_workload(pod: o.Pod, reads: KueueReads, options: FrameworkOptions | None = None) -> JobWorkload:
    """The Workload of a plain pod: one pod set "main" of one pod."""
    options = options or FrameworkOptions()
    meta = pod.metadata
    prebuilt = meta.labels.get(PREBUILT_WORKLOAD_LABEL, "")
    name = prebuilt or workload_name(meta.name, meta.uid, POD_GVK, short=options.enabled(SHORT_WORKLOAD_NAMES))
    pod_sets = [_pod_set(pod, o.DEFAULT_PODSET_NAME, 1, options)]
    return _workload(name, meta, pod_sets, _owner(POD_GVK, meta), reads)


def group_name(pod: o.Pod) -> str:
    return pod.metadata.labels.get(POD_GROUP_NAME_LABEL, "")


def pod_group_workload(
    pods: Sequence[o.Pod], reads: KueueReads, options: FrameworkOptions | None = None
) -> JobWorkload:
    """The Workload of a pod group (pods sharing a pod-group-name label), named after the group:
    one pod set per role, counted, sorted by name (constructGroupPodSets); owned by every pod.
    None while the group has fewer pods than its pod-group-total-count (Kueue's words)."""
    options = options or FrameworkOptions()
    first = pods[0]
    name = group_name(first)
    text = first.metadata.annotations.get(POD_GROUP_TOTAL_COUNT_ANNOTATION)
    total = _go_atoi_int32(text) if text is not None else None
    if text is None or total is None or total < 1:
        why = "annotation not found" if text is None else f"invalid value {text!r}"
        return JobWorkload(None, MSG_GROUP_TOTAL_COUNT.format(POD_GROUP_TOTAL_COUNT_ANNOTATION, why))
    if len(pods) < total:
        return JobWorkload(None, MSG_GROUP_INCOMPLETE.format(name))
    counts: dict[str, int] = {}
    examples: dict[str, o.Pod] = {}
    for pod in pods:
        key = role_key(pod)
        counts[key] = counts.get(key, 0) + 1
        examples.setdefault(key, pod)
    pod_sets = [_pod_set(examples[key], key, counts[key], options) for key in sorted(counts)]
    built = _workload(name, first.metadata, pod_sets, _owner(POD_GVK, first.metadata), reads)
    if built.workload is not None:
        built.workload.metadata.labels.pop(JOB_UID_LABEL, None)  # a group has no one job uid
        built.workload.metadata.owner_references = [_owner(POD_GVK, p.metadata) for p in pods]
    return built
