"""Suggestions in words: analysis/suggest/facts.py's changes said as a suggestion's summary, and the
notes on what a bound or a rule kept the suggestions from (how sizing went: sizing.py)."""

from __future__ import annotations

from collections.abc import Sequence

from podwhy.analysis.autoscaling.facts import CAPI_MAX_SIZE_ANNOTATION, GroupOutcome, Reason
from podwhy.analysis.suggest.facts import (
    AddNode,
    AddNodePoolZone,
    AddNodesForGroup,
    AddToleration,
    AffinityAsks,
    Asks,
    AwaitPreemption,
    Change,
    Command,
    CommandNote,
    CronJobRecreated,
    DropAntiAffinity,
    DropNodeSelection,
    EvictPods,
    FitsThen,
    GroupNeeds,
    InAutoscalerGroup,
    InNoGroup,
    JobRecreated,
    LabelNode,
    LabelReplaced,
    LowerRequest,
    ManifestEdit,
    ManifestOnStdin,
    NoAutoscalerKnown,
    NodeAdder,
    NotChecked,
    PodAffinityNamespace,
    PodAffinityValue,
    RaiseGroupMaxSize,
    RaiseNodePoolLimit,
    RelaxTopologySpread,
    ReleaseNomination,
    RenameResource,
    RenameTopologyKey,
    ReservedFor,
    ReservingTaint,
    ScaleNodeGroup,
    SelectorAsks,
    SetGroupMaxSize,
    StartupPods,
    StatefulSetHold,
    StatefulSetReplaced,
    StatusPatch,
    StaysPending,
    Suggestion,
    TemplateNotRolledOut,
    ThenVerdict,
    ThroughEvictionApi,
)
from podwhy.analysis.suggest.notes import (
    ConditionTaints,
    GroupNotSized,
    NoAffinityFix,
    NoResourceFix,
    Note,
    NoTopologyKeyFix,
    PlatformSelection,
    SuggestionsBound,
)
from podwhy.analysis.suggest.policyfacts import SatisfyPolicy
from podwhy.report.words.meanings import condition_text, label_text, reserving_text
from podwhy.report.words.sizing import more_nodes_text, sizing_text
from podwhy.report.words.suggestpolicy import satisfy_policy_text

# Nodes (and label values) named before "and N more"; workloads named in a summary (who selects
# on a label, who is on reserved nodes).
MAX_NODES_NAMED = 3
MAX_NAMES_SELECTING = 3

# What recreates a pod evicted from its node, per owner kind (others: "its <Kind>").
RECREATED_BY = {
    "DaemonSet": "its DaemonSet {name} recreates it on the same node",
    "Job": "its Job {name} creates a new pod",
    "CronJob": "its Job (of CronJob {name}) creates a new pod",
}


def nodes_text(nodes: Sequence[str], limit: int = MAX_NODES_NAMED) -> str:
    shown = ", ".join(nodes[:limit])
    return shown + (f" and {len(nodes) - limit} more" if len(nodes) > limit else "")


def _values_text(values: Sequence[str]) -> str:
    return nodes_text(values) if values else "none"


def _named(names: Sequence[str], sep: str) -> str:
    more = f" and {len(names) - MAX_NAMES_SELECTING} more" if len(names) > MAX_NAMES_SELECTING else ""
    return sep.join(names[:MAX_NAMES_SELECTING]) + more


def pods_text(count: int, owner: str | None) -> str:
    return f"{count} pod{'s' if count != 1 else ''}" + (f" of {owner}" if owner else "")


def _counted(count: int, what: str) -> str:
    return f"{count} {what} pod{'s' if count != 1 else ''}"


def startup_text(startup: StartupPods, node: str) -> str:
    """What a copy of the node holds."""
    parts = [_counted(n, what) for n, what in ((startup.daemonsets, "DaemonSet"), (startup.static, "static")) if n]
    if not parts:
        return "same labels, taints and allocatable; no pods yet"
    return f"same labels, taints and allocatable, with the {' and '.join(parts)} node {node} runs"


def _asks(asks: Asks) -> str:
    match asks:
        case SelectorAsks(key, value):
            return f"nodeSelector asks for {key}={value}"
        case AffinityAsks(key, values, term):
            which = f" (term {term})" if term is not None else ""
            return f"required node affinity{which} asks for {key} in [{', '.join(values)}]"


def _taints(change: AddToleration) -> str:
    return ", ".join(f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}" for t in change.taints)


