"""KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) with upstream's defaulting.

Mirrors v1 defaulting (default plugins merged with the file's plugin sets) and the
framework's MultiPoint expansion, so each extension point gets upstream's order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from podwhy.errors import PodwhyError, UsageError
from podwhy.framework.profile import DEFAULT_SCHEDULER_NAME, Profile
from podwhy.model import objects as o

API_VERSION = "kubescheduler.config.k8s.io/v1"

# Default MultiPoint plugins of v1.35 (DynamicResources inserted before
# DefaultPreemption because DynamicResourceAllocation is on) with their weights.
DEFAULT_MULTI_POINT: list[tuple[str, int | None]] = [
    ("SchedulingGates", None),
    ("PrioritySort", None),
    ("NodeUnschedulable", None),
    ("NodeName", None),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", None),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", None),
    ("NodeVolumeLimits", None),
    ("VolumeBinding", None),
    ("VolumeZone", None),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DynamicResources", 2),
    ("DefaultPreemption", None),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", None),
]

# Extension points each in-tree plugin implements.
EXTENSION_POINTS: dict[str, frozenset[str]] = {
    "SchedulingGates": frozenset({"preEnqueue"}),
    "PrioritySort": frozenset({"queueSort"}),
    "NodeUnschedulable": frozenset({"filter"}),
    "NodeName": frozenset({"filter"}),
    "TaintToleration": frozenset({"filter", "preScore", "score"}),
    "NodeAffinity": frozenset({"preFilter", "filter", "preScore", "score"}),
    "NodePorts": frozenset({"preFilter", "filter"}),
    "NodeResourcesFit": frozenset({"preFilter", "filter", "preScore", "score"}),
    "VolumeRestrictions": frozenset({"preFilter", "filter"}),
    "NodeVolumeLimits": frozenset({"preFilter", "filter"}),
    "VolumeBinding": frozenset({"preFilter", "filter", "reserve", "preBind", "preScore", "score"}),
    "VolumeZone": frozenset({"preFilter", "filter"}),
    "PodTopologySpread": frozenset({"preFilter", "filter", "preScore", "score"}),
    "InterPodAffinity": frozenset({"preFilter", "filter", "preScore", "score"}),
    "DynamicResources": frozenset({"preEnqueue", "preFilter", "filter", "postFilter", "score", "reserve", "preBind"}),
    "DefaultPreemption": frozenset({"postFilter"}),
    "NodeResourcesBalancedAllocation": frozenset({"preScore", "score"}),
    "ImageLocality": frozenset({"score"}),
    "DefaultBinder": frozenset({"bind"}),
}

POINTS = (
    "preEnqueue",
    "queueSort",
    "preFilter",
    "filter",
    "postFilter",
    "preScore",
    "score",
    "reserve",
    "permit",
    "preBind",
    "bind",
    "postBind",
)

MAX_NODE_SCORE = 100
MAX_TOTAL_SCORE = 2**63 - 1
MAX_WEIGHT = MAX_TOTAL_SCORE // MAX_NODE_SCORE


@dataclass
class PluginRef:
    name: str
    weight: int | None = None


@dataclass
class PluginSet:
    enabled: list[PluginRef] = field(default_factory=list)
    disabled: list[PluginRef] = field(default_factory=list)


@dataclass
class Extender:
    url_prefix: str
    filter_verb: str = ""
    prioritize_verb: str = ""
    bind_verb: str = ""


@dataclass
class SchedulerConfig:
    profiles: list[Profile]
    percentage_of_nodes_to_score: int | None
    extenders: list[Extender] = field(default_factory=list)
    source: str = ""


def _invalid(path: str, why: str) -> UsageError:
    return UsageError(f"invalid scheduler configuration: {path}: {why}")


def _plugin_set(raw: Any, path: str) -> PluginSet:
    if raw is None:
        return PluginSet()
    if not isinstance(raw, dict):
        raise _invalid(path, "must be a mapping with enabled/disabled lists")
    out = PluginSet()
    for key in ("enabled", "disabled"):
        items = raw.get(key) or []
        if not isinstance(items, list):
            raise _invalid(f"{path}.{key}", "must be a list")
        for i, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"]:
                raise _invalid(f"{path}.{key}[{i}].name", "Required value")
            weight = item.get("weight")
            if weight is not None and (not isinstance(weight, int) or weight < 0):
                raise _invalid(f"{path}.{key}[{i}].weight", "must be a non-negative integer")
            getattr(out, key).append(PluginRef(item["name"], weight))
    return out


def _merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    """mergePluginSet: custom entries override defaults in place, new ones are appended."""
    disabled = [PluginRef(p.name) for p in custom.disabled] + [PluginRef(p.name) for p in default.disabled]
    disabled_names = {p.name for p in disabled}
    custom_index = {p.name: (i, p) for i, p in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[PluginRef] = []
    if "*" not in disabled_names:
        for plugin in default.enabled:
            if plugin.name in disabled_names:
                continue
            if plugin.name in custom_index:
                index, override = custom_index[plugin.name]
                plugin = override
                replaced.add(index)
            enabled.append(plugin)
    enabled.extend(p for i, p in enumerate(custom.enabled) if i not in replaced)
    return PluginSet(enabled, disabled)


def _expand(point: str, plugins: dict[str, PluginSet], path: str) -> list[str]:
    """expandMultiPointPlugins for one extension point."""
    specific = plugins.get(point, PluginSet())
    enabled = [p.name for p in specific.enabled if point in EXTENSION_POINTS.get(p.name, frozenset())]
    for p in specific.enabled:
        if p.name not in EXTENSION_POINTS:
            raise _invalid(f"{path}.plugins.{point}", f'plugin "{p.name}" does not exist')
        if point not in EXTENSION_POINTS[p.name]:
            raise _invalid(f"{path}.plugins.{point}", f'plugin "{p.name}" does not extend {point} plugin')
    disabled = {p.name for p in specific.disabled}
    if "*" in disabled:
        return enabled
    multi_point: list[str] = []
    overrides: list[str] = []
    for p in plugins["multiPoint"].enabled:
        if p.name not in EXTENSION_POINTS:
            raise _invalid(f"{path}.plugins.multiPoint", f'plugin "{p.name}" does not exist')
        if point not in EXTENSION_POINTS[p.name] or p.name in disabled:
            continue
        if p.name in enabled:
            overrides.append(p.name)
            continue
        if p.name in multi_point:
            raise _invalid(f"{path}.plugins.multiPoint", f'plugin "{p.name}" already registered as {point}')
        multi_point.append(p.name)
    first = [n for n in enabled if n in overrides]
    rest = [n for n in enabled if n not in overrides]
    return first + multi_point + rest


def _score_weights(plugins: dict[str, PluginSet], score_plugins: list[str], path: str) -> dict[str, int]:
    weights: dict[str, int] = {}
    for ref in [*plugins.get("score", PluginSet()).enabled, *plugins["multiPoint"].enabled]:
        if ref.name not in score_plugins or ref.name in weights:
            continue
        weight = ref.weight or 1
        if weight > MAX_WEIGHT:
            raise _invalid(f"{path}.plugins.score", f'weight of plugin "{ref.name}" is too large')
        weights[ref.name] = weight
    return {name: weights.get(name, 1) for name in score_plugins}


def _profile(raw: dict[str, Any], index: int, single: bool) -> Profile:
    path = f"profiles[{index}]"
    name = raw.get("schedulerName")
    if name is None and single:
        name = DEFAULT_SCHEDULER_NAME
    if not isinstance(name, str) or not name:
        raise _invalid(f"{path}.schedulerName", "Required value")
    raw_plugins = raw.get("plugins") or {}
    if not isinstance(raw_plugins, dict):
        raise _invalid(f"{path}.plugins", "must be a mapping")
    unknown = set(raw_plugins) - {"multiPoint", *POINTS}
    if unknown:
        raise _invalid(f"{path}.plugins", f"unknown extension point(s): {', '.join(sorted(unknown))}")
    defaults = {"multiPoint": PluginSet([PluginRef(n, w) for n, w in DEFAULT_MULTI_POINT])}
    plugins: dict[str, PluginSet] = {}
    for point in ("multiPoint", *POINTS):
        custom = _plugin_set(raw_plugins.get(point), f"{path}.plugins.{point}")
        plugins[point] = _merge_plugin_set(defaults.get(point, PluginSet()), custom)
    args: dict[str, dict[str, Any]] = {}
    for i, entry in enumerate(raw.get("pluginConfig") or []):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise _invalid(f"{path}.pluginConfig[{i}].name", "Required value")
        pname = entry["name"]
        if pname in args:
            raise _invalid(f"{path}.pluginConfig[{i}]", f'Duplicate value: "{pname}"')
        if pname not in EXTENSION_POINTS:
            raise _invalid(f"{path}.pluginConfig[{i}].name", f'plugin "{pname}" does not exist')
        plugin_args = entry.get("args") or {}
        if not isinstance(plugin_args, dict):
            raise _invalid(f"{path}.pluginConfig[{i}].args", "has to match plugin args")
        args[pname] = plugin_args
    _validate_args(args, path)
    expanded = {point: _expand(point, plugins, path) for point in POINTS}
    return Profile(
        scheduler_name=name,
        pre_filter=expanded["preFilter"],
        filter=expanded["filter"],
        post_filter=expanded["postFilter"],
        pre_score=expanded["preScore"],
        score=_score_weights(plugins, expanded["score"], path),
        plugin_args=args,
    )


def _validate_args(args: dict[str, dict[str, Any]], path: str) -> None:
    """The parts of upstream's plugin-args validation that change verdicts if ignored."""
    fit = args.get("NodeResourcesFit", {})
    strategy = fit.get("scoringStrategy")
    if strategy is not None:
        kind = strategy.get("type", "LeastAllocated")
        if kind not in ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"):
            raise _invalid(f"{path}.pluginConfig.NodeResourcesFit.scoringStrategy.type", f'Unsupported value: "{kind}"')
        for j, res in enumerate(strategy.get("resources") or []):
            # v1 defaulting turns a missing or zero weight into 1 before validation.
            weight = res.get("weight") or 1
            if not isinstance(weight, int) or not 1 <= weight <= 100:
                raise _invalid(
                    f"{path}.pluginConfig.NodeResourcesFit.scoringStrategy.resources[{j}].weight",
                    f"Invalid value: {weight}: resource weight of {res.get('name')} should be in the range [1, 100]",
                )
        if kind == "RequestedToCapacityRatio":
            shape = (strategy.get("requestedToCapacityRatio") or {}).get("shape") or []
            if not shape:
                raise _invalid(
                    f"{path}.pluginConfig.NodeResourcesFit.scoringStrategy.requestedToCapacityRatio.shape",
                    "Required value: at least one point must be specified",
                )
            last = -1
            for j, point in enumerate(shape):
                util, score = point.get("utilization", 0), point.get("score", 0)
                if not 0 <= util <= 100:
                    raise _invalid(
                        f"{path}.pluginConfig.NodeResourcesFit...shape[{j}].utilization", "not in range [0, 100]"
                    )
                if util <= last:
                    raise _invalid(
                        f"{path}.pluginConfig.NodeResourcesFit...shape[{j}].utilization",
                        "utilization values must be sorted in increasing order",
                    )
                last = util
                if not 0 <= score <= 10:
                    raise _invalid(f"{path}.pluginConfig.NodeResourcesFit...shape[{j}].score", "not in range [0, 10]")
    if "shape" in args.get("VolumeBinding", {}):
        # StorageCapacityScoring is off by default in v1.35.
        raise _invalid(
            f"{path}.pluginConfig.VolumeBinding.args.shape",
            "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring",
        )
    spread = args.get("PodTopologySpread", {})
    defaulting = spread.get("defaultingType", "System")
    if defaulting not in ("System", "List"):
        raise _invalid(f"{path}.pluginConfig.PodTopologySpread.defaultingType", f'Unsupported value: "{defaulting}"')
    if defaulting == "System" and spread.get("defaultConstraints"):
        raise _invalid(
            f"{path}.pluginConfig.PodTopologySpread.defaultConstraints",
            'Invalid value: when .defaultingType is "System", .defaultConstraints must be empty',
        )
    ipa = args.get("InterPodAffinity", {})
    hard = ipa.get("hardPodAffinityWeight", 1)
    if not isinstance(hard, int) or not 0 <= hard <= 100:
        raise _invalid(f"{path}.pluginConfig.InterPodAffinity.hardPodAffinityWeight", "not in valid range [0-100]")
    added = args.get("NodeAffinity", {}).get("addedAffinity")
    if added is not None:
        import msgspec

        try:
            msgspec.convert(added, o.NodeAffinity)
        except msgspec.ValidationError as exc:
            raise _invalid(f"{path}.pluginConfig.NodeAffinity.addedAffinity", str(exc)) from None


