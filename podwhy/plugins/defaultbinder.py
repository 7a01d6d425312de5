"""DefaultBinder: binds the pod to the chosen node through the API server.

podwhy never writes to a cluster, so the plugin is known to configurations but never run.
"""

from __future__ import annotations

from typing import ClassVar

from podwhy.framework.interface import Plugin
from podwhy.framework.signature import PodPart
from podwhy.plugins import names


class DefaultBinder(Plugin):
    NAME = names.DEFAULT_BINDER
    POD_PARTS: ClassVar[frozenset[PodPart]] = frozenset()
    UNSIMULATED_POINTS = frozenset({"bind"})
