"""What the snapshot holds none of, in words: the kinds a plugin or admission needed, and the
command that dumps them."""

from __future__ import annotations

from collections.abc import Sequence

from podwhy.snapshot.resources import SNAPSHOT_COMMAND, kubectl_dump_command


def add_kinds_text(kinds: Sequence[str]) -> str:
    """The commands that add KINDS to a dump, each in backquotes (the renderers print them whole)."""
    return (
        "add them with --from a dump, or pass --complete if the files hold every object of the cluster:"
        f" `{kubectl_dump_command(kinds)}`; or take the whole cluster: `{SNAPSHOT_COMMAND}`"
    )
