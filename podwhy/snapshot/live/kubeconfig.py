"""Connecting to the API server as kubectl does, with the official `kubernetes` client: the
kubeconfig files (their multi-path merge, contexts, exec and auth-provider credentials, each exec
plugin run within the request timeout), the in-cluster service account, credentials checked
before any request, --insecure-skip-tls-verify, and the User-Agent podwhy's requests carry
(client-go's clientcmd and rest.Config). The client is imported only here and in source.py."""

from __future__ import annotations

import logging
import os
import platform
import sys
from typing import Any

import yaml

import podwhy
from podwhy.errors import PodwhyError, UsageError, one_line
from podwhy.snapshot import execlimit


def api_client(
    kubeconfig: str | None, context: str | None, timeout: float, insecure_skip_tls_verify: bool, pool_size: int
) -> tuple[Any, str]:
    """The client of the kubeconfig's CONTEXT (the in-cluster service account when no kubeconfig
    is given or found inside a pod), with a connection pool of POOL_SIZE at least, and the
    context's namespace (default "default"); loading credentials as kubectl does."""
    from kubernetes import client, config  # imported only in live mode: `podwhy --help` stays fast
    from kubernetes.config.config_exception import ConfigException

    configuration = client.Configuration()
    in_cluster = kubeconfig is None and not os.environ.get("KUBECONFIG") and _in_cluster()
    try:
        if in_cluster and not os.path.exists(os.path.expanduser("~/.kube/config")):
            config.load_incluster_config(client_configuration=configuration)
            namespace = _in_cluster_namespace()
        else:
            _check_kubeconfig_files(kubeconfig)
            namespace = _context_namespace(kubeconfig, context)
            logged = _load_kube_config(configuration, kubeconfig, context, timeout)
            _check_credentials(configuration, kubeconfig, context, logged, timeout)
    except ConfigException as exc:
        raise PodwhyError(f"cannot load the Kubernetes configuration: {_first_line(exc)}") from None
    except FileNotFoundError as exc:
        raise PodwhyError(f"cannot load the Kubernetes configuration: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{mark.name}: line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or _first_line(exc)
        raise PodwhyError(f"cannot load the Kubernetes configuration: {where}not valid YAML: {problem}") from None
    if insecure_skip_tls_verify:
        skip_tls_verification(configuration)
    if not configuration.verify_ssl:
        _no_insecure_warnings()  # asked for (the flag, or the kubeconfig's insecure-skip-tls-verify)
    configuration.connection_pool_maxsize = max(configuration.connection_pool_maxsize or 0, pool_size)
    # The client would retry connection errors three times over; say what happened at once.
    configuration.retries = 0
    api = client.ApiClient(configuration)
    api.user_agent = user_agent()  # audit logs name podwhy and its version
    return api, namespace


# Go's GOOS and GOARCH names of Python's sys.platform and platform.machine(): kubectl's User-Agent
# (rest.DefaultKubernetesUserAgent) says `linux/amd64`, not `linux/x86_64`.
GOOS = {"win32": "windows", "cygwin": "windows"}
GOARCH = {
    "x86_64": "amd64",
    "amd64": "amd64",
    "aarch64": "arm64",
    "arm64": "arm64",
    "i386": "386",
    "i686": "386",
    "x86": "386",
    "armv6l": "arm",
    "armv7l": "arm",
    "armv8l": "arm",
    "ppc64le": "ppc64le",
    "ppc64": "ppc64",
    "s390x": "s390x",
    "riscv64": "riscv64",
    "loongarch64": "loong64",
    "mips64": "mips64",
}


def go_platform(system: str, machine: str) -> str:
    """`GOOS/GOARCH` of a Python platform (a name Go lacks stays as Python says it, lowercased)."""
    goos = GOOS.get(system, system.lower())
    machine = machine.lower()
    return f"{goos}/{GOARCH.get(machine, machine)}"


def user_agent() -> str:
    """What podwhy's requests say they come from, as kubectl's do ("kubectl/v1.35.0 (linux/amd64) …")."""
    return f"podwhy/{podwhy.version()} ({go_platform(sys.platform, platform.machine())})"


def skip_tls_verification(configuration: Any) -> None:
    """--insecure-skip-tls-verify on a client configuration, as kubectl's override: the server's
    certificate is not checked and the cluster's CA is set aside (kubectl clears it, as a CA with
    the flag is an error); client certificates, tokens and the server name stay as they were."""
    configuration.verify_ssl = False
    configuration.ssl_ca_cert = None
    configuration.ca_cert_data = None


def _no_insecure_warnings() -> None:
    """urllib3 warns on every unverified HTTPS request (several lines on stderr): the user asked
    for it, as kubectl's flag, which says nothing either."""
    import warnings

    from urllib3.exceptions import InsecureRequestWarning

    warnings.filterwarnings("ignore", category=InsecureRequestWarning)


def _kubeconfig_paths(kubeconfig: str | None) -> tuple[list[str], str]:
    """The kubeconfig files kubectl would read, and what named them."""
    if kubeconfig is not None:
        return [p for p in kubeconfig.split(os.pathsep) if p], "--kubeconfig"
    env = os.environ.get("KUBECONFIG", "")
    if env.strip():
        return [p for p in env.split(os.pathsep) if p], "$KUBECONFIG"
    return [os.path.expanduser("~/.kube/config")], "the default"


def _check_kubeconfig_files(kubeconfig: str | None) -> None:
    """A kubeconfig given by name must exist (kubectl: `stat PATH: no such file or directory`);
    of $KUBECONFIG's list, one at least (kubectl skips the missing ones)."""
    paths, named_by = _kubeconfig_paths(kubeconfig)
    missing = [p for p in paths if not os.path.exists(p)]
    if named_by == "--kubeconfig" and missing:
        raise PodwhyError(f"{missing[0]}: the kubeconfig file does not exist (--kubeconfig)")
    if paths and len(missing) == len(paths):
        listed = ", ".join(missing)
        raise PodwhyError(
            f"no kubeconfig: {listed} {'does' if len(missing) == 1 else 'do'} not exist ({named_by})",
            hint="pass --kubeconfig PATH, or --from a dump to explain offline",
        )


class _Logged(logging.Handler):
    """What the client logs while it loads credentials (a failed exec plugin is only logged)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _load_kube_config(configuration: Any, kubeconfig: str | None, context: str | None, timeout: float) -> list[str]:
    """config.load_kube_config, with every user's exec plugin run within TIMEOUT seconds (the
    client waits for one without a limit); returns what the client logged meanwhile."""
    from kubernetes.config.config_exception import ConfigException
    from kubernetes.config.kube_config import KUBE_CONFIG_DEFAULT_LOCATION, KubeConfigLoader, KubeConfigMerger

    merger = KubeConfigMerger(kubeconfig if kubeconfig is not None else KUBE_CONFIG_DEFAULT_LOCATION)
    if merger.config is None:
        raise ConfigException("Invalid kube-config file. No configuration found.")
    if timeout:
        _bound_exec_plugins(merger.config, timeout)
    loader = KubeConfigLoader(
        config_dict=merger.config, active_context=context, config_base_path=None, config_persister=merger.save_changes
    )
    logged = _Logged()
    root = logging.getLogger()
    root.addHandler(logged)
    try:
        loader.load_and_set(configuration)
    finally:
        root.removeHandler(logged)
    return logged.messages


def _bound_exec_plugins(merged: Any, timeout: float) -> None:
    """Each user of the merged kubeconfig (a ConfigNode) whose `exec` runs a plugin runs it through
    execlimit.py instead, within TIMEOUT. The user is replaced by a copy: the files are not changed,
    nor what the client may save back to them (refreshed tokens)."""
    from kubernetes.config.kube_config import ConfigNode

    users = merged.value.get("users") or []
    for i, node in enumerate(users):
        value = node.value if isinstance(node, ConfigNode) else node
        plugin = (value.get("user") or {}).get("exec") if isinstance(value, dict) else None
        if not isinstance(plugin, dict) or not isinstance(plugin.get("command"), str):
            continue
        bounded = {
            **plugin,
            "command": sys.executable,
            "args": ["-P", execlimit.__file__, f"{timeout:g}", plugin["command"], *(plugin.get("args") or [])],
        }
        copy = {**value, "user": {**value["user"], "exec": bounded}}
        users[i] = ConfigNode(node.name, copy, node.path) if isinstance(node, ConfigNode) else copy


def _check_credentials(
    configuration: Any, kubeconfig: str | None, context: str | None, logged: list[str], timeout: float
) -> None:
    """A user entry with an exec plugin (or auth-provider) that gave no credentials: the client
    logs the failure and goes on anonymously; podwhy stops and says so (one line, the client's
    words in it: LOGGED). A plugin that did not answer within TIMEOUT is named with the limit."""
    # The client keeps a token as api_key["BearerToken"] (older releases: "authorization").
    if configuration.api_key.get("BearerToken") or configuration.api_key.get("authorization"):
        return
    if configuration.cert_file:
        return
    # The files merged as kubectl merges them: the first to name a context, a user, wins.
    docs = []
    for path in _kubeconfig_paths(kubeconfig)[0]:
        if os.path.exists(path):
            with open(path, "rb") as f:
                doc = yaml.safe_load(f)
            docs.append(doc if isinstance(doc, dict) else {})
    name = context or next((d["current-context"] for d in docs if d.get("current-context")), None)
    contexts = [c for d in docs for c in d.get("contexts") or [] if isinstance(c, dict)]
    ctx = next((c for c in contexts if c.get("name") == name), None)
    user_name = ((ctx or {}).get("context") or {}).get("user")
    users = [u for d in docs for u in d.get("users") or [] if isinstance(u, dict)]
    user = next((u for u in users if u.get("name") == user_name), None)
    entry = (user or {}).get("user") or {}
    plugin = entry.get("exec")
    if isinstance(plugin, dict) and any(execlimit.TIMEOUT_MARKER in m for m in logged):
        raise PodwhyError(
            f'the kubeconfig\'s exec credential plugin "{plugin.get("command")}" did not answer'
            f" within {timeout:g}s (user {user_name!r}); it was stopped",
            hint="raise --request-timeout; 0 for no limit",
        )
    said = f": {one_line(logged[-1])[:300]}" if logged else ""
    for way in ("exec", "auth-provider"):
        if way in entry:
            raise PodwhyError(
                f"the kubeconfig's user {user_name!r} gave no credentials: its {way} plugin failed or printed"
                f" neither a token nor a client certificate and key{said}",
                hint="run the plugin's command by hand to see its error",
            )


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _in_cluster() -> bool:
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST")) and os.path.exists(
        "/var/run/secrets/kubernetes.io/serviceaccount/token"
    )


def _in_cluster_namespace() -> str:
    try:
        with open("/var/run/secrets/kubernetes.io/serviceaccount/namespace") as f:
            return f.read().strip() or "default"
    except OSError:
        return "default"


def _context_namespace(kubeconfig: str | None, context: str | None) -> str:
    from kubernetes import config

    contexts, active = config.list_kube_config_contexts(config_file=kubeconfig)
    chosen = active
    if context is not None:
        chosen = next((c for c in contexts if c.get("name") == context), None)
        if chosen is None:
            names = ", ".join(sorted(str(c.get("name")) for c in contexts))
            raise UsageError(f"no context {context!r} in the kubeconfig", hint=f"contexts: {names}")
    namespace = (chosen or {}).get("context", {}).get("namespace")
    return str(namespace) if namespace else "default"
