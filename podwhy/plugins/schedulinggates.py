"""SchedulingGates: a pod with scheduling gates stays out of the active queue until they are removed."""

from __future__ import annotations

from podwhy.framework.interface import Plugin
from podwhy.framework.signature import PodPart
from podwhy.framework.status import Status, success, unresolvable
from podwhy.framework.types import PodInfo
from podwhy.plugins import names


class SchedulingGates(Plugin):
    NAME = names.SCHEDULING_GATES
    POD_PARTS = frozenset({PodPart.SPEC})

    def pre_enqueue(self, pod: PodInfo) -> Status:
        gates = [gate.name for gate in pod.pod.spec.scheduling_gates]
        if not gates:
            return success()
        # Go's %v of a []string: the names space-separated in brackets.
        return unresolvable(f"waiting for scheduling gates: [{' '.join(gates)}]")
