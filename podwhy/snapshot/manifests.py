"""Manifests for `podwhy check`: Pods and workload templates turned into the pods their
controllers would create, with what admission would set.

Inputs are files, folders (recursively), multi-document YAML or JSON, and `-` for stdin (e.g.
`helm template ... | podwhy check -f -`). Workloads are Deployments, ReplicaSets, StatefulSets,
DaemonSets, Jobs and CronJobs; each becomes its replica pods, named `<name>-<i>` (StatefulSet
ordinals likewise), owned as their controller would own them. Objects the plugins read that a
chart may ship alongside (Services, PVCs, PDBs, PriorityClasses, RuntimeClasses,
StorageClasses) are added to the snapshot first, as `kubectl apply` would create them.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import msgspec
import yaml

from podwhy.errors import PodwhyError
from podwhy.model import objects as o
from podwhy.snapshot import yaml11
from podwhy.snapshot.admission import admit
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.decode import check_object
from podwhy.snapshot.source import _object_files, _read_bytes

# Kinds that make pods, and the kinds that own those pods.
WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob")
# Objects a chart ships that the plugins or admission read: added to the snapshot.
SUPPORT_KINDS = (
    "Service",
    "PersistentVolumeClaim",
    "PodDisruptionBudget",
    "PriorityClass",
    "RuntimeClass",
    "StorageClass",
)
_NAMESPACED_SUPPORT = frozenset({"Service", "PersistentVolumeClaim", "PodDisruptionBudget"})

# Tolerations the DaemonSet controller adds to its pods (if the template lacks them).
_DAEMON_TOLERATIONS = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)
_HOST_NETWORK_TOLERATION = ("node.kubernetes.io/network-unavailable", "NoSchedule")

_T = TypeVar("_T", bound=msgspec.Struct)


@dataclass
class ManifestWorkload:
    """One Pod or workload of the manifests, with the pods its controller would create."""

    kind: str
    namespace: str
    name: str
    source: str
    # The replicas in the order the controller creates them (empty for a DaemonSet).
    pods: list[o.Pod] = field(default_factory=list)
    # DaemonSet: the admitted pod every eligible node gets, before its node-name affinity.
    daemon_template: o.Pod | None = None
    # StatefulSet with OrderedReady: ordinal i+1 is created only once ordinal i runs.
    ordered: bool = False

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name} ({self.kind})"


@dataclass
class _Document:
    kind: str
    raw: Any
    source: str
    where: str


class ManifestSource:
    """Manifests from files, folders or '-' (stdin)."""

    def __init__(self, paths: Sequence[str], namespace: str = "default", stdin: BinaryIO | None = None) -> None:
        self.paths = list(paths)
        self.namespace = namespace
        self.stdin = stdin
        self._docs: list[_Document] | None = None

    def read(self) -> list[_Document]:
        """Every object document of the inputs (Lists unpacked; read once, stdin included); kinds
        podwhy does not read are dropped."""
        if self._docs is not None:
            return self._docs
        docs: list[_Document] = []
        for raw_path in self.paths:
            if raw_path == "-":
                stream = self.stdin if self.stdin is not None else sys.stdin.buffer
                docs.extend(_documents(stream.read(), "<stdin>"))
                continue
            path = Path(raw_path)
            if path.is_dir():
                files = _object_files(path)
                if not files:
                    raise PodwhyError(f"{path}: the folder holds no .json or .yaml files")
                for file in files:
                    docs.extend(_documents(_read_bytes(file), str(file)))
            else:
                docs.extend(_documents(_read_bytes(path), str(path)))
        self._docs = docs
        return docs

    def load_into(self, snapshot: Snapshot) -> list[ManifestWorkload]:
        """Add the manifests' support objects to SNAPSHOT, then build every workload's admitted pods."""
        docs = self.read()
        for doc in docs:
            if doc.kind in SUPPORT_KINDS:
                obj: Any = _convert(doc, o.KIND_TYPES[doc.kind])
                if doc.kind in _NAMESPACED_SUPPORT and not obj.metadata.namespace:
                    obj.metadata.namespace = self.namespace
                snapshot.add(doc.kind, obj)
        workloads: list[ManifestWorkload] = []
        seen: set[str] = set()
        for doc in docs:
            if doc.kind == "Pod":
                workload = self._pod(doc, snapshot)
            elif doc.kind == "CronJob":
                workload = self._cron_job(doc, snapshot)
            elif doc.kind in WORKLOAD_KINDS:
                workload = self._workload(doc, _convert(doc, o.Workload), snapshot)
            else:
                continue
            if workload.key in seen:
                raise PodwhyError(f"{doc.source}: {workload.key} is defined twice")
            seen.add(workload.key)
            workloads.append(workload)
        if not workloads:
            sources = ", ".join(self.paths)
            raise PodwhyError(
                f"no Pods or workloads in {sources}",
                hint="pass Pod, Deployment, StatefulSet, DaemonSet, Job, CronJob or ReplicaSet manifests",
            )
        return workloads

    # ------------------------------------------------------------------ kinds
    def _pod(self, doc: _Document, snapshot: Snapshot) -> ManifestWorkload:
        pod = _convert(doc, o.Pod)
        if not pod.metadata.name and pod.metadata.generate_name:
            pod.metadata.name = pod.metadata.generate_name + "podwhy"
        namespace = pod.metadata.namespace or self.namespace
        pod.metadata.namespace = namespace
        pod.metadata.uid = pod.metadata.uid or _uid(namespace, "Pod", pod.metadata.name)
        pod.spec.node_name = ""
        pod.status = o.PodStatus()
        check_object("Pod", pod, doc.source, doc.where)
        admit(pod, snapshot, namespace)
        return ManifestWorkload("Pod", namespace, pod.metadata.name, doc.source, pods=[pod])

    def _cron_job(self, doc: _Document, snapshot: Snapshot) -> ManifestWorkload:
        cron = _convert(doc, o.CronJob)
        _require_name(cron.metadata, doc)
        job = o.Workload(
            api_version="batch/v1",
            kind="Job",
            metadata=o.ObjectMeta(name=cron.metadata.name, namespace=cron.metadata.namespace),
            spec=cron.spec.job_template.spec,
        )
        workload = self._workload(doc, job, snapshot)
        workload.kind = "CronJob"
        return workload

    def _workload(self, doc: _Document, wl: o.Workload, snapshot: Snapshot) -> ManifestWorkload:
        _require_name(wl.metadata, doc)
        namespace = wl.metadata.namespace or self.namespace
        name = wl.metadata.name
        kind = wl.kind
        out = ManifestWorkload(kind, namespace, name, doc.source)
        template = wl.spec.template
        template_hash = hashlib.sha256(msgspec.json.encode(template)).hexdigest()[:10]
        owner = o.OwnerReference(
            api_version="batch/v1" if kind == "Job" else "apps/v1",
            kind=kind,
            name=name,
            uid=_uid(namespace, kind, name),
            controller=True,
        )
        labels: dict[str, str] = {}
        if kind == "Deployment":
            # Pods belong to the Deployment's ReplicaSet, which default spreading looks up.
            rs_name = f"{name}-{template_hash}"
            rs = o.ReplicaSet(
                metadata=o.ObjectMeta(
                    name=rs_name,
                    namespace=namespace,
                    uid=_uid(namespace, "ReplicaSet", rs_name),
                    owner_references=[owner],
                ),
                spec=o.SelectorSpec(selector=wl.spec.selector),
            )
            snapshot.add("ReplicaSet", rs)
            owner = o.OwnerReference(
                api_version="apps/v1", kind="ReplicaSet", name=rs_name, uid=rs.metadata.uid, controller=True
            )
            labels["pod-template-hash"] = template_hash
        elif kind in ("ReplicaSet", "StatefulSet"):
            meta = o.ObjectMeta(name=name, namespace=namespace, uid=owner.uid)
            selector_spec = o.SelectorSpec(selector=wl.spec.selector)
            if kind == "ReplicaSet":
                snapshot.add(kind, o.ReplicaSet(metadata=meta, spec=selector_spec))
            else:
                snapshot.add(kind, o.StatefulSet(metadata=meta, spec=selector_spec))
        elif kind == "Job":
            labels.update({"batch.kubernetes.io/job-name": name, "job-name": name})
        if kind == "DaemonSet":
            pod = self._replica(doc, template, f"{name}-daemon", namespace, owner, labels)
            _add_daemon_tolerations(pod)
            out.daemon_template = admit(pod, snapshot, namespace)
            return out
        out.ordered = kind == "StatefulSet" and wl.spec.pod_management_policy in ("", "OrderedReady")
        for index in range(_replica_count(wl)):
            pod_labels = dict(labels)
            if kind == "StatefulSet":
                pod_labels.update(
                    {
                        "statefulset.kubernetes.io/pod-name": f"{name}-{index}",
                        "apps.kubernetes.io/pod-index": str(index),
                    }
                )
            pod = self._replica(doc, template, f"{name}-{index}", namespace, owner, pod_labels)
            out.pods.append(admit(pod, snapshot, namespace))
        return out

    @staticmethod
    def _replica(
        doc: _Document,
        template: o.PodTemplateSpec,
        name: str,
        namespace: str,
        owner: o.OwnerReference,
        labels: dict[str, str],
    ) -> o.Pod:
        """A pod as the controller creates it from the template (a copy: admission changes it)."""
        spec = msgspec.json.decode(msgspec.json.encode(template.spec), type=o.PodSpec)
        spec.node_name = ""
        pod = o.Pod(
            metadata=o.ObjectMeta(
                name=name,
                namespace=namespace,
                uid=_uid(namespace, "Pod", name),
                labels={**template.metadata.labels, **labels},
                annotations=dict(template.metadata.annotations),
                owner_references=[owner],
            ),
            spec=spec,
        )
        check_object("Pod", pod, doc.source, doc.where)
        return pod


def _replica_count(wl: o.Workload) -> int:
    """How many pods the controller keeps: replicas (default 1), or for a Job the pods running at once."""
    if wl.kind == "Job":
        parallelism = 1 if wl.spec.parallelism is None else wl.spec.parallelism
        if wl.spec.completions is not None:
            parallelism = min(parallelism, wl.spec.completions)
        return max(parallelism, 0)
    return max(1 if wl.spec.replicas is None else wl.spec.replicas, 0)


def _add_daemon_tolerations(pod: o.Pod) -> None:
    wanted = list(_DAEMON_TOLERATIONS)
    if pod.spec.host_network:
        wanted.append(_HOST_NETWORK_TOLERATION)
    for key, effect in wanted:
        if not any(t.key == key and t.effect == effect for t in pod.spec.tolerations):
            pod.spec.tolerations.append(o.Toleration(key=key, operator="Exists", effect=effect))


def daemon_pod_for_node(template: o.Pod, node_name: str) -> o.Pod:
    """The DaemonSet controller's pod for one node: the template with a required node affinity
    on that node's name (replacing any required node selector terms it had)."""
    pod = msgspec.json.decode(msgspec.json.encode(template), type=o.Pod)
    base = pod.metadata.name.removesuffix("-daemon")
    pod.metadata.name = f"{base}-{node_name}"
    pod.metadata.uid = _uid(pod.metadata.namespace, "Pod", pod.metadata.name)
    term = o.NodeSelectorTerm(
        match_fields=[o.NodeSelectorRequirement(key="metadata.name", operator="In", values=[node_name])]
    )
    affinity = pod.spec.affinity or o.Affinity()
    node_affinity = affinity.node_affinity or o.NodeAffinity()
    node_affinity.required_during_scheduling_ignored_during_execution = o.NodeSelector(node_selector_terms=[term])
    affinity.node_affinity = node_affinity
    pod.spec.affinity = affinity
    return pod


