"""Typed plugin args: one struct per kubescheduler.config.k8s.io/v1 args kind.

Each pluginConfig entry is decoded once, strictly (a string where an integer is wanted, or an
unknown field, is refused as kube-scheduler's strict decoder refuses it), then given upstream's
v1 defaults (apis/config/v1/defaults.go) and checked with the rules of
validation_pluginargs.go. Plugins receive the resulting struct; every problem is a
`PluginArgsError` naming the field as upstream's field paths do.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Self, TypeVar

import msgspec
from msgspec.structs import replace

from podwhy.errors import UsageError
from podwhy.features.emulation import DEFAULT, Emulation
from podwhy.features.kubefeatures import DRA_DEVICE_BINDING_CONDITIONS
from podwhy.helpers.fielderrors import (
    aggregate,
    child,
    duplicate,
    forbidden,
    go_value,
    index,
    invalid,
    not_supported,
    required,
    validate_label_name,
)
from podwhy.helpers.goduration import SECOND, DurationError, format_go_duration, parse_go_duration
from podwhy.helpers.nodeselectors import node_selector_term_errors
from podwhy.model import objects as o
from podwhy.model.gojson import without_nulls

API_VERSION = "kubescheduler.config.k8s.io/v1"

Int32 = Annotated[int, msgspec.Meta(ge=-(2**31), le=2**31 - 1)]
Int64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]

# config.MaxCustomPriorityScore: shape scores are given on 0..10.
MAX_CUSTOM_PRIORITY_SCORE = 10
MAX_UTILIZATION = 100

# Scoring strategy types (config.ScoringStrategyType), sorted as upstream lists them.
LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
SCORING_STRATEGY_TYPES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)

# PodTopologySpreadConstraintsDefaulting.
SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"

# v1.UnsatisfiableConstraintAction, sorted.
WHEN_UNSATISFIABLE_ACTIONS = ("DoNotSchedule", "ScheduleAnyway")

# DynamicResourcesFilterTimeoutDefault (DRASchedulerFilterTimeout is on in v1.35).
DYNAMIC_RESOURCES_FILTER_TIMEOUT_DEFAULT = "10s"


class PluginArgsError(UsageError):
    """Plugin args kube-scheduler refuses; the message is upstream's field errors, aggregated."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__(aggregate(errors))
        self.errors = errors


class _Args(msgspec.Struct, rename="camel", forbid_unknown_fields=True, kw_only=True):
    pass


class ResourceSpec(_Args):
    name: str = ""
    weight: Int64 = 0


class UtilizationShapePoint(_Args):
    utilization: Int32 = 0
    score: Int32 = 0


DEFAULT_RESOURCES = (ResourceSpec(name="cpu", weight=1), ResourceSpec(name="memory", weight=1))


def _weights_defaulted(resources: list[ResourceSpec]) -> list[ResourceSpec]:
    """A missing or zero weight means 1."""
    return [r if r.weight else replace(r, weight=1) for r in resources]


def validate_function_shape(shape: list[UtilizationShapePoint], path: str) -> list[str]:
    """validateFunctionShape: at least one point, utilizations increasing in [0, 100], scores in [0, 10]."""
    if not shape:
        return [required(path, "at least one point must be specified")]
    errors: list[str] = []
    for i in range(1, len(shape)):
        if shape[i - 1].utilization >= shape[i].utilization:
            errors.append(
                invalid(
                    child(index(path, i), "utilization"),
                    shape[i].utilization,
                    "values must be sorted in increasing order",
                )
            )
            break
    for i, point in enumerate(shape):
        if not 0 <= point.utilization <= MAX_UTILIZATION:
            errors.append(
                invalid(
                    child(index(path, i), "utilization"),
                    point.utilization,
                    f"not in valid range [0, {MAX_UTILIZATION}]",
                )
            )
        if not 0 <= point.score <= MAX_CUSTOM_PRIORITY_SCORE:
            errors.append(
                invalid(
                    child(index(path, i), "score"), point.score, f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]"
                )
            )
    return errors


