"""The ValidatingAdmissionPolicy evaluator against upstream's validator_test.go (TestValidate, the
cases that need no informer: each fake evaluation replaced by an expression that gives it) and
the words a v1.35 kube-apiserver was recorded saying (issue 38)."""

from __future__ import annotations

from typing import Any

import pytest

from podwhy.cluster.apiserver.admission.policy import cel as env
from podwhy.cluster.apiserver.admission.policy.validating import (
    AUDIT,
    DENY,
    IGNORE,
    NO_PARAMS_DENY,
    VALIDATION_FAILURE_ANNOTATION,
    WARN,
    Action,
    AuditAnnotation,
    Binding,
    Evaluation,
    MatchCondition,
    Policy,
    PolicyRequest,
    Validation,
    Variable,
    compile_policy,
    configuration_error,
    dispatch_binding,
    validate,
    verdict,
)

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
    "spec": {"containers": [{"name": "app", "image": "nginx", "resources": {}}]},
}
REQUEST = PolicyRequest(object=POD, request=env.admission_request("", "v1", "Pod", "pods", "web", "default"))
FAILED = "1 == 2"  # an expression that evaluates to false
ERRORS = "object.metadata.labels.team == 'a'"  # an expression whose evaluation errors: no such key: team


def _decisions(policy: Policy, budget: int = env.RUNTIME_COST_BUDGET) -> list[tuple[Action, str, str]]:
    decisions, _ = validate(compile_policy(policy), REQUEST, None, budget)
    return [(d.action, d.message, d.reason) for d in decisions]


def _policy(*validations: Validation, **fields: Any) -> Policy:
    return Policy("P", validations=validations, **fields)


# validator_test.go TestValidate: name, policy, the decisions (action, message, reason).
TEST_VALIDATE = [
    ("test pass", _policy(Validation("true")), [(Action.ADMIT, "", "")]),
    (
        "test multiple pass",
        _policy(Validation("true"), Validation("1 == 1")),
        [(Action.ADMIT, "", ""), (Action.ADMIT, "", "")],
    ),
    (
        "test error with failurepolicy ignore",
        _policy(Validation(ERRORS), failure_policy=IGNORE),
        [(Action.ADMIT, f"expression '{ERRORS}' resulted in error: no such key: team", "")],
    ),
    (
        "test error with failurepolicy nil",
        _policy(Validation(ERRORS)),
        [(Action.DENY, f"expression '{ERRORS}' resulted in error: no such key: team", "")],
    ),
    (
        "test fail with failurepolicy fail",
        _policy(Validation(FAILED, message="test1", reason="Forbidden")),
        [(Action.DENY, "test1", "Forbidden")],
    ),
    (
        "test fail with failurepolicy ignore with multiple validations",
        _policy(Validation("true"), Validation(FAILED, message="test2", reason="Forbidden"), failure_policy=IGNORE),
        [(Action.ADMIT, "", ""), (Action.DENY, "test2", "Forbidden")],
    ),
    (
        "test fail with failurepolicy fail with multiple failed validations",
        _policy(Validation(FAILED, message="test1", reason="Forbidden"), Validation(FAILED, message="test2")),
        [(Action.DENY, "test1", "Forbidden"), (Action.DENY, "test2", "Invalid")],
    ),
    (
        "test reason for fail no reason set",
        _policy(Validation(FAILED, message="test1")),
        [(Action.DENY, "test1", "Invalid")],
    ),
    (
        "test reason for failed validations multiple validations",
        _policy(
            Validation(FAILED, message="test1", reason="Forbidden"),
            Validation(FAILED, message="test2", reason="Unauthorized"),
            Validation(FAILED, message="test3", reason="RequestEntityTooLarge"),
        ),
        [
            (Action.DENY, "test1", "Forbidden"),
            (Action.DENY, "test2", "Unauthorized"),
            (Action.DENY, "test3", "RequestEntityTooLarge"),
        ],
    ),
    (
        "test message for failed validations",
        _policy(Validation(FAILED, reason="Forbidden")),
        [(Action.DENY, f"failed expression: {FAILED}", "Forbidden")],
    ),
    (
        "messageExpression successful, empty message",
        _policy(Validation(FAILED, reason="Forbidden", message_expression="'evaluated message'")),
        [(Action.DENY, "evaluated message", "Forbidden")],
    ),
    (
        "messageExpression for multiple validations",
        _policy(
            Validation(FAILED, message="I am not overwritten", reason="Forbidden"),
            Validation(
                FAILED, message="I am overwritten", reason="Forbidden", message_expression="'evaluated message'"
            ),
        ),
        [(Action.DENY, "I am not overwritten", "Forbidden"), (Action.DENY, "evaluated message", "Forbidden")],
    ),
    (
        "messageExpression user failure",
        _policy(Validation(FAILED, message="test1", reason="Forbidden", message_expression="object.nope")),
        [(Action.DENY, "test1", "Forbidden")],
    ),
    (
        "messageExpression eval to empty",
        _policy(Validation(FAILED, message="test1", reason="Forbidden", message_expression="'    '")),
        [(Action.DENY, "test1", "Forbidden")],
    ),
    (
        "messageExpression eval to multi-line",
        _policy(Validation(FAILED, message="test1", reason="Forbidden", message_expression="'hello\\nthere'")),
        [(Action.DENY, "test1", "Forbidden")],
    ),
    (
        "messageExpression eval result too long",
        _policy(Validation(FAILED, message="test1", reason="Forbidden", message_expression=f"'{'a' * 5121}'")),
        [(Action.DENY, "test1", "Forbidden")],
    ),
    (
        "messageExpression eval to null",
        _policy(Validation(FAILED, message="test1", reason="Forbidden", message_expression="null")),
        [(Action.DENY, "test1", "Forbidden")],
    ),
    (
        "no match surpresses failure",
        _policy(Validation(ERRORS), match_conditions=(MatchCondition("never", "false"),)),
        [],
    ),
    (
        "match error => presumed match",  # a matchCondition's error under Fail denies
        _policy(Validation(ERRORS), match_conditions=(MatchCondition("errs", ERRORS),)),
        [(Action.DENY, f"expression '{ERRORS}' resulted in error: no such key: team", "")],
    ),
]


