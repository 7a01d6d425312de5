"""What keeps a Pending pod Pending, in words: analysis/causes.py's facts said as one line (the
cause pods are grouped by) and the details behind it."""

from __future__ import annotations

import json
import shlex

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
    FitsNow,
    GatedSince,
    InitExited,
    InitNotStarted,
    InitProgress,
    InitRunning,
    InitWaiting,
    NodeReadyDetail,
    NominatedFits,
    NominatedNodeGone,
    NominatedStale,
    NominatedTo,
    NominatedWaiting,
    NoProfile,
    NoScheduler,
    OnceOneRuns,
    PartlyEvaluated,
    ReservedRoomCause,
    ReservingPodDetail,
    SchedulerMessageDetail,
    SchedulerPodDown,
    VictimDetail,
    Waiting,
    WaitingForNode,
    WillPreempt,
)
from podwhy.analysis.kueuefacts import KUEUE_GATES
from podwhy.analysis.remedies import (
    AddNodes,
    AwaitPreemption,
    DeletePods,
    DescribePod,
    ExplainPod,
    FixConfig,
    FixImage,
    NoAction,
    NoNodeShape,
    PassSchedulerConfig,
    ReadLog,
    ReleaseNomination,
    Remedy,
    RemoveGates,
    RepairNode,
    StartScheduler,
    UnknownSchedulerName,
)
from podwhy.cluster.placementreasons import Gated, SchedulerSays
from podwhy.report.words.answers import answer_text, no_profile_text
from podwhy.report.words.autoscaling import evidence_text
from podwhy.report.words.fate import preempt_text
from podwhy.report.words.notevaluated import not_evaluated_text
from podwhy.report.words.schedulers import hint, hint_command, no_profile_note, no_scheduler
from podwhy.verdict import Verdict

# Nodes named in a cause before "and N more".
MAX_NODES_NAMED = 3


def _progress(progress: InitProgress) -> str:
    return f"Init:{progress.done}/{progress.total}"


def _waiting(waiting: Waiting) -> str:
    if waiting.image and waiting.reason == PULL_FAILING:
        return f"cannot pull image {waiting.image} (ErrImagePull, ImagePullBackOff)"
    if waiting.image:
        return f"{waiting.reason} (image {waiting.image})"
    if waiting.message:
        return f"{waiting.reason}: {waiting.message}"
    return waiting.reason


def _problem(problem: ContainerProblem) -> str:
    match problem:
        case Waiting():
            return _waiting(problem)
        case InitWaiting(container, waiting, progress):
            return f"init container {container}: {_waiting(waiting)} ({_progress(progress)})"
        case InitNotStarted("", progress):
            return f"init containers not started ({_progress(progress)})"
        case InitNotStarted(container, progress):
            return f"init container {container} not started ({_progress(progress)})"
        case InitRunning(container, progress):
            return f"init container {container} still running ({_progress(progress)})"
        case InitExited(container, exit_code, progress):
            return f"init container {container} exited with code {exit_code} ({_progress(progress)})"
        case EventReason(reason):
            return reason


def _then(then: WillPreempt | None) -> str:
    """What the scheduler does on its next attempt, when its preemption places the pod."""
    return f"; on its next attempt the scheduler {preempt_text(then.node, then.victims)}" if then else ""


