"""One object decoded into the typed model: how each kind and apiVersion is read (the kind
tables of snapshots and of manifests), the decoding of its JSON with a `null` read as Go reads it,
its conversion to the model's version (or the one-line refusal), and the checks the API server
guarantees of every object. The readers of snapshot/decode.py call these for every object."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from podwhy.errors import PodwhyError
from podwhy.model.objects import (
    KIND_TYPES,
    KINDS,
    KUEUE_KINDS,
    MANIFEST_KIND_TYPES,
    table_kind,
)
from podwhy.model.quantity import QuantityError, parse_quantity
from podwhy.snapshot import apiversions as versions
from podwhy.snapshot import fastyaml, limits, yaml11
from podwhy.snapshot.names import generated_name


class Reading(msgspec.Struct, frozen=True):
    """How objects of one kind and apiVersion are read: decoded as WIRE (the model's own type
    for most versions), checked for YAML doubts, then converted (apiversions.py)."""

    wire: type[msgspec.Struct]
    decoder: msgspec.json.Decoder[Any]
    doubtful: Callable[[Any], bool]
    convert: Callable[[Any], Any] | None


class _Unmade(msgspec.Struct, frozen=True):
    """A Reading not made yet: its decoder is built when an object of its kind is first read (a
    decoder of every kind and version costs tens of milliseconds at start; a command reads a few)."""

    wire: type[msgspec.Struct]
    convert: Callable[[Any], Any] | None


# Each wire type's Reading, shared by the kind tables (snapshots' and manifests' read most alike).
_MADE: dict[tuple[type[msgspec.Struct], Callable[[Any], Any] | None], Reading] = {}


def _made(how: Reading | str | _Unmade) -> Reading | str:
    if not isinstance(how, _Unmade):
        return how
    key = (how.wire, how.convert)
    made = _MADE.get(key)
    if made is None:
        made = _MADE[key] = Reading(how.wire, msgspec.json.Decoder(how.wire), fastyaml.doubtful(how.wire), how.convert)
    return made


class KindTable:
    """The kinds one kind of input holds, each with how every apiVersion of it is read."""

    def __init__(self, types: dict[str, type[msgspec.Struct]], manifests: bool) -> None:
        self.types = types
        # kind -> apiVersion -> its Reading (made when first asked for), or why that version is refused.
        self.readings: dict[str, dict[str, Reading | str | _Unmade]] = {}
        self._groups: dict[str, frozenset[str]] = {}
        self._unversioned: dict[str, Reading | str | _Unmade] = {}
        for kind, tp in types.items():
            by_version: dict[str, Reading | str | _Unmade] = {}
            for api_version, how in versions.VERSIONS[kind].items():
                if isinstance(how, versions.Refused):
                    by_version[api_version] = how.why
                    continue
                by_version[api_version] = _Unmade(how.wire or tp, how.convert)
            self.readings[kind] = by_version
            self._groups[kind] = frozenset(versions.group_of(v) for v in by_version)
            # No apiVersion: a kind of one shape reads as its newest version; any other is refused.
            why = versions.no_version(kind)
            self._unversioned[kind] = why if why is not None else next(iter(by_version.values()))
        # Manifests (`-f`) are objects before the API server saw them: one with only
        # metadata.generateName gets a name, and one without a namespace keeps it unset.
        self.manifests = manifests

    @staticmethod
    def key(kind: str, api_version: str) -> str:
        """The kind an object of KIND and API_VERSION is filed under: KIND, or `Kind.group` for a
        kind another API group's kind shares the name of (Kueue's `Workload`, kinds.table_kind)."""
        return table_kind(kind, api_version)

    def reading(self, kind: str, api_version: str) -> Reading | str | None:
        """How to read an object of KIND (as `key` files it) and API_VERSION: its Reading, why it
        cannot be read (a string), or None when it is no kind this table reads (a custom
        resource's `Service`)."""
        by_version = self.readings.get(kind)
        if by_version is None:
            return None
        how = by_version.get(api_version)
        if how is not None:
            if isinstance(how, _Unmade):  # asked of every object read: made once, then kept here
                how = by_version[api_version] = _made(how)
            return how
        if not api_version:
            return _made(self._unversioned[kind])
        group = versions.group_of(api_version)
        if group in self._groups[kind] or versions.is_builtin_group(group):
            return versions.unknown_version(kind, api_version)
        return None

    def ignored_as(self, kind: str, api_version: str) -> str:
        """The name an object of no kind this table reads is counted under."""
        if not kind:
            return "<no kind>"
        return f"{kind} ({api_version})" if kind in self.readings else kind


SNAPSHOT_KINDS = KindTable(KIND_TYPES, manifests=False)
MANIFEST_KINDS = KindTable(MANIFEST_KIND_TYPES, manifests=True)


def refused(source: str, where: str, kind: str, name: str, why: str) -> PodwhyError:
    """The one-line error for an object whose apiVersion podwhy cannot read."""
    label = f"{kind} {name!r}" if name else kind
    return PodwhyError(f"{source}: {where} ({label}): {why}")


def converted(how: Reading, obj: Any, source: str, where: str, kind: str) -> Any:
    """OBJ, decoded as HOW's wire struct, in the model's version; a version whose field has no
    one-to-one counterpart (apiversions.NotConvertible) is refused in one line naming it."""
    if how.convert is None:
        return obj
    try:
        return how.convert(obj)
    except versions.NotConvertible as exc:
        raise refused(source, where, kind, obj.metadata.name, f"{exc.field}: {exc.why}") from None


def check_object(kind: str, obj: Any, source: str, where: str, manifests: bool = False) -> None:
    """What the API server guarantees of every object, checked once so an error names the object.

    MANIFESTS: OBJ is a manifest: with only metadata.generateName it is named as the API server
    would name it (podwhy's own suffix, see names.generated_name), and its namespace stays unset
    for the command's -n to fill."""
    meta = obj.metadata
    if not meta.name and manifests and meta.generate_name:
        meta.name = generated_name(meta.generate_name, f"{kind}/{meta.namespace}/{meta.generate_name}/{where}")
    if not meta.name:
        raise PodwhyError(f"{source}: {where} ({kind}) has no metadata.name")
    if kind == "Pod":
        if not meta.namespace and not manifests:
            meta.namespace = "default"
        for index, claim in enumerate(obj.spec.resource_claims):
            if claim.source is not None:
                why = f"spec.resourceClaims[{index}].source: {versions.CLASSIC_DRA_POD}"
                raise PodwhyError(f"{source}: {where} (Pod {meta.name!r}): {why}")
    if kind in KUEUE_KINDS and (past := limits.kueue_past_bound(obj)) is not None:
        raise PodwhyError(f"{source}: {where} ({kind} {meta.name!r}): {past}")
    info = KINDS.get(kind)
    quantities = info.quantities if info is not None and info.type is type(obj) else None
    if quantities is None:
        return
    try:
        for resources in quantities(obj):
            for raw in resources.values():
                parse_quantity(raw)
    except QuantityError as exc:
        raise PodwhyError(f"{source}: {where} ({kind} {obj.metadata.name!r}): {exc.message}") from None


def decode_typed(decoder: msgspec.json.Decoder[Any], data: bytes | msgspec.Raw) -> Any:
    """DATA decoded by DECODER, a JSON `null` read as Go's encoding/json reads it: a field keeps
    its zero value, as if absent (a nil slice or map, "", 0, a nil pointer), and a map's or
    list's null string is "" (what the reference YAML reader does with a YAML null).

    The API server writes `null` for an empty slice or map whose field is not omitempty (a
    CSINode's `spec.drivers` until a driver registers, an image's `names`): every list and map
    field of every kind may hold one. Objects without such a null take the one fast decode."""
    try:
        return decoder.decode(data)
    except msgspec.ValidationError as first:
        try:
            value = msgspec.json.decode(data)
        except msgspec.DecodeError:
            raise first from None
        value, found = _nulls_as_scalars(value)
        if not found:
            raise
        # msgspec 0.23 types Decoder.type as a TypeForm, older releases as a type: either way the struct.
        struct_type: Any = decoder.type
        return yaml11.convert(value, struct_type)


def _nulls_as_scalars(value: Any) -> tuple[Any, bool]:
    """VALUE with each null as the reference YAML reader's null scalar; whether there was one."""
    if value is None:
        return yaml11.Scalar(None, "null"), True
    found = False
    if isinstance(value, dict):
        for key, member in value.items():
            if member is None or isinstance(member, dict | list):
                value[key], was = _nulls_as_scalars(member)
                found = found or was
    elif isinstance(value, list):
        for index, member in enumerate(value):
            if member is None or isinstance(member, dict | list):
                value[index], was = _nulls_as_scalars(member)
                found = found or was
    return value, found
