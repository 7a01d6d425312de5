"""The options the commands share, declared once: their Annotated types, the live-mode and common
options gathered into one value, the names podwhy goes by, and kubectl's spellings of options."""

from __future__ import annotations

import inspect
import os
import re
import sys
from collections.abc import Callable, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NamedTuple

import typer

from podwhy.errors import UsageError

PROGRAM = "podwhy"
# kubectl runs `kubectl-podwhy` (pyproject's second entry point) for `kubectl podwhy ...`.
KUBECTL_PLUGIN = "kubectl-podwhy"
KUBECTL_PLUGIN_NAME = "kubectl podwhy"


def program_name() -> str | None:
    """`kubectl podwhy` when run as the kubectl plugin, else None (click's own detection)."""
    base = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return KUBECTL_PLUGIN_NAME if base.removesuffix(".exe") == KUBECTL_PLUGIN else None


# kubectl's spellings of the options podwhy shares with it (pflag's): a short option's value after
# `=` (`-o=json`, `-n=shop`; click would read `=json` as the value); klog's verbosity levels
# `-v=N`, `--v=N`, `-vN`, `-v N` and `--v N` for -v, a flag here: N >= 1 is -v, 0 is not verbose
# (klog's -v always takes a level, so a number after it is one); and a boolean flag's value after
# `=` (`-A=true`, `--all-namespaces=false`), read as Go's strconv.ParseBool reads it.
_SHORT_VALUE = re.compile(r"-([onf])=(.*)", re.DOTALL)
_VERBOSITY = re.compile(r"(?:-v|--v)=(.*)|-v([0-9]+)", re.DOTALL)
_LEVEL_NEXT = frozenset({"-v", "--v"})
_BOOLEAN = re.compile(r"(-A|--all-namespaces)=(.*)", re.DOTALL)
_PARSE_BOOL = {
    **dict.fromkeys(("1", "t", "T", "TRUE", "true", "True"), True),
    **dict.fromkeys(("0", "f", "F", "FALSE", "false", "False"), False),
}


def _level(arg: str, level: str) -> list[str]:
    """`-v` for a verbosity level of 1 or more, nothing for 0; UsageError for what is not a number."""
    if not (level.isascii() and level.isdigit()):
        raise UsageError(
            f"{arg}: a verbosity level is a number, as kubectl's -v=N", hint="-v=1 or more is -v, -v=0 is not"
        )
    return ["-v"] if int(level) >= 1 else []


def kubectl_spellings(args: Sequence[str]) -> list[str]:
    """ARGS with kubectl's spellings rewritten as click reads them (`-o=json` as `-o json`, `-v=6`
    and `-v 6` as `-v`, `-v=0` dropped, `-A=true` as `-A`, `-A=false` dropped); nothing after
    `--`. UsageError for a level that is not a number, or a boolean Go would not read."""
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            out.extend(args[i - 1 :])
            break
        if short := _SHORT_VALUE.fullmatch(arg):
            out += [f"-{short[1]}", short[2]]
        elif verbosity := _VERBOSITY.fullmatch(arg):
            out += _level(arg, verbosity[1] if verbosity[1] is not None else verbosity[2])
        elif arg in _LEVEL_NEXT and i < len(args) and (arg == "--v" or (args[i].isascii() and args[i].isdigit())):
            out += _level(f"{arg} {args[i]}", args[i])
            i += 1
        elif arg == "--v":
            raise UsageError("flag needs an argument: --v", hint="--v=N or -v=N, as kubectl reads them")
        elif boolean := _BOOLEAN.fullmatch(arg):
            value = _PARSE_BOOL.get(boolean[2])
            if value is None:
                from podwhy.helpers.fielderrors import go_quote  # only for this error: not on the help's path

                quoted = go_quote(boolean[2])
                # pflag's InvalidArgumentError around strconv.ParseBool's NumError.
                raise UsageError(
                    f'invalid argument {quoted} for "-A, --all-namespaces" flag: strconv.ParseBool:'
                    f" parsing {quoted}: invalid syntax",
                    hint="-A=true or -A=false, as kubectl reads them",
                )
            if value:
                out.append(boolean[1])
        else:
            out.append(arg)
    return out


