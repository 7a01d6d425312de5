"""The API server's CEL environment for admission policies (k8s.io/apiserver/pkg/admission/plugin/cel
and pkg/cel/environment): the variables an expression may name, the libraries it may call, the
runtime cost limits, and an expression compiled as the API server compiles it, its compile error
worded as the API server reports it."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from podwhy.cel.checker import literal_type
from podwhy.cel.errors import CelCompileError, CelProgramError
from podwhy.cel.interpreter import PER_CALL_LIMIT, Program
from podwhy.cel.library import mutation
from podwhy.cel.library.format import BASE_FORMATS, Format, format_functions
from podwhy.cel.nodes import Cond, ListLit, Lit, Node, StructLit
from podwhy.cel.values import Unevaluated
from podwhy.helpers import namevalidation as nv

# k8s.io/apiserver/pkg/apis/cel/config.go: the limit of one evaluation (set as the environment's
# cel.CostLimit), the budget of all a policy's expressions on one request, and of its
# matchConditions; a messageExpression's result past MAX_MESSAGE_BYTES is not used.
PER_CALL_COST_LIMIT = PER_CALL_LIMIT
RUNTIME_COST_BUDGET = 10_000_000
RUNTIME_COST_BUDGET_MATCH_CONDITIONS = 2_500_000
MAX_MESSAGE_BYTES = 5 * 1024

OBJECT = "object"
OLD_OBJECT = "oldObject"
REQUEST = "request"
PARAMS = "params"
NAMESPACE_OBJECT = "namespaceObject"
AUTHORIZER = "authorizer"
VARIABLES = "variables"


def _mask_trailing_dash(name: str) -> str:
    """apimachinery's maskTrailingDash: a prefix may end in "-" (generateName)."""
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


_DNS1035_RE_TEXT = "[a-z]([-a-z0-9]*[a-z0-9])?"


def _dns1035_label_errors(value: str) -> list[str]:
    """IsDNS1035Label."""
    errs: list[str] = []
    if len(value) > nv.DNS1123_LABEL_MAX_LENGTH:
        errs.append(f"must be no more than {nv.DNS1123_LABEL_MAX_LENGTH} characters")
    if re.fullmatch(_DNS1035_RE_TEXT, value) is None:
        errs.append(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
            "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
            f"regex used for validation is '{_DNS1035_RE_TEXT}')"
        )
    return errs


def _qualified_name_errors(value: str) -> list[str]:
    """IsQualifiedName: as for a label key, but "a qualified name" when it has two slashes."""
    return [e.replace("a valid label key ", "a qualified name ", 1) for e in nv.label_key_errors(value)]


