"""Test builders after Kueue's pkg/util/testing/v1beta2 wrappers (MakeClusterQueue, MakeCohort,
MakeFlavorQuotas, MakeResourceFlavor, MakePodSet, MakeWorkload), building podwhy's typed objects."""

from __future__ import annotations

from typing import Any

import msgspec

from podwhy.model import objects as o

# A resource's quota as the wrappers' Resource(name, nominal[, borrowingLimit[, lendingLimit]]):
# "" leaves a limit unset.
Quota = str | tuple[str, ...]


def flavor_quotas(name: str, **resources: Quota) -> dict[str, Any]:
    """MakeFlavorQuotas(name).Resource(...): resources by name (underscores stand for dots and
    slashes are spelled out by the caller through `resource_map`)."""
    return resource_map(name, {k: v for k, v in resources.items()})


def resource_map(name: str, resources: dict[str, Quota]) -> dict[str, Any]:
    quotas = []
    for res, quota in resources.items():
        nominal, borrowing, lending = (*((quota,) if isinstance(quota, str) else quota), "", "")[:3]
        entry: dict[str, Any] = {"name": res, "nominalQuota": nominal}
        if borrowing:
            entry["borrowingLimit"] = borrowing
        if lending:
            entry["lendingLimit"] = lending
        quotas.append(entry)
    return {"name": name, "resources": quotas}


def group(*flavors: dict[str, Any]) -> dict[str, Any]:
    """ResourceGroup(flavors...): the covered resources are the first flavor's, in order."""
    covered = [r["name"] for r in flavors[0]["resources"]]
    return {"coveredResources": covered, "flavors": list(flavors)}


def cluster_queue(
    name: str,
    *groups: dict[str, Any],
    cohort: str = "",
    spec: dict[str, Any] | None = None,
    status: dict[str, Any] | None = None,
) -> o.ClusterQueue:
    body: dict[str, Any] = {"resourceGroups": list(groups), "namespaceSelector": {}}
    if cohort:
        body["cohortName"] = cohort
    body.update(spec or {})
    return msgspec.convert({"metadata": {"name": name}, "spec": body, "status": status or {}}, o.ClusterQueue)


def cohort(name: str, *groups: dict[str, Any], parent: str = "") -> o.Cohort:
    body: dict[str, Any] = {"resourceGroups": list(groups)}
    if parent:
        body["parentName"] = parent
    return msgspec.convert({"metadata": {"name": name}, "spec": body}, o.Cohort)


def resource_flavor(
    name: str,
    labels: dict[str, str] | None = None,
    taints: list[dict[str, Any]] | None = None,
    tolerations: list[dict[str, Any]] | None = None,
    topology: str | None = None,
) -> o.ResourceFlavor:
    spec: dict[str, Any] = {"nodeLabels": labels or {}, "nodeTaints": taints or [], "tolerations": tolerations or []}
    if topology is not None:
        spec["topologyName"] = topology
    return msgspec.convert({"metadata": {"name": name}, "spec": spec}, o.ResourceFlavor)


def pod_set(
    name: str = "main",
    count: int = 1,
    requests: dict[str, str] | None = None,
    spec: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """MakePodSet(name, count).Request(...): one container with REQUESTS; SPEC adds pod spec fields."""
    pod_spec: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": requests or {}}}]}
    pod_spec.update(spec or {})
    return {"name": name, "count": count, "template": {"spec": pod_spec}, **extra}


def workload(
    name: str = "wl",
    *pod_sets: dict[str, Any],
    namespace: str = "default",
    queue: str = "lq",
    spec: dict[str, Any] | None = None,
    status: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
) -> o.KueueWorkload:
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "uid": name}
    meta.update(metadata or {})
    body: dict[str, Any] = {"queueName": queue, "podSets": list(pod_sets or (pod_set(),))}
    body.update(spec or {})
    return msgspec.convert({"metadata": meta, "spec": body, "status": status or {}}, o.KueueWorkload)


def admitted(
    name: str,
    cq: str,
    usage: dict[str, str],
    flavors: dict[str, str],
    count: int = 1,
    namespace: str = "default",
) -> o.KueueWorkload:
    """A Workload holding quota in CQ: one pod set "main" of COUNT pods using USAGE in FLAVORS."""
    status = {
        "conditions": [{"type": "QuotaReserved", "status": "True"}, {"type": "Admitted", "status": "True"}],
        "admission": {
            "clusterQueue": cq,
            "podSetAssignments": [{"name": "main", "count": count, "flavors": flavors, "resourceUsage": usage}],
        },
    }
    return workload(name, pod_set(count=count), namespace=namespace, status=status)
