"""The API server's validation of an object's metadata (cluster/apiserver/validation/objectmeta.py: ValidateObjectMeta,
ValidateAnnotations, NameIsDNSSubdomain), after upstream's
staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta_test.go (TestValidateAnnotations,
TestValidateObjectMetaTrimsTrailingDash, TestValidateObjectMetaNamespaces) and
pkg/apis/core/validation's ValidatePodName; and `explain -f` and `check -f` refusing a pod or a
workload the API server would refuse for its name, labels or annotations."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.cluster.apiserver.validation.objectmeta import (
    TOTAL_ANNOTATION_SIZE_LIMIT,
    annotations_errors,
    name_is_dns_subdomain,
    object_meta_errors,
)
from podwhy.model import objects as o

LIMIT = TOTAL_ANNOTATION_SIZE_LIMIT
BAD_SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)

# TestValidateAnnotations' successCases.
GOOD_ANNOTATIONS = [
    {"simple": "bar"},
    {"now-with-dashes": "bar"},
    {"1-starts-with-num": "bar"},
    {"1234": "bar"},
    {"simple/simple": "bar"},
    {"now-with-dashes/simple": "bar"},
    {"now-with-dashes/now-with-dashes": "bar"},
    {"now.with.dots/simple": "bar"},
    {"now-with.dashes-and.dots/simple": "bar"},
    {"1-num.2-num/3-num": "bar"},
    {"1234/5678": "bar"},
    {"1.2.3.4/5678": "bar"},
    {"UpperCase123": "bar"},
    {"a": "b" * (LIMIT - 1)},
    {"a": "b" * (LIMIT // 2 - 1), "c": "d" * (LIMIT // 2 - 1)},
]


@pytest.mark.parametrize("annotations", GOOD_ANNOTATIONS, ids=range(len(GOOD_ANNOTATIONS)))
def test_valid_annotations(annotations: dict[str, str]) -> None:
    assert annotations_errors(annotations, "field") == []


# TestValidateAnnotations' nameErrorCases and totalSizeErrorCases: one error each, its detail.
BAD_ANNOTATIONS = [
    ({"nospecialchars^=@": "bar"}, "name part must consist of alphanumeric characters"),
    ({"cantendwithadash-": "bar"}, "name part must consist of alphanumeric characters"),
    ({"only/one/slash": "bar"}, "a valid label key must consist of"),
    ({"a" * 254: "bar"}, "name part must be no more than 63 bytes"),
    ({"a": "b" * LIMIT}, "field: Too long: may not be more than 262144 bytes"),
    ({"a": "b" * (LIMIT // 2), "c": "d" * (LIMIT // 2)}, "field: Too long: may not be more than 262144 bytes"),
]


@pytest.mark.parametrize(("annotations", "detail"), BAD_ANNOTATIONS, ids=range(len(BAD_ANNOTATIONS)))
def test_invalid_annotations(annotations: dict[str, str], detail: str) -> None:
    errors = annotations_errors(annotations, "field")
    assert len(errors) == 1 and detail in errors[0]


def test_a_generate_name_may_end_with_a_dash() -> None:
    """TestValidateObjectMetaTrimsTrailingDash."""
    meta = o.ObjectMeta(name="test", generate_name="foo-")
    assert object_meta_errors(meta, name_is_dns_subdomain, "field") == []


def test_namespaces() -> None:
    """TestValidateObjectMetaNamespaces: a namespace is a DNS label (IsDNS1123Label's words for
    a subdomain with dots)."""
    meta = o.ObjectMeta(name="test", namespace="foo.bar")
    assert object_meta_errors(meta, name_is_dns_subdomain, "field") == [
        'field.namespace: Invalid value: "foo.bar": must not contain dots'
    ]
    meta = o.ObjectMeta(name="test", namespace="a" * 64)
    assert len(object_meta_errors(meta, name_is_dns_subdomain, "field")) == 1


# (case, metadata, errors) of ValidateObjectMeta with ValidatePodName.
POD_META = [
    ("a DNS subdomain", o.ObjectMeta(name="web.v1-2", namespace="shop"), []),
    (
        "a capitalised name",
        o.ObjectMeta(name="Web", namespace="shop"),
        [f'metadata.name: Invalid value: "Web": {BAD_SUBDOMAIN}'],
    ),
    ("no name", o.ObjectMeta(namespace="shop"), ["metadata.name: Required value: name or generateName is required"]),
    (
        "a generateName of capitals (the generated name too)",
        o.ObjectMeta(generate_name="Web-", name="Web-abcde"),
        [
            f'metadata.generateName: Invalid value: "Web-": {BAD_SUBDOMAIN}',
            f'metadata.name: Invalid value: "Web-abcde": {BAD_SUBDOMAIN}',
        ],
    ),
    (
        "a name longer than 253 characters",
        o.ObjectMeta(name="a" * 254),
        [f'metadata.name: Invalid value: "{"a" * 254}": must be no more than 253 characters'],
    ),
    (
        "label keys and values",
        o.ObjectMeta(name="web", labels={"app": "web", "bad key": "x", "tier": "front end"}),
        [
            'metadata.labels: Invalid value: "bad key": name part must consist of alphanumeric characters, '
            "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
            "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            'metadata.labels: Invalid value: "front end": a valid label must be an empty string or consist of '
            "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
            "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ],
    ),
]


@pytest.mark.parametrize(("case", "meta", "errors"), POD_META, ids=[c[0] for c in POD_META])
def test_pod_metadata(case: str, meta: o.ObjectMeta, errors: list[str]) -> None:
    assert object_meta_errors(meta, name_is_dns_subdomain, "metadata") == errors


# ------------------------------------------------------------------ explain -f and check -f
CLUSTER = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
  status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
"""


