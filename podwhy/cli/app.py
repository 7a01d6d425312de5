"""podwhy's command line: parse, call the engine, render, map errors to exit codes."""

from __future__ import annotations

import os
import re
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TextIO

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup

import podwhy
from podwhy.cli.output import say
from podwhy.errors import PodwhyError, UsageError, one_line
from podwhy.model.errors import ModelError
from podwhy.verdict import ExitCode

if TYPE_CHECKING:
    from podwhy.report.model import CheckReport, PendingReport, Report, SnapshotSummary
    from podwhy.snapshot.writer import DumpTarget

PROGRAM = "podwhy"
# kubectl runs `kubectl-podwhy` (pyproject's second entry point) for `kubectl podwhy ...`.
KUBECTL_PLUGIN = "kubectl-podwhy"
KUBECTL_PLUGIN_NAME = "kubectl podwhy"


def _program_name() -> str | None:
    """`kubectl podwhy` when run as the kubectl plugin, else None (click's own detection)."""
    base = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return KUBECTL_PLUGIN_NAME if base.removesuffix(".exe") == KUBECTL_PLUGIN else None


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
    say(f"podwhy: error: {one_line(message)} (see: {command} --help)")
    return int(getattr(exc, "exit_code", 2))


# kubectl's spellings of the options podwhy shares with it (pflag's): a short option's value after
# `=` (`-o=json`, `-n=shop`; click would read `=json` as the value), and klog's verbosity levels
# `-v=N`, `--v=N` and `-vN` for -v, a flag here: N >= 1 is -v, 0 is not verbose.
_SHORT_VALUE = re.compile(r"-([onf])=(.*)", re.DOTALL)
_VERBOSITY = re.compile(r"(?:-v|--v)=(.*)|-v([0-9]+)", re.DOTALL)


def kubectl_spellings(args: Sequence[str]) -> list[str]:
    """ARGS with kubectl's spellings rewritten as click reads them (`-o=json` as `-o json`, `-v=6`
    as `-v`, `-v=0` dropped); nothing after `--`. UsageError for a level that is not a number."""
    out: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":
            out.extend(args[i:])
            break
        if short := _SHORT_VALUE.fullmatch(arg):
            out += [f"-{short[1]}", short[2]]
        elif verbosity := _VERBOSITY.fullmatch(arg):
            level = verbosity[1] if verbosity[1] is not None else verbosity[2]
            if not (level.isascii() and level.isdigit()):
                raise UsageError(
                    f"{arg}: a verbosity level is a number, as kubectl's -v=N", hint="-v=1 or more is -v, -v=0 is not"
                )
            if int(level) >= 1:
                out.append("-v")
        else:
            out.append(arg)
    return out


class _Group(TyperGroup):
    """podwhy's command group: names itself `kubectl podwhy` as the kubectl plugin, and words
    click's usage errors as one line (click's own are a box of five)."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        prog_name = _program_name() or prog_name
        given = list(sys.argv[1:] if args is None else args)
        try:
            spelt = kubectl_spellings(given)
        except UsageError as exc:
            say(f"podwhy: error: {exc.message} ({exc.hint}; see: {prog_name or PROGRAM} --help)")
            if not standalone_mode:
                return int(ExitCode.USAGE)
            sys.exit(int(ExitCode.USAGE))
        try:
            code = super().main(
                args=args if spelt == given else spelt,
                prog_name=prog_name,
                complete_var=complete_var,
                standalone_mode=False,
                windows_expand_args=windows_expand_args,
                **extra,
            )
        except typer.TyperException as exc:
            code = _usage_error(exc)
        except typer.Abort:
            code = int(ExitCode.INTERRUPTED)
        # typer ends a KeyboardInterrupt with this code alone (no other podwhy exit is 130): one line says it
        if code == ExitCode.INTERRUPTED:
            say("podwhy: aborted")
            if standalone_mode:
                _exit_now_if_fetching(code)
        if not standalone_mode:
            return code
        sys.exit(code if isinstance(code, int) else 0)


def _exit_now_if_fetching(code: int) -> None:
    """Ctrl-C during a live fetch: exit at once, after flushing stdout and stderr. The fetch's
    worker threads may be waiting on the API server (for as long as the request timeout), and the
    interpreter's exit would wait for them; every `finally` (a snapshot's half-written file
    removed) has already run."""
    from podwhy.snapshot.live import FETCH_THREADS

    if any(t.name.startswith(FETCH_THREADS) and t.is_alive() for t in threading.enumerate()):
        for stream in (sys.stdout, sys.stderr):
            with suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)


class _Command(TyperCommand):
    """Help shows placeholders a person reads (PATH, NAME), never typer's `<str>` beside them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if isinstance(param, TyperArgument):
                param.display_type_rich = _no_type  # type: ignore[method-assign]


