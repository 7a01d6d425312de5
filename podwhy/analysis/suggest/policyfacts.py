"""satisfyPolicy as typed facts: what a ValidatingAdmissionPolicy's failing expression requires of
a pod its controller cannot create, the fields a suggestion sets (each value with where it comes
from), whether the pod is then created and fits, and what podwhy could not suggest and why.
report/words/suggestpolicy.py says them; analysis/suggest/policy.py finds them. A leaf: nothing
here imports the machinery that finds them.
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar

import msgspec

from podwhy.verdict import Verdict

# ---- the fields a policy's expression tests ----


class ContainerResource(msgspec.Struct, frozen=True):
    """`resources.<kind>.<resource>` of a container (an init container's: `init`)."""

    container: str
    kind: str  # "limits" or "requests"
    resource: str
    init: bool = False


class MetadataKey(msgspec.Struct, frozen=True):
    """A label or an annotation of the pod (`kind`: "labels" or "annotations")."""

    kind: str
    key: str


class OtherField(msgspec.Struct, frozen=True):
    """Any other field of the pod, as a path from the object (`spec.hostNetwork`,
    `spec.containers[*].securityContext.runAsNonRoot`)."""

    path: str


FieldRef = ContainerResource | MetadataKey | OtherField


class ValueFrom(StrEnum):
    """Where a value set comes from."""

    OWN_REQUEST = "ownRequest"  # a limit: the container's request of the resource
    OWN_LIMIT = "ownLimit"  # a request: the container's limit of the resource
    LIMIT_RANGE_DEFAULT = "limitRangeDefault"  # a limit: the namespace's LimitRange `default`
    LIMIT_RANGE_DEFAULT_REQUEST = "limitRangeDefaultRequest"  # a request: its `defaultRequest`
    POLICY_VALUES = "policyValues"  # the first of the values the expression accepts (`in [...]`, `==`)
    POLICY_BOUND = "policyBound"  # the quantity the expression compares with


class FieldSet(msgspec.Struct, frozen=True):
    """A field a suggestion sets, to VALUE, from SOURCE (`limit_range`: the LimitRange whose
    default it is)."""

    field: FieldRef
    value: str
    source: ValueFrom
    limit_range: str = ""


class FieldUnset(msgspec.Struct, frozen=True):
    """A field the expression requires that podwhy cannot set: no value is determinable (a label
    only tested with has()), or it would change what the pod has (`accepted`: the values the
    expression accepts, as JSON, when it lists them)."""

    field: FieldRef
    accepted: tuple[str, ...] = ()
    # The pod has the field, with a value the expression does not accept (JSON).
    has: str = ""


# ---- the suggestion ----


class SatisfyPolicy(msgspec.Struct, frozen=True):
    """Set fields of the pod template so that the ValidatingAdmissionPolicy `policy` (its
    validation `validation`, the first that failed) admits the pod; verified: the whole admission
    run again on the changed pod (every policy and plugin; `also`: the other policies whose
    validations the change satisfies too, found failing on the way), and the pod's scheduling
    cycle: its `verdict` then (`message`: the scheduler's, when it would stay Pending). What
    admission then leaves open: the webhooks it meets (never called) and the policies podwhy
    does not evaluate."""

    KIND: ClassVar[str] = "satisfyPolicy"

    # The workload whose pod template is changed (a Pod of check's manifests: the Pod itself).
    kind: str
    namespace: str
    name: str
    policy: str
    validation: int | None
    sets: tuple[FieldSet, ...]
    verdict: Verdict
    message: str = ""
    also: tuple[str, ...] = ()
    webhooks: tuple[str, ...] = ()
    unevaluated: tuple[str, ...] = ()


# ---- what podwhy could not suggest ----


class PolicyValuesUnknown(msgspec.Struct, frozen=True):
    """The expression requires fields podwhy cannot set (a value not determinable): named, not a
    verified change."""

    policy: str
    validation: int | None
    fields: tuple[FieldUnset, ...]


class PolicyFixRefused(msgspec.Struct, frozen=True):
    """The change that satisfies the policy is refused by the rest of admission (a LimitRange's
    max, a ResourceQuota, the pod's validation, another policy): the API server's `words`, by
    `plugin`. Not offered."""

    policy: str
    sets: tuple[FieldSet, ...]
    plugin: str
    words: str


class PolicyNothingFound(msgspec.Struct, frozen=True):
    """No field podwhy can set is found in the failing validation's `expression`."""

    policy: str
    validation: int | None
    expression: str


PolicyNote = PolicyValuesUnknown | PolicyFixRefused | PolicyNothingFound
