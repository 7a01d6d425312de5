"""Runs a profile's PreFilter and Filter plugins for one pod over every node.

Unlike kube-scheduler, every Filter plugin runs on every node (no short-circuit);
the node where the scheduler would have stopped is recorded as `first_failure`,
computed with upstream's order and its two passes for nominated pods.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property

from podwhy.framework.equivalence import NodeClasses, node_classes
from podwhy.framework.handle import Handle
from podwhy.framework.interface import (
    PRE_FILTER_REACHED_KEY,
    CycleState,
    Plugin,
    PostFilterResult,
    PreFilterReached,
    PreFilterResult,
)
from podwhy.framework.notevaluated import NotEvaluated, merged, not_evaluated
from podwhy.framework.outcome import (
    FilterOutcome,
    NodeVerdict,
    PostFilterOutcome,
    PreFilterRecord,
    Reuse,
    node_not_evaluated,
)
from podwhy.framework.preemption import preemption_outcome
from podwhy.framework.prefilter import merge_pre_filter, pre_filter_reached
from podwhy.framework.profile import Profile
from podwhy.framework.settled import Settled
from podwhy.framework.status import Code, Status
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.model.records import replace


def _not_evaluated(plugin: Plugin, pod: PodInfo, handle: Handle) -> NotEvaluated | None:
    return not_evaluated(plugin.needed_kinds(pod), handle.snapshot.missing)


class Framework:
    """A profile instantiated over a snapshot."""

    def __init__(self, handle: Handle, profile: Profile, registry: Mapping[str, type[Plugin]]) -> None:
        """REGISTRY: the plugin classes by name, as upstream's NewFramework(registry, profile, ...)
        is given them (plugins.registry.PLUGINS): the framework itself knows no plugin."""
        self.handle = handle
        self.profile = profile
        self.registry = registry
        self.plugins: dict[str, Plugin] = {}
        self.missing_plugins: list[str] = []
        # Plugins whose PreFilterResult restricted the nodes (for the absent-nodes reason).
        self._restricting_plugins: list[str] = []
        # Plugins the current pod needs kinds for that the snapshot lacks.
        self._not_evaluated: dict[str, NotEvaluated] = {}
        # What filters re-run by the PostFilter plugins (the preemption dry run) could not tell of
        # a node they let pass (a Filter status carrying not_evaluated), by plugin.
        self._dry_run_unknown: dict[str, list[NotEvaluated]] = {}
        names = [
            *profile.pre_enqueue,
            *profile.pre_filter,
            *profile.filter,
            *profile.post_filter,
            *profile.pre_score,
            *profile.score,
        ]
        for name in dict.fromkeys(names):
            cls = registry.get(name)
            if cls is None:
                self.missing_plugins.append(name)
                continue
            self.plugins[name] = cls(handle, profile.plugin_args.get(name))
        for plugin in self.plugins.values():
            plugin.framework = self

    def on(self, handle: Handle) -> Framework:
        """The same profile's framework over another view of the cluster (fewer nominations,
        changed or added nodes)."""
        return Framework(handle, self.profile, self.registry)

    # ------------------------------------------------------------------ PreEnqueue
    def run_pre_enqueue_plugins(self, pod: PodInfo) -> Status:
        """RunPreEnqueuePlugins: the first plugin that keeps the pod out of the active queue."""
        for name in self.profile.pre_enqueue:
            plugin = self.plugins.get(name)
            if plugin is None or not plugin.implements("pre_enqueue"):
                continue
            status = plugin.pre_enqueue(pod)
            if not status.is_success():
                status.plugin = name
                return status
        return Status()

    # ------------------------------------------------------------------ PreFilter
    def _run_pre_filters(
        self, state: CycleState, pod: PodInfo, not_evaluated: dict[str, NotEvaluated]
    ) -> tuple[list[PreFilterRecord], Status | None, PreFilterResult | None, str | None]:
        records: list[PreFilterRecord] = []
        nodes = self.handle.node_infos
        for name in self.profile.pre_filter:
            plugin = self.plugins.get(name)
            if plugin is None or not plugin.implements("pre_filter"):
                continue
            if name in not_evaluated:
                records.append(PreFilterRecord(name, Status(Code.Success, not_evaluated=not_evaluated[name])))
                continue
            result, status = plugin.pre_filter(state, pod, nodes)
            status.plugin = name
            records.append(
                PreFilterRecord(
                    name, status, None if result is None or result.all_nodes() else set(result.node_names or ())
                )
            )
            if status.is_skip():
                state.skip_filter_plugins.add(name)
        run = merge_pre_filter(records)
        if run.failure is None and run.error is None and run.merged is not None and run.merged.node_names is not None:
            self._restricting_plugins = run.restricting
        return records, run.failure, run.merged, run.error

    # ------------------------------------------------------------------ Filter
    @cached_property
    def _filter_plugins(self) -> list[tuple[str, Plugin]]:
        return [
            (n, self.plugins[n])
            for n in self.profile.filter
            if n in self.plugins and self.plugins[n].implements("filter")
        ]

    def _nominated_for(self, pod: PodInfo, node_info: NodeInfo) -> list[PodInfo]:
        """Pods nominated to the node with the pod's priority or higher (addGENominatedPods)."""
        nominated = self.handle.nominated_pods_for_node(node_info.name)
        if not nominated:
            return nominated
        return [pi for pi in nominated if pi.priority >= pod.priority and pi.uid != pod.uid]

    def _add_nominated(
        self, state: CycleState, pod: PodInfo, node_info: NodeInfo, skipped: set[str] | frozenset[str]
    ) -> tuple[CycleState, NodeInfo, list[PodInfo], dict[str, Status]]:
        """addGENominatedPods: the node and cycle state with the nominated pods added.

        Returns each plugin's AddPod failure, in the order upstream meets them (pod by pod,
        plugin by plugin). Each plugin's AddPod only touches its own state, so one that fails
        stops receiving pods while the others go on: every plugin's row reads as if the plugin
        had run alone, and the first failure is the one upstream's combined run returns.
        """
        nominated = self._nominated_for(pod, node_info)
        if not nominated:
            return state, node_info, [], {}
        node_out = node_info.snapshot()
        state_out = state.clone()
        failures: dict[str, Status] = {}
        for pi in nominated:
            node_out.add_pod_info(pi)
            node_out.added_pods.append(pi)
            for name, plugin in self._extension_plugins:
                if name in skipped or name in failures:
                    continue
                st = self._add_or_remove(name, plugin, state_out, pod, pi, node_out, add=True)
                if not st.is_success():
                    failures[name] = st
        return state_out, node_out, nominated, failures

    @staticmethod
    def _stateless(pre_filter_status: dict[str, Status], not_evaluated: dict[str, NotEvaluated]) -> frozenset[str]:
        """Plugins without PreFilter state of their own (skipped, rejected at PreFilter or not
        evaluated): they never receive nominated pods, their row is their PreFilter verdict."""
        return frozenset(
            {name for name, st in pre_filter_status.items() if not st.is_success() or st.not_evaluated is not None}
            | not_evaluated.keys()
        )

    def _rows(
        self, pre_filter_status: dict[str, Status], not_evaluated: dict[str, NotEvaluated]
    ) -> list[tuple[str, Plugin, Status | None]]:
        """Each Filter plugin with the row it has on every node when PreFilter settled it (not
        evaluated, Skip, or a PreFilter rejection); None where its Filter must run per node."""
        out: list[tuple[str, Plugin, Status | None]] = []
        for name, plugin in self._filter_plugins:
            pre = pre_filter_status.get(name)
            fixed: Status | None = None
            if name in not_evaluated:
                fixed = Status(Code.Success, not_evaluated=not_evaluated[name])
            elif pre is not None and pre.is_skip():
                fixed = Status(Code.Skip, plugin=name)
            elif pre is not None and not pre.is_success():
                fixed = Status(pre.code, list(pre.reasons), name, list(pre.evidence))
            out.append((name, plugin, fixed))
        return out

    def filter_node(
        self,
        state: CycleState,
        pod: PodInfo,
        node_info: NodeInfo,
        pre_filter_status: dict[str, Status],
        not_evaluated: dict[str, NotEvaluated],
        stateless: frozenset[str] | None = None,
        every_plugin: bool = True,
        rows: list[tuple[str, Plugin, Status | None]] | None = None,
    ) -> NodeVerdict:
        """Each filter plugin's verdict on the node, and where kube-scheduler stops. With
        `every_plugin` off, plugins after the first pass-1 rejection are not run (as upstream)."""
        verdict = NodeVerdict(node_info.name)
        if stateless is None:
            stateless = self._stateless(pre_filter_status, not_evaluated)
        state1, node1, nominated, add_failures = self._add_nominated(state, pod, node_info, stateless)
        verdict.nominated_pods = nominated
        added = bool(nominated)
        pass1: dict[str, Status] = {}
        pass2: dict[str, Status] = {}
        for name, plugin, fixed in rows if rows is not None else self._rows(pre_filter_status, not_evaluated):
            if fixed is not None:
                verdict.filters[name] = fixed
                continue
            if name in add_failures:
                verdict.filters[name] = add_failures[name]
                continue
            st = plugin.filter(state1, pod, node1)
            st.plugin = name
            pass1[name] = st
            if not every_plugin and not st.is_success():
                verdict.filters[name] = st
                break
            if added and st.is_success():
                st = plugin.filter(state, pod, node_info)
                st.plugin = name
                pass2[name] = st
            verdict.filters[name] = st
        if added and every_plugin:
            ran = pass1.keys() | add_failures.keys()
            verdict.feasible_without_nominated = all(
                st.is_success() or st.is_skip() or st.not_evaluated is not None
                for name, st in verdict.filters.items()
                if name not in ran
            ) and all(
                (pass2.get(name) or plugin.filter(state, pod, node_info)).is_success()
                for name, plugin in self._filter_plugins
                if name in ran
            )
        if add_failures:
            # addGENominatedPods returns the first AddPod error: no filter runs on this node.
            verdict.first_failure = next(iter(add_failures.values()))
            return verdict
        # Where kube-scheduler stops: first failure of pass 1, else of pass 2.
        for passed in (pass1, pass2):
            for name, st in passed.items():
                if not st.is_success():
                    if not st.is_rejected():
                        st = Status(Code.Error, [f'running "{name}" filter plugin: {st.message()}'], name)
                    verdict.first_failure = st
                    return verdict
        verdict.feasible = True
        return verdict

    # ------------------------------------------------------------------ dry runs (preemption)
    # Upstream's short-circuiting RunFilterPlugins / RunFilterPluginsWithNominatedPods and the
    # PreFilterExtensions runners, for PostFilter plugins that re-run filters on changed nodes.
    def _dry_run_skips(self, state: CycleState) -> set[str]:
        return state.skip_filter_plugins | self._not_evaluated.keys()

    @cached_property
    def _extension_plugins(self) -> list[tuple[str, Plugin]]:
        """PreFilter plugins with PreFilterExtensions (AddPod/RemovePod), in PreFilter order."""
        return [
            (n, self.plugins[n])
            for n in self.profile.pre_filter
            if n in self.plugins and self.plugins[n].has_pre_filter_extensions()
        ]

    @staticmethod
    def _add_or_remove(
        name: str, plugin: Plugin, state: CycleState, pod: PodInfo, changed: PodInfo, node_info: NodeInfo, add: bool
    ) -> Status:
        try:
            if add:
                st = plugin.add_pod(state, pod, changed, node_info)
            else:
                st = plugin.remove_pod(state, pod, changed, node_info)
        except KeyError as exc:  # the plugin's PreFilter wrote no state: upstream's "not found"
            st = Status(Code.Error, [f"reading {exc} from cycleState: not found"])
        if st.is_success():
            return st
        op = "AddPod" if add else "RemovePod"
        return Status(Code.Error, [f'running {op} on PreFilter plugin "{name}": {st.message()}'], name)

    def _run_extension(
        self, state: CycleState, pod: PodInfo, changed: PodInfo, node_info: NodeInfo, add: bool
    ) -> Status:
        skipped = self._dry_run_skips(state)
        for name, plugin in self._extension_plugins:
            if name in skipped:
                continue
            st = self._add_or_remove(name, plugin, state, pod, changed, node_info, add)
            if not st.is_success():
                return st
        return Status()

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod: PodInfo, to_add: PodInfo, node_info: NodeInfo
    ) -> Status:
        return self._run_extension(state, pod, to_add, node_info, add=True)

    def run_pre_filter_extension_remove_pod(
        self, state: CycleState, pod: PodInfo, to_remove: PodInfo, node_info: NodeInfo
    ) -> Status:
        return self._run_extension(state, pod, to_remove, node_info, add=False)

    def run_filter_plugins(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status:
        """RunFilterPlugins: the first plugin that does not pass decides (plugins podwhy cannot run pass)."""
        skipped = self._dry_run_skips(state)
        for name, plugin in self._filter_plugins:
            if name in skipped:
                continue
            try:
                st = plugin.filter(state, pod, node_info)
            except KeyError as exc:
                st = Status(Code.Error, [f"reading {exc} from cycleState: not found"])
            if st.is_success():
                if st.not_evaluated is not None:
                    self._dry_run_unknown.setdefault(name, []).append(st.not_evaluated)
                continue
            if not st.is_rejected():
                return Status(Code.Error, [f'running "{name}" filter plugin: {st.message()}'], name, list(st.evidence))
            st.plugin = name
            return st
        return Status()

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status:
        """Pass 1 with equal-or-higher-priority nominated pods added, pass 2 without them if pass 1 passed."""
        state1, node1, nominated, failures = self._add_nominated(state, pod, node_info, self._dry_run_skips(state))
        if failures:
            return next(iter(failures.values()))
        status = self.run_filter_plugins(state1, pod, node1)
        if nominated and status.is_success():
            status = self.run_filter_plugins(state, pod, node_info)
        return status

    # ------------------------------------------------------------------ all nodes
    def run_filters(
        self,
        pod: PodInfo,
        every_plugin: bool = True,
        feasible_to_find: int | None = None,
        settled: Mapping[str, NodeVerdict] | None = None,
        reuse: Reuse | None = None,
    ) -> FilterOutcome:
        """Every node's verdict. In short-circuit mode (`every_plugin` off) nodes that PreFilter
        already settled are not filtered, and with `feasible_to_find` the walk stops once that many
        nodes fit, the pod's nominated node tried first (as schedule_one.go does): the outcome then
        holds only the nodes walked (`complete` is False). `settled`: nodes whose rejection of this
        pod is already known (placement.KnownRejections): their known verdicts come first in the
        outcome, and they are not filtered again (unless PreFilter rejects the pod or rules nodes
        out itself). `reuse`: verdicts of an identical pod's cycle (see Reuse), taken as they are
        for the nodes they hold when this pod's PreFilter came out the same."""
        state = CycleState()
        self._restricting_plugins = []
        not_evaluated = {
            name: why
            for name, plugin in self.plugins.items()
            if (why := _not_evaluated(plugin, pod, self.handle)) is not None
        }
        self._not_evaluated = not_evaluated
        records, failure, result, error = self._run_pre_filters(state, pod, not_evaluated)
        pre_status = {rec.plugin: rec.status for rec in records}
        stateless = self._stateless(pre_status, not_evaluated)
        rows = self._rows(pre_status, not_evaluated)
        unrestricted = failure is None and (result is None or result.node_names is None)
        nodes, walk, reused = self._walk_plan(
            pod, unrestricted, pre_status, not_evaluated, feasible_to_find, settled, reuse
        )
        classes, settled_first = node_classes(state, pod, rows, self.handle.nominations()), len(nodes)

        def filter_one(ni: NodeInfo) -> NodeVerdict:
            return self.filter_node(state, pod, ni, pre_status, not_evaluated, stateless, every_plugin, rows)

        feasible: list[str] = []
        complete = True
        # Filters that ran and may have left a node's verdict not evaluated (FilterOutcome.node_not_evaluated).
        unsure = [
            name
            for name, plugin in self._filter_plugins
            if plugin.NODE_NOT_EVALUATED and name not in not_evaluated and not pre_status.get(name, Status()).is_skip()
        ]
        for ni in walk:
            if feasible_to_find is not None and len(feasible) >= feasible_to_find:
                complete = False
                break
            restricted = result is not None and result.node_names is not None and ni.name not in result.node_names
            if not every_plugin and (failure is not None or restricted):
                # Settled before any Filter runs: the scheduler never filters this node.
                verdict = NodeVerdict(ni.name)
            elif ni.name in reused:
                verdict = reused[ni.name]
            elif classes is not None:
                verdict = _in_class(classes, ni, filter_one)
            else:
                verdict = filter_one(ni)
            if failure is not None or restricted:
                self._settled_by_pre_filter(verdict, failure, restricted)
            if verdict.feasible:
                feasible.append(ni.name)
            if verdict.first_failure is not None and verdict.first_failure.code == Code.Error and error is None:
                error = verdict.first_failure.message()
            nodes.append(verdict)
        return FilterOutcome(
            pre_filter=records,
            pre_filter_failure=failure,
            pre_filter_result=result,
            nodes=nodes,
            feasible=feasible,
            state=state,
            plugins=self.plugins,
            not_evaluated={name: why for name, why in not_evaluated.items() if name in self._filtering},
            error=error,
            complete=complete,
            settled_first=settled_first,
            other_not_evaluated={name: why for name, why in not_evaluated.items() if name not in self._filtering},
            node_not_evaluated=node_not_evaluated(nodes, unsure) if feasible and unsure else {},
        )

    def _walk_plan(
        self,
        pod: PodInfo,
        unrestricted: bool,
        pre_status: Mapping[str, Status],
        not_evaluated: Mapping[str, NotEvaluated],
        feasible_to_find: int | None,
        settled: Mapping[str, NodeVerdict] | None,
        reuse: Reuse | None,
    ) -> tuple[list[NodeVerdict], list[NodeInfo], Mapping[str, NodeVerdict]]:
        """The walk over the nodes (findNodesThatPassFilters'): the verdicts known before it (the
        `settled` rejections, when PreFilter neither rejects the pod nor rules nodes out), the nodes
        to filter in order (the nominated node first when the walk stops at `feasible_to_find`), and
        the verdicts taken from an identical pod's cycle when its PreFilter came out the same."""
        nodes: list[NodeVerdict] = []
        walk = self.handle.node_infos
        if settled and unrestricted:
            # Known rejections are given first, only the other nodes walked: those Settled keeps up
            # to date pod after pod, else found by comparing names (in C: once per pod placed).
            by_name = self.handle.node_info_by_name
            if isinstance(settled, Settled):
                walk, whole = settled.walk(self.handle)
            else:
                whole = settled.keys() <= by_name.keys()
                walk = self.handle.nodes_but(settled)
            nodes = list(settled.values()) if whole else [v for name, v in settled.items() if name in by_name]
        reused: Mapping[str, NodeVerdict] = {}
        if (
            reuse is not None
            and unrestricted
            and reuse.pre_filter_skips == frozenset(n for n, st in pre_status.items() if st.is_skip())
            and reuse.not_evaluated == frozenset(not_evaluated)
        ):
            reused = reuse.verdicts
        nominated = self.handle.node_info_by_name.get(pod.pod.status.nominated_node_name)
        if feasible_to_find is not None and nominated is not None:
            walk = [nominated, *(ni for ni in walk if ni is not nominated)]
        return nodes, walk, reused

    def _settled_by_pre_filter(self, verdict: NodeVerdict, failure: Status | None, restricted: bool) -> None:
        """A node PreFilter settled: the pod rejected before any Filter runs (`failure`), or the node
        outside the nodes PreFilter restricts the pod to (`restricted`), with upstream's status."""
        if failure is not None:
            verdict.first_failure = Status(failure.code, list(failure.reasons), failure.plugin)
        elif restricted:
            plugins = self._restricting_plugins
            verdict.first_failure = Status(
                Code.UnschedulableAndUnresolvable,
                [f"node(s) didn't satisfy plugin(s) [{' '.join(plugins)}]"],
                plugins[0] if plugins else "",
            )
        else:
            return
        verdict.feasible = False
        if verdict.feasible_without_nominated:
            verdict.feasible_without_nominated = False

    @cached_property
    def _filtering(self) -> frozenset[str]:
        return frozenset(self.profile.pre_filter) | frozenset(self.profile.filter)

    # ------------------------------------------------------------------ PostFilter
    def run_post_filter_plugins(self, outcome: FilterOutcome, pod: PodInfo) -> PostFilterOutcome:
        """RunPostFilterPlugins after a FitError: stop at the first Success, Error or unresolvable status,
        otherwise join every plugin's reasons into one Unschedulable status."""
        state = outcome.state
        state.write(PRE_FILTER_REACHED_KEY, PreFilterReached(pre_filter_reached(self.profile, outcome.pre_filter)))
        node_statuses = {v.name: v.first_failure for v in outcome.nodes if v.first_failure is not None}
        statuses: list[Status] = []
        reasons: list[str] = []
        rejector = ""
        result: PostFilterResult | None = None
        not_evaluated: dict[str, NotEvaluated] = {}
        not_simulated: list[str] = []
        final: Status | None = None
        self._dry_run_unknown = {}
        for name in self.profile.post_filter:
            plugin = self.plugins.get(name)
            why = outcome.not_evaluated.get(name) or outcome.other_not_evaluated.get(name)
            if why is not None:
                not_evaluated[name] = why
                continue
            if plugin is None or not plugin.implements("post_filter"):
                not_simulated.append(name)
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
        # Budgets decide which candidate and which victims, never whether a node is a candidate:
        # without candidates, none could change the answer.
        pdbs_unknown = "PodDisruptionBudget" in self.handle.snapshot.missing_kinds and bool(
            preemption is not None and preemption.candidates
        )
        return PostFilterOutcome(
            statuses,
            final,
            result,
            preemption,
            not_evaluated,
            not_simulated,
            pdbs_assumed_none=preemption is not None and preemption.dry_run and pdbs_unknown,
            filters_not_evaluated={
                name: replace(merged(facts), plugins=(name,)) for name, facts in self._dry_run_unknown.items()
            },
        )


def _in_class(classes: NodeClasses, node_info: NodeInfo, filter_one: Callable[[NodeInfo], NodeVerdict]) -> NodeVerdict:
    """The node's verdict: its class's, under its own name, once a node of the class was filtered
    (filter_node's verdict, before PreFilter settles the node, which the walk does for each)."""
    key = classes.key(node_info)
    if key is None:
        return filter_one(node_info)
    known = classes.get(key)
    if known is None:
        verdict = filter_one(node_info)
        classes.add(key, verdict.filters, verdict.first_failure, verdict.feasible)
        return verdict
    return NodeVerdict(node_info.name, dict(known.filters), known.first_failure, known.feasible)
