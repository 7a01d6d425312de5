"""pod-security-admission's policy/checks.go and visitor.go: a check and its versions (from the
policy version where each starts; a restricted version names the baseline checks it overrides),
the pod's containers as the checks visit them, and the relaxations later versions make (a
Windows pod, a pod in a user namespace)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import msgspec

from podwhy.cluster.apiserver.admission.podsecurity.messages import Violation
from podwhy.model import objects as o

CheckFn = Callable[[o.ObjectMeta, o.PodSpec], Violation | None]


class VersionedCheck(msgspec.Struct, frozen=True):
    since: int  # the minor of the first policy version it applies to
    check: CheckFn
    overrides: tuple[str, ...] = ()  # baseline check IDs this restricted check replaces


class Check(msgspec.Struct, frozen=True):
    id: str
    level: str
    versions: tuple[VersionedCheck, ...]  # by increasing `since`

    def at(self, minor: int) -> VersionedCheck | None:
        """The version of the check that applies to policy version v1.MINOR."""
        found = None
        for version in self.versions:
            if version.since <= minor:
                found = version
        return found


def versioned(since: int, check: CheckFn, *overrides: str) -> VersionedCheck:
    """The version of a check from policy version v1.SINCE, overriding the baseline checks OVERRIDES."""
    return VersionedCheck(since, check, overrides)


def containers(spec: o.PodSpec) -> Iterator[o.Container]:
    """visitContainers: init containers, then containers (ephemeral ones cannot be set on create)."""
    yield from spec.init_containers
    yield from spec.containers


def user_namespace(spec: o.PodSpec) -> bool:
    """relaxPolicyForUserNamespacePod: hostUsers: false."""
    return spec.host_users is False


def windows(spec: o.PodSpec) -> bool:
    return spec.os is not None and spec.os.name == "windows"


def unless_windows(check: CheckFn) -> CheckFn:
    """The v1.25 versions of restricted checks: a pod whose spec.os is windows passes."""

    def windows_exempt(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
        return None if windows(spec) else check(meta, spec)

    return windows_exempt


def unless_user_namespace(check: CheckFn) -> CheckFn:
    """The v1.35 versions of the run-as checks: a pod in a user namespace (hostUsers: false) passes."""

    def relaxed(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
        return None if user_namespace(spec) else check(meta, spec)

    return relaxed
