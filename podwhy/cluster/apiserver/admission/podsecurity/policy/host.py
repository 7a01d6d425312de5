"""The checks of what a pod shares with its host (policy/check_hostNamespaces.go,
check_hostPorts.go, check_hostProbesAndhostLifecycle.go, check_windowsHostProcess.go), each
check's ID, level and versions as data in CHECKS."""

from __future__ import annotations

from podwhy.cluster.apiserver.admission.podsecurity.levels import BASELINE
from podwhy.cluster.apiserver.admission.podsecurity.messages import Violation, join_quote, named, plural
from podwhy.cluster.apiserver.admission.podsecurity.policy.checks import Check, containers, versioned
from podwhy.model import objects as o


def _host_namespaces(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    shared = [
        f"{name}=true"
        for name, on in (("hostNetwork", spec.host_network), ("hostPID", spec.host_pid), ("hostIPC", spec.host_ipc))
        if on
    ]
    return ("host namespaces", ", ".join(shared)) if shared else None


def _host_ports(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    bad: list[str] = []
    ports: set[str] = set()
    for c in containers(spec):
        used = [str(p.host_port) for p in c.ports if p.host_port != 0]
        if used:
            bad.append(c.name)
            ports.update(used)
    if not bad:
        return None
    return (
        "hostPort",
        f"{named(bad)} {plural('uses', 'use', len(bad))} {plural('hostPort', 'hostPorts', len(ports))} "
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
    for c in containers(spec):
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
        f"{named(sorted(bad))} {plural('uses', 'use', len(bad))} "
        f"{plural('probe or lifecycle host', 'probe or lifecycle hosts', len(hosts))} {join_quote(sorted(hosts))}",
    )


def _windows_host_process(meta: o.ObjectMeta, spec: o.PodSpec) -> Violation | None:
    bad = [
        c.name
        for c in containers(spec)
        if c.security_context is not None
        and c.security_context.windows_options is not None
        and c.security_context.windows_options.host_process
    ]
    setters: list[str] = []
    psc = spec.security_context
    if psc is not None and psc.windows_options is not None and psc.windows_options.host_process:
        setters.append("pod")
    if bad:
        setters.append(named(bad))
    if not setters:
        return None
    return "hostProcess", f"{' and '.join(setters)} must not set securityContext.windowsOptions.hostProcess=true"


CHECKS = (
    Check("hostNamespaces", BASELINE, (versioned(0, _host_namespaces),)),
    Check("hostPorts", BASELINE, (versioned(0, _host_ports),)),
    Check("hostProbesAndHostLifecycle", BASELINE, (versioned(34, _host_probes_and_host_lifecycle),)),
    Check("windowsHostProcess", BASELINE, (versioned(0, _windows_host_process),)),
)
