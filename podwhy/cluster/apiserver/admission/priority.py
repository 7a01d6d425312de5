"""Priority admission (plugin/pkg/admission/priority): a pod's priority and preemptionPolicy from
the PriorityClass it names, or the global default one."""

from __future__ import annotations

from podwhy.cluster.apiserver.admission.attributes import Attributes, admitted_without
from podwhy.errors import PodwhyError
from podwhy.model import objects as o

NAME = "Priority"

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


def admit_pod(pod: o.Pod, attributes: Attributes) -> None:
    """Priority admission (plugin/pkg/admission/priority): the named class (a name no class has
    is refused), or the global default; a priority or preemptionPolicy the manifest sets must
    equal the computed one. Without any PriorityClass in the snapshot a named class cannot be
    resolved: the manifest's own priority, else 0, and the pod is recorded as admitted without
    PriorityClasses (DefaultPreemption, which reads its priority, is then not evaluated)."""
    snapshot = attributes.snapshot
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
                admitted_without(pod, snapshot, "PriorityClass")
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
            admitted_without(pod, snapshot, "PriorityClass")  # a global default may well exist
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