def _no_type(ctx: object) -> None:
    return None


app = typer.Typer(
    cls=_Group,
    name=PROGRAM,
    add_completion=True,
    no_args_is_help=True,
    help="Explain why a Kubernetes pod is Pending, exactly as kube-scheduler (v1.33 to v1.36) decides.",
    pretty_exceptions_enable=False,
    # Plain click help: placeholders (PATH, NAME), no boxes, readable in any terminal.
    rich_markup_mode=None,
)

# Exit codes (podwhy.verdict.ExitCode) come with the verdict (Verdict.exit_code); errors carry their own.


class Output(StrEnum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"
    markdown = "markdown"


def _path(text: str) -> Path:
    """A path option's value: an empty one would name the current folder (Path('') is '.')."""
    if not text:
        raise typer.BadParameter("an empty path: name a file")
    return Path(text)


def _paths_text(text: str) -> str:
    if not text:
        raise typer.BadParameter("an empty path: name a file")
    return text


# Options several commands share, declared once.
KubeconfigOption = Annotated[
    str | None,
    typer.Option(
        "--kubeconfig",
        parser=_paths_text,
        metavar="PATH",
        help="Kubeconfig file(s) for live mode (default: $KUBECONFIG).",
    ),
]
ContextOption = Annotated[
    str | None, typer.Option("--context", metavar="NAME", help="Kubeconfig context for live mode.")
]
_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float:
    """A request timeout as kubectl's --request-timeout takes it: seconds (`30`, `1.5`), or a Go
    duration (`30s`, `1m30s`, `500ms`); 0 for no limit."""
    raw = text.strip()
    if re.fullmatch(r"\d+(?:\.\d*)?|\.\d+", raw):
        return float(raw)
    parts = _DURATION.findall(raw)
    if not parts or "".join(a + b for a, b in parts) != raw:
        raise typer.BadParameter(f"{text!r} is not a duration: give seconds (30) or a duration (30s, 1m, 500ms)")
    return sum(float(amount) * _DURATION_UNITS[unit] for amount, unit in parts)


RequestTimeoutOption = Annotated[
    float | None,
    typer.Option(
        "--request-timeout",
        parser=parse_duration,
        metavar="DURATION",
        help="How long each API request (and the kubeconfig's exec credential plugin) may take, its whole answer"
        " included: seconds or a duration (30s, 2m); 0 for no limit. Default 60s.",
    ),
]
InsecureOption = Annotated[
    bool,
    typer.Option(
        "--insecure-skip-tls-verify",
        metavar="",
        help="Do not check the API server's certificate, as kubectl's flag (HTTPS without it is open to"
        " anyone between podwhy and the server).",
    ),
]
QuietOption = Annotated[
    bool, typer.Option("--quiet", "-q", metavar="", help="No progress display (reading, fetching, placing).")
]
DebugOption = Annotated[bool, typer.Option("--debug", metavar="", help="Show tracebacks of errors.")]


# What -v says, per command.
EXPLAIN_SAYS = "what was loaded and skipped, and what kube-scheduler said when it differs"
PENDING_SAYS = "what was loaded and skipped, and which namespaces the pods come from and why"
CHECK_SAYS = "what was loaded and skipped, and the namespace of manifests that name none"
SNAPSHOT_SAYS = "how many objects of each kind were fetched"


def _verbose_option(says: str) -> Any:
    """-v/--verbose, on every command: what it says besides its output (on stderr, or in explain's table)."""
    return typer.Option("--verbose", "-v", metavar="", help=f"Say {says}. kubectl's -v=N works too (N >= 1).")


OutputOption = Annotated[
    Output,
    typer.Option(
        "--output",
        "-o",
        metavar="FORMAT",
        help="table, wide, json, yaml or markdown (a pull-request comment or CI job summary).",
    ),
]
SchedulerConfigOption = Annotated[
    Path | None,
    typer.Option("--scheduler-config", parser=_path, metavar="FILE", help="A KubeSchedulerConfiguration file."),
]
CompleteOption = Annotated[
    bool,
    typer.Option(
        "--complete",
        help="The --from files hold every object of the cluster: a kind they hold none of, the cluster has none of"
        " (without it such a kind leaves the plugins that need it NotEvaluated). See docs/complete.md.",
    ),
]
KubeVersionOption = Annotated[
    str | None,
    typer.Option(
        "--kube-version",
        metavar="VERSION",
        help="kube-scheduler release to emulate: 1.33, 1.34, 1.35 or 1.36 (v1.36.3 works too)."
        " Default: the cluster's (API server /version, the kube-scheduler pod's image, the kubelets).",
    ),
]


def _no_empty_path(option: str, paths: Iterable[str]) -> None:
    """An empty path would read the current folder (Path('') is '.'): a usage error."""
    if any(path == "" for path in paths):
        raise UsageError(f"{option} '': an empty path", hint=f"name a file (or - for stdin) after {option}")


def _check_live_options(from_: list[str] | None, *live: object, complete: bool = False) -> None:
    _no_empty_path("--from", from_ or [])
    if from_ and any(option is not None and option is not False for option in live):
        raise UsageError(
            "--from reads a dump: --kubeconfig, --context, --request-timeout and --insecure-skip-tls-verify"
            " are for live mode"
        )
    if complete and not from_:
        raise UsageError("--complete is said of --from files: a live cluster is complete by itself")


def _write_structured(report: Report | PendingReport | CheckReport, output: Output) -> bool:
    """Write -o json|yaml to stdout; False for the table outputs."""
    from podwhy.report import model
    from podwhy.report.safe import json_escaped, yaml_text

    if output == Output.json:
        sys.stdout.buffer.write(json_escaped(model.encode_json(report)) + b"\n")
        sys.stdout.flush()
        return True
    if output == Output.yaml:
        sys.stdout.write(yaml_text(model.to_builtins(report)))
        return True
    if output == Output.markdown:
        from podwhy.report import markdown

        if isinstance(report, model.CheckReport):
            sys.stdout.write(markdown.render_check(report))
        elif isinstance(report, model.PendingReport):
            sys.stdout.write(markdown.render_pending(report))
        else:
            sys.stdout.write(markdown.render_explain(report))
        return True
    return False


def _stdout_to_devnull(stream: TextIO | None = None) -> None:
    """After a reader closed stdout (or STREAM): point it at /dev/null, so the interpreter's final
    flush of what is still buffered does not fail (Python's docs, "Note on SIGPIPE")."""
    try:
        fd = (stream or sys.stdout).fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test's capture): nothing flushes at exit
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def _emit(exit_code: int, write: Callable[[], None], warnings: Iterable[str] = ()) -> NoReturn:
    """Write the results to stdout, the warnings to stderr, and exit with the verdict's code. A
    reader that stops early (`podwhy ... | head`) changes neither: no traceback, same exit code."""
    try:
        write()
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_to_devnull()
    try:
        for warning in warnings:
            # A warning can quote input (a name, a file's text): one line, nothing raw from it.
            say(f"podwhy: warning: {one_line(warning)}")
    except BrokenPipeError:  # `2>&1 | head`: stderr went to the same reader
        _stdout_to_devnull(sys.stderr)
    raise typer.Exit(exit_code)


@contextmanager
def _one_line_errors(debug: bool) -> Iterator[None]:
    """The one error handler: a PodwhyError is one line and its exit code; anything else is one
    line too, never a traceback (--debug shows it)."""
    try:
        yield
    except typer.Exit:
        raise
    except PodwhyError as exc:
        if debug:
            traceback.print_exc(file=sys.stderr)
        line = f"podwhy: error: {exc.message}"
        if exc.hint:
            line += f" ({exc.hint})"
        say(line)
        raise typer.Exit(exc.exit_code) from None
    except ModelError as exc:  # a value the API would refuse, that no loader put in context: bad input
        if debug:
            traceback.print_exc(file=sys.stderr)
        line = f"podwhy: error: {exc.message}" + (f" ({exc.hint})" if exc.hint else "")
        say(one_line(line))
        raise typer.Exit(ExitCode.INCONCLUSIVE) from None
    except Exception as exc:
        if debug:
            traceback.print_exc(file=sys.stderr)
        say(one_line(f"podwhy: internal error: {type(exc).__name__}: {exc} (rerun with --debug)"))
        raise typer.Exit(ExitCode.INCONCLUSIVE) from None


def _complete_pod(ctx: typer.Context, incomplete: str) -> list[str]:
    """Pod names for shell completion: of the dump given with --from, else of the context's namespace."""
    params = ctx.params
    try:
        if params.get("from_"):
            from podwhy.snapshot.source import FileSource

            pods = FileSource(list(params["from_"])).load().pods
            names = [f"{p.metadata.namespace}/{p.metadata.name}" for p in pods]
        else:
            from podwhy.snapshot.live import LiveSource

            live = LiveSource(
                params.get("kubeconfig"),
                params.get("context"),
                request_timeout=5,
                insecure_skip_tls_verify=bool(params.get("insecure_skip_tls_verify")),
            )
            names = live.pod_names(params.get("namespace") or live.connect())
    except Exception:  # completion never fails loudly
        return []
    return sorted(n for n in names if n.startswith(incomplete))


def _print_version(value: bool) -> None:
    if value:
        print(f"podwhy {podwhy.version()}")
        raise typer.Exit(0)


@app.callback()
def main(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", metavar="", is_eager=True, callback=_print_version, help="Print podwhy's version and exit."
        ),
    ] = False,
) -> None:
    """podwhy: why is my pod Pending?"""


