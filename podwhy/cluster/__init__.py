"""The rest of Kubernetes around the scheduler, where podwhy stands in for it.

`apiserver/` is kube-apiserver (defaulting, validation, warnings, admission/ with one module per
plugin), `controllers/` the kube-controller-manager's controllers (one module per controller,
`manager.py` handing each workload to its own, which reach the scheduler through
`podcontrol.Scheduler`); `manifests.py` is `kubectl apply -f` (objects read, then created through
the API server) and `workloads.py` each workload as created (its controller's objects, its pods as
that controller names them); `placement.py` is kube-scheduler's side of `check`'s placement
(schedule, bind, unbind, pin, preempt) and `check.py` drives the controllers and the scheduler
in turn (the typed facts the report reads in `placementreasons.py`). `kubelet.py`
stays here: the kubelet is neither server nor controller. So do `nodecopy.py` and `template.py`:
they emulate Cluster Autoscaler's new nodes (its template node, and the DaemonSet and static pods
a new node runs without the scheduler), another component of the cluster, which analysis/'s
suggestions and autoscalers read. `kueue/` is Kueue, which decides whether a queued Workload is
admitted (its quotas, flavors and queues).
"""