@pytest.mark.parametrize(("name", "policy", "want"), TEST_VALIDATE, ids=[c[0] for c in TEST_VALIDATE])
def test_validate(name: str, policy: Policy, want: list[tuple[Action, str, str]]) -> None:
    assert _decisions(policy) == want


def test_messageexpression_out_of_budget_after_successful_eval_of_expression() -> None:
    """TestValidate "messageExpression out of budget ...": the budget the validations leave is
    the messageExpressions' (the validation `1 == 2` costs 3: two literals and the equality)."""
    policy = _policy(Validation(FAILED, message="test1", reason="Forbidden", message_expression="'message'"))
    assert _decisions(policy, budget=3) == [
        (
            Action.DENY,
            "failed messageExpression: validation failed due to running out of cost budget, "
            "no further validation rules will be run",
            "",
        )
    ]
    assert _decisions(policy, budget=2) == [
        (
            Action.DENY,
            "validation failed due to running out of cost budget, no further validation rules will be run",
            "",
        )
    ]


def test_audit_annotations() -> None:
    """TestValidate's audit annotation cases: a string is published, null excluded, an error
    denies under Fail and is excluded under Ignore."""
    annotations = (
        AuditAnnotation("a", "null"),
        AuditAnnotation("b", "'string value'"),
        AuditAnnotation("c", "object.nope"),
        AuditAnnotation("d", "1"),
    )
    _, audit = validate(compile_policy(Policy("P", audit_annotations=annotations)), REQUEST)
    assert [(a.key, a.value, a.error) for a in audit] == [
        ("b", "string value", ""),
        ("c", "", "expression 'object.nope' resulted in error: no such key: nope"),
        ("d", "", "valueExpression '1' resulted in unsupported return type: int. Return type must be either string "
         "or null."),
    ]  # fmt: skip
    _, ignored = validate(compile_policy(Policy("P", audit_annotations=annotations, failure_policy=IGNORE)), REQUEST)
    assert [a.key for a in ignored] == ["b", "d"]


# ------------------------------------------------------------------ the recorded words of kube-apiserver v1.35


BINDING = Binding("B")


def _refusal(policy: Policy, binding: Binding = BINDING, params: tuple[Any, ...] = ()) -> tuple[str, int] | None:
    result = verdict([dispatch_binding(policy, binding, REQUEST, params)])
    return None if result.denial is None else (result.denial.text, result.denial.code)


