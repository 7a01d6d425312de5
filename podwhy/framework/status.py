"""Status codes and statuses, named as the scheduler framework names them."""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum

import msgspec

from podwhy.framework.evidence import AnyEvidence
from podwhy.framework.notevaluated import NotEvaluated


class Code(IntEnum):
    Success = 0
    Error = 1
    Unschedulable = 2
    UnschedulableAndUnresolvable = 3
    Wait = 4
    Skip = 5
    Pending = 6


class Status(msgspec.Struct):
    code: Code = Code.Success
    reasons: list[str] = msgspec.field(default_factory=list)
    plugin: str = ""
    evidence: list[AnyEvidence] = msgspec.field(default_factory=list)
    # podwhy's own verdict for a plugin it could not run (kinds absent from the snapshot).
    not_evaluated: NotEvaluated | None = None

    def is_success(self) -> bool:
        return self.code == Code.Success

    def is_skip(self) -> bool:
        return self.code == Code.Skip

    def is_rejected(self) -> bool:
        return self.code in (Code.Unschedulable, Code.UnschedulableAndUnresolvable)

    def message(self) -> str:
        return ", ".join(self.reasons)


SUCCESS_CODES = (Code.Success, Code.Skip)


def success() -> Status:
    return Status()


def skip() -> Status:
    return Status(Code.Skip)


def unschedulable(*reasons: str, evidence: Sequence[AnyEvidence] = ()) -> Status:
    return Status(Code.Unschedulable, list(reasons), evidence=list(evidence))


def unresolvable(*reasons: str, evidence: Sequence[AnyEvidence] = ()) -> Status:
    return Status(Code.UnschedulableAndUnresolvable, list(reasons), evidence=list(evidence))


def error(message: str) -> Status:
    return Status(Code.Error, [message])
