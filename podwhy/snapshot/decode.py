"""The typed decoder every snapshot source uses: bytes of an object, a List or a YAML stream
in, objects of the typed model (model/objects/) out, by kind.

JSON is decoded by msgspec straight into the typed structs (only declared fields are
materialised). YAML is read by the fast reader (rapidyaml, then the same msgspec decoding);
a document or List item it cannot take is read by the reference reader (PyYAML, YAML 1.1),
which also words the errors of malformed YAML. Either way a string field reads a scalar as
it was written (`pod-template-hash: 0755` is "0755") and a null leaves a field unset.
"""

from __future__ import annotations

import codecs
import functools
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec
import yaml

from podwhy.errors import PodwhyError
from podwhy.model.objects import (
    AUTOSCALER_STATUS_CONFIGMAP,
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

if TYPE_CHECKING:
    from podwhy.snapshot.cluster import ObjectKey, Snapshot


class ListMeta(msgspec.Struct, kw_only=True):
    """A List's metadata: where the next page starts and the version it was read at."""

    resource_version: str = msgspec.field(default="", name="resourceVersion")
    continue_: str = msgspec.field(default="", name="continue")
    annotations: dict[str, str] = {}


# On the List a `podwhy snapshot` dump writes: {kind: why} of the kinds it could not fetch, and
# the kinds it fetched in full (a JSON list). The second is what makes the dump complete: a file
# without it vouches only for the kinds it holds objects or typed Lists of (source.VOUCHED_KINDS).
MISSING_KINDS_ANNOTATION = "podwhy.dev/missing-kinds"
FETCHED_KINDS_ANNOTATION = "podwhy.dev/fetched-kinds"
# The API server's gitVersion when `podwhy snapshot` wrote the dump.
SERVER_VERSION_ANNOTATION = "podwhy.dev/server-version"
TAKEN_AT_ANNOTATION = "podwhy.dev/taken-at"
# `podwhy snapshot --redact` wrote the dump: its objects hold only what docs/redact.md lists.
REDACTED_ANNOTATION = "podwhy.dev/redacted"
# The kinds whose stored pod template a snapshot keeps as JSON (Snapshot.raw_templates): a
# Deployment's is its ReplicaSets', with their pod-template-hash label; a Job's is compared with a
# manifest's as the API server's validation of an update compares them.
TEMPLATE_KINDS = frozenset({"ReplicaSet", "StatefulSet", "Job"})


@dataclass(frozen=True)
class Entry:
    """One object of a manifest, where it was read, with its apiVersion and its JSON text as
    written (every field, also those the typed model skips: the API server's strict decoding
    reads them; b"" for an object built, not read)."""

    kind: str
    obj: Any
    source: str
    where: str
    api_version: str = ""
    # The object's JSON as the manifest holds it: every field, read or not (b"" when not kept).
    raw: bytes = b""

    @functools.cached_property
    def document(self) -> Any:
        """RAW decoded once for every step that reads fields the typed model skips (strict
        decoding, the template a rollout compares, the pod a suggestion patches); None when not
        kept. Shared: a step that changes it works on a copy."""
        return msgspec.json.decode(self.raw) if self.raw else None


@dataclass
class Decoded:
    """What one input held."""

    objects: dict[str, list[Any]] = field(default_factory=dict)  # kind -> objects, in input order
    entries: list[Entry] = field(default_factory=list)  # manifests only: every object, in input order
    list_kinds: set[str] = field(default_factory=set)  # kinds of the typed Lists read (PodList: Pod)
    api_versions: dict[str, set[str]] = field(default_factory=dict)  # kind -> the apiVersions it came in
    ignored: Counter[str] = field(default_factory=Counter)  # kinds podwhy does not read
    list_meta: ListMeta | None = None  # the metadata of the (last) List read
    reference_reads: int = 0  # YAML documents or List items the fast reader left to the reference reader
    raw_pods: dict[str, bytes] = field(default_factory=dict)  # unbound pods' JSON, by "namespace/name"
    raw_objects: dict[str, Any] = field(default_factory=dict)  # the pod each of raw_pods is the JSON of
    # Workloads' pod templates as JSON (see Snapshot.raw_templates), and the object each belongs to.
    raw_templates: dict[ObjectKey, bytes] = field(default_factory=dict)
    raw_template_objects: dict[ObjectKey, Any] = field(default_factory=dict)
    # Documents or List items without a kind, where in the input (skipped: inputs found in a folder).
    kindless: list[str] = field(default_factory=list)
    source: str = ""  # the input, as errors name it

    def append(
        self,
        kind: str,
        obj: Any,
        source: str,
        where: str,
        manifests: bool,
        api_version: str = "",
        raw: Callable[[], bytes | None] = lambda: None,
    ) -> None:
        """File OBJ; a manifest's entry keeps its JSON text (RAW makes it only then)."""
        self.objects.setdefault(kind, []).append(obj)
        self.api_versions.setdefault(kind, set()).add(api_version)
        if manifests:
            self.entries.append(Entry(kind, obj, source, where, api_version, raw() or b""))

    def merge(self, other: Decoded) -> None:
        for kind, objs in other.objects.items():
            self.objects.setdefault(kind, []).extend(objs)
        self.entries.extend(other.entries)
        self.raw_pods.update(other.raw_pods)
        self.raw_objects.update(other.raw_objects)
        self.raw_templates.update(other.raw_templates)
        self.raw_template_objects.update(other.raw_template_objects)
        self.kindless.extend(other.kindless)
        self.list_kinds |= other.list_kinds
        for kind, served in other.api_versions.items():
            self.api_versions.setdefault(kind, set()).update(served)
        self.ignored.update(other.ignored)
        if other.list_meta is not None:
            self.list_meta = other.list_meta
        self.reference_reads += other.reference_reads

    def add_to(self, snapshot: Snapshot) -> None:
        """File what this input held in SNAPSHOT; objects it already holds are read once (Snapshot.load)."""
        for kind, objs in self.objects.items():
            snapshot.load(kind, objs, self.source)
        snapshot.kinds_seen |= self.list_kinds
        for kind, served in self.api_versions.items():
            snapshot.api_versions.setdefault(kind, set()).update(served)
        snapshot.ignored_kinds.update(self.ignored)
        for key, data in self.raw_pods.items():
            namespace, _, name = key.partition("/")
            if snapshot.holds(("Pod", namespace, name), self.raw_objects[key]):
                snapshot.raw_pods[key] = data
        for object_key, data in self.raw_templates.items():
            if snapshot.holds(object_key, self.raw_template_objects[object_key]):
                snapshot.raw_templates[object_key] = data
        snapshot.kindless.extend((self.source, where) for where in self.kindless)
        if self.list_meta is not None and MISSING_KINDS_ANNOTATION in self.list_meta.annotations:
            snapshot.missing.update(self.missing_kinds())
        if self.list_meta is not None and FETCHED_KINDS_ANNOTATION in self.list_meta.annotations:
            snapshot.kinds_seen.update(self.fetched_kinds())
        if self.list_meta is not None and self.list_meta.annotations.get(SERVER_VERSION_ANNOTATION):
            snapshot.server_version = self.list_meta.annotations[SERVER_VERSION_ANNOTATION]
            snapshot.server_version_from = "recorded by podwhy snapshot"
        if self.list_meta is not None and self.list_meta.annotations.get(TAKEN_AT_ANNOTATION):
            snapshot.taken_at = self.list_meta.annotations[TAKEN_AT_ANNOTATION]
        if self.list_meta is not None and self.list_meta.annotations.get(REDACTED_ANNOTATION) == "true":
            snapshot.redacted = True

    def missing_kinds(self) -> dict[str, str]:
        """The kinds a `podwhy snapshot` dump could not fetch, with why (its List's annotation)."""
        assert self.list_meta is not None
        text = self.list_meta.annotations[MISSING_KINDS_ANNOTATION]
        try:
            return msgspec.json.decode(text.encode(), type=dict[str, str])
        except msgspec.MsgspecError as exc:
            raise PodwhyError(f"annotation {MISSING_KINDS_ANNOTATION} is not a JSON object of strings: {exc}") from None

    def fetched_kinds(self) -> list[str]:
        """The kinds a `podwhy snapshot` dump fetched in full (its List's annotation)."""
        assert self.list_meta is not None
        text = self.list_meta.annotations[FETCHED_KINDS_ANNOTATION]
        try:
            return msgspec.json.decode(text.encode(), type=list[str])
        except msgspec.MsgspecError as exc:
            raise PodwhyError(f"annotation {FETCHED_KINDS_ANNOTATION} is not a JSON list of strings: {exc}") from None


@dataclass(frozen=True)
class Reading:
    """How objects of one kind and apiVersion are read: decoded as WIRE (the model's own type
    for most versions), checked for YAML doubts, then converted (apiversions.py)."""

    wire: type[msgspec.Struct]
    decoder: msgspec.json.Decoder[Any]
    doubtful: Callable[[Any], bool]
    convert: Callable[[Any], Any] | None


class KindTable:
    """The kinds one kind of input holds, each with how every apiVersion of it is read."""

    def __init__(self, types: dict[str, type[msgspec.Struct]], manifests: bool) -> None:
        self.types = types
        # kind -> apiVersion -> its Reading, or why that version is refused.
        self.readings: dict[str, dict[str, Reading | str]] = {}
        self._groups: dict[str, frozenset[str]] = {}
        self._unversioned: dict[str, Reading | str] = {}
        for kind, tp in types.items():
            by_version: dict[str, Reading | str] = {}
            for api_version, how in versions.VERSIONS[kind].items():
                if isinstance(how, versions.Refused):
                    by_version[api_version] = how.why
                    continue
                wire = how.wire or tp
                by_version[api_version] = Reading(
                    wire, msgspec.json.Decoder(wire), fastyaml.doubtful(wire), how.convert
                )
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
            return how
        if not api_version:
            return self._unversioned[kind]
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


def decode(data: bytes, source: str, *, manifests: bool = False, skip_kindless: bool = False) -> Decoded:
    """Decode DATA (JSON or YAML: an object, a List, or a YAML stream); SOURCE names it in errors.

    MANIFESTS: DATA holds manifests (`-f`): Pods, workload templates and what a chart ships
    alongside them, listed in `entries` in input order, named from generateName when unnamed.
    SKIP_KINDLESS: a document without a kind is skipped and listed in `kindless` (a file found in a
    folder, which may hold other things) rather than refused (a file given by name)."""
    try:
        out = _decode(data, source, MANIFEST_KINDS if manifests else SNAPSHOT_KINDS, skip_kindless)
    except RecursionError:  # JSON nested deeper than the interpreter's recursion limit (about 1,000 levels)
        raise PodwhyError(f"{source}: nested too deeply to read") from None
    out.source = source
    return out


# How much of the input one UTF-8 check decodes at a time (memory stays bounded on large dumps).
_UTF8_CHUNK = 1 << 24


def not_utf8(data: bytes) -> str | None:
    """Where DATA stops being UTF-8 text ("byte 0xc3 at offset 1234"), or None when it is UTF-8.

    JSON and YAML are UTF-8 (RFC 8259; the API server serves nothing else). The whole input is
    checked once, before any reader: msgspec checks only the strings it decodes and words the
    failure differently from one release to the next, so the answer must not depend on it."""
    if data.isascii():
        return None
    view = memoryview(data)
    start = 0
    while start < len(data):
        end = min(len(data), start + _UTF8_CHUNK)
        while start < end < len(data) and data[end] & 0xC0 == 0x80:  # not inside a character
            end -= 1
        try:
            codecs.utf_8_decode(view[start:end], "strict", True)
        except UnicodeDecodeError as exc:
            at = start + exc.start
            return f"byte 0x{data[at]:02x} at offset {at}"
        start = end
    return None


def _decode(data: bytes, source: str, table: KindTable, skip_kindless: bool) -> Decoded:
    stripped = data.lstrip()
    if not stripped:
        return Decoded()
    if stripped[:1] == b"[":
        raise PodwhyError(f"{source}: a top-level JSON array is not a Kubernetes object or List")
    json_input = stripped[:1] == b"{"
    where = not_utf8(data)
    if where is not None:
        what = "the JSON is invalid" if json_input else "malformed YAML"
        raise PodwhyError(f"{source}: {what}: not UTF-8 text ({where})")
    if json_input:
        return _JsonReader(source, table, skip_kindless).read(data)
    try:
        yaml11.check_aliases(data)  # before any reader expands them (limits.py)
    except yaml11.BoundError as exc:
        raise PodwhyError(f"{source}: malformed YAML: {exc.problem}") from None
    return _YamlReader(source, data, table, skip_kindless).read()


def _kindless(out: Decoded, source: str, where: str, skip: bool) -> None:
    """A document or List item without a kind: skipped and listed when SKIP, else refused."""
    if not skip:
        raise PodwhyError(f"{source}: {where} is not a Kubernetes object: it has no kind")
    out.kindless.append(where)


def _yaml_kind(doc: dict[Any, Any], source: str, where: str) -> str:
    """An object's kind, which must be a scalar when present (as the JSON decoder demands)."""
    if "kind" not in doc:
        return ""
    value = doc["kind"]
    if yaml11.is_null(value) or isinstance(value, (list, dict)):
        got = "null" if yaml11.is_null(value) else type(value).__name__
        raise PodwhyError(f"{source}: {where} is not a Kubernetes object: its kind is {got}, not a string")
    return str(yaml11.key_text(value))


def _yaml_api_version(doc: dict[Any, Any], source: str, where: str) -> str:
    """An object's apiVersion ("" when absent or null), which must be a scalar."""
    value = doc.get("apiVersion")
    if yaml11.is_null(value):
        return ""
    if isinstance(value, (list, dict)):
        raise PodwhyError(f"{source}: {where} is not a Kubernetes object: its apiVersion is a {type(value).__name__}")
    return str(yaml11.key_text(value))


class _Envelope(msgspec.Struct):
    kind: str = ""
    apiVersion: str = ""  # noqa: N815 - wire name
    metadata: msgspec.Raw = msgspec.field(default_factory=msgspec.Raw)  # empty when absent
    items: list[msgspec.Raw] | None = None


class _TypePeek(msgspec.Struct):
    kind: str = ""
    apiVersion: str = ""  # noqa: N815 - wire name


class _NamePeekMeta(msgspec.Struct):
    name: str = ""


class _NamePeek(msgspec.Struct):
    metadata: _NamePeekMeta = msgspec.field(default_factory=_NamePeekMeta)


_ENVELOPE = msgspec.json.Decoder(_Envelope)
_PEEK = msgspec.json.Decoder(_TypePeek)
_NAME_PEEK = msgspec.json.Decoder(_NamePeek)
_LIST_META = msgspec.json.Decoder(ListMeta)


# kubectl writes an object's kind first or right after its apiVersion (podwhy's own dumps put
# the apiVersion right after): read there, kind and apiVersion cost no pass over the object.
_LEADING_TYPE = re.compile(
    rb'\s*\{\s*(?:"apiVersion"\s*:\s*"([^"\\]*)"\s*,\s*)?"kind"\s*:\s*"([^"\\]*)"'
    rb'(?:\s*,\s*"apiVersion"\s*:\s*"([^"\\]*)")?'
)


def leading_type(raw: bytes | msgspec.Raw) -> tuple[str, str] | None:
    """The kind and apiVersion the JSON object RAW opens with, as kubectl and the API server write
    them (a custom resource's list items carry both, sorted first); None when it does not."""
    leading = _LEADING_TYPE.match(raw)
    if leading is None:
        return None
    api_version = leading.group(1) if leading.group(1) is not None else leading.group(3)
    return None if api_version is None else (leading.group(2).decode(), api_version.decode())


def peek_type(raw: bytes | msgspec.Raw) -> tuple[str, str]:
    """The kind and apiVersion of the JSON object RAW (msgspec.DecodeError if RAW is no object)."""
    leading = leading_type(raw)
    if leading is not None:
        return leading
    peek = _PEEK.decode(raw)
    return peek.kind, peek.apiVersion


def peek_kind(raw: bytes | msgspec.Raw) -> str:
    """The kind of the JSON object RAW (msgspec.DecodeError if RAW is no object)."""
    return peek_type(raw)[0]


def _json_name(data: bytes | msgspec.Raw) -> str:
    try:
        return _NAME_PEEK.decode(data).metadata.name
    except msgspec.DecodeError:
        return ""


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


def _item_kind(list_kind: str) -> str:
    """The kind of a typed List's items (PodList: Pod); "" for a plain List."""
    return list_kind[: -len("List")] if list_kind.endswith("List") else ""


class _TemplateSpec(msgspec.Struct):
    template: msgspec.Raw = msgspec.Raw()


class _WithTemplate(msgspec.Struct):
    spec: _TemplateSpec | None = None


_WITH_TEMPLATE = msgspec.json.Decoder(_WithTemplate)


def keep_raw(out: Decoded, kind: str, obj: Any, raw: Callable[[], bytes | None]) -> None:
    """Keep the JSON of an unbound pod (see Snapshot.raw_pods), and of the pod template of a kind
    of TEMPLATE_KINDS (Snapshot.raw_templates); `raw` makes it only when needed."""
    if kind in TEMPLATE_KINDS:
        _keep_template(out, kind, obj, raw())
        return
    if kind != "Pod" or obj.spec.node_name:
        return
    data = raw()
    if data is not None:
        key = f"{obj.metadata.namespace}/{obj.metadata.name}"
        out.raw_pods[key] = data
        out.raw_objects[key] = obj


def _keep_template(out: Decoded, kind: str, obj: Any, data: bytes | None) -> None:
    if data is None:
        return
    try:
        spec = _WITH_TEMPLATE.decode(data).spec
    except msgspec.DecodeError:
        return
    if spec is not None and spec.template:
        key = (kind, obj.metadata.namespace, obj.metadata.name)
        out.raw_templates[key] = bytes(spec.template)
        out.raw_template_objects[key] = obj


def _plain_json(doc: Any) -> bytes | None:
    """A document the reference reader loaded, as JSON (None if JSON cannot hold it)."""
    try:
        return msgspec.json.encode(yaml11.plain(doc))
    except (msgspec.EncodeError, TypeError, ValueError):
        return None


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


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its members, in order (repeated keys kept)."""


def json_duplicate_field(data: bytes) -> str | None:
    """The first key some object of the JSON DATA holds twice, by its path as the API server's
    strict decoding names it ("spec.replicas", "items[0].metadata.name"); None if there is none."""

    def walk(value: Any, path: str) -> str | None:
        if isinstance(value, _Pairs):
            seen: set[str] = set()
            for key, item in value:
                field = f"{path}.{key}" if path else key
                if key in seen:
                    return field
                seen.add(key)
                found = walk(item, field)
                if found is not None:
                    return found
        elif isinstance(value, list):
            for index, item in enumerate(value):
                found = walk(item, f"{path}[{index}]")
                if found is not None:
                    return found
        return None

    try:
        return walk(json.loads(data, object_pairs_hook=_Pairs), "")
    except (ValueError, RecursionError):  # what msgspec read, json may not: then no key is named twice
        return None


class _JsonReader:
    def __init__(self, source: str, table: KindTable, skip_kindless: bool) -> None:
        self.source = source
        self.table = table
        self.skip_kindless = skip_kindless
        self.out = Decoded()

    def read(self, data: bytes) -> Decoded:
        try:
            env = _ENVELOPE.decode(data)
        except msgspec.DecodeError as exc:
            raise PodwhyError(f"{self.source}: malformed JSON: {exc}") from None
        if self.table.manifests and not fastyaml.unique_keys(data):
            duplicate = json_duplicate_field(data)
            if duplicate is not None:
                raise PodwhyError(f'{self.source}: duplicate field "{duplicate}" (a JSON object holds a key twice)')
        if env.items is None:
            self._add(env.kind, env.apiVersion, data, "the object")
            return self.out
        item_kind = _item_kind(env.kind)
        if (listed := self.table.key(item_kind, env.apiVersion)) in self.table.types:
            self.out.list_kinds.add(listed)
        if env.metadata:
            try:
                self.out.list_meta = _LIST_META.decode(env.metadata)
            except msgspec.DecodeError as exc:
                raise PodwhyError(f"{self.source}: the List's metadata is invalid: {exc}") from None
        for index, raw in enumerate(env.items):
            # A typed List's items carry no kind or apiVersion: the List's are theirs.
            kind, api_version = item_kind, env.apiVersion
            if not kind:
                try:
                    kind, api_version = peek_type(raw)
                except msgspec.DecodeError:
                    raise PodwhyError(f"{self.source}: items[{index}] is not a Kubernetes object") from None
            self._add(kind, api_version, raw, f"items[{index}]")
        return self.out

    def _add(self, kind: str, api_version: str, data: bytes | msgspec.Raw, where: str) -> None:
        if not kind:
            _kindless(self.out, self.source, where, self.skip_kindless)
            return
        kind = self.table.key(kind, api_version)
        how = self.table.reading(kind, api_version)
        if how is None:
            self.out.ignored[self.table.ignored_as(kind, api_version)] += 1
            return
        if isinstance(how, str):
            raise refused(self.source, where, kind, _json_name(data), how)
        if kind == "ConfigMap" and _json_name(data) != AUTOSCALER_STATUS_CONFIGMAP:
            self.out.ignored[kind] += 1  # podwhy reads no other ConfigMap
            return
        try:
            obj = decode_typed(how.decoder, data)
        except msgspec.DecodeError as exc:  # a ValidationError, or bytes msgspec will not read
            raise PodwhyError(f"{self.source}: {where} ({kind}) is invalid: {exc}") from None
        obj = converted(how, obj, self.source, where, kind)
        check_object(kind, obj, self.source, where, self.table.manifests)
        if not self.table.manifests:
            keep_raw(self.out, kind, obj, lambda: bytes(data))
        self.out.append(kind, obj, self.source, where, self.table.manifests, api_version, lambda: bytes(data))


class _ReferenceNeededError(Exception):
    """The fast reader cannot vouch for this document: read it with the reference reader."""


class _YamlReader:
    def __init__(self, source: str, data: bytes, table: KindTable, skip_kindless: bool) -> None:
        self.source = source
        self.data = data
        self.table = table
        self.skip_kindless = skip_kindless

    def read(self) -> Decoded:
        out = Decoded()
        for doc in fastyaml.documents(self.data):
            out.merge(self._document(doc))
        return out

    def _document(self, doc: fastyaml.Document) -> Decoded:
        if doc.items is not None:
            try:
                return self._split_list(doc)
            except (fastyaml.FastPathError, _ReferenceNeededError):
                doc.json = fastyaml.whole_document_json(doc.text)
        if doc.json is not None:
            try:
                return self._fast_document(doc, doc.json)
            except _ReferenceNeededError:
                pass
        out = self._reference_documents(doc)
        out.reference_reads += 1
        return out

    # -- the fast reader --------------------------------------------------
    def _fast_document(self, doc: fastyaml.Document, js: bytes) -> Decoded:
        """A document read whole by the fast reader; _ReferenceNeededError if any part is doubtful."""
        out = Decoded()
        if js == b"null":
            return out
        try:
            env = _ENVELOPE.decode(js)
        except msgspec.DecodeError:
            raise _ReferenceNeededError from None
        if env.items is None:
            self._fast_object(out, env.kind, env.apiVersion, js, f"document {doc.number}")
            return out
        item_kind = _item_kind(env.kind)
        listed = self.table.key(item_kind, env.apiVersion)
        if env.kind.endswith("List") and env.kind != "List" and listed in self.table.types:
            out.list_kinds.add(listed)
        out.list_meta = self._fast_list_meta(env.metadata)
        for index, raw in enumerate(env.items):
            kind, api_version = (item_kind, env.apiVersion) if item_kind else self._fast_peek(raw)
            self._fast_object(out, kind, api_version, raw, f"items[{index}]")
        return out

    def _split_list(self, doc: fastyaml.Document) -> Decoded:
        """A List cut into batches: the envelope by the reference reader, each item by the fast
        reader unless it is doubtful."""
        assert doc.envelope is not None and doc.items is not None
        out = Decoded()
        try:
            envelope = yaml11.load_all(doc.envelope)
        except yaml.YAMLError:
            raise _ReferenceNeededError from None
        if len(envelope) != 1 or not isinstance(envelope[0], dict) or envelope[0].get("items") != []:
            raise _ReferenceNeededError
        list_kind = str(yaml11.key_text(envelope[0].get("kind", "")))
        item_kind = _item_kind(list_kind) if list_kind != "List" else ""
        list_version = _yaml_api_version(envelope[0], self.source, "the List")
        if (listed := self.table.key(item_kind, list_version)) in self.table.types:
            out.list_kinds.add(listed)
        metadata = envelope[0].get("metadata")
        if isinstance(metadata, dict):
            try:
                out.list_meta = yaml11.convert(metadata, ListMeta)
            except msgspec.ValidationError:
                raise _ReferenceNeededError from None
        for item in doc.items:
            where = f"items[{item.index}]"
            if item.json is not None:
                try:
                    kind, api_version = (item_kind, list_version) if item_kind else self._fast_peek(item.json)
                    self._fast_object(out, kind, api_version, item.json, where)
                    continue
                except _ReferenceNeededError:
                    pass
            out.reference_reads += 1
            try:
                loaded = yaml11.load_all(bytes(item.text))
            except yaml.YAMLError:
                raise _ReferenceNeededError from None  # an alias to another item: read the document whole
            if len(loaded) != 1 or not isinstance(loaded[0], list) or len(loaded[0]) != 1:
                raise _ReferenceNeededError  # not the one item it was cut as
            self._reference_item(out, item_kind, list_version, loaded[0][0], item.index)
        return out

    @staticmethod
    def _fast_peek(raw: msgspec.Raw) -> tuple[str, str]:
        try:
            return peek_type(raw)
        except msgspec.DecodeError:
            raise _ReferenceNeededError from None

    @staticmethod
    def _fast_list_meta(raw: msgspec.Raw) -> ListMeta | None:
        if not raw:
            return None
        try:
            meta = _LIST_META.decode(raw)
        except msgspec.DecodeError:
            raise _ReferenceNeededError from None
        return meta

    def _fast_object(self, out: Decoded, kind: str, api_version: str, data: bytes | msgspec.Raw, where: str) -> None:
        if not kind:
            _kindless(out, self.source, where, self.skip_kindless)
            return
        kind = self.table.key(kind, api_version)
        how = self.table.reading(kind, api_version)
        if how is None:
            out.ignored[self.table.ignored_as(kind, api_version)] += 1
            return
        if isinstance(how, str):
            raise _ReferenceNeededError  # the reference reader words the error
        if kind == "ConfigMap" and _json_name(data) != AUTOSCALER_STATUS_CONFIGMAP:
            out.ignored[kind] += 1  # podwhy reads no other ConfigMap
            return
        try:
            obj = decode_typed(how.decoder, data)
            if how.doubtful(obj):
                raise _ReferenceNeededError
            obj = converted(how, obj, self.source, where, kind)
            check_object(kind, obj, self.source, where, self.table.manifests)
        except (msgspec.ValidationError, PodwhyError):
            # The reference reader reads it again, and words the error if there is one.
            raise _ReferenceNeededError from None
        if not self.table.manifests:
            keep_raw(out, kind, obj, lambda: bytes(data))
        out.append(kind, obj, self.source, where, self.table.manifests, api_version, lambda: bytes(data))

    # -- the reference reader ---------------------------------------------
    def _reference_load(self, text: bytes, offset: int) -> list[Any]:
        try:
            return yaml11.load_all(text)
        except yaml11.DuplicateKeyError as exc:
            base = self.data.count(b"\n", 0, offset)
            raise PodwhyError(
                f'{self.source}: line {base + exc.line + 1}: mapping key "{exc.key}" '
                f"already defined at line {base + exc.first_line + 1}"
            ) from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = ""
            if mark is not None:
                line = self.data.count(b"\n", 0, offset) + mark.line
                where = f" (line {line + 1}, column {mark.column + 1})"
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise PodwhyError(f"{self.source}: malformed YAML{where}: {problem}") from None

    def _reference_documents(self, doc: fastyaml.Document) -> Decoded:
        out = Decoded()
        for index, loaded in enumerate(self._reference_load(doc.text, doc.offset)):
            number = doc.number + index
            if yaml11.is_null(loaded):
                continue
            if not isinstance(loaded, dict):
                raise PodwhyError(f"{self.source}: document {number} is not a Kubernetes object")
            kind = _yaml_kind(loaded, self.source, f"document {number}")
            api_version = _yaml_api_version(loaded, self.source, f"document {number}")
            items = loaded.get("items")
            if not isinstance(items, list):
                self._reference_object(out, kind, api_version, loaded, f"document {number}")
                continue
            item_kind = _item_kind(kind) if kind != "List" else ""
            if (listed := self.table.key(item_kind, api_version)) in self.table.types:
                out.list_kinds.add(listed)
            metadata = loaded.get("metadata")
            if isinstance(metadata, dict):
                try:
                    out.list_meta = yaml11.convert(metadata, ListMeta)
                except msgspec.ValidationError as exc:
                    raise PodwhyError(f"{self.source}: the List's metadata is invalid: {exc}") from None
            for index_in_list, item in enumerate(items):
                self._reference_item(out, item_kind, api_version, item, index_in_list)
        return out

    def _reference_item(self, out: Decoded, item_kind: str, list_version: str, item: Any, index: int) -> None:
        if not isinstance(item, dict):
            raise PodwhyError(f"{self.source}: items[{index}] is not a Kubernetes object")
        where = f"items[{index}]"
        if item_kind:  # a typed List's items carry no kind or apiVersion: the List's are theirs
            kind, api_version = item_kind, list_version
        else:
            kind, api_version = _yaml_kind(item, self.source, where), _yaml_api_version(item, self.source, where)
        self._reference_object(out, kind, api_version, item, where)

    def _reference_object(self, out: Decoded, kind: str, api_version: str, doc: dict[Any, Any], where: str) -> None:
        if not kind:
            _kindless(out, self.source, where, self.skip_kindless)
            return
        kind = self.table.key(kind, api_version)
        how = self.table.reading(kind, api_version)
        if how is None:
            out.ignored[self.table.ignored_as(kind, api_version)] += 1
            return
        metadata = doc.get("metadata")
        name = yaml11.plain(metadata.get("name", "")) if isinstance(metadata, dict) else ""
        if isinstance(how, str):
            raise refused(self.source, where, kind, str(name or ""), how)
        if kind == "ConfigMap" and name != AUTOSCALER_STATUS_CONFIGMAP:
            out.ignored[kind] += 1  # podwhy reads no other ConfigMap
            return
        try:
            obj = yaml11.convert(doc, how.wire)
        except msgspec.ValidationError as exc:
            label = f"{kind} {name!r}" if name else kind
            raise PodwhyError(f"{self.source}: {where} ({label}) is invalid: {exc}") from None
        obj = converted(how, obj, self.source, where, kind)
        check_object(kind, obj, self.source, where, self.table.manifests)
        if not self.table.manifests:
            keep_raw(out, kind, obj, lambda: _plain_json(doc))
        out.append(kind, obj, self.source, where, self.table.manifests, api_version, lambda: _plain_json(doc))
