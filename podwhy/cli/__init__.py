"""podwhy's command line (typer): the app, one module per command, and what they share."""

from podwhy.cli.app import app
from podwhy.cli.complete import complete_pod as _complete_pod
from podwhy.cli.options import kubectl_spellings, parse_duration
from podwhy.cli.output import say, stderr_width

__all__ = ["_complete_pod", "app", "kubectl_spellings", "parse_duration", "say", "stderr_width"]
