"""The scheduler pods serving a schedulerName, in words (scheduler/schedulers.py finds them)."""

from __future__ import annotations

from podwhy.scheduler.schedulers import CONFIG_FLAG, SCHEDULER_NAME_FLAG, SchedulerFinding, SchedulerPod


def state(sp: SchedulerPod) -> str:
    """What the pod is doing, as `kubectl get pod` would sum it up, with its last crash."""
    pod = sp.pod
    status = pod.status
    if pod.metadata.deletion_timestamp is not None:
        return "Terminating"
    if sp.running:
        return "Running"
    for cs in status.container_statuses:
        waiting = cs.state.waiting if cs.state is not None else None
        if waiting is None or not waiting.reason:
            continue
        facts = [f"{cs.restart_count} restarts"] if cs.restart_count else []
        last = cs.last_state.terminated if cs.last_state is not None else None
        if last is not None:
            facts.append(f"last exit code {last.exit_code}" + (f": {last.reason}" if last.reason else ""))
        return waiting.reason + (f" ({'; '.join(facts)})" if facts else "")
    if status.phase == "Running":
        return "Running, not Ready"
    return status.phase or "Pending"


def describe(sp: SchedulerPod) -> str:
    """The pod, its state, and what tells podwhy which names it serves."""
    if sp.names:
        how = f"{SCHEDULER_NAME_FLAG}={','.join(sorted(sp.names))}"
    elif sp.config:
        how = f"{CONFIG_FLAG}={sp.config}, which podwhy cannot read"
    elif sp.names is None:
        how = "configured in a way podwhy cannot read"
    else:
        how = ""
    return f"{sp.key} ({state(sp)}{'; ' + how if how else ''})"


def no_scheduler(finding: SchedulerFinding) -> str:
    """No running scheduler: the one-line cause (every pod asking for the name shares it)."""
    down = ", ".join(f"{p.key} is {state(p)}" for p in finding.serving)
    return f"no running scheduler serves {finding.scheduler_name!r}: {down}"


def hint_command(sp: SchedulerPod) -> str:
    """The command that shows why a serving pod stopped (or does not start)."""
    meta = sp.pod.metadata
    if sp.pod.status.phase != "Running":
        return f"kubectl describe pod -n {meta.namespace} {meta.name}"
    containers = sp.pod.spec.containers
    flag = f" -c {containers[0].name}" if len(containers) > 1 else ""
    return f"kubectl logs -n {meta.namespace} {meta.name}{flag} --previous"


def hint(sp: SchedulerPod) -> str:
    """Where to look next: why a serving pod stopped."""
    why = "why it does not start" if sp.pod.status.phase != "Running" else "why it stops"
    return f"{why}: {hint_command(sp)}"


def no_profile_note(finding: SchedulerFinding) -> str:
    """For a name no profile has: what serves it, or that nothing appears to."""
    if finding.running:
        shown = ", ".join(describe(p) for p in finding.running)
        return f"it appears to be served by {shown}: pass that scheduler's configuration with --scheduler-config"
    if finding.serving and finding.cluster_wide:
        return no_scheduler(finding)
    if finding.serving:
        down = ", ".join(f"{p.key} ({state(p)})" for p in finding.serving)
        return (
            f"it appears to be served by {down}, not running; the snapshot holds no kube-system pods,"
            " so one running elsewhere may be missing from it"
        )
    if finding.cluster_wide:
        return "no pod in the snapshot appears to serve it (a misspelt name, or a scheduler not installed?)"
    return "the snapshot holds no kube-system pods: podwhy cannot tell whether a scheduler serving it runs"
