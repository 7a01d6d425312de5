"""The scheduler pods a snapshot shows: which schedulerNames they serve, and whether they run.

kube-scheduler runs as a static pod on kubeadm-style control planes (labelled
component=kube-scheduler), second schedulers usually as Deployments; managed control planes
(EKS, GKE, AKS) show no scheduler pod at all. So podwhy concludes that nothing serves a
schedulerName only when the snapshot shows pods serving it and none of them runs: finding no
scheduler pod proves nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from enum import Enum

import msgspec

from podwhy.model import objects as o
from podwhy.model.wellknownnames import ANN_MIRROR_POD, DEFAULT_SCHEDULER_NAME

KUBE_SCHEDULER = "kube-scheduler"
KUBE_SYSTEM = "kube-system"
# kubeadm's static pod manifests label the control-plane components with it.
COMPONENT_LABEL = "component"
SCHEDULER_NAME_FLAG = "--scheduler-name"
CONFIG_FLAG = "--config"
# Labels that name what a pod is (a scheduler Deployment's pods carry one of them).
NAME_LABELS = ("app.kubernetes.io/name", "app", "name", COMPONENT_LABEL)


class Serving(Enum):
    """Whether a scheduler pod serves a schedulerName."""

    NO = "no"
    # Its flags name it (or name nothing, which is default-scheduler).
    BY_FLAGS = "flags"
    # A --config file or a configuration podwhy cannot read decides; its name or role says so.
    APPARENTLY = "apparently"


class SchedulerPod(msgspec.Struct, frozen=True):
    pod: o.Pod
    # The schedulerNames its flags give; None when a configuration podwhy cannot read decides.
    names: frozenset[str] | None
    # The --config file, "" without one.
    config: str
    # The cluster's own kube-scheduler: a static (mirror) pod or labelled component=kube-scheduler.
    control_plane: bool

    @property
    def key(self) -> str:
        return f"{self.pod.metadata.namespace}/{self.pod.metadata.name}"

    @property
    def running(self) -> bool:
        """Phase Running and Ready: a crash-looping scheduler keeps phase Running, but not Ready."""
        status = self.pod.status
        ready = any(c.type == "Ready" and c.status == "True" for c in status.conditions)
        return status.phase == "Running" and ready

    def serves(self, name: str) -> Serving:
        if self.names is not None:
            return Serving.BY_FLAGS if name in self.names else Serving.NO
        if _named_after(self.pod, name):
            return Serving.APPARENTLY
        if name == DEFAULT_SCHEDULER_NAME and self.control_plane:
            # The cluster's own scheduler with a --config file: its profile keeps the default name
            # unless that file renames it, which podwhy cannot read.
            return Serving.APPARENTLY
        return Serving.NO


def _flag(args: Sequence[str], flag: str) -> list[str]:
    """Every value of `flag` in `args` (--flag=value or --flag value; a single dash works too)."""
    values: list[str] = []
    short = flag[1:]
    for i, arg in enumerate(args):
        for spelling in (flag, short):
            if arg.startswith(spelling + "="):
                values.append(arg[len(spelling) + 1 :])
            elif arg == spelling and i + 1 < len(args):
                values.append(args[i + 1])
    return values


def _basename(path: str) -> str:
    return path.rstrip("/").rpartition("/")[2]


def image_name(image: str) -> str:
    """registry.k8s.io/scheduler-plugins/kube-scheduler:v0.34.7 -> kube-scheduler."""
    name = _basename(image.partition("@")[0])
    return name.partition(":")[0]


def _tokens(container: o.Container) -> list[str]:
    """Its command line, word by word (a shell's `-c "kube-scheduler --config=..."` included)."""
    return [word for part in (*container.command, *container.args) for word in part.split()]


def _runs_kube_scheduler(container: o.Container) -> bool:
    if any(_basename(word) == KUBE_SCHEDULER for word in _tokens(container)):
        return True
    # No command: the image's own entrypoint runs, and kube-scheduler images run kube-scheduler.
    return not container.command and image_name(container.image) == KUBE_SCHEDULER


def _identity(pod: o.Pod) -> list[str]:
    """The names a pod goes by: its own, its controller's, its name labels."""
    meta = pod.metadata
    names = [meta.name, *(r.name for r in meta.owner_references if r.controller)]
    return names + [meta.labels[k] for k in NAME_LABELS if k in meta.labels]


def _named_after(pod: o.Pod, scheduler_name: str) -> bool:
    """Whether one of its names holds the schedulerName as whole words (volcano-scheduler-6c8f: volcano)."""
    return any(f"-{scheduler_name}-" in f"-{name}-" for name in _identity(pod))


def _is_mirror_pod(pod: o.Pod) -> bool:
    return ANN_MIRROR_POD in pod.metadata.annotations or any(
        r.kind == "Node" and r.controller for r in pod.metadata.owner_references
    )


def _mentioning_scheduler(pods: Sequence[o.Pod]) -> list[o.Pod]:
    """The pods of PODS that anything names a scheduler in, in order: a cheap first look, asked of
    every pod of a large snapshot (one loop, not a call a pod). The model keeps a container's
    command line only when it mentions one."""
    out: list[o.Pod] = []
    for pod in pods:
        meta = pod.metadata
        if "sched" in meta.name:
            out.append(pod)
            continue
        for ref in meta.owner_references:
            if "sched" in ref.name:
                break
        else:
            for value in meta.labels.values():
                if "sched" in value:
                    break
            else:
                for c in pod.spec.containers:
                    if c.command or c.args or "sched" in c.image:
                        break
                else:
                    continue
        out.append(pod)
    return out


def scheduler_pod(pod: o.Pod) -> SchedulerPod | None:
    """The pod as a scheduler, or None when nothing about it says it schedules pods."""
    return _as_scheduler(pod) if _mentioning_scheduler((pod,)) else None


def _as_scheduler(pod: o.Pod) -> SchedulerPod | None:
    """scheduler_pod of a pod that names a scheduler somewhere (_mentioning_scheduler)."""
    if pod.status.phase in ("Succeeded", "Failed"):
        return None  # evicted or completed pods are not instances any more
    labelled = pod.metadata.labels.get(COMPONENT_LABEL) == KUBE_SCHEDULER
    kube_scheduler = labelled or any(_runs_kube_scheduler(c) for c in pod.spec.containers)
    names: set[str] = set()
    config = ""
    for container in pod.spec.containers:
        line = _tokens(container)
        names.update(n for value in _flag(line, SCHEDULER_NAME_FLAG) for n in value.split(",") if n)
        config = config or next(iter(_flag(line, CONFIG_FLAG)), "")
    named = any("scheduler" in name for name in _identity(pod))
    if not (kube_scheduler or names or named):
        return None
    served: frozenset[str] | None
    if names:
        served = frozenset(names)
    elif kube_scheduler and not config:
        served = frozenset({DEFAULT_SCHEDULER_NAME})
    else:
        served = None
    control_plane = labelled or (kube_scheduler and _is_mirror_pod(pod))
    return SchedulerPod(pod, served, config, control_plane)


class SchedulerFinding(msgspec.Struct, frozen=True):
    """What the snapshot shows about the scheduler pods serving one schedulerName."""

    scheduler_name: str
    # Pods that serve it, by flags or apparently.
    serving: tuple[SchedulerPod, ...]
    # The snapshot holds kube-system pods: scheduler pods would be among them.
    cluster_wide: bool

    @property
    def running(self) -> tuple[SchedulerPod, ...]:
        return tuple(p for p in self.serving if p.running)

    @property
    def none_running(self) -> bool:
        """Pods serving the name are there and not one of them runs, in a snapshot that holds the
        pods of every namespace (kube-system's among them): a dump of a few namespaces may lack the
        replica that does run."""
        return self.cluster_wide and bool(self.serving) and not self.running


class SchedulerPods(msgspec.Struct):
    """Every scheduler pod of a snapshot, found once."""

    pods: list[SchedulerPod]
    cluster_wide: bool

    @classmethod
    def of(cls, pods: Sequence[o.Pod]) -> SchedulerPods:
        """The scheduler pods of PODS, found once for the same pods (explain asks three times of
        the snapshot's pods; pods added or taken away are looked through again)."""
        members = tuple(map(id, pods))  # the same pods, whichever list holds them
        for known_members, known_pods, out in _FOUND:
            if known_members == members and len(known_pods) == len(pods):
                return out
        found = [sp for pod in _mentioning_scheduler(pods) if (sp := _as_scheduler(pod)) is not None]
        out = cls(found, any(p.metadata.namespace == KUBE_SYSTEM for p in pods))
        # The pods are kept with their ids, so that no id is reused while remembered.
        _FOUND[:] = [(members, list(pods), out), *_FOUND[:1]]
        return out

    def for_name(self, scheduler_name: str) -> SchedulerFinding:
        serving = tuple(p for p in self.pods if p.serves(scheduler_name) is not Serving.NO)
        return SchedulerFinding(scheduler_name, serving, self.cluster_wide)

    def __iter__(self) -> Iterator[SchedulerPod]:
        return iter(self.pods)


# The last two sets of pods looked through (their ids, the pods, what was found in them).
_FOUND: list[tuple[tuple[int, ...], list[o.Pod], SchedulerPods]] = []
