"""VolumeBinding plugin: PreFilter and Filter over the scheduler's volume binder."""

from podwhy.plugins.volumebinding.plugin import VolumeBinding

__all__ = ["VolumeBinding"]
