"""Manifests from -f, with what admission would have set before the scheduler saw them."""

from __future__ import annotations

from podwhy.errors import PodwhyError
from podwhy.model import objects as o
from podwhy.snapshot.cluster import Snapshot

DEFAULT_SCHEDULER_NAME = "default-scheduler"
DEFAULT_TOLERATION_SECONDS = 300
NOT_READY_TAINT = "node.kubernetes.io/not-ready"
UNREACHABLE_TAINT = "node.kubernetes.io/unreachable"
BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"


def _tolerates(pod: o.Pod, key: str) -> bool:
    """DefaultTolerationSeconds skips a taint the pod already tolerates for NoExecute."""
    for tol in pod.spec.tolerations:
        if tol.effect not in ("", "NoExecute"):
            continue
        if (tol.operator == "Exists" and not tol.key) or tol.key == key:
            return True
    return False


SYSTEM_PRIORITY_CLASSES = {"system-cluster-critical": 2000000000, "system-node-critical": 2000001000}


def _admitted_without(pod: o.Pod, snapshot: Snapshot, kind: str) -> None:
    """Admission needed an object of KIND the snapshot cannot vouch for not having."""
    key = f"{pod.metadata.namespace}/{pod.metadata.name}"
    snapshot.admitted_without[key] = snapshot.admitted_without.get(key, frozenset()) | {kind}


def _admit_priority(pod: o.Pod, snapshot: Snapshot) -> None:
    """Priority admission: the named class, the built-in system classes, or the global default."""
    name = pod.spec.priority_class_name
    pclass = snapshot.priority_classes.get(name) if name else None
    if pclass is None and name in SYSTEM_PRIORITY_CLASSES:
        pod.spec.priority = SYSTEM_PRIORITY_CLASSES[name]
        return
    unknown = "PriorityClass" in snapshot.missing
    if pclass is None and name and not unknown:
        raise PodwhyError(
            f"pod {pod.metadata.name}: no PriorityClass with name {name} was found",
            hint="the API server would reject this pod",
        )
    if pclass is None and not name:
        pclass = next((pc for pc in snapshot.priority_classes.values() if pc.global_default), None)
    if pclass is None:
        if unknown:  # the named class, or a global default, may well exist
            _admitted_without(pod, snapshot, "PriorityClass")
        pod.spec.priority = 0
        return
    pod.spec.priority = pclass.value
    if pod.spec.preemption_policy is None:
        pod.spec.preemption_policy = pclass.preemption_policy or "PreemptLowerPriority"


def admit(pod: o.Pod, snapshot: Snapshot, namespace: str) -> o.Pod:
    """Apply Priority, RuntimeClass and DefaultTolerationSeconds admission, as the API server would."""
    if not pod.metadata.namespace:
        pod.metadata.namespace = namespace
    if not pod.spec.scheduler_name:
        pod.spec.scheduler_name = DEFAULT_SCHEDULER_NAME
    if pod.spec.priority is None:
        _admit_priority(pod, snapshot)
    if pod.spec.preemption_policy is None:
        pod.spec.preemption_policy = "PreemptLowerPriority"
    if pod.spec.runtime_class_name:
        rclass = snapshot.runtime_classes.get(pod.spec.runtime_class_name)
        if rclass is None:
            if "RuntimeClass" in snapshot.missing:
                _admitted_without(pod, snapshot, "RuntimeClass")
            else:
                raise PodwhyError(
                    f"pod {pod.metadata.name}: RuntimeClass {pod.spec.runtime_class_name!r} not found",
                    hint="the API server would reject this pod",
                )
        else:
            if rclass.overhead is not None and not pod.spec.overhead:
                pod.spec.overhead = dict(rclass.overhead.pod_fixed)
            if rclass.scheduling is not None:
                for key, val in rclass.scheduling.node_selector.items():
                    if key in pod.spec.node_selector and pod.spec.node_selector[key] != val:
                        raise PodwhyError(
                            f"pod {pod.metadata.name}: nodeSelector {key} conflicts with RuntimeClass "
                            f"{rclass.metadata.name}",
                            hint="the API server would reject this pod",
                        )
                    pod.spec.node_selector[key] = val
                pod.spec.tolerations.extend(rclass.scheduling.tolerations)
    for key in (NOT_READY_TAINT, UNREACHABLE_TAINT):
        if not _tolerates(pod, key):
            pod.spec.tolerations.append(
                o.Toleration(
                    key=key,
                    operator="Exists",
                    effect="NoExecute",
                    toleration_seconds=DEFAULT_TOLERATION_SECONDS,
                )
            )
    if not pod.status.phase:
        pod.status.phase = "Pending"
    return pod


def add_manifest_pod(pod: o.Pod, snapshot: Snapshot, namespace: str) -> o.Pod:
    """Admit a pod read from a manifest and put it in the snapshot, in place of a pod of its name."""
    pod = admit(pod, snapshot, namespace)
    key = (pod.metadata.namespace, pod.metadata.name)
    snapshot.pods = [p for p in snapshot.pods if (p.metadata.namespace, p.metadata.name) != key]
    snapshot.pods.append(pod)
    return pod


# The annotations that make a StorageClass the default one (the beta one is still honoured).
DEFAULT_CLASS_ANNOTATIONS = (
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
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
    if pvc.spec.storage_class_name is None and BETA_STORAGE_CLASS_ANNOTATION not in pvc.metadata.annotations:
        default = default_storage_class(snapshot)
        if default is not None:
            pvc.spec.storage_class_name = default.metadata.name
    if not pvc.status.phase:
        pvc.status.phase = "Pending"
    return pvc