def _uid(namespace: str, kind: str, name: str) -> str:
    return f"podwhy-check-{kind.lower()}-{namespace}-{name}"


def _require_name(meta: o.ObjectMeta, doc: _Document) -> None:
    if not meta.name:
        raise PodwhyError(f"{doc.source}: {doc.where} ({doc.kind}) has no metadata.name")


def _convert(doc: _Document, tp: type[_T]) -> _T:
    try:
        obj: _T = yaml11.convert(doc.raw, tp)
    except msgspec.ValidationError as exc:
        raise PodwhyError(f"{doc.source}: {doc.where} ({doc.kind}) is invalid: {exc}") from None
    return obj


def _documents(data: bytes, source: str) -> list[_Document]:
    """Object documents of one input (YAML or JSON; Lists unpacked)."""
    try:
        loaded = yaml11.load_all(data)
    except yaml.YAMLError as exc:
        raise PodwhyError(f"{source}: malformed YAML: {str(exc).splitlines()[0]}") from None
    out: list[_Document] = []
    for number, doc in enumerate(loaded, 1):
        if yaml11.is_null(doc):
            continue
        where = f"document {number}"
        if not isinstance(doc, dict):
            raise PodwhyError(f"{source}: {where} is not a Kubernetes object")
        kind = _kind(doc)
        if kind.endswith("List") and isinstance(_get(doc, "items"), list):
            for index, item in enumerate(_get(doc, "items")):
                if not isinstance(item, dict):
                    raise PodwhyError(f"{source}: {where} items[{index}] is not a Kubernetes object")
                out.append(_Document(_kind(item), item, source, f"{where} items[{index}]"))
            continue
        out.append(_Document(kind, doc, source, where))
    return [d for d in out if d.kind == "Pod" or d.kind in WORKLOAD_KINDS or d.kind in SUPPORT_KINDS]


def _get(doc: dict[Any, Any], key: str) -> Any:
    return next((v for k, v in doc.items() if yaml11.key_text(k) == key), None)


def _kind(doc: dict[Any, Any]) -> str:
    value = yaml11.plain(_get(doc, "kind"))
    return value if isinstance(value, str) else ""
