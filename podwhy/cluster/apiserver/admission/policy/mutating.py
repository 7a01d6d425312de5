"""MutatingAdmissionPolicy applied as the API server applies it, as a pure function over JSON:
k8s.io/apiserver/pkg/admission/plugin/policy/mutating (compilation.go: a policy's variables,
matchConditions and mutations compiled, each mutation with the patch types; dispatcher.go: per
matching binding, the matchConditions, then each mutation in order on the object the previous
one left, the object defaulted after each, an error made the binding's configuration error
under the policy's failurePolicy; patch/: JSONPatch and ApplyConfiguration), the refusal's
words (generic.PolicyError: `policy 'P' with binding 'B' denied request: ...`) and
reinvocationPolicy (reinvocationcontext.go). Each invocation is one binding with one of its params
(CEL's `params`), looked up by admission.py as for a ValidatingAdmissionPolicy.

What podwhy cannot evaluate (the `authorizer`) leaves the binding NOT_EVALUATED, never a guess."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from podwhy.cel.errors import CelError
from podwhy.cel.library import mutation as types
from podwhy.cluster.apiserver.admission.policy import cel as env
from podwhy.cluster.apiserver.admission.policy import validating as v
from podwhy.cluster.apiserver.admission.policy.cel import CompiledExpression
from podwhy.cluster.apiserver.admission.policy.patch import jsonpatch
from podwhy.cluster.apiserver.admission.policy.patch.schema import ListType, Schema, Struct
from podwhy.cluster.apiserver.admission.policy.patch.smd import PatchError, apply_structured_merge_diff
from podwhy.model.records import replace

JSON = Any

# PatchType and ReinvocationPolicyType.
APPLY_CONFIGURATION = "ApplyConfiguration"
JSON_PATCH = "JSONPatch"
IF_NEEDED = "IfNeeded"
NEVER = "Never"

# What each patch type's expression must evaluate to (ReturnTypes).
RETURNS = {APPLY_CONFIGURATION: types.OBJECT, JSON_PATCH: f"list({types.JSON_PATCH})"}


class Mutation(msgspec.Struct, frozen=True):
    patch_type: str
    expression: str


class MutatingPolicy(msgspec.Struct, frozen=True):
    """A MutatingAdmissionPolicy's spec, as far as applying it reads it."""

    name: str
    mutations: tuple[Mutation, ...] = ()
    variables: tuple[v.Variable, ...] = ()
    match_conditions: tuple[v.MatchCondition, ...] = ()
    failure_policy: str = v.FAIL
    reinvocation_policy: str = NEVER
    has_param_kind: bool = False


class CompiledMutatingPolicy(msgspec.Struct, frozen=True):
    """compilePolicy: the variables and matchConditions (as a ValidatingAdmissionPolicy's, with
    which they share their environment) and each mutation's expression."""

    policy: MutatingPolicy
    conditions: v.CompiledPolicy
    mutations: tuple[CompiledExpression, ...]


def compile_mutating_policy(policy: MutatingPolicy) -> CompiledMutatingPolicy:
    shared = v.Policy(
        name=policy.name,
        variables=policy.variables,
        match_conditions=policy.match_conditions,
        failure_policy=policy.failure_policy,
        has_param_kind=policy.has_param_kind,
    )
    declared = env.declarations(policy.has_param_kind, has_authorizer=True, has_variables=bool(policy.variables))
    return CompiledMutatingPolicy(
        policy=policy,
        conditions=v.compile_policy(shared),
        mutations=tuple(
            env.compile_expression(m.expression, declared, RETURNS.get(m.patch_type, types.OBJECT))
            for m in policy.mutations
        ),
    )


# ------------------------------------------------------------------ what comes out


