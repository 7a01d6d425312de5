"""A workload's answer in words from the facts (analysis/workloadfacts.py): the first line, which
pod of it is explained, who refused its pods and what podwhy finds of the policy or webhook the
refusal names (words/notcreated.py says the rest from the report alone)."""

from __future__ import annotations

from podwhy.analysis.workloadfacts import (
    PolicyRecheck,
    Refusal,
    RefusalKind,
    WebhookNamed,
    WorkloadFacts,
    WorkloadState,
)
from podwhy.report.words.admission import PRODUCTS
from podwhy.report.words.notcreated import phases_text, target_text


def _count(number: int, thing: str) -> str:
    return f"{number} {thing}{'s' if number != 1 else ''}"


def webhook_words(webhook: WebhookNamed) -> str:
    """ "webhook validate.kyverno.svc-fail (Kyverno policy webhook; ValidatingWebhookConfiguration
    kyverno-resource-validating-webhook-cfg, failurePolicy Fail)"; without its configuration in
    the snapshot, the product alone."""
    known = PRODUCTS.get(webhook.product, "")
    if webhook.configuration:
        kind = "MutatingWebhookConfiguration" if webhook.mutating else "ValidatingWebhookConfiguration"
        where = f"{kind} {webhook.configuration}, failurePolicy {webhook.failure_policy}"
    else:
        where = "the snapshot holds no webhook configuration of that name"
    return f"webhook {webhook.name} ({known + '; ' if known else ''}{where})"


def refuser_text(refusal: Refusal) -> str:
    """Who refuses the pods, in a few words."""
    if refusal.kind is RefusalKind.POLICY and refusal.policy is not None:
        return f"ValidatingAdmissionPolicy '{refusal.policy.policy}' refuses them"
    if refusal.kind is RefusalKind.WEBHOOK and refusal.webhook is not None:
        known = PRODUCTS.get(refusal.webhook.product, "")
        return f"admission webhook {refusal.webhook.name}{f' ({known})' if known else ''} refuses them"
    if refusal.kind is RefusalKind.WEBHOOK_CALL and refusal.webhook is not None:
        return f"admission webhook {refusal.webhook.name} cannot be called and its failurePolicy refuses them"
    said = {
        RefusalKind.POD_SECURITY: "PodSecurity admission refuses them",
        RefusalKind.QUOTA: "a ResourceQuota refuses them",
        RefusalKind.INVALID: "the API server finds the pod template invalid",
    }
    return said.get(refusal.kind, "the API server refuses them")


def summary_text(facts: WorkloadFacts) -> str:
    """The first line of a workload's answer when none of its pods is explained."""
    target = target_text(facts.kind, facts.namespace, facts.name)
    pods = facts.pods
    if facts.state is WorkloadState.NOT_CREATED:
        have = f" (it has {phases_text(facts.phases)})" if pods else ""
        who = refuser_text(facts.events[0].refusal) if facts.events else "the API server refuses them"
        return f"The pods of {target} are not being created{have}: {who}"
    if facts.state is WorkloadState.NO_EVENTS:
        return (
            f"{target} has no pods, and the snapshot holds no Events: whether its controller fails to "
            "create them is not known"
        )
    if not pods:
        return (
            f"{target} has no pods, and its controller reports no FailedCreate (it is scaled to zero, "
            "or the events have expired)"
        )
    running = dict(facts.phases).get("Running", 0)
    if running == pods:
        return f"All {_count(pods, 'pod')} of {target} are running; its controller reports no FailedCreate"
    return f"No pod of {target} is Pending ({phases_text(facts.phases)}); its controller reports no FailedCreate"


def explained_text(facts: WorkloadFacts) -> str:
    """The line under the first when a Pending pod of the workload is explained."""
    target = target_text(facts.kind, facts.namespace, facts.name)
    why = "the one kube-scheduler tried last" if facts.latest else "the first Pending by name"
    pending = len(facts.pending)
    return (
        f"Pod {facts.namespace}/{facts.explained} of {target} is explained ({why}); "
        f"{pending} of its {_count(facts.pods, 'pod')} {'are' if pending != 1 else 'is'} Pending"
    )


def recheck_text(recheck: PolicyRecheck) -> str:
    """What the policy a refusal names does now on the pod the workload's template makes."""
    policy = f"ValidatingAdmissionPolicy '{recheck.policy}'"
    if recheck.denies is None:
        return f"{policy} not re-evaluated: {recheck.not_evaluated}"
    if not recheck.denies:
        return (
            f"re-evaluated now on the pod the template makes, {policy} admits it: the policy, its bindings or "
            "the template changed since this refusal, and the controller creates the pods at its next retry"
        )
    binding = f" (through binding '{recheck.now_binding}')" if recheck.now_binding else ""
    said = f"re-evaluated now on the pod the template makes, {policy} still refuses it{binding}"
    if recheck.expression and recheck.expression_index is not None:
        failing = f"spec.validations[{recheck.expression_index}] is false: {recheck.expression}"
        return f"{said}: {failing} (message: {recheck.message})"
    return f"{said}: {recheck.message}"
