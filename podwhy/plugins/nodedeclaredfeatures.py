"""NodeDeclaredFeatures: a pod that needs a node feature fits only nodes declaring it (PreFilter + Filter).

Beta and on by default from v1.36 (in the default profile then); with its feature gate off the
plugin does nothing (PreFilter Skip). The features a pod needs are inferred from its spec by
the registered features of k8s.io/component-helpers/nodedeclaredfeatures; a node declares
its own in `status.declaredFeatures`. Features the scheduler does not know are ignored on
both sides.
"""

from __future__ import annotations

from collections.abc import Hashable

import msgspec

from podwhy.features.kubefeatures import NODE_DECLARED_FEATURES
from podwhy.framework.equivalence import NodeReader, reads_nothing
from podwhy.framework.evidence import DeclaredFeaturesEvidence
from podwhy.framework.interface import CycleState, Plugin, PreFilterResult
from podwhy.framework.signature import PodPart
from podwhy.framework.status import Status, error, skip, success, unresolvable
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.model import objects as o
from podwhy.plugins import names

ERR_REASON_UNSATISFIED_REQUIREMENTS = "node(s) didn't match Pod's required features"
PRE_FILTER_STATE_KEY = "PreFilterNodeDeclaredFeatures"

# The registered features (features.AllFeatures of v1.36.3) by name.
RESTART_ALL_CONTAINERS = "RestartAllContainersOnContainerExits"
USER_NAMESPACES_HOST_NETWORK = "UserNamespacesHostNetworkSupport"
REGISTERED_FEATURES = frozenset(
    {
        RESTART_ALL_CONTAINERS,
        "InPlacePodLevelResourcesVerticalScaling",
        "ExtendWebSocketsToKubelet",
        "InPlacePodVerticalScalingInitContainers",
        USER_NAMESPACES_HOST_NETWORK,
    }
)
RESTART_ALL_CONTAINERS_ACTION = "RestartAllContainers"


def required_features(spec: o.PodSpec) -> list[str]:
    """InferForPodScheduling: the features a pod needs from its node, sorted (the other registered
    features are inferred only for updates of a running pod)."""
    needed: list[str] = []
    containers = (*spec.containers, *spec.init_containers)
    if any(rule.action == RESTART_ALL_CONTAINERS_ACTION for c in containers for rule in c.restart_policy_rules):
        needed.append(RESTART_ALL_CONTAINERS)
    if spec.host_network and spec.host_users is False:
        needed.append(USER_NAMESPACES_HOST_NETWORK)
    return sorted(needed)


class PreFilterState(msgspec.Struct, frozen=True):
    required: tuple[str, ...]

    def clone(self) -> PreFilterState:
        return self


def _declared(node_info: NodeInfo) -> Hashable:
    return frozenset(node_info.node.status.declared_features) & REGISTERED_FEATURES


class NodeDeclaredFeatures(Plugin):
    NAME = names.NODE_DECLARED_FEATURES
    POD_PARTS = frozenset({PodPart.SPEC})

    @property
    def enabled(self) -> bool:
        return self.handle.emulation.enabled(NODE_DECLARED_FEATURES)

    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        if not self.enabled:
            return None, skip()
        required = required_features(pod.pod.spec)
        if not required:
            return None, skip()
        state.write(PRE_FILTER_STATE_KEY, PreFilterState(tuple(required)))
        return None, success()

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status:
        if not self.enabled:
            return success()
        pre = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(pre, PreFilterState):
            return error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycle-state: not found')
        declared = set(node_info.node.status.declared_features) & REGISTERED_FEATURES
        missing = [f for f in pre.required if f not in declared]
        if not missing:
            return success()
        return unresolvable(
            ERR_REASON_UNSATISFIED_REQUIREMENTS,
            evidence=[
                DeclaredFeaturesEvidence(required=list(pre.required), declared=sorted(declared), missing=missing)
            ],
        )

    def filter_key(self, state: CycleState, pod: PodInfo) -> NodeReader | None:
        if not self.enabled or not isinstance(state.get(PRE_FILTER_STATE_KEY), PreFilterState):
            return reads_nothing
        return _declared
