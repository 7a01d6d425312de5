"""What the snapshot holds none of, in words: the kinds a plugin or admission needed, and the
command that dumps them."""

from __future__ import annotations

from collections.abc import Sequence

from podwhy.model import objects as o
from podwhy.snapshot.live import SNAPSHOT_COMMAND, kubectl_dump_command


def lacking_kinds_warning(kinds: Sequence[str]) -> str:
    """How to add the kinds the snapshot holds no object of, for plugins that need them."""
    names = ", ".join(o.plural(kind) for kind in kinds)
    return f"the snapshot holds no {names}, so it cannot tell whether the cluster has none: {add_kinds_text(kinds)}"


def add_kinds_text(kinds: Sequence[str]) -> str:
    """The commands that add KINDS to a dump, each in backquotes (the renderers print them whole)."""
    return (
        "add them with --from a dump, or pass --complete if the files hold every object of the cluster:"
        f" `{kubectl_dump_command(kinds)}`; or take the whole cluster: `{SNAPSHOT_COMMAND}`"
    )