class Refusal(msgspec.Struct, frozen=True):
    """A PolicyError: the policy, its binding and the message; FATAL for a StatusError (the
    object cannot be decoded: an internal error, whatever the failurePolicy)."""

    policy: str
    binding: str | None
    message: str
    fatal: bool = False

    @property
    def text(self) -> str:
        if self.fatal:
            return f"Internal error occurred: {self.message}"
        if self.binding is None:
            return f"policy {json.dumps(self.policy)} denied request: {self.message}"
        return f"policy '{self.policy}' with binding '{self.binding}' denied request: {self.message}"


class BindingMutation(msgspec.Struct, frozen=True):
    """What one binding of one policy did: the object it left, whether it changed it, its
    errors (refusals under failurePolicy Fail), and what could not be evaluated."""

    policy: str
    binding: str
    object: JSON
    changed: bool = False
    applied: bool = False  # a patch was applied (the versioned object is dirty)
    refusals: tuple[Refusal, ...] = ()
    not_evaluated: str = ""


# ------------------------------------------------------------------ one mutation (patch/)


class _MutationError(Exception):
    """A mutation's error: the message of the binding's configuration error."""

    def __init__(self, message: str, fatal: bool = False) -> None:
        super().__init__(message)
        self.fatal = fatal


class _NotEvaluatedError(Exception):
    """The expression reads what podwhy does not evaluate (`authorizer`)."""


def _evaluate(compiled: CompiledMutatingPolicy, index: int, request: v.PolicyRequest, param: JSON) -> Any:
    """ForInput of one mutation with one params object (CEL's `params`), in a composition context
    of its own."""
    expression = compiled.mutations[index]
    if expression.program is None:
        raise _MutationError(expression.error)
    try:
        activation = v.Activation(compiled.conditions, request, param)
        (result,), _ = activation.for_input([expression], env.RUNTIME_COST_BUDGET)
    except v.OutOfBudgetError as exc:
        raise _MutationError(str(exc)) from exc
    if result.not_evaluated:
        raise _NotEvaluatedError(result.not_evaluated)
    if result.error:
        raise _MutationError(result.error)
    return result.value


def _checked(value: types.ObjectVal) -> None:
    errors = types.check_type_names(value)
    if errors:
        raise _MutationError("type mismatch: " + "\n".join(errors))


def _apply_configuration(value: Any, obj: JSON, kind: str, schema: Schema) -> JSON:
    """applyConfigPatcher.Patch."""
    if not isinstance(value, types.ObjectVal):
        raise _MutationError(f"unsupported return type from ApplyConfiguration expression: {value!r}")
    _checked(value)
    try:
        patch = types.to_json(value)
    except CelError as exc:
        raise _MutationError(f"invalid return type: {exc}") from exc
    patch["apiVersion"], patch["kind"] = obj.get("apiVersion"), obj.get("kind")
    try:
        return apply_structured_merge_diff(schema, kind, obj, patch)
    except PatchError as exc:
        raise _MutationError(f"error applying patch: {exc}") from exc


def _operations(value: Any) -> list[jsonpatch.Operation]:
    """evaluatePatchExpression: the JSONPatch values as operations."""
    if not isinstance(value, list):
        raise _MutationError("type mismatch: JSONPatchType.expression should evaluate to array")
    out = []
    for item in value:
        if not isinstance(item, types.JSONPatchVal):
            raise _MutationError(
                "type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch: "
                f"type conversion error from '{type(item).__name__}' to '*mutation.JSONPatchVal'"
            )
        patch_value: Any = None
        if item.has_value:
            if isinstance(item.value, types.ObjectVal):
                _checked(item.value)
            try:
                patch_value = types.to_json(item.value)
            except CelError as exc:
                raise _MutationError(
                    f"JSONPath valueExpression evaluated to a type that could not marshal to JSON: {exc}"
                ) from exc
        out.append(jsonpatch.Operation(item.op, item.path, item.from_, patch_value, item.has_value))
    return out


