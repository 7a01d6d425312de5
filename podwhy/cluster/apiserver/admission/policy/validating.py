"""ValidatingAdmissionPolicy evaluated as the API server evaluates it, as a pure function over
JSON-like values: k8s.io/apiserver/pkg/admission/plugin/policy/validating (validator.go: a
policy's decisions on one request; dispatcher.go: a binding's validationActions, its params and
the refusal's words; policy_decision.go: reasons and status codes), generic.CollectParams, the
CEL evaluation and its cost budget (plugin/cel: condition.go, activation.go, composition.go) and
the matchConditions (plugin/webhook/matchconditions).

What podwhy cannot evaluate (the `authorizer`) makes a decision NOT_EVALUATED, never a guess.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import msgspec

from podwhy.cel.errors import CelError, CelNotEvaluatedError
from podwhy.cel.values import LazyMap, type_name
from podwhy.cluster.apiserver.admission.policy import cel as env
from podwhy.cluster.apiserver.admission.policy.cel import CompiledExpression
from podwhy.model.gojson import GO_SPACE

FAIL = "Fail"
IGNORE = "Ignore"
DENY = "Deny"
WARN = "Warn"
AUDIT = "Audit"
ALLOW = "Allow"

# metav1.StatusReason values a validation's reason may take, and reasonToCode.
REASON_FORBIDDEN = "Forbidden"
REASON_INVALID = "Invalid"
REASON_UNAUTHORIZED = "Unauthorized"
REASON_REQUEST_ENTITY_TOO_LARGE = "RequestEntityTooLarge"
STATUS_CODES = {
    REASON_FORBIDDEN: 403,
    REASON_UNAUTHORIZED: 401,
    REASON_REQUEST_ENTITY_TOO_LARGE: 413,
    REASON_INVALID: 422,
}
DEFAULT_STATUS_CODE = 422

VALIDATION_FAILURE_ANNOTATION = "validation.policy.admission.k8s.io/validation_failure"
MAX_AUDIT_ANNOTATION_VALUE = 10 * 1024
OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"
NO_PARAMS_DENY = "no params found for policy binding with `Deny` parameterNotFoundAction"

JSON = Any


class Action(StrEnum):
    ADMIT = "admit"
    DENY = "deny"
    NOT_EVALUATED = "not evaluated"


class Evaluation(StrEnum):
    ADMIT = "admit"
    DENY = "deny"
    ERROR = "error"
    NOT_EVALUATED = "not evaluated"


# ------------------------------------------------------------------ what is evaluated


class Validation(msgspec.Struct, frozen=True):
    expression: str
    message: str = ""
    message_expression: str = ""
    reason: str = ""  # empty: Invalid


class Variable(msgspec.Struct, frozen=True):
    name: str
    expression: str


class MatchCondition(msgspec.Struct, frozen=True):
    name: str
    expression: str


class AuditAnnotation(msgspec.Struct, frozen=True):
    key: str
    value_expression: str


class Policy(msgspec.Struct, frozen=True):
    """A ValidatingAdmissionPolicy's spec, as far as evaluation reads it."""

    name: str
    validations: tuple[Validation, ...] = ()
    variables: tuple[Variable, ...] = ()
    match_conditions: tuple[MatchCondition, ...] = ()
    audit_annotations: tuple[AuditAnnotation, ...] = ()
    failure_policy: str = FAIL  # an unset failurePolicy is Fail
    has_param_kind: bool = False


class Binding(msgspec.Struct, frozen=True):
    """A ValidatingAdmissionPolicyBinding: its name, its actions and whether it refers to params."""

    name: str
    validation_actions: tuple[str, ...] = (DENY,)
    has_param_ref: bool = False
    parameter_not_found_action: str = DENY


class PolicyRequest(msgspec.Struct, frozen=True):
    """The request as CEL sees it: JSON of the object, the old object, the AdmissionRequest
    (`cel.admission_request` builds it) and the namespace (`cel.namespace_object` of it)."""

    object: JSON = None
    old_object: JSON = None
    request: JSON = None
    namespace_object: JSON = None


# ------------------------------------------------------------------ what comes out


class Decision(msgspec.Struct, frozen=True):
    """PolicyDecision: one validation's outcome for one params object."""

    action: Action
    evaluation: Evaluation
    message: str = ""
    reason: str = ""
    # What could not be evaluated (`authorizer`), for NOT_EVALUATED.
    not_evaluated: str = ""


