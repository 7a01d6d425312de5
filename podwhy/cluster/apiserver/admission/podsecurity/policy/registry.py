"""pod-security-admission's policy/registry.go: the checks of a level at a policy version, and the
evaluation of a pod against them.

Each check has versions, from the policy version where it starts; the restricted level is its own
checks plus the baseline checks they do not override. A policy version newer than the API server
(the emulated release) is read as the server's own. Every check runs, in upstream's order
(baseline IDs sorted, then restricted IDs sorted), so the refusal names every violation as the
API server does."""

from __future__ import annotations

from podwhy.cluster.apiserver.admission.podsecurity.levels import BASELINE, PRIVILEGED, RESTRICTED
from podwhy.cluster.apiserver.admission.podsecurity.messages import Violation
from podwhy.cluster.apiserver.admission.podsecurity.policy import host, privileges, profiles, volumetypes
from podwhy.cluster.apiserver.admission.podsecurity.policy.checks import CheckFn
from podwhy.model import objects as o

# policy.DefaultChecks: baseline checks first, then restricted ones, each by ID (the registry's order).
CHECKS = tuple(
    sorted(
        (*host.CHECKS, *volumetypes.CHECKS, *privileges.CHECKS, *profiles.CHECKS),
        key=lambda c: (c.level != BASELINE, c.id),
    )
)

# The newest policy version any check starts at: later versions check what it checks.
NEWEST_CHECKS = max(v.since for check in CHECKS for v in check.versions)
# Policy versions at which some check changes: a level checks the same between two of them.
_CHANGES = sorted({v.since for check in CHECKS for v in check.versions})


def _checks_at(level: str, minor: int) -> tuple[tuple[str, CheckFn], ...]:
    """The checks of LEVEL at policy version v1.MINOR, by ID, in order (policy/registry.go's populate)."""
    if level == PRIVILEGED:
        return ()
    restricted = {c.id: c.at(minor) for c in CHECKS if c.level == RESTRICTED} if level == RESTRICTED else {}
    overridden = {oid for v in restricted.values() if v is not None for oid in v.overrides}
    out: list[tuple[str, CheckFn]] = []
    for c in CHECKS:
        versioned = c.at(minor)
        if versioned is None or (c.level == BASELINE and c.id in overridden):
            continue
        if c.level == RESTRICTED and level != RESTRICTED:
            continue
        out.append((c.id, versioned.check))
    return tuple(out)


_CHECKS_AT: dict[tuple[str, int], tuple[tuple[str, CheckFn], ...]] = {
    (level, minor): _checks_at(level, minor) for level in (BASELINE, RESTRICTED) for minor in range(NEWEST_CHECKS + 1)
}


def _effective(version: int | None, newest: int) -> int:
    """The policy version checked: latest, or a version newer than the API server's (NEWEST), is
    the server's own; beyond the newest check, nothing changes."""
    minor = newest if version is None else min(version, newest)
    return min(minor, NEWEST_CHECKS)


def evaluate(pod: o.Pod, level: str, version: int | None = None, *, newest: int = NEWEST_CHECKS) -> list[Violation]:
    """Every check of LEVEL at policy VERSION (None: latest) POD fails, in the API server's order,
    as (reason, detail); NEWEST is the emulated API server's minor release."""
    if level == PRIVILEGED:
        return []
    checks = _CHECKS_AT[(level, _effective(version, newest))]
    return [v for _, check in checks if (v := check(pod.metadata, pod.spec)) is not None]


def check_ids(level: str, version: int | None = None, *, newest: int = NEWEST_CHECKS) -> list[str]:
    """The IDs of the checks `evaluate` runs, in its order."""
    return [check_id for check_id, _ in _CHECKS_AT.get((level, _effective(version, newest)), ())]


def refused_by_some_policy(pod: o.Pod, newest: int = NEWEST_CHECKS) -> bool:
    """Whether any namespace could refuse POD: it fails the restricted level at some policy version
    (latest first: most pods fail it)."""
    top = _effective(None, newest)
    for minor in (top, *(minor for minor in reversed(_CHANGES) if minor < top)):
        for _, check in _CHECKS_AT[(RESTRICTED, minor)]:
            if check(pod.metadata, pod.spec) is not None:
                return True
    return False
