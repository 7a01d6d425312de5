"""podwhy's command line: the typer app, its root callback (--version), and its commands, one
module each; the commands parse and check options, call the engine, render, and map errors to
exit codes."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup

import podwhy
from podwhy.cli.check import check
from podwhy.cli.errors import run_command_line
from podwhy.cli.explain import explain
from podwhy.cli.options import PROGRAM, program_name
from podwhy.cli.pending import pending
from podwhy.cli.snapshot import snapshot


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
        prog_name = program_name() or prog_name
        given = list(sys.argv[1:] if args is None else args)

        def run(spelt: list[str]) -> Any:
            return super(_Group, self).main(
                args=args if spelt == given else spelt,
                prog_name=prog_name,
                complete_var=complete_var,
                standalone_mode=False,
                windows_expand_args=windows_expand_args,
                **extra,
            )

        code = run_command_line(run, given, prog_name or PROGRAM, standalone_mode)
        if not standalone_mode:
            return code
        sys.exit(code if isinstance(code, int) else 0)


class _Command(TyperCommand):
    """Help shows placeholders a person reads (PATH, NAME), never typer's `<str>` beside them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if isinstance(param, TyperArgument):
                # typer 0.29's hook (held below it, pyproject.toml); harmless before.
                setattr(param, "display_type_rich", _no_type)  # noqa: B010


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


# Exit codes (podwhy.verdict.ExitCode) come with the verdict (Verdict.exit_code); errors carry their own.
for command in (explain, pending, check, snapshot):
    app.command(cls=_Command)(command)
