"""The warning that the snapshot holds none of the kinds a plugin or admission needed, with the
commands that add them (words/kinds.py)."""

from __future__ import annotations

from collections.abc import Sequence

from podwhy.model import objects as o
from podwhy.report.words.kinds import add_kinds_text


def lacking_kinds_warning(kinds: Sequence[str]) -> str:
    """How to add the kinds the snapshot holds no object of, for plugins that need them."""
    names = ", ".join(o.plural(kind) for kind in kinds)
    return f"the snapshot holds no {names}, so it cannot tell whether the cluster has none: {add_kinds_text(kinds)}"
