"""Typed plugin args: strict decoding, upstream's v1 defaults, and validation_pluginargs.go's rules.

The invalid cases are upstream's validation_pluginargs_test.go cases (kubernetes v1.35), given
as pluginConfig args; the expected texts are field.Error's, located under the entry's args.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.errors import UsageError
from podwhy.framework.plugin_args import (
    DefaultPreemptionArgs,
    DynamicResourcesArgs,
    InterPodAffinityArgs,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    PluginArgs,
    PodTopologySpreadArgs,
    VolumeBindingArgs,
)
from podwhy.helpers.goduration import DurationError, format_go_duration, parse_go_duration
from podwhy.scheduler.config import parse_scheduler_config
from tests.paths import REPO

EXAMPLE = REPO / "fixtures" / "examples" / "shop-cluster.yaml"
POD = "shop/checkout-7c9d8b6f5-m4x2q"

PREFIX = "invalid scheduler configuration: "
ARGS = "profiles[0].pluginConfig[0].args"
LABEL_KEY_REGEX = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_KEY_SLASHES = (
    f"a valid label key {LABEL_KEY_REGEX} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
)
STRATEGY = "scoringStrategy"


def configuration(plugin: str, args: Any) -> dict[str, Any]:
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"pluginConfig": [{"name": plugin, "args": args}]}],
    }


def expected_message(errors: list[str]) -> str:
    located = [f"{ARGS}.{e}" for e in errors]
    return PREFIX + (located[0] if len(located) == 1 else "[" + ", ".join(located) + "]")


def constraint(key: str = "node", action: str = "DoNotSchedule", skew: int = 1, **extra: Any) -> dict[str, Any]:
    return {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": action, **extra}


def ratio(*points: tuple[int, int], resources: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    strategy: dict[str, Any] = {
        "type": "RequestedToCapacityRatio",
        "requestedToCapacityRatio": {"shape": [{"utilization": u, "score": s} for u, s in points]},
    }
    if resources is not None:
        strategy["resources"] = resources
    return {STRATEGY: strategy}


def weights(strategy: str, *resources: tuple[str, int]) -> dict[str, Any]:
    return {STRATEGY: {"type": strategy, "resources": [{"name": n, "weight": w} for n, w in resources]}}


INVALID = [
    # TestValidateDefaultPreemptionArgs
    pytest.param(
        "DefaultPreemption",
        {"minCandidateNodesPercentage": -1, "minCandidateNodesAbsolute": 100},
        ["minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]"],
        id="negative minCandidateNodesPercentage",
    ),
    pytest.param(
        "DefaultPreemption",
        {"minCandidateNodesPercentage": 900, "minCandidateNodesAbsolute": 100},
        ["minCandidateNodesPercentage: Invalid value: 900: not in valid range [0, 100]"],
        id="minCandidateNodesPercentage over 100",
    ),
    pytest.param(
        "DefaultPreemption",
        {"minCandidateNodesPercentage": 20, "minCandidateNodesAbsolute": -1},
        ["minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"],
        id="negative minCandidateNodesAbsolute",
    ),
    pytest.param(
        "DefaultPreemption",
        {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0},
        [
            "minCandidateNodesPercentage: Invalid value: 0: "
            "cannot be zero at the same time as minCandidateNodesAbsolute",
            "minCandidateNodesAbsolute: Invalid value: 0: "
            "cannot be zero at the same time as minCandidateNodesPercentage",
        ],
        id="all zero",
    ),
    pytest.param(
        "DefaultPreemption",
        {"minCandidateNodesPercentage": -1, "minCandidateNodesAbsolute": -1},
        [
            "minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]",
            "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)",
        ],
        id="both negative",
    ),
    # TestValidateInterPodAffinityArgs
    pytest.param(
        "InterPodAffinity",
        {"hardPodAffinityWeight": -1},
        ["hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]"],
        id="hardPodAffinityWeight less than min",
    ),
    pytest.param(
        "InterPodAffinity",
        {"hardPodAffinityWeight": 101},
        ["hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"],
        id="hardPodAffinityWeight more than max",
    ),
    # TestValidatePodTopologySpreadArgs
    pytest.param(
        "PodTopologySpread",
        {"defaultingType": "List", "defaultConstraints": [constraint(skew=-1)]},
        ["defaultConstraints[0].maxSkew: Invalid value: -1: not in valid range (0, inf)"],
        id="maxSkew less than zero",
    ),
    pytest.param(
        "PodTopologySpread",
        {"defaultingType": "List", "defaultConstraints": [constraint(key="")]},
        ["defaultConstraints[0].topologyKey: Required value: can not be empty"],
        id="empty topology key",
    ),
    pytest.param(
        "PodTopologySpread",
        {"defaultingType": "List", "defaultConstraints": [constraint(action="")]},
        ["defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty"],
        id="whenUnsatisfiable is empty",
    ),
    pytest.param(
        "PodTopologySpread",
        {"defaultingType": "List", "defaultConstraints": [constraint(action="unknown action")]},
        [
            'defaultConstraints[0].whenUnsatisfiable: Unsupported value: "unknown action": '
            'supported values: "DoNotSchedule", "ScheduleAnyway"'
        ],
        id="whenUnsatisfiable contains unsupported action",
    ),
    pytest.param(
        "PodTopologySpread",
        {"defaultingType": "List", "defaultConstraints": [constraint(), constraint(skew=2)]},
        ['defaultConstraints[1]: Duplicate value: "{node, DoNotSchedule}"'],
        id="duplicated constraints",
    ),
    pytest.param(
        "PodTopologySpread",
        {
            "defaultingType": "List",
            "defaultConstraints": [constraint("key", labelSelector={"matchLabels": {"a": "b"}})],
        },
        [
            "defaultConstraints[0].labelSelector: Forbidden: "
            "constraint must not define a selector, as they deduced for each pod"
        ],
        id="label selector present",
    ),
    pytest.param(
        "PodTopologySpread",
        {"defaultingType": "unknown"},
        ['defaultingType: Unsupported value: "unknown": supported values: "System", "List"'],
        id="wrong constraints",
    ),
    pytest.param(
        "PodTopologySpread",
        {"defaultingType": "System", "defaultConstraints": [constraint("key")]},
        ['defaultingType: Invalid value: "System": when .defaultConstraints are not empty'],
        id="system default constraints, but has constraints",
    ),
    # TestValidateNodeResourcesBalancedAllocationArgs
    pytest.param(
        "NodeResourcesBalancedAllocation",
        {"resources": [{"name": "cpu", "weight": 2}, {"name": "memory", "weight": 1}]},
        ["resources[0].weight: Invalid value: 2: must be 1"],
        id="balanced: invalid config",
    ),
    pytest.param(
        "NodeResourcesBalancedAllocation",
        {"resources": [{"name": "cpu", "weight": 1}, {"name": "cpu", "weight": 1}]},
        ['resources[1].name: Duplicate value: "cpu"'],
        id="balanced: repeated resources",
    ),
    # TestValidateNodeAffinityArgs
    pytest.param(
        "NodeAffinity",
        {
            "addedAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": "invalid/label/key", "operator": "In", "values": ["label-1-val"]}
                            ]
                        }
                    ]
                },
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 1,
                        "preference": {
                            "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1", "node-2"]}]
                        },
                    }
                ],
            }
        },
        [
            "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
            f'.matchExpressions[0].key: Invalid value: "invalid/label/key": {LABEL_KEY_SLASHES}',
            "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchFields[0].values: "
            'Invalid value: ["node-1","node-2"]: must have one element',
        ],
        id="invalid added affinity",
    ),
    # TestValidateVolumeBindingArgs (StorageCapacityScoring is off in v1.35)
    pytest.param(
        "VolumeBinding",
        {"bindTimeoutSeconds": -10},
        ["bindTimeoutSeconds: Invalid value: -10: invalid BindTimeoutSeconds, should not be a negative value"],
        id="negative value is invalid config",
    ),
    pytest.param(
        "VolumeBinding",
        {"bindTimeoutSeconds": 10, "shape": [{"utilization": 1, "score": 1}, {"utilization": 3, "score": 3}]},
        [
            'shape: Invalid value: [{"utilization":1,"score":1},{"utilization":3,"score":3}]: '
            "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring"
        ],
        id="shape is refused while the feature is off",
    ),
    # TestValidateFitArgs
    pytest.param(
        "NodeResourcesFit",
        {"ignoredResources": ["longvalue" + "a" * 64]},
        [f'ignoredResources[0]: Invalid value: "longvalue{"a" * 64}": name part must be no more than 63 bytes'],
        id="IgnoredResources: too long value",
    ),
    pytest.param(
        "NodeResourcesFit",
        {"ignoredResources": ["example.com/"]},
        [
            'ignoredResources[0]: Invalid value: "example.com/": name part must be non-empty',
            f'ignoredResources[0]: Invalid value: "example.com/": name part {LABEL_KEY_REGEX}',
        ],
        id="IgnoredResources: name is empty",
    ),
    pytest.param(
        "NodeResourcesFit",
        {"ignoredResources": ["example.com/aaa/bbb"]},
        [f'ignoredResources[0]: Invalid value: "example.com/aaa/bbb": {LABEL_KEY_SLASHES}'],
        id="IgnoredResources: name has too many slash",
    ),
    pytest.param(
        "NodeResourcesFit",
        {"ignoredResourceGroups": ["a" * 64]},
        [f'ignoredResourceGroups[0]: Invalid value: "{"a" * 64}": name part must be no more than 63 bytes'],
        id="IgnoredResourceGroups: name is too long",
    ),
    pytest.param(
        "NodeResourcesFit",
        {"ignoredResourceGroups": ["example.com/aa"]},
        ["ignoredResourceGroups[0]: Invalid value: \"example.com/aa\": resource group name can't contain '/'"],
        id="IgnoredResourceGroups: name cannot be contain slash",
    ),
    # TestValidateLeastAllocatedScoringStrategy / TestValidateMostAllocatedScoringStrategy
    # (a zero weight is defaulted to 1 before validation, so below-min takes a negative one)
    pytest.param(
        "NodeResourcesFit",
        weights("LeastAllocated", ("cpu", 101)),
        [f"{STRATEGY}.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]"],
        id="least allocated: weight greater than max",
    ),
    pytest.param(
        "NodeResourcesFit",
        weights("MostAllocated", ("cpu", -1), ("memory", 101)),
        [
            f"{STRATEGY}.resources[0].weight: Invalid value: -1: resource weight of cpu not in valid range (0, 100]",
            f"{STRATEGY}.resources[1].weight: Invalid value: 101: "
            "resource weight of memory not in valid range (0, 100]",
        ],
        id="most allocated: multi invalid resources",
    ),
    # TestValidateRequestedToCapacityRatioScoringStrategy (upstream locates shape errors at scoringStrategy.shape)
    pytest.param(
        "NodeResourcesFit",
        ratio(),
        [f"{STRATEGY}.shape: Required value: at least one point must be specified"],
        id="ratio: no shapes",
    ),
    pytest.param(
        "NodeResourcesFit",
        ratio((30, 3), resources=[{"name": "cpu", "weight": 101}]),
        [f"{STRATEGY}.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]"],
        id="ratio: weight greater than max",
    ),
    pytest.param(
        "NodeResourcesFit",
        ratio((-1, 3)),
        [f"{STRATEGY}.shape[0].utilization: Invalid value: -1: not in valid range [0, 100]"],
        id="ratio: utilization less than min",
    ),
    pytest.param(
        "NodeResourcesFit",
        ratio((101, 3)),
        [f"{STRATEGY}.shape[0].utilization: Invalid value: 101: not in valid range [0, 100]"],
        id="ratio: utilization greater than max",
    ),
    pytest.param(
        "NodeResourcesFit",
        ratio((10, 3), (10, 3)),
        [f"{STRATEGY}.shape[1].utilization: Invalid value: 10: values must be sorted in increasing order"],
        id="ratio: duplicated utilization values",
    ),
    pytest.param(
        "NodeResourcesFit",
        ratio((10, 3), (20, 3), (15, 3)),
        [f"{STRATEGY}.shape[2].utilization: Invalid value: 15: values must be sorted in increasing order"],
        id="ratio: non-increasing utilization values",
    ),
    pytest.param(
        "NodeResourcesFit",
        ratio((10, -1)),
        [f"{STRATEGY}.shape[0].score: Invalid value: -1: not in valid range [0, 10]"],
        id="ratio: score less than min",
    ),
    pytest.param(
        "NodeResourcesFit",
        ratio((10, 11)),
        [f"{STRATEGY}.shape[0].score: Invalid value: 11: not in valid range [0, 10]"],
        id="ratio: score greater than max",
    ),
    pytest.param(
        "NodeResourcesFit",
        {STRATEGY: {"type": "Best"}},
        [
            f'{STRATEGY}.type: Unsupported value: "Best": '
            'supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"'
        ],
        id="unsupported scoring strategy",
    ),
    # Decoding is strict: a wrongly typed value or an unknown field is refused where it is.
    pytest.param(
        "NodeResourcesFit",
        {
            STRATEGY: {
                "type": "RequestedToCapacityRatio",
                "requestedToCapacityRatio": {"shape": [{"utilization": "50"}]},
            }
        },
        [
            f"{STRATEGY}.requestedToCapacityRatio.shape[0].utilization: "
            'Invalid value: "50": must be an integer, not a string'
        ],
        id="utilization given as a string",
    ),
    pytest.param(
        "InterPodAffinity",
        {"hardPodAffinityWeight": 2**31},
        [f"hardPodAffinityWeight: Invalid value: {2**31}: must be an integer <= 2147483647"],
        id="int32 overflow",
    ),
    pytest.param(
        "NodeResourcesFit",
        {STRATEGY: {"type": "LeastAllocated", "resources": [{"name": "cpu", "wieght": 2}]}},
        [f'{STRATEGY}.resources[0].wieght: unknown field "wieght"'],
        id="unknown field",
    ),
    # ValidateDynamicResourcesArgs with v1.35's gates (DRASchedulerFilterTimeout on, DRADeviceBindingConditions off)
    pytest.param(
        "DynamicResources",
        {"filterTimeout": "-90s"},
        ['filterTimeout: Invalid value: "-1m30s": must be zero or positive'],
        id="negative filter timeout",
    ),
    pytest.param(
        "DynamicResources",
        {"bindingTimeout": "10m"},
        [
            "bindingTimeout: Forbidden: "
            "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled"
        ],
        id="binding timeout while its gates are off",
    ),
    pytest.param(
        "DynamicResources",
        {"filterTimeout": "10"},
        ['filterTimeout: Invalid value: "10": time: missing unit in duration "10"'],
        id="duration without unit",
    ),
]


@pytest.mark.parametrize(("plugin", "args", "errors"), INVALID)
def test_invalid_args_are_usage_errors(plugin: str, args: Any, errors: list[str]) -> None:
    with pytest.raises(UsageError) as info:
        parse_scheduler_config(configuration(plugin, args), "test.yaml")
    assert info.value.message == expected_message(errors)
    assert info.value.exit_code == 2


VALID = [
    pytest.param("DefaultPreemption", {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100}),
    pytest.param("InterPodAffinity", {"hardPodAffinityWeight": 10}),
    pytest.param(
        "PodTopologySpread",
        {"defaultingType": "List", "defaultConstraints": [constraint(), constraint("zone", "ScheduleAnyway", 2)]},
    ),
    pytest.param("PodTopologySpread", {"defaultingType": "List"}, id="list default constraints, no constraints"),
    pytest.param("NodeResourcesBalancedAllocation", {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory"}]}),
    pytest.param(
        "NodeAffinity",
        {
            "addedAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 1,
                        "preference": {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n"]}]},
                    }
                ]
            }
        },
    ),
    pytest.param("VolumeBinding", {"bindTimeoutSeconds": 0}, id="zero is a valid config"),
    pytest.param("NodeResourcesFit", {"ignoredResources": ["example.com"], "ignoredResourceGroups": ["example.com"]}),
    pytest.param("NodeResourcesFit", ratio((10, 3), (20, 3), (30, 3)), id="increasing utilization values"),
    pytest.param("DynamicResources", {"filterTimeout": "0s"}),
    pytest.param("NodeResourcesFit", {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "NodeResourcesFitArgs"}),
    # A plugin without an args kind ignores whatever it is given, as kube-scheduler does.
    pytest.param("ImageLocality", {"anything": 1}),
]


@pytest.mark.parametrize(("plugin", "args"), VALID)
def test_valid_args_are_accepted(plugin: str, args: Any) -> None:
    (profile,) = parse_scheduler_config(configuration(plugin, args), "test.yaml").profiles
    assert (plugin in profile.plugin_args) == (plugin != "ImageLocality")


def test_args_kind_must_match_the_plugin() -> None:
    with pytest.raises(UsageError) as info:
        parse_scheduler_config(configuration("NodeResourcesFit", {"kind": "InterPodAffinityArgs"}), "test.yaml")
    assert info.value.message == expected_message(
        ['kind: Unsupported value: "InterPodAffinityArgs": supported values: "NodeResourcesFitArgs"']
    )


# ---------------------------------------------------------------------- defaults (apis/config/v1/defaults.go)


def test_defaults_without_a_plugin_config_entry() -> None:
    assert DefaultPreemptionArgs.default().min_candidate_nodes_percentage == 10
    assert DefaultPreemptionArgs.default().min_candidate_nodes_absolute == 100
    assert InterPodAffinityArgs.default().hard_pod_affinity_weight == 1
    assert not InterPodAffinityArgs.default().ignore_preferred_terms_of_existing_pods
    assert NodeAffinityArgs.default().added_affinity is None
    fit = NodeResourcesFitArgs.default()
    assert fit.scoring_strategy.type == "LeastAllocated"
    assert [(r.name, r.weight) for r in fit.scoring_strategy.resources] == [("cpu", 1), ("memory", 1)]
    balanced = NodeResourcesBalancedAllocationArgs.default()
    assert [(r.name, r.weight) for r in balanced.resources] == [("cpu", 1), ("memory", 1)]
    assert PodTopologySpreadArgs.default().defaulting_type == "System"
    assert (VolumeBindingArgs.default().bind_timeout_seconds, VolumeBindingArgs.default().shape) == (600, None)
    dra = DynamicResourcesArgs.default()
    assert (dra.filter_timeout, dra.binding_timeout) == ("10s", None)


@pytest.mark.parametrize(
    ("plugin", "args", "check"),
    [
        # A null leaves the field unset, so it takes the default (Go's pointer fields).
        ("InterPodAffinity", {"hardPodAffinityWeight": None}, lambda a: a.hard_pod_affinity_weight == 1),
        ("PodTopologySpread", {"defaultingType": ""}, lambda a: a.defaulting_type == "System"),
        (
            "NodeResourcesFit",
            {STRATEGY: {"type": "MostAllocated", "resources": [{"name": "nvidia.com/gpu", "weight": 0}]}},
            lambda a: [(r.name, r.weight) for r in a.scoring_strategy.resources] == [("nvidia.com/gpu", 1)],
        ),
        (
            "NodeResourcesFit",
            {STRATEGY: {"type": "MostAllocated"}},
            lambda a: [(r.name, r.weight) for r in a.scoring_strategy.resources] == [("cpu", 1), ("memory", 1)],
        ),
        (
            "NodeResourcesBalancedAllocation",
            {"resources": [{"name": "cpu"}, {"name": "nvidia.com/gpu", "weight": 0}]},
            lambda a: [(r.name, r.weight) for r in a.resources] == [("cpu", 1), ("nvidia.com/gpu", 1)],
        ),
        ("DefaultPreemption", {"minCandidateNodesAbsolute": 0}, lambda a: a.min_candidate_nodes_percentage == 10),
    ],
)
def test_defaulting(plugin: str, args: dict[str, Any], check: Any) -> None:
    (profile,) = parse_scheduler_config(configuration(plugin, args), "test.yaml").profiles
    decoded: PluginArgs = profile.plugin_args[plugin]
    assert check(decoded)


# ---------------------------------------------------------------------- metav1.Duration


@pytest.mark.parametrize(
    ("text", "nanoseconds", "shown"),
    [
        ("0", 0, "0s"),
        ("10s", 10 * 10**9, "10s"),
        ("-90s", -90 * 10**9, "-1m30s"),
        ("1.5h", 5400 * 10**9, "1h30m0s"),
        ("1h2m3.5s", 3723_500_000_000, "1h2m3.5s"),
        ("300ms", 300_000_000, "300ms"),
        ("1.5µs", 1500, "1.5µs"),
        (".5s", 500_000_000, "500ms"),
        ("+2m", 120 * 10**9, "2m0s"),
    ],
)
def test_go_durations(text: str, nanoseconds: int, shown: str) -> None:
    assert parse_go_duration(text) == nanoseconds
    assert format_go_duration(nanoseconds) == shown


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", 'time: invalid duration ""'),
        ("abc", 'time: invalid duration "abc"'),
        ("10", 'time: missing unit in duration "10"'),
        ("10x", 'time: unknown unit "x" in duration "10x"'),
        (".s", 'time: invalid duration ".s"'),
        ("9223372037s", 'time: invalid duration "9223372037s"'),
    ],
)
def test_invalid_go_durations(text: str, message: str) -> None:
    with pytest.raises(DurationError) as info:
        parse_go_duration(text)
    assert str(info.value) == message


# ---------------------------------------------------------------------- through the command line

CLI_CASES = [
    pytest.param(
        "NodeResourcesFit",
        {
            STRATEGY: {
                "type": "RequestedToCapacityRatio",
                "requestedToCapacityRatio": {"shape": [{"utilization": "50"}]},
            }
        },
        f"{ARGS}.{STRATEGY}.requestedToCapacityRatio.shape[0].utilization",
        id="string utilization",
    ),
    pytest.param("InterPodAffinity", {"hardPodAffinityWeight": 101}, f"{ARGS}.hardPodAffinityWeight", id="ipa"),
    pytest.param(
        "PodTopologySpread",
        {"defaultingType": "List", "defaultConstraints": [constraint(skew=-1)]},
        f"{ARGS}.defaultConstraints[0].maxSkew",
        id="spread",
    ),
    pytest.param(
        "DefaultPreemption", {"minCandidateNodesAbsolute": -1}, f"{ARGS}.minCandidateNodesAbsolute", id="preemption"
    ),
    pytest.param("VolumeBinding", {"bindTimeoutSeconds": -10}, f"{ARGS}.bindTimeoutSeconds", id="volume binding"),
    pytest.param(
        "NodeResourcesBalancedAllocation",
        {"resources": [{"name": "cpu", "weight": 2}]},
        f"{ARGS}.resources[0].weight",
        id="balanced",
    ),
    pytest.param("NodeResourcesFit", ratio((10, 11)), f"{ARGS}.{STRATEGY}.shape[0].score", id="shape score"),
]


@pytest.mark.parametrize(("plugin", "args", "field"), CLI_CASES)
def test_cli_exits_2_naming_the_field(tmp_path: Path, plugin: str, args: Any, field: str) -> None:
    config = tmp_path / "scheduler.yaml"
    config.write_text(yaml.safe_dump(configuration(plugin, args)))
    result = CliRunner().invoke(
        app, ["explain", POD, "--from", str(EXAMPLE), "--complete", "--scheduler-config", str(config)]
    )
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1
    assert "Traceback" not in result.stderr
    assert f"invalid scheduler configuration: {field}: " in lines[0]


# ---------------------------------------------------------------------- what v1.36 validates differently

V1_36_ARGS = [
    # ValidateNodeResourcesFitArgs (v1.36.3): the ratio belongs to RequestedToCapacityRatio only.
    pytest.param(
        "NodeResourcesFit",
        {STRATEGY: {"type": "RequestedToCapacityRatio"}},
        [
            f"{STRATEGY}.requestedToCapacityRatio: Required value: "
            "must be specified when type is RequestedToCapacityRatio"
        ],
        None,
        id="ratio missing",
    ),
    pytest.param(
        "NodeResourcesFit",
        {STRATEGY: {"type": "LeastAllocated", "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0}]}}},
        [f"{STRATEGY}.requestedToCapacityRatio: Forbidden: must be nil when type is not RequestedToCapacityRatio"],
        [],
        id="ratio with another type",
    ),
    # ValidateDynamicResourcesArgs: DRADeviceBindingConditions is on in v1.36.
    pytest.param(
        "DynamicResources",
        {"bindingTimeout": "500ms"},
        ['bindingTimeout: Invalid value: "500ms": must be at least 1 second'],
        [
            "bindingTimeout: Forbidden: "
            "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled"
        ],
        id="binding timeout under a second",
    ),
    pytest.param(
        "DynamicResources",
        {"bindingTimeout": "10m"},
        [],
        [
            "bindingTimeout: Forbidden: "
            "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled"
        ],
        id="binding timeout",
    ),
]


@pytest.mark.parametrize(("plugin", "args", "v136", "v135"), V1_36_ARGS)
def test_args_as_each_release_validates_them(plugin: str, args: Any, v136: list[str], v135: list[str] | None) -> None:
    """v1.36 errors, and v1.35's (None: not compared; without the ratio v1.35's scorer crashes
    kube-scheduler, and podwhy reports the missing shape instead)."""
    from podwhy.features.emulation import V1_35, V1_36

    for emulation, want in ((V1_36, v136), (V1_35, v135)):
        if want is None:
            continue
        if not want:
            parse_scheduler_config(configuration(plugin, args), "test.yaml", emulation)
            continue
        with pytest.raises(UsageError) as info:
            parse_scheduler_config(configuration(plugin, args), "test.yaml", emulation)
        assert info.value.message == expected_message(want)
