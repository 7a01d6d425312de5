"""DefaultBinder: binds the pod to the chosen node through the API server.

podwhy never writes to a cluster, so the plugin is known to configurations but never run.
"""

from __future__ import annotations

from podwhy.framework.interface import Plugin


class DefaultBinder(Plugin):
    NAME = "DefaultBinder"
    UNSIMULATED_POINTS = frozenset({"bind"})
