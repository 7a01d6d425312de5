"""Reading the API server's admission configuration (issue 38, docs/policies.md):
ValidatingAdmissionPolicies, MutatingAdmissionPolicies, their bindings and the webhook
configurations from `kubectl get -o yaml|json` dumps, with v1's defaults (SetDefaults_* of
pkg/apis/admissionregistration/v1) where a dump leaves a field out; every version a release serves
read alike; a version podwhy cannot read, or a malformed object, refused in one line; a dump
without any changes nothing."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from podwhy.errors import PodwhyError
from podwhy.model import objects as o
from podwhy.snapshot.apiversions import read_versions
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.resources import ADMISSION_RESOURCES, admission_dump_command
from podwhy.snapshot.source import VOUCHED_KINDS, FileSource
from tests.apiserver import load_objects
from tests.paths import REPO

FIXTURE = REPO / "fixtures" / "admission" / "cluster.yaml"
ADMISSION_FIELDS = (
    "validating_admission_policies",
    "validating_admission_policy_bindings",
    "mutating_admission_policies",
    "mutating_admission_policy_bindings",
    "validating_webhook_configurations",
    "mutating_webhook_configurations",
)
_ADM = "admissionregistration.k8s.io"


def _load(*paths: Path | str, stdin: bytes | None = None) -> Snapshot:
    source = FileSource([str(p) for p in paths], stdin=io.BytesIO(stdin) if stdin is not None else None)
    return source.load()


def admission(snapshot: Snapshot) -> dict[str, Any]:
    return {name: getattr(snapshot, name) for name in ADMISSION_FIELDS}


def _write(path: Path, docs: list[dict[str, Any]] | dict[str, Any], as_json: bool = False) -> Path:
    if as_json:
        path.write_text(json.dumps(docs))
    elif isinstance(docs, list):
        path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    else:
        path.write_text(yaml.safe_dump(docs, sort_keys=False))
    return path


def _fixture_object(kind: str, name: str) -> dict[str, Any]:
    (obj,) = [x for x in load_objects(FIXTURE) if x["kind"] == kind and x["metadata"]["name"] == name]
    return copy.deepcopy(obj)


# ------------------------------------------------------------------ the fixture


def test_the_fixture_reads_every_kind_with_the_fields_matching_and_evaluation_read() -> None:
    snapshot = _load(FIXTURE)
    policy = snapshot.validating_admission_policies["require-resource-limits"]
    spec = policy.spec
    assert spec.failure_policy == o.FAIL
    constraints = spec.match_constraints
    assert constraints is not None and constraints.match_policy == o.EQUIVALENT
    assert [(r.api_groups, r.resources, r.operations) for r in constraints.resource_rules] == [
        ([""], ["pods"], ["CREATE", "UPDATE"]),
        (["apps"], ["deployments"], ["CREATE", "UPDATE"]),
    ]
    first, second = spec.validations
    assert first.message == "Memory limits are required for all containers." and first.reason is None
    assert second.message_expression.startswith("'image ' + ") and second.reason == "Forbidden"
    assert spec.audit_annotations == [
        o.AuditAnnotation(key="containers", value_expression="string(size(object.spec.containers))")
    ]
    assert spec.match_conditions == [
        o.MatchCondition(name="not-kube-system", expression="request.namespace != 'kube-system'")
    ]
    assert spec.variables == [o.Variable(name="containers", expression="object.spec.containers")]
    binding = snapshot.validating_admission_policy_bindings["require-resource-limits-binding"]
    assert binding.spec.policy_name == "require-resource-limits" and binding.spec.validation_actions == ["Deny"]
    assert binding.spec.match_resources is not None
    assert binding.spec.match_resources.namespace_selector.match_labels == {"environment": "production"}
    params = snapshot.validating_admission_policy_bindings["max-replicas-shop"].spec
    assert params.param_ref == o.ParamRef(name="replica-limits", namespace="shop", parameter_not_found_action="Deny")
    assert params.validation_actions == ["Warn", "Audit"]
    assert snapshot.validating_admission_policies["max-replicas"].spec.param_kind == o.ParamKind(
        api_version="v1", kind="ConfigMap"
    )
    mutating = snapshot.mutating_admission_policies["add-team-label"].spec
    assert [m.patch_type for m in mutating.mutations] == ["ApplyConfiguration", "JSONPatch"]
    assert mutating.mutations[0].apply_configuration is not None and mutating.mutations[1].json_patch is not None
    assert mutating.mutations[1].json_patch.expression.startswith("[JSONPatch{op: 'add'")
    assert mutating.reinvocation_policy == "Never"
    assert snapshot.mutating_admission_policy_bindings["add-team-label-binding"].spec.policy_name == "add-team-label"
    (kyverno,) = snapshot.validating_webhook_configurations["kyverno-resource-validating-webhook-cfg"].webhooks
    assert kyverno.name == "validate.kyverno.svc-fail" and kyverno.side_effects == "NoneOnDryRun"
    assert kyverno.client_config.service == o.ServiceReference(
        namespace="kyverno", name="kyverno-svc", path="/validate/fail", port=443
    )
    assert {"ValidatingAdmissionPolicy", "MutatingWebhookConfiguration"} <= snapshot.kinds_seen
    assert snapshot.api_versions["MutatingAdmissionPolicy"] == {f"{_ADM}/v1beta1"}


def test_what_a_manifest_leaves_out_reads_as_v1_defaults_it() -> None:
    """SetDefaults_ValidatingWebhook, _MutatingWebhook, _Rule, _ServiceReference,
    _ValidatingAdmissionPolicySpec, _MatchResources (pkg/apis/admissionregistration/v1/defaults.go)."""
    snapshot = _load(FIXTURE)
    (cert_manager,) = snapshot.mutating_webhook_configurations["cert-manager-webhook"].webhooks
    assert (cert_manager.failure_policy, cert_manager.match_policy) == ("Fail", "Equivalent")
    assert cert_manager.namespace_selector == o.LabelSelector() == cert_manager.object_selector
    assert cert_manager.timeout_seconds == 10 and cert_manager.reinvocation_policy == "Never"
    assert cert_manager.client_config.service is not None and cert_manager.client_config.service.port == 443
    assert cert_manager.rules[0].scope == "*"
    policy = snapshot.validating_admission_policies["max-replicas"].spec
    assert policy.failure_policy == "Fail"
    assert policy.match_constraints is not None
    assert policy.match_constraints.match_policy == "Equivalent"
    assert policy.match_constraints.namespace_selector == o.LabelSelector()
    (excluded,) = policy.match_constraints.exclude_resource_rules
    assert excluded.resource_names == ["legacy"] and excluded.scope == "*"
    # A binding without matchResources stays without: it matches whatever its policy matches.
    assert snapshot.validating_admission_policy_bindings["max-replicas-shop"].spec.match_resources is None
    # A policy without matchConstraints (the API server refuses one) reads as such: it matches nothing.
    assert o.ValidatingAdmissionPolicySpec().match_constraints is None


@pytest.mark.parametrize("as_json", [False, True])
def test_yaml_and_json_dumps_read_alike(tmp_path: Path, as_json: bool) -> None:
    objects = load_objects(FIXTURE)
    written = _write(
        tmp_path / ("dump.json" if as_json else "dump.yaml"),
        {"apiVersion": "v1", "kind": "List", "items": objects},
        as_json,
    )
    assert admission(_load(written)) == admission(_load(FIXTURE))
    # One object per document, and from stdin.
    documents = _write(tmp_path / "docs.yaml", objects)
    assert admission(_load(documents)) == admission(_load(FIXTURE))
    assert admission(_load("-", stdin=documents.read_bytes())) == admission(_load(FIXTURE))


def test_the_kinds_are_cluster_scoped_and_filed_by_name() -> None:
    for kind in o.ADMISSION_KINDS:
        assert kind in o.CLUSTER_SCOPED_KINDS and o.KINDS[kind].indexing is o.Indexing.BY_NAME


# ------------------------------------------------------------------ versions


@pytest.mark.parametrize("version", ["v1", "v1beta1", "v1alpha1"])
@pytest.mark.parametrize(
    ("kind", "name"),
    [("MutatingAdmissionPolicy", "add-team-label"), ("ValidatingAdmissionPolicy", "require-resource-limits")],
)
def test_every_served_policy_version_reads_as_one_shape(tmp_path: Path, version: str, kind: str, name: str) -> None:
    obj = _fixture_object(kind, name)
    obj["apiVersion"] = f"{_ADM}/{version}"
    snapshot = _load(_write(tmp_path / "p.yaml", obj))
    field = "mutating_admission_policies" if kind.startswith("Mutating") else "validating_admission_policies"
    assert getattr(snapshot, field)[name] == getattr(_load(FIXTURE), field)[name]
    assert snapshot.api_versions[kind] == {f"{_ADM}/{version}"}


def test_v1alpha1_bindings_default_parameter_not_found_action_to_deny(tmp_path: Path) -> None:
    """v1alpha1's SetDefaults_ParamRef (later versions require the field)."""
    docs = []
    for kind in ("ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicyBinding"):
        for version in ("v1alpha1", "v1beta1"):
            docs.append(
                {
                    "apiVersion": f"{_ADM}/{version}",
                    "kind": kind,
                    "metadata": {"name": f"{kind.lower()}-{version}"},
                    "spec": {"policyName": "p", "paramRef": {"name": "limits"}},
                }
            )
    snapshot = _load(_write(tmp_path / "b.yaml", docs))
    bindings = {**snapshot.validating_admission_policy_bindings, **snapshot.mutating_admission_policy_bindings}
    actions = {name: b.spec.param_ref.parameter_not_found_action for name, b in bindings.items() if b.spec.param_ref}
    assert actions == {
        "validatingadmissionpolicybinding-v1alpha1": "Deny",
        "validatingadmissionpolicybinding-v1beta1": None,
        "mutatingadmissionpolicybinding-v1alpha1": "Deny",
        "mutatingadmissionpolicybinding-v1beta1": None,
    }


