"""What `podwhy snapshot --redact` keeps of each object: an allowlist, see docs/redact.md.

The allowlist is the typed model (`podwhy.model.objects`): of each object, only the fields of its
kind's struct are copied, recursively, and only when their value has the model's type; every other
field (env, probes' httpHeaders, managedFields, node addresses, imagePullSecrets, volume sources'
options, ...) is dropped without being named. Within the model, `DROPPED` are fields nothing
podwhy needs to reproduce scheduling reads, `REPLACED` free text whose presence alone is read,
`HASHED` values only compared with each other; annotations, command lines and messages have a
rule of their own (below). `python -m podwhy.snapshot.redact` prints the table of kept fields
that docs/redact.md carries (a test keeps the two equal).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from typing import Any

import msgspec
import msgspec.inspect as mi

from podwhy.model import objects as o
from podwhy.model.objects.kinds import KIND_TYPES
from podwhy.model.wellknownnames import (
    ANN_BETA_IS_DEFAULT_STORAGE_CLASS,
    ANN_BETA_STORAGE_CLASS,
    ANN_BETA_STORAGE_PROVISIONER,
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_IS_DEFAULT_STORAGE_CLASS,
    ANN_MIGRATED_PLUGINS,
    ANN_PROVISIONED_BY,
    ANN_SELECTED_NODE,
    ANN_STORAGE_PROVISIONER,
)

REDACTED = "<redacted>"

# Annotations whose values podwhy reads (plugins, admission, controllers, the autoscaling
# analysis): kept. Every other annotation keeps its key (the presence of some is read: a mirror
# pod's) and has its value replaced.
KEPT_ANNOTATIONS = frozenset(
    {
        # volume binding, CSI migration, the default StorageClass
        ANN_BETA_STORAGE_CLASS,
        ANN_SELECTED_NODE,
        ANN_STORAGE_PROVISIONER,
        ANN_BETA_STORAGE_PROVISIONER,
        ANN_MIGRATED_PLUGINS,
        ANN_BIND_COMPLETED,
        ANN_BOUND_BY_CONTROLLER,
        ANN_PROVISIONED_BY,
        ANN_IS_DEFAULT_STORAGE_CLASS,
        ANN_BETA_IS_DEFAULT_STORAGE_CLASS,
        # DRA: a pod's claim, a claim made for extended resources
        "resource.kubernetes.io/pod-claim-name",
        "resource.kubernetes.io/extended-resource-claim",
        "scheduler.alpha.kubernetes.io/critical-pod",
        # the ReplicaSet controller's choice of pods to remove when scaling down
        "controller.kubernetes.io/pod-deletion-cost",
        # Cluster Autoscaler: its status's time, a pod's scale-up delay, Cluster API node groups
        "cluster-autoscaler.kubernetes.io/last-updated",
        "cluster-autoscaler.kubernetes.io/pod-scale-up-delay",
        "cluster.x-k8s.io/owner-kind",
        "cluster.x-k8s.io/owner-name",
        "cluster.x-k8s.io/cluster-namespace",
        "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size",
        # PodSecurity's seccomp check before v1.19
        "seccomp.security.alpha.kubernetes.io/pod",
    }
)
# PodSecurity reads these per container (AppArmor, seccomp); Kueue's say a pod's or a Workload's
# queue, workload and topology request.
KEPT_ANNOTATION_PREFIXES = (
    "container.apparmor.security.beta.kubernetes.io/",
    "container.seccomp.security.alpha.kubernetes.io/",
    "kueue.x-k8s.io/",
)

# Fields of the model that reproducing scheduling does not need: dropped.
DROPPED: frozenset[tuple[type[msgspec.Struct], str]] = frozenset(
    {
        (o.StorageClass, "parameters"),  # the provisioner's options (credentials, pool names)
        (o.CSINodeDriver, "nodeID"),  # the storage system's id of the node
        (o.NodeClaimStatus, "providerID"),  # the cloud instance
        (o.ISCSIVolumeSource, "targetPortal"),  # an address
        (o.AzureFileVolumeSource, "secretName"),
        (o.LocalVolumeSource, "path"),
        (o.HostPathVolumeSource, "path"),
        (o.RuntimeClass, "handler"),
    }
)
# Free text of which podwhy reads only that it is there (a container waiting with a message, a
# probe calling another host): a non-empty value becomes REDACTED.
REPLACED: frozenset[tuple[type[msgspec.Struct], str]] = frozenset(
    {
        (o.ContainerStateWaiting, "message"),
        (o.ContainerStateTerminated, "message"),
        (o.NodeCondition, "message"),
        (o.HostAddress, "host"),
    }
)
# Values the plugins only compare with each other (VolumeRestrictions: two RBD volumes conflict
# when they share a monitor): replaced by a keyed hash, the same for equal values in one dump.
HASHED: frozenset[tuple[type[msgspec.Struct], str]] = frozenset({(o.RBDVolumeSource, "monitors")})

# The one condition whose message is kube-scheduler's own word (compared with podwhy's).
SCHEDULER_CONDITION = "PodScheduled"
# Events whose message is kept: kube-scheduler's FailedScheduling (compared with podwhy's), and
# every event of the autoscalers, whose messages the autoscaling analysis parses.
KEPT_EVENT_REASONS = frozenset({"FailedScheduling"})
KEPT_EVENT_COMPONENTS = frozenset({"cluster-autoscaler", "karpenter"})

# Words of a command line kept: they say which schedulerNames a scheduler pod serves (podwhy
# pending). A --config flag stays, its value replaced: only that there is one is read.
NAME_FLAGS = ("--scheduler-name", "-scheduler-name")
CONFIG_FLAGS = ("--config", "-config")
KEPT_PROGRAMS = frozenset({"kube-scheduler"})

_DROP: Any = object()
_Keep = Callable[[Any, "Redactor"], Any]


class Redactor:
    """Redacts the objects of one dump: its hashes are keyed with a secret of its own, so equal
    values hash equal within the dump and cannot be guessed back by hashing candidates."""

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key if key is not None else secrets.token_bytes(32)

    def hash(self, value: str) -> str:
        return "h-" + hmac.new(self._key, value.encode(), hashlib.sha256).hexdigest()[:20]

    def object(self, kind: str, obj: Any) -> Any:
        """The object with only what the allowlist of its kind keeps."""
        out = _struct(KIND_TYPES.get(kind, _MetaOnly))(obj, self)
        return {} if out is _DROP else out


class _MetaOnly(msgspec.Struct, rename="camel"):
    """A kind podwhy does not read: its name and namespace only."""

    metadata: o.ObjectMeta = msgspec.field(default_factory=o.ObjectMeta)


def redact_object(kind: str, data: bytes, redactor: Redactor) -> bytes:
    return msgspec.json.encode(redactor.object(kind, msgspec.json.decode(data)))


def redact_param(data: bytes, redactor: Redactor) -> bytes:
    """A policy's params (a ConfigMap, a custom resource a binding's paramRef can select): its
    metadata as ObjectMeta's allowlist keeps it, every other field kept (a policy's expressions
    may read any: `params.data.maxReplicas`). Only what a paramRef can select is ever fetched."""
    value = msgspec.json.decode(data)
    if not isinstance(value, dict):
        return b"{}"
    metadata = _struct(o.ObjectMeta)(value.get("metadata"), redactor)
    kept = {k: v for k, v in value.items() if k != "metadata"}
    return msgspec.json.encode({"metadata": metadata, **kept} if metadata is not _DROP else kept)


# ---------------------------------------------------------------- the walk


def _scalar(*types: type) -> _Keep:
    def keep(value: Any, r: Redactor) -> Any:
        if isinstance(value, bool) and bool not in types:
            return _DROP
        return value if isinstance(value, types) else _DROP

    return keep


_SCALARS: dict[type[mi.Type], tuple[type, ...]] = {
    mi.StrType: (str,),
    mi.IntType: (int,),
    mi.FloatType: (int, float),
    mi.BoolType: (bool,),
}


def _present(value: Any, r: Redactor) -> Any:
    """An object of which only presence is read (msgspec's Any)."""
    return {} if isinstance(value, dict) else _DROP


def _compile(t: mi.Type) -> _Keep:
    if isinstance(t, mi.Metadata):
        return _compile(t.type)
    if isinstance(t, mi.StructType):
        cls = t.cls
        return lambda value, r: _struct(cls)(value, r)
    if isinstance(t, mi.ListType):
        item = _compile(t.item_type)

        def keep_list(value: Any, r: Redactor) -> Any:
            if not isinstance(value, list):
                return _DROP
            return [x for x in (item(v, r) for v in value) if x is not _DROP]

        return keep_list
    if isinstance(t, mi.DictType):
        if isinstance(t.value_type, mi.AnyType):
            return _present
        entry = _compile(t.value_type)

        def keep_dict(value: Any, r: Redactor) -> Any:
            if not isinstance(value, dict):
                return _DROP
            kept = ((k, entry(v, r)) for k, v in value.items() if isinstance(k, str))
            return {k: v for k, v in kept if v is not _DROP}

        return keep_dict
    if isinstance(t, mi.UnionType):
        members = [m for m in t.types if not isinstance(m, mi.NoneType)]
        if len(members) == 1:
            inner = _compile(members[0])
            return lambda value, r: None if value is None else inner(value, r)
        if all(type(m) in _SCALARS for m in members):  # a quantity: str | int | float
            return _scalar(*(s for m in members for s in _SCALARS[type(m)]))
    if type(t) in _SCALARS:
        return _scalar(*_SCALARS[type(t)])
    if isinstance(t, mi.AnyType):
        return _present
    raise TypeError(f"--redact has no rule for {t!r}")


def _replace(value: Any, r: Redactor) -> Any:
    if isinstance(value, str):
        return REDACTED if value else value
    return _DROP


def _hash(value: Any, r: Redactor) -> Any:
    if isinstance(value, str):
        return r.hash(value)
    if isinstance(value, list):
        return [r.hash(v) for v in value if isinstance(v, str)]
    return _DROP


def _annotations(value: Any, r: Redactor) -> Any:
    if not isinstance(value, dict):
        return _DROP
    return {
        k: (v if k in KEPT_ANNOTATIONS or k.startswith(KEPT_ANNOTATION_PREFIXES) else REDACTED)
        for k, v in value.items()
        if isinstance(k, str) and isinstance(v, str)
    }


def _command(value: Any, r: Redactor) -> Any:
    if not isinstance(value, list):
        return _DROP
    return redact_command([w for w in value if isinstance(w, str)])


def redact_command(words: list[str]) -> list[str]:
    """Every word replaced but a kube-scheduler program, its --scheduler-name flags and their
    values, and its --config flags (their values replaced). A word holding a shell's command
    line (`sh -c "kube-scheduler --config=..."`) is redacted word by word."""
    out: list[str] = []
    after: str | None = None  # the flag the next word is the value of
    for word in words:
        if after is not None:  # the whole word is the flag's value
            out.append(word if after in NAME_FLAGS else REDACTED)
            after = None
            continue
        tokens = word.split()
        kept: list[str] = []
        for token in tokens or [word]:
            if after is not None:
                kept.append(token if after in NAME_FLAGS else REDACTED)
                after = None
            elif token in NAME_FLAGS or token in CONFIG_FLAGS:
                kept.append(token)
                after = token
            elif token.startswith(tuple(f"{flag}=" for flag in NAME_FLAGS)):
                kept.append(token)
            elif token.startswith(tuple(f"{flag}=" for flag in CONFIG_FLAGS)):
                kept.append(token.partition("=")[0] + "=" + REDACTED)
            elif token.rstrip("/").rpartition("/")[2] in KEPT_PROGRAMS:
                kept.append(token)
            else:
                kept.append(REDACTED)
        out.append(" ".join(kept) if tokens else REDACTED)
    return out


# Rules for one field of one struct, beyond its type's.
_FIELD_RULES: dict[tuple[type[msgspec.Struct], str], _Keep] = {
    (o.ObjectMeta, "annotations"): _annotations,
    (o.Container, "command"): _command,
    (o.Container, "args"): _command,
    **dict.fromkeys(REPLACED, _replace),
    **dict.fromkeys(HASHED, _hash),
}

_STRUCTS: dict[type[msgspec.Struct], _Keep] = {}


def _struct(cls: type[msgspec.Struct]) -> _Keep:
    found = _STRUCTS.get(cls)
    if found is not None:
        return found
    fields: dict[str, _Keep] = {}

    def keep(value: Any, r: Redactor) -> Any:
        if not isinstance(value, dict):
            return _DROP
        out: dict[str, Any] = {}
        for name, field in fields.items():
            if name in value:
                kept = field(value[name], r)
                if kept is not _DROP:
                    out[name] = kept
        return _after(cls, value, out)

    _STRUCTS[cls] = keep  # before its fields: a struct may hold itself
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    for f in info.fields:
        if (cls, f.encode_name) not in DROPPED:
            fields[f.encode_name] = _FIELD_RULES.get((cls, f.encode_name)) or _compile(f.type)
    return keep


def _after(cls: type[msgspec.Struct], raw: dict[str, Any], out: dict[str, Any]) -> dict[str, Any]:
    """The rules that read a field's neighbours: which condition, which event."""
    if cls is o.PodCondition and out.get("type") != SCHEDULER_CONDITION:
        for name in ("message",):
            if out.get(name):
                out[name] = REDACTED
    elif cls is o.Event and not _event_kept(out):
        for name in ("message", "note"):
            if out.get(name):
                out[name] = REDACTED
    return out


def _event_kept(event: dict[str, Any]) -> bool:
    if event.get("reason") in KEPT_EVENT_REASONS:
        return True
    components = [event.get("reportingComponent"), event.get("reportingController")]
    for source in (event.get("source"), event.get("deprecatedSource")):
        if isinstance(source, dict):
            components.append(source.get("component"))
    return any(c in KEPT_EVENT_COMPONENTS for c in components if c)


# ---------------------------------------------------------------- the table in docs/redact.md

_RULE_WORDS: dict[tuple[type[msgspec.Struct], str], str] = {
    (o.ObjectMeta, "annotations"): "keys; the values of the annotations podwhy reads, others replaced",
    (o.Container, "command"): "kube-scheduler, --scheduler-name and its value, --config; other words replaced",
    (o.Container, "args"): "as command",
    (o.PodCondition, "message"): f"kept when type is {SCHEDULER_CONDITION}, else replaced",
    (o.Event, "message"): "kept for FailedScheduling and the autoscalers' events, else replaced",
    (o.Event, "note"): "as message",
}


def _describe(t: mi.Type, found: list[type[msgspec.Struct]]) -> str:
    if isinstance(t, mi.Metadata):
        return _describe(t.type, found)
    if isinstance(t, mi.UnionType):
        members = [m for m in t.types if not isinstance(m, mi.NoneType)]
        return _describe(members[0], found) if len(members) == 1 else ""
    if isinstance(t, mi.StructType):
        if not t.fields:
            return " (presence only)"
        found.append(t.cls)
        return f" → {t.cls.__name__}"
    if isinstance(t, mi.ListType):
        return "[]" + _describe(t.item_type, found)
    if isinstance(t, mi.DictType):
        if isinstance(t.value_type, mi.AnyType):
            return " (presence only)"
        return "{}" + _describe(t.value_type, found)
    if isinstance(t, mi.AnyType):
        return " (presence only)"
    return ""


def kept_table() -> str:
    """docs/redact.md's table: for each struct of the kinds podwhy reads, the fields kept (and
    how, when not verbatim) and the fields of the model dropped. Everything else is dropped."""
    lines = ["| Struct | Kept | Dropped |", "|---|---|---|"]
    todo: list[type[msgspec.Struct]] = [KIND_TYPES[kind] for kind in sorted(KIND_TYPES)]
    done: set[type[msgspec.Struct]] = set()
    while todo:
        cls = todo.pop(0)
        if cls in done:
            continue
        done.add(cls)
        info = mi.type_info(cls)
        assert isinstance(info, mi.StructType)
        kept: list[str] = []
        dropped: list[str] = []
        for f in info.fields:
            key = (cls, f.encode_name)
            if key in DROPPED:
                dropped.append(f"`{f.encode_name}`")
                continue
            rule = _RULE_WORDS.get(key) or ("replaced" if key in REPLACED else "hashed" if key in HASHED else "")
            found: list[type[msgspec.Struct]] = []
            shape = _describe(f.type, found)
            todo.extend(found)
            kept.append(f"`{f.encode_name}`{shape}" + (f" ({rule})" if rule else ""))
        kinds = [kind for kind, t in KIND_TYPES.items() if t is cls]
        name = f"{cls.__name__} (kind {', '.join(kinds)})" if kinds and kinds != [cls.__name__] else cls.__name__
        if kinds == [cls.__name__]:
            name = f"{cls.__name__} (kind)"
        lines.append(f"| {name} | {', '.join(kept)} | {', '.join(dropped)} |")
    return "\n".join(lines) + "\n"


__all__ = ["REDACTED", "Redactor", "redact_command", "redact_object", "redact_param"]


if __name__ == "__main__":  # pragma: no cover
    print(kept_table(), end="")