@app.command(cls=_Command)
def explain(
    pod: Annotated[
        str | None,
        typer.Argument(
            metavar="POD", help="NAME or NAMESPACE/NAME of the pod to explain.", autocompletion=_complete_pod
        ),
    ] = None,
    from_: Annotated[
        list[str] | None,
        typer.Option(
            "--from",
            metavar="PATH",
            help="Snapshot to read: a kubectl -o yaml|json file, a folder, a cluster-info dump, or - for stdin."
            " Repeatable. Without it, podwhy reads the cluster of the current kubeconfig context (GET only).",
        ),
    ] = None,
    namespace: Annotated[
        str | None,
        typer.Option(
            "--namespace",
            "-n",
            metavar="NAMESPACE",
            help="Namespace of POD (default: the context's namespace, else default).",
        ),
    ] = None,
    pod_file: Annotated[
        str | None,
        typer.Option("--file", "-f", metavar="FILE", help="Explain this pod manifest instead of one in the snapshot."),
    ] = None,
    output: OutputOption = Output.table,
    node: Annotated[
        str | None, typer.Option("--node", metavar="NODE", help="Show the facts behind every verdict on one node.")
    ] = None,
    scheduler_config: SchedulerConfigOption = None,
    complete: CompleteOption = False,
    kube_version: KubeVersionOption = None,
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    request_timeout: RequestTimeoutOption = None,
    insecure_skip_tls_verify: InsecureOption = False,
    quiet: QuietOption = False,
    verbose: Annotated[bool, _verbose_option(EXPLAIN_SAYS)] = False,
    debug: DebugOption = False,
) -> None:
    """Explain why POD is (or is not) schedulable, node by node and plugin by plugin."""
    from podwhy.engine import ExplainRequest, split_pod_ref
    from podwhy.engine import explain as run_explain
    from podwhy.snapshot.live import LiveSource
    from podwhy.snapshot.source import FileSource, SnapshotSource

    with _one_line_errors(debug):
        if pod is None and pod_file is None:
            raise UsageError("no pod given", hint="name the pod (NAME or NAMESPACE/NAME) or pass -f pod.yaml")
        if pod is not None and pod_file is not None:
            raise UsageError(
                f"two pods given: {pod} and -f {pod_file}", hint="explain one: NAME (or NAMESPACE/NAME), or -f FILE"
            )
        _no_empty_path("-f", [] if pod_file is None else [pod_file])
        if pod_file == "-" and from_ and "-" in from_:
            raise UsageError("-f - and --from - cannot both read stdin")
        _check_live_options(from_, kubeconfig, context, request_timeout, insecure_skip_tls_verify, complete=complete)
        from podwhy.report.progress import fetch_progress

        with fetch_progress(not quiet and output in (Output.table, Output.wide)) as progress:
            source: SnapshotSource
            if from_:
                source = FileSource(list(from_), progress=progress, complete=complete)
            else:
                live = LiveSource(
                    kubeconfig,
                    context,
                    request_timeout,
                    progress=progress,
                    insecure_skip_tls_verify=insecure_skip_tls_verify,
                )
                namespace = namespace or live.connect()
                if pod is not None:
                    live.events_for = split_pod_ref(pod, namespace)
                source = live
            report = run_explain(
                ExplainRequest(
                    pod_ref=pod,
                    namespace=namespace or "default",
                    source=source,
                    pod_file=None if pod_file is None else Path(pod_file),
                    scheduler_config=scheduler_config,
                    node=node,
                    kube_version=kube_version,
                )
            )
        if verbose:
            _print_loaded(report.snapshot)
        # Warnings go to stderr whatever the output: -o json|yaml keeps stdout to the report alone.
        _emit(report.verdict.exit_code, lambda: _render(report, output, node, verbose), report.warnings)


