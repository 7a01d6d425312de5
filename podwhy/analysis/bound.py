"""Why a bound Pending pod does not run: its node, its init containers and containers as the
kubelet reports them, the events on volumes and the sandbox."""

from __future__ import annotations

from podwhy.analysis.causes import (
    PULL_FAILING,
    BoundCreating,
    BoundNodeGone,
    BoundNodeNotReady,
    BoundNotRunning,
    BoundNotStarted,
    Cause,
    ContainerDetail,
    ContainerProblem,
    Detail,
    EventDetail,
    EventReason,
    InitExited,
    InitNotStarted,
    InitProgress,
    InitRunning,
    InitWaiting,
    NodeReadyDetail,
    Waiting,
)
from podwhy.model import objects as o

# Waiting reasons that mean an image problem: the image is named.
IMAGE_REASONS = frozenset({"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull"})


# A pull that fails and its back-off: the kubelet alternates between the two for one failure, so
# pods of one image are one cause whichever of them each shows (PULL_FAILING; the detail keeps its own).
PULL_REASONS = frozenset({"ErrImagePull", "ImagePullBackOff"})


# What a container waits with while it is being created, or behind unfinished init containers:
# the events (or the init containers) say why.
CREATING_REASONS = frozenset({"ContainerCreating", "PodInitializing"})


# Event reasons that explain a container still being created: volumes that do not attach or
# mount (kubelet, attachdetach-controller), a sandbox the runtime or CNI cannot set up.
CREATING_EVENT_REASONS = ("FailedAttachVolume", "FailedMount", "FailedCreatePodSandBox")


def _waiting(status: o.ContainerStatus, init: bool) -> tuple[Waiting, ContainerDetail | None] | None:
    """(cause, detail) of a container waiting for a reason that explains itself, else None; the
    detail is None when it would only repeat the cause."""
    waiting = status.state.waiting if status.state is not None else None
    if waiting is None or not waiting.reason or waiting.reason in CREATING_REASONS:
        return None
    reason = waiting.reason
    if reason in PULL_REASONS:
        cause = Waiting(PULL_FAILING, image=status.image)
    elif reason in IMAGE_REASONS:
        cause = Waiting(reason, image=status.image)
    elif reason == "CreateContainerConfigError" and waiting.message:
        # The kubelet names the missing ConfigMap, Secret or key in the message.
        cause = Waiting(reason, message=waiting.message)
    else:
        cause = Waiting(reason)
    last = status.last_state.terminated if status.last_state is not None else None
    if last is None and waiting.message == cause.message and not cause.image:
        return cause, None  # it would say what the cause says
    detail = ContainerDetail(
        init,
        status.name,
        reason,
        status.restart_count if last is not None else 0,
        last.exit_code if last is not None else None,
        last.reason if last is not None else "",
        waiting.message,
    )
    return cause, detail


def _init_finished(status: o.ContainerStatus, sidecar: bool) -> bool:
    state = status.state
    if state is None:
        return False
    if sidecar:
        # A restartable init container (sidecar) counts once it has started.
        return state.running is not None
    return state.terminated is not None and state.terminated.exit_code == 0


def _init_progress(pod: o.Pod) -> tuple[list[ContainerProblem], list[Detail], bool]:
    """Causes and details of unfinished init containers (kubectl's Init:N/M), and whether the
    first unfinished one was ever started (when not, volume or sandbox events may say why)."""
    sidecars = {c.name for c in pod.spec.init_containers if c.restart_policy == "Always"}
    statuses = pod.status.init_container_statuses
    total = len(pod.spec.init_containers) or len(statuses)
    done = sum(1 for s in statuses if _init_finished(s, s.name in sidecars))
    if not total or done >= total:
        return [], [], True
    progress = InitProgress(done, total)
    first = next((s for s in statuses if not _init_finished(s, s.name in sidecars)), None)
    if first is None:
        return [InitNotStarted("", progress)], [], False
    waiting = _waiting(first, init=True)
    if waiting is not None:
        return [InitWaiting(first.name, waiting[0], progress)], [waiting[1]] if waiting[1] is not None else [], True
    if first.state is not None and first.state.running is not None:
        return [InitRunning(first.name, progress)], [], True
    if first.state is not None and first.state.terminated is not None:
        return [InitExited(first.name, first.state.terminated.exit_code, progress)], [], True
    return [InitNotStarted(first.name, progress)], [], False


def bound_not_running(pod: o.Pod, events: list[o.Event], nodes: dict[str, o.Node]) -> tuple[Cause, list[Detail]]:
    """Why a bound pod's containers do not run: its node, then its containers, then its events."""
    node = nodes.get(pod.spec.node_name)
    if node is None:
        return BoundNodeGone(pod.spec.node_name), []
    ready = next((c for c in node.status.conditions if c.type == "Ready"), None)
    if ready is not None and ready.status != "True":
        details: list[Detail] = [NodeReadyDetail(pod.spec.node_name, ready.status, ready.reason, ready.message)]
        return BoundNodeNotReady(pod.spec.node_name), details
    causes, details, init_started = _init_progress(pod)
    for status in pod.status.container_statuses:
        waiting = _waiting(status, init=False)
        if waiting is not None and not causes:
            causes.append(waiting[0])
        if waiting is not None and waiting[1] is not None:
            details.append(waiting[1])
    if not causes or not init_started:
        # Volumes and the sandbox come before any container, init containers included.
        said: list[ContainerProblem] = []
        for event in events:  # the pod's own (events_of)
            said.append(EventReason(event.reason))
            detail = EventDetail(event.reason, event.message)
            if detail not in details:
                details.append(detail)
        causes = said or causes
    if not causes:
        creating = any(
            s.state is not None and s.state.waiting is not None and s.state.waiting.reason == "ContainerCreating"
            for s in pod.status.container_statuses
        )
        if creating:
            return BoundCreating(pod.spec.node_name), details
        return BoundNotStarted(pod.spec.node_name), details
    return BoundNotRunning(tuple(dict.fromkeys(causes))), details