def _unknown_fields(schema: Schema, value: Any, expr: Any, path: str) -> list[str]:
    """The fields the strict JSON decoder refuses (`unknown field "spec.foo"`)."""
    resolved = schema.resolve(expr)
    found: list[str] = []
    if isinstance(resolved, Struct) and isinstance(value, dict):
        for key, child in value.items():
            where = f"{path}.{key}" if path else key
            if key not in resolved.fields:
                found.append(where)
            else:
                found += _unknown_fields(schema, child, resolved.fields[key], where)
    elif isinstance(resolved, ListType) and isinstance(value, list):
        for i, child in enumerate(value):
            found += _unknown_fields(schema, child, resolved.element, f"{path}[{i}]")
    return found


def _json_patch(value: Any, obj: JSON, kind: str, schema: Schema) -> JSON:
    """jsonPatcher.Patch: a failed test leaves the object as it was."""
    operations = _operations(value)
    try:
        patched = jsonpatch.apply(obj, operations)
    except jsonpatch.TestFailedError:
        return obj
    except jsonpatch.JSONPatchError as exc:
        raise _MutationError(f"JSON Patch: {exc}") from exc
    root = schema.root(kind)
    unknown = _unknown_fields(schema, patched, "@" + root.name, "") if root is not None else []
    if unknown:
        words = ", ".join(f'unknown field "{u}"' for u in unknown)
        raise _MutationError(f"strict decoding error: {words}", fatal=True)
    return patched


# ------------------------------------------------------------------ a binding (dispatcher.go)


def dispatch_binding(
    compiled: CompiledMutatingPolicy,
    binding: str,
    request: v.PolicyRequest,
    kind: str,
    schema: Schema,
    default: Callable[[JSON], JSON],
    param: JSON = None,
) -> BindingMutation:
    """One matching binding with one of its params (PARAM, None for a policy without paramKind or
    a binding without paramRef): its matchConditions, then each mutation in order on the object
    the previous one left (DEFAULT defaults it after each, as the API server's defaulter does); an
    error is the binding's refusal unless failurePolicy is Ignore, and the next mutation runs."""
    policy = compiled.policy
    start = request.object
    matched = v.conditions_hold(compiled.conditions, request, param)
    if matched is False:
        return BindingMutation(policy.name, binding, start)
    if isinstance(matched, v.Decision):
        if matched.action == v.Action.NOT_EVALUATED:
            return BindingMutation(policy.name, binding, start, not_evaluated=matched.not_evaluated)
        return BindingMutation(policy.name, binding, start, refusals=_refused(policy, binding, matched.message))
    obj, applied = start, False
    refusals: list[Refusal] = []
    for index, item in enumerate(policy.mutations):
        current = replace(request, object=obj)
        try:
            value = _evaluate(compiled, index, current, param)
            patch = _apply_configuration if item.patch_type == APPLY_CONFIGURATION else _json_patch
            obj = default(patch(value, obj, kind, schema))
            applied = True
        except _NotEvaluatedError as gap:
            return BindingMutation(policy.name, binding, start, not_evaluated=str(gap))
        except _MutationError as exc:
            if exc.fatal:
                fatal = Refusal(policy.name, binding, str(exc), fatal=True)
                return BindingMutation(policy.name, binding, obj, refusals=(fatal,))
            refusals += _refused(policy, binding, str(exc))
    return BindingMutation(policy.name, binding, obj, obj != start, applied, tuple(refusals))


def _refused(policy: MutatingPolicy, binding: str, message: str) -> tuple[Refusal, ...]:
    """The dispatcher's filter: an error under failurePolicy Ignore is dropped."""
    return () if policy.failure_policy == v.IGNORE else (Refusal(policy.name, binding, message),)


# ------------------------------------------------------------------ reinvocation (reinvocationcontext.go)


# keyFor: the policy, the binding and the params object's namespace and name ("" without one).
InvocationKey = tuple[str, str, str, str]


class ReinvocationContext(msgspec.Struct):
    """policyReinvokeContext, over one request's admission: the IfNeeded bindings invoked since
    the object last changed, those to run again if the mutating plugins are reinvoked, and
    whether they are (ShouldReinvoke)."""

    previously_invoked: set[InvocationKey] = msgspec.field(default_factory=set)
    reinvoke: set[InvocationKey] = msgspec.field(default_factory=set)
    should_reinvoke: bool = False
    last_output: JSON = None

    def require_reinvoking(self) -> None:
        self.reinvoke |= self.previously_invoked
        self.previously_invoked = set()