def _print_loaded(snap: SnapshotSummary) -> None:
    """-v: what the snapshot held and what of it was skipped, on stderr."""
    from podwhy.snapshot.source import input_names

    sources = one_line(input_names(snap.sources))
    say(f"loaded {snap.nodes} nodes, {snap.pods} pods from {sources}")
    if snap.ignoredKinds:
        ignored = ", ".join(f"{count} {kind}" for kind, count in snap.ignoredKinds.items())
        say(f"ignored: {one_line(ignored)}")
    kinds = [kind for kind in snap.missingKinds if not (kind == "Pod" and snap.pods)]
    if kinds:
        say(f"the snapshot cannot vouch for: {one_line(', '.join(kinds))}")
    if len(kinds) < len(snap.missingKinds):  # it holds pods, which look like some namespaces' only
        say(
            f"its {snap.pods} pods look like some namespaces' only (none of kube-system, where every cluster runs"
            " some): a dump of `kubectl get pods -A -o yaml` holds every namespace's, or pass --complete"
        )


def _render(report: Report, output: Output, node: str | None, verbose: bool = False) -> None:
    if _write_structured(report, output):
        return
    from podwhy.report.table import render_table

    render_table(report, wide=output == Output.wide, node=node, verbose=verbose)


@app.command(cls=_Command)
def pending(
    from_: Annotated[
        list[str] | None,
        typer.Option("--from", metavar="PATH", help="Snapshot to read (as for explain); without it, the live cluster."),
    ] = None,
    namespace: Annotated[
        str | None,
        typer.Option(
            "--namespace",
            "-n",
            metavar="NAMESPACE",
            help="Only this namespace's pods (default: the context's namespace live, default offline).",
        ),
    ] = None,
    all_namespaces: Annotated[
        bool, typer.Option("--all-namespaces", "-A", metavar="", help="Pods of every namespace.")
    ] = False,
    output: OutputOption = Output.table,
    scheduler_config: SchedulerConfigOption = None,
    complete: CompleteOption = False,
    kube_version: KubeVersionOption = None,
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    request_timeout: RequestTimeoutOption = None,
    insecure_skip_tls_verify: InsecureOption = False,
    quiet: QuietOption = False,
    verbose: Annotated[bool, _verbose_option(PENDING_SAYS)] = False,
    debug: DebugOption = False,
) -> None:
    """Every Pending pod, grouped by cause and owner, largest group first. Exit 0 when none is stuck."""
    from podwhy.engine import PendingRequest
    from podwhy.engine import pending as run_pending
    from podwhy.report.progress import fetch_progress
    from podwhy.snapshot.live import LiveSource
    from podwhy.snapshot.source import FileSource, SnapshotSource

    with _one_line_errors(debug):
        if namespace is not None and all_namespaces:
            raise UsageError("-n and -A do not go together")
        _check_live_options(from_, kubeconfig, context, request_timeout, insecure_skip_tls_verify, complete=complete)
        with fetch_progress(not quiet and output in (Output.table, Output.wide)) as progress:
            source: SnapshotSource
            # One rule, live or offline: -A every namespace, else -n, else the context's namespace
            # (live) or default (offline), as explain and check choose theirs.
            if from_:
                source = FileSource(list(from_), progress=progress, complete=complete)
                scope = None if all_namespaces else namespace or "default"
                why = "-A" if all_namespaces else "-n" if namespace else "no -n: default, as offline explain and check"
            else:
                live = LiveSource(
                    kubeconfig,
                    context,
                    request_timeout,
                    progress=progress,
                    insecure_skip_tls_verify=insecure_skip_tls_verify,
                )
                scope = None if all_namespaces else namespace or live.connect()
                why = "-A" if all_namespaces else "-n" if namespace else "no -n: the context's namespace"
                live.events_for = (scope or "", "")
                source = live
            rerun = _all_namespaces_command(
                from_, scheduler_config, complete, kube_version, kubeconfig, context, request_timeout
            )
            report = run_pending(PendingRequest(source, scope, scheduler_config, kube_version, rerun))
        if verbose:
            _print_loaded(report.snapshot)
            say(f"namespaces: {'every one' if scope is None else one_line(scope)} ({why})")
        _emit(report.exit_code, lambda: _render_any(report, output), report.warnings)


