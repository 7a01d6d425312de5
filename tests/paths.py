"""Where the tests find the repository's files, from any folder of tests/."""

from __future__ import annotations

from pathlib import Path

# The repository's root (fixtures/, docs/, README.md) and the tests' own folder.
REPO = Path(__file__).resolve().parent.parent
TESTS = REPO / "tests"