@pytest.mark.parametrize(
    ("policy", "text", "code"),
    [
        (
            _policy(Validation("object.spec.containers.all(c, has(c.resources.limits))", message="limits required")),
            "ValidatingAdmissionPolicy 'P' with binding 'B' denied request: limits required",
            422,
        ),
        (
            _policy(Validation(FAILED, message="m", reason="Forbidden")),
            "ValidatingAdmissionPolicy 'P' with binding 'B' denied request: m",
            403,
        ),
        (
            _policy(Validation(FAILED, message="m", reason="RequestEntityTooLarge")),
            "ValidatingAdmissionPolicy 'P' with binding 'B' denied request: m",
            413,
        ),
        (
            _policy(Validation("size(object.metadata.name) > 10")),
            "ValidatingAdmissionPolicy 'P' with binding 'B' denied request: failed expression: "
            "size(object.metadata.name) > 10",
            422,
        ),
        (
            _policy(Validation(FAILED, message="fallback", message_expression="object.missing + 'x'")),
            "ValidatingAdmissionPolicy 'P' with binding 'B' denied request: fallback",
            422,
        ),
        (
            _policy(Validation("object.metadata.labels.team == 'a'")),
            "ValidatingAdmissionPolicy 'P' with binding 'B' denied request: expression "
            "'object.metadata.labels.team == 'a'' resulted in error: no such key: team",
            422,
        ),
        (
            _policy(
                Validation(
                    "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, "
                    "[1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, "
                    "true))))))"
                )
            ),
            "ValidatingAdmissionPolicy 'P' with binding 'B' denied request: expression '[1,2,3,4,5,6,7,8,9,10]"
            ".all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, "
            "[1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true))))))' resulted in error: "
            "operation cancelled: actual cost limit exceeded",
            422,
        ),
    ],
)
def test_the_refusal_is_worded_as_the_api_server(policy: Policy, text: str, code: int) -> None:
    assert _refusal(policy) == (text, code)


def test_missing_params_with_deny_refuse_the_binding() -> None:
    policy = _policy(Validation("params.data.team == 'a'"), has_param_kind=True)
    binding = Binding("B", has_param_ref=True, parameter_not_found_action=DENY)
    assert _refusal(policy, binding) == (
        "ValidatingAdmissionPolicy 'P' with binding 'B' denied request: failed to configure binding: " + NO_PARAMS_DENY,
        422,
    )
    assert NO_PARAMS_DENY == "no params found for policy binding with `Deny` parameterNotFoundAction"
    allow = Binding("B", has_param_ref=True, parameter_not_found_action="Allow")
    assert _refusal(policy, allow) is None
    found = ({"data": {"team": "b"}}, {"data": {"team": "a"}})
    assert _refusal(policy, allow, found) == (
        "ValidatingAdmissionPolicy 'P' with binding 'B' denied request: failed expression: params.data.team == 'a'",
        422,
    )


def test_a_policy_configuration_error() -> None:
    outcome = configuration_error(Policy("P"), None, "paramKind kind `v1, Kind=Missing` not known")
    assert outcome.denials[0].text == (
        "ValidatingAdmissionPolicy 'P' denied request: failed to configure policy: "
        "paramKind kind `v1, Kind=Missing` not known"
    )
    assert configuration_error(Policy("P", failure_policy=IGNORE), None, "x").denials == ()


def test_warn_and_audit_actions() -> None:
    policy = _policy(Validation(FAILED, message="needs a team"))
    warned = verdict([dispatch_binding(policy, Binding("B", validation_actions=(WARN,)), REQUEST)])
    assert warned.denial is None
    assert warned.warnings == ("Validation failed for ValidatingAdmissionPolicy 'P' with binding 'B': needs a team",)
    audited = verdict([dispatch_binding(policy, Binding("B", validation_actions=(AUDIT,)), REQUEST)])
    assert audited.denial is None and audited.warnings == ()
    assert audited.audit_annotations == (
        (
            VALIDATION_FAILURE_ANNOTATION,
            '[{"message":"needs a team","policy":"P","binding":"B","expressionIndex":0,"validationActions":["Audit"]}]',
        ),
    )


def test_variables_are_lazy_cached_and_their_errors_named() -> None:
    policy = _policy(
        Validation("variables.replicas < 2", message_expression="'has ' + string(variables.replicas)"),
        variables=(Variable("replicas", "size(object.spec.containers) * 3"), Variable("bad", "object.nope")),
    )
    assert _refusal(policy) == ("ValidatingAdmissionPolicy 'P' with binding 'B' denied request: has 3", 422)
    bad = _policy(Validation("variables.bad == 1"), variables=(Variable("bad", "object.nope"),))
    assert _refusal(bad) == (
        "ValidatingAdmissionPolicy 'P' with binding 'B' denied request: expression 'variables.bad == 1' resulted "
        'in error: composited variable "bad" fails to evaluate: no such key: nope',
        422,
    )


