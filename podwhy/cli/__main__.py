"""`python -m podwhy.cli`, as `podwhy`."""

from podwhy.cli import app

app()
