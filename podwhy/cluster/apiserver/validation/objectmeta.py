"""apimachinery's validation of an object's metadata (api/validation: ValidateObjectMeta,
NameIsDNSSubdomain, NameIsDNSLabel, ValidateAnnotations) and of labels and label selectors
(apis/meta/v1/validation: ValidateLabels, ValidateLabelSelector), and the release's words for a
bad label key and a label's length.

Of the metadata, the names, the namespace, labels and annotations are checked; owner references,
finalizers and managed fields are not."""

from __future__ import annotations

import re
from collections.abc import Callable

from podwhy.cluster.apiserver.validation.invalid import invalid_named
from podwhy.features.emulation import Emulation
from podwhy.helpers.fielderrors import child, forbidden, index, invalid, required, validate_label_name
from podwhy.helpers.namevalidation import (
    dns1123_label_errors,
    dns1123_subdomain_errors,
    label_key_errors,
    label_value_errors,
)
from podwhy.model import objects as o

# apimachinery's TotalAnnotationSizeLimitB: the annotations' keys and values together, in bytes.
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * (1 << 10)


def _mask_trailing_dash(name: str) -> str:
    """maskTrailingDash, as upstream writes it: a trailing dash, and the character before it,
    become one 'a'."""
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


def name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    """NameIsDNSSubdomain: a name (or, PREFIX, a generateName) a lowercase RFC 1123 subdomain."""
    return dns1123_subdomain_errors(_mask_trailing_dash(name) if prefix else name)


def name_is_dns_label(name: str, prefix: bool) -> list[str]:
    """NameIsDNSLabel (StatefulSets' names, namespaces)."""
    return dns1123_label_errors(_mask_trailing_dash(name) if prefix else name)


def annotations_errors(annotations: dict[str, str], path: str) -> list[str]:
    """ValidateAnnotations: every key a qualified name once lowercased (shown as written), and
    the keys and values together at most 256 KiB."""
    errs: list[str] = []
    for name in annotations:
        errs += [invalid(path, name, m) for m in label_key_errors(name.lower())]
    size = sum(len(k.encode()) + len(v.encode()) for k, v in annotations.items())
    if size > TOTAL_ANNOTATION_SIZE_LIMIT:
        errs.append(f"{path}: Too long: may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes")
    return errs


def object_meta_errors(meta: o.ObjectMeta, name_fn: Callable[[str, bool], list[str]], path: str) -> list[str]:
    """ValidateObjectMeta of a namespaced object: generateName (as a prefix), the name (required),
    the namespace (a DNS label; the one kubectl sends when the manifest names none), labels and
    annotations. Owner references, finalizers and managed fields are not checked."""
    errs: list[str] = []
    if meta.generate_name:
        errs += [invalid(child(path, "generateName"), meta.generate_name, m) for m in name_fn(meta.generate_name, True)]
    if not meta.name:
        errs.append(required(child(path, "name"), "name or generateName is required"))
    else:
        errs += [invalid(child(path, "name"), meta.name, m) for m in name_fn(meta.name, False)]
    if meta.namespace:
        errs += [invalid(child(path, "namespace"), meta.namespace, m) for m in name_is_dns_label(meta.namespace, False)]
    errs += labels_errors(meta.labels, child(path, "labels"))
    errs += annotations_errors(meta.annotations, child(path, "annotations"))
    return errs


def labels_errors(labels: dict[str, str], path: str) -> list[str]:
    """metav1validation.ValidateLabels: every key a qualified name, every value a label value."""
    errs: list[str] = []
    for name, value in labels.items():
        errs += validate_label_name(name, path)
        errs += [invalid(path, value, m) for m in label_value_errors(value)]
    return errs


def label_selector_errors(selector: o.LabelSelector | None, path: str) -> list[str]:
    """metav1validation.ValidateLabelSelector (label values checked, as on create)."""
    if selector is None:
        return []
    errs = labels_errors(selector.match_labels, child(path, "matchLabels"))
    for i, req in enumerate(selector.match_expressions):
        req_path = index(child(path, "matchExpressions"), i)
        values_path = child(req_path, "values")
        if req.operator in ("In", "NotIn"):
            if not req.values:
                errs.append(required(values_path, "must be specified when `operator` is 'In' or 'NotIn'"))
        elif req.operator in ("Exists", "DoesNotExist"):
            if req.values:
                errs.append(
                    forbidden(values_path, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
                )
        else:
            errs.append(invalid_named(child(req_path, "operator"), req.operator, "not a valid selector operator"))
        errs += validate_label_name(req.key, child(req_path, "key"))
        for j, value in enumerate(req.values):
            errs += [invalid(index(values_path, j), value, m) for m in label_value_errors(value)]
    return errs


_LABEL_LENGTH = re.compile(r"(?<=must be no more than )(\d+) bytes")


def in_release_words(errors: list[str], emulation: Emulation) -> list[str]:
    """ERRORS as the release's API server words a bad label key and a label's length (the model
    words them as v1.35 and later do)."""
    if emulation.label_key_words == "a valid label key" and emulation.label_length_unit == "bytes":
        return errors
    out = []
    for error in errors:
        error = error.replace(": a valid label key must consist", f": {emulation.label_key_words} must consist")
        out.append(_LABEL_LENGTH.sub(rf"\1 {emulation.label_length_unit}", error))
    return out
