"""TaintToleration: NoSchedule/NoExecute taints the pod doesn't tolerate reject the node; untolerated
PreferNoSchedule taints lower its score."""

from __future__ import annotations

from collections.abc import Hashable

import msgspec

from podwhy.framework.equivalence import NodeReader, encode
from podwhy.framework.evidence import IntolerableTaintsEvidence, TaintEvidence
from podwhy.framework.interface import MAX_NODE_SCORE, CycleState, Plugin
from podwhy.framework.signature import PodPart
from podwhy.framework.status import Status, error, success, unresolvable
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.helpers.nodetaints import (
    do_not_schedule_taints,
    find_matching_untolerated_taint,
    taint_to_string,
    tolerations_tolerate_taint,
)
from podwhy.model import objects as o
from podwhy.plugins import names
from podwhy.plugins.helper.normalize_score import default_normalize_score

ERR_REASON_NOT_MATCH = "node(s) had taints that the pod didn't tolerate"
ERR_REASON_UNTOLERATED = "node(s) had untolerated taint(s)"
# v1.33 named the first untolerated taint.
ERR_REASON_UNTOLERATED_V1_33 = "node(s) had untolerated taint {{{key}: {value}}}"

PRE_SCORE_STATE_KEY = "PreScoreTaintToleration"
PREFER_NO_SCHEDULE = "PreferNoSchedule"


class _PreScoreState(msgspec.Struct, frozen=True):
    # Tolerations that can tolerate a PreferNoSchedule taint: that effect or no effect (all effects).
    tolerations_prefer_no_schedule: tuple[o.Toleration, ...]

    def clone(self) -> _PreScoreState:
        return self


def _prefer_no_schedule_tolerations(pod: o.Pod) -> tuple[o.Toleration, ...]:
    return tuple(t for t in pod.spec.tolerations if t.effect in ("", PREFER_NO_SCHEDULE))


def _untolerated_prefer_no_schedule(taints: list[o.Taint], tolerations: tuple[o.Toleration, ...]) -> list[o.Taint]:
    return [
        taint
        for taint in taints
        if taint.effect == PREFER_NO_SCHEDULE and not tolerations_tolerate_taint(tolerations, taint)
    ]


def _taints(node_info: NodeInfo) -> Hashable:
    taints = node_info.node.spec.taints
    return encode(taints) if taints else None


class TaintToleration(Plugin):
    NAME = names.TAINT_TOLERATION
    NODE_LOCAL_FILTER = NODE_LOCAL_SCORE = True
    POD_PARTS = frozenset({PodPart.SPEC})
    # A RuntimeClass adds its overhead and scheduling constraints to the pod at admission.
    ADMISSION_KINDS = frozenset({"RuntimeClass"})

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status:
        taint = find_matching_untolerated_taint(
            node_info.node.spec.taints, pod.pod.spec.tolerations, do_not_schedule_taints
        )
        if taint is None:
            return success()
        reason = ERR_REASON_UNTOLERATED
        if self.handle.emulation.taint_toleration_names_taint:
            reason = ERR_REASON_UNTOLERATED_V1_33.format(key=taint.key, value=taint.value)
        return unresolvable(
            reason,
            evidence=[
                TaintEvidence(taint=taint_to_string(taint), key=taint.key, value=taint.value, effect=taint.effect)
            ],
        )

    def filter_key(self, state: CycleState, pod: PodInfo) -> NodeReader | None:
        # The node's taints, each as a whole.
        return _taints

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(_prefer_no_schedule_tolerations(pod.pod)))
        return success()

    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> tuple[int, Status]:
        st = state.get(PRE_SCORE_STATE_KEY)
        if not isinstance(st, _PreScoreState):
            return 0, error(f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        untolerated = _untolerated_prefer_no_schedule(node_info.node.spec.taints, st.tolerations_prefer_no_schedule)
        evidence = IntolerableTaintsEvidence(
            effect=PREFER_NO_SCHEDULE,
            count=len(untolerated),
            taints=[taint_to_string(t) for t in untolerated],
            # Fewer untolerated PreferNoSchedule taints score higher after reverse normalization.
            normalization="reverse",
        )
        return len(untolerated), Status(evidence=[evidence])

    def score_key(self, state: CycleState, pod: PodInfo) -> NodeReader | None:
        # Its PreferNoSchedule taints among the node's.
        return _taints

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status:
        default_normalize_score(MAX_NODE_SCORE, True, scores)
        return success()
