"""satisfyPolicy's verification (issue 38, analysis/suggest/policyverify.py): a change that makes
a ValidatingAdmissionPolicy admit a refused pod is offered only once the whole admission, run
again on the changed pod, admits it (every policy, LimitRanger's bounds, ResourceQuota, the pod's
validation), with whether it then fits; never one that admission then refuses, which a note
names instead. Each case is a small cluster (built for these tests) and a pod a policy refuses."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml

from podwhy.analysis.suggest.facts import PolicyFixes
from podwhy.analysis.suggest.policyfacts import (
    ContainerResource,
    FieldSet,
    FieldUnset,
    MetadataKey,
    PolicyFixRefused,
    PolicyValuesUnknown,
    SatisfyPolicy,
    ValueFrom,
)
from podwhy.analysis.suggest.policyverify import PolicyVerifier, RefusedPod
from podwhy.cluster.apiserver.admission.attributes import AdmissionRefusalError
from podwhy.cluster.apiserver.admission.chain import admit
from podwhy.features.emulation import DEFAULT
from podwhy.model import objects as o
from podwhy.model import records
from podwhy.report.words.suggest import command_text, suggestion_text
from podwhy.report.words.suggestpolicy import policy_note_text
from podwhy.scheduler.config import default_config
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.source import FileSource
from podwhy.verdict import Verdict

Json = dict[str, Any]
NS = "shop"


def _policy(name: str, expression: str, variables: dict[str, str] | None = None) -> list[Json]:
    spec: Json = {
        "failurePolicy": "Fail",
        "matchConstraints": {
            "resourceRules": [
                {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["pods"]}
            ]
        },
        "validations": [{"expression": expression}],
    }
    if variables:
        spec["variables"] = [{"name": k, "expression": v} for k, v in variables.items()]
    binding = {"policyName": name, "validationActions": ["Deny"]}
    return [
        {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
         "metadata": {"name": name}, "spec": spec},
        {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
         "metadata": {"name": f"{name}-binding"}, "spec": binding},
    ]  # fmt: skip


MEMORY_LIMITS = _policy(
    "require-memory-limits",
    "variables.containers.all(c, has(c.resources.limits) && 'memory' in c.resources.limits)",
    {"containers": "object.spec.containers"},
)
TEAM_IN = _policy("require-team", "object.metadata.labels.team in ['payments', 'search']")
TEAM_HAS = _policy("require-team", "has(object.metadata.labels.team)")
AT_MOST_1GI = _policy(
    "memory-at-most-1gi",
    "object.spec.containers.all(c, quantity(c.resources.limits.memory).compareTo(quantity('1Gi')) <= 0)",
)
COMPILE_ERROR = _policy("broken", "object.metadata.labels.team.size() > 0 && team")

POD_MAX = {
    "apiVersion": "v1",
    "kind": "LimitRange",
    "metadata": {"name": "pod-max", "namespace": NS},
    "spec": {"limits": [{"type": "Pod", "max": {"memory": "200Mi"}}]},
}
QUOTA = {
    "apiVersion": "v1",
    "kind": "ResourceQuota",
    "metadata": {"name": "shop-quota", "namespace": NS},
    "spec": {"hard": {"limits.memory": "200Mi"}},
    "status": {"hard": {"limits.memory": "200Mi"}, "used": {"limits.memory": "0"}},
}


def _base(cpu: str = "4") -> list[Json]:
    return [
        {"apiVersion": "v1", "kind": "Namespace",
         "metadata": {"name": NS, "labels": {"kubernetes.io/metadata.name": NS}}},
        {"apiVersion": "v1", "kind": "Node",
         "metadata": {"name": "worker-1", "labels": {"kubernetes.io/hostname": "worker-1"}},
         "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}},
        {"apiVersion": "apps/v1", "kind": "ReplicaSet",
         "metadata": {"name": "web-5d8f", "namespace": NS, "uid": "uid-rs", "ownerReferences": [
             {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "uid-d", "controller": True}]},
         "spec": {"selector": {"matchLabels": {"app": "web"}}}},
    ]  # fmt: skip


def _snapshot(tmp_path: Path, *objects: Json, cpu: str = "4") -> Snapshot:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [*_base(cpu), *objects]}))
    return FileSource([str(path)], complete=True).load()


def _container(name: str, requests: Json, limits: Json | None = None) -> Json:
    resources: Json = {"requests": requests}
    if limits:
        resources["limits"] = limits
    return {"name": name, "image": f"registry.example.com/{name}:1", "resources": resources}


def _pod(*containers: Json, labels: dict[str, str] | None = None) -> Json:
    return {
        "metadata": {
            "name": "web-5d8f-x7k2p",
            "namespace": NS,
            "labels": {"app": "web", "pod-template-hash": "5d8f", **(labels or {})},
            "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d8f", "uid": "uid-rs", "controller": True}
            ],
        },
        "spec": {"containers": list(containers)},
    }


def _refused(snapshot: Snapshot, raw: Json) -> RefusedPod:
    """RAW as its controller makes it, and the policy's refusal of it (admitted on copies)."""
    pod = msgspec.convert(raw, o.Pod)
    scratch = records.replace(snapshot, resource_quotas=copy.deepcopy(snapshot.resource_quotas))
    with pytest.raises(AdmissionRefusalError) as refused:
        admit(copy.deepcopy(pod), scratch, NS, DEFAULT, raw_spec=copy.deepcopy(raw["spec"]))
    assert refused.value.denied is not None, refused.value.words
    return RefusedPod(pod, raw["spec"], refused.value.denied, refused.value.words)


