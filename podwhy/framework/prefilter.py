"""RunPreFilterPlugins' merge of the plugins' results (framework/runtime/framework.go): what the
runtime returns from each plugin's PreFilter record, in the profile's order, and how far it ran
(for the PostFilter plugins, which see only the PreFilter plugins it reached)."""

from __future__ import annotations

import msgspec

from podwhy.framework.interface import PreFilterResult
from podwhy.framework.outcome import PreFilterRecord
from podwhy.framework.profile import Profile
from podwhy.framework.status import Code, Status


class PreFilterRun(msgspec.Struct):
    """What RunPreFilterPlugins returns, from the plugins' records in the profile's order."""

    failure: Status | None = None  # the rejecting status (UnschedulableAndUnresolvable, or the last Unschedulable)
    merged: PreFilterResult | None = None  # the intersection of the plugins' node sets
    error: str | None = None  # a plugin's error, worded as upstream wraps it
    stopped_at: str | None = None  # the plugin at which it returned early (None: it ran them all)
    restricting: list[str] = msgspec.field(default_factory=list)  # the plugins whose node sets were merged, sorted


def merge_pre_filter(records: list[PreFilterRecord]) -> PreFilterRun:
    """RunPreFilterPlugins over the records: Skip is passed over; UnschedulableAndUnresolvable and
    errors return at once; the last Unschedulable is kept (kubernetes#119770) while the others run;
    the node sets are intersected, and an empty intersection rejects the pod. A plugin that was not
    evaluated is recorded as a Success for every node."""
    run = PreFilterRun()
    unschedulable: Status | None = None
    with_nodes: list[str] = []
    for rec in records:
        st = rec.status
        if st.is_skip():
            continue
        if not st.is_success():
            if st.code == Code.Unschedulable:
                unschedulable = st
                continue
            run.stopped_at, run.merged = rec.plugin, None
            if st.code == Code.UnschedulableAndUnresolvable:
                run.failure = st
            else:
                run.error = f'running PreFilter plugin "{rec.plugin}": {st.message()}'
            return run
        if rec.node_names is not None:
            with_nodes.append(rec.plugin)
        run.merged = (run.merged or PreFilterResult()).merge(PreFilterResult(rec.node_names))
        if run.merged.node_names is not None and not run.merged.node_names:
            plugins = sorted(with_nodes)
            if len(plugins) == 1:
                msg = f"node(s) didn't satisfy plugin {plugins[0]}"
            else:
                msg = f"node(s) didn't satisfy plugin(s) [{' '.join(plugins)}] simultaneously"
            run.failure = Status(Code.UnschedulableAndUnresolvable, [msg], plugin=plugins[0])
            run.stopped_at = rec.plugin
            return run
    if unschedulable is not None:
        run.failure, run.merged = unschedulable, None
    run.restricting = sorted(with_nodes)
    return run


# ---------------------------------------------------------------------- PostFilter support
def pre_filter_reached(profile: Profile, records: list[PreFilterRecord]) -> frozenset[str]:
    """Names in the profile's PreFilter order up to the plugin where RunPreFilterPlugins returned early."""
    stopped_at = merge_pre_filter(records).stopped_at
    names = list(profile.pre_filter)
    return frozenset(names if stopped_at is None else names[: names.index(stopped_at) + 1])