def _run(tmp_path: Path, command: str, manifest: str) -> tuple[int, str, str]:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "m.yaml").write_text(manifest)
    args = [command, "-f", str(tmp_path / "m.yaml"), "--from", str(tmp_path / "cluster.yaml"), "--complete"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200", "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("command", ["explain", "check"])
def test_a_capitalised_pod_name_is_refused(tmp_path: Path, command: str) -> None:
    pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: Web}\nspec: {containers: [{name: c, image: x}]}\n"
    code, out, err = _run(tmp_path, command, pod)
    assert (code, out) == (3, "")
    assert err.startswith(
        f'podwhy: error: {tmp_path / "m.yaml"}: The Pod "Web" is invalid: metadata.name: Invalid value: "Web": '
        "a lowercase RFC 1123 subdomain must consist of"
    )
    assert len(err.strip().splitlines()) == 1


DEPLOYMENT = """apiVersion: apps/v1
kind: {kind}
metadata: {{name: {name}}}
spec:
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}, annotations: {{"bad/key/x": "1"}}}}
    spec: {{containers: [{{name: c, image: x}}]}}
"""


def test_a_workloads_name_and_its_templates_annotations_are_validated(tmp_path: Path) -> None:
    code, out, err = _run(tmp_path, "check", DEPLOYMENT.format(kind="Deployment", name="Web"))
    assert (code, out) == (3, "")
    assert f'The Deployment "Web" is invalid: [metadata.name: Invalid value: "Web": {BAD_SUBDOMAIN}, ' in err
    assert 'spec.template.annotations: Invalid value: "bad/key/x": a valid label key must consist of' in err


def test_a_statefulsets_name_is_a_dns_label(tmp_path: Path) -> None:
    manifest = DEPLOYMENT.format(kind="StatefulSet", name="web.v1").replace(', annotations: {"bad/key/x": "1"}', "")
    code, out, err = _run(tmp_path, "check", manifest)
    assert (code, out) == (3, "")
    assert 'The StatefulSet "web.v1" is invalid: metadata.name: Invalid value: "web.v1": must not contain dots (' in err


@pytest.mark.parametrize("minor", [33, 34, 35, 36])
def test_label_words_per_release(minor: int) -> None:
    """v1.35 moved label validation to apimachinery's validate/content: "a valid label key" and
    lengths in bytes; v1.33 and v1.34 say IsQualifiedName's "a qualified name" and "characters"
    (util/validation). DNS names say "characters" in every release."""
    from podwhy.cluster.apiserver.validation.objectmeta import in_release_words
    from podwhy.features.emulation import EMULATED

    meta = o.ObjectMeta(name="web", labels={"a/b/c": "x", "k": "v" * 64})
    errors = in_release_words(object_meta_errors(meta, name_is_dns_subdomain, "metadata"), EMULATED[minor])
    old = minor < 35
    assert errors[0].startswith(
        'metadata.labels: Invalid value: "a/b/c": ' + ("a qualified name" if old else "a valid label key") + " must"
    )
    assert errors[1] == f'metadata.labels: Invalid value: "{"v" * 64}": must be no more than 63 ' + (
        "characters" if old else "bytes"
    )
