"""The autoscaling section in words: analysis.autoscaling decides, this module says it."""

from __future__ import annotations

from podwhy.analysis.autoscaling.facts import (
    EXPENDABLE_PRIORITY_CUTOFF,
    NOMINATED,
    SCALE_UP_DELAY_ANNOTATION,
    TRIGGERED_SCALE_UP,
    AnyGroupFinding,
    AutoscalingAnalysis,
    ComingEvidence,
    ComingNode,
    GroupAtMaxSize,
    GroupBackoff,
    GroupUnhealthy,
    LimitsReached,
    NodeClaimProgress,
    NodePoolNotReady,
    NodePoolStatic,
    NoTemplateNode,
    PodDoesNotFitNewNode,
    PodExclusion,
    PoolAdmits,
    RequirementsExcludePod,
    ScaleUpTriggered,
    StatusUnknown,
    TaintNotTolerated,
    TemplateFits,
)
from podwhy.snapshot.resources import FORBIDDEN, SNAPSHOT_COMMAND

# How podwhy asks for the autoscaler kinds a dump lacks.
# The command that dumps each autoscaler kind (the renderers print a backquoted command whole).
_DUMP_COMMANDS = {
    "ConfigMap": "kubectl get configmap -n kube-system cluster-autoscaler-status -o yaml",
    "NodePool": "kubectl get nodepools.karpenter.sh,nodeclaims.karpenter.sh -o yaml",
    "NodeClaim": "kubectl get nodepools.karpenter.sh,nodeclaims.karpenter.sh -o yaml",
}


def autoscaler_dump_hint(kinds: list[str]) -> str:
    """How to add the autoscaler KINDS the dump lacks: only their commands, never one for what it holds."""
    commands = dict.fromkeys(_DUMP_COMMANDS[kind] for kind in kinds if kind in _DUMP_COMMANDS)
    said = ", ".join(f"`{command}`" for command in commands)
    return f"add them to the dump: {said}; or take the whole cluster: `{SNAPSHOT_COMMAND}`"


# How podwhy asks for what the API server forbade it to read (deploy/rbac.yaml's roles, bound):
# a dump would not help, the permission would.
RBAC_HINTS = {
    "ConfigMap": "bind the Role podwhy-autoscaler-status of podwhy's deploy/rbac.yaml: kubectl create rolebinding "
    "podwhy -n kube-system --role podwhy-autoscaler-status --user <you>",
    "NodePool": "bind the ClusterRole podwhy-reader of podwhy's deploy/rbac.yaml: kubectl create clusterrolebinding "
    "podwhy --clusterrole podwhy-reader --user <you>",
}
RBAC_HINTS["NodeClaim"] = RBAC_HINTS["NodePool"]
_KIND_WORDS = {"ConfigMap": "Cluster Autoscaler's status ConfigMap", "NodePool": "NodePools", "NodeClaim": "NodeClaims"}
# Events that say a node is coming; the others say none is.
COMING_EVENTS = frozenset({TRIGGERED_SCALE_UP, NOMINATED})


def _minutes(seconds: int) -> str:
    if seconds < 90:
        return f"{seconds}s"
    return f"{round(seconds / 60)} min"


def evidence_text(evidence: ComingEvidence) -> str:
    """What says a node is coming: Cluster Autoscaler's event, or the state of Karpenter's NodeClaim."""
    match evidence:
        case ScaleUpTriggered(message):
            return f"{TRIGGERED_SCALE_UP}: {message}"
        case NodeClaimProgress(claim, launched, reason, message):
            if launched:
                return f"NodeClaim {claim} launched, waiting for its node to register and initialize"
            state = "launching"
            if reason:
                state += f" ({reason}: {message})" if message else f" ({reason})"
            return f"NodeClaim {claim} {state}"


def coming_text(coming: ComingNode) -> str:
    group = f" of {coming.group}" if coming.group else ""
    text = f"{coming.autoscaler} is adding a node{group}: {evidence_text(coming.evidence)}"
    if coming.age_seconds is not None:
        text += f"; started {_minutes(coming.age_seconds)} before the snapshot's newest record"
    if coming.timeout_seconds is not None:
        text += f", held to a {_minutes(coming.timeout_seconds)} timeout"
        if coming.overdue:
            text += " (overdue: it should have arrived by now)"
    return text


def finding_text(finding: AnyGroupFinding) -> str:
    match finding:
        case TemplateFits(example=example):
            copy = f" (a copy of {example}, as {finding.autoscaler} builds its template)" if example else ""
            return f"the pod fits a new node of it{copy}, and it can grow ({_sizes(finding)})"
        case PoolAdmits():
            return (
                "its requirements, taints and limits admit the pod; whether an instance type offers it is the cloud "
                "provider's"
            )
        case GroupUnhealthy():
            return f"the group is unhealthy: {finding.autoscaler} does not scale it up ({_sizes(finding)})"
        case GroupBackoff(error_code=code, error_message=message):
            return f"in backoff after a failed scale-up{f' {code}' if code else ''}{f': {message}' if message else ''}"
        case GroupAtMaxSize(fits_new_node=fits, target=target, max_size=max_size):
            after = {
                True: "; the pod would fit a new node of it",
                False: "; the pod would not fit a new node of it anyway",
            }
            return f"at its max size ({target}/{max_size}){after[fits] if fits is not None else ''}"
        case PodDoesNotFitNewNode(example=example, plugin=plugin, reasons=reasons):
            said = (f"{plugin}: " if plugin else "") + ("; ".join(reasons) or "rejected")
            return f"the pod would not fit even on a new node of it (a copy of {example}): {said}"
        case NoTemplateNode():
            return (
                "no node of it is in the snapshot to build its template from (a group scaled to zero: the cloud "
                "provider's template is not in a snapshot)"
            )
        case NodePoolStatic(replicas=replicas):
            return f"a static NodePool ({replicas} replicas): Karpenter launches no node for pending pods"
        case NodePoolNotReady(condition_reason=reason, condition_message=message):
            return f"the NodePool is not Ready ({reason}: {message})"
        case TaintNotTolerated(taint=taint):
            return f"the pod does not tolerate its taint {taint}"
        case RequirementsExcludePod(detail=detail):
            return f"its requirements exclude the pod: {detail}"
        case LimitsReached(resource=resource, limit=limit, used=used):
            return f"its limits leave less than the pod needs: {resource} limit {limit}, {used} in use"