def cause_text(cause: Cause) -> str:
    """The one line pods are grouped by."""
    match cause:
        case BoundNodeGone(node):
            return f"bound to node {node}, which no longer exists"
        case BoundNodeNotReady(node):
            return f"bound to node {node}, which is NotReady"
        case BoundCreating(node):
            return f"bound to node {node}, ContainerCreating (no event says why yet)"
        case BoundNotStarted(node):
            return f"bound to node {node}, containers not started yet"
        case BoundNotRunning(problems):
            return f"bound, not running: {', '.join(_problem(p) for p in problems)}"
        case NoProfile(name, finding):
            text = no_profile_text(name)
            return text if finding is None else f"{text}; {no_profile_note(finding)}"
        case NoScheduler(_, finding):
            return no_scheduler(finding)
        case Gated() | SchedulerSays():
            return answer_text(cause)
        case NominatedNodeGone(node, then):
            return f"nominated to node {node}, which no longer exists (stale nomination)" + _then(then)
        case NominatedFits():
            return "nominated to a node where it fits now: the scheduler binds it on its next attempt"
        case NominatedStale(node, then):
            return f"nominated to node {node}, where it no longer fits (stale nomination)" + _then(then)
        case NominatedWaiting(node, victims, fits_once_gone):
            waiting = f"nominated to node {node}, waiting for {victims} victim(s) to terminate"
            if fits_once_gone is False:
                return waiting + " (even then it does not fit there: stale nomination)"
            return waiting + "; it fits there once they are gone"
        case FitsNow():
            return "fits now: the scheduler has not bound it yet, or the cluster changed since it tried"
        case WillPreempt(node, victims):
            return preempt_text(node, victims)
        case ReservedRoomCause(nodes, pods):
            count = len(nodes)
            shown = ", ".join(nodes[:MAX_NODES_NAMED]) + (
                f" and {count - MAX_NODES_NAMED} more" if count > MAX_NODES_NAMED else ""
            )
            return (
                f"fits on {count} node{'s' if count != 1 else ''} ({shown}) once the room reserved by "
                f"{', '.join(pods)} is released"
            )
        case WaitingForNode(autoscaler, group, evidence):
            of_group = f" of {group}" if group else ""
            return f"waiting for a node{of_group} that {autoscaler} is adding ({evidence_text(evidence)})"
        case PartlyEvaluated(not_evaluated):
            return f"fits the plugins evaluated; {not_evaluated_text(not_evaluated)}"


def detail_text(detail: Detail) -> str:
    match detail:
        case ContainerDetail():
            text = f"{'init container' if detail.init else 'container'} {detail.container}: {detail.reason}"
            if detail.last_exit_code is not None:
                last = f"last exit code {detail.last_exit_code}" + (
                    f": {detail.last_reason}" if detail.last_reason else ""
                )
                text += f" ({detail.restarts} restarts; {last})" if detail.restarts else f" ({last})"
            if detail.message:
                text += f": {detail.message}"
            return text
        case EventDetail(reason, message):
            return f"event {reason}: {message}"
        case NodeReadyDetail(node, status, reason, message):
            why = f"{reason}: {message}" if reason and message else reason or message
            return f"node {node} Ready={status}" + (f" ({why})" if why else "")
        case VictimDetail():
            preempted = " (preempted by the scheduler)" if detail.preempted else ""
            return (
                f"victim {detail.pod}{preempted}, priority {detail.priority}: terminating, grace period "
                f"{detail.grace_period_s}s, gone by {detail.gone_by}"
            )
        case NominatedTo(node):
            return f"nominated to node {node}"
        case ReservingPodDetail(pod, priority):
            return f"nominated pod {pod} (priority {priority}) reserves that room"
        case SchedulerMessageDetail(message):
            return f"kube-scheduler's message: {message}"
        case GatedSince(since):
            return f"gated since {since}"
        case SchedulerPodDown(pod):
            return hint(pod)
        case OnceOneRuns(verdict, cause):
            if verdict == Verdict.SCHEDULABLE:
                return "once one runs: Schedulable (it fits now)"
            return f"once one runs: {verdict}: {cause_text(cause)}"


def details_text(details: list[Detail]) -> list[str]:
    return [detail_text(d) for d in details]


# ---- the next step of a cause (`pending`'s summary) ----


def _ref(key: str) -> tuple[str, str]:
    namespace, _, name = key.partition("/")
    return namespace, name


def _kubectl(verb: str, key: str, *flags: str) -> str:
    namespace, name = _ref(key)
    return " ".join(["kubectl", verb, "-n", shlex.quote(namespace), shlex.quote(name), *flags])


def _delete_commands(pods: tuple[str, ...]) -> list[str]:
    """One `kubectl delete pod` per namespace, its pods together."""
    by_namespace: dict[str, list[str]] = {}
    for key in pods:
        namespace, name = _ref(key)
        by_namespace.setdefault(namespace, []).append(name)
    return [
        " ".join(["kubectl", "delete", "pod", "-n", shlex.quote(ns), *(shlex.quote(n) for n in names)])
        for ns, names in by_namespace.items()
    ]


def _release_command(key: str) -> str:
    patch = json.dumps({"status": {"nominatedNodeName": None}}, separators=(",", ":"))
    return _kubectl("patch pod", key, "--subresource=status", "--type", "merge", "-p", shlex.quote(patch))