def _all_namespaces_command(
    from_: list[str] | None,
    scheduler_config: Path | None,
    complete: bool,
    kube_version: str | None,
    kubeconfig: str | None,
    context: str | None,
    request_timeout: float | None,
) -> str:
    """`pending` again with -A and the same inputs: what a namespace without Pending pods points to."""
    import shlex

    args = [*(_program_name() or "podwhy").split(), "pending", "-A"]
    for path in from_ or []:
        args += ["--from", path]
    for option, value in (
        ("--scheduler-config", scheduler_config),
        ("--kube-version", kube_version),
        ("--kubeconfig", kubeconfig),
        ("--context", context),
        ("--request-timeout", request_timeout),
    ):
        if value is not None:
            args += [option, f"{value:g}" if isinstance(value, float) else str(value)]
    if complete:
        args.append("--complete")
    return shlex.join(args)


def _render_any(report: PendingReport, output: Output) -> None:
    if not _write_structured(report, output):
        from podwhy.report.table import render_pending

        render_pending(report, wide=output == Output.wide)


@app.command(cls=_Command)
def check(
    files: Annotated[
        list[str],
        typer.Option(
            "--file",
            "-f",
            metavar="PATH",
            help="Manifests: a file, a folder, multi-document YAML, or - for stdin (e.g. helm template). Repeatable.",
        ),
    ],
    from_: Annotated[
        list[str] | None,
        typer.Option(
            "--from", metavar="PATH", help="Snapshot to place them onto (as for explain); without it, the live cluster."
        ),
    ] = None,
    namespace: Annotated[
        str | None,
        typer.Option(
            "--namespace",
            "-n",
            metavar="NAMESPACE",
            help="Namespace of manifests that name none (default: the context's).",
        ),
    ] = None,
    output: OutputOption = Output.table,
    junit: Annotated[
        Path | None,
        typer.Option(
            "--junit", parser=_path, metavar="FILE", help="Also write JUnit XML here (one testcase per workload)."
        ),
    ] = None,
    scheduler_config: SchedulerConfigOption = None,
    complete: CompleteOption = False,
    kube_version: KubeVersionOption = None,
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    request_timeout: RequestTimeoutOption = None,
    insecure_skip_tls_verify: InsecureOption = False,
    quiet: QuietOption = False,
    verbose: Annotated[bool, _verbose_option(CHECK_SAYS)] = False,
    debug: DebugOption = False,
) -> None:
    """Place the replicas of manifests onto the cluster one after another, as the scheduler would.

    Exit 0 when every replica fits, 1 when one would stay Pending.
    """
    from podwhy.cluster.manifests import ManifestSource
    from podwhy.engine import CheckRequest
    from podwhy.engine import check as run_check
    from podwhy.report.progress import fetch_progress, place_progress
    from podwhy.snapshot.live import LiveSource
    from podwhy.snapshot.source import FileSource, SnapshotSource

    with _one_line_errors(debug):
        _check_live_options(from_, kubeconfig, context, request_timeout, insecure_skip_tls_verify, complete=complete)
        _no_empty_path("-f", files)
        if "-" in files and from_ and "-" in from_:
            raise UsageError("-f - and --from - cannot both read stdin")
        if junit is not None:
            _check_output_path(junit)
        shown = not quiet and output in (Output.table, Output.wide)
        with fetch_progress(shown) as progress, place_progress(shown) as placing:
            source: SnapshotSource
            if from_:
                source = FileSource(list(from_), progress=progress, complete=complete)
            else:
                live = LiveSource(
                    kubeconfig,
                    context,
                    request_timeout,
                    progress=progress,
                    insecure_skip_tls_verify=insecure_skip_tls_verify,
                )
                namespace = namespace or live.connect()
                source = live
            manifests = ManifestSource(files, namespace or "default")
            report = run_check(CheckRequest(manifests, source, scheduler_config, kube_version, placing))
        if junit is not None:
            from podwhy.report.check import write_junit

            write_junit(report, junit)
        if verbose:
            _print_loaded(report.snapshot)
            say(f"namespace of manifests that name none: {one_line(namespace or 'default')}")
        _emit(report.exit_code, lambda: _render_check(report, output), report.warnings)


