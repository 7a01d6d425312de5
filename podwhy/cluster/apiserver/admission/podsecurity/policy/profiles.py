"""The checks of the security profiles and kernel settings a pod asks for
(policy/check_appArmorProfile.go, check_seLinuxOptions.go, check_seccompProfile_baseline.go,
check_seccompProfile_restricted.go, check_procMount_baseline.go, check_procMount_restricted.go,
check_sysctls.go), each check's ID, level and versions as data in CHECKS."""

from __future__ import annotations

from podwhy.cluster.apiserver.admission.podsecurity.levels import BASELINE, RESTRICTED
from podwhy.cluster.apiserver.admission.podsecurity.messages import Violation, join_quote, named, plural
from podwhy.cluster.apiserver.admission.podsecurity.policy.checks import (
    Check,
    CheckFn,
    containers,
    unless_windows,
    user_namespace,
    versioned,
)
from podwhy.helpers.fielderrors import go_quote
from podwhy.model import objects as o

APPARMOR_ANNOTATION_PREFIX = "container.apparmor.security.beta.kubernetes.io/"
_ALLOWED_PROFILE_TYPES = ("RuntimeDefault", "Localhost")


def _app_armor_profile(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    setters: list[str] = []
    bad_values: set[str] = set()
    psc = spec.security_context
    if psc is not None and psc.app_armor_profile is not None:
        if psc.app_armor_profile.type not in _ALLOWED_PROFILE_TYPES:
            setters.append("pod")
            bad_values.add(psc.app_armor_profile.type)
    bad: list[str] = []
    for c in containers(spec):
        sc = c.security_context
        if sc is not None and sc.app_armor_profile is not None:
            if sc.app_armor_profile.type not in _ALLOWED_PROFILE_TYPES:
                bad.append(c.name)
                bad_values.add(sc.app_armor_profile.type)
    if bad:
        setters.append(named(bad))
    annotations = sorted(
        f"{key}={go_quote(value)}"
        for key, value in meta.annotations.items()
        if key.startswith(APPARMOR_ANNOTATION_PREFIX)
        and not (not value or value == "runtime/default" or value.startswith("localhost/"))
    )
    values = sorted(bad_values) + annotations
    if annotations:
        setters.append(plural("annotation", "annotations", len(annotations)))
    if not setters:
        return None
    return (
        plural("forbidden AppArmor profile", "forbidden AppArmor profiles", len(values)),
        f"{' and '.join(setters)} must not set AppArmor profile type to {join_quote(values)}",
    )


_SELINUX_TYPES_1_0 = frozenset({"", "container_t", "container_init_t", "container_kvm_t"})
_SELINUX_TYPES_1_31 = _SELINUX_TYPES_1_0 | {"container_engine_t"}


def _se_linux_options(allowed: frozenset[str]) -> CheckFn:
    def check(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
        setters: list[str] = []
        bad_types: set[str] = set()
        user = role = False

        def valid(opts: o.SELinuxOptions) -> bool:
            nonlocal user, role
            ok = True
            if opts.type not in allowed:
                ok = False
                bad_types.add(opts.type)
            if opts.user:
                ok, user = False, True
            if opts.role:
                ok, role = False, True
            return ok

        psc = spec.security_context
        if psc is not None and psc.se_linux_options is not None and not valid(psc.se_linux_options):
            setters.append("pod")
        bad = [
            c.name
            for c in containers(spec)
            if c.security_context is not None
            and c.security_context.se_linux_options is not None
            and not valid(c.security_context.se_linux_options)
        ]
        if bad:
            setters.append(named(bad))
        if not setters:
            return None
        data: list[str] = []
        if bad_types:
            data.append(f"{plural('type', 'types', len(bad_types))} {join_quote(sorted(bad_types))}")
        if user:
            data.append("user may not be set")
        if role:
            data.append("role may not be set")
        return (
            "seLinuxOptions",
            f"{' and '.join(setters)} set forbidden securityContext.seLinuxOptions: {'; '.join(data)}",
        )

    return check


SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CONTAINER_ANNOTATION_PREFIX = "container.seccomp.security.alpha.kubernetes.io/"
_VALID_SECCOMP_TYPES = ("RuntimeDefault", "Localhost")


def _valid_seccomp_annotation(value: str) -> bool:
    return value in ("runtime/default", "docker/default") or value.startswith("localhost/")


def _seccomp_baseline_1_0(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    """Before v1.19: the alpha annotations."""
    forbidden: set[str] = set()
    keys = [SECCOMP_POD_ANNOTATION] + [SECCOMP_CONTAINER_ANNOTATION_PREFIX + c.name for c in containers(spec)]
    for key in keys:
        value = meta.annotations.get(key)
        if value is not None and not _valid_seccomp_annotation(value):
            forbidden.add(f"{key}={go_quote(value)}")
    if not forbidden:
        return None
    return (
        "seccompProfile",
        f"forbidden {plural('annotation', 'annotations', len(forbidden))} {', '.join(sorted(forbidden))}",
    )


def _seccomp(spec: o.PodSpec, required: bool) -> Violation | None:
    """seccompProfileBaseline_1_19 (REQUIRED False) and seccompProfileRestricted_1_19 (True)."""
    setters: list[str] = []
    bad_values: set[str] = set()
    pod_set = False
    psc = spec.security_context
    if psc is not None and psc.seccomp_profile is not None:
        if psc.seccomp_profile.type not in _VALID_SECCOMP_TYPES:
            setters.append("pod")
            bad_values.add(psc.seccomp_profile.type)
        else:
            pod_set = True
    explicit: list[str] = []
    implicit: list[str] = []
    for c in containers(spec):
        sc = c.security_context
        if sc is not None and sc.seccomp_profile is not None:
            if sc.seccomp_profile.type not in _VALID_SECCOMP_TYPES:
                explicit.append(c.name)
                bad_values.add(sc.seccomp_profile.type)
        elif not pod_set:
            implicit.append(c.name)
    if explicit:
        setters.append(named(explicit))
    if setters:
        return (
            "seccompProfile",
            f"{' and '.join(setters)} must not set securityContext.seccompProfile.type to "
            f"{join_quote(sorted(bad_values))}",
        )
    if required and implicit:
        return (
            "seccompProfile",
            f'pod or {named(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
        )
    return None


def _seccomp_baseline_1_19(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    return _seccomp(spec, required=False)


def _seccomp_restricted_1_19(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    return _seccomp(spec, required=True)


def _proc_mount(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    bad: list[str] = []
    types: set[str] = set()
    for c in containers(spec):
        sc = c.security_context
        if sc is None or sc.proc_mount is None or sc.proc_mount == "Default":
            continue
        bad.append(c.name)
        types.add(sc.proc_mount)
    if not bad:
        return None
    return "procMount", f"{named(bad)} must not set securityContext.procMount to {join_quote(sorted(types))}"


def _proc_mount_1_35(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    return None if user_namespace(spec) else _proc_mount(meta, spec)


_SYSCTLS_1_0 = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_unprivileged_port_start",
    }
)


_SYSCTLS_1_27 = _SYSCTLS_1_0 | {"net.ipv4.ip_local_reserved_ports"}
_SYSCTLS_1_29 = _SYSCTLS_1_27 | {
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
}


_SYSCTLS_1_32 = _SYSCTLS_1_29 | {"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"}


def _sysctls(allowed: frozenset[str]) -> CheckFn:
    def check(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
        psc = spec.security_context
        forbidden = [s.name for s in psc.sysctls if s.name not in allowed] if psc is not None else []
        return ("forbidden sysctls", ", ".join(forbidden)) if forbidden else None

    return check


CHECKS = (
    Check("appArmorProfile", BASELINE, (versioned(0, _app_armor_profile),)),
    Check(
        "seLinuxOptions",
        BASELINE,
        (
            versioned(0, _se_linux_options(_SELINUX_TYPES_1_0)),
            versioned(31, _se_linux_options(_SELINUX_TYPES_1_31)),
        ),
    ),
    Check(
        "seccompProfile_baseline",
        BASELINE,
        (versioned(0, _seccomp_baseline_1_0), versioned(19, _seccomp_baseline_1_19)),
    ),
    Check(
        "seccompProfile_restricted",
        RESTRICTED,
        (
            versioned(19, _seccomp_restricted_1_19, "seccompProfile_baseline"),
            versioned(25, unless_windows(_seccomp_restricted_1_19), "seccompProfile_baseline"),
        ),
    ),
    Check("procMount", BASELINE, (versioned(0, _proc_mount), versioned(35, _proc_mount_1_35))),
    Check("procMount_restricted", RESTRICTED, (versioned(35, _proc_mount, "procMount"),)),
    Check(
        "sysctls",
        BASELINE,
        (
            versioned(0, _sysctls(_SYSCTLS_1_0)),
            versioned(27, _sysctls(_SYSCTLS_1_27)),
            versioned(29, _sysctls(_SYSCTLS_1_29)),
            versioned(32, _sysctls(_SYSCTLS_1_32)),
        ),
    ),
)
