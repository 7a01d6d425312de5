"""The API server and credentials, bounded (issue 26): every request has a deadline for its whole
answer (a server sending a byte at a time cannot outlast it), an answer is bounded in size, a
kubeconfig that is missing or malformed is named in one line, and credentials that a plugin did
not give stop podwhy instead of a silent anonymous request."""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
import yaml
from typer.testing import CliRunner

from podwhy.cli import app, parse_duration
from tests.apiserver import FakeApiServer, load_objects
from tests.paths import REPO

EXAMPLE = REPO / "fixtures" / "examples" / "shop-cluster.yaml"
POD = "shop/checkout-7c9d8b6f5-m4x2q"


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "100", "NO_COLOR": "1", **(env or {})})
    return result.exit_code, result.stdout, result.stderr


def one_line(err: str) -> str:
    lines = [line for line in err.strip().splitlines() if not line.startswith("ERROR:root:")]
    assert len(lines) == 1 and lines[0].startswith("podwhy: error: "), err
    return lines[0]


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30", 30.0),
        ("1.5", 1.5),
        ("0", 0.0),
        ("30s", 30.0),
        ("2m", 120.0),
        ("1m30s", 90.0),
        ("500ms", 0.5),
        ("1h", 3600.0),
    ],
)
def test_request_timeouts_read_as_kubectl_reads_them(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "abc", "-5", "5x", "1m-3s", "s"])
def test_a_malformed_request_timeout_is_refused(text: str) -> None:
    with pytest.raises(typer.BadParameter):
        parse_duration(text)


@pytest.fixture
def drip() -> Iterator[str]:
    """A server that answers every request with a 1 MB body, one byte every 20 ms, forever."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)
            try:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{")
                while not stop.is_set():
                    conn.sendall(b" ")
                    time.sleep(0.02)
            except OSError:
                return

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    host, port = listener.getsockname()
    yield f"http://{host}:{port}"
    stop.set()
    listener.close()


def _kubeconfig(path: Path, server: str, user: dict[str, object]) -> Path:
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": {"server": server}}],
                "users": [{"name": "u", "user": user}],
                "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
                "current-context": "x",
            }
        )
    )
    return path


def test_a_server_that_drips_cannot_outlast_the_request_timeout(drip: str, tmp_path: Path) -> None:
    config = _kubeconfig(tmp_path / "config", drip, {"token": "t"})
    code, out, err = run("explain", POD, "--kubeconfig", str(config), "--request-timeout", "300ms", "-q")
    assert (code, out) == (3, "")
    assert one_line(err).startswith(f"podwhy: error: {drip} did not send its whole answer")
    assert "in 0.3 s (request timeout)" in err


def test_an_answer_is_bounded_in_size(tmp_path: Path) -> None:
    with FakeApiServer(load_objects(EXAMPLE)) as server:
        config = server.kubeconfig(tmp_path / "config")
        code, _, err = run("explain", POD, "--kubeconfig", str(config), "-q", env={"PODWHY_MAX_INPUT_SIZE": "1Ki"})
    assert code == 3 and "sent more than 1 KiB, the most podwhy reads from one input" in one_line(err)


def test_a_kubeconfig_given_by_name_that_does_not_exist_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nope" / "config"
    code, _, err = run("explain", POD, "--kubeconfig", str(missing))
    assert code == 3
    assert one_line(err) == f"podwhy: error: {missing}: the kubeconfig file does not exist (--kubeconfig)"


def test_a_kubeconfig_list_none_of_which_exists_is_named(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    code, _, err = run("explain", POD, env={"KUBECONFIG": f"{a}:{b}"})
    assert code == 3 and one_line(err).startswith(f"podwhy: error: no kubeconfig: {a}, {b} do not exist ($KUBECONFIG)")


def test_a_malformed_kubeconfig_is_one_line_naming_it(tmp_path: Path) -> None:
    bad = tmp_path / "config"
    bad.write_text("apiVersion: v1\nkind: Config\nclusters: [\n")
    code, _, err = run("explain", POD, "--kubeconfig", str(bad))
    assert code == 3 and f"{bad}: line 4: not valid YAML" in one_line(err)


def test_an_exec_plugin_that_gives_no_credentials_stops_podwhy(tmp_path: Path) -> None:
    """The client logs a failed exec plugin and goes on without credentials: podwhy never sends an
    anonymous request in the user's name."""
    with FakeApiServer(load_objects(EXAMPLE)) as server:
        user = {
            "exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "false", "interactiveMode": "Never"}
        }
        config = _kubeconfig(tmp_path / "config", server.url, user)
        code, _, err = run("explain", POD, "--kubeconfig", str(config), "-q")
        assert server.requests == []
    assert code == 3 and "the kubeconfig's user 'u' gave no credentials: its exec plugin failed" in one_line(err)


