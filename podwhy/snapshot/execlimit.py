"""A kubeconfig exec credential plugin run within a time limit.

The Kubernetes client runs a user's `exec` plugin and waits for it without a limit (a plugin that
hangs hangs podwhy). podwhy has the client run this script instead, as a plain file
(`python -P execlimit.py SECONDS COMMAND [ARG...]`, the standard library only): it runs the
plugin with what the client gave it (environment, working folder, stdin and stderr), passes its
output on, and past SECONDS stops it (with what it started, when it runs without a terminal)
and exits with TIMED_OUT, saying so on stderr with TIMEOUT_MARKER.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

# What this script says on stderr, and its exit code, when the plugin did not answer in time
# (124: coreutils' `timeout`).
TIMEOUT_MARKER = "podwhy: exec plugin timed out"
TIMED_OUT = 124
# A plugin that cannot be started (as a shell says).
NOT_STARTED = 127


def main(argv: list[str]) -> int:
    seconds, command = float(argv[0]), argv[1:]
    # The client hands an interactive plugin the terminal (stdin, stderr); without one, the plugin
    # and what it starts get a process group of their own, stopped together.
    own_group = os.name == "posix" and not sys.stderr.isatty()
    try:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, start_new_session=own_group)
    except OSError as exc:
        print(f"cannot run {command[0]}: {exc.strerror or exc}", file=sys.stderr)
        return NOT_STARTED
    try:
        out, _ = process.communicate(timeout=seconds or None)
    except subprocess.TimeoutExpired:
        if own_group:
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
        print(TIMEOUT_MARKER, file=sys.stderr, flush=True)
        # At once: what the plugin started may still hold the pipe of its output.
        os._exit(TIMED_OUT)
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    return process.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
