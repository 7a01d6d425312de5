"""kube-scheduler around its framework (upstream's pkg/scheduler): loading and defaulting a
KubeSchedulerConfiguration into profiles, the scheduling cycle (schedule_one.go), which scheduler
serves a pod, and the per-release data of every emulated release."""
