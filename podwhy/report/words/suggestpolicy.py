"""satisfyPolicy in words: the change that makes a ValidatingAdmissionPolicy admit a workload's
pods (analysis/suggest/policyfacts.py), what then becomes of them, and the notes on what podwhy
could not suggest for such a refusal, and why."""

from __future__ import annotations

from collections.abc import Sequence

from podwhy.analysis.suggest.policyfacts import (
    ContainerResource,
    FieldRef,
    FieldSet,
    FieldUnset,
    MetadataKey,
    OtherField,
    PolicyFixRefused,
    PolicyNote,
    PolicyNothingFound,
    PolicyValuesUnknown,
    SatisfyPolicy,
    ValueFrom,
)
from podwhy.verdict import Verdict

# Nodes named before "and N more".
MAX_NODES_NAMED = 3


def field_text(ref: FieldRef) -> str:
    """ "resources.limits.memory of container web", "label team", "spec.hostNetwork"."""
    match ref:
        case ContainerResource(container, kind, resource, init):
            return f"resources.{kind}.{resource} of {'init ' if init else ''}container {container}"
        case MetadataKey(kind, key):
            return f"{kind.removesuffix('s')} {key}"
        case OtherField(path):
            return path


def _source_text(change: FieldSet) -> str:
    """Where the value comes from."""
    ref = change.field
    resource = ref.resource if isinstance(ref, ContainerResource) else ""
    match change.source:
        case ValueFrom.OWN_REQUEST:
            return f"its {resource} request"
        case ValueFrom.OWN_LIMIT:
            return f"its {resource} limit"
        case ValueFrom.LIMIT_RANGE_DEFAULT:
            return f"the default limit of LimitRange {change.limit_range}"
        case ValueFrom.LIMIT_RANGE_DEFAULT_REQUEST:
            return f"the default request of LimitRange {change.limit_range}"
        case ValueFrom.POLICY_VALUES:
            return "the first value the expression accepts"
        case ValueFrom.POLICY_BOUND:
            return "the quantity the expression compares it with"


def sets_text(sets: Sequence[FieldSet]) -> str:
    """ "resources.limits.memory of container web to 256Mi (its memory request), label team to a"."""
    return ", ".join(f"{field_text(s.field)} to {s.value} ({_source_text(s)})" for s in sets)


def _policy(name: str, validation: int | None) -> str:
    which = f" (spec.validations[{validation}])" if validation is not None else ""
    return f"ValidatingAdmissionPolicy '{name}'{which}"


def _nodes(nodes: Sequence[str]) -> str:
    shown = ", ".join(nodes[:MAX_NODES_NAMED])
    return shown + (f" and {len(nodes) - MAX_NODES_NAMED} more" if len(nodes) > MAX_NODES_NAMED else "")


def _fit_text(change: SatisfyPolicy, nodes: Sequence[str]) -> str:
    """What becomes of the pod once admitted: where it fits, or why it stays Pending."""
    such = "it" if change.kind == "Pod" else "such a pod"
    match change.verdict:
        case Verdict.SCHEDULABLE:
            return f"and {such} fits on {_nodes(nodes)}"
        case Verdict.INCONCLUSIVE if nodes:
            return f"and {such} passes every plugin podwhy could evaluate on {_nodes(nodes)} (inconclusive)"
        case Verdict.NO_PROFILE:
            return "but no profile of the scheduler handles its schedulerName: where it fits was not checked"
        case Verdict.UNSCHEDULABLE:
            said = f": {change.message}" if change.message else ""
            return f"but {such} then stays Pending{said}"
    return f"and its scheduling cycle then says {change.verdict}"


def _left_open_text(change: SatisfyPolicy) -> str:
    """What admission leaves open of the changed pod, after "admits its pods"."""
    parts = []
    if change.webhooks:
        hooks = "webhooks" if len(change.webhooks) != 1 else "webhook"
        parts.append(f"the admission {hooks} {', '.join(change.webhooks)} it meets, which podwhy does not call")
    if change.unevaluated:
        policies = ", ".join(repr(p) for p in change.unevaluated)
        parts.append(f"ValidatingAdmissionPolicy {policies}, which podwhy does not evaluate")
    return f" (but for {'; and '.join(parts)})" if parts else ""


def satisfy_policy_text(change: SatisfyPolicy, nodes: Sequence[str]) -> str:
    """The summary of a satisfyPolicy suggestion."""
    also = (
        f"; it satisfies ValidatingAdmissionPolicy {', '.join(repr(p) for p in change.also)} too" if change.also else ""
    )
    target = f"{change.kind} {change.namespace}/{change.name}"
    where, them = (target, "it") if change.kind == "Pod" else (f"the pod template of {target}", "its pods")
    return (
        f"satisfy {_policy(change.policy, change.validation)} in {where}: set {sets_text(change.sets)}{also}; the "
        f"API server's admission, run again, then admits {them}{_left_open_text(change)}, {_fit_text(change, nodes)}"
    )


def _unset_text(unset: FieldUnset) -> str:
    text = field_text(unset.field)
    if unset.accepted:
        text += f" (one of {', '.join(unset.accepted)}" + (f"; it is {unset.has})" if unset.has else ")")
    elif unset.has:
        text += f" (it is {unset.has})"
    return text


def policy_note_text(note: PolicyNote) -> str:
    """What podwhy could not suggest for a policy's refusal, and why."""
    match note:
        case PolicyValuesUnknown(policy, validation, fields):
            return (
                f"{_policy(policy, validation)} requires {'; '.join(_unset_text(f) for f in fields)}: podwhy "
                "cannot tell the value to set; set it in the pod template (not a verified suggestion)"
            )
        case PolicyFixRefused(policy, sets, plugin, words):
            by = f" ({plugin})" if plugin else ""
            return (
                f"setting {sets_text(sets)} would answer ValidatingAdmissionPolicy '{policy}', but the API "
                f"server then refuses the pod{by}: {words}; not suggested"
            )
        case PolicyNothingFound(policy, validation, expression):
            said = f": {expression}" if expression else ""
            return f"podwhy finds no field to set in the failing expression of {_policy(policy, validation)}{said}"
