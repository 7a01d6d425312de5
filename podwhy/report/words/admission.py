"""What the API server's admission leaves open, in words: the webhooks a pod's creation is sent to
(podwhy never calls them), named as on-call engineers know them, and the admission policies
podwhy could not evaluate (cluster/admissionopen.py's facts)."""

from __future__ import annotations

from collections.abc import Mapping

from podwhy.cel.errors import UNEVALUATED_NAME
from podwhy.cluster.placementreasons import AdmissionOpen, OpenPolicy, OpenWebhook
from podwhy.cluster.placementreasons import admissionopen as facts
from podwhy.snapshot.limits import MAX_PARAM_BYTES, size_words
from podwhy.snapshot.params import FetchedKind

# Well-known webhooks by product (policy/products.py's values), as on-call engineers call them.
PRODUCTS = {
    "kyverno": "Kyverno policy webhook",
    "gatekeeper": "Gatekeeper policy webhook",
    "cert-manager": "cert-manager webhook",
}

# What a policy reads that podwhy does not hold.
POLICY_GAPS = {
    "params": "its binding's params, which podwhy does not look up",
    "authorizer": "the authorizer (who may do what), which podwhy cannot ask",
    "namespace": "the namespace, which the snapshot does not hold",
    "schema": "the kind's served schema, which podwhy does not hold",
}
SCHEMA_GAP = "schema"

ASSUME_FLAG = "--assume-webhooks-allow"


def webhook_text(webhook: OpenWebhook) -> str:
    """ "webhook validate.kyverno.svc-fail (Kyverno policy webhook; ValidatingWebhookConfiguration
    kyverno-resource-validating-webhook-cfg, failurePolicy Fail)"."""
    kind = "MutatingWebhookConfiguration" if webhook.mutating else "ValidatingWebhookConfiguration"
    known = PRODUCTS.get(webhook.product, "")
    where = f"{kind} {webhook.configuration}, failurePolicy {webhook.failure_policy}"
    return f"webhook {webhook.name} ({known + '; ' if known else ''}{where})"


_CANNOT_VOUCH = "which the snapshot cannot vouch for: "
# Why a binding's params were not looked up ({kind}: the paramKind's objects, in words).
PARAMS_WHY = {
    facts.PARAMS_NO_OBJECTS: _CANNOT_VOUCH + "it holds no {kind}",
    facts.PARAMS_NO_OBJECTS_IN_NAMESPACE: _CANNOT_VOUCH + "it holds no {kind} of namespace {detail}",
    facts.PARAMS_UNKNOWN_KIND: _CANNOT_VOUCH + "it holds no {kind}, so it cannot tell whether the cluster serves them",
    facts.PARAMS_OTHER_VERSION: _CANNOT_VOUCH + "it holds {kind} in {detail} only",
    facts.PARAMS_NOT_READ: "which podwhy does not read: of its params' kinds, it reads ConfigMaps and custom resources",
    facts.PARAMS_SECRETS: "which are Secrets, which podwhy never reads",
    facts.PARAMS_TOO_MANY: "which the snapshot did not keep: it held more than {limit} of ConfigMaps and custom"
    " resources before knowing which are params",
    facts.PARAMS_NOT_FETCHED: "which could not be read: {detail}",
}


def param_kind_words(param_kind: str) -> str:
    """`v1/ConfigMap`: "ConfigMaps"; `example.com/v1/ParamsConfig`: "ParamsConfig objects (example.com/v1)"."""
    api_version, _, kind = param_kind.rpartition("/")
    if param_kind == "v1/ConfigMap":
        return "ConfigMaps"
    return f"{kind} objects ({api_version})" if kind else "params"


def params_text(policy: OpenPolicy) -> str:
    """What a policy's params left open: "its binding's params (v1/ConfigMap), which ..."."""
    template = PARAMS_WHY.get(policy.why)
    if template is None:
        return POLICY_GAPS[facts.PARAMS]
    why = template.format(
        kind=param_kind_words(policy.param_kind), detail=policy.detail, limit=size_words(MAX_PARAM_BYTES)
    )
    whose = "its binding's" if policy.binding else "its"
    return f"{whose} params ({policy.param_kind}), {why}" if policy.param_kind else f"{whose} params, {why}"


def gap_text(what: str) -> str:
    """What a policy reads that podwhy does not hold, in words (not its params: params_text)."""
    if what.startswith(UNEVALUATED_NAME):
        return f"CEL's {what.removeprefix(UNEVALUATED_NAME)}, which podwhy does not evaluate"
    return POLICY_GAPS.get(what, what)


def policy_text(policy: OpenPolicy) -> str:
    binding = f" with binding '{policy.binding}'" if policy.binding else ""
    what = params_text(policy) if policy.what == facts.PARAMS else gap_text(policy.what)
    on = f" (on creating {policy.on})" if policy.on else ""
    if policy.what == SCHEMA_GAP:
        return f"{policy.kind} '{policy.policy}'{binding}{on} would patch it by {what}"
    return f"{policy.kind} '{policy.policy}'{binding}{on} reads {what}"


def admission_open_text(fact: AdmissionOpen) -> str:
    """A placed replica's message when admission leaves its creation open: "not evaluated: whether
    admission lets it be created: …"."""
    parts = []
    for on in dict.fromkeys(w.on for w in fact.webhooks):  # the pod's own (""), its owner's
        webhooks = [w for w in fact.webhooks if w.on == on]
        named = "; ".join(webhook_text(w) for w in webhooks)
        they = "they admit" if len(webhooks) > 1 else "it admits"
        whose = f"the creation of {on}" if on else "its creation"
        parts.append(f"{whose} is sent to {named}, which podwhy does not call ({ASSUME_FLAG} assumes {they} it)")
    parts += [policy_text(p) for p in fact.policies]
    if fact.scheduler_says:
        return (
            "not evaluated: what admission changes of it: " + "; ".join(parts) + "; as podwhy admitted it, "
            f"kube-scheduler says: {fact.scheduler_says}"
        )
    return "not evaluated: whether admission lets it be created: " + "; ".join(parts)


def params_not_read_warnings(fetched: Mapping[str, FetchedKind]) -> list[str]:
    """The policies' params a live source (or the `podwhy snapshot` of a dump) could not read:
    the bindings that read them are not evaluated."""
    return [
        f"the ValidatingAdmissionPolicies' params ({key}) could not be read ({kind.missing}): the bindings"
        " that read them are not evaluated"
        for key, kind in sorted(fetched.items())
        if kind.missing
    ]