def _sizes(finding: TemplateFits | GroupUnhealthy) -> str:
    sizes = (
        ("ready", finding.ready),
        ("target", finding.target),
        ("minSize", finding.min_size),
        ("maxSize", finding.max_size),
    )
    return ", ".join(f"{name}={size}" for name, size in sizes if size is not None) or "sizes unknown"


def _excluded_by(exclusion: PodExclusion, particular: str | int) -> str:
    if exclusion is PodExclusion.SCALE_UP_DELAYED:
        return f"{SCALE_UP_DELAY_ANNOTATION}: {particular}, and it is younger"
    if exclusion is PodExclusion.EXPENDABLE:
        return f"priority {particular} is below the cutoff {EXPENDABLE_PRIORITY_CUTOFF}"
    if exclusion is PodExclusion.NOMINATED:
        return f"nominated to node {particular}"
    return f"owned by its {particular}"


def _not_evaluated(why: StatusUnknown) -> str:
    if why.error:
        return f"its status could not be read: {why.error}"
    return "the snapshot holds no status ConfigMap of it (kube-system/cluster-autoscaler-status)"


_EXCLUSION = {
    PodExclusion.EXPENDABLE: "Cluster Autoscaler never scales up for pods below its expendable priority cutoff",
    PodExclusion.SCALE_UP_DELAYED: "Cluster Autoscaler leaves the pod alone until it is older than its scale-up delay",
    PodExclusion.NOMINATED: "the pod waits for preemption victims to go: no autoscaler adds a node for it",
    PodExclusion.DAEMON_OR_STATIC: "Karpenter provisions no node for DaemonSet or static pods",
}


def excluded_texts(analysis: AutoscalingAnalysis) -> list[str]:
    """Why an autoscaler does not act for the pod at all: each view's exclusion, then the cluster-wide
    limits an autoscaler says are reached."""
    excluded = [
        f"{_EXCLUSION[v.excluded]} ({_excluded_by(v.excluded, v.excluded_by)})"
        for v in analysis.views
        if v.excluded is not None
    ]
    excluded += [
        f"{v.autoscaler} says a cluster-wide limit is reached: {v.cluster_limit} (its flags --max-nodes-total, "
        "--cores-total, --memory-total; they are in no snapshot)"
        for v in analysis.views
        if v.cluster_limit
    ]
    return excluded


def not_evaluated_texts(analysis: AutoscalingAnalysis) -> list[str]:
    """What podwhy could not evaluate of the autoscalers: each view's unknown status, the kinds the
    API server forbade it to read (and the permission that would help), the kinds the snapshot lacks."""
    not_evaluated = [f"{v.autoscaler}: {_not_evaluated(why)}" for v in analysis.views for why in v.not_evaluated]
    forbidden = {kind: why for kind, why in analysis.missing_kinds.items() if why.endswith(FORBIDDEN)}
    for kind, why in forbidden.items():
        not_evaluated.append(f"{_KIND_WORDS.get(kind, kind)} could not be read ({why}): {RBAC_HINTS[kind]}")
    lacking = {kind: why for kind, why in analysis.missing_kinds.items() if kind not in forbidden}
    if lacking:
        kinds = ", ".join(_KIND_WORDS.get(kind, kind) + (f" ({why})" if why else "") for kind, why in lacking.items())
        # Without any autoscaler seen the summary says what the snapshot cannot vouch for: only how to add it.
        not_evaluated.append(
            f"the snapshot cannot vouch for {kinds}: {autoscaler_dump_hint(list(lacking))}"
            if analysis.views
            else autoscaler_dump_hint(list(lacking))
        )
    return not_evaluated


# The autoscaling summary's words, by status (the builder decides which applies).
NO_AUTOSCALER_TEXT = "no autoscaler: the snapshot shows no Cluster Autoscaler status and no NodePools"
NONE_SEEN_TEXT = (
    "not evaluated: the snapshot holds no Cluster Autoscaler status, NodePools or NodeClaims, and cannot "
    "vouch that the cluster has none"
)
ALL_RULED_OUT_TEXT = "no node is coming: every node group is ruled out (below, the first reason of each)"


def can_add_text(groups: list[tuple[str, str]]) -> str:
    """No node is coming, yet these (group, autoscaler) could add one the pod fits on."""
    names = ", ".join(f"{group} ({autoscaler})" for group, autoscaler in groups)
    return f"no node is coming, yet {names} could add one the pod fits on"


def unknown_text(not_evaluated: list[str]) -> str:
    """No node is coming as far as the snapshot shows, and what was not evaluated."""
    return "no node is coming as far as the snapshot shows; " + "; ".join(not_evaluated)
