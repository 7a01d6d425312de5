"""The kubectl commands of kueuesuggest.py's changes, as typed facts (kueuefacts.KueueCommand):
a ClusterQueue's quotas by a JSON patch at the exact index of the resource in its
resourceGroups (each value guarded by a `test` of the resource's name, so a list that changed
since the snapshot fails the patch rather than set another resource); the queue a Workload is
submitted to by its owner's queue-name label (Kueue's job reconciler moves the Workload; a
suspended Job's label may change), or the Workload's spec.queueName when nothing owns it; a
toleration by a JSON patch of the owner's pod template (a suspended Job's scheduling directives
may change; Kueue then recreates the Workload from it), of the pod itself, or of the Workload's
pod sets. Every word from input is shell-quoted."""

from __future__ import annotations

import json
import shlex
from typing import Any, Final

from podwhy.analysis.kueuefacts import (
    JOB,
    POD,
    POD_GROUP_LABEL,
    QUEUE_NAME_LABEL,
    KueueCommand,
    KueueKnob,
    QuotaRaise,
)
from podwhy.cluster.kueue.admission import KueueObjects
from podwhy.cluster.kueue.resources import DEFAULT_FORMATTER
from podwhy.model import objects as o

JSON_PATCH: Final = "json"
MERGE_PATCH: Final = "merge"
# The quota fields as the API spells them.
QUOTA_KEYS: Final = {
    KueueKnob.NOMINAL_QUOTA: "nominalQuota",
    KueueKnob.BORROWING_LIMIT: "borrowingLimit",
    KueueKnob.LENDING_LIMIT: "lendingLimit",
}
# Where an owner kind holds the pod template Kueue builds its one pod set from ("" the pod itself).
TEMPLATE_PATHS: Final = {JOB: "/spec/template", POD: ""}


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def _patch_line(resource: str, name: str, namespace: str, patch_type: str, patch: object) -> str:
    ns = f" -n {shlex.quote(namespace)}" if namespace else ""
    return f"kubectl patch {resource} {shlex.quote(name)}{ns} --type={patch_type} -p {shlex.quote(_json(patch))}"


def _quota_path(cq: o.ClusterQueue, flavor: str, resource: str) -> str | None:
    for g, group in enumerate(cq.spec.resource_groups):
        for f, fq in enumerate(group.flavors):
            if fq.name != flavor:
                continue
            for r, quota in enumerate(fq.resources):
                if quota.name == resource:
                    return f"/spec/resourceGroups/{g}/flavors/{f}/resources/{r}"
    return None


def quota_commands(changes: tuple[QuotaRaise, ...], objs: KueueObjects) -> tuple[KueueCommand, ...]:
    """One `kubectl patch clusterqueue` per ClusterQueue changed, in the changes' order."""
    ops_by_cq: dict[str, list[dict[str, Any]]] = {}
    for change in changes:
        path = _quota_path(objs.cluster_queues[change.cluster_queue], change.flavor, change.resource)
        assert path is not None
        value = DEFAULT_FORMATTER.quantity_string(change.resource, change.new)
        op = "replace" if change.knob is KueueKnob.NOMINAL_QUOTA else "add"  # a limit may be unset
        ops_by_cq.setdefault(change.cluster_queue, []).extend(
            [
                {"op": "test", "path": f"{path}/name", "value": change.resource},
                {"op": op, "path": f"{path}/{QUOTA_KEYS[change.knob]}", "value": value},
            ]
        )
    return tuple(
        KueueCommand(_patch_line("clusterqueue", cq, "", JSON_PATCH, ops), f"clusterqueue/{cq}", "", JSON_PATCH, ops)
        for cq, ops in ops_by_cq.items()
    )


def _owner(wl: o.KueueWorkload) -> tuple[str, str]:
    """The kind and name of the Workload's controller; (Pod, "") for a pod group's (it lists its
    pods as owners, none controlling); ("", "") when nothing owns it."""
    refs = wl.metadata.owner_references
    for ref in refs:
        if ref.controller:
            return ref.kind, ref.name
    if refs and all(ref.kind == POD for ref in refs):
        return POD, ""
    return "", ""


def local_queue_command(wl: o.KueueWorkload, queue: str) -> KueueCommand:
    """The Workload moved to QUEUE: its owner relabelled (a pod group's pods by their group
    label), else its spec.queueName patched."""
    ns = shlex.quote(wl.metadata.namespace)
    label = shlex.quote(f"{QUEUE_NAME_LABEL}={queue}")
    kind, name = _owner(wl)
    labels = {"metadata": {"labels": {QUEUE_NAME_LABEL: queue}}}
    if kind == POD and not name:
        group = wl.metadata.labels.get(POD_GROUP_LABEL) or wl.metadata.name
        selector = shlex.quote(f"{POD_GROUP_LABEL}={group}")
        line = f"kubectl label pod -n {ns} -l {selector} {label} --overwrite"
        return KueueCommand(line, f"pod -l {POD_GROUP_LABEL}={group}", wl.metadata.namespace, MERGE_PATCH, labels)
    if kind:
        resource = shlex.quote(kind.lower())
        line = f"kubectl label {resource} {shlex.quote(name)} -n {ns} {label} --overwrite"
        return KueueCommand(line, f"{kind.lower()}/{name}", wl.metadata.namespace, MERGE_PATCH, labels)
    patch = {"spec": {"queueName": queue}}
    line = _patch_line("workload", wl.metadata.name, wl.metadata.namespace, MERGE_PATCH, patch)
    return KueueCommand(line, f"workload/{wl.metadata.name}", wl.metadata.namespace, MERGE_PATCH, patch)


def _toleration(t: o.Toleration) -> dict[str, str]:
    out = {"key": t.key, "operator": t.operator}
    if t.value:
        out["value"] = t.value
    if t.effect:
        out["effect"] = t.effect
    return out


def _toleration_ops(base: str, existing: list[o.Toleration], added: list[o.Toleration]) -> list[dict[str, Any]]:
    path = f"{base}/spec/tolerations"
    if not existing:
        return [{"op": "add", "path": path, "value": [_toleration(t) for t in added]}]
    return [{"op": "add", "path": f"{path}/-", "value": _toleration(t)} for t in added]


def toleration_command(wl: o.KueueWorkload, added: list[list[o.Toleration]]) -> KueueCommand:
    """ADDED (each pod set's new tolerations) patched into the owner's pod template, the pod, or
    the Workload's pod sets; no line ("") for an owner whose template podwhy does not know (a
    pod group's pods each take the patch)."""
    kind, name = _owner(wl)
    ns = wl.metadata.namespace
    pod_sets = wl.spec.pod_sets
    if not kind:
        ops = [
            op
            for i, (ps, new) in enumerate(zip(pod_sets, added, strict=True))
            if new
            for op in _toleration_ops(f"/spec/podSets/{i}/template", ps.template.spec.tolerations, new)
        ]
        line = _patch_line("workload", wl.metadata.name, ns, JSON_PATCH, ops)
        return KueueCommand(line, f"workload/{wl.metadata.name}", ns, JSON_PATCH, ops)
    base = TEMPLATE_PATHS.get(kind)
    if base is None or not name or len(pod_sets) != 1:
        return KueueCommand("", f"{kind.lower()}/{name}" if name else kind.lower(), ns, JSON_PATCH, None)
    ops = _toleration_ops(base, pod_sets[0].template.spec.tolerations, added[0])
    line = _patch_line(kind.lower(), name, ns, JSON_PATCH, ops)
    return KueueCommand(line, f"{kind.lower()}/{name}", ns, JSON_PATCH, ops)
