"""explain TYPE/NAME of a workload (issue 38): kubectl's spellings, the workload's pods through
owner references, the Pending pod explained, and when none is Pending its controller's current
FailedCreate events with what their words name (a ValidatingAdmissionPolicy re-evaluated on the
pod template now, a webhook named); `pending`'s workloads that cannot create pods."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from podwhy.analysis.refusals import NO_POLICY, read_refusal
from podwhy.analysis.workloadfacts import RefusalKind, WorkloadState
from podwhy.analysis.workloadtarget import failing_workloads, workload_kind, workload_target
from podwhy.cluster.apiserver.admission.policy import validating as v
from podwhy.errors import PodwhyError
from podwhy.features.emulation import DEFAULT
from podwhy.model import objects as o
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.source import FileSource
from tests.paths import REPO

CLUSTER = REPO / "fixtures" / "notcreated" / "cluster.yaml"
POLICY = "require-resource-limits"
EXPRESSION = (
    "object.spec.containers.all(c, has(c.resources) && has(c.resources.limits) && has(c.resources.limits.memory))"
)


def _load() -> Snapshot:
    return FileSource([str(CLUSTER)]).load()


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("deployment/web", ("Deployment", "web")),
        ("deployments/web", ("Deployment", "web")),
        ("deploy/web", ("Deployment", "web")),
        ("deployments.apps/web", ("Deployment", "web")),
        ("Deployment/web", ("Deployment", "web")),
        ("rs/web-6c9f8b7d5", ("ReplicaSet", "web-6c9f8b7d5")),
        ("replicaset/x", ("ReplicaSet", "x")),
        ("sts/db", ("StatefulSet", "db")),
        ("statefulsets/db", ("StatefulSet", "db")),
        ("ds/agent", ("DaemonSet", "agent")),
        ("daemonset/agent", ("DaemonSet", "agent")),
        ("job/etl", ("Job", "etl")),
        ("jobs.batch/etl", ("Job", "etl")),
        ("cj/nightly", ("CronJob", "nightly")),
        ("cronjob/nightly", ("CronJob", "nightly")),
        ("rc/legacy", ("ReplicationController", "legacy")),
        ("replicationcontrollers/legacy", ("ReplicationController", "legacy")),
        ("pod/web", None),
        ("shop/web", None),
        ("web", None),
        ("deployment/", None),
        ("deployment/a/b", None),
    ],
)
def test_kubectl_spellings_of_the_workload_kinds(ref: str, expected: tuple[str, str] | None) -> None:
    assert workload_kind(ref) == expected


def test_a_deployment_whose_pods_a_policy_refuses_is_not_created() -> None:
    snapshot = _load()
    facts, pod = workload_target(snapshot, "Deployment", "shop", "web", DEFAULT)
    assert pod is None
    assert facts.state is WorkloadState.NOT_CREATED
    assert facts.creators == (("ReplicaSet", "web-6c9f8b7d5"),)
    assert facts.pods == 0
    # Newest first, quoted verbatim.
    assert [e.count for e in facts.events] == [12, 1]
    assert facts.events[0].message.startswith('Error creating: pods "web-6c9f8b7d5-x7k2p" is forbidden: ')
    refusal = facts.events[0].refusal
    assert refusal.kind is RefusalKind.POLICY
    assert refusal.text.startswith('pods "web-6c9f8b7d5-x7k2p" is forbidden: ValidatingAdmissionPolicy')
    recheck = refusal.policy
    assert recheck is not None
    assert (recheck.policy, recheck.binding, recheck.denies) == (POLICY, "require-resource-limits-binding", True)
    assert (recheck.expression_index, recheck.expression) == (0, EXPRESSION)
    assert recheck.message == "Memory limits are required for all containers."
    assert recheck.now_binding == ""


def test_the_policy_admits_a_template_that_sets_the_limit() -> None:
    snapshot = _load()
    key = ("ReplicaSet", "shop", "web-6c9f8b7d5")
    template = msgspec.json.decode(snapshot.raw_templates[key])
    template["spec"]["containers"][0]["resources"]["limits"] = {"memory": "512Mi"}
    snapshot.raw_templates[key] = msgspec.json.encode(template)
    facts, _ = workload_target(snapshot, "Deployment", "shop", "web", DEFAULT)
    recheck = facts.events[0].refusal.policy
    assert recheck is not None and recheck.denies is False and recheck.expression == ""


def test_a_policy_the_snapshot_lacks_is_not_re_evaluated() -> None:
    snapshot = _load()
    snapshot.validating_admission_policies.clear()
    facts, _ = workload_target(snapshot, "Deployment", "shop", "web", DEFAULT)
    recheck = facts.events[0].refusal.policy
    assert recheck is not None and recheck.denies is None and recheck.not_evaluated == NO_POLICY


def test_a_template_the_snapshot_lacks_is_not_re_evaluated() -> None:
    snapshot = _load()
    snapshot.raw_templates.clear()
    facts, _ = workload_target(snapshot, "Deployment", "shop", "web", DEFAULT)
    recheck = facts.events[0].refusal.policy
    assert recheck is not None and recheck.denies is None
    assert "pod template of ReplicaSet web-6c9f8b7d5" in recheck.not_evaluated


def test_re_evaluating_leaves_the_snapshot_as_it_was() -> None:
    snapshot = _load()
    before = (dict(snapshot.admitted_without), dict(snapshot.defaulted), list(snapshot.api_warnings))
    workload_target(snapshot, "Deployment", "shop", "web", DEFAULT)
    assert (snapshot.admitted_without, snapshot.defaulted, snapshot.api_warnings) == before


def test_a_pod_created_since_the_refusal_clears_it() -> None:
    snapshot = _load()
    created = o.Event(
        metadata=o.ObjectMeta(name="web-6c9f8b7d5.created", namespace="shop"),
        involved_object=o.ObjectReference(kind="ReplicaSet", name="web-6c9f8b7d5", namespace="shop"),
        reason="SuccessfulCreate",
        message="Created pod: web-6c9f8b7d5-z9z9z",
        type="Normal",
        count=1,
        last_timestamp="2026-03-04T10:30:00Z",
    )
    snapshot.events.append(created)
    facts, pod = workload_target(snapshot, "Deployment", "shop", "web", DEFAULT)
    assert pod is None and facts.state is WorkloadState.RUNNING and not facts.events


def test_the_pending_pod_kube_scheduler_tried_last_is_explained() -> None:
    snapshot = _load()
    facts, pod = workload_target(snapshot, "Deployment", "shop", "api", DEFAULT)
    assert facts.state is WorkloadState.PENDING
    assert facts.pending == ("api-5d4f8c7b9-b8m4q", "api-5d4f8c7b9-c2n9v")
    assert pod is not None and pod.metadata.name == "api-5d4f8c7b9-c2n9v" and facts.latest
    assert facts.pods == 3


def test_without_a_scheduler_event_the_first_pending_by_name_is_explained() -> None:
    snapshot = _load()
    snapshot.events = [e for e in snapshot.events if e.reason != "FailedScheduling"]
    facts, pod = workload_target(snapshot, "Deployment", "shop", "api", DEFAULT)
    assert pod is not None and pod.metadata.name == "api-5d4f8c7b9-b8m4q" and not facts.latest


def test_the_replicaset_itself_is_a_target() -> None:
    facts, pod = workload_target(_load(), "ReplicaSet", "shop", "api-5d4f8c7b9", DEFAULT)
    assert pod is not None and facts.creators == (("ReplicaSet", "api-5d4f8c7b9"),)


def test_a_daemonset_known_from_its_events_names_the_webhook_with_its_configuration() -> None:
    facts, _ = workload_target(_load(), "DaemonSet", "shop", "node-agent", DEFAULT)
    assert facts.state is WorkloadState.NOT_CREATED
    refusal = facts.events[0].refusal
    assert refusal.kind is RefusalKind.WEBHOOK and refusal.webhook is not None
    webhook = refusal.webhook
    assert (webhook.name, webhook.configuration, webhook.failure_policy, webhook.product) == (
        "validate.kyverno.svc-fail",
        "kyverno-resource-validating-webhook-cfg",
        "Fail",
        "kyverno",
    )


def test_an_unknown_name_fails_with_the_closest() -> None:
    with pytest.raises(PodwhyError) as err:
        workload_target(_load(), "Deployment", "shop", "wbe", DEFAULT)
    assert "Deployment shop/wbe not found" in str(err.value)
    assert err.value.hint is not None and "deployment/web" in err.value.hint


def test_pending_finds_the_workloads_that_cannot_create_pods() -> None:
    failing = failing_workloads(_load(), "shop", DEFAULT)
    assert [(f.kind, f.name) for f in failing] == [("Deployment", "web"), ("DaemonSet", "node-agent")]
    assert failing_workloads(_load(), "default", DEFAULT) == []


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        (
            'Error creating: pods "web-1" is forbidden: exceeded quota: compute, requested: cpu=2, used: cpu=8, '
            "limited: cpu=8",
            RefusalKind.QUOTA,
        ),
        (
            'Error creating: pods "web-1" is forbidden: violates PodSecurity "restricted:latest": '
            "allowPrivilegeEscalation != false",
            RefusalKind.POD_SECURITY,
        ),
        ('Error creating: Pod "web-1" is invalid: spec.containers[0].image: Required value', RefusalKind.INVALID),
        (
            'Error creating: Internal error occurred: failed calling webhook "validation.gatekeeper.sh": failed to '
            'call webhook: Post "https://gatekeeper-webhook-service.gatekeeper-system.svc:443/v1/admit?timeout=3s": '
            "dial tcp 10.0.0.1:443: connect: connection refused",
            RefusalKind.WEBHOOK_CALL,
        ),
        ("Error creating: the server was unable to return a response", RefusalKind.OTHER),
    ],
)
def test_who_refused_is_read_from_the_api_servers_words(message: str, kind: RefusalKind) -> None:
    refusal = read_refusal(_load(), message, ("ReplicaSet", "web-6c9f8b7d5"), "shop", DEFAULT)
    assert refusal.kind is kind and refusal.text == message.removeprefix("Error creating: ")


def test_a_webhook_the_snapshot_lacks_is_named_by_its_product() -> None:
    message = 'Error creating: admission webhook "validation.gatekeeper.sh" denied the request: [deny] no'
    refusal = read_refusal(_load(), message, ("ReplicaSet", "x"), "shop", DEFAULT)
    assert refusal.webhook is not None
    assert (refusal.webhook.configuration, refusal.webhook.product) == ("", "gatekeeper")


def test_a_denial_names_the_validation_that_failed_without_changing_the_refusal() -> None:
    policy = v.Policy(name="p", validations=(v.Validation("true", "first"), v.Validation("false", "second")))
    outcome = v.dispatch_binding(policy, v.Binding("b"), v.PolicyRequest(object={}))
    (denial,) = outcome.denials
    assert denial.expression_index == 1
    assert denial == v.Denial("p", "b", "second", v.REASON_INVALID, 422)


LEGACY_RC = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ReplicationController
  metadata: {name: legacy, namespace: shop, uid: uid-rc-legacy}
  spec:
    replicas: 1
    selector: {app: legacy}
    template:
      metadata: {labels: {app: legacy}}
      spec:
        containers:
        - name: legacy
          image: registry.example.com/shop/legacy:0.9
          resources: {requests: {cpu: 100m, memory: 64Mi}}
- apiVersion: v1
  kind: Event
  metadata: {name: legacy.18a2b3c4d5e6f799, namespace: shop}
  involvedObject: {apiVersion: v1, kind: ReplicationController, name: legacy, namespace: shop, uid: uid-rc-legacy}
  reason: FailedCreate
  message: 'Error creating: pods "legacy-k2x9v" is forbidden: ValidatingAdmissionPolicy ''require-resource-limits''
    with binding ''require-resource-limits-binding'' denied request: Memory limits are required for all containers.'
  type: Warning
  count: 3
  firstTimestamp: '2026-03-04T10:00:01Z'
  lastTimestamp: '2026-03-04T10:22:00Z'
  source: {component: replication-controller}
"""


def test_a_replication_controllers_refusal_is_re_evaluated_on_its_template(tmp_path: Path) -> None:
    """A ReplicationController's stored template is kept as a ReplicaSet's is: its controller's
    FailedCreate is evaluated again on it (the pod owned by the ReplicationController's uid)."""
    extra = tmp_path / "legacy.yaml"
    extra.write_text(LEGACY_RC)
    snapshot = FileSource([str(CLUSTER), str(extra)]).load()
    assert ("ReplicationController", "shop", "legacy") in snapshot.raw_templates
    facts, pod = workload_target(snapshot, "ReplicationController", "shop", "legacy", DEFAULT)
    assert pod is None and facts.state is WorkloadState.NOT_CREATED
    recheck = facts.events[0].refusal.policy
    assert recheck is not None
    assert (recheck.policy, recheck.denies, recheck.expression) == (POLICY, True, EXPRESSION)
