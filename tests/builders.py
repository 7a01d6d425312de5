"""Small fluent builders for test objects, after upstream's st.MakePod() / st.MakeNode().

    make_pod("p").req(cpu="2", memory="1Gi").labels(app="web").obj()
    make_node("n1").alloc(cpu="4", memory="8Gi").taint("dedicated", "db").obj()

Builders assemble the camelCase wire form and convert it with msgspec, exactly as the loader
does, so tests exercise the same decoding as real dumps.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Self, TypeVar

import msgspec

from podwhy.framework.handle import Handle
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.helpers.resourcenames import is_extended_resource_name, is_hugepages
from podwhy.model import objects as o
from podwhy.snapshot.cluster import Snapshot

Json = dict[str, Any]


def _set_default(tree: Json, *path: str) -> Json:
    for key in path:
        tree = tree.setdefault(key, {})
    return tree


class PodBuilder:
    def __init__(self, name: str, namespace: str) -> None:
        self.raw: Json = {
            "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{namespace}-{name}"},
            "spec": {"containers": []},
            "status": {},
        }

    # ------------------------------------------------------------------ metadata / status
    def uid(self, uid: str) -> Self:
        self.raw["metadata"]["uid"] = uid
        return self

    def labels(self, labels: dict[str, str] | None = None, **more: str) -> Self:
        _set_default(self.raw, "metadata", "labels").update({**(labels or {}), **more})
        return self

    def owner(self, kind: str, name: str, controller: bool = True, api_version: str = "apps/v1") -> Self:
        refs = self.raw["metadata"].setdefault("ownerReferences", [])
        refs.append(
            {"apiVersion": api_version, "kind": kind, "name": name, "uid": f"uid-{name}", "controller": controller}
        )
        return self

    def terminating(self, at: str = "2026-01-01T00:00:00Z") -> Self:
        self.raw["metadata"]["deletionTimestamp"] = at
        return self

    def phase(self, phase: str) -> Self:
        self.raw["status"]["phase"] = phase
        return self

    def nominated(self, node: str) -> Self:
        self.raw["status"]["nominatedNodeName"] = node
        return self

    def start_time(self, at: str) -> Self:
        self.raw["status"]["startTime"] = at
        return self

    def status(self, **fields: Any) -> Self:
        self.raw["status"].update(fields)
        return self

    # ------------------------------------------------------------------ scheduling
    def node(self, name: str) -> Self:
        self.raw["spec"]["nodeName"] = name
        return self

    def priority(self, value: int) -> Self:
        self.raw["spec"]["priority"] = value
        return self

    def preemption_policy(self, policy: str) -> Self:
        self.raw["spec"]["preemptionPolicy"] = policy
        return self

    def scheduler(self, name: str) -> Self:
        self.raw["spec"]["schedulerName"] = name
        return self

    def node_selector(self, selector: dict[str, str] | None = None, **more: str) -> Self:
        _set_default(self.raw, "spec", "nodeSelector").update({**(selector or {}), **more})
        return self

    def affinity(self, affinity: Json) -> Self:
        """Merge an `affinity` object (camelCase), e.g. {"podAntiAffinity": {...}}."""
        _set_default(self.raw, "spec", "affinity").update(copy.deepcopy(affinity))
        return self

    def node_affinity_in(self, key: str, *values: str) -> Self:
        """One required node-affinity term: key In values."""
        return self.affinity(
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": key, "operator": "In", "values": list(values)}]}
                        ]
                    }
                }
            }
        )

    def toleration(self, key: str = "", operator: str = "Equal", value: str = "", effect: str = "") -> Self:
        tol = {"key": key, "operator": operator, "value": value, "effect": effect}
        self.raw["spec"].setdefault("tolerations", []).append({k: v for k, v in tol.items() if v})
        return self

    def spread(
        self,
        max_skew: int,
        topology_key: str,
        when: str = "DoNotSchedule",
        selector: Json | None = None,
        **extra: Any,
    ) -> Self:
        """A topology spread constraint; `selector` is a LabelSelector, extra fields are camelCase."""
        constraint: Json = {"maxSkew": max_skew, "topologyKey": topology_key, "whenUnsatisfiable": when}
        if selector is not None:
            constraint["labelSelector"] = selector
        constraint.update(extra)
        self.raw["spec"].setdefault("topologySpreadConstraints", []).append(constraint)
        return self

    def gate(self, name: str) -> Self:
        self.raw["spec"].setdefault("schedulingGates", []).append({"name": name})
        return self

    # ------------------------------------------------------------------ containers and resources
    def container(
        self,
        name: str | None = None,
        image: str = "registry.k8s.io/pause:3.10",
        requests: dict[str, Any] | None = None,
        limits: dict[str, Any] | None = None,
        ports: list[Json] | None = None,
        **extra: Any,
    ) -> Self:
        containers = self.raw["spec"]["containers"]
        container: Json = {"name": name or f"c{len(containers)}", "image": image, **extra}
        if requests is not None and limits is None:
            # The API server requires an extended resource's or hugepages' limit, equal to its request.
            fixed = {k: v for k, v in requests.items() if is_extended_resource_name(k) or is_hugepages(k)}
            limits = fixed or None
        if requests is not None or limits is not None:
            container["resources"] = {k: v for k, v in (("requests", requests), ("limits", limits)) if v is not None}
        if ports:
            container["ports"] = ports
        containers.append(container)
        return self

    def req(self, requests: dict[str, Any] | None = None, **more: Any) -> Self:
        """A container requesting these resources (keyword names use _ for -: ephemeral_storage)."""
        merged = {**(requests or {}), **{k.replace("_", "-"): v for k, v in more.items()}}
        return self.container(requests=merged)

    def init_req(self, requests: dict[str, Any], sidecar: bool = False) -> Self:
        """An init container (a restartable sidecar when `sidecar`) requesting these resources."""
        inits = self.raw["spec"].setdefault("initContainers", [])
        container: Json = {"name": f"init{len(inits)}", "image": "busybox", "resources": {"requests": requests}}
        if sidecar:
            container["restartPolicy"] = "Always"
        inits.append(container)
        return self

    def overhead(self, **resources: Any) -> Self:
        self.raw["spec"]["overhead"] = {k.replace("_", "-"): v for k, v in resources.items()}
        return self

    def pod_requests(self, **resources: Any) -> Self:
        """Pod-level resources (spec.resources.requests)."""
        self.raw["spec"]["resources"] = {"requests": {k.replace("_", "-"): v for k, v in resources.items()}}
        return self

    def host_port(self, port: int, protocol: str = "TCP", host_ip: str = "") -> Self:
        entry: Json = {"containerPort": port, "hostPort": port, "protocol": protocol}
        if host_ip:
            entry["hostIP"] = host_ip
        return self.container(ports=[entry])

    # ------------------------------------------------------------------ volumes and claims
    def volume(self, volume: Json) -> Self:
        self.raw["spec"].setdefault("volumes", []).append(copy.deepcopy(volume))
        return self

    def pvc(self, claim: str, volume_name: str | None = None, read_only: bool = False) -> Self:
        source: Json = {"claimName": claim}
        if read_only:
            source["readOnly"] = True
        return self.volume({"name": volume_name or claim, "persistentVolumeClaim": source})

    def resource_claim(self, name: str, claim: str | None = None, template: str | None = None) -> Self:
        entry: Json = {"name": name}
        if claim is not None:
            entry["resourceClaimName"] = claim
        if template is not None:
            entry["resourceClaimTemplateName"] = template
        self.raw["spec"].setdefault("resourceClaims", []).append(entry)
        return self

    def spec(self, **fields: Any) -> Self:
        """Set raw spec fields (camelCase) not covered above."""
        self.raw["spec"].update(copy.deepcopy(fields))
        return self

    # ------------------------------------------------------------------ results
    def obj(self) -> o.Pod:
        if not self.raw["spec"]["containers"]:
            self.container()
        return msgspec.convert(self.raw, o.Pod)

    def info(self) -> PodInfo:
        return PodInfo(self.obj())


class NodeBuilder:
    def __init__(self, name: str, hostname_label: bool) -> None:
        labels = {"kubernetes.io/hostname": name} if hostname_label else {}
        self.raw: Json = {
            "metadata": {"name": name, "uid": f"uid-{name}", "labels": labels},
            "spec": {},
            "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}},
        }

    def labels(self, labels: dict[str, str] | None = None, **more: str) -> Self:
        self.raw["metadata"]["labels"].update({**(labels or {}), **more})
        return self

    def zone(self, zone: str) -> Self:
        return self.labels({"topology.kubernetes.io/zone": zone})

    def alloc(self, resources: dict[str, Any] | None = None, **more: Any) -> Self:
        """Replace allocatable (keyword names use _ for -); pods defaults to 110 unless given."""
        merged = {**(resources or {}), **{k.replace("_", "-"): v for k, v in more.items()}}
        merged.setdefault("pods", "110")
        self.raw["status"]["allocatable"] = merged
        self.raw["status"]["capacity"] = dict(merged)
        return self

    def taint(self, key: str, value: str = "", effect: str = "NoSchedule") -> Self:
        taint = {"key": key, "effect": effect}
        if value:
            taint["value"] = value
        self.raw["spec"].setdefault("taints", []).append(taint)
        return self

    def unschedulable(self) -> Self:
        self.raw["spec"]["unschedulable"] = True
        return self

    def image(self, size_bytes: int, *names: str) -> Self:
        self.raw["status"].setdefault("images", []).append({"names": list(names), "sizeBytes": size_bytes})
        return self

    def declared_features(self, *names: str) -> Self:
        self.raw["status"]["declaredFeatures"] = list(names)
        return self

    def kubelet(self, version: str) -> Self:
        self.raw["status"]["nodeInfo"] = {"kubeletVersion": version}
        return self

    def obj(self) -> o.Node:
        return msgspec.convert(self.raw, o.Node)


def make_pod(name: str = "pod", namespace: str = "default") -> PodBuilder:
    return PodBuilder(name, namespace)


def make_node(name: str = "node1", hostname_label: bool = True) -> NodeBuilder:
    """A node with 4 CPUs, 16Gi and 110 pods, labelled kubernetes.io/hostname unless told not to."""
    return NodeBuilder(name, hostname_label)


T = TypeVar("T", bound=msgspec.Struct)


def from_raw(kind: type[T], raw: Json) -> T:
    """Any other object (PVC, PV, StorageClass, Namespace, ...) from its camelCase form."""
    return msgspec.convert(raw, kind)


def make_snapshot(*objects: msgspec.Struct) -> Snapshot:
    """A snapshot holding these objects, filed by kind as the loader files them."""
    snapshot = Snapshot()
    kinds = {tp: kind for kind, tp in o.KIND_TYPES.items()}
    for obj in objects:
        snapshot.add(kinds[type(obj)], obj)
    return snapshot


def make_handle(*objects: msgspec.Struct) -> Handle:
    return Handle(make_snapshot(*objects))


def node_info(handle: Handle, name: str) -> NodeInfo:
    return handle.node_info_by_name[name]


# A ResourceQuota of another namespace: a dump holding it lists its ResourceQuotas, so a manifest
# pod's quota admission is evaluated (and no quota applies to it).
QUOTA_ELSEWHERE: Json = {
    "apiVersion": "v1",
    "kind": "ResourceQuota",
    "metadata": {"name": "elsewhere", "namespace": "kube-system"},
    "spec": {"hard": {"pods": "100"}},
    "status": {"hard": {"pods": "100"}, "used": {"pods": "0"}},
}


# A Namespace without PodSecurity labels: a dump holding it lists its Namespaces, so a manifest
# pod's PodSecurity admission is evaluated (a namespace the dump does not hold enforces nothing).
NAMESPACE_ELSEWHERE: Json = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kube-system"}}


# A pod that ran to completion: a dump holding it lists its Pods (a snapshot without any Pod
# cannot vouch for free room), and, ended, it takes none.
POD_ELSEWHERE: Json = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "ended", "namespace": "kube-system"},
    "spec": {"containers": [{"name": "c", "image": "x:1"}]},
    "status": {"phase": "Succeeded"},
}


def quotas_listed(directory: Path) -> str:
    """A file to add with --from: the snapshot then lists its ResourceQuotas (QUOTA_ELSEWHERE), its
    Namespaces (NAMESPACE_ELSEWHERE) and its Pods (POD_ELSEWHERE), what admission of a manifest pod
    and its placement read besides the nodes."""
    path = directory / "quotas.json"
    items = [QUOTA_ELSEWHERE, NAMESPACE_ELSEWHERE, POD_ELSEWHERE]
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)
