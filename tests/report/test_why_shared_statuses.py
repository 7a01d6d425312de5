"""The table's Why cell reads one node for each filters list and first failure its nodes share (the
nodes of one class share theirs: report/build/nodes.py), and says exactly what reading every
node says: the same facts, ranges and order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from podwhy.framework.evidence import ResourceEvidence
from podwhy.report.model import NodeReport, PluginStatus, StatusName
from podwhy.report.render.explain import _why
from podwhy.report.words.cells import why_cell


def _status(plugin: str, free: int, failing: bool) -> PluginStatus:
    if not failing:
        return PluginStatus(plugin=plugin, status=StatusName.SUCCESS, reasons=[])
    evidence = ResourceEvidence(
        resource="cpu",
        unit="m",
        requested=4000,
        used=8000 - free,
        allocatable=8000,
        free=free,
        exceeds_allocatable=False,
    )
    return PluginStatus(
        plugin=plugin, status=StatusName.UNSCHEDULABLE, reasons=["Insufficient cpu"], evidence=[evidence]
    )


def _read_node_by_node(members: list[NodeReport]) -> str:
    """What _why said before: every member's statuses, one member at a time."""
    first = members[0]
    ff = first.firstFailure
    rejecting = ([ff.plugin] if ff is not None else []) + [
        s.plugin for s in first.filters if not s.passes and (ff is None or s.plugin != ff.plugin)
    ]
    per_plugin = [
        [s for m in members if (s := m.filter(plugin)) is not None]
        or [m.firstFailure for m in members if m.firstFailure is not None]
        for plugin in rejecting
    ]
    return "\n".join(why_cell(per_plugin)) or "fits"


# Each class: the free cpu of its nodes, and whether its second plugin fails too.
classes = st.lists(st.tuples(st.integers(0, 3999), st.booleans()), min_size=1, max_size=4)


@given(classes, st.lists(st.integers(0, 3), min_size=1, max_size=30))
def test_the_why_cell_of_shared_statuses_is_that_of_every_node(made: list[tuple[int, bool]], picks: list[int]) -> None:
    shared = []
    for free, second in made:
        filters = [_status("NodeResourcesFit", free, True), _status("TaintToleration", free + 1, second)]
        shared.append((filters, filters[0]))
    members = []
    for i, pick in enumerate(picks):
        filters, first = shared[pick % len(shared)]
        members.append(NodeReport(f"node-{i}", False, filters, first, [], None, [], None))
    assert _why(members) == _read_node_by_node(members)
    # Every node with a list of its own (no class): the same cell again.
    alone = [NodeReport(m.name, False, list(m.filters), m.firstFailure, [], None, [], None) for m in members]
    assert _why(alone) == _why(members)
