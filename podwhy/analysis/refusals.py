"""What a controller's FailedCreate event says: who refused the pod, in the API server's words
(a ValidatingAdmissionPolicy, an admission webhook, PodSecurity, ResourceQuota, the pod's
validation), and, where the snapshot holds what the words name, more of it: the policy
re-evaluated now on the pod template of the object the event is about, as its controller would
create the pod and as admission hands it to the policy; the webhook with its configuration."""

from __future__ import annotations

import re
from typing import Any

import msgspec

from podwhy.analysis.workloadfacts import ERROR_CREATING, PolicyRecheck, Refusal, RefusalKind, WebhookNamed
from podwhy.cel.errors import UNEVALUATED_NAME
from podwhy.errors import PodwhyError
from podwhy.features.emulation import Emulation
from podwhy.model import objects as o
from podwhy.model import records
from podwhy.snapshot.cluster import Snapshot

# The API server's words for each refusal (k8s.io/apiserver's policy dispatcher, webhook errors,
# pod-security-admission, the quota evaluator, errors.NewInvalid).
_POLICY = re.compile(r"ValidatingAdmissionPolicy '([^']*)' with binding '([^']*)' denied request: ")
_WEBHOOK = re.compile(r'admission webhook "([^"]*)" denied the request')
_WEBHOOK_CALL = re.compile(r'failed calling webhook "([^"]*)"')
_POD_NAME = re.compile(r'^pods "([^"]*)" is forbidden: ')
_POD_SECURITY = 'violates PodSecurity "'
_QUOTA = ("exceeded quota: ", "failed quota: ")
_INVALID = re.compile(r'^Pod "[^"]*" is invalid: ')

# The kinds whose stored pod template the snapshot keeps (snapshot/decoded.py's TEMPLATE_KINDS).
TEMPLATE_OWNERS = frozenset({"ReplicaSet", "StatefulSet", "Job", "ReplicationController"})

# Why a policy a refusal names was not re-evaluated.
NO_POLICY = "the snapshot does not hold the policy"
NO_TEMPLATE = "the snapshot does not hold the pod template of {owner}"
READS_PARAMS = "its binding reads params the snapshot cannot vouch for (or a kind podwhy does not read as params)"


def _reads(what: str) -> str:
    """A policy's gap other than params: the authorizer, or a CEL name podwhy does not evaluate."""
    if what.startswith(UNEVALUATED_NAME):
        return f"it calls CEL's {what.removeprefix(UNEVALUATED_NAME)}, which podwhy does not evaluate"
    return f"it reads {what}, which podwhy cannot evaluate"


def read_refusal(
    snapshot: Snapshot,
    message: str,
    owner: tuple[str, str],
    namespace: str,
    emulation: Emulation,
    rechecks: dict[tuple[str, ...], PolicyRecheck] | None = None,
) -> Refusal:
    """The refusal MESSAGE (a FailedCreate event's) names, of a pod OWNER creates in NAMESPACE.
    RECHECKS: the policies re-evaluated so far, by owner, policy and binding (each once)."""
    text = message.removeprefix(ERROR_CREATING)
    policy = _POLICY.search(text)
    if policy is not None:
        key = (*owner, namespace, policy.group(1), policy.group(2))
        recheck = (rechecks or {}).get(key)
        if recheck is None:
            recheck = recheck_policy(snapshot, policy.group(1), policy.group(2), text, owner, namespace, emulation)
            if rechecks is not None:
                rechecks[key] = recheck
        return Refusal(RefusalKind.POLICY, text, policy=recheck)
    for pattern, kind in ((_WEBHOOK, RefusalKind.WEBHOOK), (_WEBHOOK_CALL, RefusalKind.WEBHOOK_CALL)):
        hook = pattern.search(text)
        if hook is not None:
            return Refusal(kind, text, webhook=name_webhook(snapshot, hook.group(1)))
    if _POD_SECURITY in text:
        return Refusal(RefusalKind.POD_SECURITY, text)
    if any(marker in text for marker in _QUOTA):
        return Refusal(RefusalKind.QUOTA, text)
    if _INVALID.match(text):
        return Refusal(RefusalKind.INVALID, text)
    return Refusal(RefusalKind.OTHER, text)


