"""KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) with upstream's defaulting.

Mirrors v1 defaulting (default plugins merged with the file's plugin sets) and the
framework's MultiPoint expansion, so each extension point gets upstream's order. Plugin
names are looked up in the registry; the extension points a plugin may run at are those
its class implements. Each pluginConfig entry's args are decoded into the plugin's args
kind once, with upstream's defaults and validation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import yaml

from podwhy.errors import PodwhyError, UsageError
from podwhy.features.emulation import DEFAULT, Emulation
from podwhy.features.kubefeatures import DYNAMIC_RESOURCE_ALLOCATION, NODE_DECLARED_FEATURES
from podwhy.framework.interface import EXTENSION_POINTS, MAX_NODE_SCORE
from podwhy.framework.plugin_args import API_VERSION, PluginArgs, PluginArgsError, decode_plugin_args
from podwhy.framework.profile import Profile
from podwhy.model import objects as o
from podwhy.model.wellknownnames import DEFAULT_SCHEDULER_NAME
from podwhy.plugins import names
from podwhy.plugins.registry import PLUGINS
from podwhy.snapshot import yaml11

# Default MultiPoint plugins before feature gates (getDefaultPlugins, the same in v1.33 to v1.36),
# with their weights.
BASE_MULTI_POINT: list[tuple[str, int | None]] = [
    (names.SCHEDULING_GATES, None),
    (names.PRIORITY_SORT, None),
    (names.NODE_UNSCHEDULABLE, None),
    (names.NODE_NAME, None),
    (names.TAINT_TOLERATION, 3),
    (names.NODE_AFFINITY, 2),
    (names.NODE_PORTS, None),
    (names.NODE_RESOURCES_FIT, 1),
    (names.VOLUME_RESTRICTIONS, None),
    (names.NODE_VOLUME_LIMITS, None),
    (names.VOLUME_BINDING, None),
    (names.VOLUME_ZONE, None),
    (names.POD_TOPOLOGY_SPREAD, 2),
    (names.INTER_POD_AFFINITY, 2),
    (names.DEFAULT_PREEMPTION, None),
    (names.NODE_RESOURCES_BALANCED_ALLOCATION, 1),
    (names.IMAGE_LOCALITY, 1),
    (names.DEFAULT_BINDER, None),
]


# The extension points each known plugin extends, from the methods its class implements.
PLUGIN_EXTENSION_POINTS: dict[str, frozenset[str]] = {name: cls.extension_points() for name, cls in PLUGINS.items()}


def default_multi_point(emulation: Emulation = DEFAULT) -> list[tuple[str, int | None]]:
    """The default MultiPoint plugins of a release: the base list with its feature gates applied
    (applyFeatureGates): NodeDeclaredFeatures appended, DynamicResources before DefaultPreemption
    (better to deallocate an idle claim than to evict a pod)."""
    plugins = list(BASE_MULTI_POINT)
    if emulation.enabled(NODE_DECLARED_FEATURES):
        plugins.append((names.NODE_DECLARED_FEATURES, None))
    if emulation.enabled(DYNAMIC_RESOURCE_ALLOCATION):
        at = next(i for i, (name, _) in enumerate(plugins) if name == names.DEFAULT_PREEMPTION)
        scores = "score" in extension_points(names.DYNAMIC_RESOURCES, emulation)
        plugins.insert(at, (names.DYNAMIC_RESOURCES, 2 if scores else None))
    return plugins


def extension_points(name: str, emulation: Emulation = DEFAULT) -> frozenset[str]:
    """The extension points the plugin NAME extends in the release (empty: no such plugin)."""
    points = PLUGIN_EXTENSION_POINTS.get(name, frozenset())
    if name == names.DYNAMIC_RESOURCES and not emulation.dynamic_resources_scores:
        return points - {"score"}
    return points


# The v1.35 default MultiPoint plugins (DynamicResources before DefaultPreemption).
DEFAULT_MULTI_POINT: list[tuple[str, int | None]] = default_multi_point()


MAX_TOTAL_SCORE = 2**63 - 1
MAX_WEIGHT = MAX_TOTAL_SCORE // MAX_NODE_SCORE


class PluginRef(msgspec.Struct):
    name: str
    weight: int | None = None


class PluginSet(msgspec.Struct):
    enabled: list[PluginRef] = msgspec.field(default_factory=list)
    disabled: list[PluginRef] = msgspec.field(default_factory=list)


class Extender(msgspec.Struct):
    url_prefix: str
    filter_verb: str = ""
    prioritize_verb: str = ""
    bind_verb: str = ""


class SchedulerConfig(msgspec.Struct):
    profiles: list[Profile]
    percentage_of_nodes_to_score: int | None
    extenders: list[Extender] = msgspec.field(default_factory=list)
    source: str = ""


def _invalid(path: str, why: str) -> UsageError:
    return UsageError(f"invalid scheduler configuration: {path}: {why}")


def _unknown_plugin(path: str, name: str) -> UsageError:
    return UsageError(
        f'invalid scheduler configuration: {path}: plugin "{name}" does not exist',
        hint="known plugins: " + ", ".join(sorted(PLUGIN_EXTENSION_POINTS)),
    )


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


def _expand(point: str, plugins: dict[str, PluginSet], path: str, emulation: Emulation = DEFAULT) -> list[str]:
    """expandMultiPointPlugins for one extension point."""
    specific = plugins.get(point, PluginSet())
    enabled = [p.name for p in specific.enabled if point in extension_points(p.name, emulation)]
    for p in specific.enabled:
        if p.name not in PLUGIN_EXTENSION_POINTS:
            raise _unknown_plugin(f"{path}.plugins.{point}", p.name)
        if point not in extension_points(p.name, emulation):
            raise _invalid(f"{path}.plugins.{point}", f'plugin "{p.name}" does not extend {point} plugin')
    disabled = {p.name for p in specific.disabled}
    if "*" in disabled:
        return enabled
    multi_point: list[str] = []
    overrides: list[str] = []
    for p in plugins["multiPoint"].enabled:
        if p.name not in PLUGIN_EXTENSION_POINTS:
            raise _unknown_plugin(f"{path}.plugins.multiPoint", p.name)
        if point not in extension_points(p.name, emulation) or p.name in disabled:
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


def _profile(raw: dict[str, Any], index: int, single: bool, emulation: Emulation = DEFAULT) -> Profile:
    path = f"profiles[{index}]"
    name = raw.get("schedulerName")
    if name is None and single:
        name = DEFAULT_SCHEDULER_NAME
    if not isinstance(name, str) or not name:
        raise _invalid(f"{path}.schedulerName", "Required value")
    raw_plugins = raw.get("plugins") or {}
    if not isinstance(raw_plugins, dict):
        raise _invalid(f"{path}.plugins", "must be a mapping")
    unknown = set(raw_plugins) - {"multiPoint", *EXTENSION_POINTS, *emulation.unsimulated_extension_points}
    if unknown:
        raise _invalid(f"{path}.plugins", f"unknown extension point(s): {', '.join(sorted(unknown))}")
    for point in emulation.unsimulated_extension_points:
        # Read and validated as upstream does; podwhy runs no pod-group cycle, so they change nothing here.
        for ref in _plugin_set(raw_plugins.get(point), f"{path}.plugins.{point}").enabled:
            if ref.name not in emulation.unsimulated_plugins and ref.name not in PLUGIN_EXTENSION_POINTS:
                raise _unknown_plugin(f"{path}.plugins.{point}", ref.name)
    defaults = {"multiPoint": PluginSet([PluginRef(n, w) for n, w in default_multi_point(emulation)])}
    plugins: dict[str, PluginSet] = {}
    for point in ("multiPoint", *EXTENSION_POINTS):
        custom = _plugin_set(raw_plugins.get(point), f"{path}.plugins.{point}")
        plugins[point] = _merge_plugin_set(defaults.get(point, PluginSet()), custom)
    args = _plugin_args(raw.get("pluginConfig"), path, emulation)
    expanded = {point: _expand(point, plugins, path, emulation) for point in EXTENSION_POINTS}
    return Profile(
        scheduler_name=name,
        pre_enqueue=expanded["preEnqueue"],
        pre_filter=expanded["preFilter"],
        filter=expanded["filter"],
        post_filter=expanded["postFilter"],
        pre_score=expanded["preScore"],
        score=_score_weights(plugins, expanded["score"], path),
        plugin_args=args,
        emulation=emulation,
    )


def _plugin_args(raw_config: Any, path: str, emulation: Emulation = DEFAULT) -> dict[str, PluginArgs]:
    """Each pluginConfig entry's args, decoded into its plugin's args kind (plugins without one ignore theirs)."""
    if raw_config is None:
        return {}
    if not isinstance(raw_config, list):
        raise _invalid(f"{path}.pluginConfig", "must be a list")
    seen: set[str] = set()
    args: dict[str, PluginArgs] = {}
    for i, entry in enumerate(raw_config):
        entry_path = f"{path}.pluginConfig[{i}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise _invalid(f"{entry_path}.name", "Required value")
        name = entry["name"]
        if name in seen:
            raise _invalid(entry_path, f'Duplicate value: "{name}"')
        seen.add(name)
        cls = PLUGINS.get(name)
        if cls is None:
            raise _unknown_plugin(f"{entry_path}.name", name)
        if cls.ARGS is None:
            continue
        try:
            args[name] = decode_plugin_args(cls.ARGS, entry.get("args"), f"{entry_path}.args", emulation)
        except PluginArgsError as exc:
            raise UsageError(f"invalid scheduler configuration: {exc.message}") from None
    return args


def parse_scheduler_config(raw: Any, source: str = "", emulation: Emulation = DEFAULT) -> SchedulerConfig:
    if not isinstance(raw, dict):
        raise UsageError(f"{source}: not a KubeSchedulerConfiguration")
    if raw.get("kind") != "KubeSchedulerConfiguration":
        raise UsageError(f"{source}: kind must be KubeSchedulerConfiguration, got {raw.get('kind')!r}")
    if raw.get("apiVersion") != API_VERSION:
        raise UsageError(f"{source}: apiVersion must be {API_VERSION}, got {raw.get('apiVersion')!r}")
    raw_profiles = raw.get("profiles") or [{}]
    if not isinstance(raw_profiles, list):
        raise _invalid("profiles", "must be a list")
    profiles = [_profile(p or {}, i, len(raw_profiles) == 1, emulation) for i, p in enumerate(raw_profiles)]
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


def load_scheduler_config(path: Path, emulation: Emulation = DEFAULT) -> SchedulerConfig:
    try:
        text = path.read_text()
    except OSError as exc:
        raise PodwhyError(f"{path}: cannot read scheduler configuration: {exc.strerror}") from None
    try:
        raw = yaml.load(text, Loader=yaml11.UniqueKeySafeLoader)
    except yaml11.DuplicateKeyError as exc:
        raise UsageError(
            f'{path}: line {exc.line + 1}: mapping key "{exc.key}" already defined at line {exc.first_line + 1}'
        ) from None
    except yaml.YAMLError as exc:
        raise UsageError(f"{path}: malformed YAML: {str(exc).splitlines()[0]}") from None
    return parse_scheduler_config(raw, str(path), emulation)


def default_profile(emulation: Emulation = DEFAULT) -> Profile:
    """A release's default profile: an empty profile after upstream's defaulting and expansion."""
    return _profile({}, 0, single=True, emulation=emulation)


def default_config(emulation: Emulation = DEFAULT) -> SchedulerConfig:
    """What kube-scheduler runs without a configuration file."""
    return SchedulerConfig([default_profile(emulation)], None, [], "the default configuration")


def profile_for_pod(config: SchedulerConfig, pod: o.Pod) -> Profile | None:
    """The profile whose schedulerName the pod asks for; None when no profile handles it."""
    name = pod.spec.scheduler_name or DEFAULT_SCHEDULER_NAME
    return next((prof for prof in config.profiles if prof.scheduler_name == name), None)