def test_v1beta1_webhook_configurations_are_refused_in_one_line(tmp_path: Path) -> None:
    obj = _fixture_object("ValidatingWebhookConfiguration", "gatekeeper-validating-webhook-configuration")
    obj["apiVersion"] = f"{_ADM}/v1beta1"
    path = _write(tmp_path / "w.yaml", obj)
    with pytest.raises(PodwhyError) as err:
        _load(path)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(
        f"{path}: document 1 (ValidatingWebhookConfiguration 'gatekeeper-validating-webhook-configuration'): "
        "admissionregistration.k8s.io/v1beta1 webhook configurations are served by Kubernetes 1.21 and older only"
    )


def test_the_versions_read_are_listed_newest_first() -> None:
    for kind in ("ValidatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"):
        assert read_versions(kind) == [f"{_ADM}/v1", f"{_ADM}/v1beta1", f"{_ADM}/v1alpha1"]
    assert read_versions("ValidatingWebhookConfiguration") == [f"{_ADM}/v1"]


# ------------------------------------------------------------------ malformed objects


@pytest.mark.parametrize(
    ("kind", "name", "edit", "field"),
    [
        (
            "ValidatingAdmissionPolicy",
            "require-resource-limits",
            lambda o: o["spec"]["validations"][0].update(expression=["size(x)"]),
            "$.spec.validations[0].expression",
        ),
        (
            "ValidatingAdmissionPolicyBinding",
            "require-resource-limits-binding",
            lambda o: o["spec"].update(validationActions="Deny"),
            "$.spec.validationActions",
        ),
        (
            "ValidatingWebhookConfiguration",
            "kyverno-resource-validating-webhook-cfg",
            lambda o: o["webhooks"][0].update(timeoutSeconds=2**31),
            "$.webhooks[0].timeoutSeconds",
        ),
        (
            "MutatingAdmissionPolicy",
            "add-team-label",
            lambda o: o["spec"]["matchConstraints"]["resourceRules"][0].update(resources="pods"),
            "$.spec.matchConstraints.resourceRules[0].resources",
        ),
    ],
)
@pytest.mark.parametrize("as_json", [False, True])
def test_a_malformed_object_is_one_line_naming_file_object_and_field(
    tmp_path: Path, kind: str, name: str, edit: Any, field: str, as_json: bool
) -> None:
    obj = _fixture_object(kind, name)
    edit(obj)
    path = _write(
        tmp_path / ("bad.json" if as_json else "bad.yaml"),
        {"apiVersion": "v1", "kind": "List", "items": [obj]},
        as_json,
    )
    with pytest.raises(PodwhyError) as err:
        _load(path)
    message = str(err.value)
    assert "\n" not in message and "Traceback" not in message
    label = kind if as_json else f"{kind} {name!r}"
    assert message.startswith(f"{path}: items[0] ({label}) is invalid: ")
    assert message.endswith(f"at `{field}`")


