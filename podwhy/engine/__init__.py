"""Wires a request, one module per command: a snapshot source → the pod(s), or the manifests
admitted → the scheduler's release and configuration → the cycles → the analysis → the report.

- `explainpod`: `explain` (a pod, a workload's Pending pod, a Job or Workload Kueue holds);
- `pendingpods`: `pending` (every Pending pod, grouped and sized);
- `checkmanifests`: `check` (manifests placed onto the snapshot);
- what they share: `config` (the scheduler's configuration, checked before fetching), `lookup`
  (a pod, namespace or node named, with the closest names), `kueue` (Kueue's answers, its code
  loaded only for a snapshot that holds its objects).

The command line imports the requests and commands from here.
"""

from __future__ import annotations

from podwhy.engine.checkmanifests import CheckRequest, check
from podwhy.engine.config import scheduler_config
from podwhy.engine.explainpod import ExplainRequest, explain
from podwhy.engine.lookup import find_pod, split_pod_ref
from podwhy.engine.pendingpods import PendingRequest, pending

__all__ = [
    "CheckRequest",
    "ExplainRequest",
    "PendingRequest",
    "check",
    "explain",
    "find_pod",
    "pending",
    "scheduler_config",
    "split_pod_ref",
]
