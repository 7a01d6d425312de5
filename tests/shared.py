"""Where ../shared lies beside this clone (the recorded kube-scheduler cases and the real-world
inputs), and the mark that skips a test, with the reason, where it does not: a new contributor's
clone has no ../shared, and its README test command must still pass."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"


def needs_shared(*parts: str) -> pytest.MarkDecorator:
    """Skip unless ../shared/PARTS is a folder beside this clone."""
    folder = SHARED.joinpath(*parts)
    return pytest.mark.skipif(not folder.is_dir(), reason=f"{folder} is not beside this clone")
