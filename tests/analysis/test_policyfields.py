"""satisfyPolicy's candidates (issue 38): what a ValidatingAdmissionPolicy's validation requires,
read from its expression's syntax tree (analysis/suggest/policyfields.py), and the fields of a
pod it does not satisfy, with the values each may take (analysis/suggest/policy.py), in tables
of expression shapes, those that offer nothing among them.

The expressions are those Kyverno generates for its CEL policies (`variables.containers`, has()
over resources), the Kubernetes documentation's ValidatingAdmissionPolicy examples (`in [...]`
lists of label values, quantity comparisons) and the shapes they take written otherwise."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from podwhy.analysis.suggest.policy import candidates
from podwhy.analysis.suggest.policyfacts import ContainerResource, FieldSet, FieldUnset, MetadataKey, OtherField
from podwhy.analysis.suggest.policyfacts import ValueFrom as V
from podwhy.analysis.suggest.policyfields import Requirement, requirements
from podwhy.analysis.suggest.policyfields import Test as T  # noqa: N817
from podwhy.model import objects as o

C = ("spec", "containers", "*")
LIMITS = (*C, "resources", "limits")
REQUESTS = (*C, "resources", "requests")
INIT = ("spec", "initContainers", "*")
TEAM = ("metadata", "labels", "team")
KYVERNO_VARIABLES = {"containers": "object.spec.containers + object.spec.?initContainers.orValue([])"}


@pytest.mark.parametrize(
    ("expression", "variables", "expected"),
    [
        # Kyverno's require-limits, through a variable, a messageExpression aside.
        (
            "variables.containers.all(c, has(c.resources.limits) && 'memory' in c.resources.limits)",
            {"containers": "object.spec.containers"},
            [Requirement(LIMITS, T.PRESENT), Requirement((*LIMITS, "memory"), T.PRESENT)],
        ),
        # has() all the way down.
        (
            "object.spec.containers.all(c, has(c.resources) && has(c.resources.limits) && "
            "has(c.resources.limits.memory))",
            {},
            [
                Requirement((*C, "resources"), T.PRESENT),
                Requirement(LIMITS, T.PRESENT),
                Requirement((*LIMITS, "memory"), T.PRESENT),
            ],
        ),
        # A list made of two (init containers optional), and a variable of a variable.
        (
            "variables.all.all(c, has(c.resources.requests.cpu))",
            {"all": "variables.containers", **KYVERNO_VARIABLES},
            [
                Requirement((*REQUESTS, "cpu"), T.PRESENT),
                Requirement((*INIT, "resources", "requests", "cpu"), T.PRESENT),
            ],
        ),
        # size(filter(...)) == 0 is all(!...).
        (
            "size(object.spec.containers.filter(c, !has(c.resources.limits.cpu))) == 0",
            {},
            [Requirement((*LIMITS, "cpu"), T.PRESENT)],
        ),
        (
            "object.spec.containers.filter(c, has(c.resources.limits.cpu)).size() > 0",
            {},
            [Requirement((*LIMITS, "cpu"), T.PRESENT)],
        ),
        # A negated has() requires nothing; what the || leaves is required.
        (
            "!has(object.spec.hostNetwork) || object.spec.hostNetwork == false",
            {},
            [Requirement(("spec", "hostNetwork"), T.ONE_OF, ("false",))],
        ),
        # Labels: a list of values, ==, a map's key, index syntax.
        (
            "object.metadata.labels.team in ['payments', 'search']",
            {},
            [Requirement(TEAM, T.ONE_OF, ('"payments"', '"search"'))],
        ),
        ("object.metadata.labels['team'] == 'payments'", {}, [Requirement(TEAM, T.ONE_OF, ('"payments"',))]),
        ("'team' in object.metadata.labels", {}, [Requirement(TEAM, T.PRESENT)]),
        ("!(object.metadata.labels.team != 'payments')", {}, [Requirement(TEAM, T.ONE_OF, ('"payments"',))]),
        # Quantities: compareTo both ways round, isGreaterThan negated, an exact one.
        (
            "object.spec.containers.all(c, quantity(c.resources.limits.memory).compareTo(quantity('1Gi')) <= 0)",
            {},
            [Requirement((*LIMITS, "memory"), T.AT_MOST, ("1Gi",))],
        ),
        (
            "object.spec.containers.all(c, 0 <= quantity(c.resources.requests.cpu).compareTo(quantity('100m')))",
            {},
            [Requirement((*REQUESTS, "cpu"), T.AT_LEAST, ("100m",))],
        ),
        (
            "object.spec.containers.all(c, !quantity(c.resources.limits.cpu).isGreaterThan(quantity('2')))",
            {},
            [Requirement((*LIMITS, "cpu"), T.AT_MOST, ("2",))],
        ),
        (
            "quantity(object.spec.containers[0].resources.limits.cpu).compareTo(quantity('1')) == 0",
            {},
            [Requirement((*LIMITS, "cpu"), T.AT_MOST, ("1",)), Requirement((*LIMITS, "cpu"), T.AT_LEAST, ("1",))],
        ),
        # cel.bind and a conditional.
        (
            "cel.bind(cs, object.spec.containers, cs.all(c, has(c.resources.limits.memory)))",
            {},
            [Requirement((*LIMITS, "memory"), T.PRESENT)],
        ),
        (
            "object.spec.?hostPID.orValue(false) ? false : has(object.metadata.labels.team)",
            {},
            [Requirement(TEAM, T.PRESENT)],
        ),
        # Nothing: a strict bound (no value is it), a string function, a name, a variable naming itself.
        ("object.spec.containers.all(c, quantity(c.resources.limits.cpu).isLessThan(quantity('2')))", {}, []),
        ("object.spec.containers.all(c, c.image.startsWith('registry.example.com/'))", {}, []),
        ("request.userInfo.username == 'admin'", {}, []),
        ("variables.loop", {"loop": "variables.loop"}, []),
        ("object.spec.containers.all(c, ", {}, []),  # does not parse
    ],
)
def test_what_an_expression_requires(expression: str, variables: dict[str, str], expected: list[Requirement]) -> None:
    assert list(requirements(expression, variables)) == expected


def _obj(*containers: dict[str, Any], labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {"metadata": {"name": "web-0", "labels": labels or {}}, "spec": {"containers": list(containers)}}


def _web(requests: dict[str, str] | None = None, limits: dict[str, str] | None = None) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    if requests:
        resources["requests"] = requests
    if limits:
        resources["limits"] = limits
    return {"name": "web", "resources": resources}


def _limit_range(**items: dict[str, str]) -> o.LimitRange:
    return msgspec.convert(
        {"metadata": {"name": "defaults", "namespace": "shop"}, "spec": {"limits": [{"type": "Container", **items}]}},
        o.LimitRange,
    )


WEB_MEMORY_LIMIT = ContainerResource("web", "limits", "memory")
HAS_MEMORY_LIMIT = [Requirement((*LIMITS, "memory"), T.PRESENT)]


@pytest.mark.parametrize(
    ("found", "obj", "ranges", "choices", "unset"),
    [
        # A missing limit: the container's own request (limits = requests).
        (
            HAS_MEMORY_LIMIT,
            _obj(_web({"memory": "256Mi"})),
            [],
            [[FieldSet(WEB_MEMORY_LIMIT, "256Mi", V.OWN_REQUEST)]],
            [],
        ),
        # Then the LimitRange's default, as the API server defaults it (max where default is unset).
        (
            HAS_MEMORY_LIMIT,
            _obj(_web({"memory": "256Mi"})),
            [_limit_range(max={"memory": "1Gi"})],
            [
                [
                    FieldSet(WEB_MEMORY_LIMIT, "256Mi", V.OWN_REQUEST),
                    FieldSet(WEB_MEMORY_LIMIT, "1Gi", V.LIMIT_RANGE_DEFAULT, "defaults"),
                ]
            ],
            [],
        ),
        (
            HAS_MEMORY_LIMIT,
            _obj(_web()),
            [_limit_range(default={"memory": "512Mi"})],
            [[FieldSet(WEB_MEMORY_LIMIT, "512Mi", V.LIMIT_RANGE_DEFAULT, "defaults")]],
            [],
        ),
        # A missing request: its own limit, else the default request.
        (
            [Requirement((*REQUESTS, "cpu"), T.PRESENT)],
            _obj(_web(limits={"cpu": "1"})),
            [],
            [[FieldSet(ContainerResource("web", "requests", "cpu"), "1", V.OWN_LIMIT)]],
            [],
        ),
        # Neither a request nor a default: not set, named.
        (HAS_MEMORY_LIMIT, _obj(_web({"cpu": "1"})), [], [], [FieldUnset(WEB_MEMORY_LIMIT)]),
        # Already there: nothing to do.
        (HAS_MEMORY_LIMIT, _obj(_web(limits={"memory": "1Gi"})), [], [], []),
        # A bound: the own value only if within it, else the bound.
        (
            [*HAS_MEMORY_LIMIT, Requirement((*LIMITS, "memory"), T.AT_MOST, ("1Gi",))],
            _obj(_web({"memory": "2Gi"})),
            [],
            [[FieldSet(WEB_MEMORY_LIMIT, "1Gi", V.POLICY_BOUND)]],
            [],
        ),
        (
            [Requirement((*LIMITS, "memory"), T.AT_MOST, ("1Gi",))],
            _obj(_web(limits={"memory": "4Gi"})),
            [],
            [[FieldSet(WEB_MEMORY_LIMIT, "1Gi", V.POLICY_BOUND)]],
            [],
        ),
        # A label: the first value the list accepts; has() alone, or another value there: named.
        (
            [Requirement(TEAM, T.ONE_OF, ('"payments"', '"search"'))],
            _obj(_web()),
            [],
            [[FieldSet(MetadataKey("labels", "team"), "payments", V.POLICY_VALUES)]],
            [],
        ),
        ([Requirement(TEAM, T.PRESENT)], _obj(_web()), [], [], [FieldUnset(MetadataKey("labels", "team"))]),
        (
            [Requirement(TEAM, T.ONE_OF, ('"payments"',))],
            _obj(_web(), labels={"team": "search"}),
            [],
            [],
            [FieldUnset(MetadataKey("labels", "team"), ('"payments"',), '"search"')],
        ),
        # Any other field: named with the values it accepts.
        (
            [Requirement(("spec", "hostNetwork"), T.ONE_OF, ("false",))],
            {"spec": {"hostNetwork": True, "containers": []}},
            [],
            [],
            [FieldUnset(OtherField("spec.hostNetwork"), ("false",), "true")],
        ),
        # Init containers absent: nothing is required of them.
        ([Requirement((*INIT, "resources", "limits", "cpu"), T.PRESENT)], _obj(_web()), [], [], []),
    ],
)
def test_the_fields_to_set_and_their_values(
    found: list[Requirement],
    obj: dict[str, Any],
    ranges: list[o.LimitRange],
    choices: list[list[FieldSet]],
    unset: list[FieldUnset],
) -> None:
    got, missing = candidates(found, obj, ranges)
    assert [list(c.options) for c in got] == choices
    assert missing == unset
