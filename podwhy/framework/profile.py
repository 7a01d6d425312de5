"""A scheduling profile: which plugins run at each extension point, in order, with args.

The default v1.35 profile is not spelled out here: `podwhy.runtime.config.default_profile`
derives it from the default MultiPoint plugin list, as kube-scheduler's defaulting does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from podwhy.framework.plugin_args import PluginArgs

DEFAULT_SCHEDULER_NAME = "default-scheduler"


@dataclass
class Profile:
    """One scheduling profile: plugins per extension point in run order, Score weights, args.

    `plugin_args` holds the decoded args of the plugins the configuration has a pluginConfig
    entry for; the others take their args kind's defaults.
    """

    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    pre_enqueue: list[str] = field(default_factory=list)
    pre_filter: list[str] = field(default_factory=list)
    filter: list[str] = field(default_factory=list)
    post_filter: list[str] = field(default_factory=list)
    pre_score: list[str] = field(default_factory=list)
    score: dict[str, int] = field(default_factory=dict)
    plugin_args: dict[str, PluginArgs] = field(default_factory=dict)
    percentage_of_nodes_to_score: int | None = None
