"""The scheduler's configuration a request runs with, read as its release reads it, and checked
before anything is fetched."""

from __future__ import annotations

from pathlib import Path

from podwhy.errors import PodwhyError
from podwhy.features.emulation import DEFAULT as DEFAULT_EMULATION
from podwhy.features.emulation import EMULATED, Emulation, nearest_emulation
from podwhy.scheduler.config import SchedulerConfig, default_config, load_scheduler_config
from podwhy.scheduler.release import parse_kube_version_flag


def scheduler_config(path: Path | None, emulation: Emulation = DEFAULT_EMULATION) -> SchedulerConfig:
    """The KubeSchedulerConfiguration at PATH, or what kube-scheduler runs without one, as the
    emulated release reads it."""
    return default_config(emulation) if path is None else load_scheduler_config(path, emulation)


def check_before_fetching(config_path: Path | None, kube_version: str | None) -> None:
    """A bad --kube-version or --scheduler-config fails before anything is fetched. The
    configuration is read again once the release is known; here it is checked as the flag's
    release, else as every release podwhy emulates: it fails only when none accepts it (with the
    default release's words)."""
    if kube_version is not None:
        scheduler_config(config_path, nearest_emulation(parse_kube_version_flag(kube_version)))
        return
    try:
        scheduler_config(config_path, DEFAULT_EMULATION)
    except PodwhyError:
        for emulation in EMULATED.values():
            try:
                scheduler_config(config_path, emulation)
                return
            except PodwhyError:
                continue
        raise
