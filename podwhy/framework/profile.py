"""A scheduling profile: which plugins run at each extension point, in order, with args.

The default profiles are not spelled out here: `podwhy.scheduler.config.default_profile`
derives them from the default MultiPoint plugin list and the release's feature gates, as
kube-scheduler's defaulting does.
"""

from __future__ import annotations

import msgspec

from podwhy.features.emulation import DEFAULT, Emulation
from podwhy.framework.plugin_args import PluginArgs
from podwhy.model.wellknownnames import DEFAULT_SCHEDULER_NAME


class Profile(msgspec.Struct):
    """One scheduling profile: plugins per extension point in run order, Score weights, args.

    `plugin_args` holds the decoded args of the plugins the configuration has a pluginConfig
    entry for; the others take their args kind's defaults.
    """

    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    pre_enqueue: list[str] = msgspec.field(default_factory=list)
    pre_filter: list[str] = msgspec.field(default_factory=list)
    filter: list[str] = msgspec.field(default_factory=list)
    post_filter: list[str] = msgspec.field(default_factory=list)
    pre_score: list[str] = msgspec.field(default_factory=list)
    score: dict[str, int] = msgspec.field(default_factory=dict)
    plugin_args: dict[str, PluginArgs] = msgspec.field(default_factory=dict)
    percentage_of_nodes_to_score: int | None = None
    # The kube-scheduler release whose defaults and plugin behaviour the profile has.
    emulation: Emulation = DEFAULT
