"""Build plugins from camelCase args, as the configuration layer does from a pluginConfig entry."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from podwhy.framework.handle import Handle
from podwhy.framework.interface import Plugin
from podwhy.framework.plugin_args import decode_plugin_args

P = TypeVar("P", bound=Plugin)


def with_args(cls: type[P], handle: Handle, raw: Mapping[str, Any] | None) -> P:
    """The plugin given `raw` decoded into its args kind (None: no pluginConfig entry, the defaults)."""
    if raw is None or cls.ARGS is None:
        return cls(handle)
    return cls(handle, decode_plugin_args(cls.ARGS, dict(raw)))