def _fixes(snapshot: Snapshot, raw: Json) -> PolicyFixes:
    return PolicyVerifier(snapshot, DEFAULT, default_config()).fixes(_refused(snapshot, raw))


WEB_LIMIT = ContainerResource("web", "limits", "memory")
REQUEST_256 = _container("web", {"cpu": "500m", "memory": "256Mi"})


def test_a_missing_limit_is_set_from_the_request_and_verified(tmp_path: Path) -> None:
    snapshot = _snapshot(tmp_path, *MEMORY_LIMITS)
    fixes = _fixes(snapshot, _pod(REQUEST_256))
    assert fixes.notes == ()
    (found,) = fixes.suggestions
    assert found.change == SatisfyPolicy(
        kind="Deployment",
        namespace=NS,
        name="web",
        policy="require-memory-limits",
        validation=0,
        sets=(FieldSet(WEB_LIMIT, "256Mi", ValueFrom.OWN_REQUEST),),
        verdict=Verdict.SCHEDULABLE,
    )
    assert found.kind == "satisfyPolicy" and found.nodes == ["worker-1"]
    assert command_text(found.command) == (
        "kubectl patch deployment web -n shop --type strategic -p "
        """'{"spec":{"template":{"spec":{"containers":[{"name":"web","resources":{"limits":{"memory":"256Mi"}}}]}}}}'"""
    )
    (patch,) = found.patches
    assert patch["kind"] == "Deployment" and patch["name"] == "web"
    (container,) = patch["patch"]["spec"]["template"]["spec"]["containers"]
    assert container["resources"] == {"requests": {"cpu": "500m", "memory": "256Mi"}, "limits": {"memory": "256Mi"}}
    assert suggestion_text(found) == (
        "satisfy ValidatingAdmissionPolicy 'require-memory-limits' (spec.validations[0]) in the pod template of "
        "Deployment shop/web: set resources.limits.memory of container web to 256Mi (its memory request); the API "
        "server's admission, run again, then admits its pods, and such a pod fits on worker-1"
    )


@pytest.mark.parametrize(
    ("objects", "pod", "plugin", "words"),
    [
        # The limit taken from the request passes the policy, and a LimitRange's Pod max then refuses it.
        (
            [*MEMORY_LIMITS, POD_MAX],
            _pod(_container("app", {"memory": "10Mi"}, {"memory": "100Mi"}), _container("web", {"memory": "150Mi"})),
            "LimitRanger",
            # (The Pod's total as podwhy's LimitRanger writes it; upstream keeps the format: 250Mi.)
            'pods "web-5d8f-x7k2p" is forbidden: maximum memory usage per Pod is 200Mi, but limit is ',
        ),
        # ResourceQuota: the namespace's limits.memory left (200Mi) holds no 256Mi limit.
        (
            [*MEMORY_LIMITS, QUOTA],
            _pod(REQUEST_256),
            "ResourceQuota",
            'pods "web-5d8f-x7k2p" is forbidden: exceeded quota: shop-quota, requested: limits.memory=256Mi, '
            "used: limits.memory=0, limited: limits.memory=200Mi",
        ),
        # The bound the policy compares with is below the request: the pod is then invalid.
        (
            AT_MOST_1GI,
            _pod(_container("web", {"memory": "1536Mi"}, {"memory": "2Gi"})),
            "validation",
            'Pod "web-5d8f-x7k2p" is invalid: spec.containers[0].resources.requests: Invalid value: "1536Mi": '
            "must be less than or equal to memory limit of 1Gi",
        ),
    ],
)
def test_a_change_admission_then_refuses_is_not_offered(
    tmp_path: Path, objects: list[Json], pod: Json, plugin: str, words: str
) -> None:
    """WORDS: the API server's refusal (its beginning)."""
    snapshot = _snapshot(tmp_path, *objects)
    used = [dict(q.status.used) for q in snapshot.resource_quotas]
    fixes = _fixes(snapshot, pod)
    assert fixes.suggestions == ()
    (note,) = fixes.notes
    assert isinstance(note, PolicyFixRefused) and note.plugin == plugin and note.words.startswith(words)
    assert f"but the API server then refuses the pod ({plugin}): {words}" in policy_note_text(note)
    # Verifying charged copies: the snapshot's quotas are as they were.
    assert [dict(q.status.used) for q in snapshot.resource_quotas] == used


