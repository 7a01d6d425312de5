"""VolumeBinding: the pod's claims must be bound, or bindable/provisionable, on the node."""

from __future__ import annotations

import msgspec

from podwhy.framework.evidence import (
    UnboundImmediateClaimsEvidence,
    VolumeBindingEvidence,
    VolumeCapacityScoringEvidence,
    VolumeClaimEvidence,
)
from podwhy.framework.handle import Handle
from podwhy.framework.interface import CycleState, Plugin, PreFilterResult
from podwhy.framework.plugin_args import PluginArgs, VolumeBindingArgs
from podwhy.framework.signature import PodPart
from podwhy.framework.status import Status, error, skip, success, unresolvable
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.helpers.persistentvolumes import WAIT_FOR_FIRST_CONSUMER, BinderError, claim_class, claim_key
from podwhy.model import objects as o
from podwhy.plugins import names
from podwhy.plugins.helper.volumes import MIGRATION_ON, pod_claim_name, pv_plugin, pvc_not_found, volume_is_for_pod
from podwhy.plugins.volumebinding.binder import PodVolumeClaims, PodVolumes, VolumeBinder

ERR_REASON_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"

# The StorageCapacityScoring feature gate (alpha, off in v1.35). Without it upstream builds no
# capacity scorer, rejects a `shape` in VolumeBindingArgs, skips Score at PreScore and, should
# Score run anyway (PreScore disabled in the profile), scores every node 0.
STORAGE_CAPACITY_SCORING = False


class StateData(msgspec.Struct):
    """Shared across nodes and the nominated-pods pass, as upstream shares its pointer."""

    claims: PodVolumeClaims | None = None
    pod_volumes_by_node: dict[str, PodVolumes] = msgspec.field(default_factory=dict)
    has_static_bindings: bool = False

    def clone(self) -> StateData:
        return self


class VolumeBinding(Plugin):
    NAME = names.VOLUME_BINDING
    POD_PARTS = frozenset({PodPart.NAMESPACE, PodPart.OWN_OBJECTS, PodPart.SPEC})
    # Its args (bindTimeoutSeconds) only matter for binding, which podwhy never does.
    ARGS = VolumeBindingArgs
    UNSIMULATED_POINTS = frozenset({"reserve", "preBind"})

    def __init__(self, handle: Handle, args: PluginArgs | None = None) -> None:
        super().__init__(handle, args)
        self.binder = VolumeBinder(handle)

    def required_kinds(self, pod: PodInfo) -> set[str]:
        """The kinds the verdict rests on having every object of: a claim, PV or class found
        speaks for itself; a lookup that fails, or a search over all PVs or capacities, does not."""
        needed: set[str] = set()
        for vol in pod.pod.spec.volumes:
            claim = pod_claim_name(pod.pod, vol)
            if claim is None:
                continue
            pvc = self.handle.pvc(pod.pod.metadata.namespace, claim[0])
            if pvc is None:
                needed.add("PersistentVolumeClaim")  # without it, the claim is rejected as not found
            elif pvc.status.phase == "Lost" or pvc.metadata.deletion_timestamp is not None:
                continue  # rejected for the claim alone
            elif pvc.spec.volume_name:
                pv = self.handle.pv(pvc.spec.volume_name)
                if pv is None:
                    needed.add("PersistentVolume")
                elif (plugin := pv_plugin(pv)) is not None and plugin.in_tree_name in MIGRATION_ON:
                    needed.add("CSINode")  # the node's CSINode says whether it is translated
            elif class_name := claim_class(pvc):
                needed |= self._delay_binding_kinds(class_name)
        return needed

    def _delay_binding_kinds(self, class_name: str) -> set[str]:
        sc = self.handle.storage_class(class_name)
        if sc is None:
            return {"StorageClass"}  # without it, the claim binds Immediate: it must be bound already
        if sc.volume_binding_mode != WAIT_FOR_FIRST_CONSUMER:
            return set()  # an Immediate claim must already be bound
        # Every PV of the class is a candidate; the driver says whether capacities count.
        driver = self.handle.snapshot.csi_drivers.get(sc.provisioner)
        if driver is None:
            return {"PersistentVolume", "CSIDriver"}
        return {"PersistentVolume", "CSIStorageCapacity"} if driver.spec.storage_capacity else {"PersistentVolume"}

    def _pod_has_pvcs(self, pod: o.Pod) -> tuple[bool, Status | None]:
        """(pod uses claims, why it cannot be scheduled yet)."""
        has_pvc = False
        for vol in pod.spec.volumes:
            claim = pod_claim_name(pod, vol)
            if claim is None:
                continue
            has_pvc = True
            problem = self._claim_problem(pod, *claim)
            if problem:
                facts = VolumeClaimEvidence(
                    persistent_volume_claim=f"{pod.metadata.namespace}/{claim[0]}", volume=vol.name
                )
                return True, unresolvable(problem, evidence=[facts])
        return has_pvc, None

    def _claim_problem(self, pod: o.Pod, claim_name: str, is_ephemeral: bool) -> str:
        """Why the claim keeps the pod from being scheduled at all, or ""."""
        pvc = self.handle.pvc(pod.metadata.namespace, claim_name)
        if pvc is None:
            if is_ephemeral:
                return f'waiting for ephemeral volume controller to create the persistentvolumeclaim "{claim_name}"'
            return pvc_not_found(claim_name)
        if pvc.status.phase == "Lost":
            return (
                f'persistentvolumeclaim "{pvc.metadata.name}" bound to non-existent persistentvolume '
                f'"{pvc.spec.volume_name}"'
            )
        if pvc.metadata.deletion_timestamp is not None:
            return f'persistentvolumeclaim "{pvc.metadata.name}" is being deleted'
        if is_ephemeral:
            return volume_is_for_pod(pod, pvc) or ""
        return ""

    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        has_pvc, problem = self._pod_has_pvcs(pod.pod)
        if problem is not None:
            return None, problem
        if not has_pvc:
            state.write(self.NAME, StateData())
            return None, skip()
        try:
            claims = self.binder.get_pod_volume_claims(pod.pod)
        except BinderError as exc:
            return None, error(str(exc))
        if claims.unbound_immediate:
            return None, unresolvable(
                ERR_REASON_UNBOUND_IMMEDIATE,
                evidence=[
                    UnboundImmediateClaimsEvidence(
                        persistent_volume_claims=[claim_key(pvc) for pvc in claims.unbound_immediate]
                    )
                ],
            )
        state.write(self.NAME, StateData(claims=claims))
        return None, success()

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status:
        st: StateData | None = state.get(self.NAME)
        if st is None:
            return error(f'reading "{self.NAME}" from cycleState: not found')
        if st.claims is None:
            return success()
        try:
            check = self.binder.find_pod_volumes(pod.pod, st.claims, node_info.node)
        except BinderError as exc:
            return error(str(exc))
        if check.reasons:
            return unresolvable(*check.reasons, evidence=[VolumeBindingEvidence(**check.details)])
        st.pod_volumes_by_node[node_info.name] = check.pod_volumes
        st.has_static_bindings = st.has_static_bindings or bool(check.pod_volumes.static_bindings)
        return success()

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
        # No scorer exists while StorageCapacityScoring is off, whatever the pod's volumes.
        return skip()

    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> tuple[int, Status]:
        return 0, Status(
            evidence=[
                VolumeCapacityScoringEvidence(
                    feature_gate="StorageCapacityScoring", enabled=STORAGE_CAPACITY_SCORING, score=0
                )
            ]
        )
