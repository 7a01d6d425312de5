"""PrioritySort: the scheduling queue pops pods by priority, then by the time they entered it."""

from __future__ import annotations

from podwhy.framework.interface import Plugin, QueuedPodInfo
from podwhy.framework.signature import PodPart
from podwhy.plugins import names


class PrioritySort(Plugin):
    NAME = names.PRIORITY_SORT
    POD_PARTS = frozenset({PodPart.SPEC})

    def less(self, first: QueuedPodInfo, second: QueuedPodInfo) -> bool:
        first_priority, second_priority = first.pod_info.priority, second.pod_info.priority
        return first_priority > second_priority or (
            first_priority == second_priority and first.timestamp < second.timestamp
        )
