"""The typed decoder every snapshot source uses: bytes of an object, a List or a YAML stream
in, objects of the typed model (model/objects/) out, by kind.

JSON is decoded by msgspec straight into the typed structs (only declared fields are
materialised). YAML is read by the fast reader (rapidyaml, then the same msgspec decoding);
a document or List item it cannot take is read by the reference reader (PyYAML, YAML 1.1),
which also words the errors of malformed YAML. Either way a string field reads a scalar as
it was written (`pod-template-hash: 0755` is "0755") and a null leaves a field unset.

What an input yields is snapshot/decoded.py; how each object is read into its type, converted
and checked is snapshot/typed.py.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Iterable
from typing import Any

import msgspec
import yaml

from podwhy.errors import PodwhyError
from podwhy.model.objects import AUTOSCALER_STATUS_CONFIGMAP
from podwhy.snapshot import fastyaml, yaml11
from podwhy.snapshot.decoded import Decoded, ListMeta, keep_param, keep_raw
from podwhy.snapshot.liststream import NotStreamable
from podwhy.snapshot.typed import (
    MANIFEST_KINDS,
    SNAPSHOT_KINDS,
    KindTable,
    check_object,
    converted,
    decode_typed,
    refused,
)


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


def decode_list_stream(
    batches: Iterable[list[bytes | msgspec.Raw]], around: Callable[[], bytes], source: str, skip_kindless: bool
) -> Decoded:
    """A snapshot's JSON List read as its items come (snapshot/liststream.py): BATCHES of items'
    texts, then AROUND the List around them; NotStreamable if it must be read whole (decode())."""
    reader = _JsonReader(source, SNAPSHOT_KINDS, skip_kindless)
    reader.read_items(batches)
    return reader.finish(around())


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


class _Whole(msgspec.Struct):
    """Nothing read: decoding checks that the text is one whole JSON object."""


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
_WHOLE = msgspec.json.Decoder(_Whole)


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


def _item_kind(list_kind: str) -> str:
    """The kind of a typed List's items (PodList: Pod); "" for a plain List."""
    return list_kind[: -len("List")] if list_kind.endswith("List") else ""


def _plain_json(doc: Any) -> bytes | None:
    """A document the reference reader loaded, as JSON (None if JSON cannot hold it)."""
    try:
        return msgspec.json.encode(yaml11.plain(doc))
    except (msgspec.EncodeError, TypeError, ValueError):
        return None


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

    def read_items(self, items: Iterable[list[bytes | msgspec.Raw]]) -> Decoded:
        """A List whose items come a batch at a time (snapshot/liststream.py): each item checked
        whole as JSON, then read as read() reads it; the List around them is set by finish().
        NotStreamable when something is not as read() would read it: the caller reads it whole."""
        index = 0
        for batch in items:
            for raw in batch:
                try:
                    kind, api_version = peek_type(raw)
                    if not kind:
                        raise NotStreamable  # a typed List's item: the List's kind, at its end, is its
                    self._add(kind, api_version, raw, f"items[{index}]", whole=True)
                except (msgspec.DecodeError, PodwhyError, RecursionError):
                    raise NotStreamable from None  # read() words it (or an error before it) exactly
                index += 1
        return self.out

    def finish(self, around: bytes) -> Decoded:
        """The List AROUND the items read_items read (with `"items": []` in their place)."""
        try:
            env = _ENVELOPE.decode(around)
            if env.items != [] or _item_kind(env.kind):
                raise NotStreamable
            if env.metadata:
                self.out.list_meta = _LIST_META.decode(env.metadata)
        except (msgspec.DecodeError, RecursionError):
            raise NotStreamable from None
        self.out.source = self.source
        return self.out

    def _add(self, kind: str, api_version: str, data: bytes | msgspec.Raw, where: str, whole: bool = False) -> None:
        """WHOLE: DATA is checked to be one whole JSON value even where it is not decoded."""
        if not kind:
            _kindless(self.out, self.source, where, self.skip_kindless)
            return
        kind = self.table.key(kind, api_version)
        how = self.table.reading(kind, api_version)
        if how is None or (kind == "ConfigMap" and _json_name(data) != AUTOSCALER_STATUS_CONFIGMAP):
            if whole:
                _WHOLE.decode(data)
        if how is None:
            self.out.ignored[self.table.ignored_as(kind, api_version)] += 1
            if not self.table.manifests:  # a custom resource: it may be a policy's params
                keep_param(self.out, kind, api_version, lambda: bytes(data))
            return
        if isinstance(how, str):
            raise refused(self.source, where, kind, _json_name(data), how)
        if kind == "ConfigMap" and not self.table.manifests:
            keep_param(self.out, kind, api_version, lambda: bytes(data))
        if kind == "ConfigMap" and _json_name(data) != AUTOSCALER_STATUS_CONFIGMAP:
            self.out.ignored[kind] += 1  # only the params a policy names are kept (snapshot/params.py)
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
            if not self.table.manifests:  # a custom resource: it may be a policy's params
                keep_param(out, kind, api_version, lambda: bytes(data))
            return
        if isinstance(how, str):
            raise _ReferenceNeededError  # the reference reader words the error
        if kind == "ConfigMap" and _json_name(data) != AUTOSCALER_STATUS_CONFIGMAP:
            out.ignored[kind] += 1  # only the params a policy names are kept (snapshot/params.py)
            if not self.table.manifests:
                keep_param(out, kind, api_version, lambda: bytes(data))
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
            if kind == "ConfigMap":  # Cluster Autoscaler's status, which a policy may read too
                keep_param(out, kind, api_version, lambda: bytes(data))
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
            if not self.table.manifests:  # a custom resource: it may be a policy's params
                keep_param(out, kind, api_version, lambda: _plain_json(doc))
            return
        metadata = doc.get("metadata")
        name = yaml11.plain(metadata.get("name", "")) if isinstance(metadata, dict) else ""
        if isinstance(how, str):
            raise refused(self.source, where, kind, str(name or ""), how)
        if kind == "ConfigMap" and not self.table.manifests:
            keep_param(out, kind, api_version, lambda: _plain_json(doc))
        if kind == "ConfigMap" and name != AUTOSCALER_STATUS_CONFIGMAP:
            out.ignored[kind] += 1  # only the params a policy names are kept (snapshot/params.py)
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
