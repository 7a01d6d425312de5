"""What decoding one input yields (snapshot/decode.py fills it): its objects by kind, a
manifest's entries with their JSON as written, the JSON kept of unbound pods and of workloads'
pod templates, and what a `podwhy snapshot` dump's List says of itself (its annotations);
Decoded.add_to files it in a Snapshot."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from podwhy.errors import PodwhyError
from podwhy.snapshot.compact import Compactor
from podwhy.snapshot.params import PARAMS_ANNOTATION, ParamObject, is_param_kind, read_param

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
# manifest's as the API server's validation of an update compares them; each one's is what a
# refusal of its controller's pods is evaluated again on.
TEMPLATE_KINDS = frozenset({"ReplicaSet", "StatefulSet", "Job", "ReplicationController"})


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


class Decoded(msgspec.Struct):
    """What one input held."""

    objects: dict[str, list[Any]] = msgspec.field(default_factory=dict)  # kind -> objects, in input order
    entries: list[Entry] = msgspec.field(default_factory=list)  # manifests only: every object, in input order
    list_kinds: set[str] = msgspec.field(default_factory=set)  # kinds of the typed Lists read (PodList: Pod)
    api_versions: dict[str, set[str]] = msgspec.field(default_factory=dict)  # kind -> the apiVersions it came in
    ignored: Counter[str] = msgspec.field(default_factory=Counter)  # kinds podwhy does not read
    list_meta: ListMeta | None = None  # the metadata of the (last) List read
    reference_reads: int = 0  # YAML documents or List items the fast reader left to the reference reader
    raw_pods: dict[str, bytes] = msgspec.field(default_factory=dict)  # unbound pods' JSON, by "namespace/name"
    raw_objects: dict[str, Any] = msgspec.field(default_factory=dict)  # the pod each of raw_pods is the JSON of
    # Workloads' pod templates as JSON (see Snapshot.raw_templates), and the object each belongs to.
    raw_templates: dict[ObjectKey, bytes] = msgspec.field(default_factory=dict)
    raw_template_objects: dict[ObjectKey, Any] = msgspec.field(default_factory=dict)
    # Documents or List items without a kind, where in the input (skipped: inputs found in a folder).
    kindless: list[str] = msgspec.field(default_factory=list)
    # ConfigMaps and custom resources, which may be policies' params (snapshot/params.py).
    params: list[ParamObject] = msgspec.field(default_factory=list)
    source: str = ""  # the input, as errors name it
    # What the input's pods and nodes repeat, held once (compact.py).
    compactor: Compactor = msgspec.field(default_factory=Compactor)

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
        if not manifests:
            self.compactor.compact(kind, obj)
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
        self.params.extend(other.params)
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
        for param in self.params:
            snapshot.params.add(param)
        if self.list_meta is not None and self.list_meta.annotations.get(PARAMS_ANNOTATION):
            snapshot.params.record_fetched(self.list_meta.annotations[PARAMS_ANNOTATION])
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


class _TemplateSpec(msgspec.Struct):
    template: msgspec.Raw = msgspec.Raw()


class _WithTemplate(msgspec.Struct):
    spec: _TemplateSpec | None = None


_WITH_TEMPLATE = msgspec.json.Decoder(_WithTemplate)


def keep_param(out: Decoded, kind: str, api_version: str, raw: Callable[[], bytes | None]) -> None:
    """Hold an object that may be a policy's params (snapshot/params.py: a ConfigMap, a custom
    resource) as its JSON text; `raw` makes it only then."""
    if not is_param_kind(kind, api_version):
        return
    data = raw()
    param = read_param(kind, api_version, data) if data is not None else None
    if param is not None:
        out.params.append(param)


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
