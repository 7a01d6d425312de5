"""What happens to a pod, and the exit code of every command: each written once (docs/cli.md's
table of exit codes says the same, tests/cli/test_readme.py checks it)."""

from __future__ import annotations

from enum import IntEnum, StrEnum


class ExitCode(IntEnum):
    """podwhy's exit codes, for every command."""

    # explain: the pod fits; pending: nothing is stuck; check: every replica placed.
    OK = 0
    # A pod stays Pending (explain, pending) or a replica does (check).
    NOT_SCHEDULED = 1
    # The command line is wrong.
    USAGE = 2
    # Inconclusive (the snapshot cannot vouch for what the answer rests on), or an input podwhy
    # cannot read.
    INCONCLUSIVE = 3
    # pending: a pod waits for a node an autoscaler is adding.
    WAITING_FOR_NODE = 4
    # Interrupted (Ctrl-C), as a shell reports a SIGINT (128 + 2).
    INTERRUPTED = 130


class Verdict(StrEnum):
    """What happens to the pod, with the exit code the command line returns for it."""

    SCHEDULABLE = "Schedulable"
    UNSCHEDULABLE = "Unschedulable"
    GATED = "Gated"
    ALREADY_BOUND = "AlreadyBound"
    # No profile of the configuration has the pod's schedulerName: this scheduler ignores the pod.
    NO_PROFILE = "NoProfile"
    # Some node passes every plugin podwhy could run, but a plugin needing kinds the snapshot
    # lacks was not evaluated, or could not tell some feasible node's verdict (a DRA device
    # selector podwhy's CEL does not evaluate): the scheduler might still reject those nodes.
    INCONCLUSIVE = "Inconclusive"
    ERROR = "Error"
    # podwhy pending: a pod with status.nominatedNodeName, waiting for its victims to go.
    NOMINATED = "Nominated"
    # podwhy pending: bound to a node, but its containers do not run yet.
    BOUND_NOT_RUNNING = "BoundNotRunning"
    # podwhy pending: the snapshot shows scheduler pods serving the pod's schedulerName, and
    # none of them runs (phase Running and Ready).
    NO_SCHEDULER = "NoScheduler"
    # podwhy pending: no node fits, and an autoscaler is adding one for the pod (within its timeout).
    WAITING_FOR_NODE = "WaitingForNode"
    # explain TYPE/NAME, pending: none of the workload's pods is Pending, and its controller
    # cannot create them (its FailedCreate events: a policy, a webhook, a quota refuses them).
    NOT_CREATED = "NotCreated"

    @property
    def exit_code(self) -> int:
        if self is Verdict.SCHEDULABLE:
            return int(ExitCode.OK)
        if self in (Verdict.INCONCLUSIVE, Verdict.ERROR):
            return int(ExitCode.INCONCLUSIVE)
        if self is Verdict.WAITING_FOR_NODE:
            return int(ExitCode.WAITING_FOR_NODE)
        return int(ExitCode.NOT_SCHEDULED)
