"""What every object shares (apimachinery's meta/v1): ObjectMeta, owner references, label
selectors; and the field types of the model (Go's int32 and int64, resource lists)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from podwhy.model.quantity import QuantityInput

ResourceList = dict[str, QuantityInput]

# Go's int32 and int64: the API server rejects a value outside its field's range, and so does
# decoding (a one-line error naming the field).
Int32 = Annotated[int, msgspec.Meta(ge=-(2**31), le=2**31 - 1)]
Int64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]


class _Base(msgspec.Struct, rename="camel", kw_only=True, omit_defaults=True, gc=False):
    pass


class OwnerReference(_Base):
    kind: str = ""
    name: str = ""
    uid: str = ""
    controller: bool | None = None
    api_version: str = ""


class ObjectMeta(_Base):
    name: str = ""
    namespace: str = ""
    uid: str = ""
    # Which version of the object this is: when two inputs hold one object, the newer is read.
    resource_version: str = ""
    labels: dict[str, str] = {}
    annotations: dict[str, str] = {}
    deletion_timestamp: str | None = None
    creation_timestamp: str | None = None
    owner_references: list[OwnerReference] = []
    generate_name: str = ""
    # Set with deletionTimestamp, which is the end of this grace period (not when deletion began).
    deletion_grace_period_seconds: Int64 | None = None


class LabelSelectorRequirement(_Base):
    key: str = ""
    operator: str = ""
    values: list[str] = []


class LabelSelector(_Base):
    match_labels: dict[str, str] = {}
    match_expressions: list[LabelSelectorRequirement] = []
