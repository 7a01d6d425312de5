"""podwhy's own questions, answered with typed facts: what keeps pods Pending (pending), changes
that would make a pod fit (suggest), whether an autoscaler will add a node (autoscaling)."""