@dataclass(frozen=True)
class Denial:
    """The request refused: the text after `pods "web" is forbidden: `, its reason and HTTP code."""

    policy: str
    binding: str | None
    message: str
    reason: str
    code: int
    # The index in the policy's validations of the one whose expression evaluated false (None:
    # another denial, an error or a configuration's); not compared, the refusal is the same.
    expression_index: int | None = field(default=None, compare=False)

    @property
    def text(self) -> str:
        if self.binding is None:
            return f"ValidatingAdmissionPolicy '{self.policy}' denied request: {self.message}"
        return f"ValidatingAdmissionPolicy '{self.policy}' with binding '{self.binding}' denied request: {self.message}"


class BindingOutcome(msgspec.Struct, frozen=True):
    """What one policy and one of its bindings did to a request."""

    policy: str
    binding: str | None
    decisions: tuple[Decision, ...] = ()
    denials: tuple[Denial, ...] = ()
    warnings: tuple[str, ...] = ()
    # (key, value) audit annotations: a validation failure's, and the policy's own as "policy/key".
    audit_annotations: tuple[tuple[str, str], ...] = ()
    not_evaluated: tuple[Decision, ...] = ()


class Verdict(msgspec.Struct, frozen=True):
    """All matching policies' outcomes on one request, as the admission plugin returns them: the
    first denial refuses it; warnings reach the client; NOT_EVALUATED decisions leave it open."""

    denial: Denial | None = None
    warnings: tuple[str, ...] = ()
    audit_annotations: tuple[tuple[str, str], ...] = ()
    not_evaluated: tuple[Decision, ...] = msgspec.field(default=())


# ------------------------------------------------------------------ compiling


class CompiledPolicy(msgspec.Struct, frozen=True):
    """A policy's expressions compiled once (compilePolicy): validations, their messageExpressions
    (None where a validation has none), audit annotations, match conditions and variables."""

    policy: Policy
    validations: tuple[CompiledExpression, ...]
    messages: tuple[CompiledExpression | None, ...]
    audit_annotations: tuple[CompiledExpression, ...]
    match_conditions: tuple[CompiledExpression, ...]
    variables: Mapping[str, CompiledExpression]

    @property
    def compile_errors(self) -> tuple[str, ...]:
        every = (*self.validations, *self.audit_annotations, *self.match_conditions, *self.variables.values())
        every += tuple(m for m in self.messages if m is not None)
        return tuple(c.error for c in every if c.error)


def compile_policy(policy: Policy) -> CompiledPolicy:
    has_vars = bool(policy.variables)
    with_authz = env.declarations(policy.has_param_kind, has_authorizer=True, has_variables=has_vars)
    without_authz = env.declarations(policy.has_param_kind, has_authorizer=False, has_variables=has_vars)

    def compiled(expression: str, declared: frozenset[str] = with_authz) -> CompiledExpression:
        return env.compile_expression(expression, declared)

    return CompiledPolicy(
        policy=policy,
        validations=tuple(compiled(v.expression) for v in policy.validations),
        messages=tuple(
            compiled(v.message_expression, without_authz) if v.message_expression else None for v in policy.validations
        ),
        audit_annotations=tuple(compiled(a.value_expression) for a in policy.audit_annotations),
        match_conditions=tuple(compiled(m.expression) for m in policy.match_conditions),
        variables={v.name: compiled(v.expression) for v in policy.variables},
    )


# ------------------------------------------------------------------ evaluating (plugin/cel)


class OutOfBudgetError(Exception):
    """ForInput's error: the budget of the policy's expressions on this request is spent."""


class Result(msgspec.Struct, frozen=True):
    """EvaluationResult: a value, or an error's words, or what was not evaluated."""

    value: Any = None
    error: str = ""
    not_evaluated: str = ""
    absent: bool = False  # a placeholder: a validation without messageExpression


