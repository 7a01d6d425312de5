"""The one place podwhy reads the wall clock.

Only live mode asks it, once per fetch: the time its snapshot was taken, which `podwhy snapshot`
records and ages ("3m ago") are measured to. Offline dumps carry no such time, so nothing podwhy
prints about them depends on when or where it runs; tests move this clock to prove it.
"""

from __future__ import annotations

from datetime import UTC, datetime


def now() -> datetime:
    """The current time, in UTC."""
    return datetime.now(UTC)


def rfc3339(when: datetime) -> str:
    """WHEN as the API server writes times: UTC, whole seconds, a trailing Z."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
