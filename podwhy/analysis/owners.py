"""Whose a Pending pod is: its controller, lifted from a ReplicaSet to its Deployment and from a Job
to its CronJob, and what makes two pods of one owner alike to the scheduler."""

from __future__ import annotations

import msgspec

from podwhy.framework.signature import pod_signature
from podwhy.model import objects as o
from podwhy.model.wellknownnames import POD_TEMPLATE_HASH
from podwhy.plugins.registry import SCHEDULER_PARTS
from podwhy.snapshot.cluster import Snapshot


class Owner(msgspec.Struct):
    kind: str
    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name} ({self.kind})" if self.namespace else f"{self.name} ({self.kind})"


# The label the Deployment controller puts on its ReplicaSets' pods: the RS is `<deployment>-<hash>`.
ReplicaSetIndex = dict[tuple[str, str], o.ReplicaSet]


def replica_set_index(snapshot: Snapshot) -> ReplicaSetIndex:
    return {(rs.metadata.namespace, rs.metadata.name): rs for rs in snapshot.replica_sets}


def controller_ref(meta: o.ObjectMeta) -> o.OwnerReference | None:
    return next((r for r in meta.owner_references if r.controller), None)


def owner_of(pod: o.Pod, snapshot: Snapshot, replica_sets: ReplicaSetIndex | None = None) -> Owner | None:
    """The pod's controller, lifted from a ReplicaSet to its Deployment and from a Job to its
    CronJob. A ReplicaSet is lifted to its own controller when the snapshot has it, else to the
    Deployment its name and the pod's pod-template-hash label show (dumps of pods alone,
    cluster-info dumps of empty lists). A Job is lifted only when the snapshot has it and a
    CronJob controls it: a Job's name alone does not say whether a CronJob made it."""
    ref = controller_ref(pod.metadata)
    if ref is None:
        return None
    namespace = pod.metadata.namespace
    if ref.kind == "ReplicaSet":
        if replica_sets is None:
            replica_sets = replica_set_index(snapshot)
        rs = replica_sets.get((namespace, ref.name))
        if rs is not None:
            parent = controller_ref(rs.metadata)
            if parent is not None:
                return Owner(parent.kind, namespace, parent.name)
            return Owner(ref.kind, namespace, ref.name)
        template_hash = pod.metadata.labels.get(POD_TEMPLATE_HASH, "")
        if template_hash and ref.name.endswith(f"-{template_hash}") and len(ref.name) > len(template_hash) + 1:
            return Owner("Deployment", namespace, ref.name[: -len(template_hash) - 1])
    elif ref.kind == "Job":
        job = snapshot.jobs.get(f"{namespace}/{ref.name}")
        parent = controller_ref(job.metadata) if job is not None else None
        if parent is not None and parent.kind == "CronJob":
            return Owner(parent.kind, namespace, parent.name)
    # A mirror pod's owner is its Node, which has no namespace.
    return Owner(ref.kind, "" if ref.kind in o.CLUSTER_SCOPED_KINDS else namespace, ref.name)


def spec_signature(pod: o.Pod) -> bytes:
    """What makes two pods of one owner the same to the scheduler: what any plugin or the framework
    reads of them (spec, labels, nomination). Pods with generic ephemeral volumes or resource
    claims refer to objects of their own (PVCs, claims named after the pod): they are never taken
    for one another."""
    return pod_signature(pod, SCHEDULER_PARTS)
