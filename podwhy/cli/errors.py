"""The one error handler of the command line: a PodwhyError (a UsageError among them), a mistake
click finds on the command line, a value the API would refuse, or anything else, each said as one
line on stderr with its exit code (--debug adds the traceback); Ctrl-C and SIGTERM."""

from __future__ import annotations

import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any

import typer

from podwhy.cli.options import PROGRAM, kubectl_spellings
from podwhy.cli.output import say
from podwhy.errors import PodwhyError, UsageError, one_line
from podwhy.model.errors import ModelError
from podwhy.verdict import ExitCode

if TYPE_CHECKING:
    from podwhy.snapshot.writer import DumpTarget


def error_line(message: str, *notes: str | None) -> str:
    """`podwhy: error: MESSAGE (NOTE; NOTE)`: the one shape of every error podwhy says."""
    said = "; ".join(note for note in notes if note)
    return f"podwhy: error: {message}" + (f" ({said})" if said else "")


def run_command_line(main: Callable[[list[str]], Any], given: list[str], program: str, standalone: bool) -> Any:
    """MAIN run on the GIVEN arguments as click reads them (kubectl's spellings rewritten), its
    usage errors and Ctrl-C said as one line; returns the exit code."""
    try:
        spelt = kubectl_spellings(given)
    except UsageError as exc:
        say(error_line(exc.message, exc.hint, f"see: {program} --help"))
        return int(ExitCode.USAGE)
    try:
        code = main(spelt)
    except typer.TyperException as exc:
        code = _usage_error(exc)
    except typer.Abort:
        code = int(ExitCode.INTERRUPTED)
    # typer ends a KeyboardInterrupt with this code alone (no other podwhy exit is 130): one line says it
    if code == ExitCode.INTERRUPTED:
        say("podwhy: aborted")
        if standalone:
            _exit_now_if_fetching(code)
    return code


def _usage_error(exc: typer.TyperException) -> int:
    """A command-line mistake click found (unknown option, bad -o value, missing -f): one line
    plus a hint, as every other error; returns the exit code (2)."""
    if type(exc).__name__ == "NoArgsIsHelpError":  # bare `podwhy`: the help, as before
        exc.show()  # type: ignore[attr-defined]
        return int(getattr(exc, "exit_code", 2))
    message = str(exc.format_message()) if hasattr(exc, "format_message") else str(exc)
    message = message.replace("Value error, ", "")
    ctx = getattr(exc, "ctx", None)
    command = ctx.command_path if ctx is not None else PROGRAM
    say(error_line(one_line(message), f"see: {command} --help"))
    return int(getattr(exc, "exit_code", 2))


def _exit_now_if_fetching(code: int) -> None:
    """Ctrl-C during a live fetch: exit at once, after flushing stdout and stderr. The fetch's
    worker threads may be waiting on the API server (for as long as the request timeout), and the
    interpreter's exit would wait for them; every `finally` (a snapshot's half-written file
    removed) has already run."""
    from podwhy.snapshot.live.source import FETCH_THREADS

    if any(t.name.startswith(FETCH_THREADS) and t.is_alive() for t in threading.enumerate()):
        for stream in (sys.stdout, sys.stderr):
            with suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)


@contextmanager
def one_line_errors(debug: bool) -> Iterator[None]:
    """The one error handler: a PodwhyError is one line and its exit code; anything else is one
    line too, never a traceback (--debug shows it)."""
    try:
        yield
    except typer.Exit:
        raise
    except Exception as exc:
        if debug:
            traceback.print_exc(file=sys.stderr)
        line, code = _said(exc)
        say(line)
        raise typer.Exit(code) from None


def _said(exc: Exception) -> tuple[str, int]:
    """The line that says EXC, and the exit code."""
    if isinstance(exc, PodwhyError):
        return error_line(exc.message, exc.hint), exc.exit_code
    if isinstance(exc, ModelError):  # a value the API would refuse, that no loader put in context: bad input
        return one_line(error_line(exc.message, exc.hint)), ExitCode.INCONCLUSIVE
    return one_line(f"podwhy: internal error: {type(exc).__name__}: {exc} (rerun with --debug)"), ExitCode.INCONCLUSIVE


@contextmanager
def discarded_unless_written(target: DumpTarget) -> Iterator[None]:
    """TARGET's half-written file removed whatever ends the work: Ctrl-C, SIGTERM or an error."""
    previous = signal.signal(signal.SIGTERM, _on_sigterm(target))
    try:
        yield
    finally:
        target.discard()  # Ctrl-C, SIGTERM or an error: no half-written file is left behind
        signal.signal(signal.SIGTERM, previous)


def _on_sigterm(target: DumpTarget) -> Callable[[int, object], None]:
    """SIGTERM (a CI job cancelled, `timeout`): the half-written file removed, then exit at once
    with the shell's code for it. At once: the fetch's worker threads may be waiting on the API
    server, and an exception would wait for them to finish."""

    def terminated(signum: int, frame: object) -> None:
        target.discard()
        print("podwhy: terminated", file=sys.stderr)
        sys.stderr.flush()
        os._exit(128 + signum)

    return terminated
