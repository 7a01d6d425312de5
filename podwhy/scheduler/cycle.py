"""One scheduling cycle for one pod, as schedule_one.go runs it, returning a typed outcome.

Filters (every plugin on every node, with upstream's first failure), then either the Score
plugins over the feasible nodes or the PostFilter plugins when none is feasible. The outcome
holds facts only; the report words them for people.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from podwhy.framework.handle import indexed
from podwhy.framework.notevaluated import ADMISSION_UNKNOWNS, ROOM_UNKNOWNS, NotEvaluated, merged, not_evaluated
from podwhy.framework.outcome import FilterOutcome, NodeVerdict, PostFilterOutcome, Reuse, fit_error_message
from podwhy.framework.profile import Profile
from podwhy.framework.runtime import Framework
from podwhy.framework.scoring import ScoreOutcome, run_scores
from podwhy.framework.types import PodInfo
from podwhy.heap import gc_deferred, gc_paused
from podwhy.model import objects as o
from podwhy.model.records import replace
from podwhy.model.wellknownnames import DEFAULT_SCHEDULER_NAME
from podwhy.plugins.registry import PLUGINS
from podwhy.scheduler.config import Extender, SchedulerConfig, default_profile
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict

# numFeasibleNodesToFind's constants (schedule_one.go).
MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


class Sampling(msgspec.Struct):
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


class CycleOutcome(msgspec.Struct):
    pod: PodInfo
    verdict: Verdict
    # The scheduler's FailedScheduling message ("" when the pod fits), or the error.
    message: str
    # False while the message lacks the PostFilter part kube-scheduler appends.
    message_complete: bool = True
    outcome: FilterOutcome | None = None
    gates: list[str] = msgspec.field(default_factory=list)
    bound_node: str = ""
    # Plugins of the profile podwhy does not implement.
    missing_plugins: list[str] = msgspec.field(default_factory=list)
    scores: ScoreOutcome | None = None
    # A Score plugin failed where the scheduler does not score (one feasible node, or the nominated node fits).
    ignored_score_error: str | None = None
    # Set when the pod's nominated node passes every filter: the scheduler takes it unscored.
    nominated_node_fits: bool = False
    # What the PostFilter plugins did when no node fits (None: they did not run).
    post_filter: PostFilterOutcome | None = None
    sampling: Sampling | None = None
    # Scheduler extenders of the configuration: podwhy cannot call them.
    extenders: list[str] = msgspec.field(default_factory=list)
    # For NoProfile: the schedulerName asked for, the profiles there are, and where they come from.
    scheduler_name: str = ""
    profiles: list[str] = msgspec.field(default_factory=list)
    config_source: str = ""
    # Kinds the snapshot holds no object of, and cannot vouch for, that left a plugin not
    # evaluated for this pod or the preemption dry run assuming none (say how to add them).
    lacking_kinds: list[str] = msgspec.field(default_factory=list)
    # The Filter plugins not evaluated (for want of kinds, or on some feasible node: device
    # selectors podwhy cannot evaluate) and why, or, for a pod that fits with every plugin evaluated,
    # what admission or the cluster's pods leave unknown of the fit (None: nothing was left).
    not_evaluated: NotEvaluated | None = None
    # Kinds admission needed that the snapshot cannot vouch for (LimitRange, ResourceQuota): a fit
    # is then Inconclusive for what admission might do, not for any plugin.
    fit_unknown: frozenset[str] = frozenset()


def make_framework(snapshot: Snapshot, profile: Profile, scheduler_names: frozenset[str] | None = None) -> Framework:
    """The profile over the snapshot, its indexes built once; it can schedule many pods in turn."""
    with gc_paused():
        handle = indexed(snapshot, scheduler_names or frozenset({profile.scheduler_name}), profile.emulation)
    return Framework(handle, profile, PLUGINS)


def framework_for_release(base: Framework, profile: Profile) -> Framework:
    """PROFILE, of another release, over the snapshot BASE indexes, sharing its node indexes
    (Handle.for_release) instead of indexing every pod again; the snapshot's pods must be as they
    were when BASE was made."""
    return Framework(base.handle.for_release(profile.emulation), profile, PLUGINS)


class CycleOptions(msgspec.Struct, frozen=True):
    """How much of the cycle to run. The named modes below are what podwhy asks."""

    # Score the feasible nodes (without: where the pod goes is not asked).
    scoring: bool = True
    # Run every filter plugin on every node (without: stop at a node's first rejection, as the
    # scheduler does; the report then lacks the later plugins' verdicts).
    every_plugin: bool = True
    # Stop filtering once this many nodes fit (see Framework.run_filters).
    feasible_to_find: int | None = None
    # Run the PostFilter plugins (preemption's dry run) when no node fits; without, the message
    # lacks their part.
    post_filter: bool = True
    # Keep each plugin's score (without: the totals and best nodes only).
    score_rows: bool = True


# explain: everything the scheduler does, and every plugin's verdict on every node.
EXPLAIN = CycleOptions()
# Does it fit? Every filter's verdict, nothing after (suggestions' and template nodes' checks).
FILTER_ONLY = CycleOptions(scoring=False, post_filter=False)
# Does it fit anywhere? As the scheduler filters: a node's first rejection is enough.
FITS = CycleOptions(scoring=False, every_plugin=False, post_filter=False)
# Does it fit, and where would preemption take it (pending's classification): stops at the first
# fitting node, then runs the PostFilter plugins when none fits.
FIRST_FIT = CycleOptions(scoring=False, every_plugin=False, feasible_to_find=1)


# One cycle builds a verdict, a status and a dict per node, each kept until the cycle is read: at
# 65,000 nodes the collections they set off (each scanning every object not frozen with the
# indexes) took as long as the cycle's own work; reference counting frees them all the same.
@gc_deferred()
def run_cycle(
    snapshot: Snapshot,
    pod: o.Pod,
    profile: Profile | None = None,
    extenders: Sequence[Extender] = (),
    scheduler_names: frozenset[str] | None = None,
    framework: Framework | None = None,
    options: CycleOptions = EXPLAIN,
    settled: Mapping[str, NodeVerdict] | None = None,
    reuse: Reuse | None = None,
) -> CycleOutcome:
    """Schedule `pod` under `profile` (default: the default profile), running what `options` asks.
    `scheduler_names` are all profiles of the scheduler (default: this profile's): whose nominated
    pods it knows. A `framework` from make_framework is reused instead of indexing the snapshot
    again. `settled` nodes are known to reject the pod and are not filtered (see
    Framework.run_filters). `reuse`: what an identical pod's cycle learnt that still holds (see
    framework.runtime.Reuse)."""
    profile = framework.profile if framework is not None else profile or default_profile()
    target = PodInfo(pod)
    if pod.spec.node_name:
        return CycleOutcome(target, Verdict.ALREADY_BOUND, "", bound_node=pod.spec.node_name)
    framework = framework or make_framework(snapshot, profile, scheduler_names)
    # A pod that PreEnqueue keeps out of the queue (scheduling gates) is never tried; the
    # plugins' verdicts still show what happens once it is let in.
    enqueue = framework.run_pre_enqueue_plugins(target)
    outcome = framework.run_filters(target, options.every_plugin, options.feasible_to_find, settled, reuse)
    out = CycleOutcome(
        target,
        Verdict.UNSCHEDULABLE,
        "",
        outcome=outcome,
        gates=[g.name for g in pod.spec.scheduling_gates],
        missing_plugins=framework.missing_plugins,
        extenders=[e.url_prefix for e in extenders],
    )
    # Admitted without LimitRanges or ResourceQuotas: the requests they would add, or whether the
    # pod is created at all, are unknown (a fit is not vouched for).
    unknown_fit = snapshot.admitted_without.get(target.key, frozenset()) & ADMISSION_UNKNOWNS
    # A snapshot without any Pod: the room they take is unknown for every pod.
    unknown_fit |= ROOM_UNKNOWNS & snapshot.missing.keys()
    nominated = pod.status.nominated_node_name
    out.nominated_node_fits = bool(nominated) and nominated in outcome.feasible
    if options.scoring and outcome.error is None and outcome.feasible:
        out.scores = _prioritize_nodes(framework, snapshot, target, outcome, options, reuse)
        if out.nominated_node_fits:
            out.scores.best_nodes = [nominated]
    _settle_verdict(out, framework, outcome, unknown_fit, options.post_filter)
    if not enqueue.is_success():
        out.verdict = Verdict.GATED
    scores = out.scores
    if scores is not None and scores.error is not None and out.verdict != Verdict.ERROR:
        scores.best_nodes = [nominated] if out.nominated_node_fits else list(outcome.feasible)
        out.ignored_score_error = scores.error
    _note_unevaluated(out, framework, outcome, snapshot.missing, unknown_fit)
    out.sampling = _sampling(framework, outcome, extenders)
    return out


def _prioritize_nodes(
    framework: Framework,
    snapshot: Snapshot,
    target: PodInfo,
    outcome: FilterOutcome,
    options: CycleOptions,
    reuse: Reuse | None,
) -> ScoreOutcome:
    """The Score plugins on the feasible nodes (schedule_one.go's prioritizeNodes)."""
    handle = framework.handle
    return run_scores(
        framework.profile,
        framework.plugins,
        outcome.state,
        target,
        [handle.node_info_by_name[name] for name in outcome.feasible],
        snapshot.missing,
        reuse.raw_scores if reuse is not None and not options.score_rows else None,
        totals_only=not options.score_rows,
        unsure=outcome.node_not_evaluated,
    )


def _settle_verdict(
    out: CycleOutcome, framework: Framework, outcome: FilterOutcome, unknown_fit: frozenset[str], post_filter: bool
) -> None:
    """The cycle's verdict and message: an error, a fit (Inconclusive when something that decides it
    was not evaluated), or the FitError's message with the PostFilter plugins' part when they ran
    (schedule_one.go's schedulingCycle)."""
    scores = out.scores
    if outcome.error is not None:
        out.verdict, out.message = Verdict.ERROR, outcome.error
    elif scores is not None and scores.error is not None and not scores.scoring_skipped and not out.nominated_node_fits:
        # Only when the scheduler really scores: with one feasible node (or a fitting
        # nominated node) it never runs Score, so a Score error cannot stop it.
        out.verdict, out.message = Verdict.ERROR, scores.error
    elif outcome.feasible:
        unknown = outcome.not_evaluated or outcome.node_not_evaluated or unknown_fit
        out.verdict = Verdict.INCONCLUSIVE if unknown else Verdict.SCHEDULABLE
    else:
        out.message = fit_error_message(outcome, len(framework.handle.node_infos))
        if post_filter:
            out.post_filter = framework.run_post_filter_plugins(outcome, out.pod)
            out.message_complete = out.post_filter.complete
            # Without every PostFilter plugin's part, keep the filter summary alone rather than a wrong join.
            if out.message_complete and out.post_filter.message():
                out.message += " " + out.post_filter.message()
        else:
            out.message_complete = False


def _note_unevaluated(
    out: CycleOutcome,
    framework: Framework,
    outcome: FilterOutcome,
    missing: Mapping[str, str],
    unknown_fit: frozenset[str],
) -> None:
    """What the snapshot lacks that the cycle needed: the kinds it holds none of, and what was not
    evaluated (a fit admission or the room of pods cannot vouch for, plugins that could not run)."""
    out.lacking_kinds = lacking_kinds(framework, out, missing)
    out.fit_unknown = frozenset(unknown_fit)
    by_node = outcome.node_not_evaluated
    if unknown_fit and outcome.feasible and not outcome.not_evaluated and not by_node:
        why = not_evaluated(unknown_fit, missing) or NotEvaluated()
        out.not_evaluated = replace(why, fit=tuple(sorted(unknown_fit)))
        out.lacking_kinds = sorted({*out.lacking_kinds, *(k for k in unknown_fit if missing.get(k) == "")})
    if outcome.not_evaluated:
        target = out.pod
        kinds = {kind for name in outcome.not_evaluated for kind in framework.plugins[name].needed_kinds(target)}
        why = not_evaluated(kinds, missing) or NotEvaluated()
        out.not_evaluated = replace(why, plugins=tuple(sorted(outcome.not_evaluated)))
    if by_node:
        # Plugins that ran but could not tell some feasible node's verdict (device selectors).
        wide = [out.not_evaluated] if outcome.not_evaluated and out.not_evaluated is not None else []
        out.not_evaluated = merged([*wide, *by_node.values()])


def _sampling(framework: Framework, outcome: FilterOutcome, extenders: Sequence[Extender]) -> Sampling:
    """How many nodes the scheduler would have looked at (schedule_one.go's numFeasibleNodesToFind),
    of the nodes PreFilter left it."""
    profile, handle = framework.profile, framework.handle
    considered = len(handle.node_infos)
    if outcome.pre_filter_result is not None and outcome.pre_filter_result.node_names is not None:
        considered = len(outcome.pre_filter_result.node_names & handle.node_info_by_name.keys())
    has_scoring = bool(profile.score) or any(e.prioritize_verb for e in extenders)
    has_extender_filters = any(e.filter_verb for e in extenders)
    return Sampling(
        profile.percentage_of_nodes_to_score,
        considered,
        num_feasible_nodes_to_find(
            profile.percentage_of_nodes_to_score, considered, has_scoring or has_extender_filters
        ),
    )


def lacking_kinds(framework: Framework, cycle: CycleOutcome, missing: Mapping[str, str]) -> list[str]:
    """The kinds the snapshot simply holds none of (no other cause) that the cycle needed."""
    if cycle.outcome is None:
        return []
    pod = cycle.pod
    needed: set[str] = set()
    for name in cycle.outcome.not_evaluated:
        needed |= framework.plugins[name].needed_kinds(pod)
    for name in cycle.scores.not_evaluated if cycle.scores is not None else ():
        needed |= framework.plugins[name].needed_kinds(pod, score=True)
    if cycle.post_filter is not None:
        for name in cycle.post_filter.not_evaluated:
            needed |= framework.plugins[name].needed_kinds(pod)
        if cycle.post_filter.pdbs_assumed_none:
            needed.add("PodDisruptionBudget")
    return sorted(kind for kind in needed if missing.get(kind) == "")


def no_profile(pod: o.Pod, config: SchedulerConfig) -> CycleOutcome:
    """The pod names a scheduler that no profile of the configuration provides."""
    return CycleOutcome(
        PodInfo(pod),
        Verdict.NO_PROFILE,
        "",
        scheduler_name=pod.spec.scheduler_name or DEFAULT_SCHEDULER_NAME,
        profiles=[p.scheduler_name for p in config.profiles],
        config_source=config.source,
    )