def _reserved_for(reserved: ReservedFor) -> str:
    whom = [
        reserving_text(w.whom) if isinstance(w, ReservingTaint) else f"the workloads that tolerate {w.key}"
        for w in reserved.whom
    ]
    already = f" (already there: {_named(reserved.already, ', ')})" if reserved.already else ""
    return " and ".join(whom) + already


def _replaced(node: str, key: str, replaced: LabelReplaced) -> str:
    label = f"{key}={replaced.old}"
    if not replaced.selecting:
        return f"; it replaces {label}, on which no pod of the snapshot selects"
    selecting = [
        s.workload + (f": its pod on {node} would be removed" if s.pod_removed else "") for s in replaced.selecting
    ]
    return f"; it replaces {label}, on which these select: {_named(selecting, '; ')}"


def _afterwards(change: EvictPods | AwaitPreemption) -> str:
    """One line per evicted pod ("\n· pod: what recreates it; where the new pod fits then")."""
    said: list[str] = []
    for after in change.afterwards:
        if after.recreated_by is None:
            said.append(f"{after.pod}: a bare pod, nothing recreates it: gone for good")
            continue
        kind, name = after.recreated_by.kind, after.recreated_by.name
        recreated = RECREATED_BY.get(kind, "its {kind} {name} creates a new pod").format(kind=kind, name=name)
        match after.fate:
            case NotChecked() | None:
                fate = "where that fits was not checked (the suggestions' bound)"
            case FitsThen(nodes, back):
                count = len(nodes)
                fate = f"it fits on {count} node{'s' if count != 1 else ''}" + (
                    f" ({change.node} again)" if back else ""
                )
            case StaysPending():
                fate = "no node fits it then: it stays Pending"
            case ThenVerdict(verdict):
                fate = f"it is then {verdict}"
        said.append(f"{after.pod}: {recreated}; {fate}")
    return "".join(f"\n· {line}" for line in said)


def _release(change: ReleaseNomination, feasible: Sequence[str]) -> str:
    node, released = change.node, change.released
    pods = ", ".join(f"{r.pod} (priority {r.priority})" for r in released)
    fits = f"the pod then fits on {nodes_text(feasible)}"
    if all(r.stale for r in released):
        one = len(released) == 1
        return (
            f"release the stale nomination of {pods} to node {node}, the likely root cause: {node} no longer "
            f"fits {'it' if one else 'them'} and nothing {'it' if one else 'they'} "
            f"preempted is still leaving, yet the room stays reserved; {fits} (kube-scheduler also clears or "
            "moves a nomination when it next retries that pod)"
        )
    waiting = [f"{r.pod} waits for {r.terminating} preempted pod(s) to terminate" for r in released if r.terminating]
    return (
        f"release the room reserved on node {node} by nominated pod(s) {pods}"
        + (f" ({'; '.join(waiting)})" if waiting else "")
        + f": {fits}, but a pod that loses its nomination must preempt again to get room back"
    )


def _needs(needs: GroupNeeds | None) -> str:
    if needs is None:
        return "the pod fits a new node of it"
    count = needs.count
    owner = f" of {needs.owner}" if needs.owner else ""
    return f"{needs.pods} pods{owner} need {count} more node{'s' if count != 1 else ''} of it"


# Changes to the pod's spec, and changes to the cluster around it (its nodes, pods, autoscalers).
_PodChange = (
    LowerRequest
    | AddToleration
    | DropNodeSelection
    | RelaxTopologySpread
    | RenameTopologyKey
    | RenameResource
    | PodAffinityNamespace
    | PodAffinityValue
    | DropAntiAffinity
)
_ClusterChange = (
    LabelNode
    | AddNode
    | AddNodesForGroup
    | EvictPods
    | AwaitPreemption
    | ReleaseNomination
    | RaiseGroupMaxSize
    | AddNodePoolZone
    | RaiseNodePoolLimit
)


def change_text(change: Change, feasible: Sequence[str]) -> str:
    """The summary of a change; `feasible`: the nodes the pod then fits on."""
    if isinstance(change, SatisfyPolicy):
        return satisfy_policy_text(change, feasible)
    if isinstance(change, _PodChange):
        return _pod_change_text(change, feasible)
    return _cluster_change_text(change, feasible)


