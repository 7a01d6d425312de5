"""The engine: find the pod, build the scheduler's view, run the profile, summarise."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field

from podwhy.errors import PodwhyError
from podwhy.framework.config import Extender, SchedulerConfig, default_profile
from podwhy.framework.handle import Handle
from podwhy.framework.interface import PostFilterResult
from podwhy.framework.preemption import PreemptionOutcome
from podwhy.framework.profile import DEFAULT_SCHEDULER_NAME, Profile
from podwhy.framework.runner import (
    PRE_FILTER_REACHED_KEY,
    FilterOutcome,
    Framework,
    PreFilterReached,
    fit_error_message,
    pre_filter_reached,
)
from podwhy.framework.scoring import ScoreOutcome, run_scores
from podwhy.framework.status import Code, Status
from podwhy.framework.types import PodInfo, pod_key
from podwhy.heap import gc_paused
from podwhy.model import objects as o
from podwhy.snapshot.cluster import Snapshot

# Verdicts of the report, documented in the README.
SCHEDULABLE = "Schedulable"
UNSCHEDULABLE = "Unschedulable"
GATED = "Gated"
ALREADY_BOUND = "AlreadyBound"
ERROR = "Error"
# Some node passes every plugin podwhy could run, but a plugin needing kinds the snapshot
# lacks was not evaluated: the scheduler might still reject those nodes.
INCONCLUSIVE = "Inconclusive"
# No profile of the configuration has the pod's schedulerName: this scheduler ignores the pod.
NO_PROFILE = "NoProfile"

# numFeasibleNodesToFind's constants (schedule_one.go).
MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


@dataclass
class Sampling:
    """How many feasible nodes kube-scheduler looks for before it stops filtering."""

    percentage_of_nodes_to_score: int | None
    num_nodes: int
    num_feasible_nodes_to_find: int

    @property
    def adaptive_percentage(self) -> int:
        if self.percentage_of_nodes_to_score:
            return self.percentage_of_nodes_to_score
        return max(50 - self.num_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)


def num_feasible_nodes_to_find(percentage: int | None, num_nodes: int, scores: bool) -> int:
    """numFeasibleNodesToFind, plus the one-node shortcut when nothing scores."""
    if not scores:
        return 1
    if num_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_nodes
    pct = percentage or max(50 - num_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    return max(num_nodes * pct // 100, MIN_FEASIBLE_NODES_TO_FIND)


@dataclass
class Explanation:
    pod: PodInfo
    verdict: str
    message: str
    # False while the message lacks the PostFilter part kube-scheduler appends.
    message_complete: bool
    snapshot: Snapshot
    outcome: FilterOutcome | None = None
    gates: list[str] = field(default_factory=list)
    bound_node: str = ""
    warnings: list[str] = field(default_factory=list)
    missing_plugins: list[str] = field(default_factory=list)
    scores: ScoreOutcome | None = None
    # Set when the pod's nominated node passes every filter: the scheduler takes it unscored.
    nominated_node_fits: bool = False
    # What the PostFilter plugins did when no node fits (None: they did not run).
    post_filter: PostFilterOutcome | None = None
    sampling: Sampling | None = None
    # Scheduler extenders of the configuration: podwhy cannot call them.
    extenders: list[str] = field(default_factory=list)


@dataclass
class PostFilterOutcome:
    """RunPostFilterPlugins: each plugin's status, the combined one and the nomination."""

    statuses: list[Status]
    status: Status
    result: PostFilterResult | None
    preemption: PreemptionOutcome | None
    # False when a PostFilter plugin could not be evaluated, so the message lacks its part.
    complete: bool = True
    warnings: list[str] = field(default_factory=list)

    def message(self) -> str:
        return self.status.message()

    @property
    def preemption_message(self) -> str:
        """DefaultPreemption's own message; if it never ran, that of the plugin that stopped the run."""
        if self.preemption is not None:
            return self.preemption.message
        stopped_early = not self.status.is_success() and self.status.code != Code.Unschedulable
        return self.status.message() if stopped_early else ""


def split_pod_ref(ref: str, namespace: str) -> tuple[str, str]:
    if "/" in ref:
        ns, _, name = ref.partition("/")
        if not ns or not name or "/" in name:
            raise PodwhyError(f"invalid pod reference {ref!r}", hint="use NAME or NAMESPACE/NAME")
        return ns, name
    return namespace, ref


