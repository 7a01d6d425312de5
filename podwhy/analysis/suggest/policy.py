"""satisfyPolicy's candidates: from what a ValidatingAdmissionPolicy's failing validation requires
(policyfields.py) and the pod as the policy saw it (its JSON, defaulted and through the mutating
admission plugins), the fields to set and the values each may take, best first, or the fields
podwhy cannot set:

- a container's `resources.limits.<r>` it lacks: its own request of r (limits = requests), else
  the namespace's LimitRange default (`default`, defaulted as the API server defaults it); a
  `resources.requests.<r>`: its own limit, else the LimitRange's `defaultRequest`; a limit or
  request above (below) the quantity the expression compares it with: that quantity. Each value
  must pass every test the expression makes of the field; none that does: not set.
- a label or annotation it lacks: the first value the expression accepts (`in [...]`, `==`);
  tested only for presence (`has()`), or present with a value it does not accept: not set (named).
- any other field the expression tests and the pod does not satisfy: named, not set.

verification (policyverify.py) decides what is offered.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from podwhy.analysis.suggest.policyfacts import (
    ContainerResource,
    FieldRef,
    FieldSet,
    FieldUnset,
    MetadataKey,
    OtherField,
    ValueFrom,
)
from podwhy.analysis.suggest.policyfields import ELEMENT, Path, Requirement, Test
from podwhy.cluster.apiserver.admission.limitranger import defaulted_item
from podwhy.model import objects as o
from podwhy.model.quantity import QuantityError, parse_quantity

# The lists of containers whose resources a suggestion sets.
CONTAINER_LISTS = {"containers": False, "initContainers": True}
RESOURCE_KINDS = ("limits", "requests")
# The other kind of a resource list, whose value a missing one takes, and where it comes from.
_OWN = {"limits": ("requests", ValueFrom.OWN_REQUEST), "requests": ("limits", ValueFrom.OWN_LIMIT)}
_LIMIT_RANGE = {"limits": ValueFrom.LIMIT_RANGE_DEFAULT, "requests": ValueFrom.LIMIT_RANGE_DEFAULT_REQUEST}
LIMIT_RANGE_CONTAINER = "Container"


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()

Where = tuple[str | int, ...]


class Choice(msgspec.Struct, frozen=True):
    """A field to set, and the values it may take, best first (the next is tried when the rest of
    admission refuses the first)."""

    field: FieldRef
    options: tuple[FieldSet, ...]


def candidates(
    found: Sequence[Requirement], obj: Mapping[str, Any], limit_ranges: Sequence[o.LimitRange] = ()
) -> tuple[list[Choice], list[FieldUnset]]:
    """The fields of OBJ (the pod's JSON, as the policy saw it) that FOUND's tests do not hold for:
    those podwhy can set with the values each may take, and those it cannot. LIMIT_RANGES: the
    namespace's."""
    wanted = _unsubsumed(found)
    slots: dict[Where, tuple[Path, Any, list[Requirement]]] = {}
    for requirement in wanted:
        for where, value in _expand(obj, requirement.path):
            slots.setdefault(where, (requirement.path, value, []))[2].append(requirement)
    choices: list[Choice] = []
    unset: list[FieldUnset] = []
    for where, (pattern, value, tests) in slots.items():
        if all(_holds(t, value) for t in tests):
            continue
        ref = _field(where, pattern, obj)
        options = _options(ref, value, tests, obj, where, limit_ranges)
        if options:
            choices.append(Choice(ref, options))
        else:
            accepted = next((t.values for t in tests if t.test is Test.ONE_OF), ())
            unset.append(FieldUnset(ref, accepted, "" if value is MISSING else json.dumps(value)))
    return choices, unset


def _unsubsumed(found: Sequence[Requirement]) -> list[Requirement]:
    """FOUND without the presence tests of a field that holds another tested one (has(c.resources)
    beside has(c.resources.limits.memory)): setting the deeper one makes it present."""
    paths = {r.path for r in found}
    return [
        r
        for r in found
        if r.test is not Test.PRESENT or not any(len(p) > len(r.path) and p[: len(r.path)] == r.path for p in paths)
    ]


def _expand(obj: Any, path: Path) -> list[tuple[Where, Any]]:
    """Each field of OBJ PATH names (ELEMENT: each element of a list, each value of a map), with
    its value or MISSING; a list or map that is absent has no element."""
    out: list[tuple[Where, Any]] = [((), obj)]
    for part in path:
        deeper: list[tuple[Where, Any]] = []
        for where, value in out:
            if part == ELEMENT:
                if isinstance(value, list):
                    deeper += [((*where, i), v) for i, v in enumerate(value)]
                elif isinstance(value, dict):
                    deeper += [((*where, k), v) for k, v in value.items()]
            elif isinstance(value, dict) and value.get(part) is not None:
                deeper.append(((*where, part), value[part]))
            else:
                deeper.append(((*where, part), MISSING))
        out = deeper
    return out


def _quantity(raw: Any) -> Any:
    try:
        return parse_quantity(raw)
    except (QuantityError, TypeError, ValueError):
        return None


def _holds(requirement: Requirement, value: Any) -> bool:
    """Whether VALUE passes the test (a quantity podwhy cannot read passes: nothing to change)."""
    if requirement.test is Test.PRESENT:
        return value is not MISSING
    if value is MISSING:
        return False
    if requirement.test is Test.ONE_OF:
        return json.dumps(value) in requirement.values
    have, bound = _quantity(value), _quantity(requirement.values[0])
    if have is None or bound is None:
        return True
    return bool(have <= bound if requirement.test is Test.AT_MOST else have >= bound)


def _field(where: Where, pattern: Path, obj: Mapping[str, Any]) -> FieldRef:
    """What the field at WHERE is, for the words and the change."""
    match where:
        case ("spec", str(kind), int(index), "resources", str(which), str(resource)) if (
            kind in CONTAINER_LISTS and which in RESOURCE_KINDS
        ):
            name = str(((obj.get("spec") or {}).get(kind) or [{}])[index].get("name", ""))
            return ContainerResource(name, which, resource, CONTAINER_LISTS[kind])
        case ("metadata", "labels" | "annotations" as kind, str(key)):
            return MetadataKey(kind, key)
    return OtherField(".".join(pattern).replace(f".{ELEMENT}", "[*]"))


def _options(
    ref: FieldRef,
    value: Any,
    tests: Sequence[Requirement],
    obj: Mapping[str, Any],
    where: Where,
    limit_ranges: Sequence[o.LimitRange],
) -> tuple[FieldSet, ...]:
    """The values REF may be set to that pass all its TESTS, best first (none: it is not set)."""
    offered: list[FieldSet] = []
    if isinstance(ref, ContainerResource):
        if value is MISSING:
            offered += _own(ref, obj, where) + _limit_range(ref, limit_ranges)
        offered += [FieldSet(ref, t.values[0], ValueFrom.POLICY_BOUND) for t in tests if t.test in _BOUNDS]
    elif isinstance(ref, MetadataKey) and value is MISSING:
        accepted = [json.loads(v) for t in tests if t.test is Test.ONE_OF for v in t.values]
        offered += [FieldSet(ref, v, ValueFrom.POLICY_VALUES) for v in accepted if isinstance(v, str)][:1]
    kept: dict[str, FieldSet] = {}
    for option in offered:
        if all(_holds(t, option.value) for t in tests):
            kept.setdefault(option.value, option)  # one option per value, the best source
    return tuple(kept.values())


_BOUNDS = (Test.AT_MOST, Test.AT_LEAST)


def _own(ref: ContainerResource, obj: Mapping[str, Any], where: Where) -> list[FieldSet]:
    """The container's own value of the resource in its other list (a limit from its request)."""
    other, source = _OWN[ref.kind]
    container = ((obj.get("spec") or {}).get(str(where[1])) or [])[int(where[2])]
    found = ((container.get("resources") or {}).get(other) or {}).get(ref.resource)
    return [FieldSet(ref, str(found), source)] if found is not None else []


def _limit_range(ref: ContainerResource, limit_ranges: Sequence[o.LimitRange]) -> list[FieldSet]:
    """The namespace's LimitRange default for the field (as the API server defaults the item)."""
    out: list[FieldSet] = []
    for limit_range in limit_ranges:
        for item in limit_range.spec.limits:
            if item.type != LIMIT_RANGE_CONTAINER:
                continue
            item = defaulted_item(item)
            defaults = item.default if ref.kind == "limits" else item.default_request
            if ref.resource in defaults:
                out.append(
                    FieldSet(ref, str(defaults[ref.resource]), _LIMIT_RANGE[ref.kind], limit_range.metadata.name)
                )
    return out