def _pod_change_text(change: _PodChange, feasible: Sequence[str]) -> str:
    """The summary of a change to the pod's spec."""
    match change:
        case LowerRequest(cuts):
            said = [
                f"pod-level {c.resource} request to {c.to}"
                if c.container is None
                else f"{c.resource} request of container {c.container} to {c.to}"
                for c in cuts
            ]
            return f"lower the {', '.join(said)}: it then fits on {nodes_text(feasible)}"
        case AddToleration(_, reserved):
            fits = f"the pod then fits on {nodes_text(feasible)}"
            if reserved is None:
                return f"tolerate the taint {_taints(change)}: {fits}"
            return (
                f"last resort: tolerate the taint {_taints(change)}, which puts this workload on nodes reserved for "
                f"{_reserved_for(reserved)}; {fits}"
            )
        case DropNodeSelection(asks, have, well_known):
            key = asks.key
            return (
                f"the pod's {_asks(asks)}, which no node has (nodes have {key} {_values_text(have)}): drop the "
                f"requirement from the pod, or change it to a value a node has; without it the pod fits on "
                f"{nodes_text(feasible)} (no node is relabelled with {key}: {label_text(well_known)})"
            )
        case RelaxTopologySpread(key, max_skew):
            setting = (
                f"maxSkew to {max_skew}"
                if max_skew is not None
                else "whenUnsatisfiable to ScheduleAnyway (a preference, no longer a rule)"
            )
            return f"relax the topology spread constraint on {key}: set {setting}"
        case RenameTopologyKey(index, key, to):
            return (
                f"use the node label {to} as topologySpreadConstraints[{index}].topologyKey: no node has the "
                f"label {key} it names"
            )
        case RenameResource(resource, to):
            return f"request {to} instead of {resource}: nodes advertise {to}, no node advertises {resource}"
        case PodAffinityNamespace(index, namespaces):
            return (
                f"look for the pods of required pod affinity term #{index} in namespace"
                f"{'s' if len(namespaces) != 1 else ''} {', '.join(namespaces)} too: the pods it selects run there"
            )
        case PodAffinityValue(index, key, value, to):
            return (
                f"select {key}={to} in required pod affinity term #{index}: no pod has {key}={value}, pods in its "
                f"namespace have {key}={to}"
            )
        case DropAntiAffinity(index, key):
            return f"drop the required pod anti-affinity term #{index} (topologyKey {key}) or make it preferred"


def _cluster_change_text(change: _ClusterChange, feasible: Sequence[str]) -> str:
    """The summary of a change to the cluster around the pod."""
    match change:
        case LabelNode(node, key, value, away, replaced):
            others = f" ({len(away)} nodes are one label away: {nodes_text(away)})" if len(away) > 1 else ""
            return f"label node {node} with {key}={value}, which the pod's node selection requires{others}" + (
                _replaced(node, key, replaced) if replaced is not None else ""
            )
        case AddNode(like, startup, adder):
            return f"add 1 node shaped like {like} ({startup_text(startup, like)}): the pod fits on it" + adder_text(
                adder, 1
            )
        case AddNodesForGroup(pods, owner, count, like, startup, adder):
            need = "needs" if pods == 1 else "need"
            return (
                f"{pods_text(pods, owner)} {need} {more_nodes_text(count)} shaped like {like} "
                f"({startup_text(startup, like)}): placed one after another as the scheduler would, "
                f"{'it fits' if pods == 1 else 'all of them fit'}"
            ) + adder_text(adder, count)
        case EvictPods(node, victims, budgets_unknown):
            budgets = (
                "the snapshot has no PodDisruptionBudgets: the Eviction API refuses an eviction one forbids"
                if budgets_unknown
                else "no PodDisruptionBudget is broken"
            )
            evict = f"evict {len(victims)} lower-priority pod(s) from node {node}; {budgets}"
            if change.last_resort:
                evict = f"last resort (a replacement then stays Pending): {evict}"
            return f"{evict}; afterwards:{_afterwards(change)}"
        case AwaitPreemption(node, victims):
            count = len(victims)
            return (
                f"no action needed: the scheduler preempts {count} lower-priority pod{'s' if count != 1 else ''} "
                f"on node {node} and binds the pod there; evicted:{_afterwards(change)}"
            )
        case ReleaseNomination():
            return _release(change, feasible)
        case RaiseGroupMaxSize(group, current, wanted, needs, example, target):
            return (
                f"raise node group {group}'s max size from {current} to {wanted}: {_needs(needs)} (a copy of "
                f"{example}, as Cluster Autoscaler builds its template), and it is at {target}/{current}"
            )
        case AddNodePoolZone(pool, zone):
            return (
                f"add zone {zone} to NodePool {pool}'s requirements: the pod needs it (its node selection or its "
                f"volume's zone), and the pool then admits the pod (whether the cloud offers instances there is the "
                f"cloud provider's)"
            )
        case RaiseNodePoolLimit(pool, resource, limit, value, used):
            return (
                f"raise NodePool {pool}'s {resource} limit from {limit} to {value}: {used} is in use, and the pod "
                f"needs room for its own request"
            )


