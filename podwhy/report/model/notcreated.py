"""Workloads in the reports: explain's `workload` (explain TYPE/NAME: which of its pods is
explained, or why it has none Pending: its controller cannot create them) and pending's
`notCreated` (the workloads whose controller reports FailedCreate now), with the refusals their
FailedCreate events quote and what podwhy finds of each."""

from __future__ import annotations

from typing import Literal

from msgspec import UNSET, UnsetType

from podwhy.report.model.common import Suggestion, _Struct

# Where a workload stands (analysis/workloadfacts.py's WorkloadState): a pod of it is Pending
# (explained), its pods are not being created, none is Pending and none fails to be created, or
# it has no pod and the snapshot holds no Events to say why.
WorkloadStateName = Literal["Pending", "NotCreated", "Running", "NoEvents"]

# Who refused the pod, as the API server's words say it.
RefusalKindName = Literal[
    "ValidatingAdmissionPolicy", "Webhook", "WebhookCall", "PodSecurity", "ResourceQuota", "Invalid", "Other"
]


class PolicyRecheck(_Struct, kw_only=True):
    """The ValidatingAdmissionPolicy a refusal names, evaluated again now on the pod template of
    the object the event is about, as its controller would create the pod: `stillDenies` true
    (with the failing validation's `expression`, its index in the policy's validations and the
    API server's `message`), false (it admits the pod now), or null when not evaluated
    (`notEvaluated` says why). `nowBinding`: the binding that refuses now, when another."""

    policy: str
    binding: str
    stillDenies: bool | None  # noqa: N815
    expression: str
    expressionIndex: int | None  # noqa: N815
    message: str
    nowBinding: str  # noqa: N815
    notEvaluated: str  # noqa: N815
    # The finding in words.
    text: str


class WebhookNamed(_Struct, kw_only=True):
    """An admission webhook a refusal names, with its configuration as the snapshot holds it
    (`configuration` "" when it does not), its failurePolicy and the product it is known as
    (kyverno, gatekeeper, cert-manager; "" for none)."""

    name: str
    configuration: str
    mutating: bool
    failurePolicy: str  # noqa: N815
    product: str
    # The webhook in words ("webhook validate.kyverno.svc-fail (Kyverno policy webhook; ...)").
    text: str


class RefusalReport(_Struct, kw_only=True):
    """What one FailedCreate event's words say: who refused (`kind`), the API server's words
    after the controller's "Error creating: " (`text`), and the policy or webhook they name."""

    kind: RefusalKindName
    text: str
    policy: PolicyRecheck | None
    webhook: WebhookNamed | None


class CreateEventReport(_Struct, kw_only=True):
    """One FailedCreate event of the controller, quoted verbatim: the object it is about
    ("ReplicaSet web-6c9f8b7d5"), its message, count, when it was last seen and who reported it."""

    object: str
    message: str
    count: int
    lastSeen: str | None  # noqa: N815
    reportingComponent: str  # noqa: N815
    refusal: RefusalReport


class WorkloadTarget(_Struct, kw_only=True):
    """explain TYPE/NAME of a workload: where it stands (`state`), its first line (`summary`),
    the objects that create its pods (a Deployment's ReplicaSets, a CronJob's Jobs, else itself),
    its pods in the snapshot by phase, its Pending pods, the one explained and why that one, and
    its controller's current FailedCreate events, newest first."""

    target: str  # "Deployment shop/web"
    state: WorkloadStateName
    summary: str
    creators: list[str] = []
    pods: dict[str, int] = {}
    pending: list[str] = []
    explained: str = ""
    # The line under the first that says which pod of the workload is explained.
    explainedText: str = ""  # noqa: N815
    events: list[CreateEventReport] = []
    # What podwhy could not suggest for the ValidatingAdmissionPolicy that refuses its pods, and
    # why (the verified changes are the report's `suggestions`, kind satisfyPolicy).
    notes: list[str] | UnsetType = UNSET


class NotCreatedWorkload(_Struct, kw_only=True):
    """`pending`: a workload whose controller reports FailedCreate now ("namespace/name (Kind)"),
    with its controller's current FailedCreate events, newest first (the first is the refusal the
    summary quotes), and its Pending pods, if any."""

    workload: str
    creators: list[str]
    pending: int
    events: list[CreateEventReport]
    # The verified changes that make the ValidatingAdmissionPolicy refusing its pods admit them
    # (kind satisfyPolicy), and what podwhy could not suggest for it, and why.
    suggestions: list[Suggestion] | UnsetType = UNSET
    notes: list[str] | UnsetType = UNSET
