"""KubeSchedulerConfiguration: upstream defaulting, MultiPoint expansion, validation."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from podwhy.errors import UsageError
from podwhy.scheduler.config import parse_scheduler_config

# The default v1.35.4 profile as recorded (shared/golden/README.md).
PRE_FILTER_ORDER = [
    "NodeAffinity",
    "NodePorts",
    "NodeResourcesFit",
    "VolumeRestrictions",
    "NodeVolumeLimits",
    "VolumeBinding",
    "VolumeZone",
    "PodTopologySpread",
    "InterPodAffinity",
    "DynamicResources",
]
FILTER_ORDER = ["NodeUnschedulable", "NodeName", "TaintToleration", *PRE_FILTER_ORDER]
PRE_SCORE_ORDER = [
    "TaintToleration",
    "NodeAffinity",
    "NodeResourcesFit",
    "VolumeBinding",
    "PodTopologySpread",
    "InterPodAffinity",
    "NodeResourcesBalancedAllocation",
]
SCORE_WEIGHTS = {
    "TaintToleration": 3,
    "NodeAffinity": 2,
    "NodeResourcesFit": 1,
    "VolumeBinding": 1,
    "PodTopologySpread": 2,
    "InterPodAffinity": 2,
    "DynamicResources": 2,
    "NodeResourcesBalancedAllocation": 1,
    "ImageLocality": 1,
}


def _config(text: str) -> Any:
    return parse_scheduler_config(yaml.safe_load(text), "test.yaml")


HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def test_empty_config_is_the_default_profile() -> None:
    cfg = _config(HEADER)
    (prof,) = cfg.profiles
    assert prof.scheduler_name == "default-scheduler"
    assert prof.pre_filter == list(PRE_FILTER_ORDER)
    assert prof.filter == list(FILTER_ORDER)
    assert prof.score == SCORE_WEIGHTS
    assert list(prof.score) == list(SCORE_WEIGHTS)
    assert prof.post_filter == ["DynamicResources", "DefaultPreemption"]
    assert prof.pre_score == PRE_SCORE_ORDER


def test_multipoint_disable_removes_everywhere() -> None:
    cfg = _config(HEADER + "profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: PodTopologySpread}]\n")
    prof = cfg.profiles[0]
    assert "PodTopologySpread" not in prof.filter
    assert "PodTopologySpread" not in prof.pre_filter
    assert "PodTopologySpread" not in prof.score


def test_multipoint_reweight_keeps_position() -> None:
    cfg = _config(
        HEADER + "profiles:\n- plugins:\n    multiPoint:\n      enabled: [{name: NodeResourcesFit, weight: 4}]\n"
    )
    prof = cfg.profiles[0]
    assert prof.score["NodeResourcesFit"] == 4
    assert list(prof.score).index("NodeResourcesFit") == list(SCORE_WEIGHTS).index("NodeResourcesFit")


def test_score_point_override_goes_first_and_takes_its_weight() -> None:
    cfg = _config(HEADER + "profiles:\n- plugins:\n    score:\n      enabled: [{name: ImageLocality, weight: 5}]\n")
    prof = cfg.profiles[0]
    assert next(iter(prof.score)) == "ImageLocality"
    assert prof.score["ImageLocality"] == 5


def test_disable_all_scores() -> None:
    cfg = _config(HEADER + "profiles:\n- plugins:\n    score:\n      disabled: [{name: '*'}]\n")
    assert cfg.profiles[0].score == {}
    assert cfg.profiles[0].filter == list(FILTER_ORDER)


def test_filter_disable_keeps_prefilter() -> None:
    cfg = _config(HEADER + "profiles:\n- plugins:\n    filter:\n      disabled: [{name: InterPodAffinity}]\n")
    prof = cfg.profiles[0]
    assert "InterPodAffinity" not in prof.filter
    assert "InterPodAffinity" in prof.pre_filter


def test_weight_zero_means_one() -> None:
    cfg = _config(HEADER + "profiles:\n- plugins:\n    score:\n      enabled: [{name: ImageLocality, weight: 0}]\n")
    assert cfg.profiles[0].score["ImageLocality"] == 1


def test_two_profiles() -> None:
    cfg = _config(HEADER + "profiles:\n- schedulerName: default-scheduler\n- schedulerName: batch\n")
    assert [p.scheduler_name for p in cfg.profiles] == ["default-scheduler", "batch"]


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ("profiles:\n- schedulerName: a\n- schedulerName: a\n", "Duplicate value"),
        ("profiles:\n- schedulerName: a\n- {}\n", "schedulerName: Required value"),
        ("profiles:\n- plugins:\n    filter:\n      enabled: [{name: Nope}]\n", 'plugin "Nope" does not exist'),
        ("profiles:\n- plugins:\n    filter:\n      enabled: [{name: ImageLocality}]\n", "does not extend filter"),
        ("percentageOfNodesToScore: 150\n", "not in valid range"),
        (
            "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy: {type: Best}\n",
            'Unsupported value: "Best"',
        ),
        (
            "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultingType: System\n"
            "      defaultConstraints: [{maxSkew: 1, topologyKey: k, whenUnsatisfiable: DoNotSchedule}]\n",
            'profiles[0].pluginConfig[0].args.defaultingType: Invalid value: "System": '
            "when .defaultConstraints are not empty",
        ),
        (
            "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args: {hardPodAffinityWeight: 101}\n",
            "profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]",
        ),
    ],
)
def test_invalid_configs_are_usage_errors(body: str, needle: str) -> None:
    with pytest.raises(UsageError) as info:
        _config(HEADER + body)
    assert needle in info.value.message
    assert info.value.exit_code == 2


def test_wrong_kind() -> None:
    with pytest.raises(UsageError):
        parse_scheduler_config({"apiVersion": "v1", "kind": "ConfigMap"}, "x")


def test_profile_percentage_overrides_global() -> None:
    cfg = _config(
        HEADER + "percentageOfNodesToScore: 30\nprofiles:\n- schedulerName: a\n  percentageOfNodesToScore: 70\n"
        "- schedulerName: b\n"
    )
    assert [p.percentage_of_nodes_to_score for p in cfg.profiles] == [70, 30]


def test_extenders_are_kept() -> None:
    cfg = _config(HEADER + "extenders:\n- urlPrefix: http://gpu-extender:8888\n  filterVerb: filter\n")
    assert cfg.extenders[0].url_prefix == "http://gpu-extender:8888"
    assert cfg.extenders[0].filter_verb == "filter"


def test_volume_binding_shape_needs_the_feature_gate() -> None:
    with pytest.raises(UsageError, match="StorageCapacityScoring"):
        _config(HEADER + "profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args: {shape: []}\n")


@pytest.mark.parametrize(
    ("percentage", "nodes", "scores", "want"),
    [
        (None, 50, True, 50),  # fewer than 100 nodes: all of them
        (None, 1000, True, 420),  # adaptive: 50 - 1000/125 = 42 %
        (None, 5000, True, 500),  # adaptive floor of 10 % ... 50 - 40 = 10 %
        (None, 10000, True, 500),  # ... then 5 %
        (100, 5000, True, 5000),
        (1, 5000, True, 100),  # never fewer than 100
        (None, 5000, False, 1),  # nothing scores: the first feasible node
    ],
)
def test_num_feasible_nodes_to_find(percentage: int | None, nodes: int, scores: bool, want: int) -> None:
    from podwhy.scheduler.cycle import num_feasible_nodes_to_find

    assert num_feasible_nodes_to_find(percentage, nodes, scores) == want