def suggestion_text(suggestion: Suggestion) -> str:
    text = change_text(suggestion.change, suggestion.nodes)
    if suggestion.redacted:
        # A merge patch writes lists whole: from a redacted dump it would write "<redacted>" back,
        # and lack what --redact dropped.
        text += (
            " (the snapshot is redacted: the pod's merge patch lacks what --redact removed; run the command instead)"
        )
    return text


def adder_text(adder: NodeAdder | None, count: int) -> str:
    """Who would add the nodes: the one verdict of their autoscaler group, or that none is known."""
    them = "it" if count == 1 else "them"
    match adder:
        case None:
            return ""
        case NoAutoscalerKnown(vouched):
            return f"; {'the cluster runs no autoscaler' if vouched else 'no autoscaler is known'}: add {them} by hand"
        case InNoGroup(autoscalers):
            return f"; it is in no node group of {', '.join(autoscalers)}: add {them} by hand"
        case InAutoscalerGroup(autoscaler, group, GroupOutcome.CAN_ADD):
            return f"; {autoscaler} can add {them} to its group {group}"
        case InAutoscalerGroup(autoscaler, group, _, Reason.GROUP_AT_MAX_SIZE, size):
            at = f" ({size}/{size})" if size is not None else ""
            return f"; its group {group} is at its max size{at}: {autoscaler} adds {them} once that is raised"
        case InAutoscalerGroup(autoscaler, group):
            return f"; {autoscaler} adds none to its group {group} for this pod now (Autoscaling says why)"


# What keeps a StatefulSet from replacing a Pending pod until it is deleted.
_HELD = {
    StatefulSetHold.UNKNOWN: "the snapshot lacks the StatefulSet; with the default podManagementPolicy OrderedReady",
    StatefulSetHold.ON_DELETE: "updateStrategy OnDelete:",
    StatefulSetHold.ORDERED_READY: "podManagementPolicy OrderedReady:",
}


def _max_size_field(group: str) -> str:
    """Where a node group's max size is set, by how the provider names its groups."""
    if group.startswith(("MachineDeployment/", "MachineSet/", "MachinePool/")):
        return f"the {CAPI_MAX_SIZE_ANNOTATION} annotation of the {group.split('/')[0]}"
    if "/instanceGroups/" in group:
        return "the GKE node pool's autoscaling maximum (or the MIG's --max-nodes in CA's --nodes flag)"
    if group.endswith("-vmss"):
        return "the AKS node pool's --max-count (or the VMSS's max in CA's --nodes flag)"
    if group.startswith("eks-"):
        return "the EKS managed node group's scalingConfig.maxSize (its Auto Scaling group's MaxSize)"
    return "the group's maximum in the cloud (the Auto Scaling group's MaxSize, or CA's --nodes flag)"


def _scale_text(like: str, count: int, adder: NodeAdder | None) -> str:
    """What to do instead of a command for COUNT nodes like LIKE, by its group's one verdict (a node
    group's size is cloud configuration, never an invented command)."""
    nodes = "a node" if count == 1 else f"{count} nodes"
    scale = f"scale the node group of {like} up by {count}"
    match adder:
        case None:
            return scale
        case NoAutoscalerKnown():
            return f"{scale} (by hand: no autoscaler is known to add {nodes} like it)"
        case InNoGroup(autoscalers):
            return f"add {nodes} like {like} (by hand: it is in no node group of {', '.join(autoscalers)})"
        case InAutoscalerGroup(autoscaler, group, GroupOutcome.CAN_ADD):
            return f"nothing to run: {autoscaler} can add {nodes} like {like} to its group {group}"
        case InAutoscalerGroup(autoscaler, group, _, Reason.GROUP_AT_MAX_SIZE, size):
            at = f" ({size})" if size is not None else ""
            return f"raise the max size of {group}{at} first: {autoscaler} adds no node to it before"
        case InAutoscalerGroup(autoscaler, group):
            return f"{scale} (its group {group}: {autoscaler} adds none for this pod now)"