def validate_resources(resources: list[ResourceSpec], path: str) -> list[str]:
    """validateResources: weights in (0, 100]."""
    return [
        invalid(child(index(path, i), "weight"), r.weight, f"resource weight of {r.name} not in valid range (0, 100]")
        for i, r in enumerate(resources)
        if not 0 < r.weight <= 100
    ]


class PluginArgs(_Args):
    """The args of one plugin; the struct's name is the args kind (`<Plugin>Args`)."""

    api_version: str = ""
    kind: str = ""

    @classmethod
    def default(cls) -> Self:
        """What a plugin gets when the configuration has no pluginConfig entry for it."""
        return cls().defaulted()

    def defaulted(self) -> Self:
        """SetDefaults_<Kind>."""
        return self

    def validate(self, path: str, emulation: Emulation = DEFAULT) -> list[str]:
        """Validate<Kind>: upstream's field errors, each located under `path`, as `emulation`'s release checks."""
        return []

    def type_meta_errors(self, path: str) -> list[str]:
        """The args' own apiVersion and kind, when given, must name this kind."""
        errors: list[str] = []
        if self.api_version and self.api_version != API_VERSION:
            errors.append(not_supported(child(path, "apiVersion"), self.api_version, [API_VERSION]))
        if self.kind and self.kind != type(self).__name__:
            errors.append(not_supported(child(path, "kind"), self.kind, [type(self).__name__]))
        return errors


# ------------------------------------------------------------------ DefaultPreemption


class DefaultPreemptionArgs(PluginArgs):
    min_candidate_nodes_percentage: Int32 = 10
    min_candidate_nodes_absolute: Int32 = 100

    def validate(self, path: str, emulation: Emulation = DEFAULT) -> list[str]:
        errors: list[str] = []
        percentage_path = child(path, "minCandidateNodesPercentage")
        absolute_path = child(path, "minCandidateNodesAbsolute")
        if not 0 <= self.min_candidate_nodes_percentage <= 100:
            errors.append(invalid(percentage_path, self.min_candidate_nodes_percentage, "not in valid range [0, 100]"))
        if self.min_candidate_nodes_absolute < 0:
            errors.append(invalid(absolute_path, self.min_candidate_nodes_absolute, "not in valid range [0, inf)"))
        if self.min_candidate_nodes_percentage == 0 and self.min_candidate_nodes_absolute == 0:
            errors.append(invalid(percentage_path, 0, "cannot be zero at the same time as minCandidateNodesAbsolute"))
            errors.append(invalid(absolute_path, 0, "cannot be zero at the same time as minCandidateNodesPercentage"))
        return errors


# ------------------------------------------------------------------ InterPodAffinity


class InterPodAffinityArgs(PluginArgs):
    hard_pod_affinity_weight: Int32 = 1
    ignore_preferred_terms_of_existing_pods: bool = False

    def validate(self, path: str, emulation: Emulation = DEFAULT) -> list[str]:
        if not 0 <= self.hard_pod_affinity_weight <= 100:
            return [
                invalid(
                    child(path, "hardPodAffinityWeight"), self.hard_pod_affinity_weight, "not in valid range [0, 100]"
                )
            ]
        return []


# ------------------------------------------------------------------ NodeAffinity


