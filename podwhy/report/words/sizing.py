"""How sizing a pending group went, in words: analysis/suggest/notes.py's sizing notes said (the
nodes it takes, or why there is no count), and `pending`'s estimate by cause."""

from __future__ import annotations

from podwhy.analysis.suggest.notes import (
    BeyondEveryNode,
    KeptOff,
    NoCopy,
    NoCount,
    NoCycle,
    NotLargest,
    PluginMessage,
    PluginsNotEvaluated,
    PortsTakenByStartup,
    RunAgain,
    ShortBesideStartup,
    Sized,
    SizingNote,
    StoppedByTime,
    StoppedByWork,
    TooLittleLeft,
    TooManyNodes,
    WorkBound,
)
from podwhy.report.words.cells import amount_text
from podwhy.report.words.notevaluated import not_evaluated_text

# What keeps new copies of every node off, named when no node qualifies for copying.
MAX_REASONS_NAMED = 3


def more_nodes_text(count: int) -> str:
    return "1 more node" if count == 1 else f"{count} more nodes"


def _kept_off(why: KeptOff) -> str:
    match why:
        case PluginMessage(message):
            return message
        case ShortBesideStartup(reasons):
            return f"{reasons} beside the DaemonSet and static pods a new node runs"
        case PortsTakenByStartup():
            return "its host ports are taken by the DaemonSet and static pods a new node runs"


def _bound(bound: WorkBound) -> str:
    spends = "all groups of one run may spend" if bound.run else "one group may spend"
    return f"the {bound.work:,} node evaluations {spends}"


NO_SHAPE = "no node shape of the cluster holds one of these pods"


def sizing_text(note: SizingNote) -> str:
    """How sizing a pending group went: what it takes, or why there is no count."""
    match note:
        case NoCycle():
            return "not sized: no scheduling cycle to start from"
        case PluginsNotEvaluated(why):
            return f"not sized: {not_evaluated_text(why)}"
        case NoCopy(()):
            return f"{NO_SHAPE}, even empty"
        case NoCopy(reasons):
            # Most nodes first.
            ranked = sorted(((-r.nodes, r.plugin, _kept_off(r.why)), r.nodes) for r in reasons)
            said = "; ".join(
                f"{plugin} on {n} node{'s' if n != 1 else ''}: {why}"
                for (_, plugin, why), n in ranked[:MAX_REASONS_NAMED]
            )
            more = len(ranked) - MAX_REASONS_NAMED
            and_more = f"; and {more} more" if more > 0 else ""
            return (
                f"{NO_SHAPE}, even empty: every node also rejects them for a reason a new copy of it keeps "
                f"({said}{and_more})"
            )
        case BeyondEveryNode(started, short, lacking, more):
            lead = f"{NO_SHAPE}, " + (
                "even new (running only its DaemonSet and static pods): " if started else "even empty: "
            )
            if short:
                return lead + ", ".join(
                    f"it requests {amount_text(s.resource, s.requested)} {s.resource}, which no node has allocatable"
                    if not s.capacity
                    else f"its {s.resource} request {amount_text(s.resource, s.requested)} exceeds what any node has "
                    + ("free" if s.room < s.capacity else "allocatable")
                    + f" (at most {amount_text(s.resource, max(s.room, 0))})"
                    for s in short
                )
            said = "; ".join(f"nodes like {shape.node} lack {', '.join(shape.resources)}" for shape in lacking)
            and_more = f"; and {more} more shapes" if more else ""
            return lead + f"each has too little of some of its requests ({said}{and_more})"
        case StoppedByTime(seconds):
            return (
                f"sizing stopped by its safety net of {seconds:.0f} s (unlike its other bounds, "
                "this one depends on the machine's speed); no count was verified"
            )
        case StoppedByWork(bound, nodes):
            cluster = "1 node" if nodes == 1 else f"{nodes:,} nodes"
            return (
                f"sizing stopped at {_bound(bound)} ({cluster}: a scheduling cycle that scores looks at every one); "
                "no count was verified"
            )
        case TooManyNodes(limit, like):
            return f"sizing stopped: more than {limit} added nodes shaped like {like} would be needed"
        case NoCount(shapes):
            return "no number of added nodes lets all of them fit: " + "; ".join(
                f"not one fits on a new node shaped like {s.like}"
                if s.none_fits
                else f"more nodes shaped like {s.like} take no more of them"
                for s in shapes
            )
        case Sized(count, like):
            fewer = f"; with {count - 1} not all of them do" if count > 1 else ""
            return f"sized: {more_nodes_text(count)} shaped like {like}{fewer}"
        case NotLargest(limit):
            return f"not sized: only the {limit} largest Unschedulable groups an added node could hold are sized"
        case TooLittleLeft(bound):
            return f"not sized: too little is left of {_bound(bound)}"
        case RunAgain(verdict):
            return f"not sized: run again, its first pod is {verdict}"


def estimate_text(note: SizingNote, pods: int) -> str:
    """`pending`'s summary: the nodes that would hold every pod of one cause, placed together."""
    if isinstance(note, Sized):
        fewer = f"; with {note.count - 1} not all of them do" if note.count > 1 else ""
        every = "it" if pods == 1 else f"all {pods}"
        hold = "holds" if note.count == 1 else "hold"
        placed = "placed together one after another"
        return f"{more_nodes_text(note.count)} shaped like {note.like} {hold} {every}, {placed}{fewer}"
    return sizing_text(note)