def _stateful_set_text(note: StatefulSetReplaced) -> str:
    said = []
    if note.lowest is not None:
        said.append(
            f"the partition ({note.partition}) is lowered to {note.lowest}: ordinals below it keep the old template"
        )
    if note.held is not None:
        said.append(
            f"{_HELD[note.held]} the StatefulSet replaces a Pending pod only once it is deleted (after the patch)"
        )
    return "; ".join(said)


def command_note_text(note: CommandNote) -> str:
    """Why a command is shaped so, or what to do when there is none to run."""
    match note:
        case TemplateNotRolledOut(kind):
            return (
                f"a {kind} does not replace its pods when its template changes: the deleted ones are recreated from it"
            )
        case ManifestOnStdin():
            return "the manifest on stdin, as podwhy read it"
        case JobRecreated():
            return "a Job's pod template cannot change: the Job is deleted and created again (its pods start over)"
        case CronJobRecreated():
            return (
                "the CronJob's next Jobs get the change; its running Job, whose pod template cannot change, is "
                "recreated from it (its pods start over)"
            )
        case StatefulSetReplaced():
            return _stateful_set_text(note)
        case ThroughEvictionApi():
            return "the Eviction API, which refuses what a PodDisruptionBudget forbids (kubectl delete pod would not)"
        case StatusPatch():
            return "kubectl 1.24+; needs patch on pods/status"
        case ScaleNodeGroup(like, count, adder):
            return _scale_text(like, count, adder)
        case SetGroupMaxSize(group, wanted):
            return f"set {_max_size_field(group)} to {wanted} (cloud configuration: podwhy cannot change it)"
        case ManifestEdit(path):
            return f"change the Pod in {path}, then apply it"


def command_text(command: Command) -> str:
    """The command to copy, whole: its line, then what podwhy says of it as a shell comment (the
    comment alone when there is no line to run; "" for neither)."""
    note = command_note_text(command.note) if command.note is not None else ""
    if not note:
        return command.line
    return f"{command.line}  # {note}" if command.line else f"# {note}"


def note_text(note: Note) -> str:
    """What a bound or a rule kept the suggestions from, said among the report's warnings."""
    match note:
        case ConditionTaints(taints, names):
            said = ", ".join(f"{key} ({condition_text(why)})" for key, why in taints)
            many = len(names) > 1
            nodes, their = (
                (f"{len(names)} nodes ({nodes_text(names)})", "their") if many else (f"node {names[0]}", "its")
            )
            return (
                f"{nodes} would take the pod but for {their} taint {said}: the node's condition is the cause, not the "
                "pod; tolerating such a taint is never suggested"
            )
        case PlatformSelection(asks, have):
            return (
                f"the pod's {_asks(asks)}, which no node has (nodes have {asks.key} {_values_text(have)}): it "
                "needs a node of that platform; dropping the requirement is not suggested, as its images are "
                "built for it"
            )
        case NoTopologyKeyFix(index, key, similar):
            tried = f"; none of the keys like it ({', '.join(similar)}) makes the pod fit" if similar else ""
            return (
                f"no node has the label {key} that topologySpreadConstraints[{index}].topologyKey names{tried}: "
                "label the nodes with it or name a key they have; nothing to suggest"
            )
        case NoResourceFix(resource, similar):
            tried = f"; requesting {', '.join(similar)} instead does not make the pod fit" if similar else ""
            return (
                f"no node advertises {resource}{tried}: a node with the device must run its device plugin, "
                "which advertises it; nothing to suggest"
            )
        case NoAffinityFix(index, selector, namespaces):
            where = f"namespace{'s' if len(namespaces) != 1 else ''} {', '.join(namespaces)}"
            return (
                f"no pod in {where} matches {selector}, which required pod affinity term #{index} selects, and no "
                "other namespace or label value like it makes the pod fit: start the pod it must run beside "
                "first, or make the term preferred; nothing to suggest"
            )
        case GroupNotSized(pods, owner, why):
            said = (
                f"not sized, the suggestions' bound ({why.reruns} re-runs, {why.seconds:.0f} s) was reached first"
                if isinstance(why, SuggestionsBound)
                else sizing_text(why)
            )
            return f"{pods_text(pods, owner)}, the pod's pending group: {said}"
