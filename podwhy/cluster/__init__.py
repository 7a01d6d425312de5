"""The rest of Kubernetes around the scheduler, where podwhy stands in for it.

`apiserver/` is kube-apiserver (defaulting, validation, warnings, admission/ with one module per
plugin), `controllers/` the kube-controller-manager's controllers (one module per controller);
`manifests.py` is `kubectl apply -f` (objects read, then created through the API server, each
workload's pods as its controller names them) and `placement.py` `check`'s placement of replicas
(the scheduler's schedule, bind, unbind, pin and preempt, and still the turns of the controllers'
rollouts; the typed reasons in `placementreasons.py`). `kubelet.py`
stays here: the kubelet is neither server nor controller. So do `nodecopy.py` and `template.py`:
they emulate Cluster Autoscaler's new nodes (its template node, and the DaemonSet and static pods
a new node runs without the scheduler), another component of the cluster, which analysis/'s
suggestions and autoscalers read. `kueue/` is Kueue, which decides whether a queued Workload is
admitted (its quotas, flavors and queues).
"""