def find_pod(snapshot: Snapshot, namespace: str, name: str) -> o.Pod:
    for pod in snapshot.pods:
        if pod.metadata.name == name and pod.metadata.namespace == namespace:
            return pod
    if not snapshot.pods:
        raise PodwhyError(
            f"pod {namespace}/{name} not found: the snapshot holds no pods",
            hint="pass a dump that includes Pods, or the pod itself with -f pod.yaml",
        )
    keys = [pod_key(p) for p in snapshot.pods]
    close = difflib.get_close_matches(f"{namespace}/{name}", keys, n=3, cutoff=0.5)
    if not close:
        same_name = [k for k in keys if k.endswith("/" + name)]
        close = same_name[:3]
    hint = f"closest: {', '.join(close)}" if close else f"the snapshot has {len(keys)} pods, e.g. {', '.join(keys[:3])}"
    raise PodwhyError(f"pod {namespace}/{name} not found in the snapshot", hint=hint)


def no_profile(snapshot: Snapshot, pod: o.Pod, config: SchedulerConfig) -> Explanation:
    """The pod names a scheduler that no profile of the configuration provides."""
    name = pod.spec.scheduler_name or DEFAULT_SCHEDULER_NAME
    names = ", ".join(p.scheduler_name for p in config.profiles)
    message = (
        f"no profile of {config.source} has schedulerName {name!r} (profiles: {names}): this scheduler ignores the pod"
    )
    hint = (
        ""
        if config.source != "the default configuration"
        else " (for a scheduler of its own, pass its configuration with --scheduler-config)"
    )
    return Explanation(
        pod=PodInfo(pod),
        verdict=NO_PROFILE,
        message=message + hint,
        message_complete=True,
        snapshot=snapshot,
    )


def explain(
    snapshot: Snapshot,
    pod: o.Pod,
    profile: Profile | None = None,
    extenders: Sequence[Extender] = (),
    scheduler_names: frozenset[str] | None = None,
) -> Explanation:
    """Explain `pod` under `profile` (default: the default profile). `scheduler_names` are all
    profiles of the scheduler (default: this profile's): whose nominated pods it knows."""
    if not snapshot.nodes:
        raise PodwhyError("the snapshot holds no nodes", hint="pass a dump that includes Nodes")
    profile = profile or default_profile()
    target = PodInfo(pod)
    if pod.spec.node_name:
        return Explanation(
            pod=target,
            verdict=ALREADY_BOUND,
            message="",
            message_complete=True,
            snapshot=snapshot,
            bound_node=pod.spec.node_name,
        )
    with gc_paused():
        handle = Handle(snapshot, scheduler_names or frozenset({profile.scheduler_name}))
    framework = Framework(handle, profile)
    outcome = framework.run_filters(target)
    gates = [g.name for g in pod.spec.scheduling_gates]
    message = ""
    complete = True
    scores: ScoreOutcome | None = None
    post_filter: PostFilterOutcome | None = None
    nominated = pod.status.nominated_node_name
    nominated_fits = bool(nominated) and nominated in outcome.feasible
    if outcome.error is None and outcome.feasible:
        feasible_infos = [handle.node_info_by_name[name] for name in outcome.feasible]
        scores = run_scores(profile, framework.plugins, outcome.state, target, feasible_infos, snapshot.missing)
        if nominated_fits:
            scores.best_nodes = [nominated]
    if outcome.error is not None:
        verdict = ERROR
        message = outcome.error
    elif scores is not None and scores.error is not None and not scores.scoring_skipped and not nominated_fits:
        # Only when the scheduler really scores: with one feasible node (or a fitting
        # nominated node) it never runs Score, so a Score error cannot stop it.
        verdict = ERROR
        message = scores.error
    elif outcome.feasible:
        verdict = INCONCLUSIVE if outcome.not_evaluated else SCHEDULABLE
    else:
        verdict = UNSCHEDULABLE
        message = fit_error_message(outcome, len(handle.node_infos))
        post_filter = run_post_filters(framework, outcome, target)
        complete = post_filter.complete
        # Without every PostFilter plugin's part, keep the filter summary alone rather than a wrong join.
        if complete and post_filter.message():
            message += " " + post_filter.message()
    if gates:
        verdict = GATED
    warnings = []
    if scores is not None and scores.error is not None and verdict != ERROR:
        scores.best_nodes = [nominated] if nominated_fits else list(outcome.feasible)
        warnings.append(f"scoring failed ({scores.error}); the scheduler does not score here, so it is not an error")
    if scores is not None and scores.not_evaluated:
        warnings.append(
            "scores not evaluated (the snapshot lacks kinds they read), counted as 0: "
            + ", ".join(scores.not_evaluated)
        )
    if scores is not None and scores.not_simulated:
        warnings.append("score plugins podwhy does not simulate yet: " + ", ".join(scores.not_simulated))
    if framework.missing_plugins:
        warnings.append("plugins podwhy does not simulate yet: " + ", ".join(framework.missing_plugins))
    if post_filter is not None:
        warnings.extend(post_filter.warnings)
    considered = len(handle.node_infos)
    if outcome.pre_filter_result is not None and outcome.pre_filter_result.node_names is not None:
        considered = len(outcome.pre_filter_result.node_names & handle.node_info_by_name.keys())
    has_scoring = bool(profile.score) or any(e.prioritize_verb for e in extenders)
    has_extender_filters = any(e.filter_verb for e in extenders)
    sampling = Sampling(
        profile.percentage_of_nodes_to_score,
        considered,
        num_feasible_nodes_to_find(
            profile.percentage_of_nodes_to_score, considered, has_scoring or has_extender_filters
        ),
    )
    if len(outcome.feasible) > sampling.num_feasible_nodes_to_find and not nominated_fits:
        warnings.append(
            f"kube-scheduler stops filtering after {sampling.num_feasible_nodes_to_find} feasible node(s) "
            f"(percentageOfNodesToScore {sampling.adaptive_percentage}% of {considered}), starting where its "
            f"previous cycle stopped: it scores a sample of the {len(outcome.feasible)} feasible nodes listed "
            "here, so it may pick another node than bestNodes"
        )
    extender_names = [e.url_prefix for e in extenders]
    if extender_names:
        warnings.append(
            "scheduler extenders are not simulated: "
            + ", ".join(extender_names)
            + " can reject nodes podwhy accepts (a pod that looks schedulable may stay Pending) and change scores"
        )
    return Explanation(
        pod=target,
        verdict=verdict,
        message=message,
        message_complete=complete,
        snapshot=snapshot,
        outcome=outcome,
        gates=gates,
        warnings=warnings,
        missing_plugins=framework.missing_plugins,
        scores=scores,
        nominated_node_fits=nominated_fits,
        post_filter=post_filter,
        sampling=sampling,
        extenders=extender_names,
    )


