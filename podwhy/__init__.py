"""podwhy: why is my pod Pending?"""

from __future__ import annotations


def version() -> str:
    """The installed distribution's version (the package metadata)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("podwhy")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"