def test_a_label_takes_the_first_value_the_policy_lists(tmp_path: Path) -> None:
    (found,) = _fixes(_snapshot(tmp_path, *TEAM_IN), _pod(REQUEST_256)).suggestions
    assert isinstance(found.change, SatisfyPolicy)
    assert found.change.sets == (FieldSet(MetadataKey("labels", "team"), "payments", ValueFrom.POLICY_VALUES),)
    assert '-p \'{"spec":{"template":{"metadata":{"labels":{"team":"payments"}}}}}\'' in found.command.line
    assert found.patches[0]["patch"] == {"spec": {"template": {"metadata": {"labels": {"team": "payments"}}}}}


def test_a_label_tested_only_for_presence_is_named_not_set(tmp_path: Path) -> None:
    fixes = _fixes(_snapshot(tmp_path, *TEAM_HAS), _pod(REQUEST_256))
    assert fixes.suggestions == ()
    assert fixes.notes == (PolicyValuesUnknown("require-team", 0, (FieldUnset(MetadataKey("labels", "team")),)),)
    assert policy_note_text(fixes.notes[0]) == (
        "ValidatingAdmissionPolicy 'require-team' (spec.validations[0]) requires label team: podwhy cannot tell the "
        "value to set; set it in the pod template (not a verified suggestion)"
    )


def test_each_policy_the_changed_pod_meets_is_satisfied_in_turn(tmp_path: Path) -> None:
    fixes = _fixes(_snapshot(tmp_path, *MEMORY_LIMITS, *TEAM_IN), _pod(REQUEST_256))
    (found,) = fixes.suggestions
    assert isinstance(found.change, SatisfyPolicy)
    assert found.change.policy == "require-memory-limits" and found.change.also == ("require-team",)
    assert [s.field for s in found.change.sets] == [WEB_LIMIT, MetadataKey("labels", "team")]
    assert "; it satisfies ValidatingAdmissionPolicy 'require-team' too;" in suggestion_text(found)


def test_a_limit_above_the_policy_s_bound_is_lowered_to_it(tmp_path: Path) -> None:
    pod = _pod(_container("web", {"memory": "512Mi"}, {"memory": "2Gi"}))
    (found,) = _fixes(_snapshot(tmp_path, *AT_MOST_1GI), pod).suggestions
    assert isinstance(found.change, SatisfyPolicy)
    assert found.change.sets == (FieldSet(WEB_LIMIT, "1Gi", ValueFrom.POLICY_BOUND),)


def test_a_pod_created_that_then_fits_nowhere_is_said_so(tmp_path: Path) -> None:
    pod = _pod(_container("web", {"cpu": "8", "memory": "256Mi"}))
    (found,) = _fixes(_snapshot(tmp_path, *MEMORY_LIMITS), pod).suggestions
    assert isinstance(found.change, SatisfyPolicy)
    assert found.change.verdict == Verdict.UNSCHEDULABLE and found.nodes == []
    assert "Insufficient cpu" in found.change.message
    assert ", but such a pod then stays Pending: 0/1 nodes are available: 1 Insufficient cpu." in suggestion_text(found)


def test_a_refusal_not_about_the_pod_s_fields_gets_nothing(tmp_path: Path) -> None:
    """A validation that does not compile refuses every pod: nothing of the pod's to change, no note."""
    assert not _fixes(_snapshot(tmp_path, *COMPILE_ERROR), _pod(REQUEST_256))
