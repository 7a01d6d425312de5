"""The README's output sample is what the command prints (it cannot go stale), and its pod
references read as kubectl's do."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.engine import split_pod_ref

ROOT = Path(__file__).resolve().parent.parent
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
