"""What the API server's admission leaves open when podwhy creates a pod: the webhooks its creation
is sent to (never called) and the admission policies podwhy could not evaluate on it. A leaf of
facts (it imports nothing): the API server's admission sets them, `check`'s placement carries them
(placementreasons.py re-exports them), the report words them."""

from __future__ import annotations

from dataclasses import dataclass

# The admission plugins' names (AllOrderedPlugins), as the facts and the chain name them.
VALIDATING_POLICY = "ValidatingAdmissionPolicy"
MUTATING_POLICY = "MutatingAdmissionPolicy"


@dataclass(frozen=True)
class OpenWebhook:
    """A webhook the pod's creation is sent to, never called by podwhy: its name, configuration,
    failurePolicy, whether it mutates, the product it is known as ("kyverno", "gatekeeper",
    "cert-manager"; "" for none), and the error the API server meets deciding whether to call it
    ("" for none: it is called)."""

    name: str
    configuration: str
    failure_policy: str
    mutating: bool
    product: str = ""
    error: str = ""
    # The object whose creation meets it when not the pod's own ("Deployment shop/web": its
    # owner's `kubectl apply`); "" for the pod.
    on: str = ""


@dataclass(frozen=True)
class OpenPolicy:
    """A ValidatingAdmissionPolicy (or MutatingAdmissionPolicy: KIND) and binding the pod meets
    whose decision podwhy cannot make: WHAT it reads that podwhy does not hold ("params", CEL's
    "authorizer", the "namespace")."""

    policy: str
    binding: str | None
    what: str
    kind: str = VALIDATING_POLICY
    on: str = ""  # as OpenWebhook.on


@dataclass(frozen=True)
class AdmissionOpen:
    """Placed, if admission lets it be created: the webhooks its creation is sent to (never
    called) and the policies podwhy could not evaluate on it."""

    webhooks: tuple[OpenWebhook, ...] = ()
    policies: tuple[OpenPolicy, ...] = ()
    # Left Pending: what kube-scheduler says of the pod as podwhy admitted it, which a mutation
    # podwhy did not make (a mutating webhook, a MutatingAdmissionPolicy not evaluated) may change.
    scheduler_says: str = ""

    def __bool__(self) -> bool:
        return bool(self.webhooks or self.policies)

    def joined(self, other: AdmissionOpen | None) -> AdmissionOpen:
        """What both leave open (OTHER's after this one's)."""
        if not other:
            return self
        return AdmissionOpen(self.webhooks + other.webhooks, self.policies + other.policies, self.scheduler_says)

    @property
    def mutates(self) -> bool:
        """Whether what is left open may change the pod (not only refuse it)."""
        return any(w.mutating for w in self.webhooks) or any(p.kind == MUTATING_POLICY for p in self.policies)
