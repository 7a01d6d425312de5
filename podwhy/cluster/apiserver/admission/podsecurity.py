"""PodSecurity admission of pods: the Pod Security Standards a namespace enforces, as
kube-apiserver's PodSecurity plugin checks them (k8s.io/pod-security-admission: the checks of
policy/check_*.go, their registry's per-version order, admission.go's refusal, api/ for the
namespace's labels).

A namespace's `pod-security.kubernetes.io/enforce` label names the level (privileged, baseline,
restricted; an invalid value enforces restricted), `pod-security.kubernetes.io/enforce-version`
the policy version (v1.N or latest; an invalid value is latest). Without labels the default
AdmissionConfiguration applies: privileged, latest (podwhy assumes the default configuration: no
exemptions). Each check has versions, from the policy version where it starts; the restricted
level is its own checks plus the baseline checks they do not override. A policy version newer
than the API server (the emulated release) is read as the server's own. Every check runs, in
upstream's order (baseline IDs sorted, then restricted IDs sorted), so the refusal names every
violation as the API server does:

    violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "app"
    must set securityContext.allowPrivilegeEscalation=false), ...
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from podwhy.cluster.apiserver.admission.attributes import AdmissionRefusalError, Attributes, admitted_without
from podwhy.helpers.fielderrors import go_quote
from podwhy.model import objects as o

NAME = "PodSecurity"

PRIVILEGED = "privileged"
BASELINE = "baseline"
RESTRICTED = "restricted"
LEVELS = (PRIVILEGED, BASELINE, RESTRICTED)

ENFORCE_LEVEL_LABEL = "pod-security.kubernetes.io/enforce"
ENFORCE_VERSION_LABEL = "pod-security.kubernetes.io/enforce-version"

# A check's verdict: None (allowed), or the forbidden reason and its detail.
Violation = tuple[str, str]
CheckFn = Callable[[o.ObjectMeta, o.PodSpec], Violation | None]


@dataclass(frozen=True)
class Policy:
    """A level and a policy version (None: latest), as api.LevelVersion."""

    level: str
    version: int | None = None  # the minor of v1.N

    def __str__(self) -> str:
        return f"{self.level}:{'latest' if self.version is None else f'v1.{self.version}'}"


DEFAULT_POLICY = Policy(PRIVILEGED)


def parse_version(text: str) -> int | None:
    """api.ParseVersion: "latest", or "v1.N" (no leading zero); anything else is latest."""
    if text == "latest" or not text.startswith("v1."):
        return None
    minor = text[3:]
    if not minor.isascii() or not minor.isdigit() or (len(minor) > 1 and minor[0] == "0"):
        return None
    return int(minor)


def enforced_policy(labels: Mapping[str, str]) -> Policy:
    """The policy a namespace of LABELS enforces (api.PolicyToEvaluate): an invalid level fails
    closed (restricted), an invalid version is latest."""
    level, version = DEFAULT_POLICY.level, DEFAULT_POLICY.version
    if ENFORCE_LEVEL_LABEL in labels:
        level = labels[ENFORCE_LEVEL_LABEL]
        if level not in LEVELS:
            level = RESTRICTED
    if ENFORCE_VERSION_LABEL in labels:
        version = parse_version(labels[ENFORCE_VERSION_LABEL])
    return Policy(level, version)


WARN_LEVEL_LABEL = "pod-security.kubernetes.io/warn"
WARN_VERSION_LABEL = "pod-security.kubernetes.io/warn-version"


def warn_policy(labels: Mapping[str, str]) -> Policy:
    """The policy a namespace of LABELS warns of (api.PolicyToEvaluate): an invalid level fails
    open (privileged); without a warn level, an enforce level stricter than it (and its version,
    without a warn version)."""
    level, version = DEFAULT_POLICY.level, DEFAULT_POLICY.version
    has_level = WARN_LEVEL_LABEL in labels
    if has_level:
        level = labels[WARN_LEVEL_LABEL] if labels[WARN_LEVEL_LABEL] in LEVELS else PRIVILEGED
    has_version = WARN_VERSION_LABEL in labels
    if has_version:
        version = parse_version(labels[WARN_VERSION_LABEL])
    enforce_set = labels.get(ENFORCE_LEVEL_LABEL) in LEVELS
    if not has_level and enforce_set:
        enforce = enforced_policy(labels)
        if LEVELS.index(enforce.level) > LEVELS.index(level):
            level = enforce.level
            if not has_version:
                version = enforce.version
    return Policy(level, version)


# ------------------------------------------------------------------ helpers (policy/helpers.go)


def _plural(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


def _join_quote(items: list[str]) -> str:
    return '"' + '", "'.join(items) + '"' if items else ""


def _containers(spec: o.PodSpec) -> Iterator[o.Container]:
    """visitContainers: init containers, then containers (ephemeral ones cannot be set on create)."""
    yield from spec.init_containers
    yield from spec.containers


def _named(names: list[str]) -> str:
    return f"{_plural('container', 'containers', len(names))} {_join_quote(names)}"


def _user_namespace(spec: o.PodSpec) -> bool:
    """relaxPolicyForUserNamespacePod: hostUsers: false."""
    return spec.host_users is False


def _windows(spec: o.PodSpec) -> bool:
    return spec.os is not None and spec.os.name == "windows"


# ------------------------------------------------------------------ baseline checks


_APPARMOR_ANNOTATION_PREFIX = "container.apparmor.security.beta.kubernetes.io/"
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
    for c in _containers(spec):
        sc = c.security_context
        if sc is not None and sc.app_armor_profile is not None:
            if sc.app_armor_profile.type not in _ALLOWED_PROFILE_TYPES:
                bad.append(c.name)
                bad_values.add(sc.app_armor_profile.type)
    if bad:
        setters.append(_named(bad))
    annotations = sorted(
        f"{key}={go_quote(value)}"
        for key, value in meta.annotations.items()
        if key.startswith(_APPARMOR_ANNOTATION_PREFIX)
        and not (not value or value == "runtime/default" or value.startswith("localhost/"))
    )
    values = sorted(bad_values) + annotations
    if annotations:
        setters.append(_plural("annotation", "annotations", len(annotations)))
    if not setters:
        return None
    return (
        _plural("forbidden AppArmor profile", "forbidden AppArmor profiles", len(values)),
        f"{' and '.join(setters)} must not set AppArmor profile type to {_join_quote(values)}",
    )


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
    for c in _containers(spec):
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
        f"{_named(bad)} must not include {_join_quote(sorted(added))} in securityContext.capabilities.add",
    )


def _host_namespaces(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    shared = [
        f"{name}=true"
        for name, on in (("hostNetwork", spec.host_network), ("hostPID", spec.host_pid), ("hostIPC", spec.host_ipc))
        if on
    ]
    return ("host namespaces", ", ".join(shared)) if shared else None


def _host_path_volumes(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    names = [v.name for v in spec.volumes if v.host_path is not None]
    if not names:
        return None
    return "hostPath volumes", f"{_plural('volume', 'volumes', len(names))} {_join_quote(names)}"


def _host_ports(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    bad: list[str] = []
    ports: set[str] = set()
    for c in _containers(spec):
        used = [str(p.host_port) for p in c.ports if p.host_port != 0]
        if used:
            bad.append(c.name)
            ports.update(used)
    if not bad:
        return None
    return (
        "hostPort",
        f"{_named(bad)} {_plural('uses', 'use', len(bad))} {_plural('hostPort', 'hostPorts', len(ports))} "
        + ", ".join(sorted(ports)),
    )


def _handler_hosts(handler: o.Handler | None) -> list[str]:
    if handler is None:
        return []
    hosts = []
    if handler.http_get is not None and handler.http_get.host:
        hosts.append(handler.http_get.host)
    if handler.tcp_socket is not None and handler.tcp_socket.host:
        hosts.append(handler.tcp_socket.host)
    return hosts


def _host_probes_and_host_lifecycle(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    bad: set[str] = set()
    hosts: set[str] = set()
    for c in _containers(spec):
        handlers = [c.liveness_probe, c.readiness_probe, c.startup_probe]
        if c.lifecycle is not None:
            handlers += [c.lifecycle.post_start, c.lifecycle.pre_stop]
        for handler in handlers:
            found = _handler_hosts(handler)
            if found:
                bad.add(c.name)
                hosts.update(found)
    if not bad:
        return None
    return (
        "probe or lifecycle host",
        f"{_named(sorted(bad))} {_plural('uses', 'use', len(bad))} "
        f"{_plural('probe or lifecycle host', 'probe or lifecycle hosts', len(hosts))} {_join_quote(sorted(hosts))}",
    )


def _privileged(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    bad = [c.name for c in _containers(spec) if c.security_context is not None and c.security_context.privileged]
    if not bad:
        return None
    return "privileged", f"{_named(bad)} must not set securityContext.privileged=true"


def _proc_mount(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    bad: list[str] = []
    types: set[str] = set()
    for c in _containers(spec):
        sc = c.security_context
        if sc is None or sc.proc_mount is None or sc.proc_mount == "Default":
            continue
        bad.append(c.name)
        types.add(sc.proc_mount)
    if not bad:
        return None
    return "procMount", f"{_named(bad)} must not set securityContext.procMount to {_join_quote(sorted(types))}"


def _proc_mount_1_35(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    return None if _user_namespace(spec) else _proc_mount(meta, spec)


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
            for c in _containers(spec)
            if c.security_context is not None
            and c.security_context.se_linux_options is not None
            and not valid(c.security_context.se_linux_options)
        ]
        if bad:
            setters.append(_named(bad))
        if not setters:
            return None
        data: list[str] = []
        if bad_types:
            data.append(f"{_plural('type', 'types', len(bad_types))} {_join_quote(sorted(bad_types))}")
        if user:
            data.append("user may not be set")
        if role:
            data.append("role may not be set")
        return (
            "seLinuxOptions",
            f"{' and '.join(setters)} set forbidden securityContext.seLinuxOptions: {'; '.join(data)}",
        )

    return check


_SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_CONTAINER_ANNOTATION_PREFIX = "container.seccomp.security.alpha.kubernetes.io/"
_VALID_SECCOMP_TYPES = ("RuntimeDefault", "Localhost")


def _valid_seccomp_annotation(value: str) -> bool:
    return value in ("runtime/default", "docker/default") or value.startswith("localhost/")


def _seccomp_baseline_1_0(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    """Before v1.19: the alpha annotations."""
    forbidden: set[str] = set()
    keys = [_SECCOMP_POD_ANNOTATION] + [_SECCOMP_CONTAINER_ANNOTATION_PREFIX + c.name for c in _containers(spec)]
    for key in keys:
        value = meta.annotations.get(key)
        if value is not None and not _valid_seccomp_annotation(value):
            forbidden.add(f"{key}={go_quote(value)}")
    if not forbidden:
        return None
    return (
        "seccompProfile",
        f"forbidden {_plural('annotation', 'annotations', len(forbidden))} {', '.join(sorted(forbidden))}",
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
    for c in _containers(spec):
        sc = c.security_context
        if sc is not None and sc.seccomp_profile is not None:
            if sc.seccomp_profile.type not in _VALID_SECCOMP_TYPES:
                explicit.append(c.name)
                bad_values.add(sc.seccomp_profile.type)
        elif not pod_set:
            implicit.append(c.name)
    if explicit:
        setters.append(_named(explicit))
    if setters:
        return (
            "seccompProfile",
            f"{' and '.join(setters)} must not set securityContext.seccompProfile.type to "
            f"{_join_quote(sorted(bad_values))}",
        )
    if required and implicit:
        return (
            "seccompProfile",
            f"pod or {_named(implicit)} must set securityContext.seccompProfile.type to "
            '"RuntimeDefault" or "Localhost"',
        )
    return None


def _seccomp_baseline_1_19(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    return _seccomp(spec, required=False)


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


def _windows_host_process(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    bad = [
        c.name
        for c in _containers(spec)
        if c.security_context is not None
        and c.security_context.windows_options is not None
        and c.security_context.windows_options.host_process
    ]
    setters: list[str] = []
    psc = spec.security_context
    if psc is not None and psc.windows_options is not None and psc.windows_options.host_process:
        setters.append("pod")
    if bad:
        setters.append(_named(bad))
    if not setters:
        return None
    return "hostProcess", f"{' and '.join(setters)} must not set securityContext.windowsOptions.hostProcess=true"


# ------------------------------------------------------------------ restricted checks


def _allow_privilege_escalation_1_8(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    bad = [
        c.name
        for c in _containers(spec)
        if c.security_context is None or c.security_context.allow_privilege_escalation is not False
    ]
    if not bad:
        return None
    return "allowPrivilegeEscalation != false", f"{_named(bad)} must set securityContext.allowPrivilegeEscalation=false"


def _unless_windows(check: CheckFn) -> CheckFn:
    """The v1.25 versions of restricted checks: a pod whose spec.os is windows passes."""

    def windows_exempt(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
        return None if _windows(spec) else check(meta, spec)

    return windows_exempt


def _unless_user_namespace(check: CheckFn) -> CheckFn:
    """The v1.35 versions of the run-as checks: a pod in a user namespace (hostUsers: false) passes."""

    def relaxed(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
        return None if _user_namespace(spec) else check(meta, spec)

    return relaxed


def _capabilities_restricted_1_22(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    missing_drop: list[str] = []
    adding: list[str] = []
    forbidden: set[str] = set()
    for c in _containers(spec):
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
        details.append(f'{_named(missing_drop)} must set securityContext.capabilities.drop=["ALL"]')
    if adding:
        details.append(
            f"{_named(adding)} must not include {_join_quote(sorted(forbidden))} in securityContext.capabilities.add"
        )
    return ("unrestricted capabilities", "; ".join(details)) if details else None


# The volume sources the restricted level allows, and the names of the others in upstream's order.
_ALLOWED_VOLUME_SOURCES = (
    "config_map",
    "csi",
    "downward_api",
    "empty_dir",
    "ephemeral",
    "image",
    "persistent_volume_claim",
    "projected",
    "secret",
)
_RESTRICTED_VOLUME_TYPES = (
    ("host_path", "hostPath"),
    ("gce_persistent_disk", "gcePersistentDisk"),
    ("aws_elastic_block_store", "awsElasticBlockStore"),
    ("git_repo", "gitRepo"),
    ("nfs", "nfs"),
    ("iscsi", "iscsi"),
    ("glusterfs", "glusterfs"),
    ("rbd", "rbd"),
    ("flex_volume", "flexVolume"),
    ("cinder", "cinder"),
    ("cephfs", "cephfs"),
    ("flocker", "flocker"),
    ("fc", "fc"),
    ("azure_file", "azureFile"),
    ("vsphere_volume", "vsphereVolume"),
    ("quobyte", "quobyte"),
    ("azure_disk", "azureDisk"),
    ("photon_persistent_disk", "photonPersistentDisk"),
    ("portworx_volume", "portworxVolume"),
    ("scale_io", "scaleIO"),
    ("storageos", "storageos"),
)


def _restricted_volumes(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    bad: list[str] = []
    types: set[str] = set()
    for v in spec.volumes:
        if any(getattr(v, source) is not None for source in _ALLOWED_VOLUME_SOURCES):
            continue
        bad.append(v.name)
        types.add(next((name for field, name in _RESTRICTED_VOLUME_TYPES if getattr(v, field) is not None), "unknown"))
    if not bad:
        return None
    return (
        "restricted volume types",
        f"{_plural('volume', 'volumes', len(bad))} {_join_quote(bad)} {_plural('uses', 'use', len(bad))} "
        f"{_plural('restricted volume type', 'restricted volume types', len(types))} {_join_quote(sorted(types))}",
    )


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
    for c in _containers(spec):
        sc = c.security_context
        if sc is not None and sc.run_as_non_root is not None:
            if not sc.run_as_non_root:
                explicit.append(c.name)
        elif not pod_non_root:
            implicit.append(c.name)
    if explicit:
        setters.append(_named(explicit))
    if setters:
        return "runAsNonRoot != true", f"{' and '.join(setters)} must not set securityContext.runAsNonRoot=false"
    if implicit:
        return "runAsNonRoot != true", f"pod or {_named(implicit)} must set securityContext.runAsNonRoot=true"
    return None


def _run_as_user_1_23(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    setters: list[str] = []
    psc = spec.security_context
    if psc is not None and psc.run_as_user == 0:
        setters.append("pod")
    bad = [c.name for c in _containers(spec) if c.security_context is not None and c.security_context.run_as_user == 0]
    if bad:
        setters.append(_named(bad))
    return ("runAsUser=0", f"{' and '.join(setters)} must not set runAsUser=0") if setters else None


def _seccomp_restricted_1_19(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    return _seccomp(spec, required=True)


# ------------------------------------------------------------------ the registry


@dataclass(frozen=True)
class VersionedCheck:
    since: int  # the minor of the first policy version it applies to
    check: CheckFn
    overrides: tuple[str, ...] = ()  # baseline check IDs this restricted check replaces


@dataclass(frozen=True)
class Check:
    id: str
    level: str
    versions: tuple[VersionedCheck, ...]  # by increasing `since`

    def at(self, minor: int) -> VersionedCheck | None:
        """The version of the check that applies to policy version v1.MINOR."""
        found = None
        for versioned in self.versions:
            if versioned.since <= minor:
                found = versioned
        return found


def _v(since: int, check: CheckFn, *overrides: str) -> VersionedCheck:
    return VersionedCheck(since, check, overrides)


CHECKS = (
    Check("appArmorProfile", BASELINE, (_v(0, _app_armor_profile),)),
    Check("capabilities_baseline", BASELINE, (_v(0, _capabilities_baseline),)),
    Check("hostNamespaces", BASELINE, (_v(0, _host_namespaces),)),
    Check("hostPathVolumes", BASELINE, (_v(0, _host_path_volumes),)),
    Check("hostPorts", BASELINE, (_v(0, _host_ports),)),
    Check("hostProbesAndHostLifecycle", BASELINE, (_v(34, _host_probes_and_host_lifecycle),)),
    Check("privileged", BASELINE, (_v(0, _privileged),)),
    Check("procMount", BASELINE, (_v(0, _proc_mount), _v(35, _proc_mount_1_35))),
    Check(
        "seLinuxOptions",
        BASELINE,
        (_v(0, _se_linux_options(_SELINUX_TYPES_1_0)), _v(31, _se_linux_options(_SELINUX_TYPES_1_31))),
    ),
    Check("seccompProfile_baseline", BASELINE, (_v(0, _seccomp_baseline_1_0), _v(19, _seccomp_baseline_1_19))),
    Check(
        "sysctls",
        BASELINE,
        (
            _v(0, _sysctls(_SYSCTLS_1_0)),
            _v(27, _sysctls(_SYSCTLS_1_27)),
            _v(29, _sysctls(_SYSCTLS_1_29)),
            _v(32, _sysctls(_SYSCTLS_1_32)),
        ),
    ),
    Check("windowsHostProcess", BASELINE, (_v(0, _windows_host_process),)),
    Check(
        "allowPrivilegeEscalation",
        RESTRICTED,
        (_v(8, _allow_privilege_escalation_1_8), _v(25, _unless_windows(_allow_privilege_escalation_1_8))),
    ),
    Check(
        "capabilities_restricted",
        RESTRICTED,
        (
            _v(22, _capabilities_restricted_1_22, "capabilities_baseline"),
            _v(25, _unless_windows(_capabilities_restricted_1_22), "capabilities_baseline"),
        ),
    ),
    Check("procMount_restricted", RESTRICTED, (_v(35, _proc_mount, "procMount"),)),
    Check("restrictedVolumes", RESTRICTED, (_v(0, _restricted_volumes, "hostPathVolumes"),)),
    Check(
        "runAsNonRoot", RESTRICTED, (_v(0, _run_as_non_root_1_0), _v(35, _unless_user_namespace(_run_as_non_root_1_0)))
    ),
    Check("runAsUser", RESTRICTED, (_v(23, _run_as_user_1_23), _v(35, _unless_user_namespace(_run_as_user_1_23)))),
    Check(
        "seccompProfile_restricted",
        RESTRICTED,
        (
            _v(19, _seccomp_restricted_1_19, "seccompProfile_baseline"),
            _v(25, _unless_windows(_seccomp_restricted_1_19), "seccompProfile_baseline"),
        ),
    ),
)
# The newest policy version any check starts at: later versions check what it checks.
NEWEST_CHECKS = max(v.since for check in CHECKS for v in check.versions)
# Policy versions at which some check changes: a level checks the same between two of them.
_CHANGES = sorted({v.since for check in CHECKS for v in check.versions})
# Baseline checks first, then restricted ones, each by ID (the registry's order).
_ORDER = sorted(CHECKS, key=lambda c: (c.level != BASELINE, c.id))


def _checks_at(level: str, minor: int) -> tuple[tuple[str, CheckFn], ...]:
    """The checks of LEVEL at policy version v1.MINOR, by ID, in order (policy/registry.go's populate)."""
    if level == PRIVILEGED:
        return ()
    restricted = {c.id: c.at(minor) for c in _ORDER if c.level == RESTRICTED} if level == RESTRICTED else {}
    overridden = {oid for v in restricted.values() if v is not None for oid in v.overrides}
    out: list[tuple[str, CheckFn]] = []
    for c in _ORDER:
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


def refusal(policy: Policy, violations: list[Violation]) -> str:
    """The API server's words after `pods "NAME" is forbidden: ` (AggregateCheckResult.ForbiddenDetail)."""
    parts = [f"{reason} ({detail})" if detail else reason for reason, detail in violations]
    return f'violates PodSecurity "{policy}": {", ".join(parts)}'


def refused_by_some_policy(pod: o.Pod, newest: int = NEWEST_CHECKS) -> bool:
    """Whether any namespace could refuse POD: it fails the restricted level at some policy version
    (latest first: most pods fail it)."""
    top = _effective(None, newest)
    for minor in (top, *(minor for minor in reversed(_CHANGES) if minor < top)):
        for _, check in _CHECKS_AT[(RESTRICTED, minor)]:
            if check(pod.metadata, pod.spec) is not None:
                return True
    return False


def validate_pod(pod: o.Pod, attributes: Attributes) -> None:
    """PodSecurity admission: the policy the pod's namespace enforces (its labels; none:
    privileged), refused (AdmissionRefusalError) with every check it fails. Without the Namespace
    object and Namespaces the snapshot can vouch for, a pod some policy would refuse is admitted
    without it (its namespace's labels are unknown)."""
    snapshot, emulation = attributes.snapshot, attributes.emulation
    namespace = pod.metadata.namespace
    ns = snapshot.namespaces.get(namespace)
    if ns is None and "Namespace" in snapshot.missing:
        if refused_by_some_policy(pod, emulation.minor):
            admitted_without(pod, snapshot, "Namespace")
        return
    labels = ns.metadata.labels if ns is not None else {}
    policy = enforced_policy(labels)
    violations = evaluate(pod, policy.level, policy.version, newest=emulation.minor)
    if violations:
        set_labels = ", ".join(
            f"{key}={labels[key]}" for key in (ENFORCE_LEVEL_LABEL, ENFORCE_VERSION_LABEL) if key in labels
        )
        cause = f"namespace {namespace} is labelled {set_labels}"
        raise AdmissionRefusalError(pod, NAME, refusal(policy, violations), cause)
