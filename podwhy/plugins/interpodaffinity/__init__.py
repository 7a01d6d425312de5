"""InterPodAffinity: required pod affinity / anti-affinity between the pod and bound pods."""

from podwhy.plugins.interpodaffinity.plugin import InterPodAffinity as InterPodAffinity