def _check_output_path(path: Path) -> None:
    """A file podwhy will write after the work, checked before it: an error at once, not after a fetch."""
    if path.is_dir():
        raise PodwhyError(f"{path}: cannot write: is a directory")
    folder = path.parent
    if not folder.is_dir():
        raise PodwhyError(f"{path}: cannot write: no folder {folder}")
    if not os.access(folder, os.W_OK):
        raise PodwhyError(f"{path}: cannot write: permission denied")


def _render_check(report: CheckReport, output: Output) -> None:
    if not _write_structured(report, output):
        from podwhy.report.table import render_check

        render_check(report, wide=output == Output.wide)


@app.command(cls=_Command)
def snapshot(
    output: Annotated[
        Path,
        typer.Option(
            "--output",
            "-o",
            parser=_path,
            metavar="FILE",
            help="File to write (a JSON List; .gz compresses it; - for stdout).",
        ),
    ],
    namespace: Annotated[
        str | None,
        typer.Option(
            "--namespace", "-n", metavar="NAMESPACE", help="Namespace whose events to include (default: the context's)."
        ),
    ] = None,
    all_namespaces: Annotated[
        bool, typer.Option("--all-namespaces", "-A", metavar="", help="Include the events of every namespace.")
    ] = False,
    redact: Annotated[
        bool,
        typer.Option(
            "--redact",
            metavar="",
            help="Keep only what scheduling needs: an allowlist per kind (docs/redact.md).",
        ),
    ] = False,
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    request_timeout: RequestTimeoutOption = None,
    insecure_skip_tls_verify: InsecureOption = False,
    quiet: QuietOption = False,
    verbose: Annotated[bool, _verbose_option(SNAPSHOT_SAYS)] = False,
    debug: DebugOption = False,
) -> None:
    """Write everything podwhy reads from the cluster to a file that --from reads back to the same report.

    Nodes, pods and every other kind the plugins read are fetched cluster-wide (the scheduler sees
    them all); -n/-A choose whose events come along. Secrets are never read, nor any ConfigMap but
    Cluster Autoscaler's status.
    """
    count, target, missing, kinds = _snapshot(
        output,
        namespace,
        all_namespaces,
        kubeconfig,
        context,
        request_timeout,
        redact,
        quiet,
        debug,
        insecure_skip_tls_verify,
    )
    if verbose:
        fetched = ", ".join(f"{number:,} {kind}" for kind, number in sorted(kinds.items()) if number)
        empty = ", ".join(kind for kind, number in sorted(kinds.items()) if not number)
        say(f"fetched: {one_line(fetched) or 'nothing'}")
        if empty:
            say(f"the cluster has none of: {one_line(empty)}")
    if count is not None:
        say(f"wrote {count:,} objects to {target.description}")
    if missing:
        say(f"podwhy: warning: not fetched: {one_line('; '.join(missing.values()))}")


