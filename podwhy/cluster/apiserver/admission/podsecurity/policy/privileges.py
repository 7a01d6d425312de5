"""The checks of the privileges a pod's containers run with (policy/check_privileged.go,
check_capabilities_baseline.go, check_capabilities_restricted.go,
check_allowPrivilegeEscalation.go, check_runAsNonRoot.go, check_runAsUser.go), each check's ID,
level and versions as data in CHECKS."""

from __future__ import annotations

from podwhy.cluster.apiserver.admission.podsecurity.levels import BASELINE, RESTRICTED
from podwhy.cluster.apiserver.admission.podsecurity.messages import Violation, join_quote, named
from podwhy.cluster.apiserver.admission.podsecurity.policy.checks import (
    Check,
    containers,
    unless_user_namespace,
    unless_windows,
    versioned,
)
from podwhy.model import objects as o


def _privileged(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    bad = [c.name for c in containers(spec) if c.security_context is not None and c.security_context.privileged]
    if not bad:
        return None
    return "privileged", f"{named(bad)} must not set securityContext.privileged=true"


_DEFAULT_CAPABILITIES = frozenset(
    {
        "AUDIT_WRITE",
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "FSETID",
        "KILL",
        "MKNOD",
        "NET_BIND_SERVICE",
        "SETFCAP",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_CHROOT",
    }
)


def _capabilities_baseline(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    bad: list[str] = []
    added: set[str] = set()
    for c in containers(spec):
        sc = c.security_context
        if sc is None or sc.capabilities is None:
            continue
        extra = [cap for cap in sc.capabilities.add if cap not in _DEFAULT_CAPABILITIES]
        if extra:
            bad.append(c.name)
            added.update(extra)
    if not bad:
        return None
    return (
        "non-default capabilities",
        f"{named(bad)} must not include {join_quote(sorted(added))} in securityContext.capabilities.add",
    )


def _capabilities_restricted_1_22(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    missing_drop: list[str] = []
    adding: list[str] = []
    forbidden: set[str] = set()
    for c in containers(spec):
        sc = c.security_context
        if sc is None or sc.capabilities is None:
            missing_drop.append(c.name)
            continue
        if "ALL" not in sc.capabilities.drop:
            missing_drop.append(c.name)
        extra = [cap for cap in sc.capabilities.add if cap != "NET_BIND_SERVICE"]
        if extra:
            adding.append(c.name)
            forbidden.update(extra)
    details: list[str] = []
    if missing_drop:
        details.append(f'{named(missing_drop)} must set securityContext.capabilities.drop=["ALL"]')
    if adding:
        details.append(
            f"{named(adding)} must not include {join_quote(sorted(forbidden))} in securityContext.capabilities.add"
        )
    return ("unrestricted capabilities", "; ".join(details)) if details else None


def _allow_privilege_escalation_1_8(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    bad = [
        c.name
        for c in containers(spec)
        if c.security_context is None or c.security_context.allow_privilege_escalation is not False
    ]
    if not bad:
        return None
    return "allowPrivilegeEscalation != false", f"{named(bad)} must set securityContext.allowPrivilegeEscalation=false"


def _run_as_non_root_1_0(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    setters: list[str] = []
    pod_non_root = False
    psc = spec.security_context
    if psc is not None and psc.run_as_non_root is not None:
        if psc.run_as_non_root:
            pod_non_root = True
        else:
            setters.append("pod")
    explicit: list[str] = []
    implicit: list[str] = []
    for c in containers(spec):
        sc = c.security_context
        if sc is not None and sc.run_as_non_root is not None:
            if not sc.run_as_non_root:
                explicit.append(c.name)
        elif not pod_non_root:
            implicit.append(c.name)
    if explicit:
        setters.append(named(explicit))
    if setters:
        return "runAsNonRoot != true", f"{' and '.join(setters)} must not set securityContext.runAsNonRoot=false"
    if implicit:
        return "runAsNonRoot != true", f"pod or {named(implicit)} must set securityContext.runAsNonRoot=true"
    return None


def _run_as_user_1_23(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    setters: list[str] = []
    psc = spec.security_context
    if psc is not None and psc.run_as_user == 0:
        setters.append("pod")
    bad = [c.name for c in containers(spec) if c.security_context is not None and c.security_context.run_as_user == 0]
    if bad:
        setters.append(named(bad))
    return ("runAsUser=0", f"{' and '.join(setters)} must not set runAsUser=0") if setters else None


CHECKS = (
    Check("privileged", BASELINE, (versioned(0, _privileged),)),
    Check("capabilities_baseline", BASELINE, (versioned(0, _capabilities_baseline),)),
    Check(
        "capabilities_restricted",
        RESTRICTED,
        (
            versioned(22, _capabilities_restricted_1_22, "capabilities_baseline"),
            versioned(25, unless_windows(_capabilities_restricted_1_22), "capabilities_baseline"),
        ),
    ),
    Check(
        "allowPrivilegeEscalation",
        RESTRICTED,
        (
            versioned(8, _allow_privilege_escalation_1_8),
            versioned(25, unless_windows(_allow_privilege_escalation_1_8)),
        ),
    ),
    Check(
        "runAsNonRoot",
        RESTRICTED,
        (versioned(0, _run_as_non_root_1_0), versioned(35, unless_user_namespace(_run_as_non_root_1_0))),
    ),
    Check(
        "runAsUser",
        RESTRICTED,
        (versioned(23, _run_as_user_1_23), versioned(35, unless_user_namespace(_run_as_user_1_23))),
    ),
)