class NodeAffinityArgs(PluginArgs):
    added_affinity: o.NodeAffinity | None = None

    def validate(self, path: str, emulation: Emulation = DEFAULT) -> list[str]:
        affinity = self.added_affinity
        if affinity is None:
            return []
        errors: list[str] = []
        added = child(path, "addedAffinity")
        required_selector = affinity.required_during_scheduling_ignored_during_execution
        if required_selector is not None:
            terms_path = child(child(added, "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms")
            for i, term in enumerate(required_selector.node_selector_terms):
                if term.match_expressions or term.match_fields:
                    errors.extend(node_selector_term_errors(term, index(terms_path, i)))
        # Upstream locates a preferred term's errors at the term's index, without `.preference`.
        preferred_path = child(added, "preferredDuringSchedulingIgnoredDuringExecution")
        for i, preferred in enumerate(affinity.preferred_during_scheduling_ignored_during_execution):
            term = preferred.preference
            if preferred.weight != 0 and (term.match_expressions or term.match_fields):
                errors.extend(node_selector_term_errors(term, index(preferred_path, i)))
        return errors


# ------------------------------------------------------------------ NodeResourcesBalancedAllocation


class NodeResourcesBalancedAllocationArgs(PluginArgs):
    resources: list[ResourceSpec] = []

    def defaulted(self) -> Self:
        return replace(self, resources=_weights_defaulted(self.resources) or list(DEFAULT_RESOURCES))

    def validate(self, path: str, emulation: Emulation = DEFAULT) -> list[str]:
        errors: list[str] = []
        seen: set[str] = set()
        resources_path = child(path, "resources")
        for i, resource in enumerate(self.resources):
            if resource.name in seen:
                errors.append(duplicate(child(index(resources_path, i), "name"), resource.name))
            seen.add(resource.name)
            if resource.weight != 1:
                errors.append(invalid(child(index(resources_path, i), "weight"), resource.weight, "must be 1"))
        return errors


# ------------------------------------------------------------------ NodeResourcesFit


class RequestedToCapacityRatioParam(_Args):
    shape: list[UtilizationShapePoint] = []


class ScoringStrategy(_Args):
    type: str = ""
    resources: list[ResourceSpec] = []
    requested_to_capacity_ratio: RequestedToCapacityRatioParam | None = None


def _default_scoring_strategy() -> ScoringStrategy:
    return ScoringStrategy(type=LEAST_ALLOCATED, resources=list(DEFAULT_RESOURCES))


class NodeResourcesFitArgs(PluginArgs):
    ignored_resources: list[str] = []
    ignored_resource_groups: list[str] = []
    # A missing scoringStrategy is LeastAllocated over cpu and memory.
    scoring_strategy: ScoringStrategy = msgspec.field(default_factory=_default_scoring_strategy)

    def defaulted(self) -> Self:
        strategy = self.scoring_strategy
        resources = _weights_defaulted(strategy.resources) or list(DEFAULT_RESOURCES)
        return replace(self, scoring_strategy=replace(strategy, resources=resources))

    def validate(self, path: str, emulation: Emulation = DEFAULT) -> list[str]:
        errors: list[str] = []
        for i, name in enumerate(self.ignored_resources):
            errors.extend(validate_label_name(name, index(child(path, "ignoredResources"), i)))
        for i, group in enumerate(self.ignored_resource_groups):
            group_path = index(child(path, "ignoredResourceGroups"), i)
            if "/" in group:
                errors.append(invalid(group_path, group, "resource group name can't contain '/'"))
            errors.extend(validate_label_name(group, group_path))
        strategy = self.scoring_strategy
        strategy_path = child(path, "scoringStrategy")
        if strategy.type not in SCORING_STRATEGY_TYPES:
            errors.append(not_supported(child(strategy_path, "type"), strategy.type, SCORING_STRATEGY_TYPES))
        errors.extend(validate_resources(strategy.resources, child(strategy_path, "resources")))
        ratio = strategy.requested_to_capacity_ratio
        if emulation.fit_args_ratio_only_with_its_type:
            # v1.36: the shape belongs to RequestedToCapacityRatio and to it only.
            ratio_path = child(strategy_path, "requestedToCapacityRatio")
            if strategy.type == REQUESTED_TO_CAPACITY_RATIO:
                if ratio is None:
                    errors.append(required(ratio_path, "must be specified when type is RequestedToCapacityRatio"))
                else:
                    errors.extend(validate_function_shape(ratio.shape, child(ratio_path, "shape")))
            elif ratio is not None:
                errors.append(forbidden(ratio_path, "must be nil when type is not RequestedToCapacityRatio"))
        elif ratio is not None or strategy.type == REQUESTED_TO_CAPACITY_RATIO:
            # Upstream locates shape errors at scoringStrategy.shape. Without requestedToCapacityRatio
            # its RequestedToCapacityRatio scorer dereferences nil and kube-scheduler crashes; podwhy
            # reports the missing shape instead.
            errors.extend(validate_function_shape(ratio.shape if ratio else [], child(strategy_path, "shape")))
        return errors


# ------------------------------------------------------------------ PodTopologySpread


class PodTopologySpreadArgs(PluginArgs):
    default_constraints: list[o.TopologySpreadConstraint] = []
    defaulting_type: str = ""

    def defaulted(self) -> Self:
        return self if self.defaulting_type else replace(self, defaulting_type=SYSTEM_DEFAULTING)

    def validate(self, path: str, emulation: Emulation = DEFAULT) -> list[str]:
        errors: list[str] = []
        defaulting_path = child(path, "defaultingType")
        if self.defaulting_type not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
            errors.append(not_supported(defaulting_path, self.defaulting_type, (SYSTEM_DEFAULTING, LIST_DEFAULTING)))
        elif self.defaulting_type == SYSTEM_DEFAULTING and self.default_constraints:
            errors.append(invalid(defaulting_path, self.defaulting_type, "when .defaultConstraints are not empty"))
        constraints_path = child(path, "defaultConstraints")
        for i, constraint in enumerate(self.default_constraints):
            item = index(constraints_path, i)
            if constraint.max_skew <= 0:
                errors.append(invalid(child(item, "maxSkew"), constraint.max_skew, "not in valid range (0, inf)"))
            key_path = child(item, "topologyKey")
            if not constraint.topology_key:
                errors.append(required(key_path, "can not be empty"))
            else:
                errors.extend(validate_label_name(constraint.topology_key, key_path))
            action_path = child(item, "whenUnsatisfiable")
            if not constraint.when_unsatisfiable:
                errors.append(required(action_path, "can not be empty"))
            elif constraint.when_unsatisfiable not in WHEN_UNSATISFIABLE_ACTIONS:
                errors.append(not_supported(action_path, constraint.when_unsatisfiable, WHEN_UNSATISFIABLE_ACTIONS))
            if constraint.label_selector is not None:
                errors.append(
                    forbidden(
                        child(item, "labelSelector"),
                        "constraint must not define a selector, as they deduced for each pod",
                    )
                )
            for other in self.default_constraints[:i]:
                if (other.topology_key, other.when_unsatisfiable) == (
                    constraint.topology_key,
                    constraint.when_unsatisfiable,
                ):
                    errors.append(duplicate(item, f"{{{constraint.topology_key}, {constraint.when_unsatisfiable}}}"))
                    break
        return errors


# ------------------------------------------------------------------ VolumeBinding


class VolumeBindingArgs(PluginArgs):
    bind_timeout_seconds: Int64 = 600
    # Only valid with the StorageCapacityScoring feature gate, which is off in v1.35.
    shape: list[UtilizationShapePoint] | None = None

    def validate(self, path: str, emulation: Emulation = DEFAULT) -> list[str]:
        errors: list[str] = []
        if self.bind_timeout_seconds < 0:
            errors.append(
                invalid(
                    child(path, "bindTimeoutSeconds"),
                    self.bind_timeout_seconds,
                    "invalid BindTimeoutSeconds, should not be a negative value",
                )
            )
        if self.shape is not None:
            errors.append(
                invalid(
                    child(path, "shape"),
                    msgspec.to_builtins(self.shape),
                    "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring",
                )
            )
        return errors


# ------------------------------------------------------------------ DynamicResources


class DynamicResourcesArgs(PluginArgs):
    # metav1.Duration strings ("10s", "1m30s").
    filter_timeout: str | None = None
    binding_timeout: str | None = None

    def defaulted(self) -> Self:
        if self.filter_timeout is None:
            return replace(self, filter_timeout=DYNAMIC_RESOURCES_FILTER_TIMEOUT_DEFAULT)
        return self

    def validate(self, path: str, emulation: Emulation = DEFAULT) -> list[str]:
        errors: list[str] = []
        timeouts = (("filterTimeout", self.filter_timeout), ("bindingTimeout", self.binding_timeout))
        parsed: dict[str, int] = {}
        for name, text in timeouts:
            if text is None:
                continue
            try:
                parsed[name] = parse_go_duration(text)
            except DurationError as exc:
                errors.append(invalid(child(path, name), text, str(exc)))
        if errors:
            return errors
        # DRASchedulerFilterTimeout is on; DRADeviceBindingConditions is off in v1.35, on in v1.36
        # (DRAResourceClaimDeviceStatus is on in both).
        if parsed.get("filterTimeout", 0) < 0:
            shown = format_go_duration(parsed["filterTimeout"])
            errors.append(invalid(child(path, "filterTimeout"), shown, "must be zero or positive"))
        if emulation.enabled(DRA_DEVICE_BINDING_CONDITIONS):
            if "bindingTimeout" in parsed and parsed["bindingTimeout"] < SECOND:
                shown = format_go_duration(parsed["bindingTimeout"])
                errors.append(invalid(child(path, "bindingTimeout"), shown, "must be at least 1 second"))
        elif self.binding_timeout is not None:
            errors.append(
                forbidden(
                    child(path, "bindingTimeout"),
                    "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled",
                )
            )
        return errors


# ------------------------------------------------------------------ decoding

A = TypeVar("A", bound=PluginArgs)

_PATH_PART = re.compile(r"\.([^.\[]+)|\[(\d+)\]")
_EXPECTED = re.compile(r"Expected `([^`]+)`(?:, got `([^`]+)`)?(.*)")
_UNKNOWN_FIELD = re.compile(r"Object contains unknown field `([^`]+)`")
_TYPE_WORDS = {
    "int": "an integer",
    "str": "a string",
    "float": "a number",
    "bool": "a boolean",
    "null": "null",
    "object": "a mapping",
    "array": "a list",
}


def _value_at(raw: Any, json_path: str) -> Any:
    for name, position in _PATH_PART.findall(json_path):
        if name and isinstance(raw, dict):
            raw = raw.get(name)
        elif position and isinstance(raw, list) and int(position) < len(raw):
            raw = raw[int(position)]
        else:
            return None
    return raw


def _decode_error(exc: msgspec.ValidationError, raw: Any, path: str) -> str:
    """A decoding error as a field error: where it is, the value found, what was wanted."""
    text = str(exc)
    message, _, where = text.partition(" - at `")
    json_path = where.rstrip("`")[1:] if where else ""
    field_path = path + json_path if path else json_path.lstrip(".")
    unknown = _UNKNOWN_FIELD.fullmatch(message)
    if unknown:
        return f"{child(field_path, unknown.group(1))}: unknown field {go_value(unknown.group(1))}"
    expected = _EXPECTED.fullmatch(message)
    if expected:
        want, got, constraint = expected.groups()
        want = want.removesuffix(" | null")  # nulls never reach the decoder
        wanted = _TYPE_WORDS.get(want, want) + constraint
        found = f", not {_TYPE_WORDS.get(got, got)}" if got else ""
        return f"{field_path}: Invalid value: {go_value(_value_at(raw, json_path))}: must be {wanted}{found}"
    return f"{field_path}: {message}"


def decode_plugin_args(args_type: type[A], raw: Any, path: str = "", emulation: Emulation = DEFAULT) -> A:
    """pluginConfig args decoded strictly, defaulted and validated as `emulation`'s release does;
    PluginArgsError names the bad fields."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise PluginArgsError([invalid(path or "args", raw, "has to match plugin args")])
    cleaned = without_nulls(raw)
    try:
        args = msgspec.convert(cleaned, args_type)
    except msgspec.ValidationError as exc:
        raise PluginArgsError([_decode_error(exc, cleaned, path)]) from None
    args = args.defaulted()
    errors = args.type_meta_errors(path) + args.validate(path, emulation)
    if errors:
        raise PluginArgsError(errors)
    return args


def args_of(args_type: type[A], args: PluginArgs | None) -> A:
    """The args a plugin was given, or the defaults; other args kinds are refused (upstream's getArgs)."""
    if args is None:
        return args_type.default()
    if not isinstance(args, args_type):
        raise TypeError(f"want args to be of type {args_type.__name__}, got {type(args).__name__}")
    return args
