"""Every option a command accepts is in its --help, with a help text: none hidden, none unsaid."""

from __future__ import annotations

from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from podwhy.cli import app

# click's classes, or those typer carries of its own (typer 0.29 vendors click): read by their
# attributes, as both have them.
GROUP: Any = typer.main.get_command(app)
COMMANDS: dict[str, Any] = {"": GROUP, **GROUP.commands}


def _help(name: str, columns: str) -> str:
    args = [name, "--help"] if name else ["--help"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": columns, "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_commands_are_those_the_readme_names() -> None:
    assert sorted(GROUP.commands) == ["check", "explain", "pending", "snapshot"]


@pytest.mark.parametrize("name", sorted(COMMANDS))
@pytest.mark.parametrize("columns", ["80", "200"])
def test_every_option_is_in_its_help(name: str, columns: str) -> None:
    command = COMMANDS[name]
    shown = _help(name, columns)
    listed = shown.split("Options:", 1)[1] if "Options:" in shown else ""
    options = [p for p in command.params if p.param_type_name == "option"]
    assert options
    for option in options:
        assert not option.hidden, f"{name} {option.opts}: hidden"
        assert (option.help or "").strip(), f"{name} {option.opts}: no help text"
        for flag in [*option.opts, *option.secondary_opts]:
            # As its own word in the options' list, not inside another's name (-n in --namespace).
            assert any(flag in _flags(line) for line in listed.splitlines()), f"{name} --help does not show {flag}"
    for argument in [p for p in command.params if p.param_type_name == "argument"]:
        assert (argument.metavar or argument.name.upper()) in shown


def _flags(line: str) -> list[str]:
    """The option names a line of the options' list begins with ("-f, --file PATH ..." -> -f, --file)."""
    flags: list[str] = []
    for word in line.split() if line.startswith("  -") else []:
        if not word.startswith("-"):
            break
        flags.append(word.rstrip(","))
    return flags


def test_check_help_lists_what_check_accepts() -> None:
    """`check --help`, option by option, as docs/check.md's synopsis names them."""
    listed = _help("check", "200").split("Options:", 1)[1]
    flags = [flag for line in listed.splitlines() for flag in _flags(line)]
    assert set(flags) == {
        "-f",
        "--file",
        "--from",
        "-n",
        "--namespace",
        "-o",
        "--output",
        "--junit",
        "--assume-webhooks-allow",
        "--scheduler-config",
        "--complete",
        "--kube-version",
        "--kueue-feature-gates",
        "--kubeconfig",
        "--context",
        "--request-timeout",
        "--insecure-skip-tls-verify",
        "-q",
        "--quiet",
        "-v",
        "--verbose",
        "--debug",
        "--help",
    }
