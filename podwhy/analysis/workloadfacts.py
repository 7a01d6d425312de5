"""The facts of a workload explain is pointed at (`deployment/web`) and of the workloads whose
controller cannot create pods (`pending`'s), a leaf the report reads (it imports nothing of
podwhy): where the workload stands, its controller's FailedCreate events as recorded, and what
each refusal's words say (a ValidatingAdmissionPolicy re-evaluated on the pod template now, a
webhook named). analysis/workloadtarget.py and analysis/refusals.py compute them."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Final

import msgspec

if TYPE_CHECKING:
    from podwhy.analysis.suggest.facts import PolicyFixes

# kubectl's TYPE before a slash (its resource, plural or short name, with or without the group)
# for the workload kinds explain resolves to their pods.
WORKLOAD_RESOURCE_NAMES: Final[dict[str, str]] = {
    **dict.fromkeys(("deployment", "deployments", "deploy", "deployment.apps", "deployments.apps"), "Deployment"),
    **dict.fromkeys(("replicaset", "replicasets", "rs", "replicaset.apps", "replicasets.apps"), "ReplicaSet"),
    **dict.fromkeys(("statefulset", "statefulsets", "sts", "statefulset.apps", "statefulsets.apps"), "StatefulSet"),
    **dict.fromkeys(("daemonset", "daemonsets", "ds", "daemonset.apps", "daemonsets.apps"), "DaemonSet"),
    **dict.fromkeys(("job", "jobs", "job.batch", "jobs.batch"), "Job"),
    **dict.fromkeys(("cronjob", "cronjobs", "cj", "cronjob.batch", "cronjobs.batch"), "CronJob"),
    **dict.fromkeys(("replicationcontroller", "replicationcontrollers", "rc"), "ReplicationController"),
}

# The event reasons the pod-creating controllers record (k8s.io/kubernetes pkg/controller's
# controller_utils.go FailedCreatePodReason and SuccessfulCreatePodReason), and the type of a
# refusal's event.
FAILED_CREATE: Final = "FailedCreate"
SUCCESSFUL_CREATE: Final = "SuccessfulCreate"
WARNING: Final = "Warning"
# The prefix the controllers put before the API server's words ("Error creating: %v").
ERROR_CREATING: Final = "Error creating: "


class WorkloadState(Enum):
    """Where the workload stands, as explain answers it."""

    PENDING = "Pending"  # a pod of it is Pending: that pod is explained
    NOT_CREATED = "NotCreated"  # its controller's FailedCreate: its pods are not being created
    RUNNING = "Running"  # no pod Pending, no current FailedCreate
    NO_EVENTS = "NoEvents"  # no pod, and the snapshot holds no Events to say why: not evaluated


class RefusalKind(Enum):
    """Who refused the pod, as the API server's words say it."""

    POLICY = "ValidatingAdmissionPolicy"
    WEBHOOK = "Webhook"
    WEBHOOK_CALL = "WebhookCall"  # a webhook that could not be called (failurePolicy Fail)
    POD_SECURITY = "PodSecurity"
    QUOTA = "ResourceQuota"
    INVALID = "Invalid"  # the pod template is invalid
    OTHER = "Other"


class PolicyRecheck(msgspec.Struct, frozen=True):
    """A ValidatingAdmissionPolicy a refusal names, re-evaluated now on the workload's pod template
    as its controller would create the pod: `denies` True when it still refuses (then the failing
    validation's `expression`, its index and the `message` in the API server's words), False when
    it admits the pod now, None when it was not re-evaluated (`not_evaluated` says why: the policy
    or the template is not in the snapshot, or what it reads is not)."""

    policy: str
    binding: str
    denies: bool | None
    expression: str = ""
    expression_index: int | None = None
    message: str = ""
    # The binding that refuses now, when another than the one the event names.
    now_binding: str = ""
    not_evaluated: str = ""


class WebhookNamed(msgspec.Struct, frozen=True):
    """An admission webhook a refusal names: its configuration, failurePolicy and the product it is
    known as ("kyverno", "gatekeeper", "cert-manager"; "" for none), when the snapshot holds it
    (`configuration` "" when not)."""

    name: str
    configuration: str = ""
    failure_policy: str = ""
    mutating: bool = False
    product: str = ""


class Refusal(msgspec.Struct, frozen=True):
    """What a FailedCreate event's words say: who refused (KIND), the API server's words after
    "Error creating: " (TEXT), and the policy or webhook they name."""

    kind: RefusalKind
    text: str
    policy: PolicyRecheck | None = None
    webhook: WebhookNamed | None = None


class CreateEvent(msgspec.Struct, frozen=True):
    """One FailedCreate event of a pod-creating controller, as recorded: the object it is about
    (`owner_kind` `owner`), its message verbatim, count, when it was last seen (RFC 3339 or "")
    and who reported it; REFUSAL reads its words."""

    owner_kind: str
    owner: str
    message: str
    count: int
    last_seen: str
    component: str
    refusal: Refusal


class WorkloadFacts(msgspec.Struct, frozen=True):
    """A workload and its pods: KIND NAMESPACE/NAME, the objects that create its pods (CREATORS:
    (kind, name), a Deployment's ReplicaSets, a CronJob's Jobs, else itself), its pods in the
    snapshot by phase, its Pending pods by name, the pod explained (EXPLAINED, "" for none) and
    why that one (`latest`: kube-scheduler tried it last), and its controller's current
    FailedCreate events, newest first; FIXES: what is suggested for the policy that refuses its
    pods (analysis/suggest/policyverify.py; None: nothing)."""

    kind: str
    namespace: str
    name: str
    state: WorkloadState
    creators: tuple[tuple[str, str], ...] = ()
    phases: tuple[tuple[str, int], ...] = ()
    pending: tuple[str, ...] = ()
    explained: str = ""
    latest: bool = False
    events: tuple[CreateEvent, ...] = msgspec.field(default=())
    fixes: PolicyFixes | None = None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def pods(self) -> int:
        return sum(count for _, count in self.phases)