class Invocation(msgspec.Struct, frozen=True):
    """One policy, one of its bindings the request meets and one of the binding's params (None
    without), in the server's order (policy_dispatcher.go: a binding's params in the order found)."""

    compiled: CompiledMutatingPolicy
    binding: str
    param: JSON = None

    @property
    def key(self) -> InvocationKey:
        metadata = self.param.get("metadata") if isinstance(self.param, dict) else None
        metadata = metadata if isinstance(metadata, dict) else {}
        namespace, name = str(metadata.get("namespace") or ""), str(metadata.get("name") or "")
        return (self.compiled.policy.name, self.binding, namespace, name)


class Outcome(msgspec.Struct, frozen=True):
    """The plugin's Admit over every invocation: the object it leaves, each binding's mutation,
    the first refusal (the request's), and what was not evaluated."""

    object: JSON
    mutations: tuple[BindingMutation, ...]
    refusal: Refusal | None = None
    not_evaluated: tuple[BindingMutation, ...] = ()


def admit(
    invocations: Sequence[Invocation],
    request: v.PolicyRequest,
    kind: str,
    schema: Schema,
    default: Callable[[JSON], JSON],
    context: ReinvocationContext,
    reinvoking: bool = False,
    refusals: Sequence[Refusal] = (),
) -> Outcome:
    """dispatchInvocations: each invocation in order on the object the previous left (on a
    reinvocation, only the IfNeeded ones marked to run again); REFUSALS are the configuration
    errors found while matching, first."""
    if reinvoking and context.last_output != request.object:
        context.require_reinvoking()
    obj, applied = request.object, False
    done: list[BindingMutation] = []
    errors = list(refusals)
    for invocation in invocations:
        policy = invocation.compiled.policy
        key = invocation.key
        if reinvoking and key not in context.reinvoke:
            continue
        result = dispatch_binding(
            invocation.compiled,
            invocation.binding,
            replace(request, object=obj),
            kind,
            schema,
            default,
            invocation.param,
        )
        done.append(result)
        errors += result.refusals
        if any(r.fatal for r in result.refusals):
            return Outcome(obj, tuple(done), result.refusals[0])
        obj, applied = result.object, applied or result.applied
        if result.changed:
            context.require_reinvoking()
            context.should_reinvoke = True
        if policy.reinvocation_policy == IF_NEEDED and not result.not_evaluated:
            context.previously_invoked.add(key)
    if applied:
        context.require_reinvoking()
        context.should_reinvoke = True
    context.last_output = obj
    gaps = tuple(d for d in done if d.not_evaluated)
    return Outcome(obj, tuple(done), errors[0] if errors else None, gaps)


def changed_fields(before: JSON, after: JSON, path: str = "") -> list[tuple[str, str]]:
    """The fields AFTER sets differently from BEFORE, as (JSON path, value) (`removed` for one
    it drops), for apiServerDefaults."""
    if isinstance(before, dict) and isinstance(after, dict):
        out: list[tuple[str, str]] = []
        for key in [*after, *(k for k in before if k not in after)]:
            where = f"{path}.{key}" if path else key
            if key not in after:
                out.append((where, "removed"))
            elif key not in before:
                out.append((where, _said(after[key])))
            else:
                out += changed_fields(before[key], after[key], where)
        return out
    if isinstance(before, list) and isinstance(after, list) and after[: len(before)] == before:
        return [(f"{path}[{i}]", _said(after[i])) for i in range(len(before), len(after))]
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        pairs = zip(before, after, strict=True)
        return [pair for i, (b, a) in enumerate(pairs) for pair in changed_fields(b, a, f"{path}[{i}]")]
    return [] if before == after else [(path, _said(after))]


def _said(value: JSON) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"), ensure_ascii=False)