class Output(StrEnum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"
    markdown = "markdown"


def parse_path(text: str) -> Path:
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


def from_option(help: str) -> Any:
    """--from PATH, repeatable: the snapshot a command reads; HELP says what it is for there."""
    return typer.Option("--from", metavar="PATH", help=help)


def namespace_option(help: str) -> Any:
    """-n/--namespace; HELP says what it means for the command."""
    return typer.Option("--namespace", "-n", metavar="NAMESPACE", help=help)


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
    typer.Option("--scheduler-config", parser=parse_path, metavar="FILE", help="A KubeSchedulerConfiguration file."),
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

# strconv.ParseBool's spellings, which kube's --feature-gates (component-base's featuregate) takes.
_BOOL_WORDS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True}
_BOOL_WORDS |= {"0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}


def kueue_gates(text: str | None) -> dict[str, bool] | None:
    """--kueue-feature-gates as kube's --feature-gates reads it (`Gate=true,Other=false`): the
    gates set, None when not given; typer.BadParameter for a gate Kueue's emulation does not read
    (naming the closest one) or a value that is not a boolean."""
    if text is None:
        return None
    from difflib import get_close_matches

    from podwhy.cluster.kueue.names import FEATURE_DEFAULTS

    gates: dict[str, bool] = {}
    for item in text.split(","):
        if not item.strip():
            continue
        gate, equals, value = (part.strip() for part in item.partition("="))
        if gate not in FEATURE_DEFAULTS:
            closest = get_close_matches(gate, list(FEATURE_DEFAULTS), n=1, cutoff=0)
            raise typer.BadParameter(
                f"unknown Kueue feature gate {gate!r}" + (f": did you mean {closest[0]}?" if closest else "")
            )
        if not equals or value not in _BOOL_WORDS:
            raise typer.BadParameter(f"{item.strip()!r}: give {gate}=true or {gate}=false")
        gates[gate] = _BOOL_WORDS[value]
    return gates


def _gates_text(text: str) -> str:
    kueue_gates(text)  # checked as the command line is read; Shared.kueue_gates gives the gates
    return text


KueueFeatureGatesOption = Annotated[
    str | None,
    typer.Option(
        "--kueue-feature-gates",
        parser=_gates_text,
        metavar="GATES",
        help="Kueue's feature gates, as kube's --feature-gates (UnadmittedWorkloadsObservability=false gives"
        " the legacy reason Pending). Default: Kueue v0.20's defaults. See docs/kueue.md.",
    ),
]


# The two records below are NamedTuples, not msgspec Structs: `podwhy --help` and shell completion
# then load no msgspec (13 ms of about 130 on this project's machine type).


class LiveOptions(NamedTuple):
    """How to reach the live cluster: --kubeconfig, --context, --request-timeout,
    --insecure-skip-tls-verify (all unset: the current context, as kubectl)."""

    kubeconfig: str | None = None
    context: str | None = None
    request_timeout: float | None = None
    insecure_skip_tls_verify: bool = False

    def given(self) -> bool:
        """Whether any of them was given on the command line."""
        return any(
            option is not None and option is not False
            for option in (self.kubeconfig, self.context, self.request_timeout, self.insecure_skip_tls_verify)
        )


class Shared(NamedTuple):
    """The options every command ends with, gathered by `shared_options`: the scheduler's
    (explain, pending and check), the live cluster's, and -q, -v, --debug."""

    live: LiveOptions
    quiet: bool
    verbose: bool
    debug: bool
    scheduler_config: Path | None = None
    complete: bool = False
    kube_version: str | None = None
    kueue_feature_gates: str | None = None

    @property
    def kueue_gates(self) -> dict[str, bool] | None:
        """--kueue-feature-gates' gates (None: Kueue v0.20's defaults)."""
        return kueue_gates(self.kueue_feature_gates)

    def progress_shown(self, output: Output) -> bool:
        """Whether to show progress on stderr: not with -q, nor with output made for programs."""
        return not self.quiet and output in (Output.table, Output.wide)


_LIVE = ("kubeconfig", "context", "request_timeout", "insecure_skip_tls_verify")
_SCHEDULING = ("scheduler_config", "complete", "kube_version", "kueue_feature_gates")


def _shared_parameters(says: str, scheduling: bool) -> list[inspect.Parameter]:
    """The shared options as parameters, in the order --help lists them."""
    declared: list[tuple[str, Any, object]] = [
        ("kubeconfig", KubeconfigOption, None),
        ("context", ContextOption, None),
        ("request_timeout", RequestTimeoutOption, None),
        ("insecure_skip_tls_verify", InsecureOption, False),
        ("quiet", QuietOption, False),
        ("verbose", Annotated[bool, _verbose_option(says)], False),
        ("debug", DebugOption, False),
    ]
    if scheduling:
        declared[:0] = [
            ("scheduler_config", SchedulerConfigOption, None),
            ("complete", CompleteOption, False),
            ("kube_version", KubeVersionOption, None),
            ("kueue_feature_gates", KueueFeatureGatesOption, None),
        ]
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return [inspect.Parameter(name, kind, default=default, annotation=hint) for name, hint, default in declared]


def shared_options(says: str, *, scheduling: bool = True) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """A command's function with the shared options after its own, as typer reads parameters, and
    handed to it as one keyword `shared`. SAYS: what its -v says; SCHEDULING: whether it takes
    --scheduler-config, --complete, --kube-version and --kueue-feature-gates (snapshot does not)."""

    def decorate(command: Callable[..., None]) -> Callable[..., None]:
        own = [p for p in inspect.signature(command, eval_str=True).parameters.values() if p.name != "shared"]
        parameters = [*own, *_shared_parameters(says, scheduling)]

        def run(**given: Any) -> None:
            live = LiveOptions(**{name: given.pop(name) for name in _LIVE})
            scheduler = {name: given.pop(name) for name in _SCHEDULING if scheduling}
            common = {name: given.pop(name) for name in ("quiet", "verbose", "debug")}
            command(**given, shared=Shared(live, **common, **scheduler))

        run.__name__ = command.__name__
        run.__qualname__ = command.__qualname__
        run.__module__ = command.__module__
        run.__doc__ = command.__doc__
        run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in parameters}
        return run

    return decorate


# `--assume-webhooks-allow` (check, explain -f): podwhy never calls an admission webhook.
AssumeWebhooksOption = Annotated[
    bool,
    typer.Option(
        "--assume-webhooks-allow",
        help="Take the admission webhooks a pod meets (podwhy never calls them) to admit it, rather than"
        " leaving its verdict inconclusive.",
    ),
]
