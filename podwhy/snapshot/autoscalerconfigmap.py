"""Reads Cluster Autoscaler's status ConfigMap (its `status` key) into model/autoscalerstatus.py types.

Two formats, told apart by their first line:
- CA >= 1.30 writes the structured status (clusterstate/api types) as YAML: `autoscalerStatus`,
  `clusterWide`, `nodeGroups[]` with `health` (node counts, `cloudProviderTarget`, `minSize`,
  `maxSize`) and `scaleUp` (with `backoffInfo` in backoff), read with the reference YAML reader
  (yaml11: safe, timestamps kept as text) into wire structs.
- Older releases write text: `Cluster-autoscaler status at <time>:`, then `Initializing`, or a
  `Cluster-wide:` block and a `NodeGroups:` block of `Name:` entries, each condition as
  `  Health:      Healthy (ready=.. cloudProviderTarget=N (minSize=A, maxSize=B))` followed by its
  `LastProbeTime:`/`LastTransitionTime:` lines. The counts in parentheses are read as generic
  key=value pairs (their set changed across releases).

Anything else is a PodwhyError naming the ConfigMap and what is wrong: the caller makes the
autoscaling analysis NotEvaluated, never a guess.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import msgspec
import re2
import yaml

from podwhy.errors import PodwhyError
from podwhy.model import autoscalerstatus as ca
from podwhy.model.objects import AUTOSCALER_STATUS_CONFIGMAP, AUTOSCALER_STATUS_NAMESPACE, ConfigMap
from podwhy.snapshot import yaml11

# The key CA writes its status under, and the annotation with when it last wrote it (Go layout
# "2006-01-02 15:04:05.999999999 -0700 MST"; older than a few minutes: CA is probably not running).
STATUS_KEY = "status"
LAST_UPDATED_ANNOTATION = "cluster-autoscaler.kubernetes.io/last-updated"

DEFAULT_WHERE = f"ConfigMap {AUTOSCALER_STATUS_NAMESPACE}/{AUTOSCALER_STATUS_CONFIGMAP}"

TEXT_HEADER = "Cluster-autoscaler status at "


def read_configmap(cm: ConfigMap) -> ca.ClusterAutoscalerStatus:
    """The status CM holds (PodwhyError naming CM when it holds none, or one podwhy cannot read)."""
    where = f"ConfigMap {cm.metadata.namespace}/{cm.metadata.name}"
    text = cm.data.get(STATUS_KEY)
    if text is None:
        raise PodwhyError(f'{where}: no "{STATUS_KEY}" key in its data: not a Cluster Autoscaler status')
    return parse_status(text, where)


def last_updated(cm: ConfigMap) -> datetime | None:
    """When CA last wrote CM (its last-updated annotation); None when it does not say."""
    text = cm.metadata.annotations.get(LAST_UPDATED_ANNOTATION)
    return parse_time(text) if text is not None else None


def parse_status(text: str, where: str = DEFAULT_WHERE) -> ca.ClusterAutoscalerStatus:
    """The status TEXT (the ConfigMap's `status` value) says; WHERE names it in errors."""
    stripped = text.strip()
    if not stripped:
        raise PodwhyError(f"{where}: data.{STATUS_KEY} is empty")
    if stripped.startswith(TEXT_HEADER):
        return _TextReader(stripped, where).read()
    return _read_yaml(text, where)


# ---------------------------------------------------------------------- time


_GO_TIME = re2.compile(
    r"(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))? ([+-])(\d{2})(\d{2})(?: [A-Za-z0-9+-]+)?"
)
_MONOTONIC = re2.compile(r" m=[+-][0-9.]+$")


def parse_time(text: str) -> datetime | None:
    """An instant CA wrote: RFC 3339 (YAML conditions) or Go's time text (`time`, the annotation,
    the text format's conditions; a monotonic ` m=+...` suffix is ignored). None if TEXT is
    neither, or Go's zero time (a condition never probed)."""
    text = _MONOTONIC.sub("", text.strip())
    match = _GO_TIME.fullmatch(text)
    try:
        if match is not None:
            year, month, day, hour, minute, second, fraction, sign, off_h, off_m = match.groups()
            offset = timedelta(hours=int(off_h), minutes=int(off_m)) * (-1 if sign == "-" else 1)
            micro = int((fraction or "0").ljust(6, "0")[:6])
            ts = datetime(
                int(year),
                int(month),
                int(day),
                int(hour),
                int(minute),
                int(second),
                micro,
                tzinfo=timezone(offset),
            )
        else:
            ts = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if ts.tzinfo is None or ts.year <= 1:
        return None
    return ts.astimezone(UTC)


# ---------------------------------------------------------------------- CA >= 1.30: YAML


class _Wire(msgspec.Struct, rename="camel", kw_only=True):
    pass


class _Unready(_Wire):
    total: int | None = None
    resource_unready: int | None = None


class _Registered(_Wire):
    total: int | None = None
    ready: int | None = None
    not_started: int | None = None
    being_deleted: int | None = None
    unready: _Unready | None = None


class _NodeCount(_Wire):
    registered: _Registered | None = None
    long_unregistered: int | None = None
    unregistered: int | None = None


class _Backoff(_Wire):
    error_code: str = ""
    error_message: str = ""


class _Condition(_Wire):
    status: str = ""
    node_counts: _NodeCount | None = None
    cloud_provider_target: int | None = None
    min_size: int | None = None
    max_size: int | None = None
    backoff_info: _Backoff | None = None
    last_probe_time: str | None = None
    last_transition_time: str | None = None


class _ClusterWide(_Wire):
    health: _Condition | None = None
    scale_up: _Condition | None = None
    scale_down: _Condition | None = None


class _Group(_Wire):
    name: str = ""
    health: _Condition | None = None
    scale_up: _Condition | None = None
    scale_down: _Condition | None = None


class _Status(_Wire):
    time: str = ""
    autoscaler_status: str = ""
    message: str = ""
    cluster_wide: _ClusterWide | None = None
    node_groups: list[_Group] = []


# A structured status holds at least one of these.
_STATUS_KEYS = frozenset({"time", "autoscalerStatus", "message", "clusterWide", "nodeGroups"})


def _read_yaml(text: str, where: str) -> ca.ClusterAutoscalerStatus:
    try:
        docs = yaml11.load_all(text)
    except yaml11.DuplicateKeyError as exc:
        raise PodwhyError(
            f'{where}: data.{STATUS_KEY} line {exc.line + 1}: mapping key "{exc.key}" already defined'
            f" at line {exc.first_line + 1}"
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise PodwhyError(
            f"{where}: data.{STATUS_KEY} is neither Cluster Autoscaler's text status nor valid YAML{at}: {problem}"
        ) from None
    except RecursionError:
        raise PodwhyError(f"{where}: data.{STATUS_KEY} is nested too deeply to read") from None
    except Exception as exc:  # PyYAML's constructors fail as they may on a tagged scalar (`!!int x`)
        raise PodwhyError(f"{where}: data.{STATUS_KEY} is not valid YAML: {type(exc).__name__}: {exc}") from None
    docs = [d for d in docs if not yaml11.is_null(d)]
    if len(docs) != 1 or not isinstance(docs[0], dict) or not _STATUS_KEYS & {yaml11.key_text(k) for k in docs[0]}:
        first = text.strip().splitlines()[0][:80]
        raise PodwhyError(
            f"{where}: data.{STATUS_KEY} is not a Cluster Autoscaler status: it starts {first!r}, neither"
            f" {TEXT_HEADER.strip()!r} (CA < 1.30) nor a YAML mapping of autoscalerStatus, clusterWide,"
            " nodeGroups (CA >= 1.30)"
        )
    try:
        wire = yaml11.convert(docs[0], _Status)
    except (msgspec.ValidationError, TypeError, ValueError) as exc:
        raise PodwhyError(f"{where}: data.{STATUS_KEY} is invalid: {exc}") from None
    except RecursionError:
        raise PodwhyError(f"{where}: data.{STATUS_KEY} is nested too deeply to read") from None
    groups: list[ca.NodeGroupStatus] = []
    for index, group in enumerate(wire.node_groups):
        if not group.name:
            raise PodwhyError(f"{where}: data.{STATUS_KEY}: nodeGroups[{index}] has no name")
        groups.append(_yaml_group(group))
    cluster = wire.cluster_wide or _ClusterWide()
    return ca.ClusterAutoscalerStatus(
        format=ca.StatusFormat.YAML,
        time=wire.time,
        autoscaler_status=wire.autoscaler_status,
        message=wire.message,
        cluster_health=cluster.health.status if cluster.health else "",
        cluster_scale_up=cluster.scale_up.status if cluster.scale_up else "",
        node_groups=groups,
    )


def _yaml_group(group: _Group) -> ca.NodeGroupStatus:
    health = group.health or _Condition()
    scale_up = group.scale_up or _Condition()
    counts = health.node_counts or _NodeCount()
    registered = counts.registered or _Registered()
    backoff = scale_up.backoff_info or _Backoff()
    return ca.NodeGroupStatus(
        name=group.name,
        health=health.status,
        ready=registered.ready,
        registered=registered.total,
        not_started=registered.not_started,
        unready=registered.unready.total if registered.unready is not None else None,
        unregistered=counts.unregistered,
        long_unregistered=counts.long_unregistered,
        target=health.cloud_provider_target,
        min_size=health.min_size,
        max_size=health.max_size,
        scale_up=scale_up.status,
        scale_up_since=scale_up.last_transition_time or "",
        backoff_code=backoff.error_code,
        backoff_message=backoff.error_message,
    )


# ---------------------------------------------------------------------- CA < 1.30: text

# "  Health:      Healthy (ready=1 ...)": a condition, its status word, and its message.
# RE2 (linear time, whatever the text): with Python's backtracking engine `_PAIR` took 10 s on a
# 40,000-letter message, and a status ConfigMap holds up to a MiB of text anyone may write.
_CONDITION = re2.compile(r"(?P<type>[A-Za-z]+):\s+(?P<status><unknown>|[A-Za-z]+)(?:\s+\((?P<message>.*)\))?")
_TIME_LINE = re2.compile(r"(?P<which>LastProbeTime|LastTransitionTime):\s*(?P<time>.*)")
_PAIR = re2.compile(r"([A-Za-z]+)=([^\s,()]*)")
# A Health condition CA knows nothing of is written without its line break: split it off.
_UNKNOWN_HEALTH = re2.compile(r"(<unknown>)([ \t]+[A-Za-z]+:)")
# Older releases wrote the limits as (min=A, max=B).
_ALIASES = {"min": "minSize", "max": "maxSize"}
_INT_KEYS = (
    "ready",
    "unready",
    "registered",
    "notStarted",
    "longUnregistered",
    "cloudProviderTarget",
    "minSize",
    "maxSize",
)


class _TextCondition:
    def __init__(self, status: str, pairs: dict[str, int]) -> None:
        self.status = status
        self.pairs = pairs
        self.transition = ""


class _TextGroup:
    def __init__(self, name: str) -> None:
        self.name = name
        self.conditions: dict[str, _TextCondition] = {}


class _TextReader:
    def __init__(self, text: str, where: str) -> None:
        self.text = text
        self.where = where

    def fail(self, number: int, line: str, what: str) -> PodwhyError:
        return PodwhyError(f"{self.where}: data.{STATUS_KEY} line {number}: {what}: {line.strip()[:120]!r}")

    def read(self) -> ca.ClusterAutoscalerStatus:
        lines = _UNKNOWN_HEALTH.sub(r"\1\n\2", self.text).splitlines()
        header = lines[0].rstrip()
        if not header.endswith(":"):
            raise self.fail(1, header, f"the header is not {TEXT_HEADER!r}<time>':'")
        time = header[len(TEXT_HEADER) : -1].strip()
        body = [(number, line.rstrip()) for number, line in enumerate(lines[1:], start=2) if line.strip()]
        if not body:
            raise self.fail(1, header, "nothing follows the header")
        if len(body) == 1 and body[0][1].strip() == ca.INITIALIZING:
            return ca.ClusterAutoscalerStatus(format=ca.StatusFormat.TEXT, time=time, autoscaler_status=ca.INITIALIZING)
        cluster = _TextGroup("")
        groups: list[_TextGroup] = []
        section: str | None = None
        current: _TextGroup | None = None
        last: _TextCondition | None = None
        for number, line in body:
            stripped = line.strip()
            if stripped == "Cluster-wide:" and section is None:
                section, current, last = "cluster", cluster, None
                continue
            if stripped == "NodeGroups:" and section == "cluster":
                section, current, last = "groups", None, None
                continue
            if section is None:
                raise self.fail(number, line, "expected 'Cluster-wide:' after the header")
            if stripped.startswith("Name:") and section == "groups":
                name = stripped[len("Name:") :].strip()
                if not name:
                    raise self.fail(number, line, "a node group without a name")
                current, last = _TextGroup(name), None
                groups.append(current)
                continue
            timed = _TIME_LINE.fullmatch(stripped)
            if timed is not None:
                if last is None:
                    raise self.fail(number, line, "a time with no condition before it")
                if timed["which"] == "LastTransitionTime":
                    last.transition = _MONOTONIC.sub("", timed["time"].strip())
                continue
            condition = _CONDITION.fullmatch(stripped)
            if condition is None:
                raise self.fail(number, line, "not a condition line (such as 'Health: Healthy (ready=1 ...)')")
            if current is None:
                raise self.fail(number, line, "a condition of no node group (no 'Name:' line before it)")
            last = _TextCondition(condition["status"], self._pairs(condition["message"] or "", number, line))
            current.conditions.setdefault(condition["type"], last)
        if section is None:
            raise self.fail(2, body[0][1], "expected 'Cluster-wide:' after the header")
        health = cluster.conditions.get("Health")
        scale_up = cluster.conditions.get("ScaleUp")
        return ca.ClusterAutoscalerStatus(
            format=ca.StatusFormat.TEXT,
            time=time,
            autoscaler_status=ca.RUNNING,
            cluster_health=_status_word(health),
            cluster_scale_up=_status_word(scale_up),
            node_groups=[_text_group(g) for g in groups],
        )

    def _pairs(self, message: str, number: int, line: str) -> dict[str, int]:
        pairs: dict[str, int] = {}
        for key, value in _PAIR.findall(message):
            key = _ALIASES.get(key, key)
            if key not in _INT_KEYS:
                continue
            if not re.fullmatch(r"-?[0-9]{1,18}", value):
                raise self.fail(number, line, f"{key}={value} is not a whole number")
            pairs.setdefault(key, int(value))
        return pairs


def _status_word(condition: _TextCondition | None) -> str:
    return "" if condition is None or condition.status == "<unknown>" else condition.status


def _text_group(group: _TextGroup) -> ca.NodeGroupStatus:
    health = group.conditions.get("Health")
    scale_up = group.conditions.get("ScaleUp")
    counts = health.pairs if health is not None else {}
    up = scale_up.pairs if scale_up is not None else {}
    return ca.NodeGroupStatus(
        name=group.name,
        health=_status_word(health),
        ready=counts.get("ready", up.get("ready")),
        registered=counts.get("registered"),
        not_started=counts.get("notStarted"),
        unready=counts.get("unready"),
        long_unregistered=counts.get("longUnregistered"),
        target=counts.get("cloudProviderTarget", up.get("cloudProviderTarget")),
        min_size=counts.get("minSize"),
        max_size=counts.get("maxSize"),
        scale_up=_status_word(scale_up),
        scale_up_since=scale_up.transition if scale_up is not None else "",
    )