# ---------------------------------------------------------------------- PostFilter


def run_post_filters(framework: Framework, outcome: FilterOutcome, pod: PodInfo) -> PostFilterOutcome:
    """RunPostFilterPlugins after a FitError: stop at the first Success, Error or unresolvable status,
    otherwise join every plugin's reasons into one Unschedulable status."""
    from podwhy.plugins.defaultpreemption import preemption_outcome

    state = outcome.state
    state.write(PRE_FILTER_REACHED_KEY, PreFilterReached(pre_filter_reached(framework.profile, outcome.pre_filter)))
    node_statuses = {v.name: v.first_failure for v in outcome.nodes if v.first_failure is not None}
    statuses: list[Status] = []
    reasons: list[str] = []
    rejector = ""
    result: PostFilterResult | None = None
    complete = True
    warnings: list[str] = []
    final: Status | None = None
    for name in framework.profile.post_filter:
        plugin = framework.plugins.get(name)
        if name in outcome.not_evaluated:
            # Its verdict depends on objects the snapshot lacks: the message cannot be completed.
            complete = False
            warnings.append(f"PostFilter {name} {outcome.not_evaluated[name]}")
            continue
        if plugin is None or not plugin.implements("post_filter"):
            complete = False
            continue
        r, st = plugin.post_filter(state, pod, node_statuses)
        st.plugin = name
        statuses.append(st)
        if st.is_success() or st.code == Code.UnschedulableAndUnresolvable:
            final, result = st, r
            break
        if not st.is_rejected():
            final, result = Status(Code.Error, list(st.reasons), name), None
            break
        if r is not None and r.nominated_node_name is not None:
            result = r
        reasons.extend(st.reasons)
        rejector = rejector or name
    if final is None:
        final = Status(Code.Unschedulable, reasons, rejector)
    preemption = preemption_outcome(state)
    pdbs_unknown = "PodDisruptionBudget" in framework.handle.snapshot.missing_kinds
    if preemption is not None and preemption.dry_run and pdbs_unknown:
        warnings.append(
            "the snapshot has no PodDisruptionBudgets: the preemption dry run assumed none, "
            "so it may pick victims whose eviction a budget would forbid"
        )
    return PostFilterOutcome(statuses, final, result, preemption, complete, warnings)
