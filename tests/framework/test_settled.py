"""Settled (framework/settled.py) walks a Handle's nodes exactly as comparing every node's name
with the settled ones does (Handle.nodes_but), after any sequence of verdicts set and discarded,
over several Handles in turn; its verdicts keep the order they were set in, as a dict's do."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from podwhy.framework.handle import Handle
from podwhy.framework.outcome import NodeVerdict
from podwhy.framework.settled import Settled
from tests.builders import make_handle, make_node

NAMES = [f"n{i}" for i in range(6)]
# Two Handles over different nodes, in different orders: n5 is a node of one only, n3 and n4 of
# the other only.
HANDLES = [
    make_handle(*(make_node(n).obj() for n in NAMES[:5])),
    make_handle(*(make_node(n).obj() for n in ["n2", "n5", "n0", "n1"])),
]
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("set"), st.sampled_from(NAMES)),
        st.tuples(st.just("discard"), st.sampled_from(NAMES)),
        st.tuples(st.just("copy"), st.just("")),
    ),
    min_size=2,
    max_size=30,
)
# After each change, the Handles walked (each kept walk is brought up to date with every change
# since it was last asked, whether one change or many).
WALKS = st.lists(st.sampled_from([(), (0,), (1,), (0, 1), (1, 0)]), min_size=30, max_size=30)


def _expected(verdicts: dict[str, NodeVerdict], handle: Handle) -> tuple[list[str], bool]:
    walk = [ni.name for ni in handle.node_infos if ni.name not in verdicts]
    return walk, verdicts.keys() <= handle.node_info_by_name.keys()


@settings(max_examples=200, deadline=None)
@given(OPS, WALKS)
def test_settled_walks_as_every_name_compared(ops: list[tuple[str, str]], walks: list[tuple[int, ...]]) -> None:
    settled, reference = Settled(), {}
    for (op, name), walked in zip(ops, walks, strict=False):
        if op == "set":
            verdict = NodeVerdict(name)
            settled.set(name, verdict)
            reference[name] = verdict
        elif op == "discard":
            settled.discard(name)
            reference.pop(name, None)
        else:
            settled = settled.copy()
        for index in walked:
            handle = HANDLES[index]
            walk, whole = settled.walk(handle)
            assert ([ni.name for ni in walk], whole) == _expected(reference, handle)
            assert [ni.name for ni in handle.nodes_but(reference)] == [ni.name for ni in walk]
        assert list(settled.items()) == list(reference.items())
        assert len(settled) == len(reference) and all(name in settled for name in reference)


def test_a_walk_follows_the_handle_nodes_replaced_in_place() -> None:
    """The walk gives the Handle's node objects as they are when asked (a view copies a node's
    index when a pod is bound to it there)."""
    handle = HANDLES[0].for_release(HANDLES[0].emulation)
    settled = Settled()
    settled.set("n1", NodeVerdict("n1"))
    before = settled.walk(handle)[0]
    owned = handle._own("n3")  # as binding a pod there does
    after = settled.walk(handle)[0]
    assert [ni.name for ni in after] == [ni.name for ni in before]
    assert owned in after and owned not in before