# ------------------------------------------------------------------ a dump without any


def test_a_dump_without_admission_objects_names_none_missing(tmp_path: Path) -> None:
    objects = [x for x in load_objects(FIXTURE) if not x["apiVersion"].startswith(_ADM)]
    snapshot = _load(_write(tmp_path / "plain.yaml", {"apiVersion": "v1", "kind": "List", "items": objects}))
    assert not snapshot.missing.keys() & o.ADMISSION_KINDS.keys()
    assert all(not value for value in admission(snapshot).values())
    assert not VOUCHED_KINDS & o.ADMISSION_KINDS.keys()


def test_the_dump_command_lists_every_admission_kind() -> None:
    assert {r.kind for r in ADMISSION_RESOURCES} == set(o.ADMISSION_KINDS)
    command = admission_dump_command()
    assert command == (
        "kubectl get validatingadmissionpolicies.admissionregistration.k8s.io,"
        "validatingadmissionpolicybindings.admissionregistration.k8s.io,"
        "mutatingadmissionpolicies.admissionregistration.k8s.io,"
        "mutatingadmissionpolicybindings.admissionregistration.k8s.io,"
        "validatingwebhookconfigurations.admissionregistration.k8s.io,"
        "mutatingwebhookconfigurations.admissionregistration.k8s.io -o yaml"
    )
    assert command in (REPO / "docs" / "complete.md").read_text()
