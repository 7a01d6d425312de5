"""PodTopologySpread: spread pods evenly across topology domains."""

from podwhy.plugins.podtopologyspread.plugin import PodTopologySpread as PodTopologySpread