def name_webhook(snapshot: Snapshot, name: str) -> WebhookNamed:
    """The webhook NAME with its configuration, as the snapshot holds it (the first configuration
    that has a webhook of that name, validating first), else by its name alone."""
    from podwhy.cluster.apiserver.admission.policy.products import recognize

    for configurations, mutating in (
        (snapshot.validating_webhook_configurations, False),
        (snapshot.mutating_webhook_configurations, True),
    ):
        for config_name in sorted(configurations):
            for webhook in configurations[config_name].webhooks:
                if webhook.name == name:
                    product = recognize(webhook)
                    return WebhookNamed(
                        name, config_name, webhook.failure_policy, mutating, product.value if product else ""
                    )
    product = recognize(o.ValidatingWebhook(name=name))
    return WebhookNamed(name, product=product.value if product else "")


def _template(snapshot: Snapshot, owner: tuple[str, str], namespace: str) -> dict[str, Any] | None:
    """OWNER's stored pod template as JSON, when the snapshot keeps it."""
    data = snapshot.raw_templates.get((owner[0], namespace, owner[1]))
    if data is None:
        return None
    try:
        template = msgspec.json.decode(data)
    except msgspec.DecodeError:
        return None
    return template if isinstance(template, dict) else None


def _owner_uid(snapshot: Snapshot, owner: tuple[str, str], namespace: str) -> str:
    kind, name = owner
    if kind == "Job":
        job = snapshot.jobs.get(f"{namespace}/{name}")
        return job.metadata.uid if job is not None else ""
    kept: list[o.ReplicaSet] | list[o.StatefulSet] | list[o.ReplicationController]
    if kind == "ReplicaSet":
        kept = snapshot.replica_sets
    elif kind == "ReplicationController":
        kept = snapshot.replication_controllers
    else:
        kept = snapshot.stateful_sets
    return next((x.metadata.uid for x in kept if x.metadata.namespace == namespace and x.metadata.name == name), "")


_API_VERSIONS = {"ReplicaSet": "apps/v1", "StatefulSet": "apps/v1", "Job": "batch/v1", "ReplicationController": "v1"}


def template_pod(
    snapshot: Snapshot, template: dict[str, Any], owner: tuple[str, str], namespace: str, pod_name: str
) -> o.Pod:
    """The pod OWNER's controller creates from TEMPLATE (named POD_NAME): the template's labels,
    annotations and spec, owned by it (as cluster/workloads.py's replicas are made)."""
    from podwhy.snapshot.typed import decode_typed

    typed = decode_typed(msgspec.json.Decoder(o.PodTemplateSpec), msgspec.json.encode(template))
    kind, name = owner
    ref = o.OwnerReference(
        api_version=_API_VERSIONS.get(kind, ""),
        kind=kind,
        name=name,
        uid=_owner_uid(snapshot, owner, namespace),
        controller=True,
    )
    spec = typed.spec
    spec.node_name = ""
    meta = o.ObjectMeta(
        name=pod_name,
        namespace=namespace,
        labels=dict(typed.metadata.labels),
        annotations=dict(typed.metadata.annotations),
        owner_references=[ref],
    )
    return o.Pod(metadata=meta, spec=spec)


def refused_pod(
    snapshot: Snapshot, owner: tuple[str, str], namespace: str, text: str
) -> tuple[o.Pod, dict[str, Any]] | None:
    """The pod OWNER's controller creates (named as the refusal TEXT names it), before admission,
    and OWNER's stored pod template it is made from; None when the snapshot does not keep it."""
    template = _template(snapshot, owner, namespace) if owner[0] in TEMPLATE_OWNERS else None
    if template is None:
        return None
    try:
        return template_pod(snapshot, template, owner, namespace, _pod_name(text, owner)), template
    except (PodwhyError, msgspec.MsgspecError):
        return None


def _pod_name(text: str, owner: tuple[str, str]) -> str:
    """The pod's name as the refusal gives it, else one its controller could give."""
    from podwhy.snapshot.names import generated_name, pods_prefix

    named = _POD_NAME.match(text)
    if named is not None and named.group(1) and not named.group(1).endswith("-"):
        return named.group(1)
    if owner[0] == "StatefulSet":
        return f"{owner[1]}-0"
    return generated_name(pods_prefix(owner[1]), f"podwhy-recheck/{owner[0]}/{owner[1]}")