def _plugin(path: Path, body: str) -> Path:
    """An exec credential plugin: a Python script (run by this interpreter) printing BODY's output."""
    path.write_text(f"#!{sys.executable}\nimport json, sys, time\n{body}\n")
    path.chmod(0o755)
    return path


def _exec_user(plugin: Path) -> dict[str, object]:
    return {
        "exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": str(plugin), "interactiveMode": "Never"}
    }


def test_an_exec_plugin_that_hangs_is_stopped_at_the_request_timeout(tmp_path: Path) -> None:
    """The client waits for an exec plugin without a limit: podwhy gives it the request timeout,
    stops it there (with what it started) and names it, before any request."""
    pids = tmp_path / "pids"
    plugin = _plugin(
        tmp_path / "slow-plugin",
        "import os, subprocess\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"open({str(pids)!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}')\n"
        "time.sleep(600)",
    )
    with FakeApiServer(load_objects(EXAMPLE)) as server:
        config = _kubeconfig(tmp_path / "config", server.url, _exec_user(plugin))
        started = time.monotonic()
        code, out, err = run("explain", POD, "--kubeconfig", str(config), "--request-timeout", "1500ms", "-q")
        elapsed = time.monotonic() - started
        assert server.requests == []
    assert (code, out) == (3, "")
    assert one_line(err) == (
        f'podwhy: error: the kubeconfig\'s exec credential plugin "{plugin}" did not answer within 1.5s'
        " (user 'u'); it was stopped (raise --request-timeout; 0 for no limit)"
    )
    assert elapsed < 30
    for pid in map(int, pids.read_text().split()):  # the plugin and its child are gone
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid), pid


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[-1][:1] != "Z"
    except FileNotFoundError:
        return False


def test_an_exec_plugin_within_the_timeout_gives_its_token(tmp_path: Path) -> None:
    """A plugin run within podwhy's limit gets what the client gives it (its args,
    KUBERNETES_EXEC_INFO), and the API server gets its token."""
    seen = tmp_path / "seen"
    plugin = _plugin(
        tmp_path / "plugin",
        "import os\n"
        f"open({str(seen)!r}, 'w').write(json.dumps([sys.argv[1:], json.loads(os.environ['KUBERNETES_EXEC_INFO'])]))\n"
        "print(json.dumps({'apiVersion': 'client.authentication.k8s.io/v1', 'kind': 'ExecCredential',"
        " 'status': {'token': 'from-the-plugin'}}))",
    )
    with FakeApiServer(load_objects(EXAMPLE), token="from-the-plugin") as server:
        user = _exec_user(plugin)
        user["exec"]["args"] = ["get-token", "--cluster", "c"]  # type: ignore[index]
        config = _kubeconfig(tmp_path / "config", server.url, user)
        code, _, err = run("explain", POD, "--kubeconfig", str(config), "--request-timeout", "20s", "-q")
    assert code in (0, 1), err
    args, info = json.loads(seen.read_text())
    assert args == ["get-token", "--cluster", "c"] and info["kind"] == "ExecCredential"