def test_match_conditions_see_no_namespace_object() -> None:
    """matchconditions.Matcher hands its conditions no namespace; the validations see it."""
    request = PolicyRequest(POD, None, REQUEST.request, env.namespace_object({"metadata": {"name": "default"}}))
    policy = _policy(
        Validation("namespaceObject.metadata.name == 'other'", message="seen"),
        match_conditions=(MatchCondition("no-namespace", "namespaceObject == null"),),
    )
    result = verdict([dispatch_binding(policy, BINDING, request)])
    assert result.denial is not None and result.denial.message == "seen"


def test_match_conditions() -> None:
    """All true: evaluated; any false: skipped (even beside an error); an error under Ignore: skipped."""
    denies = Validation(FAILED, message="no")
    matched = _policy(denies, match_conditions=(MatchCondition("a", "true"), MatchCondition("b", "1 == 1")))
    assert _refusal(matched) is not None
    skipped = _policy(denies, match_conditions=(MatchCondition("a", ERRORS), MatchCondition("b", "false")))
    assert _refusal(skipped) is None
    ignored = _policy(denies, match_conditions=(MatchCondition("a", ERRORS),), failure_policy=IGNORE)
    assert _refusal(ignored) is None


def test_a_compile_error_is_reported_as_the_api_server_reports_it() -> None:
    policy = _policy(Validation("x == 1"))
    assert compile_policy(policy).compile_errors == (
        "compilation failed: ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x == 1\n | ^",
    )
    assert _refusal(policy) == (
        "ValidatingAdmissionPolicy 'P' with binding 'B' denied request: compilation error: compilation failed: "
        "ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x == 1\n | ^",
        422,
    )
    # params is declared only for a policy with a paramKind
    assert compile_policy(_policy(Validation("params.a == 1"))).compile_errors != ()
    assert compile_policy(_policy(Validation("params.a == 1"), has_param_kind=True)).compile_errors == ()


def test_the_authorizer_is_not_evaluated() -> None:
    policy = _policy(Validation("authorizer.group('').resource('pods').check('create').allowed()"))
    outcome = dispatch_binding(policy, Binding("B"), REQUEST)
    assert outcome.denials == ()
    assert [(d.action, d.evaluation, d.not_evaluated) for d in outcome.not_evaluated] == [
        (Action.NOT_EVALUATED, Evaluation.NOT_EVALUATED, "authorizer")
    ]
    absorbed = _policy(Validation("true || authorizer.group('').check('create').allowed()"))
    assert dispatch_binding(absorbed, Binding("B"), REQUEST).not_evaluated == ()


@pytest.mark.parametrize(
    ("expression", "what"),
    [
        ("timestamp(object.metadata.creationTimestamp) > timestamp('2020-01-01T00:00:00Z')", "cel:timestamp"),
        ("type(object.spec) == map", "cel:type"),
        ("'%s'.format([object.kind]) == 'Pod'", "cel:format"),
        ("object.spec.containers.sortBy(c, c.name).size() > 0", "cel:sortBy"),
    ],
)
def test_what_the_api_server_declares_and_podwhy_lacks_is_not_evaluated(expression: str, what: str) -> None:
    """A function of the API server's CEL environment (cel-go's standard library, ext.Strings v2,
    ext.Lists v3) podwhy does not evaluate: not evaluated, never a compile error it would not give."""
    policy = _policy(Validation(expression))
    assert compile_policy(policy).compile_errors == ()
    outcome = dispatch_binding(policy, Binding("B"), REQUEST)
    assert outcome.denials == ()
    assert [d.not_evaluated for d in outcome.not_evaluated] == [what]


def test_the_first_denial_of_all_bindings_is_the_answer() -> None:
    first = dispatch_binding(_policy(Validation(FAILED, message="one")), Binding("B1"), REQUEST)
    second = dispatch_binding(Policy("Q", validations=(Validation(FAILED, message="two"),)), Binding("B2"), REQUEST)
    result = verdict([first, second])
    assert result.denial is not None
    assert result.denial.text == "ValidatingAdmissionPolicy 'P' with binding 'B1' denied request: one"


def test_the_namespace_object_keeps_what_the_api_server_keeps() -> None:
    namespace = {
        "metadata": {"name": "default", "labels": {"a": "b"}, "managedFields": [{}], "ownerReferences": [{}]},
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }
    assert env.namespace_object(namespace) == {
        "metadata": {"name": "default", "labels": {"a": "b"}},
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }
