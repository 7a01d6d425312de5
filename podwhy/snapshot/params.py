"""The objects a ValidatingAdmissionPolicy's or MutatingAdmissionPolicy's params may be
(docs/policies.md, "Params"): what a snapshot holds of the kinds a policy's `paramKind` names,
and what it can vouch for of them.

The API server looks a binding's params up in an informer of the paramKind's resource (every
object of it); podwhy looks them up here (cluster/apiserver/admission/policy/params.py). Two
kinds of objects may be params: ConfigMaps (the common case) and custom resources (a kind of a
group that is not Kubernetes' own, which no other part of podwhy reads). Secrets are never read,
and no other built-in kind is kept as params.

Reading a dump, every ConfigMap and custom resource is held as its JSON text (never as Python
objects) until all inputs are read (a policy may come after its params), then only those of the
kinds some Validating- or MutatingAdmissionPolicy's paramKind names are kept (`keep_kinds`); what is held at
once is bounded by limits.MAX_PARAM_BYTES, past which a kind's objects are dropped and its
params said not evaluated. Live, and in `podwhy snapshot`, only what the bindings' paramRefs can
select is fetched (live/params.py), and what was learnt of each paramKind (served, its scope, or
why its objects could not be read) is recorded (`PARAMS_ANNOTATION` on the dump's List).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from podwhy.errors import PodwhyError
from podwhy.model import objects as o
from podwhy.snapshot.limits import MAX_PARAM_BYTES

# The kind every API server serves that policies' params mostly are: namespaced, core group, v1.
CONFIG_MAP = "ConfigMap"
# Never read, whatever a policy names (docs/policies.md).
SECRET = "Secret"
# On the List `podwhy snapshot` writes: {"apiVersion/Kind": {"served": ..., "namespaced": ...,
# "missing": ...}} of each paramKind its bindings' paramRefs were fetched for.
PARAMS_ANNOTATION = "podwhy.dev/params"

# A kind as params are filed: (API group, kind); its objects keep the apiVersion they came in.
ParamKey = tuple[str, str]


def group_of(api_version: str) -> str:
    """The API group of an apiVersion ("" for the core group's "v1")."""
    return api_version.rpartition("/")[0]


def is_custom_group(group: str) -> bool:
    """Whether GROUP is a custom resource's (apiversions.is_builtin_group's converse)."""
    return "." in group and not group.endswith(".k8s.io")


def is_param_kind(kind: str, api_version: str) -> bool:
    """Whether an object of KIND and API_VERSION is held as a possible param: a ConfigMap, or a
    custom resource podwhy reads nothing else of (the decoder says which: it asks only for those)."""
    if kind == CONFIG_MAP:
        return api_version == "v1"
    return is_custom_group(group_of(api_version))


def param_kind_key(api_version: str, kind: str) -> str:
    """How PARAMS_ANNOTATION names a paramKind: `v1/ConfigMap`, `example.com/v1/ParamsConfig`."""
    return f"{api_version}/{kind}"


class _PeekMeta(msgspec.Struct, rename="camel"):
    name: str = ""
    namespace: str = ""
    labels: dict[str, str] | None = None
    resource_version: str = ""


class _Peek(msgspec.Struct):
    metadata: _PeekMeta | None = None


_PEEK = msgspec.json.Decoder(_Peek)


@dataclass(frozen=True)
class ParamObject:
    """One object that may be a policy's params: where it is, its labels (for a paramRef's
    selector) and its JSON text as its source held it (decoded once, when a policy reads it)."""

    kind: str
    api_version: str
    namespace: str
    name: str
    labels: Mapping[str, str]
    raw: bytes
    resource_version: str = ""

    @functools.cached_property
    def json(self) -> Any:
        """The object as CEL's `params` sees it: its JSON with the kind and apiVersion it is read in
        (a list item carries neither; the API server sets them, as wrappedParam does)."""
        value = msgspec.json.decode(self.raw)
        if isinstance(value, dict):
            value["apiVersion"], value["kind"] = self.api_version, self.kind
        return value


def read_param(kind: str, api_version: str, raw: bytes) -> ParamObject | None:
    """RAW (an object's JSON) as a ParamObject; None when it is no object with a name."""
    try:
        peek = _PEEK.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return None
    meta = peek.metadata
    if meta is None or not meta.name:
        return None
    return ParamObject(kind, api_version, meta.namespace, meta.name, meta.labels or {}, raw, meta.resource_version)


class FetchedKind(msgspec.Struct, frozen=True):
    """What a live fetch (or the `podwhy snapshot` that wrote a dump) learnt of one paramKind:
    whether the server serves it, whether it is namespaced, and why its objects could not be
    read ("" when they were: every one the bindings' paramRefs can select)."""

    served: bool
    namespaced: bool = True
    missing: str = ""


_FETCHED = msgspec.json.Decoder(dict[str, dict[str, Any]])


@dataclass
class ParamStore:
    """The possible params a snapshot holds, by kind, and what it can vouch for of them."""

    # (group, kind) -> (namespace, name) -> the object.
    objects: dict[ParamKey, dict[tuple[str, str], ParamObject]] = field(default_factory=dict)
    # Where objects of each kind were met ("" for a cluster-scoped one), pruned or not: a dump
    # vouches for a namespace's objects of a kind by holding one of them (docs/policies.md).
    seen: dict[ParamKey, set[str]] = field(default_factory=dict)
    # The apiVersions each kind's objects came in.
    versions: dict[ParamKey, set[str]] = field(default_factory=dict)
    # By param_kind_key: what a live fetch or a `podwhy snapshot` learnt (vouches for every namespace).
    fetched: dict[str, FetchedKind] = field(default_factory=dict)
    # --complete: the user's word that the files hold every object of the cluster.
    complete: bool = False
    # Kinds whose objects were dropped past MAX_PARAM_BYTES (the bytes held, for the words).
    dropped: set[ParamKey] = field(default_factory=set)
    held_bytes: int = 0
    # (group, kind) -> namespace -> its objects: what a selector looks through, made once.
    _by_namespace: dict[ParamKey, dict[str, list[ParamObject]]] = field(default_factory=dict, repr=False)

    def add(self, obj: ParamObject) -> None:
        """Hold OBJ (the newer resourceVersion of one given twice, else the later)."""
        key = (group_of(obj.api_version), obj.kind)
        self._by_namespace.pop(key, None)
        self.seen.setdefault(key, set()).add(obj.namespace)
        self.versions.setdefault(key, set()).add(obj.api_version)
        if key in self.dropped:
            return
        if self.held_bytes + len(obj.raw) > MAX_PARAM_BYTES:
            self.dropped.add(key)
            self.held_bytes -= sum(len(x.raw) for x in self.objects.pop(key, {}).values())
            return
        held = self.objects.setdefault(key, {})
        name = (obj.namespace, obj.name)
        old = held.get(name)
        if old is not None:
            if not _newer(old.resource_version, obj.resource_version):
                return
            self.held_bytes -= len(old.raw)
        held[name] = obj
        self.held_bytes += len(obj.raw)

    def keep_kinds(self, kinds: Mapping[ParamKey, Names | None]) -> Counter[str]:
        """Drop the objects of every kind but KINDS' (those policies' paramKinds name), and of
        those whose bindings' paramRefs all name their params, every object they cannot name (None:
        a selector may select any); returns how many were kept of each kind that decoding counted
        among the ignored (all but Cluster Autoscaler's status ConfigMap, which the snapshot reads)."""
        kept: Counter[str] = Counter()
        self._by_namespace.clear()
        for key in list(self.objects):
            if key not in kinds:
                self.held_bytes -= sum(len(x.raw) for x in self.objects.pop(key).values())
                continue
            names = kinds[key]
            held = self.objects[key]
            if names is not None:
                for where in [w for w in held if w[1] not in names.get(w[0], set()) | names.get(None, set())]:
                    self.held_bytes -= len(held.pop(where).raw)
            if not held:
                del self.objects[key]
                continue
            status = key == ("", CONFIG_MAP) and any(name == o.AUTOSCALER_STATUS_CONFIGMAP for _, name in held)
            kept[key[1]] += len(held) - (1 if status else 0)
        return kept

    def of_kind(self, key: ParamKey) -> Mapping[tuple[str, str], ParamObject]:
        return self.objects.get(key, {})

    def in_namespace(self, key: ParamKey, namespace: str) -> list[ParamObject]:
        """The objects of KEY's kind in NAMESPACE ("" for a cluster-scoped kind's)."""
        index = self._by_namespace.get(key)
        if index is None:
            index = self._by_namespace[key] = {}
            for (ns, _), obj in self.objects.get(key, {}).items():
                index.setdefault(ns, []).append(obj)
        return index.get(namespace, [])

    def record_fetched(self, text: str) -> None:
        """PARAMS_ANNOTATION of a `podwhy snapshot` dump."""
        try:
            found = _FETCHED.decode(text.encode())
        except msgspec.MsgspecError as exc:
            raise PodwhyError(f"annotation {PARAMS_ANNOTATION} is not a JSON object of objects: {exc}") from None
        for key, info in found.items():
            self.fetched[key] = FetchedKind(
                served=bool(info.get("served", False)),
                namespaced=bool(info.get("namespaced", True)),
                missing=str(info.get("missing", "")),
            )


def fetched_text(kinds: Mapping[str, FetchedKind]) -> str:
    """PARAMS_ANNOTATION's value for what a fetch learnt of each paramKind."""
    out: dict[str, dict[str, Any]] = {}
    for key, info in sorted(kinds.items()):
        entry: dict[str, Any] = {"served": info.served, "namespaced": info.namespaced}
        if info.missing:
            entry["missing"] = info.missing
        out[key] = entry
    return msgspec.json.encode(out).decode()


# The names a kind's paramRefs name, by namespace (None: any namespace, the request's).
Names = dict[str | None, set[str]]


# The policies of one kind with their bindings: ValidatingAdmissionPolicies', or MutatingAdmissionPolicies'.
PolicyPair = tuple[
    Iterable[o.ValidatingAdmissionPolicy | o.MutatingAdmissionPolicy],
    Iterable[o.ValidatingAdmissionPolicyBinding | o.MutatingAdmissionPolicyBinding],
]


def policy_param_kinds(*pairs: PolicyPair) -> dict[ParamKey, Names | None]:
    """The kinds the policies' paramKinds name, as params are filed, each with the names their
    bindings' paramRefs name (None where one has a selector, or names none: any may be read).
    Each pair is policies of one kind with their bindings (a binding names a policy of its kind)."""
    out: dict[ParamKey, Names | None] = {}
    for policies, bindings in pairs:
        by_name = {p.metadata.name: p.spec.param_kind for p in policies if p.spec.param_kind is not None}
        for k in by_name.values():
            out.setdefault((group_of(k.api_version), k.kind), {})
        for binding in bindings:
            kind, ref = by_name.get(binding.spec.policy_name), binding.spec.param_ref
            if kind is None or ref is None:
                continue
            key = (group_of(kind.api_version), kind.kind)
            names = out[key]
            if names is None:
                continue
            if not ref.name or ref.selector is not None:
                out[key] = None
                continue
            names.setdefault(ref.namespace or None, set()).add(ref.name)
    return out


def _newer(first: str, second: str) -> bool:
    """Whether resourceVersion SECOND replaces FIRST (cluster.second_is_newer's rule)."""
    if first.isascii() and second.isascii() and first.isdigit() and second.isdigit():
        return int(second) >= int(first)
    return True
