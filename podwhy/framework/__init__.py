"""kube-scheduler's framework (pkg/scheduler/framework): the plugins' contracts and the runtime."""