class Activation:
    """The variables of one ForInput (the matchConditions', the validations', the messages' or the
    audit annotations'), with `variables` lazily evaluated and kept for it, their cost owed to the
    expression that first read them (a composition context is made per ForInput)."""

    def __init__(self, compiled: CompiledPolicy, request: PolicyRequest, params: JSON) -> None:
        self.compiled = compiled
        self.owed = 0
        variables = LazyMap(frozenset(compiled.variables), self._resolve)
        self.bindings = env.activation(
            request.object, request.old_object, request.request, request.namespace_object, params, variables
        )

    def _resolve(self, name: str) -> Any:
        variable = self.compiled.variables[name]
        if variable.program is None:
            raise CelError(f"composited variable {json.dumps(name)} fails to compile: {variable.error}")
        outcome = variable.program.run(self.bindings, env.PER_CALL_COST_LIMIT)
        self.owed += outcome.cost
        if isinstance(outcome.error, CelNotEvaluatedError):
            raise outcome.error
        if outcome.error is not None:
            raise CelError(f"composited variable {json.dumps(name)} fails to evaluate: {outcome.error}")
        return outcome.value

    def for_input(self, expressions: Sequence[CompiledExpression | None], budget: int) -> tuple[list[Result], int]:
        """ForInput: each expression's result, and the budget left; OutOfBudgetError once spent."""
        results: list[Result] = []
        for compiled in expressions:
            if compiled is None:
                results.append(Result(absent=True))
                continue
            if compiled.program is None:
                results.append(Result(error=f"compilation error: {compiled.error}"))
                continue
            outcome = compiled.program.run(self.bindings, env.PER_CALL_COST_LIMIT)
            owed, self.owed = self.owed, 0
            for cost in (owed, outcome.cost):
                if cost > budget:
                    raise OutOfBudgetError(OUT_OF_BUDGET)
                budget -= cost
            if isinstance(outcome.error, CelNotEvaluatedError):
                results.append(Result(not_evaluated=outcome.error.what))
            elif outcome.error is not None:
                results.append(Result(error=f"expression '{compiled.expression}' resulted in error: {outcome.error}"))
            else:
                results.append(Result(value=outcome.value))
        return results, budget


def _aggregate(errors: Sequence[str]) -> str:
    """utilerrors.NewAggregate(...).Error(): one message as it is, several deduplicated in brackets."""
    if len(errors) == 1:
        return errors[0]
    unique = list(dict.fromkeys(errors))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


def _error_action(failure_policy: str) -> Action:
    return Action.ADMIT if failure_policy == IGNORE else Action.DENY


def _match(compiled: CompiledPolicy, request: PolicyRequest, params: JSON) -> Decision | bool:
    """The matchConditions (matchconditions.Matcher, which hands them no namespaceObject): True to
    evaluate, False to skip the policy, or the decision an error leads to under the failure policy."""
    failure_policy = compiled.policy.failure_policy
    without_namespace = PolicyRequest(request.object, request.old_object, request.request, None)
    activation = Activation(compiled, without_namespace, params)
    try:
        results, _ = activation.for_input(compiled.match_conditions, env.RUNTIME_COST_BUDGET_MATCH_CONDITIONS)
    except OutOfBudgetError as exc:
        if failure_policy == IGNORE:
            return False
        return Decision(_error_action(failure_policy), Evaluation.ERROR, str(exc))
    if any(r.value is False for r in results):
        return False
    errors = [r.error for r in results if r.error]
    if errors:
        if failure_policy == IGNORE:
            return False
        return Decision(Action.DENY, Evaluation.ERROR, _aggregate(errors))
    missing = [r.not_evaluated for r in results if r.not_evaluated]
    if missing:
        return Decision(Action.NOT_EVALUATED, Evaluation.NOT_EVALUATED, not_evaluated=missing[0])
    return True


# ------------------------------------------------------------------ one policy, one params object (validator.go)


class AuditResult(msgspec.Struct, frozen=True):
    """PolicyAuditAnnotation, published (a value) or denying (an error); excluded ones are not kept."""

    key: str
    value: str = ""
    error: str = ""  # an error that denies (failurePolicy Fail)


def _message(validation: Validation, result: Result | None) -> str:
    """The refusal's message: the messageExpression's string if it gives a usable one, else the
    message, else `failed expression: <expression>`."""
    message = ""
    if result is not None and not result.error and not result.absent and isinstance(result.value, str):
        message = result.value.strip(GO_SPACE)
        if len(message.encode()) > env.MAX_MESSAGE_BYTES or "\n" in message:
            message = ""
    if not message and validation.message:
        message = validation.message.strip(GO_SPACE)
    return message or f"failed expression: {validation.expression.strip(GO_SPACE)}"


