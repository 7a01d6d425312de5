"""Writes podwhy/cluster/apiserver/admission/policy/patch/schemas.json: the structured-merge-diff
view (kube-openapi's schemaconv) of the kinds podwhy creates, from each emulated release's
served OpenAPI v3 (api/openapi-spec/v3 of openshift/microshift's Kubernetes), every field with
the releases that serve it.

    python -m tests.cluster.apiserver.openapischemas /work/.mirror/openshift+microshift/repo
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from podwhy.cluster.apiserver.admission.policy.patch.schema import SCHEMAS_PATH

# The branch of each emulated release (CONTRIBUTING.md).
BRANCHES = {33: "release-4.20", 34: "release-4.21", 35: "release-4.22", 36: "release-5.0"}
SPEC = "deps/github.com/openshift/kubernetes/api/openapi-spec/v3/{}_openapi.json"
DOCUMENTS = {"api__v1": "", "apis__apps__v1": "apps/v1", "apis__batch__v1": "batch/v1"}
ROOTS = {
    "v1/Pod": "io.k8s.api.core.v1.Pod",
    "apps/v1/Deployment": "io.k8s.api.apps.v1.Deployment",
    "apps/v1/ReplicaSet": "io.k8s.api.apps.v1.ReplicaSet",
    "apps/v1/StatefulSet": "io.k8s.api.apps.v1.StatefulSet",
    "apps/v1/DaemonSet": "io.k8s.api.apps.v1.DaemonSet",
    "batch/v1/Job": "io.k8s.api.batch.v1.Job",
    "batch/v1/CronJob": "io.k8s.api.batch.v1.CronJob",
}
_PREFIXES = (
    ("io.k8s.api.core.v1.", ""),
    ("io.k8s.api.apps.v1.", "apps."),
    ("io.k8s.api.batch.v1.", "batch."),
    ("io.k8s.apimachinery.pkg.apis.meta.v1.", "meta."),
)
_UNTYPED = frozenset(
    {"io.k8s.apimachinery.pkg.api.resource.Quantity", "io.k8s.apimachinery.pkg.util.intstr.IntOrString"}
)


def _short(name: str) -> str:
    for prefix, short in _PREFIXES:
        if name.startswith(prefix):
            return short + name[len(prefix) :]
    return name


def _ref(prop: dict[str, Any]) -> str | None:
    if "$ref" in prop:
        return str(prop["$ref"]).rsplit("/", 1)[-1]
    all_of = prop.get("allOf")
    if all_of and len(all_of) == 1 and "$ref" in all_of[0]:
        return str(all_of[0]["$ref"]).rsplit("/", 1)[-1]
    return None


def _list_type(prop: dict[str, Any]) -> tuple[str, list[str]]:
    """getListElementRelationship."""
    kind = prop.get("x-kubernetes-list-type")
    if kind == "map":
        return "map", list(prop["x-kubernetes-list-map-keys"])
    if kind in ("atomic", "set"):
        return kind, []
    strategy = prop.get("x-kubernetes-patch-strategy")
    if strategy in ("merge", "merge,retainKeys"):
        key = prop.get("x-kubernetes-patch-merge-key")
        return ("map", [key]) if key else ("set", [])
    return "atomic", []


class _Converter:
    def __init__(self, schemas: dict[str, Any]) -> None:
        self.schemas = schemas
        self.types: dict[str, Any] = {}

    def expr(self, prop: dict[str, Any]) -> Any:
        ref = _ref(prop)
        if ref is not None:
            return self.named(ref)
        kind = prop.get("type", "")
        if kind == "array":
            list_type, keys = _list_type(prop)
            out: dict[str, Any] = {"list": self.expr(prop.get("items") or {}), "type": list_type}
            if keys:
                out["keys"] = keys
            return out
        if kind == "object":
            extra = prop.get("additionalProperties")
            element = self.expr(extra) if isinstance(extra, dict) else "deduced"
            return {"map": element, "type": prop.get("x-kubernetes-map-type", "")}
        if kind in ("string", "integer", "boolean"):
            return kind
        if kind == "number":
            return "numeric"
        return "untyped"

    def named(self, name: str) -> Any:
        if name in _UNTYPED:
            return "untyped"
        schema = self.schemas[name]
        if not schema.get("properties"):
            return self.expr({k: v for k, v in schema.items() if k != "description"} | {"type": schema.get("type", "")})
        short = _short(name)
        if short not in self.types:
            self.types[short] = {}
            fields = {f: self.expr(p) for f, p in sorted(schema["properties"].items())}
            body: dict[str, Any] = {"fields": fields}
            if schema.get("x-kubernetes-map-type") == "atomic":
                body["atomic"] = True
            defaults = {f: p["default"] for f, p in schema["properties"].items() if "default" in p and not _ref(p)}
            if defaults:
                body["defaults"] = defaults
            self.types[short] = body
        return "@" + short


def _release_types(mirror: str, branch: str) -> tuple[dict[str, Any], dict[str, str]]:
    schemas: dict[str, Any] = {}
    for document in DOCUMENTS:
        text = subprocess.run(
            ["git", f"--git-dir={mirror}", "show", f"{branch}:{SPEC.format(document)}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        schemas.update(json.loads(text)["components"]["schemas"])
    converter = _Converter(schemas)
    roots = {kind: converter.named(name)[1:] for kind, name in ROOTS.items()}
    return converter.types, roots


def _merge(per_release: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """One table: a field some release lacks carries the releases that serve it."""
    releases = sorted(per_release)
    out: dict[str, Any] = {}
    for minor in releases:
        for name, body in per_release[minor].items():
            merged = out.setdefault(name, {**body, "fields": {}})
            for field, expr in body["fields"].items():
                merged["fields"].setdefault(field, {"of": expr, "in": []})["in"].append(minor)
    for body in out.values():
        for field, entry in list(body["fields"].items()):
            body["fields"][field] = entry["of"] if entry["in"] == releases else entry
    return out


def main(mirror: str) -> None:
    per_release: dict[int, dict[str, Any]] = {}
    roots: dict[str, str] = {}
    for minor, branch in BRANCHES.items():
        per_release[minor], roots = _release_types(mirror, branch)
    types = _merge(per_release)
    lines = ["{", f'"releases": {json.dumps(sorted(BRANCHES))},', f'"roots": {json.dumps(roots)},', '"types": {']
    items = sorted(types.items())
    for i, (name, body) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        lines.append(f"{json.dumps(name)}: {json.dumps(body, sort_keys=True)}{comma}")
    lines += ["}", "}"]
    SCHEMAS_PATH.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
