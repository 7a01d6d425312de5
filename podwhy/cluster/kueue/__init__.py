"""Kueue's scheduler and controllers: why a Workload is or is not admitted.

Kueue v0.20 (kueue.x-k8s.io/v1beta2), one module per upstream area: `requests` is pkg/workload's
count of a Workload's requests, `resources` pkg/resources (amounts and how they print),
`resourcenode` pkg/cache/scheduler's quota tree (ClusterQueues, Cohorts, usage, available),
`flavorassigner` pkg/scheduler/flavorassigner, `blockers` the controllers' and the scheduler's
queue checks (LocalQueue, ClusterQueue, namespace), `order` pkg/cache/queue's order of pending
Workloads, `admission` the scheduler's nomination of one Workload, `names` the reasons, messages
and feature gates. Facts only, in Kueue's own words; preemption, topology-aware scheduling,
admission checks, MultiKueue and fair sharing are not emulated and say so.
"""