def _decide(validation: Validation, result: Result, message: Result | None, failure_policy: str) -> Decision:
    if result.not_evaluated:
        return Decision(Action.NOT_EVALUATED, Evaluation.NOT_EVALUATED, not_evaluated=result.not_evaluated)
    if result.error:
        return Decision(_error_action(failure_policy), Evaluation.ERROR, result.error)
    if result.value is not True:
        return Decision(
            Action.DENY, Evaluation.DENY, _message(validation, message), validation.reason or REASON_INVALID
        )
    return Decision(Action.ADMIT, Evaluation.ADMIT)


def _decisions(compiled: CompiledPolicy, request: PolicyRequest, params: JSON, budget: int) -> list[Decision]:
    policy = compiled.policy
    fail = policy.failure_policy
    try:
        results, remaining = Activation(compiled, request, params).for_input(compiled.validations, budget)
    except OutOfBudgetError as exc:
        return [Decision(_error_action(fail), Evaluation.ERROR, str(exc))]
    message_error = ""
    messages: list[Result] = []
    try:
        messages, _ = Activation(compiled, request, params).for_input(compiled.messages, remaining)
    except OutOfBudgetError as exc:
        message_error = f"failed messageExpression: {exc}"
    decisions = []
    for i, (validation, result) in enumerate(zip(policy.validations, results, strict=True)):
        if message_error and not result.error and not result.not_evaluated:
            decisions.append(Decision(_error_action(fail), Evaluation.ERROR, message_error))
            continue
        decisions.append(_decide(validation, result, messages[i] if i < len(messages) else None, fail))
    return decisions


def _audit_results(
    compiled: CompiledPolicy, request: PolicyRequest, params: JSON, budget: int
) -> list[AuditResult] | Decision:
    fail = compiled.policy.failure_policy
    try:
        results, _ = Activation(compiled, request, params).for_input(compiled.audit_annotations, budget)
    except OutOfBudgetError as exc:
        return Decision(_error_action(fail), Evaluation.ERROR, str(exc))
    out: list[AuditResult] = []
    for annotation, result in zip(compiled.policy.audit_annotations, results, strict=True):
        if result.error or result.not_evaluated:
            if fail != IGNORE and result.error:
                out.append(AuditResult(annotation.key, error=result.error))
        elif isinstance(result.value, str):
            if result.value.strip(GO_SPACE):
                out.append(AuditResult(annotation.key, value=result.value.strip(GO_SPACE)))
        elif result.value is not None:
            out.append(
                AuditResult(
                    annotation.key,
                    error=f"valueExpression '{annotation.value_expression}' resulted in unsupported return type: "
                    f"{type_name(result.value)}. Return type must be either string or null.",
                )
            )
    return out


def validate(
    compiled: CompiledPolicy, request: PolicyRequest, params: JSON = None, budget: int = env.RUNTIME_COST_BUDGET
) -> tuple[list[Decision], list[AuditResult]]:
    """validator.Validate: the decisions of the policy's validations (none when a matchCondition
    is false) and its audit annotations, on one request with one params object, within the
    policy's runtime cost budget (the API server's RuntimeCELCostBudget; tests set another)."""
    if compiled.match_conditions:
        matched = _match(compiled, request, params)
        if matched is False:
            return [], []
        if isinstance(matched, Decision):
            return [matched], []
    decisions = _decisions(compiled, request, params, budget)
    audit = _audit_results(compiled, request, params, budget)
    if isinstance(audit, Decision):
        return [audit], []
    return decisions, audit


# ------------------------------------------------------------------ a binding (dispatcher.go)


def collect_params(policy: Policy, binding: Binding, found: Sequence[JSON]) -> tuple[tuple[JSON, ...], str]:
    """generic.CollectParams once the params are looked up: the params objects to validate with
    (one None when the policy has no paramKind or the binding no paramRef) or a configuration
    error. `found` is what the binding's paramRef names or selects."""
    if not policy.has_param_kind or not binding.has_param_ref:
        return (None,), ""
    if not found and binding.parameter_not_found_action == DENY:
        return (), NO_PARAMS_DENY
    return tuple(found), ""


