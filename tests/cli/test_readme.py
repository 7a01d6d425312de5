"""The README's output sample is what the command prints (it cannot go stale), its pod
references read as kubectl's do, and the exit codes the docs give are the CLI's."""

from __future__ import annotations

import re
import signal

import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.engine import split_pod_ref
from podwhy.verdict import ExitCode, Verdict
from tests.paths import REPO

ROOT = REPO
SAMPLE_HEADING = "What the first command prints (at 100 columns):"


def _sample() -> list[str]:
    """The README's sample block, without its closing "..." line."""
    text = (ROOT / "README.md").read_text()
    block = text.split(SAMPLE_HEADING, 1)[1].split("```\n", 1)[1].split("\n```", 1)[0]
    lines = block.splitlines()
    return lines[:-1] if lines[-1].strip() == "..." else lines


def test_the_readme_sample_is_what_the_first_command_prints() -> None:
    args = ["explain", "shop/checkout-7c9d8b6f5-m4x2q", "--from", str(ROOT / "fixtures/examples/shop-cluster.yaml")]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "100", "NO_COLOR": "1"})
    sample = _sample()
    printed = [line.rstrip() for line in result.stdout.splitlines()]
    assert printed[: len(sample)] == [line.rstrip() for line in sample]
    assert result.exit_code == 1


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("web", ("shop", "web")),
        ("prod/web", ("prod", "web")),
        ("pod/web", ("shop", "web")),
        ("pods/web", ("shop", "web")),
        ("po/web", ("shop", "web")),
    ],
)
def test_pod_references_read_as_kubectl_reads_them(ref: str, expected: tuple[str, str]) -> None:
    assert split_pod_ref(ref, "shop") == expected


def _table(text: str, heading: str) -> list[list[str]]:
    """The first Markdown table after HEADING: its rows (header first), cells stripped."""
    lines = text.split(heading, 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        if not re.fullmatch(r"\|[-| ]+\|", line):
            rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def test_every_commands_exit_codes_are_in_one_table_that_matches_the_cli() -> None:
    header, *rows = _table((ROOT / "docs" / "cli.md").read_text(), "## Exit codes")
    commands = [c.name or (c.callback.__name__ if c.callback else "") for c in app.registered_commands]
    assert header == ["Code", *(f"`{name}`" for name in commands)]
    codes = [int(row[0]) for row in rows]
    assert codes == sorted({int(code) for code in ExitCode} | {128 + signal.SIGTERM})
    assert all(len(row) == len(header) for row in rows)
    explain = {int(row[0]): row[1] for row in rows}
    for verdict in Verdict:
        if verdict not in (
            Verdict.NOMINATED,
            Verdict.BOUND_NOT_RUNNING,
            Verdict.NO_SCHEDULER,
            Verdict.WAITING_FOR_NODE,
        ):
            assert f"`{verdict.value}`" in explain[verdict.exit_code], verdict  # explain's verdicts
    readme = (ROOT / "README.md").read_text()
    assert "[docs/cli.md](docs/cli.md#exit-codes)" in readme
    _, *verdicts = _table(readme, "## Verdicts and exit codes")
    assert {row[0].strip("`"): int(row[-1]) for row in verdicts} == {v.value: v.exit_code for v in Verdict}
