"""Claims and volumes while `podwhy check` places replicas: what the PV controller does to the
claims the manifests create, and what VolumeBinding's Reserve and PreBind do to a placed
replica's claims, so that the next replica sees them bound.

- A claim the manifests create (applied with them, or made by the StatefulSet or ephemeral
  volume controller along with its pod) that binds Immediate is bound by the PV controller at
  once: to the PV that matches it best (FindMatchingVolume without a node, PVs with the fewest
  access modes first), else to a volume provisioned for it when its class names a provisioner.
  Without either it stays Pending, and the scheduler says so ("pod has unbound immediate
  PersistentVolumeClaims").
- When a replica is placed, VolumeBinding assumes its volumes on the chosen node
  (AssumePodVolumes) and PreBind waits until they are bound (BindPodVolumes): a PV chosen for a
  WaitForFirstConsumer claim ends up bound to it (the PV's claimRef and phase Bound; the PVC's
  volumeName, bind-completed annotation and phase Bound), and a claim to provision gets the
  `volume.kubernetes.io/selected-node` annotation.

A provisioned volume's shape is the provisioner's: podwhy does not invent one for a
WaitForFirstConsumer claim (the selected-node annotation keeps a replica sharing the claim to
that node), and for an Immediate claim it makes `pvc-<claim uid>`, sized as requested, reaching
the class's allowedTopologies (every node when it has none). CSIStorageCapacity is not reduced
by what is provisioned.
"""

from __future__ import annotations

from podwhy.helpers.persistentvolumes import (
    NOT_SUPPORTED_PROVISIONER,
    WAIT_FOR_FIRST_CONSUMER,
    BinderError,
    claim_class,
    find_matching_volume,
    is_volume_bound_to_claim,
)
from podwhy.helpers.resourcenames import STORAGE
from podwhy.model import objects as o
from podwhy.model.wellknownnames import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_PROVISIONED_BY,
    ANN_STORAGE_PROVISIONER,
)
from podwhy.snapshot.cluster import Snapshot, ns_name

BOUND = "Bound"


def bind(pvc: o.PersistentVolumeClaim, pv: o.PersistentVolume) -> None:
    """PV and PVC as the PV controller leaves them bound to each other."""
    by_controller = not is_volume_bound_to_claim(pv, pvc)
    pv.spec.claim_ref = o.ObjectReference(
        kind="PersistentVolumeClaim", namespace=pvc.metadata.namespace, name=pvc.metadata.name, uid=pvc.metadata.uid
    )
    if by_controller:
        pv.metadata.annotations[ANN_BOUND_BY_CONTROLLER] = "yes"
    pv.status.phase = BOUND
    if not pvc.spec.volume_name:
        pvc.spec.volume_name = pv.metadata.name
        pvc.metadata.annotations[ANN_BOUND_BY_CONTROLLER] = "yes"
    pvc.metadata.annotations[ANN_BIND_COMPLETED] = "yes"
    pvc.status.phase = BOUND
    pvc.status.capacity = dict(pv.spec.capacity)
    pvc.status.access_modes = list(pv.spec.access_modes)


class ClaimBinder:
    """Creates the manifests' claims in the snapshot and binds them as the cluster would."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot

    def create(self, pvc: o.PersistentVolumeClaim) -> o.PersistentVolumeClaim:
        """PVC, created unless the snapshot has a claim of its name (which the controller would
        use as it is), then bound if its class binds Immediate."""
        key = ns_name(pvc.metadata.namespace, pvc.metadata.name)
        existing = self.snapshot.persistent_volume_claims.get(key)
        if existing is not None:
            return existing
        self.snapshot.add("PersistentVolumeClaim", pvc)
        self.bind_if_immediate(pvc)
        return pvc

    def _class(self, pvc: o.PersistentVolumeClaim) -> o.StorageClass | None:
        name = claim_class(pvc)
        return self.snapshot.storage_classes.get(name) if name else None

    def bind_if_immediate(self, pvc: o.PersistentVolumeClaim) -> None:
        """The PV controller's sync of a new claim: bind it to its best PV, or provision one;
        claims whose class binds WaitForFirstConsumer wait for the scheduler."""
        if pvc.status.phase == BOUND or pvc.metadata.deletion_timestamp is not None:
            return
        sc = self._class(pvc)
        if sc is not None and sc.volume_binding_mode == WAIT_FOR_FIRST_CONSUMER and not pvc.spec.volume_name:
            return
        if pvc.spec.volume_name:
            # Pre-bound by the user to a named PV: bound once that PV exists and is free for it.
            named = self.snapshot.persistent_volumes.get(pvc.spec.volume_name)
            if named is not None and (named.spec.claim_ref is None or is_volume_bound_to_claim(named, pvc)):
                bind(pvc, named)
            return
        try:
            pv = self._best_match(pvc)
        except BinderError:
            return  # an invalid selector: the PV controller leaves the claim alone
        if pv is not None:
            bind(pvc, pv)
        elif sc is not None and sc.provisioner and sc.provisioner != NOT_SUPPORTED_PROVISIONER:
            bind(pvc, self._provision(pvc, sc))

    def _best_match(self, pvc: o.PersistentVolumeClaim) -> o.PersistentVolume | None:
        """findByClaim: PVs grouped by access modes, the groups holding every mode the claim asks
        for tried fewest modes first, FindMatchingVolume in each."""
        wanted = set(pvc.spec.access_modes)
        groups: dict[frozenset[str], list[o.PersistentVolume]] = {}
        for pv in self.snapshot.persistent_volumes.values():
            groups.setdefault(frozenset(pv.spec.access_modes), []).append(pv)
        for modes in sorted((m for m in groups if wanted <= m), key=lambda m: (len(m), sorted(m))):
            match = find_matching_volume(pvc, groups[modes], None, set())
            if match is not None:
                return match
        return None

    def _provision(self, pvc: o.PersistentVolumeClaim, sc: o.StorageClass) -> o.PersistentVolume:
        """The volume a provisioner makes for an Immediate claim (podwhy's stand-in, see above)."""
        name = f"pvc-{pvc.metadata.uid}"
        pvc.metadata.annotations[ANN_STORAGE_PROVISIONER] = sc.provisioner
        terms = [
            o.NodeSelectorTerm(
                match_expressions=[
                    o.NodeSelectorRequirement(key=e.key, operator="In", values=list(e.values))
                    for e in term.match_label_expressions
                ]
            )
            for term in sc.allowed_topologies
        ]
        csi = (
            None
            if sc.provisioner.startswith("kubernetes.io/")
            else o.CSIPersistentVolumeSource(driver=sc.provisioner, volume_handle=name)
        )
        pv = o.PersistentVolume(
            metadata=o.ObjectMeta(name=name, annotations={ANN_PROVISIONED_BY: sc.provisioner}),
            spec=o.PersistentVolumeSpec(
                capacity={STORAGE: pvc.spec.resources.requests.get(STORAGE, 0)},
                access_modes=list(pvc.spec.access_modes),
                storage_class_name=sc.metadata.name,
                volume_mode=pvc.spec.volume_mode,
                persistent_volume_reclaim_policy="Delete",
                node_affinity=o.VolumeNodeAffinity(required=o.NodeSelector(node_selector_terms=terms))
                if terms
                else None,
                csi=csi,
            ),
            status=o.PersistentVolumeStatus(phase="Pending"),
        )
        self.snapshot.add("PersistentVolume", pv)
        return pv
