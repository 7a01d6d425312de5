"""What the API server's admission leaves open, in words: the webhooks a pod's creation is sent to
(podwhy never calls them), named as on-call engineers know them, and the admission policies
podwhy could not evaluate (cluster/admissionopen.py's facts)."""

from __future__ import annotations

from podwhy.cluster.placementreasons import AdmissionOpen, OpenPolicy, OpenWebhook

# Well-known webhooks by product (policy/products.py's values), as on-call engineers call them.
PRODUCTS = {
    "kyverno": "Kyverno policy webhook",
    "gatekeeper": "Gatekeeper policy webhook",
    "cert-manager": "cert-manager webhook",
}

# What a policy reads that podwhy does not hold.
POLICY_GAPS = {
    "params": "its binding's params, which podwhy does not read",
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


def policy_text(policy: OpenPolicy) -> str:
    binding = f" with binding '{policy.binding}'" if policy.binding else ""
    what = POLICY_GAPS.get(policy.what, policy.what)
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