def _prefixed(validate: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
    return lambda value: validate(_mask_trailing_dash(value))


# ConstantFormats (k8s.io/apiserver/pkg/cel/library/format.go), by CEL name.
FORMATS: dict[str, Format] = {
    "dns1123Label": Format("DNS1123Label", nv.dns1123_label_errors),
    "dns1123Subdomain": Format("DNS1123Subdomain", nv.dns1123_subdomain_errors),
    "dns1035Label": Format("DNS1035Label", _dns1035_label_errors),
    "qualifiedName": Format("QualifiedName", _qualified_name_errors),
    "dns1123LabelPrefix": Format("DNS1123LabelPrefix", _prefixed(nv.dns1123_label_errors)),
    "dns1123SubdomainPrefix": Format("DNS1123SubdomainPrefix", _prefixed(nv.dns1123_subdomain_errors)),
    "dns1035LabelPrefix": Format("DNS1035LabelPrefix", _prefixed(_dns1035_label_errors)),
    "labelValue": Format("LabelValue", nv.label_value_errors),
    **BASE_FORMATS,
}
FUNCTIONS: Mapping[str, Callable[..., Any]] = format_functions(FORMATS)
# A mutation's expressions also have the jsonpatch library (hasPatchTypes).
PATCH_FUNCTIONS: Mapping[str, Callable[..., Any]] = {**FUNCTIONS, **mutation.FUNCTIONS}


class CompiledExpression(msgspec.Struct, frozen=True):
    """An expression compiled, or the error the API server gives when evaluating it."""

    expression: str
    program: Program | None
    error: str = ""


def declarations(has_params: bool, has_authorizer: bool, has_variables: bool) -> frozenset[str]:
    """The variables of the environment (OptionalVariableDeclarations, and the composition's `variables`)."""
    names = {OBJECT, OLD_OBJECT, REQUEST, NAMESPACE_OBJECT}
    if has_params:
        names.add(PARAMS)
    if has_authorizer:
        names.add(AUTHORIZER)
    if has_variables:
        names.add(VARIABLES)
    return frozenset(names)


def compile_expression(expression: str, declared: frozenset[str], returns: str = "") -> CompiledExpression:
    """CompileCELExpression: a compile error reads `compilation failed: ERROR: <input>:1:1: ...`.
    RETURNS ("Object", "list(JSONPatch)"): a mutation's expression, compiled with the patch types
    (the DynamicTypeResolver and jsonpatch library, HasPatchTypes), which must evaluate to that
    type (refused when its type is evident and another)."""
    try:
        if not returns:
            return CompiledExpression(expression, Program(expression, declarations=declared, functions=FUNCTIONS))
        program = Program(expression, declarations=declared, functions=PATCH_FUNCTIONS, types=mutation.resolve_type)
    except CelProgramError as exc:
        return CompiledExpression(expression, None, f"program instantiation failed: {exc}")
    except CelCompileError as exc:
        return CompiledExpression(expression, None, f"compilation failed: {exc}")
    found = output_type(program.ast)
    if found is not None and found != returns:
        return CompiledExpression(expression, None, f"must evaluate to {returns} but got {found}")
    return CompiledExpression(expression, program)


def output_type(node: Node) -> str | None:
    """The type cel-go's checker gives an expression, where it is evident from its form (a
    literal, a message, a list of one type, a conditional of one type); None where podwhy, which
    checks no types, cannot tell."""
    if isinstance(node, Lit):
        return literal_type(node)
    if isinstance(node, StructLit):
        return node.name
    if isinstance(node, ListLit) and node.items and not node.optional:
        kinds = {output_type(item) for item in node.items}
        return f"list({kinds.pop()})" if len(kinds) == 1 and None not in kinds else None
    if isinstance(node, Cond):
        then = output_type(node.then)
        return then if then is not None and then == output_type(node.otherwise) else None
    return None


def activation(
    obj: Any, old_obj: Any, request: Any, namespace_object: Any, params: Any, variables: Any
) -> dict[str, Any]:
    """The variables bound for one evaluation; the authorizer is bound as not evaluated."""
    return {
        OBJECT: obj,
        OLD_OBJECT: old_obj,
        REQUEST: request,
        NAMESPACE_OBJECT: namespace_object,
        PARAMS: params,
        AUTHORIZER: Unevaluated(AUTHORIZER),
        VARIABLES: variables,
    }


# The metadata fields of a Namespace that CreateNamespaceObject keeps for `namespaceObject`.
_NAMESPACE_METADATA = (
    "name",
    "generateName",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "finalizers",
)


def namespace_object(namespace: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """CreateNamespaceObject: the Namespace as JSON with its spec, status and some metadata."""
    if namespace is None:
        return None
    meta = namespace.get("metadata") or {}
    out: dict[str, Any] = {"metadata": {k: meta[k] for k in _NAMESPACE_METADATA if k in meta}}
    for part in ("spec", "status"):
        out[part] = namespace.get(part) or {}
    return out


def admission_request(
    group: str,
    version: str,
    kind: str,
    resource: str,
    name: str,
    namespace: str,
    operation: str = "CREATE",
    username: str = "",
    groups: Sequence[str] = (),
) -> dict[str, Any]:
    """The `request` variable (CreateAdmissionRequest, as JSON with Go's omitempty): the kind and
    resource matched, the object's name and namespace, the operation, the user, the options."""
    gvk = {"group": group, "version": version, "kind": kind}
    gvr = {"group": group, "version": version, "resource": resource}
    user: dict[str, Any] = {}
    if username:
        user["username"] = username
    if groups:
        user["groups"] = list(groups)
    out: dict[str, Any] = {
        "uid": "",
        "kind": gvk,
        "resource": gvr,
        "requestKind": dict(gvk),
        "requestResource": dict(gvr),
        "operation": operation,
        "userInfo": user,
        "dryRun": False,
    }
    if name:
        out["name"] = name
    if namespace:
        out["namespace"] = namespace
    options_kind = {"CREATE": "CreateOptions", "UPDATE": "UpdateOptions", "DELETE": "DeleteOptions"}.get(operation)
    if options_kind:
        out["options"] = {"kind": options_kind, "apiVersion": "meta.k8s.io/v1"}
    return out
