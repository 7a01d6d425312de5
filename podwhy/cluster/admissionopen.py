"""What the API server's admission leaves open when podwhy creates a pod: the webhooks its creation
is sent to (never called) and the admission policies podwhy could not evaluate on it. A leaf of
facts (it imports nothing): the API server's admission sets them, `check`'s placement carries them
(placementreasons.py re-exports them), the report words them."""

from __future__ import annotations

import msgspec

# The admission plugins' names (AllOrderedPlugins), as the facts and the chain name them.
VALIDATING_POLICY = "ValidatingAdmissionPolicy"
MUTATING_POLICY = "MutatingAdmissionPolicy"

# What a policy reads that podwhy does not hold (OpenPolicy.what).
PARAMS = "params"

# Why a binding's params are not looked up (OpenPolicy.why; admission/policy/params.py finds them).
PARAMS_NO_OBJECTS = "no-objects"  # the snapshot holds no object of the paramKind
PARAMS_NO_OBJECTS_IN_NAMESPACE = "no-objects-in-namespace"  # none of the namespace looked in (detail)
PARAMS_UNKNOWN_KIND = "unknown-kind"  # a custom kind it holds no object of: served or not, it cannot tell
PARAMS_OTHER_VERSION = "other-version"  # it holds the kind's objects in other apiVersions only (detail)
PARAMS_NOT_READ = "not-read"  # a built-in kind podwhy does not read as params
PARAMS_SECRETS = "secrets"  # Secrets, which podwhy never reads
PARAMS_TOO_MANY = "too-many"  # past the bound on what a snapshot holds of them (limits.MAX_PARAM_BYTES)
PARAMS_NOT_FETCHED = "not-fetched"  # the live source could not read them (detail: its words)


class OpenWebhook(msgspec.Struct, frozen=True):
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


class OpenPolicy(msgspec.Struct, frozen=True):
    """A ValidatingAdmissionPolicy (or MutatingAdmissionPolicy: KIND) and binding the pod meets
    whose decision podwhy cannot make: WHAT it reads that podwhy does not hold ("params", CEL's
    "authorizer", the "namespace"); for "params", WHY they could not be looked up (the facts of
    admission/policy/params.py), the PARAM_KIND (`v1/ConfigMap`) and what WHY names (DETAIL)."""

    policy: str
    binding: str | None
    what: str
    kind: str = VALIDATING_POLICY
    why: str = ""
    param_kind: str = ""
    detail: str = ""
    on: str = ""  # as OpenWebhook.on


class AdmissionOpen(msgspec.Struct, frozen=True):
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