def _snapshot(
    output: Path,
    namespace: str | None,
    all_namespaces: bool,
    kubeconfig: str | None,
    context: str | None,
    request_timeout: float | None,
    redact: bool,
    quiet: bool,
    debug: bool,
    insecure_skip_tls_verify: bool = False,
) -> tuple[int | None, DumpTarget, dict[str, str], dict[str, int]]:
    """`podwhy snapshot`'s work: (objects written or None, where, the kinds not fetched and why, how
    many objects of each kind were fetched)."""
    from podwhy.report.progress import fetch_progress
    from podwhy.snapshot.live import LiveSource
    from podwhy.snapshot.writer import DumpTarget, write_dump

    with _one_line_errors(debug):
        if namespace is not None and all_namespaces:
            raise UsageError("-n and -A do not go together")
        target = DumpTarget(output)  # a path that cannot be written fails before anything is fetched
        previous = signal.signal(signal.SIGTERM, _on_sigterm(target))
        try:
            with fetch_progress(not quiet) as progress:
                live = LiveSource(
                    kubeconfig,
                    context,
                    request_timeout,
                    progress=progress,
                    insecure_skip_tls_verify=insecure_skip_tls_verify,
                )
                events_namespace = "" if all_namespaces else namespace or live.connect()
                live.events_for = (events_namespace, "")
                fetched = live.fetch(raw=True)
            # Two lists can hold one kind (the pods' Events and Cluster Autoscaler's): both are kept.
            items: dict[tuple[str, str], list[Any]] = {}
            for r, v in fetched.items():
                if not isinstance(v, str):
                    items.setdefault((r.kind, r.group_version), []).extend(v)
            missing = {r.kind: v for r, v in fetched.items() if isinstance(v, str)}
            count = _write_snapshot(
                lambda: write_dump(
                    target,
                    items,
                    missing,
                    redact_text=redact,
                    server_version=live.server_version,
                    taken_at=live.taken_at,
                )
            )
        finally:
            target.discard()  # Ctrl-C, SIGTERM or an error: no half-written file is left behind
            signal.signal(signal.SIGTERM, previous)
    kinds: dict[str, int] = {}
    for (kind, _), raws in items.items():
        kinds[kind] = kinds.get(kind, 0) + len(raws)
    return count, target, missing, kinds


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


def _write_snapshot(write: Callable[[], int]) -> int | None:
    """The dump written (its object count), or None when stdout's reader stopped early."""
    try:
        return write()
    except BrokenPipeError:
        _stdout_to_devnull()
        return None


if __name__ == "__main__":  # pragma: no cover
    app()
