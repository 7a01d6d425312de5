"""VolumeBinding plugin: PreFilter and Filter over the scheduler's volume binder."""

from podwhy.plugins.volumebinding.plugin import VolumeBinding as VolumeBinding