def admitted_object(
    snapshot: Snapshot, pod: o.Pod, raw_spec: dict[str, Any] | None, emulation: Emulation
) -> dict[str, Any]:
    """POD as the API server hands it to the admission policies: defaulted, through the mutating
    plugins (cluster/apiserver/admission/chain.py's MUTATING), as JSON (podobject.pod_object).
    The snapshot is left as it was (a plugin's notes on what it lacked are taken back)."""
    from podwhy.cluster.apiserver.admission.attributes import Attributes
    from podwhy.cluster.apiserver.admission.chain import MUTATING
    from podwhy.cluster.apiserver.admission.podobject import pod_object
    from podwhy.cluster.apiserver.defaults import default_pod, drop_disabled_pod_fields

    key = f"{pod.metadata.namespace}/{pod.metadata.name}"
    before = snapshot.admitted_without.get(key)
    try:
        default_pod(pod, emulation)
        drop_disabled_pod_fields(pod, emulation)
        attributes = Attributes(snapshot, emulation, raw_spec=raw_spec)
        for _, admit_pod in MUTATING:
            admit_pod(pod, attributes)
    finally:
        if before is None:
            snapshot.admitted_without.pop(key, None)
        else:
            snapshot.admitted_without[key] = before
    pod.status.phase = "Pending"
    return pod_object(pod, raw_spec, emulation)


def _only_policy(snapshot: Snapshot, name: str) -> Snapshot:
    """SNAPSHOT with the policy NAME and its bindings as the only admission configuration."""
    return records.replace(
        snapshot,
        validating_admission_policies={name: snapshot.validating_admission_policies[name]},
        validating_admission_policy_bindings={
            k: b for k, b in snapshot.validating_admission_policy_bindings.items() if b.spec.policy_name == name
        },
        validating_webhook_configurations={},
        mutating_webhook_configurations={},
    )


def recheck_policy(
    snapshot: Snapshot,
    policy: str,
    binding: str,
    text: str,
    owner: tuple[str, str],
    namespace: str,
    emulation: Emulation,
) -> PolicyRecheck:
    """The ValidatingAdmissionPolicy POLICY (which refused with BINDING) evaluated now on the pod
    OWNER's controller would create: whether it still refuses, and the failing validation."""
    from podwhy.cluster.apiserver.admission.policy.admission import admit_object

    held = snapshot.validating_admission_policies.get(policy)
    if held is None:
        return PolicyRecheck(policy, binding, None, not_evaluated=NO_POLICY)
    template = _template(snapshot, owner, namespace) if owner[0] in TEMPLATE_OWNERS else None
    if template is None:
        return PolicyRecheck(policy, binding, None, not_evaluated=NO_TEMPLATE.format(owner=f"{owner[0]} {owner[1]}"))
    try:
        pod = template_pod(snapshot, template, owner, namespace, _pod_name(text, owner))
        raw_spec = template.get("spec") if isinstance(template.get("spec"), dict) else None
        obj = admitted_object(snapshot, pod, raw_spec, emulation)
    except (PodwhyError, msgspec.MsgspecError) as exc:
        return PolicyRecheck(policy, binding, None, not_evaluated=f"the pod template cannot be admitted: {exc}")
    answer = admit_object(_only_policy(snapshot, policy), obj, namespace)
    denial = answer.verdict.denial
    if denial is not None:
        index = denial.expression_index
        validations = held.spec.validations
        expression = validations[index].expression if index is not None and index < len(validations) else ""
        return PolicyRecheck(
            policy,
            binding,
            True,
            expression=expression,
            expression_index=index,
            message=denial.message,
            now_binding=denial.binding if denial.binding and denial.binding != binding else "",
        )
    gaps = [g for g in answer.gaps if g.policy == policy]
    if gaps:
        what = READS_PARAMS if gaps[0].what == "params" else _reads(gaps[0].what)
        return PolicyRecheck(policy, binding, None, not_evaluated=what)
    return PolicyRecheck(policy, binding, False)