def configuration_error(policy: Policy, binding: Binding | None, error: str) -> BindingOutcome:
    """addConfigError: a policy or binding the server cannot use refuses the request under
    failurePolicy Fail (and is ignored under Ignore)."""
    binding_name = binding.name if binding is not None else None
    if policy.failure_policy == IGNORE:
        return BindingOutcome(policy.name, binding_name)
    if policy.failure_policy == FAIL:
        message = f"failed to configure {'policy' if binding is None else 'binding'}: {error}"
    else:
        message = f"unrecognized failure policy: '{policy.failure_policy}'"
    denial = Denial(policy.name, binding_name, message, REASON_INVALID, DEFAULT_STATUS_CODE)
    return BindingOutcome(policy.name, binding_name, denials=(denial,))


def _validation_failure(policy: Policy, binding: Binding, index: int, decision: Decision) -> tuple[str, str]:
    value = [
        {
            "message": decision.message,
            "policy": policy.name,
            "binding": binding.name,
            "expressionIndex": index,
            "validationActions": list(binding.validation_actions),
        }
    ]
    return VALIDATION_FAILURE_ANNOTATION, json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def dispatch_binding(
    policy: Policy,
    binding: Binding,
    request: PolicyRequest,
    params_found: Sequence[JSON] = (),
    compiled: CompiledPolicy | None = None,
) -> BindingOutcome:
    """One matching binding of one matching policy on a request: its params collected, the
    policy validated with each, each denying decision handled by the binding's actions (Deny
    refuses, Warn warns, Audit annotates), and its audit annotations' errors refusing under Fail."""
    params, error = collect_params(policy, binding, params_found)
    if error:
        return configuration_error(policy, binding, error)
    compiled = compiled or compile_policy(policy)
    denials: list[Denial] = []
    warnings: list[str] = []
    annotations: list[tuple[str, str]] = []
    decisions: list[Decision] = []
    for param in params:
        param_decisions, audit = validate(compiled, request, param)
        decisions += param_decisions
        for index, decision in enumerate(param_decisions):
            if decision.action != Action.DENY:
                continue
            for action in binding.validation_actions:
                if action == DENY:
                    reason = decision.reason or REASON_INVALID
                    code = STATUS_CODES.get(reason, DEFAULT_STATUS_CODE)
                    failed = index if decision.evaluation == Evaluation.DENY else None
                    denials.append(Denial(policy.name, binding.name, decision.message, reason, code, failed))
                elif action == WARN:
                    warnings.append(
                        f"Validation failed for ValidatingAdmissionPolicy '{policy.name}' "
                        f"with binding '{binding.name}': {decision.message}"
                    )
                elif action == AUDIT:
                    annotations.append(_validation_failure(policy, binding, index, decision))
        for result in audit:
            if result.error:
                denials.append(Denial(policy.name, binding.name, result.error, REASON_INVALID, DEFAULT_STATUS_CODE))
            else:
                annotations.append((f"{policy.name}/{result.key}", result.value[:MAX_AUDIT_ANNOTATION_VALUE]))
    return BindingOutcome(
        policy.name,
        binding.name,
        decisions=tuple(decisions),
        denials=tuple(denials),
        warnings=tuple(warnings),
        audit_annotations=tuple(annotations),
        not_evaluated=tuple(d for d in decisions if d.action == Action.NOT_EVALUATED),
    )


def verdict(outcomes: Sequence[BindingOutcome]) -> Verdict:
    """The plugin's answer over every matching policy and binding, in the order the server
    visits them: the first denial, every warning, the audit annotations (a policy's own key's
    distinct values joined with ", ")."""
    denials = [d for o in outcomes for d in o.denials]
    joined: dict[str, list[str]] = {}
    for outcome in outcomes:
        for key, value in outcome.audit_annotations:
            values = joined.setdefault(key, [])
            if key == VALIDATION_FAILURE_ANNOTATION or value not in values:
                values.append(value)
    return Verdict(
        denial=denials[0] if denials else None,
        warnings=tuple(w for o in outcomes for w in o.warnings),
        audit_annotations=tuple((k, ", ".join(v)) for k, v in joined.items()),
        not_evaluated=tuple(d for o in outcomes for d in o.not_evaluated),
    )


def conditions_hold(compiled: CompiledPolicy, request: PolicyRequest, params: JSON = None) -> Decision | bool:
    """COMPILED's matchConditions on REQUEST with PARAMS (None: as for a policy without params, as
    a webhook's are evaluated): True, False, or the decision an error or an unevaluated part leads to."""
    if not compiled.match_conditions:
        return True
    return _match(compiled, request, params)
