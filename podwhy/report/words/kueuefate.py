"""The first line of Kueue's answer: the target's fate in plain words, with the number that matters
(the rest, report-only, is words/kueue.py)."""

from __future__ import annotations

from podwhy.analysis.kueuefacts import NO_WORKLOAD, POD, Fate, KueueFacts, Shortfall, format_amount


def _subject(facts: KueueFacts) -> str:
    return f"{facts.kind} {facts.key}"


def _queue(facts: KueueFacts) -> str:
    return f" in queue {facts.local_queue}" if facts.local_queue else ""


def _needer(facts: KueueFacts) -> str:
    """Who needs the quota: the Job or Workload itself, or a pod's Workload (its whole group)."""
    wl = facts.workload
    if facts.kind == POD and wl is not None:
        return f"its Workload {wl.metadata.namespace}/{wl.metadata.name}"
    return f"the {facts.kind}"


def _shortfall_text(facts: KueueFacts, short: Shortfall) -> str:
    res = short.resource
    own_free = max(0, short.available - short.borrowable)
    return (
        f"{_subject(facts)} waits{_queue(facts)}: ClusterQueue {short.cluster_queue} has "
        f"{format_amount(res, own_free)} of its {format_amount(res, short.nominal)} {res} free in flavor "
        f"{short.flavor} and can borrow {format_amount(res, short.borrowable)}; {_needer(facts)} needs "
        f"{format_amount(res, short.needed)}"
    )


def _behind_others(facts: KueueFacts) -> str:
    fitting = sum(1 for a in facts.ahead if a.fits)
    return (
        f"{_subject(facts)} fits ClusterQueue {facts.cluster_queue} now, but {fitting} Workload"
        f"{'s' if fitting != 1 else ''} ahead of it fit too and are admitted first"
    )


def _no_workload(facts: KueueFacts) -> str:
    queue = f" for queue {facts.local_queue}" if facts.local_queue else ""
    return f"{_subject(facts)} is held by Kueue{queue}, but {NO_WORKLOAD}: not evaluated"


def _listed(workloads: tuple[str, ...], shown: int = 3) -> str:
    """ "Workload a/x", "Workloads a/x, b/y and 2 more"."""
    if not workloads:
        return "Workloads"
    names = list(workloads[:shown])
    more = len(workloads) - len(names)
    said = ", ".join(names) + (f" and {more} more" if more else "")
    return f"Workload{'s' if len(workloads) > 1 else ''} {said}"


def summary_text(facts: KueueFacts) -> str:
    """The first line: the fate in plain words, with the number that matters."""
    subject, cq, fate = _subject(facts), facts.cluster_queue, facts.fate
    if fate is Fate.SHORT_OF_QUOTA and facts.shortfall is not None:
        return _shortfall_text(facts, facts.shortfall)
    if fate is Fate.BEHIND_OTHERS:
        return _behind_others(facts)
    if fate is Fate.NO_WORKLOAD:
        return _no_workload(facts)
    said = {
        Fate.FINISHED: f"{subject} has finished: Kueue no longer holds it",
        Fate.ADMITTED: f"{subject} is admitted by ClusterQueue {cq}",
        Fate.CHECKS: f"{subject} holds quota in ClusterQueue {cq} and waits for its admission checks (not evaluated)",
        Fate.ADMITS_NEXT: f"{subject} fits ClusterQueue {cq}: Kueue admits it in its next cycle",
        Fate.BEHIND_STRICT_HEAD: (
            f"{subject} fits ClusterQueue {cq} but waits{_queue(facts)}: the ClusterQueue is StrictFIFO and "
            f"Workload {facts.strict_fifo_head} is at its head"
        ),
        Fate.PREEMPTION: f"{subject} fits ClusterQueue {cq} only if Kueue preempts other Workloads (not evaluated)",
        Fate.BEHIND_COHORT: (
            f"{subject} fits ClusterQueue {cq} but waits{_queue(facts)}: Kueue's next cycle first admits "
            f"{_listed(facts.cohort_ahead)} of other ClusterQueues of its cohort, which take the quota it needs"
        ),
        Fate.COHORT_NOT_EVALUATED: (
            f"{subject} fits ClusterQueue {cq}, but whether Kueue's next cycle admits it hangs on Workloads "
            f"processed before it and on what podwhy does not evaluate ({', '.join(facts.not_evaluated)})"
        ),
        Fate.NO_FLAVOR: f"{subject} waits{_queue(facts)}: no flavor of ClusterQueue {cq} can hold it",
    }
    message = facts.message
    return said.get(fate, f"{subject} is not admitted{_queue(facts)}: {message or facts.granular_reason}")
