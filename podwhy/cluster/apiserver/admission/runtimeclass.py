"""RuntimeClass admission (plugin/pkg/admission/runtimeclass): the class a pod names adds its
overhead, node selector and tolerations (Admit), and the pod's overhead must be the class's
(Validate). Each refusal is the plugin's own words, which the API server wraps as Forbidden
(`pods "NAME" is forbidden: pod rejected: ...`)."""

from __future__ import annotations

from podwhy.cluster.apiserver.admission.attributes import AdmissionRefusalError, Attributes, admitted_without
from podwhy.model import objects as o
from podwhy.model.quantity import QuantityError, parse_quantity

NAME = "RuntimeClass"

NOT_FOUND = 'pod rejected: RuntimeClass "{name}" not found'
OVERHEAD_MISMATCH = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"
OVERHEAD_WITHOUT_CLASS = "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"
SELECTOR_CONFLICT = (
    "conflict: runtimeClass.scheduling.nodeSelector[{key}] = {want}; pod.spec.nodeSelector[{key}] = {have}"
)


def not_found(name: str) -> str:
    """prepareObjects: the class the pod names does not exist."""
    return NOT_FOUND.format(name=name)


def _same_quantity(a: o.QuantityInput, b: o.QuantityInput) -> bool:
    try:
        return parse_quantity(a) == parse_quantity(b)
    except QuantityError:
        return a == b


def same_overhead(a: o.ResourceList, b: o.ResourceList) -> bool:
    """apiequality.Semantic.DeepEqual of two ResourceLists: the same names, equal quantities (an
    empty list equals none)."""
    return a.keys() == b.keys() and all(_same_quantity(a[name], b[name]) for name in a)


def set_overhead(pod: o.Pod, rclass: o.RuntimeClass) -> str | None:
    """setOverhead: the class's overhead becomes the pod's; a pod that sets another is refused."""
    if rclass.overhead is None:
        return None
    fixed = rclass.overhead.pod_fixed
    if pod.spec.overhead and not same_overhead(fixed, pod.spec.overhead):
        return OVERHEAD_MISMATCH
    pod.spec.overhead = dict(fixed)
    return None


def is_superset(ss: o.Toleration, t: o.Toleration) -> bool:
    """tolerations.isSuperset: SS tolerates everything T does."""
    if ss == t:
        return True
    if t.key != ss.key and (ss.key or ss.operator != "Exists"):
        return False
    if t.effect != ss.effect and ss.effect:
        return False
    if ss.effect == "NoExecute" and ss.toleration_seconds is not None:
        if t.toleration_seconds is None or t.toleration_seconds > ss.toleration_seconds:
            return False
    if ss.operator in ("Equal", ""):
        return t.operator == "Equal" and t.value == ss.value
    return ss.operator == "Exists"


def merge_tolerations(first: list[o.Toleration], second: list[o.Toleration]) -> list[o.Toleration]:
    """tolerations.MergeTolerations: FIRST then SECOND, less those another one covers."""
    every = [*first, *second]
    merged: list[o.Toleration] = []
    for i, t in enumerate(every):
        if any(is_superset(m, t) for m in merged):
            continue
        if any(t != later and is_superset(later, t) for later in every[i + 1 :]):
            continue
        merged.append(t)
    return merged


def set_scheduling(pod: o.Pod, rclass: o.RuntimeClass) -> str | None:
    """setScheduling: the class's node selector joins the pod's (a key the pod gives another
    value is refused) and its tolerations are merged into the pod's."""
    scheduling = rclass.scheduling
    if scheduling is None:
        return None
    selector = dict(pod.spec.node_selector)
    for key, want in scheduling.node_selector.items():
        have = selector.get(key)
        if have is not None and have != want:
            return SELECTOR_CONFLICT.format(key=key, want=want, have=have)
        selector[key] = want
    pod.spec.node_selector = selector
    pod.spec.tolerations = merge_tolerations(pod.spec.tolerations, list(scheduling.tolerations))
    return None


def validate_overhead(pod: o.Pod, rclass: o.RuntimeClass | None) -> str | None:
    """validateOverhead (the plugin's Validate): a class with an overhead must see it on the pod;
    a pod without such a class may set none."""
    if rclass is not None and rclass.overhead is not None:
        if not same_overhead(rclass.overhead.pod_fixed, pod.spec.overhead):
            return OVERHEAD_MISMATCH
    elif pod.spec.overhead:
        return OVERHEAD_WITHOUT_CLASS
    return None


def _runtime_class_cause(pod: o.Pod) -> str:
    name = pod.spec.runtime_class_name
    return f"RuntimeClass {name}" if name else "the pod sets spec.overhead without a RuntimeClass"


def admit_pod(pod: o.Pod, attributes: Attributes) -> None:
    """RuntimeClass admission's mutating half: the class the pod names (a name no class has is
    refused) adds its overhead, node selector and tolerations. Records the class and whether its
    Validate can run: without RuntimeClasses the snapshot can vouch for, a pod naming one it
    lacks is admitted without it."""
    attributes.runtime_class, attributes.runtime_class_known = None, True
    name = pod.spec.runtime_class_name
    if not name:
        return
    snapshot = attributes.snapshot
    rclass = snapshot.runtime_classes.get(name)
    if rclass is None:
        if "RuntimeClass" in snapshot.missing:
            admitted_without(pod, snapshot, "RuntimeClass")
            attributes.runtime_class_known = False
            return
        raise AdmissionRefusalError(pod, NAME, not_found(name), f"RuntimeClass {name}")
    refusal = set_overhead(pod, rclass) or set_scheduling(pod, rclass)
    if refusal is not None:
        raise AdmissionRefusalError(pod, NAME, refusal, f"RuntimeClass {name}")
    attributes.runtime_class = rclass


def validate_pod(pod: o.Pod, attributes: Attributes) -> None:
    """RuntimeClass admission's validating half: the pod's overhead is its class's (unless Admit
    could not find the class)."""
    if attributes.runtime_class_known:
        refusal = validate_overhead(pod, attributes.runtime_class)
        if refusal is not None:
            raise AdmissionRefusalError(pod, NAME, refusal, _runtime_class_cause(pod))