def _named_pods(pods: tuple[str, ...]) -> str:
    shown = ", ".join(pods[:MAX_NODES_NAMED])
    return shown + (f" and {len(pods) - MAX_NODES_NAMED} more" if len(pods) > MAX_NODES_NAMED else "")


def _no_action(why: NoAction) -> str:
    match why.why:
        case NominatedFits():
            return "no action needed: it fits on its nominated node, and the scheduler binds it on its next attempt"
        case NominatedWaiting(node, victims, _):
            return f"no action needed: it fits on {node} once its {victims} victim(s) are gone"
        case FitsNow():
            return "no action needed: it fits now, and the scheduler binds it on its next attempt"
        case WaitingForNode(autoscaler, _, _):
            return f"no action needed: {autoscaler} is adding a node for it"
        case ReservedRoomCause(_, pods):
            return f"wait: it fits once the nominated pod(s) {_named_pods(pods)} are bound elsewhere or released"


def remedy_text(remedy: Remedy) -> tuple[str, list[str]]:
    """A cause's next step in one line (without its arrow), and the commands to copy, whole."""
    match remedy:
        case AddNodes(count, like, more_than):
            nodes = f"{'more than ' if more_than else ''}{count} node{'s' if count != 1 or more_than else ''}"
            return f"add {nodes} like {like}", []
        case NoNodeShape():
            return "no node of the cluster holds one, even empty: change the pods, or add another kind of node", []
        case ExplainPod(pod):
            return f"podwhy explain {pod} shows what would make it fit", []
        case AwaitPreemption(node, victims):
            count = len(victims)
            return f"no action needed: the scheduler preempts {count} pod{'s' if count != 1 else ''} on {node}", []
        case FixImage(image, owner):
            of = f" of {owner}" if owner else ""
            return f"fix the image tag{of}: {image} cannot be pulled", []
        case FixConfig(message):
            return f"create what the container's configuration refers to: {message}", []
        case DeletePods(pods, node):
            one = len(pods) == 1
            return (
                f"delete pod{'' if one else 's'} {_named_pods(pods)} ({'its' if one else 'their'} node {node} is gone)",
                _delete_commands(pods),
            )
        case RepairNode(node):
            return f"repair node {node}: it is NotReady, and its pods stay where they are", [
                f"kubectl describe node {shlex.quote(node)}"
            ]
        case ReadLog(pod, container, init, previous, running):
            which = f"{'init container' if init else 'container'} {container}"
            flags = ["-c", shlex.quote(container), *(["--previous"] if previous else [])]
            if running:
                return f"see what {which} waits for (its log)", [_kubectl("logs", pod, *flags)]
            return f"see why {which} fails (its log)", [_kubectl("logs", pod, *flags)]
        case DescribePod(pod, reasons):
            said = f"what the events say ({', '.join(reasons)})" if reasons else "why its containers do not start"
            return f"fix {said}", [_kubectl("describe pod", pod)]
        case PassSchedulerConfig(name):
            return f"pass the configuration of the scheduler serving {name!r} with --scheduler-config", []
        case UnknownSchedulerName(name):
            return f"fix the pods' schedulerName {name!r}, or install the scheduler it names", []
        case StartScheduler(name, pods):
            return f"get the scheduler serving {name!r} running again", [hint_command(p) for p in pods[:1]]
        case RemoveGates(gates):
            gate = f"gate{'s' if len(gates) != 1 else ''} {', '.join(gates)}"
            if set(gates) <= KUEUE_GATES:  # Kueue's own: it removes them once it admits the Workload
                return (
                    f"Kueue removes {gate} once it admits their Workload (podwhy explain on a pod says why it"
                    " has not); the scheduler does not try the pods until then",
                    [],
                )
            return f"who removes {gate}? The scheduler does not try the pods until then", []
        case ReleaseNomination(pods, node, gone, then):
            where = f"node {node} is gone" if gone else f"it no longer fits on {node}"
            if then is not None:
                count = len(then.victims)
                preempts = f"{count} pod{'s' if count != 1 else ''} on {then.node}"
                return f"the nomination is stale: {where}; no action needed: the scheduler preempts {preempts}", []
            return (
                f"the nomination is stale: {where}; release it (the scheduler also moves it on its next attempt)",
                [_release_command(pods[0])],
            )
        case NoAction():
            return _no_action(remedy), []