def parse_scheduler_config(raw: Any, source: str = "") -> SchedulerConfig:
    if not isinstance(raw, dict):
        raise UsageError(f"{source}: not a KubeSchedulerConfiguration")
    if raw.get("kind") != "KubeSchedulerConfiguration":
        raise UsageError(f"{source}: kind must be KubeSchedulerConfiguration, got {raw.get('kind')!r}")
    if raw.get("apiVersion") != API_VERSION:
        raise UsageError(f"{source}: apiVersion must be {API_VERSION}, got {raw.get('apiVersion')!r}")
    raw_profiles = raw.get("profiles") or [{}]
    if not isinstance(raw_profiles, list):
        raise _invalid("profiles", "must be a list")
    profiles = [_profile(p or {}, i, len(raw_profiles) == 1) for i, p in enumerate(raw_profiles)]
    seen: set[str] = set()
    for i, prof in enumerate(profiles):
        if prof.scheduler_name in seen:
            raise _invalid(f"profiles[{i}].schedulerName", f'Duplicate value: "{prof.scheduler_name}"')
        seen.add(prof.scheduler_name)
    pct = raw.get("percentageOfNodesToScore")
    if pct is not None and (not isinstance(pct, int) or not 0 <= pct <= 100):
        raise _invalid("percentageOfNodesToScore", f"Invalid value: {pct}: not in valid range [0-100]")
    for prof, raw_prof in zip(profiles, raw_profiles, strict=True):
        own = (raw_prof or {}).get("percentageOfNodesToScore")
        if own is not None and (not isinstance(own, int) or not 0 <= own <= 100):
            raise _invalid(
                f"profiles[{profiles.index(prof)}].percentageOfNodesToScore",
                f"Invalid value: {own}: not in valid range [0-100]",
            )
        # A profile's own value wins over the global one (numFeasibleNodesToFind).
        prof.percentage_of_nodes_to_score = own if own is not None else pct
    extenders = [
        Extender(
            url_prefix=str(e.get("urlPrefix", "")),
            filter_verb=str(e.get("filterVerb", "")),
            prioritize_verb=str(e.get("prioritizeVerb", "")),
            bind_verb=str(e.get("bindVerb", "")),
        )
        for e in raw.get("extenders") or []
        if isinstance(e, dict)
    ]
    return SchedulerConfig(profiles, pct, extenders, source)


def load_scheduler_config(path: Path) -> SchedulerConfig:
    try:
        text = path.read_text()
    except OSError as exc:
        raise PodwhyError(f"{path}: cannot read scheduler configuration: {exc.strerror}") from None
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise UsageError(f"{path}: malformed YAML: {str(exc).splitlines()[0]}") from None
    return parse_scheduler_config(raw, str(path))


def default_profile() -> Profile:
    """The default v1.35 profile: an empty profile after upstream's defaulting and expansion."""
    return _profile({}, 0, single=True)


def default_config() -> SchedulerConfig:
    """What kube-scheduler runs without a configuration file."""
    return SchedulerConfig([default_profile()], None, [], "the default configuration")


def profile_for_pod(config: SchedulerConfig, pod: o.Pod) -> Profile | None:
    """The profile whose schedulerName the pod asks for; None when no profile handles it."""
    name = pod.spec.scheduler_name or DEFAULT_SCHEDULER_NAME
    return next((prof for prof in config.profiles if prof.scheduler_name == name), None)
